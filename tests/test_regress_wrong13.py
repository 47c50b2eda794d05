"""wrong13: silent wrong derivatives left by earlier rounds, widened into families (both modes, finite differences).

* a NumPy method given its output array positionally (`A.max(0, o, True)`, `A.sum(1, None, o)`, `A.clip(lo, hi,
  o)`, `np.add.reduce(A, 0, None, o)`): the output was taken for an operand and both modes lost the write (a zero
  derivative); the keyword form `A.max(axis=0, out=o)` is the reference, and both forms must agree with finite
  differences, whether the receiver's type is known (a parameter) or only at run time (read from a list);
* jacfwd of an argument laid out with gaps (`big[::2]`, `big[:, ::2]`, `big[::-1]`) in a function writing through
  a reshape / ravel of it: the batched directions were contiguous, so the ravel was a view for the tangent and a
  copy for the primal, and the write leaked into the argument's tangent (forward only; reverse mode was right);
* constant dict keys equal to Python (`dict([(1, x0), (1.0, x1)])`): refused in reverse mode as keys that depend
  on the inputs, though literals carry no derivative.
"""
from __future__ import annotations

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.errors import MooncakeError

A34 = np.array([[0.3, -0.7, 1.1, 0.45], [0.9, 0.2, -0.35, 0.6], [-1.2, 0.8, 0.15, -0.55]])


def _check(f, x):
    mc.testing.check_derivatives(f, x.copy())


# ---------------------------------------------------------------- a method's output given positionally
def max_keepdims(A):
    o = np.zeros((1, 4))
    A.max(0, o, True)
    return np.sum(o * o)


def min_returned(A):
    o = np.zeros(3)
    r = A.min(1, o)
    return np.sum(r ** 3)


def sum_out(A):
    o = np.zeros(3)
    A.sum(1, None, o)
    return np.sum(o ** 2)


def sum_out_keepdims(A):
    o = np.zeros((3, 1))
    r = A.sum(1, None, o, True)
    return np.sum(r * o) + np.sum(o[:, 0] * A[:, 1])


def mean_returned(A):
    o = np.zeros(4)
    r = A.mean(0, None, o)
    return np.sum(r ** 2)


def prod_out(A):
    o = np.zeros(3)
    A.prod(1, None, o)
    return np.sum(o ** 2)


def std_ddof(A):
    o = np.zeros(4)
    A.std(0, None, o, 1)
    return np.sum(o ** 2)


def var_out(A):
    o = np.zeros(3)
    A.var(1, None, o)
    return np.sum(np.sin(o))


def cumsum_out(A):
    o = np.zeros((3, 4))
    A.cumsum(0, None, o)
    return np.sum(o ** 2)


def cumprod_out(A):
    o = np.zeros((3, 4))
    A.cumprod(1, None, o)
    return np.sum(o * A)


def clip_out(A):
    o = np.zeros((3, 4))
    A.clip(-0.5, 0.5, o)
    return np.sum(o ** 2) + np.sum(o * A)


def dot_out(A):
    o = np.zeros((3, 3))
    A.dot(A.T, o)
    return np.sum(o ** 2)


def trace_out(A):
    o = np.zeros(())
    A.trace(0, 0, 1, None, o)
    return o * o


def round_out_kills(A):
    o = A * 3.0  # (o carried a derivative: the write replaces it by the round's, zero)
    A.round(2, o)
    return np.sum(o ** 2) + np.sum(A ** 2)


def overwrite_live_out(A):
    o = A[:, :3] * 2.0  # (o's old derivative is replaced by the max's)
    A.max(1, o[0])
    return np.sum(o ** 2)


def out_none_positional(A):
    return np.sum(A.sum(0, None, None) ** 2)


def receiver_from_list(A):
    B = [A * 1.5][0]  # (B's type known only when the code runs)
    o = np.zeros(4)
    B.max(0, o)
    return np.sum(o ** 2) + np.sum(B.mean(0, None, np.zeros(4)) * A[0])


