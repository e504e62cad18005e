//! Fused epilogues on every kernel: each kernel the dispatch tables hold, and the simple one,
//! is forced on problems it takes (small M for the split-K tiles and the register-streaming
//! kernel, several tiles with M a multiple of 8 for the persistent tiles' TMA store, edge
//! sizes for all), under every activation with random bias and scale vectors
//! (each axis, element type and, for scales, position), against an f64 reference of the
//! epilogue's formula. Every element of C is checked and its padding must keep its NaN.
//! The special values of the activations are checked on their own.

use ferrocute::gemm::{
    registry, Activation, Along, Epilogue, Gemm, InputElem, MatMut, MatRef, Order, OutputElem,
    Overrides, ScaleAt, Vector,
};
use half::{bf16, f16};

mod common;
use common::epilogue::*;
use common::*;

/// Shapes (m, n, k) a kernel is checked on: its own range of M, edge sizes, n even (SwiGLU
/// halves it).
fn shapes_for(name: &str) -> &'static [(usize, usize, usize)] {
    if name.contains("_mc") {
        // Clusters along M: a cluster's last tiles past M (150, 120), and full clusters.
        &[
            (150, 130, 200),
            (200, 64, 520),
            (120, 96, 264),
            (256, 256, 136),
        ]
    } else if name.contains("splitk") {
        &[(7, 130, 200), (33, 64, 520), (64, 256, 136), (120, 96, 264)]
    } else if name.contains("skinny") {
        // K whole, then in parts (few tiles of long K: skinny_parts splits from K = 2048 on)
        &[
            (1, 130, 72),
            (7, 200, 136),
            (16, 66, 520),
            (5, 4224, 64),
            (5, 130, 14336),
        ]
    } else {
        &[
            (7, 130, 72),
            (129, 200, 136),
            (64, 256, 64),
            (200, 66, 520),
            (256, 392, 72),
        ]
    }
}

/// The form of the persistent tiles' fused TMA store (`tma_fused_epilogue` in
/// `sm90/epilogue.cuh`) a case took on kernel `ran`, if it took that store: it needs a
/// 16-bit D, a fused epilogue, beta == 0 and D's contiguous extent (the kernel's M: m for a
/// column-major C, C's columns for a row-major one, computed swapped) a multiple of 8, which
/// `run_epi`'s padding then keeps for the leading dimension. The `_epi` entry points (K-major
/// A and B, D of the input's type) take SwiGLU without a scale (`gated`) and the epilogues
/// without a scale other than GELU's erf form unrolled over each 64-column box
/// (`unrolled`); the rest go through the rolled loop over 16-column groups (`rolled`),
/// SwiGLU in the plain entry points through the general epilogue (no TMA store).
fn tma_store_form<TO>(cs: &EpiCase, ran: &str) -> Option<&'static str> {
    let fused = cs.act != Activation::Identity || cs.bias.is_some() || cs.scale.is_some();
    let tma = fused
        && std::mem::size_of::<TO>() == 2
        && cs.beta == 0.0
        && c_contiguous(cs).is_multiple_of(8);
    let epi = ran.contains("_epi_");
    let unrolled_act = unrolled(cs.act);
    match () {
        _ if !tma => None,
        _ if cs.act.is_gated() => (epi && cs.scale.is_none()).then_some("gated"),
        _ if epi && unrolled_act && cs.scale.is_none() => Some("unrolled"),
        _ => Some("rolled"),
    }
}

/// Whether an activation has the unrolled form (`epi_box_act`): all but GELU's erf form and
/// the gated ones.
fn unrolled(act: Activation) -> bool {
    !act.is_gated() && act != Activation::GeluErf
}

/// The form of a narrow tile's fused epilogue (`epi_in_registers` in
/// `sm90/epilogue_fused.cuh`): the unrolled epilogues with beta == 0 in registers before
/// the plain store (`registers`), the others per staged item (`staged`).
fn narrow_form(cs: &EpiCase) -> Option<&'static str> {
    let fused = cs.act != Activation::Identity || cs.bias.is_some() || cs.scale.is_some();
    let unrolled_act = unrolled(cs.act);
    match () {
        _ if !fused => None,
        _ if cs.beta == 0.0 && unrolled_act && cs.scale.is_none() => Some("registers"),
        _ => Some("staged"),
    }
}

