//! Repacking: A or B copied into the handle's workspace with rows on 128-byte lines, so
//! that the Hopper TMA kernels can read an operand whose base, leading dimension or batch
//! stride is not a multiple of 16 bytes (an odd vocabulary size, a 100-row M-major A), and
//! D written there for a C that cannot take 16-byte stores. Without it such operands take
//! the Ampere-class tile with 8-byte or element reads, far slower than the TMA kernels on
//! an H100 (measured: see BENCHMARKS.md). An MN-major operand of 16-byte rows, and at
//! prefill sizes one whose rows start off the 32-byte sectors, which TMA reads in place but
//! slowly, are copied too where the problem is large enough ([`widened_rows`]), and an
//! M-major A of a few hundred rows off the 128-byte lines is copied transposed, K-major
//! ([`transposes_a`]).
//!
//! A pure function of the plan, testable without a GPU: [`repack`] says what to copy and
//! how large the workspace must be, [`Repack::apply`] rewrites the plan to read the copies.

use super::plan::{KernelOperand, Plan};

/// When [`super::Gemm`] copies operands through its workspace: misaligned ones,
/// [`widened_rows`] and [`transposes_a`].
///
/// ```
/// use ferrocute::gemm::Repacking;
/// assert_eq!(Repacking::default(), Repacking::Auto);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Repacking {
    /// Never: misaligned operands are read and written in place by the Ampere-class tiles
    /// and the kernels' element-wise stores, and no workspace is allocated.
    Never,
    /// Whenever the copies let a TMA kernel run (default): the copies and a TMA kernel beat
    /// the Ampere-class tiles in place at every size measured on an H100 (BENCHMARKS.md);
    /// and for a TMA kernel that would read 16-byte rows, or rows off the 32-byte sectors,
    /// in place ([`widened_rows`]) or a small-M tile an M-major A off the lines
    /// ([`transposes_a`]).
    #[default]
    Auto,
}

/// Rows in the workspace start every multiple of this many bytes: TMA needs 16, and whole
/// 128-byte lines per box row keep its loads and stores on one line each.
const ROW_ALIGN: u64 = 128;

/// Workspace offsets are multiples of this many bytes.
const WORKSPACE_ALIGN: u64 = 256;

/// At most this many copies per operand (one per batch, each a row of the copy kernel's
/// grid).
const MAX_COPIES: u64 = 16;

/// `count` strided copies (one per batch, where batches do not lie a whole number of rows
/// apart; else one) of `height` rows of `width` bytes, from rows `src_pitch` bytes apart
/// to rows `dst_pitch` bytes apart, the next copy `src_step` / `dst_step` bytes further on.
/// In a [`Repack`], the workspace side (`dst` of an input's copy, `src` of D's) is an
/// offset from the workspace's start; [`Repack::copies`] makes it an address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Copy2D {
    /// Source of the first row.
    pub src: u64,
    /// Bytes between source rows.
    pub src_pitch: u64,
    /// Destination of the first row.
    pub dst: u64,
    /// Bytes between destination rows.
    pub dst_pitch: u64,
    /// Bytes per row (the operand's unit-stride extent).
    pub width: u64,
    /// Rows per copy (the operand's other extent; with batches a whole number of rows
    /// apart, all of their rows, gaps included).
    pub height: u64,
    /// Copies (1, or the batch count).
    pub count: u64,
    /// Bytes from one copy's source to the next's.
    pub src_step: u64,
    /// Bytes from one copy's destination to the next's.
    pub dst_step: u64,
    /// Bytes per element (2 or 4).
    pub elem_bytes: u64,
    /// Whether the copy transposes ([`transposes_a`]): element `c` of source row `r` lands
    /// at element `r` of destination row `c`, so the destination holds `width / elem_bytes`
    /// rows of `height` elements.
    pub transpose: bool,
}

/// The workspace copy of one operand: how it is copied and how the kernel reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RepackedOperand {
    /// The copy, its workspace side as an offset.
    pub copy: Copy2D,
    /// Offset of the copy's first element in the workspace.
    pub offset: u64,
    /// Leading dimension of the copy (elements).
    pub ld: i64,
    /// Elements between the copy's batches (0: broadcast).
    pub batch_stride: i64,
}

