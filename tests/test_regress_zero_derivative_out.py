"""A zero-derivative ufunc writing its result into an array with a derivative (`np.floor(y, out=y)`).

The transforms leave a call with a zero derivative out of the derivative code, and with it the write: the output
kept its old tangent (forward) and its adjoint (reverse), as if y had not been floored.  Such a call is now a
store of its result (ir/ufunc_out._zero_derivative_out), which both modes treat as any other write."""
import numpy as np
import pytest

from mooncake_ast.testing import check_derivatives

X = np.array([0.7, -1.3, 2.1])


def floor_itself(x):
    y = x * 3.0
    np.floor(y, out=y)
    return np.sum(y * x)


def ceil_into_another(x):
    y = np.sin(x)
    z = x * 2.0
    np.ceil(y, out=z)
    return np.sum(z * x) + np.sum(y)


def rint_result_used(x):
    y = x * 2.5
    r = np.rint(y, out=y)
    return np.sum(r * x) + np.sum(y ** 2)


def trunc_into_a_slice(x):
    y = x * 3.0
    np.trunc(y[:2], out=y[:2])
    return np.sum(y * x)


def positional_output(x):
    y = x * 3.0
    np.floor(y, y)
    return np.sum(y * np.cos(x))


def comparison_into_floats(x):
    y = x * 3.0
    np.greater(y, 0.0, out=y, casting="unsafe")
    return np.sum(y * x)


def heaviside_in_a_loop(x):
    y = x.copy()
    acc = 0.0
    for k in range(3):
        y = y * (1.0 + 0.1 * k)
        acc = acc + np.sum(y * x)
        np.heaviside(y, 0.5, out=y)
    return acc + np.sum(y * x)


def sign_then_more_work(x):
    y = x ** 2 - 1.0
    np.sign(y, out=y)
    return np.sum(np.exp(y) * x)


FAMILY = [floor_itself, ceil_into_another, rint_result_used, trunc_into_a_slice, positional_output,
          comparison_into_floats, heaviside_in_a_loop, sign_then_more_work]


@pytest.mark.parametrize("f", FAMILY, ids=lambda f: f.__name__)
def test_zero_derivative_output(f):
    check_derivatives(f, X.copy())
