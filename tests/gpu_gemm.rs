//! GEMM tests. Validation tests run anywhere (pure functions); GPU tests skip
//! with a printed reason when there is no CUDA driver/GPU, or when the PTX in
//! use cannot be loaded (the embedded placeholder), and otherwise compare to
//! an f64 CPU reference (small) and to cuBLAS (large).

use std::sync::Arc;

use cudarc::cublas::{sys as blas_sys, CudaBlas};
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut, DeviceRepr};
use ferrocute::gemm::config::{dispatch, grid_dims, select, TailSplit, SIMPLE_KERNEL};
use ferrocute::gemm::{
    plan, Error, Gemm, GemmDesc, InputElem, Layout, MatMut, MatRef, MatShape, Operand, OutputElem,
    Staging,
};
use half::{bf16, f16};

mod common;
use common::*;

// ------------------------------------------------------- validation (no GPU)

#[test]
fn shape_mismatch_reports_shapes() {
    let mut d = desc(4, 5, 6);
    d.b = od(7, 5, Layout::ColMajor, 0x20_0000);
    assert_eq!(
        plan(&d),
        Err(Error::ShapeMismatch {
            a: (4, 6),
            b: (7, 5),
            c: (4, 5)
        })
    );
}

#[test]
fn batch_mismatch() {
    let mut d = desc(4, 5, 6);
    d.a.shape.batch = 2;
    d.a.shape.batch_stride = 24;
    d.a.len = 48;
    d.c.shape.batch = 3;
    d.c.shape.batch_stride = 20;
    d.c.len = 60;
    assert_eq!(plan(&d), Err(Error::BatchMismatch { a: 2, b: 1, c: 3 }));
}

#[test]
fn buffer_too_short_reports_needed_and_len() {
    let mut d = desc(4, 5, 6);
    d.a.shape.ld = 8; // row-major 4x6 with ld 8: needs 3*8+6 = 30
    d.a.len = 29;
    assert_eq!(
        plan(&d),
        Err(Error::BufferTooShort {
            operand: Operand::A,
            needed: 30,
            len: 29
        })
    );
    let mut d = desc(4, 5, 6);
    d.c.shape.batch = 2;
    d.c.shape.batch_stride = 32;
    d.c.len = 51; // needs 32 + 20 = 52
    assert_eq!(
        plan(&d),
        Err(Error::BufferTooShort {
            operand: Operand::C,
            needed: 52,
            len: 51
        })
    );
}

#[test]
fn leading_dimension_too_small() {
    let mut d = desc(4, 5, 6);
    d.b.shape.ld = 5; // col-major 6x5: ld >= 6
    assert_eq!(
        plan(&d),
        Err(Error::LeadingDimension {
            operand: Operand::B,
            ld: 5,
            min: 6
        })
    );
}

#[test]
fn output_batch_stride_overlap() {
    let mut d = desc(4, 5, 6);
    d.c.shape.batch = 2;
    d.c.shape.batch_stride = 10;
    d.c.len = 1000;
    assert_eq!(
        plan(&d),
        Err(Error::BatchStrideOverlap {
            operand: Operand::C,
            stride: 10,
            min: 20
        })
    );
    // Inputs may overlap across batches (stride 0 broadcast too).
    let mut d = desc(4, 5, 6);
    d.c.shape.batch = 2;
    d.c.shape.batch_stride = 20;
    d.c.len = 40;
    d.a.shape.batch = 2;
    d.a.shape.batch_stride = 0;
    assert!(plan(&d).is_ok());
}

#[test]
fn output_overlapping_inputs() {
    let mut d = desc(4, 5, 6);
    d.c.ptr = d.a.ptr + 8; // inside A's 48 bytes
    assert_eq!(plan(&d), Err(Error::Overlap { input: Operand::A }));
    let mut d = desc(4, 5, 6);
    d.c.ptr = d.b.ptr - 4 * 20 + 4; // C's 80 bytes end inside B
    assert_eq!(plan(&d), Err(Error::Overlap { input: Operand::B }));
    let mut d = desc(4, 5, 6);
    d.c.ptr = d.a.ptr + 48; // adjacent, not overlapping
    assert!(plan(&d).is_ok());
}

#[test]
fn misaligned_even_for_simple_kernel() {
    let mut d = desc(4, 5, 6);
    d.c.ptr += 2; // f32 output at a 2-byte address
    assert_eq!(
        plan(&d),
        Err(Error::Misaligned {
            operand: Operand::C,
            ptr: 0x30_0002,
            align: 4
        })
    );
}

#[test]
fn i32_overflow_of_dimensions() {
    let big = i32::MAX as usize + 1;
    let mut d = desc(1, 1, 1);
    d.a = od(big, 1, Layout::ColMajor, 0x1_0000_0000);
    d.c = od(big, 1, Layout::ColMajor, 0x10_0000_0000);
    assert_eq!(
        plan(&d),
        Err(Error::Overflow {
            what: "m",
            value: big as u64,
            limit: i32::MAX as u64
        })
    );
    // Element span overflowing usize/i64.
    let mut d = desc(4, 5, 6);
    d.a.shape.ld = usize::MAX / 2;
    d.a.len = usize::MAX;
    assert!(matches!(plan(&d), Err(Error::Overflow { .. })));
    // Grid limits (batch goes to grid.z <= 65535).
    assert!(matches!(
        grid_dims(&SIMPLE_KERNEL, 16, 16, 70_000, 132, 1),
        Err(Error::Overflow {
            what: "grid.z (batch)",
            ..
        })
    ));
}

#[test]
fn empty_dimensions() {
    // m == 0: no-op, no kernel.
    let d = desc(0, 5, 6);
    let ds = dispatch(&d, "bf16", "f32", (9, 0), 132).unwrap();
    assert!(ds.config.is_none() && ds.kernel.is_empty());
    // k == 0: C = beta*C through the simple kernel.
    let d = desc(64, 64, 0);
    let ds = dispatch(&d, "bf16", "f32", (9, 0), 132).unwrap();
    assert_eq!(ds.config.unwrap().name, SIMPLE_KERNEL.name);
    assert_eq!(ds.plan.k, 0);
}

#[test]
fn unsupported_architecture() {
    let p = plan(&desc(64, 64, 64)).unwrap();
    assert_eq!(
        select(&p, (7, 5), 80),
        Err(Error::UnsupportedArch {
            kernel: SIMPLE_KERNEL.name.to_string(),
            needed: SIMPLE_KERNEL.min_arch,
            found: (7, 5)
        })
    );
}

#[test]
fn misalignment_takes_narrower_reads() {
    let aligned = desc(256, 256, 256);
    let fast = dispatch(&aligned, "bf16", "f32", (9, 0), 132).unwrap();
    assert!(fast.kernel.contains("sm90"), "{}", fast.kernel);
    // (pointer offset in elements, ld of B) -> the Ampere-class tile reading that many
    // elements at a time.
    for ((offset, ldb), vec) in [
        ((1, 256), "v1"),
        ((2, 256), "v1"),
        ((4, 256), "v4"),
        ((0, 260), "v4"),
        ((0, 258), "v1"),
        ((0, 257), "v1"),
    ] {
        let mut d = aligned;
        d.a.ptr += 2 * offset;
        d.b.shape.ld = ldb;
        d.b.len = ldb * 256;
        let ds = dispatch(&d, "bf16", "f32", (9, 0), 132).unwrap();
        assert_eq!(
            ds.config.unwrap().name,
            format!("sm80_128x128x32_s3_{vec}"),
            "offset {offset}, ldb {ldb}"
        );
    }
    // k = 0 leaves C = beta C to the simple kernel.
    let ds = dispatch(&desc(256, 256, 0), "bf16", "f32", (9, 0), 132).unwrap();
    assert_eq!(ds.config.unwrap().name, SIMPLE_KERNEL.name);
    assert!(ds.kernel.starts_with("ferrocute_gemm_simple_"));
}

