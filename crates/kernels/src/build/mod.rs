//! The build side: renders configuration types into C++ headers, compiles kernel modules
//! with nvcc only when their sources changed (or when asked), and keeps the compiled
//! artifacts committed and compressed, so that a crate using it builds with Rust alone.
//!
//! A crate's `build.rs` declares its modules once ([`KernelModule`]) and calls [`build`]:
//!
//! - each module's generated header is written to `OUT_DIR`, and a hash of its sources,
//!   the header, the nvcc flags and its targets is compared with the committed
//!   `MANIFEST` in the artifact folder;
//! - a module whose hash matches uses its committed artifacts as they are, whatever nvcc
//!   (if any) is installed;
//! - a module whose hash differs, or one asked for ([`REBUILD_ENV`] for ferrocute's own,
//!   by name or all; [`CRATE_REBUILD_ENV`] for a downstream crate's, all of them), is
//!   compiled with nvcc and the CuTe headers ([`Toolchain`]) and its artifacts and
//!   `MANIFEST` line are written back (an artifact whose decompressed bytes are unchanged
//!   is left untouched, so `git diff` shows exactly what a rebuild changed); without a
//!   toolchain that is a build error naming what to set;
//! - `OUT_DIR/kernel_registry.rs` is generated: a `static` slice of
//!   [`ModuleArtifacts`](crate::ModuleArtifacts) embedding every artifact, for the crate
//!   to `include!`.
//!
//! # Kernels of a downstream crate
//!
//! A crate with CuTe kernels of its own declares them as [`Module`]s in its `build.rs` and
//! calls [`build_crate`], which runs the same scheme and generates, per module, a header
//! (`#include FERROCUTE_MODULE_HEADER`: [`Header`] constants, layout types rendered from
//! `ferrocute-layout`, and the `extern "C"` prototype of each [`Kernel`]) and
//! `OUT_DIR/<module>.rs`: a launcher struct whose methods check every argument (buffer
//! lengths from [`SizeExpr`]s of the dimensions, contexts, integer ranges, grid limits)
//! and return `ferrocute::runtime::Error` instead of launching with bad input.
//!
//! ```no_run
//! // build.rs of a crate with `kernels/scale.cu` and `ferrocute-kernels` as a
//! // build-dependency (and `ferrocute` as a dependency)
//! use ferrocute_kernels::build::{build_crate, dim, Elem, Folders, Header, Kernel, Module};
//! let scale = Module::new("scale", "scale.cu")
//!     .header(Header::new().constant("THREADS", 256))
//!     .kernel(
//!         Kernel::new("scale_f32")
//!             .input("x", Elem::F32, dim("n"))
//!             .output("y", Elem::F32, dim("n"))
//!             .dim("n", Elem::I32)
//!             .scalar("alpha", Elem::F32)
//!             .block([256, 1, 1])
//!             .grid([dim("n").div_ceil(256), 1.into(), 1.into()]),
//!     );
//! build_crate(&[scale], &Folders::for_crate("kernels", "artifacts"));
//! // src/main.rs: include!(concat!(env!("OUT_DIR"), "/scale.rs"));
//! //              Scale::new(stream)?.scale_f32(&x, &mut y, n, 2.0)?;
//! ```

mod compile;
mod header;
mod kernel;
mod launcher;
mod manifest;
mod module;
mod size;
mod toolchain;

pub use header::Header;
pub use kernel::{Elem, Kernel, Param};
pub use module::{build_crate, Module, CRATE_REBUILD_ENV, MODULE_HEADER_MACRO};
pub use size::{dim, SizeExpr};
pub use toolchain::Toolchain;

use crate::artifact::Target;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One kernel module: a `.cu` translation unit, the header it includes, what it is
/// compiled for.
#[derive(Clone, Copy, Debug)]
pub struct KernelModule {
    /// Module name; artifacts are `<name>.<target>.{cubin,ptx}.zst`.
    pub name: &'static str,
    /// The translation unit, relative to the kernel folder.
    pub source: &'static str,
    /// Files (or folders, ending in `/`) of the kernel folder it depends on; every file
    /// of the folder must belong to some module, so no edit escapes the hashes.
    pub deps: &'static [&'static str],
    /// The macro through which the source includes its generated header
    /// (`-D<macro>="<name>_configs.h"`).
    pub header_macro: &'static str,
    /// Renders the generated header.
    pub header: fn() -> String,
    /// The virtual architecture nvcc compiles to PTX (`"80"`, `"90a"`); every target is
    /// produced from that PTX.
    pub ptx_arch: &'static str,
    /// The PTX ISA version the PTX is declared as before ptxas assembles it (`"8.8"`), or
    /// `None` for nvcc's own. nvcc declares the newest ISA it knows, which ties the
    /// artifacts to its toolkit's driver; declaring the oldest ISA that holds every
    /// instruction the module uses lets an older ptxas assemble it (ptxas rejects
    /// instructions its ISA lacks) and older drivers load the result.
    pub ptx_isa: Option<&'static str>,
    /// What is shipped: cubins (by ptxas from the PTX) and/or the PTX itself.
    pub targets: &'static [Target],
}

