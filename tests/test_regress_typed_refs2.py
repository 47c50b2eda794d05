"""Issue 9's readability figure (scripts/helper_refs.py), second round: patterns whose pullbacks are now plain code,
checked in both modes against finite differences (mc.testing.check_derivatives) in several variants each, and the
helper references of representative functions held at their new level.

* A copy of a list of floats handed to one of the user's functions that only reads it (`horner(coeffs[1:], x)`,
  reverse/handed_lists.py): the callee's summary types the result a float on every path, so the recursion's
  pullback is plain arithmetic on lists of floats.  Where the callee writes, appends to or returns the copy, or the
  copy is read again after the call, the safe path stays (and the gradient right).
* A list made by slicing in a branch that returns (`ys = xs[1:]` under `if`): its adjoint is made after the
  branch's record is loaded (it read a name not yet bound before: control_reverse.rev_edge anchored twice).
"""
from __future__ import annotations

import ast

import pytest

import mooncake_ast as mc
from mooncake_ast.api import _vjp

MODES = ("forward", "reverse")


def _helpers(f, args) -> list:
    _vjp(f, args, {})
    src = mc.source(f, "reverse")
    return [n.attr for node in ast.parse(src).body if isinstance(node, ast.FunctionDef) and
            node.name.endswith("__pullback") for n in ast.walk(node)
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "_mc"]


# ---------------------------------------------------------------- copies handed to functions that only read them

def horner(coeffs, x):
    if len(coeffs) == 1:
        return coeffs[0]
    return coeffs[0] + x * horner(coeffs[1:], x)


def series_to_empty(ys, x):
    if len(ys) == 0:
        return 0.0
    return ys[0] * x + series_to_empty(ys[1:], x) * x


def tail_weighted(ys, x):
    return sum(ys) * x + ys[-1]


def head_plus_tail(xs, x):
    return xs[0] * x + tail_weighted(xs[1:], x)


def _even(xs, x):
    if len(xs) == 0:
        return 1.0
    return xs[0] + x * _odd(xs[1:], x)


def _odd(xs, x):
    if len(xs) == 0:
        return x
    return xs[0] * x - _even(xs[1:], x)


def mutual(xs, x):
    return _even(xs, x)


def every_other(xs, x):
    if len(xs) <= 1:
        return x * xs[0] if xs else x
    return xs[0] * xs[1] + x * every_other(xs[2:], x)


# ... and the callees or callers that must keep the safe path

def _writes_copy(ys, x):
    ys[0] = ys[0] * x
    return ys[0] + ys[-1]


def writes_copy(xs, x):
    return xs[0] * _writes_copy(xs[1:], x)


def _appends_copy(ys, x):
    ys.append(x * ys[0])
    return sum(ys)


def appends_copy(xs, x):
    return xs[0] + _appends_copy(xs[1:], x)


def _returns_copy(ys, x):
    return ys


def returns_copy(xs, x):
    rest = _returns_copy(xs[1:], x)
    return rest[0] * x + xs[0]


def copy_read_after(xs, x):
    ys = xs[1:]
    a = tail_weighted(ys, x)
    return a * ys[0]


def _writes_then_reads(ys, x):
    ys[0] = x * 3.0
    return ys[0] * ys[1]


def copy_read_after_write(xs, x):
    ys = xs[1:]
    a = _writes_then_reads(ys, x)
    return a + ys[0] * xs[0]


def _stores(ys, box):
    box.append(ys)
    return ys[0]


def stores_copy(xs, x):
    box = []
    a = _stores(xs[1:], box)
    box[0][0] = x
    return a + box[0][0] * xs[0]


def _param_handed(ys, x):
    return ys[0] * x


def param_handed(xs, x):
    return _param_handed(xs, x) + xs[1]


