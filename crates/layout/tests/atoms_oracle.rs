//! Conformance of atoms, TiledMMA and TiledCopy with CuTe C++: every case of
//! tests/oracle/atoms_corpus.txt (printed by CuTe itself, see tests/oracle/gen_atoms.py) is
//! rebuilt through ferrocute's types (tests/oracle/atoms_cases.rs, generated from the same
//! case list) and compared key by key: printed form, every evaluation (or their hash past
//! 1024 values), each partition's offset, and each rendered C++ type (which the generator
//! has checked to be the type CuTe builds). Every static partition is also recomputed at
//! run time through the description and must agree.

use ferrocute_layout::atom::*;
use ferrocute_layout::{
    algebra, composition, layout, Free, LayoutLike, Operand, Swizzle, Tup, Value, C,
};
use std::collections::BTreeMap;

/// Builds one case and records what it prints.
pub type Build = fn(&mut Rec);

/// What a case printed: `key -> (value, evals)`, per case.
#[derive(Default)]
pub struct Rec {
    got: BTreeMap<String, (String, String)>,
}

/// Evaluations `f(i)`, `i < n`, as the corpus writes them.
fn evals_n(n: usize, f: impl Fn(usize) -> usize) -> String {
    if n <= 1024 {
        let e: Vec<String> = (0..n).map(|i| f(i).to_string()).collect();
        return e.join(" ");
    }
    let mut h: u64 = 14695981039346656037;
    for i in 0..n {
        h ^= f(i) as u64;
        h = h.wrapping_mul(1099511628211);
    }
    format!("h:{h:016x}")
}

/// CuTe's evaluations of a layout.
fn evals(v: &Value) -> String {
    evals_n(v.size(), |i| v.eval(i))
}

impl Rec {
    fn put(&mut self, key: &str, value: String, ev: String) {
        assert!(
            self.got.insert(key.to_string(), (value, ev)).is_none(),
            "duplicate key {key}"
        );
    }
    fn lay(&mut self, key: &str, v: &Value) {
        self.put(key, v.to_string(), evals(v));
    }
    fn tup(&mut self, key: &str, t: &Tup) {
        self.put(key, t.to_string(), String::new());
    }
    fn text(&mut self, key: &str, s: String) {
        self.put(key, s, String::new());
    }
    /// A static partition, checked against the same partition computed at run time.
    #[allow(clippy::too_many_arguments)]
    fn part<L: LayoutLike, In: Operand>(
        &mut self,
        key: &str,
        got: (L, usize),
        desc: Desc,
        part: Part,
        input: In,
        thr: usize,
    ) {
        let (l, off) = got;
        let v = l.value();
        let (dv, doff) = desc
            .partition(part, &input.value(), thr)
            .expect("run-time partition");
        assert_eq!(
            (dv, doff),
            (v, off),
            "{key}: static and run-time partitions differ"
        );
        if v.composed {
            // Compared by mode sizes and addresses: CuTe may decay the swizzle into strides
            // (splitting modes).
            let (inner, sw) = (v.inner(), v.swizzle);
            let addr = evals_n(v.size(), |i| sw.apply(v.offset + off + inner.eval(i)));
            self.put(key, algebra::product_each(&v.shape).to_string(), addr);
        } else {
            self.put(key, format!("{v} @ {off}"), evals(&v));
        }
    }
}

fn mma_atom<A: MmaAtom>(r: &mut Rec) {
    r.tup("shape_mnk", &A::SHAPE_MNK);
    r.lay("thr_id", &A::THR_ID);
    r.lay("layout_a_tv", &A::LAYOUT_A_TV);
    r.lay("layout_b_tv", &A::LAYOUT_B_TV);
    r.lay("layout_c_tv", &A::LAYOUT_C_TV);
    r.text("cpp", A::cpp_type());
}

