//! Hopper kernels that the dispatcher chooses only where their waves beat the 128x128
//! tile's (the pingpong 128x192 and the 4-stage cooperative 128x256 tiles), or for small M
//! only (the 64-row split-K tiles, those whose clusters along M or N share B or A, the 96-row
//! ones, which take a K-major A only, and the narrow 128x80, 128x96 and 128x160 tiles, which
//! also write an N-major D) are checked on small shapes
//! with every edge by forcing them with `FERROCUTE_KERNEL` (and, for split-K tiles, the
//! cluster size with `FERROCUTE_SPLIT_K`), which are read once per process: the parent test
//! runs this binary once per kernel, as children with the variables set running side by side,
//! and each child checks its kernel like the dispatched ones. `FERROCUTE_TAIL_SPLIT=1` makes
//! the persistent tiles split every case's part-empty last round into as many parts as the
//! CTAs allow (down to one k-block a part: 7x9x64 has one tile of one k-block, 129x200x300
//! five k-blocks in up to five parts).

use ferrocute::gemm::geometry::TailSplit;
use ferrocute::gemm::Order;
use half::{bf16, f16};
use std::process::{Command, Stdio};

mod common;
use common::*;

/// (kernel, K splits or "" for the dispatcher's choice, tail split forced on ("1"), off
/// ("0") or "" for the dispatcher's choice).
const KERNELS: [(&str, &str, &str); 19] = [
    ("sm90_128x192x64_s4_pp", "", "0"),
    ("sm90_128x192x64_s4_pp", "", "1"),
    ("sm90_128x256x64_s4_coop", "", "0"),
    ("sm90_128x256x64_s4_coop", "", "1"),
    ("sm90_splitk_64x64x64_s13", "1", ""),
    ("sm90_splitk_64x64x64_s13", "8", ""),
    ("sm90_splitk_128x64x64_s9", "2", ""),
    ("sm90_splitk_128x64x64_s9", "4", ""),
    ("sm90_splitk_64x128x64_s9_mc2", "", ""),
    ("sm90_splitk_64x128x64_s9_mc4", "", ""),
    ("sm90_splitk_128x64x64_s9_mc2", "", ""),
    ("sm90_splitk_64x64x64_s13_mc2", "", ""),
    ("sm90_splitk_96x64x64_s11_mc2", "", ""),
    ("sm90_splitk_96x128x64_s8_mc2", "", ""),
    ("sm90_splitk_64x64x64_s13_nc4", "", ""),
    ("sm90_128x128x64_s6_pp", "", "1"),
    ("sm90_128x80x64_s8_coop", "", ""),
    ("sm90_128x96x64_s7_coop", "", ""),
    ("sm90_128x160x64_s5_coop", "", ""),
];

/// Set in the children: the kernel to check.
const CHILD_ENV: &str = "FERROCUTE_FORCED_CHILD";