/// What one problem repacks: copies of the kernel's A and B into the workspace before the
/// GEMM, and D written to the workspace and copied out to C after it (`None`: in place).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Repack {
    /// `plan.a`, `plan.b` and `plan.d`.
    pub operands: [Option<RepackedOperand>; 3],
    /// Workspace bytes the copies need.
    pub workspace_bytes: u64,
}

impl Repack {
    /// `plan` with each repacked operand read (A, B) or written (D) in a workspace at `base`.
    ///
    /// ```
    /// use ferrocute::gemm::{plan, repack, GemmDesc, Order, MatShape, OperandDesc, Repacking};
    /// let d = |r, c, l, ptr| OperandDesc { shape: MatShape::packed(r, c, l), len: r * c, ptr };
    /// // A and C are 100 x 4096 column-major (ld 100: 200 bytes, not a multiple of 16).
    /// let p = plan(&GemmDesc { a: d(100, 4096, Order::ColMajor, 0x10000),
    ///     b: d(4096, 4096, Order::ColMajor, 0x1000000), c: d(100, 4096, Order::ColMajor, 0x8000000),
    ///     in_bytes: 2, out_bytes: 2 }).unwrap();
    /// let s = repack(&p, Repacking::Auto).unwrap();
    /// assert_eq!(s.repacked(), [true, false, true]);
    /// let q = s.apply(&p, 0x40000000);
    /// // Rows of whole 128-byte lines: D's ld 100 -> 128; A, 100 rows of a few hundred,
    /// // copied transposed (`transposes_a`): K-major, 100 rows of 4096.
    /// assert_eq!((q.a.ptr, q.a.ld, q.a.k_major, q.d.ld), (0x40000000, 4096, true, 128));
    /// assert_eq!(q.d.ptr, 0x40000000 + 4096 * 100 * 2);
    /// assert_eq!((q.b, q.c), (p.b, p.c));
    /// // D goes out to C after the GEMM.
    /// let [_, _, out] = s.copies(0x40000000);
    /// assert_eq!((out.unwrap().src, out.unwrap().dst), (q.d.ptr, p.c.ptr));
    /// ```
    pub fn apply(&self, plan: &Plan, base: u64) -> Plan {
        let mut out = *plan;
        for (o, repacked) in [&mut out.a, &mut out.b, &mut out.d]
            .into_iter()
            .zip(self.operands)
        {
            if let Some(s) = repacked {
                o.ptr = base + s.offset;
                o.ld = s.ld;
                o.batch_stride = s.batch_stride;
                if s.copy.transpose {
                    o.k_major = !o.k_major;
                    o.contiguous_extent = s.copy.height as usize;
                }
            }
        }
        out
    }

    /// The copies with a workspace at `base`: A's and B's (before the GEMM), then D's
    /// (after it).
    pub fn copies(&self, base: u64) -> [Option<Copy2D>; 3] {
        let [a, b, d] = self.operands;
        let into = |s: RepackedOperand| Copy2D {
            dst: base + s.copy.dst,
            ..s.copy
        };
        [
            a.map(into),
            b.map(into),
            d.map(|s| Copy2D {
                src: base + s.copy.src,
                ..s.copy
            }),
        ]
    }

    /// Which of the kernel's A, B and D are repacked.
    pub fn repacked(&self) -> [bool; 3] {
        self.operands.map(|s| s.is_some())
    }

    /// The same repacking with D written in place: `None` when neither A nor B is repacked.
    /// (D comes last in the workspace, so its offset is where the rest ends.)
    pub fn without_d(&self) -> Option<Repack> {
        let [a, b, d] = self.operands;
        (a.is_some() || b.is_some()).then_some(Repack {
            operands: [a, b, None],
            workspace_bytes: d.map_or(self.workspace_bytes, |d| d.offset),
        })
    }
}