#[test]
fn operand_mapping_all_transposes() {
    // (A layout, B layout, C layout) -> (swapped, kernel A K-major, kernel B K-major)
    for la in LAYOUTS {
        for lb in LAYOUTS {
            for lc in LAYOUTS {
                let d = GemmDesc {
                    a: od(8, 16, la, 0x1000),
                    b: od(16, 24, lb, 0x2000),
                    c: od(8, 24, lc, 0x3000),
                    in_bytes: 2,
                    out_bytes: 2,
                };
                let p = plan(&d).unwrap();
                let row = |l| l == Layout::RowMajor;
                if lc == Layout::ColMajor {
                    assert!(!p.swapped);
                    assert_eq!((p.m, p.n, p.k), (8, 24, 16));
                    assert_eq!(p.a.k_major, row(la));
                    assert_eq!(p.b.k_major, !row(lb));
                    assert_eq!((p.a.ptr, p.b.ptr), (0x1000, 0x2000));
                } else {
                    assert!(p.swapped);
                    assert_eq!((p.m, p.n, p.k), (24, 8, 16));
                    // kernel A = B^T (24x16): K-major iff B^T row-major iff B col-major.
                    assert_eq!(p.a.k_major, !row(lb));
                    assert_eq!(p.b.k_major, row(la));
                    assert_eq!((p.a.ptr, p.b.ptr), (0x2000, 0x1000));
                }
                assert_eq!(p.c.ld, if lc == Layout::ColMajor { 8 } else { 24 });
            }
        }
    }
}

#[test]
fn kernel_names() {
    let ds = dispatch(&desc(256, 256, 64), "f16", "bf16", (8, 0), 4).unwrap();
    assert_eq!(ds.kernel, "ferrocute_sm80_128x128x32_s3_kk_f16_bf16");
    let ds = dispatch(&desc(256, 256, 64), "bf16", "f32", (8, 0), 1000).unwrap();
    // Too few 128x128 tiles to fill 1000 SMs: the smaller tile wins.
    assert_eq!(ds.kernel, "ferrocute_sm80_64x64x32_s3_kk_bf16_f32");
    // On Hopper the TMA kernels take aligned problems: the large pingpong tile when it
    // fills the GPU, else small tiles.
    let ds = dispatch(&desc(2048, 2048, 64), "bf16", "bf16", (9, 0), 132).unwrap();
    assert_eq!(ds.kernel, "ferrocute_sm90_128x128x64_s6_pp_kk_bf16_bf16");
    // Where the tiles fill the GPU, the one whose waves cost least: tiles per SM (rounded
    // up) x tile area x the tile's measured cost per unit (the 128x256 tile from K = 4096).
    for ((m, n, k), tile) in [
        // 8 units: 4 of 128x256 (cheapest per unit) against 8 of 128x128, 6 of 128x192
        ((4096, 4096, 4096), "128x256x64_s4_coop"),
        ((4096, 4096, 8192), "128x256x64_s4_coop"),
        // 128 tiles of 128x256, one per SM (2 units) against 2 of 128x128
        ((2048, 2048, 8192), "128x256x64_s4_coop"),
        // K below 4096: 8 tiles of 128x128 against 6 of 128x192 (9 units)
        ((4096, 4096, 4088), "128x128x64_s6_pp"),
        ((2048, 2048, 2048), "128x128x64_s6_pp"),
        // 3072³: 5 tiles of 128x128 per SM against 3 of 128x192 (4.5 units)
        ((3072, 3072, 3072), "128x192x64_s4_pp"),
        // 8192³: 32 units of 128x128 or 128x256 against 21 tiles of 128x192 (31.5)
        ((8192, 8192, 8192), "128x192x64_s4_pp"),
        ((8192, 8192, 1024), "128x192x64_s4_pp"),
    ] {
        let mut d = desc(m, n, k);
        (d.a.ptr, d.b.ptr, d.c.ptr) = (1 << 32, 2 << 32, 3 << 32);
        let ds = dispatch(&d, "bf16", "bf16", (9, 0), 132).unwrap();
        assert_eq!(
            ds.kernel,
            format!("ferrocute_sm90_{tile}_kk_bf16_bf16"),
            "{m}x{n}x{k}"
        );
    }
    // A part-empty last round split along K, on the tiles weighed with it: (tiles, parts)
    // and the grid of one CTA per SM, or whole tiles.
    for ((m, n, k), tile, (tiles, splits)) in [
        ((2560, 2560, 2560), "128x128x64_s6_pp", (4, 5)),
        ((1537, 1531, 4104), "128x128x64_s6_pp", (24, 5)),
        ((1537, 2630, 1000), "128x128x64_s6_pp", (9, 4)),
        ((1537, 3000, 1000), "128x128x64_s6_pp", (48, 2)),
        ((1537, 3000, 4104), "128x256x64_s4_coop", (24, 5)),
        ((5120, 5120, 5120), "128x256x64_s4_coop", (8, 8)),
        ((4096, 4096, 4096), "128x256x64_s4_coop", (0, 0)),
        ((3072, 3072, 3072), "128x192x64_s4_pp", (0, 0)),
    ] {
        let mut d = desc(m, n, k);
        (d.a.ptr, d.b.ptr, d.c.ptr) = (1 << 32, 2 << 32, 3 << 32);
        let ds = dispatch(&d, "bf16", "bf16", (9, 0), 132).unwrap();
        assert_eq!(
            (ds.kernel, ds.tail),
            (
                format!("ferrocute_sm90_{tile}_kk_bf16_bf16"),
                TailSplit { tiles, splits }
            ),
            "{m}x{n}x{k}"
        );
        assert_eq!(ds.grid.0 == 132, splits > 0 || m * n >= 132 * 128 * 128);
    }
    let ds = dispatch(&desc(256, 256, 64), "bf16", "bf16", (9, 0), 132).unwrap();
    assert_eq!(ds.kernel, "ferrocute_sm90_splitk_64x128x64_s9_kk_bf16_bf16");
    assert_eq!((ds.grid, ds.cluster), ((1, 8, 1), 1));
    // m <= 128: the 64-row split-K tile that holds all of M, with a K split up to a wave.
    for ((m, n, k), tile, grid, splits) in [
        ((17, 4096, 4096), "64x64x64_s13", (2, 64, 1), 2),
        ((64, 1024, 4096), "64x64x64_s13", (4, 16, 1), 4),
        // 4 or 8 splits would be more clusters than fit at once (30 of 4, 15 of 8)
        ((64, 1024, 8192), "64x64x64_s13", (4, 16, 1), 4),
        ((128, 2048, 4096), "128x64x64_s9", (2, 32, 1), 2),
        ((100, 2112, 4096), "128x64x64_s9", (2, 33, 1), 2),
        ((65, 4096, 4096), "128x64x64_s9", (2, 64, 1), 2),
        ((128, 8192, 8192), "128x64x64_s9", (1, 128, 1), 1),
    ] {
        let mut d = desc(m, n, k);
        (d.a.ptr, d.b.ptr, d.c.ptr) = (1 << 32, 2 << 32, 3 << 32);
        let ds = dispatch(&d, "bf16", "bf16", (9, 0), 132).unwrap();
        assert_eq!(
            ds.kernel,
            format!("ferrocute_sm90_splitk_{tile}_kk_bf16_bf16"),
            "{m}x{n}x{k}"
        );
        if std::env::var_os("FERROCUTE_SPLIT_K").is_none() {
            assert_eq!((ds.grid, ds.cluster), (grid, splits), "{m}x{n}x{k}");
        }
    }
    // More N tiles than grid.y holds: the persistent tiles take the problem instead, weighed
    // like any other (43691 tiles of 128x192 cost 331 x 1.5 x 0.97 against 65536 of
    // 128x128 at 497 x 1).
    let mut d = desc(17, 128 * 65536, 64);
    (d.a.ptr, d.b.ptr, d.c.ptr) = (1 << 32, 2 << 32, 3 << 32);
    let ds = dispatch(&d, "bf16", "bf16", (9, 0), 132).unwrap();
    assert_eq!(ds.kernel, "ferrocute_sm90_128x192x64_s4_pp_kk_bf16_bf16");
    // m <= 16, K-major A and B, k % 4 == 0, B up to 32 Mi elements (any, where its rows
    // start on 8 bytes only): B streams through registers, one CTA per 16 rows of N (grid.x, so any N); 8 warps per CTA once the CTAs
    // fill the SMs, else 16.
    let mut d = desc(16, 1 << 21, 8);
    (d.a.ptr, d.b.ptr, d.c.ptr) = (1 << 32, 2 << 32, 3 << 32);
    let ds = dispatch(&d, "bf16", "bf16", (9, 0), 132).unwrap();
    assert_eq!(ds.kernel, "ferrocute_sm90_skinny16_w8_kk_bf16_bf16");
    assert_eq!(ds.grid, (1 << 17, 1, 1));
    for ((m, n, k), want) in [
        ((16, 4096, 4096), Some("skinny16_w8")),
        ((1, 2112, 64), Some("skinny16_w8")),
        ((16, 2096, 64), Some("skinny16_w16")),
        ((7, 1000, 4104), Some("skinny16_w16")),
        ((17, 4096, 4096), None),
        // Rows on 8 bytes only: read in place whatever the size of B.
        ((16, 4096, 4100), Some("skinny16_w8")),
        ((8, 8192, 8196), Some("skinny16_w8")),
        // Rows on 4 bytes: staged for the split-K kernel; B past 32 Mi elements on rows
        // of 16 bytes: the split-K kernel.
        ((16, 4096, 4098), None),
        ((16, 8192, 8192), None),
    ] {
        let mut d = desc(m, n, k);
        (d.a.ptr, d.b.ptr, d.c.ptr) = (1 << 32, 2 << 32, 3 << 32);
        let ds = dispatch(&d, "bf16", "bf16", (9, 0), 132).unwrap();
        match want {
            Some(w) => assert_eq!(ds.kernel, format!("ferrocute_sm90_{w}_kk_bf16_bf16")),
            None => assert!(!ds.kernel.contains("skinny"), "{m}x{n}x{k}: {}", ds.kernel),
        }
        // An M-major A: the same kernel's `mk` entry where A's k rows start on 8 bytes (ld a
        // multiple of 4 elements), never where they do not.
        let mut t = d;
        t.a.shape.layout = Layout::ColMajor;
        for (ld, aligned) in [
            (m.next_multiple_of(4), true),
            (m.next_multiple_of(4) + 2, false),
        ] {
            t.a.shape.ld = ld;
            t.a.len = ld * k;
            let ds = dispatch(&t, "bf16", "bf16", (9, 0), 132).unwrap();
            match want.filter(|_| aligned) {
                Some(w) => assert_eq!(ds.kernel, format!("ferrocute_sm90_{w}_mk_bf16_bf16")),
                None => assert!(
                    !ds.kernel.contains("skinny"),
                    "{m}x{n}x{k} lda {ld}: {}",
                    ds.kernel
                ),
            }
        }
        // An N-major B, or an Ampere GPU: never.
        let mut t = d;
        t.b.shape.layout = Layout::RowMajor;
        t.b.shape.ld = n;
        let ds = dispatch(&t, "bf16", "bf16", (9, 0), 132).unwrap();
        assert!(!ds.kernel.contains("skinny"), "{m}x{n}x{k} N-major B");
        let ds = dispatch(&d, "bf16", "bf16", (8, 0), 108).unwrap();
        assert!(!ds.kernel.contains("skinny"), "{m}x{n}x{k} on sm_80");
    }
}

