//! GPU tests: small problems of every transpose against an f64 reference, unaligned
//! and repacked operands, batches, and errors that need a device. Run on a CUDA machine with `cargo test -- --ignored`;
//! without one every test here is reported as ignored.

use ferrocute::gemm::{
    registry, Error, Gemm, InputElem, MatMut, MatRef, MatShape, Matrix, Order, OutputElem,
    Overrides, Repacking,
};
use half::{bf16, f16};

mod common;
use common::*;

/// A module the driver rejects is a typed error: a child process loads a garbage
/// `sm80_gemm.cubin` through `FERROCUTE_PTX_DIR`.
#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --ignored"]
fn gpu_kernel_load_error_is_clean() {
    // In the child (this same test, run again with the variable set): load and fail.
    if std::env::var_os("FERROCUTE_PTX_DIR").is_some() {
        return kernel_load_error_child();
    }
    drop(gpu());
    let dir = std::env::temp_dir().join(format!("ferrocute-bad-module-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("sm80_gemm.cubin"), b"not an ELF image").unwrap();
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "gpu_kernel_load_error_is_clean",
            "--exact",
            "--ignored",
            "--nocapture",
        ])
        .env("FERROCUTE_PTX_DIR", &dir)
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).ok();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The child of `gpu_kernel_load_error_is_clean`, with `FERROCUTE_PTX_DIR` set.
fn kernel_load_error_child() {
    let g = Gemm::open(0).unwrap();
    let s = g.stream();
    let a = s.clone_htod(&[f16::ONE; 64]).unwrap();
    let mut c = s.alloc_zeros::<f16>(64).unwrap();
    // 7 rows: an odd leading dimension, which only the Ampere-class module takes.
    let r = g.gemm(
        1.0,
        &MatRef::new(&a, 7, 8, Order::ColMajor),
        &MatRef::new(&a, 8, 7, Order::ColMajor),
        0.0,
        &mut MatMut::new(&mut c, 7, 7, Order::ColMajor),
    );
    assert!(matches!(r, Err(Error::KernelLoad { .. })), "{r:?}");
}

