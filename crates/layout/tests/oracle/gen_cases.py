"""Case generation for the CuTe C++ oracle (imported by gen.py): the Python model of
int-tuples and layouts, the random inputs (fixed seed) and the C++ expression of each case."""
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 20240917
MAX_EVALS = 1024          # layouts bigger than this get an empty EVALS field
MAX_LEAF = 1 << 16        # every number in args/result must stay below this
MAX_LEAVES = 12           # leaves per layout (shape leaves) in args and results

# ----------------------------------------------------------------------------
# Python-side values.  An int-tuple is an int or a Python tuple of int-tuples.
# A layout is ('L', shape, stride).  A slice coordinate uses None for `_`.
# ----------------------------------------------------------------------------


def flat(t):
    if isinstance(t, tuple):
        out = []
        for x in t:
            out += flat(x)
        return out
    return [t]


def prod(t):
    p = 1
    for x in flat(t):
        p *= x
    return p


def depth(t):
    if isinstance(t, tuple):
        return 1 + max([depth(x) for x in t] + [0])
    return 0


def cpp_it(t):
    """C++ type of a static int-tuple (None -> Underscore)."""
    if t is None:
        return "Un"
    if isinstance(t, tuple):
        return "Tu<" + ",".join(cpp_it(x) for x in t) + ">"
    return "Ci<%d>" % t


def cpp_layout(shape, stride):
    return "Ly<%s,%s>" % (cpp_it(shape), cpp_it(stride))


def compact_col(shape, start=1):
    """Column-major strides; size-1 leaves get stride 0 like CuTe."""
    cur = [start]

    def go(s):
        if isinstance(s, tuple):
            return tuple(go(x) for x in s)
        d = 0 if s == 1 else cur[0]
        cur[0] *= s
        return d
    return go(shape)


def compact_row(shape):
    leaves = flat(shape)
    strides = []
    cur = 1
    for s in reversed(leaves):
        strides.append(0 if s == 1 else cur)
        cur *= s
    strides.reverse()
    return unflat(shape, strides)


def unflat(shape, vals):
    it = iter(vals)

    def go(s):
        if isinstance(s, tuple):
            return tuple(go(x) for x in s)
        return next(it)
    return go(shape)


# ----------------------------------------------------------------------------
# Random input generation
# ----------------------------------------------------------------------------
LEAF_CHOICES = [1, 2, 2, 2, 3, 4, 4, 4, 5, 6, 8, 8, 16]


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)

    def leaf(self, choices=LEAF_CHOICES):
        return self.r.choice(choices)

    def shape(self, max_leaves=6, max_depth=3, max_size=512, top_rank=None,
              choices=LEAF_CHOICES):
        for _ in range(100):
            s = self._shape(max_leaves, max_depth, top_rank, choices)
            if prod(s) <= max_size and len(flat(s)) <= max_leaves:
                return s
        return self.leaf(choices)

    def _shape(self, max_leaves, max_depth, top_rank, choices):
        r = self.r
        if top_rank is None:
            if max_depth == 0 or r.random() < 0.25:
                return self.leaf(choices)
            top_rank = r.choice([1, 2, 2, 2, 3, 3, 4])
        out = []
        budget = max_leaves
        for i in range(top_rank):
            if budget <= 0:
                break
            if max_depth > 1 and budget >= 2 and r.random() < 0.3:
                sub = self._shape(min(budget, 4), max_depth - 1, r.choice([1, 2, 2, 3]), choices)
            else:
                sub = self.leaf(choices)
            budget -= len(flat(sub))
            out.append(sub)
        if not out:
            out = [self.leaf(choices)]
        return tuple(out)

    def stride(self, shape, kind=None):
        r = self.r
        kind = kind or r.choice(["col", "col", "row", "perm", "perm", "zero", "rand", "gap"])
        leaves = flat(shape)
        if kind == "col":
            return compact_col(shape)
        if kind == "row":
            return compact_row(shape)
        if kind in ("perm", "zero", "gap"):
            order = list(range(len(leaves)))
            r.shuffle(order)
            ds = [0] * len(leaves)
            cur = 1
            for i in order:
                if kind == "gap" and r.random() < 0.3:
                    cur *= r.choice([2, 3])
                ds[i] = 0 if leaves[i] == 1 else cur
                cur *= leaves[i]
            if kind == "zero":
                for i in range(len(ds)):
                    if r.random() < 0.35:
                        ds[i] = 0
            return unflat(shape, ds)
        # rand
        return unflat(shape, [r.choice([0, 1, 2, 3, 4, 6, 8, 12, 16, 32, 64]) for _ in leaves])

    def layout(self, **kw):
        kind = kw.pop("kind", None)
        s = self.shape(**kw)
        return (s, self.stride(s, kind))

    def injective_layout(self, **kw):
        s = self.shape(**kw)
        return (s, self.stride(s, self.r.choice(["col", "row", "perm", "perm", "gap"])))