/// The workspace copy of one operand (D where `output`) that TMA (A, B) or 16-byte stores
/// (D) cannot use in place, or that `widen` asks for, or `Ok(None)`; `Err(())` where it
/// cannot be repacked (more than [`MAX_COPIES`] batches that one copy cannot take). The
/// workspace side is at offset 0.
fn operand_copy(
    o: &KernelOperand,
    outer: u64,
    batch: u64,
    widen: bool,
    output: bool,
) -> Result<Option<RepackedOperand>, ()> {
    let eb = o.elem_bytes as u64;
    if eb == 0 || 16 % eb != 0 {
        return Err(());
    }
    if !widen && o.fast_aligned((16 / eb) as usize, 1, batch > 1) {
        return Ok(None);
    }
    let (ld, bs) = (o.ld as u64, o.batch_stride as u64);
    let row = ROW_ALIGN / eb;
    let ws_ld = (o.contiguous_extent as u64).div_ceil(row) * row;
    let mut c = Copy2D {
        src: o.ptr,
        src_pitch: ld * eb,
        dst: 0,
        dst_pitch: ws_ld * eb,
        width: o.contiguous_extent as u64 * eb,
        height: outer,
        count: 1,
        src_step: 0,
        dst_step: 0,
        elem_bytes: eb,
        transpose: false,
    };
    let mut ws_bs = if bs == 0 { 0 } else { ws_ld * outer };
    if batch > 1 && bs != 0 {
        // An input's copy may read the rows between batches; D's copy out must not write
        // them (the kernel leaves them unwritten in the workspace, and they are the
        // caller's), so D's batches are one copy only where no rows lie between them.
        let most_gap_rows = if output { 0 } else { outer / (batch - 1) };
        if bs % ld == 0 && (bs / ld).saturating_sub(outer) <= most_gap_rows {
            // One copy over every batch's rows and the few rows between them.
            let rows = bs / ld;
            c.height = (batch - 1) * rows + outer;
            ws_bs = rows * ws_ld;
        } else if batch <= MAX_COPIES {
            c.count = batch;
            c.src_step = bs * eb;
            c.dst_step = ws_ld * outer * eb;
        } else {
            return Err(());
        }
    }
    Ok(Some(RepackedOperand {
        copy: c,
        offset: 0,
        ld: ws_ld as i64,
        batch_stride: ws_bs as i64,
    }))
}

/// The fewest elements of the other operand (B for a narrow A, A for a narrow B) at which
/// copying an operand of 16-byte rows pays for its launch (NOTES.md, "Repacking").
const WIDEN_MIN_ELEMS: u64 = 1 << 23;

/// Whether [`repack`] copies an A or B of `plan` onto 128-byte rows although TMA can read
/// it: an MN-major one of 16-byte rows (one k each), whose TMA box rows share 32-byte
/// sectors pairwise and read far slower than the same operand K-major, where the problem
/// reads at least 8 Mi elements of the other operand, enough to pay for the copy; and
/// either, where M and N are both at least 2048 (`OFF_SECTORS_MIN`), when its rows (of 128
/// bytes or more) start off the 32-byte sectors (a row pitch an odd multiple of 16 bytes:
/// K = 3000 in a row-major A), so that each 128-byte box row spans five sectors: on an H200 3000³ took
/// 1.75x the time of 3008³ in place, 1.37x with both operands copied; rows on the sectors
/// but off the 128-byte lines (K = 2960) lost less in place than the copies cost.
///
/// ```
/// use ferrocute::gemm::{
///     plan, repack, widened_rows, GemmDesc, MatShape, OperandDesc, Order, Repacking,
/// };
/// let d = |r, c, l, ptr| OperandDesc { shape: MatShape::packed(r, c, l), len: r * c, ptr };
/// // x (8 x k) stored column-major: each k a 16-byte row of 8 tokens.
/// let p = |la, n: usize, k: usize| plan(&GemmDesc { a: d(8, k, la, 0x10000),
///     b: d(k, n, Order::RowMajor, 0x1000000), c: d(8, n, Order::ColMajor, 0x8000000),
///     in_bytes: 2, out_bytes: 2 }).unwrap();
/// assert!(widened_rows(&p(Order::ColMajor, 4096, 4096)));
/// assert!(!widened_rows(&p(Order::RowMajor, 4096, 4096)));
/// // A 2 Mi-element weight: the copy would cost more than it saves.
/// assert!(!widened_rows(&p(Order::ColMajor, 2048, 1024)));
/// // Rows of 6000 bytes (K = 3000) off the sectors: copied where M and N are large; rows
/// // of 5920 bytes (K = 2960) on the sectors are not.
/// let q = |m: usize, n: usize, k: usize| plan(&GemmDesc { a: d(m, k, Order::RowMajor, 0x10000),
///     b: d(k, n, Order::ColMajor, 0x100000000), c: d(m, n, Order::ColMajor, 0x800000000),
///     in_bytes: 2, out_bytes: 2 }).unwrap();
/// assert!(widened_rows(&q(3000, 3000, 3000)));
/// assert!(!widened_rows(&q(3000, 3000, 3008)));
/// assert!(!widened_rows(&q(3000, 3000, 2960)));
/// assert!(!widened_rows(&q(256, 3000, 3000))); // few tokens: the weight read once or twice
/// assert!(!widened_rows(&q(2048, 2048, 24))); // rows shorter than a line (a LoRA rank)
/// let s = repack(&q(3000, 3000, 3000), Repacking::Auto).unwrap();
/// assert_eq!(s.repacked(), [true, true, false]);
/// assert_eq!(s.operands[1].unwrap().ld, 3008);
/// let s = repack(&p(Order::ColMajor, 4096, 4096), Repacking::Auto).unwrap();
/// assert_eq!(s.repacked(), [true, false, false]);
/// assert_eq!(s.operands[0].unwrap().ld, 64);
/// ```
pub fn widened_rows(plan: &Plan) -> bool {
    widened(plan).contains(&true)
}

