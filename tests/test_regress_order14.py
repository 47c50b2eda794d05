"""order14: second-order refusals removed (issue 10), each checked in the four compositions (hessian,
jacfwd(jacrev), jacrev(jacfwd), jacfwd(jacfwd)) and grad(grad) for scalars against central differences of the
gradient; and the reused pullback of jacrev (jacobian_rows.py) on code whose pullback might write a saved value.

Families:
* reductions and their ndarray methods writing `out=` at second order (np.sum(A, 0, None, o), A.max(0, out=o),
  A.sum(0, None, o), ...): rules/nested_out.py plans them as a plain write of the reduction into out.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import mooncake_ast as mc

X = np.array([0.3, -0.7, 1.1, 0.5, -0.2, 0.9])

COMPOSITIONS = {"hessian": lambda f: mc.hessian(f), "jacfwd(jacrev)": lambda f: mc.jacfwd(mc.jacrev(f)),
                "jacrev(jacfwd)": lambda f: mc.jacrev(mc.jacfwd(f)), "jacfwd(jacfwd)": lambda f: mc.jacfwd(mc.jacfwd(f))}


def fd(f, x, h=1e-5):
    """Central differences: rows the flat outputs of f, columns the entries of x."""
    cols = []
    for j in range(x.size):
        e = np.zeros(x.size)
        e[j] = h
        e = e.reshape(x.shape)
        cols.append((np.ravel(np.asarray(f(x + e), dtype=float)) - np.ravel(np.asarray(f(x - e), dtype=float))) / (2 * h))
    return np.stack(cols, axis=-1)


def close(got, ref, rtol=1e-4, atol=1e-5):
    got = np.asarray(got, dtype=float)
    ref = np.asarray(ref, dtype=float).reshape(got.shape)
    scale = max(1.0, float(np.max(np.abs(ref))))
    assert np.all(np.isfinite(got)), f"non-finite: {got}"
    assert np.all(np.abs(got - ref) <= atol * scale + rtol * np.abs(ref)), f"ours {got.ravel()[:8]} ref {ref.ravel()[:8]}"


def check_second(f, how, x):
    """The second derivative of f by `how` against central differences of its first (jacrev)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = COMPOSITIONS[how](f)(x.copy())
        ref = fd(lambda v: np.asarray(mc.jacrev(f)(v)), x)
    close(np.reshape(got, ref.shape), ref)


# ---------------------------------------------------------------- reductions writing out= at second order
def _fn_sum_pos(x):
    o = np.zeros(2)
    np.sum(x.reshape(3, 2) ** 2, 0, None, o)
    return np.sum(np.sin(o))


def _fn_sum_axis_kw_then_inplace(x):
    o = np.zeros(3)
    np.sum(x.reshape(3, 2) ** 2, axis=1, out=o)
    o *= 2.0
    return np.sum(np.sqrt(o + 1.0))


def _fn_cumsum_pos(x):
    o = np.empty(6)
    np.cumsum(x * x, 0, None, o)
    return np.sum(o * np.arange(6.0))


def _fn_prod_axis(x):
    o = np.zeros(3)
    np.prod(x.reshape(2, 3) + 2.0, axis=0, out=o)
    return np.sum(o ** 2)


def _fn_mean_into_row(x):
    buf = np.ones((2, 3))
    np.mean(x.reshape(2, 3) ** 3, 0, None, buf[1])
    return np.sum(buf ** 2) + buf[1, 2] * x[0]


def _fn_max_returned(x):
    o = np.zeros(2)
    r = np.max(x.reshape(2, 3) * x[0], axis=1, out=o)
    return np.sum(r * o) + o[0]


def _fn_std_axis(x):
    o = np.zeros(2)
    np.std(x.reshape(2, 3), axis=1, out=o)
    return np.sum(o ** 2) * x[1]


def _fn_cumprod_loop(x):
    o = np.empty(3)
    s = 0.0
    for k in range(2):
        np.cumprod(x[:3] + k, out=o)
        s += np.sum(o * x[3:])
    return s


def _m_max_kw(x):
    A = x.reshape(2, 3) + np.array([[0.0, 2.0, 0.0], [1.5, 0.0, 2.5]])
    o = np.empty(3)
    A.max(0, out=o)
    return np.sum(o ** 2) + o[1] * x[0]


def _m_max_pos(x):
    o = np.zeros(2)
    x.reshape(3, 2).max(0, o)
    return np.sum(o ** 3)


def _m_sum_pos_dtype_none(x):
    o = np.zeros(2)
    x.reshape(3, 2).sum(0, None, o)
    return np.sum(o ** 3)


def _m_mean_pos(x):
    o = np.zeros(3)
    (x.reshape(3, 2) ** 2).mean(1, None, o)
    return np.sum(np.cos(o))


def _m_std_pos(x):
    o = np.zeros(3)
    x.reshape(3, 2).std(1, None, o)
    return np.sum(o ** 3)


def _m_var_kw(x):
    o = np.zeros(2)
    x.reshape(3, 2).var(axis=0, out=o)
    return np.sum(o * x[:2])


