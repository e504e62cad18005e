//! The repacking rules on plans built without a GPU.

use super::*;
use crate::gemm::{plan, GemmDesc, MatShape, OperandDesc, Order};

/// A `m x k` row-major A (K-major, ld `k + pad`), an aligned column-major B and C,
/// each in `batch` matrices, A's `extra` elements apart beyond its rows.
fn problem(m: usize, n: usize, k: usize, pad: usize, batch: usize, extra: usize) -> Plan {
    let mut a = MatShape::packed(m, k, Order::RowMajor);
    a.ld = k + pad;
    a.batch = batch;
    a.batch_stride = a.ld * m + extra;
    let mut b = MatShape::packed(k, n, Order::ColMajor);
    b.ld = k.div_ceil(8) * 8;
    b.batch = batch;
    b.batch_stride = b.ld * n;
    let mut c = MatShape::packed(m, n, Order::ColMajor);
    c.ld = m.div_ceil(8) * 8;
    c.batch = batch;
    c.batch_stride = c.ld * n;
    plan_of(a, b, c, batch)
}

/// Rows off the sectors at 2048 rows and columns: a widened copy that cannot be made (20
/// batches of A with gaps between them) leaves A in place, and B, whose batches lie
/// back to back, is still copied.
#[test]
fn unmade_widened_copy_leaves_the_operand_in_place() {
    let p = problem(2048, 2048, 3000, 0, 20, 8);
    assert!(widened_rows(&p));
    let s = repack(&p, Repacking::Auto).unwrap();
    assert_eq!(s.repacked(), [false, true, false]);
    assert_eq!(s.operands[1].unwrap().ld, 3008);
}

/// The plan of bf16 operands of these shapes in `batch` batches (a zero batch stride:
/// one matrix for all).
fn plan_of(a: MatShape, b: MatShape, c: MatShape, batch: usize) -> Plan {
    let op = |shape: MatShape, ptr| OperandDesc {
        shape,
        len: shape.batch_stride.max(shape.ld * shape.outer_extent()) * batch,
        ptr,
    };
    plan(&GemmDesc {
        a: op(a, 0x1000_0000),
        b: op(b, 0x4000_0000),
        c: op(c, 0x8000_0000),
        in_bytes: 2,
        out_bytes: 2,
    })
    .unwrap()
}

#[test]
fn packed_batches_are_one_copy() {
    let p = problem(1000, 512, 1001, 0, 3, 0);
    let s = repack(&p, Repacking::Auto).unwrap();
    assert_eq!(s.repacked(), [true, false, false]);
    let a = s.operands[0].unwrap();
    assert_eq!((a.copy.count, a.copy.height, a.copy.width), (1, 3000, 2002));
    assert_eq!((a.ld, a.batch_stride), (1024, 1024 * 1000));
    let q = s.apply(&p, 1 << 32);
    assert_eq!((q.a.ld, q.a.batch_stride), (1024, 1024 * 1000));
    assert!(q.a.fast_aligned(8, 1, true) && q.b == p.b && q.d == p.d);
}

#[test]
fn batches_a_few_rows_apart_are_one_copy_with_the_gaps() {
    let p = problem(1000, 512, 1001, 0, 3, 2 * 1001);
    let a = repack(&p, Repacking::Auto).unwrap().operands[0].unwrap();
    assert_eq!((a.copy.count, a.copy.height), (1, 2 * 1002 + 1000));
    assert_eq!(a.batch_stride, 1002 * 1024);
}

#[test]
fn other_batch_strides_copy_each_batch() {
    let p = problem(1000, 512, 1001, 0, 3, 8);
    let s = repack(&p, Repacking::Auto).unwrap();
    let a = s.operands[0].unwrap();
    assert_eq!((a.copy.count, a.copy.height), (3, 1000));
    assert_eq!(
        (a.copy.src_step, a.copy.dst_step),
        ((1001 * 1000 + 8) * 2, 1024 * 1000 * 2)
    );
    assert_eq!(
        s.workspace_bytes,
        (3 * 1024 * 1000 * 2u64).div_ceil(256) * 256
    );
    // Past MAX_COPIES such batches are not repacked.
    assert_eq!(
        repack(&problem(64, 64, 63, 0, 17, 8), Repacking::Auto),
        None
    );
}

#[test]
fn d_is_written_to_the_workspace_and_copied_out() {
    let mut p = problem(1000, 512, 1001, 0, 1, 0);
    p.c.ld = 1001;
    p.d = p.c;
    let s = repack(&p, Repacking::Auto).unwrap();
    assert_eq!(s.repacked(), [true, false, true]);
    let (a, d) = (s.operands[0].unwrap(), s.operands[2].unwrap());
    assert_eq!(d.offset, (1000 * 1024 * 2u64).div_ceil(256) * 256);
    assert_eq!((d.ld, d.copy.src, d.copy.dst), (1024, d.offset, p.c.ptr));
    assert_eq!((d.copy.src_pitch, d.copy.dst_pitch), (1024 * 2, 1001 * 2));
    assert_eq!(a.copy.dst, 0);
    let [ca, cb, cd] = s.copies(1 << 32);
    assert_eq!(
        (ca.unwrap().dst, cb, cd.unwrap().src),
        (1 << 32, None, (1 << 32) + d.offset)
    );
    let q = s.apply(&p, 1 << 32);
    assert_eq!((q.c, q.d.ptr, q.d.ld), (p.c, (1 << 32) + d.offset, 1024));
    let w = s.without_d().unwrap();
    assert_eq!(
        (w.repacked(), w.workspace_bytes),
        ([true, false, false], d.offset)
    );
    assert_eq!(w.apply(&p, 1 << 32).d, p.d);
    // D alone is not repacked without A or B.
    let mut only_d = problem(1000, 512, 1000, 0, 1, 0);
    only_d.c.ld = 1001;
    only_d.d = only_d.c;
    assert_eq!(repack(&only_d, Repacking::Auto).unwrap().without_d(), None);
}

