"""What scripts/audit_issue13.py found and was mended: an assert's line in tracebacks, a lambda's frame, one
frame per Differentiable method, messages that say what to do (a dict tangent's keys, mc.source without
source, next() in reverse mode), generated modules whose user module imports its siblings, and
check_derivatives without false alarms for float32 arguments and int results."""
import importlib
import os
import subprocess
import sys
import textwrap
import traceback

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.cli import main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

USER = '''\
import contextlib
import math

import numpy as np


def with_value(x):
    m = contextlib.nullcontext(x)
    with m as v:  # (entered under a name: not lowered as `v = x`)
        y = v * 3.0
    return y


def checked(x):
    y = x * 2.0
    assert y < 100.0, "y must stay below 100"
    assert y > 0.0, "y must be positive"
    return y * y


def with_lambda(x):
    g = lambda v: math.log(v)
    return g(x) * 2.0


def helper(y):
    if y > 100.0:
        raise ValueError("too large")
    return y * 2.0


def f(x):
    return helper(x * 3.0)


def takes_next(x):
    it = iter([x, 2.0 * x])
    a = next(it)
    return a * 3.0


def returns_int(x):
    return 3


def f32_loss(x):
    return np.sum(np.sin(x) * x)


def caught(x):
    try:
        y = math.log(x)
    except ValueError:
        y = 0.0
    return y * x


def square(x):
    return x * x


def gen_only(x):
    yield x * 2.0


class Model:
    def check(self, v):
        if v > 10.0:
            raise ValueError("method raised")
        return v

    def loss(self, x):
        return self.check(x * 2.0) * 3.0
'''


@pytest.fixture(scope="module")
def user(tmp_path_factory):
    d = tmp_path_factory.mktemp("issue13_fixes")
    (d / "issue13_fixes_mod.py").write_text(USER)
    sys.path.insert(0, str(d))
    try:
        yield importlib.import_module("issue13_fixes_mod")
    finally:
        sys.path.remove(str(d))
        sys.modules.pop("issue13_fixes_mod", None)


def _raised(call):
    with pytest.raises(Exception) as info:
        call()
    return info.value


def _frames(e):
    return [(os.path.basename(fs.filename), fs.lineno, fs.name, fs.line)
            for fs in traceback.extract_tb(e.__traceback__)]


def _line(text, marker):
    return next(i for i, line in enumerate(text.splitlines(), 1) if marker in line)


@pytest.mark.parametrize("x, marker", [(60.0, "below 100"), (-1.0, "be positive")])
@pytest.mark.parametrize("api", ["grad", "jvp"])
def test_a_failed_assert_points_at_that_assert(user, api, x, marker):
    """Generated code raises the assert's error in a branch with no comment of its own: the line is the
    function's assert whose message it is, not the line of the nearest comment."""
    call = (lambda: mc.grad(user.checked)(x)) if api == "grad" else (lambda: mc.jvp(user.checked, (x,), (1.0,)))
    e = _raised(call)
    assert type(e) is AssertionError and marker in str(e)
    last = _frames(e)[-1]
    assert last[:3] == ("issue13_fixes_mod.py", _line(USER, marker), "checked") and last[3].startswith("assert"), last


@pytest.mark.parametrize("api", ["grad", "hessian"])
def test_a_lambdas_frame_names_its_file_in_full_and_lambda(user, api):
    e = _raised(lambda: getattr(mc, api)(user.with_lambda)(-1.0))
    assert type(e) is ValueError and "math domain error" in str(e)
    last = traceback.extract_tb(e.__traceback__)[-1]
    assert last.filename == user.__file__ and last.lineno == _line(USER, "lambda v:") and last.name == "<lambda>"


def test_differentiable_methods_add_one_frame_of_the_library(user):
    d = mc.differentiate(user.f)
    for call in (lambda: d.grad(50.0), lambda: d.value_and_grad(50.0), lambda: d.jvp((50.0,), (1.0,)),
                 lambda: d.vjp(50.0)):
        e = _raised(call)
        assert type(e) is ValueError
        library = [fr for fr in traceback.extract_tb(e.__traceback__) if "mooncake_ast" + os.sep in fr.filename]
        assert len(library) == 1 and library[0].filename.endswith("differentiable.py"), library
        assert _frames(e)[-1][3] == 'raise ValueError("too large")'


