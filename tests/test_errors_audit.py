"""Issue 13, audited as a new user: what is not a function, arguments that do not fit, `mc.source` of what
has no module, the generated code's names and parameters, and the documents (docs/how-it-works.md's
outputs, the README's examples) against what the library does today."""
import ast
import functools
import importlib
import os
import re
import subprocess
import sys
import textwrap
import traceback

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.errors import CallArgumentsError, NotCallableError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

USER = '''\
import math

import mooncake_ast as mc


def two(x, y):
    return x * y


def calls_badly(x):
    y = x * 2.0
    return two(y, 1.0, 3.0)


def no_return(x):
    x * 2.0


def sine_sum(x, n):
    s = 0.0
    for i in range(n):
        t = x * i
        s = s + math.sin(t)
    return s


def doubled(x):
    return x * 2.0


def cubes(x):
    return sum(x ** 3)


class Shapes:
    @mc.differentiate
    @staticmethod
    def cube(x):
        return x ** 3

    @mc.differentiate
    @classmethod
    def five(cls, x):
        return x * 5.0
'''


@pytest.fixture(scope="module")
def user(tmp_path_factory):
    d = tmp_path_factory.mktemp("user_audit")
    (d / "user_audit_mod.py").write_text(USER)
    sys.path.insert(0, str(d))
    try:
        yield importlib.import_module("user_audit_mod")
    finally:
        sys.path.remove(str(d))
        sys.modules.pop("user_audit_mod", None)


def _raised(call):
    with pytest.raises(Exception) as info:
        call()
    return info.value


@pytest.mark.parametrize("call, words", [
    (lambda: mc.grad(3.0), ["mc.grad needs a function", "3.0", "not its value f(x)"]),
    (lambda: mc.value_and_grad(None), ["mc.value_and_grad needs a function"]),
    (lambda: mc.jvp(np.ones(2), (1.0,), (1.0,)), ["mc.jvp needs a function"]),
    (lambda: mc.vjp("f", 1.0), ["mc.vjp needs a function"]),
    (lambda: mc.differentiate(2), ["mc.differentiate needs a function"]),
    (lambda: mc.jacrev(None)(2.0), ["None", "is not callable"]),
    (lambda: mc.frule(3), ["mc.frule needs the callable the rule is for"]),
    (lambda: mc.rrule(np.sin)(None), ["the rule, a function", "as a decorator"]),
    (lambda: mc.zero_derivative(np.sin, 4), ["mc.zero_derivative needs callables"]),
])
def test_what_is_not_a_function_is_a_not_callable_error(call, words):
    e = _raised(call)
    assert isinstance(e, NotCallableError) and isinstance(e, mc.MooncakeError) and isinstance(e, TypeError), repr(e)
    assert all(w in str(e) for w in words), str(e)


def test_arguments_that_do_not_fit_name_the_function_and_its_signature(user):
    for call, why in [(lambda: mc.grad(user.two)(2.0), "missing a required argument: 'y'"),
                      (lambda: mc.jvp(user.two, (2.0,), (1.0,)), "missing a required argument: 'y'"),
                      (lambda: mc.value_and_grad(user.two)(2.0, 3.0, z=1.0), "unexpected keyword argument 'z'")]:
        e = _raised(call)
        assert isinstance(e, CallArgumentsError) and isinstance(e, TypeError), repr(e)
        assert "two(x, y)" in str(e) and why in str(e), str(e)
    # inside the user's code: the traceback ends at the user's call, not in inspect
    e = _raised(lambda: mc.grad(user.calls_badly)(1.0))
    assert isinstance(e, CallArgumentsError) and "too many positional arguments" in str(e), str(e)
    last = traceback.extract_tb(e.__traceback__)[-1]
    assert last.filename.endswith("user_audit_mod.py") and last.line == "return two(y, 1.0, 3.0)"


def test_differentiate_above_staticmethod_and_classmethod(user):
    s = user.Shapes()
    assert user.Shapes.cube(2.0) == 8.0 and s.cube.grad(2.0) == 12.0 and user.Shapes.cube.grad(2.0) == 12.0
    assert s.five(1.0) == 5.0 and user.Shapes.five.grad(2.0) == 5.0 and s.five.jvp((2.0,), (1.0,)) == (10.0, 5.0)


@pytest.mark.parametrize("jac", ["jacfwd", "jacrev"])
def test_jacobians_with_has_aux_of_a_function_without_a_pair(user, jac):
    e = _raised(lambda: getattr(mc, jac)(user.doubled, has_aux=True)(np.ones(3)))  # (jacfwd: its batched pass)
    assert isinstance(e, mc.NonScalarOutputError) and "pair (value, aux)" in str(e), repr(e)


def test_jacobians_of_empty_arrays(user):
    for jac in (mc.jacfwd, mc.jacrev):
        assert jac(user.doubled)(np.zeros(0)).shape == (0, 0)
    assert mc.hessian(user.cubes)(np.zeros(0)).shape == (0, 0)


def test_grad_of_a_function_without_return_says_so(user):
    e = _raised(lambda: mc.grad(user.no_return)(1.0))
    assert isinstance(e, mc.NonScalarOutputError) and "returned None" in str(e) and "`return`" in str(e)


