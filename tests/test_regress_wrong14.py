"""wrong14: silently wrong derivatives and crashes left by hunt12, each as a family (both modes, several
variants, second order where it applies).  Every test here failed on trunk b48fe51.

1. `a.shape = s` (an array reshaped in place): reverse mode typed the array with its old number of axes, so
   `a[1]` after the write was taken for a number and its adjoint was dropped (a zero gradient).
"""
from __future__ import annotations

import dataclasses
import math
import warnings

import numpy as np
import pytest

import mooncake_ast as mc

X = np.array([0.3, -0.7, 1.1, 0.5, -0.2, 0.9])


def _fd(f, x, h=1e-6):
    """Central differences: rows the flat outputs, columns the entries of x."""
    cols = []
    for j in range(x.size):
        e = np.zeros_like(x)
        e[j] = h
        cols.append((np.ravel(np.asarray(f(x + e), dtype=float)) - np.ravel(np.asarray(f(x - e), dtype=float))) / (2 * h))
    return np.stack(cols, axis=-1)


def _close(got, ref, rtol=1e-5, atol=1e-6):
    got = np.asarray(got, dtype=float)
    ref = np.asarray(ref, dtype=float).reshape(got.shape)
    scale = max(1.0, float(np.max(np.abs(ref))))
    assert np.all(np.isfinite(got)), f"non-finite: {got}"
    assert np.all(np.abs(got - ref) <= atol * scale + rtol * np.abs(ref)), \
        f"ours {got.ravel()[:8]} ref {ref.ravel()[:8]}"


FIRST = {"jacrev": lambda f, x: mc.jacrev(f)(x), "jacfwd": lambda f, x: mc.jacfwd(f)(x)}
SECOND = {"hessian": lambda f, x: mc.hessian(f)(x),
          "jacfwd(grad)": lambda f, x: mc.jacfwd(mc.grad(f))(x),
          "jacrev(grad)": lambda f, x: mc.jacrev(mc.grad(f))(x),
          "jacrev(jacfwd)": lambda f, x: mc.jacrev(mc.jacfwd(f))(x),
          "jacfwd(jacfwd)": lambda f, x: mc.jacfwd(mc.jacfwd(f))(x)}


def _check_first(f, how, x=X):
    _close(FIRST[how](f, x.copy()), _fd(f, x))


def _check_second(f, how, x=X):
    _close(SECOND[how](f, x.copy()), _fd(lambda v: mc.grad(f)(v), x, h=1e-5), rtol=1e-4, atol=1e-5)


# ---------------------------------------------------------------- 1. the .shape setter
def _set_shape(a, s):
    a.shape = s


def _flatten_into_rows(a):
    a.shape = (2, 3)
    return a


def sh_item_reads(x):
    a = x * 2.0
    a.shape = (2, 3)
    return np.sum(a[1] * a[0])


def sh_power_sum(x):
    a = x * 2.0
    a.shape = (2, 3)
    return (a ** 2).sum()


def sh_copy_columns(x):
    a = x.copy()
    a.shape = (3, 2)
    return np.sum(np.sin(a[:, 0]) * a[:, 1])


def sh_array_of_input(x):
    a = np.array(x)
    a.shape = (2, 3)
    return np.sum(a @ a.T)


def sh_then_write(x):
    a = x * 1.5
    a.shape = (2, 3)
    a[0, 1] = x[0] ** 2
    a[1] *= a[0]
    return np.sum(a.T @ a)


def sh_axis_reduction(x):
    a = np.exp(x)
    a.shape = (3, 2)
    m = a.sum(axis=0)
    return m[0] * m[1]


def sh_minus_one(x):
    a = x + 0.0
    a.shape = (-1, 2)
    return np.sum(a[0] * a[2]) + a[1, 1] ** 3


def sh_and_back(x):
    a = x * x
    a.shape = (2, 3)
    r = a[1].copy()
    a.shape = (6,)
    return np.sum(a * np.arange(6.0)) + np.sum(r * x[:3])


def sh_loop(x):
    s = 0.0
    for k in range(2):
        a = x[3 * k:3 * k + 3] * x[0]
        a.shape = (3, 1)
        s = s + np.sum(a @ a.T) + a[2, 0]
    return s


