//! ferrocute's kernel modules, declared once: sources, generated header, targets.
//!
//! `build.rs` builds and embeds exactly these; the run-time tables name their module by
//! the constants here, and a GPU can use a module when one of its targets runs there.

use crate::build::KernelModule;
use crate::Target;

/// The Ampere-class module (cp.async, ldmatrix, mma.sync), with the simple kernel and the
/// repacking copy: an sm_80 cubin for every sm_8x GPU, an sm_90 one for Hopper, and PTX
/// that later GPUs JIT-compile.
pub const SM80_GEMM: &str = "sm80_gemm";
/// The persistent TMA + WGMMA tiles (sm_90a only).
pub const SM90_GEMM: &str = "sm90_gemm";
/// The small-M tiles that split K over a cluster (sm_90a only).
pub const SM90_SPLITK: &str = "sm90_splitk";
/// The register-streaming kernels for `m <= 16` (Hopper).
pub const SM90_SKINNY: &str = "sm90_skinny";

/// The PTX ISA every module is declared as before ptxas assembles it: that of CUDA 12.9,
/// whose ptxas builds the shipped cubins, so that CUDA 12 drivers (R525+, by CUDA's
/// minor-version compatibility) load them; the kernels use no instruction newer than it.
pub const PTX_ISA: Option<&str> = Some("8.8");

/// Every kernel module of the crate.
pub static MODULES: &[KernelModule] = &[
    KernelModule {
        name: SM80_GEMM,
        source: "sm80_gemm.cu",
        deps: &[
            "sm80_gemm.cu",
            "sm80_gemm.cuh",
            "gemm_params.h",
            "epilogue_ops.cuh",
            "repack.cuh",
        ],
        header_macro: "FERROCUTE_CONFIG_HEADER",
        header: crate::sm80::render_sm80_header,
        ptx_arch: "80",
        ptx_isa: PTX_ISA,
        targets: &[Target::Cubin("80"), Target::Cubin("90"), Target::Ptx("80")],
    },
    KernelModule {
        name: SM90_GEMM,
        source: "sm90_gemm.cu",
        deps: &[
            "sm90_gemm.cu",
            "sm90_gemm.cuh",
            "sm90/",
            "gemm_params.h",
            "epilogue_ops.cuh",
        ],
        header_macro: "FERROCUTE_SM90_CONFIG_HEADER",
        header: crate::sm90_gemm::render_sm90_header,
        ptx_arch: "90a",
        ptx_isa: PTX_ISA,
        targets: &[Target::Cubin("90a")],
    },
    KernelModule {
        name: SM90_SPLITK,
        source: "sm90_splitk.cu",
        deps: &[
            "sm90_splitk.cu",
            "sm90_splitk.cuh",
            "sm90_gemm.cuh",
            "sm90/",
            "gemm_params.h",
            "epilogue_ops.cuh",
        ],
        header_macro: "FERROCUTE_SPLITK_CONFIG_HEADER",
        header: crate::sm90_splitk::render_splitk_header,
        ptx_arch: "90a",
        ptx_isa: PTX_ISA,
        targets: &[Target::Cubin("90a")],
    },
    KernelModule {
        name: SM90_SKINNY,
        source: "sm90_skinny.cu",
        deps: &[
            "sm90_skinny.cu",
            "sm90_skinny.cuh",
            "gemm_params.h",
            "epilogue_ops.cuh",
        ],
        header_macro: "FERROCUTE_SKINNY_CONFIG_HEADER",
        header: crate::sm90_skinny::render_skinny_header,
        ptx_arch: "90",
        ptx_isa: PTX_ISA,
        targets: &[Target::Cubin("90")],
    },
];
