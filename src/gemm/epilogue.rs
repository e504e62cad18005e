//! Fused epilogues: what a kernel applies to each element of the product before storing
//! it, so that a linear layer's bias, activation, dequantization scale or SwiGLU gate costs
//! no second pass over C.
//!
//! ```text
//! C = act(alpha * s ⊙ (A B) + beta * C + bias)        scale at the product (ScaleAt::Product)
//! C = act(alpha * (A B) + beta * C + bias) ⊙ s        scale at the output  (ScaleAt::Output)
//! ```
//!
//! `bias` and `s` are vectors with one element per row of C ([`Along::Rows`], length m) or
//! per column ([`Along::Cols`], length n), in `f32`, `bf16` or `f16` whatever C's type;
//! they are broadcast over batches. Every kernel applies every epilogue, so the dispatch is
//! the plain one's (the register-streaming kernel through entry points of its own, whose
//! code stays out of its plain ones). On the Hopper tiles of large problems, with K-major
//! operands, C of the inputs' 16-bit type and `beta == 0` (a linear layer's `x Wᵀ + b`),
//! bias with identity, ReLU, GELU's tanh forms, SiLU or SwiGLU (accurate or fast) runs
//! unrolled in registers
//! into the TMA store (entry points of their own); a scale, GELU's erf form or other
//! operand orders take a rolled loop there, and `beta != 0`, an `f32` C or SwiGLU with a
//! scale an f32-staged store, each dearer (BENCHMARKS.md gives the costs).
//!
//! [`Activation::SwiGlu`] is gated: B's `n` columns hold gate and up interleaved (column
//! `2j` the gate of output column `j`, `2j + 1` its up: for `y = x Wᵀ`, W's rows
//! interleaved the same way), and C has `n / 2` columns, `C[:, j] = silu(g_j) * u_j` with
//! `g` and `u` each formed as above (bias and scale vectors of length n, interleaved like
//! W; scale at the product only; `beta == 0`).
//!
//! Special values: ReLU keeps NaN and maps `-0` to `+0` (`max(x, 0)`, NaN winning); GELU and
//! SiLU map `-inf` to their limit 0 (`-0` for SiLU and GELU's tanh form, `+0` for its erf
//! form; the formulas would give `0 * inf`) and `+inf` to `+inf`, NaN to NaN.
//! GELU's tanh form is `0.5 x (1 + tanh(u))`, `u = √(2/π) (x + 0.044715 x³)`, the erf form
//! `0.5 x (1 + erf(x / √2))`; both are evaluated in f32 in forms without cancellation for
//! negative x (`x / (1 + 2^(-2u log2 e))`, `0.5 x erfc(-x / √2)`). SiLU and the tanh form
//! (`x · sigmoid`, by the MUFU's `ex2` and `rcp`) put an f32 C within `2e-7 |x|` of an f64
//! reference, `x` being the activation's input; the erf form (CUDA's `erfcf`) within a few
//! ulps of its result. A bf16 or f16 C adds its own rounding. [`Activation::GeluTanhFast`]
//! trades accuracy for half the MUFU work: `0.5 x (1 + tanh(u))` with the hardware `tanh`
//! (cuBLASLt's GELU epilogue), within `2.5e-4 |x|`; [`Activation::SiluFast`] and
//! [`Activation::SwiGluFast`] do the same for SiLU.
//!
//! ```no_run
//! use ferrocute::gemm::{Activation, Epilogue, Gemm, MatMut, MatRef, Order, Vector};
//! use ferrocute::half::bf16;
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let gemm = Gemm::open(0)?;
//! let s = gemm.stream().clone();
//! let (tokens, d_in, d_out) = (8, 1024, 4096);
//! let x = s.clone_htod(&vec![bf16::ONE; tokens * d_in])?;
//! let w = s.clone_htod(&vec![bf16::ONE; d_out * d_in])?;
//! let b = s.clone_htod(&vec![0.5f32; d_out])?;
//! let mut y = s.alloc_zeros::<bf16>(tokens * d_out)?;
//! // y = gelu(x Wᵀ + b), row-major like PyTorch's Linear.
//! let epi = Epilogue::new().bias(Vector::cols(&b)).activation(Activation::GeluTanh);
//! gemm.gemm_with(
//!     1.0,
//!     &MatRef::new(&x, tokens, d_in, Order::RowMajor),
//!     &MatRef::new(&w, d_out, d_in, Order::RowMajor).t(),
//!     0.0,
//!     &mut MatMut::new(&mut y, tokens, d_out, Order::RowMajor),
//!     &epi,
//! )?;
//! # Ok(()) }
//! ```