/// Cases that take each form of the persistent tiles' fused TMA store, so that each kernel
/// runs them whatever the random cases drew: SwiGLU with a row-major C (gated along the
/// kernel's M, computed swapped; C's 128 columns a multiple of 8) and a column-major one
/// (along N; 200 rows), GELU's tanh form unrolled, and with a scale the rolled loop; a bias
/// along either axis; SiLU's fast form with a bias along M (alpha -0.75). Then each form
/// again (GELU's and SwiGLU-along-M's fast forms there) with the kernel's N = 300, whose
/// last tile of 128 or 256 columns loads B inside N and leaves its first box unstored
/// (`col_shift`).
/// The kernel's M = 136 or 144 leaves a last tile of 128 rows 112–120 past M, which loads A
/// inside M and leaves its first slab unstored (`row_shift`; pingpong tiles store both
/// slabs at once, so each form takes it there too: SwiGLU along N at 144 rows). The narrow
/// tiles run them too, for each form of theirs, and store an N-major D by rows after the
/// staging: 200 x 66 transposed (rows of 200, SwiGLU's pairs along the kernel's M; the last
/// case GELU's erf form with a scale and beta) and 72 x 256 row-major (pairs along N).
fn epi_tma_cases() -> [EpiCase; 12] {
    let case = |m, n, lc, bias, act| EpiCase {
        m,
        n,
        k: 136,
        la: Order::RowMajor,
        lb: Order::ColMajor,
        lc,
        batch: 2,
        alpha: -0.75,
        beta: 0.0,
        act,
        bias: Some(bias),
        scale: None,
    };
    [
        case(72, 256, Order::RowMajor, Along::Cols, Activation::SwiGlu),
        case(200, 66, Order::ColMajor, Along::Rows, Activation::SwiGlu),
        case(136, 200, Order::ColMajor, Along::Cols, Activation::GeluTanh),
        case(136, 200, Order::ColMajor, Along::Rows, Activation::SiluFast),
        case(200, 66, Order::ColMajor, Along::Cols, Activation::GeluTanh),
        EpiCase {
            scale: Some((Along::Cols, ScaleAt::Output)),
            ..case(136, 200, Order::ColMajor, Along::Rows, Activation::Silu)
        },
        case(
            144,
            300,
            Order::ColMajor,
            Along::Cols,
            Activation::GeluTanhFast,
        ),
        case(200, 300, Order::ColMajor, Along::Rows, Activation::SwiGlu),
        case(144, 300, Order::ColMajor, Along::Cols, Activation::SwiGlu),
        case(
            300,
            144,
            Order::RowMajor,
            Along::Cols,
            Activation::SwiGluFast,
        ),
        EpiCase {
            scale: Some((Along::Rows, ScaleAt::Output)),
            ..case(144, 300, Order::ColMajor, Along::Cols, Activation::Silu)
        },
        EpiCase {
            scale: Some((Along::Cols, ScaleAt::Product)),
            beta: 0.5,
            ..case(200, 66, Order::ColMajor, Along::Rows, Activation::GeluErf)
        },
    ]
}

