//! Validation and operand mapping: a pure function of shapes, strides,
//! buffer lengths and device addresses, so every check is testable without a GPU.

use super::error::{Error, Matrix};
use super::view::{MatShape, Order};

/// One operand as the validator sees it: its view shape, its buffer length
/// (elements) and its device address.
///
/// ```
/// use ferrocute::gemm::{Order, MatShape, OperandDesc};
/// let a = OperandDesc { shape: MatShape::packed(4, 8, Order::RowMajor), len: 32, ptr: 0x1000 };
/// assert_eq!(a.len, 32);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OperandDesc {
    /// Logical shape, leading dimension, layout and batching.
    pub shape: MatShape,
    /// Elements available in the buffer from `ptr` on.
    pub len: usize,
    /// Device address of the first element.
    pub ptr: u64,
}

/// A whole problem `C = alpha * A * B + beta * C` as the validator sees it.
///
/// ```
/// use ferrocute::gemm::{plan, GemmDesc, Order, MatShape, OperandDesc};
/// let d = |r, c, l, ptr| OperandDesc { shape: MatShape::packed(r, c, l), len: r * c, ptr };
/// let desc = GemmDesc {
///     a: d(64, 32, Order::RowMajor, 0x10000),
///     b: d(32, 16, Order::ColMajor, 0x20000),
///     c: d(64, 16, Order::ColMajor, 0x30000),
///     in_bytes: 2,
///     out_bytes: 4,
/// };
/// let p = plan(&desc).unwrap();
/// assert!(p.a.k_major && p.b.k_major && !p.swapped); // the "TN" case
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GemmDesc {
    /// Left input, logically `m x k`.
    pub a: OperandDesc,
    /// Right input, logically `k x n`.
    pub b: OperandDesc,
    /// Output, logically `m x n`.
    pub c: OperandDesc,
    /// Bytes per input element (2 for bf16/f16).
    pub in_bytes: usize,
    /// Bytes per output element (2 or 4).
    pub out_bytes: usize,
}

/// One operand mapped onto the kernel convention.
///
/// ```
/// # use ferrocute::gemm::KernelOperand;
/// let o = KernelOperand { ptr: 0, ld: 8, batch_stride: 0, k_major: true, contiguous_extent: 8, elem_bytes: 2 };
/// assert!(o.k_major);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelOperand {
    /// Device address.
    pub ptr: u64,
    /// Leading dimension (elements).
    pub ld: i64,
    /// Batch stride (elements), 0 when broadcast.
    pub batch_stride: i64,
    /// For the kernel's A (M,K) and B (N,K): whether K is the unit-stride mode.
    /// Always `false` for C (column-major).
    pub k_major: bool,
    /// Extent along the unit-stride mode.
    pub contiguous_extent: usize,
    /// Bytes per element.
    pub elem_bytes: usize,
}

impl KernelOperand {
    /// Whether base, leading dimension and (when `batched`) batch stride are multiples of
    /// `align_elems` elements and the unit-stride extent one of `extent_align_elems`.
    pub(crate) fn fast_aligned(
        &self,
        align_elems: usize,
        extent_align_elems: usize,
        batched: bool,
    ) -> bool {
        let align_elems = align_elems.max(1) as i64;
        let extent_align = extent_align_elems.max(1);
        let align_bytes = align_elems as u64 * self.elem_bytes as u64;
        self.ptr.is_multiple_of(align_bytes)
            && self.ld % align_elems == 0
            && (!batched || self.batch_stride % align_elems == 0)
            && self.contiguous_extent.is_multiple_of(extent_align)
    }
}