def test_a_dict_tangent_with_an_unknown_key_names_the_arguments_keys(user):
    e = _raised(lambda: mc.jvp(user.f32_loss, ({"a": 1.0, "b": 2.0},), ({"c": 1.0},)))
    assert isinstance(e, mc.TangentError)
    assert "key 'c'" in str(e) and "its keys: 'a', 'b'" in str(e), str(e)


def test_source_of_a_function_made_by_exec_says_where_functions_can_live():
    namespace: dict = {}
    exec("def h(x):\n    return x * 3.0\n", namespace)
    e = _raised(lambda: mc.source(namespace["h"], "reverse"))
    assert isinstance(e, mc.SourceUnavailableError)
    assert all(w in str(e) for w in (".py file", "IPython", "Jupyter", "python -c")), str(e)


def test_next_in_reverse_mode(user):
    # (refused until iterators were read item by item, lazy_iteration.py: reverse mode records each next())
    assert mc.grad(user.takes_next)(1.5) == pytest.approx(3.0)
    assert mc.jvp(user.takes_next, (1.5,), (1.0,)) == (4.5, 3.0)


def test_check_derivatives_of_float32_arguments_and_int_results(user):
    """Float32 difference quotients round at float32's precision: steps and tolerances follow it (no false
    alarm), and a derivative 1% off is still caught.  An int result has no tangent to compare."""
    x32 = np.linspace(0.1, 1.0, 4).astype(np.float32)
    mc.testing.check_derivatives(user.f32_loss, x32)
    mc.testing.check_derivatives(user.f32_loss, np.float32(0.7))
    mc.testing.check_derivatives(user.returns_int, 1.5)

    def off(x):
        return np.sin(x)

    @mc.frule(off)
    def _off_jvp(primals, tangents):
        return np.sin(primals[0]), tangents[0] * np.cos(primals[0]) * 1.01

    def uses_off(x):
        return np.sum(off(x))

    with pytest.raises(mc.testing.DerivativeCheckError):
        mc.testing.check_derivatives(uses_off, x32, modes=("forward",))


ENERGY = '''\
import numpy as np

from issue13_physics import pair


def total(pos, eps=0.1):
    return pair(np.sum(pos * pos), eps)
'''