fn check_kernels<TI: InputElem + Host, TO: OutputElem + Host>(seed: u64) {
    let g = hopper();
    let mut rng = Rng(seed);
    let kernels: Vec<&'static registry::KernelConfig> = registry::all_kernels()
        .chain(std::iter::once(&registry::SIMPLE_KERNEL))
        .filter(|c| registry::runs_on(c, g.compute_capability()))
        .collect();
    let mut cases = 0;
    let mut covered = std::collections::BTreeSet::new();
    let mut forms_covered = std::collections::BTreeSet::new();
    let narrow =
        |cfg: &registry::KernelConfig| registry::NARROW_KERNELS.iter().any(|c| c.name == cfg.name);
    // The form a case took on `cfg` (for the kernels with more than one), if it ran there.
    let form_of = |cfg: &registry::KernelConfig, cs: &EpiCase, ran: &str| {
        if !ran.contains(cfg.name) {
            None
        } else if narrow(cfg) {
            narrow_form(cs)
        } else {
            tma_store_form::<TO>(cs, ran)
        }
    };
    for &cfg in &kernels {
        let forced = g.clone().with_overrides(Overrides {
            kernel: Some(cfg),
            ..Overrides::default()
        });
        for (i, &(m, n, k)) in shapes_for(cfg.name).iter().enumerate() {
            for (j, &act) in ACTIVATIONS.iter().enumerate() {
                let pick = |rng: &mut Rng| {
                    if rng.below(2) == 0 {
                        Along::Rows
                    } else {
                        Along::Cols
                    }
                };
                let gated = act.is_gated();
                let cs = EpiCase {
                    m,
                    n,
                    k,
                    la: LAYOUTS[rng.below(2)],
                    // A K-major B (which the register-streaming kernel needs) for every
                    // gated and every plain case, any B for the others.
                    lb: if gated || act == Activation::Identity {
                        Order::ColMajor
                    } else {
                        LAYOUTS[rng.below(2)]
                    },
                    // The small-M kernels take a row-major C transposed: both orders for all.
                    lc: LAYOUTS[(i + j) % 2],
                    batch: 1 + (i + j) % 3 / 2,
                    alpha: if j % 2 == 0 { 1.0 } else { -0.75 },
                    beta: if gated || (i + j) % 3 != 1 { 0.0 } else { 0.5 },
                    act,
                    bias: (rng.below(4) != 0).then(|| pick(&mut rng)),
                    scale: (rng.below(2) == 0).then(|| {
                        let at = if gated || rng.below(2) == 0 {
                            ScaleAt::Product
                        } else {
                            ScaleAt::Output
                        };
                        (pick(&mut rng), at)
                    }),
                };
                // A forced kernel runs where it is eligible (the layouts drawn decide for
                // some); every kernel must have run somewhere (checked below).
                let ran = run_epi::<TI, TO>(&forced, &mut rng, &cs);
                if ran.contains(cfg.name) {
                    covered.insert((cfg.name, gated));
                }
                if let Some(form) = form_of(cfg, &cs, &ran) {
                    forms_covered.insert((cfg.name, form));
                }
                cases += 1;
            }
        }
        if (std::mem::size_of::<TO>() == 2 && cfg.may_store_d_by_tma()) || narrow(cfg) {
            for cs in epi_tma_cases() {
                let ran = run_epi::<TI, TO>(&forced, &mut rng, &cs);
                if let Some(form) = form_of(cfg, &cs, &ran) {
                    forms_covered.insert((cfg.name, form));
                }
                cases += 1;
            }
        }
    }
    for cfg in kernels {
        for gated in [false, true] {
            assert!(
                covered.contains(&(cfg.name, gated)),
                "{} never ran (gated: {gated})",
                cfg.name
            );
        }
        // The persistent tiles' fused TMA store ran somewhere, in each of its forms, and the
        // narrow tiles' epilogue in both of theirs.
        let forms: &[&str] = if narrow(cfg) {
            &["registers", "staged"]
        } else if std::mem::size_of::<TO>() == 2 && cfg.may_store_d_by_tma() {
            &["unrolled", "rolled", "gated"]
        } else {
            &[]
        };
        for &form in forms {
            assert!(
                forms_covered.contains(&(cfg.name, form)),
                "{} never took its fused epilogue's {form} form",
                cfg.name
            );
        }
    }
    println!(
        "{cases} epilogue cases on {} kernels, every element checked",
        covered.len()
    );
}

#[test]
#[ignore = "needs an sm_90 GPU (H100/H200): cargo test -- --ignored"]
fn gpu_epilogue_every_kernel_bf16_to_bf16() {
    check_kernels::<bf16, bf16>(11);
}

#[test]
#[ignore = "needs an sm_90 GPU (H100/H200): cargo test -- --ignored"]
fn gpu_epilogue_every_kernel_f16_to_f32() {
    check_kernels::<f16, f32>(12);
}

/// f16 in and out: the persistent tiles' other `_epi` entry points.
#[test]
#[ignore = "needs an sm_90 GPU (H100/H200): cargo test -- --ignored"]
fn gpu_epilogue_every_kernel_f16_to_f16() {
    check_kernels::<f16, f16>(13);
}

