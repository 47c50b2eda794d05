"""Writes to dicts reached at run time in reverse mode (issue 8, cr9 and family 4).

`d.update(...)`, `d.setdefault(k, v)`, `d.pop(k)`, `d.popitem()` used to be undone by the
pullback without routing any adjoint (a silent zero gradient).  The values written hand
over what their slots collected; values taken out give their adjoints back to the slot.
Gradients are checked against central finite differences.
"""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives


def fd(f, args, i, h=1e-6):
    up = args[:i] + (args[i] + h,) + args[i + 1:]
    dn = args[:i] + (args[i] - h,) + args[i + 1:]
    return (f(*up) - f(*dn)) / (2 * h)


def update_dict(x, y):
    d = {"a": x}
    d.update({"b": y, "a": x * y})
    return d["a"] * d["b"] + x


def update_pairs(x, y):
    d = {"a": x}
    d.update((k, v * 2.0) for k, v in [("b", y), ("c", x)])
    return d["a"] * d["b"] + d["c"]


def update_keywords(x, y):
    d = {}
    d.update(a=x, b=y * y)
    return d["a"] * 2.0 + d["b"] * x


def setdefault_both(x, y):
    d = {"a": x}
    v = d.setdefault("b", y)
    w = d.setdefault("a", y)
    return v * w * 2.0 + d["b"]


def pop_and_popitem(x, y):
    d = {"a": x, "b": y}
    v = d.pop("a")
    u = d.pop("zz", y * 3.0)
    k, w = d.popitem()
    return v * w + u + v


def dict_of_arrays(a, b):
    d = {"a": a}
    d.update({"b": b * 2.0})
    e = d.pop("a")
    return np.sum(e * d["b"])


CASES = [update_dict, update_pairs, update_keywords, setdefault_both, pop_and_popitem]


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_reverse_gradient_against_finite_differences(f):
    args = (1.3, 0.7)
    grads = mc.grad(f, argnums=(0, 1))(*args)
    for i in range(2):
        assert grads[i] == pytest.approx(fd(f, args, i), rel=1e-6, abs=1e-8)


def test_both_modes():
    # (forward mode of update with pairs, keywords, and of pop/setdefault lacks rules in rules/builtin_methods.py)
    check_derivatives(update_dict, 1.3, 0.7)


def test_dict_of_arrays():
    a, b = np.array([0.5, -1.0]), np.array([2.0, 0.3])
    ga, gb = mc.grad(dict_of_arrays, argnums=(0, 1))(a, b)
    np.testing.assert_allclose(ga, 2.0 * b)
    np.testing.assert_allclose(gb, 2.0 * a)
