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
    /// Every file of `src/kernels/` the unit's PTX depends on (the source included).
    deps: &'static [&'static str],
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
        deps: &[
            "sm80_gemm.cu",
            "sm80_gemm.cuh",
            "gemm_params.h",
            "stage_copy.cuh",
        ],
        header_macro: "FERROCUTE_CONFIG_HEADER",
        header: kernel_config::render_sm80_header,
        arch: "-gencode=arch=compute_80,code=compute_80",
        cubin: "sm_90",
    },
    Unit {
        name: "sm90_gemm",
        source: "src/kernels/sm90_gemm.cu",
        deps: &["sm90_gemm.cu", "sm90_gemm.cuh", "gemm_params.h"],
        header_macro: "FERROCUTE_SM90_CONFIG_HEADER",
        header: kernel_config::render_sm90_header,
        arch: "-gencode=arch=compute_90a,code=compute_90a",
        cubin: "sm_90a",
    },
    Unit {
        name: "sm90_splitk",
        source: "src/kernels/sm90_splitk.cu",
        deps: &[
            "sm90_splitk.cu",
            "sm90_splitk.cuh",
            "sm90_gemm.cuh",
            "gemm_params.h",
        ],
        header_macro: "FERROCUTE_SPLITK_CONFIG_HEADER",
        header: kernel_config::render_splitk_header,
        arch: "-gencode=arch=compute_90a,code=compute_90a",
        cubin: "sm_90a",
    },
    Unit {
        name: "sm90_skinny",
        source: "src/kernels/sm90_skinny.cu",
        deps: &["sm90_skinny.cu", "sm90_skinny.cuh", "gemm_params.h"],
        header_macro: "FERROCUTE_SKINNY_CONFIG_HEADER",
        header: kernel_config::render_skinny_header,
        arch: "-gencode=arch=compute_90,code=compute_90",
        cubin: "sm_90",
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

    // Every kernel file must belong to some unit, so that no edit escapes the hashes.
    let kernels = root.join("src/kernels");
    let mut kernel_files: Vec<String> = std::fs::read_dir(&kernels)
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file())
                .filter_map(|p| p.file_name().map(|f| f.to_string_lossy().into_owned()))
                .collect()
        })
        .unwrap_or_default();
    kernel_files.retain(|f| {
        (f.ends_with(".cu") || f.ends_with(".cuh") || f.ends_with(".h"))
            && !f.contains("example_configs")
    });
    for f in &kernel_files {
        assert!(
            UNITS.iter().any(|u| u.deps.contains(&f.as_str())),
            "build.rs: src/kernels/{f} is not listed in any unit's deps"
        );
    }

    // Per unit: hash of everything its PTX depends on except the compiler.
    let hashes: Vec<String> = UNITS
        .iter()
        .map(|u| {
            let mut h = 0xcbf2_9ce4_8422_2325u64;
            for f in u.deps {
                h = fnv1a(f.as_bytes(), h);
                h = fnv1a(&std::fs::read(kernels.join(f)).unwrap_or_default(), h);
            }
            let header = (u.header)();
            std::fs::write(out.join(format!("{}_configs.h", u.name)), &header).unwrap();
            h = fnv1a(header.as_bytes(), h);
            h = fnv1a(u.arch.as_bytes(), h);
            h = fnv1a(u.cubin.as_bytes(), h);
            for f in NVCC_FLAGS {
                h = fnv1a(f.as_bytes(), h);
            }
            format!("{h:016x}")
        })
        .collect();

    let manifest_path = root.join("ptx/MANIFEST");
    let committed = std::fs::read_to_string(&manifest_path).unwrap_or_default();
    let committed_hash = |name: &str| {
        committed
            .lines()
            .find_map(|l| {
                l.strip_prefix("unit ")?
                    .strip_prefix(name)?
                    .strip_prefix(' ')
            })
            .unwrap_or("")
            .to_string()
    };
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
    let nvcc_same = nvcc_version
        .as_deref()
        .map_or(true, |v| v == committed_nvcc);
    let stale: Vec<bool> = UNITS
        .iter()
        .zip(&hashes)
        .map(|(u, h)| committed_hash(u.name) != *h || !nvcc_same)
        .collect();

    let can_build = nvcc.is_some() && cutlass.is_some();
    if (force || write_back) && !can_build {
        panic!("FERROCUTE_REBUILD_PTX/FERROCUTE_WRITE_PTX set but nvcc or the CuTe headers were not found (set NVCC and CUTLASS_DIR)");
    }
    if stale.iter().any(|s| *s)
        && !can_build
        && std::env::var_os("FERROCUTE_ALLOW_STALE_PTX").is_none()
    {
        // Stale PTX would launch with launch geometry (shared memory, threads, parameters)
        // from the current sources: refuse rather than risk out-of-bounds kernels.
        let names: Vec<&str> = UNITS
            .iter()
            .zip(&stale)
            .filter(|(_, s)| **s)
            .map(|(u, _)| u.name)
            .collect();
        panic!(
            "ferrocute: ptx/ does not match the kernel sources of {names:?} and nvcc/CuTe headers \
             are not available to rebuild it. Set NVCC and CUTLASS_DIR, or \
             FERROCUTE_ALLOW_STALE_PTX=1 to build with the committed PTX anyway."
        );
    }
    if !can_build {
        println!(
            "cargo:warning=ferrocute: nvcc or the CuTe headers were not found (set NVCC/CUDA_HOME and CUTLASS_DIR); \
             using the committed PTX and cubins in ptx/"
        );
    }
    let to_build: Vec<bool> = stale
        .iter()
        .map(|s| can_build && (force || write_back || *s))
        .collect();
    // The units compile side by side: nvcc runs one host process per unit, and the largest
    // (sm90_gemm) alone takes most of a rebuild.
    std::thread::scope(|scope| {
        for (u, _) in UNITS.iter().zip(&to_build).filter(|(_, b)| **b) {
            let (root, out) = (&root, &out);
            let (nvcc, cutlass) = (nvcc.as_ref().unwrap(), cutlass.as_ref().unwrap());
            scope.spawn(move || build_unit(u, root, out, nvcc, cutlass));
        }
    });
    let mut rebuilt = false;
    for (u, build) in UNITS.iter().zip(&to_build) {
        if *build {
            if write_back {
                for file in [format!("{}.ptx", u.name), cubin_name(u)] {
                    std::fs::copy(out.join(&file), root.join("ptx").join(&file)).unwrap();
                }
            }
            rebuilt = true;
        } else {
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
    if write_back {
        let mut m = String::new();
        for (u, h) in UNITS.iter().zip(&hashes) {
            m += &format!("unit {} {h}\n", u.name);
        }
        m += &format!("nvcc {}\n", nvcc_version.unwrap_or_default());
        std::fs::write(&manifest_path, m).unwrap();
    } else if rebuilt && stale.iter().any(|s| *s) {
        println!(
            "cargo:warning=ferrocute: ptx/ is stale (kernel sources, configurations or nvcc changed); \
             built fresh PTX into OUT_DIR. Run `FERROCUTE_WRITE_PTX=1 cargo build` to update ptx/."
        );
    }
}

/// Compiles one unit to PTX (normalised) and to a cubin in `out`.
fn build_unit(u: &Unit, root: &Path, out: &Path, nvcc: &Path, cutlass: &Path) {
    let ptx = out.join(format!("{}.ptx", u.name));
    let status = Command::new(nvcc)
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