#[test]
#[ignore = "needs an sm_90 GPU (H100/H200): cargo test -- --ignored"]
fn gpu_forced_hopper_kernels() {
    // In a child (this same test, run again with the variables set): check one kernel.
    if let Ok(kernel) = std::env::var(CHILD_ENV) {
        return forced_kernel_child(&kernel);
    }
    let g = hopper();
    drop(g);
    // The children run at once: each spends most of its time on the CPU reference.
    let children: Vec<_> = KERNELS
        .iter()
        .map(|&(kernel, splits, tail)| {
            let mut child = Command::new(std::env::current_exe().unwrap());
            child
                .args([
                    "gpu_forced_hopper_kernels",
                    "--exact",
                    "--ignored",
                    "--nocapture",
                ])
                .env("FERROCUTE_KERNEL", kernel)
                .env(CHILD_ENV, kernel)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            for (var, value) in [
                ("FERROCUTE_SPLIT_K", splits),
                ("FERROCUTE_TAIL_SPLIT", tail),
            ] {
                if value.is_empty() {
                    child.env_remove(var);
                } else {
                    child.env(var, value);
                }
            }
            (kernel, splits, tail, child.spawn().unwrap())
        })
        .collect();
    for (kernel, splits, tail, child) in children {
        let out = child.wait_with_output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        println!(
            "{kernel} (splits {splits:?}, tail split {tail:?}): {}",
            text.lines()
                .filter(|l| l.contains("test result"))
                .collect::<String>()
        );
        assert!(
            out.status.success() && text.contains("1 passed"),
            "{kernel} failed:\n{text}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// One child of `gpu_forced_hopper_kernels`: every case on the forced `kernel`.
fn forced_kernel_child(kernel: &str) {
    let g = hopper();
    let mut rng = Rng(17);
    // What the parent forced: read once, checked against every case's dispatch below.
    let forced_split = std::env::var("FERROCUTE_SPLIT_K")
        .ok()
        .and_then(|s| s.parse::<u32>().ok());
    let forced_on = std::env::var("FERROCUTE_TAIL_SPLIT").as_deref() == Ok("1");
    // (m, n, k, batch): one tile; an odd number of M tiles (a cluster's second tile lies past
    // M); edges in every mode, including rows that end inside an 8-row store; batches; more
    // 128x256 tiles than SMs (155, 153 and 153), so CTAs loop over several tiles, with one
    // k-tile and with several; last tiles of 128 rows or columns with 64 or more past M or N
    // (M = 129, 180 in 3 batches, 3900, 2100, 2104 with the TMA store; N = 130, 2100, 200),
    // whose A (B) box starts 64 rows early and whose first 64 rows (columns) are the tile
    // before's. Even cases have a bf16 D: M % 8 == 0 (384, 2104, 96 in 2
    // batches) takes the TMA epilogue, M = 7 and 3900 the 16-byte stores.
    let cases = [
        (7, 9, 64, 1),
        (129, 200, 300, 1),
        (384, 256, 1000, 1),
        (180, 130, 72, 3),
        (3900, 1100, 64, 1),
        (4096, 1000, 200, 1),
        (2104, 2100, 200, 1),
        (2100, 2100, 200, 1),
        (96, 200, 128, 2),
    ];
    // The narrow tiles (BN not a multiple of 64) take a K-major B only, and write an N-major
    // D: they also run every case with a row-major C, which puts the operands' roles through
    // the planner's swaps and, where C has at most 256 rows and more columns, the transpose
    // that writes D N-major.
    let narrow = persistent_tile(kernel).is_some_and(|(_, bn)| !bn.is_multiple_of(64));
    let c_orders: &[Order] = if narrow {
        &[Order::ColMajor, Order::RowMajor]
    } else {
        &[Order::ColMajor]
    };
    let a_k_only = kernel.starts_with("sm90_splitk_96x");
    let mut n_major_d_runs = 0;
    for (i, &(m, n, k, batch)) in cases.iter().enumerate() {
        for (la, lb, &lc) in LAYOUTS
            .iter()
            .flat_map(|&la| LAYOUTS.iter().map(move |&lb| (la, lb)))
            .flat_map(|(la, lb)| c_orders.iter().map(move |lc| (la, lb, lc)))
        {
            let cs = Case::sweep(i, m, n, k, batch, la, lb, lc);
            let (ran, tail, cluster, d_n_major) = if i % 2 == 0 {
                let r = run_case::<bf16, bf16>(&g, &mut rng, &cs, None);
                (r.kernel, r.tail, r.cluster, r.d_n_major)
            } else {
                let r = run_case::<f16, f32>(&g, &mut rng, &cs, None);
                (r.kernel, r.tail, r.cluster, r.d_n_major)
            };
            // A narrow tile is refused, the case checked on the dispatcher's kernel, exactly
            // where the planned B (after the planner's swap or transpose) is N-major: the
            // entry point's `bm` is `n`. K-major A and B with a column-major C keep K-major
            // operands in every plan.
            if narrow && !ran.contains(kernel) {
                let all_k = (la, lb, lc) == (Order::RowMajor, Order::ColMajor, Order::ColMajor);
                assert!(
                    planned_b_n_major(&ran) && !all_k,
                    "{m}x{n}x{k} {la:?}{lb:?}{lc:?} ran {ran}"
                );
                continue;
            }
            // A 96-row split-K tile (K-major A entry points only) likewise where the planned
            // A is M-major.
            if a_k_only && !ran.contains(kernel) {
                assert!(
                    planned_a_m_major(&ran),
                    "{m}x{n}x{k} {la:?}{lb:?}{lc:?} ran {ran}"
                );
                continue;
            }
            n_major_d_runs += usize::from(d_n_major);
            assert!(ran.contains(kernel), "{m}x{n}x{k} ran {ran}");
            // A forced K split reaches the launch whatever K is (splits past the last
            // k-block add nothing), so the 8-split run really sums 8 partial tiles.
            if let Some(parts) = forced_split {
                assert_eq!(cluster, parts, "{m}x{n}x{k}x{batch} {kernel}");
            }
            // Clusters along M or N have the kernel's size (and split no K).
            if let Some((_, c)) = kernel.rsplit_once("_mc").or(kernel.rsplit_once("_nc")) {
                assert_eq!(cluster.to_string(), c, "{m}x{n}x{k}x{batch} {kernel}");
            }
            // Forced on, the persistent tiles split a part-empty last round of r tiles
            // into as many parts as fit: min(SMs / r, k-blocks), at least 2.
            let expected = match persistent_tile(kernel) {
                Some((bm, bn)) if forced_on => {
                    let sms = g.sm_count() as usize;
                    let tiles = m.div_ceil(bm) * n.div_ceil(bn) * batch;
                    let r = tiles % sms;
                    let splits = sms.checked_div(r).map_or(0, |s| s.min(k.div_ceil(64)));
                    if splits >= 2 {
                        TailSplit {
                            tiles: r as u32,
                            splits: splits as u32,
                            stream: false,
                        }
                    } else {
                        TailSplit::default()
                    }
                }
                _ => TailSplit::default(),
            };
            assert_eq!(tail, expected, "{m}x{n}x{k}x{batch} {kernel}");
        }
    }
    // Among others, 7x9x64 and 129x200x300 with a row-major C run transposed (the case's
    // own operands, D N-major): the two layouts of A with a K-major B each.
    if narrow {
        assert!(
            n_major_d_runs >= 4,
            "{kernel}: {n_major_d_runs} runs wrote D N-major"
        );
    }
}

/// Whether the entry point `ran` (`ferrocute_<cfg>_<am><bm>_<in>_<out>`) takes an N-major B.
fn planned_b_n_major(ran: &str) -> bool {
    let parts: Vec<&str> = ran.rsplit('_').collect();
    parts.get(2).is_some_and(|majors| majors.ends_with('n'))
}

/// Whether the entry point `ran` (`..._<am><bm>_<in>_<out>`) takes an M-major A.
fn planned_a_m_major(ran: &str) -> bool {
    let parts: Vec<&str> = ran.rsplit('_').collect();
    parts.get(2).is_some_and(|majors| majors.starts_with('m'))
}

/// The tile `(BM, BN)` of a persistent kernel (all of which can split their tail), from its
/// name.
fn persistent_tile(kernel: &str) -> Option<(usize, usize)> {
    if !(kernel.ends_with("_pp") || kernel.ends_with("_coop")) {
        return None;
    }
    let mut dims = kernel.trim_start_matches("sm90_").split(['x', '_']);
    let bm = dims.next()?.parse().ok()?;
    let bn = dims.next()?.parse().ok()?;
    Some((bm, bn))
}