def sh_row_loop(x):
    a = x * 1.0
    a.shape = (3, 2)
    s = 0.0
    for row in a:
        s = s + row[0] * row[1]
    return s


def sh_helper(x):
    a = x * 2.0
    _set_shape(a, (2, 3))
    return np.sum(a[1] * a[0])


def sh_helper_returns(x):
    a = _flatten_into_rows(x * 1.0 + 1.0)
    return np.sum(a[0] ** 2 * a[1])


def sh_alias(x):
    a = x * 3.0
    b = a
    b.shape = (2, 3)
    return np.sum(a[0] * a[1])


def sh_tensorsolve(x):
    A = np.eye(6) * 3.0 + np.outer(x, x) * 0.1
    A = A.reshape(2, 3, 2, 3)
    b = np.array([[1.0, 2.0, 0.5], [0.0, -1.0, 1.0]])
    return np.sum(np.linalg.tensorsolve(A, b) ** 2)


def sh_returns_array(x):
    a = x * x
    a.shape = (2, 3)
    return a


class _Rows:
    def __init__(self, v):
        self.v = v * 1.0

    def as_rows(self):
        self.v.shape = (2, 3)
        return self


def sh_method(x):
    r = _Rows(x).as_rows()
    return np.sum(r.v[0] * r.v[1] ** 2)


def sh_in_branch(x):
    a = x * 2.0
    if x[0] > 0:
        a.shape = (3, 2)
    else:
        a.shape = (2, 3)
    return np.sum(a[1] * a[0]) + np.sum(a[-1] ** 3)


SHAPE_SCALAR = (sh_item_reads, sh_power_sum, sh_copy_columns, sh_array_of_input, sh_then_write, sh_axis_reduction,
                sh_minus_one, sh_and_back, sh_loop, sh_row_loop, sh_helper, sh_helper_returns, sh_alias, sh_method,
                sh_in_branch, sh_tensorsolve)


@pytest.mark.parametrize("how", list(FIRST))
@pytest.mark.parametrize("f", SHAPE_SCALAR + (sh_returns_array,), ids=lambda f: f.__name__)
def test_shape_setter_first_order(f, how):
    _check_first(f, how)


@pytest.mark.parametrize("how", list(SECOND))
@pytest.mark.parametrize("f", [f for f in SHAPE_SCALAR if f is not sh_tensorsolve], ids=lambda f: f.__name__)
def test_shape_setter_second_order(f, how):
    if f is sh_method:  # (an attribute's array reshaped by a method: refused at second order, honestly)
        with pytest.raises(mc.MooncakeError, match="setattr on a ndarray is not supported at this order"):
            SECOND[how](f, X.copy())
        return
    _check_second(f, how)


@pytest.mark.parametrize("f", SHAPE_SCALAR + (sh_returns_array,), ids=lambda f: f.__name__)
def test_shape_setter_check_derivatives(f):
    mc.testing.check_derivatives(f, X.copy())


def test_shape_setter_leaves_the_input_alone():
    x = X.copy()
    mc.grad(sh_array_of_input)(x)
    assert x.shape == (6,)


def k_np_hypot(x):
    return np.hypot(x[0] - x[0], 0.0) + x[2] ** 2


def k_np_hypot_both(x):
    return np.hypot(x[0] - x[0], x[1] - x[1]) + x[2] ** 2 + x[1] * x[2]


def k_math_hypot(x):
    return math.hypot(x[0] * 0.0, 0.0) + x[2] ** 2


def k_math_hypot3(x):
    return math.hypot(x[0] - x[0], x[1] - x[1], 0.0) + x[2] ** 3


def k_norm(x):
    return np.linalg.norm(x[:2] - x[:2]) + x[2] ** 2


def k_norm_axis(x):
    d = np.stack([x[:2] - x[:2], x[1:3]])
    return np.sum(np.linalg.norm(d, axis=1)) + x[2] ** 2


def k_abs(x):
    return np.abs(x[0] - x[0]) + x[2] ** 2


def k_builtin_abs(x):
    return abs(x[0] - x[0]) + x[2] ** 2


