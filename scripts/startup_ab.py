"""Compare the start-up figures of two checkouts, interleaved (issue 11).

`python scripts/startup_ab.py OTHER [N] [--cpu] [--rows=a,b]`.

On a shared machine two runs of examples/bench_startup.py minutes apart see different loads; this runs
the same fresh-process scenario in both checkouts one after the other, N times (default 15), and prints
min / first quartile / median per checkout: `import mooncake_ast` after numpy (with SciPy installed, and
with SciPy hidden), the warm hit (a new process, the derivative cached), the first gradient of a new
15-line function once libcst is imported, and the same including libcst's import (a cache directory in
use in each case; where libcst is imported first, the full collection the imports left due is made
before the timer, as examples/bench_startup.py explains), and the first reverse gradient of a function
of 160 if-blocks, of a 300-line function and of a realistic 300-line one (loops, branches, array code, calls)
(libcst imported; rows not run by default: `--rows=derive`).
`--cpu` measures the process's CPU time (waiting for a core not counted), steadier when the machine is
busy.  `--rows=import,warm` runs only the rows whose names start with those words.  Not a test: nothing
asserts on the numbers.
"""
from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(HERE, "examples"))
from bench_startup import fifteen_line_source, if_blocks_source, long_function_source, realistic_function_source  # noqa: E402

CLOCK = "process_time" if "--cpu" in sys.argv else "perf_counter"
GRAD = ("x = {arg}\nt = time.{clock}()\nmc.grad(m.f)(x)\n"
        "print(json.dumps({{'t': time.{clock}() - t, 'libcst': 'libcst' in sys.modules}}))\n")


def run(tree: str, work: str, cache: str, module: str, pre: str = "", arg: str = "np.array([0.1, 0.2, 0.3])") -> dict:
    code = (f"import json, sys, time\nsys.path.insert(0, {work!r})\nimport numpy as np\nimport mooncake_ast as mc\n{pre}"
            f"import {module} as m\n" + GRAD.format(clock=CLOCK, arg=arg))
    env = dict(os.environ, PYTHONPATH=tree, MOONCAKE_AST_CACHE_DIR=cache)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as users run: modules' bytecode cached
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=work, timeout=300)
    if p.returncode:
        raise SystemExit(p.stderr[-2000:])
    return json.loads(p.stdout.strip().splitlines()[-1])


def run_import(tree: str, work: str, hide_scipy: bool) -> dict:
    code = (("import sys; sys.modules['scipy'] = None\n" if hide_scipy else "") +
            f"import json, sys, time, numpy\nt = time.{CLOCK}()\nimport mooncake_ast\n"
            f"print(json.dumps({{'t': time.{CLOCK}() - t}}))\n")
    env = dict(os.environ, PYTHONPATH=tree)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=work, timeout=300)
    if p.returncode:
        raise SystemExit(p.stderr[-2000:])
    return json.loads(p.stdout.strip().splitlines()[-1])


ROWS = ("import", "import, SciPy hidden", "warm hit", "first, libcst imported", "first, all in", "derive 160 if-blocks",
        "derive 300-line function", "derive realistic 300 lines")
SIZES = {"derive 160 if-blocks": (if_blocks_source, 160, "0.3"), "derive 300-line function": (long_function_source, 300, "0.3"),
         "derive realistic 300 lines": (realistic_function_source, 300, "np.array([0.3, -0.2, 0.5])")}


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if not args:
        raise SystemExit(__doc__)
    trees = {"this": HERE, "other": os.path.abspath(args[0])}
    n = int(args[1]) if len(args) > 1 else 15
    src = fifteen_line_source().replace("def model(", "def f(")
    work = tempfile.mkdtemp(prefix="mc_ab_")
    wanted = next((a.split("=", 1)[1].split(",") for a in sys.argv if a.startswith("--rows=")), None)
    names = [r for r in ROWS if (r not in SIZES if wanted is None else any(r.startswith(w) for w in wanted))]
    rows: dict = {(k, what): [] for what in names for k in trees}
    try:
        with open(os.path.join(work, "warm.py"), "w") as fh:
            fh.write(src)
        for k, tree in trees.items():  # a cache directory in use, holding warm.f's derivative (and bytecode written)
            run(tree, work, os.path.join(work, f"cache_{k}"), "warm")
        for i in range(n):
            for what in names:
                for k, tree in trees.items():
                    cache = os.path.join(work, f"cache_{k}")
                    if what.startswith("import"):
                        out = run_import(tree, work, "hidden" in what)
                    elif what == "warm hit":
                        out = run(tree, work, cache, "warm")
                        assert not out["libcst"], "a warm hit must not import libcst"
                    else:
                        name = f"new_{k}_{i}_{names.index(what)}"  # (a new function: its module's name is in its key)
                        with open(os.path.join(work, f"{name}.py"), "w") as fh:
                            make, n_size, arg = SIZES.get(what, (None, 0, "np.array([0.1, 0.2, 0.3])"))
                            fh.write(make(n_size) if make else src)
                        pre = "import libcst, libcst.metadata, gc\ngc.collect()\n" if "all in" not in what else ""
                        out = run(tree, work, cache, name, pre, arg)
                    rows[(k, what)].append(out["t"])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{n} interleaved fresh processes per row, {'CPU' if CLOCK == 'process_time' else 'wall'} time; this = {HERE}, other = {trees['other']}")
    for (k, what), ts in rows.items():
        ts.sort()
        print(f"{what:24s} {k:5s}  min {ts[0] * 1e3:7.2f}  q1 {ts[len(ts) // 4] * 1e3:7.2f}  median {statistics.median(ts) * 1e3:7.2f} ms")


if __name__ == "__main__":
    main()