#[test]
fn error_display_carries_values() {
    let e = Error::LeadingDimension {
        operand: Operand::B,
        ld: 5,
        min: 6,
    };
    let s = e.to_string();
    assert!(s.contains('B') && s.contains('5') && s.contains('6'));
    let boxed: Box<dyn std::error::Error> = Box::new(e);
    assert!(!boxed.to_string().is_empty());
}

#[test]
fn no_device_is_an_error_not_a_panic() {
    match ferrocute::gemm::device_count() {
        Ok(n) => println!("{n} device(s)"),
        Err(e) => {
            assert!(matches!(e, Error::NoDevice { .. }));
            println!("SKIP-ish: {e}");
        }
    }
    match ferrocute::gemm::open_stream(usize::MAX / 2) {
        Ok(_) => panic!("opened an absurd ordinal"),
        Err(e) => assert!(matches!(e, Error::NoDevice { .. }), "{e}"),
    }
}

// --------------------------------------------------------------- GPU tests

#[test]
fn gpu_kernel_load_error_is_clean() {
    let g = match Gemm::open(0) {
        Ok(g) => g,
        Err(e) => return println!("SKIP: {e}"),
    };
    let placeholder = !ferrocute::gemm::config::embedded_ptx("sm80_gemm")
        .unwrap_or("")
        .contains(".entry");
    if !placeholder || std::env::var_os("FERROCUTE_PTX_DIR").is_some() {
        return println!("SKIP: real PTX in use; KernelLoad not reachable");
    }
    let s = g.stream();
    let a = s.clone_htod(&[f16::ONE; 64]).unwrap();
    let mut c = s.alloc_zeros::<f16>(64).unwrap();
    let r = g.gemm(
        1.0,
        &MatRef::new(&a, 8, 8, Layout::RowMajor),
        &MatRef::new(&a, 8, 8, Layout::ColMajor),
        0.0,
        &mut MatMut::new(&mut c, 8, 8, Layout::ColMajor),
    );
    assert!(matches!(r, Err(Error::KernelLoad { .. })), "{r:?}");
}

