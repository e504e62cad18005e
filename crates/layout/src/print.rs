//! Pictures of layouts: CuTe's `print_layout` table and SVG drawings in the style of CuTe's
//! `print_svg`.
//!
//! Every function takes a rank-2 layout (rows = mode 0, columns = mode 1) and returns
//! `Err(LayoutError)` with [`Condition::RankMismatch`] (`a` = the rank found, `b` = 2) for
//! any other rank, rather than panicking.

use crate::error::{Condition, LayoutError};
use crate::operand::layout_like::LayoutLike;
use crate::tup::Tup;
use crate::value::Value;
use std::fmt::Write as _;
use std::path::Path;

/// Side of a square SVG cell, in pixels (CuTe's `cell_size`).
const CELL: usize = 20;

/// CuTe's `SVGColor_TV` palette: pastel colours, indexed modulo 8.
const PALETTE: [&str; 8] = [
    "175,175,255",
    "175,255,175",
    "255,255,175",
    "255,175,175",
    "210,210,255",
    "210,255,210",
    "255,255,210",
    "255,210,210",
];

/// The layout's value and its two mode sizes, or the rank error for `op`.
fn rank2(op: &'static str, l: &impl LayoutLike) -> Result<(Value, usize, usize), LayoutError> {
    let v = l.value();
    if v.rank() != 2 {
        return Err(LayoutError::new(op, Condition::RankMismatch, v.rank(), 2));
    }
    Ok((v, v.mode(0).size(), v.mode(1).size()))
}

/// The offset at `(m, n)` of a rank-2 layout whose mode 0 has `rows` coordinates.
fn offset(v: &Value, rows: usize, m: usize, n: usize) -> usize {
    v.eval(m + n * rows)
}

/// CuTe's `print_layout`: the rank-2 layout as a table of offsets, rows indexed by mode 0
/// and columns by mode 1, preceded by the layout itself. The text is what CuTe prints, but
/// for the header line, which is ferrocute's `Display` (CuTe writes static integers as `_4`).
/// A swizzle, if any, is applied to each cell.
///
/// # Errors
/// [`Condition::RankMismatch`] when the layout's rank is not 2.
///
/// ```
/// use ferrocute_layout::{layout, print_layout};
/// let table = print_layout(&layout!((2,3):(3,1))).unwrap();
/// let expected = concat!(
///     "(2,3):(3,1)\n",
///     "      0   1   2 \n",
///     "    +---+---+---+\n",
///     " 0  | 0 | 1 | 2 |\n",
///     "    +---+---+---+\n",
///     " 1  | 3 | 4 | 5 |\n",
///     "    +---+---+---+\n",
/// );
/// assert_eq!(table, expected);
/// assert!(print_layout(&layout!(8:1)).is_err());
/// ```
pub fn print_layout<L: LayoutLike>(l: &L) -> Result<String, LayoutError> {
    let (v, rows, cols) = rank2("print_layout", l)?;
    let max = (0..rows * cols).map(|i| v.eval(i)).max().unwrap_or(0);
    // CuTe: idx_width = num_digits(cosize) + 2; for strides >= 0, cosize == max + 1.
    let w = (max + 1).to_string().len() + 2;
    let rule = format!("    {}+\n", format!("+{}", "-".repeat(w)).repeat(cols));
    let mut s = format!("{}\n    ", v);
    for n in 0..cols {
        let _ = write!(s, "  {:>1$} ", n, w - 2);
    }
    s.push('\n');
    for m in 0..rows {
        s.push_str(&rule);
        let _ = write!(s, "{m:2}  ");
        for n in 0..cols {
            let _ = write!(s, "| {:>1$} ", offset(&v, rows, m, n), w - 2);
        }
        s.push_str("|\n");
    }
    s.push_str(&rule);
    Ok(s)
}

/// One filled cell of a grid: its colour and one or two text lines.
pub(crate) struct Cell {
    pub(crate) fill: &'static str,
    pub(crate) labels: Vec<String>,
}