def k_arctan2(x):
    return np.arctan2(x[0] - x[0], x[1] - x[1]) + x[2] ** 2


def k_math_atan2(x):
    return math.atan2(x[0] - x[0], x[1] - x[1]) + x[2] ** 2


def k_math_dist(x):
    return math.dist([x[0], x[1]], [x[0], x[1]]) + x[2] ** 2


def k_sqrt(x):
    d = x[0] - x[0]
    return np.sqrt(d * d) + x[2] ** 2


def k_math_sqrt(x):
    d = x[0] - x[0]
    return math.sqrt(d * d) + x[2] ** 2


def k_hypot_loop(x):
    s = 0.0
    for a in x[:2]:
        s += np.hypot(a - a, 0.0) + np.hypot(a, 1.0)
    return s + x[2] ** 2


KINKS = (k_np_hypot, k_np_hypot_both, k_math_hypot, k_math_hypot3, k_norm, k_norm_axis, k_abs, k_builtin_abs,
         k_arctan2, k_math_atan2, k_math_dist, k_sqrt, k_math_sqrt, k_hypot_loop)


# ---------------------------------------------------------------- 2. strong zeros at the kinks of the ratio helpers
# Each function reaches a kink (hypot, norm, abs, arctan2, dist at the origin) with inputs that do not move (x[0] -
# x[0]): their tangents and adjoints are exactly 0 there, so the derivative is 0 / 0 only where nothing moves.  The
# entries of x[2], which no kink sees, must be finite and right in every composition (they were nan: 0 / 0 in
# unit_ratio's, arctan2's and dist's rules spread by reverse mode over forward code; math.dist's Hessian raised
# ZeroDivisionError).
SMOOTH_AT_KINK = {k_np_hypot, k_np_hypot_both, k_math_hypot, k_math_hypot3, k_norm, k_norm_axis, k_abs,
                  k_builtin_abs, k_sqrt, k_math_sqrt, k_hypot_loop}  # (the kink's own entries are 0 too)
X3 = X[:3]


@pytest.mark.parametrize("how", list(FIRST))
@pytest.mark.parametrize("f", KINKS, ids=lambda f: f.__name__)
def test_kink_reached_standing_still_first_order(f, how):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = np.ravel(FIRST[how](f, X3.copy()))
    ref = _fd(f, X3)[0]
    _close(got[2:] if f not in SMOOTH_AT_KINK else got, ref[2:] if f not in SMOOTH_AT_KINK else ref)


@pytest.mark.parametrize("how", list(SECOND))
@pytest.mark.parametrize("f", KINKS, ids=lambda f: f.__name__)
def test_kink_reached_standing_still_second_order(f, how):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        H = np.asarray(SECOND[how](f, X3.copy()))
        ref = _fd(lambda v: mc.grad(f)(v), X3, h=1e-5)
    if f in SMOOTH_AT_KINK:
        _close(H, ref, rtol=1e-4, atol=1e-5)
    else:  # (arctan2 / dist: the gradient at the kink is nan, so finite differences have only x[2]'s row)
        _close(H[2], ref[2], rtol=1e-4, atol=1e-5)
        _close(H[:, 2], ref[2], rtol=1e-4, atol=1e-5)


def _atan2_moving(x):
    return np.arctan2(x[0], x[1]) + x[2] ** 2


def _math_atan2_moving(x):
    return math.atan2(x[0], x[1]) + x[2] ** 2


def _dist_moving(x):
    return math.dist([x[0], x[1]], [0.0, 0.0]) + x[2] ** 2


@pytest.mark.parametrize("how", list(FIRST))
@pytest.mark.parametrize("f", [_atan2_moving, _math_atan2_moving, _dist_moving], ids=lambda f: f.__name__)
def test_kink_reached_moving_is_not_a_finite_guess(f, how):
    """At the origin with moving inputs arctan2 and dist have no derivative: nan (or inf) there, never a number
    (docs/nan-derivatives.md); x[2]'s entry stays right."""
    x = np.array([0.0, 0.0, 0.7])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = np.ravel(FIRST[how](f, x))
    assert not np.any(np.isfinite(got[:2])), got
    assert got[2] == pytest.approx(1.4)


