"""order12: second orders that were silently zero or refused on 83a8d43, each checked against central finite
differences of mc.grad, in both modes of the outer transformation (reverse: hessian / mc.jacrev of a gradient /
mc.grad of a jvp; forward: mc.jacfwd / mc.jvp of a gradient).

* A buffer made with no tangent (`np.zeros(3)`), viewed (`w = out.view()`, `.T`, reshape, ravel, swapaxes, `[...]`,
  `.astype(float, copy=False)`), written through the view and read through the buffer: the nested derivative of the
  first-order code's `out.view()` took the all-zero tangent storage for a constant and gave the view a fresh zero
  tangent, so the write never reached the buffer's tangent: every second order was 0 (rules/nested_array_methods.py,
  _MAY_ALIAS; `.view()` of a differentiated float array is now linear there, not refused).
"""
from __future__ import annotations

import numpy as np
import pytest

import mooncake_ast as mc

STEP = 1e-5
W6 = np.arange(1.0, 7.0).reshape(2, 3)


def fd_jac(g, x, h=STEP):
    cols = [(np.asarray(g(x + h * e), dtype=float) - np.asarray(g(x - h * e), dtype=float)) / (2 * h)
            for e in np.eye(x.size)]
    return np.stack(cols, axis=-1)


def second_orders(f, x, how):
    """The Hessian of f at x by `how`, and its reference: central differences of mc.grad(f)."""
    ref = fd_jac(lambda y: mc.grad(f)(y.copy()), x)
    if how == "hessian":
        got = mc.hessian(f)(x.copy())
    elif how == "jacfwd_grad":
        got = mc.jacfwd(mc.grad(f))(x.copy())
    elif how == "jacrev_grad":
        got = mc.jacrev(mc.grad(f))(x.copy())
    elif how == "jvp_grad":
        got = np.stack([mc.jvp(mc.grad(f), (x.copy(),), (e,))[1] for e in np.eye(x.size)], -1)
    elif how == "grad_jvp":
        got = np.stack([mc.grad(lambda y, e=e: mc.jvp(f, (y,), (e,))[1])(x.copy()) for e in np.eye(x.size)], -1)
    else:
        raise ValueError(how)
    return got, ref


HOWS = ["hessian", "jacfwd_grad", "jacrev_grad", "jvp_grad", "grad_jvp"]
X6 = np.array([0.3, -0.7, 1.1, 0.45, -0.15, 0.85])


