//! ferrocute GEMM vs cuBLAS, same process, CUDA-event timing.
//!
//! `cargo bench --bench gemm -- [--shapes square|skinny|small|unaligned|all] [--shape MxNxK ...] [--layout tn|nn|all] [--iters N] [--rounds R] [--sets N] [--soak SECS] [--rest SECS] [--queued] [--no-events] [--repacking never|auto]`
//!
//! bf16 inputs, f32 accumulation, bf16 output. Layouts use BLAS names:
//! TN = A K-major, B K-major (kernel `kk`); NN = A M-major, B K-major (kernel `mk`).

use std::sync::Arc;

use cudarc::cublas::{sys as bsys, CudaBlas, Gemm as _, GemmConfig};
use cudarc::driver::{sys, CudaEvent, CudaSlice, CudaStream};
use ferrocute::gemm::dispatch::Dispatch;
use ferrocute::gemm::registry::GridKind;
use ferrocute::gemm::{Gemm, MatMut, MatRef, Order, Repacking};
use half::bf16;

const ROTATE_BYTES: usize = 50 << 20;

struct Args {
    shapes: String,
    layout: String,
    iters: usize,
    /// `--shape MxNxK` (repeatable): run these instead of a named set.
    custom: Vec<(usize, usize, usize)>,
    /// `--soak SECS`: also run each library alone for SECS seconds per shape (steady-state
    /// clocks), printing the UTC window so that a clock log can be matched to it.
    soak: f64,
    /// `--rounds R`: time each library R times per shape, alternating which goes first
    /// (cuBLAS in even rounds, ours in odd ones), and report the median of the rounds'
    /// ratios, so neither library keeps the other's clock and power state.
    rounds: usize,
    /// `--sets N`: rotate over at least N sets of buffers (default: as many as exceed
    /// 50 MB, at least 2). With cudarc's event tracking, a call whose output buffer was
    /// written by a call still in flight (other than the one just before) makes the stream
    /// wait on that write's event, which costs the split-K and small-M kernels their
    /// overlap with the previous launch; more sets leave each output longer between
    /// rewrites.
    sets: usize,
    /// `--rest SECS`: leave the GPU idle this long before each library's timed block, so
    /// both start from the same clock and power state instead of ours inheriting cuBLAS's.
    rest: f64,
    /// `--queued`: a sample's start event is queued behind the previous sample's launches
    /// instead of on an idle GPU, so the host's per-call time is hidden wherever it is
    /// shorter than the GPU's (a stream kept full); without it, each sample also pays one
    /// call's host time before its first launch reaches the GPU.
    queued: bool,
    /// `--repacking`: the handle's policy for operands TMA cannot read in place.
    repacking: Repacking,
    /// `--no-events`: buffers are allocated with cudarc's event tracking off, so no event
    /// is recorded or waited for between two launches (everything runs on one stream).
    no_events: bool,
}

