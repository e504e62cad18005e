//! GPU tests of the small-M kernels (split-K over a cluster, register-streaming) against
//! an f64 reference. Run on a CUDA machine with `cargo test -- --ignored`;
//! without one every test here is reported as ignored.

use ferrocute::gemm::dispatch::dispatch;
use ferrocute::gemm::{MatMut, MatRef, Order};
use half::{bf16, f16};

mod common;
use common::*;
/// The small-tile split-K cluster kernel on Hopper (small M, or under half a wave of large
/// tiles): every K-split count (1, 2, 4, 8), M at and around the 64-row tile edges and over
/// several tiles, every transpose, alpha/beta, batches, two type pairs.
#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --ignored"]
fn gpu_split_k() {
    let g = gpu();
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
            // m <= 16 with this (K-major) B streams through registers instead, as does
            // n <= 16 < m (the transposed problem: its B is this row-major A).
            if (m <= 16 || (n <= 16 && n < m)) && k % 8 == 0 {
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
#[ignore = "needs a CUDA GPU: cargo test -- --ignored"]
fn gpu_split_k_clusters_resident() {
    let g = hopper();
    if std::env::var_os("FERROCUTE_SPLIT_K").is_some() {
        return eprintln!("skipped: FERROCUTE_SPLIT_K forces the split this test checks");
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
            Order::RowMajor,
            Order::ColMajor,
            Order::ColMajor,
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
/// sizes of M, N and K, K over 1 to 128 chunks (and split over 8 warps and CTAs), every
/// transpose (a row-major C runs transposed, writing C in place, or swaps the operands:
/// then N <= 16 qualifies), alpha/beta,
/// batches, three type pairs, and GEMVs whose 1 x k A is column-major with ld 1; every
/// element against the f64 reference.
#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --ignored"]
fn gpu_skinny() {
    let g = gpu();
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
                    // The kernel's M is m for a column-major C, and for a row-major C with
                    // m < n where the transposed problem runs (m <= 128); else n (A
                    // and B swap and transpose): its B is then A^T, K-major iff A is
                    // row-major. Its A may be either (leading dimensions are multiples of 8).
                    let transposed = lc == Order::RowMajor && m < n && m <= 128;
                    let (km, kb_k_major) = if lc == Order::ColMajor || transposed {
                        (m, lb == Order::ColMajor)
                    } else {
                        (n, la == Order::RowMajor)
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
        (Order::RowMajor, 4096, 4096),
        (Order::ColMajor, 4096, 4096),
        (Order::ColMajor, 7, 40),
    ] {
        let cs = Case {
            m: 1,
            n,
            k,
            la,
            lb: Order::ColMajor,
            lc: Order::ColMajor,
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
/// for 64 MiB of B (8x8192x8196): K residues of 4 in the last piece, M and N edges,
/// batches; every element against f64.
#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --ignored"]
fn gpu_skinny_8_byte_rows() {
    let g = gpu();
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
                Order::RowMajor,
                Order::ColMajor,
                Order::ColMajor,
            )
        };
        let ran = if i % 2 == 0 {
            let r = run_case::<bf16, bf16>(&g, &mut rng, &cs, None);
            (r.kernel, r.repacked)
        } else {
            let r = run_case::<f16, f32>(&g, &mut rng, &cs, None);
            (r.kernel, r.repacked)
        };
        if hopper {
            assert!(ran.0.contains("skinny"), "{m}x{n}x{k} pad {pad}: {}", ran.0);
            assert_eq!(ran.1, [false; 3], "{m}x{n}x{k} pad {pad}: nothing repacked");
        }
    }
}

/// A and B choose their access width apart: one of them on 8-byte rows, the other on
/// 16-byte rows (16 x 300 x 1000, K-major, ld 1000 or 1004); every element against f64.
#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --ignored"]
fn gpu_skinny_mixed_row_widths() {
    let g = gpu();
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
                &MatRef::new(&da, m, k, Order::RowMajor).ld(lda),
                &MatRef::new(&db, k, n, Order::ColMajor).ld(ldb),
                0.0,
                &mut MatMut::new(&mut dc, m, n, Order::ColMajor),
            )
            .unwrap();
        if g.compute_capability().0 == 9 {
            assert!(
                d.kernel.contains("skinny"),
                "lda {lda} ldb {ldb}: {}",
                d.kernel
            );
            assert_eq!(d.repacked, [false; 3], "lda {lda} ldb {ldb}");
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
/// 8-byte rows, K ending inside a chunk; an A whose k rows start on 4 bytes is repacked. Every
/// element against f64, over a NaN-poisoned C (beta 0) or a random one (beta 0.5).
#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --ignored"]
fn gpu_skinny_m_major_a() {
    let g = gpu();
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
                &MatRef::new(&da, m, k, Order::ColMajor).ld(lda),
                &MatRef::new(&db, k, n, Order::ColMajor).ld(ldb),
                beta,
                &mut MatMut::new(&mut dc, m, n, Order::ColMajor),
            )
            .unwrap();
        let case = format!("{m}x{n}x{k} lda {lda} ldb {ldb}");
        if hopper {
            // ld 6 puts A's k rows on 4 bytes: A is repacked with an ld of 8 first.
            assert!(
                d.kernel.contains("skinny16") && d.kernel.contains("_mk_"),
                "{case}: {}",
                d.kernel
            );
            assert_eq!(d.repacked, [lda % 4 != 0, false, false], "{case}");
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
#[ignore = "needs a CUDA GPU: cargo test -- --ignored"]
fn gpu_skinny_small() {
    let g = gpu();
    let mut rng = Rng(19);
    for (m, la, pad) in [
        (13, Order::RowMajor, ALIGN8),
        (1, Order::ColMajor, 0),
        (13, Order::ColMajor, ALIGN8),
        (12, Order::ColMajor, 0),
    ] {
        let cs = Case {
            m,
            n: 129,
            k: 1000,
            la,
            lb: Order::ColMajor,
            lc: Order::ColMajor,
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
/// 128 x 64 tile, m = 150 the 64 x 128 one, whose last tile loads rows 88..151 and stores
/// 128..149; with `FERROCUTE_KERNEL` naming a kernel of clusters along M, as the sanitizer
/// runs of `benches/sweeps/2026-11-27-h100-splitk-past-m/` do, a tile wholly past M too),
/// small enough to run under compute-sanitizer.
#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --ignored"]
fn gpu_split_k_small() {
    let g = gpu();
    let mut rng = Rng(13);
    for m in [17, 100, 150] {
        for la in LAYOUTS {
            for lb in LAYOUTS {
                let cs = Case {
                    m,
                    n: 129,
                    k: 4096,
                    la,
                    lb,
                    lc: Order::ColMajor,
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

/// A column-major A of 16-byte rows (a leading dimension of 8: 8 tokens, or 5 on padded
/// rows) is copied onto 128-byte rows before a TMA kernel reads it, where the weight has at
/// least 8 Mi elements (`widened_rows`), and read in place otherwise: in place on a leading
/// dimension of 16, on a smaller weight, and by the register-streaming kernel (which reads
/// A without TMA). Every element against f64, with an N-major B (the split-K kernels) and a
/// K-major one, batched and not, K a multiple of 8 and not.
#[test]
#[ignore = "needs an sm_90 GPU (H100/H200): cargo test -- --ignored"]
fn gpu_narrow_m_major_rows() {
    let g = hopper();
    let mut rng = Rng(43);
    // (m, pad, batch, n, k): the pad applies to every operand, so with 3 B's and C's leading
    // dimensions are whole 16-byte pieces too.
    for (m, pad, batch, n, k) in [
        (8, 0, 1, 4104, 2056),
        (5, 3, 2, 4101, 2053),
        (8, 8, 1, 4104, 2056),
        (8, 0, 1, 1000, 2056),
    ] {
        for lb in LAYOUTS {
            let cs = Case {
                m,
                n,
                k,
                la: Order::ColMajor,
                lb,
                lc: Order::ColMajor,
                pad,
                batch,
                broadcast_b: false,
                alpha: -1.25,
                beta: 0.5,
            };
            let r = run_case::<bf16, bf16>(&g, &mut rng, &cs, None);
            let widened = r.shapes[0].ld == 8 && n * k * batch >= 1 << 23;
            let want = widened && !r.kernel.contains("skinny");
            assert_eq!(
                r.repacked,
                [want, false, false],
                "{m}x{n}x{k} pad {pad} {lb:?}: {}",
                r.kernel
            );
        }
    }
}
