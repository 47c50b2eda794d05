"""order11: second and third orders that were refused (or wrong) on d00f5b4, each checked against central finite
differences of a first derivative, in both modes of the outer transformation (reverse: mc.grad / mc.jacrev /
hessian's reverse-over-forward; forward: mc.jacfwd / mc.jvp of a gradient).

* np.add.at / np.subtract.at at second order: forward code's dispatched scatter-add is planned as plain NumPy
  (rules/numpy_ufunc_at.scatter_forward), whose outer derivative np.add.at's own rules give.
* functools.partial made inside the differentiated function (rules/nested_partials.py): its bound values are
  arguments of the planned call, their adjoints the partial's (BoundAdjoint) -- refused before where the partial had
  a tangent, and WRONG where it had none but an outer derivative differentiated what it bound (`partial(weighted,
  w=c)` inside a function mc.jvp'd with c a primal of zero tangent: d/dc was 0).  A partial of a partial binding
  keywords only lost the inner keywords' tangents at first order (rules/python_callables.py).
* closures rebinding what they capture (`nonlocal total; total = total + v * v`): their tangent cells are passed
  even while empty (api_rules._plan, nested_cells.rebinds_captured).
* *args / **kwargs helpers with differentiated keywords (rules/nested_variadic.py).
* closures made inside that capture numbers from cells of the outermost derivative's function
  (nested_cells.outermost_constants).
* Jacobian objects called inside, at the next order (rules/nested_jacobians.py).
* `x[1].item()` (rules/nested_scalar_item.py) and a namedtuple's `_replace` (rules/nested_replace.py).
"""
from __future__ import annotations

import collections
import functools
import math
import typing

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.rules.forward_code_rules import NestingError

STEP = 1e-5


def fd_jac(g, x, h=STEP):
    """Columns: central differences of g (array -> array or number) along each coordinate of x."""
    cols = [(np.asarray(g(x + h * e), dtype=float) - np.asarray(g(x - h * e), dtype=float)) / (2 * h)
            for e in np.eye(x.size)]
    return np.stack(cols, axis=-1)


