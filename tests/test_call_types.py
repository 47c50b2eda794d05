"""Issue 9: calls of the user's functions are typed from the callee's code (reverse/call_types.py), so what the
caller computes from their results is plain NumPy rather than run-time dispatch; derivatives stay right through
aliasing, writes, recursion, keywords and globals, and the cache key follows the callee's code."""
import types

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.forward.generate import environment, function_digest
from mooncake_ast.testing import check_derivatives
from tests import call_type_cases as c

R = np.random.default_rng(3)
Y = np.array([0.9, 0.6])
X = R.normal(size=4)
W1, W2 = R.normal(size=(3, 4)) / 2, R.normal(size=(2, 3)) / 2

CASES = [
    (c.heun_step, (Y, 0.1)),
    (c.two_layers, (W1, W2, X)),
    (c.standardised_energy, (X,)),
    (c.scalar_loop, (0.7, 4)),
    (c.recursive_caller, (0.8,)),
    (c.alias_then_write, (X,)),
    (c.caller_of_writer, (X,)),
    (c.keyword_call, (Y,)),
    (c.nested_helpers, (X,)),
    (c.reads_global_via_call, (np.array([0.5, -1.0, 2.0]),)),
    (c.fresh_then_written, (W1, X)),
    (c.view_then_written, (X,)),
    (c.twice_same, (W1, X)),
    (c.stored_then_written, (X,)),
    (c.transpose_then_written, (R.normal(size=(3, 3)),)),
]


@pytest.mark.parametrize("fn,args", CASES, ids=[f.__name__ for f, _ in CASES])
def test_callers_of_user_functions(fn, args):
    check_derivatives(fn, *args)


@pytest.mark.parametrize("fn,args", [(c.heun_step, (Y, 0.1)), (c.two_layers, (W1, W2, X)), (c.nested_helpers, (X,))])
def test_arithmetic_on_call_results_is_not_dispatched(fn, args):
    mc.vjp(fn, *args)
    src = mc.source(fn, "reverse")
    forward = src[src.index("__forward("):src.index("__pullback(")]
    assert "_mc.rcall(operator" not in forward


def test_the_key_follows_the_callee_code():
    env = environment(c.heun_step)
    assert f"rhs=function {function_digest(c.rhs)}" in env
    g = {"np": np}
    exec("def rhs(y):\n    return y * 2.0\n", g)
    exec("def rhs2(y):\n    return (y, 2.0)\n", g)
    assert function_digest(g["rhs"]) != function_digest(g["rhs2"])


def test_rebinding_the_callee_remakes_the_derivative():
    code = "import numpy as np\n\n\ndef helper(x):\n    return x * 2.0\n\ndef f(x):\n    return np.sum(helper(x) * x)\n"
    # (exec'd functions have no source file: write a module instead)
    import importlib.util
    import sys
    import tempfile
    import os
    d = tempfile.mkdtemp()
    path = os.path.join(d, "call_types_rebind.py")
    with open(path, "w") as fh:
        fh.write(code)
    spec = importlib.util.spec_from_file_location("call_types_rebind", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["call_types_rebind"] = mod
    spec.loader.exec_module(mod)
    x = np.array([1.0, -2.0, 0.5])
    assert np.allclose(mc.grad(mod.f)(x), 4.0 * x)

    def tuple_helper(x):
        return (x * 3.0, 1.0)

    def first(x):
        return x * 3.0

    mod.helper = first
    assert np.allclose(mc.grad(mod.f)(x), 6.0 * x)
    mod.helper = types.FunctionType(tuple_helper.__code__, mod.__dict__, "helper")
    with pytest.raises(Exception):
        mc.grad(mod.f)(x)  # (`tuple * array` fails as the plain call does)