#[test]
fn gpu_context_mismatch_and_device_overlap() {
    let Some(g) = gpu() else { return };
    let s = g.stream();
    let mut buf = s.alloc_zeros::<bf16>(256).unwrap();
    // Output aliasing input through two views of one buffer is impossible in
    // safe Rust (borrowck), so the overlap check is exercised with another
    // context's buffer + the pure tests above; here: another context.
    let other = cudarc::driver::CudaContext::new_non_primary(0, 0).unwrap();
    let os = other.default_stream();
    let foreign = os.alloc_zeros::<bf16>(256).unwrap();
    let r = g.gemm(
        1.0,
        &MatRef::new(&foreign, 16, 16, Layout::RowMajor),
        &MatRef::new(&foreign, 16, 16, Layout::RowMajor),
        0.0,
        &mut MatMut::new(&mut buf, 16, 16, Layout::ColMajor),
    );
    assert_eq!(
        r.unwrap_err(),
        Error::ContextMismatch {
            operand: Operand::A
        }
    );
    // Buffer too short on a real device.
    let a = s.alloc_zeros::<bf16>(10).unwrap();
    let r = g.gemm(
        1.0,
        &MatRef::new(&a, 4, 4, Layout::RowMajor),
        &MatRef::new(&a, 4, 4, Layout::RowMajor),
        0.0,
        &mut MatMut::new(&mut buf, 4, 4, Layout::ColMajor),
    );
    assert_eq!(
        r.unwrap_err(),
        Error::BufferTooShort {
            operand: Operand::A,
            needed: 16,
            len: 10
        }
    );
}

fn small_sweep<TI: InputElem + Host, TO: OutputElem + Host>(g: &Gemm, seed: u64) {
    let mut rng = Rng(seed);
    let dims = [
        (1, 1, 1),
        (7, 1, 7),
        (7, 127, 129),
        (129, 7, 127),
        (127, 129, 64),
        (33, 70, 0),
    ];
    for ((i, &(m, n, k)), pad) in dims
        .iter()
        .enumerate()
        .flat_map(|d| [(d, d.0 % 3), (d, ALIGN8), (d, ALIGN8_C_ODD)])
    {
        for la in LAYOUTS {
            for lb in LAYOUTS {
                for lc in LAYOUTS {
                    let cs = Case {
                        m,
                        n,
                        k,
                        la,
                        lb,
                        lc,
                        pad,
                        batch: 1,
                        broadcast_b: false,
                        alpha: 1.0,
                        beta: if i % 2 == 0 { 0.0 } else { 0.5 },
                    };
                    run_case::<TI, TO>(g, &mut rng, &cs, None);
                }
            }
        }
    }
}

/// Problems `(m, n, k, pad)` whose leading dimensions are `extent + pad` (odd, 2 and 4 mod 8).
const MISALIGNED: [(usize, usize, usize, usize); 5] = [
    (129, 200, 300, 1),
    (64, 97, 130, 2),
    (100, 64, 257, 4),
    (7, 300, 129, 3),
    (300, 5, 64, 6),
];

/// Each of `shapes` in every A and B layout, as `(i, case)`: case `i` has `1 + i % 2`
/// batches and beta 0 (even `i`, run bf16 to bf16) or 0.5 (odd `i`, f16 to f32).
fn misaligned_cases(shapes: &[(usize, usize, usize, usize)]) -> Vec<(usize, Case)> {
    let mut out = Vec::new();
    for (i, &(m, n, k, pad)) in shapes.iter().enumerate() {
        for la in LAYOUTS {
            for lb in LAYOUTS {
                let cs = Case {
                    m,
                    n,
                    k,
                    la,
                    lb,
                    lc: Layout::ColMajor,
                    pad,
                    batch: 1 + i % 2,
                    broadcast_b: false,
                    alpha: 1.0,
                    beta: if i % 2 == 0 { 0.0 } else { 0.5 },
                };
                out.push((i, cs));
            }
        }
    }
    out
}

/// Leading dimensions that are not multiples of 8 (odd, 2 and 4 mod 8) in every operand
/// layout, read in place, take the Ampere-class tiles with 8-byte or element reads (never
/// the simple kernel), over several k-tiles with edges in every mode; every element
/// against the f64 reference.
#[test]
fn gpu_unaligned_leading_dimensions() {
    let Some(g) = gpu() else { return };
    // In place: on Hopper `Staging::Auto` would copy them for the TMA kernels.
    let g = g.with_staging(Staging::Never);
    let mut rng = Rng(23);
    let mut seen = std::collections::BTreeSet::new();
    for (i, cs) in misaligned_cases(&MISALIGNED) {
        let kernel = if i % 2 == 0 {
            run_case::<bf16, bf16>(&g, &mut rng, &cs, None).kernel
        } else {
            run_case::<f16, f32>(&g, &mut rng, &cs, None).kernel
        };
        assert!(
            !kernel.contains("simple"),
            "{}x{}x{} pad {}: {kernel}",
            cs.m,
            cs.n,
            cs.k,
            cs.pad
        );
        seen.insert(kernel.split("_s3_").nth(1).map(|v| v[..2].to_string()));
    }
    for v in ["v1", "v4"] {
        assert!(
            seen.contains(&Some(v.to_string())),
            "{v} never ran: {seen:?}"
        );
    }
}

/// Operands TMA cannot read in place, copied into the handle's workspace first, and a C
/// that cannot take 16-byte stores written through it: leading dimensions 1 to 6 (mod 8)
/// in every layout, one and two batches (copied batch by batch: the test's batch strides
/// are not whole rows), beta 0 and 0.5, bf16 in and out and f16 in with f32 out, tiles
/// from split-K to the persistent kernels; every element (sampled for the largest)
/// against f64 with C's padding still poisoned, and the staged operands exactly those
/// that are misaligned. With `Staging::Never` the same problems stay on the Ampere-class
/// tiles.
#[test]
fn gpu_staged_operands() {
    let Some(g) = gpu() else { return };
    if g.compute_capability().0 != 9 {
        println!("SKIP: staging feeds the sm_90a TMA kernels");
        return;
    }
    let mut rng = Rng(31);
    for (policy, want_tma) in [(Staging::Auto, true), (Staging::Never, false)] {
        let g = g.clone().with_staging(policy);
        let shapes = [MISALIGNED.as_slice(), &[(1030, 1100, 520, 1)]].concat();
        for (i, cs) in misaligned_cases(&shapes) {
            let (m, n, k, pad, la, lb) = (cs.m, cs.n, cs.k, cs.pad, cs.la, cs.lb);
            let samples = (m * n > 100_000).then_some(20_000);
            let ran = if i % 2 == 0 {
                let r = run_case::<bf16, bf16>(&g, &mut rng, &cs, samples);
                (r.kernel, r.staged, r.shapes)
            } else {
                let r = run_case::<f16, f32>(&g, &mut rng, &cs, samples);
                (r.kernel, r.staged, r.shapes)
            };
            let (kernel, staged, [sa, sb, sc]) = ran;
            // Not a whole number of 16-byte pieces per row or batch.
            let misaligned = |s: &MatShape, elems: usize| {
                s.ld % elems != 0 || (s.batch > 1 && s.batch_stride % elems != 0)
            };
            let d_elems = if i % 2 == 0 { 8 } else { 4 };
            // D through the workspace only with A or B, on the persistent tiles.
            let (wa, wb) = (misaligned(&sa, 8), misaligned(&sb, 8));
            let persistent = !kernel.contains("splitk");
            let wd = misaligned(&sc, d_elems) && (wa || wb) && persistent;
            let want = if want_tma { [wa, wb, wd] } else { [false; 3] };
            assert_eq!(staged, want, "{m}x{n}x{k} pad {pad} {la:?}{lb:?}: {kernel}");
            assert_eq!(
                kernel.starts_with("ferrocute_sm90"),
                want_tma,
                "{m}x{n}x{k} pad {pad} {la:?}{lb:?} {policy:?}: {kernel}"
            );
        }
    }
}

#[test]
fn gpu_small_all_transposes_bf16() {
    let Some(g) = gpu() else { return };
    small_sweep::<bf16, f32>(&g, 1);
    small_sweep::<bf16, bf16>(&g, 2);
}