def ufunc_reduce_out(A):
    o = np.zeros(4)
    np.add.reduce(A, 0, None, o)
    return np.sum(o ** 2)


def ufunc_reduce_keepdims(A):
    o = np.zeros((3, 1))
    np.multiply.reduce(A, 1, None, o, True)
    return np.sum(o ** 2)


def ufunc_accumulate_out(A):
    o = np.zeros((3, 4))
    np.add.accumulate(A, 1, None, o)
    return np.sum(o ** 2)


def ufunc_method_found_at_run_time(A):
    u = [np.multiply, np.add][1]
    o = np.zeros(3)
    u.reduce(A * A, 1, None, o)
    return np.sum(o ** 2)


def ufunc_reduceat_out(A):
    o = np.zeros((3, 2))
    np.add.reduceat(A, [0, 2], 1, None, o)
    return np.sum(o ** 3)


def ufunc_found_at_run_time(A):
    u = [np.exp, np.sin][0]
    o = np.zeros((3, 4))
    u(A, o)
    return np.sum(o)


def matmul_out(A):
    o = np.zeros((3, 3))
    np.matmul(A, A.T, o)
    return np.sum(o ** 2)


def exp_out(A):
    o = np.zeros((3, 4))
    np.exp(A, o)
    return np.sum(o)


POSITIONAL_OUT = [max_keepdims, min_returned, sum_out, sum_out_keepdims, mean_returned, prod_out, std_ddof, var_out,
                  cumsum_out, cumprod_out, clip_out, dot_out, trace_out, round_out_kills, overwrite_live_out,
                  out_none_positional, receiver_from_list, ufunc_reduce_out, ufunc_reduce_keepdims,
                  ufunc_accumulate_out, ufunc_method_found_at_run_time, ufunc_reduceat_out,
                  ufunc_found_at_run_time, matmul_out, exp_out]


@pytest.mark.parametrize("f", POSITIONAL_OUT, ids=lambda f: f.__name__)
def test_positional_out_both_modes(f):
    _check(f, A34)


@pytest.mark.parametrize("f", [max_keepdims, clip_out,  # (sum_out, ufunc_reduce_out & co.: test_regress_order14.py)
                               ], ids=lambda f: f.__name__)
def test_positional_out_second_order_refused(f):
    """Second order: the nested plans of a method given an output array neither wrote the output's tangent nor
    replaced its old one (the keyword form too: a zero or wrong Hessian); refused honestly, both forms."""
    with pytest.raises(MooncakeError, match="not supported"):
        mc.hessian(f)(A34.copy())


def sum_keyword_out(A):
    o = np.zeros(3)
    A.sum(axis=1, out=o)
    return np.sum(o ** 2)


def mean_keyword_out(A):
    o = np.zeros(4)
    r = A.mean(axis=0, out=o)
    return np.sum(r ** 2)


@pytest.mark.parametrize("f", [sum_keyword_out, mean_keyword_out], ids=lambda f: f.__name__)
def test_keyword_out_first_order(f):  # (second order: test_regress_order14.py)
    _check(f, A34)


class Picker:
    """A user object whose `max` takes three numbers: its arguments are not NumPy's (nothing moved)."""

    def max(self, a, b, c):
        return a * b + c


def user_method_not_numpy(A):
    return Picker().max(A[0, 0], A[1, 1], A[2, 2]) * A[0, 1]


def test_user_method_with_numpy_name_untouched():
    _check(user_method_not_numpy, A34)


# ---------------------------------------------------------------- jacfwd of an argument laid out with gaps
def _write_through_ravel(X):
    r = X.ravel()
    r[0] = 3.0 * r[1]
    return np.sum(X ** 2) + np.sum(r * r)


def _write_through_reshape_of_view(X):
    Y = X[...]  # (a view of the argument: its layout)
    Y.reshape(-1)[1] = Y.flat[0] * 2.0
    return X * Y


