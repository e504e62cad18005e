"""The cases of the atoms oracle (see gen_atoms.py): each writes its C++ (CuTe) and its
Rust (ferrocute) construction, the keys it prints and the C++ types it renders."""

import re

MAX_EVALS = 1024


def cpp_of(notation):
    from gen_atoms import cpp_of as f
    return f(notation)


def pad3(notation):
    from gen_atoms import pad3 as f
    return f(notation)


class Atom:
    """An MMA atom: Rust type, C++ operation."""

    def __init__(self, rust, cpp):
        self.rust, self.cpp = rust, cpp


def sm80(name):
    return Atom(name, name)


def gmma(kind, n, src):
    cpp = "SM90_64x%dx16_%s_%s<GMMA::Major::K,GMMA::Major::K>" % (n, kind, src)
    return Atom("SM90_64xNx16_%s_%s::<%d>" % (kind, src, n), cpp)


class Op:
    """A copy operation with its element type: Rust op, C++ op, Rust element, C++ element."""

    def __init__(self, rust, cpp, elem, elem_cpp, tma=False):
        self.rust, self.cpp, self.elem, self.elem_cpp, self.tma = rust, cpp, elem, elem_cpp, tma

    def atom_cpp(self):
        return "Copy_Atom<%s, %s>" % (self.cpp, self.elem_cpp)

    def atom_rust(self):
        return "CopyAtom::<%s, %s>::new()" % (self.rust, self.elem)


def tma(kind, bits, elem, elem_cpp):
    return Op("%s<%d>" % (kind, bits), "Copy_Traits<%s, Int<%d>, TmaAux>" % (kind, bits), elem, elem_cpp, tma=True)


SWIZZLED = re.compile(r"Sw<(\d+),(\d+),(\d+)> o (.*)")


def rust_layout(n):
    """A layout value in Rust; `Sw<b,m,s> o L` is swizzle composed with L."""
    m = SWIZZLED.fullmatch(n)
    if m:
        return "composition(Swizzle::<%s,%s,%s>, layout!(%s))" % m.groups()
    return "layout!(%s)" % n


def part_fn(n):
    """The C++ printer of a partition: addresses only for a swizzled tensor."""
    return "spart" if SWIZZLED.fullmatch(n) else "part"


def cpp_obj(n):
    """A layout object in C++, as rust_layout."""
    m = SWIZZLED.fullmatch(n)
    if m:
        b, mm, sh, l = m.groups()
        return "composition(Swizzle<%s,%s,%s>{}, %s{})" % (b, mm, sh, cpp_of(l))
    return "%s{}" % cpp_of(n)


class MmaAtomCase:
    def __init__(self, id, atom):
        self.id, self.atom = id, atom

    def cpp(self):
        i = self.id
        return ["using M = MMA_Atom<%s>;" % self.atom.cpp,
                'tup("%s", "shape_mnk", typename M::Shape_MNK{});' % i,
                'line("%s", "thr_id", typename M::ThrID{});' % i,
                'line("%s", "layout_a_tv", typename M::LayoutA_TV{});' % i,
                'line("%s", "layout_b_tv", typename M::LayoutB_TV{});' % i,
                'line("%s", "layout_c_tv", typename M::LayoutC_TV{});' % i]

    def rust(self):
        return ["mma_atom::<%s>(r);" % self.atom.rust]

    def spelled(self, corpus):
        return [("cpp", "cute::MMA_Atom<cute::%s>" % self.atom.cpp.replace("GMMA::", "cute::GMMA::"))]

    def type_checks(self):
        return [("MMA_Atom<%s>{}" % self.atom.cpp, "cpp")]


