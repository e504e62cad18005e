//! Pictures of tiled MMAs and copies, in the spirit of CuTe's `print_latex`: every cell of
//! every operand labelled with the thread and value that hold it, coloured by thread.
//! There is no size limit (a `64x256` GMMA tile gives a large but valid SVG).

use super::tiled_copy_desc::{CopySide, TiledCopyDesc};
use super::tiled_mma_desc::{MmaOperand, TiledMmaDesc};
use crate::error::{Condition, LayoutError};
use crate::print::{grid, svg_doc, tv_cells, Cell};
use std::fmt::Write as _;

/// Space between two grids, in pixels.
const GAP: usize = 20;

/// A grid placed at `(x, y)`: its SVG group, width and height.
fn place(
    x: usize,
    y: usize,
    rows: usize,
    cols: usize,
    cells: &[Option<Cell>],
) -> (String, usize, usize) {
    let (body, w, h) = grid(rows, cols, cells);
    (
        format!("<g transform=\"translate({x},{y})\">\n{body}</g>\n"),
        w,
        h,
    )
}

/// The `rows x cols` transpose of a row-major `cols x rows` grid.
fn transpose(cells: Vec<Option<Cell>>, rows: usize, cols: usize) -> Vec<Option<Cell>> {
    let mut src: Vec<Option<Cell>> = cells;
    let mut out: Vec<Option<Cell>> = (0..rows * cols).map(|_| None).collect();
    for r in 0..rows {
        for c in 0..cols {
            out[r * cols + c] = src[c * rows + r].take();
        }
    }
    out
}

/// A tiled MMA as CuTe's `print_latex` lays it out: C (`M x N`) at the bottom right, A
/// (`M x K`) to its left, B transposed (`K x N`) above it; each cell labelled `T<t>` /
/// `V<v>` with the thread and value holding it, coloured by thread.
///
/// # Errors
/// The error of a thread-value layout CuTe would reject (never for a [`super::TiledMma`],
/// whose layouts rustc has checked).
///
/// ```
/// use ferrocute_layout::atom::*;
/// use ferrocute_layout::layout;
/// let mma = make_tiled_mma(SM80_16x8x16_F32BF16BF16F32_TN, layout!((1,1,1):(0,0,0)), ());
/// let svg = svg_tiled_mma(&mma.desc()).unwrap();
/// assert_eq!(svg.matches("<rect").count(), 16 * 16 + 8 * 16 + 16 * 8);
/// assert!(svg.contains(">T31</text>") && svg.ends_with("</svg>\n"));
/// ```
pub fn svg_tiled_mma(mma: &TiledMmaDesc) -> Result<String, LayoutError> {
    let (m, n, k) = (
        mma.tile_size_mnk(0),
        mma.tile_size_mnk(1),
        mma.tile_size_mnk(2),
    );
    let a = tv_cells("svg_tiled_mma", &mma.layout_tv(MmaOperand::A)?, m, k)?;
    let b = tv_cells("svg_tiled_mma", &mma.layout_tv(MmaOperand::B)?, n, k)?;
    let c = tv_cells("svg_tiled_mma", &mma.layout_tv(MmaOperand::C)?, m, n)?;
    let (_, aw, _) = grid(m, k, &a);
    let (_, _, bh) = grid(k, n, &b);
    let (bx, cy) = (aw + GAP, bh + GAP);
    let (ga, _, _) = place(0, cy, m, k, &a);
    let (gb, bw, _) = place(bx, 0, k, n, &transpose(b, k, n));
    let (gc, cw, ch) = place(bx, cy, m, n, &c);
    let mut body = String::new();
    let _ = write!(body, "{ga}{gb}{gc}");
    let comments = [
        format!("TiledMMA tile (M,N,K) = ({m},{n},{k})"),
        format!("ThrLayoutVMNK: {}", mma.thr_layout_vmnk),
    ];
    Ok(svg_doc(&comments, bx + bw.max(cw), cy + ch, &body))
}

/// A tiled copy's source (left) and destination (right) thread-value layouts over its
/// tile, each cell labelled `T<t>` / `V<v>` and coloured by thread.
///
/// # Errors
/// [`crate::Condition::RankMismatch`] for a tile not of rank 2; otherwise as
/// [`svg_tiled_mma`].
///
/// ```
/// use ferrocute_layout::atom::*;
/// use ferrocute_layout::layout;
/// let copy = make_tiled_copy(CopyAtom::<SM75_U32x4_LDSM_N, Bf16>::new(),
///     layout!((32,1):(1,0)), layout!((1,8):(0,1)));
/// let svg = svg_tiled_copy(&copy.desc()).unwrap();
/// assert_eq!(svg.matches("<rect").count(), 2 * 32 * 8);
/// ```
pub fn svg_tiled_copy(copy: &TiledCopyDesc) -> Result<String, LayoutError> {
    if copy.tiler.is_leaf() || copy.tiler.rank() != 2 {
        let r = copy.tiler.rank();
        return Err(LayoutError::new(
            "svg_tiled_copy",
            Condition::RankMismatch,
            r,
            2,
        ));
    }
    let (m, n) = (copy.tiler.get(0).size(), copy.tiler.get(1).size());
    let s = tv_cells("svg_tiled_copy", &copy.layout_tv(CopySide::S)?, m, n)?;
    let d = tv_cells("svg_tiled_copy", &copy.layout_tv(CopySide::D)?, m, n)?;
    let (gs, sw, sh) = place(0, 0, m, n, &s);
    let (gd, dw, _) = place(sw + GAP, 0, m, n, &d);
    let comments = [
        format!("TiledCopy tile: {}", copy.tiler),
        format!("Layout_TV: {}", copy.layout_tv),
    ];
    Ok(svg_doc(&comments, sw + GAP + dw, sh, &format!("{gs}{gd}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::atom::*;
    use crate::layout;

    #[test]
    fn gmma_64x256_draws_every_cell() {
        let mma = make_tiled_mma(
            SM90_64xNx16_F32BF16BF16_SS::<256>,
            layout!((1,1,1):(0,0,0)),
            (),
        );
        let svg = svg_tiled_mma(&mma.desc()).unwrap();
        assert_eq!(svg.matches("<rect").count(), 64 * 16 + 16 * 256 + 64 * 256);
        // A and B come from shared memory (every thread sees all of them: thread 0 is drawn);
        // each thread holds 128 values of C.
        assert_eq!(svg.matches(">T127</text>").count(), 128);
        assert_eq!(svg.matches(">T0</text>").count(), 64 * 16 + 16 * 256 + 128);
        assert_eq!(svg.matches("<g transform=").count(), 3);
        assert!(svg.contains("<g transform=\"translate(0,"));
    }

    #[test]
    fn copy_draws_source_beside_destination() {
        let copy = make_tiled_copy(
            CopyAtom::<SM75_U32x1_LDSM_N, F16>::new(),
            layout!((32,1):(1,0)),
            layout!((1,2):(0,1)),
        );
        let svg = svg_tiled_copy(&copy.desc()).unwrap();
        assert_eq!(svg.matches("<rect").count(), 2 * 32 * 2);
        // ldmatrix .x1: threads 0-7 give the 8 source rows (the others' addresses are
        // unused: drawn as thread 0-7); every thread holds 2 values of the destination.
        assert_eq!(svg.matches(">T31</text>").count(), 2);
        assert_eq!(svg.matches(">T7</text>").count(), 8 + 2);
        assert!(svg.starts_with("<!-- TiledCopy tile: (32,2) -->"));
    }
}
