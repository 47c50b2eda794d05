"""Start-up and derivation-speed benchmark (issue 11): how long until a first gradient.

Run with `make bench` (after examples/bench.py) or `python examples/bench_startup.py`.
A plain script that prints a table, not a timed test: the numbers are noisy on a shared
machine and nothing asserts on them.

Every "fresh process" row runs a new Python interpreter (`subprocess`), since what is
measured is exactly what a new process pays: imports, reading the cache, keys.  Rows:

* `import mooncake_ast` beyond `import numpy`, with SciPy installed and with SciPy hidden;
* the first gradient of a new 15-line function: in a cache directory in use (where libcst's
  compiled dataclass methods and the compiled code of the modules generation imports are kept, see
  mooncake_ast/cache_classes.py and cache_modules.py), in a brand-new one,
  and in a process that has imported libcst already (the derivation and our lowering modules);
* `import libcst` plainly and as mooncake_ast imports it (compiled methods kept);
* the first forward derivative (`mc.jvp`) of the same function, libcst imported;
* the same gradient in a new process whose cache already holds it (warm cache);
* the call overhead of `mc.grad(f)(x)` and `mc.jvp` once derived, beyond calling `f(x)`, and
  on a float array beyond the generated forward and pullback themselves;
* derivation time against function size (doubling sizes, so that growth beyond linear shows): 40/80/160/320
  if-blocks, a function of 300 and 600 lines of straight lines and branches, a realistic function of 150, 300,
  600 and 1200 lines (loops, branches, array code, calls of helpers), and
  if/elif chains of 100/200/500/1000 branches, and of 200/400 inside a loop (first reverse gradient,
  libcst imported, in a cache directory where another function was derived before).

The rows timed "libcst already imported" settle first any full collection that the imports left
due (`gc.collect()` before the timer): such a pass (over about 53,000 objects, 20-25 ms of CPU on
the project's machine) is paid by the next ~700 container allocations after the imports, whatever
they are (`[[] for _ in range(800)]`), so it is the imports' cost, not the gradient's.  Before
`import mooncake_ast` paused the collector (mooncake_ast/__init__.py), `import numpy,
mooncake_ast, libcst` left one due, and a gradient made first thing paid it; the row "... pending
collection not settled" measures that case, for comparison.

Medians of a few runs; `--quick` runs fewer, `--no-sizes` skips the derivation-size rows, `--cpu`
measures the fresh processes' CPU time instead of wall time (steadier on a shared machine).  To
compare two checkouts on a busy machine, `python scripts/startup_ab.py OTHER_CHECKOUT [N] [--cpu]`
runs the warm-hit and first-gradient rows of both, interleaved.
"""
from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import timeit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)  # this checkout's mooncake_ast, also for the in-process rows
QUICK = "--quick" in sys.argv
RUNS = 3 if QUICK else 7
# --cpu: the fresh-process rows measure the process's CPU time (time.process_time) instead of wall time,
# steadier on a shared machine (waiting for a core is not counted; the disk is, as system time).
CLOCK = "process_time" if "--cpu" in sys.argv else "perf_counter"


def fifteen_line_source() -> str:
    """A new 15-line user function (a loop, a branch, NumPy calls)."""
    return textwrap.dedent('''\
        import numpy as np


        def model(w):
            x = np.linspace(0.0, 1.0, 8)
            y = np.sin(3.0 * x)
            pred = w[0] + w[1] * x + w[2] * x ** 2
            err = pred - y
            total = 0.0
            for i in range(len(err)):
                e = err[i]
                if e > 0:
                    total = total + e * e
                else:
                    total = total + 0.5 * e * e
            reg = 0.01 * np.sum(w * w)
            scale = np.exp(-0.1 * w[0])
            out = total * scale + reg
            return out
        ''')