#[test]
fn gpu_small_all_transposes_f16() {
    let Some(g) = gpu() else { return };
    small_sweep::<f16, f32>(&g, 3);
    small_sweep::<f16, f16>(&g, 4);
}

#[test]
fn gpu_batched_and_broadcast() {
    let Some(g) = gpu() else { return };
    let mut rng = Rng(5);
    for (broadcast_b, beta) in [(false, 0.0), (true, 1.5)] {
        for lc in LAYOUTS {
            let cs = Case {
                m: 37,
                n: 64,
                k: 72,
                la: Layout::RowMajor,
                lb: Layout::ColMajor,
                lc,
                pad: 8,
                batch: 3,
                broadcast_b,
                alpha: -0.75,
                beta,
            };
            run_case::<bf16, f32>(&g, &mut rng, &cs, None);
            run_case::<f16, bf16>(&g, &mut rng, &cs, None);
        }
    }
}

/// The small-tile split-K cluster kernel on Hopper (small M, or under half a wave of large
/// tiles): every K-split count (1, 2, 4, 8), M at and around the 64-row tile edges and over
/// several tiles, every transpose, alpha/beta, batches, two type pairs.
#[test]
fn gpu_split_k() {
    let Some(g) = gpu() else { return };
    let mut rng = Rng(11);
    // (m, n, k, batch, K splits expected on a 132-SM Hopper part with a column-major C)
    let cases = [
        (1, 7, 4096, 1, 4),
        (17, 7, 4096, 1, 4),
        (8, 64, 8192, 1, 8),
        (24, 64, 8192, 1, 8),
        (7, 129, 1000, 1, 1),
        (16, 129, 4104, 1, 4),
        (16, 200, 1504, 3, 1),
        (64, 333, 776, 1, 1),
        (65, 300, 2000, 1, 2),
        (127, 1000, 640, 1, 1),
        (128, 128, 64, 1, 1),
        (300, 500, 2048, 1, 2),
    ];
    for (i, &(m, n, k, batch, splits)) in cases.iter().enumerate() {
        for la in LAYOUTS {
            for lb in LAYOUTS {
                for lc in LAYOUTS {
                    let cs = Case::sweep(i, m, n, k, batch, la, lb, lc);
                    let full = (m * n * k * batch) <= 4_000_000;
                    let samples = if full { None } else { Some(2048) };
                    if i % 2 == 0 {
                        run_case::<bf16, bf16>(&g, &mut rng, &cs, samples);
                    } else {
                        run_case::<f16, f32>(&g, &mut rng, &cs, samples);
                    }
                }
            }
        }
        let mut d = desc(m, n, k);
        (d.a.ptr, d.b.ptr, d.c.ptr) = (1 << 32, 2 << 32, 3 << 32);
        let ds = dispatch(&d, "bf16", "bf16", g.compute_capability(), 132).unwrap();
        if g.compute_capability().0 == 9 {
            // m <= 16 with this (K-major) B streams through registers instead.
            if m <= 16 && k % 8 == 0 {
                assert!(ds.kernel.contains("skinny"), "{m}x{n}x{k}: {}", ds.kernel);
                continue;
            }
            assert!(ds.kernel.contains("splitk"), "{m}x{n}x{k}: {}", ds.kernel);
            if std::env::var_os("FERROCUTE_SPLIT_K").is_none() {
                assert_eq!(ds.cluster, splits, "{m}x{n}x{k}: K splits");
            }
        }
    }
}

/// The K split that ran is the one `dispatch` picks, at the edges of its cluster rule:
/// 30 tiles in clusters of 4 and 15 in clusters of 8 fill exactly the 120 CTAs the H100
/// holds in such clusters (the handle checks with `cuOccupancyMaxActiveClusters`, so a
/// device with other GPCs would split less and fail here), 32 and 16 tiles split less.
#[test]
fn gpu_split_k_clusters_resident() {
    let Some(g) = gpu() else { return };
    if g.compute_capability() != (9, 0) || std::env::var_os("FERROCUTE_SPLIT_K").is_some() {
        eprintln!("skipped: needs an sm_90 GPU and no FERROCUTE_SPLIT_K");
        return;
    }
    let mut rng = Rng(12);
    for (i, (m, n, k, splits)) in [
        (128, 1920, 4096, 4),
        (128, 2048, 4096, 2),
        (64, 960, 8192, 8),
        (64, 1024, 8192, 4),
    ]
    .into_iter()
    .enumerate()
    {
        let cs = Case::sweep(
            i,
            m,
            n,
            k,
            1,
            Layout::RowMajor,
            Layout::ColMajor,
            Layout::ColMajor,
        );
        let ran = run_case::<bf16, bf16>(&g, &mut rng, &cs, Some(2048));
        assert!(ran.kernel.contains("splitk"), "{m}x{n}x{k}: {}", ran.kernel);
        let mut d = desc(m, n, k);
        (d.a.ptr, d.b.ptr, d.c.ptr) = (1 << 32, 2 << 32, 3 << 32);
        let pure = dispatch(&d, "bf16", "bf16", (9, 0), 132).unwrap();
        assert_eq!(
            (ran.cluster, pure.cluster),
            (splits, splits),
            "{m}x{n}x{k}: K splits"
        );
    }
}

/// The register-streaming kernels for m <= 16 (K-major B, A either way, k % 8 == 0): edge
/// sizes of M, N and K, K over 1 to 128 chunks (and split over 8 or 16 warps), both CTA
/// sizes, every transpose (a row-major C swaps the operands: then N <= 16 qualifies), alpha/beta,
/// batches, three type pairs, and GEMVs whose 1 x k A is column-major with ld 1; every
/// element against the f64 reference.
#[test]
fn gpu_skinny() {
    let Some(g) = gpu() else { return };
    let mut rng = Rng(17);
    let cases = [
        (1, 1, 8, 1),
        (13, 129, 8, 1),
        (1, 7, 4096, 1),
        (7, 129, 1000, 1),
        (16, 127, 4104, 1),
        (16, 1000, 64, 1),
        (16, 200, 1504, 3),
        (9, 2112, 520, 1),
        (16, 33, 16384, 1),
        (16, 4096, 4096, 1),
    ];
    let hopper = g.compute_capability().0 == 9;
    for (i, &(m, n, k, batch)) in cases.iter().enumerate() {
        for la in LAYOUTS {
            for lb in LAYOUTS {
                for lc in LAYOUTS {
                    let cs = Case {
                        broadcast_b: i == 6,
                        ..Case::sweep(i, m, n, k, batch, la, lb, lc)
                    };
                    let kernel = match i % 3 {
                        0 => run_case::<bf16, bf16>(&g, &mut rng, &cs, None).kernel,
                        1 => run_case::<f16, f32>(&g, &mut rng, &cs, None).kernel,
                        _ => run_case::<bf16, f16>(&g, &mut rng, &cs, None).kernel,
                    };
                    // The kernel's M is m for a column-major C, else n (A and B swap and
                    // transpose): its B is then A^T, K-major iff A is row-major. Its A may
                    // be either (the leading dimensions here are multiples of 8).
                    let (km, kb_k_major) = if lc == Layout::ColMajor {
                        (m, lb == Layout::ColMajor)
                    } else {
                        (n, la == Layout::RowMajor)
                    };
                    let want = hopper && km <= 16 && kb_k_major;
                    assert_eq!(
                        kernel.contains("skinny"),
                        want,
                        "{m}x{n}x{k} {la:?}{lb:?}{lc:?}: {kernel}"
                    );
                }
            }
        }
    }
    // GEMV: x (1 x k) in either layout, packed (a column-major x has ld 1).
    for (la, n, k) in [
        (Layout::RowMajor, 4096, 4096),
        (Layout::ColMajor, 4096, 4096),
        (Layout::ColMajor, 7, 40),
    ] {
        let cs = Case {
            m: 1,
            n,
            k,
            la,
            lb: Layout::ColMajor,
            lc: Layout::ColMajor,
            pad: 0,
            batch: 1,
            broadcast_b: false,
            alpha: 1.0,
            beta: 0.0,
        };
        let kernel = run_case::<bf16, bf16>(&g, &mut rng, &cs, None).kernel;
        assert_eq!(
            kernel.contains("skinny"),
            hopper,
            "GEMV 1x{n}x{k} {la:?}: {kernel}"
        );
    }
}

