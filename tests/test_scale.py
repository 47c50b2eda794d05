"""Long programs and start-up (issues 11 and 14.4): long elif chains in both modes, many
consecutive ifs, a long derivation saying what it derives, an import that reads no source and
leaves SciPy alone, and cache keys that still follow rules and library files.

Functions are written to files (their source is what is differentiated) and imported.  Every
derivative is checked against finite differences or the exact value, at points that reach many
different branches.  Nothing here is timed (examples/bench_startup.py measures)."""
import importlib.util
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.forward import generate
from mooncake_ast.rules import fingerprints, registry
from mooncake_ast.testing import check_derivatives

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load(tmp_path, name, source):
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def elif_chain(n):
    """`n` branches on k = int(8x) mod n (the else never runs); branch i: (i+1)x + x**2 ... with a
    branch-specific statement before the test of some of them, so the chain is not pure elif."""
    lines = ["import math", "", "", "def f(x):", f"    k = int(x * 8) % {n}", "    s = 0.5 * x"]
    for i in range(n):
        kw = "if" if i == 0 else "elif"
        lines += [f"    {kw} k == {i}:", f"        y = x * {i + 1} + x * x + s * {i % 3}"]
    lines += ["    else:", "        y = math.sin(x)", "    return y * x"]
    return "\n".join(lines) + "\n"


def exact_chain(x, n):
    i = int(x * 8) % n
    # y = (i+1)x + x^2 + 0.5x(i%3); f = y*x
    c = (i + 1) + 0.5 * (i % 3)
    return 2 * c * x + 3 * x * x


@pytest.mark.parametrize("n", [100, 200, 500])
def test_long_elif_chain_both_modes(tmp_path, n):
    m = load(tmp_path, f"chain{n}", elif_chain(n))
    xs = [0.03, 1.3, 7.7, 12.4, (n - 0.5) / 8.0]  # branches 0, 10, 61, 99, n-1 (reduced mod n)
    for x in xs:
        want = exact_chain(x, n)
        assert mc.grad(m.f)(x) == pytest.approx(want, rel=1e-12)
        assert mc.jvp(m.f, (x,), (1.0,))[1] == pytest.approx(want, rel=1e-12)
    if n == 100:
        check_derivatives(m.f, 2.2)  # and against finite differences (the exact value is checked above)
        for mode in ("forward", "reverse"):
            text = mc.source(m.f, mode)
            deepest = max(len(line) - len(line.lstrip(" ")) for line in text.splitlines() if line.strip())
            assert deepest <= 4 * 6, f"{mode}: {deepest // 4} levels of indentation"


def test_chain_printed_flat_keeps_statements_in_order(tmp_path):
    """Between the tests of a chain (reverse mode records each test) and after the inner ifs:
    the flat form runs the same statements in the same order.  A loop around the chain, break
    and continue inside it, and a variable read after it."""
    n = 40
    body = [f"        {'if' if i == 0 else 'elif'} k == {i}:\n            acc = acc + x * {i + 1}" for i in range(n)]
    src = textwrap.dedent("""\
        def g(x, m):
            acc = 0.0
            for j in range(m):
                k = (j * 7) % {n2}
        {body}
                elif k == {n}:
                    continue
                else:
                    break
                acc = acc * 0.9
            return acc * x
        """).replace("{body}", "\n".join(body)).replace("{n2}", str(n + 2)).replace("{n}", str(n))
    mod = load(tmp_path, "loopchain", src)
    for m in (3, 17, 45, 60):
        check_derivatives(mod.g, 0.7, m, modes=("forward", "reverse"))


def test_many_consecutive_ifs(tmp_path):
    lines = ["import numpy as np", "", "", "def f(x, y):", "    a = x", "    b = y", "    unused = x * 2"]
    for i in range(60):
        lines += [f"    if a > {0.05 * (i % 9) - 0.2:.2f}:", "        a = a * 0.97 + 0.05 * np.sin(b)",
                  "    else:", f"        b = b + 0.03 * a * {i % 4 + 1}"]
        if i % 10 == 0:
            lines.append(f"    c{i} = a * b")
    lines.append("    return a * b + c0 + c50 + unused")
    m = load(tmp_path, "ifs60", "\n".join(lines) + "\n")
    for x, y in ((0.3, -0.4), (-0.5, 0.9), (1.2, 0.1)):
        check_derivatives(m.f, x, y)