def test_generated_modules_load_a_user_module_that_imports_its_siblings(tmp_path, monkeypatch, capsys):
    """Run from another directory, with only the output folder on sys.path: loading ../issue13_energy.py runs
    its `from issue13_physics import pair`, which resolves beside it, as when that file runs as a script."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "issue13_physics.py").write_text("def pair(r, eps):\n    return 1.0 / (r + eps)\n")
    (src / "issue13_energy.py").write_text(ENERGY)
    monkeypatch.setenv("MOONCAKE_AST_CACHE_DIR", str(tmp_path / "cache"))
    assert main(["generate", f"{src / 'issue13_energy.py'}::total", "--mode", "reverse", "-o", str(src / "out")]) == 0
    capsys.readouterr()
    script = textwrap.dedent("""
        import sys
        import numpy as np
        sys.path.insert(0, sys.argv[1])
        from issue13_energy_total_reverse import total__vjp
        value, pullback = total__vjp(np.array([1.0, 2.0]))
        print(value, *np.ravel(pullback(1.0)[0]))
        """)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = dict(os.environ, PYTHONPATH=ROOT, MOONCAKE_AST_CACHE_DIR=str(tmp_path / "cache2"))
    p = subprocess.run([sys.executable, "-c", script, str(src / "out")], capture_output=True, text=True,
                       cwd=str(elsewhere), env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    value, *grad = map(float, p.stdout.split())
    r = 5.0 + 0.1
    assert value == pytest.approx(1.0 / r) and grad == pytest.approx([-2.0 * 1.0 / r ** 2, -2.0 * 2.0 / r ** 2])


def test_a_try_statement_at_second_order(user):
    """Was refused by name ("a `try` statement ... at second order"); a `try` body's calls nest now
    (rules/nested_guarded.py): the Hessian against central differences of the gradient."""
    g = mc.grad(user.caught)
    assert g(2.0) == pytest.approx(np.log(2.0) + 1.0)
    assert mc.hessian(user.caught)(2.0) == pytest.approx((g(2.0 + 1e-5) - g(2.0 - 1e-5)) / 2e-5, rel=1e-6)


@pytest.mark.parametrize("api, fn, arg", [("jacrev", "square", 3), ("hessian", "square", 3),
                                         ("hessian", "f32_loss", np.arange(3))])
def test_jacobians_of_int_arguments_say_to_pass_floats(user, api, fn, arg):
    """(Not a TangentError about a tangent the user never gave.)"""
    f = getattr(user, fn)
    e = _raised(lambda: getattr(mc, api)(f)(arg))
    assert isinstance(e, mc.MooncakeError) and "argument 0 is an int" in str(e) and "pass floats" in str(e), str(e)
    assert getattr(mc, api)(f)(np.asarray(arg, dtype=float)) is not None


@pytest.mark.parametrize("api", ["grad", "hessian"])
def test_a_refusal_under_a_second_derivative_names_the_users_line(user, api):
    """Not the line of the library's own Python that the second derivative also differentiates (a rule's code),
    in the message or as a frame of the traceback."""
    e = _raised(lambda: getattr(mc, api)(user.with_value)(0.3))
    assert isinstance(e, mc.UnsupportedDerivativeError), e
    assert f"issue13_fixes_mod.py:{_line(USER, 'with m as v')}  with m as v" in str(e), str(e)
    files = [fr.filename for fr in traceback.extract_tb(e.__traceback__)]
    assert sum("mooncake_ast" + os.sep in f for f in files) == 1, files


def test_every_docstring_example_of_the_public_names_runs():
    """help(mc.X) shows examples: each runs as shown (doctest, with mc, np and math at hand)."""
    import doctest
    import math

    finder = doctest.DocTestFinder(recurse=False)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    objs = [(n, getattr(mc, n)) for n in mc.__all__] + [("testing.check_derivatives", mc.testing.check_derivatives)]
    objs += [(f"Differentiable.{m}", getattr(mc.Differentiable, m)) for m in ("grad", "value_and_grad", "jvp", "vjp")]
    report: list = []
    for name, obj in objs:
        for test in finder.find(obj, name, globs={"mc": mc, "np": np, "math": math}):
            runner.run(test, out=report.append)
    results = runner.summarize(verbose=False)
    assert results.attempted >= 30 and results.failed == 0, "".join(report)


def test_generated_modules_of_a_package_module_load_it_from_anywhere(tmp_path, monkeypatch, capsys):
    """`mooncake-ast generate mypkg.core:f` run in the project; the module imported in a process elsewhere, with
    only its folder on sys.path: the package is found from the module's relative path (its relative import of a
    sibling module too), and nothing is derived (no libcst)."""
    project = tmp_path / "project"
    (project / "issue13pkg").mkdir(parents=True)
    (project / "issue13pkg" / "__init__.py").write_text("")
    (project / "issue13pkg" / "helpers.py").write_text("import numpy as np\n\n\ndef h(x):\n    return np.sin(x)\n")
    (project / "issue13pkg" / "core.py").write_text(
        "import numpy as np\n\nfrom .helpers import h\n\n\ndef f(x, scale=3.0):\n    return np.sum(h(x) * scale)\n")
    monkeypatch.chdir(project)
    monkeypatch.syspath_prepend(str(project))
    monkeypatch.setenv("MOONCAKE_AST_CACHE_DIR", str(tmp_path / "cache"))
    assert main(["generate", "issue13pkg.core:f", "--mode", "reverse", "-o", str(project / "out")]) == 0
    capsys.readouterr()
    for name in ("issue13pkg", "issue13pkg.core", "issue13pkg.helpers"):
        sys.modules.pop(name, None)
    script = textwrap.dedent("""
        import sys
        import numpy as np
        sys.modules["libcst"] = None
        sys.path.insert(0, sys.argv[1])
        from core_f_reverse import f__vjp
        value, pullback = f__vjp(np.array([0.1, 0.2]))
        print(value, *np.ravel(pullback(1.0)[0]))
        """)
    env = dict(os.environ, PYTHONPATH=ROOT, MOONCAKE_AST_CACHE_DIR=str(tmp_path / "cache2"))
    p = subprocess.run([sys.executable, "-c", script, str(project / "out")], capture_output=True, text=True,
                       cwd=str(tmp_path), env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    value, *grad = map(float, p.stdout.split())
    x = np.array([0.1, 0.2])
    assert value == pytest.approx(3.0 * np.sum(np.sin(x))) and grad == pytest.approx(3.0 * np.cos(x))
    assert not (tmp_path / "cache2").exists()


def test_api_mistakes_are_mooncake_errors(user):
    _, vjp_fn = mc.vjp(user.square, 2.0)
    e = _raised(lambda: vjp_fn(1.0, 2.0))
    assert isinstance(e, mc.TangentError) and "one cotangent" in str(e), str(e)
    e = _raised(lambda: mc.hessian(user.square, argnums=2)(1.0))
    assert isinstance(e, mc.ArgnumsError) and str(e).startswith("hessian(") and "valid: -1 to 0" in str(e), str(e)
    e = _raised(lambda: mc.testing.check_derivatives(3.0, 1.0))
    assert isinstance(e, mc.MooncakeError) and "not callable" in str(e), str(e)


def test_an_exception_in_a_method_the_function_calls_shows_both_lines(user):
    e = _raised(lambda: mc.grad(user.Model().loss)(10.0))
    assert type(e) is ValueError and str(e) == "method raised"
    frames = _frames(e)
    assert frames[-1][1:3] == (_line(USER, 'raise ValueError("method raised")'), "check"), frames
    assert frames[-2][1:3] == (_line(USER, "return self.check(x * 2.0)"), "loss"), frames


SIGNATURES = '''\
def helper(v):
    return v * v


def kwonly(x, *, scale=3.0, shift=0.5):
    return helper(x) * scale + shift


def starargs(x, *rest, k=2.0):
    s = x
    for r in rest:
        s = s + helper(r)
    return s * k
'''


def test_generated_vjp_takes_arguments_as_the_function_does(tmp_path, monkeypatch, capsys):
    """`__vjp` keeps keyword-only defaults (it took them as required positional arguments), takes `*args`
    as `*args`, and gives their adjoints as mc.vjp does (a plain tuple for `*rest`, not the library's own)."""
    (tmp_path / "issue13_sigs.py").write_text(SIGNATURES)
    monkeypatch.setenv("MOONCAKE_AST_CACHE_DIR", str(tmp_path / "cache"))
    for target in ("kwonly", "starargs"):
        assert main(["generate", f"{tmp_path / 'issue13_sigs.py'}::{target}", "--mode", "reverse",
                     "-o", str(tmp_path / "out")]) == 0
    capsys.readouterr()
    header = (tmp_path / "out" / "issue13_sigs_kwonly_reverse.py").read_text()
    assert "kwonly__vjp(x, scale=scale, shift=shift)" in header and "def kwonly__vjp(x, *, scale=_DEFAULT" in header
    script = textwrap.dedent("""
        import json, sys
        sys.modules["libcst"] = None
        sys.path.insert(0, sys.argv[1])
        from issue13_sigs_kwonly_reverse import kwonly__vjp
        from issue13_sigs_starargs_reverse import starargs__vjp
        out = []
        for call in (lambda: kwonly__vjp(1.5), lambda: kwonly__vjp(1.5, scale=2.0),
                     lambda: starargs__vjp(1.5, 2.0, 3.0), lambda: starargs__vjp(1.5, 2.0, k=3.0)):
            value, pullback = call()
            bars = pullback(1.0)
            out.append([value, [list(b) if type(b) is tuple else b for b in bars], type(bars[1]).__name__])
        print(json.dumps(out))
        """)
    env = dict(os.environ, PYTHONPATH=ROOT, MOONCAKE_AST_CACHE_DIR=str(tmp_path / "cache2"))
    p = subprocess.run([sys.executable, "-c", script, str(tmp_path / "out")], capture_output=True, text=True,
                       cwd=str(tmp_path), env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    got = __import__("json").loads(p.stdout)
    assert got[0][:2] == [7.25, [9.0, 2.25, 1.0]] and got[1][:2] == [5.0, [6.0, 2.25, 1.0]]
    assert got[2] == [29.0, [2.0, [8.0, 12.0], 14.5], "tuple"]  # (x + 4 + 9) * 2: d/dx, d/drest, d/dk
    assert got[3][:2] == [16.5, [3.0, [12.0], 5.5]]


IPYTHON_CELLS = """
import json, traceback
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
cells = [
    "import traceback\\nimport numpy as np\\nimport mooncake_ast as mc",
    "def f(x):\\n    return np.sin(3.0 * x) * x",
    "def g(x):\\n    return f(x) + x ** 2",
    "def bad(x):\\n    if x > 1.0:\\n        raise ValueError('too big')\\n    return x",
    "out = [mc.grad(g)(0.5), mc.jvp(g, (0.5,), (1.0,))[1], mc.hessian(g)(0.5)]",
    "try:\\n    mc.grad(bad)(2.0)\\nexcept ValueError as e:\\n    out.append(traceback.extract_tb(e.__traceback__)[-1].line)",
    "def f(x):\\n    return x * x * x",
    "out.append(mc.grad(f)(2.0))",
]
for cell in cells:
    result = shell.run_cell(cell)
    assert result.success, (cell, result.error_in_exec or result.error_before_exec)
print(json.dumps([float(v) if not isinstance(v, str) else v for v in shell.user_ns["out"]]))
"""


def test_functions_typed_in_ipython_are_differentiated_and_their_lines_shown():
    """What README says of IPython and Jupyter (cells run by InteractiveShell.run_cell, as the kernel runs them):
    a cell's functions and their callees are differentiated, a redefinition is seen, and the traceback of an
    exception of the user's shows the cell's line (their file names are `<ipython-input-...>`, not `.py`)."""
    pytest.importorskip("IPython")
    env = dict(os.environ, PYTHONPATH=ROOT)
    p = subprocess.run([sys.executable, "-c", IPYTHON_CELLS], capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    g, dg, h, line, g3 = __import__("json").loads(p.stdout.strip().splitlines()[-1])
    x = 0.5
    assert g == pytest.approx(3 * x * np.cos(3 * x) + np.sin(3 * x) + 2 * x) and dg == pytest.approx(g)
    assert h == pytest.approx(6 * np.cos(3 * x) - 9 * x * np.sin(3 * x) + 2)
    assert line == "raise ValueError('too big')" and g3 == 12.0


def test_cli_input_mistakes_exit_2_and_say_what_to_write(tmp_path, monkeypatch, capsys):
    (tmp_path / "issue13_cli.py").write_text("def f(x, n):\n    return x * n\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MOONCAKE_AST_CACHE_DIR", str(tmp_path / "cache"))
    assert main(["check", "issue13_cli.py::f", "--args", "(0.3, 2, 7)"]) == 2
    err = capsys.readouterr().err
    assert "raises TypeError without any derivative" in err and "--args" in err and len(err.splitlines()) == 1
    assert main(["generate", "issue13_cli.py:f"]) == 2
    assert "issue13_cli.py::f" in capsys.readouterr().err
    assert main(["check", "issue13_cli.py::f", "--args", "(0.3, 2)"]) == 0


def test_a_generator_function_differentiated_directly_is_named_a_generator(user):
    for call in (lambda: mc.grad(user.gen_only)(1.0), lambda: mc.vjp(user.gen_only, 1.0)[1](1.0)):
        e = _raised(call)
        assert isinstance(e, mc.MooncakeError) and "a generator" in str(e) and "EagerGenerator" not in str(e), str(e)


def _make_scaler(k):
    return lambda v: v * k


def _apply(f, x):
    return f(x) * x


def test_grad_with_respect_to_a_function_holding_numbers_is_refused():
    """d/dk of apply(make(k), x) is x**2, but a function has no gradient to hand back: the zero tangent would
    read as "no dependence" (a silently wrong answer), so it is refused with what to do."""
    f = _make_scaler(3.0)
    with pytest.raises(mc.MooncakeError, match="holds numbers or arrays"):
        mc.grad(_apply, argnums=0)(f, 2.0)
    with pytest.raises(mc.MooncakeError, match="pass the values it holds as arguments"):
        mc.value_and_grad(_apply, argnums=(0, 1))(f, 2.0)
    assert mc.grad(_apply, argnums=1)(f, 2.0) == pytest.approx(12.0)  # (not differentiated: fine)
    assert mc.grad(lambda k, x: _apply(_make_scaler(k), x))(3.0, 2.0) == pytest.approx(4.0)