/// Rows of A and B that start on 8 but not 16 bytes (K = 4 mod 8, or leading dimensions
/// padded by 4) go to the register-streaming kernel in place, read in 8-byte halves, also
/// past `SKINNY_MAX_B` (8x8192x8196): K residues of 4 in the last piece, M and N edges,
/// batches; every element against f64.
#[test]
fn gpu_skinny_8_byte_rows() {
    let Some(g) = gpu() else { return };
    let hopper = g.compute_capability().0 == 9;
    let mut rng = Rng(19);
    // (m, n, k, batch, pad): pad 0 is packed (ld = k), 4 makes ld = k + 4.
    let cases = [
        (16, 4096, 4100, 1, 0),
        (1, 4096, 4100, 1, 0),
        (8, 8192, 8196, 1, 0),
        (13, 129, 4, 1, 0),
        (7, 300, 1004, 2, 0),
        (16, 1000, 512, 1, 4),
        (3, 77, 1500, 1, 4),
    ];
    for (i, &(m, n, k, batch, pad)) in cases.iter().enumerate() {
        let cs = Case {
            pad,
            ..Case::sweep(
                i,
                m,
                n,
                k,
                batch,
                Layout::RowMajor,
                Layout::ColMajor,
                Layout::ColMajor,
            )
        };
        let ran = if i % 2 == 0 {
            let r = run_case::<bf16, bf16>(&g, &mut rng, &cs, None);
            (r.kernel, r.staged)
        } else {
            let r = run_case::<f16, f32>(&g, &mut rng, &cs, None);
            (r.kernel, r.staged)
        };
        if hopper {
            assert!(ran.0.contains("skinny"), "{m}x{n}x{k} pad {pad}: {}", ran.0);
            assert_eq!(ran.1, [false; 3], "{m}x{n}x{k} pad {pad}: nothing staged");
        }
    }
}

/// A and B choose their access width apart: one of them on 8-byte rows, the other on
/// 16-byte rows (16 x 300 x 1000, K-major, ld 1000 or 1004); every element against f64.
#[test]
fn gpu_skinny_mixed_row_widths() {
    let Some(g) = gpu() else { return };
    let s = g.stream().clone();
    let mut rng = Rng(29);
    let (m, n, k) = (16, 300, 1000);
    for (lda, ldb) in [(1004, 1000), (1000, 1004)] {
        let ha: Vec<bf16> = rng.values(m * lda);
        let hb: Vec<bf16> = rng.values(n * ldb);
        let (da, db) = (s.clone_htod(&ha).unwrap(), s.clone_htod(&hb).unwrap());
        let mut dc = s.clone_htod(&vec![f32::NAN; m * n]).unwrap();
        let d = g
            .gemm(
                1.0,
                &MatRef::new(&da, m, k, Layout::RowMajor).ld(lda),
                &MatRef::new(&db, k, n, Layout::ColMajor).ld(ldb),
                0.0,
                &mut MatMut::new(&mut dc, m, n, Layout::ColMajor),
            )
            .unwrap();
        if g.compute_capability().0 == 9 {
            assert!(
                d.kernel.contains("skinny"),
                "lda {lda} ldb {ldb}: {}",
                d.kernel
            );
            assert_eq!(d.staged, [false; 3], "lda {lda} ldb {ldb}");
        }
        let out: Vec<f32> = s.clone_dtoh(&dc).unwrap();
        for c in 0..n {
            for r in 0..m {
                let (want, abs) = (0..k).fold((0.0f64, 0.0f64), |(w, a), kk| {
                    let x = ha[r * lda + kk].to_f64() * hb[c * ldb + kk].to_f64();
                    (w + x, a + x.abs())
                });
                let got = out[r + c * m] as f64;
                assert!(
                    (got - want).abs() <= (k as f64 + 2.0) * 6.0e-8 * abs + 1e-6,
                    "lda {lda} ldb {ldb} ({r},{c}): got {got}, want {want}"
                );
            }
        }
    }
}

/// An M-major A through the register-streaming kernel: k rows of A on 16 bytes (whole
/// copies, M cut inside a piece) and on 8 bytes only (halves), M from 1 to 16, B on 16- or
/// 8-byte rows, K ending inside a chunk; an A whose k rows start on 4 bytes is staged. Every
/// element against f64, over a NaN-poisoned C (beta 0) or a random one (beta 0.5).
#[test]
fn gpu_skinny_m_major_a() {
    let Some(g) = gpu() else { return };
    let hopper = g.compute_capability().0 == 9;
    let s = g.stream().clone();
    let mut rng = Rng(31);
    // (m, n, k, lda, ldb, beta)
    let cases = [
        (16, 4096, 4096, 16, 4096, 0.0),
        (13, 300, 1000, 16, 1000, 0.5),
        (12, 257, 2052, 12, 2052, 0.0),
        (5, 129, 1504, 8, 1508, 0.5),
        (3, 77, 520, 4, 520, 0.0),
        (16, 1000, 4100, 20, 4100, 0.0),
        (9, 2112, 64, 12, 64, 0.5),
        (1, 33, 4104, 4, 4104, 0.0),
        (6, 100, 512, 6, 512, 0.0),
    ];
    for &(m, n, k, lda, ldb, beta) in &cases {
        let ha: Vec<bf16> = rng.values(lda * k);
        let hb: Vec<bf16> = rng.values(ldb * n);
        let hc: Vec<f32> = (0..m * n)
            .map(|_| {
                if beta == 0.0 {
                    f32::NAN
                } else {
                    rng.next_f32()
                }
            })
            .collect();
        let (da, db) = (s.clone_htod(&ha).unwrap(), s.clone_htod(&hb).unwrap());
        let mut dc = s.clone_htod(&hc).unwrap();
        let d = g
            .gemm(
                1.0,
                &MatRef::new(&da, m, k, Layout::ColMajor).ld(lda),
                &MatRef::new(&db, k, n, Layout::ColMajor).ld(ldb),
                beta,
                &mut MatMut::new(&mut dc, m, n, Layout::ColMajor),
            )
            .unwrap();
        let case = format!("{m}x{n}x{k} lda {lda} ldb {ldb}");
        if hopper {
            // ld 6 puts A's k rows on 4 bytes: A is staged with an ld of 8 first.
            assert!(
                d.kernel.contains("skinny16") && d.kernel.contains("_mk_"),
                "{case}: {}",
                d.kernel
            );
            assert_eq!(d.staged, [lda % 4 != 0, false, false], "{case}");
        }
        let out: Vec<f32> = s.clone_dtoh(&dc).unwrap();
        for c in 0..n {
            for r in 0..m {
                let (dot, abs) = (0..k).fold((0.0f64, 0.0f64), |(w, a), kk| {
                    let x = ha[r + kk * lda].to_f64() * hb[kk + c * ldb].to_f64();
                    (w + x, a + x.abs())
                });
                let cv = if beta == 0.0 {
                    0.0
                } else {
                    hc[r + c * m] as f64
                };
                let want = dot + beta as f64 * cv;
                let got = out[r + c * m] as f64;
                assert!(
                    (got - want).abs() <= (k as f64 + 2.0) * 6.0e-8 * (abs + cv.abs()) + 1e-6,
                    "{case} ({r},{c}): got {got}, want {want}"
                );
            }
        }
    }
}