/// The dispatched kernel (no override) on decode and prefill shapes of a linear layer,
/// row-major as PyTorch stores it: `y = act(x Wᵀ + b)` and SwiGLU.
#[test]
#[ignore = "needs an sm_90 GPU (H100/H200): cargo test -- --ignored"]
fn gpu_epilogue_linear_layers() {
    let g = hopper();
    let mut rng = Rng(13);
    for &(m, n, k) in &[
        (1, 1024, 512),
        (8, 2048, 1024),
        (16, 512, 4096),
        (48, 768, 512),
        (256, 1024, 256),
        (600, 512, 320),
    ] {
        for act in ACTIVATIONS {
            let cs = EpiCase {
                m,
                n,
                k,
                la: Order::RowMajor,
                lb: Order::ColMajor,
                lc: Order::RowMajor,
                batch: 1,
                alpha: 1.0,
                beta: 0.0,
                act,
                bias: Some(Along::Cols),
                scale: None,
            };
            let kernel = run_epi::<bf16, bf16>(&g, &mut rng, &cs);
            println!("{m}x{n}x{k} {act:?}: {kernel}");
        }
    }
}

/// 129-160 tokens of `y = act(x Wᵀ + b)` with a column-major `y` against weights of
/// 11,008-14,336 rows (SwiGLU: half as many outputs): the dispatch moves them to the
/// weight's side, a narrow 128x160 tile with the tokens on N (gate/up pairs along M),
/// every activation with a bias per weight row, one with a scale.
#[test]
#[ignore = "needs an sm_90 GPU (H100/H200): cargo test -- --ignored"]
fn gpu_epilogue_tokens_on_the_weight_side() {
    let g = hopper();
    let h100 = g.sm_count() == 132;
    let mut rng = Rng(15);
    for &(m, n, k) in &[(144, 11008, 256), (129, 14336, 200)] {
        for act in ACTIVATIONS {
            let cs = EpiCase {
                m,
                n,
                k,
                la: Order::RowMajor,
                lb: Order::ColMajor,
                lc: Order::ColMajor,
                batch: 1,
                alpha: 1.0,
                beta: 0.0,
                act,
                bias: Some(Along::Cols),
                scale: (act == Activation::Relu).then_some((Along::Cols, ScaleAt::Product)),
            };
            let kernel = run_epi::<bf16, bf16>(&g, &mut rng, &cs);
            if h100 {
                assert!(
                    kernel.contains("128x160x64_s5_coop"),
                    "{m}x{n}x{k} {act:?}: {kernel}"
                );
            }
        }
    }
}

/// Every activation after stream-K (`geometry::stream_k_blocks`), which sums a cut tile's
/// two pieces before the epilogue: 144 tokens of `y = act(x Wᵀ + b)` with a column-major `y`
/// against 34,000 weight rows (the narrow 128x160 tile, 266 tiles: past two rounds on 132
/// SMs), a bias per weight row, the same inputs through stream-K and through whole rounds
/// (`Overrides::stream_k` off), whose epilogues `gpu_epilogue_tokens_on_the_weight_side`
/// checks against f64: every element equal within a bf16 rounding of either (the sums differ
/// only in order).
#[test]
#[ignore = "needs an sm_90 GPU (H100/H200): cargo test -- --ignored"]
fn gpu_epilogue_after_stream_k() {
    let g = hopper();
    let whole = g.clone().with_overrides(Overrides {
        stream_k: Some(false),
        ..Overrides::default()
    });
    let s = g.stream().clone();
    let (m, n, k) = (144, 34000, 2100);
    let mut rng = Rng(17);
    let x: Vec<bf16> = rng.values(m * k);
    let w: Vec<bf16> = rng.values(n * k);
    let (dx, dw) = (s.clone_htod(&x).unwrap(), s.clone_htod(&w).unwrap());
    let (_, bias) = random_vec(&g, &mut rng, n, Along::Cols, -1.0, 1.0);
    for act in ACTIVATIONS {
        let n_out = if act.is_gated() { n / 2 } else { n };
        let epi = Epilogue::new()
            .activation(act)
            .bias(bias.vector(Along::Cols));
        let run = |h: &Gemm| {
            let mut dy = s.alloc_zeros::<bf16>(m * n_out).unwrap();
            let ds = h
                .gemm_with(
                    1.0,
                    &MatRef::new(&dx, m, k, Order::RowMajor),
                    &MatRef::new(&dw, k, n, Order::ColMajor),
                    0.0,
                    &mut MatMut::new(&mut dy, m, n_out, Order::ColMajor),
                    &epi,
                )
                .unwrap();
            (ds, s.clone_dtoh(&dy).unwrap())
        };
        let ((streamed, y), (rounds, y_whole)) = (run(&g), run(&whole));
        if g.sm_count() == 132 {
            let what = format!("{act:?}: {} {:?}", streamed.kernel, streamed.tail);
            assert!(streamed.kernel.contains("128x160x64_s5_coop"), "{what}");
            assert!(streamed.tail.stream && !rounds.tail.stream, "{what}");
        }
        let rms = (y_whole.iter().map(|v| v.to_f64().powi(2)).sum::<f64>() / y.len() as f64).sqrt();
        for (i, (a, b)) in y.iter().zip(&y_whole).enumerate() {
            let (a, b) = (a.to_f64(), b.to_f64());
            let tol = a.abs().max(b.abs()) / 128.0 + 1e-3 * rms;
            assert!((a - b).abs() <= tol, "{act:?} at {i}: {a} against {b}");
        }
    }
}

