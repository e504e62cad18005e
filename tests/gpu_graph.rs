//! CUDA graph capture and replay. One test in its own binary: it switches the context's
//! event tracking, which no other test may see. Run on a CUDA machine with
//! `cargo test -- --ignored`.

use cudarc::driver::sys::CUstreamCaptureMode;
use cudarc::driver::CudaSlice;
use ferrocute::gemm::{Epilogue, Error, Gemm, MatMut, MatRef, Order};
use half::bf16;

mod common;
use common::*;

/// One problem per kernel family the capture must hold: the register-streaming kernel,
/// the split-K cluster kernel, a persistent tile, an A whose leading dimension makes the
/// handle repack it first, and the register-streaming kernel splitting K in parts (their
/// partial sums in the handle's workspace). `(m, n, k, lda)` with A row-major, B
/// column-major.
const PROBLEMS: [(usize, usize, usize, usize); 5] = [
    (16, 2048, 1024, 1024),
    (64, 2048, 4096, 4096),
    (2048, 1152, 128, 128),
    (100, 512, 300, 301),
    (16, 512, 16384, 16384),
];

struct Problem {
    m: usize,
    n: usize,
    k: usize,
    lda: usize,
    a: CudaSlice<bf16>,
    b: CudaSlice<bf16>,
    c: CudaSlice<f32>,
}

impl Problem {
    fn new(g: &Gemm, (m, n, k, lda): (usize, usize, usize, usize)) -> Problem {
        let s = g.stream();
        Problem {
            m,
            n,
            k,
            lda,
            a: s.alloc_zeros(m * lda).unwrap(),
            b: s.alloc_zeros(k * n).unwrap(),
            c: s.alloc_zeros(m * n).unwrap(),
        }
    }

    fn views(&mut self) -> (MatRef<'_, bf16>, MatRef<'_, bf16>, MatMut<'_, f32>) {
        (
            MatRef::new(&self.a, self.m, self.k, Order::RowMajor).ld(self.lda),
            MatRef::new(&self.b, self.k, self.n, Order::ColMajor),
            MatMut::new(&mut self.c, self.m, self.n, Order::ColMajor),
        )
    }

    fn gemm(&mut self, g: &Gemm) -> Result<String, Error> {
        let (a, b, mut c) = self.views();
        g.gemm(1.0, &a, &b, 0.0, &mut c).map(|d| d.kernel)
    }

    fn prepare(&mut self, g: &Gemm) -> Result<String, Error> {
        let (a, b, mut c) = self.views();
        g.prepare(1.0, &a, &b, 0.0, &mut c, &Epilogue::new())
            .map(|d| d.kernel)
    }

    /// Fresh random inputs into the same buffers; returns them for the reference.
    fn fill(&mut self, g: &Gemm, rng: &mut Rng) -> (Vec<bf16>, Vec<bf16>) {
        let s = g.stream();
        let ha: Vec<bf16> = rng.values(self.m * self.lda);
        let hb: Vec<bf16> = rng.values(self.k * self.n);
        s.memcpy_htod(&ha, &mut self.a).unwrap();
        s.memcpy_htod(&hb, &mut self.b).unwrap();
        s.memset_zeros(&mut self.c).unwrap();
        (ha, hb)
    }

    /// Every element of C against an f64 reference.
    fn check(&self, g: &Gemm, ha: &[bf16], hb: &[bf16], what: &str) {
        let out: Vec<f32> = g.stream().clone_dtoh(&self.c).unwrap();
        for j in 0..self.n {
            for i in 0..self.m {
                let (mut acc, mut abs) = (0.0f64, 0.0f64);
                for kk in 0..self.k {
                    let x = ha[i * self.lda + kk].to_f64() * hb[j * self.k + kk].to_f64();
                    acc += x;
                    abs += x.abs();
                }
                let got = out[i + j * self.m] as f64;
                let tol = (self.k as f64 + 2.0) * 6.0e-8 * abs + 1e-6;
                assert!(
                    (got - acc).abs() <= tol,
                    "{what} {}x{}x{}: C({i},{j}) = {got}, want {acc}",
                    self.m,
                    self.n,
                    self.k
                );
            }
        }
    }
}

#[test]
#[ignore = "needs an sm_90 GPU (H100/H200): cargo test -- --ignored"]
fn gpu_graph_capture_and_replay() {
    let g = hopper();
    let ctx = g.stream().context().clone();
    let mut rng = Rng(31);

    // With cudarc's event tracking on (the default once the context has a second stream,
    // which `Gemm::open`'s stream is), capturing is refused with a typed error.
    assert!(ctx.is_managing_stream_synchronization());
    let mut p = Problem::new(&g, PROBLEMS[0]);
    p.fill(&g, &mut rng);
    g.stream().synchronize().unwrap();
    g.stream()
        .begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
        .unwrap();
    let refused = p.gemm(&g);
    let _ = g
        .stream()
        .end_capture(cudarc::driver::sys::CUgraphInstantiate_flags_enum(0));
    assert!(
        matches!(refused, Err(Error::CaptureWithEventTracking)),
        "{refused:?}"
    );

    // With tracking off before the buffers are allocated, each problem is captured once
    // and replayed on new inputs, checked element by element.
    // # Safety: this test orders its single stream itself and no other test runs here.
    unsafe { ctx.disable_event_tracking() };
    let g = Gemm::new(g.stream().clone()).unwrap();
    let mut refused = Vec::new();
    for shape in PROBLEMS {
        let mut p = Problem::new(&g, shape);
        p.fill(&g, &mut rng);
        // A handle of its own, whose workspaces are empty (`g` loads the kernel's module,
        // which the context's handles share). Unprepared, a call that needs a workspace
        // (repacked operands, partial sums) is refused inside the capture with a typed
        // error rather than allocate memory the graph would own.
        let fresh = Gemm::new(g.stream().clone()).unwrap();
        p.prepare(&g).unwrap();
        g.stream().synchronize().unwrap();
        g.stream()
            .begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
            .unwrap();
        let unprepared = p.gemm(&fresh);
        let _ = g
            .stream()
            .end_capture(cudarc::driver::sys::CUgraphInstantiate_flags_enum(0));
        match unprepared {
            Err(Error::WorkspaceInCapture { what, bytes }) => {
                assert!(bytes > 0);
                refused.push((shape, what));
            }
            Ok(_) => {}
            Err(e) => panic!("{shape:?}: {e}"),
        }
        // Prepared (or called once) before the capture, it is captured as it would run.
        let g = fresh;
        let kernel = p.prepare(&g).unwrap();
        g.stream().synchronize().unwrap();
        g.stream()
            .begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
            .unwrap();
        assert_eq!(
            p.gemm(&g).unwrap(),
            kernel,
            "the capture dispatches as before"
        );
        let graph = g
            .stream()
            .end_capture(cudarc::driver::sys::CUgraphInstantiate_flags_enum(0))
            .unwrap()
            .expect("a graph");
        for replay in 0..2 {
            let (ha, hb) = p.fill(&g, &mut rng);
            graph.launch().unwrap();
            p.check(&g, &ha, &hb, &format!("{kernel}, replay {replay}"));
        }
    }
    // The repacked A's copy, and the register-streaming kernel's K parts, need workspaces.
    assert_eq!(
        refused,
        [
            (PROBLEMS[3], "repacked operands"),
            (PROBLEMS[4], "partial sums")
        ]
    );
}
