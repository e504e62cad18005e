//! Renders the kernel configurations (Rust layout types, `src/kernel_config.rs`) into a CuTe
//! C++ header, compiles the kernel templates in `src/kernels/` with nvcc to PTX, and hands
//! the PTX to the crate through `OUT_DIR`.
//!
//! - nvcc: `$NVCC`, else `$CUDA_HOME/bin/nvcc`, else `nvcc` on `PATH`, else the PyPI
//!   toolchain in `.toolchain/` (what `.ci/run` installs).
//! - CuTe headers: `$CUTLASS_DIR` (the folder holding `include/cute`; for the PyPI wheel
//!   `.../cutlass_library/source`), else `.toolchain/cutlass_library/source`.
//! - `ptx/MANIFEST` records a hash of the kernel sources, the rendered configurations and
//!   the nvcc flags, plus nvcc's version. When it matches, the committed `ptx/` is used as
//!   is. When it does not and nvcc is here, the PTX is rebuilt (and, with
//!   `FERROCUTE_WRITE_PTX=1`, written back to `ptx/`); without nvcc that is a build error
//!   (`FERROCUTE_ALLOW_STALE_PTX=1` overrides it). `FERROCUTE_REBUILD_PTX=1` rebuilds
//!   regardless.
#![allow(dead_code, unused_imports, unused_macros, clippy::all)]

// The layout algebra and the configurations, compiled into this build script too, so the
// configurations are rendered by the very types the crate checks.
#[path = "src/algebra/mod.rs"]
mod algebra;
#[path = "src/dyn_layout.rs"]
mod dyn_layout;
#[path = "src/error.rs"]
mod error;
#[path = "src/expr.rs"]
mod expr;
#[path = "src/flat.rs"]
mod flat;
#[path = "src/int.rs"]
mod int;
#[path = "src/int_tuple.rs"]
mod int_tuple;
#[path = "src/kernel_config.rs"]
mod kernel_config;
#[path = "src/kind.rs"]
mod kind;
#[path = "src/layout.rs"]
mod layout;
#[path = "src/layout_like.rs"]
mod layout_like;
#[path = "src/macros.rs"]
mod macros;
#[path = "src/op.rs"]
mod op;
#[path = "src/opcode.rs"]
mod opcode;
#[path = "src/operand.rs"]
mod operand;
#[path = "src/ops.rs"]
mod ops;
#[path = "src/render.rs"]
mod render;
#[path = "src/swizzle.rs"]
mod swizzle;
#[path = "src/tup.rs"]
mod tup;
#[path = "src/value.rs"]
mod value;

pub use error::{Condition, LayoutError};
pub use int::{Free, Int, C};
pub use layout::Layout;
pub use ops::*;
pub use swizzle::Swizzle;
pub use tup::Tup;

use std::path::{Path, PathBuf};
use std::process::Command;

/// One instantiation unit: source, config header it includes, nvcc target.
struct Unit {
    name: &'static str,
    source: &'static str,
    header_macro: &'static str,
    header: fn() -> String,
    arch: &'static str,
    /// The GPU a cubin is also built for (ptxas), so that it loads without a PTX JIT.
    cubin: &'static str,
}

const UNITS: &[Unit] = &[
    Unit {
        name: "sm80_gemm",
        source: "src/kernels/sm80_gemm.cu",
        header_macro: "FERROCUTE_CONFIG_HEADER",
        header: kernel_config::render_sm80_header,
        arch: "-gencode=arch=compute_80,code=compute_80",
        cubin: "sm_90",
    },
    Unit {
        name: "sm90_gemm",
        source: "src/kernels/sm90_gemm.cu",
        header_macro: "FERROCUTE_SM90_CONFIG_HEADER",
        header: kernel_config::render_sm90_header,
        arch: "-gencode=arch=compute_90a,code=compute_90a",
        cubin: "sm_90a",
    },
];

const NVCC_FLAGS: &[&str] = &[
    "-std=c++17",
    "-O3",
    "-DNDEBUG",
    "--expt-relaxed-constexpr",
    "--ptx",
];

