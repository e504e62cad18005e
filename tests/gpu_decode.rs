//! GPU tests of the decode paths: few rows against a large weight, on either side of the
//! product and in every storage order, through the register-streaming kernel (with K split
//! across CTAs or not) and the split-K kernels, against an f64 reference. Run on a CUDA
//! machine with `cargo test -- --ignored`; without one every test here is reported as
//! ignored.

use std::collections::BTreeMap;

use ferrocute::gemm::dispatch::Overrides;
use ferrocute::gemm::registry::{
    MULTICAST_N_SMALL_M_KERNELS, MULTICAST_SMALL_M_KERNELS, NARROW_KERNELS,
};
use ferrocute::gemm::Order;
use half::{bf16, f16};

mod common;
use common::*;

/// What a case ran, whatever its element types.
struct Summary {
    kernel: String,
    tail: ferrocute::gemm::geometry::TailSplit,
    d_n_major: bool,
}

impl Summary {
    fn of<TI, TO>(r: Ran<TI, TO>) -> Summary {
        Summary {
            kernel: r.kernel,
            tail: r.tail,
            d_n_major: r.d_n_major,
        }
    }
}

/// `y = x W^T` as an inference engine calls it, everything row-major (PyTorch's and
/// candle's `Linear`), at decode sizes: it runs transposed on the small-M kernels and
/// writes `y` in place. Edge sizes of m, n and k, beta on and off, batches; every element
/// against f64 and the padding of `y` still NaN.
#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --ignored"]
fn gpu_row_major_linear() {
    let g = gpu();
    let hopper = g.compute_capability().0 == 9;
    let mut rng = Rng(41);
    let cases = [
        (1, 4096, 1024, 1),
        (2, 127, 4104, 1),
        (7, 129, 1000, 2),
        (8, 1000, 4100, 1),
        (15, 33, 8, 1),
        (16, 4096, 512, 1),
        (17, 300, 2048, 1),
        (64, 1000, 1024, 1),
        (100, 257, 4096, 3),
        (128, 2048, 1024, 1),
    ];
    for (i, &(m, n, k, batch)) in cases.iter().enumerate() {
        for pad in [ALIGN8, ALIGN8_C_ODD] {
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
                    Order::RowMajor,
                )
            };
            let ran = match i % 3 {
                0 => Summary::of(run_case::<bf16, bf16>(&g, &mut rng, &cs, None)),
                1 => Summary::of(run_case::<f16, f32>(&g, &mut rng, &cs, None)),
                _ => Summary::of(run_case::<bf16, f16>(&g, &mut rng, &cs, None)),
            };
            if hopper {
                let family = if m <= 16 { "skinny" } else { "splitk" };
                assert!(
                    ran.d_n_major && ran.kernel.contains(family),
                    "{m}x{n}x{k}: {} (transposed: {})",
                    ran.kernel,
                    ran.d_n_major
                );
            }
        }
    }
}