/// A validated problem in the kernel's convention:
/// `D(m,n,l) = alpha * sum_k A(m,k,l) B(n,k,l) + beta * C(m,n,l)` with C column-major.
///
/// ```
/// # use ferrocute::gemm::{plan, GemmDesc, Order, MatShape, OperandDesc};
/// # let d = |r, c, l, ptr| OperandDesc { shape: MatShape::packed(r, c, l), len: r * c, ptr };
/// // Row-major C: computed as C^T = B^T A^T, so the operands swap.
/// let desc = GemmDesc { a: d(8, 4, Order::RowMajor, 0x1000), b: d(4, 2, Order::RowMajor, 0x2000),
///     c: d(8, 2, Order::RowMajor, 0x3000), in_bytes: 2, out_bytes: 2 };
/// let p = plan(&desc).unwrap();
/// assert!(p.swapped);
/// assert_eq!((p.m, p.n, p.k), (2, 8, 4));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// Rows of the (column-major) kernel output.
    pub m: i32,
    /// Columns of the kernel output.
    pub n: i32,
    /// Reduction length (may be 0: then `C = beta * C`).
    pub k: i32,
    /// Batch count.
    pub batch: i32,
    /// Kernel A, (M,K).
    pub a: KernelOperand,
    /// Kernel B, (N,K).
    pub b: KernelOperand,
    /// Kernel C, (M,N) column-major: what `beta` scales.
    pub c: KernelOperand,
    /// Kernel D, (M,N) column-major: where the kernel writes. The caller's C, or its
    /// repacked copy in the workspace ([`super::Repack::apply`]).
    pub d: KernelOperand,
    /// Whether A and B were swapped (and transposed) because C was row-major.
    pub swapped: bool,
    /// Whether C and D are N-major (`D(m,n)` at `m * ld + n`): set only by
    /// [`Plan::transposed`], for the kernels that write either order (the small-M kernels,
    /// the narrow persistent tiles and the 128x192 tile's `_nd` entry points,
    /// `KernelConfig::takes_n_major_d`).
    pub d_n_major: bool,
    /// Whether the epilogue is gated ([`plan_gated`]): D has half the product's columns of
    /// the caller's C (the kernel's N, or its M where `swapped`).
    pub gated: bool,
    /// Whether a fused epilogue applies (bias, scale, activation or gating): the
    /// register-streaming kernel then runs its `_epi` entry points
    /// ([`KernelConfig::fused_entries`](super::registry::KernelConfig::fused_entries)).
    pub fused: bool,
}

impl Plan {
    /// The same product with the roles of A and B exchanged: `D^T = B A^T`, M and N
    /// swapped and C and D read in the other order. A row-major C is planned as `C^T` so
    /// that D is M-major; for `y = x W^T` with few rows of `x` that puts the weight on A
    /// and the few rows on N, while the small-M kernels want them on M: this undoes it.
    ///
    /// ```
    /// use ferrocute::gemm::{plan, GemmDesc, Order, MatShape, OperandDesc};
    /// let d = |r, c, l, ptr| OperandDesc { shape: MatShape::packed(r, c, l), len: r * c, ptr };
    /// // y (8 x 4096, row-major) = x (8 x 1024, row-major) W^T (W: 4096 x 1024, row-major).
    /// let p = plan(&GemmDesc { a: d(8, 1024, Order::RowMajor, 1 << 20),
    ///     b: d(1024, 4096, Order::ColMajor, 1 << 30), c: d(8, 4096, Order::RowMajor, 1 << 40),
    ///     in_bytes: 2, out_bytes: 2 }).unwrap();
    /// assert!(p.swapped && (p.m, p.n) == (4096, 8) && !p.d_n_major);
    /// let t = p.transposed();
    /// assert!((t.m, t.n) == (8, 4096) && t.d_n_major && t.a.k_major && t.b.k_major);
    /// assert_eq!((t.a.ptr, t.b.ptr, t.d.ld), (1 << 20, 1 << 30, 4096));
    /// assert_eq!(t.transposed(), p);
    /// ```
    pub fn transposed(&self) -> Plan {
        Plan {
            m: self.n,
            n: self.m,
            a: self.b,
            b: self.a,
            swapped: !self.swapped,
            d_n_major: !self.d_n_major,
            ..*self
        }
    }

