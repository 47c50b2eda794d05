"""Issue 9's readability figure (scripts/helper_refs.py): patterns whose pullbacks are now plain code, checked in both
modes against finite differences (mc.testing.check_derivatives) in several variants each, and the helper references
of representative functions held at their new level.

* A tuple parameter of floats walked by a loop or read by a computed index (`*values`: reverse/typed_lists.py
  reads it as a list of floats, `values_bar[k] += v_bar`, handed back as `tuple(values_bar)`): its pullback reads
  no `getitem_reverse` / `sequence_adjoint` / `acc`.
"""
from __future__ import annotations

import ast
import os
import sys

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.api import _vjp

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "scripts"))
from helper_refs import pullback_counts  # noqa: E402


def _helpers(f, args, kwargs=None) -> list:
    _vjp(f, args, kwargs or {})
    src = mc.source(f, "reverse")
    return [n.attr for node in ast.parse(src).body if isinstance(node, ast.FunctionDef) and
            node.name.endswith("__pullback") for n in ast.walk(node)
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "_mc"]


# ---------------------------------------------------------------- loops over tuple parameters

def varargs_power(*values, power=2.0):
    return sum(v ** power for v in values)


def varargs_products(*values):
    total = 0.0
    prev = 1.0
    for v in values:
        total = total + v * prev
        prev = v
    return total


def tuple_param_loop(pair, c):
    out = 0.0
    for v in pair:
        out = out + np.sum(np.sin(v) * c)
    return out


def tuple_param_branchy(values, c):
    out = 0.0
    for v in values:
        if v > 0.0:
            out = out + v * c
        else:
            out = out - v * v
    return out


def tuple_mixed_reads(values, c):
    first = values[0] * values[-1]
    for v in values:
        first = first + c * v
    return first + sum(values) * max(values) + np.sum(np.array(values) ** 2) + sorted(values)[0]


def tuple_indexed(values, c):
    out = 0.0
    for k in range(len(values)):
        out = out + values[k] * values[len(values) - 1 - k] * c
    return out


def tuple_unpacked_too(values):
    a, b, c = values
    out = a * b
    for v in values:
        out = out + v * c
    return out


def star_forwarding(x, y, z):
    args = (x, y, z)
    return varargs_power(*args, power=3.0) + varargs_products(x, y)


_TUPLE_CASES = [
    (varargs_power, (0.5, -1.2, 0.8)),
    (varargs_power, (1.5,)),
    (varargs_power, (0.5, 1.2, 0.8, 2.0, 0.1, 0.3)),
    (varargs_power, (0.5, 1.2, 0.8, 2.0, 0.1, 0.3, 0.9)),  # (seven: a loop still, _MAX_ITEMS)
    (varargs_products, (0.5, -1.2, 0.8)),
    (varargs_products, (0.7, 0.2)),
    (tuple_param_loop, ((np.array([0.1, 0.2, 0.3]), np.array([[0.5, -0.4]])), 1.3)),
    (tuple_param_loop, ((np.array(0.4), np.array([0.5, 1.5])), 0.7)),  # (0-d, broadcasting)
    (tuple_param_loop, ((np.array([0.1, 0.2], dtype=np.float32), np.array([0.3])), 0.5)),
    (tuple_param_loop, ((np.array([]), np.array([0.5])), 0.5)),  # (an empty array)
    (tuple_param_loop, ((0.3, 0.9, -0.2), 2.0)),
    (tuple_param_branchy, ((0.3, -0.9, 1.2), 2.0)),
    (tuple_param_branchy, ((-0.3, -0.9), 0.5)),
    (star_forwarding, (0.4, -0.7, 1.1)),
    (tuple_mixed_reads, ((0.4, -0.7, 1.1), 0.3)),
    (tuple_mixed_reads, ((0.4,), 2.0)),
    (tuple_indexed, ((0.4, -0.7, 1.1, 0.2), 0.3)),
    (tuple_indexed, ((0.5,), 1.5)),
    (tuple_unpacked_too, ((0.4, -0.7, 1.1),)),
]


@pytest.mark.parametrize("f,args", _TUPLE_CASES, ids=lambda c: getattr(c, "__name__", None))
def test_tuple_loops_both_modes(f, args):
    mc.testing.check_derivatives(f, *args, rtol=1e-4 if any(
        getattr(a, "dtype", None) == np.float32 for a in np.atleast_1d(np.array(args, dtype=object)).ravel()
        if isinstance(a, np.ndarray)) else 1e-5)


def test_tuple_loops_float32_and_ints():
    mc.testing.check_derivatives(tuple_param_loop, (np.array([0.1, 0.2], dtype=np.float32), np.array([0.3])), 0.5,
                                 rtol=1e-3, atol=1e-4)
    # ints among the items: no derivative for them, the others right
    g = mc.grad(varargs_power, argnums=(0, 1, 2))(2, 0.5, 3)
    assert g[1] == pytest.approx(2 * 0.5)