class CopyAtomCase:
    def __init__(self, id, op):
        self.id, self.op = id, op

    def cpp(self):
        i = self.id
        out = ["using A = %s;" % self.op.atom_cpp(), 'line("%s", "thr_id", typename A::ThrID{});' % i]
        for k in ("Src", "Dst", "Ref"):
            out.append('line("%s", "bits_%s", typename A::BitLayout%s{});' % (i, k.lower(), k))
            out.append('line("%s", "vals_%s", typename A::ValLayout%s{});' % (i, k.lower(), k))
        return out

    def rust(self):
        return ["copy_atom::<%s, %s>(r, %s);" % (self.op.rust, self.op.elem, "false" if self.op.tma else "true")]

    def spelled(self, corpus):
        if self.op.tma:
            return []
        return [("cpp", "cute::Copy_Atom<cute::%s,%s>" % (self.op.cpp, self.op.elem_cpp))]

    def type_checks(self):
        return [] if self.op.tma else [("%s{}" % self.op.atom_cpp(), "cpp")]


class MmaCase:
    """make_tiled_mma(atom, layout, perm) and partitions [(A|B|C, layout, thread)]."""

    def __init__(self, id, atom, layout, perm=None, parts=()):
        self.id, self.atom, self.layout, self.perm, self.parts = id, atom, layout, perm, parts

    def perm_cpp(self):
        if self.perm is None:
            return ""
        ps = ["Underscore" if p == "_" else cpp_of(p) for p in self.perm]
        return ", Tile<%s>{}" % ", ".join(ps)

    def expr(self):
        return "make_tiled_mma(%s{}, %s{}%s)" % (self.atom.cpp, cpp_of(self.layout), self.perm_cpp())

    def cpp_setup(self):
        return ["auto mma = %s;" % self.expr()]

    def cpp(self):
        i = self.id
        out = self.cpp_setup() + [
            'line("%s", "thr_vmnk", mma.get_thr_layout_vmnk());' % i,
            'tup("%s", "tile_mnk", make_shape(tile_size<0>(mma), tile_size<1>(mma), tile_size<2>(mma)));' % i,
            'line("%s", "layout_a_tv", mma.get_layoutA_TV());' % i,
            'line("%s", "layout_b_tv", mma.get_layoutB_TV());' % i,
            'line("%s", "layout_c_tv", mma.get_layoutC_TV());' % i]
        for w, l, t in self.parts:
            out.append('%s("%s", "part%s %s t%d", mma.get_slice(%d).partition_%s(make_tensor(make_gmem_ptr(buf), %s)));'
                       % (part_fn(l), i, w, l, t, t, w, cpp_obj(l)))
        return out

    def rust_perm(self):
        if self.perm is None:
            return "()"
        ps = ["Free" if p == "_" else (rust_layout(p) if ":" in p else "C::<%s>" % p) for p in self.perm]
        return "(%s,)" % ", ".join(ps)

    def rust_setup(self):
        return ["let m = make_tiled_mma(%s, %s, %s);" % (self.atom.rust, rust_layout(self.layout), self.rust_perm())]

    def rust(self):
        out = self.rust_setup() + ["tiled_mma(r, &m);"]
        for w, l, t in self.parts:
            out.append('r.part("part%s %s t%d", m.partition_%s(%s, %d), Desc::Mma(m.desc()), Part%s::PART, %s, %d);'
                       % (w, l, t, w.lower(), rust_layout(l), t, w, rust_layout(l), t))
        return out

    def spelled(self, corpus):
        ps = ["cute::Underscore"] * 3
        for k, p in enumerate(self.perm or []):
            ps[k] = "cute::Underscore" if p == "_" else cpp_of(p)
        atom = "cute::MMA_Atom<cute::%s>" % self.atom.cpp.replace("GMMA::", "cute::GMMA::")
        return [("cpp", "cute::TiledMMA<%s,%s,cute::tuple<%s>>" % (atom, cpp_of(pad3(self.layout)), ",".join(ps)))]

    def type_checks(self):
        return [(self.expr(), "cpp")]


