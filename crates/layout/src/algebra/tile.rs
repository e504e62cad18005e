//! `tile_to_shape` and `make_layout_tv`.

use super::{
    blocked_product, composition, err, make_layout, pad_rank, product_each, raked_product,
    right_inverse, Res,
};
use crate::error::{Condition, LayoutError};
use crate::tup::Tup;
use crate::value::Value;

/// CuTe's `tile_to_shape(block, shape)`: repeats `block` (column-major over the blocks)
/// until it covers `shape`; a swizzled block stays swizzled.
///
/// @pre `rank(block) <= rank(shape)` and each mode of the block divides the target's.
///
/// ```
/// use ferrocute_layout::{algebra::tile_to_shape, Value, Tup};
/// let atom = Value::layout(Tup::flat(&[8, 8]), Tup::flat(&[8, 1]));
/// let t = tile_to_shape(&atom, &Tup::flat(&[16, 32])).unwrap();
/// assert_eq!(t.to_string(), "((8,2),(8,4)):((8,64),(1,128))");
/// ```
pub const fn tile_to_shape(block: &Value, shape: &Tup) -> Res {
    let r = shape.rank();
    if block.rank() > r {
        return Err(err(
            "tile_to_shape",
            Condition::BlockRankTooLarge,
            block.rank(),
            r,
        ));
    }
    let inner = block.inner();
    let padded = pad_rank(&inner, r);
    let block_shape = product_each(&padded.shape);
    let target = product_each(shape);
    let mut reps = Tup::EMPTY;
    let mut i = 0;
    while i < r {
        let t = target.get(i).value();
        let b = block_shape.get(i).value();
        if b == 0 || !t.is_multiple_of(b) {
            return Err(err("tile_to_shape", Condition::BlockDoesNotDivide, t, b));
        }
        reps.push(&Tup::leaf(t / b));
        i += 1;
    }
    let reps = if shape.is_leaf() { reps.get(0) } else { reps };
    match blocked_product(&padded, &make_layout(&reps)) {
        Ok(v) => Ok(block.with_inner(&v)),
        Err(e) => Err(e.within("tile_to_shape")),
    }
}

/// The thread-value partition of a tile made by `make_layout_tv(thr, val)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LayoutTv {
    /// The tile's shape, `product_each(shape(raked_product(thr, val)))`.
    pub tiler: Tup,
    /// `(thread, value) -> offset in the tile`.
    pub layout: Value,
}

/// CuTe's `make_layout_tv(thr, val)` (as `make_tiled_copy` builds it): threads laid out by
/// `thr`, each owning a `val` block; returns the tile shape and the `(thr,val) -> coord`
/// layout.
///
/// ```
/// use ferrocute_layout::{algebra::make_layout_tv, Value, Tup};
/// let thr = Value::layout(Tup::flat(&[4, 32]), Tup::flat(&[32, 1]));
/// let val = Value::layout(Tup::flat(&[4, 8]), Tup::flat(&[8, 1]));
/// let tv = make_layout_tv(&thr, &val).unwrap();
/// assert_eq!(tv.tiler.to_string(), "(16,256)");
/// assert_eq!(tv.layout.to_string(), "((32,4),(8,4)):((128,4),(16,1))");
/// ```
pub const fn make_layout_tv(thr: &Value, val: &Value) -> Result<LayoutTv, LayoutError> {
    let mn = tri!(raked_product(thr, val));
    let inv = tri!(right_inverse(&mn));
    let tv_shape = Tup::flat(&[thr.size(), val.size()]);
    let layout = match composition(&inv, &make_layout(&tv_shape)) {
        Ok(v) => v,
        Err(e) => return Err(e.within("make_layout_tv")),
    };
    Ok(LayoutTv {
        tiler: product_each(&mn.shape),
        layout,
    })
}

/// `make_layout_tv` as one layout value (the tiler is `product_each` of the tile).
pub const fn make_layout_tv_layout(thr: &Value, val: &Value) -> Res {
    match make_layout_tv(thr, val) {
        Ok(tv) => Ok(tv.layout),
        Err(e) => Err(e),
    }
}

/// `n` free coordinates `(_,_,...)`, or a single `_` for `n == 1` (CuTe's `repeat<n>(_)`).
pub(crate) const fn frees(n: usize) -> Tup {
    if n == 1 {
        return Tup::free();
    }
    let mut t = Tup::EMPTY;
    let mut i = 0;
    while i < n {
        t.push(&Tup::free());
        i += 1;
    }
    t
}

/// CuTe's `local_tile(layout, tiler, coord)` on a layout: the tile at tile coordinate
/// `coord` of `zipped_divide(layout, tiler)`, and the offset where it starts.
///
/// ```
/// use ferrocute_layout::{algebra::{local_tile, make_layout, shape_tiler}, Tup};
/// let m = make_layout(&Tup::flat(&[8, 6]));
/// let (tile, off) = local_tile(&m, &shape_tiler(&Tup::flat(&[4, 3])), &Tup::flat(&[1, 1])).unwrap();
/// assert_eq!((tile.to_string(), off), ("(4,3):(1,8)".to_string(), 4 + 3 * 8));
/// ```
pub const fn local_tile(
    l: &Value,
    tiler: &Value,
    coord: &Tup,
) -> Result<(Value, usize), LayoutError> {
    let z = tri!(super::zipped_divide(l, tiler));
    let c = Tup::pair(&frees(z.mode(0).rank()), coord);
    super::slice_and_offset(&c, &z)
}

/// CuTe's `local_partition(layout, thr, idx)` on a layout: the elements thread `idx` owns
/// when the threads of `thr` (a layout from thread coordinates to thread index) are tiled
/// over `layout`, and the offset of its first element.
///
/// ```
/// use ferrocute_layout::{algebra::{local_partition, make_layout}, Tup};
/// let m = make_layout(&Tup::flat(&[8, 6]));
/// let thr = make_layout(&Tup::flat(&[4, 2]));
/// let (part, off) = local_partition(&m, &thr, 5).unwrap();
/// assert_eq!((part.to_string(), off), ("(2,3):(4,16)".to_string(), 1 + 8));
/// ```
pub const fn local_partition(
    l: &Value,
    thr: &Value,
    idx: usize,
) -> Result<(Value, usize), LayoutError> {
    let tile_shape = super::product_each(&thr.shape);
    let mut i = 0;
    while i < thr.size() && thr.eval(i) != idx {
        i += 1;
    }
    if i == thr.size() {
        return Err(super::err(
            "local_partition",
            Condition::ModeOutOfRange,
            idx,
            thr.size(),
        ));
    }
    let crd = super::idx2crd(i, &tile_shape);
    let z = tri!(super::zipped_divide(l, &super::shape_tiler(&tile_shape)));
    let c = Tup::pair(&crd, &frees(z.mode(1).rank()));
    super::slice_and_offset(&c, &z)
}
