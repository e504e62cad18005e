//! A walk through the layouts of the CuTe tutorials, printed the way CuTe prints them.
//!
//! Run with `cargo run --example layouts`; writes `target/layouts_tv.svg`.

use ferrocute::{
    composition, cosize, layout, logical_divide, logical_product, make_layout, make_layout_right,
    make_layout_tv, print_layout, size, slice, slice_and_offset, svg_layout_tv, tile_to_shape,
    tuple, write_svg, zipped_divide, LayoutLike, Swizzle,
};
use std::path::Path;

/// CuTe's `print(name: layout)`.
fn show(name: &str, l: &impl std::fmt::Display) {
    println!("{name}: {l}");
}

/// Whether the tags of an SVG/XML text nest properly (comments and `<x/>` skipped).
fn tags_balance(xml: &str) -> bool {
    let mut open = Vec::new();
    for tag in xml.split('<').skip(1).filter_map(|t| t.split_once('>')) {
        let tag = tag.0;
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

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("== Layouts: shape:stride ==");
    let col = make_layout(tuple!((4, 3)));
    let row = make_layout_right(tuple!((4, 3)));
    let nested = layout!(((2,2),3):((1,4),8));
    show("col-major 4x3", &col);
    show("row-major 4x3", &row);
    show("nested", &nested);
    println!(
        "size(nested) = {}, cosize(nested) = {}",
        size(&nested),
        cosize(&nested)
    );
    println!(
        "nested(1,2) = {}, nested((1,1),2) = {}",
        nested.at((1, 2)),
        nested.at(((1, 1), 2))
    );
    print!("{}", print_layout(&col)?);
    print!("{}", print_layout(&row)?);
    print!("{}", print_layout(&nested)?);

    println!("\n== Slicing ==");
    show("col(_,1)", &slice(tuple!((_, 1)), col));
    show("row(2,_)", &slice(tuple!((2, _)), row));
    let (s, off) = slice_and_offset(tuple!((_, 2)), col);
    println!("slice_and_offset((_,2), col) = ({s}, {off})");

    println!("\n== Tiling: zipped_divide of a 2048x2048 row-major tensor by (1,4) ==");
    let m = layout!((2048,2048):(2048,1));
    let tiled = zipped_divide(m, tuple!((1, 4)));
    show("gA", &tiled);
    let (tile, off) = slice_and_offset(tuple!((_, (3, 5))), tiled);
    println!("gA[(_,(3,5))] = {tile} at offset {off}");

    println!("\n== Thread-value layout ==");
    let (tiler, tv) = make_layout_tv(layout!((4,32):(32,1)), layout!((4,8):(8,1)));
    show("tiler_mn", &tiler);
    show("tv_layout", &tv);
    println!(
        "threads = {}, values per thread = {}",
        tv.shape().get(0).size(),
        tv.shape().get(1).size()
    );
    let n_thr = tv.shape().get(0).size();
    for (t, v) in [(0, 0), (0, 1), (1, 0), (32, 0)] {
        let o = tv.call(t + v * n_thr);
        println!("(T{t},V{v}) -> offset {o} = (m,n) ({},{})", o % 16, o / 16);
    }

    println!("\n== Swizzled 128x64 bf16 shared memory (128 B rows: Swizzle<3,3,3> on elements) ==");
    let atom = composition(Swizzle::<3, 3, 3>, layout!((8,64):(64,1)));
    show("atom", &atom);
    show("sA", &tile_to_shape(atom, tuple!((128, 64))));
    // The same XOR pattern seen per 16-byte chunk (8 bf16): chunk c of row r lands at r ^ c.
    print!(
        "{}",
        print_layout(&composition(Swizzle::<3, 0, 3>, layout!((8,8):(8,1))))?
    );

    println!("\n== Composition, logical_divide, logical_product ==");
    show(
        "(6,2):(8,2) o (4,3):(3,1)",
        &composition(layout!((6,2):(8,2)), layout!((4,3):(3,1))),
    );
    show(
        "(12,(4,8)):(59,(13,1)) o (3,8)",
        &composition(layout!((12,(4,8)):(59,(13,1))), tuple!((3, 8))),
    );
    show(
        "logical_divide((4,2,3):(2,1,8), 4:2)",
        &logical_divide(layout!((4,2,3):(2,1,8)), layout!(4:2)),
    );
    show(
        "logical_divide((8,6):(1,8), (2,3))",
        &logical_divide(layout!((8,6):(1,8)), tuple!((2, 3))),
    );
    show(
        "logical_product((2,2):(4,1), 6:1)",
        &logical_product(layout!((2,2):(4,1)), layout!(6:1)),
    );

    println!("\n== SVG ==");
    let svg = svg_layout_tv(&tiler, &tv)?;
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/layouts_tv.svg");
    write_svg(&path, &svg)?;
    let cells = svg.matches("<rect").count();
    assert!(tags_balance(&svg), "unbalanced SVG tags");
    assert_eq!(cells, 16 * 256);
    println!(
        "wrote {} ({} bytes, {cells} cells, tags balanced)",
        path.display(),
        svg.len()
    );
    Ok(())
}
