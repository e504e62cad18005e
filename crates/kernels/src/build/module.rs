//! [`Module`] and [`build_crate`]: the build scheme for a downstream crate's own kernels.

use super::header::{is_snake, Header};
use super::kernel::Kernel;
use super::{build_units, launcher, Folders, Unit};
use crate::artifact::Target;
use std::path::PathBuf;

/// The macro through which a downstream kernel source includes its generated header:
/// `#include FERROCUTE_MODULE_HEADER`.
pub const MODULE_HEADER_MACRO: &str = "FERROCUTE_MODULE_HEADER";

/// Environment variable naming the packages (comma-separated `CARGO_PKG_NAME`s) whose
/// modules [`build_crate`] rebuilds even when fresh. A variable of its own, and a list,
/// because every build script of the build sees it: `FERROCUTE_REBUILD_KERNELS` would
/// rebuild ferrocute's GEMM kernels too, and a dependency's kernels live in cargo's
/// registry, which a rebuild must not write to.
pub const CRATE_REBUILD_ENV: &str = "FERROCUTE_REBUILD_CRATES";

/// A kernel module of a downstream crate: one `.cu` translation unit, the files it depends
/// on, its generated [`Header`], its [`Kernel`]s, and what is shipped.
///
/// By default the module is compiled to `compute_80` PTX declared as PTX ISA 8.8 and
/// shipped as `sm_80` and `sm_90` cubins plus that PTX, like ferrocute's own sm80 module:
/// machine code for Ampere, Ada and Hopper, the PTX JIT-compiled on later GPUs.
///
/// ```
/// use ferrocute_kernels::build::{dim, Elem, Header, Kernel, Module};
/// let m = Module::new("scale", "scale.cu")
///     .header(Header::new().constant("THREADS", 256))
///     .kernel(
///         Kernel::new("scale_f32")
///             .input("x", Elem::F32, dim("n"))
///             .output("y", Elem::F32, dim("n"))
///             .dim("n", Elem::I32)
///             .block([256, 1, 1])
///             .grid([dim("n").div_ceil(256), 1.into(), 1.into()]),
///     );
/// assert!(m.render_header().contains("extern \"C\" __global__ void scale_f32("));
/// ```
#[derive(Clone, Debug)]
pub struct Module {
    pub(crate) name: String,
    pub(crate) source: String,
    pub(crate) deps: Vec<String>,
    pub(crate) header: Header,
    pub(crate) kernels: Vec<Kernel>,
    pub(crate) ptx_arch: &'static str,
    pub(crate) ptx_isa: Option<&'static str>,
    pub(crate) targets: Vec<Target>,
    pub(crate) launcher: String,
}

impl Module {
    /// Module `name` (`snake_case`; artifacts `<name>.<target>.{cubin,ptx}.zst`, header
    /// `<name>_configs.h`, Rust `OUT_DIR/<name>.rs` with launcher struct `UpperCamelCase`
    /// of the name) compiled from `source`, which is also its one dependency until
    /// [`Module::deps`] says otherwise.
    ///
    /// # Panics
    /// If `name` is not `snake_case`.
    pub fn new(name: &str, source: &str) -> Module {
        assert!(is_snake(name), "Module::new: {name:?} is not snake_case");
        Module {
            name: name.to_string(),
            source: source.to_string(),
            deps: vec![source.to_string()],
            header: Header::new(),
            kernels: Vec::new(),
            ptx_arch: "80",
            ptx_isa: Some("8.8"),
            targets: vec![Target::Cubin("80"), Target::Cubin("90"), Target::Ptx("80")],
            launcher: camel(name),
        }
    }

    /// The files (or folders, ending in `/`) of the kernel folder the module is built
    /// from, its source included; their bytes enter the module's hash.
    pub fn deps(mut self, deps: &[&str]) -> Module {
        self.deps = deps.iter().map(|d| d.to_string()).collect();
        self
    }

    /// The generated header's constants and layouts.
    pub fn header(mut self, header: Header) -> Module {
        self.header = header;
        self
    }

    /// Adds an entry point.
    ///
    /// # Panics
    /// If its sizes name a dimension it lacks, or the name is taken.
    pub fn kernel(mut self, kernel: Kernel) -> Module {
        kernel.check_sizes();
        assert!(
            self.kernels.iter().all(|k| k.name != kernel.name),
            "Module {}: kernel {} is declared twice",
            self.name,
            kernel.name
        );
        assert!(
            !kernel.name.starts_with("check_") && kernel.name != "new" && kernel.name != "stream",
            "Module {}: kernel name {} is taken by the launcher",
            self.name,
            kernel.name
        );
        self.kernels.push(kernel);
        self
    }

    /// The virtual architecture nvcc compiles to (`"80"`, `"90a"`) and the forms shipped
    /// (cubins assembled from that PTX, and/or the PTX).
    pub fn targets(mut self, ptx_arch: &'static str, targets: &[Target]) -> Module {
        self.ptx_arch = ptx_arch;
        self.targets = targets.to_vec();
        self
    }

    /// The PTX ISA the PTX is declared as before ptxas assembles it (see
    /// [`KernelModule::ptx_isa`](super::KernelModule::ptx_isa)); `None` keeps nvcc's.
    pub fn ptx_isa(mut self, isa: Option<&'static str>) -> Module {
        self.ptx_isa = isa;
        self
    }

    /// The generated launcher struct's name (default: the module name in `UpperCamelCase`).
    pub fn launcher(mut self, name: &str) -> Module {
        self.launcher = name.to_string();
        self
    }

