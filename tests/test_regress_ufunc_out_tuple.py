"""Regression (reported by the nested-derivative work): a one-result ufunc given its output as a one-array tuple,
`np.add(b, s * x, out=(c,))`, gave the written array a zero tangent in forward mode (silently) and failed in
reverse mode; it is `out=c` (ir/ufunc_out.py).  A function of the user's with an `out` parameter keeps its tuple."""
import numpy as np
import pytest

from mooncake_ast.testing import check_derivatives


def add_into_tuple(x, s):
    b = x * 1.0
    c = np.zeros_like(x)
    np.add(b, s * x, out=(c,))
    return np.sum(c ** 2)


def sin_in_place_tuple(x):
    b = x * 2.0
    np.sin(b, out=(b,))
    return np.sum(b * x)


def _mine(v, out=None):
    return v * len(out) if out is not None else v


def users_out_parameter(x):
    return np.sum(_mine(x * 3.0, out=(x,)))


@pytest.mark.parametrize("fn,args", [(add_into_tuple, (np.array([0.3, 0.5]), 0.7)),
                                     (sin_in_place_tuple, (np.array([0.3, 0.5]),)),
                                     (users_out_parameter, (np.array([0.3, 0.5]),))])
def test_out_tuples(fn, args):
    check_derivatives(fn, *args)