# ----------------------------------------------------------------------------
# Cases.  A case = (op, args, expr, kind) where args is a list of
# (name, cpp_decl or None, literal_text or None).  expr is a C++ expression
# (may use a0, a1, ...).  kind: 'one' (print result), 'two' (result is a
# pair printed "x ; y"), plus optional check code.
# ----------------------------------------------------------------------------


class Case:
    __slots__ = ("op", "args", "expr", "two", "check")

    def __init__(self, op, args, expr, two=False, check=None):
        self.op, self.args, self.expr, self.two, self.check = op, args, expr, two, check


def A_layout(l):
    return ("obj", cpp_layout(*l) + "{}")


def A_it(t):
    return ("obj", cpp_it(t) + "{}")


def A_lit(text):
    return ("lit", text)


def A_tiler(ls):
    return ("tiler", [cpp_layout(*l) + "{}" for l in ls])


def A_swz(b, m, s):
    return ("obj", "Swizzle<%d,%d,%d>{}" % (b, m, s))


def A_swl(sw, l):
    return ("obj", "composition(Swizzle<%d,%d,%d>{}, %s{})" % (sw + (cpp_layout(*l),)))


def ok(expr):
    """check code: drop the case when a composition CuTe performed internally is wrong."""
    return "if (!(%s)) bad = 0;" % expr


def divisors(n):
    return [d for d in range(1, n + 1) if n % d == 0]