fn parse_args() -> Args {
    let mut a = Args {
        shapes: "all".into(),
        layout: "all".into(),
        iters: 50,
        custom: Vec::new(),
        soak: 0.0,
        rounds: 1,
        sets: 2,
        rest: 0.0,
        queued: false,
        repacking: Repacking::Auto,
        no_events: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(x) = it.next() {
        match x.as_str() {
            "--bench" => {}
            "--shapes" => a.shapes = it.next().unwrap_or_default(),
            "--layout" => a.layout = it.next().unwrap_or_default(),
            "--iters" => a.iters = it.next().and_then(|v| v.parse().ok()).unwrap_or(50),
            "--soak" => a.soak = it.next().and_then(|v| v.parse().ok()).unwrap_or(0.0),
            "--rounds" => a.rounds = it.next().and_then(|v| v.parse().ok()).unwrap_or(1).max(1),
            "--sets" => a.sets = it.next().and_then(|v| v.parse().ok()).unwrap_or(2),
            "--rest" => a.rest = it.next().and_then(|v| v.parse().ok()).unwrap_or(0.0),
            "--queued" => a.queued = true,
            "--no-events" => a.no_events = true,
            "--repacking" => {
                a.repacking = match it.next().as_deref() {
                    Some("never") => Repacking::Never,
                    _ => Repacking::Auto,
                }
            }
            "--shape" => {
                let v = it.next().unwrap_or_default();
                let d: Vec<usize> = v.split('x').filter_map(|x| x.parse().ok()).collect();
                match d[..] {
                    [m, n, k] => a.custom.push((m, n, k)),
                    _ => eprintln!("ignoring --shape {v} (want MxNxK)"),
                }
            }
            other => eprintln!("ignoring argument {other}"),
        }
    }
    a
}

/// The shape sets of `--shapes`.
fn named_shapes(set: &str) -> Vec<(usize, usize, usize)> {
    let mut shapes = Vec::new();
    if set == "all" || set == "square" {
        shapes.extend([512, 1024, 2048, 4096, 8192].map(|s| (s, s, s)));
    }
    if set == "all" || set == "skinny" {
        shapes.extend([
            (16, 4096, 4096),
            (128, 4096, 4096),
            (4096, 4096, 512),
            (8192, 8192, 1024),
        ]);
    }
    if set == "small" {
        shapes.extend([
            (1, 4096, 4096),
            (16, 4096, 4096),
            (16, 1024, 4096),
            (16, 4096, 14336),
            (16, 8192, 8192),
            (128, 4096, 4096),
            (512, 512, 512),
            (1024, 1024, 1024),
        ]);
    }
    if set == "unaligned" {
        // Leading dimensions 4, 2 and 1 (mod 8) elements: the Ampere-class tiles with 8-byte
        // reads and with element reads (and 100 rows: an M-major A with ld 100).
        shapes.extend([
            (4100, 4100, 4100),
            (2050, 2050, 2050),
            (4095, 4095, 4095),
            (100, 4096, 4096),
        ]);
    }
    shapes
}

/// The middle value, or the mean of the two middle values of an even count (so that an
/// even number of rounds does not lean towards either library).
fn median(mut v: Vec<f32>) -> f32 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    match n {
        0 => f32::NAN,
        _ if n % 2 == 1 => v[n / 2],
        _ => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

struct Set {
    a: CudaSlice<bf16>,
    b: CudaSlice<bf16>,
    c: CudaSlice<bf16>,
}

type Res<T> = Result<T, Box<dyn std::error::Error>>;

const LAUNCHES: usize = 10;

/// Queues `LAUNCHES` back-to-back launches of `f` (rotating buffers) between two events, so
/// host launch overhead overlaps GPU work as in a real pipeline.
fn sample_events<S>(
    stream: &Arc<CudaStream>,
    sets: &mut [S],
    next: &mut usize,
    f: &mut impl FnMut(&mut S) -> Res<()>,
) -> Res<(CudaEvent, CudaEvent)> {
    let ctx = stream.context();
    let start = ctx.new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))?;
    let end = ctx.new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))?;
    start.record(stream)?;
    for _ in 0..LAUNCHES {
        f(&mut sets[*next % sets.len()])?;
        *next += 1;
    }
    end.record(stream)?;
    Ok((start, end))
}

/// Per-launch time of one sample of `LAUNCHES` launches, waited for before it returns.
fn sample_ms<S>(
    stream: &Arc<CudaStream>,
    sets: &mut [S],
    next: &mut usize,
    f: &mut impl FnMut(&mut S) -> Res<()>,
) -> Res<f32> {
    let (start, end) = sample_events(stream, sets, next, f)?;
    end.synchronize()?;
    Ok(start.elapsed_ms(&end)? / LAUNCHES as f32)
}

/// Median per-launch time of `f` over `iters` samples, after 10 warm-up launches. With
/// `queued` every sample is queued before any is waited for (see `Args::queued`).
fn time_ms<S>(
    stream: &Arc<CudaStream>,
    iters: usize,
    queued: bool,
    sets: &mut [S],
    mut f: impl FnMut(&mut S) -> Res<()>,
) -> Res<f32> {
    for i in 0..10 {
        f(&mut sets[i % sets.len()])?;
    }
    let mut next = 0;
    let times = if queued {
        let events = (0..iters)
            .map(|_| sample_events(stream, sets, &mut next, &mut f))
            .collect::<Res<Vec<_>>>()?;
        stream.synchronize()?;
        events
            .iter()
            .map(|(start, end)| Ok(start.elapsed_ms(end)? / LAUNCHES as f32))
            .collect::<Res<Vec<f32>>>()?
    } else {
        (0..iters)
            .map(|_| sample_ms(stream, sets, &mut next, &mut f))
            .collect::<Res<Vec<f32>>>()?
    };
    Ok(median(times))
}