def test_variable_first_read_far_from_its_definition(tmp_path):
    """Reads after many joins of a variable the branches never assign, of one assigned only
    before them, and of one assigned in a single arm (the SSA builder's short cuts)."""
    lines = ["def f(x):", "    far = x * x", "    once = x", "    t = x"]
    for i in range(30):
        lines += [f"    if t > {i * 0.1 - 1.5:.1f}:", "        t = t * 0.9"]
        if i == 17:
            lines.append("        once = once * 3.0 + t")
    lines.append("    return far * once + t")
    m = load(tmp_path, "far", "\n".join(lines) + "\n")
    for x in (-2.0, 0.2, 1.1, 3.0):
        check_derivatives(m.f, x)


def test_long_derivation_says_what_it_derives(tmp_path, monkeypatch, capfd):
    monkeypatch.setattr(generate, "PROGRESS_AFTER_S", 0.0)
    m = load(tmp_path, "slowish", elif_chain(30).replace("def f(", "def slowish_fn("))
    mc.grad(m.slowish_fn)(0.4)
    err = capfd.readouterr().err
    assert "deriving slowish.slowish_fn" in err and "reverse mode" in err
    assert err.count("\n") == 1


def test_recursion_limit_restored_after_derivation(tmp_path):
    before = sys.getrecursionlimit()
    m = load(tmp_path, "chain20", elif_chain(20))
    mc.jvp(m.f, (0.3,), (1.0,))
    assert sys.getrecursionlimit() == before


def _python(code, **env):
    e = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""), **env)
    p = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=e, timeout=120)
    assert p.returncode == 0, p.stderr[-3000:]
    return p.stdout.strip()


def test_import_reads_no_source_and_leaves_scipy_and_libcst_alone():
    out = _python("""
        import inspect, sys
        def refuse(*a, **k):
            raise AssertionError("source read at import")
        inspect.getsource = inspect.getsourcelines = inspect.findsource = refuse
        import mooncake_ast
        print(sorted(m for m in ("scipy", "scipy.special", "libcst") if m in sys.modules))
        """)
    assert out == "[]"


def test_scipy_rules_registered_once_the_user_imports_scipy(tmp_path):
    pytest.importorskip("scipy.special")
    (tmp_path / "usesp.py").write_text(textwrap.dedent("""\
        import numpy as np
        from scipy import special


        def f(x):
            return np.sum(special.expit(x) * special.gammaln(x + 2.0))
        """))
    out = _python(f"""
        import sys
        sys.path.insert(0, {str(tmp_path)!r})
        import numpy as np
        import mooncake_ast as mc
        from mooncake_ast.rules import scipy_rules
        assert scipy_rules.REGISTERED == {{}}
        import usesp
        from mooncake_ast.testing import check_derivatives
        check_derivatives(usesp.f, np.array([0.3, 1.7, 2.5]))
        print(len(scipy_rules.REGISTERED))
        """, MOONCAKE_AST_CACHE_DIR=str(tmp_path / "cache"))
    assert int(out) >= 20


def test_rule_fingerprints_follow_the_code_not_the_process():
    def make(c, d=1.0):
        return lambda t, y, x: t.mul(t.d(x), c * d)

    same_a, same_b = make(2.0), make(2.0)
    fp = lambda *parts: str(fingerprints._fingerprint(*parts))  # noqa: E731
    assert fp(same_a) == fp(same_b)  # a closure over equal values
    assert fp(make(2.0)) != fp(make(3.0))  # a closure over another value
    assert fp(make(2.0, 5.0)) != fp(make(2.0))
    assert fp(lambda t, y, x: t.d(x)) != fp(lambda t, y, x: t.neg(t.d(x)))
    assert fp(lambda t, y, x: t.d(x), (0,)) != fp(lambda t, y, x: t.d(x), (1,))
    # The same built-in rule has the same fingerprint in another process (no addresses, no set order).
    here = {name: registry.lookup(fn).fingerprint for name, fn in (("sin", np.sin), ("sum", np.sum), ("dot", np.dot))}
    there = _python("""
        import json, numpy as np
        from mooncake_ast.rules import registry
        print(json.dumps({n: registry.lookup(f).fingerprint for n, f in (("sin", np.sin), ("sum", np.sum), ("dot", np.dot))}))
        """, PYTHONHASHSEED="12345")
    assert eval(there) == here


def test_user_rules_change_the_rules_fingerprint(tmp_path):
    before = generate.rules_fingerprint()
    assert generate.rules_fingerprint() == before
    m = load(tmp_path, "ruled", "def h(x):\n    return x * 3.0\n")

    @mc.frule(m.h)
    def _(primals, tangents):
        return m.h(*primals), 3.0 * tangents[0]

    first = generate.rules_fingerprint()
    assert first != before

    @mc.frule(m.h)
    def _(primals, tangents):
        return m.h(*primals), 4.0 * tangents[0]

    assert generate.rules_fingerprint() not in (before, first)


