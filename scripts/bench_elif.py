"""Cold derivation time of long if/elif chains (issue 14 item 4: linear in the number of branches).

    python scripts/bench_elif.py [--sizes 250,500,1000,2000] [--runs 3] [--shapes plain,loop]
                                 [--modes grad,jvp] [--cases SHAPE:MODE:N+N,...]
                                 [--root OTHER_CHECKOUT,...] [--profile N,MODE,SHAPE]

Typical before/after: `git archive <base> | tar -x -C /tmp/base` and `--root /tmp/base` (the other
checkouts run interleaved with this one's; run this script from a snapshot too if you keep editing).

Each measurement is a new Python interpreter with a brand-new cache directory that derives a
small function (start-up: imports, libcst, the cache directory; not counted) and then the chain
once (`mc.grad(f)(x)` or `mc.jvp(f, (x,), (1.0,))`): the whole derivation of the chain (lowering,
SSA, the transform, naming, printing, compiling, writing the cache) is counted.  Runs are interleaved
(every size and mode once, then again) and the median is shown, with time(2N)/time(N).  A plain
script, not a test: timings on a shared machine are noisy and nothing asserts on them.

Shapes: `plain` is `if x < 0: y = x * 1.0 / elif x < 1: y = x * 2.0 / ... / else: ...;
return y * x`; `loop` is the same chain inside a `for` loop that accumulates.
`--profile N,MODE,SHAPE` prints a cProfile of one cold derivation instead (top 30 by own time;
cProfile inflates small Python calls: time phases without it before trusting its shares).

`loop` in reverse mode was quadratic until the adjoints of the numbers a loop body defines were said to be
zero again at the reversed latch (reverse/transform.py `_rev_body`): the SSA builder, sealing the reversed
loop's header, had placed a phi for each branch's adjoint at every join of the chain (some 2 N^2 phis, all
redundant); 400 branches took 10.2 s, now 2.0 s (work linear: tests/test_scale_elif.py counts it).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def chain_source(n: int, shape: str) -> str:
    pad = "        " if shape == "loop" else "    "
    lines = ["def f(x):"]
    if shape == "loop":
        lines += ["    acc = 0.0", "    for j in range(3):", "        x = x + 0.25 * j"]
    for i in range(n):
        kw = "if" if i == 0 else "elif"
        lines += [f"{pad}{kw} x < {i - 1}:", f"{pad}    y = x * {i + 1}.0"]
    lines += [f"{pad}else:", f"{pad}    y = x * x"]
    if shape == "loop":
        lines += ["        acc = acc + y * x", "    return acc"]
    else:
        lines += ["    return y * x"]
    return "\n".join(lines) + "\n"


CHILD = textwrap.dedent("""\
    import importlib.util, json, sys, time
    path, mode, profile = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
    import mooncake_ast as mc
    spec = importlib.util.spec_from_file_location("chain", path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    run = (lambda: mc.grad(m.f)(3.3)) if mode == "grad" else (lambda: mc.jvp(m.f, (3.3,), (1.0,)))
    # One small derivation first, so that the one-off start-up (libcst's import, the cache
    # directory's set-up) is not counted: what is measured is the chain's own derivation.
    spec = importlib.util.spec_from_file_location("warm", path.replace("chain.py", "warm.py"))
    w = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(w)
    mc.grad(w.g)(0.5) if mode == "grad" else mc.jvp(w.g, (0.5,), (1.0,))
    if profile:
        import cProfile, pstats
        pr = cProfile.Profile()
        pr.enable(); run(); pr.disable()
        pstats.Stats(pr, stream=sys.stderr).sort_stats("tottime").print_stats(30)
        pstats.Stats(pr, stream=sys.stderr).sort_stats("cumtime").print_stats(40)
        print(json.dumps(0.0))
    else:
        t = time.perf_counter(); run(); t = time.perf_counter() - t
        print(json.dumps(t))
""")


a_timeout = 600


def measure(n: int, mode: str, shape: str, profile: bool = False, root: str = "") -> float:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "chain.py")
        with open(path, "w") as fh:
            fh.write(chain_source(n, shape))
        with open(os.path.join(tmp, "warm.py"), "w") as fh:
            fh.write("def g(x):\n    if x > 0:\n        y = x * 2.0\n    else:\n        y = x\n    return y * x\n")
        # (run in the temporary directory: `python -c` puts the working directory first on the path,
        # which would shadow the checkout being measured)
        env = dict(os.environ, PYTHONPATH=(root or ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
                   MOONCAKE_AST_CACHE_DIR=os.path.join(tmp, "cache"))
        p = subprocess.run([sys.executable, "-c", CHILD, path, mode, "1" if profile else "0"],
                           capture_output=True, text=True, env=env, timeout=a_timeout, cwd=tmp)
        if profile:
            sys.stdout.write(p.stderr)
        if p.returncode != 0:
            raise RuntimeError(p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "failed")
        return json.loads(p.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="250,500,1000,2000")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--shapes", default="plain,loop")
    ap.add_argument("--modes", default="grad,jvp")
    ap.add_argument("--profile", default="")
    ap.add_argument("--root", default="", help="other checkouts to measure too, comma-separated (a baseline; "
                    "runs interleaved with this one's)")
    ap.add_argument("--cases", default="", help="only these, e.g. plain:grad:250+500,loop:grad:50+100 (default: "
                    "--shapes x --modes x --sizes, but loop:grad at 100, 200, 400 only)")
    a = ap.parse_args()
    roots = [ROOT] + [os.path.abspath(r) for r in a.root.split(",") if r]
    if a.profile:
        n, mode, shape = a.profile.split(",")
        measure(int(n), mode, shape, profile=True)
        return
    sizes = [int(s) for s in a.sizes.split(",")]
    if a.cases:
        cases = [(s, m, int(n)) for part in a.cases.split(",") for s, m, ns in [part.split(":")] for n in ns.split("+")]
    else:
        cases = [(s, m, n) for s in a.shapes.split(",") for m in a.modes.split(",")
                 for n in ((100, 200, 400) if (s, m) == ("loop", "grad") else sizes)]
    cases = [(r, *c) for c in cases for r in roots]
    times: dict = {c: [] for c in cases}
    for _ in range(a.runs):
        for c in cases:
            try:
                times[c].append(measure(c[3], c[2], c[1], root=c[0]))
            except RuntimeError as e:
                times[c].append(str(e)[:70])
            except subprocess.TimeoutExpired:
                times[c].append("timed out")
    print(f"cold derivation, median of {a.runs} (new process, new cache directory each)")
    print("| checkout | shape | mode | N | median s | runs | ratio to N/2 |")
    print("|---|---|---|---|---|---|---|")
    med = {}
    for c in cases:
        ok = [t for t in times[c] if isinstance(t, float)]
        med[c] = statistics.median(ok) if len(ok) == len(times[c]) else None
        half = med.get((c[0], c[1], c[2], c[3] // 2))
        ratio = f"{med[c] / half:.2f}" if med[c] and half else ""
        shown = f"{med[c]:.2f}" if med[c] is not None else "error: " + str([t for t in times[c] if isinstance(t, str)][0])
        runs = " ".join(f"{t:.2f}" if isinstance(t, float) else "err" for t in times[c])
        print(f"| {os.path.basename(c[0])} | {c[1]} | {c[2]} | {c[3]} | {shown} | {runs} | {ratio} |")


if __name__ == "__main__":
    main()