@pytest.mark.parametrize("f,args", [(varargs_power, (0.5, -1.2, 0.8)), (varargs_products, (0.5, -1.2, 0.8)),
                                    (tuple_indexed, ((0.4, -0.7, 1.1, 0.2), 0.3)),
                                    (tuple_param_branchy, ((0.3, -0.9, 1.2), 2.0))],
                         ids=lambda c: getattr(c, "__name__", None))
def test_tuple_loops_written_out(f, args):
    helpers = _helpers(f, args)
    assert "getitem_reverse" not in helpers and "sequence_adjoint" not in helpers and "acc" not in helpers, helpers


def test_tuple_loop_figures():
    _vjp(varargs_products, (0.5, -1.2, 0.8), {})
    refs, stmts = pullback_counts(mc.source(varargs_products, "reverse"))
    assert refs == 0, mc.source(varargs_products, "reverse")
    _vjp(varargs_power, (0.5, -1.2, 0.8), {})
    refs, stmts = pullback_counts(mc.source(varargs_power, "reverse"))
    # (the strong zeros of `v ** power` stay: strong_mul, pow_deriv, log_for_pow, refuse_complex_power per item)
    assert refs <= 12 and stmts >= 16, mc.source(varargs_power, "reverse")


# ---------------------------------------------------------------- range(k) in a callee put in line

def _power_loop(x, k):
    out = 1.0
    for _ in range(k):
        out = out * x
    return out


def _plain_call(v, k):
    if k > 100:
        return v
    return v * v + k


def range_in_callee(x, n):
    total = 0.0
    for k in range(n):
        total = total + _power_loop(x, k) * _plain_call(total, k)
    return total


def range_slice_in_callee(x, n):
    total = 0.0
    for k in range(n)[1:]:
        total = total + _power_loop(x, k) + _plain_call(x, k)
    return total


def range_items_used(x, n):
    total = 0.0
    for k in range(n):
        for j in range(k, 0, -1):
            total = total + _plain_call(x * j, k) * 0.1
    return total


class _Index:
    def __init__(self, n):
        self.n = n

    def __index__(self):
        return self.n


def range_of_object(x, n):
    total = 0.0
    for k in range(_Index(n)):
        total = total + _power_loop(x, k) * _plain_call(x, k)
    return total


_RANGE_CASES = [
    (range_in_callee, (0.3, 4)),
    (range_in_callee, (1.3, 0)),
    (range_in_callee, (-0.7, 3)),
    (range_slice_in_callee, (0.6, 4)),
    (range_items_used, (0.8, 4)),
    (range_of_object, (0.5, 3)),
]


@pytest.mark.parametrize("f,args", _RANGE_CASES, ids=lambda c: getattr(c, "__name__", None))
def test_range_in_callee_both_modes(f, args):
    mc.testing.check_derivatives(f, *args)


@pytest.mark.parametrize("f,args", [(range_in_callee, (0.3, 4)), (range_slice_in_callee, (0.6, 4))],
                         ids=lambda c: getattr(c, "__name__", None))
def test_range_in_callee_plain(f, args):
    # forward/object_flow.py: the items of a range are ints, never objects: `_` of `for _ in range(k)` needs no
    # run-time dispatch, storage or getitem_reverse
    helpers = _helpers(f, args)
    assert helpers == [], helpers


# ---------------------------------------------------------------- np.add.at into an adjoint buffer

def scatter_sum_squares(x, idx):
    buf = np.zeros(4)
    np.add.at(buf, idx, x)
    return np.sum(buf ** 2)


def scatter_rows(W, idx, g):
    out = np.zeros((3, W.shape[1]))
    np.add.at(out, idx, W * g)
    return np.sum(np.tanh(out) * out)


def scatter_read_between(x, idx, c):
    buf = np.ones(5) * c
    first = np.sum(np.sin(buf) * buf)
    np.add.at(buf, idx, x * x)
    mid = buf[1] * buf[3]
    np.subtract.at(buf, idx[::-1], 0.5 * x)
    return first + mid + np.sum(buf ** 3)


def scatter_scalar_and_slices(x, s, idx):
    buf = np.zeros(6)
    np.add.at(buf, idx, s)  # (a float broadcast to every position)
    np.add.at(buf, slice(1, 4), x[:3])
    np.add.at(buf, 2, s * s)
    return np.sum(buf * buf) + buf[2]


def scatter_in_loop(x, idx, n):
    buf = np.zeros(4)
    for k in range(n):
        np.add.at(buf, idx, x * (k + 1.0))
        buf = buf * 0.5 + np.cos(buf)
    return np.sum(buf)