/// One small problem per A layout through the register-streaming kernel (a column-major A
/// with ld 1 is a vector read as K-major; with ld 16 and 12 it is M-major on 16- and
/// 8-byte k rows), small enough to run under compute-sanitizer.
#[test]
fn gpu_skinny_small() {
    let Some(g) = gpu() else { return };
    let mut rng = Rng(19);
    for (m, la, pad) in [
        (13, Layout::RowMajor, ALIGN8),
        (1, Layout::ColMajor, 0),
        (13, Layout::ColMajor, ALIGN8),
        (12, Layout::ColMajor, 0),
    ] {
        let cs = Case {
            m,
            n: 129,
            k: 1000,
            la,
            lb: Layout::ColMajor,
            lc: Layout::ColMajor,
            pad,
            batch: 2,
            broadcast_b: false,
            alpha: 1.0,
            beta: 0.5,
        };
        let ran = run_case::<bf16, bf16>(&g, &mut rng, &cs, None);
        if g.compute_capability().0 == 9 {
            assert!(ran.kernel.contains("skinny"), "{}", ran.kernel);
        }
    }
}

/// Small split-K problems per operand layout, one for each 64-row tile (4 CTAs per cluster
/// on a 132-SM Hopper part; m = 17 keeps it off the m <= 16 kernels, m = 100 takes the
/// 128 x 64 tile), small enough to run under compute-sanitizer.
#[test]
fn gpu_split_k_small() {
    let Some(g) = gpu() else { return };
    let mut rng = Rng(13);
    for m in [17, 100] {
        for la in LAYOUTS {
            for lb in LAYOUTS {
                let cs = Case {
                    m,
                    n: 129,
                    k: 4096,
                    la,
                    lb,
                    lc: Layout::ColMajor,
                    pad: ALIGN8,
                    batch: 1,
                    broadcast_b: false,
                    alpha: 1.0,
                    beta: 0.5,
                };
                run_case::<bf16, bf16>(&g, &mut rng, &cs, None);
            }
        }
    }
}

/// cuBLAS reference (column-major) for the logical problem, f32 compute.
#[allow(clippy::too_many_arguments)]
fn cublas_ref<TI: DeviceRepr, TO: DeviceRepr>(
    blas: &CudaBlas,
    stream: &Arc<CudaStream>,
    a: &CudaSlice<TI>,
    b: &CudaSlice<TI>,
    c: &mut CudaSlice<TO>,
    shapes: [MatShape; 3],
    alpha: f32,
    beta: f32,
    in_t: blas_sys::cudaDataType,
    out_t: blas_sys::cudaDataType,
) {
    let [mut sa, mut sb, mut sc] = shapes;
    let (pa, _ga) = a.device_ptr(stream);
    let (pb, _gb) = b.device_ptr(stream);
    let (pc, _gc) = c.device_ptr_mut(stream);
    let (mut pa, mut pb) = (pa, pb);
    if sc.layout == Layout::RowMajor {
        // C^T = B^T A^T
        let (ta, tb) = (sb.t(), sa.t());
        sa = ta;
        sb = tb;
        sc = sc.t();
        std::mem::swap(&mut pa, &mut pb);
    }
    let op = |s: &MatShape| {
        if s.layout == Layout::ColMajor {
            blas_sys::cublasOperation_t::CUBLAS_OP_N
        } else {
            blas_sys::cublasOperation_t::CUBLAS_OP_T
        }
    };
    let st = |s: &MatShape| {
        if s.batch == 1 {
            0
        } else {
            s.batch_stride as i64
        }
    };
    // SAFETY: shapes/strides are in bounds of the buffers (same ones ferrocute validated).
    unsafe {
        cudarc::cublas::result::gemm_strided_batched_ex(
            *blas.handle(),
            op(&sa),
            op(&sb),
            sc.rows as i32,
            sc.cols as i32,
            sa.cols as i32,
            &alpha as *const f32 as *const _,
            pa as *const _,
            in_t,
            sa.ld as i32,
            st(&sa),
            pb as *const _,
            in_t,
            sb.ld as i32,
            st(&sb),
            &beta as *const f32 as *const _,
            pc as *mut _,
            out_t,
            sc.ld as i32,
            st(&sc),
            sc.batch as i32,
            blas_sys::cublasComputeType_t::CUBLAS_COMPUTE_32F,
            blas_sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
        )
        .unwrap();
    }
}

#[test]
fn gpu_large_vs_cublas() {
    let Some(g) = gpu() else { return };
    let s = g.stream().clone();
    let blas = CudaBlas::new(s.clone()).unwrap();
    let mut rng = Rng(7);
    let cases = [
        (
            1000,
            4095,
            129,
            Layout::RowMajor,
            Layout::ColMajor,
            Layout::ColMajor,
            1,
        ),
        (
            4095,
            1000,
            1000,
            Layout::ColMajor,
            Layout::ColMajor,
            Layout::ColMajor,
            1,
        ),
        (
            1024,
            512,
            4095,
            Layout::RowMajor,
            Layout::RowMajor,
            Layout::RowMajor,
            1,
        ),
        (
            512,
            1000,
            256,
            Layout::ColMajor,
            Layout::RowMajor,
            Layout::ColMajor,
            4,
        ),
        (
            16,
            4096,
            4096,
            Layout::RowMajor,
            Layout::ColMajor,
            Layout::ColMajor,
            1,
        ),
        (
            128,
            4096,
            4096,
            Layout::ColMajor,
            Layout::ColMajor,
            Layout::ColMajor,
            1,
        ),
    ];
    for ((m, n, k, la, lb, lc, batch), pad) in cases.into_iter().flat_map(|c| [(c, 0), (c, ALIGN8)])
    {
        let cs = Case {
            m,
            n,
            k,
            la,
            lb,
            lc,
            pad,
            batch,
            broadcast_b: false,
            alpha: 1.0,
            beta: 0.0,
        };
        let ran = run_case::<bf16, f32>(&g, &mut rng, &cs, Some(256));
        assert_all_match_cublas(&blas, &s, &ran, &cs);
    }
}

