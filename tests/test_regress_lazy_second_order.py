"""Second and third orders of loops over iterators (lazy iteration): reversed, enumerate, zip, map, iter() + next(),
nested zips, sorted, dict items, lists of arrays, loops left by `break` and the reader after them.

Since iterators were read item by item (lazy_iteration.LazySequence), reverse mode over forward code -- mc.hessian,
jacfwd / jacrev / jvp of mc.grad, grad of grad -- stopped with "no reverse rule for LazySequence" (the forward code's
tangent of a loop's sequence pulled its items outside the traced code); a rule for it double-counted (the sequence of
a sequence placed its own adjoint again); forward over forward read the iterator whole, so a reader after a `break`
got nothing (a zero second derivative).  Each order here is checked against central differences of the order below
(first orders against differences of f), and the first order in both modes; third orders are refused by name."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import mooncake_ast as mc

X = np.array([0.3, 0.7, 1.1, 0.45, -0.2, 0.8])
V = np.array([0.5, -0.3, 0.8, 0.1, -0.6, 0.2])  # (a direction: scalar wrappers for grad of grad)


# ---------------------------------------------------------------- loop shapes
def reversed_loop(x):
    s = 0.0
    for v in reversed(x):
        s = s + v * v * v
    return s


def enumerate_zip(x):
    s = 0.0
    for i, (a, b) in enumerate(zip(x, x[::-1])):
        s = s + a * b * a * (i + 1)
    return s


def enumerate_reversed(x):
    s = 0.0
    for i, v in enumerate(reversed(x)):
        s = s + v * v * (i + 0.5)
    return s


def zip_of_zip(x):
    s = 0.0
    for (a, b), c in zip(zip(x, x * x), x[::-1]):
        s = s + a * b * c
    return s


def next_then_for(x):
    it = iter(x)
    s = next(it) ** 3
    for v in it:
        s = s + v ** 3
    return s


def while_next(x):
    it = iter(x)
    s = 0.0
    while True:
        v = next(it, None)
        if v is None:
            break
        s = s + v * v * v
    return s


def reversed_next_then_for(x):
    it = reversed(x)
    s = next(it) * next(it)
    for v in it:
        s = s + np.sin(v) * v
    return s


def list_of_arrays_next(x):
    rows = [x[:2], x[2:4], x[4:]]
    it = iter(rows)
    first = next(it)
    s = np.sum(first ** 3)
    for r in it:
        s = s + np.sum(r * r * first)
    return s


def map_loop(x):
    s = 0.0
    for v in map(np.sin, x):
        s = s + v * v
    return s


def sorted_loop(x):
    s = 0.0
    for k, v in enumerate(sorted(x)):
        s = s + v ** 3 * (k + 1)
    return s


def dict_items_loop(x):
    d = {"a": x[0] * x[1], "b": x[2] ** 2, "c": x[3] + x[4] * x[5]}
    s = 0.0
    for k, v in d.items():
        s = s + v * v
    return s


def nested_zips(x):
    s = 0.0
    for (a, (b, c)) in zip(x, zip(x[::-1], x * 2.0)):
        s = s + a * b * c
    return s


def zip_over_zip_of_iterator(x):
    s = 0.0
    for (a, (b, c)) in zip(x, zip(reversed(x), x * 2.0)):
        s = s + a * b * c
    return s


def reversed_break(x):
    s = 0.0
    for v in reversed(x):
        s = s + v ** 3
        if v > 1.0:
            break
    return s


def break_then_rest(x):
    it = iter(x)
    s = 0.0
    for v in it:
        s = s + v ** 3
        if v > 0.5:
            break
    for v in it:
        s = s + 2.0 * v ** 3
    return s


def reversed_break_then_rest(x):
    it = reversed(x)
    s = 0.0
    for v in it:
        s = s + v ** 3
        if v > 1.0:
            break
    for v in it:
        s = s + 2.0 * v ** 3
    return s


def enumerate_break_then_rest(x):
    it = iter(x)
    s = 0.0
    for i, v in enumerate(it):
        s = s + v ** 3 * (i + 1)
        if i == 1:
            break
    for v in it:
        s = s + 2.0 * v ** 3
    return s


def break_then_list(x):
    it = iter(list(x))
    s = 0.0
    for v in it:
        s = s + v ** 3
        if v > 0.5:
            break
    rest = list(it)
    return s + 2.0 * sum(r ** 3 for r in rest)


SHAPES = [reversed_loop, enumerate_zip, enumerate_reversed, zip_of_zip, next_then_for, while_next,
          reversed_next_then_for, list_of_arrays_next, map_loop, sorted_loop, dict_items_loop, nested_zips,
          reversed_break, break_then_rest, reversed_break_then_rest, enumerate_break_then_rest, break_then_list]
APIS = ["hessian", "jacfwd(grad)", "jacrev(grad)", "jvp(grad)", "jacfwd(jacfwd)"]


def _fd(g, x, h=1e-5):
    return np.stack([(np.asarray(g(x + h * e)) - np.asarray(g(x - h * e))) / (2 * h) for e in np.eye(len(x))], -1)


def _second(f, x, api):
    if api == "hessian":
        return mc.hessian(f)(x)
    if api == "jvp(grad)":
        return np.stack([mc.jvp(mc.grad(f), (x,), (e,))[1] for e in np.eye(len(x))], -1)
    if api == "jacfwd(jacfwd)":
        return mc.jacfwd(mc.jacfwd(f))(x)
    outer, inner = api[:-1].split("(")
    return getattr(mc, outer)(getattr(mc, inner)(f))(x)


def _close(ours, ref):
    np.testing.assert_allclose(np.asarray(ours), ref, rtol=1e-4, atol=1e-5 * (1.0 + np.max(np.abs(ref))))


@pytest.mark.parametrize("f", SHAPES, ids=lambda f: f.__name__)
def test_first_order(f):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ref = _fd(lambda y: np.array(f(y)), X, 1e-6)
        _close(mc.grad(f)(X), ref)
        _close(mc.jacfwd(f)(X), ref)


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("f", SHAPES, ids=lambda f: f.__name__)
def test_second_order(f, api):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        _close(_second(f, X.copy(), api), _fd(mc.grad(f), X))


# ---------------------------------------------------------------- grad of grad (a scalar along a direction), third order
def along_reversed(t):
    return reversed_loop(X + t * V)


def along_enumerate_zip(t):
    return enumerate_zip(X + t * V)


def along_next_then_for(t):
    return next_then_for(X + t * V)


def along_break_then_rest(t):
    return break_then_rest(X + t * V)


def along_nested_zips(t):
    return nested_zips(X + t * V)


ALONG = [along_reversed, along_enumerate_zip, along_next_then_for, along_break_then_rest, along_nested_zips]


def _d(g, t, h=1e-5):
    return (g(t + h) - g(t - h)) / (2 * h)


@pytest.mark.parametrize("g", ALONG, ids=lambda g: g.__name__)
def test_grad_of_grad(g):
    t = 0.05
    _close(mc.grad(mc.grad(g))(t), _d(mc.grad(g), t))


def test_third_order_of_enumerate_zip_over_arrays():
    """enumerate(zip(arrays)) indexes the arrays on each pass (frontend/loops.py, wrong10): no iterator is read, so the
    third order is computed."""
    third = mc.grad(mc.grad(mc.grad(along_enumerate_zip)))(0.05)
    h = 1e-3
    d2 = mc.grad(mc.grad(along_enumerate_zip))
    _close(third, (d2(0.05 + h) - d2(0.05 - h)) / (2 * h))


@pytest.mark.parametrize("g", [along_break_then_rest, along_reversed], ids=lambda g: g.__name__)
def test_third_order_of_loops_over_iterators(g):
    """Third orders of loops over iterators: the transforms' own inspection of a loop's sequence would read the shared
    iterator on before the loop asks -- after a `break`, the next reader found nothing (grad(grad(grad)) gave 0.0 for
    4.248), so it was refused; plans keep a loop's tangent sequence unread (nested_plan_kit._lazy_dense) and the
    tangent of a tangent sequence is read by index (builtin_iteration._indexed_tangents): computed, against
    differences of the checked second order."""
    third = mc.grad(mc.grad(mc.grad(g)))(0.05)
    h = 1e-3
    d2 = mc.grad(mc.grad(g))
    _close(third, (d2(0.05 + h) - d2(0.05 - h)) / (2 * h))


# ---------------------------------------------------------------- honest refusals at the second order
def nested_same_iterator(x):
    it = iter(x)
    s = 0.0
    for a in it:
        for b in it:
            s = s + a * b * b
            break
    return s


def next_inside_loop(x):
    it = reversed(x)
    s = 0.0
    for a in it:
        b = next(it)
        s = s + a * a * b
    return s


def test_zip_over_a_zip_of_an_iterator_second_orders():
    """zip(x, zip(reversed(x), y)): since frontend/loops.py reads nested zips by index on each pass (wrong10) the
    second orders are computed, both reverse over forward and forward over forward."""
    f = zip_over_zip_of_iterator
    _close(mc.grad(f)(X), _fd(lambda y: np.array(f(y)), X, 1e-6))
    grad = mc.grad(f)
    fd = np.stack([(grad(X + 1e-6 * e) - grad(X - 1e-6 * e)) / 2e-6 for e in np.eye(len(X))], -1)
    _close(mc.hessian(f)(X), fd)
    _close(mc.jacfwd(mc.jacfwd(f))(X), fd)


@pytest.mark.parametrize("f", [nested_same_iterator, next_inside_loop], ids=lambda f: f.__name__)
def test_interleaved_readers_refused_in_reverse_over_forward(f):
    """Two readers advancing one iterator in turn inside a loop: the pulls' pullbacks would undo out of order, so
    reverse mode over forward code refuses by name; the first orders and forward over forward are right."""
    ref = _fd(mc.grad(f), X)
    _close(mc.jacfwd(mc.jacfwd(f))(X), ref)
    _close(mc.grad(f)(X), _fd(lambda y: np.array(f(y)), X, 1e-6))
    with pytest.raises(NotImplementedError, match="another reader advances"):
        mc.hessian(f)(X)


def array_iter_written(x):
    y = x.copy()
    it = iter(y)
    first = next(it)
    y[1] = first * 3.0
    return first + sum(v * v for v in it)


def test_iterator_over_a_written_array_refused_at_the_second_order():
    """As in reverse mode at the first order (tests/test_regress_hunt9.py): an item written after iter() is refused."""
    with pytest.raises(NotImplementedError, match="written after iter"):
        mc.hessian(array_iter_written)(X.copy())