@pytest.mark.parametrize("f", [_atan2_moving, _math_atan2_moving, _dist_moving], ids=lambda f: f.__name__)
def test_ratio_helpers_away_from_the_kink(f):
    mc.testing.check_derivatives(f, np.array([0.4, -0.9, 0.7]))
    H = mc.hessian(f)(np.array([0.4, -0.9, 0.7]))
    _close(H, _fd(lambda v: mc.grad(f)(v), np.array([0.4, -0.9, 0.7]), h=1e-5), rtol=1e-4, atol=1e-5)


# ---------------------------------------------------------------- 3. the square of a kink, at the kink

def sq_norm(x):
    return np.linalg.norm(x) ** 2


def sq_norm_axis(x):
    return np.sum(np.linalg.norm(x.reshape(2, 3), axis=1) ** 2 * np.array([1.0, 3.0]))


def sq_norm_keepdims(x):
    A = x.reshape(2, 3)
    return np.sum(np.linalg.norm(A, axis=0, keepdims=True) ** 2 * A)


def sq_norm_fro(x):
    return np.linalg.norm(x.reshape(3, 2), "fro") ** 2 + x[0]


def sq_norm_product(x):
    r = np.linalg.norm(x[:3] - x[3:])
    return r * r + np.sum(x)


def sq_norm_square(x):
    return np.square(np.linalg.norm(x[1:])) * x[0]


def sq_norm_pow_float(x):
    return pow(np.linalg.norm(x), 2.0) + math.pow(np.linalg.norm(x[:2]), 2)


def sq_sqrt_dot(x):
    return np.sqrt(x @ x) ** 2


def sq_sqrt_sum(x):
    return np.sum(np.sqrt(x * x + x[0] ** 2) ** 2)


def sq_math_sqrt(x):
    return math.sqrt(x[0] ** 2 + x[1] ** 2) ** 2 * x[2]


def sq_abs(x):
    return np.sum(np.abs(x) ** 2)


def sq_abs_builtin(x):
    s = 0.0
    for v in x:
        s = s + np.abs(v) ** 2 + math.fabs(v) ** 2
    return s


def sq_fabs(x):
    return np.sum(np.fabs(x - x[0]) ** 2) + math.fabs(x[1]) ** 2


def sq_hypot(x):
    return np.sum(np.hypot(x[:3], x[3:]) ** 2)


def sq_math_hypot(x):
    return math.hypot(x[0], x[1], x[2]) ** 2 + math.hypot(x[3], 0.0) ** 2


def sq_loop(x):
    s = 0.0
    for k in range(3):
        d = x[2 * k:2 * k + 2]
        s = s + np.linalg.norm(d) ** 2 * (k + 1)
    return s


def sq_then_sqrt(x):
    r2 = np.linalg.norm(x) ** 2
    return r2 + np.sin(r2)


SQUARES = (sq_norm, sq_norm_axis, sq_norm_keepdims, sq_norm_fro, sq_norm_product, sq_norm_square, sq_norm_pow_float,
           sq_sqrt_dot, sq_sqrt_sum, sq_math_sqrt, sq_abs, sq_abs_builtin, sq_fabs, sq_hypot, sq_math_hypot, sq_loop,
           sq_then_sqrt)


def sq_spectral(x):
    return np.linalg.norm(x.reshape(2, 3), 2) ** 2


def sq_complex(x):
    z = x[:3] + 1j * x[3:]
    return np.linalg.norm(z) ** 2 + np.sum(np.abs(z) ** 2) * 0.5


def sq_sqrt_negative(x):
    return np.sqrt(x[0] - 5.0) ** 2 + x[1]


@pytest.mark.parametrize("how", list(FIRST))
@pytest.mark.parametrize("x", [np.zeros(6), X], ids=["at_zero", "at_x"])
@pytest.mark.parametrize("f", SQUARES + (sq_spectral, sq_complex), ids=lambda f: f.__name__)
def test_square_of_kink_first_order(f, x, how):
    _close(FIRST[how](f, x.copy()), _fd(f, x))


