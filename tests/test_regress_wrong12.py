"""wrong12: silent wrong derivatives hunt11 found, widened into families (both modes, finite differences).

* dict displays whose keys are different objects but one key to Python (1, 1.0, True, np.int64(1); 0.0 and
  -0.0): the dict keeps the first key and the last value, so the earlier values reach nothing and get no
  derivative (reverse mode told the keys apart by their repr);
"""
from __future__ import annotations

import numpy as np
import pytest

import mooncake_ast as mc

X4 = np.array([0.3, -0.7, 1.1, 0.45])


def _fd(f, x, h=1e-6):
    return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(x.size)])


def _check(f, x, mode):
    got = (mc.grad if mode == "reverse" else mc.jacfwd)(f)(x.copy())
    np.testing.assert_allclose(got, _fd(f, x), rtol=1e-6, atol=1e-6)


# ---------------------------------------------------------------- dict displays with keys equal to Python
def keys_int_float(x):
    d = {1: x[0], 1.0: x[1]}
    return d[1] * x[2]


def keys_true_int_float(x):
    d = {True: x[0], 1: x[1], 1.0: x[2]}
    return sum(d.values()) * x[3]


def keys_signed_zeros(x):
    d = {0.0: x[0], -0.0: x[1], 2: x[3]}
    return d[0] * x[2] + d[2]


def keys_numpy_int(x):
    d = {np.int64(1): x[0], 1: x[1]}
    return d[1] * x[2]


def keys_values_loop(x):
    d = {1: x[0], 1.0: x[1], 2: x[3]}
    s = 0.0
    for v in d.values():
        s = s + v * v
    return s * x[2]


def keys_items_loop(x):
    d = {2: x[3], True: x[0], 1.0: x[1]}
    s = 0.0
    for k, v in d.items():
        s = s + k * v * v
    return s * x[2] + len(d)


def keys_setitem_after_display(x):
    d = {1: x[0], 2: x[3]}
    d[1.0] = x[1]
    return d[1] * x[2] + d[2]


def keys_comprehension(x):
    d = {k: x[i] for i, k in enumerate([1, 1.0, True])}
    return d[1] * x[3]


def keys_update(x):
    d = {1: x[0], 1.0: x[1]}
    d.update({True: x[3]})
    return d[1] * x[2]


def keys_repeated_in_loop(x):
    s = 0.0
    for i in range(2):
        d = {1: x[i], 1.0: x[i + 1], 3: x[3]}
        s = s + d[1] * d[3]
    return s


EQUAL_KEYS = [keys_int_float, keys_true_int_float, keys_signed_zeros, keys_numpy_int, keys_values_loop,
              keys_items_loop, keys_setitem_after_display, keys_comprehension, keys_update, keys_repeated_in_loop]


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("f", EQUAL_KEYS, ids=lambda f: f.__name__)
def test_dict_equal_keys(f, mode):
    _check(f, X4, mode)


def test_dict_equal_keys_value_and_grad():
    value, g = mc.value_and_grad(keys_true_int_float)(X4.copy())
    assert value == pytest.approx(keys_true_int_float(X4.copy()))
    np.testing.assert_allclose(g, _fd(keys_true_int_float, X4), rtol=1e-6, atol=1e-6)