def _m_prod_min_returned(x):
    A = x.reshape(2, 3) + 1.5
    p = np.empty(3)
    m = np.empty(2)
    r1 = A.prod(axis=0, out=p)
    r2 = A.min(axis=1, out=m)
    return np.sum(r1) + np.sum(r2 * m)


def _m_cumsum_pos(x):
    o = np.zeros(6)
    x.cumsum(0, None, o)
    return np.sum(o ** 3)


def _m_sum_in_loop(x):
    A = x.reshape(3, 2)
    o = np.zeros(2)
    s = 0.0
    for k in range(2):
        (A * (k + 1.0)).sum(0, None, o)
        s += np.sum(o * o)
    return s


def _m_sum_0d(x):
    o = np.zeros(())
    (x * x).sum(out=o)
    return o * x[2]


def _m_sum_into_row_of_buffer(x):
    buf = np.zeros((2, 2))
    x.reshape(3, 2).sum(axis=0, out=buf[1])
    buf[0] = x[:2] * x[4]
    return np.sum(buf ** 3)


def _m_vector_out(x):
    A = x.reshape(2, 3) + np.array([[0.0, 2.0, 0.0], [1.5, 0.0, 2.5]])
    o = np.zeros(3)
    A.max(axis=0, out=o)
    return o * x[3:]


OUT_REDUCTIONS = [_fn_sum_pos, _fn_sum_axis_kw_then_inplace, _fn_cumsum_pos, _fn_prod_axis, _fn_mean_into_row,
                  _fn_max_returned, _fn_std_axis, _fn_cumprod_loop, _m_max_kw, _m_max_pos, _m_sum_pos_dtype_none,
                  _m_mean_pos, _m_std_pos, _m_var_kw, _m_prod_min_returned, _m_cumsum_pos, _m_sum_in_loop, _m_sum_0d,
                  _m_sum_into_row_of_buffer, _m_vector_out]


@pytest.mark.parametrize("how", list(COMPOSITIONS))
@pytest.mark.parametrize("f", OUT_REDUCTIONS, ids=lambda f: f.__name__)
def test_reduction_out_second_order(f, how):
    check_second(f, how, X)


def _scalar_sum_out(t):
    o = np.zeros(2)
    np.sum(np.array([[t, t * t], [np.sin(t), 1.0]]), 0, None, o)
    return np.sum(o ** 3)


def _scalar_method_max_out(t):
    o = np.zeros(2)
    (np.array([[t, 2.0], [t * t, -t]]) * t).max(0, o)
    return np.sum(o * o) * t


@pytest.mark.parametrize("f", [_scalar_sum_out, _scalar_method_max_out], ids=lambda f: f.__name__)
@pytest.mark.parametrize("t", [0.4, 1.3, -0.8])
def test_reduction_out_grad_of_grad(f, t):
    got = mc.grad(mc.grad(f))(t)
    h = 1e-5
    ref = (mc.grad(f)(t + h) - mc.grad(f)(t - h)) / (2 * h)
    close(got, ref)


def _keepdims_out(x):
    o = np.zeros((1, 2))
    np.sum(x.reshape(3, 2), axis=0, keepdims=True, out=o)
    return np.sum(o ** 3)


def test_reduction_out_other_keywords_refused():
    """keepdims= (and dtype=, where=) beside out= stay refused at second order, honestly (first order is right)."""
    close(mc.grad(_keepdims_out)(X.copy()), fd(_keepdims_out, X)[0], rtol=1e-5, atol=1e-6)
    with pytest.raises(mc.MooncakeError, match="not supported"):
        mc.hessian(_keepdims_out)(X.copy())


# the positional-out family of wrong13 (first order there), at second order: those planned now are right in every
# composition (an output that already carried a derivative, `o = A[:, :3] * 2.0; A.max(1, o[0])`, included); the
# rest (keepdims, clip, dot, trace, round, ufunc.reduce / accumulate / reduceat) stay refused
import test_regress_wrong13 as _w13  # noqa: E402

_W13_PLANNED = [_w13.min_returned, _w13.sum_out, _w13.mean_returned, _w13.prod_out, _w13.var_out, _w13.cumsum_out,
                _w13.cumprod_out, _w13.overwrite_live_out, _w13.sum_keyword_out, _w13.mean_keyword_out, _w13.receiver_from_list, _w13.matmul_out, _w13.exp_out]
_W13_REFUSED = [_w13.max_keepdims, _w13.sum_out_keepdims, _w13.std_ddof, _w13.clip_out, _w13.dot_out, _w13.trace_out,
                _w13.round_out_kills, _w13.ufunc_reduce_out, _w13.ufunc_accumulate_out, _w13.ufunc_reduceat_out]


@pytest.mark.parametrize("how", list(COMPOSITIONS))
@pytest.mark.parametrize("f", _W13_PLANNED, ids=lambda f: f.__name__)
def test_positional_out_family_second_order(f, how):
    check_second(f, how, _w13.A34)


@pytest.mark.parametrize("how", ["hessian", "jacrev(jacfwd)"])
@pytest.mark.parametrize("f", _W13_REFUSED, ids=lambda f: f.__name__)
def test_positional_out_family_second_order_refused(f, how):
    with pytest.raises(mc.MooncakeError, match="not supported"):
        COMPOSITIONS[how](f)(_w13.A34.copy())