fn fnv1a(bytes: &[u8], mut h: u64) -> u64 {
    for b in bytes {
        h ^= *b as u64;
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    h
}

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    for v in [
        "NVCC",
        "CUDA_HOME",
        "CUTLASS_DIR",
        "FERROCUTE_WRITE_PTX",
        "FERROCUTE_REBUILD_PTX",
        "FERROCUTE_ALLOW_STALE_PTX",
    ] {
        println!("cargo:rerun-if-env-changed={v}");
    }
    println!("cargo:rerun-if-changed=src/kernels");
    println!("cargo:rerun-if-changed=src/kernel_config.rs");
    println!("cargo:rerun-if-changed=ptx");

    // Hash of everything the PTX depends on except the compiler.
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    let mut kernel_files: Vec<PathBuf> = std::fs::read_dir(root.join("src/kernels"))
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    kernel_files.retain(|p| {
        p.is_file()
            && matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("cu" | "cuh" | "h")
            )
            && !p.to_string_lossy().contains("example_configs")
    });
    kernel_files.sort();
    for f in &kernel_files {
        h = fnv1a(f.file_name().unwrap().to_string_lossy().as_bytes(), h);
        h = fnv1a(&std::fs::read(f).unwrap_or_default(), h);
    }
    for u in UNITS {
        let header = (u.header)();
        std::fs::write(out.join(format!("{}_configs.h", u.name)), &header).unwrap();
        h = fnv1a(header.as_bytes(), h);
        h = fnv1a(u.arch.as_bytes(), h);
        h = fnv1a(u.cubin.as_bytes(), h);
    }
    for f in NVCC_FLAGS {
        h = fnv1a(f.as_bytes(), h);
    }
    let sources_hash = format!("{h:016x}");

    let manifest_path = root.join("ptx/MANIFEST");
    let committed = std::fs::read_to_string(&manifest_path).unwrap_or_default();
    let committed_hash = committed
        .lines()
        .find_map(|l| l.strip_prefix("sources "))
        .unwrap_or("")
        .to_string();
    let committed_nvcc = committed
        .lines()
        .find_map(|l| l.strip_prefix("nvcc "))
        .unwrap_or("")
        .to_string();

    let toolchain = root.join(".toolchain");
    let nvcc = find_nvcc(&toolchain);
    let cutlass = find_cutlass(&toolchain);
    let nvcc_version = nvcc.as_ref().and_then(|n| version_of(n));
    let force = std::env::var_os("FERROCUTE_REBUILD_PTX").is_some();
    let write_back = std::env::var_os("FERROCUTE_WRITE_PTX").is_some();
    let fresh = committed_hash == sources_hash
        && nvcc_version
            .as_deref()
            .map_or(true, |v| v == committed_nvcc);

    let can_build = nvcc.is_some() && cutlass.is_some();
    if (force || write_back || !fresh) && can_build {
        let nvcc = nvcc.unwrap();
        let cutlass = cutlass.unwrap();
        for u in UNITS {
            let ptx = out.join(format!("{}.ptx", u.name));
            let status = Command::new(&nvcc)
                .args(NVCC_FLAGS)
                .arg(u.arch)
                .arg(format!("-I{}", cutlass.join("include").display()))
                .arg(format!("-I{}", root.join("src/kernels").display()))
                .arg(format!("-I{}", out.display()))
                .arg(format!("-D{}=\"{}_configs.h\"", u.header_macro, u.name))
                .arg(root.join(u.source))
                .arg("-o")
                .arg(&ptx)
                .status();
            match status {
                Ok(s) if s.success() => {}
                other => panic!("nvcc failed on {}: {other:?}", u.source),
            }
            normalize_ptx(&ptx);
            let cubin = out.join(cubin_name(u));
            let status = Command::new(nvcc.with_file_name("ptxas"))
                .args(["-O3", &format!("-arch={}", u.cubin)])
                .arg(&ptx)
                .arg("-o")
                .arg(&cubin)
                .status();
            match status {
                Ok(s) if s.success() => {}
                other => panic!("ptxas failed on {}: {other:?}", ptx.display()),
            }
            if write_back {
                std::fs::copy(&ptx, root.join(format!("ptx/{}.ptx", u.name))).unwrap();
                std::fs::copy(&cubin, root.join(format!("ptx/{}", cubin_name(u)))).unwrap();
            }
        }
        if write_back {
            let m = format!(
                "sources {sources_hash}\nnvcc {}\n",
                nvcc_version.unwrap_or_default()
            );
            std::fs::write(&manifest_path, m).unwrap();
        } else if !fresh {
            println!(
                "cargo:warning=ferrocute: ptx/ is stale (kernel sources, configurations or nvcc changed); \
                 built fresh PTX into OUT_DIR. Run `FERROCUTE_WRITE_PTX=1 cargo build` to update ptx/."
            );
        }
        return;
    }
    if force || write_back {
        panic!("FERROCUTE_REBUILD_PTX/FERROCUTE_WRITE_PTX set but nvcc or the CuTe headers were not found (set NVCC and CUTLASS_DIR)");
    }
    if !fresh && std::env::var_os("FERROCUTE_ALLOW_STALE_PTX").is_none() {
        // Stale PTX would launch with launch geometry (shared memory, threads, parameters)
        // from the current sources: refuse rather than risk out-of-bounds kernels.
        panic!(
            "ferrocute: ptx/ does not match the kernel sources (manifest {committed_hash}, sources {sources_hash}) \
             and nvcc/CuTe headers are not available to rebuild it. Set NVCC and CUTLASS_DIR, or \
             FERROCUTE_ALLOW_STALE_PTX=1 to build with the committed PTX anyway."
        );
    }
    if !can_build {
        println!(
            "cargo:warning=ferrocute: nvcc or the CuTe headers were not found (set NVCC/CUDA_HOME and CUTLASS_DIR); \
             using the committed PTX and cubins in ptx/"
        );
    }
    for u in UNITS {
        for file in [format!("{}.ptx", u.name), cubin_name(u)] {
            let src = root.join("ptx").join(&file);
            let dst = out.join(&file);
            if std::fs::copy(&src, &dst).is_err() {
                println!(
                    "cargo:warning=ferrocute: {} missing; GEMM kernels will report a load error",
                    src.display()
                );
                std::fs::write(&dst, "").unwrap();
            }
        }
    }
}

