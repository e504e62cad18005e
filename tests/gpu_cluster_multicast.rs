//! The pingpong kernel with 2-CTA clusters (TMA multicast of B) is not chosen by the
//! dispatcher (it measured slower, BENCHMARKS.md), so this binary forces it through
//! `FERROCUTE_KERNEL`, which is read once per process, before any GEMM runs, and checks it
//! like the dispatched kernels.

use ferrocute::gemm::Layout;
use half::{bf16, f16};

mod common;
use common::*;

const KERNEL: &str = "sm90_128x128x64_s6_pp_c2";

#[test]
fn gpu_cluster_multicast_pingpong() {
    std::env::set_var("FERROCUTE_KERNEL", KERNEL);
    let Some(g) = gpu() else { return };
    if g.compute_capability().0 != 9 {
        println!("SKIP: the clustered kernel needs an sm_90 GPU");
        return;
    }
    let mut rng = Rng(17);
    // (m, n, k, batch): one tile; an odd number of M tiles (the last pair's second tile lies
    // past M); edges in every mode; batches; 128 units for 132 CTAs and 124 for 66 pairs, so
    // CTAs loop over several units with both warpgroups.
    let cases = [
        (7, 9, 64, 1),
        (129, 200, 300, 1),
        (384, 256, 1000, 1),
        (200, 130, 72, 3),
        (3900, 1024, 64, 1),
        (4096, 1000, 200, 1),
    ];
    for (i, &(m, n, k, batch)) in cases.iter().enumerate() {
        for la in LAYOUTS {
            for lb in LAYOUTS {
                let cs = Case {
                    m,
                    n,
                    k,
                    la,
                    lb,
                    lc: Layout::ColMajor,
                    pad: if i % 2 == 0 { ALIGN8 } else { ALIGN8_C_ODD },
                    batch,
                    broadcast_b: false,
                    alpha: if i % 3 == 0 { 1.0 } else { 0.75 },
                    beta: if i % 2 == 0 { 0.0 } else { -0.5 },
                };
                let samples = (m * n * k * batch > 4_000_000).then_some(2048);
                let kernel = if i % 2 == 0 {
                    run_case::<bf16, bf16>(&g, &mut rng, &cs, samples).kernel
                } else {
                    run_case::<f16, f32>(&g, &mut rng, &cs, samples).kernel
                };
                assert!(kernel.contains(KERNEL), "{m}x{n}x{k} ran {kernel}");
            }
        }
    }
}
