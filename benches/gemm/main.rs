//! ferrocute GEMM vs cuBLAS, same process, CUDA-event timing.
//!
//! `cargo bench --bench gemm -- [--shapes square|skinny|small|unaligned|llm|all]
//! [--shape MxNxK ...] [--tokens 1,8,64] [--layout tn,nn,tt,nt,rm|all] [--iters N]
//! [--rounds R] [--sets N] [--soak SECS] [--rest SECS] [--queued] [--no-events]
//! [--repacking never|auto]
//! [--epilogue bias,relu,gelu,gelufast,swiglu,swiglufast|all]`
//!
//! bf16 inputs, f32 accumulation, bf16 output. Layouts use BLAS names for a column-major C
//! (TN = A K-major, B K-major; NN = A M-major; TT = B N-major; NT = both), and RM is
//! row-major throughout (`C = A·Wᵀ` with the weight stored `n x k` row-major, as PyTorch
//! and candle store a linear layer). `--shapes llm` runs the linear layers of current open
//! models at 1 to 256 tokens; for m <= 256 every row also gives both libraries' bandwidth
//! as % of the copy bandwidth and of the read floor (floor.rs). `--epilogue` races fused
//! epilogues instead (epilogue.rs).

mod args;
mod epilogue;
mod floor;
mod lt;
mod passes;
mod problem;
mod timing;

use cudarc::cublas::CudaBlas;
use cudarc::driver::{sys, CudaSlice};
use ferrocute::gemm::dispatch::Dispatch;
use ferrocute::gemm::registry::GridKind;
use ferrocute::gemm::Gemm;
use half::bf16;

use args::parse_args;
use floor::{copy_gbs, ReadFloor};
use problem::{cublas, named_shapes, ours, random_bf16, Layout};
use timing::{host_us, median, soak_ms, time_ms};

/// Buffers are rotated over at least this many bytes, beyond the 50 MB L2.
const ROTATE_BYTES: usize = 50 << 20;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// One timed set of buffers: A, the index of its B among the weight's sets, and C.
type Set = (CudaSlice<bf16>, usize, CudaSlice<bf16>);

/// A weight (B) and its device copies, shared by the shapes of one `n x k`, with the read
/// floor of those copies once measured.
struct Weight {
    nk: (usize, usize),
    host: Vec<bf16>,
    sets: Vec<CudaSlice<bf16>>,
    floor_ms: Option<f32>,
}

/// The kernel a call ran, with its K split, cluster, tail split or stream-K tiles.
fn describe(d: &Dispatch) -> String {
    let name = d.kernel.trim_start_matches("ferrocute_").to_string();
    // A split-K kernel's cluster splits K, unless it spans tiles of M or N (`_mc`, `_nc`).
    let split = d
        .config
        .is_some_and(|c| c.grid == GridKind::SplitK && c.cluster_m * c.cluster_n == 1);
    let name = match (d.cluster, split) {
        (1, _) => name,
        (c, true) => format!("{name} split-K {c}"),
        (c, false) => format!("{name} cluster {c}"),
    };
    let skinny = d.config.is_some_and(|c| c.grid == GridKind::Skinny);
    let name = match d.tail {
        t if t.splits == 0 => name,
        t if skinny => format!("{name} K in {} parts", t.splits),
        t if t.stream => format!("{name} stream-K {}", t.tiles),
        t => format!("{name} tail {}x{}", t.tiles, t.splits),
    };
    let name = if d.plan.d_n_major {
        format!("{name}, transposed")
    } else {
        name
    };
    let repacked: Vec<&str> = ["A", "B", "D"]
        .into_iter()
        .zip(d.repacked)
        .filter_map(|(x, s)| s.then_some(x))
        .collect();
    if repacked.is_empty() {
        name
    } else {
        format!("{name}, repacked {}", repacked.join("+"))
    }
}

fn main() {
    if let Err(e) = run() {
        println!("benchmark not run: {e}");
    }
}