/// Where a crate keeps its kernels.
#[derive(Clone, Debug)]
pub struct Folders {
    /// The `.cu`/`.cuh` folder.
    pub kernel_dir: PathBuf,
    /// The committed artifact folder (compressed artifacts and `MANIFEST`).
    pub artifact_dir: PathBuf,
    /// Cargo's `OUT_DIR`.
    pub out_dir: PathBuf,
}

/// nvcc flags every module is compiled with (besides the architecture and include paths).
pub const NVCC_FLAGS: &[&str] = &[
    "-std=c++17",
    "-O3",
    "-DNDEBUG",
    "--expt-relaxed-constexpr",
    "--ptx",
];

/// Environment variable naming the ptxas that assembles the cubins (default: the one
/// beside nvcc): an older CUDA's ptxas gives cubins that older drivers load.
pub const PTXAS_ENV: &str = "PTXAS";

/// Environment variable that forces modules of ferrocute's own ([`build`]) to be rebuilt:
/// `1` every one, or a comma-separated list of module names those ([`rebuild_asked`]);
/// downstream crates have [`CRATE_REBUILD_ENV`].
pub const REBUILD_ENV: &str = "FERROCUTE_REBUILD_KERNELS";

/// Whether [`REBUILD_ENV`]'s `value` asks for `module` to be rebuilt: `1` asks for every
/// module, a comma-separated list of names for those; empty or `0` for none. A list lets CI
/// reproduce just the modules whose artifacts a change brings.
///
/// ```
/// use ferrocute_kernels::build::rebuild_asked;
/// assert!(rebuild_asked("1", "sm90_gemm"));
/// assert!(rebuild_asked("sm80_gemm, sm90_gemm", "sm90_gemm"));
/// assert!(!rebuild_asked("sm90_gemm", "sm90_splitk"));
/// assert!(!rebuild_asked("0", "sm90_gemm") && !rebuild_asked("", "sm90_gemm"));
/// ```
pub fn rebuild_asked(value: &str, module: &str) -> bool {
    match value.trim() {
        "1" => true,
        "" | "0" => false,
        list => list.split(',').any(|name| name.trim() == module),
    }
}

/// Renders, checks, (re)builds when needed, and writes `OUT_DIR/kernel_registry.rs`.
/// Prints cargo's `rerun-if` lines. Panics (a build error) with what to do when a module's
/// sources changed and no toolchain is found.
pub fn build(modules: &[KernelModule], dirs: &Folders) {
    println!("cargo:rerun-if-env-changed={REBUILD_ENV}");
    let asked = std::env::var(REBUILD_ENV).unwrap_or_default();
    let units: Vec<Unit> = modules.iter().map(Unit::of_registry).collect();
    let names: Vec<&str> = units.iter().map(|u| u.name).collect();
    // A list of names (not `1` or `0`): warn about those of no module.
    if !matches!(asked.trim(), "" | "0" | "1") {
        let unknown = asked
            .split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty() && !names.contains(n));
        for name in unknown {
            println!(
                "cargo:warning={REBUILD_ENV} names {name:?}, no kernel module (they are {names:?}): ignored"
            );
        }
    }
    build_units(&units, dirs, &|name| rebuild_asked(&asked, name));
    write_registry(modules, dirs);
}

/// A module as the pipeline sees it, with its header rendered: one of ferrocute's own
/// ([`KernelModule`]) or a downstream crate's ([`Module`]).
pub(crate) struct Unit<'a> {
    pub(crate) name: &'a str,
    pub(crate) source: &'a str,
    pub(crate) deps: Vec<&'a str>,
    pub(crate) header_macro: &'a str,
    pub(crate) header: String,
    pub(crate) ptx_arch: &'static str,
    pub(crate) ptx_isa: Option<&'a str>,
    pub(crate) targets: &'a [Target],
    /// Whether nvcc includes the generated header before the source (`-include`), so that
    /// a source which does not include it still meets its kernels' prototypes: a
    /// downstream crate's launchers rely on them.
    pub(crate) force_include: bool,
}

impl Unit<'static> {
    fn of_registry(m: &KernelModule) -> Unit<'static> {
        Unit {
            name: m.name,
            source: m.source,
            deps: m.deps.to_vec(),
            header_macro: m.header_macro,
            header: (m.header)(),
            ptx_arch: m.ptx_arch,
            ptx_isa: m.ptx_isa,
            targets: m.targets,
            force_include: false,
        }
    }
}

