"""A float times a comparison of arrays is an array: reverse mode gave `x * (a < b)` a number's adjoint and
returned an array as the gradient of the float x (ir/kinds.py took every comparison and `round` for a number).
Both modes, each comparison, in straight code, loops and branches."""
import operator

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives

A = np.array([0.5, -1.0, 2.0])
B = np.array([1.0, 0.0, 1.0])

SOURCE = '''
import numpy as np


def straight(x, a, b):
    m = x * (a OP b)
    return np.sum(m * a)


def in_loop(x, a, b):
    s = 0.0
    for i in range(3):
        s = s + x * (a OP b) * (i + 1)
    return np.sum(s * a)


def in_branch(x, a, b):
    if x > 0.0:
        y = x * (a OP b)
    else:
        y = x * 2.0
    z = y + x
    return np.sum(z * z)


def rounded(x, a, b):
    return np.sum(x * a * round(a[0] + 0.2)) + (x OP 0.3) * x
'''

OPS = ["<", "<=", ">", ">=", "==", "!="]


def _module(op, tmp_path, name):
    import importlib.util
    path = tmp_path / f"{name}.py"
    path.write_text(SOURCE.replace("OP", op))
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("op", OPS)
def test_float_times_comparison(op, tmp_path):
    mod = _module(op, tmp_path, f"cmpkinds_{OPS.index(op)}")
    for fn in (mod.straight, mod.in_loop, mod.in_branch):
        check_derivatives(fn, 0.7, A, B)
        g = mc.grad(fn)(0.7, A, B)
        assert np.ndim(g) == 0, (fn.__name__, g)
    check_derivatives(mod.in_branch, -0.7, A, B)


def test_round_and_number_comparison(tmp_path):
    mod = _module("<", tmp_path, "cmpkinds_round")
    check_derivatives(mod.rounded, 0.7, A, B)
    assert np.ndim(mc.grad(mod.rounded)(0.7, A, B)) == 0


def test_the_trunk_case():
    """The reported case: grad of sum(x * (a < b) * a) is sum((a < b) * a), a float."""
    def f(x, a, b):
        return np.sum(x * (a < b) * a)
    g = mc.grad(f)(0.7, A, B)
    assert np.ndim(g) == 0 and np.isclose(g, np.sum((A < B) * A))
    assert operator.lt(A, B).dtype == bool
