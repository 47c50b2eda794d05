"""`mooncake-ast generate` over the construct corpus (audit13_constructs.py), as an outside tester runs it:

    python scripts/audit13_standalone.py [-k WORD] [-v]

For each function of the corpus: `generate --mode both` into a temporary directory, then one fresh process
where libcst cannot be imported and the cache directory is empty imports every written module and runs
`f__jvp(x, dx)` and `f__vjp(x)`; the values and derivatives must agree with central differences (computed
here), and nothing may be derived there.  A function mc.grad refuses must be refused by generate too (exit
2, one line).  One row per function; exit code 1 if any fails.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

RUN = r"""
import importlib, importlib.abc, inspect, json, os, sys

class NoLibcst(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "libcst" or name.startswith("libcst."):
            raise ImportError("libcst is not installed here")
        return None

sys.meta_path.insert(0, NoLibcst())
out_dir, names, x = sys.argv[1], sys.argv[2].split(","), float(sys.argv[3])
sys.path.insert(0, out_dir)
results = {}
for name in names:
    try:
        fwd = importlib.import_module(f"audit13_constructs_{name}_forward")
        rev = importlib.import_module(f"audit13_constructs_{name}_reverse")
        user = sys.modules["audit13_constructs"]
        jvp = getattr(fwd, f"{name}__jvp")
        first = next(iter(inspect.signature(jvp).parameters))
        pre = (getattr(user, name), None) if first == name else ()
        y, dy = jvp(*pre, x, 1.0)
        value, pullback = getattr(rev, f"{name}__vjp")(x)
        results[name] = [float(y), float(dy), float(value), float(pullback(1.0)[0])]
    except Exception as e:
        from mooncake_ast import MooncakeError
        results[name] = f"{'refused' if isinstance(e, MooncakeError) else 'error'}: {type(e).__name__}: {e}"
cache = os.environ["MOONCAKE_AST_CACHE_DIR"]
derived = [m for m in ("mooncake_ast.frontend.statements", "mooncake_ast.emit.module") if m in sys.modules]
print(json.dumps({"results": results, "derived": derived,
                  "cache": sorted(os.listdir(cache)) if os.path.isdir(cache) else []}))
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-k", default="", help="only the functions whose name contains this")
    ap.add_argument("-v", action="store_true", help="print details of passing rows too")
    args = ap.parse_args()
    sys.path.insert(0, HERE)
    import audit13_constructs as corpus
    import mooncake_ast as mc

    work = tempfile.mkdtemp(prefix="audit13_standalone_")
    src = os.path.join(work, "src")
    out = os.path.join(work, "out")
    os.makedirs(src)
    shutil.copy(os.path.join(HERE, "audit13_constructs.py"), src)
    env = dict(os.environ, PYTHONPATH=ROOT, PYTHONDONTWRITEBYTECODE="1")
    x = 0.63  # (not a kink of any of them: divmod(x, 0.7))
    rows, written = [], []
    for name in corpus.CASES:
        if args.k not in name:
            continue
        f = getattr(corpus, name)
        try:
            mc.grad(f)(x)
            refused = None
        except mc.MooncakeError as e:
            refused = str(e).splitlines()[0]
        p = subprocess.run([sys.executable, "-m", "mooncake_ast", "generate", f"audit13_constructs.py::{name}",
                            "--mode", "both", "-o", out], capture_output=True, text=True, cwd=src, env=env)
        if refused is not None and p.returncode:
            ok = p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1
            rows.append((name, ok, f"refused as mc.grad refuses it ({refused[:80]})" if ok else p.stderr[-300:]))
        elif p.returncode:
            rows.append((name, False, p.stderr.strip()[-300:]))
        else:
            written.append((name, refused))
    q = subprocess.run([sys.executable, "-c", RUN, out, ",".join(n for n, _ in written), str(x)], capture_output=True, text=True,
                       cwd=work, env=dict(env, MOONCAKE_AST_CACHE_DIR=os.path.join(work, "empty_cache")))
    if q.returncode:
        print(q.stderr[-2000:])
        return 1
    report = json.loads(q.stdout.strip().splitlines()[-1])
    h = 1e-6
    for name, refused in written:
        f = getattr(corpus, name)
        got = report["results"][name]
        if refused is not None:  # mc.grad refuses it when it runs: so must the written module
            ok = isinstance(got, str) and got.startswith("refused")
            rows.append((name, ok, f"refused as mc.grad refuses it: {got[:120] if ok else got}"))
            continue
        if isinstance(got, str):
            rows.append((name, False, got[:300]))
            continue
        fx, fd = f(x), (f(x + h) - f(x - h)) / (2 * h)
        tol = 1e-5 * max(1.0, abs(fd))
        ok = abs(got[0] - fx) <= 1e-9 * max(1.0, abs(fx)) and abs(got[2] - fx) <= 1e-9 * max(1.0, abs(fx)) \
            and abs(got[1] - fd) <= tol and abs(got[3] - fd) <= tol
        rows.append((name, ok, f"value {got[0]:.6g}, jvp {got[1]:.8g}, vjp {got[3]:.8g}, central {fd:.8g}"))
    ok_env = not report["derived"] and not report["cache"]
    rows.append(("(nothing derived, nothing cached in the fresh process)", ok_env,
                 f"derived: {report['derived']}, cache: {report['cache']}"))
    width = max(len(n) for n, _, _ in rows)
    for name, ok, detail in rows:
        print(f"  {'PASS' if ok else 'FAIL'}  {name:<{width}}" + (f"  {detail}" if not ok or args.v else ""))
    fails = sum(not ok for _, ok, _ in rows)
    print(f"\n{len(rows) - fails} / {len(rows)} pass  (work dir {work})")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