def gen_cases():
    g = Gen(SEED)
    r = g.r
    cases = []

    def add(op, args, expr, **kw):
        cases.append(Case(op, args, expr, **kw))

    def lay(**kw):
        return g.layout(**kw)

    # ---------------- reference examples ----------------
    ref = [((4, 3), (1, 4)), ((4, 3), (3, 1)), (((2, 2), 3), ((1, 4), 8)), (8, 1),
           ((4,), (1,)), ((2, 2), (0, 0)), (1, 0), ((4, 1), (1, 0)), ((2, 3, 4), (1, 1, 0)),
           ((2, 4), (0, 1)), (4, 2), ((6, 2), (1, 6)), ((4, (2, 2)), (1, (8, 4)))]
    # ---------------- unary layout ops ----------------
    unary = [("coalesce", "coalesce(a0)", 70), ("filter", "filter(a0)", 60),
             ("right_inverse", "right_inverse(a0)", 70), ("flatten", "flatten(a0)", 50),
             ("size", "size(a0)", 50), ("cosize", "cosize(a0)", 50), ("rank", "rank(a0)", 50),
             ("depth", "depth(a0)", 50)]
    for op, expr, n in unary:
        for l in ref:
            add(op, [A_layout(l)], expr)
        for _ in range(n):
            add(op, [A_layout(lay(max_leaves=8))], expr)
    for l in ref:
        if l not in [((2, 2), (0, 0)), (1, 0), ((2, 3, 4), (1, 1, 0)), ((2, 4), (0, 1))]:
            add("left_inverse", [A_layout(l)], "left_inverse(a0)")
            add("complement_noarg", [A_layout(l)], "complement(a0)")
    for _ in range(60):
        add("left_inverse", [A_layout(g.injective_layout(max_leaves=6))], "left_inverse(a0)")
    for _ in range(15):
        add("left_inverse", [A_layout(lay(max_leaves=5, kind="zero"))], "left_inverse(a0)")
    for _ in range(65):
        add("complement_noarg", [A_layout(lay(max_leaves=6))], "complement(a0)")

    # coalesce with profile
    def profile_like(s, p_keep=0.6):
        if isinstance(s, tuple):
            if r.random() < 0.3:
                return 1
            k = len(s) if r.random() < 0.7 else r.randint(1, len(s))
            return tuple(profile_like(x) for x in s[:k])
        return 1
    for _ in range(72):
        l = lay(max_leaves=8)
        prof = profile_like(l[0])
        if not isinstance(prof, tuple) and r.random() < 0.7:
            prof = tuple(1 for _ in (l[0] if isinstance(l[0], tuple) else (1,)))
        add("coalesce_profile", [A_layout(l), A_it(prof)], "coalesce(a0, a1)")

    # ---------------- composition ----------------
    comp_check = ("for (int i = 0; i < int(size(a1)); ++i) "
                  "if ((long long)(r(i)) != (long long)(a0(a1(i)))) "
                  "{ bad = i; got = (long long)r(i); want = (long long)a0(a1(i)); break; }")
    comp_refs = [(((4, 3), (3, 1)), (16, 1)), (((4, 1), (1, 0)), (8, 1)),
                 (((4, 3), (1, 4)), ((3, 4), (4, 1))), ((20, 2), ((5, 4), (4, 1))),
                 (((10, 2), (16, 4)), ((5, 4), (1, 5))), ((((2, 2), 3), ((1, 4), 8)), (6, 2))]
    for a, b in comp_refs:
        add("composition", [A_layout(a), A_layout(b)], "composition(a0, a1)", check=comp_check)

    def rand_b_for(a):
        """A B layout likely (not surely) admissible for composition with A."""
        sz = prod(a[0])
        mode = r.random()
        if mode < 0.45:
            # compact sub-shape of A's size with a stride dividing prefix products
            leaves = flat(a[0])
            pre = [1]
            for x in leaves:
                pre.append(pre[-1] * x)
            d = r.choice(pre[:-1] + [1, 1])
            total = max(1, sz // d) if r.random() < 0.8 else sz // d * r.choice([2, 3])
            total = max(total, 1)
            ds = divisors(total)
            s1 = r.choice(ds)
            if r.random() < 0.5 and total // s1 > 1:
                shp = (s1, r.choice(divisors(total // s1)))
                strd = (d, d * s1) if r.random() < 0.7 else (d * shp[1], d)
                if r.random() < 0.15:
                    strd = (0, d)
            else:
                shp, strd = s1, d
            return (shp, strd)
        if mode < 0.75:
            s = g.shape(max_leaves=4, max_depth=2, max_size=max(2, sz * 2))
            return (s, g.stride(s, r.choice(["col", "row", "perm", "zero"])))
        s = g.shape(max_leaves=4, max_depth=2, max_size=64)
        return (s, g.stride(s, "rand"))

    for _ in range(175):
        a = lay(max_leaves=6, max_size=256)
        b = rand_b_for(a)
        add("composition", [A_layout(a), A_layout(b)], "composition(a0, a1)", check=comp_check)

    def tiler_for(a, nmodes=None):
        sa = a[0] if isinstance(a[0], tuple) else (a[0],)
        k = nmodes or r.randint(1, len(sa))
        ts = []
        for m in sa[:k]:
            n = prod(m)
            if r.random() < 0.6:
                t = r.choice(divisors(n))
                ts.append((t, 1) if r.random() < 0.7 else (t, r.choice(divisors(max(1, n // t)))))
            elif r.random() < 0.5 and n >= 4:
                d2 = r.choice([x for x in divisors(n) if x > 1])
                rest = n // d2
                s1 = r.choice(divisors(rest))
                ts.append(((d2, s1), (1, d2)) if r.random() < 0.5 else ((s1, d2), (d2 if s1 > 1 else 0, 1)))
            else:
                t = r.choice([2, 3, 4, 8])
                ts.append((t, r.choice([1, 2])))
        return ts

    for _ in range(155):
        a = lay(max_leaves=7, max_size=512, top_rank=r.choice([2, 2, 3]))
        add("composition_tiler", [A_layout(a), A_tiler(tiler_for(a))], "composition(a0, make_tile(%s))",
            check=ok("by_mode(MODE(cmode_ok), a0, make_tile(%s))"))
    for _ in range(70):
        a = lay(max_leaves=7, max_size=512, top_rank=r.choice([1, 2, 2, 3]))
        sa = a[0] if isinstance(a[0], tuple) else (a[0],)
        k = r.randint(1, len(sa))
        shp = tuple(r.choice(divisors(prod(m))) for m in sa[:k])
        if r.random() < 0.2:
            shp = r.choice(divisors(prod(a[0])))
        add("composition_shape", [A_layout(a), A_it(shp)], "composition(a0, a1)",
            check=ok("by_mode(MODE(cmode_ok), a0, a1)"))

    # ---------------- complement ----------------
    for _ in range(150):
        a = g.injective_layout(max_leaves=5, max_size=128) if r.random() < 0.8 else lay(max_leaves=4, kind="zero")
        cot = r.choice([1, 2, prod(a[0]), prod(a[0]) * 2, 64, 128, 256, 24, 1024]) if r.random() < 0.8 \
            else r.randint(1, 300)
        add("complement", [A_layout(a), A_it(cot)], "complement(a0, a1)")
    for l, c in [(((4,), (1,)), 24), ((4, 2), 24), ((2, 2), 1), ((1, 0), 1), ((4, 1), 1)]:
        add("complement", [A_layout(l), A_it(c)], "complement(a0, a1)")
    for _ in range(75):
        a = g.injective_layout(max_leaves=4, max_size=64)
        cot = tuple(r.choice([1, 2, 3, 4, 6, 8, 16, 32]) for _ in range(r.choice([1, 2, 2, 3])))
        add("complement_shape", [A_layout(a), A_it(cot)], "complement(a0, a1)")
    add("complement_shape", [A_layout((4, 1)), A_it((6, 2))], "complement(a0, a1)")

    # ---------------- max_common ----------------
    for op in ("max_common_layout", "max_common_vector"):
        for _ in range(66):
            a = lay(max_leaves=6, max_size=256)
            if r.random() < 0.5:
                b = (a[0], g.stride(a[0]))
            else:
                s = g.shape(max_leaves=6, max_size=256)
                if prod(s) != prod(a[0]):
                    s = (prod(a[0]),) if r.random() < 0.5 else unflat(s, flat(s))
                b = (s, g.stride(s))
            add(op, [A_layout(a), A_layout(b)], op + "(a0, a1)")

    # ---------------- divides ----------------
    ld_check = ("{ auto lt = make_layout(a1, complement(a1, shape(coalesce(a0)))); "
                "for (int i = 0; i < int(size(lt)) && i < 4096; ++i) "
                "if ((long long)(r(i)) != (long long)(a0(lt(i)))) "
                "{ bad = i; got = (long long)r(i); want = (long long)a0(lt(i)); break; } }")
    div_ref = [((6, 1), (4, 1)), (((2048, 2048), (1, 2048)), None), (((4, 3), (1, 4)), (2, 1)),
               ((24, 1), ((4, 2), (1, 8)))]
    for op in ("logical_divide", "zipped_divide", "tiled_divide", "flat_divide"):
        n = 160 if op == "logical_divide" else 66
        for a, t in div_ref:
            if t is None:
                if op == "logical_divide":
                    continue
                add(op + "_tiler", [A_layout(a), A_tiler([(1, 0), (4, 1)])], op + "(a0, make_tile(%s))")
                continue
            add(op, [A_layout(a), A_layout(t)], op + "(a0, a1)",
                check=ld_check if op == "logical_divide" else ok("ld_ok(a0, a1)"))
        for _ in range(n):
            a = lay(max_leaves=6, max_size=512)
            sz = prod(a[0])
            if r.random() < 0.7:
                t1 = r.choice(divisors(sz))
                t = (t1, 1) if r.random() < 0.6 else \
                    ((t1, r.choice(divisors(max(1, sz // t1)))), (1, t1)) if r.random() < 0.5 else \
                    (t1, r.choice(divisors(max(1, sz // t1))))
            else:
                t = (r.choice([2, 3, 4, 5, 8]), r.choice([1, 1, 2]))
            add(op, [A_layout(a), A_layout(t)], op + "(a0, a1)",
                check=ld_check if op == "logical_divide" else ok("ld_ok(a0, a1)"))
        for _ in range(68 if op != "logical_divide" else 80):
            a = lay(max_leaves=7, max_size=1024, top_rank=r.choice([2, 2, 3]))
            add(op + "_tiler", [A_layout(a), A_tiler(tiler_for(a))], op + "(a0, make_tile(%s))",
                check=ok("by_mode(MODE(ld_ok), a0, make_tile(%s))"))

    # ---------------- products ----------------
    for op, n in (("logical_product", 155), ("zipped_product", 66), ("tiled_product", 66),
                  ("flat_product", 66), ("blocked_product", 155), ("raked_product", 155)):
        pcheck = ok("bp_ok(a0, a1)" if op in ("blocked_product", "raked_product") else "lp_ok(a0, a1)")
        add(op, [A_layout(((2, 2), (1, 2))), A_layout(((3, 4), (1, 3)))], op + "(a0, a1)", check=pcheck)
        add(op, [A_layout(((4,), (1,))), A_layout((4, 1))], op + "(a0, a1)", check=pcheck)
        for _ in range(n):
            rk = r.choice([1, 2, 2, 3])
            if op in ("blocked_product", "raked_product"):
                a = g.injective_layout(max_leaves=4, max_size=32, top_rank=rk, max_depth=2)
                b = g.injective_layout(max_leaves=4, max_size=32,
                                       top_rank=rk if r.random() < 0.8 else r.choice([1, 2, 3]), max_depth=2)
            else:
                a = g.injective_layout(max_leaves=4, max_size=32, max_depth=2)
                b = lay(max_leaves=4, max_size=32, max_depth=2)
            add(op, [A_layout(a), A_layout(b)], op + "(a0, a1)", check=pcheck)

    # ---------------- tile_to_shape ----------------
    for _ in range(60):
        rk = r.choice([1, 2, 2, 2, 3])
        a = g.injective_layout(max_leaves=4, max_size=32, top_rank=rk, max_depth=2)
        sa = a[0] if isinstance(a[0], tuple) else (a[0],)
        trg = tuple(prod(m) * r.choice([1, 2, 3, 4]) for m in sa) + \
            tuple(r.choice([2, 3, 4]) for _ in range(r.choice([0, 0, 1])))
        add("tile_to_shape", [A_layout(a), A_it(trg)], "tile_to_shape(a0, a1)")
    swz_atoms = [((3, 3, 3), ((8, 64), (64, 1))), ((2, 3, 3), ((8, 32), (32, 1))),
                 ((1, 3, 3), ((8, 16), (16, 1))), ((3, 4, 3), ((8, 64), (64, 1))),
                 ((2, 4, 3), ((8, 32), (32, 1))), ((3, 3, 3), ((64, 8), (1, 64))),
                 ((2, 3, 3), ((32, 8), (1, 32))), ((3, 3, 3), ((8, 8), (8, 1))),
                 ((2, 2, 3), ((4, 16), (16, 1))), ((2, 0, 2), ((4, 4), (4, 1)))]
    for sw, l in swz_atoms:
        for _ in range(2):
            trg = tuple(x * r.choice([1, 2, 4]) for x in l[0])
            if prod(trg) > 16384:
                trg = l[0]
            add("tile_to_shape", [A_swl(sw, l), A_it(trg)], "tile_to_shape(a0, a1)")

    # ---------------- make_layout_tv ----------------
    tv_expr = ("[&]{ auto lmn = raked_product(a0, a1); "
               "return cute::make_tuple(product_each(shape(lmn)), "
               "right_inverse(lmn).with_shape(make_shape(size(a0), size(a1)))); }()")
    add("make_layout_tv", [A_layout(((4, 8), (8, 1))), A_layout(((1, 4), (1, 1)))], tv_expr, two=True)
    add("make_layout_tv", [A_layout(((32, 4), (4, 1))), A_layout(((4, 1), (1, 0)))], tv_expr, two=True)
    for _ in range(70):
        rk = r.choice([1, 2, 2, 2])
        t = g.injective_layout(max_leaves=3, max_size=64, top_rank=rk, max_depth=1,
                               choices=[1, 2, 2, 4, 4, 8])
        v = g.injective_layout(max_leaves=3, max_size=16, top_rank=rk, max_depth=1,
                               choices=[1, 1, 2, 2, 4])
        add("make_layout_tv", [A_layout(t), A_layout(v)], tv_expr, two=True)

    # ---------------- crd2idx / idx2crd ----------------
    def rand_coord(s, partial=0.25):
        if isinstance(s, tuple):
            if r.random() < partial:
                return r.randrange(prod(s))
            return tuple(rand_coord(x, partial) for x in s)
        return r.randrange(s)
    for _ in range(70):
        l = lay(max_leaves=6, max_size=512, kind=r.choice(["col", "row", "perm", "rand"]))
        c = rand_coord(l[0])
        add("crd2idx", [A_it(c), A_it(l[0]), A_it(l[1])], "crd2idx(a0, a1, a2)")
    for _ in range(70):
        s = g.shape(max_leaves=6, max_size=512)
        i = r.randrange(prod(s))
        add("idx2crd", [A_it(i), A_it(s)], "idx2crd(a0, a1)")
        if r.random() < 0.25:
            c = rand_coord(s, 0.0)
            add("idx2crd", [A_it(c), A_it(s)], "idx2crd(a0, a1)")
    for _ in range(60):
        s = g.shape(max_leaves=5, max_size=256)
        d = compact_col(s) if r.random() < 0.5 else compact_row(s)
        i = r.randrange(prod(s) * 2)
        add("idx2crd_stride", [A_it(i), A_it(s), A_it(d)], "idx2crd(a0, a1, a2)")

    # ---------------- slice ----------------
    def slice_coord(s):
        if isinstance(s, tuple):
            x = r.random()
            if x < 0.2:
                return None
            if x < 0.3:
                return r.randrange(prod(s))
            return tuple(slice_coord(e) for e in s)
        return None if r.random() < 0.5 else r.randrange(s)
    for op, expr, two in (("slice", "slice(a0, a1)", False),
                          ("slice_and_offset", "slice_and_offset(a0, a1)", True)):
        for _ in range(75):
            l = lay(max_leaves=7, max_size=512, top_rank=r.choice([2, 2, 3, 4]))
            c = slice_coord(l[0])
            if not isinstance(c, tuple):
                c = tuple(slice_coord(e) for e in l[0])
            if None not in flat(c) and r.random() < 0.8:
                c = (None,) + c[1:]
            add(op, [A_it(c), A_layout(l)], expr, two=two)

    # ---------------- mode manipulation ----------------
    for _ in range(65):
        l = lay(max_leaves=8, top_rank=r.choice([2, 3, 4]))
        n = len(l[0])
        b = r.randint(0, n - 1)
        e = r.randint(b + 1, n) if r.random() < 0.85 else r.randint(0, n)
        add("group_modes", [A_layout(l), A_lit(str(b)), A_lit(str(e))], "group<%d,%d>(a0)" % (b, e))
    for _ in range(65):
        l = lay(max_leaves=8, top_rank=r.choice([2, 3, 4]))
        n = len(l[0])
        sel = [r.randrange(n) for _ in range(r.randint(1, 4))]
        add("select", [A_layout(l), A_lit("<%s>" % ",".join(map(str, sel)))],
            "select<%s>(a0)" % ",".join(map(str, sel)))
    for _ in range(65):
        l = lay(max_leaves=8, top_rank=r.choice([2, 3, 4]))
        n = len(l[0])
        b = r.randint(0, n - 1)
        e = r.randint(b + 1, n)
        add("take", [A_layout(l), A_lit(str(b)), A_lit(str(e))], "take<%d,%d>(a0)" % (b, e))
    for op in ("append", "prepend"):
        for _ in range(65):
            l = lay(max_leaves=6)
            m = lay(max_leaves=4, max_size=64)
            add(op, [A_layout(l), A_layout(m)], op + "(a0, a1)")
    for _ in range(65):
        l = lay(max_leaves=6, top_rank=r.choice([2, 3, 4]))
        i = r.randrange(len(l[0]))
        m = lay(max_leaves=4, max_size=64)
        add("replace", [A_layout(l), A_lit(str(i)), A_layout(m)], "replace<%d>(a0, a2)" % i)
    for _ in range(65):
        l = lay(max_leaves=8, top_rank=r.choice([1, 2, 3, 4]))
        i = r.randrange(len(l[0]))
        add("get", [A_layout(l), A_lit(str(i))], "get<%d>(a0)" % i)
    for _ in range(70):
        l = lay(max_leaves=7, max_size=1024, top_rank=r.choice([1, 2, 2, 3]))
        c = rand_coord(l[0], 0.3)
        if not isinstance(c, tuple):
            c = (c,) if r.random() < 0.3 else c
        add("layout_at", [A_layout(l), A_it(c)], "a0(a1)")

    # ---------------- swizzle ----------------
    swz = [(0, 0, 0), (1, 0, 1), (2, 0, 2), (1, 1, 1), (2, 1, 2), (3, 3, 3), (3, 4, 3), (2, 4, 3),
           (1, 4, 3), (2, 3, 3), (3, 2, 3), (2, 2, 2), (2, 1, -2), (3, 0, -3), (2, 3, -3), (1, 2, 4)]
    for _ in range(70):
        sw = r.choice(swz)
        l = lay(max_leaves=5, max_size=256, kind=r.choice(["col", "row", "perm", "gap"]))
        if r.random() < 0.5:
            l = ((8, 2 ** r.randint(2, 5)), None)
            l = (l[0], compact_row(l[0]) if r.random() < 0.5 else compact_col(l[0]))
        add("swizzle", [A_swz(*sw), A_layout(l)], "composition(a0, a1)")
    swc_check = comp_check
    for _ in range(70):
        sw, base = r.choice(swz_atoms)
        sz = prod(base[0])
        if r.random() < 0.5:
            b = (r.choice(divisors(sz)), 1)
        else:
            d1 = r.choice([x for x in divisors(sz) if x <= 64])
            b = ((d1, r.choice(divisors(sz // d1))), None)
            b = (b[0], compact_col(b[0]) if r.random() < 0.5 else (b[0][1] if b[0][0] > 1 else 0, 1) if False else compact_row(b[0]))
        add("composition_swizzle", [A_swl(sw, base), A_layout(b)], "composition(a0, a1)", check=swc_check)

    # ---------------- make_layout ----------------
    for op, expr in (("make_layout", "make_layout(a0)"), ("make_layout_right", "make_layout(a0, LayoutRight{})")):
        for s in [1, 8, (4, 3), ((2, 2), 3), (4, 1, 2), (1,), (1, 1)]:
            add(op, [A_it(s)], expr)
        for _ in range(60):
            add(op, [A_it(g.shape(max_leaves=8, max_size=512))], expr)
    return cases