def close(got, ref, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(np.asarray(got, dtype=float), ref, rtol=rtol, atol=atol)


def second_orders(f, x, how):
    """The Hessian of f at x by `how` and its finite-difference reference (differences of mc.grad(f))."""
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


# ---------------------------------------------------------------- np.add.at / np.subtract.at
def scatter_repeated(x):
    acc = np.zeros(3)
    np.add.at(acc, np.array([0, 1, 1, 2, 0, 2]), x * x)
    return np.sum(acc ** 2) + np.sum(np.sin(acc))


def scatter_into_input_copy(x):
    y = x.copy() ** 2
    np.add.at(y, np.array([0, 0, 3]), np.exp(0.3 * x[:3]))
    return np.sum(y ** 3)


def scatter_subtract(x):
    acc = np.ones(4)
    np.subtract.at(acc, np.array([1, 1, 3, 0, 1, 2]), np.cos(x))
    return np.sum(acc * acc * np.arange(1, 5))


def scatter_scalar_value(x):
    acc = x[:4] * 1.0
    np.add.at(acc, np.array([2, 2, 0]), x[5] * x[4])
    return np.sum(np.tanh(acc)) + acc[2] ** 3


def scatter_2d_tuple_index(x):
    m = np.outer(x[:3], x[3:])
    np.add.at(m, (np.array([0, 1, 1]), np.array([2, 2, 0])), x[:3] ** 2)
    return np.sum(m ** 2)


def scatter_in_loop(x):
    acc = np.zeros(2)
    for k in range(3):
        np.add.at(acc, np.array([0, 1, 0]), x[k:k + 3] * (k + 1.0))
    return np.sum(acc ** 3) + acc[0] * acc[1]


def scatter_constant_values(x):
    """Only the destination depends on x; the values added are constants."""
    acc = x[:3] ** 2
    np.add.at(acc, np.array([1, 1, 2]), np.array([0.5, -0.2, 1.0]))
    return np.sum(acc ** 2)


SCATTERS = [scatter_repeated, scatter_into_input_copy, scatter_subtract, scatter_scalar_value, scatter_2d_tuple_index,
            scatter_in_loop, scatter_constant_values]
X6 = np.array([0.3, -0.5, 0.8, 0.2, -0.7, 0.45])


@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize("f", SCATTERS, ids=lambda f: f.__name__)
def test_scatter_add_second_order(f, how):
    got, ref = second_orders(f, X6, how)
    close(got, ref)


def scatter_scalar_in(t):
    acc = np.zeros(3)
    np.add.at(acc, np.array([0, 2, 2]), np.array([t, t * t, math.sin(t)]))
    return np.sum(acc ** 3) + acc[2] * t


@pytest.mark.parametrize("order", ["grad3", "grad_jacfwd_grad"])
def test_scatter_add_third_order(order):
    t = 0.7
    if order == "grad3":
        got = mc.grad(mc.grad(mc.grad(scatter_scalar_in)))(t)
    else:
        got = mc.grad(lambda s: mc.jacfwd(mc.grad(scatter_scalar_in))(s))(t)
    d2 = mc.grad(mc.grad(scatter_scalar_in))
    close(got, (d2(t + STEP) - d2(t - STEP)) / (2 * STEP), rtol=1e-4, atol=1e-5)


# ---------------------------------------------------------------- functools.partial made inside
def weighted(a, b, w):
    return w * a * b + a ** 3


def partial_keyword_constant(x):
    f = functools.partial(weighted, w=0.3)
    s = 0.0
    for i in range(len(x) - 1):
        s += f(x[i], x[i + 1])
    return s


def partial_positional_constant(x):
    f = functools.partial(weighted, 1.5)
    return f(x[0] * x[1], 0.7) + f(np.sin(x[2]), x[3])


def partial_local_helper(x):
    def scaled(a, b, scale, shift):
        return scale * math.exp(a * b) + shift * a

    f = functools.partial(scaled, scale=0.5, shift=2.0)
    return sum(f(x[i], x[-1 - i]) for i in range(len(x)))


W_NEG = -0.4


def partial_of_partial_constants(x):
    p = functools.partial(weighted, w=W_NEG)
    q = functools.partial(p, 2.0)
    return q(x[0] * x[2]) + q(x[1] ** 2)


def partial_of_partial_positional(x):
    q = functools.partial(functools.partial(weighted, 0.5), 1.5)
    return q(x[0] * x[1]) * x[3] + q(x[2])


def partial_array_arguments(x):
    f = functools.partial(lambda a, b, c: np.sum(a * np.tanh(b)) * c, c=1.7)
    return f(x, x ** 2)


PARTIALS = [partial_keyword_constant, partial_positional_constant, partial_local_helper, partial_of_partial_constants,
            partial_of_partial_positional, partial_array_arguments]
X4 = np.array([0.4, -0.3, 0.9, 0.25])


@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize("f", PARTIALS, ids=lambda f: f.__name__)
def test_partial_made_inside_second_order(f, how):
    got, ref = second_orders(f, X4, how)
    close(got, ref)


# The partial binds a value that the inner derivative does not differentiate (a primal of mc.jvp with a zero tangent)
# but an outer one does: its adjoint (or tangent) goes back through the partial to that value.
def bound_keyword(a, c):
    return functools.partial(weighted, w=c)(a, a * 2.0)


def bound_positional(a, c):
    return functools.partial(weighted, c, 2.0)(a)


def bound_keyword_b(a, c):
    return functools.partial(weighted, b=c, w=0.3)(a)


def bound_twice(a, c):
    p = functools.partial(weighted, w=c)
    return p(a, c * a)


def bound_partial_of_partial(a, c):
    q = functools.partial(functools.partial(weighted, w=c), 2.0)
    return q(a) + q(c * a)


def bound_partial_of_partial_positional(a, c):
    q = functools.partial(functools.partial(weighted, c), 0.5)
    return q(a * a)


@pytest.mark.parametrize("outer", ["grad", "jacfwd", "jacrev"])
@pytest.mark.parametrize("h", [bound_keyword, bound_positional, bound_keyword_b, bound_twice, bound_partial_of_partial,
                               bound_partial_of_partial_positional],
                         ids=lambda h: h.__name__)
def test_partial_binding_a_value_only_the_outer_derivative_differentiates(h, outer):
    def g(x):
        return mc.jvp(h, (x[0], x[1]), (1.0, None))[1]

    x = np.array([0.3, 0.7])
    got = getattr(mc, outer)(g)(x.copy())
    close(got, fd_jac(g, x))


def test_partial_binding_an_input_value_is_refused_with_advice():
    def f(x):
        return functools.partial(weighted, w=x[1] ** 2)(x[0], x[2])

    with pytest.raises(NestingError, match=r"weighted \(test_regress_order11.py:\d+\).*pass them as arguments"):
        mc.hessian(f)(X4.copy())


@pytest.mark.parametrize("mode", ["jacfwd", "grad"])
@pytest.mark.parametrize("shape", ["keywords_only", "positional_then_keyword", "keyword_overridden"])
def test_partial_of_partial_first_order(mode, shape):
    """partial(partial(f, w=c), a): the inner partial's keyword tangents (adjoints) were lost at first order."""
    def f(x):
        if shape == "keywords_only":
            q = functools.partial(functools.partial(weighted, w=x[1]), x[0])
        elif shape == "positional_then_keyword":
            q = functools.partial(functools.partial(weighted, x[0]), w=x[1] * x[2])
        else:
            q = functools.partial(functools.partial(weighted, w=x[2]), x[0], w=x[1])
        return q(x[0] * x[2]) if shape != "positional_then_keyword" else q(x[2])

    x = np.array([0.3, 0.7, -0.4])
    close(getattr(mc, mode)(f)(x.copy()), fd_jac(f, x))


# ---------------------------------------------------------------- closures rebinding what they capture
def counter_plain(x):
    total = 0.0

    def add(v):
        nonlocal total
        total = total + v * v

    for v in x:
        add(math.exp(0.5 * v))
    return total


def counter_two_cells(x):
    total, weight = 0.0, 1.0

    def step(v):
        nonlocal total, weight
        total = total + weight * math.sin(v)
        weight = weight * 0.9 + v * v

    for v in x:
        step(v)
    return total * weight


def counter_array_cell(x):
    acc = np.zeros(2)

    def push(a, b):
        nonlocal acc
        acc = acc + np.array([a * b, a - b]) * 0.5

    for i in range(len(x) - 1):
        push(x[i], x[i + 1])
    return np.sum(acc ** 2)


def counter_branch(x):
    best = -1.0

    def see(v):
        nonlocal best
        if v > 0.0:
            best = best + v ** 3
        else:
            best = best * math.cosh(v)

    for v in x:
        see(v)
    return best


def counter_returning(x):
    total = 1.0

    def scale(v):
        nonlocal total
        total = total * (1.0 + 0.5 * math.tanh(v))
        return total * v

    s = 0.0
    for v in x:
        s = s + scale(v)
    return s + total


COUNTERS = [counter_plain, counter_two_cells, counter_array_cell, counter_branch, counter_returning]


@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize("f", COUNTERS, ids=lambda f: f.__name__)
def test_stateful_closure_second_order(f, how):
    got, ref = second_orders(f, X4, how)
    close(got, ref)


@pytest.mark.parametrize("outer", ["jacfwd", "jacrev"])
@pytest.mark.parametrize("f", COUNTERS, ids=lambda f: f.__name__)
def test_stateful_closure_outer_of_jvp(f, outer):
    v = np.array([0.3, -1.0, 0.5, 0.8])

    def g(x):
        return mc.jvp(f, (x,), (v,))[1]

    close(getattr(mc, outer)(g)(X4.copy()), fd_jac(g, X4))


def counter_scalar(t):
    total = 0.0

    def add(v):
        nonlocal total
        total = total + v * math.sin(v)

    for k in range(3):
        add(t * (k + 1.0))
    return total


def test_stateful_closure_third_order():
    t = 0.6
    d2 = mc.grad(mc.grad(counter_scalar))
    close(mc.grad(mc.grad(mc.grad(counter_scalar)))(t), (d2(t + STEP) - d2(t - STEP)) / (2 * STEP), rtol=1e-4,
          atol=1e-5)


# ---------------------------------------------------------------- *args / **kwargs with differentiated keywords
def combine_module(*vals, scale=1.0, **extra):
    s = 0.0
    for v in vals:
        s += v * v
    for k in sorted(extra):
        s += extra[k] * scale
    return s * scale


def kwargs_helper_local(x):
    def combine(*vals, scale=1.0, **extra):
        s = 0.0
        for v in vals:
            s += v * v
        for k in sorted(extra):
            s += extra[k] * scale
        return s * scale
    return combine(x[0], x[1] * x[2], x[3], scale=1.3, shift=math.sin(x[0]), tilt=x[1] ** 3)


def kwargs_differentiated_scale(x):
    return combine_module(x[0] * x[3], np.tanh(x[2]), scale=x[1] ** 2, bias=x[2] * x[0])


def kwargs_module_default(x):
    """The keyword-only default (scale=1.0 of a module-level function) taken as a constant."""
    return combine_module(x[0], x[1], x[2] * x[3], offset=math.exp(0.5 * x[3]))


def kwargs_only_extra(x):
    def pick(a, **kw):
        return a * kw["p"] + kw["q"] ** 2 - math.cos(a * kw["q"])
    return pick(x[0], q=x[2] * x[1], p=math.sin(x[3]))


def varargs_positional_only(x):
    def total(*vs):
        out = 0.0
        for i, v in enumerate(vs):
            out = out + (i + 1.0) * v ** 3
        return out
    return total(x[0], x[1] * x[2]) + total(x[3]) + total()


def varargs_arrays(x):
    def energy(*arrs, weight=0.5):
        return weight * sum(np.sum(a ** 2 * np.sin(a)) for a in arrs)
    return energy(x, x[1:] * 2.0, weight=x[0]) + energy(x[::2], weight=0.25)


def varargs_after_positional(x):
    def f(a, b, *rest, **named):
        s = a * b
        for r in rest:
            s = s + r * a
        return s + named.get("c", 0.0) * b
    return f(x[0], x[1], x[2], x[3] ** 2, c=x[0] * x[3]) + f(x[1], x[2])


VARIADICS = [kwargs_helper_local, kwargs_differentiated_scale, kwargs_module_default, kwargs_only_extra,
             varargs_positional_only, varargs_arrays, varargs_after_positional]


@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize("f", VARIADICS, ids=lambda f: f.__name__)
def test_variadic_helpers_second_order(f, how):
    got, ref = second_orders(f, X4, how)
    close(got, ref)


@pytest.mark.parametrize("outer", ["jacfwd", "jacrev"])
@pytest.mark.parametrize("f", VARIADICS, ids=lambda f: f.__name__)
def test_variadic_helpers_outer_of_jvp(f, outer):
    v = np.array([0.7, -0.2, 0.4, 1.1])

    def g(x):
        return mc.jvp(f, (x,), (v,))[1]

    close(getattr(mc, outer)(g)(X4.copy()), fd_jac(g, X4))


def test_variadic_local_default_left_out_is_refused_with_advice():
    def f(x):
        def combine(*vals, scale=1.5):
            return sum(v * v for v in vals) * scale
        return combine(x[0], x[1] * x[2])

    with pytest.raises(NestingError, match=r"combine \(test_regress_order11.py:\d+\).*give that parameter in the call"):
        mc.hessian(f)(X4.copy())


# ---------------------------------------------------------------- closures over cells of the outermost function
# A closure made inside the differentiated function capturing a number from the scope that made that function (a cell
# the differentiated function shares, which no code of this file rebinds): a constant of every derivative now running.
def ridge_c(w, lam=0.1):
    return np.sum(np.sin(w) * w) + lam * np.dot(w, w)


def make_directional(c, v):
    def a(x):
        return mc.jvp(lambda y: ridge_c(y, c), (x,), (v,))[1]
    return a


def make_directional_tuple(coef, v):
    def a(x):
        return mc.jvp(lambda y: coef[0] * np.sum(y ** 3) + coef[1] * ridge_c(y), (x,), (v,))[1]
    return a


def make_slope(c, n, v):
    def a(x):
        g = mc.grad(lambda y: c * np.sum(np.cos(y) ** n))(x)
        return np.dot(g, v)
    return a


def make_value_and_grad(c, v):
    def a(x):
        val, g = mc.value_and_grad(lambda y: np.sum(np.exp(c * y)))(x)
        return np.dot(g, v) + val * c
    return a


def make_two_levels(c, v):
    def a(x):
        def inner(y):
            return ridge_c(y, c) * c
        return mc.jvp(lambda y: inner(y) + c, (x,), (v,))[1]
    return a


W3V = np.array([0.4, -0.9, 0.3])
DIRECTION = np.array([0.5, 1.0, -0.7])
MAKERS = [lambda: make_directional(0.3, DIRECTION), lambda: make_directional_tuple((0.5, 2.0), DIRECTION),
          lambda: make_slope(1.5, 3, DIRECTION), lambda: make_value_and_grad(0.7, DIRECTION),
          lambda: make_two_levels(-0.4, DIRECTION)]
MAKER_IDS = ["jvp_lambda", "tuple_cell", "grad_lambda_int_cell", "value_and_grad_lambda", "two_levels"]


@pytest.mark.parametrize("outer", ["grad", "jacrev", "jacfwd", "vjp", "value_and_grad"])
@pytest.mark.parametrize("make", MAKERS, ids=MAKER_IDS)
def test_closure_over_outermost_cells_first_derivative(make, outer):
    a = make()
    ref = fd_jac(a, W3V)
    if outer == "vjp":
        got = mc.vjp(a, W3V.copy())[1](1.0)[0]
    elif outer == "value_and_grad":
        val, got = mc.value_and_grad(a)(W3V.copy())
        close(val, a(W3V.copy()), rtol=1e-12)
    else:
        got = getattr(mc, outer)(a)(W3V.copy())
    close(got, ref)


@pytest.mark.parametrize("make", MAKERS[:3], ids=MAKER_IDS[:3])
def test_closure_over_outermost_cells_hessian(make):
    a = make()
    close(mc.hessian(a)(W3V.copy()), fd_jac(lambda x: mc.grad(a)(x), W3V))


def make_directional_rebound(c, v):
    """c is rebound by a sibling closure that the differentiated function calls: not a constant."""
    def setc(value):
        nonlocal c
        c = value

    def a(x):
        setc(x[0] * 2.0)
        return mc.jvp(lambda y: ridge_c(y, c), (x,), (v,))[1]
    return a


@pytest.mark.parametrize("outer", ["grad", "jacrev", "jacfwd"])
def test_closure_over_a_rebound_outermost_cell_is_differentiated(outer):
    got = getattr(mc, outer)(make_directional_rebound(0.3, DIRECTION))(W3V.copy())
    close(got, fd_jac(lambda y: make_directional_rebound(0.3, DIRECTION)(y), W3V))


def test_closure_over_a_cell_created_inside_is_not_taken_as_constant():
    """The captured number computed from the input (a cell made inside): differentiated, or refused; never dropped."""
    def a(x):
        c = np.sum(x ** 2)
        return mc.jvp(lambda y: ridge_c(y, c), (x,), (DIRECTION,))[1]

    try:
        got = mc.grad(a)(W3V.copy())
    except NestingError as e:
        assert "test_regress_order11.py:" in str(e)
        return
    close(got, fd_jac(a, W3V))


# ---------------------------------------------------------------- Jacobian objects called inside (third orders)
def quartic(v):
    return np.sum(v ** 4) + np.sum(np.exp(0.3 * v))


def vec_field(v):
    return np.sin(v) * v[0] + v ** 2 * v[-1]


JF_FWD = mc.jacfwd(vec_field)  # (made before any differentiation: a constant object)


def jacfwd_lambda_inside(w):
    return np.sum(mc.jacfwd(lambda v: np.sin(v) * v[0])(w) ** 2)


def jacrev_inside(w):
    return np.sum(mc.jacrev(vec_field)(w) * np.arange(1.0, 1.0 + w.size ** 2).reshape(w.size, w.size))


def hessian_inside_contracted(w):
    return np.dot(mc.hessian(quartic)(w) @ w, np.cos(w))


def jacobian_made_outside(w):
    J = JF_FWD(w)
    return np.sum(np.tanh(J)) + np.trace(J) * w[1]


def jacobian_in_a_loop(w):
    s = 0.0
    for k in range(2):
        s = s + np.sum(mc.jacfwd(vec_field)(w * (1.0 + 0.5 * k)) ** 2)
    return s


JACOBIANS_INSIDE = [jacfwd_lambda_inside, jacrev_inside, jacobian_made_outside, jacobian_in_a_loop]
W3J = np.array([0.33, -0.47, 0.72])


@pytest.mark.parametrize("how", ["hessian", "jacfwd_grad", "jacrev_grad", "jvp_grad"])
@pytest.mark.parametrize("f", JACOBIANS_INSIDE, ids=lambda f: f.__name__)
def test_jacobian_object_inside_at_third_order(f, how):
    """The Hessian of a function that takes a Jacobian (or Hessian) inside: third (fourth, for the Hessian inside)
    derivatives, against differences of its gradient (itself checked against differences of f)."""
    close(mc.grad(f)(W3J.copy()), fd_jac(f, W3J))
    got, ref = second_orders(f, W3J, how)
    close(got, ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("f", JACOBIANS_INSIDE, ids=lambda f: f.__name__)
def test_jacobian_object_inside_grad_of_jvp(f):
    got, ref = second_orders(f, W3J, "grad_jvp")
    close(got, ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode", ["grad", "jacfwd", "jacrev"])
def test_hessian_inside_third_order(mode):
    """A Hessian taken inside, differentiated once: a third derivative of quartic (a fourth, the Hessian of it, is
    refused: the forward code of forward code's own helpers have no rules at that order)."""
    close(getattr(mc, mode)(hessian_inside_contracted)(W3J.copy()), fd_jac(hessian_inside_contracted, W3J))


def test_jacobian_object_with_two_arguments_inside_is_refused_with_advice():
    def f(w):
        return np.sum(mc.jacfwd(lambda a, b: a * b, argnums=0)(w, w[::-1]))

    with pytest.raises(NestingError, match="one positional argument"):
        mc.hessian(f)(W3J.copy())


# ---------------------------------------------------------------- .item() of NumPy float scalars
def item_of_element(x):
    a = float(x[0])
    b = x[1].item()
    return a * b * math.exp(a) + float(np.sum(x ** 2)) * b


def item_of_reduction(x):
    s = np.sum(x ** 2).item()
    return math.sin(s) * x[2].item() + np.dot(x, x[::-1]).item() ** 2


def item_of_zero_d_array(x):
    c = np.asarray(x[0] * x[2]).item()
    return c ** 3 + math.tanh(c) * x[1]


def item_in_a_loop(x):
    s = 0.0
    for i in range(len(x)):
        v = x[i].item()
        s = s + (i + 1.0) * v ** 3 - math.cos(v * s)
    return s


ITEMS = [item_of_element, item_of_reduction, item_of_zero_d_array, item_in_a_loop]


@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize("f", ITEMS, ids=lambda f: f.__name__)
def test_item_second_order(f, how):
    got, ref = second_orders(f, X4, how)
    close(got, ref)


@pytest.mark.parametrize("outer", ["jacfwd", "jacrev"])
@pytest.mark.parametrize("f", ITEMS, ids=lambda f: f.__name__)
def test_item_outer_of_jvp(f, outer):
    v = np.array([0.2, 0.9, -0.6, 0.4])

    def g(x):
        return mc.jvp(f, (x,), (v,))[1]

    close(getattr(mc, outer)(g)(X4.copy()), fd_jac(g, X4))


# ---------------------------------------------------------------- a namedtuple's _replace at second order
Pair = collections.namedtuple("Pair", "a b")


class State(typing.NamedTuple):
    pos: float
    vel: float
    mass: float


def replace_one_field(x):
    p = Pair(x[0], x[1])
    q = p._replace(b=p.b * x[2])
    return q.a * q.b + math.sin(q.b)


def replace_two_fields_in_loop(x):
    s = State(x[0], x[1], 1.5)
    for k in range(3):
        s = s._replace(pos=s.pos + 0.1 * s.vel, vel=s.vel - 0.1 * math.sin(s.pos) * x[2] / s.mass)
    return s.pos ** 2 + s.vel * x[3]


def replace_constant_value(x):
    s = State(x[0] * x[1], x[2], 2.0)
    t = s._replace(mass=3.0)
    return t.pos * t.vel / t.mass + math.exp(t.vel * 0.2)


REPLACES = [replace_one_field, replace_two_fields_in_loop, replace_constant_value]


@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize("f", REPLACES, ids=lambda f: f.__name__)
def test_namedtuple_replace_second_order(f, how):
    got, ref = second_orders(f, X4, how)
    close(got, ref)


@pytest.mark.parametrize("outer", ["jacfwd", "jacrev"])
@pytest.mark.parametrize("f", REPLACES, ids=lambda f: f.__name__)
def test_namedtuple_replace_outer_of_jvp(f, outer):
    v = np.array([0.5, -0.4, 0.3, 1.0])

    def g(x):
        return mc.jvp(f, (x,), (v,))[1]

    close(getattr(mc, outer)(g)(X4.copy()), fd_jac(g, X4))


# ---------------------------------------------------------------- a sibling closure rebinding what the function reads
# Forward mode, first order: `a` (differentiated) calls `setc`, which rebinds the variable c that `a` reads; a read
# c's tangent from fresh tangent cells of its own while setc wrote this computation's (forward/state.py): jvp 0.
def make_with_setter(c0):
    c = c0

    def setc(v):
        nonlocal c
        c = v

    def a(x):
        setc(x[0] * 2.0)
        return c * x[1] + np.sum(np.sin(x)) * c

    return a


def make_with_accumulator(c0):
    c = c0

    def bump(v):
        nonlocal c
        c = c + v * v

    def a(x):
        for v in x:
            bump(math.tanh(v))
        return c * x[0]

    return a


def make_with_setter_array(n):
    state = np.zeros(n)

    def put(v):
        nonlocal state
        state = v * 2.0

    def a(x):
        put(np.cos(x))
        return np.sum(state * x ** 2)

    return a


SETTERS = [lambda: make_with_setter(0.1), lambda: make_with_accumulator(0.5), lambda: make_with_setter_array(3)]
SETTER_IDS = ["setter", "accumulator", "array_setter"]


@pytest.mark.parametrize("mode", ["jvp", "jacfwd", "grad", "jacrev"])
@pytest.mark.parametrize("make", SETTERS, ids=SETTER_IDS)
def test_sibling_closure_rebinding_captured_first_order(make, mode):
    x = W3V.copy()
    ref = fd_jac(lambda y: make()(y), x)  # (a fresh closure per call: the accumulator's state grows)
    if mode == "jvp":
        got = np.array([mc.jvp(make(), (x.copy(),), (e,))[1] for e in np.eye(3)])
    else:
        got = getattr(mc, mode)(make())(x.copy())
    close(got, ref)


@pytest.mark.parametrize("outer", ["jacfwd", "jacrev"])
@pytest.mark.parametrize("make", SETTERS[:2], ids=SETTER_IDS[:2])
def test_sibling_closure_rebinding_captured_outer_of_jvp(make, outer):
    def g(x):
        return mc.jvp(make(), (x,), (DIRECTION,))[1]

    try:
        got = getattr(mc, outer)(g)(W3V.copy())
    except NestingError:
        return  # an honest refusal is acceptable here; a wrong number is not
    close(got, fd_jac(g, W3V))