/// The fewest rows M and columns N at which [`widened_rows`] copies an operand whose rows
/// lie off the 32-byte sectors: the copy reads and writes the operand once, the GEMM reads
/// each of its tiles `N / BN` (`M / BM`) times.
const OFF_SECTORS_MIN: i32 = 2048;

/// TMA reads rows starting on multiples of this many bytes at full speed.
const SECTOR: u64 = 32;

/// [`widened_rows`] for A and for B.
fn widened(plan: &Plan) -> [bool; 2] {
    let pitch = |o: &KernelOperand| o.ld as u64 * o.elem_bytes as u64;
    let narrow = |o: &KernelOperand| !o.k_major && pitch(o) == 16;
    let off_sectors = |o: &KernelOperand| {
        plan.m.min(plan.n) >= OFF_SECTORS_MIN
            && pitch(o) >= ROW_ALIGN
            && !pitch(o).is_multiple_of(SECTOR)
    };
    let reads = |other: i32| {
        (other as u64)
            .saturating_mul(plan.k as u64)
            .saturating_mul(plan.batch.max(1) as u64)
    };
    [
        (narrow(&plan.a) && reads(plan.n) >= WIDEN_MIN_ELEMS) || off_sectors(&plan.a),
        (narrow(&plan.b) && reads(plan.m) >= WIDEN_MIN_ELEMS) || off_sectors(&plan.b),
    ]
}

/// The fewest elements of B at which an M-major A of rows on 32-byte sectors is copied
/// transposed ([`transposes_a`]): on smaller weights the copy costs more than it saves.
const TRANSPOSE_MIN_ELEMS: u64 = 1 << 24;

