//! GPU tests of large problems against cuBLAS, repacked operands at size, split tails and
//! stream-K. Run on a CUDA machine with `cargo test -- --ignored`;
//! without one every test here is reported as ignored.

use std::sync::Arc;

use cudarc::cublas::{sys as blas_sys, CudaBlas};
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut, DeviceRepr};
use ferrocute::gemm::dispatch::Overrides;
use ferrocute::gemm::geometry::TailSplit;
use ferrocute::gemm::{MatShape, Order, OutputElem};
use half::bf16;

mod common;
use common::*;
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
    if sc.layout == Order::RowMajor {
        // C^T = B^T A^T
        let (ta, tb) = (sb.t(), sa.t());
        sa = ta;
        sb = tb;
        sc = sc.t();
        std::mem::swap(&mut pa, &mut pb);
    }
    let op = |s: &MatShape| {
        if s.layout == Order::ColMajor {
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
#[ignore = "needs a CUDA GPU: cargo test -- --ignored"]
fn gpu_large_vs_cublas() {
    let g = gpu();
    let s = g.stream().clone();
    let blas = CudaBlas::new(s.clone()).unwrap();
    let mut rng = Rng(7);
    let cases = [
        (
            1000,
            4095,
            129,
            Order::RowMajor,
            Order::ColMajor,
            Order::ColMajor,
            1,
        ),
        (
            4095,
            1000,
            1000,
            Order::ColMajor,
            Order::ColMajor,
            Order::ColMajor,
            1,
        ),
        (
            1024,
            512,
            4095,
            Order::RowMajor,
            Order::RowMajor,
            Order::RowMajor,
            1,
        ),
        (
            512,
            1000,
            256,
            Order::ColMajor,
            Order::RowMajor,
            Order::ColMajor,
            4,
        ),
        (
            16,
            4096,
            4096,
            Order::RowMajor,
            Order::ColMajor,
            Order::ColMajor,
            1,
        ),
        (
            128,
            4096,
            4096,
            Order::ColMajor,
            Order::ColMajor,
            Order::ColMajor,
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
                Order::ColMajor => (i % sc.ld, i / sc.ld),
                Order::RowMajor => (i / sc.ld, i % sc.ld),
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

/// The bench's repacked shapes: packed bf16 operands, some of whose leading dimensions
/// (1030, 1531, 1537, 4100 elements) are not whole 16-byte pieces, so those operands (and
/// D, on the persistent tiles) go through the workspace, and at 2048x2100x1000 those whose
/// rows lie off the 32-byte sectors; every transpose, every element against cuBLAS (f32
/// out), twice each so that a result that depends on timing has two chances to show.
#[test]
#[ignore = "needs an sm_90 GPU (H100/H200): cargo test -- --ignored"]
fn gpu_repacked_large_vs_cublas() {
    let g = hopper();
    let s = g.stream().clone();
    let blas = CudaBlas::new(s.clone()).unwrap();
    let mut rng = Rng(41);
    // Past 2048 rows and columns, rows off the 32-byte sectors are copied too (K = 1000:
    // 2000-byte rows; `widened_rows`).
    for (m, n, k) in [
        (1537, 3000, 4100),
        (1537, 1531, 4104),
        (1030, 1100, 4100),
        (2048, 2100, 1000),
    ] {
        let off_sectors = |ld: usize| m.min(n) >= 2048 && !(ld * 2).is_multiple_of(32);
        for la in LAYOUTS {
            for lb in LAYOUTS {
                for _ in 0..2 {
                    let mut cs = Case::sweep(0, m, n, k, 1, la, lb, Order::ColMajor);
                    cs.pad = 0;
                    let ran = run_case::<bf16, bf16>(&g, &mut rng, &cs, Some(256));
                    assert!(
                        ran.kernel.starts_with("ferrocute_sm90"),
                        "{m}x{n}x{k} {la:?}{lb:?}: {}",
                        ran.kernel
                    );
                    let [sa, sb, _] = ran.shapes;
                    assert_eq!(
                        ran.repacked[..2],
                        [
                            sa.ld % 8 != 0 || off_sectors(sa.ld),
                            sb.ld % 8 != 0 || off_sectors(sb.ld)
                        ],
                        "{m}x{n}x{k} {la:?}{lb:?}"
                    );
                    assert_all_match_cublas(&blas, &s, &ran, &cs);
                }
            }
        }
    }
}

/// Split tails on a 132-SM H100: the pingpong 128x128 tile at 2560³ (3 rounds and 4 tiles,
/// in 5 parts), 1537x2630x1000 (9 in 4) and 1537x3000x1000 (48 in 2), and the cooperative
/// 128x256 tile at 1537x3000x4100 (24 in 5):
/// edges in M, N and K (a K residue in the last k-block), every transpose, bf16 and f32 D,
/// every element against cuBLAS (alpha 1, beta 0, f32 out) and sampled elements against f64
/// with alpha -1.25 and beta 0.5.
/// The launches follow each other on one handle, so each also checks that the one before
/// left its flags zero. On other GPUs the results are checked, the splits not.
#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --ignored"]
fn gpu_tail_split() {
    let g = gpu();
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
        (1537, 2630, 1000, "128x128x64_s6_pp", (9, 4)),
        (1537, 3000, 1000, "128x128x64_s6_pp", (48, 2)),
        (1537, 3000, 4100, "128x256x64_s4_coop", (24, 5)),
    ];
    for (i, &(m, n, k, tile, (tiles, splits))) in cases.iter().enumerate() {
        let want = TailSplit {
            tiles,
            splits,
            stream: false,
        };
        for la in LAYOUTS {
            for lb in LAYOUTS {
                let mut cs = Case::sweep(0, m, n, k, 1, la, lb, Order::ColMajor);
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
                let cs = Case::sweep(1, m, n, k, 1, la, lb, Order::ColMajor);
                let ran = run_case::<bf16, f32>(&g, &mut rng, &cs, Some(512));
                if h100 {
                    assert_eq!(ran.tail, want, "{m}x{n}x{k}: alpha/beta run");
                }
            }
        }
    }
}

/// `y = x·Wᵀ` (x, W and y row-major) at a few hundred tokens runs swapped on the persistent
/// tiles, W's rows on M and the tokens on fewer N tiles than a raster group: those tiles
/// are ordered N fastest. The 128x128 tile with a split tail (one batched), the 128x192 and
/// the cooperative 128x256 tile (groups of 16), the narrow 128x80 tile (80 tiles in one
/// wave); and 200 tokens of a batch of 2 on the cooperative 128x96 tile, which takes them on
/// M (transposed back). Every element against cuBLAS.
#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --ignored"]
fn gpu_swapped_few_n_tiles() {
    let g = gpu();
    let s = g.stream().clone();
    let blas = CudaBlas::new(s.clone()).unwrap();
    let h100 = g.compute_capability() == (9, 0) && g.sm_count() == 132;
    let mut rng = Rng(31);
    // (tokens, rows of W, k, batch, tile and tail tiles and parts on 132 SMs)
    for (m, n, k, batch, tile, (tiles, splits)) in [
        // (more than 256 tokens, or a batch: up to 256 the small-M kernels take most shapes)
        (384, 6144, 4096, 1, "128x128x64_s6_pp", (12, 8)),
        (300, 6144, 2000, 2, "128x128x64_s6_pp", (24, 4)),
        (384, 2048, 4096, 1, "128x80x64_s8_coop", (0, 0)),
        (200, 3000, 1000, 2, "128x96x64_s7_coop", (0, 0)),
        (384, 8192, 4096, 1, "128x192x64_s4_pp", (0, 0)),
        (512, 8192, 8192, 1, "128x256x64_s4_coop", (0, 0)),
    ] {
        let cs = Case {
            m,
            n,
            k,
            la: Order::RowMajor,
            lb: Order::ColMajor,
            lc: Order::RowMajor,
            pad: 0,
            batch,
            broadcast_b: false,
            alpha: 1.0,
            beta: 0.0,
        };
        let ran = run_case::<bf16, f32>(&g, &mut rng, &cs, Some(512));
        assert_all_match_cublas(&blas, &s, &ran, &cs);
        if h100 {
            assert!(ran.kernel.contains(tile), "{m}x{n}x{k}: {}", ran.kernel);
            assert_eq!(
                ran.tail,
                TailSplit {
                    tiles,
                    splits,
                    stream: false
                },
                "{m}x{n}x{k}"
            );
        }
    }
}

/// 129-160 tokens of `y = x·Wᵀ` against weights of 6,100-24,600 rows (one or two rounds of
/// tiles) on a narrow tile over the weight, the tokens on N: a row-major `y` as planned (C
/// M-major), a column-major one transposed there, which writes C N-major: by rows in 16-byte
/// pieces where C's rows allow (a multiple of 8 tokens, padded lds, a row's last piece past
/// N, a last tile of the weight shifted), one value a thread where they do not (129 tokens,
/// an odd ld of C), K not a multiple of 64. Every element against cuBLAS, and with alpha and
/// beta every element against f64, the padding of C unwritten.
#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --ignored"]
fn gpu_tokens_on_n_of_narrow_tiles() {
    use Order::{ColMajor as Col, RowMajor as Row};
    tokens_on_n::<f32>(
        37,
        &[
            (129, 11008, 4096, 0, Col, "128x160x64_s5_coop"),
            (160, 6144, 1000, 8, Col, "128x80x64_s8_coop"),
            (144, 14336, 520, ALIGN8_C_ODD, Col, "128x160x64_s5_coop"),
            (144, 11000, 4096, 0, Col, "128x160x64_s5_coop"),
            (150, 6100, 1000, ALIGN8, Col, "128x80x64_s8_coop"),
            (160, 6144, 1000, 8, Row, "128x80x64_s8_coop"),
            (129, 6100, 4096, 0, Row, "128x80x64_s8_coop"),
            // More tiles than SMs, in two rounds.
            (136, 18500, 2048, 0, Col, "128x160x64_s5_coop"),
            (150, 24600, 2104, 8, Row, "128x160x64_s5_coop"),
        ],
    );
}

/// 161-192 tokens of `y = x·Wᵀ` (a multiple of 8) on the 128x192 pingpong tile over the
/// weight, the tokens in one tile of N: a column-major bf16 `y` transposed there, which the
/// tile writes N-major by TMA (padded lds, K not a multiple of 64, one round and two), and
/// with beta (C read) one value a thread; a row-major `y` as planned (C M-major, not moved
/// onto M). Checked as [`gpu_tokens_on_n_of_narrow_tiles`], with a bf16 `y` against cuBLAS.
#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --ignored"]
fn gpu_tokens_on_n_of_the_128x192_tile() {
    use Order::{ColMajor as Col, RowMajor as Row};
    tokens_on_n::<bf16>(
        41,
        &[
            (168, 14336, 2104, 24, Col, "128x192x64_s4_pp"),
            (176, 28672, 2056, 8, Col, "128x192x64_s4_pp"),
            (192, 14400, 1000, 0, Row, "128x192x64_s4_pp"),
        ],
    );
}

/// Stream-K over the last tiles (`geometry::stream_k_blocks`): 129-160 tokens of `y = x·Wᵀ`
/// on the narrow 128x160 tile past two rounds, as the dispatch picks it (37,888 rows: 296
/// tiles, 164 of them stream-K on 132 SMs), a row-major `y` and a column-major one (C
/// N-major: by rows, and one value a thread at 129 tokens), K not a multiple of 64, a batch
/// of 2; and forced (`Overrides::stream_k`) on the pingpong 128x128 and 128x192 tiles, the
/// tokens on N and on M (the 128x192 tile's `_nd` entry points, which take a 16-bit `y`
/// only, forced under the sanitizers in `gpu_tokens_on_n_of_the_128x192_tile`). Every element against cuBLAS (alpha 1, beta 0, f32
/// out) and sampled elements against f64 with alpha -1.25 and beta 0.5, on one handle each,
/// so each launch also checks that the one before left its counters zero. The kernel and
/// the stream-K split asserted on a 132-SM Hopper GPU.
#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --ignored"]
fn gpu_stream_k() {
    use Order::{ColMajor as Col, RowMajor as Row};
    let g = gpu();
    let forced = g.clone().with_overrides(Overrides {
        stream_k: Some(true),
        ..Overrides::default()
    });
    let s = g.stream().clone();
    let blas = CudaBlas::new(s.clone()).unwrap();
    let h100 = g.compute_capability() == (9, 0) && g.sm_count() == 132;
    let mut rng = Rng(43);
    // (tokens, rows of W, k, batch, order of y, forced, tile)
    for (m, n, k, batch, lc, force, tile) in [
        (160, 37888, 3584, 1, Row, false, "128x160x64_s5_coop"),
        (152, 37900, 2100, 1, Col, false, "128x160x64_s5_coop"),
        (129, 34000, 2100, 1, Col, false, "128x160x64_s5_coop"),
        (144, 20000, 2100, 2, Row, false, "128x160x64_s5_coop"),
        (128, 28672, 4000, 1, Row, true, "128x128x64_s6_pp"),
        (192, 28672, 4000, 1, Row, true, "128x192x64_s4_pp"),
        (128, 40000, 4000, 1, Col, true, "128x192x64_s4_pp"),
    ] {
        let h = if force { &forced } else { &g };
        let mut cs = Case {
            m,
            n,
            k,
            la: Order::RowMajor,
            lb: Order::ColMajor,
            lc,
            pad: 0,
            batch,
            broadcast_b: false,
            alpha: 1.0,
            beta: 0.0,
        };
        let ran = run_case::<bf16, f32>(h, &mut rng, &cs, Some(512));
        assert_all_match_cublas(&blas, &s, &ran, &cs);
        (cs.alpha, cs.beta) = (-1.25, 0.5);
        let scaled = run_case::<bf16, bf16>(h, &mut rng, &cs, Some(512));
        if h100 {
            for (what, kernel, tail) in [
                ("plain", &ran.kernel, ran.tail),
                ("alpha/beta", &scaled.kernel, scaled.tail),
            ] {
                assert!(kernel.contains(tile), "{m}x{n}x{k} {what}: {kernel}");
                assert!(tail.stream, "{m}x{n}x{k} {what}: {tail:?}");
            }
        }
    }
}

/// `(tokens, rows of W, k, padding, order of y, tile)`: each against cuBLAS with a `TO` `y`
/// and against f64 with alpha, beta and a bf16 `y`; the kernel (its tile) and the order in
/// which it wrote C asserted on a 132-SM Hopper GPU.
fn tokens_on_n<TO: OutputElem + Host>(
    seed: u64,
    cases: &[(usize, usize, usize, usize, Order, &str)],
) {
    let g = gpu();
    let s = g.stream().clone();
    let blas = CudaBlas::new(s.clone()).unwrap();
    let h100 = g.compute_capability() == (9, 0) && g.sm_count() == 132;
    let mut rng = Rng(seed);
    for &(m, n, k, pad, lc, tile) in cases {
        let mut cs = Case {
            m,
            n,
            k,
            la: Order::RowMajor,
            lb: Order::ColMajor,
            lc,
            pad,
            batch: 1,
            broadcast_b: false,
            alpha: 1.0,
            beta: 0.0,
        };
        let ran = run_case::<bf16, TO>(&g, &mut rng, &cs, Some(512));
        assert_all_match_cublas(&blas, &s, &ran, &cs);
        (cs.alpha, cs.beta) = (-1.25, 0.5);
        let scaled = run_case::<bf16, bf16>(&g, &mut rng, &cs, None);
        for (what, kernel, d_n_major) in [
            ("plain", &ran.kernel, ran.d_n_major),
            ("alpha/beta", &scaled.kernel, scaled.d_n_major),
        ] {
            if h100 {
                assert!(kernel.contains(tile), "{m}x{n}x{k} {what}: {kernel}");
                assert_eq!(
                    d_n_major,
                    lc == Order::ColMajor,
                    "{m}x{n}x{k} {what}: D's order"
                );
            }
        }
    }
}
