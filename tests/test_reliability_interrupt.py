"""Ctrl-C half way through a pullback (issue 14, item 8).

The pullback undoes the forward pass's writes as it walks back; interrupted part way, it
used to leave the caller's lists and arrays half restored (neither as on entry nor as the
plain call leaves them).  Now they are left exactly as the plain call leaves them.  The
interrupt is a KeyboardInterrupt raised from a hand-written rule's pullback, at every
step of the walk back in turn.
"""
import copy

import numpy as np
import pytest

import mooncake_ast as mc

_STOP = {"at": None, "calls": 0}


def scale(v):
    return 2.0 * v


def _scale_rule(v):
    def pullback(g):
        _STOP["calls"] += 1
        if _STOP["at"] is not None and _STOP["calls"] >= _STOP["at"]:
            raise KeyboardInterrupt
        return (2.0 * g,)

    return 2.0 * v, pullback


@pytest.fixture(scope="module", autouse=True)
def _registered():
    """Registered while these tests run only (later tests print the rule list and compare it)."""
    mc.rrule(scale)(_scale_rule)
    yield
    _unregister(scale)


def _unregister(fn):
    """Take the test's rule out again: later tests list the registry (`mooncake-ast rules`, docs/rules.md)."""
    from mooncake_ast.rules import registry

    registry._RULES.pop(fn, None)
    registry.bump_version()


def grow(lst, x):
    """Appends to the caller's list: the pullback pops what it appended."""
    s = 0.0
    for i in range(6):
        y = scale(x) * (i + 1)
        lst.append(y)
        s = s + y * y
    return s


def smooth(a):
    """Overwrites the caller's array in place: the pullback puts old values back."""
    for i in range(1, a.shape[0]):
        a[i] = 0.5 * a[i] + scale(a[i - 1])
    return np.sum(a * a)


def _interrupted(call, stop_at):
    _STOP["at"], _STOP["calls"] = stop_at, 0
    try:
        with pytest.raises(KeyboardInterrupt):
            call()
    finally:
        _STOP["at"] = None


@pytest.mark.parametrize("stop_at", [1, 2, 3, 4, 5, 6])
def test_list_is_left_as_the_plain_call_leaves_it(stop_at):
    plain = [1.0]
    grow(plain, 0.7)
    lst = [1.0]
    _interrupted(lambda: mc.grad(grow, argnums=1)(lst, 0.7), stop_at)
    assert lst == plain
    lst2 = [1.0]
    _, vjp_fn = mc.vjp(grow, lst2, 0.7)
    _interrupted(lambda: vjp_fn(1.0), stop_at)
    assert lst2 == plain


@pytest.mark.parametrize("stop_at", [1, 3, 5, 7])
def test_array_is_left_as_the_plain_call_leaves_it(stop_at):
    start = np.linspace(0.1, 0.9, 8)
    plain = start.copy()
    smooth(plain)
    a = start.copy()
    _interrupted(lambda: mc.grad(smooth)(a), stop_at)
    np.testing.assert_array_equal(a, plain)
    b = start.copy()
    _, vjp_fn = mc.vjp(smooth, b)
    _interrupted(lambda: vjp_fn(1.0), stop_at)
    np.testing.assert_array_equal(b, plain)


def test_after_an_interrupt_the_next_gradient_is_right():
    """Nothing of the interrupted call lingers: the next call's gradient equals a fresh one's."""
    start = np.linspace(0.1, 0.9, 8)
    want = mc.grad(smooth)(start.copy())
    _interrupted(lambda: mc.grad(smooth)(start.copy()), 3)
    np.testing.assert_allclose(mc.grad(smooth)(start.copy()), want)
    h = 1e-6
    e = np.zeros(8)
    e[2] = h
    fd = (smooth(start + e) - smooth(start - e)) / (2 * h)
    np.testing.assert_allclose(want[2], fd, rtol=1e-6)
    lst = [1.0]
    g = mc.grad(grow, argnums=1)(copy.copy(lst), 0.7)
    fd = (grow([1.0], 0.7 + h) - grow([1.0], 0.7 - h)) / (2 * h)
    assert g == pytest.approx(fd, rel=1e-6)
