#!/usr/bin/env python3
"""Turns tests/oracle/corpus.txt into tests/oracle/cases.rs: one Rust statement per case that
computes the case with ferrocute's *static* layout types (so rustc's const evaluator does the
algebra) and hands the result to the checker in tests/oracle_corpus.rs.

Usage: emit_rust.py [--check]   (--check: fail if cases.rs is not what this would write)
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus.txt")
OUT = os.path.join(HERE, "cases.rs")
CHUNK = 100  # cases per generated #[test] fn: small fns keep rustc's per-fn passes cheap


def split_top(s, sep=","):
    """Split at `sep` outside brackets."""
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "([<":
            depth += 1
        elif ch in ")]>":
            depth -= 1
        if ch == sep and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return out


def lay(t):
    t = t.strip()
    m = re.fullmatch(r"Sw<(-?\d+),(-?\d+),(-?\d+)> o (\d+) o (.*)", t)
    if m:
        b, mm, s, off, inner = m.groups()
        assert off == "0", t
        return f"composition(Swizzle::<{b}, {mm}, {s}>, {lay(inner)})"
    if t.startswith("["):
        parts = split_top(t[1:-1])
        return "(" + "".join(elem(p) + ", " for p in parts) + ")"
    return f"layout!({t})"


def elem(p):
    return lay(p) if (":" in p or p.startswith("[")) else tup(p)


def tup(t):
    return f"tuple!({t.strip()})"


def emit(cid, op, args):
    a = args
    L = lay
    simple_unary = {
        "coalesce": "coalesce", "filter": "filter", "complement_noarg": "complement_cosize",
        "right_inverse": "right_inverse", "left_inverse": "left_inverse", "flatten": "flatten",
    }
    if op in simple_unary:
        r = f"{simple_unary[op]}({L(a[0])})"
        post = {"right_inverse": "post_right_inverse", "left_inverse": "post_left_inverse"}.get(op)
        if post:
            return f"{{ let x = {L(a[0])}; let r = {r}; {post}(&x, &r); lay({cid}, r); }}"
        return f"lay({cid}, {r});"
    if op in ("make_layout", "make_layout_right"):
        return f"lay({cid}, {op}({tup(a[0])}));"
    if op in ("size", "cosize", "rank", "depth"):
        return f"int({cid}, {L(a[0])}.{op}());"
    if op == "composition":
        return (f"{{ let (x, y) = ({L(a[0])}, {L(a[1])}); let r = composition(x, y); "
                f"post_composition(&x, &y, &r); lay({cid}, r); }}")
    if op in ("composition_tiler", "composition_swizzle"):
        return f"lay({cid}, composition({L(a[0])}, {L(a[1])}));"
    if op == "swizzle":
        m = re.fullmatch(r"Sw<(-?\d+),(-?\d+),(-?\d+)>", a[0])
        return f"lay({cid}, composition(Swizzle::<{m[1]}, {m[2]}, {m[3]}>, {L(a[1])}));"
    if op in ("composition_shape", "coalesce_profile", "complement_shape", "complement"):
        f = {"composition_shape": "composition", "complement_shape": "complement"}.get(op, op)
        if op.startswith("complement"):
            return (f"{{ let x = {L(a[0])}; let r = {f}(x, {tup(a[1])}); "
                    f"post_complement(&x, &r); lay({cid}, r); }}")
        return f"lay({cid}, {f}({L(a[0])}, {tup(a[1])}));"
    if op == "max_common_layout":
        return f"lay({cid}, max_common_layout({L(a[0])}, {L(a[1])}));"
    if op == "max_common_vector":
        return f"int({cid}, max_common_vector({L(a[0])}, {L(a[1])}).unwrap());"
    divs = ("logical_divide", "zipped_divide", "tiled_divide", "flat_divide",
            "logical_product", "zipped_product", "tiled_product", "flat_product",
            "blocked_product", "raked_product")
    base = op[:-6] if op.endswith("_tiler") else op
    if base in divs:
        return f"lay({cid}, {base}({L(a[0])}, {L(a[1])}));"
    if op == "tile_to_shape":
        return f"lay({cid}, tile_to_shape({L(a[0])}, {tup(a[1])}));"
    if op == "make_layout_tv":
        return f"{{ let (t, r) = make_layout_tv({L(a[0])}, {L(a[1])}); tv({cid}, &t, r); }}"
    if op == "crd2idx":
        return f"int({cid}, crd2idx({tup(a[0])}, {tup(a[1])}, {tup(a[2])}).unwrap());"
    if op == "idx2crd":
        return f"int({cid}, idx2crd({tup(a[0])}, {tup(a[1])}).unwrap());"
    if op == "idx2crd_stride":
        return f"int({cid}, algebra::idx2crd_with({a[0]}, &{tup(a[1])}.value().shape, &{tup(a[2])}.value().shape));"
    if op == "slice":
        return f"lay({cid}, slice({tup(a[0])}, {L(a[1])}));"
    if op == "slice_and_offset":
        return f"{{ let (r, o) = slice_and_offset({tup(a[0])}, {L(a[1])}); pair({cid}, r, o); }}"
    if op == "layout_at":
        return f"int({cid}, {L(a[0])}.at({tup(a[1])}));"
    if op == "select":
        idx = a[1].strip("<>").split(",")
        idx += ["{usize::MAX}"] * (4 - len(idx))
        return f"lay({cid}, select::<{', '.join(idx)}, _>({L(a[0])}));"
    if op == "take":
        return f"lay({cid}, take::<{a[1]}, {a[2]}, _>({L(a[0])}));"
    if op == "group_modes":
        return f"lay({cid}, group_modes::<{a[1]}, {a[2]}, _>({L(a[0])}));"
    if op == "get":
        return f"lay({cid}, get::<{a[1]}, _>({L(a[0])}));"
    if op in ("append", "prepend"):
        return f"lay({cid}, {op}({L(a[0])}, {L(a[1])}));"
    if op == "replace":
        return f"lay({cid}, replace::<{a[1]}, _, _>({L(a[0])}, {L(a[2])}));"
    raise SystemExit(f"emit_rust.py: no Rust form for op {op!r} (case {cid})")


def render():
    stmts = []
    for line in open(CORPUS):
        line = line.rstrip("\n")
        if not line or line.startswith("#") or line.startswith("ID|"):
            continue
        f = line.split("|")
        cid, op, args = int(f[0]), f[1], f[2:-2]
        stmts.append(emit(cid, op, args))
    out = ["// Generated by tests/oracle/emit_rust.py from corpus.txt. Do not edit.",
           "// Every case runs through ferrocute's static layout types.", ""]
    for k in range(0, len(stmts), CHUNK):
        out.append("#[test]")
        out.append(f"fn corpus_{k // CHUNK:03}() {{")
        out += ["    " + s for s in stmts[k:k + CHUNK]]
        out.append("}")
        out.append("")
    return "\n".join(out), len(stmts)


def main():
    text, n = render()
    if "--check" in sys.argv:
        if open(OUT).read() != text:
            raise SystemExit("tests/oracle/cases.rs is stale: run tests/oracle/emit_rust.py")
        print(f"cases.rs is current ({n} cases)")
        return
    open(OUT, "w").write(text)
    print(f"wrote {OUT}: {n} cases")


if __name__ == "__main__":
    main()
