//! Hopper kernels that the dispatcher chooses only where their waves beat the 128x128
//! tile's (the pingpong 128x192 and the 4-stage cooperative 128x256 tiles), for small M
//! only (the 64-row split-K tiles) or never (the 128x256 tiles with 2-CTA multicast
//! clusters or the staged epilogue; BENCHMARKS.md says why) are checked on small shapes
//! with every edge by forcing them with `FERROCUTE_KERNEL` (and, for split-K tiles, the
//! cluster size with `FERROCUTE_SPLIT_K`), which are read once per process: the parent test
//! runs this binary once per kernel, as children with the variables set running side by side,
//! and each child checks its kernel like the dispatched ones.

use ferrocute::gemm::Layout;
use half::{bf16, f16};
use std::process::{Command, Stdio};

mod common;
use common::*;

/// (kernel, K splits or "" for the dispatcher's choice).
const KERNELS: [(&str, &str); 9] = [
    ("sm90_128x192x64_s4_pp", ""),
    ("sm90_128x256x64_s4_coop_c2", ""),
    ("sm90_128x256x64_s4_coop", ""),
    ("sm90_128x256x64_s3_st", ""),
    ("sm90_128x256x64_s4_st2", ""),
    ("sm90_splitk_64x64x64_s13", "1"),
    ("sm90_splitk_64x64x64_s13", "8"),
    ("sm90_splitk_128x64x64_s9", "2"),
    ("sm90_splitk_128x64x64_s9", "4"),
];

/// Set in the children: the kernel to check.
const CHILD_ENV: &str = "FERROCUTE_FORCED_CHILD";

#[test]
fn gpu_forced_hopper_kernels() {
    let Some(g) = gpu() else { return };
    if g.compute_capability().0 != 9 {
        println!("SKIP: the forced kernels need an sm_90 GPU");
        return;
    }
    drop(g);
    // The children run at once: each spends most of its time on the CPU reference.
    let children: Vec<_> = KERNELS
        .iter()
        .map(|&(kernel, splits)| {
            let mut child = Command::new(std::env::current_exe().unwrap());
            child
                .args(["forced_kernel_child", "--exact", "--ignored", "--nocapture"])
                .env("FERROCUTE_KERNEL", kernel)
                .env(CHILD_ENV, kernel)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            if splits.is_empty() {
                child.env_remove("FERROCUTE_SPLIT_K");
            } else {
                child.env("FERROCUTE_SPLIT_K", splits);
            }
            (kernel, splits, child.spawn().unwrap())
        })
        .collect();
    for (kernel, splits, child) in children {
        let out = child.wait_with_output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        println!(
            "{kernel} (splits {splits:?}): {}",
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

/// Run by `gpu_forced_hopper_kernels` only (ignored otherwise).
#[test]
#[ignore = "run by gpu_forced_hopper_kernels with FERROCUTE_KERNEL set"]
fn forced_kernel_child() {
    let kernel = std::env::var(CHILD_ENV).expect("run by gpu_forced_hopper_kernels");
    let g = gpu().expect("the parent found a GPU");
    let mut rng = Rng(17);
    // (m, n, k, batch): one tile; an odd number of M tiles (a cluster's second tile lies past
    // M); edges in every mode, including rows that end inside an 8-row store; batches; more
    // 128x256 tiles than SMs (155, 153 and 153), so CTAs loop over several tiles, with one
    // k-tile and with several. Even cases have a bf16 D: M % 8 == 0 (384, 2104, 96 in 2
    // batches) takes the TMA epilogue, M = 7 and 3900 the 16-byte stores.
    let cases = [
        (7, 9, 64, 1),
        (129, 200, 300, 1),
        (384, 256, 1000, 1),
        (200, 130, 72, 3),
        (3900, 1100, 64, 1),
        (4096, 1000, 200, 1),
        (2104, 2100, 200, 1),
        (2100, 2100, 200, 1),
        (96, 72, 128, 2),
    ];
    for (i, &(m, n, k, batch)) in cases.iter().enumerate() {
        for la in LAYOUTS {
            for lb in LAYOUTS {
                let cs = Case::sweep(i, m, n, k, batch, la, lb, Layout::ColMajor);
                let ran = if i % 2 == 0 {
                    run_case::<bf16, bf16>(&g, &mut rng, &cs, None).kernel
                } else {
                    run_case::<f16, f32>(&g, &mut rng, &cs, None).kernel
                };
                assert!(ran.contains(&kernel), "{m}x{n}x{k} ran {ran}");
            }
        }
    }
}
