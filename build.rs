//! Builds ferrocute's kernel modules (`ferrocute_kernels::registry::MODULES`) with the
//! scheme of `ferrocute_kernels::build`: the committed artifacts in `ptx/` are used as they
//! are while the kernel sources and configurations match `ptx/MANIFEST` (so docs.rs and
//! machines without nvcc build from them); nvcc runs only when they changed or
//! `FERROCUTE_REBUILD_KERNELS=1` asks for it. Without the `gemm` feature nothing is built.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    #[cfg(feature = "gemm")]
    {
        use ferrocute_kernels::build::{build, Folders};
        use std::path::PathBuf;
        let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
        let dirs = Folders {
            kernel_dir: root.join("src/kernels"),
            artifact_dir: root.join("ptx"),
            out_dir: PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR")),
        };
        build(ferrocute_kernels::registry::MODULES, &dirs);
    }
}
