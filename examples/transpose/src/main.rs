//! Runs the crate's own CuTe transpose on the GPU for several shapes (edge tiles included),
//! checks every element against the CPU and that nothing past the output was written,
//! checks that bad input is refused with typed errors, and prints bandwidth; then checks
//! that every kind of kernel parameter arrives intact (`echo_args`, loaded from PTX). Prints PASS
//! (exit 0) or FAIL (exit 1); without a GPU it says it skipped and exits 0.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use ferrocute::cudarc::driver::CudaStream;
use ferrocute::half::bf16;
use ferrocute::runtime::{self, Error};
use ferrocute_example_transpose::echo::Echo;
use ferrocute_example_transpose::kernels::Transpose;
use ferrocute_example_transpose::transpose_cpu;

/// Shapes (m, n): one element, edge tiles on both axes, a square with edges, large ones.
const SHAPES: &[(usize, usize)] = &[
    (1, 1),
    (7, 129),
    (33, 31),
    (1000, 1000),
    (1, 4097),
    (4096, 4096),
    (8192, 2048),
];
/// Elements after the output that the kernel must leave alone.
const GUARD: usize = 64;
const SENTINEL: f32 = -7.25;

fn main() -> ExitCode {
    let stream = match runtime::open(0) {
        Ok(s) => s,
        Err(e) => {
            println!("transpose: SKIPPED (no GPU: {e})");
            return ExitCode::SUCCESS;
        }
    };
    match run(stream) {
        Ok(()) => {
            println!("transpose: PASS");
            ExitCode::SUCCESS
        }
        Err(why) => {
            println!("transpose: FAIL: {why}");
            ExitCode::FAILURE
        }
    }
}

fn run(stream: Arc<CudaStream>) -> Result<(), String> {
    let t = Transpose::new(stream.clone()).map_err(|e| e.to_string())?;
    println!("device: {}", stream.context().name().unwrap_or_default());
    for &(m, n) in SHAPES {
        check_shape(&t, m, n)?;
    }
    rejects_bad_input(&t)?;
    arguments_arrive(stream)
}

/// Transposes a random m x n matrix, compares every element with the CPU, checks the
/// guard elements after the output, then times repeated launches.
fn check_shape(t: &Transpose, m: usize, n: usize) -> Result<(), String> {
    let s = t.stream();
    let e = |e: &dyn std::fmt::Display| format!("{m}x{n}: {e}");
    let host: Vec<f32> = (0..m * n).map(|i| random(i as u64)).collect();
    let src = s.clone_htod(&host).map_err(|x| e(&x))?;
    let mut dst = s
        .clone_htod(&vec![SENTINEL; m * n + GUARD])
        .map_err(|x| e(&x))?;
    t.transpose_f32(&src, &mut dst, m, n).map_err(|x| e(&x))?;
    let got = s.clone_dtoh(&dst).map_err(|x| e(&x))?;
    let want = transpose_cpu(&host, m, n);
    if let Some(i) = (0..m * n).find(|&i| got[i].to_bits() != want[i].to_bits()) {
        return Err(e(&format!(
            "dst[{i}] (row {}, col {}) = {}, the CPU has {}",
            i / m,
            i % m,
            got[i],
            want[i]
        )));
    }
    if got[m * n..].iter().any(|&g| g != SENTINEL) {
        return Err(e(&"the kernel wrote past the output"));
    }
    let iters = (1 << 28) / (m * n).max(1 << 12);
    s.synchronize().map_err(|x| e(&x))?;
    let start = Instant::now();
    for _ in 0..iters {
        t.transpose_f32(&src, &mut dst, m, n).map_err(|x| e(&x))?;
    }
    s.synchronize().map_err(|x| e(&x))?;
    let secs = start.elapsed().as_secs_f64() / iters as f64;
    let gbs = (2 * m * n * 4) as f64 / secs / 1e9;
    println!(
        "{m:>5} x {n:<5}  every element equal; {:>9.2} us, {gbs:>7.1} GB/s (read + write)",
        secs * 1e6
    );
    Ok(())
}

/// Bad input is a typed error from the launcher, and nothing is launched.
fn rejects_bad_input(t: &Transpose) -> Result<(), String> {
    let s = t.stream();
    let src = s.alloc_zeros::<f32>(6).map_err(|e| e.to_string())?;
    let mut dst = s.alloc_zeros::<f32>(5).map_err(|e| e.to_string())?;
    let cases = [
        (
            t.transpose_f32(&src, &mut dst, 2, 3),
            Error::BufferTooShort {
                param: "dst",
                needed: 6,
                len: 5,
            },
        ),
        (
            t.transpose_f32(&src, &mut dst, 3, 3),
            Error::BufferTooShort {
                param: "src",
                needed: 9,
                len: 6,
            },
        ),
        (
            t.transpose_f32(&src, &mut dst, 1 << 31, 1),
            Error::OutOfRange {
                param: "m",
                value: 1 << 31,
                limit: i32::MAX as u64,
            },
        ),
    ];
    for (got, want) in cases {
        if got != Err(want.clone()) {
            return Err(format!("bad input: got {got:?}, expected {want:?}"));
        }
    }
    // A zero-sized matrix launches nothing and is fine.
    t.transpose_f32(&src, &mut dst, 0, 3)
        .map_err(|e| e.to_string())?;
    println!("bad input refused with typed errors");
    Ok(())
}

/// `echo_args` writes back what it received: a bf16 buffer's sum, the i32, u32, i64 and
/// u64 dimensions at their extremes, and f32 and f64 scalars, compared bit for bit.
fn arguments_arrive(stream: Arc<CudaStream>) -> Result<(), String> {
    let err = |e: &dyn std::fmt::Display| format!("echo_args: {e}");
    let echo = Echo::new(stream.clone()).map_err(|e| err(&e))?;
    let x = stream
        .clone_htod(&[
            bf16::from_f32(1.5),
            bf16::from_f32(2.0),
            bf16::from_f32(-0.25),
        ])
        .map_err(|e| err(&e))?;
    let mut out = stream.alloc_zeros::<u64>(7).map_err(|e| err(&e))?;
    let (b, c, d) = (u32::MAX as usize, i64::MAX as usize, usize::MAX);
    let (e, f) = (-3.5e-20_f32, 1.25e300_f64);
    echo.echo_args(&x, &mut out, 3, b, c, d, e, f)
        .map_err(|e| err(&e))?;
    let got = stream.clone_dtoh(&out).map_err(|e| err(&e))?;
    let want = [
        3,
        u32::MAX as u64,
        i64::MAX as u64,
        u64::MAX,
        u64::from(e.to_bits()),
        f.to_bits(),
        u64::from(3.25_f32.to_bits()),
    ];
    if got != want {
        return Err(err(&format!("got {got:?}, sent {want:?}")));
    }
    println!("every kind of parameter arrives intact (module loaded from PTX)");
    Ok(())
}

/// A reproducible value in [-1, 1) for element `i` (splitmix64).
fn random(i: u64) -> f32 {
    let mut z = i.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    (z >> 40) as f32 / (1u64 << 23) as f32 - 1.0
}