/// Every element of a run with alpha 1 and beta 0 against cuBLAS on the same inputs (bf16
/// in, f32 accumulation, f32 out: our D rounds once more than that), within the output's
/// rounding plus 4e-3 of the RMS of the result; padding between batches keeps its NaN
/// poison.
fn assert_all_match_cublas<TO: Host>(
    blas: &CudaBlas,
    s: &Arc<CudaStream>,
    ran: &Ran<bf16, TO>,
    cs: &Case,
) {
    assert!(
        cs.alpha == 1.0 && cs.beta == 0.0,
        "compared with alpha 1, beta 0"
    );
    let (m, n, k) = (cs.m, cs.n, cs.k);
    let ours: Vec<TO> = s.clone_dtoh(&ran.c).unwrap();
    let mut dref = s.clone_htod(&vec![f32::NAN; ours.len()]).unwrap();
    cublas_ref(
        blas,
        s,
        &ran.a,
        &ran.b,
        &mut dref,
        ran.shapes,
        1.0,
        0.0,
        blas_sys::cudaDataType::CUDA_R_16BF,
        blas_sys::cudaDataType::CUDA_R_32F,
    );
    let want: Vec<f32> = s.clone_dtoh(&dref).unwrap();
    let finite: Vec<f64> = want
        .iter()
        .filter(|x| x.is_finite())
        .map(|x| *x as f64)
        .collect();
    let rms = (finite.iter().map(|x| x * x).sum::<f64>() / finite.len() as f64).sqrt();
    let mut bad = Vec::new();
    for (i, (x, y)) in ours.iter().zip(&want).enumerate() {
        let (x, y) = (x.to_f64(), *y as f64);
        if y.is_nan() {
            assert!(
                x.is_nan(),
                "{m}x{n}x{k} elem {i}: padding overwritten ({x})"
            );
            continue;
        }
        if (x - y).abs() > TO::EPS * y.abs() + 4e-3 * rms || x.is_nan() {
            bad.push((i, x, y));
        }
    }
    if bad.is_empty() {
        return;
    }
    // Where they differ, and what f64 says, so that a failure tells whose result is wrong.
    let ha: Vec<bf16> = s.clone_dtoh(&ran.a).unwrap();
    let hb: Vec<bf16> = s.clone_dtoh(&ran.b).unwrap();
    let [sa, sb, sc] = ran.shapes;
    let report: Vec<String> = bad
        .iter()
        .take(8)
        .map(|&(i, x, y)| {
            let (r, c) = match sc.layout {
                Layout::ColMajor => (i % sc.ld, i / sc.ld),
                Layout::RowMajor => (i / sc.ld, i % sc.ld),
            };
            let f64_ref: f64 = (0..k)
                .map(|kk| ha[idx(&sa, 0, r, kk)].to_f64() * hb[idx(&sb, 0, kk, c)].to_f64())
                .sum();
            format!("({r},{c}): ferrocute {x}, cuBLAS {y}, f64 {f64_ref}")
        })
        .collect();
    panic!(
        "{m}x{n}x{k} {:?}{:?}: {} of {} elements differ from cuBLAS (rms {rms}):\n{}",
        sa.layout,
        sb.layout,
        bad.len(),
        m * n,
        report.join("\n")
    );
}

/// The bench's staged shapes: packed bf16 operands, some of whose leading dimensions
/// (1030, 1531, 1537, 4100 elements) are not whole 16-byte pieces, so those operands (and
/// D, on the persistent tiles) go through the workspace; every transpose, every element against cuBLAS (f32 out), twice each so that
/// a result that depends on timing has two chances to show.
#[test]
fn gpu_staged_large_vs_cublas() {
    let Some(g) = gpu() else { return };
    if g.compute_capability().0 != 9 {
        println!("SKIP: staging feeds the sm_90a TMA kernels");
        return;
    }
    let s = g.stream().clone();
    let blas = CudaBlas::new(s.clone()).unwrap();
    let mut rng = Rng(41);
    for (m, n, k) in [(1537, 3000, 4100), (1537, 1531, 4104), (1030, 1100, 4100)] {
        for la in LAYOUTS {
            for lb in LAYOUTS {
                for _ in 0..2 {
                    let mut cs = Case::sweep(0, m, n, k, 1, la, lb, Layout::ColMajor);
                    cs.pad = 0;
                    let ran = run_case::<bf16, bf16>(&g, &mut rng, &cs, Some(256));
                    assert!(
                        ran.kernel.starts_with("ferrocute_sm90"),
                        "{m}x{n}x{k} {la:?}{lb:?}: {}",
                        ran.kernel
                    );
                    let [sa, sb, _] = ran.shapes;
                    assert_eq!(
                        ran.staged[..2],
                        [sa.ld % 8 != 0, sb.ld % 8 != 0],
                        "{m}x{n}x{k} {la:?}{lb:?}"
                    );
                    assert_all_match_cublas(&blas, &s, &ran, &cs);
                }
            }
        }
    }
}

/// Split tails on a 132-SM H100: the pingpong 128x128 tile at 2560³ (3 rounds and 4 tiles,
/// in 5 parts), 1537x1531x4100 (24 tiles in 5 parts), 1537x2630x1000 (9 in 4) and
/// 1537x3000x1000 (48 in 2), and the cooperative 128x256 tile at 1537x3000x4100 (24 in 5):
/// edges in M, N and K (a K residue in the last k-block), every transpose, bf16 and f32 D,
/// every element against cuBLAS (alpha 1, beta 0, f32 out) and sampled elements against f64
/// with alpha -1.25 and beta 0.5.
/// The launches follow each other on one handle, so each also checks that the one before
/// left its flags zero. On other GPUs the results are checked, the splits not.
#[test]
fn gpu_tail_split() {
    let Some(g) = gpu() else { return };
    let s = g.stream().clone();
    let blas = CudaBlas::new(s.clone()).unwrap();
    let h100 = g.compute_capability() == (9, 0) && g.sm_count() == 132;
    if !h100 {
        println!("note: not a 132-SM sm_90 GPU: results are checked, the tail splits not");
    }
    let mut rng = Rng(23);
    // (m, n, k, tile, tail tiles and parts on 132 SMs)
    let cases = [
        (2560, 2560, 2560, "128x128x64_s6_pp", (4, 5)),
        (1537, 1531, 4100, "128x128x64_s6_pp", (24, 5)),
        (1537, 2630, 1000, "128x128x64_s6_pp", (9, 4)),
        (1537, 3000, 1000, "128x128x64_s6_pp", (48, 2)),
        (1537, 3000, 4100, "128x256x64_s4_coop", (24, 5)),
    ];
    for (i, &(m, n, k, tile, (tiles, splits))) in cases.iter().enumerate() {
        let want = TailSplit { tiles, splits };
        for la in LAYOUTS {
            for lb in LAYOUTS {
                let mut cs = Case::sweep(0, m, n, k, 1, la, lb, Layout::ColMajor);
                cs.alpha = 1.0;
                let (kernel, tail) = if i % 2 == 0 {
                    let ran = run_case::<bf16, bf16>(&g, &mut rng, &cs, Some(512));
                    assert_all_match_cublas(&blas, &s, &ran, &cs);
                    (ran.kernel, ran.tail)
                } else {
                    let ran = run_case::<bf16, f32>(&g, &mut rng, &cs, Some(512));
                    assert_all_match_cublas(&blas, &s, &ran, &cs);
                    (ran.kernel, ran.tail)
                };
                if h100 {
                    assert!(kernel.contains(tile), "{m}x{n}x{k}: {kernel}");
                    assert_eq!(tail, want, "{m}x{n}x{k} {la:?}{lb:?}");
                }
                let cs = Case::sweep(1, m, n, k, 1, la, lb, Layout::ColMajor);
                let ran = run_case::<bf16, f32>(&g, &mut rng, &cs, Some(512));
                if h100 {
                    assert_eq!(ran.tail, want, "{m}x{n}x{k}: alpha/beta run");
                }
            }
        }
    }
}