    /// True when there is nothing to compute (m, n or batch is 0).
    pub fn is_noop(&self) -> bool {
        self.m == 0 || self.n == 0 || self.batch == 0
    }

    /// Whether all alignment requirements of a fast kernel hold:
    /// 16-byte base addresses, leading dimensions and batch strides a multiple
    /// of `align_elems`, contiguous extents a multiple of `extent_align_elems`.
    pub fn fast_aligned(&self, align_elems: usize, extent_align_elems: usize) -> bool {
        // Only A and B are read with vector copies / TMA; every kernel stores C/D with
        // predicated stores of any alignment.
        let batched = self.batch > 1;
        self.a
            .fast_aligned(align_elems, extent_align_elems, batched)
            && self
                .b
                .fast_aligned(align_elems, extent_align_elems, batched)
    }
}

const I32_MAX: u64 = i32::MAX as u64;

fn to_i32(what: &'static str, v: usize) -> Result<i32, Error> {
    i32::try_from(v).map_err(|_| Error::Overflow {
        what,
        value: v as u64,
        limit: I32_MAX,
    })
}

fn to_i64(what: &'static str, v: usize) -> Result<i64, Error> {
    i64::try_from(v).map_err(|_| Error::Overflow {
        what,
        value: v as u64,
        limit: i64::MAX as u64,
    })
}

fn overflow(what: &'static str) -> Error {
    Error::Overflow {
        what,
        value: u64::MAX,
        limit: i64::MAX as u64,
    }
}

/// Checked element span of one operand; also checks `ld` and the output's
/// batch stride. Returns `(elements needed, span of one matrix)`.
fn check_operand(
    operand: Matrix,
    d: &OperandDesc,
    elem_bytes: usize,
) -> Result<(usize, usize), Error> {
    let s = &d.shape;
    let min_ld = s.contiguous_extent().max(1);
    if s.ld < min_ld {
        return Err(Error::LeadingDimension {
            operand,
            ld: s.ld,
            min: min_ld,
        });
    }
    if !d.ptr.is_multiple_of(elem_bytes as u64) {
        return Err(Error::Misaligned {
            operand,
            ptr: d.ptr,
            align: elem_bytes,
        });
    }
    let what = match operand {
        Matrix::A => "element span of A",
        Matrix::B => "element span of B",
        Matrix::C => "element span of C",
    };
    if s.rows == 0 || s.cols == 0 || s.batch == 0 {
        return Ok((0, 0));
    }
    let span = (s.outer_extent() - 1)
        .checked_mul(s.ld)
        .and_then(|x| x.checked_add(s.contiguous_extent()))
        .ok_or_else(|| overflow(what))?;
    let needed = (s.batch - 1)
        .checked_mul(s.batch_stride)
        .and_then(|x| x.checked_add(span))
        .ok_or_else(|| overflow(what))?;
    // Every element offset and byte offset must fit the kernel's int64 and the address space.
    let bytes = needed
        .checked_mul(elem_bytes)
        .ok_or_else(|| overflow(what))?;
    to_i64(what, bytes)?;
    d.ptr
        .checked_add(bytes as u64)
        .ok_or_else(|| overflow(what))?;
    if needed > d.len {
        return Err(Error::BufferTooShort {
            operand,
            needed,
            len: d.len,
        });
    }
    if operand == Matrix::C && s.batch > 1 && s.batch_stride < span {
        return Err(Error::BatchStrideOverlap {
            operand,
            stride: s.batch_stride,
            min: span,
        });
    }
    Ok((needed, span))
}