CASES = [
    (horner, ([2.5], 1.3)),
    (horner, ([1.0, 2.0, 3.0], 0.7)),
    (horner, ([1.0, -2.0, 0.5, 4.0, 3.0, -1.5, 0.25], -0.4)),
    (series_to_empty, ([], 0.9)),
    (series_to_empty, ([1.5], 0.9)),
    (series_to_empty, ([1.0, 2.0, -3.0, 0.5], 1.1)),
    (head_plus_tail, ([1.0, 2.0], 0.5)),
    (head_plus_tail, ([1.0, 2.0, 3.0, -4.0], 1.5)),
    (mutual, ([], 0.3)),
    (mutual, ([1.0, 2.0, 3.0, 4.0, 5.0], 0.6)),
    (every_other, ([1.0], 0.8)),
    (every_other, ([1.0, 2.0, 3.0, 4.0, 5.0], 0.8)),
    (every_other, ([1.0, 2.0, 3.0, 4.0], -1.2)),
    (writes_copy, ([1.0, 2.0, 3.0], 0.7)),
    (appends_copy, ([1.0, 2.0, 3.0], 0.7)),
    (returns_copy, ([1.0, 2.0, 3.0], 0.7)),
    (copy_read_after, ([1.0, 2.0, 3.0], 0.7)),
    (copy_read_after_write, ([1.0, 2.0, 3.0], 0.7)),
    (stores_copy, ([1.0, 2.0, 3.0], 0.7)),
    (param_handed, ([1.0, 2.0, 3.0], 0.7)),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("f, args", CASES, ids=lambda v: getattr(v, "__name__", None) or str(len(v[0])))
def test_handed_copies(f, args, mode):
    mc.testing.check_derivatives(f, *args, modes=(mode,))


def test_handed_copy_int_point():
    """An int x (no derivative of its own) and int coefficients: the list is not one of floats; the safe path."""
    mc.testing.check_derivatives(horner, [1.0, 2.0, 3.0], 2.0, modes=MODES)
    g = mc.grad(horner, argnums=0)([1.0, 2.0, 3.0], 2)
    assert [float(v) for v in g] == [1.0, 2.0, 4.0]


def test_horner_pullback_is_plain():
    refs = _helpers(horner, ([1.0, 2.0, 3.0], 0.7))
    assert "getitem_reverse" not in refs and "acc" not in refs and "take" not in refs, refs
    assert len(refs) <= 4, refs


def test_handed_copy_writes_keep_storage():
    """A callee that writes its copy: the caller's copy is not typed (its adjoint goes through storage)."""
    refs = _helpers(writes_copy, ([1.0, 2.0, 3.0], 0.7))
    assert "add_list_adjoint" not in refs, refs


# ---------------------------------------------------------------- a slice made in a branch that returns

def branch_slice_sum(xs, c):
    if c > 0.0:
        ys = xs[1:]
        return sum(ys) * c
    return xs[0] * c


def branch_slice_item(xs, c):
    if c > 0.0:
        ys = xs[1:]
        return ys[0] * c + ys[-1]
    return xs[0] * c


def branch_slice_loop(xs, c):
    if c < 0.0:
        return c * c
    ys = xs[::2]
    total = 0.0
    for y in ys:
        total = total + y * c
    return total


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("f", [branch_slice_sum, branch_slice_item, branch_slice_loop])
@pytest.mark.parametrize("c", [2.0, -1.5])
@pytest.mark.parametrize("xs", [[1.0, 2.0, 3.0], [0.5, -1.0, 2.0, 4.0, 8.0]])
def test_branch_slices(f, c, xs, mode):
    mc.testing.check_derivatives(f, xs, c, modes=(mode,))


# ---------------------------------------------------------------- selections by one mask share their size

import numpy as np  # noqa: E402


def mask_twice(x, c):
    mask = x > c
    return np.sum(np.sin(x[mask]) * x[mask])


def mask_assign(x, c):
    y = x.copy()
    mask = y > c
    y[mask] = c + np.log1p(y[mask] - c)
    return np.sum(y ** 2)


def mask_two_arrays(x, c):
    w = x * 2.0 + 1.0
    mask = np.logical_and(x > c, x < 3.0)
    return np.sum(w[mask] * x[mask] + x[mask] ** 2)


def mask_inverted(x, c):
    mask = ~(x > c)
    y = x * 1.0
    y[mask] = y[mask] * c
    return np.sum(y * x)


def mask_rows(m, c):
    mask = m[:, 0] > c
    return np.sum(m[mask] * np.cos(m[mask]))


def mask_scalar_mix(x, c):
    mask = x > c
    picked = x[mask]
    return np.sum(picked * x[mask][::-1]) + np.sum(picked) * c


# ... masks something may change between the selections: the safe path
def mask_written(x, c):
    mask = x > c
    a = x[mask]
    mask[0] = True
    b = x[mask]
    return np.sum(a) * c + np.sum(b * b)


def mask_viewed(x, c):
    mask = x > c
    head = mask[:2]
    a = x[mask]
    head[:] = True
    return np.sum(a) + np.sum(x[mask] ** 2)


def mask_inplace(x, c):
    mask = x > c
    a = x[mask]
    mask &= x < 1.8
    return np.sum(a ** 2) + np.sum(x[mask] * c)


def mask_broadcast_one(x, z):
    mask = x > 1.5  # (one item selected: broadcast against z)
    return np.sum(x[mask] * z) + np.sum(x[mask] ** 3)


MASK_CASES = [
    (mask_twice, (np.array([0.3, -1.0, 2.0, 1.5, 0.8]), 0.5)),
    (mask_twice, (np.array([0.3, -1.0]), 5.0)),  # (nothing selected)
    (mask_twice, (np.array([0.3, -1.0, 2.0]), 1.0)),  # (one item)
    (mask_assign, (np.array([0.1, 2.0, 3.0, -1.0]), 0.5)),
    (mask_assign, (np.array([0.1, -2.0]), 0.5)),
    (mask_assign, (np.array([[0.1, 2.0], [3.0, -1.0]]), 0.5)),
    (mask_two_arrays, (np.array([0.3, -1.0, 2.0, 1.5, 0.8, 3.5]), 0.5)),
    (mask_inverted, (np.array([0.3, -1.0, 2.0, 1.5, 0.8]), 0.5)),
    (mask_rows, (np.array([[0.3, 1.0], [-1.0, 2.0], [2.0, 0.5]]), 0.0)),
    (mask_scalar_mix, (np.array([0.3, -1.0, 2.0, 1.5, 0.8]), 0.5)),
    (mask_written, (np.array([0.3, -1.0, 2.0, 1.5, 0.8]), 0.5)),
    (mask_viewed, (np.array([0.3, -1.0, 2.0, 1.5, 0.8]), 0.5)),
    (mask_inplace, (np.array([0.3, -1.0, 2.0, 1.5, 0.8]), 0.5)),
    (mask_broadcast_one, (np.array([0.3, -1.0, 2.0]), np.array([1.0, 2.0, 3.0, 4.0]))),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("f, args", MASK_CASES, ids=lambda v: getattr(v, "__name__", None) or str(np.shape(v[0])))
def test_mask_selections(f, args, mode):
    mc.testing.check_derivatives(f, *args, modes=(mode,))


def test_mask_selections_float32():
    x = np.array([0.3, -1.0, 2.0, 1.5, 0.8], dtype=np.float32)
    g = mc.grad(mask_twice)(x, 0.5)
    mask = x > 0.5
    want = np.zeros_like(x)
    want[mask] = np.cos(x[mask]) * x[mask] + np.sin(x[mask])
    assert np.allclose(g, want, rtol=1e-5)


@pytest.mark.parametrize("f, args", [MASK_CASES[0], MASK_CASES[3], MASK_CASES[6]], ids=lambda v: getattr(v, "__name__", ""))
def test_mask_pullbacks_are_plain(f, args):
    refs = _helpers(f, args)
    assert "mul_vjp" not in refs and "unbroadcast" not in refs and "add_vjp" not in refs, refs


# ---------------------------------------------------------------- an array accumulated by a loop: a real adjoint

def weighted_sum(arrays, weights):
    total = np.zeros_like(arrays[0])
    for a, w in zip(arrays, weights):
        total = total + w * a
    return np.sum(total ** 2)


def weighted_sum_branchy(arrays, weights):
    total = np.zeros_like(arrays[0])
    for a, w in zip(arrays, weights):
        if w > 0.0:
            total = total + w * a
        else:
            total = total - a * a
    return np.sum(np.sin(total))


def accumulate_in_range(x, n):
    acc = x * 0.5
    for k in range(n):
        acc = acc * 0.9 + np.cos(x) * k
    return np.sum(acc * x)


def nested_accumulate(x, n):
    acc = np.ones_like(x)
    for i in range(n):
        for j in range(2):
            acc = acc + x * (i - j)
    return np.sum(acc ** 2)


ARRAY_LOOP_CASES = [
    (weighted_sum, ([np.array([1.0, 2.0, 3.0]), np.array([-1.0, 0.5, 2.0]), np.array([0.3, 0.2, 0.1])],
                    [0.5, -1.0, 2.0])),
    (weighted_sum, ([np.array([[1.0, 2.0], [3.0, 4.0]])], [1.5])),
    (weighted_sum, ([np.array(2.0), np.array(-1.0)], [0.5, 3.0])),  # (0-d arrays)
    (weighted_sum, ([np.array([1.0])], [])),  # (no trip: zip of an empty list)
    (weighted_sum_branchy, ([np.array([1.0, 2.0, 3.0]), np.array([-1.0, 0.5, 2.0])], [0.5, -1.0])),
    (weighted_sum_branchy, ([np.array([1.0, 2.0]), np.array([-1.0, 0.5]), np.array([0.4, 0.1])], [-0.5, 1.0, 2.0])),
    (accumulate_in_range, (np.array([0.3, -1.0, 2.0]), 0)),
    (accumulate_in_range, (np.array([0.3, -1.0, 2.0]), 4)),
    (accumulate_in_range, (np.array([[0.3, -1.0], [2.0, 0.1]]), 3)),
    (nested_accumulate, (np.array([0.3, -1.0, 2.0]), 3)),
    (nested_accumulate, (np.array(0.7), 2)),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("f, args", ARRAY_LOOP_CASES, ids=lambda v: getattr(v, "__name__", None) or "args")
def test_array_loop_accumulators(f, args, mode):
    mc.testing.check_derivatives(f, *args, modes=(mode,))


def test_array_loop_accumulator_float32():
    arrays = [np.array([1.0, 2.0], dtype=np.float32), np.array([0.5, -1.0], dtype=np.float32)]
    g = mc.grad(weighted_sum, argnums=1)(arrays, [0.5, 2.0])
    total = 0.5 * arrays[0] + 2.0 * arrays[1]
    assert np.allclose(g, [float(np.sum(2 * total * a)) for a in arrays], rtol=1e-5)


def test_array_loop_accumulator_is_plain():
    refs = _helpers(weighted_sum, ([np.array([1.0, 2.0]), np.array([0.5, -1.0])], [0.5, 2.0]))
    assert "add_vjp" not in refs and "mul_vjp" not in refs and "add_to_item_unless_zero" not in refs, refs


# ---------------------------------------------------------------- helpers real whenever their adjoint is: `axis=None`

def shifted_softmax(z):
    e = np.exp(z - np.max(z))
    return e / e.sum()


def stable_logsumexp(z):
    m = np.max(z)
    return m + np.log(np.sum(np.exp(z - m)))


def spread_min(z):
    return np.sum(z * 2.0) + np.min(z) * np.prod(z)


def rowwise_max(m):
    return np.sum(np.max(m, axis=1) * 2.0) + np.sum(m)


def ranged(z):
    return (np.max(z) - np.min(z)) * np.std(z) + np.sum(z ** 2)


REDUCTION_CASES = [
    (shifted_softmax, (np.array([0.3, -1.0, 2.0, 1.5]),)),
    (shifted_softmax, (np.array([[0.3, -1.0], [2.0, 1.5]]),)),
    (stable_logsumexp, (np.array([0.3, -1.0, 2.0, 1.5]),)),
    (stable_logsumexp, (np.array(0.7),)),
    (spread_min, (np.array([0.3, -1.0, 2.0, 1.5]),)),
    (rowwise_max, (np.array([[0.3, -1.0, 0.2], [2.0, 1.5, -0.5]]),)),
    (ranged, (np.array([0.3, -1.0, 2.0, 1.5]),)),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("f, args", REDUCTION_CASES, ids=lambda v: getattr(v, "__name__", None) or "args")
def test_reduction_adjoints(f, args, mode):
    mc.testing.check_derivatives(f, *args, modes=(mode,))


def test_reduction_adjoint_float32():
    z = np.array([0.3, -1.0, 2.0], dtype=np.float32)
    g = mc.grad(stable_logsumexp)(z)
    assert np.allclose(g, np.exp(z) / np.exp(z).sum(), rtol=1e-5)


@pytest.mark.parametrize("f", [stable_logsumexp, shifted_softmax])
def test_reduction_pullbacks_are_plain(f):
    refs = _helpers(f, (np.array([0.3, -1.0, 2.0, 1.5]),))
    assert "accumulate" not in refs, refs


# ---------------------------------------------------------------- powers of bases that are never negative

import math  # noqa: E402


def abs_power(z):
    return abs(z) ** 1.5 + math.fabs(z - 1.0) ** 0.5


def const_base_power(x):
    return 2 ** x + 0.5 ** (x * x) + 3.0 ** -x


def exp_sqrt_power(x, y):
    return math.exp(x) ** 0.3 + math.sqrt(y) ** 1.5 + math.hypot(x, y) ** 2.5 + math.cosh(x) ** 0.5


def negative_base_power(x):
    return abs((x - 2.0) ** 1.5)


def shadowed_abs(x):
    return abs(x) ** 0.5


POWER_CASES = [
    (abs_power, (0.7,)), (abs_power, (-1.3,)), (abs_power, (2.5,)),
    (const_base_power, (0.7,)), (const_base_power, (-1.2,)),
    (exp_sqrt_power, (0.4, 1.3)), (exp_sqrt_power, (-0.8, 2.0)),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("f, args", POWER_CASES, ids=lambda v: getattr(v, "__name__", None) or str(v))
def test_never_negative_bases(f, args, mode):
    mc.testing.check_derivatives(f, *args, modes=(mode,))


def test_never_negative_bases_are_plain():
    for f, args in POWER_CASES[::2]:
        assert "refuse_complex_power" not in _helpers(f, args), f


def test_negative_base_still_refused():
    mc.testing.check_derivatives(negative_base_power, 3.0, modes=("reverse",))
    with pytest.raises(Exception, match="negative base to a fractional power"):
        mc.grad(negative_base_power)(1.0)


def test_shadowed_abs_keeps_the_check(tmp_path, monkeypatch):
    """A module global `abs` that is not the builtin: its result may be negative, the check stays."""
    (tmp_path / "refs2_shadowed_abs.py").write_text(
        "import builtins\n\n\ndef abs(v):\n    return v - 10.0\n\n\n"
        "def f(x):\n    return builtins.abs(abs(x) ** 0.5)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import refs2_shadowed_abs
    with pytest.raises(Exception, match="negative base to a fractional power"):
        mc.grad(refs2_shadowed_abs.f)(1.0)


# ---------------------------------------------------------------- tuple displays of floats walked by a loop

def _powers(*values, power=2.0):
    return sum(v ** power for v in values)


def star_forwarding(x, y, z):
    args = (x, y, z)
    return _powers(*args, power=3.0) + _powers(x, y) * z


def walked_display(x, y):
    pair = (x * y, y - 1.0, 2.0)
    total = 0.0
    for v in pair:
        total = total + v * v
    return total + sum(pair) * x


def indexed_display(x, y, k):
    t = (x, y, x * y)
    return t[k] * t[k - 1] + t[0]


def walked_twice(x, y):
    t = (x, y * 2.0)
    a = sum(v * x for v in t)
    b = max(t)
    return a * b + min(t)


# ... displays kept in storage or left as they were
def display_in_loop(x, y):
    total = 0.0
    for k in range(3):
        t = (x * k, y)
        for v in t:
            total = total + v * v
    return total


def display_returned_part(x, y):
    t = (x, y)
    s = 0.0
    for v in t:
        s = s + v
    return s, t


def display_handed_on(x, y):
    t = (x, y, x + y)
    s = 0.0
    for v in t:
        s = s + v * v
    return s + _powers(*t)


def display_of_arrays(x, y):
    t = (x, y)
    s = 0.0
    for v in t:
        s = s + np.sum(v * v)
    return s


def display_in_branch(x, y):
    if x > 0.0:
        t = (x, y)
        return sum(v * v for v in t)
    return y


DISPLAY_CASES = [
    (star_forwarding, (0.7, -1.2, 0.4)),
    (walked_display, (0.7, -1.2)),
    (indexed_display, (0.7, -1.2, 2)),
    (indexed_display, (0.7, -1.2, 1)),
    (walked_twice, (0.7, -1.2)),
    (walked_twice, (-0.3, 1.5)),
    (display_in_loop, (0.7, -1.2)),
    (display_handed_on, (0.7, -1.2)),
    (display_of_arrays, (np.array([0.7, 1.0]), np.array([-1.2, 0.3]))),
    (display_in_branch, (0.7, -1.2)),
    (display_in_branch, (-0.7, -1.2)),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("f, args", DISPLAY_CASES, ids=lambda v: getattr(v, "__name__", None) or "args")
def test_tuple_displays(f, args, mode):
    mc.testing.check_derivatives(f, *args, modes=(mode,))


def test_tuple_display_returned():
    """A display the function returns a part of: the caller's adjoint of it reaches the items."""
    x_bar, y_bar = mc.vjp(display_returned_part, 0.7, -1.2)[1]((1.0, (0.5, -2.0)))
    assert np.allclose((x_bar, y_bar), (1.5, -1.0))


def test_tuple_display_numpy_scalars():
    g = mc.grad(walked_display, argnums=(0, 1))(np.float64(2.0), np.float32(3.0))
    assert np.allclose(g, mc.grad(walked_display, argnums=(0, 1))(2.0, 3.0), rtol=1e-6)


@pytest.mark.parametrize("f, args", [DISPLAY_CASES[0], DISPLAY_CASES[1], DISPLAY_CASES[4]], ids=lambda v: getattr(v, "__name__", ""))
def test_tuple_display_pullbacks_are_plain(f, args):
    refs = _helpers(f, args)
    assert "sequence_adjoint" not in refs and "getitem_reverse" not in refs and "item_of" not in refs, refs