def test_library_fingerprint_follows_its_files(tmp_path):
    import shutil

    copy = tmp_path / "lib"
    shutil.copytree(os.path.join(ROOT, "mooncake_ast"), copy / "mooncake_ast",
                    ignore=shutil.ignore_patterns("__pycache__"))
    code = "from mooncake_ast.library_scan import library_fingerprint as f; print(f())"

    def fingerprint():
        e = dict(os.environ, PYTHONPATH=str(copy))
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=e, timeout=120,
                              cwd=str(tmp_path)).stdout.strip()

    first = fingerprint()
    assert first and fingerprint() == first  # the same files: the same fingerprint in a new process
    target = copy / "mooncake_ast" / "rules" / "math_rules.py"
    target.write_text(target.read_text() + "\n# an edit\n")
    assert fingerprint() != first


# ---------------------------------------------------------------- linear passes (counted, not timed)

LOOPY = '''\
def loopy(x, n):
    s = 0.0
    for i in range(n):
        if i % 3 == 0:
            continue
        j = 0
        while j < i:
            if s > 50.0:
                break
            s = s + x * j
            j += 1
        else:
            s = s * 0.5
        if s < -1.0:
            return s
    with_else = s + 1.0
    return with_else * x
'''

DEAD = '''\
def dead(x, k):
    y = x * 2.0
    if k > 1:
        return y * x
        y = 5.0
    elif k > 0:
        z = x
        while True:
            z = z * 0.5
            if z < 0.1:
                break
        y = y + z
    else:
        y = y - x
    return y * y
'''


def _reference_dominators(fn):
    """The textbook data-flow sets, to check the tree-based answer against."""
    from mooncake_ast.ir.analysis import reverse_postorder

    order = reverse_postorder(fn)
    dom = {b: set(order) for b in order}
    dom[fn.entry] = {fn.entry}
    changed = True
    while changed:
        changed = False
        for b in order[1:]:
            preds = [p for p in b.preds if p in dom]
            new = (set.intersection(*(dom[p] for p in preds)) if preds else set()) | {b}
            if new != dom[b]:
                dom[b], changed = new, True
    return dom


def _reference_exits(r):
    from mooncake_ast.ir import regions as R

    if isinstance(r, R.Edge):
        return [r]
    if isinstance(r, R.Seq):
        return [e for i in r.items for e in _reference_exits(i)]
    if isinstance(r, R.If):
        return _reference_exits(r.then) + _reference_exits(r.orelse)
    if isinstance(r, R.Loop):
        return _reference_exits(r.body) + _reference_exits(r.orelse)
    return []


def _all_regions(r):
    from mooncake_ast.ir import regions as R

    yield r
    kids = r.items if isinstance(r, R.Seq) else (r.then, r.orelse) if isinstance(r, R.If) else \
        (r.body, r.orelse) if isinstance(r, R.Loop) else ()
    for k in kids:
        yield from _all_regions(k)


@pytest.mark.parametrize("which", ["chain", "loopy", "dead", "ifs"])
def test_dominator_tree_and_region_exits_agree_with_the_textbook(tmp_path, which):
    from mooncake_ast.frontend.statements import lower_function
    from mooncake_ast.ir.analysis import dominators, immediate_dominators
    from mooncake_ast.ir.regions import build_regions

    if which == "chain":
        fn = load(tmp_path, "dchain", elif_chain(12)).f
    elif which == "ifs":
        lines = ["def f(x):", "    y = x"] + [f"    if y > {i * 0.1:.1f}:\n        y = y * 0.5\n    else:\n        y = y + x" for i in range(8)]
        fn = load(tmp_path, "difs", "\n".join(lines + ["    return y"]) + "\n").f
    else:
        fn = getattr(load(tmp_path, f"d{which}", LOOPY if which == "loopy" else DEAD), which)
    ir = lower_function(fn)
    want = _reference_dominators(ir)
    got = dominators(ir)
    assert set(got) == set(want)
    for b in want:
        assert set(got[b]) == want[b] and len(got[b]) == len(want[b])
        for a in ir.blocks:  # membership of every block, reachable or not
            assert (a in got[b]) == (a in want[b])
        strict = [d for d in want[b] if d is not b]
        idom = max(strict, key=lambda d: len(want[d])) if strict else None
        assert immediate_dominators(ir)[b] is idom
    for r in _all_regions(build_regions(ir)):
        if hasattr(r, "items"):
            assert r.exits() == _reference_exits(r)


