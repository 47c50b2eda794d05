"""wrong12: silent wrong derivatives hunt11 found, widened into families (both modes, finite differences).

* dict displays whose keys are different objects but one key to Python (1, 1.0, True, np.int64(1); 0.0 and
  -0.0): the dict keeps the first key and the last value, so the earlier values reach nothing and get no
  derivative (reverse mode told the keys apart by their repr);
* NumPy arguments given positionally past the ones a rule names (`np.sum(x, None, float)`, `A.sum(1, None, None,
  True)`, `A.prod(1, int)`, `np.cross(a, b, 0, 0, 0)`) reach the rule by their NumPy names; an integer or boolean
  dtype makes a reduction a step function (zero derivative, where the rules truncated the tangent instead);
* forward mode: a tangent laid out otherwise than its array (C vs Fortran order, contiguous vs strided), so that
  `y.reshape(-1)` / `y.ravel()` is a view for one and a copy for the other and a write through it is lost or
  leaks (`A.T + row`, `np.sort(A.T)`, `A.T.astype(float, order="C")`, a strided argument given to jvp).
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


# ---------------------------------------------------------------- NumPy arguments given positionally
X6 = np.array([0.3, -0.7, 1.1, 0.45, -1.3, 0.8])
W = np.arange(1.0, 7.0).reshape(2, 3)


def _A(x):
    return x.reshape(2, 3)


POSITIONAL = {
    "sum_axis_dtype": lambda x: np.sum(np.sum(_A(x), 0, float) ** 2),
    "sum_keepdims": lambda x: np.sum(np.sum(_A(x), 1, None, None, True) * _A(x)),
    "sum_initial": lambda x: np.sum(np.sum(_A(x), 1, None, None, False, 2.5) ** 2),
    "sum_meth_keepdims": lambda x: np.sum(_A(x).sum(1, None, None, True) * _A(x)),
    "mean_keepdims": lambda x: np.sum(np.mean(_A(x), 0, None, None, True) * _A(x)),
    "mean_meth_dtype": lambda x: np.sum(_A(x).mean(0, float) ** 2),
    "mean_meth_keepdims": lambda x: np.sum(_A(x).mean(1, None, None, True) * _A(x)),
    "var_ddof": lambda x: np.sum(np.var(_A(x), 1, None, None, 1)),
    "std_ddof_keepdims": lambda x: np.sum(np.std(_A(x), 1, None, None, 1, True) * _A(x)),
    "var_meth_ddof": lambda x: np.sum(_A(x).var(1, None, None, 1)),
    "std_meth_ddof_keepdims": lambda x: np.sum(_A(x).std(0, None, None, 1, True) * _A(x)),
    "prod_keepdims": lambda x: np.sum(np.prod(_A(x), 0, None, None, True) * _A(x)),
    "prod_meth_keepdims": lambda x: np.sum(_A(x).prod(1, None, None, True) * _A(x)),
    "prod_meth_float": lambda x: np.sum(_A(x).prod(1, float) * x[:2]),
    "cumsum_dtype": lambda x: np.sum(np.cumsum(_A(x), 0, float) * W),
    "cumsum_meth_dtype": lambda x: np.sum(_A(x).cumsum(1, float) * W),
    "cumprod_dtype": lambda x: np.sum(np.cumprod(_A(x), 1, float) * W),
    "max_keepdims": lambda x: np.sum(np.max(_A(x), 1, None, True) * _A(x)),
    "amin_keepdims": lambda x: np.sum(np.amin(_A(x), 0, None, True) * _A(x)),
    "min_meth_keepdims": lambda x: np.sum(_A(x).min(1, None, True) * _A(x)),
    "max_meth_initial": lambda x: np.sum(_A(x).max(1, None, False, 0.5) ** 2),
    "sort_kind": lambda x: np.sum(np.sort(_A(x), -1, "stable") * W),
    "sort_axis0_kind": lambda x: np.sum(np.sort(_A(x), 0, "mergesort") * W),
    "cross_axes": lambda x: np.sum(np.cross(_A(x).T, _A(x ** 2).T, 0, 0, 0) * W.T),
    "cross_axisc": lambda x: np.sum(np.cross(_A(x), _A(x ** 2), -1, -1, 0) * W.T),
    "trace_meth_dtype": lambda x: _A(x).trace(1, 0, 1, float) ** 2,
    "trace_dtype": lambda x: np.trace(_A(x), 1, 0, 1, float) ** 2,
    "norm_ord_axis": lambda x: np.sum(np.linalg.norm(_A(x), 2, 1)),
    "norm_keepdims": lambda x: np.sum(np.linalg.norm(_A(x), None, 1, True) * _A(x)),
    "quantile_keepdims": lambda x: np.sum(np.quantile(_A(x), 0.3, 1, None, False, "linear", True) * _A(x)),
    "nanmean_keepdims": lambda x: np.sum(np.nanmean(_A(x), 0, None, None, True) * _A(x)),
    "ptp_keepdims": lambda x: np.sum(np.ptp(_A(x), 1, None, True) * _A(x)),
    "diff_n_axis": lambda x: np.sum(np.diff(_A(x), 1, 0) ** 2),
    "take_axis": lambda x: np.sum(np.take(_A(x), [2, 0], 1) * W[:, :2]),
}

# integer / boolean dtypes: the reduction is a step function of x (zero derivative), as x.astype(int) is
INTEGER_DTYPES = {
    "sum_int_positional": lambda x: np.sum(x, None, int) * 1.0 + np.sum(x ** 2),
    "sum_int_keyword": lambda x: np.sum(x, dtype=int) * x[0] + np.sum(x ** 2),
    "sum_meth_int": lambda x: x.sum(dtype=int) * x[0],
    "mean_meth_int": lambda x: np.sum(_A(x).mean(0, dtype=int) * x[:3]),
    "cumsum_int32": lambda x: np.sum(np.cumsum(x, dtype=np.int32) * x),
    "cumprod_int_positional": lambda x: np.sum(np.cumprod(x, None, np.int64) * x),
    "prod_meth_int": lambda x: np.sum(_A(x).prod(1, int) * x[:2]),
    "prod_int": lambda x: np.sum(np.prod(_A(x), 1, int) * x[:2]),
    "trace_meth_int": lambda x: _A(x).trace(0, 0, 1, int) * x[0],
    "trace_int": lambda x: np.trace(_A(x), 0, 0, 1, int) * x[0],
    "sum_bool": lambda x: np.sum(_A(x).sum(0, bool) * x[:3]),
}


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("name", sorted(POSITIONAL) + sorted(INTEGER_DTYPES))
def test_numpy_positional_arguments(name, mode):
    f = POSITIONAL.get(name) or INTEGER_DTYPES[name]
    _check(f, X6, mode)


@pytest.mark.parametrize("name", ["sum_keepdims", "max_meth_initial", "std_meth_ddof_keepdims", "prod_int"])
def test_numpy_positional_arguments_values(name):
    f = POSITIONAL.get(name) or INTEGER_DTYPES[name]
    assert mc.value_and_grad(f)(X6.copy())[0] == pytest.approx(f(X6.copy()), rel=1e-12)
    assert mc.jvp(f, (X6.copy(),), (np.ones(6),))[0] == pytest.approx(f(X6.copy()), rel=1e-12)


# ---------------------------------------------------------------- forward mode: tangents laid out as their arrays
CW = np.arange(1.0, 7.0).reshape(3, 2)


def lay_T_plus_row_reshape(x):
    y = _A(x).T + np.array([1.0, 2.0])
    r = y.reshape(-1)
    r += x[0] ** 2
    return np.sum(y * y * CW) + np.sum(r * np.arange(1.0, 7.0))


def lay_T_minus_mean_ravel_write(x):
    A = _A(x)
    y = A.T - A.T.mean(axis=0)
    r = y.ravel()
    r[2] = 3.0 * x[1]
    return np.sum(y * y * CW)


def lay_T_times_column_setitem(x):
    y = _A(x).T * np.array([[1.0], [2.0], [3.0]])
    r = y.reshape(6)
    r[1:3] = x[4:] ** 2
    return np.sum(y * CW) + np.sum(r * r)


def lay_T_plus_scalar_fill(x):
    y = _A(x).T + 0.5
    y.reshape(-1)[::2] = x[:3] * 2.0
    return np.sum(y * y * CW)


def lay_sort_T_ravel(x):
    y = np.sort(_A(x).T, axis=0)
    r = y.ravel()
    r[1] = 3.0 * x[1]
    return np.sum(y * y * CW) + np.sum(r * np.arange(1.0, 7.0))


def lay_astype_C(x):
    y = _A(x).T.astype(float, order="C")
    r = y.reshape(-1)
    r += x[0] ** 2
    return np.sum(y * y * CW)


def lay_astype_F_ravel(x):
    y = _A(x).astype(float, order="F")
    r = y.ravel()
    r[0] = x[5] * 4.0
    return np.sum(y * y * W)


def lay_zeros_like_T(x):
    y = np.zeros_like(_A(x).T) + _A(x).T
    r = y.ravel()
    r[1] = 3.0 * x[1]
    return np.sum(y * y * CW)


def lay_read_only(x):
    y = _A(x).T + np.array([1.0, 2.0])
    return np.sum(y.reshape(-1) * np.arange(6.0)) + np.sum(y.ravel() ** 2)


LAYOUT = [lay_T_plus_row_reshape, lay_T_minus_mean_ravel_write, lay_T_times_column_setitem, lay_T_plus_scalar_fill,
          lay_sort_T_ravel, lay_astype_C, lay_astype_F_ravel, lay_zeros_like_T, lay_read_only]


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("f", LAYOUT, ids=lambda f: f.__name__)
def test_tangent_layout(f, mode):
    _check(f, X6, mode)


@pytest.mark.parametrize("f", LAYOUT, ids=lambda f: f.__name__)
def test_tangent_layout_jvp_directions(f):
    for v in (np.linspace(-1.0, 1.0, 6), np.eye(6)[2]):
        got = mc.jvp(f, (X6.copy(),), (v,))[1]
        assert got == pytest.approx(_fd(f, X6) @ v, rel=1e-6, abs=1e-6)


def strided_ravel_write(X):
    r = X.ravel()
    r[0] = 3.0 * r[1]
    return np.sum(X ** 2)


def strided_reshape_iadd(X):
    r = X.reshape(-1)
    r += 1.5 * X[0, 0]
    return np.sum(X * X * W)


@pytest.mark.parametrize("f", [strided_ravel_write, strided_reshape_iadd], ids=lambda f: f.__name__)
def test_strided_argument_jvp(f):
    """A strided argument (rows 0 and 2 of a 4 x 3 array): X.ravel() is a copy, so must its tangent's be."""
    big = np.repeat(_A(X6), 2, axis=0)
    for v in (np.eye(6)[1].reshape(2, 3), np.linspace(-1.0, 1.0, 6).reshape(2, 3)):
        fd = (f(np.repeat(_A(X6) + 1e-6 * v, 2, axis=0)[::2]) - f(np.repeat(_A(X6) - 1e-6 * v, 2, axis=0)[::2])) / 2e-6
        got = mc.jvp(f, (big.copy()[::2],), (v,))[1]
        assert got == pytest.approx(fd, rel=1e-6, abs=1e-6)