fn copy_atom<Op: CopyOp, T: Element>(r: &mut Rec, render: bool) {
    type A<Op, T> = CopyAtom<Op, T>;
    r.lay("thr_id", &A::<Op, T>::THR_ID);
    r.lay("bits_src", &Op::SRC_LAYOUT);
    r.lay("vals_src", &A::<Op, T>::VAL_LAYOUT_SRC);
    r.lay("bits_dst", &Op::DST_LAYOUT);
    r.lay("vals_dst", &A::<Op, T>::VAL_LAYOUT_DST);
    r.lay("bits_ref", &Op::REF_LAYOUT);
    r.lay("vals_ref", &A::<Op, T>::VAL_LAYOUT_REF);
    if render {
        r.text("cpp", A::<Op, T>::cpp_type());
    }
}

fn tiled_mma<Atom: MmaAtom, L, P>(r: &mut Rec, m: &TiledMma<Atom, L, P>)
where
    L: Operand<Kind = ferrocute_layout::Static>,
    P: Operand<Kind = ferrocute_layout::Static>,
{
    r.lay("thr_vmnk", &TiledMma::<Atom, L, P>::THR_LAYOUT_VMNK);
    r.tup("tile_mnk", &m.tile_size_mnk());
    r.lay("layout_a_tv", &m.layout_a_tv().value());
    r.lay("layout_b_tv", &m.layout_b_tv().value());
    r.lay("layout_c_tv", &m.layout_c_tv().value());
    r.text("cpp", m.cpp_type());
    assert!(svg_tiled_mma(&m.desc()).is_ok());
}

fn tiled_copy<Op: CopyOp, T: Element, S: TvSource>(
    r: &mut Rec,
    c: &TiledCopy<Op, T, S>,
    render: bool,
) {
    r.lay("tiled_tv", &c.desc().layout_tv);
    r.tup("tiler", &c.tiler());
    r.lay("layout_s_tv", &c.layout_s_tv().value());
    r.lay("layout_d_tv", &c.layout_d_tv().value());
    if render {
        r.text("cpp", c.cpp_type());
    }
    assert!(svg_tiled_copy(&c.desc()).is_ok());
}

mod cases {
    use super::*;
    include!("oracle/atoms_cases.rs");
}

#[test]
fn atoms_equal_cute() {
    let mut want: BTreeMap<&str, BTreeMap<&str, (&str, &str)>> = BTreeMap::new();
    for l in include_str!("oracle/atoms_corpus.txt")
        .lines()
        .filter(|l| !l.starts_with('#'))
    {
        let f: Vec<&str> = l.split('|').collect();
        assert_eq!(f.len(), 4, "corpus line {l}");
        want.entry(f[0]).or_default().insert(f[1], (f[2], f[3]));
    }
    let cases = cases::cases();
    let (mut keys, mut evals, mut bad) = (0, 0, Vec::new());
    for (id, build) in &cases {
        let mut r = Rec::default();
        build(&mut r);
        let w = want
            .remove(id)
            .unwrap_or_else(|| panic!("{id}: not in the corpus"));
        let got_keys: Vec<&String> = r.got.keys().collect();
        let want_keys: Vec<&&str> = w.keys().collect();
        assert_eq!(got_keys, want_keys, "{id}: keys differ");
        for (key, (value, ev)) in &r.got {
            let (wv, we) = w[key.as_str()];
            keys += 1;
            evals += usize::from(!we.is_empty());
            if value != wv || ev != we {
                bad.push(format!(
                    "{id}|{key}\n  CuTe: {wv}|{we}\n  ours: {value}|{ev}"
                ));
            }
        }
    }
    assert!(want.is_empty(), "corpus cases not built: {:?}", want.keys());
    assert!(
        bad.is_empty(),
        "{} mismatches:\n{}",
        bad.len(),
        bad.join("\n")
    );
    println!(
        "atoms oracle: {} cases, {keys} keys ({evals} with evaluations), all equal to CuTe",
        cases.len()
    );
    assert!(keys > 500 && cases.len() >= 80);
}
