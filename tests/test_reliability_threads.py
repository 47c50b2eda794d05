"""Generation in several threads at once (issue 14, item 1).

Generation used to keep per-generation state at module level (the table of split CFG
edges, the argument kinds being generated), so threads deriving different functions at
the same time dropped each other's loop-exit records and published the broken module
under its correct key.  Here 8 threads derive many distinct functions (loops with
`break` and `continue`, branches) cold, in both modes; every derivative is checked against
finite differences, and every module the cache holds must be exactly what a single-threaded
generation of the same function writes.

`python tests/test_reliability_threads.py [functions] [rounds]` runs the full-size
version (256 functions, 10 rounds, each round in a fresh cache directory).
"""
import importlib.util
import math
import os
import sys
import tempfile
import threading

import numpy as np

TEMPLATE = """\
import math


def f_{k}(x, n):
    s = 0.0
    i = 0
    while i < n:
        i += 1
        if i % {a} == 0:
            continue
        s = s + math.sin(x * i) * {c}
        if i > {stop}:
            break
    for j in range({m}):
        if j == {b}:
            break
        if j % 2 == 0:
            s = s * {d} + x
        else:
            s = s - x * x * {e}
    return s
"""


def _write_module(tmp: str, tag: str, count: int) -> list:
    """A module of `count` distinct functions; returns them (their source is in a real file)."""
    parts = []
    for k in range(count):
        text = TEMPLATE.format(k=k, a=2 + k % 3, c=1.0 + k / 100, stop=3 + k % 5, m=4 + k % 4, b=2 + k % 3,
                               d=1.0 + (k % 7) / 10, e=0.5 + (k % 5) / 10)
        parts.append(text if k == 0 else text.split("\n", 2)[2])
    path = os.path.join(tmp, f"threadfns_{tag}.py")
    with open(path, "w") as fh:
        fh.write("\n".join(parts))
    spec = importlib.util.spec_from_file_location(f"threadfns_{tag}", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return [getattr(mod, f"f_{k}") for k in range(count)]


def _fd(f, x, n, h=1e-6):
    return (f(x + h, n) - f(x - h, n)) / (2 * h)


def run_round(count: int, threads: int = 8) -> list:
    """Derive `count` fresh functions from `threads` threads in a fresh cache; return the problems."""
    import mooncake_ast as mc
    from mooncake_ast import cache
    from mooncake_ast.forward import object_flow
    from mooncake_ast.reverse.generate import reverse_source_text

    problems: list = []
    old_dir = os.environ.get("MOONCAKE_AST_CACHE_DIR")
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["MOONCAKE_AST_CACHE_DIR"] = os.path.join(tmp, "cache")
        try:
            fns = _write_module(tmp, os.path.basename(tmp).replace("-", "_"), count)
            barrier = threading.Barrier(threads)
            lock = threading.Lock()

            def work(t: int) -> None:
                barrier.wait()
                for k in range(t, count, threads):
                    f = fns[k]
                    for n in (3, 9):
                        try:
                            g = mc.grad(f)(0.3, n)
                            _, t = mc.jvp(f, (0.3, n), (1.0, None))
                        except Exception as e:  # noqa: BLE001 - every failure is a problem to report
                            with lock:
                                problems.append(f"{f.__name__}(n={n}): {type(e).__name__}: {e}")
                            continue
                        want = _fd(f, 0.3, n)
                        for mode, got in (("grad", g), ("jvp", t)):
                            if not math.isclose(got, want, rel_tol=1e-5, abs_tol=1e-6):
                                with lock:
                                    problems.append(f"{f.__name__}(n={n}): {mode} {got} != finite difference {want}")

            workers = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
            for w in workers:
                w.start()
            for w in workers:
                w.join()
            # Every published entry is what one thread alone generates for that function.
            entries = {}
            for name in os.listdir(os.environ["MOONCAKE_AST_CACHE_DIR"]):
                if ".reverse." in name:
                    with open(os.path.join(os.environ["MOONCAKE_AST_CACHE_DIR"], name)) as fh:
                        entries[name] = cache.parse_text(fh.read())
            assert len(entries) >= count, (len(entries), count)
            by_name = {f.__qualname__: f for f in fns}
            for name, parsed in entries.items():
                assert parsed is not None, name
                body = parsed[2]
                fname = name.split(".")[1]
                kinds = {"x": "num", "n": "num:inactive"}
                with object_flow.generating(kinds):  # as DerivedReverse generates
                    fresh, _ = reverse_source_text(by_name[fname], kinds)
                if fresh != body:
                    problems.append(f"{name}: the cached module differs from a single-threaded generation")
        finally:
            if old_dir is None:
                os.environ.pop("MOONCAKE_AST_CACHE_DIR", None)
            else:
                os.environ["MOONCAKE_AST_CACHE_DIR"] = old_dir
    return problems


def test_eight_threads_derive_distinct_functions_cold():
    assert run_round(96) == []


def test_generation_is_reentrant_per_function():
    """The split-edge table lives on the IR being patched: two generations never share it."""
    from mooncake_ast.reverse import record

    assert not hasattr(record, "_SPLITS")


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 256
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    total = 0
    for r in range(rounds):
        found = run_round(n)
        total += len(found)
        print(f"round {r}: {n} functions, {len(found)} broken", *found[:5], sep="\n  ")
    print("total broken:", total)
    sys.exit(1 if total else 0)