/// `o` with one row (`rows == 1`) and unit stride along K, as a K-major operand with an
/// 8-aligned leading dimension; anything else unchanged.
///
/// ```
/// use ferrocute::gemm::{plan, GemmDesc, Order, MatShape, OperandDesc};
/// let d = |r, c, l, ptr| OperandDesc { shape: MatShape::packed(r, c, l), len: r * c, ptr };
/// // y = x W^T with x a 1 x 1000 column-major view (ld 1): A is contiguous along K.
/// let desc = GemmDesc { a: d(1, 1000, Order::ColMajor, 0x10000), b: d(1000, 64, Order::ColMajor, 0x20000),
///     c: d(1, 64, Order::ColMajor, 0x40000), in_bytes: 2, out_bytes: 2 };
/// let p = plan(&desc).unwrap();
/// assert!(p.a.k_major);
/// assert_eq!((p.a.ld, p.a.contiguous_extent), (1000, 1000));
/// ```
fn as_vector(o: KernelOperand, rows: i32, k: i32) -> KernelOperand {
    let unit_k = o.k_major || o.ld == 1;
    if rows != 1 || !unit_k {
        return o;
    }
    KernelOperand {
        k_major: true,
        ld: (k.max(1) as i64 + 7) / 8 * 8,
        contiguous_extent: k as usize,
        ..o
    }
}

fn ranges_overlap(p0: u64, bytes0: usize, p1: u64, bytes1: usize) -> bool {
    if bytes0 == 0 || bytes1 == 0 {
        return false;
    }
    // Both ends were checked not to overflow in check_operand.
    p0 < p1 + bytes1 as u64 && p1 < p0 + bytes0 as u64
}

/// Validates a problem and maps it onto the kernel convention.
///
/// Semantics of degenerate problems: `m == 0`, `n == 0` or batch 0 is a
/// no-op ([`Plan::is_noop`]); `k == 0` is valid and means `C = beta * C`
/// (dispatched to the simple kernel, which handles an empty reduction).
/// Inputs with batch count 1 are broadcast over C's batch.
///
/// The overlap check is conservative: it compares the address ranges
/// `[ptr, ptr + needed)`, so interleaved-but-disjoint views are rejected too.
///
/// ```
/// use ferrocute::gemm::{plan, Error, GemmDesc, Order, MatShape, OperandDesc, Matrix};
/// let d = |r, c, ptr| OperandDesc { shape: MatShape::packed(r, c, Order::ColMajor), len: r * c, ptr };
/// let bad = GemmDesc { a: d(4, 3, 0x100), b: d(5, 2, 0x200), c: d(4, 2, 0x300), in_bytes: 2, out_bytes: 4 };
/// assert!(matches!(plan(&bad), Err(Error::ShapeMismatch { .. })));
/// ```
pub fn plan(desc: &GemmDesc) -> Result<Plan, Error> {
    plan_with(desc, false)
}

/// [`plan`] for a gated epilogue ([`super::Activation::SwiGlu`]): C has half of B's
/// columns (`n / 2`), and the plan's `n` (or `m` where swapped) is B's.
///
/// ```
/// use ferrocute::gemm::{plan_gated, Error, GemmDesc, Order, MatShape, OperandDesc};
/// let d = |r, c, l, ptr| OperandDesc { shape: MatShape::packed(r, c, l), len: r * c, ptr };
/// let desc = GemmDesc { a: d(8, 64, Order::RowMajor, 1 << 20), b: d(64, 256, Order::ColMajor, 1 << 30),
///     c: d(8, 128, Order::RowMajor, 1 << 40), in_bytes: 2, out_bytes: 2 };
/// let p = plan_gated(&desc).unwrap();
/// assert!(p.gated && p.swapped && (p.m, p.n) == (256, 8));
/// let odd = GemmDesc { c: d(8, 127, Order::RowMajor, 1 << 40), ..desc };
/// assert!(matches!(plan_gated(&odd), Err(Error::Gated { .. })));
/// ```
pub fn plan_gated(desc: &GemmDesc) -> Result<Plan, Error> {
    plan_with(desc, true)
}