def _hessian_of_values(f, x, h=1e-4):
    """Second differences of f itself: the truth at the kink too, where the square is smooth."""
    n = x.size
    E = np.eye(n) * h
    return np.array([[(f(x + E[i] + E[j]) - f(x + E[i] - E[j]) - f(x - E[i] + E[j]) + f(x - E[i] - E[j])) / (4 * h * h)
                      for j in range(n)] for i in range(n)])


@pytest.mark.parametrize("how", list(SECOND))
@pytest.mark.parametrize("x", [np.zeros(6), X], ids=["at_zero", "at_x"])
@pytest.mark.parametrize("f", SQUARES + (sq_spectral, sq_complex), ids=lambda f: f.__name__)
def test_square_of_kink_second_order(f, x, how):
    """The Hessian of norm(x) ** 2 at 0 is 2 I (it came out 0: the square's slope 2 r == 0 met the cone's infinite
    curvature as a strong zero); abs(x) ** 2, hypot ** 2, sqrt(x @ x) ** 2 alike."""
    if f is sq_spectral and not x.any():
        pytest.skip("the spectral norm's square is not smooth at 0 (max of squared singular values)")
    _close(SECOND[how](f, x.copy()), _hessian_of_values(f, x), rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("f", SQUARES + (sq_complex,), ids=lambda f: f.__name__)
def test_square_of_kink_keeps_the_value(f):
    """The square is computed as written: the value jvp / grad give is the plain call's, to the bit."""
    for x in (np.zeros(6), X):
        value, _ = mc.value_and_grad(f)(x.copy())
        assert value == f(x.copy())
        y, _ = mc.jvp(f, (x.copy(),), (np.ones(6),))
        assert y == f(x.copy())


class _Vec:
    """An object of the user's with its own __abs__ (and a __mul__ that is no square): abs(v) ** 2 stays its own."""

    def __init__(self, a, b):
        self.a, self.b = a, b

    def __abs__(self):
        return math.sqrt(self.a * self.a + self.b * self.b + 1.0)

    def __mul__(self, o):
        return _Vec(self.a * o.a, self.b * o.b)


def sq_custom_abs(x):
    return abs(_Vec(x[0], x[1])) ** 2 * x[2]


def sq_list_norm(x):
    return np.linalg.norm([x[0], x[1] * 2.0]) ** 2 + x[2]


def sq_list_hypot(x):
    return np.sum(np.hypot([x[0], 0.0], [x[1], x[2]]) ** 2)


def sq_list_sqrt(x):
    return np.sum(np.sqrt([x[0] ** 2, x[1] + 3.0]) ** 2)


@pytest.mark.parametrize("how", list(FIRST) + list(SECOND))
@pytest.mark.parametrize("f", [sq_custom_abs, sq_list_norm, sq_list_hypot, sq_list_sqrt], ids=lambda f: f.__name__)
def test_square_of_kink_other_operands(f, how):
    """Lists given to NumPy's kinks (the arrays NumPy makes of them), and the builtin abs of an object of the
    user's, which is left to its own __abs__."""
    x = X[:3].copy()
    if how in FIRST:
        _close(FIRST[how](f, x), _fd(f, x))
    else:
        _close(SECOND[how](f, x), _hessian_of_values(f, x), rtol=1e-3, atol=1e-3)
        _close(SECOND[how](f, np.zeros(3)), _hessian_of_values(f, np.zeros(3)), rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("how", list(FIRST) + list(SECOND))
def test_square_of_sqrt_outside_its_domain_is_nan(how):
    """np.sqrt(s) ** 2 for s < 0 is nan (NumPy): its derivative too, in x[0]'s entries only, never a number."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = np.atleast_2d((FIRST if how in FIRST else SECOND)[how](sq_sqrt_negative, X.copy()))
    assert np.isnan(got[0, 0])
    if how in FIRST:
        assert np.array_equal(got[0, 1:], [1.0, 0.0, 0.0, 0.0, 0.0])
    else:
        assert np.array_equal(got[2:, 2:], np.zeros((4, 4)))


def test_square_of_sqrt_at_zero_is_one_sided():
    """sqrt(x) ** 2 = x where it is defined: its slope at 0 is 1 (it was 0, the strong zero of 2 sqrt(0) * inf)."""
    def f(x):
        return np.sum(np.sqrt(x) ** 2 * np.array([1.0, 2.0, 3.0]))
    assert np.array_equal(mc.grad(f)(np.zeros(3)), [1.0, 2.0, 3.0])
    assert np.array_equal(mc.jacfwd(f)(np.zeros(3)), [1.0, 2.0, 3.0])
    assert np.array_equal(mc.hessian(f)(np.zeros(3)), np.zeros((3, 3)))


# ---------------------------------------------------------------- 4. crashes: classmethods of dataclasses at order 2
@dataclasses.dataclass
class _Gauss:
    mu: float
    w: float = 1.0

    @classmethod
    def zero(cls):
        return cls(0.0, 0.0)

    @classmethod
    def of(cls, v, w=2.0):
        return cls(v, w)

    @classmethod
    def twice(cls, v):
        return cls.of(v * 2.0)

    def __add__(self, o):
        return _Gauss(self.mu + o.mu, self.w * o.w)


@dataclasses.dataclass(frozen=True)
class _Frozen:
    a: float

    @classmethod
    def scaled(cls, v, k):
        return cls(v * k)


def dc_zero(x):
    return _Gauss.zero().mu + x[0] ** 3


def dc_of_two(x):
    g = _Gauss.of(x[0], x[1])
    return g.mu ** 2 * g.w


def dc_nested_classmethods(x):
    return _Gauss.twice(x[1]).mu ** 3 + x[0] * x[2]


def dc_sum_loop(x):
    g = _Gauss.zero()
    for v in x[:3]:
        g = g + _Gauss.of(v * v, v)
    return g.mu * g.w


def dc_frozen(x):
    return _Frozen.scaled(x[0], x[1]).a ** 2


def dc_through_instance_class(x):
    g = _Gauss.of(x[0])
    return type(g).of(x[1] * g.mu).mu ** 2


CLASSMETHODS = (dc_zero, dc_of_two, dc_nested_classmethods, dc_sum_loop, dc_frozen, dc_through_instance_class)


@pytest.mark.parametrize("how", list(SECOND))
@pytest.mark.parametrize("f", CLASSMETHODS, ids=lambda f: f.__name__)
def test_dataclass_classmethods_second_order(f, how):
    _check_second(f, how, X[:3])


@pytest.mark.parametrize("f", CLASSMETHODS, ids=lambda f: f.__name__)
def test_dataclass_classmethods_first_order(f):
    mc.testing.check_derivatives(f, X[:3].copy())


# ---------------------------------------------------------------- 4. two-output ufuncs writing out=(a, b)
def two_divmod(x):
    q = np.zeros(3)
    r = np.zeros(3)
    np.divmod(x[:3] + 3.0, 0.7, out=(q, r))
    return np.sum(r ** 2)


def two_modf(x):
    fr = np.zeros(3)
    whole = np.zeros(3)
    np.modf(x[:3] * 3.0 + 5.0, out=(fr, whole))
    return np.sum(fr ** 2) + np.sum(whole * x[3:])


def two_frexp(x):
    m = np.zeros(3)
    e = np.zeros(3, dtype=int)
    np.frexp(x[:3] * 3.0 + 5.0, out=(m, e))
    return np.sum(m ** 2 * e)


def two_divmod_into_input_copy(x):
    q = np.ones(3)
    r = x[3:] * 1.0
    np.divmod(x[:3] + 3.0, r + 2.0, out=(q, r))
    return np.sum(r ** 2 * x[:3]) + np.sum(q * x[3:])


def two_divmod_loop(x):
    q = np.zeros(2)
    r = np.zeros(2)
    s = 0.0
    for k in range(3):
        np.divmod(x[2 * k:2 * k + 2] * 5.0 + 7.0, 0.9, out=(q, r))
        s = s + np.sum(np.sin(r) * q)
    return s


def two_divmod_views(x):
    buf = np.zeros((2, 3))
    np.divmod(np.exp(x[:3]) * 4.0, x[3:] + 2.0, out=(buf[0], buf[1]))
    return np.sum(buf[1] ** 2) + np.sum(buf[0])


TWO_OUT = (two_divmod, two_modf, two_frexp, two_divmod_into_input_copy, two_divmod_loop, two_divmod_views)


@pytest.mark.parametrize("how", list(FIRST))
@pytest.mark.parametrize("f", TWO_OUT, ids=lambda f: f.__name__)
def test_two_output_ufunc_out_tuple_both_modes(f, how):
    _check_first(f, how)


@pytest.mark.parametrize("f", TWO_OUT, ids=lambda f: f.__name__)
def test_two_output_ufunc_out_tuple_check_derivatives(f):
    mc.testing.check_derivatives(f, X.copy())


@pytest.mark.parametrize("f", TWO_OUT, ids=lambda f: f.__name__)
def test_two_output_ufunc_out_tuple_leaves_buffers_as_the_call_does(f):
    """The pullback undoes the writes into q and r; the API puts the arrays f returned as the plain call leaves them."""
    x = X.copy()
    value, g = mc.value_and_grad(f)(x)
    assert value == pytest.approx(f(X.copy()))
    assert np.array_equal(x, X)


# ---------------------------------------------------------------- 4. a rule's refusal is a refusal in every mode
def _repeat_infinite(x):
    import itertools
    return sum(a * b for a, b in zip(x, itertools.repeat(x[0])))


def _repeat_infinite_map(x):
    import itertools
    return sum(map(lambda a, b: a * b, x, itertools.repeat(x[1])))


def _lil_with_input(x):
    import scipy.sparse as sps
    K = sps.lil_matrix((3, 3))
    for i in range(3):
        K[i, i] = x[i]
    return np.sum(K.tocsr() @ x[:3])


REFUSED = {_repeat_infinite: "times", _repeat_infinite_map: "times", _lil_with_input: None}
REFUSING = {"jacfwd": lambda f, x: mc.jacfwd(f)(x), "jvp": lambda f, x: mc.jvp(f, (x,), (np.ones_like(x),)),
            "grad": lambda f, x: mc.grad(f)(x), "jacrev": lambda f, x: mc.jacrev(f)(x)}


@pytest.mark.parametrize("how", list(REFUSING))
@pytest.mark.parametrize("f", list(REFUSED), ids=lambda f: f.__name__)
def test_rule_refusals_are_refusals(f, how):
    with pytest.raises(mc.MooncakeError) as info:
        REFUSING[how](f, X.copy())
    assert type(info.value).__name__ != "InternalError", str(info.value)
    if REFUSED[f] is not None:
        assert REFUSED[f] in str(info.value)
    if how in ("jacfwd", "jvp") and REFUSED[f] is not None:
        assert isinstance(info.value, mc.errors.UnsupportedDerivativeError)
        assert "test_regress_wrong14.py:" in str(info.value)  # (the user's line)


# ---------------------------------------------------------------- 4. a constant lil_matrix converted, forward mode
def _lil_tridiagonal(x):
    import scipy.sparse as sps
    K = sps.lil_matrix((3, 3))
    for i in range(3):
        K[i, i] = 2.0
        if i > 0:
            K[i, i - 1] = -1.0
    K = K.tocsr()
    return 0.5 * x[:3] @ (K @ x[:3])


def _lil_tocsc_power(x):
    import scipy.sparse as sps
    K = sps.lil_matrix((3, 3))
    K[0, 2] = 1.5
    K[1, 1] = -2.0
    K[2, 0] = 0.5
    return np.sum((K.tocsc() @ np.sin(x[:3])) ** 2)


def _lil_empty_rows(x):
    import scipy.sparse as sps
    K = sps.lil_matrix((4, 3))
    K[3, 1] = 2.0
    return np.sum(K.tocsr() @ x[3:] ** 2)


@pytest.mark.parametrize("f", [_lil_tridiagonal, _lil_tocsc_power, _lil_empty_rows], ids=lambda f: f.__name__)
def test_constant_lil_matrix_forward(f):
    _check_first(f, "jacfwd")
    mc.testing.check_derivatives(f, X.copy(), modes=("forward",))
