#!/usr/bin/env bash
# Round-trip checker: compare ferrocute's Display/evaluation of layout types with CuTe C++.
#
# usage: tests/oracle/roundtrip.sh INPUT_FILE
#   INPUT_FILE lines: ID|CPP_TYPE|RUST_DISPLAY|RUST_EVALS   ('#' lines and blank lines ignored)
#   CPP_TYPE   a default-constructible CuTe type, e.g. cute::Layout<cute::Shape<cute::_4,cute::_3>,cute::Stride<cute::_1,cute::_4>>
#   RUST_EVALS space-separated L(i) for i in 0..size(L); may be left empty when size(L) > 1024.
# env: FERROCUTE_TOOLCHAIN (default /opt/cu13), CXX (default g++), RT_BATCH (default 100), RT_JOBS (default 2)
# Exit status 0 when every line matches, 1 otherwise; prints "N passed, M failed".
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 INPUT_FILE" >&2; exit 2; }
exec python3 - "$1" <<'PY'
import concurrent.futures, os, re, subprocess, sys, tempfile, shutil

tc = os.environ.get("FERROCUTE_TOOLCHAIN", "/opt/cu13")
cxx = os.environ.get("CXX", "g++")
batch = int(os.environ.get("RT_BATCH", "100"))
jobs = int(os.environ.get("RT_JOBS", "2"))
inc = [os.path.join(tc, "cutlass_library", "source", "include"),
       os.path.join(tc, "nvidia", "cu13", "include"),
       os.path.join(tc, "nvidia", "cu13", "include", "cccl")]
strip = re.compile(r"_(?=\d)")

entries = []
with open(sys.argv[1]) as f:
    for n, line in enumerate(f, 1):
        line = line.rstrip("\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.split("|")
        if len(parts) != 4:
            print("line %d: expected 4 '|'-separated fields: %s" % (n, line)); sys.exit(2)
        entries.append(parts)

PRE = r'''#include <cute/layout.hpp>
#include <cute/layout_composed.hpp>
#include <cute/swizzle.hpp>
#include <cute/swizzle_layout.hpp>
#include <cstdio>
template <class X> void rt_ev(X const& x) {
  long long n = (long long)(cute::size(x));
  if (n > 65536) { printf("|BIG %lld", n); return; }
  printf("|%lld", n);
  for (long long i = 0; i < n; ++i) printf(i ? " %lld" : "|%lld", (long long)(x(int(i))));
}
'''

def build(k, items, work):
    lines = PRE.split("\n")
    owner = {}
    items = list(items)
    results = {}
    while items:
        body = list(lines)
        for j, (eid, ty, _, _) in enumerate(items):
            start = len(body) + 1
            body += ["static void rt_%d() {" % j,
                     "  using X = %s;" % ty,
                     "  X x{};",
                     '  printf("@%d|");' % j,
                     "  cute::print(x); rt_ev(x);",
                     '  printf("\\n"); fflush(stdout);',
                     "}"]
            for ln in range(start, len(body) + 1):
                owner[ln] = j
        body.append("int main() {")
        body += ["  rt_%d();" % j for j in range(len(items))]
        body.append("  return 0;\n}")
        src = os.path.join(work, "rt%d.cpp" % k)
        exe = os.path.join(work, "rt%d" % k)
        with open(src, "w") as f:
            f.write("\n".join(body) + "\n")
        cmd = [cxx, "-std=c++17", "-O0", "-w"] + sum([["-I", i] for i in inc], []) + [src, "-o", exe]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode == 0:
            break
        bad = {owner[int(m.group(1))] for m in re.finditer(r"rt%d\.cpp:(\d+):" % k, p.stderr)
               if int(m.group(1)) in owner}
        if not bad:
            for e in items:
                results[e[0]] = ("COMPILE ERROR", p.stderr[-600:])
            return results
        msg = p.stderr
        for j in bad:
            results[items[j][0]] = ("COMPILE ERROR", "C++ type does not compile")
        items = [e for j, e in enumerate(items) if j not in bad]
        owner = {}
    if not items:
        return results
    p = subprocess.run([exe], capture_output=True, text=True)
    seen = set()
    for line in p.stdout.split("\n"):
        if not line.startswith("@"):
            continue
        j, rest = line[1:].split("|", 1)
        fields = rest.split("|")
        disp = strip.sub("", fields[0])
        evals = fields[2] if len(fields) > 2 else ""
        size = fields[1]
        results[items[int(j)][0]] = (disp, (size, evals))
        seen.add(int(j))
    for j, e in enumerate(items):
        if j not in seen:
            results[e[0]] = ("RUN ERROR", "exit %d" % p.returncode)
    return results

work = tempfile.mkdtemp(prefix="ferrocute_rt_")
res = {}
try:
    chunks = [entries[i:i + batch] for i in range(0, len(entries), batch)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
        for r in ex.map(lambda a: build(a[0], a[1], work), enumerate(chunks)):
            res.update(r)
finally:
    shutil.rmtree(work, ignore_errors=True)

passed = failed = 0
for eid, ty, rdisp, revals in entries:
    cdisp, info = res[eid]
    problems = []
    if cdisp in ("COMPILE ERROR", "RUN ERROR"):
        problems.append("%s: %s" % (cdisp, info))
    else:
        size, cevals = info
        if cdisp != rdisp.strip():
            problems.append("display: C++ %r\n          Rust %r" % (cdisp, rdisp.strip()))
        rv = revals.split()
        if size.startswith("BIG"):
            if rv:
                problems.append("evals: layout too big for C++ evaluation (%s), Rust gave values" % size)
        elif not (int(size) > 1024 and not rv):
            cv = cevals.split()
            if cv != rv:
                k = next((i for i in range(max(len(cv), len(rv)))
                          if i >= len(cv) or i >= len(rv) or cv[i] != rv[i]), 0)
                problems.append("evals: %d C++ values vs %d Rust values; first difference at i=%d: C++ %s, Rust %s"
                                % (len(cv), len(rv), k, cv[k] if k < len(cv) else "-", rv[k] if k < len(rv) else "-"))
    if problems:
        failed += 1
        print("FAIL %s  %s" % (eid, ty))
        for pr in problems:
            print("    " + pr)
    else:
        passed += 1
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
PY