class CopyCase:
    """make_tiled_copy(atom, thr, val), partitions [(S|D, layout, thread)], retiles [layout]."""

    def __init__(self, id, op, thr, val, parts=(), retiles=()):
        self.id, self.op, self.thr, self.val, self.parts, self.retiles = id, op, thr, val, parts, retiles

    def expr(self):
        return "make_tiled_copy(%s{}, %s{}, %s{})" % (self.op.atom_cpp(), cpp_of(self.thr), cpp_of(self.val))

    def cpp_setup(self):
        return ["auto cp = %s;" % self.expr()]

    def cpp(self):
        i = self.id
        out = self.cpp_setup() + [
            'line("%s", "tiled_tv", typename decltype(cp)::TiledLayout_TV{});' % i,
            'tup("%s", "tiler", typename decltype(cp)::Tiler_MN{});' % i,
            'line("%s", "layout_s_tv", cp.get_layoutS_TV());' % i,
            'line("%s", "layout_d_tv", cp.get_layoutD_TV());' % i]
        for w, l, t in self.parts:
            out.append('%s("%s", "part%s %s t%d", cp.get_slice(%d).partition_%s(make_tensor(make_gmem_ptr(buf), %s)));'
                       % (part_fn(l), i, w, l, t, t, w, cpp_obj(l)))
        for l in self.retiles:
            out.append('part("%s", "retile %s", cp.get_slice(0).retile_S(make_tensor(make_gmem_ptr(buf), %s{})));'
                       % (i, l, cpp_of(l)))
        return out

    def rust_setup(self):
        return ["let c = make_tiled_copy(%s, %s, %s);" % (self.op.atom_rust(), rust_layout(self.thr), rust_layout(self.val))]

    def rust(self):
        out = self.rust_setup() + ["tiled_copy(r, &c, %s);" % ("false" if self.op.tma else "true")]
        for w, l, t in self.parts:
            out.append('r.part("part%s %s t%d", c.partition_%s(%s, %d), Desc::Copy(c.desc()), Part%s::PART, %s, %d);'
                       % (w, l, t, w.lower(), rust_layout(l), t, w, rust_layout(l), t))
        for l in self.retiles:
            out.append('r.part("retile %s", c.retile(%s), Desc::Copy(c.desc()), Retile::PART, %s, 0);'
                       % (l, rust_layout(l), rust_layout(l)))
        return out

    def spelled(self, corpus):
        if self.op.tma:
            return []
        atom = "cute::Copy_Atom<cute::%s,%s>" % (self.op.cpp, self.op.elem_cpp)
        tv, tiler = corpus[(self.id, "tiled_tv")], corpus[(self.id, "tiler")]
        return [("cpp", "cute::TiledCopy<%s,%s,%s>" % (atom, cpp_of(tv), cpp_of(tiler)))]

    def type_checks(self):
        return [] if self.op.tma else [(self.expr(), "cpp")]


class CopyMmaCase(CopyCase):
    """make_tiled_copy_A/B/C(atom, mma) for the tiled MMA of `mma` (an MmaCase)."""

    def __init__(self, id, op, which, mma, parts=(), retiles=()):
        CopyCase.__init__(self, id, op, None, None, parts, retiles)
        self.which, self.mma = which, mma

    def expr(self):
        return "make_tiled_copy_%s(%s{}, %s)" % (self.which, self.op.atom_cpp(), self.mma.expr())

    def rust_setup(self):
        return self.mma.rust_setup() + [
            "let c = make_tiled_copy_%s(%s, m);" % (self.which.lower(), self.op.atom_rust())]


BF16 = ("Bf16", "cute::bfloat16_t")
F16 = ("F16", "cute::half_t")
F32 = ("F32", "float")


def op(rust, cpp, elem):
    return Op(rust, cpp, elem[0], elem[1])