use std::fmt;

use cudarc::driver::{CudaSlice, CudaStream, CudaView, DevicePtr, DeviceSlice, SyncOnDrop};

use super::error::Error;
use super::plan::Plan;
use super::view::OutputElem;

/// The activation of an [`Epilogue`].
///
/// ```
/// use ferrocute::gemm::Activation;
/// assert_eq!(Activation::default(), Activation::Identity);
/// assert!(Activation::SwiGlu.is_gated());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Activation {
    /// None.
    #[default]
    Identity,
    /// `max(x, 0)` (NaN stays NaN).
    Relu,
    /// GELU, tanh approximation (PyTorch's `approximate="tanh"`).
    GeluTanh,
    /// GELU's tanh form as cuBLASLt's GELU epilogue computes it, by the GPU's `tanh.approx`
    /// (one MUFU operation a value instead of two): within `2.5e-4 |x|` of
    /// [`GeluTanh`](Activation::GeluTanh): 18% of the output at `x = -3`, and more than the
    /// output below `x ≈ -3.4`. For layers where speed counts more than the small negative
    /// outputs.
    GeluTanhFast,
    /// GELU, exact erf form (PyTorch's default).
    GeluErf,
    /// `x * sigmoid(x)`.
    Silu,
    /// `silu(gate) * up` over interleaved gate/up columns: C has half of B's columns
    /// (layout: [`Epilogue`]).
    SwiGlu,
    /// SiLU by the GPU's `tanh.approx`, `x (0.5 + 0.5 tanh(x / 2))` (one MUFU operation a
    /// value instead of two): within `2.5e-4 |x|` of [`Silu`](Activation::Silu), as
    /// [`GeluTanhFast`](Activation::GeluTanhFast) is of GELU.
    SiluFast,
    /// [`SwiGlu`](Activation::SwiGlu) with [`SiluFast`](Activation::SiluFast)'s SiLU: within
    /// `2.5e-4 |gate| |up|`.
    SwiGluFast,
}

impl Activation {
    /// Whether the activation pairs columns (C has half of B's columns).
    pub fn is_gated(self) -> bool {
        matches!(self, Activation::SwiGlu | Activation::SwiGluFast)
    }

    /// The kernel's code (`epilogue_ops.cuh`); a gated launch's code names its SiLU's form
    /// (0: accurate, 6: fast).
    fn code(self) -> i32 {
        match self {
            Activation::Identity | Activation::SwiGlu => 0,
            Activation::Relu => 1,
            Activation::GeluTanh => 2,
            Activation::GeluErf => 3,
            Activation::Silu => 4,
            Activation::GeluTanhFast => 5,
            Activation::SiluFast | Activation::SwiGluFast => 6,
        }
    }
}

/// Which dimension of C an epilogue vector runs along.
///
/// ```
/// use ferrocute::gemm::Along;
/// assert_ne!(Along::Rows, Along::Cols);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Along {
    /// One element per row of C (length m): the same value across a row.
    Rows,
    /// One element per column of C (length n; for SwiGLU, B's n): a linear layer's bias.
    Cols,
}

/// Where a scale vector multiplies.
///
/// ```
/// use ferrocute::gemm::ScaleAt;
/// assert_ne!(ScaleAt::Product, ScaleAt::Output);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScaleAt {
    /// The product `A B`, before bias and activation: a weight's dequantization scale.
    Product,
    /// The activated output.
    Output,
}

