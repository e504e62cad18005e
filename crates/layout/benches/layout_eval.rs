//! Zero cost: indexing a static layout with run-time coordinates against the same index
//! arithmetic written by hand. Prints ns per index and the ratio (1.00 = same speed).
//!
//! `cargo bench --bench layout_eval`

use ferrocute_layout::{
    composition, layout, make_tensor, tile_to_shape, tuple, Free, LayoutLike, Swizzle,
};
use std::hint::black_box;
use std::time::Instant;

const N: usize = 1 << 24;

fn time(f: impl Fn(usize) -> usize) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..5 {
        let t = Instant::now();
        let mut acc = 0usize;
        for i in 0..N {
            acc = acc.wrapping_add(f(black_box(i)));
        }
        black_box(acc);
        best = best.min(t.elapsed().as_secs_f64() * 1e9 / N as f64);
    }
    best
}

fn report(name: &str, ours: f64, hand: f64) {
    println!(
        "{name:<44} layout {ours:6.3} ns   hand-written {hand:6.3} ns   ratio {:.2}",
        ours / hand
    );
}

fn main() {
    println!("static layouts indexed at run-time coordinates, {N} indices, best of 5");
    // Row-major 128x64 tile at a 2-D coordinate.
    let rm = layout!((128,64):(64,1));
    report(
        "(128,64):(64,1) at (m,n)",
        time(|i| rm.at((i & 127, (i >> 7) & 63))),
        time(|i| (i & 127) * 64 + ((i >> 7) & 63)),
    );
    // A hierarchical layout at a 1-D index.
    let h = layout!(((8,16),(64,1)):((64,512),(1,0)));
    report(
        "((8,16),(64,1)):((64,512),(1,0)) at i",
        time(|i| h.call(i & 8191)),
        time(|i| {
            let i = i & 8191;
            (i % 8) * 64 + ((i / 8) % 16) * 512 + (i / 128) % 64
        }),
    );
    // The swizzled 128x64 bf16 shared-memory tile.
    let sw = tile_to_shape(
        composition(Swizzle::<3, 3, 3>, layout!((8,64):(64,1))),
        tuple!((128, 64)),
    );
    report(
        "Sw<3,3,3> o ((8,16),(64,1)):((64,512),(1,0))",
        time(|i| sw.call(i & 8191)),
        time(|i| {
            let i = i & 8191;
            let o = (i % 8) * 64 + ((i / 8) % 16) * 512 + (i / 128) % 64;
            o ^ ((o & (7 << 6)) >> 3)
        }),
    );

    println!(
        "tensors over static layouts, read at run-time coordinates (slice bounds checks in both)"
    );
    let data: Vec<usize> = (0..128 * 64).collect();
    let t = make_tensor(data.as_slice(), layout!((128,64):(64,1))).unwrap();
    // A tensor keeps the offset of its first element; so does the hand-written view.
    let off = black_box(t.offset());
    report(
        "Tensor (128,64):(64,1) [(m,n)]",
        time(|i| t[(i & 127, (i >> 7) & 63)]),
        time(|i| data[off + (i & 127) * 64 + ((i >> 7) & 63)]),
    );
    // A row picked at run time, then a 16-wide tile of it: the layouts stay static.
    report(
        "row m of it, tile 2 of 16 columns [j]",
        time(|i| {
            let row = t.slice((i & 127, Free));
            let tile = row.local_tile(tuple!(16), 2usize).unwrap();
            tile[i & 15]
        }),
        time(|i| data[off + (i & 127) * 64 + 32 + (i & 15)]),
    );
}