def check(f, x, how):
    got, ref = second_orders(f, x, how)
    assert np.any(np.abs(ref) > 1e-3), "the reference must not be zero"
    np.testing.assert_allclose(np.asarray(got, dtype=float), ref, rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------- writes through views of a zero-made buffer
def view_item_write(x):
    out = np.zeros(6)
    w = out.view()
    w[1] = x[1] ** 2 * x[4]
    return np.sum(out * out) + out[1] * x[0]


def view_iadd_2d(x):
    out = np.zeros((2, 3))
    w = out.view()
    w += x.reshape(2, 3) ** 2
    return np.sum(out * out * W6)


def view_dtype_write(x):
    out = np.zeros((2, 3))
    w = out.view(np.float64)
    w[1] = x[3:] * x[:3]
    return np.sum(out ** 2 * W6)


def view_of_view_write(x):
    out = np.zeros(6)
    w = out.view().view()
    w[:] = x ** 2
    return np.sum(np.cos(out))


def transpose_attr_write(x):
    out = np.zeros((2, 3))
    w = out.T
    w[1] = x[:2] * x[4:]
    return np.sum(out * out * W6)


def reshape_write(x):
    out = np.zeros(6)
    w = out.reshape(2, 3)
    w[0] = x[3:] ** 2
    w[1, 1] = x[0] * x[5]
    return np.sum(out ** 2) + out[4] * x[2]


def ravel_write(x):
    out = np.zeros((2, 3))
    r = out.ravel()
    r[::2] = x[:3] * x[3:]
    return np.sum(out * out * W6)


def swapaxes_write(x):
    out = np.zeros((2, 3))
    s = out.swapaxes(0, 1)
    s[:, 0] = x[:3] ** 2
    return np.sum(out * out * W6)


def ellipsis_write(x):
    out = np.zeros((2, 3))
    e = out[...]
    e[1] = x[:3] * x[3:]
    return np.sum(out ** 2 * W6)


def transpose_method_iadd(x):
    out = np.zeros((2, 3))
    t = out.transpose()
    t += (x.reshape(2, 3) ** 2).T
    return np.sum(out * out * W6)


def astype_nocopy_write(x):
    out = np.zeros(6)
    w = out.astype(float, copy=False)
    w[1:4] = x[1:4] ** 3
    return np.sum(out * out)


def view_in_loop(x):
    out = np.zeros(6)
    for i in range(3):
        w = out.view()
        w[2 * i] = x[i] * x[i + 3]
    return np.sum(out ** 2)


def zeros_like_view(x):
    out = np.zeros_like(x)
    w = out.view()
    w[:3] = x[3:] ** 2
    return np.sum(out * out * x)


VIEW_FAMILY = [view_item_write, view_iadd_2d, view_dtype_write, view_of_view_write,
               transpose_attr_write, reshape_write, ravel_write, swapaxes_write, ellipsis_write,
               transpose_method_iadd, astype_nocopy_write, view_in_loop, zeros_like_view]


@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize("f", VIEW_FAMILY, ids=lambda f: f.__name__)
def test_second_order_through_view_of_zero_buffer(f, how):
    check(f, X6, how)


@pytest.mark.parametrize("f", VIEW_FAMILY, ids=lambda f: f.__name__)
def test_first_order_through_view_of_zero_buffer(f):
    ref = fd_jac(lambda y: f(y.copy()), X6)
    np.testing.assert_allclose(mc.grad(f)(X6.copy()), ref, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(mc.jacfwd(f)(X6.copy()), ref, rtol=1e-6, atol=1e-6)


def view_of_differentiated(x):
    y = x * 1.0
    w = y.view()
    w[0] = x[1] ** 2
    return np.sum(y * y)


def test_view_of_differentiated_array_second_order():
    for how in HOWS:
        check(view_of_differentiated, X6, how)


# ---------------------------------------------------------------- array methods and attributes refused at second order
# `.tolist()`, `.conj()` / `.conjugate()` (linear), `.real` / `.imag` of complex arrays and Python numbers (the part of
# the tangent), argmax / argmin / argsort / searchsorted with axis= (a zero derivative whatever the array's tangent):
# rules/nested_helpers.py (LINEAR_METHODS, ZERO_DERIVATIVE_METHODS, attr_part, attr_number_part).
def tolist_items(x):
    L = x.tolist()
    return L[1] * L[1] * L[4] + np.sin(L[0]) * L[5]


def tolist_to_array(x):
    y = np.array((x * x).tolist())
    return np.sum(y * np.cos(x))


def tolist_2d_loop(x):
    total = 0.0
    for row in (x.reshape(2, 3) ** 2).tolist():
        total = total + row[0] * row[2] - row[1] ** 3
    return total


def complex_number_parts(x):
    c = complex(x[1], x[2]) * complex(x[0], -x[3])
    return np.sin(c.real) * c.imag + c.real ** 2 * x[5]


def complex_loop_product(x):
    p = complex(1.0, 0.0)
    for i in range(3):
        p = p * complex(x[i], x[i + 3])
    return p.real ** 2 + p.imag * x[0]


def complex_array_parts(x):
    z = x[:3] + 1j * x[3:]
    p = z ** 3 - 2.0 * z * z[::-1]
    return np.sum(p.real ** 2) + np.sum(np.sin(p.imag))


def exp_parts(x):
    z = np.exp(1j * x) * x
    return np.sum(z.real * z.imag) + np.sum(z.real ** 3)


def conj_method(x):
    z = np.exp(1j * x) * (1.0 + x)
    return np.sum((z * z.conj()).real) + np.sum((z.conjugate() ** 2).imag)


def conj_real_array(x):
    y = x ** 2
    return np.sum(y.conj() * x) + np.sum(y.conjugate() ** 2)


def argmax_axis_index(x):
    A = (x * np.array([1.0, -2.0, 0.5, 3.0, -1.0, 2.0])).reshape(2, 3)
    i = A.argmax(axis=1)
    return np.sum(A[np.arange(2), i] ** 3) + np.sum(A ** 2)


def argmin_axis0(x):
    A = (x * np.array([1.0, -2.0, 0.5, 3.0, -1.0, 2.0])).reshape(3, 2)
    j = A.argmin(axis=0)
    return np.sum(A[j, np.arange(2)] ** 3 * np.array([1.0, -0.5])) + np.sum(A ** 2 * x[0])


def argsort_take(x):
    y = x ** 3 - x
    order = y.argsort()
    return np.sum(y[order] * np.arange(1.0, 7.0)) + y[order[0]] ** 2


def argsort_axis(x):
    A = np.sin(x).reshape(2, 3)
    idx = A.argsort(axis=1)
    return np.sum(np.take_along_axis(A, idx, 1) ** 2 * W6)


def searchsorted_bins(x):
    y = np.cumsum(x ** 2)
    k = y.searchsorted(0.5)
    return y[k] ** 2 + np.sum(y * x)


METHOD_FAMILY = [tolist_items, tolist_to_array, tolist_2d_loop, complex_number_parts, complex_loop_product,
                 complex_array_parts, exp_parts, conj_method, conj_real_array, argmax_axis_index, argmin_axis0,
                 argsort_take, argsort_axis, searchsorted_bins]


@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize("f", METHOD_FAMILY, ids=lambda f: f.__name__)
def test_second_order_array_methods_and_parts(f, how):
    check(f, X6, how)


# ---------------------------------------------------------------- copies at second order
# list.copy() / dict.copy() (rules/nested_containers.copy_fwd), copy.copy and copy.deepcopy of arrays, numbers and
# flat containers (plain models: rules/nested_copies.py).
def list_copy_numbers(x):
    L = [x[0], x[1] * 2.0, np.sin(x[2])]
    M = L.copy()
    M[0] = x[3]
    L[1] = M[0] * M[1]
    return sum(v * v for v in L) + M[2] * x[5]


def list_copy_arrays(x):
    L = [x[:3] * 2.0, x[3:] ** 2]
    M = L.copy()
    M.append(L[0] * L[1])
    M[0] = M[0] * x[1]
    return sum(np.sum(v * v) for v in M) + np.sum(L[0] ** 3)


def dict_copy(x):
    d = {"a": x[0] * x[1], "b": x[2:4] ** 2}
    e = d.copy()
    e["a"] = e["a"] * x[5]
    d["b"] = d["b"] * e["a"]
    return d["a"] ** 2 + np.sum(e["b"] * d["b"]) + e["a"]


def copy_copy_array(x):
    import copy
    y = copy.copy(x ** 2)
    y[0] = y[1] * x[2]
    return np.sum(y * y) + np.sum(x ** 2 * y)


def copy_copy_list(x):
    import copy
    L = [x[0], x[1] ** 2, x[2:4]]
    M = copy.copy(L)
    M[0] = M[1] * x[5]
    return M[0] ** 2 + np.sum(M[2] ** 3) + L[0] * M[1]


def copy_copy_number(x):
    import copy
    c = copy.copy(x[1] * x[2])
    return np.sin(c) * x[0] + c ** 2


def copy_copy_2d(x):
    import copy
    A = copy.copy(x.reshape(2, 3).T)
    r = A.reshape(-1)
    r += x[0] ** 2
    return np.sum(A * W6.T * A)


def deepcopy_list(x):
    import copy
    L = [x[:3] ** 2, x[3]]
    M = copy.deepcopy(L)
    M[0][1] = M[1] * x[0]
    return np.sum(M[0] ** 2) + np.sum(L[0] * M[0])


def deepcopy_dict(x):
    import copy
    d = {"w": x[:3] * x[3:], "s": x[0] ** 2}
    e = copy.deepcopy(d)
    e["w"] *= e["s"]
    return np.sum(e["w"] ** 2) + np.sum(d["w"] * e["w"])


def deepcopy_tuple_array(x):
    import copy
    t = copy.deepcopy((x[:3] ** 2, x[4] * x[5]))
    a = copy.deepcopy(x * x)
    a[2] = t[1]
    return np.sum(t[0] * a[:3]) + np.sum(a ** 2)


COPY_FAMILY = [list_copy_numbers, list_copy_arrays, dict_copy, copy_copy_array, copy_copy_list, copy_copy_number,
               copy_copy_2d, deepcopy_list, deepcopy_dict, deepcopy_tuple_array]


@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize("f", COPY_FAMILY, ids=lambda f: f.__name__)
def test_second_order_copies(f, how):
    check(f, X6, how)


@pytest.mark.parametrize("f", COPY_FAMILY, ids=lambda f: f.__name__)
def test_first_order_copies(f):
    ref = fd_jac(lambda y: f(y.copy()), X6)
    np.testing.assert_allclose(mc.grad(f)(X6.copy()), ref, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(mc.jacfwd(f)(X6.copy()), ref, rtol=1e-6, atol=1e-6)


def deepcopy_list_of_2d(x):
    import copy
    L = copy.deepcopy([x.reshape(2, 3).T, x[0]])
    r = L[0].reshape(-1)
    r += L[1] ** 2
    return np.sum(L[0] * W6.T * L[0]) + np.sum(r ** 2)


@pytest.mark.parametrize("how", HOWS)
def test_second_order_deepcopy_keeps_layout(how):
    check(deepcopy_list_of_2d, X6, how)


# ---------------------------------------------------------------- quantiles at second order
# quantile_tangent / quantile_adjoint (the first-order code of median, percentile, quantile) have rules of their own
# (rules/numpy_quantiles.py): reverse over them refused "the derivative with respect to q" with q a constant.
def percentile_axis_sq(x):
    A = x.reshape(2, 3)
    return np.sum(np.percentile(A, 30, axis=1) ** 2 * np.array([1.0, -2.0])) + np.sum(A ** 3) * 0.1


def median_axis0_sq(x):
    A = np.sin(x).reshape(2, 3)
    return np.sum(np.median(A, axis=0) ** 3 * np.array([1.0, -2.0, 0.5]))


def quantile_methods(x):
    y = x * x
    return np.quantile(y, 0.4) ** 2 + np.quantile(y, 0.75, method="nearest") * x[0]


def nanpercentile_vector(x):
    return np.sum(np.nanpercentile(x * np.cos(x), [20.0, 50.0, 90.0]) ** 2)


def median_whole(x):
    return np.median(x ** 3) * np.sum(x) + np.median(x) ** 2


QUANTILE_FAMILY = [percentile_axis_sq, median_axis0_sq, quantile_methods, nanpercentile_vector, median_whole]


@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize("f", QUANTILE_FAMILY, ids=lambda f: f.__name__)
def test_second_order_quantiles(f, how):
    check(f, X6, how)


def percentile_of_outer(x, c):
    return np.percentile(x, c) ** 2


def test_quantile_q_of_an_outer_derivative_refused():
    """q constant to the inner gradient but differentiated by the outer jvp: refused, never a silent zero."""
    with pytest.raises(mc.MooncakeError, match="respect to q"):
        mc.jvp(lambda c: mc.grad(percentile_of_outer)(X6.copy(), c), (30.0,), (1.0,))


# ---------------------------------------------------------------- unpacking an array at second order
# `[*x]`, `f(*x)`, `(*x, c)`, `[*A]` of a matrix's rows: the tangent of forward code's concat_tangent of an array is
# its tangent's items (rules/forward_code_rules._concat_tangent_frule / rrule), refused before.
def star_list_items(x):
    c = [*x]
    return np.sin(c[1]) * c[2] + c[0] ** 2 * c[5]


def _three(a, b, c, *rest):
    return a * b ** 2 + np.cos(c) * len(rest)


def star_call(x):
    return _three(*x) + _three(*(x[::-1] ** 2))


def star_tuple_mixed(x):
    t = (*x[:3], x[4] * x[5], *x[3:])
    return sum(v * v * w for v, w in zip(t, range(1, 8))) + t[3] * t[0]


def star_rows(x):
    rows = [*x.reshape(2, 3) ** 2]
    return np.sum(rows[0] * rows[1]) + np.sum(rows[1] ** 3)


STAR_FAMILY = [star_list_items, star_call, star_tuple_mixed]


def test_second_order_unpacked_matrix_rows_refused():
    """`[*A]` of a matrix's rows (views) stays refused at second order: a first try counted their adjoints twice."""
    with pytest.raises(mc.MooncakeError, match="unpacking an array"):
        mc.hessian(star_rows)(X6.copy())


@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize("f", STAR_FAMILY, ids=lambda f: f.__name__)
def test_second_order_unpacked_arrays(f, how):
    check(f, X6, how)


# ---------------------------------------------------------------- operator.itemgetter at second order
# The getter made from constant keys is a constant; its call reads the same keys of the container's tangent
# (rules/nested_plans.special_plan, nested_helpers.itemgetter_fwd).
def itemgetter_list_arrays(x):
    import operator
    L = [x[:2] * 1.0, x[1:3] * 2.0, x[3:] ** 2]
    return np.sum(operator.itemgetter(1)(L) ** 3) + np.sum(operator.itemgetter(2)(L) * x[3:])


def itemgetter_several(x):
    import operator
    a, c = operator.itemgetter(0, 2)([x[0] * x[1], x[2], np.sin(x[3])])
    return a * c ** 2 + a ** 2


def itemgetter_dict(x):
    import operator
    get_w = operator.itemgetter("w")
    d = {"w": x[:3] * x[3:], "s": x[5]}
    return np.sum(get_w(d) ** 2) * d["s"]


def itemgetter_array(x):
    import operator
    return operator.itemgetter(4)(x ** 2) * x[1] + np.sum(operator.itemgetter(slice(1, 4))(np.cos(x)) ** 2)


ITEMGETTER_FAMILY = [itemgetter_list_arrays, itemgetter_several, itemgetter_dict, itemgetter_array]


@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize("f", ITEMGETTER_FAMILY, ids=lambda f: f.__name__)
def test_second_order_itemgetter(f, how):
    check(f, X6, how)


# ---------------------------------------------------------------- list.sort(key=..., reverse=...) at second order
# The permutation a stable sort by the keys makes, items and tangents moved alike (nested_containers.list_sort_plan).
def sort_pairs_key_reverse(x):
    pairs = [(1.0, x[0]), (-2.0, x[1]), (0.5, x[2]), (0.5, x[3] * x[4])]
    pairs.sort(key=lambda p: p[0], reverse=True)
    return pairs[0][1] ** 2 * pairs[1][1] + np.sin(pairs[2][1]) * pairs[3][1] ** 2


def sort_by_value_key(x):
    vals = [x[i] * x[i + 1] for i in range(5)]
    vals.sort(key=abs)
    return sum(v * w for v, w in zip(vals, [1.0, -2.0, 3.0, 0.5, 4.0])) + vals[0] ** 3


def sort_arrays_by_norm(x):
    rows = [x[:2] * 3.0, x[2:4] ** 2, x[4:] - 1.0]
    rows.sort(key=lambda r: float(np.sum(r * r)), reverse=False)
    return np.sum(rows[0] * rows[2]) + np.sum(rows[1] ** 3)


def sort_reverse_only(x):
    vals = [x[0] * 2.0, x[3] ** 2, np.sin(x[5]), x[1]]
    vals.sort(reverse=True)
    return vals[0] * vals[1] ** 2 + vals[3] * x[2]


SORT_FAMILY = [sort_pairs_key_reverse, sort_by_value_key, sort_arrays_by_norm, sort_reverse_only]


@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize("f", SORT_FAMILY, ids=lambda f: f.__name__)
def test_second_order_list_sort_keywords(f, how):
    check(f, X6, how)


# ---------------------------------------------------------------- np.vectorize at second order
# np.vectorize(g) of a g capturing nothing differentiated is a constant; its call on one float array runs g's forward
# code entry by entry as plain code (nested_helpers.vectorize_fwd), which the next order differentiates.
def vectorize_cubic(x):
    return np.sum(np.vectorize(lambda t: t ** 3 + 1.0)(x))


def vectorize_2d_weighted(x):
    g = np.vectorize(lambda t: np.sin(t) * t)
    return np.sum(g(x.reshape(2, 3)) ** 2 * x.reshape(2, 3))


def _piecewise(t):
    if t > 0:
        return t ** 3
    return np.exp(t) - 1.0


def vectorize_branching(x):
    return np.sum(np.vectorize(_piecewise)(x * 2.0) ** 2)


def _soft(t):
    return np.log1p(t * t) / (1.0 + t ** 2)


def vectorize_twice(x):
    g = np.vectorize(_soft)
    return np.sum(g(x) * x) + np.sum(g(x[::-1] * x) ** 2)


VECTORIZE_FAMILY = [vectorize_cubic, vectorize_2d_weighted, vectorize_branching, vectorize_twice]


def test_vectorize_with_keywords_still_refused_at_second_order():
    """np.vectorize(g, otypes=[float]) (keywords to the constructor) is still refused at second order, by name."""
    def f(x):
        return np.sum(np.vectorize(lambda t: t ** 3, otypes=[float])(x))
    with pytest.raises(mc.MooncakeError, match="vectorize"):
        mc.hessian(f)(X6.copy())


@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize("f", VECTORIZE_FAMILY, ids=lambda f: f.__name__)
def test_second_order_vectorize(f, how):
    check(f, X6, how)
