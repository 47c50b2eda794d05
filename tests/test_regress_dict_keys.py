"""A dict keeps no derivative of its keys: a key that depends on the inputs (`{x: 2 * x}`, `d[x * 3.0] = v`,
`dict(zip([x, ...], ...))` in forward mode) gave a silently wrong derivative in both modes (the key's part
dropped); now refused, in both modes.  Keys that do not depend on the inputs, and ints, stay fine."""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives


def display_key(x):
    d = {x: 2 * x}
    total = 0.0
    for k, v in d.items():
        total += k * v
    return total


def written_key(x):
    d = {}
    d[x * 3.0] = x
    return sum(k * v for k, v in d.items())


def zipped_keys(x):
    d = dict(zip([x, x * 2.0], [1.0, 2.0]))
    return sum(d.keys())


def constant_float_keys(x):
    table = {0.5: x, 1.5: x * x}
    d = {}
    d[2.5] = x * 3.0
    return table[0.5] + table[1.5] * d[2.5]


def int_keys_from_inputs(x, a):
    d = {}
    d[int(x * 3)] = x * 2.0
    idx = {k: a[k] * x for k in range(3)}
    y = np.zeros(3)
    y[int(x * 2)] = x
    return sum(d.values()) + sum(idx.values()) + np.sum(y)


@pytest.mark.parametrize("fn", [display_key, written_key], ids=lambda f: f.__name__)
def test_a_key_that_depends_on_the_inputs_is_refused(fn):
    with pytest.raises(mc.UnsupportedDerivativeError, match="key"):
        mc.grad(fn)(0.7)
    with pytest.raises(mc.UnsupportedDerivativeError, match="key"):
        mc.jvp(fn, (0.7,), (1.0,))


def test_dict_of_zipped_keys_is_refused_in_forward_mode():
    with pytest.raises(mc.UnsupportedDerivativeError, match="key"):
        mc.jvp(zipped_keys, (0.7,), (1.0,))


def test_keys_that_do_not_depend_on_the_inputs():
    check_derivatives(constant_float_keys, 0.7)
    check_derivatives(int_keys_from_inputs, 0.7, np.array([0.5, -1.0, 2.0]))