def if_blocks_source(n: int) -> str:
    """A function of `n` consecutive if/else blocks."""
    lines = ["import numpy as np", "", "", "def f(x):", "    y = x"]
    for i in range(n):
        c = round(0.1 * (i % 7) - 0.3, 2)
        lines += [f"    if y > {c}:", "        y = y * 0.9 + 0.1 * np.sin(x)", "    else:", f"        y = y + 0.05 * x * {i % 5 + 1}"]
    lines.append("    return y")
    return "\n".join(lines) + "\n"


def long_function_source(n_lines: int) -> str:
    """A straight-line-and-branches function of about `n_lines` lines."""
    lines = ["import numpy as np", "", "", "def f(x):", "    a = x", "    b = 2.0 * x"]
    i = 0
    while len(lines) < n_lines + 4:
        k = i % 6
        if k == 0:
            lines.append(f"    a = a + 0.01 * np.sin(b + {i})")
        elif k == 1:
            lines.append("    b = b * 0.99 + 0.001 * a * a")
        elif k == 2:
            lines += ["    if a > b:", "        a = a - 0.01 * b"]
        elif k == 3:
            lines.append(f"    c{i} = np.tanh(a) + np.cos(b)")
        elif k == 4:
            lines.append(f"    a = a + 0.001 * c{i - 1}")
        else:
            lines.append("    b = b + 0.001 * np.exp(-a * a)")
        i += 1
    lines.append("    return a + b")
    return "\n".join(lines) + "\n"


def realistic_function_source(n_lines: int = 300) -> str:
    """A function of about `n_lines` lines written as people write them: blocks of a layer (`np.tanh(W @ x +
    b)`), a loop over its items with a branch, calls of two helper functions of the module (one with a loop of
    its own), a data-dependent `while`, NumPy reductions.  Derived with its callees (first reverse gradient)."""
    head = textwrap.dedent('''\
        import numpy as np

        W = np.linspace(-1.0, 1.0, 36).reshape(4, 3, 3)


        def _step(h, s):
            return h * s / (1.0 + s * s)


        def _norm2(v):
            total = 0.0
            for k in range(len(v)):
                total = total + v[k] * v[k]
            return total


        def f(x):
            acc = 0.0
            b = 0.5
        ''')
    lines = head.splitlines()
    start = len(lines)
    i = 0
    while len(lines) - start < n_lines - 1:
        c = round(0.1 * (i % 5) + 0.1, 2)
        lines += [
            f"    # block {i}: a layer, a loop with a branch, a call, a while",
            f"    h{i} = np.tanh(W[{i % 4}] @ x + b * {c})",
            f"    s{i} = 0.0",
            f"    for j in range(3):",
            f"        if h{i}[j] > 0.0:",
            f"            s{i} = s{i} + h{i}[j] * h{i}[j]",
            f"        else:",
            f"            s{i} = s{i} - 0.5 * h{i}[j]",
            f"    x = x + 0.1 * _step(h{i}, s{i})",
            f"    while s{i} > 1.0:",
            f"        s{i} = s{i} * 0.5",
            f"    acc = acc + s{i} + 0.01 * _norm2(x) + np.sum(np.exp(-x * x)) / {i + 1}",
        ]
        i += 1
    lines.append("    return acc")
    return "\n".join(lines) + "\n"


def elif_chain_source(n: int) -> str:
    lines = ["def f(x):", "    k = int(x * 7) % " + str(n)]
    for i in range(n):
        lines += [f"    {'if' if i == 0 else 'elif'} k == {i}:", f"        y = x * {i + 1} + x * x"]
    lines += ["    else:", "        y = x", "    return y"]
    return "\n".join(lines) + "\n"


def elif_chain_in_loop_source(n: int) -> str:
    """The chain inside a loop that accumulates (its reverse mode was quadratic: scripts/bench_elif.py)."""
    lines = ["def f(x):", "    acc = 0.0", "    for j in range(3):", "        x = x + 0.25 * j"]
    for i in range(n):
        lines += [f"        {'if' if i == 0 else 'elif'} x < {i - 1}:", f"            y = x * {i + 1}.0"]
    lines += ["        else:", "            y = x * x", "        acc = acc + y * x", "    return acc"]
    return "\n".join(lines) + "\n"