/// D's batches a few whole rows apart go out batch by batch: one copy over the rows
/// between them would write the caller's memory there from workspace rows the kernel
/// never wrote. An input in the same layout is one copy, gaps included.
#[test]
fn d_batches_with_rows_between_them_are_copied_one_by_one() {
    let mut p = problem(1000, 512, 1001, 0, 3, 0);
    p.c.ld = 1001;
    p.c.batch_stride = 1001 * 514;
    p.d = p.c;
    let s = repack(&p, Repacking::Auto).unwrap();
    let (a, d) = (s.operands[0].unwrap(), s.operands[2].unwrap());
    assert_eq!((a.copy.count, a.copy.height), (1, 3000));
    assert_eq!((d.copy.count, d.copy.height), (3, 512));
    assert_eq!(
        (d.copy.src_step, d.copy.dst_step),
        (1024 * 512 * 2, 1001 * 514 * 2)
    );
    assert_eq!(d.batch_stride, 1024 * 512);
    // Without rows between them, one copy.
    p.c.batch_stride = 1001 * 512;
    p.d = p.c;
    let d = repack(&p, Repacking::Auto).unwrap().operands[2].unwrap();
    assert_eq!((d.copy.count, d.copy.height), (1, 3 * 512));
}

/// An N-major D (a transposed plan) lies in m rows of its n columns: the copy out takes
/// m rows, not n (which wrote past C, into the next batch, before this was fixed).
#[test]
fn an_n_major_d_is_copied_by_its_rows() {
    let mut p = problem(1000, 512, 1001, 0, 2, 0);
    p.c.ld = 1001;
    p.c.batch_stride = 1001 * 512 + 8;
    p.d = p.c;
    let t = p.transposed();
    assert!(t.d_n_major && (t.m, t.n) == (512, 1000));
    let d = repack(&t, Repacking::Auto).unwrap().operands[2].unwrap();
    assert_eq!(
        (d.copy.width, d.copy.height, d.copy.count),
        (1000 * 2, 512, 2)
    );
    assert_eq!((d.ld, d.batch_stride), (1024, 1024 * 512));
}

/// An M-major A copied transposed: K-major rows of k on 128-byte lines, one copy per
/// batch (its rows are the source's columns), the workspace sized by them.
#[test]
fn an_m_major_a_is_copied_transposed() {
    let (m, n, k) = (160, 4096, 4100);
    let nn = |batch: usize, a_stride: usize| {
        let mut a = MatShape::packed(m, k, Order::ColMajor);
        (a.batch, a.batch_stride) = (batch, a_stride);
        let mut b = MatShape::packed(k, n, Order::ColMajor);
        b.ld = k.div_ceil(8) * 8;
        (b.batch, b.batch_stride) = (batch, b.ld * n);
        let mut c = MatShape::packed(m, n, Order::ColMajor);
        (c.batch, c.batch_stride) = (batch, m * n);
        plan_of(a, b, c, batch)
    };
    let p = nn(3, m * k);
    assert!(transposes_a(&p));
    let s = repack(&p, Repacking::Auto).unwrap();
    assert_eq!(s.repacked(), [true, false, false]);
    let a = s.operands[0].unwrap();
    let c = a.copy;
    assert!(c.transpose);
    assert_eq!((c.width, c.height, c.count), (m as u64 * 2, k as u64, 3));
    assert_eq!((c.src_pitch, c.dst_pitch), (m as u64 * 2, 4160 * 2));
    assert_eq!(
        (c.src_step, c.dst_step),
        ((m * k) as u64 * 2, 4160 * m as u64 * 2)
    );
    assert_eq!((a.ld, a.batch_stride), (4160, 4160 * m as i64));
    assert_eq!(
        s.workspace_bytes,
        (3 * 4160 * m as u64 * 2).div_ceil(256) * 256
    );
    let q = s.apply(&p, 1 << 32);
    assert!(q.a.k_major && q.a.contiguous_extent == k && q.a.ld == 4160);
    assert_eq!(q.a.ptr, 1 << 32);
    assert!(q.b == p.b && q.d == p.d);
    // A broadcast A is one copy, read by every batch.
    let a = repack(&nn(3, 0), Repacking::Auto).unwrap().operands[0].unwrap();
    assert_eq!((a.copy.count, a.batch_stride), (1, 0));
    assert_eq!(repack(&p, Repacking::Never), None);
}
