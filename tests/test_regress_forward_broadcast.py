"""Forward mode: a tangent has its primal's shape, in storage of its own (issue 16).

`np.ones(3) + x` with a float x used to pass x's tangent through unchanged (a float, or
x's own tangent array): `np.sum` of it was 1 instead of 3, indexing it failed, and a
later in-place write to x changed the result's tangent.  Every binary operation with a
constant partner of another shape, for numbers, 0-d and n-d arrays, is checked against
finite differences (not only against reverse mode).
"""
import operator

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives

SHAPES = {"float": None, "0d": (), "vec": (3,), "col": (2, 1), "mat": (2, 3)}


def _value(shape, seed):
    rng = np.random.default_rng(seed)
    if shape is None:
        return float(rng.uniform(0.5, 1.5))
    return rng.uniform(0.5, 1.5, size=shape)


OPS = {
    "add": operator.add, "sub": operator.sub, "rsub": lambda a, b: operator.sub(b, a), "mul": operator.mul,
    "div": operator.truediv, "rdiv": lambda a, b: operator.truediv(b, a), "pow": operator.pow,
    "np.add": np.add, "np.subtract": np.subtract, "np.multiply": np.multiply, "np.maximum": np.maximum,
    "np.minimum": np.minimum, "np.hypot": np.hypot, "np.arctan2": np.arctan2,
}


def add_const(x, c):
    return x + c


def sub_const(x, c):
    return c - x


def pos_const(x, c):
    return +(x + c * 0.0)


def ufunc_add(x, c):
    return np.add(c, x)


def ufunc_sub(x, c):
    return np.subtract(x, c)


def where_const(x, c):
    return np.where(c > 1.0, x, c)


def maximum_const(x, c):
    return np.maximum(x, c * 0.1)


FUNCS = [add_const, sub_const, pos_const, ufunc_add, ufunc_sub, where_const, maximum_const]


def _fd_jvp(f, x, c, dx, h=1e-6):
    xp = x + h * dx
    xm = x - h * dx
    return (np.asarray(f(xp, c), dtype=float) - np.asarray(f(xm, c), dtype=float)) / (2 * h)


PAIRS = [("float", "vec"), ("float", "mat"), ("0d", "vec"), ("vec", "mat"), ("col", "vec"), ("vec", "float"),
         ("mat", "col"), ("vec", "vec")]


@pytest.mark.parametrize("xs, cs", PAIRS)
@pytest.mark.parametrize("f", FUNCS, ids=lambda f: f.__name__)
def test_tangent_has_the_result_shape(f, xs, cs):
    x, c = _value(SHAPES[xs], 1), _value(SHAPES[cs], 2)
    try:
        y = f(x, c)
    except ValueError:
        pytest.skip("shapes do not broadcast")
    dx = 0.7 if SHAPES[xs] is None else np.random.default_rng(3).normal(size=SHAPES[xs])
    y2, dy = mc.jvp(f, (x, c), (dx, None))
    assert np.shape(dy) == np.shape(y)
    if isinstance(y, np.ndarray) and y.ndim:
        assert isinstance(dy, np.ndarray) and dy.dtype.kind == "f"
        assert not np.shares_memory(dy, dx) if isinstance(dx, np.ndarray) else True
    np.testing.assert_allclose(dy, _fd_jvp(f, x, c, dx), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("name", list(OPS))
@pytest.mark.parametrize("xs, cs", [("float", "vec"), ("0d", "col"), ("col", "vec"), ("vec", "float")])
def test_every_binary_op_with_a_constant_partner(name, xs, cs):
    op = OPS[name]
    x, c = _value(SHAPES[xs], 4), _value(SHAPES[cs], 5)

    def f(x_, c_):
        return op(x_, c_)

    y = f(x, c)
    dx = 0.7 if SHAPES[xs] is None else np.random.default_rng(6).normal(size=SHAPES[xs])
    _, dy = mc.jvp(_apply, (name, x, c), (None, dx, None))
    assert np.shape(dy) == np.shape(y)
    np.testing.assert_allclose(dy, _fd_jvp(f, x, c, dx), rtol=1e-5, atol=1e-7)


def _apply(name, x, c):
    return OPS[name](x, c)


def sum_ones_plus(x):
    return np.sum(np.ones(3) + x)


def aliasing_after_write(a):
    u = np.ones(3) + a
    np.sin(a, out=a)
    return np.sum(u) + np.sum(a)


def aliasing_plus_zero(a):
    u = a + 0.0
    a *= 3.0
    return np.sum(u * u) + np.sum(a)


def indexed_result(x):
    u = np.ones(3) + x
    return u[1] * 2.0 + np.sum(u @ np.ones((3, 2)))


def inplace_into_constant(x):
    w = np.zeros(3)
    w += x
    w[0] = 5.0
    return np.sum(w * np.arange(3.0)) + x


@pytest.mark.parametrize("f, args", [
    (sum_ones_plus, (0.5,)),
    (aliasing_after_write, (np.array([0.1, 0.2, 0.3]),)),
    (aliasing_plus_zero, (np.array([0.1, 0.2, 0.3]),)),
    (indexed_result, (0.5,)),
    (inplace_into_constant, (0.5,)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_passed_through_tangents(f, args):
    check_derivatives(f, *args)
    x = args[0]
    dx = 0.7 if isinstance(x, float) else np.array([0.3, -0.2, 0.5])
    _, dy = mc.jvp(f, (np.copy(x) if not isinstance(x, float) else x,), (dx,))
    h = 1e-6
    xp = x + h * dx
    xm = x - h * dx
    fd = (f(np.copy(xp) if not isinstance(x, float) else xp) - f(np.copy(xm) if not isinstance(x, float) else xm)) / (2 * h)
    np.testing.assert_allclose(dy, fd, rtol=1e-5, atol=1e-7)
