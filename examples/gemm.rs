//! The main job: multiply random bf16 matrices on the GPU with ferrocute, check the result
//! against cuBLAS and print TFLOP/s for both.
//!
//! `cargo run --release --example gemm -- [M N K]` (default 4096 4096 4096).
//!
//! Without a GPU it says so and runs a small GEMM on the CPU through the same layout
//! algebra the kernels are built from: the matrices are layouts, `local_tile` cuts them
//! into CTA tiles and `local_partition` deals each tile's elements to "threads"; the result
//! is checked against a naive triple loop.

use cudarc::cublas::{sys as bsys, CudaBlas, Gemm as _, GemmConfig};
use cudarc::driver::sys::CUevent_flags;
use ferrocute::gemm::{Gemm, MatMut, MatRef, Order as Major};
use ferrocute::{layout, local_partition, local_tile, tuple, LayoutLike};
use half::bf16;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

fn main() -> Res<()> {
    let dims: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let (m, n, k) = match dims[..] {
        [m, n, k] => (m, n, k),
        _ => (4096, 4096, 4096),
    };
    match Gemm::open(0) {
        Ok(g) => gpu(&g, m, n, k),
        Err(e) => {
            println!("No CUDA GPU here ({e}).");
            println!(
                "Running a small GEMM on the CPU through ferrocute's layout algebra instead.\n"
            );
            cpu_walkthrough()
        }
    }
}

fn random(len: usize, seed: u64) -> Vec<bf16> {
    let mut s = seed;
    (0..len)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            bf16::from_f32(((s >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0)
        })
        .collect()
}

fn gpu(g: &Gemm, m: usize, n: usize, k: usize) -> Res<()> {
    let s = g.stream().clone();
    println!(
        "GPU: {} (sm_{}{})",
        s.context().name()?,
        g.compute_capability().0,
        g.compute_capability().1
    );
    println!(
        "C = A * B, bf16 in, f32 accumulate, bf16 out; A {m}x{k} row-major, B {k}x{n} column-major"
    );
    let a = s.clone_htod(&random(m * k, 1))?;
    let b = s.clone_htod(&random(k * n, 2))?;
    let mut c = s.alloc_zeros::<bf16>(m * n)?;
    let mut c_ref = s.alloc_zeros::<bf16>(m * n)?;
    let blas = CudaBlas::new(s.clone())?;

    let ours = |c: &mut cudarc::driver::CudaSlice<bf16>| -> Res<String> {
        let d = g.gemm(
            1.0,
            &MatRef::new(&a, m, k, Major::RowMajor),
            &MatRef::new(&b, k, n, Major::ColMajor),
            0.0,
            &mut MatMut::new(c, m, n, Major::ColMajor),
        )?;
        Ok(d.kernel)
    };
    let cublas = |c: &mut cudarc::driver::CudaSlice<bf16>| -> Res<()> {
        let cfg = GemmConfig {
            transa: bsys::cublasOperation_t::CUBLAS_OP_T,
            transb: bsys::cublasOperation_t::CUBLAS_OP_N,
            m: m as i32,
            n: n as i32,
            k: k as i32,
            alpha: bf16::ONE,
            lda: k as i32,
            ldb: k as i32,
            beta: bf16::ZERO,
            ldc: m as i32,
        };
        // SAFETY: a, b, c hold m*k, k*n and m*n elements, as cfg describes.
        unsafe { blas.gemm(cfg, &a, &b, c) }?;
        Ok(())
    };

    let t0 = std::time::Instant::now();
    let kernel = ours(&mut c)?;
    s.synchronize()?;
    let first = t0.elapsed().as_secs_f64();
    cublas(&mut c_ref)?;
    let x: Vec<bf16> = s.clone_dtoh(&c)?;
    let y: Vec<bf16> = s.clone_dtoh(&c_ref)?;
    let rms = (y.iter().map(|v| v.to_f64().powi(2)).sum::<f64>() / y.len() as f64).sqrt();
    let worst = x
        .iter()
        .zip(&y)
        .map(|(p, q)| (p.to_f64() - q.to_f64()).abs() / (q.to_f64().abs() + rms))
        .fold(0.0, f64::max);
    println!(
        "kernel: {kernel} (first call, with module load: {:.1} ms)",
        first * 1e3
    );
    println!(
        "max |ours - cuBLAS| / (|cuBLAS| + rms) = {worst:.2e} -> {}",
        if worst < 2e-2 { "OK" } else { "MISMATCH" }
    );
    if worst >= 2e-2 {
        return Err("the GPU GEMM disagrees with cuBLAS".into());
    }

    let time = |f: &mut dyn FnMut() -> Res<()>| -> Res<f64> {
        let ctx = s.context();
        let (e0, e1) = (
            ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?,
            ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?,
        );
        for _ in 0..5 {
            f()?;
        }
        let mut t = Vec::new();
        for _ in 0..20 {
            e0.record(&s)?;
            f()?;
            e1.record(&s)?;
            e1.synchronize()?;
            t.push(e0.elapsed_ms(&e1)? as f64);
        }
        t.sort_by(f64::total_cmp);
        Ok(t[t.len() / 2])
    };
    let flops = 2.0 * (m * n * k) as f64;
    let t_ours = time(&mut || ours(&mut c).map(|_| ()))?;
    let t_ref = time(&mut || cublas(&mut c_ref))?;
    println!(
        "ferrocute {:7.1} TFLOP/s   cuBLAS {:7.1} TFLOP/s   ratio {:.2}",
        flops / t_ours / 1e9,
        flops / t_ref / 1e9,
        t_ref / t_ours
    );
    Ok(())
}

