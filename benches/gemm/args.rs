//! Command-line options of the bench.

use ferrocute::gemm::Repacking;

use crate::problem::Layout;

pub struct Args {
    pub shapes: String,
    pub layouts: Vec<Layout>,
    pub iters: usize,
    /// `--shape MxNxK` (repeatable): run these instead of a named set.
    pub custom: Vec<(usize, usize, usize)>,
    /// `--tokens 1,8,64`: the m of the `llm` set (default the powers of two from 1 to 256,
    /// and 192, whose last tile of 128 rows is part-filled).
    pub tokens: Vec<usize>,
    /// `--soak SECS`: also run each library alone for SECS seconds per shape (steady-state
    /// clocks), printing the UTC window so that a clock log can be matched to it.
    pub soak: f64,
    /// `--rounds R`: time each library R times per shape, alternating which goes first
    /// (cuBLAS in even rounds, ours in odd ones), and report the median of the rounds'
    /// ratios, so neither library keeps the other's clock and power state.
    pub rounds: usize,
    /// `--sets N`: rotate over at least N sets of buffers (default: as many as exceed
    /// 50 MB, at least 2). With cudarc's event tracking, a call whose output buffer was
    /// written by a call still in flight (other than the one just before) makes the stream
    /// wait on that write's event, which costs the split-K and small-M kernels their
    /// overlap with the previous launch; more sets leave each output longer between
    /// rewrites.
    pub sets: usize,
    /// `--rest SECS`: leave the GPU idle this long before each library's timed block, so
    /// both start from the same clock and power state instead of ours inheriting cuBLAS's.
    pub rest: f64,
    /// `--queued`: a sample's start event is queued behind the previous sample's launches
    /// instead of on an idle GPU, so the host's per-call time is hidden wherever it is
    /// shorter than the GPU's (a stream kept full); without it, each sample also pays one
    /// call's host time before its first launch reaches the GPU.
    pub queued: bool,
    /// `--repacking`: the handle's policy for operands TMA cannot read in place.
    pub repacking: Repacking,
    /// `--no-events`: buffers are allocated with cudarc's event tracking off, so no event
    /// is recorded or waited for between two launches (everything runs on one stream).
    pub no_events: bool,
    /// `--epilogue bias,relu,gelu,gelufast,swiglu,swiglufast|all`: race fused epilogues on
    /// the row-major linear layer instead of the plain GEMM (epilogue.rs).
    pub epilogue: Option<String>,
}

fn list<T: std::str::FromStr>(v: Option<String>) -> Vec<T> {
    v.unwrap_or_default()
        .split(',')
        .filter_map(|x| x.trim().parse().ok())
        .collect()
}

pub fn parse_args() -> Args {
    let mut a = Args {
        shapes: "all".into(),
        layouts: vec![Layout::Tn, Layout::Nn],
        iters: 50,
        custom: Vec::new(),
        tokens: vec![1, 2, 4, 8, 16, 32, 64, 128, 192, 256],
        soak: 0.0,
        rounds: 1,
        sets: 2,
        rest: 0.0,
        queued: false,
        repacking: Repacking::Auto,
        no_events: false,
        epilogue: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(x) = it.next() {
        match x.as_str() {
            "--bench" => {}
            "--shapes" => a.shapes = it.next().unwrap_or_default(),
            "--layout" => {
                a.layouts = match it.next().as_deref() {
                    Some("all") => Layout::ALL.to_vec(),
                    v => list(v.map(str::to_string)),
                }
            }
            "--tokens" => a.tokens = list(it.next()),
            "--iters" => a.iters = it.next().and_then(|v| v.parse().ok()).unwrap_or(50),
            "--soak" => a.soak = it.next().and_then(|v| v.parse().ok()).unwrap_or(0.0),
            "--rounds" => a.rounds = it.next().and_then(|v| v.parse().ok()).unwrap_or(1).max(1),
            "--sets" => a.sets = it.next().and_then(|v| v.parse().ok()).unwrap_or(2),
            "--rest" => a.rest = it.next().and_then(|v| v.parse().ok()).unwrap_or(0.0),
            "--queued" => a.queued = true,
            "--no-events" => a.no_events = true,
            "--epilogue" => a.epilogue = it.next(),
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
    if a.layouts.is_empty() {
        eprintln!("no layout named (tn, nn, tt, nt, rm or all): running tn");
        a.layouts = vec![Layout::Tn];
    }
    a
}