    /// The header the source includes: constants, layouts, kernel prototypes.
    pub fn render_header(&self) -> String {
        self.header.render(&self.kernels)
    }

    fn unit(&self) -> Unit<'_> {
        Unit {
            name: &self.name,
            source: &self.source,
            deps: self.deps.iter().map(String::as_str).collect(),
            header_macro: MODULE_HEADER_MACRO,
            header: self.render_header(),
            ptx_arch: self.ptx_arch,
            ptx_isa: self.ptx_isa,
            targets: &self.targets,
            force_include: true,
        }
    }
}

impl Folders {
    /// The folders of the crate whose build script runs: `kernel_dir` and `artifact_dir`
    /// relative to its `CARGO_MANIFEST_DIR`, and cargo's `OUT_DIR`.
    ///
    /// # Panics
    /// Outside a build script (no `CARGO_MANIFEST_DIR` or `OUT_DIR`).
    pub fn for_crate(kernel_dir: &str, artifact_dir: &str) -> Folders {
        let var = |v: &str| {
            PathBuf::from(
                std::env::var_os(v).unwrap_or_else(|| panic!("{v} is unset: not a build script")),
            )
        };
        let root = var("CARGO_MANIFEST_DIR");
        Folders {
            kernel_dir: root.join(kernel_dir),
            artifact_dir: root.join(artifact_dir),
            out_dir: var("OUT_DIR"),
        }
    }
}

/// Builds a downstream crate's kernel modules with the scheme of [`super::build`]
/// (committed artifacts used while `MANIFEST` matches; nvcc only for changed modules, or
/// for all when [`CRATE_REBUILD_ENV`] names the crate), and writes `OUT_DIR/<module>.rs` for each: the header's
/// constants, the embedded artifacts and the launcher struct, for the crate to `include!`
/// (it names `::ferrocute`, so the crate depends on `ferrocute` with its `gemm` feature).
///
/// The artifact folder must be committed, and shipped in the crate's package.
///
/// ```no_run
/// // build.rs
/// use ferrocute_kernels::build::{build_crate, Folders, Module};
/// build_crate(&[Module::new("scale", "scale.cu")], &Folders::for_crate("kernels", "artifacts"));
/// ```
///
/// # Panics
/// A build error: a module's sources changed and no toolchain was found (naming what to
/// set), nvcc failed, or a file of the kernel folder belongs to no module.
pub fn build_crate(modules: &[Module], dirs: &Folders) {
    println!("cargo:rerun-if-env-changed={CRATE_REBUILD_ENV}");
    let package = std::env::var("CARGO_PKG_NAME").unwrap_or_default();
    let force = std::env::var(CRATE_REBUILD_ENV)
        .is_ok_and(|list| list.split(',').any(|p| p.trim() == package));
    let units: Vec<Unit> = modules.iter().map(Module::unit).collect();
    build_units(&units, dirs, &|_| force);
    for m in modules {
        let path = dirs.out_dir.join(format!("{}.rs", m.name));
        std::fs::write(&path, launcher::render(m, &dirs.artifact_dir))
            .unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
    }
}

/// `snake_case` to `UpperCamelCase`.
fn camel(name: &str) -> String {
    name.split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::{dim, Elem};

    #[test]
    fn launcher_name_is_camel_case() {
        assert_eq!(camel("row_softmax2"), "RowSoftmax2");
        assert_eq!(Module::new("transpose", "t.cu").launcher, "Transpose");
    }

    #[test]
    #[should_panic(expected = "names k, which is no dimension")]
    fn sizes_name_declared_dimensions() {
        let _ = Module::new("m", "m.cu").kernel(Kernel::new("f").input("x", Elem::F32, dim("k")));
    }

    #[test]
    #[should_panic(expected = "clashes")]
    fn a_length_name_does_not_shadow_a_parameter() {
        let _ = Kernel::new("f")
            .input("x", Elem::F32, 1.into())
            .dim("x_len", Elem::I32);
    }

    #[test]
    fn generated_launcher_checks_before_it_launches() {
        let k = Kernel::new("scale_f32")
            .input("x", Elem::F32, dim("n"))
            .output("y", Elem::F32, dim("n") * 2)
            .dim("n", Elem::I32)
            .scalar("alpha", Elem::F32)
            .block([128, 1, 1])
            .grid([dim("n").div_ceil(128), 1.into(), 1.into()]);
        let m = Module::new("scale", "scale.cu").kernel(k);
        let rs = launcher::render(&m, std::path::Path::new("/a"));
        for want in [
            "pub struct Scale {",
            "pub static SCALE_ARTIFACTS: ::ferrocute::kernels::ModuleArtifacts",
            "include_bytes!(\"/a/scale.sm_80.cubin.zst\")",
            "let dims = Self::check_scale_f32(x.len(), y.len(), n)?;",
            "::ferrocute::runtime::same_context(stream, y.stream(), \"y\")?;",
            "let (y, _sync1) = y.device_ptr_mut(stream);",
            "::ferrocute::runtime::Arg::dim(::ferrocute::runtime::ArgType::I32, \"n\", n)?",
            "::ferrocute::runtime::Arg::F32(alpha)",
            "::ferrocute::runtime::check_len(\"y\", Some(n).zip(Some(2_u64)).and_then(|(x, y)| x.checked_mul(y)), y_len)?;",
            "::ferrocute::runtime::LaunchDims::new([Some(n).map(|x| x.div_ceil(128)), Some(1_u64), Some(1_u64)], [128, 1, 1], 0)",
        ] {
            assert!(rs.contains(want), "missing {want:?} in\n{rs}");
        }
    }
}