fn plan_with(desc: &GemmDesc, gated: bool) -> Result<Plan, Error> {
    let (a, b, c) = (&desc.a.shape, &desc.b.shape, &desc.c.shape);
    if gated && b.cols != 2 * c.cols {
        return Err(Error::Gated {
            reason: "C must have half of B's columns (gate and up interleaved)",
        });
    }
    let c_cols = if gated { b.cols } else { c.cols };
    if a.rows != c.rows || a.cols != b.rows || b.cols != c_cols {
        return Err(Error::ShapeMismatch {
            a: (a.rows, a.cols),
            b: (b.rows, b.cols),
            c: (c.rows, c.cols),
        });
    }
    if (a.batch != c.batch && a.batch != 1) || (b.batch != c.batch && b.batch != 1) {
        return Err(Error::BatchMismatch {
            a: a.batch,
            b: b.batch,
            c: c.batch,
        });
    }
    let (na, _) = check_operand(Matrix::A, &desc.a, desc.in_bytes)?;
    let (nb, _) = check_operand(Matrix::B, &desc.b, desc.in_bytes)?;
    let (nc, _) = check_operand(Matrix::C, &desc.c, desc.out_bytes)?;
    let c_bytes = nc * desc.out_bytes;
    if ranges_overlap(desc.a.ptr, na * desc.in_bytes, desc.c.ptr, c_bytes) {
        return Err(Error::Overlap { input: Matrix::A });
    }
    if ranges_overlap(desc.b.ptr, nb * desc.in_bytes, desc.c.ptr, c_bytes) {
        return Err(Error::Overlap { input: Matrix::B });
    }

    let m = to_i32("m", c.rows)?;
    let n = to_i32("n", b.cols)?;
    let k = to_i32("k", a.cols)?;
    let batch = to_i32("batch", c.batch)?;

    // Row-major C: compute C^T = B^T A^T, so C becomes column-major.
    let swapped = c.layout == Order::RowMajor;
    let (la, lb, lc) = if swapped {
        (
            (desc.b.shape.t(), desc.b.ptr),
            (desc.a.shape.t(), desc.a.ptr),
            (c.t(), desc.c.ptr),
        )
    } else {
        ((*a, desc.a.ptr), (*b, desc.b.ptr), (*c, desc.c.ptr))
    };
    let (m, n) = if swapped { (n, m) } else { (m, n) };
    let stride = |s: &MatShape, what| -> Result<i64, Error> {
        if s.batch == 1 {
            Ok(0)
        } else {
            to_i64(what, s.batch_stride)
        }
    };
    // Kernel A is (M,K): logical A is m x k, K-major iff row-major.
    let ka = KernelOperand {
        ptr: la.1,
        ld: to_i64("lda", la.0.ld)?,
        batch_stride: stride(&la.0, "batch stride of A")?,
        k_major: la.0.layout == Order::RowMajor,
        contiguous_extent: la.0.contiguous_extent(),
        elem_bytes: desc.in_bytes,
    };
    // Kernel B is (N,K): logical B is k x n, K-major iff column-major.
    let kb = KernelOperand {
        ptr: lb.1,
        ld: to_i64("ldb", lb.0.ld)?,
        batch_stride: stride(&lb.0, "batch stride of B")?,
        k_major: lb.0.layout == Order::ColMajor,
        contiguous_extent: lb.0.contiguous_extent(),
        elem_bytes: desc.in_bytes,
    };
    // A single row of A (or of B) is a vector: when it is contiguous along K, read it as
    // K-major whatever its layout says (a 1 x k column-major A with ld 1 is a GEMV's x), so
    // that the fast kernels take it; its leading dimension then never multiplies a row.
    let (ka, kb) = (as_vector(ka, m, k), as_vector(kb, n, k));
    let kc = KernelOperand {
        ptr: lc.1,
        ld: to_i64("ldc", lc.0.ld)?,
        batch_stride: stride(&lc.0, "batch stride of C")?,
        k_major: false,
        contiguous_extent: lc.0.contiguous_extent(),
        elem_bytes: desc.out_bytes,
    };
    Ok(Plan {
        m,
        n,
        k,
        batch,
        a: ka,
        b: kb,
        c: kc,
        d: kc,
        swapped,
        d_n_major: false,
        gated,
        fused: gated,
    })
}
