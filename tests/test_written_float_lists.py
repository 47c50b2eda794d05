"""List parameters of floats the function writes items of (`xs[i] = v`): a plain `xs_bar` list in the pullback.

reverse/typed_lists.py keeps a list of floats typed while every write puts a float in by an int index; the
pullback undoes each write like an array buffer's (`xs[i] = old; v_bar = xs_bar[i]; xs_bar[i] = 0.0`) and starts
from the adjoint the caller keeps for the list after the call (shadows.claim_floats).  Each family is checked in
both modes by finite differences, with callers that read the list after the call (their adjoint must go through
the writes), and the pullbacks are checked to be plain.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import mooncake_ast as mc


def sgd_step(xs, lr):
    for i in range(len(xs)):
        grad = 2.0 * xs[i] - 1.0
        xs[i] = xs[i] - lr * grad
    return sum(v * v for v in xs)


def prefix_sums(xs, s):
    for i in range(1, len(xs)):
        xs[i] = xs[i] + s * xs[i - 1]
    return xs[-1] * xs[0] + xs[len(xs) // 2]


def scale_by_items(xs, s):
    for k, v in enumerate(xs):
        xs[k] = v * s + math.sin(v)
    return max(xs) + math.fsum(xs) * 0.5


def branchy_writes(xs, t):
    total = 0.0
    for i in range(len(xs)):
        if xs[i] > t:
            xs[i] = 0.0  # (a constant: the slot's old value gets nothing after this)
        else:
            xs[-1 - i] = xs[i] * t
        total = total + xs[i] * xs[i]
    return total + xs[0]


def int_written(xs, t):
    xs[0] = 3  # (an int: the list is not of floats any more, so the generic path keeps it right)
    return sum(v * t for v in xs)


def caller_reads_after(xs, lr):
    a = sgd_step(xs, lr)
    b = prefix_sums(xs, lr)
    return a + b * xs[0] + sum(xs) * 3.0


def caller_of_branchy(xs, t):
    a = branchy_writes(xs, t)
    return a * xs[1] + xs[-1]


def append_iterates(history, x):
    y = x
    for _ in range(4):
        y = math.cos(y)
        history.append(y)
    return sum(h * (i + 1) for i, h in enumerate(history))


def append_mixed(xs, s):
    xs.append(1.0)  # (a constant: its slot is popped all the same, so the others stay aligned)
    for i in range(len(xs) - 1):
        xs.append(xs[i] * s)
    xs[0] = xs[-1] * xs[1]
    return sum(xs) + xs[-2] * xs[0]


def constant_written(xs, s):
    a = xs[0] * s
    xs[0] = 0.5  # (a constant: the slot's old value gets nothing from the reads after it)
    return a + xs[0] * 3.0 + xs[1]


def constant_appended(xs, s):
    xs.append(2.0)
    a = xs[0] * s
    xs.append(a)
    return xs[-1] + xs[-2] * xs[1]


def append_then_int(xs, s):
    xs.append(2)  # (an int: not a list of floats any more, the generic path)
    return sum(v * s for v in xs)


_STEPS = {"sgd": sgd_step, "prefix": prefix_sums, "branchy": branchy_writes, "append": append_mixed,
          "iterates": append_iterates}


def dispatched_callers(xs, lr):
    # (called through a dict, so not put in line: each callee's own pullback claims the caller's adjoint of xs)
    a = _STEPS["sgd"](xs, lr)
    b = _STEPS["prefix"](xs, lr)
    c = _STEPS["branchy"](xs, lr)
    d = _STEPS["append"](xs, lr)
    e = _STEPS["iterates"](xs, lr)
    return a + b * xs[0] + sum(xs) * 3.0 + c * xs[-1] + d * xs[2] + e


def appends_around_a_call(xs, s):
    # (the caller's own appends, undone generically around the callee's: their slots must stay where they are)
    xs.append(s * 2.0)
    d = _STEPS["iterates"](xs, s)
    xs.append(d * xs[0])
    e = _STEPS["append"](xs, s)
    return xs[-1] * xs[3] + sum(xs) + e * xs[len(xs) // 2]


def appends_in_line(xs, s):
    a = append_mixed(xs, s)
    return a * xs[-1] + len(xs) * xs[0]


_FAMILIES = [sgd_step, prefix_sums, scale_by_items, branchy_writes, int_written, caller_reads_after, caller_of_branchy,
             dispatched_callers, append_iterates, append_mixed, append_then_int, appends_in_line,
             appends_around_a_call, constant_written, constant_appended]
_LISTS = [[0.7, -1.3, 2.1], [0.25, 0.5, -0.75, 1.5, -2.0], [1.1, 0.4]]


@pytest.mark.parametrize("xs", _LISTS, ids=["n3", "n5", "n2"])
@pytest.mark.parametrize("fn", _FAMILIES, ids=[f.__name__ for f in _FAMILIES])
@pytest.mark.parametrize("scalar", [0.3, -0.45])
def test_both_modes(fn, xs, scalar):
    mc.testing.check_derivatives(fn, list(xs), scalar)


def test_pullback_is_plain():
    mc.grad(sgd_step)([0.7, -1.3, 2.1], 0.3)
    src = mc.source(sgd_step, "reverse")
    pullback = src[src.index("def sgd_step__pullback"):src.index("def sgd_step__forward_tape")] \
        if "def sgd_step__forward_tape" in src else src[src.index("def sgd_step__pullback"):]
    assert "xs_bar = _mc.claim_floats(xs)" in pullback and "_mc.give_back(xs, xs_bar)" in pullback
    assert pullback.count("_mc.") == 2, pullback  # (the caller's adjoint taken and handed back; the rest plain)
    assert "xs_bar[i] = 0.0" in pullback


def test_appends_are_plain():
    mc.grad(append_iterates)([0.5, 0.25], 0.9)
    src = mc.source(append_iterates, "reverse")
    start = src.index("def append_iterates__pullback")
    end = src.find("def append_iterates__forward_tape")
    pullback = src[start:end if end > 0 else None]
    # (the caller's adjoint taken and handed back; each append undone with its storage slot, where there is one)
    assert pullback.count("_mc.") == 3 and "_mc.pop_float_slot(history)" in pullback, pullback
    xs = [0.5, 0.25]
    mc.grad(append_iterates)(xs, 0.9)
    assert len(xs) == 6  # (the caller's list as the plain call leaves it)


LOG = []


def note_unless_large(log, x):
    if x > 100.0:
        return
    log.append(x)


def logs_to_module_list(x, y):
    # (random program 58000000061: a module-level list the callees append to, returned; the caller keeps its
    # adjoint in storage and drops the callees' returned values for it, so they must hand it back there)
    LOG.clear()
    note_unless_large(LOG, x)
    note_unless_large(LOG, x * y)
    logged = LOG
    return logged


@pytest.mark.parametrize("seed", [(1.0, 10.0), (-2.5, 0.5)])
def test_module_level_list_written_by_callees(seed):
    out, pullback = mc.vjp(logs_to_module_list, -0.149, 0.6)
    assert out == [-0.149, -0.149 * 0.6]
    gx, gy = pullback(list(seed))
    assert np.isclose(gx, seed[0] + 0.6 * seed[1]) and np.isclose(gy, -0.149 * seed[1])


def test_gradient_values():
    xs, lr = [0.7, -1.3, 2.1], 0.3
    g_xs, g_lr = mc.grad(sgd_step, argnums=(0, 1))(list(xs), lr)
    # by hand: x' = x - lr (2x - 1) = (1 - 2 lr) x + lr; f = sum x'^2
    new = [(1 - 2 * lr) * x + lr for x in xs]
    assert np.allclose(g_xs, [2 * n * (1 - 2 * lr) for n in new])
    assert np.isclose(g_lr, sum(2 * n * (1 - 2 * x) for n, x in zip(new, xs)))