fn run() -> Res<()> {
    let args = parse_args();
    let g = match Gemm::open(0) {
        Ok(g) => g.with_repacking(args.repacking),
        Err(e) => {
            println!("no CUDA GPU available, skipping benchmark: {e}");
            return Ok(());
        }
    };
    let stream = g.stream().clone();
    let ctx = stream.context().clone();
    if args.no_events {
        // # Safety
        // Every buffer of this process is allocated after this call and used on `stream`
        // alone, so stream order is the only synchronisation the buffers need.
        unsafe { ctx.disable_event_tracking() };
    }
    let attr = |a| ctx.attribute(a).unwrap_or(-1);
    let sms = attr(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    println!(
        "GPU: {} (sm_{}{}), {sms} SMs, SM clock {} MHz, memory clock {} MHz, bus {} bit",
        ctx.name()?,
        g.compute_capability().0,
        g.compute_capability().1,
        attr(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CLOCK_RATE) / 1000,
        attr(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE) / 1000,
        attr(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH),
    );
    let blas = CudaBlas::new(stream.clone())?;
    let shapes = if args.custom.is_empty() {
        named_shapes(&args.shapes, &args.tokens)
    } else {
        args.custom.iter().map(|&(m, n, k)| (m, n, k, "")).collect()
    };
    if let Some(list) = &args.epilogue {
        let kinds = epilogue::Kind::parse(list);
        let sms = sms.max(1) as u32;
        return epilogue::race(
            &g,
            &blas,
            &stream,
            &kinds,
            &shapes,
            args.iters,
            args.rounds,
            sms,
        );
    }
    let copy = copy_gbs(&stream, args.iters)?;
    println!("device-to-device copy: {copy:.0} GB/s (read + write, 256 MiB buffers)");
    let mut floor = ReadFloor::new(&stream)
        .map_err(|e| println!("read floor not measured (NVRTC: {e})"))
        .ok();

    println!(
        "(per launch: median of {} samples of 10 back-to-back launches{}{}; TFLOP/s with % of the \
         989 TFLOP/s bf16 peak; for m <= 256, bytes moved per second as % of the copy bandwidth \
         and % of the read floor: the time a plain read of B takes over the time of the GEMM)",
        args.iters,
        if args.rounds > 1 {
            let r = args.rounds;
            format!(", median of {r} alternating rounds (ratio: median of the rounds' ratios)")
        } else {
            String::new()
        },
        if args.queued { ", samples queued" } else { "" }
    );
    println!(
        "(buffers: at least {} sets, more to pass 50 MB, at most 256; event tracking {})",
        args.sets.max(2),
        if args.no_events { "off" } else { "on" }
    );
    println!(
        "{:>18} {:>4} {:>9} {:>22} {:>9} {:>22} {:>6}  check, kernel, host time per call (ours / cuBLAS)",
        "m x n x k", "lay", "ours us", "TF/s | %copy %floor", "cuBLAS us", "TF/s | %copy %floor", "ratio"
    );
    let mut rng = 0x1234_5678_u64;
    let mut rand = |len: usize| random_bf16(&mut rng, len);
    // B (the weight) is shared by consecutive shapes of the same n x k.
    let mut weight: Option<Weight> = None;
    let mut last_what = "";
    for &(m, n, k, what) in &shapes {
        if !what.is_empty() && what != last_what {
            println!(
                "-- {what}: {n} x {k} ({:.0} MB of bf16)",
                (n * k * 2) as f64 / 1e6
            );
            last_what = what;
        }
        let bytes = (m * k + k * n + m * n) * 2;
        let nsets = ROTATE_BYTES.div_ceil(bytes).max(args.sets).clamp(2, 256);
        if weight.as_ref().is_none_or(|w| w.nk != (n, k)) {
            drop(weight.take()); // free the previous weight's sets first
            weight = Some(Weight {
                nk: (n, k),
                host: rand(k * n),
                sets: Vec::new(),
                floor_ms: None,
            });
        }
        let Weight {
            host: hb,
            sets: bs,
            floor_ms,
            ..
        } = weight.as_mut().expect("set above");
        while bs.len() < nsets {
            bs.push(stream.clone_htod(hb)?);
        }
        let bs = &bs[..nsets];
        if m <= 256 && floor_ms.is_none() {
            if let Some(f) = floor.as_mut() {
                let mut bufs = bs.to_vec();
                *floor_ms = Some(f.time_ms(&stream, sms.max(1) as u32, args.iters, &mut bufs)?);
            }
        }
        let floor_ms = *floor_ms;
        let ha = rand(m * k);
        let mut sets: Vec<Set> = (0..nsets)
            .map(|i| Ok((stream.clone_htod(&ha)?, i, stream.alloc_zeros(m * n)?)))
            .collect::<Res<_>>()?;
        let flops = 2.0 * m as f64 * n as f64 * k as f64;
        let dims = (m, n, k);
        for &lay in &args.layouts {
            let name = lay.name();
            let check = check(&g, &blas, lay, &mut sets[0], bs, &ha, hb, dims);
            let rest = || std::thread::sleep(std::time::Duration::from_secs_f64(args.rest));
            let mut theirs_f = |s: &mut Set| cublas(&blas, lay, &s.0, &bs[s.1], &mut s.2, dims);
            let mut ours_f = |s: &mut Set| ours(&g, lay, &s.0, &bs[s.1], &mut s.2, dims).map(drop);
            // Per round (cuBLAS first in even rounds, ours first in odd ones): cuBLAS's
            // time, and ours where the check ran.
            let timed = |sets: &mut [Set], f: &mut dyn FnMut(&mut Set) -> Res<()>| {
                rest();
                time_ms(&stream, args.iters, args.queued, sets, f)
            };
            let mut rounds: Vec<(f32, Option<f32>)> = Vec::with_capacity(args.rounds);
            for r in 0..args.rounds {
                let ours_first = r % 2 == 1;
                let mut mine = None;
                if ours_first && check.is_ok() {
                    mine = Some(timed(&mut sets, &mut ours_f)?);
                }
                let theirs = timed(&mut sets, &mut theirs_f)?;
                if !ours_first && check.is_ok() {
                    mine = Some(timed(&mut sets, &mut ours_f)?);
                }
                rounds.push((theirs, mine));
            }
            let theirs = median(rounds.iter().map(|r| r.0).collect());
            let host_theirs = host_us(&stream, &mut sets, &mut theirs_f)?;
            let speed = |t: f32| {
                let tf = flops / (t as f64 * 1e-3) / 1e12;
                let mut s = format!("{tf:6.1} ({:4.1}%)", tf / 9.89);
                if m <= 256 {
                    let gbs = bytes as f64 / (t as f64 * 1e-3) / 1e9;
                    s += &format!(" | {:3.0}%", 100.0 * gbs / copy);
                    match floor_ms {
                        Some(f) => s += &format!(" {:4.0}%", 100.0 * f / t),
                        None => s += "   n/a",
                    }
                }
                format!("{:8.1} {s:>24}", t * 1e3)
            };
            let (ours_s, ratio, check) = match check {
                Ok(c) => {
                    let t = median(rounds.iter().filter_map(|r| r.1).collect());
                    let ratios: Vec<f32> = rounds
                        .iter()
                        .filter_map(|&(th, o)| o.map(|o| th / o))
                        .collect();
                    let host_ours = host_us(&stream, &mut sets, &mut ours_f)?;
                    let mut c = format!("{c}  host {host_ours:.1} / {host_theirs:.1} us");
                    if ratios.len() > 1 {
                        let each: Vec<String> = ratios.iter().map(|r| format!("{r:.2}")).collect();
                        c = format!("{c}  rounds {}", each.join(" "));
                    }
                    (speed(t), format!("{:6.2}", median(ratios)), c)
                }
                Err(e) => (
                    format!("{:>33}", "n/a"),
                    "   n/a".into(),
                    format!("error: {e}"),
                ),
            };
            if args.soak > 0.0 {
                let tf = |t: f32| flops / (t as f64 * 1e-3) / 1e12;
                let (t, w) = soak_ms(&stream, args.soak, &mut sets, &mut theirs_f)?;
                println!("soak {m}x{n}x{k} {name} cuBLAS {w} {:.1} TFLOP/s", tf(t));
                let (t, w) = soak_ms(&stream, args.soak, &mut sets, &mut ours_f)?;
                println!("soak {m}x{n}x{k} {name} ours {w} {:.1} TFLOP/s", tf(t));
            }
            println!(
                "{:>18} {name:>4} {ours_s} {} {ratio}  {check}",
                format!("{m}x{n}x{k}"),
                speed(theirs),
            );
        }
    }
    Ok(())
}

/// Runs both libraries once on `set` and compares every element of C; where they differ,
/// an f64 product decides whose result is off (cuBLAS's bf16 output has been, by 0.056 at
/// one element of 1537x1531x4104 NN). Returns "ok" and the kernel ours ran.
#[allow(clippy::too_many_arguments)]
fn check(
    g: &Gemm,
    blas: &CudaBlas,
    lay: Layout,
    set: &mut Set,
    bs: &[CudaSlice<bf16>],
    ha: &[bf16],
    hb: &[bf16],
    (m, n, k): (usize, usize, usize),
) -> Res<String> {
    let stream = g.stream();
    let kernel = describe(&ours(g, lay, &set.0, &bs[set.1], &mut set.2, (m, n, k))?);
    let x: Vec<bf16> = stream.clone_dtoh(&set.2)?;
    cublas(blas, lay, &set.0, &bs[set.1], &mut set.2, (m, n, k))?;
    let y: Vec<bf16> = stream.clone_dtoh(&set.2)?;
    let rms = (y.iter().map(|v| v.to_f64().powi(2)).sum::<f64>() / y.len() as f64).sqrt();
    let exact = |i: usize| -> f64 {
        let (r, c) = lay.c_coord(m, n, i);
        (0..k)
            .map(|kk| ha[lay.a_at(m, k, r, kk)].to_f64() * hb[lay.b_at(k, n, kk, c)].to_f64())
            .sum()
    };
    let off = |v: f64, e: f64| (v - e).abs() >= e.abs() / 64.0 + 1e-2 * rms;
    let bad: Vec<usize> = (0..x.len())
        .filter(|&i| off(x[i].to_f64(), y[i].to_f64()) || x[i].is_nan())
        .collect();
    let at = |i: usize| {
        let (r, c) = lay.c_coord(m, n, i);
        format!(
            "({r},{c}) ours {} cuBLAS {} f64 {:.4}",
            x[i],
            y[i],
            exact(i)
        )
    };
    let (ours_off, theirs_off): (Vec<usize>, Vec<usize>) = bad
        .iter()
        .partition(|&&i| off(x[i].to_f64(), exact(i)) || x[i].is_nan());
    let list = |v: &[usize]| v.iter().take(3).map(|&i| at(i)).collect::<Vec<_>>();
    Ok(match (ours_off.len(), theirs_off.len()) {
        (0, 0) => format!("ok  {kernel}"),
        (0, t) => format!(
            "ok (cuBLAS off at {t}: {})  {kernel}",
            list(&theirs_off).join(", ")
        ),
        (o, _) => format!(
            "MISMATCH ({o} elements: {})  {kernel}",
            list(&ours_off).join(", ")
        ),
    })
}
