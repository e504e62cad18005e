//! Tensors: every layout operation on a tensor, on static and dynamic layouts, against the
//! element each coordinate must reach (computed here from the definition, not the algebra).

use ferrocute_layout::*;

/// Column-major M x N data where element (m, n) holds m + 1000 n.
fn grid(m: usize, n: usize) -> Vec<usize> {
    (0..m * n).map(|i| i % m + 1000 * (i / m)).collect()
}

#[test]
fn local_tile_static_and_dynamic_reach_the_tile() {
    let data = grid(12, 10);
    let st = make_tensor(&data[..], layout!((12,10):(1,12))).unwrap();
    let (m, n) = (12usize, 10usize);
    let dy = make_tensor(&data[..], layout!(({m},{n}):(1,{m}))).unwrap();
    for (ti, tj) in [(0usize, 0usize), (1, 1), (2, 4), (2, 0)] {
        let a = st.local_tile(tuple!((4, 2)), (ti, tj)).unwrap();
        let b = dy.local_tile(tuple!((4, 2)), (ti, tj)).unwrap();
        assert_eq!(a.layout().to_string(), b.layout().to_string());
        assert_eq!(core::mem::size_of_val(a.layout()), 0, "static stays static");
        for r in 0..4 {
            for c in 0..2 {
                let want = (4 * ti + r) + 1000 * (2 * tj + c);
                assert_eq!(
                    (a[(r, c)], b[(r, c)]),
                    (want, want),
                    "tile ({ti},{tj}) at ({r},{c})"
                );
            }
        }
    }
}

#[test]
fn local_partition_gives_each_thread_its_strided_elements() {
    let data = grid(8, 6);
    let st = make_tensor(&data[..], layout!((8,6):(1,8))).unwrap();
    // 4x2 threads, row-major thread numbering (thread t at (t / 2, t % 2)).
    let thr = layout!((4,2):(2,1));
    for t in 0..8 {
        let (tm, tn) = (t / 2, t % 2);
        let part = st.local_partition(thr, t).unwrap();
        let dy = {
            let m = 8;
            make_tensor(&data[..], layout!(({m},6):(1,{m})))
                .unwrap()
                .local_partition(thr, t)
                .unwrap()
        };
        assert_eq!(part.layout().to_string(), "(2,3):(4,16)");
        assert_eq!(dy.layout().to_string(), "(2,3):(4,16)");
        for r in 0..2 {
            for c in 0..3 {
                let want = (tm + 4 * r) + 1000 * (tn + 2 * c);
                assert_eq!(
                    (part[(r, c)], dy[(r, c)]),
                    (want, want),
                    "thread {t} ({r},{c})"
                );
            }
        }
    }
    let e = st.local_partition(thr, 8).unwrap_err();
    assert_eq!(e.condition, Condition::ModeOutOfRange);
}

#[test]
fn slices_and_divides_match_their_definitions() {
    let data = grid(6, 4);
    let t = make_tensor(&data[..], layout!((6,4):(1,6))).unwrap();
    for n in 0..4usize {
        let col = t.slice((Free, n));
        assert_eq!(
            col.iter().copied().collect::<Vec<_>>(),
            (0..6).map(|m| m + 1000 * n).collect::<Vec<_>>()
        );
    }
    for m in 0..6usize {
        let row = t.slice((m, Free));
        assert_eq!(
            row.iter().copied().collect::<Vec<_>>(),
            (0..4).map(|n| m + 1000 * n).collect::<Vec<_>>()
        );
    }
    // zipped_divide: ((tile),(rest)); element ((r,c),(i,j)) is (2i + r, 2j + c).
    let z = t.zipped_divide(tuple!((2, 2)));
    let f = make_tensor(&data[..], layout!((6,4):(1,6)))
        .unwrap()
        .flat_divide(tuple!((2, 2)));
    for (i, j, r, c) in [(0usize, 0usize, 1usize, 1usize), (2, 1, 0, 1), (1, 0, 1, 0)] {
        let want = (2 * i + r) + 1000 * (2 * j + c);
        assert_eq!(z[((r, c), (i, j))], want);
        assert_eq!(f[(r, c, i, j)], want);
    }
}

#[test]
fn mutable_views_write_through() {
    let mut data = vec![0u32; 12];
    let mut t = make_tensor(&mut data[..], layout!((3,4):(4,1))).unwrap();
    t.view_mut()
        .slice((1usize, Free))
        .fill_with(|j| 10 + j as u32);
    t[(2, 3)] = 99;
    assert_eq!(data, [0, 0, 0, 0, 10, 11, 12, 13, 0, 0, 0, 99]);
}

#[test]
fn identity_tensor_tiles_run_past_the_shape() {
    for (m, n, bm, bn) in [
        (10usize, 6usize, 4usize, 4usize),
        (7, 129, 2, 32),
        (1, 1, 8, 8),
    ] {
        let id = make_identity_tensor((m, n)).unwrap();
        for ti in 0..m.div_ceil(bm) {
            for tj in 0..n.div_ceil(bn) {
                let tile = id.local_tile((bm, bn), (ti, tj)).unwrap();
                for r in 0..bm {
                    for c in 0..bn {
                        let want = format!("({},{})", ti * bm + r, tj * bn + c);
                        assert_eq!(tile.coord((r, c)).to_string(), want);
                    }
                }
            }
        }
    }
}