def _write_through_view_returned(X):
    r = X.reshape(-1)
    r *= 2.0
    return np.sin(X) + r.sum()


_GAPPED_FUNCTIONS = [_write_through_ravel, _write_through_reshape_of_view, _write_through_view_returned]
_BIG = np.arange(1.0, 25.0).reshape(4, 6) / 7.0 - 1.3
_GAPPED_ARGUMENTS = {
    "rows_step2": lambda big: big[::2],
    "cols_step2": lambda big: big[:, ::2],
    "transposed": lambda big: big.T,
    "transposed_step": lambda big: big.T[::2],
    "block": lambda big: big[1:3, 1:5],
    "reversed_rows": lambda big: big[::-1],
}


def _fd_in_place(f, make, big, h=1e-6):
    X = make(big.copy())
    cols = []
    for idx in np.ndindex(X.shape):
        p, m = big.copy(), big.copy()
        make(p)[idx] += h
        make(m)[idx] -= h
        cols.append((np.asarray(f(make(p)), dtype=float) - np.asarray(f(make(m)), dtype=float)) / (2 * h))
    y_shape = np.shape(f(make(big.copy())))
    return np.stack(cols, axis=-1).reshape(y_shape + X.shape)


@pytest.mark.parametrize("layout", list(_GAPPED_ARGUMENTS))
@pytest.mark.parametrize("f", _GAPPED_FUNCTIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("mode", ["jacfwd", "jacrev"])
def test_argument_with_gaps(f, layout, mode):
    make = _GAPPED_ARGUMENTS[layout]
    want = _fd_in_place(f, make, _BIG)
    got = getattr(mc, mode)(f)(make(_BIG.copy()))
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


# ---------------------------------------------------------------- constant float keys entering a dict from pairs
X4 = np.array([0.3, -0.7, 1.1, 0.45])


def pairs_int_float(x):
    d = dict([(1, x[0]), (1.0, x[1])])
    return d[1] * x[2]


def pairs_float_keys(x):
    d = dict([(0.5, x[0] * x[1]), (2.0, x[2]), (0.5, x[3])])
    return d[0.5] * d[2.0]


def pairs_update(x):
    d = {"a": x[3]}
    d.update([(0.5, x[0]), (2.0, x[1])])
    return d[0.5] * x[2] + d[2.0] * d["a"]


def pairs_ordered(x):
    import collections
    d = collections.OrderedDict([(1.5, x[0]), (True, x[1]), (1, x[2])])
    return sum(v * v for v in d.values()) + x[3]


def pairs_constant_computed_key(x):
    k = 2.0 ** 0.5  # (a constant: no derivative)
    d = dict([(k, x[0]), (1.0, x[1] ** 2)])
    return d[k] * d[1.0] + x[2] * x[3]


@pytest.mark.parametrize("f", [pairs_int_float, pairs_float_keys, pairs_update, pairs_ordered,
                               pairs_constant_computed_key], ids=lambda f: f.__name__)
def test_constant_float_keys_from_pairs(f):
    _check(f, X4)


def pairs_active_key(x):
    d = dict([(1.0, x[0]), (x[1], 2.0)])
    return d[1.0] * x[2]


def pairs_appended_active_key(x):
    ps = [(1.0, x[0])]
    ps.append((x[1] * 1.0, 2.0))
    d = dict(ps)
    return d[1.0] * x[2]


def pairs_list_built_from_items(x):
    p = (x[1] * 1.0, x[0])
    d = dict([(1.0, x[2]), p])
    return d[1.0] * x[3]


@pytest.mark.parametrize("f", [pairs_active_key, pairs_appended_active_key, pairs_list_built_from_items],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("mode", ["grad", "jacfwd"])
def test_keys_depending_on_inputs_still_refused(f, mode):
    with pytest.raises(MooncakeError, match="key depends on the inputs"):
        getattr(mc, mode)(f)(X4.copy())