/// Whether [`repack`] copies an M-major A transposed, K-major, into the workspace: 2-byte
/// elements, 16 < m <= 256 (the small-M tiles' rows; fewer take the register-streaming
/// kernel, which reads either majorness alike) against more than 256 columns (the copy is
/// kept only where a small-M tile reads it as its A), and rows (one k
/// each, `ld` elements apart) not whole 128-byte lines, where the box rows that TMA loads
/// cross into a second line, and rows off the 32-byte sectors touch a fifth sector too; the
/// small-M tiles reload A for every tile of N, so that A's reads, not B's, set their pace.
/// Where the rows keep to the sectors the copy pays only on weights of at least 16 Mi
/// elements. The caller copies only where a small-M tile reads A, in place or from the
/// copy (the persistent tiles read either alike).
///
/// ```
/// use ferrocute::gemm::{plan, transposes_a, GemmDesc, MatShape, OperandDesc, Order};
/// let d = |r, c, l, ptr| OperandDesc { shape: MatShape::packed(r, c, l), len: r * c, ptr };
/// let p = |m, la, n: usize| plan(&GemmDesc { a: d(m, 4096, la, 0x10000),
///     b: d(4096, n, Order::ColMajor, 0x1000000), c: d(m, n, Order::ColMajor, 0x8000000),
///     in_bytes: 2, out_bytes: 2 }).unwrap();
/// assert!(transposes_a(&p(160, Order::ColMajor, 4096))); // 320-byte rows
/// assert!(!transposes_a(&p(160, Order::RowMajor, 4096))); // K-major already
/// assert!(!transposes_a(&p(192, Order::ColMajor, 4096))); // 384 bytes: 3 lines
/// assert!(!transposes_a(&p(160, Order::ColMajor, 2048))); // on sectors, 8 Mi of B
/// assert!(transposes_a(&p(136, Order::ColMajor, 2048))); // 272 bytes: off the sectors
/// assert!(!transposes_a(&p(16, Order::ColMajor, 4096))); // the register-streaming rows
/// assert!(!transposes_a(&p(136, Order::ColMajor, 200))); // runs transposed
/// ```
pub fn transposes_a(plan: &Plan) -> bool {
    let a = &plan.a;
    let pitch = a.ld as u64 * a.elem_bytes as u64;
    let b_elems = (plan.n as u64)
        .saturating_mul(plan.k as u64)
        .saturating_mul(plan.batch.max(1) as u64);
    !a.k_major
        && a.elem_bytes == 2
        && (17..=256).contains(&plan.m)
        && plan.n > 256
        && !pitch.is_multiple_of(ROW_ALIGN)
        && (!pitch.is_multiple_of(32) || b_elems >= TRANSPOSE_MIN_ELEMS)
}

/// The transposed workspace copy of an M-major `o` with `k` rows (one k each): K-major, its
/// rows (one m each) on 128-byte lines; `None` with more than [`MAX_COPIES`] batches apart.
fn transposed_copy(o: &KernelOperand, k: u64, batch: u64) -> Option<RepackedOperand> {
    let eb = o.elem_bytes as u64;
    let row = ROW_ALIGN / eb;
    let (m, ws_ld) = (o.contiguous_extent as u64, k.div_ceil(row) * row);
    let batched = batch > 1 && o.batch_stride != 0;
    if batched && batch > MAX_COPIES {
        return None;
    }
    let count = if batched { batch } else { 1 };
    let copy = Copy2D {
        src: o.ptr,
        src_pitch: o.ld as u64 * eb,
        dst: 0,
        dst_pitch: ws_ld * eb,
        width: m * eb,
        height: k,
        count,
        src_step: o.batch_stride as u64 * eb,
        dst_step: ws_ld * m * eb,
        elem_bytes: eb,
        transpose: true,
    };
    Some(RepackedOperand {
        copy,
        offset: 0,
        ld: ws_ld as i64,
        batch_stride: if o.batch_stride == 0 {
            0
        } else {
            (ws_ld * m) as i64
        },
    })
}

/// What to repack for `plan` under `repacking`: `None` when nothing needs it, the policy
/// declines, or an operand cannot be repacked. A and B are repacked where TMA cannot read
/// them (base, leading dimension or batch stride not a multiple of 16 bytes) or reads them
/// slowly ([`widened_rows`]; A transposed where [`transposes_a`]), D where C does not allow
/// 16-byte stores. Whether a TMA kernel then runs is for the dispatcher to say
/// ([`super::dispatch::dispatch_plan`] on [`Repack::apply`]'s plan).
///
/// ```
/// use ferrocute::gemm::{plan, repack, GemmDesc, Order, MatShape, OperandDesc, Repacking};
/// let d = |r, c, l, ptr| OperandDesc { shape: MatShape::packed(r, c, l), len: r * c, ptr };
/// let p = |m: usize, n: usize, k: usize| plan(&GemmDesc { a: d(m, k, Order::RowMajor, 0x10000),
///     b: d(k, n, Order::ColMajor, 0x10000000), c: d(m, n, Order::ColMajor, 0x30000000),
///     in_bytes: 2, out_bytes: 2 }).unwrap();
/// // 4100^3: ld 4100 (8200 bytes) for A, B and C.
/// let s = repack(&p(4100, 4100, 4100), Repacking::Auto).unwrap();
/// assert_eq!(s.repacked(), [true, true, true]);
/// let a = s.operands[0].unwrap();
/// assert_eq!((a.ld, a.copy.dst_pitch, a.copy.height), (4160, 4160 * 2, 4100));
/// assert_eq!(s.operands[1].unwrap().offset, (4100u64 * 4160 * 2).div_ceil(256) * 256);
/// assert_eq!(repack(&p(4100, 4100, 4100), Repacking::Never), None);
/// // Aligned operands need no copy.
/// assert_eq!(repack(&p(4096, 4096, 4096), Repacking::Auto), None);
/// ```
pub fn repack(plan: &Plan, repacking: Repacking) -> Option<Repack> {
    repack_with(plan, repacking, transposes_a(plan))
}