/// NaN and ±inf through each activation (the module documentation's promises): the product
/// is 0 and the bias carries the special value (SwiGLU: the gate's, its up's bias 1.5). On
/// the dispatched kernel with an f32 D, and on each persistent tile family forced with a bf16
/// D of 64 rows, which goes out by the fused TMA store (its unrolled or gated form for all
/// but GELU's erf form). C starts as NaN, so an output never written fails.
#[test]
#[ignore = "needs an sm_90 GPU (H100/H200): cargo test -- --ignored"]
fn gpu_epilogue_special_values() {
    let g = hopper();
    special_values::<f32>(&g, 8, None);
    for family in [
        "128x128x64_s6_pp",
        "128x192x64_s4_pp",
        "128x256x64_s4_coop",
        // the narrow tiles, transposed (6 columns): the fused epilogue in registers
        "128x80x64_s8_coop",
        "128x96x64_s7_coop",
        "128x160x64_s5_coop",
    ] {
        let cfg = registry::all_kernels()
            .find(|c| c.name == format!("sm90_{family}"))
            .unwrap_or_else(|| panic!("no kernel sm90_{family}"));
        let forced = g.clone().with_overrides(Overrides {
            kernel: Some(cfg),
            ..Overrides::default()
        });
        special_values::<bf16>(&forced, 64, Some(cfg.name));
    }
}

fn special_values<TO: OutputElem + Host>(g: &Gemm, m: usize, kernel: Option<&str>) {
    let s = g.stream();
    // alpha = -1 makes the zero product -0, so a bias of -0 gives the activation -0
    // (ReLU's goes to +0) and a bias of 0 gives it +0
    let specials = [
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        -3.0,
        0.0,
        -0.0,
        2.5,
    ];
    let k = 16;
    let n = specials.len();
    let a = s.clone_htod(&vec![bf16::ZERO; m * k]).unwrap();
    let b = s.clone_htod(&vec![bf16::ZERO; k * 2 * n]).unwrap();
    let bias = s.clone_htod(&specials).unwrap();
    // SwiGLU's bias: gate j the special value, its up 1.5
    let up = 1.5;
    let gated_bias = s
        .clone_htod(&specials.iter().flat_map(|&x| [x, up]).collect::<Vec<f32>>())
        .unwrap();
    for act in ACTIVATIONS {
        let gated = act.is_gated();
        let (epi, cols) = if gated {
            (
                Epilogue::new()
                    .activation(act)
                    .bias(Vector::cols(&gated_bias)),
                2 * n,
            )
        } else {
            (Epilogue::new().activation(act).bias(Vector::cols(&bias)), n)
        };
        let mut c = s.clone_htod(&vec![TO::nan(); m * n]).unwrap();
        let ran = g
            .gemm_with(
                -1.0,
                &MatRef::new(&a, m, k, Order::RowMajor),
                &MatRef::new(&b, k, cols, Order::ColMajor),
                0.0,
                &mut MatMut::new(&mut c, m, n, Order::ColMajor),
                &epi,
            )
            .unwrap()
            .kernel;
        if let Some(name) = kernel {
            assert!(ran.contains(name), "forced {name} but {ran} ran");
        }
        let out = s.clone_dtoh(&c).unwrap();
        for (j, &x) in specials.iter().enumerate() {
            let want = if gated {
                act_f64(Activation::Silu, x as f64) * up as f64
            } else {
                act_f64(act, x as f64)
            };
            for r in 0..m {
                let got = out[j * m + r].to_f64();
                assert!(
                    (want.is_nan() && got.is_nan())
                        || got == want
                        || (got - want).abs()
                            <= TO::EPS.max(1e-6) * want.abs()
                                + act_allowance(act, x as f64)
                                    * if gated { up as f64 } else { 1.0 },
                    "{ran}: {act:?}({x}) = {got}, want {want}"
                );
                // a zero keeps the documented sign (D's 16-bit types have a signed zero)
                assert!(
                    want != 0.0 || got.is_sign_negative() == want.is_sign_negative(),
                    "{ran}: {act:?}({x}) = {got:?}, want {want:?}"
                );
            }
        }
    }
}

