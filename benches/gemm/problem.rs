//! The problems the bench races: operand layouts, the shape sets, and one call of each
//! library.

use cudarc::cublas::{sys as bsys, CudaBlas, Gemm as _, GemmConfig};
use cudarc::driver::CudaSlice;
use ferrocute::gemm::dispatch::Dispatch;
use ferrocute::gemm::{Gemm, MatMut, MatRef, Order};
use half::bf16;

use crate::Res;

/// Operand storage, by BLAS names for a column-major C (`TN`: A K-major, B K-major, ...),
/// and `RM`: every matrix row-major, `C = A·Wᵀ` with the weight `W` stored `n x k` row-major
/// (PyTorch's and candle's `Linear`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    Tn,
    Nn,
    Tt,
    Nt,
    Rm,
}

impl Layout {
    pub const ALL: [Layout; 5] = [Layout::Tn, Layout::Nn, Layout::Tt, Layout::Nt, Layout::Rm];

    pub fn name(self) -> &'static str {
        match self {
            Layout::Tn => "TN",
            Layout::Nn => "NN",
            Layout::Tt => "TT",
            Layout::Nt => "NT",
            Layout::Rm => "RM",
        }
    }

    /// Whether A (m x k) is row-major (K-major).
    fn a_rows(self) -> bool {
        matches!(self, Layout::Tn | Layout::Tt | Layout::Rm)
    }

    /// Whether B (k x n) is column-major (K-major).
    fn b_cols(self) -> bool {
        matches!(self, Layout::Tn | Layout::Nn | Layout::Rm)
    }

    /// Offsets of A(r, kk), B(kk, c) and C(r, c) in their buffers.
    pub fn a_at(self, m: usize, k: usize, r: usize, kk: usize) -> usize {
        if self.a_rows() {
            r * k + kk
        } else {
            kk * m + r
        }
    }

    pub fn b_at(self, k: usize, n: usize, kk: usize, c: usize) -> usize {
        if self.b_cols() {
            c * k + kk
        } else {
            kk * n + c
        }
    }

    /// Row and column of C's element `i`.
    pub fn c_coord(self, m: usize, n: usize, i: usize) -> (usize, usize) {
        if self == Layout::Rm {
            (i / n, i % n)
        } else {
            (i % m, i / m)
        }
    }
}

impl std::str::FromStr for Layout {
    type Err = ();
    fn from_str(s: &str) -> Result<Layout, ()> {
        Layout::ALL
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(s))
            .ok_or(())
    }
}

/// A weight matrix of a model: `n` outputs by `k` inputs, and what it is.
#[derive(Clone, Copy, Debug)]
pub struct Weight {
    pub n: usize,
    pub k: usize,
    pub what: &'static str,
}

/// The linear layers of current open models (from their published configurations), each
/// weight once: fused QKV, attention output, fused gate/up, down. Mistral 7B has Llama 3
/// 8B's shapes, and a Mixtral expert's w2 Llama 3 8B's down; Qwen2.5 72B's attention has
/// Llama 3 70B's.
pub const LLM_WEIGHTS: &[Weight] = &[
    Weight {
        n: 6144,
        k: 4096,
        what: "llama3-8b qkv",
    },
    Weight {
        n: 4096,
        k: 4096,
        what: "llama3-8b o",
    },
    Weight {
        n: 28672,
        k: 4096,
        what: "llama3-8b gate/up",
    },
    Weight {
        n: 4096,
        k: 14336,
        what: "llama3-8b down",
    },
    Weight {
        n: 10240,
        k: 8192,
        what: "llama3-70b qkv",
    },
    Weight {
        n: 8192,
        k: 8192,
        what: "llama3-70b o",
    },
    Weight {
        n: 57344,
        k: 8192,
        what: "llama3-70b gate/up",
    },
    Weight {
        n: 8192,
        k: 28672,
        what: "llama3-70b down",
    },
    Weight {
        n: 4608,
        k: 3584,
        what: "qwen2.5-7b qkv",
    },
    Weight {
        n: 3584,
        k: 3584,
        what: "qwen2.5-7b o",
    },
    Weight {
        n: 37888,
        k: 3584,
        what: "qwen2.5-7b gate/up",
    },
    Weight {
        n: 3584,
        k: 18944,
        what: "qwen2.5-7b down",
    },
    Weight {
        n: 59136,
        k: 8192,
        what: "qwen2.5-72b gate/up",
    },
    Weight {
        n: 8192,
        k: 29568,
        what: "qwen2.5-72b down",
    },
    Weight {
        n: 14336,
        k: 4096,
        what: "mixtral expert w1/w3",
    },
    Weight {
        n: 4096,
        k: 14336,
        what: "mixtral expert w2",
    },
];