#[test]
fn recast_round_trips_and_rejects_misalignment() {
    let words: Vec<u32> = (0..16).map(|i| i * 0x0101_0101).collect();
    let t = make_tensor(&words[..], layout!((4,4):(1,4))).unwrap();
    let halves = t.recast::<u16>().unwrap();
    assert_eq!(halves.layout().to_string(), "(8,4):(1,8)");
    let back = halves.recast::<u32>().unwrap();
    assert_eq!(back.layout().to_string(), t.layout().to_string());
    assert!((0..16).all(|i| back[i] == t[i]));
    // An odd u16 offset cannot start a u32.
    let bytes = t.recast::<u16>().unwrap().slice((1usize, Free)).unwrap();
    let e = bytes.recast::<u32>().unwrap_err();
    assert_eq!(e.condition, Condition::Misaligned);
}

#[test]
fn copy_checks_sizes() {
    let src = [1u8; 6];
    let mut dst = [0u8; 8];
    let s = make_tensor(&src[..], layout!((2,3):(3,1))).unwrap();
    let mut d = make_tensor(&mut dst[..], layout!(8:1)).unwrap();
    assert_eq!(
        copy(&s, &mut d).unwrap_err().condition,
        Condition::SizeMismatch
    );
    let e = make_tensor(&src[..], layout!((4,2):(1,4))).unwrap_err();
    assert_eq!((e.condition, e.a, e.b), (Condition::EngineTooShort, 8, 6));
}

#[test]
fn tiled_mma_partitions_of_c_cover_every_element_once() {
    use ferrocute_layout::atom::*;
    let mma = make_tiled_mma(SM80_16x8x16_F32BF16BF16F32_TN, layout!((2,2,1):(1,2,0)), ());
    let data: Vec<usize> = (0..64 * 64).collect();
    let mut seen = vec![0u32; 64 * 64];
    for thr in 0..128 {
        let t = make_tensor(&data[..], layout!((64,64):(1,64))).unwrap();
        let mine = t.partition::<_, PartC>(mma, thr);
        assert_eq!(mine.size(), 64 * 64 / 128);
        for &x in mine.iter() {
            seen[x] += 1;
        }
    }
    assert!(
        seen.iter().all(|&n| n == 1),
        "every element of C belongs to exactly one thread"
    );
}

#[test]
fn swizzled_tensors_tile_and_partition_in_place() {
    // A 16x16 tile swizzled as CuTe's shared-memory atoms are: cutting it must address the
    // very elements the whole tensor holds at those coordinates.
    let data: Vec<usize> = (0..16 * 16).collect();
    let sw = composition(Swizzle::<2, 0, 2>, layout!((16,16):(16,1)));
    let whole = make_tensor(&data[..], sw).unwrap();
    for (ti, tj) in [(0usize, 0usize), (1, 2), (3, 3)] {
        let tile = whole.local_tile(tuple!((4, 4)), (ti, tj)).unwrap();
        for r in 0..4 {
            for c in 0..4 {
                assert_eq!(
                    tile[(r, c)],
                    whole[(4 * ti + r, 4 * tj + c)],
                    "tile ({ti},{tj}) ({r},{c})"
                );
            }
        }
    }
    for t in 0..8 {
        let mine = whole.local_partition(layout!((4,2):(2,1)), t).unwrap();
        let (tm, tn) = (t / 2, t % 2);
        for r in 0..4 {
            for c in 0..8 {
                assert_eq!(
                    mine[(r, c)],
                    whole[(tm + 4 * r, tn + 2 * c)],
                    "thread {t} ({r},{c})"
                );
            }
        }
    }
    let row = whole.slice((5usize, Free));
    assert!((0..16).all(|j| row[j] == whole[(5, j)]));
}

#[test]
fn tiled_copy_partitions_of_a_swizzled_tile_match_the_whole() {
    use ferrocute_layout::atom::*;
    let copy = make_tiled_copy(
        CopyAtom::<UniversalCopy<U128>, Bf16>::new(),
        layout!((16,8):(8,1)),
        layout!((1,8):(1,1)),
    );
    let data: Vec<usize> = (0..16 * 64).collect();
    let sw = composition(Swizzle::<3, 3, 3>, layout!((16,64):(64,1)));
    let id = make_tensor(&data[..], layout!((16,64):(1,16))).unwrap();
    let mut seen = vec![0u32; 16 * 64];
    for thr in 0..128 {
        let s = make_tensor(&data[..], sw)
            .unwrap()
            .partition::<_, PartS>(copy, thr);
        let want = id.partition::<_, PartS>(copy, thr);
        assert_eq!(s.size(), want.size());
        for i in 0..s.size() {
            // The element at partition index i is the one the swizzle puts at the
            // unswizzled tile's coordinate of that index.
            let (m, n) = (want[i] % 16, want[i] / 16);
            assert_eq!(s[i], make_tensor(&data[..], sw).unwrap()[(m, n)]);
            seen[s[i]] += 1;
        }
    }
    assert!(seen.iter().all(|&n| n == 1));
}