def run(code: str, env: dict | None = None) -> dict:
    """Run `code` in a new interpreter; it prints one JSON object as its last line."""
    e = dict(os.environ)
    e.pop("PYTHONDONTWRITEBYTECODE", None)  # as users run: modules' bytecode cached in __pycache__
    e["PYTHONPATH"] = ROOT + os.pathsep + e.get("PYTHONPATH", "")
    e.update(env or {})
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=e, timeout=300)
    if p.returncode != 0:
        raise RuntimeError(p.stderr[-2000:])
    return json.loads(p.stdout.strip().splitlines()[-1])


HIDE_SCIPY = "import sys; sys.modules['scipy'] = None\n"


def import_time(hide_scipy: bool, user_scipy: bool = False) -> float:
    code = (HIDE_SCIPY if hide_scipy else "") + textwrap.dedent(f"""\
        import json, time, numpy
        {'import scipy.special' if user_scipy else ''}
        t = time.{CLOCK}()
        import mooncake_ast
        print(json.dumps({{"t": time.{CLOCK}() - t}}))
        """)
    return statistics.median(run(code)["t"] for _ in range(RUNS))


def gradient_in_new_process(workdir: str, cache: str, module: str = "model") -> dict:
    code = textwrap.dedent(f"""\
        import json, sys, time
        sys.path.insert(0, {workdir!r})
        import numpy as np
        t0 = time.{CLOCK}()
        import mooncake_ast as mc
        t1 = time.{CLOCK}()
        import {module} as model
        w = np.array([0.1, 0.2, 0.3])
        t2 = time.{CLOCK}()
        g = mc.grad(model.model)(w)
        t3 = time.{CLOCK}()
        print(json.dumps({{"import": t1 - t0, "grad": t3 - t2, "libcst": "libcst" in sys.modules}}))
        """)
    return run(code, {"MOONCAKE_AST_CACHE_DIR": cache})


def libcst_import_time(cache: str | None = None) -> float | str:
    """`import libcst` plainly, or (with a cache directory) as mooncake_ast imports it."""
    if cache and not os.path.exists(os.path.join(ROOT, "mooncake_ast", "cache_classes.py")):
        return "n/a (a checkout before cache_classes)"
    before, how = ("import mooncake_ast.cache_classes as cc\n", "cc.import_libcst()") if cache else ("", "import libcst, libcst.metadata")
    if cache and os.path.exists(os.path.join(ROOT, "mooncake_ast", "cache_modules.py")):  # (its modules kept too)
        before += "import mooncake_ast.cache_modules as cm\n"
        how = f"with cm.KeptModules():\n    {how}"
    code = f"import json, time, numpy\n{before}t = time.{CLOCK}()\n{how}\nprint(json.dumps({{'t': time.{CLOCK}() - t}}))"
    env = {"MOONCAKE_AST_CACHE_DIR": cache} if cache else None
    return statistics.median(run(code, env)["t"] for _ in range(RUNS))