def build():
    cases = []
    sm80s = [sm80("SM80_16x8x16_F32BF16BF16F32_TN"), sm80("SM80_16x8x16_F32F16F16F32_TN"),
             sm80("SM80_16x8x16_F16F16F16F16_TN")]
    gmmas = [gmma(k, n, s) for k in ("F32BF16BF16", "F32F16F16") for s in ("SS", "RS")
             for n in (8, 16, 24, 64, 128, 136, 256)]
    for k, a in enumerate(sm80s + gmmas):
        cases.append(MmaAtomCase("mma_atom%d" % k, a))
    ops = [op("UniversalCopy<U32>", "UniversalCopy<uint32_t>", F32),
           op("UniversalCopy<U64>", "UniversalCopy<uint64_t>", F16),
           op("UniversalCopy<U128>", "UniversalCopy<cute::uint128_t>", BF16),
           op("SM80_CP_ASYNC_CACHEALWAYS<U128>", "SM80_CP_ASYNC_CACHEALWAYS<cute::uint128_t>", BF16),
           op("SM80_CP_ASYNC_CACHEALWAYS<U64>", "SM80_CP_ASYNC_CACHEALWAYS<uint64_t>", F32),
           tma("SM90_TMA_LOAD", 65536, *BF16), tma("SM90_TMA_STORE", 32768, *F16)]
    for n in ("U32x1_LDSM_N", "U32x2_LDSM_N", "U32x4_LDSM_N", "U16x2_LDSM_T", "U16x4_LDSM_T", "U16x8_LDSM_T"):
        ops.append(op("SM75_" + n, "SM75_" + n, BF16))
    for n in ("U32x1_STSM_N", "U32x2_STSM_N", "U32x4_STSM_N", "U16x2_STSM_T", "U16x4_STSM_T", "U16x8_STSM_T"):
        ops.append(op("SM90_" + n, "SM90_" + n, F16))
    for k, o in enumerate(ops):
        cases.append(CopyAtomCase("copy_atom%d" % k, o))
    bf = sm80s[0]
    mma221 = MmaCase("mma0", bf, "(2,2,1):(1,2,0)", None,
                     [("A", "(64,32):(1,64)", 5), ("A", "(64,32):(32,1)", 77), ("B", "(32,32):(32,1)", 37),
                      ("C", "(64,64):(1,64)", 5), ("C", "(64,64):(64,1)", 127), ("C", "(32,16,2):(1,32,512)", 66)])
    mmas = [mma221,
            MmaCase("mma1", bf, "(4,1,1):(1,0,0)", None, [("A", "(64,16):(16,1)", 100), ("C", "(64,8):(1,64)", 33)]),
            MmaCase("mma2", bf, "(1,2,1):(0,1,0)", None, [("B", "(16,16):(1,16)", 40)]),
            MmaCase("mma3", bf, "(2,1,1):(1,0,0)", ["_", "_", "_"], [("C", "(32,8):(8,1)", 63)]),
            MmaCase("mma4", bf, "(2,2,1):(2,1,0)", ["32", "32", "16"],
                    [("A", "(32,16):(16,1)", 70), ("C", "(32,32):(1,32)", 70)]),
            MmaCase("mma5", bf, "(2,2,1):(1,2,0)", ["(8,2,2):(1,16,8)", "32", "_"],
                    [("A", "(64,32):(1,64)", 9), ("B", "(64,32):(32,1)", 99), ("C", "(64,64):(1,64)", 99)]),
            MmaCase("mma6", sm80s[1], "(2,2,1):(1,2,0)", ["_", "(4,2,2):(1,8,4)", "_"],
                    [("B", "(16,16):(1,16)", 3)]),
            MmaCase("mma7", sm80s[2], "(1,4,1):(0,1,0)", None, [("C", "(16,64):(64,1)", 127)]),
            MmaCase("mma8", bf, "(2,1,2):(1,0,2)", None, [("A", "(32,32):(1,32)", 100), ("C", "(32,8):(8,1)", 100)]),
            MmaCase("mma9", bf, "(2,2):(2,1)", ["16", "(4,4):(4,1)"], [("B", "(16,16):(16,1)", 65)])]
    for k, n in enumerate((8, 16, 64, 128, 256)):
        mmas.append(MmaCase("gmma_ss%d" % k, gmma("F32BF16BF16", n, "SS"), "(1,1,1):(0,0,0)", None,
                            [("C", "(64,%d):(1,64)" % n, 77), ("A", "(64,64):(64,1)", 5),
                             ("B", "Sw<3,4,3> o ((8,%d),(64,1)):((64,512),(1,0))" % (n // 8), 100)]))
    mmas += [MmaCase("gmma_rs0", gmma("F32BF16BF16", 64, "RS"), "(2,1,1):(1,0,0)", None,
                     [("A", "(128,64):(64,1)", 200), ("C", "(128,64):(1,128)", 129)]),
             MmaCase("gmma_rs1", gmma("F32F16F16", 128, "RS"), "(1,1,1):(0,0,0)", None, [("A", "(64,32):(32,1)", 31)]),
             MmaCase("gmma_ss5", gmma("F32F16F16", 256, "SS"), "(2,1,1):(1,0,0)", None, [("B", "(256,64):(64,1)", 255)])]
    cases += mmas
    u128 = ops[2]
    cases += [
        CopyCase("copy0", u128, "(16,8):(8,1)", "(1,8):(0,1)",
                 [("S", "(64,64):(64,1)", 9), ("D", "(64,64):(1,64)", 127)], ["((8,1),4,1):((1,0),8,0)"]),
        CopyCase("copy1", ops[0], "(32,4):(1,32)", "(4,1):(1,0)", [("S", "(128,8):(1,128)", 33)]),
        CopyCase("copy2", ops[1], "(8,16):(16,1)", "(1,4):(0,1)", [("D", "(32,64):(64,1)", 17)]),
        CopyCase("copy3", ops[3], "(32,4):(4,1)", "(1,8):(0,1)",
                 [("S", "(64,64):(64,1)", 100), ("D", "(32,128):(128,1)", 7), ("D", "Sw<3,3,3> o (64,64):(64,1)", 45)]),
        CopyCase("copy4", ops[4], "(16,8):(1,16)", "(2,1):(1,0)", [("S", "(64,16):(1,64)", 21)]),
        CopyCase("copy5", ops[9], "(32,1):(1,0)", "(1,8):(0,1)",
                 [("S", "(32,16):(16,1)", 13), ("D", "(32,16):(1,32)", 13), ("S", "Sw<1,3,3> o (32,16):(16,1)", 13)]),
        CopyCase("copy6", ops[7], "(32,1):(1,0)", "(1,2):(0,1)", [("D", "(32,2):(2,1)", 30)]),
        CopyCase("copy7", ops[15], "(32,1):(1,0)", "(1,8):(0,1)", [("S", "(32,16):(1,32)", 3)]),
        CopyCase("copy8", ops[5], "(1,1):(0,0)", "(64,64):(1,64)", [("S", "(64,128):(1,64)", 0)]),
        CopyMmaCase("copy_a0", ops[9], "A", mma221,
                    [("S", "(32,64):(64,1)", 33), ("S", "Sw<2,3,3> o (32,64):(64,1)", 98)], ["((2,2,2),2,2):((1,2,4),8,16)"]),
        CopyMmaCase("copy_b0", ops[8], "B", mma221, [("S", "(32,64):(64,1)", 64)], ["((2,2),4,4):((1,2),4,16)"]),
        CopyMmaCase("copy_b1", ops[11], "B", mma221, [("S", "(32,64):(1,32)", 5)]),
        CopyMmaCase("copy_c0", ops[14], "C", mma221, [("D", "(32,32):(32,1)", 127)], ["((2,2),1,2):((1,2),0,4)"]),
        CopyMmaCase("copy_c1", op("SM90_U32x4_STSM_N", "SM90_U32x4_STSM_N", BF16), "C", next(m for m in mmas if m.id == "gmma_ss2"),
                    [("D", "(64,64):(64,1)", 100)]),
    ]
    return cases


CASES = build()
