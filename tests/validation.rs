//! Validation and dispatch as pure functions: run anywhere, no GPU.

use ferrocute::gemm::dispatch::{dispatch, dispatch_plan, select, Overrides};
use ferrocute::gemm::geometry::{grid_dims, TailSplit};
use ferrocute::gemm::registry::SIMPLE_KERNEL;
use ferrocute::gemm::{plan, Error, GemmDesc, Matrix, Order};

mod common;
use common::*;

// ------------------------------------------------------- validation (no GPU)

#[test]
fn shape_mismatch_reports_shapes() {
    let mut d = desc(4, 5, 6);
    d.b = od(7, 5, Order::ColMajor, 0x20_0000);
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
            operand: Matrix::A,
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
            operand: Matrix::C,
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
            operand: Matrix::B,
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
            operand: Matrix::C,
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
    assert_eq!(plan(&d), Err(Error::Overlap { input: Matrix::A }));
    let mut d = desc(4, 5, 6);
    d.c.ptr = d.b.ptr - 4 * 20 + 4; // C's 80 bytes end inside B
    assert_eq!(plan(&d), Err(Error::Overlap { input: Matrix::B }));
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
            operand: Matrix::C,
            ptr: 0x30_0002,
            align: 4
        })
    );
}

#[test]
fn i32_overflow_of_dimensions() {
    let big = i32::MAX as usize + 1;
    let mut d = desc(1, 1, 1);
    d.a = od(big, 1, Order::ColMajor, 0x1_0000_0000);
    d.c = od(big, 1, Order::ColMajor, 0x10_0000_0000);
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
                let row = |l| l == Order::RowMajor;
                if lc == Order::ColMajor {
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
                assert_eq!(p.c.ld, if lc == Order::ColMajor { 8 } else { 24 });
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
        ((1537, 2630, 1000), "128x128x64_s6_pp", (9, 4)),
        ((1537, 3000, 1000), "128x128x64_s6_pp", (48, 2)),
        ((1537, 3000, 4104), "128x256x64_s4_coop", (24, 5)),
        ((5120, 5120, 5120), "128x256x64_s4_coop", (8, 8)),
        ((4096, 4096, 4096), "128x256x64_s4_coop", (0, 0)),
        ((3072, 3072, 3072), "128x192x64_s4_pp", (0, 0)),
        // Up to 256 rows the problem streams its weight and a split does not spread the
        // bytes read: a tile in whole rounds (224 tiles of 128x256 in 2) over one that wins
        // only by its split tail (448 of 128x128 in 3 and a split)
        ((256, 28672, 4096), "128x256x64_s4_coop", (0, 0)),
        ((128, 57344, 8192), "128x256x64_s4_coop", (0, 0)),
        ((256, 8192, 8192), "128x128x64_s6_pp", (0, 0)),
    ] {
        let mut d = desc(m, n, k);
        (d.a.ptr, d.b.ptr, d.c.ptr) = (1 << 32, 2 << 32, 3 << 32);
        let ds = dispatch(&d, "bf16", "bf16", (9, 0), 132).unwrap();
        assert_eq!(
            (ds.kernel, ds.tail),
            (
                format!("ferrocute_sm90_{tile}_kk_bf16_bf16"),
                TailSplit {
                    tiles,
                    splits,
                    stream: false
                }
            ),
            "{m}x{n}x{k}"
        );
        assert_eq!(ds.grid.0 == 132, splits > 0 || m * n >= 132 * 128 * 128);
    }
    // 128 < m <= 256 where 128x128 tiles leave SMs idle or fill part of a second wave: the
    // narrowest tile whose tiles fit in one wave (116 of 128x80; 128 of 128x96, where 128x80
    // tiles would be 154; 128 of 128x160, where 128x96 tiles would be 214); an N-major B takes
    // another.
    for ((m, n, k), tile, ctas) in [
        ((256, 4608, 3584), "128x80x64_s8_coop", 116),
        ((192, 6144, 4096), "128x96x64_s7_coop", 128),
        ((256, 10240, 8192), "128x160x64_s5_coop", 128),
    ] {
        let mut d = desc(m, n, k);
        (d.a.ptr, d.b.ptr, d.c.ptr) = (1 << 32, 2 << 32, 3 << 32);
        let ds = dispatch(&d, "bf16", "bf16", (9, 0), 132).unwrap();
        assert_eq!(ds.kernel, format!("ferrocute_sm90_{tile}_kk_bf16_bf16"));
        assert_eq!((ds.grid, ds.tail), ((ctas, 1, 1), TailSplit::default()));
        d.b.shape.layout = Order::RowMajor;
        d.b.shape.ld = n;
        let ds = dispatch(&d, "bf16", "bf16", (9, 0), 132).unwrap();
        assert!(
            !ds.kernel.contains(tile) && ds.kernel.contains("_kn_"),
            "{}",
            ds.kernel
        );
    }
    let ds = dispatch(&desc(256, 256, 64), "bf16", "bf16", (9, 0), 132).unwrap();
    assert_eq!(ds.kernel, "ferrocute_sm90_splitk_64x128x64_s9_kk_bf16_bf16");
    assert_eq!((ds.grid, ds.cluster), ((1, 8, 1), 1));
    // m <= 128: the 64-row split-K tile that holds all of M, with a K split up to a wave;
    for ((m, n, k), tile, grid, splits) in [
        ((17, 4096, 4096), "64x64x64_s13", (2, 64, 1), 2),
        ((64, 1024, 4096), "64x64x64_s13", (4, 16, 1), 4),
        // 4 or 8 splits would be more clusters than fit at once (30 of 4, 15 of 8)
        ((64, 1024, 8192), "64x64x64_s13", (4, 16, 1), 4),
        ((128, 2048, 4096), "128x64x64_s9", (2, 32, 1), 2),
        // (66 tiles of 64 in pairs: not over half the SMs)
        ((100, 2112, 4096), "128x64x64_s9", (2, 33, 1), 2),
        // Where clusters fill one wave: 16 < m <= 64, 4 tiles of N sharing A (72 CTAs);
        // 64 < m <= 256, 2 or 4 tiles of M sharing B (128, 128, 112 and 128 CTAs); no K split.
        ((32, 4608, 3584), "64x64x64_s13_nc4", (4, 18, 1), 4),
        ((65, 4096, 4096), "64x64x64_s13_mc2", (2, 64, 1), 2),
        ((128, 8192, 8192), "64x128x64_s9_mc2", (2, 64, 1), 2),
        ((256, 3584, 3584), "64x128x64_s9_mc4", (4, 28, 1), 4),
        ((200, 4096, 14336), "128x64x64_s9_mc2", (2, 64, 1), 2),
        // 128 < m <= 192: two 96-row tiles in a pair (K-major A), 64 or 128 rows of N.
        ((192, 4096, 14336), "96x64x64_s11_mc2", (2, 64, 1), 2),
        ((160, 8192, 8192), "96x128x64_s8_mc2", (2, 64, 1), 2),
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
    // An M-major A: the 96-row tiles have no entry point for it, the 128-row pair takes it.
    let mut d = desc(192, 4096, 14336);
    d.a = od(192, 14336, Order::ColMajor, 1 << 32);
    (d.b.ptr, d.c.ptr) = (2 << 32, 3 << 32);
    let ds = dispatch(&d, "bf16", "bf16", (9, 0), 132).unwrap();
    assert_eq!(
        ds.kernel,
        "ferrocute_sm90_splitk_128x64x64_s9_mc2_mk_bf16_bf16"
    );
    // More N tiles than grid.y holds: the persistent tiles take the problem instead, weighed
    // like any other (43691 tiles of 128x192 cost 331 x 1.5 x 0.97 against 65536 of
    // 128x128 at 497 x 1).
    let mut d = desc(17, 128 * 65536, 64);
    (d.a.ptr, d.b.ptr, d.c.ptr) = (1 << 32, 2 << 32, 3 << 32);
    let ds = dispatch(&d, "bf16", "bf16", (9, 0), 132).unwrap();
    assert_eq!(ds.kernel, "ferrocute_sm90_128x192x64_s4_pp_kk_bf16_bf16");
    // m <= 16, K-major B, k % 4 == 0, any size of B: B streams through registers in
    // persistent CTAs (2 per SM of 8 warps, or 4 of 4 warps where those hold every tile at
    // once and the 8-warp ones would run a second round at most half full) over tiles of 16
    // rows of N and a part of K, the parts spreading the tiles evenly.
    let mut d = desc(16, 1 << 21, 8);
    (d.a.ptr, d.b.ptr, d.c.ptr) = (1 << 32, 2 << 32, 3 << 32);
    let ds = dispatch(&d, "bf16", "bf16", (9, 0), 132).unwrap();
    assert_eq!(ds.kernel, "ferrocute_sm90_skinny16_w8_kk_bf16_bf16");
    assert_eq!((ds.grid, ds.tail), ((264, 1, 1), TailSplit::default()));
    for ((m, n, k), warps, parts, ctas) in [
        ((1, 6144, 4096), "w4", 1, 384),
        ((1, 4608, 3584), "w4", 1, 288),
        ((16, 1024, 14336), "w8", 2, 128),
        ((8, 28672, 4096), "w8", 1, 264),
    ] {
        let mut d = desc(m, n, k);
        (d.a.ptr, d.b.ptr, d.c.ptr) = (1 << 32, 2 << 32, 3 << 32);
        let ds = dispatch(&d, "bf16", "bf16", (9, 0), 132).unwrap();
        let what = format!("{m}x{n}x{k}: {}", ds.kernel);
        assert!(ds.kernel.contains(&format!("skinny16_{warps}_")), "{what}");
        assert_eq!(ds.grid, (ctas, 1, 1), "{what}");
        let want = if parts > 1 {
            TailSplit {
                tiles: n as u32 / 16,
                splits: parts,
                stream: false,
            }
        } else {
            TailSplit::default()
        };
        assert_eq!(ds.tail, want, "{what}");
    }
    for ((m, n, k), want) in [
        ((16, 4096, 4096), Some("skinny16_w8")),
        ((1, 2112, 64), Some("skinny16_w8")),
        ((16, 2096, 64), Some("skinny16_w8")),
        ((7, 1000, 4104), Some("skinny16_w8")),
        ((17, 4096, 4096), None),
        // Rows on 8 bytes only: read in place.
        ((16, 4096, 4100), Some("skinny16_w8")),
        ((8, 8192, 8196), Some("skinny16_w8")),
        ((16, 4608, 8192), Some("skinny16_w4")),
        // Rows on 4 bytes: repacked for the split-K kernel.
        ((16, 4096, 4098), None),
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
        t.a.shape.layout = Order::ColMajor;
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
        t.b.shape.layout = Order::RowMajor;
        t.b.shape.ld = n;
        let ds = dispatch(&t, "bf16", "bf16", (9, 0), 132).unwrap();
        assert!(!ds.kernel.contains("skinny"), "{m}x{n}x{k} N-major B");
        let ds = dispatch(&d, "bf16", "bf16", (8, 0), 108).unwrap();
        assert!(!ds.kernel.contains("skinny"), "{m}x{n}x{k} on sm_80");
    }
}

/// Up to 64 rows (at m <= 16 a weight stored k x n, N-major, which the register-streaming
/// kernel does not read) on the split-K tiles: the 64x128 tile where its tiles fill a
/// quarter of the SMs (K then split in two where the doubled CTAs still fit), else the
/// 64x64 one; from 17 rows on, the 64x64 tile in clusters along N comes first where its
/// grid fills one wave (67 to 120 tiles).
#[test]
fn few_rows_take_the_wide_split_k_tile_from_a_quarter_wave() {
    for ((m, n, k), b_n_major, tile, splits) in [
        ((1, 6144, 4096), true, "64x128x64_s9", 2),
        ((16, 8192, 28672), true, "64x128x64_s9", 2),
        ((1, 4608, 3584), true, "64x128x64_s9", 2),
        ((8, 28672, 4096), true, "64x128x64_s9", 1),
        ((1, 4096, 4096), true, "64x64x64_s13", 2),
        ((16, 3584, 3584), true, "64x64x64_s13", 2),
        ((32, 8192, 28672), false, "64x128x64_s9", 2),
        ((64, 8192, 8192), true, "64x128x64_s9", 2),
        ((64, 10240, 8192), false, "64x128x64_s9", 1),
        ((32, 4096, 4096), false, "64x64x64_s13", 2),
        ((32, 6144, 4096), false, "64x64x64_s13_nc4", 4),
    ] {
        let mut d = desc(m, n, k);
        if b_n_major {
            d.b.shape.layout = Order::RowMajor;
            d.b.shape.ld = n;
        }
        (d.a.ptr, d.b.ptr, d.c.ptr) = (1 << 36, 2 << 36, 3 << 36);
        let ds = dispatch(&d, "bf16", "bf16", (9, 0), 132).unwrap();
        let what = format!("{m}x{n}x{k}: {} split {}", ds.kernel, ds.cluster);
        let bm = if b_n_major { 'n' } else { 'k' };
        assert!(
            ds.kernel.contains(&format!("splitk_{tile}_k{bm}_")),
            "{what}"
        );
        assert_eq!(ds.cluster, splits, "{what}");
    }
}

/// 129-160 tokens of `y = x·Wᵀ` against a weight of 11,008 to 14,336 rows: the narrow
/// 128x160 tile over the weight, the tokens on N, in either order of `y` (one partial round
/// of 0.63x the area of the 128x256 tiles that two tiles of M over the tokens take); at
/// 6,144 rows 128x80 tiles over the weight in either order of `y` (96 tiles against 128 of
/// 128x96 with the tokens on M). Where the tokens on M fill the SMs as well (10,240 rows:
/// 128 tiles of 128x160), or where x is not K-major, the tokens stay on M. 176 and 192 tokens
/// against 14,336-57,344 rows: the 128x192 pingpong tile over the weight, the tokens in one
/// tile of N, in either order of `y` (a row-major one as planned, not moved onto M), where it
/// weighs less than the tokens on M.
#[test]
fn few_tokens_take_the_narrow_tile_over_the_weight() {
    use Order::{ColMajor as Col, RowMajor as Row};
    for (m, n, y, swapped, tile, ctas, m_major_x_swapped) in [
        (144, 14336, Col, true, "128x160x64_s5_coop", 112, false),
        (144, 14336, Row, true, "128x160x64_s5_coop", 112, true),
        (129, 11008, Col, true, "128x160x64_s5_coop", 86, false),
        (160, 11008, Row, true, "128x160x64_s5_coop", 86, true),
        (160, 6144, Col, true, "128x80x64_s8_coop", 96, false),
        (160, 10240, Col, false, "128x160x64_s5_coop", 128, false),
        (160, 10240, Row, false, "128x160x64_s5_coop", 128, false),
        (192, 14336, Col, true, "128x192x64_s4_pp", 112, false),
        (192, 14336, Row, true, "128x192x64_s4_pp", 112, true),
        (176, 28672, Col, true, "128x192x64_s4_pp", 132, false),
        (192, 57344, Row, true, "128x192x64_s4_pp", 132, true),
        (192, 6144, Col, false, "128x96x64_s7_coop", 128, false),
        (160, 6144, Row, true, "128x80x64_s8_coop", 96, false),
        (129, 6144, Row, true, "128x80x64_s8_coop", 96, true),
        (192, 6144, Row, false, "128x96x64_s7_coop", 128, false),
        // More tiles than SMs: the weight on M still, read once.
        (144, 28672, Col, true, "128x160x64_s5_coop", 132, false),
        (160, 59136, Row, true, "128x160x64_s5_coop", 132, true),
        (136, 18432, Col, true, "128x160x64_s5_coop", 132, false),
    ] {
        let mut d = desc(m, n, 4096);
        d.c = od(m, n, y, 3 << 32);
        (d.a.ptr, d.b.ptr, d.out_bytes) = (1 << 32, 2 << 32, 2);
        let ds = dispatch(&d, "bf16", "bf16", (9, 0), 132).unwrap();
        let what = format!("{m}x{n} {y:?}: {} {:?}", ds.kernel, ds.grid);
        assert!(ds.kernel.contains(tile), "{what}");
        assert_eq!((ds.plan.swapped, ds.grid.0), (swapped, ctas), "{what}");
        // D N-major wherever the tokens and the order of y disagree about which side is M.
        assert_eq!(ds.plan.d_n_major, swapped == (y == Col), "{what}");
        // An M-major x keeps the tokens where its plan has them (a row-major y: on N, unless
        // a tile with them on M writes D N-major).
        d.a = od(m, 4096, Order::ColMajor, 1 << 32);
        let ds = dispatch(&d, "bf16", "bf16", (9, 0), 132).unwrap();
        assert_eq!(ds.plan.swapped, m_major_x_swapped, "{what}");
    }
}

/// The narrow tile holding all of 129-160 tokens runs its last tiles stream-K once two rounds
/// of its tiles fill the SMs (whole rounds first, then runs over the last round and the one
/// before: 37,888 rows are 296 tiles, 164 in runs), not at fewer rounds (28,672 rows, 224
/// tiles), nor on other tiles unless forced (`Overrides::stream_k`), which also turns it off.
#[test]
fn stream_k_past_two_rounds_of_the_narrow_tile() {
    let run = |m, n, k, ov: &Overrides| {
        let mut d = desc(m, n, k);
        d.c = od(m, n, Order::RowMajor, 3 << 32);
        (d.a.ptr, d.b.ptr, d.out_bytes) = (1 << 32, 2 << 32, 2);
        dispatch_plan(plan(&d).unwrap(), "bf16", "bf16", (9, 0), 132, ov).unwrap()
    };
    let stream = |tiles| TailSplit {
        tiles,
        splits: 2,
        stream: true,
    };
    let none = Overrides::default();
    let on = Overrides {
        stream_k: Some(true),
        ..none
    };
    let off = Overrides {
        stream_k: Some(false),
        ..none
    };
    for (m, n, k, ov, tile, tail) in [
        (160, 37888, 3584, &none, "128x160x64_s5_coop", stream(164)),
        (144, 59136, 8192, &none, "128x160x64_s5_coop", stream(198)),
        (
            160,
            37888,
            3584,
            &off,
            "128x160x64_s5_coop",
            TailSplit::default(),
        ),
        (
            160,
            28672,
            4096,
            &none,
            "128x160x64_s5_coop",
            TailSplit::default(),
        ),
        (160, 28672, 4096, &on, "128x160x64_s5_coop", stream(224)),
        (
            192,
            57344,
            8192,
            &none,
            "128x192x64_s4_pp",
            TailSplit::default(),
        ),
        (192, 57344, 8192, &on, "128x192x64_s4_pp", stream(184)),
        // 33,792 rows: exactly two rounds, nothing to balance.
        (
            160,
            33792,
            4096,
            &on,
            "128x160x64_s5_coop",
            TailSplit::default(),
        ),
    ] {
        let ds = run(m, n, k, ov);
        let what = format!("{m}x{n}x{k} {:?}: {} {:?}", ov.stream_k, ds.kernel, ds.tail);
        assert!(ds.kernel.contains(tile), "{what}");
        assert_eq!(ds.tail, tail, "{what}");
        assert_eq!(ds.grid.0, 132, "{what}");
    }
    // Two batches of 160x37888x3584 (a weight each): 592 tiles, the last 196 stream-K.
    let (m, n, k) = (160, 37888, 3584);
    let mut d = desc(m, n, k);
    d.c = od(m, n, Order::RowMajor, 3 << 32);
    (d.a.ptr, d.b.ptr, d.out_bytes) = (1 << 32, 2 << 32, 2);
    for (o, rows, cols) in [(&mut d.a, m, k), (&mut d.b, k, n), (&mut d.c, m, n)] {
        (o.shape.batch, o.shape.batch_stride, o.len) = (2, rows * cols, 2 * rows * cols);
    }
    let ds = dispatch_plan(plan(&d).unwrap(), "bf16", "bf16", (9, 0), 132, &none).unwrap();
    assert!(ds.kernel.contains("128x160x64_s5_coop"), "{}", ds.kernel);
    assert_eq!(ds.tail, stream(196));
}

/// Up to 256 rows the weighing prefers a tile in whole rounds to a split tail
/// (`kernel_names`), but not one that would span past M or N.
#[test]
fn few_rows_keep_the_split_tail_where_the_largest_tile_spans_past_n() {
    // 176 rows of a row-major y = x W^T run swapped, the tokens on N: the 128x256 tile
    // would span 80 columns past them, so the 128x128 tile keeps its split tail (no narrow
    // tile holds 176 tokens in one tile of N).
    let mut d = desc(176, 18432, 8192);
    d.c = od(176, 18432, Order::RowMajor, 3 << 32);
    (d.a.ptr, d.b.ptr) = (1 << 32, 2 << 32);
    let ds = dispatch(&d, "bf16", "bf16", (9, 0), 132).unwrap();
    assert!(ds.plan.swapped && ds.kernel.contains("128x128x64_s6_pp"));
    assert!(ds.tail.splits > 1, "{:?}", ds.tail);
}

/// `y = x W^T` with everything row-major (how PyTorch and candle store a linear layer) and
/// few rows of `x`: planned as `y^T` (the weight on A, the rows on N), it runs as its
/// transpose on the small-M kernels, writing the row-major `y` in place (`d_n_major`);
/// where no small-M kernel takes the transpose, the swapped plan stays.
#[test]
fn row_major_decode_runs_transposed() {
    let rm = |m: usize, n: usize, k: usize, b_order: Order| GemmDesc {
        a: od(m, k, Order::RowMajor, 1 << 32),
        b: od(k, n, b_order, 2 << 32),
        c: od(m, n, Order::RowMajor, 3 << 32),
        in_bytes: 2,
        out_bytes: 2,
    };
    let on = |d: GemmDesc, cc, sms| dispatch(&d, "bf16", "bf16", cc, sms).unwrap();
    for ((m, n, k), family) in [
        ((1, 4096, 4096), "skinny16_w8_kk"),
        ((16, 14336, 4096), "skinny16_w8_kk"),
        ((17, 4096, 4096), "splitk_64x64x64_s13_kk"),
        ((128, 2048, 14336), "splitk_128x64x64_s9_kk"),
        ((128, 4096, 14336), "splitk_64x64x64_s13_mc2_kk"),
        // 256 rows of a 6144-row weight: the narrow persistent tile, 128 tiles in one wave.
        ((256, 6144, 4096), "128x96x64_s7_coop_kk"),
    ] {
        let ds = on(rm(m, n, k, Order::ColMajor), (9, 0), 132);
        assert_eq!(
            ds.kernel,
            format!("ferrocute_sm90_{family}_bf16_bf16"),
            "{m}x{n}x{k}"
        );
        let p = ds.plan;
        assert!(p.d_n_major && !p.swapped && (p.m, p.n) == (m as i32, n as i32));
        assert_eq!((p.a.ptr, p.b.ptr, p.d.ld), (1 << 32, 2 << 32, n as i64));
    }
    // A weight stored k x n row-major (N-major B): the split-K kernel's kn entry.
    let ds = on(rm(8, 4096, 4096, Order::RowMajor), (9, 0), 132);
    assert!(ds.plan.d_n_major && ds.kernel.contains("splitk") && ds.kernel.contains("_kn_"));
    // Many rows: the swapped plan, D column-major.
    let ds = on(rm(512, 4096, 4096, Order::ColMajor), (9, 0), 132);
    assert!(ds.plan.swapped && !ds.plan.d_n_major);
    // No small-M kernel on sm_80: the swapped plan.
    let ds = on(rm(8, 4096, 4096, Order::ColMajor), (8, 0), 108);
    assert!(ds.plan.swapped && !ds.plan.d_n_major, "{}", ds.kernel);
}

/// A forced kernel that the transposed plan refuses runs on the untransposed one where that
/// takes it: 64 rows of `y = x W` with W stored k x n row-major transpose to the split-K
/// tile (an N-major B), but the narrow tile, which needs a K-major B, takes the swapped
/// plan (x on B, k-contiguous).
#[test]
fn a_forced_kernel_runs_on_the_orientation_that_takes_it() {
    let d = GemmDesc {
        a: od(64, 4096, Order::RowMajor, 1 << 32),
        b: od(4096, 6144, Order::RowMajor, 2 << 32),
        c: od(64, 6144, Order::RowMajor, 3 << 32),
        in_bytes: 2,
        out_bytes: 2,
    };
    let run = |kernel| {
        let ov = Overrides::parse(kernel, None, None, None);
        dispatch_plan(plan(&d).unwrap(), "bf16", "bf16", (9, 0), 132, &ov).unwrap()
    };
    let own = run(None);
    assert!(
        own.plan.d_n_major && own.kernel.contains("splitk"),
        "{}",
        own.kernel
    );
    let forced = run(Some("sm90_128x96x64_s7_coop"));
    assert!(forced.plan.swapped && !forced.plan.d_n_major);
    assert!(
        forced.kernel.contains("128x96x64_s7_coop"),
        "{}",
        forced.kernel
    );
    // Forced where neither orientation takes it (the 16-row register-streaming kernel at
    // 64 rows): the dispatch's own choice.
    let nowhere = run(Some("sm90_skinny16_w8"));
    assert_eq!((nowhere.plan, nowhere.kernel), (own.plan, own.kernel));
}

/// The register-streaming kernel splits K only for up to 256 tiles, whose counters stay in
/// the workspace's first KiB (no launch writes partial sums there): a forced split of more
/// tiles runs whole.
#[test]
fn skinny_splits_keep_their_counters_in_the_first_kib() {
    let ov = Overrides {
        split_k: Some(2),
        ..Overrides::default()
    };
    for (n, split) in [(4096, true), (4112, false)] {
        let mut d = desc(1, n, 3584);
        (d.a.ptr, d.b.ptr, d.c.ptr) = (1 << 32, 2 << 32, 3 << 32);
        let ds = dispatch_plan(plan(&d).unwrap(), "bf16", "bf16", (9, 0), 132, &ov).unwrap();
        assert!(ds.kernel.contains("skinny"), "{}", ds.kernel);
        assert_eq!(ds.tail.splits == 2, split, "{n} rows: {:?}", ds.tail);
    }
}

#[test]
fn error_display_carries_values() {
    let e = Error::LeadingDimension {
        operand: Matrix::B,
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

/// Every kernel the dispatch tables can choose is rendered into its module's generated
/// header (the Rust tables and the C++ instantiations come from separate lists), so its
/// entry points exist in the module's artifacts.
#[test]
fn every_table_kernel_is_instantiated() {
    use ferrocute::gemm::registry::all_kernels;
    use ferrocute::kernels::registry::MODULES;
    for cfg in all_kernels() {
        let module = MODULES
            .iter()
            .find(|m| m.name == cfg.module)
            .unwrap_or_else(|| panic!("{}: no kernel module {}", cfg.name, cfg.module));
        let header = (module.header)();
        // Hopper lists name the configuration without `sm90_`; Ampere-class ones in full.
        let stem = cfg.name.trim_start_matches("sm90_");
        assert!(
            header.contains(&format!("X({stem},")) || header.contains(&format!(", {})", cfg.name)),
            "{} is not instantiated in module {}",
            cfg.name,
            cfg.module
        );
    }
}
