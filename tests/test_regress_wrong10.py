"""wrong10: derivatives that were silently wrong on the trunk of 2026-11-28 11:15, now right or honestly refused.

1. A `for` loop over enumerate / zip nested in each other (`enumerate(zip(y))`, `zip(x, enumerate(y))`,
   `zip(zip(y, x), x)`) whose body writes an item of y the loop reads later: Python's enumerate and zip read
   their sequences' items when the loop asks for them, the lowering took the inner zip or enumerate object
   whole (its items as they were when the loop started).  Both modes were wrong; now every sequence is indexed
   in step (frontend/loops.py).  Where the items really are computed up front (reversed, map, filter, a
   generator expression nested in enumerate / zip) a body writing what they read is refused, naming the line.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.errors import MooncakeError

X6 = np.array([0.3, -0.7, 1.1, 0.45, 0.2, 0.8])
X8 = np.array([0.3, -0.7, 1.1, 0.45, 0.2, 0.8, -0.35, 0.6])


def _check(f, x, mode):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        mc.testing.check_derivatives(f, x, modes=(mode,))


MODES = ("forward", "reverse")


# ---------------------------------------------------------------- 1. nested enumerate / zip written ahead
def enum_zip_ahead(x):
    y = x.copy()
    s = 0.0
    for i, a in enumerate(zip(y)):
        if i + 1 < len(y):
            y[i + 1] += a[0]
        s = s + a[0]
    return s


def enum_zip_two_written(x):
    y = x.copy()
    z = x * 2.0
    s = 0.0
    for i, (a, b) in enumerate(zip(y, z), start=1):
        if i < len(y):
            y[i] += a * b
            z[i] -= 0.5 * a
        s = s + a * a + b
    return s


def enum_zip_behind(x):
    y = x.copy()
    s = 0.0
    for i, a in enumerate(zip(y)):
        if i >= 1:
            y[i - 1] += a[0]
        s = s + a[0] * y[0]
    return s


def enum_zip_whole_written(x):
    y = x.copy()
    s = 0.0
    for i, a in enumerate(zip(y)):
        y[:] = y * 0.5 + a[0]
        s = s + a[0] * (i + 1)
    return s


def enum_zip_column(x):
    Y = x.reshape(-1, 2).copy()
    s = 0.0
    for i, (a,) in enumerate(zip(Y[:, 0])):
        if i + 1 < Y.shape[0]:
            Y[i + 1, 0] += 2.0 * a * Y[i, 1]
        s = s + a ** 2
    return s


def enum_zip_rows(x):
    Y = x.reshape(-1, 2).copy()
    s = 0.0
    for i, (r,) in enumerate(zip(Y)):
        Y[i] *= 1.5  # (r is a view of row i: it sees this write)
        if i + 1 < Y.shape[0]:
            Y[i + 1] += r * r
        s = s + np.sum(r ** 3)
    return s


def zip_enum_inner(x):
    y = x.copy()
    s = 0.0
    for a, (i, b) in zip(x, enumerate(y)):
        if i + 1 < len(y):
            y[i + 1] += a * b
        s = s + b
    return s


def zip_of_zip_written(x):
    y = x.copy()
    s = 0.0
    i = 0
    for (a, b), c in zip(zip(y, x), y):
        if i + 1 < len(y):
            y[i + 1] = y[i + 1] * c + a * b
        s = s + a + c
        i += 1
    return s


def enum_zip_tuple_target(x):
    y = x.copy()
    s = 0.0
    for pair in enumerate(zip(y, x)):
        i, (a, b) = pair
        if i + 1 < len(y):
            y[i + 1] += a * b
        s = s + a
    return s


def enum_zip_list_written(x):
    y = [x[0], x[1], x[2], x[3]]
    s = 0.0
    for i, (a, b) in enumerate(zip(y, x)):
        if i + 1 < len(y):
            y[i + 1] = y[i + 1] + a * b
        s = s + a * a
    return s


def comprehension_of_enum_zip(x):
    y = x * 1.5
    return sum(a * b * i for i, (a, b) in enumerate(zip(y, x)))


NESTED_WRITTEN = [enum_zip_ahead, enum_zip_two_written, enum_zip_behind, enum_zip_whole_written, enum_zip_column,
                  enum_zip_rows, zip_enum_inner, zip_of_zip_written, enum_zip_tuple_target, enum_zip_list_written,
                  comprehension_of_enum_zip]


@pytest.mark.parametrize("x", [X6, X8], ids=["n6", "n8"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("f", NESTED_WRITTEN, ids=lambda f: f.__name__)
def test_nested_enumerate_zip_written(f, mode, x):
    _check(f, x, mode)


@pytest.mark.parametrize("f", [enum_zip_ahead, enum_zip_two_written, zip_enum_inner, zip_of_zip_written],
                         ids=lambda f: f.__name__)
def test_nested_enumerate_zip_written_hessian(f):
    x = X6
    h = 1e-5
    g = mc.grad(f)
    fd = np.stack([(g(x + h * e) - g(x - h * e)) / (2 * h) for e in np.eye(len(x))], -1)
    np.testing.assert_allclose(mc.hessian(f)(x), fd, rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------- 1b. items computed up front: refused
def enum_reversed_written(x):
    y = x.copy()
    s = 0.0
    n = len(y)
    for i, v in enumerate(reversed(y)):
        if n - 2 - i >= 0:
            y[n - 2 - i] += 0.5 * v
        s = s + v * v
    return s


def zip_reversed_written(x):
    y = x.copy()
    s = 0.0
    for a, b in zip(x, reversed(y)):
        y[0] += a * b
        s = s + b * b
    return s


def enum_map_written(x):
    y = x.copy()
    s = 0.0
    for i, v in enumerate(map(lambda t: t * 1.5, y)):
        if i + 1 < len(y):
            y[i + 1] += v
        s = s + v * v
    return s


def zip_genexp_written(x):
    y = x.copy()
    s = 0.0
    for i, (a, b) in enumerate(zip(y, (t * 2.0 for t in y))):
        if i + 1 < len(y):
            y[i + 1] += a * b
        s = s + b
    return s


def zip_filter_written(x):
    y = x.copy()
    s = 0.0
    for i, v in zip(range(10), filter(lambda t: t > 0.0, y)):
        y[-1] += v
        s = s + v * v
    return s


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("f, says", [(enum_reversed_written, r"reversed\(y\) whose body writes y"),
                                     (zip_reversed_written, r"reversed\(y\) whose body writes y"),
                                     (enum_map_written, "may change what it reads"),
                                     (zip_genexp_written, "may change what it reads"),
                                     (zip_filter_written, "may change what it reads")],
                         ids=lambda v: getattr(v, "__name__", "says"))
def test_items_computed_up_front_refused(f, says, mode):
    with pytest.raises(MooncakeError, match=says) as info:
        _check(f, X6, mode)
    assert "test_regress_wrong10.py" in str(info.value)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("f", [enum_reversed_written, zip_reversed_written, enum_map_written],
                         ids=lambda f: f.__name__)
def test_items_computed_up_front_right_when_not_written(f, mode):
    """The same iterables over arrays the loop does not write: right, not refused."""
    src_free = {enum_reversed_written: lambda x: sum(v * (i + 1.0) for i, v in enumerate(reversed(x * 2.0))),
                zip_reversed_written: lambda x: sum(a * b for a, b in zip(x, reversed(x ** 2))),
                enum_map_written: lambda x: sum(v * i for i, v in enumerate(map(lambda t: t * 1.5, x)))}
    _check(src_free[f], X6, mode)