@pytest.mark.parametrize("make", ["dead", "loopy"])
def test_reads_across_dead_code_and_loops(tmp_path, make):
    """The SSA builder's mask short cut (ancestors of a closed block) where dead code and loops
    join the paths: derivatives at points taking every branch."""
    if make == "dead":
        m = load(tmp_path, "deadcode", DEAD)
        for x, k in ((0.7, 2), (0.7, 1), (3.0, 1), (0.4, 0), (-1.3, 0)):
            check_derivatives(m.dead, x, k)
    else:
        m = load(tmp_path, "loopcode", LOOPY)
        for x, n in ((0.3, 0), (0.3, 4), (-0.8, 7), (2.5, 9)):
            check_derivatives(m.loopy, x, n)


_WATCHED = ("ir/builder.py", "ir/analysis.py", "ir/regions.py", "emit/structure.py", "frontend/statements.py",
            "emit/names.py", "emit/interference.py", "emit/numbered.py", "emit/planning.py", "emit/layout.py")


def _lines_run(fn, arg, watched=_WATCHED, run=None):
    """Lines executed in the passes this file keeps linear (`watched`) while `fn`'s reverse derivative is made (or
    while `run()` runs)."""
    counts = dict.fromkeys(watched, 0)

    def tracer(frame, event, arg):
        name = frame.f_code.co_filename.replace(os.sep, "/")
        for w in watched:
            if name.endswith("mooncake_ast/" + w):
                def local(frame, event, arg, w=w):
                    if event == "line":
                        counts[w] += 1
                    return local
                return local
        return None

    old = sys.gettrace()
    sys.settrace(tracer)
    try:
        run() if run is not None else mc.grad(fn)(arg)
    finally:
        sys.settrace(old)
    return counts


def _if_blocks(n):
    lines = ["import math", "", "", "def f(x):", "    y = x"]
    for i in range(n):
        lines += [f"    if y > {round(0.1 * (i % 7) - 0.3, 2)}:", "        y = y * 0.9 + 0.1 * math.sin(x)",
                  "    else:", f"        y = y + 0.05 * x * {i % 5 + 1}"]
    return "\n".join(lines + ["    return y"]) + "\n"


def _loop_blocks(n):
    """`n` blocks of a loop holding a branch, then a data-dependent while (simplify_cfg's scan from the entry after
    every change it made was quadratic in the number of such blocks)."""
    lines = ["def f(x):", "    y = x"]
    for i in range(n):
        lines += [f"    s{i} = 0.0", "    for j in range(3):", f"        if x * j > {round(0.1 * (i % 5), 2)}:",
                  f"            s{i} = s{i} + x * j", "        else:", f"            s{i} = s{i} - 0.5 * x",
                  f"    while s{i} > 1.0:", f"        s{i} = s{i} * 0.5", f"    y = y + s{i} * y"]
    return "\n".join(lines + ["    return y"]) + "\n"


@pytest.mark.parametrize("shape", ["elif", "ifs"])
def test_ssa_dominators_regions_and_emission_do_linear_work(tmp_path, shape):
    """Twice the branches, about twice the lines run in the builder, the CFG analyses, the
    region builder, the emitter's structure and its naming (they were quadratic: dominator sets,
    a scan of every block per branch, a walk to the entry per adjoint read, pairwise clashes of
    the stacks all live at once and a try per name taken).  Counted, not timed."""
    small, large = (30, 60) if shape == "elif" else (20, 40)
    make = elif_chain if shape == "elif" else _if_blocks
    a = _lines_run(load(tmp_path, f"lin{shape}{small}", make(small)).f, 0.3)
    b = _lines_run(load(tmp_path, f"lin{shape}{large}", make(large)).f, 0.3)
    for w in _WATCHED:
        assert a[w] > 0, w
        assert b[w] / a[w] < 2.4, (w, a[w], b[w])


def test_lowering_loop_blocks_does_linear_work(tmp_path):
    """Lowering a function of blocks that each hold a loop with a branch and a while: twice the blocks, about twice
    the lines run in the builder and the lowering (ir/builder.simplify_cfg scanned from the entry after each change,
    with predecessors and reachability recomputed: 3.9 times the lines for twice the blocks).  Counted, not timed;
    the IR it makes is the same (tests/test_golden.py), and a small one's derivatives are checked."""
    from mooncake_ast.frontend.statements import lower_function

    counts = []
    for n in (10, 20):
        fn = load(tmp_path, f"loopblocks{n}", _loop_blocks(n)).f
        seen = _lines_run(fn, None, ("ir/builder.py", "frontend/statements.py"), lambda: lower_function(fn))
        counts.append(seen)
    for w in counts[0]:
        assert counts[0][w] > 0 and counts[1][w] / counts[0][w] < 2.4, (w, counts)
    check_derivatives(load(tmp_path, "loopblocks3", _loop_blocks(3)).f, 0.7)