/// Host time per call: how long enqueueing 20 calls of `f` takes on the CPU, in µs (the
/// GPU work they queue is then waited for and not counted).
fn host_us<S>(
    stream: &Arc<CudaStream>,
    sets: &mut [S],
    mut f: impl FnMut(&mut S) -> Res<()>,
) -> Res<f64> {
    const CALLS: usize = 20;
    stream.synchronize()?;
    let t0 = std::time::Instant::now();
    for i in 0..CALLS {
        f(&mut sets[i % sets.len()])?;
    }
    let t = t0.elapsed().as_secs_f64();
    stream.synchronize()?;
    Ok(t * 1e6 / CALLS as f64)
}

/// Runs `f` back to back for `secs` seconds; returns the median per-launch time of the
/// samples in the second half (the steady state) and the UTC window of the whole run.
fn soak_ms<S>(
    stream: &Arc<CudaStream>,
    secs: f64,
    sets: &mut [S],
    mut f: impl FnMut(&mut S) -> Res<()>,
) -> Res<(f32, String)> {
    let t0 = std::time::Instant::now();
    let from = utc_now();
    let mut samples = Vec::new();
    let mut next = 0;
    while t0.elapsed().as_secs_f64() < secs {
        let t = sample_ms(stream, sets, &mut next, &mut f)?;
        samples.push((t0.elapsed().as_secs_f64(), t));
    }
    let late = samples
        .iter()
        .filter(|(at, _)| *at >= secs / 2.0)
        .map(|&(_, t)| t)
        .collect();
    Ok((median(late), format!("{from}-{}", utc_now())))
}

/// The wall clock as `HH:MM:SS.mmm` UTC (the form `nvidia-smi`'s timestamps take).
fn utc_now() -> String {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let s = (ms / 1000) % 86_400;
    format!(
        "{:02}:{:02}:{:02}.{:03}",
        s / 3600,
        s / 60 % 60,
        s % 60,
        ms % 1000
    )
}

/// Device-to-device copy bandwidth (bytes read + bytes written per second) over 256 MiB
/// buffers: the ceiling a memory-bound GEMM is compared with.
fn copy_gbs(stream: &Arc<CudaStream>, iters: usize) -> Res<f64> {
    const BYTES: usize = 256 << 20;
    let src = stream.alloc_zeros::<u8>(BYTES)?;
    let dst = stream.alloc_zeros::<u8>(BYTES)?;
    let mut sets = [(src, dst)];
    let t = time_ms(stream, iters, false, &mut sets, |(src, dst)| {
        stream.memcpy_dtod(src, dst)?;
        Ok(())
    })?;
    Ok(2.0 * BYTES as f64 / (t as f64 * 1e-3) / 1e9)
}

/// One ferrocute call.
fn ours(g: &Gemm, s: &mut Set, m: usize, n: usize, k: usize, tn: bool) -> Res<Dispatch> {
    let la = if tn { Order::RowMajor } else { Order::ColMajor };
    Ok(g.gemm(
        1.0,
        &MatRef::new(&s.a, m, k, la),
        &MatRef::new(&s.b, k, n, Order::ColMajor),
        0.0,
        &mut MatMut::new(&mut s.c, m, n, Order::ColMajor),
    )?)
}