/// A 96x80x64 GEMM on the CPU, organised as the GPU kernels are: CTA tiles from
/// `local_tile`, each tile's output dealt to a 4x8 "thread" layout with `local_partition`.
fn cpu_walkthrough() -> Res<()> {
    const M: usize = 96;
    const N: usize = 80;
    const K: usize = 64;
    let a = random(M * K, 1);
    let b = random(K * N, 2);
    // The matrices as layouts: A (M,K) row-major, B (N,K) K-major, C (M,N) column-major.
    let la = layout!((96,64):(64,1));
    let lb = layout!((80,64):(64,1));
    let lc = layout!((96,80):(1,96));
    let threads = layout!((4,8):(1,4));
    println!("A {la}\nB {lb}\nC {lc}\nthreads {threads}");
    let mut c = vec![0f32; M * N];
    let (tiles_m, tiles_n) = (M / 32, N / 16);
    for tm in 0..tiles_m {
        for tn in 0..tiles_n {
            // The CTA's tiles: (32,K) of A, (16,K) of B, (32,16) of C.
            let (ta, oa) = local_tile(la, tuple!((32, 64)), (tm, 0usize))?;
            let (tb, ob) = local_tile(lb, tuple!((16, 64)), (tn, 0usize))?;
            let (tc, oc) = local_tile(lc, tuple!((32, 16)), (tm, tn))?;
            if tm == 0 && tn == 0 {
                println!("CTA (0,0): A tile {ta} @ {oa}, B tile {tb} @ {ob}, C tile {tc} @ {oc}");
            }
            for t in 0..threads.size() {
                // Thread t's share of the C tile: a (8,2) grid of elements.
                let (part, po) = local_partition(tc, threads, t)?;
                if tm == 0 && tn == 0 && t == 5 {
                    println!("thread 5 owns C elements {part} @ {po} of the tile");
                }
                for e in 0..part.size() {
                    let off = oc + po + part.call(e);
                    let (i, j) = (off % M, off / M);
                    let (il, jl) = (i - tm * 32, j - tn * 16);
                    let mut acc = 0f32;
                    for kk in 0..K {
                        let av = a[oa + ta.at((il, kk))].to_f32();
                        let bv = b[ob + tb.at((jl, kk))].to_f32();
                        acc += av * bv;
                    }
                    c[off] = acc;
                }
            }
        }
    }
    let mut worst = 0f32;
    for i in 0..M {
        for j in 0..N {
            let r: f32 = (0..K)
                .map(|kk| a[i * K + kk].to_f32() * b[j * K + kk].to_f32())
                .sum();
            worst = worst.max((c[i + j * M] - r).abs());
        }
    }
    println!(
        "max |tiled - naive| = {worst:.2e} over {} elements -> {}",
        M * N,
        if worst < 1e-3 { "OK" } else { "MISMATCH" }
    );
    if worst >= 1e-3 {
        return Err("tiled CPU GEMM disagrees with the naive loop".into());
    }
    Ok(())
}