/// Seeded random small-M problems, thousands of them (`FERROCUTE_RANDOM_CASES`, default
/// 3000): 1 to 256 rows on either side of the product, 1 to 800 on the other (2000 to
/// 10000 for one in eight, with k up to 320), k from 1 to 1200 (multiples of 8 and of 4
/// more often), every storage order of A, B and C, leading
/// dimensions packed, padded to 8 or odd, 1 to 3 batches (B sometimes broadcast), random
/// alpha and beta, three type pairs, the register-streaming kernel's K parts forced to
/// 1..8 for a third of the cases, and for one in six a split-K tile with clusters along M or
/// N or a narrow persistent tile.
/// Every element against f64 (sampled above 2 M
/// multiply-adds), the padding of C still NaN; at the end, every small-M path must have run.
#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --ignored"]
fn gpu_small_m_random() {
    let g = gpu();
    let hopper = g.compute_capability().0 == 9;
    let cases: usize = std::env::var("FERROCUTE_RANDOM_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3000);
    let mut rng = Rng(0x2026_1126);
    let mut ran_paths: BTreeMap<&str, usize> = BTreeMap::new();
    for i in 0..cases {
        let few = match rng.below(10) {
            0..=5 => 1 + rng.below(16),
            6..=8 => 17 + rng.below(112),
            _ => 129 + rng.below(128),
        };
        // One in eight: a wide weight, so that the persistent CTAs run several tiles each.
        let wide = rng.below(8) == 0;
        let many = if wide {
            2000 + rng.below(8000)
        } else {
            1 + rng.below(800)
        };
        let k = match rng.below(4) {
            _ if wide => 8 * (1 + rng.below(40)),
            0 => 1 + rng.below(1200),
            1 => 4 * (1 + rng.below(300)),
            _ => 8 * (1 + rng.below(150)),
        };
        let (m, n) = if rng.below(2) == 0 {
            (few, many)
        } else {
            (many, few)
        };
        let order = |r: &mut Rng| {
            if r.below(2) == 0 {
                Order::RowMajor
            } else {
                Order::ColMajor
            }
        };
        let (la, lb, lc) = (order(&mut rng), order(&mut rng), order(&mut rng));
        let batch = if rng.below(5) == 0 {
            2 + rng.below(2)
        } else {
            1
        };
        let pad = [0, ALIGN8, ALIGN8_C_ODD, 4][rng.below(4)];
        let cs = Case {
            m,
            n,
            k,
            la,
            lb,
            lc,
            pad,
            batch,
            broadcast_b: batch > 1 && rng.below(3) == 0,
            alpha: [1.0, -1.25, 0.5][rng.below(3)],
            beta: [0.0, 0.0, 0.5, -1.0][rng.below(4)],
        };
        let parts = (rng.below(3) == 0).then(|| 1 + rng.below(8) as u32);
        // One in six: a kernel whose clusters along M or N share B or A, or a narrow
        // persistent tile, whatever the dispatcher says (its choice where the problem does
        // not meet their requirements).
        let forceable: Vec<_> = MULTICAST_SMALL_M_KERNELS
            .iter()
            .chain(MULTICAST_N_SMALL_M_KERNELS)
            .chain(NARROW_KERNELS)
            .collect();
        let forced = (rng.below(6) == 0).then(|| forceable[rng.below(forceable.len())]);
        let h = g.clone().with_overrides(Overrides {
            split_k: parts,
            kernel: forced,
            ..Overrides::default()
        });
        let macs = m * n * k * batch;
        let samples = (macs > 2_000_000).then_some(1024);
        let ran = match i % 3 {
            0 => Summary::of(run_case::<bf16, bf16>(&h, &mut rng, &cs, samples)),
            1 => Summary::of(run_case::<f16, f32>(&h, &mut rng, &cs, samples)),
            _ => Summary::of(run_case::<bf16, f16>(&h, &mut rng, &cs, samples)),
        };
        let path = match (ran.kernel.contains("skinny"), ran.kernel.contains("splitk")) {
            (true, _) if ran.tail.splits > 1 => "skinny, K in parts",
            (true, _) => "skinny",
            (_, true) if ran.kernel.contains("_mc") => "split-K tiles, clusters along M",
            (_, true) if ran.kernel.contains("_nc") => "split-K tiles, clusters along N",
            (_, true) => "split-K",
            _ if NARROW_KERNELS.iter().any(|c| ran.kernel.contains(c.name)) => "narrow tiles",
            _ => "other",
        };
        *ran_paths.entry(path).or_default() += 1;
        if ran.d_n_major {
            *ran_paths
                .entry("transposed, C written N-major")
                .or_default() += 1;
        }
    }
    eprintln!("{cases} random problems: {ran_paths:?}");
    if hopper && cases >= 1000 {
        for path in [
            "skinny",
            "skinny, K in parts",
            "split-K",
            "split-K tiles, clusters along M",
            "split-K tiles, clusters along N",
            "narrow tiles",
            "transposed, C written N-major",
        ] {
            assert!(
                ran_paths.get(path).is_some_and(|&c| c >= 20),
                "{path}: {ran_paths:?}"
            );
        }
    }
}

/// Weights whose 16-row tiles the 8-warp register-streaming CTAs would run in a second
/// round at most half full (Qwen2.5 7B's fused QKV: 288 tiles) run on the 4-warp CTAs in
/// one round: the edges of that range (one tile over, the last, one more), batches, rows that start on 8 bytes (K = 4100), an M-major A and a row-major C
/// (run transposed), beta; every element against f64 (sampled on the largest).
#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --ignored"]
fn gpu_skinny_four_warps() {
    let g = gpu();
    let hopper = g.compute_capability().0 == 9;
    let sms = g.sm_count() as usize;
    let mut rng = Rng(53);
    // (m, n, k, batch): tiles = ceil(n / 16) * batch around 2 and 4 CTAs per SM.
    let cases = [
        (1, 4608, 3584, 1),
        (16, 32 * sms + 16, 1024, 1),
        (7, 48 * sms, 4100, 1),
        (3, 48 * sms + 1, 512, 1),
        (5, 16 * sms + 8, 256, 2),
        (16, 1000, 136, 5),
    ];
    for (i, &(m, n, k, batch)) in cases.iter().enumerate() {
        let tiles = n.div_ceil(16) * batch;
        let want_w4 = tiles > 2 * sms && tiles <= 3 * sms;
        for (la, lc) in [
            (Order::RowMajor, Order::ColMajor),
            (Order::ColMajor, Order::ColMajor),
            (Order::RowMajor, Order::RowMajor),
        ] {
            let cs = Case {
                broadcast_b: i == 4,
                ..Case::sweep(i, m, n, k, batch, la, Order::ColMajor, lc)
            };
            let samples = (m * n * k * batch > 20_000_000).then_some(4096);
            let kernel = match i % 3 {
                0 => run_case::<bf16, bf16>(&g, &mut rng, &cs, samples).kernel,
                1 => run_case::<f16, f32>(&g, &mut rng, &cs, samples).kernel,
                _ => run_case::<bf16, f16>(&g, &mut rng, &cs, samples).kernel,
            };
            if hopper {
                let what = format!("{m}x{n}x{k}x{batch} {la:?}{lc:?} ({tiles} tiles): {kernel}");
                assert!(kernel.contains("skinny"), "{what}");
                assert_eq!(kernel.contains("skinny16_w4"), want_w4, "{what}");
            }
        }
    }
}

/// The split tiles' counters share their workspace with earlier launches' partial sums: a
/// sequence on one handle of register-streaming splits over 64 to 256 tiles (counters up to
/// the workspace's first KiB, sums after it) and a persistent tile splitting its last
/// round, every result checked, each launch finding its counters zero.
#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --ignored"]
fn gpu_split_counters_after_partial_sums() {
    let g = gpu();
    let mut rng = Rng(43);
    let parts = |p: u32| {
        g.clone().with_overrides(Overrides {
            split_k: Some(p),
            ..Overrides::default()
        })
    };
    let case = |m, n, k| Case {
        m,
        n,
        k,
        la: Order::RowMajor,
        lb: Order::ColMajor,
        lc: Order::ColMajor,
        pad: 0,
        batch: 1,
        broadcast_b: false,
        alpha: 1.0,
        beta: 0.0,
    };
    for (h, (m, n, k)) in [
        (parts(4), (1, 1024, 4096)),
        (parts(2), (1, 4096, 3584)),
        (parts(8), (16, 2048, 2048)),
        (g.clone(), (2560, 2560, 2560)),
        (parts(2), (16, 4000, 4096)),
        (parts(8), (1, 64, 8192)),
    ] {
        let samples = (m * n * k > 50_000_000).then_some(4096);
        let ran = run_case::<bf16, bf16>(&h, &mut rng, &case(m, n, k), samples);
        if g.compute_capability().0 == 9 {
            assert!(
                ran.tail.splits > 1,
                "{m}x{n}x{k}: {} {:?}",
                ran.kernel,
                ran.tail
            );
        }
    }
}

/// Small enough for compute-sanitizer (memcheck, racecheck, synccheck): the persistent
/// register-streaming CTAs of 8 warps over several tiles each (9000 rows of N: 563 tiles on
/// at most 264 CTAs) and of 4 warps (5000 rows: 313 tiles, one each), and the split-K
/// kernel (m = 40, or an N-major weight), writing a row-major C transposed or a
/// column-major one; every element against f64.
#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --ignored"]
fn gpu_decode_small() {
    let g = gpu();
    let hopper = g.compute_capability().0 == 9;
    let mut rng = Rng(47);
    for (m, n, k, parts, beta) in [
        (3, 9000, 64, 1, 0.0),
        (3, 9000, 64, 2, 0.5),
        (13, 5000, 136, 1, 0.5),
        (40, 300, 256, 1, 0.0),
    ] {
        let h = g.clone().with_overrides(Overrides {
            split_k: Some(parts),
            ..Overrides::default()
        });
        for (lb, lc) in [
            (Order::ColMajor, Order::RowMajor),
            (Order::RowMajor, Order::RowMajor),
            (Order::RowMajor, Order::ColMajor),
        ] {
            let sweep = Case::sweep(0, m, n, k, 1, Order::RowMajor, lb, lc);
            let cs = Case { beta, ..sweep };
            let ran = run_case::<bf16, bf16>(&h, &mut rng, &cs, None);
            // An N-major weight goes to the split-K kernel.
            let family = if m <= 16 && lb == Order::ColMajor {
                "skinny"
            } else {
                "splitk"
            };
            if hopper {
                let what = format!("{m}x{n}x{k} {lb:?}{lc:?}: {}", ran.kernel);
                assert!(ran.kernel.contains(family), "{what}");
                assert_eq!(ran.d_n_major, lc == Order::RowMajor, "{what}");
            }
        }
    }
}