def test_source_of_what_has_no_generated_module(user):
    e = _raised(lambda: mc.source(user.two, "sideways"))
    assert isinstance(e, mc.MooncakeError) and isinstance(e, ValueError) and "'forward' or 'reverse'" in str(e)
    e = _raised(lambda: mc.source(np.sin, "forward"))
    assert isinstance(e, mc.MooncakeError) and "numpy.sin" in str(e) and "rule" in str(e)
    e = _raised(lambda: mc.source(mc.grad(user.two), "reverse"))
    assert isinstance(e, mc.MooncakeError) and "mc.source(g, mode)" in str(e)
    part = functools.partial(user.two, y=3.0)
    assert mc.grad(part)(2.0) == 3.0
    assert "def two__pullback(" in mc.source(part, "reverse")  # a partial: its function's module


def test_unsupported_syntax_says_what_to_write_instead(tmp_path):
    from mooncake_ast.frontend.statements import lower_function

    namespace: dict = {}
    path = tmp_path / "user_syntax_mod.py"
    path.write_text("def f(x):\n    y = x\n    try:\n        y = x * 2.0\n    except* ValueError:\n        y = x\n"
                    "    return y\n\n\ndef g(x):\n    v = yield x\n    return v\n")
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    for name, advice in (("f", "catch with a plain `except`"), ("g", "yield each value as a statement")):
        e = _raised(lambda: lower_function(namespace[name]))
        assert isinstance(e, mc.UnsupportedSyntaxError) and advice in str(e).splitlines()[0], str(e)


def test_check_derivatives_of_a_function_without_source():
    namespace: dict = {}
    exec("def h(x):\n    return x * x\n", namespace)
    e = _raised(lambda: mc.testing.check_derivatives(namespace["h"], 2.0))
    assert isinstance(e, mc.SourceUnavailableError) and "Jupyter" in str(e), repr(e)


def test_generated_names_and_parameters(user):
    """Forward and reverse modules name their functions apart (f__jvp / f__forward); a user's `t` keeps its
    name; tangents and adjoints are named after their own variable; each function takes as keyword
    parameters only the imports it reads."""
    mc.jvp(user.sine_sum, (0.3, 4), (1.0, None))
    mc.grad(user.sine_sum)(0.3, 4)
    fwd, rev = mc.source(user.sine_sum, "forward"), mc.source(user.sine_sum, "reverse")
    assert "def sine_sum__jvp(" in fwd and "__forward" not in fwd
    assert "def sine_sum__forward(" in rev and "def sine_sum__pullback(" in rev
    assert re.search(r"^\s+t = x \* i$", fwd, re.M) and "t1 = x * i" not in fwd
    assert re.search(r"^\s+dt = ", fwd, re.M) and re.search(r"^\s+ds = ", fwd, re.M)
    for text in (fwd, rev):
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef):
                read = {n.id for s in node.body for n in ast.walk(s) if isinstance(n, ast.Name)}
                assert all(a.arg in read for a in node.args.kwonlyargs), (node.name, ast.unparse(node.args))


def test_how_it_works_shows_todays_outputs():
    from mooncake_ast import apidoc

    with open(os.path.join(ROOT, "docs", "how-it-works.md")) as fh:
        blocks = apidoc.how_it_works_blocks(fh.read())
    assert blocks[0] == apidoc.DEMO
    assert blocks[2:5] == apidoc.how_it_works_outputs(), \
        "docs/how-it-works.md is stale: run python -m mooncake_ast.apidoc how-it-works"


RUN_BLOCKS = textwrap.dedent('''
    import runpy, sys, traceback
    failed = []
    for path in sys.argv[1:]:
        try:
            runpy.run_path(path, run_name="__main__")
        except Exception:
            failed.append(path + "\\n" + traceback.format_exc(limit=-3))
    print("\\n".join(failed) or "ALL OK")
''')


def test_every_readme_example_runs_as_pasted_into_a_file(tmp_path):
    """Each ```python block of the README, written to a file of its own and run (one process for all);
    the Dask and CuPy examples need those libraries (and a GPU), and the Dask one computes on 320 MB:
    they are only compiled."""
    with open(os.path.join(ROOT, "README.md")) as fh:
        blocks = re.findall(r"^```python\n(.*?)^```", fh.read(), re.M | re.S)
    assert len(blocks) >= 10
    paths = []
    for i, block in enumerate(blocks):
        path = tmp_path / f"readme_example_{i}.py"
        path.write_text(block)
        compile(block, str(path), "exec")
        if not re.search(r"^import (dask|cupy)", block, re.M):
            paths.append(str(path))
    env = dict(os.environ, PYTHONPATH=ROOT, MOONCAKE_AST_CACHE_DIR=str(tmp_path / "cache"))
    p = subprocess.run([sys.executable, "-c", RUN_BLOCKS, *paths], capture_output=True, text=True, env=env,
                       cwd=str(tmp_path), timeout=300)
    assert p.returncode == 0 and p.stdout.strip().endswith("ALL OK"), (p.stdout[-3000:], p.stderr[-3000:])