/// The SVG elements of a grid of `rows x cols` cells (row-major in `cells`; `None` is left
/// blank) with row indices on the left and column indices on top, drawn from the origin;
/// returns them with the grid's width and height.
pub(crate) fn grid(rows: usize, cols: usize, cells: &[Option<Cell>]) -> (String, usize, usize) {
    let longest = cells.iter().flatten().flat_map(|c| &c.labels);
    let chars = longest.map(String::len).max().unwrap_or(1);
    // Cells widen for long labels (font-size 8 is about 5 px a character).
    let cw = CELL.max(5 * chars + 6);
    let (width, height) = ((cols + 1) * cw + CELL, (rows + 2) * CELL);
    let mut s = String::new();
    let text = |s: &mut String, x: usize, y: usize, size: usize, t: &str| {
        let _ = writeln!(
            s,
            "<text x=\"{x}\" y=\"{y}\" text-anchor=\"middle\" \
             dominant-baseline=\"central\" font-size=\"{size}\">{t}</text>"
        );
    };
    for r in 0..rows {
        text(
            &mut s,
            CELL / 2,
            (r + 1) * CELL + CELL / 2,
            12,
            &r.to_string(),
        );
    }
    for c in 0..cols {
        text(&mut s, CELL + c * cw + cw / 2, CELL / 2, 12, &c.to_string());
    }
    for (i, cell) in cells.iter().enumerate() {
        let Some(cell) = cell else { continue };
        let (x, y) = (CELL + (i % cols) * cw, (i / cols + 1) * CELL);
        let _ = writeln!(
            s,
            "<rect x=\"{x}\" y=\"{y}\" width=\"{cw}\" height=\"{CELL}\" \
             fill=\"rgb({})\" stroke=\"black\"/>",
            cell.fill
        );
        let k = cell.labels.len();
        for (j, label) in cell.labels.iter().enumerate() {
            // One label centred; two at a quarter and three quarters of the height.
            text(
                &mut s,
                x + cw / 2,
                y + (2 * j + 1) * CELL / (2 * k),
                8,
                label,
            );
        }
    }
    (s, width, height)
}

/// An SVG document of `width x height` holding `body`, after `comments`.
pub(crate) fn svg_doc(comments: &[String], width: usize, height: usize, body: &str) -> String {
    let mut s = String::new();
    for c in comments {
        let _ = writeln!(s, "<!-- {c} -->");
    }
    let _ = writeln!(
        s,
        "<svg width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" \
         xmlns=\"http://www.w3.org/2000/svg\" font-family=\"monospace\">"
    );
    s.push_str(body);
    s.push_str("</svg>\n");
    s
}

/// An SVG document of one grid (see [`grid`]).
fn svg_grid(comments: &[String], rows: usize, cols: usize, cells: &[Option<Cell>]) -> String {
    let (body, width, height) = grid(rows, cols, cells);
    svg_doc(comments, width, height, &body)
}

/// The cells of an `m x n` tile (row-major) owned by the `(t, v)` of `tv`, which maps to
/// column-major offsets of the tile; each labelled `T<t>`/`V<v>` and coloured by thread.
/// A cell owned by several `(t, v)` shows the first in `v`-major order.
pub(crate) fn tv_cells(
    op: &'static str,
    tv: &Value,
    m: usize,
    n: usize,
) -> Result<Vec<Option<Cell>>, LayoutError> {
    if tv.rank() != 2 {
        return Err(LayoutError::new(op, Condition::RankMismatch, tv.rank(), 2));
    }
    let (threads, values) = (tv.mode(0).size(), tv.mode(1).size());
    let mut cells: Vec<Option<Cell>> = (0..m * n).map(|_| None).collect();
    for val in 0..values {
        for t in 0..threads {
            let off = offset(tv, threads, t, val);
            if off >= m * n {
                return Err(LayoutError::new(
                    op,
                    Condition::CoordinateMismatch,
                    off,
                    m * n,
                ));
            }
            // `off` is column-major over (M,N); `cells` is row-major.
            let slot = &mut cells[(off % m) * n + off / m];
            if slot.is_none() {
                *slot = Some(Cell {
                    fill: PALETTE[t % PALETTE.len()],
                    labels: vec![format!("T{t}"), format!("V{val}")],
                });
            }
        }
    }
    Ok(cells)
}