#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --ignored"]
fn gpu_context_mismatch_and_device_overlap() {
    let g = gpu();
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
        &MatRef::new(&foreign, 16, 16, Order::RowMajor),
        &MatRef::new(&foreign, 16, 16, Order::RowMajor),
        0.0,
        &mut MatMut::new(&mut buf, 16, 16, Order::ColMajor),
    );
    assert_eq!(
        r.unwrap_err(),
        Error::ContextMismatch { operand: Matrix::A }
    );
    // Buffer too short on a real device.
    let a = s.alloc_zeros::<bf16>(10).unwrap();
    let r = g.gemm(
        1.0,
        &MatRef::new(&a, 4, 4, Order::RowMajor),
        &MatRef::new(&a, 4, 4, Order::RowMajor),
        0.0,
        &mut MatMut::new(&mut buf, 4, 4, Order::ColMajor),
    );
    assert_eq!(
        r.unwrap_err(),
        Error::BufferTooShort {
            operand: Matrix::A,
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
                    lc: Order::ColMajor,
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
#[ignore = "needs a CUDA GPU: cargo test -- --ignored"]
fn gpu_unaligned_leading_dimensions() {
    let g = gpu();
    // In place: on Hopper `Repacking::Auto` would copy them for the TMA kernels.
    let g = g.with_repacking(Repacking::Never);
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
/// against f64 with C's padding still poisoned, and the repacked operands exactly those
/// that are misaligned. With `Repacking::Never` the same problems stay on the Ampere-class
/// tiles.
#[test]
#[ignore = "needs an sm_90 GPU (H100/H200): cargo test -- --ignored"]
fn gpu_repacked_operands() {
    let g = hopper();
    let mut rng = Rng(31);
    for (policy, want_tma) in [(Repacking::Auto, true), (Repacking::Never, false)] {
        let g = g.clone().with_repacking(policy);
        let shapes = [MISALIGNED.as_slice(), &[(1030, 1100, 520, 1)]].concat();
        for (i, cs) in misaligned_cases(&shapes) {
            let (m, n, k, pad, la, lb) = (cs.m, cs.n, cs.k, cs.pad, cs.la, cs.lb);
            let samples = (m * n > 100_000).then_some(20_000);
            let ran = if i % 2 == 0 {
                let r = run_case::<bf16, bf16>(&g, &mut rng, &cs, samples);
                (r.kernel, r.repacked, r.shapes, r.d_n_major)
            } else {
                let r = run_case::<f16, f32>(&g, &mut rng, &cs, samples);
                (r.kernel, r.repacked, r.shapes, r.d_n_major)
            };
            let (kernel, repacked, [sa, sb, sc], transposed) = ran;
            // Not a whole number of 16-byte pieces per row or batch.
            let misaligned = |s: &MatShape, elems: usize| {
                !s.ld.is_multiple_of(elems)
                    || (s.batch > 1 && !s.batch_stride.is_multiple_of(elems))
            };
            let d_elems = if i % 2 == 0 { 8 } else { 4 };
            // D through the workspace only with A or B, on the persistent tiles.
            let (wa, wb) = (misaligned(&sa, 8), misaligned(&sb, 8));
            let persistent = !kernel.contains("splitk") && !kernel.contains("skinny");
            let wd = misaligned(&sc, d_elems) && (wa || wb) && persistent;
            // The flags name the kernel's operands: a problem run transposed (few columns)
            // has the caller's B as its A.
            let want = match (want_tma, transposed) {
                (false, _) => [false; 3],
                (true, false) => [wa, wb, wd],
                (true, true) => [wb, wa, wd],
            };
            assert_eq!(
                repacked, want,
                "{m}x{n}x{k} pad {pad} {la:?}{lb:?}: {kernel}"
            );
            assert_eq!(
                kernel.starts_with("ferrocute_sm90"),
                want_tma,
                "{m}x{n}x{k} pad {pad} {la:?}{lb:?} {policy:?}: {kernel}"
            );
        }
    }
}

/// An M-major A of a few hundred rows whose rows are not whole 128-byte lines, read by the
/// small-M tiles (in place, or once copied: the last case runs the persistent tile in place),
/// is copied transposed into the workspace (`transposes_a`) and the kernel reads it K-major:
/// rows off the 32-byte sectors (136, 200, 216 rows), on them with 16 Mi elements of B
/// (160, and 140 rows 144 apart), K not a multiple of 64, padded leading dimensions, two and
/// three batches (one copy each), a K (17,024) whose 64x64 tiles outnumber the copy's
/// blocks, so that each loops; beta; every element against f64 (sampled on the largest),
/// C's padding still poisoned. With `Repacking::Never` A is read in place by a TMA kernel.
#[test]
#[ignore = "needs an sm_90 GPU (H100/H200): cargo test -- --ignored"]
fn gpu_m_major_a_transposed() {
    let g = hopper();
    let mut rng = Rng(61);
    let cases = [
        (136, 2048, 1000, 1, 0),
        (160, 4096, 4104, 1, 0),
        (200, 2048, 520, 2, ALIGN8),
        (216, 1000, 776, 3, 0),
        (136, 4096, 136, 2, ALIGN8_C_ODD),
        (140, 4096, 4104, 1, ALIGN8),
        (200, 2048, 17024, 1, 0),
    ];
    for (i, &(m, n, k, batch, pad)) in cases.iter().enumerate() {
        for policy in [Repacking::Auto, Repacking::Never] {
            let h = g.clone().with_repacking(policy);
            let cs = Case {
                pad,
                beta: if i % 2 == 0 { 0.0 } else { 0.5 },
                ..Case::sweep(
                    i,
                    m,
                    n,
                    k,
                    batch,
                    Order::ColMajor,
                    Order::ColMajor,
                    Order::ColMajor,
                )
            };
            let samples = (m * n * k * batch > 50_000_000).then_some(20_000);
            let r = if i % 2 == 0 {
                let r = run_case::<bf16, bf16>(&h, &mut rng, &cs, samples);
                (r.kernel, r.repacked)
            } else {
                let r = run_case::<f16, f32>(&h, &mut rng, &cs, samples);
                (r.kernel, r.repacked)
            };
            let (kernel, repacked) = r;
            let what = format!("{m}x{n}x{k}x{batch} pad {pad} {policy:?}: {kernel}");
            let auto = policy == Repacking::Auto;
            assert_eq!(repacked, [auto, false, false], "{what}");
            let am = if auto { "_k" } else { "_m" };
            assert!(kernel.contains(&format!("{am}k_")), "{what}");
            assert!(kernel.starts_with("ferrocute_sm90"), "{what}");
        }
    }
}

/// A D repacked where the kernel writes it N-major goes out to C by its rows: m rows of n,
/// not n of n (which wrote past C: over the next batch, where the copies' order may hide
/// it, and past the allocation, which compute-sanitizer's memcheck reports). The narrow
/// tile, forced, runs `y = x Wᵀ` with a row-major y of 7 rows untransposed, in place but for
/// x, whose 16-byte rows are widened (`widened_rows`), and y, whose odd leading dimension
/// takes D through the workspace. Two batches, against f64 with C's padding poisoned.
#[test]
#[ignore = "needs an sm_90 GPU (H100/H200): cargo test -- --ignored"]
fn gpu_repacked_n_major_d() {
    let g = hopper().with_overrides(Overrides {
        kernel: Some(&registry::NARROW_KERNELS[0]),
        ..Overrides::default()
    });
    let mut rng = Rng(37);
    let cs = Case {
        m: 7,
        n: 2056,
        k: 4096,
        la: Order::ColMajor,
        lb: Order::ColMajor,
        lc: Order::RowMajor,
        pad: ALIGN8_C_ODD,
        batch: 2,
        broadcast_b: false,
        alpha: 1.0,
        beta: 0.0,
    };
    let r = run_case::<bf16, bf16>(&g, &mut rng, &cs, None);
    assert!(r.d_n_major, "{}", r.kernel);
    assert_eq!(r.repacked, [true, false, true], "{}", r.kernel);
}

#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --ignored"]
fn gpu_small_all_transposes_bf16() {
    let g = gpu();
    small_sweep::<bf16, f32>(&g, 1);
    small_sweep::<bf16, bf16>(&g, 2);
}

#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --ignored"]
fn gpu_small_all_transposes_f16() {
    let g = gpu();
    small_sweep::<f16, f32>(&g, 3);
    small_sweep::<f16, f16>(&g, 4);
}

#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --ignored"]
fn gpu_batched_and_broadcast() {
    let g = gpu();
    let mut rng = Rng(5);
    for (broadcast_b, beta) in [(false, 0.0), (true, 1.5)] {
        for lc in LAYOUTS {
            let cs = Case {
                m: 37,
                n: 64,
                k: 72,
                la: Order::RowMajor,
                lb: Order::ColMajor,
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