def scatter_index_written_after(x, idx):
    buf = np.zeros(4)
    np.add.at(buf, idx, x)
    idx[0] = 3  # (the index written after the scatter: the generic path keeps the positions scattered into)
    return np.sum(buf ** 2) + np.sum(buf[idx] * x)


def _scatter_into(buf, idx, v):
    if v.size > 1000:  # (a branch: called, not put in line)
        return None
    np.add.at(buf, idx, v)
    return None


def scatter_through_callee(x, idx, c):
    # (the callee writes its parameter: its pullback starts from the caller's adjoint of buf after the call)
    buf = np.ones(4) * c
    _scatter_into(buf, idx, x * x)
    s = np.sum(np.sin(buf))
    _scatter_into(buf, idx[::-1], x)
    return np.sum(buf ** 3) * s


def scatter_into_parameter(buf, idx, v):
    np.add.at(buf, idx, v)
    return np.sum(buf ** 2)


_rng = np.random.default_rng(1009)
_SCATTER_CASES = [
    (scatter_sum_squares, (_rng.normal(size=5), np.array([0, 2, 2, 3, 0]))),
    (scatter_sum_squares, (_rng.normal(size=1), np.array([1]))),
    (scatter_sum_squares, (np.array([]), np.array([], dtype=int))),
    (scatter_sum_squares, (np.array([0.7]), np.array([1, 1, 3]))),  # (x broadcast over repeated positions)
    (scatter_sum_squares, (_rng.normal(size=3).astype(np.float32), np.array([3, 0, 3]))),
    (scatter_sum_squares, (0.8, np.array([2, 2]))),
    (scatter_rows, (_rng.normal(size=(4, 2)), np.array([0, 2, 0, 1]), 1.3)),
    (scatter_rows, (_rng.normal(size=(2, 3)), np.array([2, 2]), _rng.normal(size=(1, 3)))),
    (scatter_read_between, (_rng.normal(size=3), np.array([1, 3, 1]), 0.4)),
    (scatter_scalar_and_slices, (_rng.normal(size=4), 0.6, np.array([5, 0, 5]))),
    (scatter_in_loop, (_rng.normal(size=3), np.array([0, 3, 3]), 3)),
    (scatter_in_loop, (_rng.normal(size=3), np.array([0, 3, 3]), 0)),
    (scatter_through_callee, (_rng.normal(size=3), np.array([0, 2, 2]), 0.7)),
    (scatter_into_parameter, (_rng.normal(size=4), np.array([0, 2, 2]), _rng.normal(size=3))),
    (scatter_into_parameter, (_rng.normal(size=(3, 2)), np.array([1, 1]), _rng.normal(size=2))),
]


@pytest.mark.parametrize("f,args", _SCATTER_CASES, ids=lambda c: getattr(c, "__name__", None))
def test_scatter_both_modes(f, args):
    f32 = any(getattr(a, "dtype", None) == np.float32 for a in args)
    mc.testing.check_derivatives(f, *args, rtol=1e-3 if f32 else 1e-5, atol=1e-4 if f32 else 1e-6)


def test_scatter_index_written_after():
    mc.testing.check_derivatives(scatter_index_written_after, _rng.normal(size=3), np.array([0, 2, 2]))


@pytest.mark.parametrize("f,args", [_SCATTER_CASES[0], _SCATTER_CASES[3], _SCATTER_CASES[6], _SCATTER_CASES[8]],
                         ids=lambda c: getattr(c, "__name__", None))
def test_scatter_pullback_plain(f, args):
    helpers = _helpers(f, args)
    assert not {"getitem_reverse", "acc", "take", "getattr_reverse", "item_of"} & set(helpers), helpers


# ---------------------------------------------------------------- real containers need no complex check

def list_to_array(xs):
    a = np.array(xs)
    return float(np.sum(a ** 3) - np.prod(a))


def tuple_to_array(values, c):
    return np.sum(np.exp(np.asarray(values)) * c)


def list_made_complex(xs):
    xs[0] = xs[0] * 1j  # (the list is no longer one of floats: its type is dropped, the generic path decides)
    return np.sum(np.abs(np.array(xs)) ** 2)


@pytest.mark.parametrize("f,args", [(list_to_array, ([0.5, -1.2, 1.3, 0.8],)), (list_to_array, ([0.3],)),
                                    (tuple_to_array, ((0.5, -1.2, 1.3), 0.7)), (tuple_to_array, ((0.2,), 2.0))],
                         ids=lambda c: getattr(c, "__name__", None))
def test_real_containers_both_modes(f, args):
    mc.testing.check_derivatives(f, *args)
    if f is list_to_array:  # (a list of floats only read: typed_lists.py keeps its type)
        assert "refuse_complex_rule" not in _helpers(f, args)