/// [`repack`] without the transposed copy of A ([`transposes_a`]): every copy keeps its
/// operand's majorness.
pub(crate) fn repack_keeping_majors(plan: &Plan, repacking: Repacking) -> Option<Repack> {
    repack_with(plan, repacking, false)
}

/// [`repack`], A copied transposed where `transpose_a`.
fn repack_with(plan: &Plan, repacking: Repacking, transpose_a: bool) -> Option<Repack> {
    if repacking == Repacking::Never || plan.is_noop() || plan.k <= 0 {
        return None;
    }
    // The copy kernel moves 16-bit inputs (the TMA kernels' bf16 and f16).
    if plan.a.elem_bytes != 2 || plan.b.elem_bytes != 2 {
        return None;
    }
    let batch = plan.batch.max(1) as u64;
    let (m, n, k) = (plan.m as u64, plan.n as u64, plan.k as u64);
    let outer = [
        if plan.a.k_major { m } else { k },
        if plan.b.k_major { n } else { k },
        if plan.d_n_major { m } else { n },
    ];
    let [wa, wb] = widened(plan);
    // Past MAX_COPIES batches apart A is not transposed but copied as it is.
    let transposed = transpose_a.then(|| transposed_copy(&plan.a, k, batch));
    // A widened copy that cannot be made (batches too far apart) leaves the operand in
    // place rather than the whole repacking undone.
    let input = |o: &KernelOperand, outer: u64, widen: bool| {
        operand_copy(o, outer, batch, widen, false).or_else(|()| {
            if widen {
                operand_copy(o, outer, batch, false, false)
            } else {
                Err(())
            }
        })
    };
    let a = match transposed.flatten() {
        Some(t) => Some(t),
        None => input(&plan.a, outer[0], wa).ok()?,
    };
    let mut operands = [
        a,
        input(&plan.b, outer[1], wb).ok()?,
        operand_copy(&plan.d, outer[2], batch, false, true).ok()?,
    ];
    if operands.iter().all(Option::is_none) {
        return None;
    }
    let mut bytes = 0u64;
    for (i, s) in operands.iter_mut().enumerate() {
        let Some(s) = s else { continue };
        s.offset = bytes;
        if i < 2 {
            s.copy.dst = bytes;
        } else {
            // D: the kernel writes the workspace, the copy takes it out to C.
            let c = s.copy;
            s.copy = Copy2D {
                src: bytes,
                src_pitch: c.dst_pitch,
                dst: c.src,
                dst_pitch: c.src_pitch,
                src_step: c.dst_step,
                dst_step: c.src_step,
                ..c
            };
        }
        // A transposed copy's rows are its source's columns.
        let rows = if s.copy.transpose {
            s.copy.width / s.copy.elem_bytes
        } else {
            s.copy.height
        };
        let size = (s.ld as u64 * s.copy.elem_bytes)
            .checked_mul(rows)?
            .checked_mul(s.copy.count)?;
        bytes = (bytes.checked_add(size)?).div_ceil(WORKSPACE_ALIGN) * WORKSPACE_ALIGN;
    }
    Some(Repack {
        operands,
        workspace_bytes: bytes,
    })
}

#[cfg(test)]
mod tests;