/// The kernel a call ran, with its K split, cluster or tail split.
fn describe(d: &Dispatch) -> String {
    let name = d.kernel.trim_start_matches("ferrocute_").to_string();
    let split = d.config.is_some_and(|c| c.grid == GridKind::SplitK);
    let name = match (d.cluster, split) {
        (1, _) => name,
        (c, true) => format!("{name} split-K {c}"),
        (c, false) => format!("{name} cluster {c}"),
    };
    let name = match d.tail {
        t if t.splits == 0 => name,
        t => format!("{name} tail {}x{}", t.tiles, t.splits),
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

fn cublas(blas: &CudaBlas, s: &mut Set, m: usize, n: usize, k: usize, tn: bool) -> Res<()> {
    let cfg = GemmConfig {
        transa: if tn {
            bsys::cublasOperation_t::CUBLAS_OP_T
        } else {
            bsys::cublasOperation_t::CUBLAS_OP_N
        },
        transb: bsys::cublasOperation_t::CUBLAS_OP_N,
        m: m as i32,
        n: n as i32,
        k: k as i32,
        alpha: bf16::ONE,
        lda: if tn { k as i32 } else { m as i32 },
        ldb: k as i32,
        beta: bf16::ZERO,
        ldc: m as i32,
    };
    // SAFETY: the buffers hold m*k, k*n and m*n elements, matching cfg.
    unsafe { blas.gemm(cfg, &s.a, &s.b, &mut s.c) }?;
    Ok(())
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
    println!(
        "GPU: {} (sm_{}{}), {} SMs, SM clock {} MHz, memory clock {} MHz, bus {} bit",
        ctx.name()?,
        g.compute_capability().0,
        g.compute_capability().1,
        attr(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT),
        attr(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CLOCK_RATE) / 1000,
        attr(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE) / 1000,
        attr(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH),
    );
    let blas = CudaBlas::new(stream.clone())?;
    let copy = copy_gbs(&stream, args.iters)?;
    println!("device-to-device copy: {copy:.0} GB/s (read + write, 256 MiB buffers)");

    let shapes = if args.custom.is_empty() {
        named_shapes(&args.shapes)
    } else {
        args.custom.clone()
    };
    let layouts: Vec<bool> = match args.layout.as_str() {
        "tn" => vec![true],
        "nn" => vec![false],
        _ => vec![true, false],
    };

    println!(
        "{:>20} {:>6} {:>10} {:>10} {:>7}  check, kernel, host time per call (ours / cuBLAS)",
        "m x n x k", "layout", "ours TF/s", "cuBLAS TF/s", "ratio"
    );
    println!(
        "(TFLOP/s per launch, median of {} samples of 10 back-to-back launches{}{}; % of the 989 TFLOP/s bf16 peak in brackets)",
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
    let mut rng = 0x1234_5678_u64;
    for &(m, n, k) in &shapes {
        let bytes = (m * k + k * n + m * n) * 2;
        let nsets = ROTATE_BYTES.div_ceil(bytes).max(args.sets).clamp(2, 256);
        let mut rand = |len: usize| -> Vec<bf16> {
            (0..len)
                .map(|_| {
                    rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1);
                    bf16::from_f32((rng >> 40) as f32 / (1u64 << 24) as f32 - 0.5)
                })
                .collect()
        };
        let (ha, hb) = (rand(m * k), rand(k * n));
        let mut sets = Vec::with_capacity(nsets);
        for _ in 0..nsets {
            sets.push(Set {
                a: stream.clone_htod(&ha)?,
                b: stream.clone_htod(&hb)?,
                c: stream.alloc_zeros(m * n)?,
            });
        }
        let flops = 2.0 * m as f64 * n as f64 * k as f64;
        for &tn in &layouts {
            let name = if tn { "TN" } else { "NN" };
            // Correctness once, before timing.
            let check = (|| -> Res<String> {
                let kernel = describe(&ours(&g, &mut sets[0], m, n, k, tn)?);
                let x: Vec<bf16> = stream.clone_dtoh(&sets[0].c)?;
                cublas(&blas, &mut sets[0], m, n, k, tn)?;
                let y: Vec<bf16> = stream.clone_dtoh(&sets[0].c)?;
                let rms =
                    (y.iter().map(|v| v.to_f64().powi(2)).sum::<f64>() / y.len() as f64).sqrt();
                let bad: Vec<usize> = (0..x.len())
                    .filter(|&i| {
                        let (a, b) = (x[i].to_f64(), y[i].to_f64());
                        (a - b).abs().partial_cmp(&(b.abs() / 64.0 + 1e-2 * rms))
                            != Some(std::cmp::Ordering::Less)
                    })
                    .collect();
                // Where they differ, the f64 value decides whose result is off (cuBLAS's bf16
                // output has been, by 0.056 at one element of 1537x1531x4104 NN).
                let exact = |i: usize| -> f64 {
                    let (r, c) = (i % m, i / m);
                    let a = |kk: usize| ha[if tn { r * k + kk } else { kk * m + r }].to_f64();
                    (0..k).map(|kk| a(kk) * hb[c * k + kk].to_f64()).sum()
                };
                let at = |i: usize| {
                    format!(
                        "({},{}) ours {} cuBLAS {} f64 {:.4}",
                        i % m,
                        i / m,
                        x[i],
                        y[i],
                        exact(i)
                    )
                };
                let (ours_off, theirs_off): (Vec<usize>, Vec<usize>) =
                    bad.iter().partition(|&&i| {
                        let e = exact(i);
                        (x[i].to_f64() - e).abs() >= e.abs() / 64.0 + 1e-2 * rms
                    });
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
            })();
            let rest = || std::thread::sleep(std::time::Duration::from_secs_f64(args.rest));
            let time_theirs = |sets: &mut [Set]| {
                rest();
                time_ms(&stream, args.iters, args.queued, sets, |s| {
                    cublas(&blas, s, m, n, k, tn)
                })
            };
            let time_ours = |sets: &mut [Set]| {
                rest();
                time_ms(&stream, args.iters, args.queued, sets, |s| {
                    ours(&g, s, m, n, k, tn).map(drop)
                })
            };
            // Per round (cuBLAS first in even rounds, ours first in odd ones): cuBLAS's
            // time, and ours where the check ran.
            let mut rounds: Vec<(f32, Option<f32>)> = Vec::with_capacity(args.rounds);
            for r in 0..args.rounds {
                let ours_first = r % 2 == 1;
                let mut mine = None;
                if ours_first && check.is_ok() {
                    mine = Some(time_ours(&mut sets)?);
                }
                let theirs = time_theirs(&mut sets)?;
                if !ours_first && check.is_ok() {
                    mine = Some(time_ours(&mut sets)?);
                }
                rounds.push((theirs, mine));
            }
            let theirs = median(rounds.iter().map(|r| r.0).collect());
            let host_theirs = host_us(&stream, &mut sets, |s| cublas(&blas, s, m, n, k, tn))?;
            let (ours_tf, ratio, check) = match check {
                Ok(c) => {
                    let t = median(rounds.iter().filter_map(|r| r.1).collect());
                    let ratios: Vec<f32> = rounds
                        .iter()
                        .filter_map(|&(th, o)| o.map(|o| th / o))
                        .collect();
                    let host_ours =
                        host_us(&stream, &mut sets, |s| ours(&g, s, m, n, k, tn).map(drop))?;
                    let mut c = format!("{c}  host {host_ours:.1} / {host_theirs:.1} us");
                    if ratios.len() > 1 {
                        let each: Vec<String> = ratios.iter().map(|r| format!("{r:.2}")).collect();
                        c = format!("{c}  rounds {}", each.join(" "));
                    }
                    let tf = flops / (t as f64 * 1e-3) / 1e12;
                    let gbs = bytes as f64 / (t as f64 * 1e-3) / 1e9;
                    (
                        format!(
                            "{tf:10.1} ({:4.1}%) {gbs:7.0} GB/s ({:3.0}% of copy)",
                            tf / 9.89,
                            100.0 * gbs / copy
                        ),
                        format!("{:7.2}", median(ratios)),
                        c,
                    )
                }
                Err(e) => ("       n/a".into(), "    n/a".into(), format!("error: {e}")),
            };
            if args.soak > 0.0 {
                let tf = |t: f32| flops / (t as f64 * 1e-3) / 1e12;
                let (t, w) = soak_ms(&stream, args.soak, &mut sets, |s| {
                    cublas(&blas, s, m, n, k, tn)
                })?;
                println!("soak {m}x{n}x{k} {name} cuBLAS {w} {:.1} TFLOP/s", tf(t));
                let (t, w) = soak_ms(&stream, args.soak, &mut sets, |s| {
                    ours(&g, s, m, n, k, tn).map(drop)
                })?;
                println!("soak {m}x{n}x{k} {name} ours {w} {:.1} TFLOP/s", tf(t));
            }
            let theirs_tf = flops / (theirs as f64 * 1e-3) / 1e12;
            let theirs_gbs = bytes as f64 / (theirs as f64 * 1e-3) / 1e9;
            println!(
                "{:>20} {:>6} {} {:>10.1} {theirs_gbs:7.0} GB/s ({:3.0}% of copy) {}  {}",
                format!("{m}x{n}x{k}"),
                name,
                ours_tf,
                theirs_tf,
                100.0 * theirs_gbs / copy,
                ratio,
                check
            );
        }
    }
    Ok(())
}
