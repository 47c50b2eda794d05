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
from mooncake_ast.rules import registry
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
    fp = lambda *parts: str(registry._fingerprint(*parts))  # noqa: E731
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
    code = "from mooncake_ast.forward.generate import library_fingerprint as f; print(f())"

    def fingerprint():
        e = dict(os.environ, PYTHONPATH=str(copy))
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=e, timeout=120,
                              cwd=str(tmp_path)).stdout.strip()

    first = fingerprint()
    assert first and fingerprint() == first  # the same files: the same fingerprint in a new process
    target = copy / "mooncake_ast" / "rules" / "math_rules.py"
    target.write_text(target.read_text() + "\n# an edit\n")
    assert fingerprint() != first