def test_list_made_complex_stays_checked():
    xs = [0.5, -1.2, 1.3]
    try:
        g = mc.grad(list_made_complex)(list(xs))
    except mc.MooncakeError:
        return  # (an honest refusal is right too)
    # |x0 * 1j|^2 + x1^2 + x2^2: the gradient is 2 x
    assert np.allclose(np.real(np.array(g, dtype=complex)), 2 * np.array(xs))


# ---------------------------------------------------------------- the corpus functions these patterns made plain

def _corpus_refs(name: str) -> tuple:
    from tests.corpus import all_cases

    case = next(c for c in all_cases() if c.name == name)
    _vjp(case.fn, case.args(), case.kwargs())
    return pullback_counts(mc.source(case.fn, "reverse"))


@pytest.mark.parametrize("name,most", [("mutation.fancy_index_add", 1), ("closures_classes.varargs_sum", 4)])
def test_corpus_figures(name, most):
    # (scripts/helper_refs.py: fancy_index_add had 20 run-time helper references, varargs_sum 9)
    refs, stmts = _corpus_refs(name)
    assert refs <= most and stmts > 0, (refs, stmts)


# ---------------------------------------------------------------- constant arguments and sets of their ints

def set_powers(x, ks):
    exps = {k % 4 for k in ks}
    return sum(x ** e for e in sorted(exps))


def gather_pairs(x, pairs):
    idx = sorted({i for pair in pairs for i in pair})
    return np.sum(x[idx] ** 2) + len(idx) * x[idx[0]]


def gather_sorted_list(x, ks):
    idx = sorted(ks)
    return np.sum(np.sin(x[idx]) * x[idx]) + x[ks[-1]]


def gather_rows(W, ks):
    return np.sum(np.tanh(W[sorted(set(ks))]) ** 2) if ks else 0.0


def set_membership(x, ks):
    seen = {k for k in ks if k > 0}
    out = 0.0
    for j in range(4):
        if j in seen:
            out = out + x ** j
    return out + len(seen) * x


def constant_list_written(x, ks):
    ks.append(2)  # (written: the list loses its type, the generic path keeps it right)
    return sum(x * k for k in ks)


def leaky_constant(x, ks):
    def put(v):
        ks[0] = v  # (a closure writes what may be the constant argument: it is neither constant nor typed then)
    put(x * 2.0)
    return sum(k * x for k in ks)


_CONST_CASES = [
    (set_powers, (1.3, [1, 5, 2, 6, 3])),
    (set_powers, (0.7, [])),
    (set_powers, (-0.4, [4, 8])),  # (only the exponent 0)
    (gather_pairs, (_rng.normal(size=6), [(0, 2), (2, 5), (5, 0)])),
    (gather_pairs, (_rng.normal(size=4), [(3, 3)])),
    (gather_pairs, (_rng.normal(size=(5, 2)), [(0, -1), (1, 4)])),  # (rows, a negative index)
    (gather_sorted_list, (_rng.normal(size=5), [4, 0, 4, -2])),  # (repeats)
    (gather_sorted_list, (_rng.normal(size=3).astype(np.float32), [2, 1])),
    (gather_rows, (_rng.normal(size=(4, 3)), [3, 1, 3])),
    (gather_rows, (_rng.normal(size=(4, 3)), [])),
    (set_membership, (0.9, [1, 3, -2, 3])),
    (constant_list_written, (0.5, [1, 2])),
    (leaky_constant, (1.5, [1, 2, 3])),
]


@pytest.mark.parametrize("f,args", _CONST_CASES, ids=lambda c: getattr(c, "__name__", None))
def test_constant_args_both_modes(f, args):
    f32 = any(getattr(a, "dtype", None) == np.float32 for a in args)
    mc.testing.check_derivatives(f, *args, rtol=1e-3 if f32 else 1e-5, atol=1e-4 if f32 else 1e-6)


def test_constant_args_values():
    x = 1.5
    assert mc.grad(leaky_constant)(x, [1, 2, 3]) == pytest.approx(4 * x + 5)
    assert mc.grad(set_powers)(1.3, [1, 5, 2, 6, 3]) == pytest.approx(sum(e * 1.3 ** (e - 1) for e in (1, 2, 3)))


@pytest.mark.parametrize("f,args,most", [(set_powers, (1.3, [1, 5, 2, 6, 3]), 4),
                                         (gather_pairs, (_rng.normal(size=6), [(0, 2), (2, 5), (5, 0)]), 2),
                                         (gather_sorted_list, (_rng.normal(size=5), [4, 0, 4, -2]), 5)],
                         ids=lambda c: getattr(c, "__name__", None))
def test_constant_args_plain(f, args, most):
    # (the constant argument's adjoint still goes back through `take`: two references; the strong zero of x ** e)
    helpers = _helpers(f, args)
    assert len(helpers) <= most and not {"getitem_reverse", "acc", "sum_items_adjoint"} & set(helpers), helpers