/// The shapes of `--shapes`, each with what it is (empty for the synthetic sets).
pub fn named_shapes(set: &str, tokens: &[usize]) -> Vec<(usize, usize, usize, &'static str)> {
    let mut shapes = Vec::new();
    fn plain(
        v: &[(usize, usize, usize)],
    ) -> impl Iterator<Item = (usize, usize, usize, &'static str)> + '_ {
        v.iter().map(|&(m, n, k)| (m, n, k, ""))
    }
    if set == "all" || set == "square" {
        shapes.extend([512, 1024, 2048, 4096, 8192].map(|s| (s, s, s, "")));
    }
    if set == "all" || set == "skinny" {
        shapes.extend(plain(&[
            (16, 4096, 4096),
            (128, 4096, 4096),
            (4096, 4096, 512),
            (8192, 8192, 1024),
        ]));
    }
    if set == "small" {
        shapes.extend(plain(&[
            (1, 4096, 4096),
            (16, 4096, 4096),
            (16, 1024, 4096),
            (16, 4096, 14336),
            (16, 8192, 8192),
            (128, 4096, 4096),
            (512, 512, 512),
            (1024, 1024, 1024),
        ]));
    }
    if set == "unaligned" {
        // Leading dimensions 4, 2 and 1 (mod 8) elements: the Ampere-class tiles with 8-byte
        // reads and with element reads (and 100 rows: an M-major A with ld 100).
        shapes.extend(plain(&[
            (4100, 4100, 4100),
            (2050, 2050, 2050),
            (4095, 4095, 4095),
            (100, 4096, 4096),
        ]));
    }
    if set == "llm" {
        for w in LLM_WEIGHTS {
            shapes.extend(tokens.iter().map(|&m| (m, w.n, w.k, w.what)));
        }
    }
    shapes
}

/// `len` bf16 values uniform in [-0.5, 0.5) from the generator state `seed`.
pub fn random_bf16(seed: &mut u64, len: usize) -> Vec<bf16> {
    (0..len)
        .map(|_| {
            *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
            bf16::from_f32((*seed >> 40) as f32 / (1u64 << 24) as f32 - 0.5)
        })
        .collect()
}

/// One ferrocute call.
pub fn ours(
    g: &Gemm,
    lay: Layout,
    a: &CudaSlice<bf16>,
    b: &CudaSlice<bf16>,
    c: &mut CudaSlice<bf16>,
    (m, n, k): (usize, usize, usize),
) -> Res<Dispatch> {
    let order = |row| {
        if row {
            Order::RowMajor
        } else {
            Order::ColMajor
        }
    };
    Ok(g.gemm(
        1.0,
        &MatRef::new(a, m, k, order(lay.a_rows())),
        &MatRef::new(b, k, n, order(!lay.b_cols())),
        0.0,
        &mut MatMut::new(c, m, n, order(lay == Layout::Rm)),
    )?)
}

/// The same product through cuBLAS (column-major; a row-major C as its transpose).
pub fn cublas(
    blas: &CudaBlas,
    lay: Layout,
    a: &CudaSlice<bf16>,
    b: &CudaSlice<bf16>,
    c: &mut CudaSlice<bf16>,
    (m, n, k): (usize, usize, usize),
) -> Res<()> {
    use bsys::cublasOperation_t::{CUBLAS_OP_N as N, CUBLAS_OP_T as T};
    let op = |t| if t { T } else { N };
    let (m_, n_, trans) = match lay {
        // C^T (n x m, column-major) = W A^T: W as the first operand, transposed.
        Layout::Rm => (n, m, (T, N)),
        _ => (m, n, (op(lay.a_rows()), op(!lay.b_cols()))),
    };
    let ld = |t, rows: usize, cols: usize| if t == T { cols } else { rows };
    let (x, y, ldx, ldy) = match lay {
        Layout::Rm => (b, a, k, k),
        _ => (a, b, ld(trans.0, m, k), ld(trans.1, k, n)),
    };
    let cfg = GemmConfig {
        transa: trans.0,
        transb: trans.1,
        m: m_ as i32,
        n: n_ as i32,
        k: k as i32,
        alpha: bf16::ONE,
        lda: ldx as i32,
        ldb: ldy as i32,
        beta: bf16::ZERO,
        ldc: m_ as i32,
    };
    // SAFETY: the buffers hold m*k, k*n and m*n elements, matching cfg.
    unsafe { blas.gemm(cfg, x, y, c) }?;
    Ok(())
}