def first_and_warm() -> dict:
    """Medians over RUNS cache directories, each new: the first gradient (the directory's first use), the
    same gradient in a new process (warm), then a new function's first gradient (the directory in use)."""
    work = tempfile.mkdtemp(prefix="mc_bench_")
    try:
        for name in ("model", "model2"):  # two modules: two functions with their own keys
            with open(os.path.join(work, f"{name}.py"), "w") as fh:
                fh.write(fifteen_line_source())
        firsts, warms, news = [], [], []
        for i in range(RUNS):
            cache = os.path.join(work, f"cache{i}")
            firsts.append(gradient_in_new_process(work, cache)["grad"])
            warm = gradient_in_new_process(work, cache)
            assert not warm["libcst"], "a warm hit must not import libcst"
            warms.append(warm["grad"])
            news.append(gradient_in_new_process(work, cache, "model2")["grad"])
        return {"first": statistics.median(firsts), "warm": statistics.median(warms), "new": statistics.median(news),
                "libcst": libcst_import_time(), "libcst kept": libcst_import_time(os.path.join(work, "cache0"))}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def call_overhead() -> tuple[float, float, float, float]:
    """Seconds beyond f(x) of: mc.grad(f)(x), a held g(x), mc.jvp(f, (x,), (1.0,)), and mc.grad of an
    array function beyond its generated forward and pullback (what dispatch adds on arrays)."""
    import numpy as np

    import mooncake_ast as mc
    from mooncake_ast.reverse import fastpath

    def f(x):
        return x * x

    def fa(x):
        return x @ x  # (no global or closure read: np here would be a closure cell of this function)

    x = 1.5
    xa = np.linspace(0.5, 1.5, 3)
    g = mc.grad(f)
    g(x)
    mc.jvp(f, (x,), (1.0,))
    ga = mc.grad(fa)
    ga(xa)
    gen = fastpath.fast_rule(fa, (xa,), frozenset({0})).gen

    def generated() -> None:
        gen.pullback(1.0, (gen.forward(fa, xa) if gen.takes_self else gen.forward(xa))[1])

    n = 20000
    t_f = min(timeit.repeat(lambda: f(x), number=n, repeat=5)) / n
    t_g = min(timeit.repeat(lambda: mc.grad(f)(x), number=n, repeat=5)) / n
    t_h = min(timeit.repeat(lambda: g(x), number=n, repeat=5)) / n
    t_j = min(timeit.repeat(lambda: mc.jvp(f, (x,), (1.0,)), number=n, repeat=5)) / n
    t_a = min(timeit.repeat(lambda: ga(xa), number=n, repeat=5)) / n
    t_gen = min(timeit.repeat(generated, number=n, repeat=5)) / n
    return t_g - t_f, t_h - t_f, t_j - t_f, t_a - t_gen


PRIME = "def p(x):\n    return x * x\n"


