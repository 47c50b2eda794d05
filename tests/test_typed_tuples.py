"""Issue 9: a tuple of float arrays and floats (`params = (W1, b1, W2, b2)`) read by constant index or unpacked
gets one adjoint variable per item and a pullback of plain NumPy; tuples written through, aliased, handed on or
returned keep the generic storage.  Every case in both modes against finite differences."""
import ast

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives


def mlp(params, x):
    W1, b1, W2, b2 = params
    h = np.tanh(W1 @ x + b1)
    return np.sum((W2 @ h + b2) ** 2)


def indexed(params, x):
    return np.sum(params[0] * x) + params[-1] * np.sum(x) + params[1] ** 2


def item_written(params, x):
    W, s = params
    W[0, 0] = s * 2.0
    return np.sum(W * x[:, None])


def partly_used(params, x):
    return np.sum(params[0] @ x)


def items_multiplied(params, x):
    a, b = params
    return np.sum(a * b * x)


def handed_on(params, x):
    return _energy(params) * np.sum(x)


def _energy(params):
    a, b = params
    return np.sum(a ** 2) + np.sum(b)


def returned(params, x):
    return params


def in_a_loop(params, x):
    s = 0.0
    for k in range(3):
        W, b = params
        s = s + np.sum(np.tanh(W @ x + b * k))
    return s


R = np.random.default_rng(5)
X = R.normal(size=2)
P_MLP = (R.normal(size=(3, 2)), R.normal(size=3), R.normal(size=(1, 3)), R.normal(size=1))
V = R.normal(size=2)

CASES = [
    (mlp, (P_MLP, X)),
    (indexed, ((R.normal(size=2), 0.5, -1.5), X)),
    (item_written, ((R.normal(size=(2, 2)), 0.7), X)),
    (partly_used, ((R.normal(size=(2, 2)), R.normal(size=3)), X)),
    (items_multiplied, ((R.normal(size=2), R.normal(size=2)), X)),
    (items_multiplied, ((V, V), X)),  # (one array twice: not typed, one adjoint)
    (handed_on, ((R.normal(size=2), R.normal(size=2)), X)),
    (returned, ((R.normal(size=2), 0.3), X)),
    (in_a_loop, ((R.normal(size=(2, 2)), R.normal(size=2)), X)),
]


@pytest.mark.parametrize("fn,args", CASES, ids=[f"{f.__name__}{k}" for k, (f, _) in enumerate(CASES)])
def test_tuple_parameters(fn, args):
    check_derivatives(fn, *args)


def test_mlp_pullback_is_plain():
    mc.vjp(mlp, P_MLP, X)
    src = mc.source(mlp, "reverse")
    assert "any:tuple:f.nn;f.n;f.1n;f.1" in src
    tree = ast.parse(src)
    pull = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.endswith("__pullback"))
    assert not [n for n in ast.walk(pull) if isinstance(n, ast.Name) and n.id == "_mc"]
    assert "return ((W1_bar, " in src