/// An SVG picture of a rank-2 layout: one cell per coordinate `(m, n)` (row `m`, column
/// `n`), labelled with its offset and coloured by the offset modulo 8, so that cells with
/// the same offset share a colour.
///
/// # Errors
/// [`Condition::RankMismatch`] when the layout's rank is not 2.
///
/// ```
/// use ferrocute_layout::{layout, svg_layout};
/// let svg = svg_layout(&layout!((4,3):(1,4))).unwrap();
/// assert!(svg.starts_with("<!-- (4,3):(1,4) -->\n<svg "));
/// assert_eq!(svg.matches("<rect").count(), 12);
/// assert!(svg.contains(">11</text>"));
/// assert!(svg.ends_with("</svg>\n"));
/// ```
pub fn svg_layout<L: LayoutLike>(l: &L) -> Result<String, LayoutError> {
    let (v, rows, cols) = rank2("svg_layout", l)?;
    let cells: Vec<Option<Cell>> = (0..rows * cols)
        .map(|i| {
            let off = offset(&v, rows, i / cols, i % cols);
            Some(Cell {
                fill: PALETTE[off % PALETTE.len()],
                labels: vec![off.to_string()],
            })
        })
        .collect();
    Ok(svg_grid(&[v.to_string()], rows, cols, &cells))
}

/// An SVG picture of a thread-value layout from [`crate::make_layout_tv`]: the tile
/// `tiler = (M,N)`, each cell labelled `T<t>` / `V<v>` with the thread and value that own it
/// and coloured by thread (CuTe's `SVGColor_TV`).
///
/// `tv` maps `(t, v)` to an offset in the tile, which is column-major over `(M,N)`:
/// `m = offset % M`, `n = offset / M`. A cell owned by several `(t, v)` shows the first
/// (CuTe draws the first too).
///
/// # Errors
/// [`Condition::RankMismatch`] when `tiler` or `tv` is not of rank 2;
/// [`Condition::CoordinateMismatch`] (`a` = offset, `b` = `M*N`) when `tv` maps outside
/// the tile.
///
/// ```
/// use ferrocute_layout::{layout, make_layout_tv, svg_layout_tv};
/// let (tiler, tv) = make_layout_tv(layout!((2,2):(2,1)), layout!((1,2):(2,1)));
/// assert_eq!(tiler.to_string(), "(2,4)");
/// let svg = svg_layout_tv(&tiler, &tv).unwrap();
/// assert_eq!(svg.matches("<rect").count(), 8);
/// assert!(svg.contains(">T3</text>") && svg.contains(">V1</text>"));
/// ```
pub fn svg_layout_tv(tiler: &Tup, tv: &impl LayoutLike) -> Result<String, LayoutError> {
    const OP: &str = "svg_layout_tv";
    if tiler.rank() != 2 {
        return Err(LayoutError::new(
            OP,
            Condition::RankMismatch,
            tiler.rank(),
            2,
        ));
    }
    let (m, n) = (tiler.get(0).size(), tiler.get(1).size());
    let (v, _, _) = rank2(OP, tv)?;
    let cells = tv_cells(OP, &v, m, n)?;
    let comments = [format!("Tile: {tiler}"), format!("  TV: {v}")];
    Ok(svg_grid(&comments, m, n, &cells))
}