/// One plain-epilogue and one gated case per kernel family, small enough for
/// compute-sanitizer (memcheck, racecheck, synccheck); 304 columns, so that the persistent
/// tiles' last tile of N (of a column-major C) loads B inside N and skips its first box.
#[test]
#[ignore = "needs an sm_90 GPU (H100/H200): cargo test -- --ignored"]
fn gpu_epilogue_small() {
    let g = hopper();
    let mut rng = Rng(14);
    let families = [
        "skinny16",
        "splitk_64x64",
        "splitk_128x64x64_s9_mc2",
        "splitk_64x64x64_s13_mc2",
        "splitk_96x64x64_s11_mc2",
        "splitk_96x128x64_s8_mc2",
        "splitk_64x64x64_s13_nc4",
        "128x128x64_s6_pp",
        "128x256x64_s4_coop",
        "128x80x64_s8_coop",
        "128x96x64_s7_coop",
        "128x160x64_s5_coop",
        "sm80",
        "simple",
    ];
    for family in families {
        let cfg = registry::all_kernels()
            .chain(std::iter::once(&registry::SIMPLE_KERNEL))
            .find(|c| c.name.contains(family))
            .unwrap_or_else(|| panic!("no kernel named like {family}"));
        let forced = g.clone().with_overrides(Overrides {
            kernel: Some(cfg),
            ..Overrides::default()
        });
        // On the persistent tiles (72 rows; a row-major C's 72 columns when gated): GELU's
        // erf form with a scale and SwiGLU without one take the TMA store's rolled and gated
        // forms, SwiGLU with a scale the general epilogue, GELU's tanh forms the unrolled one,
        // fast SwiGLU the gated one; on the narrow tile the staged items, their gate/up pairs
        // and the registers form.
        for (act, lc, scale) in [
            (Activation::GeluErf, Order::ColMajor, true),
            (Activation::SwiGlu, Order::RowMajor, true),
            (Activation::SwiGlu, Order::RowMajor, false),
            (Activation::SwiGlu, Order::ColMajor, false),
            (Activation::GeluTanh, Order::ColMajor, false),
            (Activation::GeluTanhFast, Order::ColMajor, false),
            (Activation::SwiGluFast, Order::RowMajor, false),
        ] {
            // The narrow tiles and the 128-row split-K pair at 200 rows, the 64-row pair at
            // 100, the 96-row pairs at 160: their last tile of M loads 56 (24, 32) rows early
            // and stores from its own first row on. Tiles wider than M load M's rows rounded
            // up to 8: 8 of 64 at 5 rows, in clusters along N 2 bands of 16 at 20 rows.
            let m = match family {
                "skinny16" | "splitk_64x64" => 5,
                "splitk_64x64x64_s13_nc4" => 20,
                "splitk_64x64x64_s13_mc2" => 100,
                "splitk_96x64x64_s11_mc2" | "splitk_96x128x64_s8_mc2" => 160,
                "splitk_128x64x64_s9_mc2"
                | "128x80x64_s8_coop"
                | "128x96x64_s7_coop"
                | "128x160x64_s5_coop" => 200,
                _ => 72,
            };
            let cs = EpiCase {
                m,
                n: 304,
                k: 72,
                la: Order::RowMajor,
                lb: Order::ColMajor,
                lc,
                batch: 2,
                alpha: 1.0,
                beta: 0.0,
                act,
                bias: Some(Along::Cols),
                scale: scale.then_some((Along::Rows, ScaleAt::Product)),
            };
            let ran = run_epi::<bf16, bf16>(&forced, &mut rng, &cs);
            assert!(ran.contains(cfg.name), "forced {} but {ran} ran", cfg.name);
        }
    }
}