/// nvcc names internal-linkage symbols `_INTERNAL_<8 hex>_...` and anonymous namespaces
/// `_GLOBAL__N__<8 hex>_...` with a hash of where the source file lives; zeroing it makes the
/// PTX (and the cubin) the same on every checkout, so CI can compare them byte for byte. The
/// names stay unique within the module.
fn normalize_ptx(path: &Path) {
    let mut text = std::fs::read_to_string(path).expect("read PTX");
    for key in ["_INTERNAL_", "_GLOBAL__N__"] {
        let mut out = String::with_capacity(text.len());
        let mut rest = text.as_str();
        while let Some(i) = rest.find(key) {
            let (head, tail) = rest.split_at(i + key.len());
            out.push_str(head);
            let hex = tail.len() > 8 && tail.as_bytes()[..8].iter().all(u8::is_ascii_hexdigit);
            if hex && tail.as_bytes()[8] == b'_' {
                out.push_str("00000000");
                rest = &tail[8..];
            } else {
                rest = tail;
            }
        }
        out.push_str(rest);
        text = out;
    }
    std::fs::write(path, text).expect("write PTX");
}

fn cubin_name(u: &Unit) -> String {
    format!("{}.{}.cubin", u.name, u.cubin)
}

fn find_nvcc(toolchain: &Path) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("NVCC") {
        return Some(PathBuf::from(p));
    }
    if let Some(h) = std::env::var_os("CUDA_HOME") {
        let p = PathBuf::from(h).join("bin/nvcc");
        if p.exists() {
            return Some(p);
        }
    }
    if let Some(path) = std::env::var_os("PATH") {
        for d in std::env::split_paths(&path) {
            let p = d.join("nvcc");
            if p.exists() {
                return Some(p);
            }
        }
    }
    let p = toolchain.join("nvidia/cu13/bin/nvcc");
    p.exists().then_some(p)
}

fn find_cutlass(toolchain: &Path) -> Option<PathBuf> {
    let p = std::env::var_os("CUTLASS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| toolchain.join("cutlass_library/source"));
    p.join("include/cute").exists().then_some(p)
}

/// nvcc's release line, e.g. `Cuda compilation tools, release 13.0, V13.0.88`.
fn version_of(nvcc: &Path) -> Option<String> {
    let o = Command::new(nvcc).arg("--version").output().ok()?;
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .find(|l| l.contains("release"))
        .map(str::to_string)
}