/// Writes `svg` to `path`, creating the parent directories.
///
/// ```
/// use ferrocute_layout::{layout, svg_layout, write_svg};
/// let path = std::env::temp_dir().join("ferrocute-doc").join("l.svg");
/// write_svg(&path, &svg_layout(&layout!((2,2):(1,2))).unwrap()).unwrap();
/// assert!(std::fs::read_to_string(&path).unwrap().contains("<svg "));
/// ```
pub fn write_svg(path: impl AsRef<Path>, svg: &str) -> std::io::Result<()> {
    let path = path.as_ref();
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, svg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{composition, layout, make_layout_tv, Swizzle};

    /// Tag names of `svg` balance (comments and self-closing tags skipped).
    fn balanced(svg: &str) -> bool {
        let mut open = Vec::new();
        for tag in svg
            .split('<')
            .skip(1)
            .filter_map(|t| t.split_once('>'))
            .map(|t| t.0)
        {
            if tag.starts_with("!--") || tag.ends_with('/') {
                continue;
            }
            let name = tag.split_whitespace().next().unwrap_or("");
            match name.strip_prefix('/') {
                Some(close) if open.pop() != Some(close) => return false,
                Some(_) => {}
                None => open.push(name),
            }
        }
        open.is_empty()
    }

    #[test]
    fn table_matches_cute() {
        let expected = concat!(
            "(4,3):(1,4)\n",
            "       0    1    2 \n",
            "    +----+----+----+\n",
            " 0  |  0 |  4 |  8 |\n",
            "    +----+----+----+\n",
            " 1  |  1 |  5 |  9 |\n",
            "    +----+----+----+\n",
            " 2  |  2 |  6 | 10 |\n",
            "    +----+----+----+\n",
            " 3  |  3 |  7 | 11 |\n",
            "    +----+----+----+\n",
        );
        assert_eq!(print_layout(&layout!((4,3):(1,4))).unwrap(), expected);
    }

    #[test]
    fn table_of_nested_and_swizzled_layouts() {
        let t = print_layout(&layout!(((2,2),3):((1,4),8))).unwrap();
        assert!(t.contains("\n 2  |  4 | 12 | 20 |\n"), "{t}");
        let sw = composition(Swizzle::<1, 0, 1>, layout!((2,2):(1,2)));
        // Sw<1,0,1> maps 2 -> 3 and 3 -> 2.
        let t = print_layout(&sw).unwrap();
        assert!(t.contains("\n 0  | 0 | 3 |\n"), "{t}");
        assert!(t.contains("\n 1  | 1 | 2 |\n"), "{t}");
    }

    #[test]
    fn rank_errors() {
        let e = print_layout(&layout!((2,2,2):(1,2,4))).unwrap_err();
        assert_eq!((e.condition, e.a, e.b), (Condition::RankMismatch, 3, 2));
        assert!(svg_layout(&layout!(4:1)).is_err());
        let tiler = Tup::flat(&[4]);
        assert!(svg_layout_tv(&tiler, &layout!((2,2):(1,2))).is_err());
    }

    #[test]
    fn svg_has_one_labelled_cell_per_coordinate() {
        let svg = svg_layout(&layout!((4,3):(3,1))).unwrap();
        assert!(balanced(&svg));
        assert_eq!(svg.matches("<rect").count(), 12);
        for off in 0..12 {
            let cell = format!("font-size=\"8\">{off}</text>");
            assert_eq!(svg.matches(&cell).count(), 1, "offset {off}");
        }
        // Offset 9 is at row 3, column 0: colour PALETTE[1].
        assert!(svg.contains(
            "<rect x=\"20\" y=\"80\" width=\"20\" height=\"20\" fill=\"rgb(175,255,175)\""
        ));
    }

    #[test]
    fn tv_svg_labels_every_cell() {
        let (tiler, tv) = make_layout_tv(layout!((4,32):(32,1)), layout!((4,8):(8,1)));
        let svg = svg_layout_tv(&tiler, &tv).unwrap();
        assert!(balanced(&svg));
        assert_eq!(svg.matches("<rect").count(), 16 * 256);
        assert_eq!(svg.matches(">T127</text>").count(), 32);
        assert_eq!(svg.matches(">V31</text>").count(), 128);
        // Thread 1 owns row 0, columns 8..16: its first value sits at column 8.
        assert!(svg.contains("<text x=\"241\" y=\"25\" text-anchor=\"middle\" dominant-baseline=\"central\" font-size=\"8\">T1</text>"), "{}", &svg[..600]);
    }

    #[test]
    fn write_creates_directories() {
        let dir = std::env::temp_dir().join(format!("ferrocute-print-{}", std::process::id()));
        let path = dir.join("a/b.svg");
        write_svg(&path, "<svg></svg>\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "<svg></svg>\n");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