/// Writes the headers, compares the hashes with the committed `MANIFEST` and rebuilds the
/// stale modules (see the module documentation) and those `force` names.
pub(crate) fn build_units(units: &[Unit], dirs: &Folders, force: &dyn Fn(&str) -> bool) {
    for v in [PTXAS_ENV, "NVCC", "CUDA_HOME", "CUTLASS_DIR"] {
        println!("cargo:rerun-if-env-changed={v}");
    }
    println!("cargo:rerun-if-changed={}", dirs.kernel_dir.display());
    println!("cargo:rerun-if-changed={}", dirs.artifact_dir.display());
    // Artifacts among the sources would enter the hashes they are checked against.
    assert!(
        !dirs.artifact_dir.starts_with(&dirs.kernel_dir),
        "the artifact folder {} lies in the kernel folder {}: keep them apart",
        dirs.artifact_dir.display(),
        dirs.kernel_dir.display()
    );
    check_every_file_owned(units, &dirs.kernel_dir);

    let hashes: Vec<String> = units
        .iter()
        .map(|m| {
            let path = dirs.out_dir.join(format!("{}_configs.h", m.name));
            std::fs::write(&path, &m.header).expect("write generated header");
            manifest::module_hash(m, &dirs.kernel_dir)
        })
        .collect();
    let mut committed = manifest::Manifest::read(&dirs.artifact_dir);
    let stale: Vec<(&Unit, &String)> = units
        .iter()
        .zip(&hashes)
        .filter(|(m, h)| force(m.name) || committed.module_hash(m.name) != Some(h.as_str()))
        .collect();
    if stale.is_empty() {
        return;
    }
    let names: Vec<&str> = stale.iter().map(|(m, _)| m.name).collect();
    let tc = Toolchain::find().unwrap_or_else(|why| {
        panic!(
            "kernel modules {names:?}: {} changed since the committed artifacts in {} were \
             built, and they cannot be rebuilt: {why}. Set NVCC (or CUDA_HOME) and \
             CUTLASS_DIR (the folder holding include/cute), or restore the sources.",
            if stale.iter().any(|(m, _)| force(m.name)) {
                "a rebuild was asked for, or sources"
            } else {
                "the sources"
            },
            dirs.artifact_dir.display()
        )
    });
    // One nvcc per module, side by side: the largest module alone takes most of a rebuild.
    let built: Vec<Vec<(String, Vec<u8>)>> = std::thread::scope(|s| {
        let jobs: Vec<_> = stale
            .iter()
            .map(|(m, _)| s.spawn(|| compile::module(m, dirs, &tc)))
            .collect();
        jobs.into_iter()
            .map(|j| j.join().expect("nvcc job"))
            .collect()
    });
    for ((m, h), files) in stale.iter().zip(built) {
        for (file, bytes) in files {
            let digest = compile::store(&dirs.artifact_dir, &file, &bytes, &tc.zstd);
            committed.set_artifact(&file, &digest);
        }
        committed.set_module(m.name, h);
    }
    committed.set_tools(&tc.version, &tc.ptxas_version);
    committed.write(&dirs.artifact_dir);
    println!(
        "cargo:warning=rebuilt kernel modules {names:?} with {} and ptxas {} into {}",
        tc.version,
        tc.ptxas_version,
        dirs.artifact_dir.display()
    );
}

/// Panics if a file of the kernel folder belongs to no module.
fn check_every_file_owned(units: &[Unit], dir: &Path) {
    for file in manifest::files_under(dir, "") {
        let owned = units.iter().any(|m| {
            m.deps
                .iter()
                .any(|d| file == *d || (d.ends_with('/') && file.starts_with(d)))
        });
        assert!(
            owned,
            "{}/{file} belongs to no kernel module's deps",
            dir.display()
        );
    }
}

/// `OUT_DIR/kernel_registry.rs`: every module's artifacts, embedded.
fn write_registry(modules: &[KernelModule], dirs: &Folders) {
    let mut s = String::from(
        "// Generated by ferrocute_kernels::build from the module registry. Do not edit.\n\
         /// Every kernel module's embedded artifacts.\n\
         pub static MODULE_ARTIFACTS: &[ferrocute_kernels::ModuleArtifacts] = &[\n",
    );
    for m in modules {
        let _ = writeln!(
            s,
            "    ferrocute_kernels::ModuleArtifacts {{ module: {:?}, artifacts: &[",
            m.name
        );
        for t in m.targets {
            let path = dirs
                .artifact_dir
                .join(format!("{}.zst", t.file_name(m.name)));
            let _ = writeln!(
                s,
                "        ferrocute_kernels::Artifact {{ target: ferrocute_kernels::Target::{t:?}, zst: include_bytes!({:?}) }},",
                path.display().to_string()
            );
        }
        s += "    ] },\n";
    }
    s += "];\n";
    std::fs::write(dirs.out_dir.join("kernel_registry.rs"), s).expect("write registry");
}