def derivation_time(source: str, arg: str = "0.3", runs: int = 1, settle: bool = True, forward: bool = False) -> float:
    """The first reverse gradient of `f` in `source` (median of `runs` new processes), timed after libcst
    is imported, in a cache directory in use: another function was derived there before, in another
    process (so what a cache keeps besides derivatives, such as compiled dataclass code, is there).
    `settle`: the collection the imports left due is made before the timer (see the module's docstring);
    `forward`: the first forward derivative (`mc.jvp`, a tangent of ones) instead."""
    settle_line = "import gc; gc.collect()  # (the full pass the imports left due, not the gradient's)" if settle else ""
    call = f"x = {arg}; mc.jvp(big.f, (x,), (np.ones_like(x),))" if forward else f"mc.grad(big.f)({arg})"
    work = tempfile.mkdtemp(prefix="mc_bench_")
    try:
        with open(os.path.join(work, "big.py"), "w") as fh:
            fh.write(source)
        with open(os.path.join(work, "prime.py"), "w") as fh:
            fh.write(PRIME)
        for i in range(runs):
            run(f"import sys, json\nsys.path.insert(0, {work!r})\nimport mooncake_ast as mc, prime\n"
                f"mc.grad(prime.p)(0.3)\nprint(json.dumps({{}}))", {"MOONCAKE_AST_CACHE_DIR": os.path.join(work, f"cache{i}")})
        code = textwrap.dedent(f"""\
            import json, sys, time
            sys.path.insert(0, {work!r})
            import numpy as np
            import mooncake_ast as mc
            import libcst, libcst.metadata
            import big
            {settle_line}
            t = time.{CLOCK}()
            {call}
            print(json.dumps({{"t": time.{CLOCK}() - t}}))
            """)
        return statistics.median(run(code, {"MOONCAKE_AST_CACHE_DIR": os.path.join(work, f"cache{i}")})["t"]
                                 for i in range(runs))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    run("import mooncake_ast, json; print(json.dumps({}))")  # write the bytecode caches first
    rows = []
    rows.append(("import mooncake_ast (SciPy installed, not imported by user)", import_time(False)))
    rows.append(("import mooncake_ast (SciPy hidden)", import_time(True)))
    rows.append(("import mooncake_ast (after user's import scipy.special)", import_time(False, user_scipy=True)))
    fw = first_and_warm()
    rows.append(("import libcst, plainly", fw["libcst"]))
    rows.append(("import libcst as mooncake_ast does (compiled methods kept)", fw["libcst kept"]))
    rows.append(("first gradient, new 15-line function (cache directory in use)", fw["new"]))
    rows.append(("first gradient, new 15-line function (brand-new cache directory)", fw["first"]))
    rows.append(("first gradient, new 15-line function (cache directory in use), libcst already imported", derivation_time(
        fifteen_line_source().replace("def model(", "def f("), "np.array([0.1, 0.2, 0.3])", RUNS)))
    rows.append(("the same, the imports' pending collection not settled (paid by the gradient)", derivation_time(
        fifteen_line_source().replace("def model(", "def f("), "np.array([0.1, 0.2, 0.3])", RUNS, settle=False)))
    rows.append(("first forward derivative (jvp), new 15-line function (cache directory in use), libcst already imported",
                 derivation_time(fifteen_line_source().replace("def model(", "def f("), "np.array([0.1, 0.2, 0.3])", RUNS,
                                 forward=True)))
    rows.append(("same gradient, new process, warm cache", fw["warm"]))
    over_new, over_held, over_jvp, over_arr = call_overhead()
    rows.append(("call overhead mc.grad(f)(x), cached", over_new))
    rows.append(("call overhead g(x), g = mc.grad(f) held", over_held))
    rows.append(("call overhead mc.jvp(f, (x,), (dx,)), cached", over_jvp))
    rows.append(("call overhead g(x), x a float array, beyond generated code", over_arr))
    if "--no-sizes" in sys.argv:
        sizes = []
    else:
        sizes = [("40 if-blocks", if_blocks_source(40)), ("80 if-blocks", if_blocks_source(80)),
                 ("160 if-blocks", if_blocks_source(160)), ("320 if-blocks", if_blocks_source(320)),
                 ("300-line function", long_function_source(300)), ("600-line function", long_function_source(600)),
                 ("realistic 150-line function (loops, branches, arrays, calls)", realistic_function_source(150)),
                 ("realistic 300-line function (loops, branches, arrays, calls)", realistic_function_source(300)),
                 ("realistic 600-line function (loops, branches, arrays, calls)", realistic_function_source(600)),
                 ("realistic 1200-line function (loops, branches, arrays, calls)", realistic_function_source(1200))]
        sizes += [(f"if/elif chain, {n} branches", elif_chain_source(n)) for n in (100, 200, 500, 1000)]
        sizes += [(f"if/elif chain in a loop, {n} branches", elif_chain_in_loop_source(n)) for n in (200, 400)]
    for label, src in sizes:
        try:
            t: object = derivation_time(src, "np.array([0.3, -0.2, 0.5])" if "realistic" in label else "0.3")
        except RuntimeError as e:
            t = "error: " + str(e).strip().splitlines()[-1][:60]
        rows.append((f"derivation (first reverse gradient, cache directory in use): {label}", t))
    width = max(len(r[0]) for r in rows)
    print(f"| {'measurement'.ljust(width)} | time |")
    print(f"|{'-' * (width + 2)}|------|")
    for label, t in rows:
        if isinstance(t, str):
            print(f"| {label.ljust(width)} | {t} |")
            continue
        shown = f"{t * 1e6:.1f} us" if t < 1e-3 else f"{t * 1e3:.1f} ms" if t < 1 else f"{t:.2f} s"
        print(f"| {label.ljust(width)} | {shown} |")


if __name__ == "__main__":
    main()
