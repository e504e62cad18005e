//! CUDA-event timing: medians of samples of back-to-back launches over rotated buffers.

use std::sync::Arc;

use cudarc::driver::{sys, CudaEvent, CudaStream};

use crate::Res;

/// The middle value, or the mean of the two middle values of an even count (so that an
/// even number of rounds does not lean towards either library).
pub fn median(mut v: Vec<f32>) -> f32 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    match n {
        0 => f32::NAN,
        _ if n % 2 == 1 => v[n / 2],
        _ => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

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
pub fn time_ms<S>(
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
pub fn host_us<S>(
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
pub fn soak_ms<S>(
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