/// Which epilogue vector an error refers to.
///
/// ```
/// use ferrocute::gemm::EpilogueVector;
/// assert_eq!(EpilogueVector::Bias.to_string(), "bias");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EpilogueVector {
    /// The bias.
    Bias,
    /// The scale.
    Scale,
}

impl fmt::Display for EpilogueVector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EpilogueVector::Bias => "bias",
            EpilogueVector::Scale => "scale",
        })
    }
}

/// Element types of epilogue vectors: `f32`, `bf16` and `f16` (those of C), any of them
/// with any C.
pub trait VectorElem: OutputElem {
    #[doc(hidden)]
    fn wrap(view: CudaView<'_, Self>) -> VectorView<'_>;
    /// The kernel's code for the type (`epilogue_ops.cuh`).
    #[doc(hidden)]
    const CODE: i32;
}

/// A device vector of any [`VectorElem`] type (the element type is checked by the
/// compiler where the [`Vector`] is made).
#[doc(hidden)]
#[derive(Debug)]
pub enum VectorView<'a> {
    F32(CudaView<'a, f32>),
    Bf16(CudaView<'a, half::bf16>),
    F16(CudaView<'a, half::f16>),
}

impl VectorElem for f32 {
    fn wrap(view: CudaView<'_, Self>) -> VectorView<'_> {
        VectorView::F32(view)
    }
    const CODE: i32 = 0;
}
impl VectorElem for half::bf16 {
    fn wrap(view: CudaView<'_, Self>) -> VectorView<'_> {
        VectorView::Bf16(view)
    }
    const CODE: i32 = 1;
}
impl VectorElem for half::f16 {
    fn wrap(view: CudaView<'_, Self>) -> VectorView<'_> {
        VectorView::F16(view)
    }
    const CODE: i32 = 2;
}

/// A bias or scale vector: a device buffer and the dimension of C it runs along.
///
/// ```no_run
/// # fn f(b: &cudarc::driver::CudaSlice<half::bf16>) {
/// let bias = ferrocute::gemm::Vector::cols(b);
/// # }
/// ```
#[derive(Debug)]
pub struct Vector<'a> {
    view: VectorView<'a>,
    along: Along,
    code: i32,
    elem_bytes: usize,
}

impl<'a> Vector<'a> {
    /// One element per column of C.
    pub fn cols<T: VectorElem>(slice: &'a CudaSlice<T>) -> Vector<'a> {
        Vector::from_view(slice.as_view(), Along::Cols)
    }

    /// One element per row of C.
    pub fn rows<T: VectorElem>(slice: &'a CudaSlice<T>) -> Vector<'a> {
        Vector::from_view(slice.as_view(), Along::Rows)
    }

    /// A view (e.g. one layer's slice of a stacked bias) along `along`.
    pub fn from_view<T: VectorElem>(view: CudaView<'a, T>, along: Along) -> Vector<'a> {
        Vector {
            view: T::wrap(view),
            along,
            code: T::CODE,
            elem_bytes: std::mem::size_of::<T>(),
        }
    }

    fn len(&self) -> usize {
        match &self.view {
            VectorView::F32(v) => v.len(),
            VectorView::Bf16(v) => v.len(),
            VectorView::F16(v) => v.len(),
        }
    }

    fn context(&self) -> &std::sync::Arc<cudarc::driver::CudaContext> {
        match &self.view {
            VectorView::F32(v) => v.stream().context(),
            VectorView::Bf16(v) => v.stream().context(),
            VectorView::F16(v) => v.stream().context(),
        }
    }

    /// The device address, and the guard that records the read on `stream` when dropped.
    fn device_ptr<'s>(&'s self, stream: &'s CudaStream) -> (u64, SyncOnDrop<'s>) {
        match &self.view {
            VectorView::F32(v) => v.device_ptr(stream),
            VectorView::Bf16(v) => v.device_ptr(stream),
            VectorView::F16(v) => v.device_ptr(stream),
        }
    }
}

/// The fused gate/up weight of [`Activation::SwiGlu`] from separate gate and up weights as
/// checkpoints store them (`gate_proj` and `up_proj`, each `rows x row_len` row-major, for
/// `y = x Wᵀ`): row `2j` the gate's row `j`, row `2j + 1` the up's. Any storage in which each
/// output's weights are `row_len` consecutive elements interleaves the same way (W stored
/// `k x n` column-major: `row_len = k`), as do bias and scale vectors (`row_len = 1`); a
/// concatenated `[gate; up]` weight is split in half first.
///
/// ```
/// use ferrocute::gemm::interleave_gate_up;
/// let (gate, up) = ([1, 2, 3, 4], [5, 6, 7, 8]); // two rows of two each
/// assert_eq!(interleave_gate_up(&gate, &up, 2).unwrap(), [1, 2, 5, 6, 3, 4, 7, 8]);
/// assert_eq!(interleave_gate_up(&gate, &up, 1).unwrap(), [1, 5, 2, 6, 3, 7, 4, 8]);
/// assert!(interleave_gate_up(&gate, &up[..2], 2).is_err()); // unequal lengths
/// assert!(interleave_gate_up(&gate, &up, 3).is_err()); // not whole rows
/// ```
pub fn interleave_gate_up<T: Copy>(gate: &[T], up: &[T], row_len: usize) -> Result<Vec<T>, Error> {
    if gate.len() != up.len() || row_len == 0 || !gate.len().is_multiple_of(row_len) {
        return Err(Error::Gated {
            reason: "gate and up weights of equal length in whole rows of row_len > 0 elements",
        });
    }
    Ok(gate
        .chunks_exact(row_len)
        .zip(up.chunks_exact(row_len))
        .flat_map(|(g, u)| g.iter().chain(u).copied())
        .collect())
}

/// A fused epilogue for [`super::Gemm::gemm_with`]: activation, optional bias and scale.
/// The default is the plain GEMM.
///
/// With [`Activation::SwiGlu`], B's `n` columns hold gate and up interleaved (column `2j`
/// the gate of C's column `j`, `2j + 1` its up; for `y = x Wᵀ`, W's rows so interleaved,
/// e.g. by [`interleave_gate_up`]),
/// C has `n / 2` columns, `C[:, j] = silu(g_j) * u_j`, bias and scale (at the product only)
/// have B's `n` elements, and `beta` must be 0.
///
/// ```no_run
/// # fn f(b: &cudarc::driver::CudaSlice<f32>, s: &cudarc::driver::CudaSlice<half::bf16>) {
/// use ferrocute::gemm::{Activation, Epilogue, ScaleAt, Vector};
/// let epi = Epilogue::new()
///     .scale(Vector::cols(s), ScaleAt::Product)
///     .bias(Vector::cols(b))
///     .activation(Activation::Silu);
/// assert_eq!(epi.activation_kind(), Activation::Silu);
/// # }
/// ```
#[derive(Debug, Default)]
pub struct Epilogue<'a> {
    activation: Activation,
    bias: Option<Vector<'a>>,
    scale: Option<(Vector<'a>, ScaleAt)>,
}

impl<'a> Epilogue<'a> {
    /// The plain epilogue (`C = alpha A B + beta C`).
    pub fn new() -> Epilogue<'a> {
        Epilogue::default()
    }

    /// With `activation`.
    pub fn activation(mut self, activation: Activation) -> Epilogue<'a> {
        self.activation = activation;
        self
    }

    /// With a bias added before the activation.
    pub fn bias(mut self, bias: Vector<'a>) -> Epilogue<'a> {
        self.bias = Some(bias);
        self
    }

    /// With a scale at `at`.
    pub fn scale(mut self, scale: Vector<'a>, at: ScaleAt) -> Epilogue<'a> {
        self.scale = Some((scale, at));
        self
    }

    /// The activation.
    pub fn activation_kind(&self) -> Activation {
        self.activation
    }

    /// Whether the C this epilogue writes has half of B's columns.
    pub fn is_gated(&self) -> bool {
        self.activation.is_gated()
    }

    /// Checks the vectors' contexts against `ctx`.
    pub(crate) fn check_context(&self, ctx: &cudarc::driver::CudaContext) -> Result<(), Error> {
        let vectors = [
            (EpilogueVector::Bias, self.bias.as_ref()),
            (EpilogueVector::Scale, self.scale.as_ref().map(|s| &s.0)),
        ];
        for (which, v) in vectors {
            if v.is_some_and(|v| **v.context() != *ctx) {
                return Err(Error::EpilogueContext { vector: which });
            }
        }
        Ok(())
    }

    /// The validator's view, with the device addresses (read on `stream`: the guards
    /// record the reads when dropped, after the launch).
    pub(crate) fn describe<'s>(
        &'s self,
        stream: &'s CudaStream,
    ) -> (EpilogueDesc, [Option<SyncOnDrop<'s>>; 2]) {
        let mut guards = [None, None];
        let mut desc_of = |v: &'s Vector<'_>, slot: usize| {
            let (ptr, guard) = v.device_ptr(stream);
            guards[slot] = Some(guard);
            VectorDesc {
                along: v.along,
                len: v.len(),
                ptr,
                elem_bytes: v.elem_bytes,
                code: v.code,
            }
        };
        let bias = self.bias.as_ref().map(|v| desc_of(v, 0));
        let scale = self.scale.as_ref().map(|(v, at)| (desc_of(v, 1), *at));
        (
            EpilogueDesc {
                activation: self.activation,
                bias,
                scale,
            },
            guards,
        )
    }
}

/// One epilogue vector as the validator sees it.
///
/// ```
/// use ferrocute::gemm::{Along, VectorDesc};
/// let v = VectorDesc { along: Along::Cols, len: 64, ptr: 0x1000, elem_bytes: 4, code: 0 };
/// assert_eq!(v.len, 64);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VectorDesc {
    /// The dimension of C it runs along.
    pub along: Along,
    /// Elements in the buffer.
    pub len: usize,
    /// Device address of the first element.
    pub ptr: u64,
    /// Bytes per element.
    pub elem_bytes: usize,
    /// The kernel's element type code ([`VectorElem::CODE`]).
    pub code: i32,
}

/// An epilogue as the validator sees it: a pure description, checked without a GPU by
/// [`check_epilogue`].
///
/// ```
/// use ferrocute::gemm::{Activation, EpilogueDesc};
/// assert_eq!(EpilogueDesc::default().activation, Activation::Identity);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EpilogueDesc {
    /// The activation.
    pub activation: Activation,
    /// The bias.
    pub bias: Option<VectorDesc>,
    /// The scale and where it applies.
    pub scale: Option<(VectorDesc, ScaleAt)>,
}

/// The epilogue fields of the kernels' parameter block (`GemmParams`), in the kernel's
/// (M, N).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KernelEpilogue {
    /// Activation code.
    pub act: i32,
    /// Bias address (0: none).
    pub bias: u64,
    /// 0 none, 1 along M, 2 along N.
    pub bias_axis: i32,
    /// Bias element type code.
    pub bias_type: i32,
    /// Scale address (0: none).
    pub scale: u64,
    /// 0 none, 1 along M, 2 along N.
    pub scale_axis: i32,
    /// Scale element type code.
    pub scale_type: i32,
    /// 0 at the product, 1 at the output.
    pub scale_at: i32,
    /// 0 not gated, 1 pairs along N, 2 along M.
    pub gated: i32,
}

/// Checks an epilogue against the problem: `m x n` the product's rows and columns (B's n,
/// twice C's columns when gated), `beta`, and C's device range `[c_ptr, c_ptr + c_bytes)`,
/// which no vector may overlap (the kernels read the vectors while they write C).
///
/// ```
/// use ferrocute::gemm::{check_epilogue, Along, EpilogueDesc, Error, EpilogueVector, VectorDesc};
/// let bias = VectorDesc { along: Along::Cols, len: 63, ptr: 0x1000, elem_bytes: 4, code: 0 };
/// let epi = EpilogueDesc { bias: Some(bias), ..EpilogueDesc::default() };
/// assert_eq!(
///     check_epilogue(&epi, 128, 64, 0.0, 0x10_0000, 128 * 64 * 2),
///     Err(Error::EpilogueLength { vector: EpilogueVector::Bias, len: 63, needed: 64 })
/// );
/// ```
pub fn check_epilogue(
    desc: &EpilogueDesc,
    m: usize,
    n: usize,
    beta: f32,
    c_ptr: u64,
    c_bytes: usize,
) -> Result<(), Error> {
    let gated = desc.activation.is_gated();
    if gated {
        if beta != 0.0 {
            return Err(Error::Gated {
                reason: "beta must be 0 (C is only written)",
            });
        }
        if matches!(desc.scale, Some((_, ScaleAt::Output))) {
            return Err(Error::Gated {
                reason: "its scale applies to the product (ScaleAt::Product)",
            });
        }
    }
    let vectors = [
        (EpilogueVector::Bias, desc.bias),
        (EpilogueVector::Scale, desc.scale.map(|s| s.0)),
    ];
    for (which, v) in vectors {
        let Some(v) = v else { continue };
        let needed = match v.along {
            Along::Rows => m,
            Along::Cols => n,
        };
        if v.len < needed {
            return Err(Error::EpilogueLength {
                vector: which,
                len: v.len,
                needed,
            });
        }
        if !v.ptr.is_multiple_of(v.elem_bytes as u64) {
            return Err(Error::EpilogueMisaligned {
                vector: which,
                ptr: v.ptr,
                align: v.elem_bytes,
            });
        }
        let bytes = (needed * v.elem_bytes) as u64;
        if needed > 0 && c_bytes > 0 && v.ptr < c_ptr + c_bytes as u64 && c_ptr < v.ptr + bytes {
            return Err(Error::EpilogueOverlap { vector: which });
        }
    }
    Ok(())
}

impl EpilogueDesc {
    /// The kernel's fields for `plan`: C's rows and columns are the kernel's M and N, or
    /// its N and M where the plan computes the transpose (`plan.swapped`).
    ///
    /// ```
    /// use ferrocute::gemm::{plan, Activation, Along, EpilogueDesc, GemmDesc, MatShape, OperandDesc, Order, VectorDesc};
    /// let d = |r, c, l, ptr| OperandDesc { shape: MatShape::packed(r, c, l), len: r * c, ptr };
    /// // A row-major C is computed as C^T: its columns are the kernel's rows (M).
    /// let p = plan(&GemmDesc { a: d(256, 64, Order::RowMajor, 1 << 20), b: d(64, 512, Order::ColMajor, 1 << 30),
    ///     c: d(256, 512, Order::RowMajor, 1 << 40), in_bytes: 2, out_bytes: 2 }).unwrap();
    /// let bias = VectorDesc { along: Along::Cols, len: 512, ptr: 0x1000, elem_bytes: 4, code: 0 };
    /// let k = EpilogueDesc { activation: Activation::Relu, bias: Some(bias), scale: None }.kernel(&p);
    /// assert_eq!((k.act, k.bias_axis, k.gated), (1, 1, 0));
    /// ```
    pub fn kernel(&self, plan: &Plan) -> KernelEpilogue {
        // Kernel axis of a vector along C's rows (1 = M) or columns (2 = N).
        let axis = |along: Along| match (along, plan.swapped) {
            (Along::Rows, false) | (Along::Cols, true) => 1,
            (Along::Cols, false) | (Along::Rows, true) => 2,
        };
        let mut k = KernelEpilogue {
            act: self.activation.code(),
            // Pairs along C's columns: code 1 where they are the kernel's N, 2 where M.
            gated: match (self.activation.is_gated(), axis(Along::Cols)) {
                (false, _) => 0,
                (true, 2) => 1,
                (true, _) => 2,
            },
            ..KernelEpilogue::default()
        };
        if let Some(b) = self.bias {
            (k.bias, k.bias_axis, k.bias_type) = (b.ptr, axis(b.along), b.code);
        }
        if let Some((s, at)) = self.scale {
            (k.scale, k.scale_axis, k.scale_type) = (s.ptr, axis(s.along), s.code);
            k.scale_at = i32::from(at == ScaleAt::Output);
        }
        k
    }
}
