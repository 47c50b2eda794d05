"""`match`, `with`, `global` writes and `raise ... from` (issue 12), in both modes.

Each construct is checked by `check_derivatives` on families of inputs (every case taken, in
loops, with return/break/continue inside), its run-time behaviour against the plain call
(which case ran, the managers' enter/exit order, the exception raised), and what is refused
names the user's line.
"""
import collections
import contextlib
import inspect
import os

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.errors import UnsupportedDerivativeError
from mooncake_ast.testing import check_derivatives


def both_modes_value(f, *args):
    """f's value as the derivative code computes it, in each mode (the first argument is the float)."""
    rev = mc.value_and_grad(f)(*args)[0]
    fwd = mc.jvp(f, args, (1.0,) + (None,) * (len(args) - 1))[0]
    return rev, fwd


# ---------------------------------------------------------------- match


class Point:
    def __init__(self, x, y):
        self.x = x
        self.y = y


def classify(x, k):
    match k:
        case 0 | 1:
            return x * 2.0
        case [a, b] if a > 0:
            return x * a + b
        case [a, *rest]:
            return x * a * (len(rest) + 1)
        case {"w": w, "tag": "lin"}:
            return x * w
        case {"w": [p, q]}:
            return x * p - q * x ** 2
        case Point(x=px, y="t") as pt:
            return px * x + pt.x
        case Point(y=py):
            return np.sin(x) * py
        case float(z) | int(z) if z > 10:
            return z * x ** 2
        case float(z):
            return z * x
        case None:
            return x ** 3
        case "text":
            return -x
        case _:
            return x


SUBJECTS = [0, 1, True, [2.0, 3.0], [-2.0, 3.0], (1.5, 2, 3), [4.0], {"w": 3.0, "tag": "lin"},
            {"w": [1.5, 2.5]}, collections.OrderedDict(w=2.0, tag="lin"), Point(2.0, "t"), Point(1.0, 0.5),
            12.5, 20, 3.5, None, "text", "ab", np.float64(3.5), (), {"v": 1.0}]


@pytest.mark.parametrize("k", SUBJECTS, ids=[repr(s)[:20] for s in SUBJECTS])
def test_match_cases_both_modes(k):
    plain = classify(1.3, k)
    for v in both_modes_value(classify, 1.3, k):
        assert v == plain
    check_derivatives(classify, 1.3, k)


def test_match_sequence_patterns_follow_cpython():
    def f(x, s):
        match s:
            case [p, q]:
                return x * 2.0
            case (p,):
                return x * 3.0
            case _:
                return x * 4.0

    # strings and ndarrays are not sequences to `match`; lists and tuples of the length are
    for s, want in [("ab", 4.0), (b"ab", 4.0), (np.array([1.0, 2.0]), 4.0), ([1, 2], 2.0), ((1, 2), 2.0),
                    ([1], 3.0), (range(2), 2.0), (collections.deque([1, 2]), 2.0), ({1: 2, 3: 4}, 4.0)]:
        assert f(1.0, s) == want
        assert mc.grad(f)(1.0, s) == want
        assert mc.jvp(f, (1.0, s), (1.0, None)) == (want, want)


def test_match_literals_use_eq_and_singletons_use_is():
    def f(x, s):
        match s:
            case True:
                return x * 5.0
            case 1:
                return x * 2.0
            case -1.5:
                return x * 3.0
            case None:
                return x * 7.0
            case _:
                return x

    for s in (True, 1, 1.0, np.float64(1.0), -1.5, None, False, 0, 2):
        assert mc.grad(f)(1.0, s) == f(1.0, s)
        assert mc.jvp(f, (1.0, s), (1.0, None))[1] == f(1.0, s)


def test_match_guard_sees_bindings_and_capture_binds():
    def f(x, pair):
        match pair:
            case (a, b) if a * x > b:
                c = a * x - b
            case (a, b):
                c = b * x
        return c * a

    for pair in [(2.0, 1.0), (0.5, 3.0), (-1.0, -5.0), (1.0, 1.3)]:
        check_derivatives(f, 1.25, pair)


def test_match_in_loop_with_break_continue_return():
    def f(x, codes):
        acc = 0.0
        for i, c in enumerate(codes):
            match c:
                case "skip":
                    continue
                case "stop":
                    break
                case ("ret", scale):
                    return acc * scale
                case ("add", w) | ("plus", w):
                    acc = acc + w * x ** 2
                case _:
                    acc = acc * x
        return acc

    programs = [["skip", ("add", 2.0), "x", "stop", ("add", 9.0)], [("plus", 1.5), ("add", 0.5), "x"],
                [("add", 1.0), ("ret", 3.0), ("add", 4.0)], ["skip", "skip"], [("add", -2.0), "x", "x"]]
    for codes in programs:
        check_derivatives(f, 0.7, codes)


def test_match_arrays_and_mapping_subjects():
    def f(a, cfg):
        match cfg:
            case {"kind": "scale", "by": s}:
                return np.sum(a * s)
            case {"kind": "norm"}:
                return np.sqrt(np.sum(a ** 2))
            case {"kind": "pair", "w": (u, v)}:
                return np.sum(a[:2] * np.array([u, v]))
        return np.sum(np.sin(a))

    a = np.array([0.3, -1.2, 2.0])
    for cfg in [{"kind": "scale", "by": 2.5}, {"kind": "norm", "extra": 1}, {"kind": "pair", "w": (1.5, -0.5)},
                {"kind": "scale"}, {}, collections.defaultdict(float, kind="norm")]:
        check_derivatives(f, a, cfg)


# refusals: file:line of the pattern and what to write instead

def uses_mapping_rest(x, d):
    match d:
        case {"a": a, **rest}:
            return x * a
    return x


def uses_positional_class(x, p):
    match p:
        case Point(a, b):
            return x * a
    return x


@pytest.mark.parametrize("fn,what,line_text", [
    (uses_mapping_rest, "**rest", 'case {"a": a, **rest}:'),
    (uses_positional_class, "keywords", "case Point(a, b):"),
])
def test_match_refusals_name_the_line(fn, what, line_text):
    for call in (lambda: mc.grad(fn)(1.0, {}), lambda: mc.jvp(fn, (1.0, {}), (1.0, None))):
        with pytest.raises(mc.UnsupportedSyntaxError) as info:
            call()
        err = info.value
        assert what in str(err)
        src, first = inspect.getsourcelines(fn)
        assert err.file == __file__
        assert err.line == first + next(i for i, l in enumerate(src) if line_text in l)


# ---------------------------------------------------------------- with

LOG = []


class Scale:
    """A manager written in Python, holding a differentiable value: differentiated like any method."""

    def __init__(self, k):
        self.k = k

    def __enter__(self):
        LOG.append("enter")
        return self

    def __exit__(self, exc_type, exc, tb):
        LOG.append("exit" if exc_type is None else "exit-error")
        return False


def with_loop(x, n, stop):
    s = 0.0
    for i in range(n):
        with Scale(x * 2.0) as sc, np.errstate(divide="ignore"):
            if i == stop:
                break
            if i == 1:
                continue
            s = s + sc.k * x + np.log(abs(x) + i)
            if s > 40.0:
                return s
    return s


@pytest.mark.parametrize("x,n,stop", [(1.5, 5, 3), (1.5, 5, 99), (30.0, 5, 99), (0.4, 0, 0), (-0.8, 4, 0)])
def test_with_exits_on_every_way_out(x, n, stop):
    LOG.clear()
    plain = with_loop(x, n, stop)
    plain_log = list(LOG)
    for run in (lambda: mc.value_and_grad(with_loop)(x, n, stop)[0], lambda: mc.jvp(with_loop, (x, n, stop), (1.0, None, None))[0]):
        LOG.clear()
        assert run() == plain
        assert LOG == plain_log  # same enters and exits, in order, once each
    check_derivatives(with_loop, x, n, stop)


SEEN = []


def errstate_fn(a):
    with np.errstate(divide="ignore", invalid="ignore"):
        SEEN.append(np.geterr()["divide"])
        y = np.sin(a) / a
    return np.sum(y)


def test_with_errstate_is_in_force_and_restored():
    f, seen = errstate_fn, SEEN
    seen.clear()

    before = np.geterr()
    a = np.array([0.5, 1.0, -2.0])
    mc.grad(f)(a)
    mc.jvp(f, (a,), (np.ones(3),))
    assert seen == ["ignore", "ignore"] and np.geterr() == before
    check_derivatives(f, a)


@contextlib.contextmanager
def tagged(name):
    yield name


def test_with_library_managers_and_nesting():
    def f(x, y):
        with tagged("ab") as t, open(os.devnull) as fh:
            z = x * len(t) + y
            with contextlib.nullcontext():
                if z > 100:
                    return z
                z = z * y
        fh.closed  # noqa: B018 (read after the with: the file was closed)
        return z + x

    for args in [(1.5, 0.5), (60.0, 2.0), (-1.0, 3.0)]:
        check_derivatives(f, *args)


def test_with_suppress_and_nullcontext_are_lowered():
    def suppressing(x):
        y = x
        with contextlib.suppress(ValueError):
            y = x * 2.0
        return y

    def differentiable_enter_value(x):
        with contextlib.nullcontext(x * 2.0) as v:
            return v * x

    for f in (suppressing, differentiable_enter_value):
        check_derivatives(f, 1.0)


@contextlib.contextmanager
def _giving(v):
    yield v * 2.0


def test_with_refuses_what_it_cannot_honour():
    def suppress_by_name(x):
        m = contextlib.suppress(ValueError)
        with m:
            y = x * 2.0
        return y

    def differentiable_enter_value(x):
        with _giving(x) as v:
            return v * x

    for f in (suppress_by_name, differentiable_enter_value):
        with pytest.raises(UnsupportedDerivativeError, match="test_language_match_with.py:"):
            mc.grad(f)(1.0)
        with pytest.raises(UnsupportedDerivativeError):
            mc.jvp(f, (1.0,), (1.0,))


class Swallow:
    def __enter__(self):
        return None

    def __exit__(self, exc_type, exc, tb):
        LOG.append("exit" if exc_type is None else "exit-error")
        return exc_type is KeyError


def test_with_raise_in_body_runs_exit_and_refuses_swallowing():
    def f(x, bad):
        with Scale(x) as sc:
            if bad:
                raise ValueError("bad")
            return sc.k * x

    for run in (lambda: mc.grad(f)(1.0, True), lambda: mc.jvp(f, (1.0, True), (1.0, None))):
        LOG.clear()
        with pytest.raises(ValueError, match="bad"):
            run()
        assert LOG == ["enter", "exit-error"]
    check_derivatives(f, 1.2, False)

    def g(x):
        with Swallow():
            raise KeyError("k")
        return x

    with pytest.raises(UnsupportedDerivativeError, match="swallowed"):
        mc.grad(g)(1.0)


# ---------------------------------------------------------------- global writes, raise from

CALLS = 0
FLAG = None


def counted(x):
    global CALLS, FLAG
    CALLS += 1
    FLAG = "seen"
    return x * CALLS + x ** 2


def test_global_writes_of_non_differentiable_values():
    global CALLS
    CALLS = 0
    assert mc.grad(counted)(2.0) == 1 + 4.0 and CALLS == 1 and FLAG == "seen"
    assert mc.jvp(counted, (2.0,), (1.0,)) == (2.0 * 2 + 4.0, 2 + 4.0) and CALLS == 2


SCALE = 1.0


def writes_float_global(x):
    global SCALE
    SCALE = x * 2.0
    return x * SCALE


def test_global_write_of_a_differentiable_value_read_back():
    # (refused before issue 12's sixth pass; the written value now carries its derivative: tests/test_global_writes.py)
    assert mc.grad(writes_float_global)(1.5) == pytest.approx(6.0) and SCALE == 3.0
    assert mc.jvp(writes_float_global, (1.5,), (1.0,))[1] == pytest.approx(6.0)


def raises_from(x, mode):
    if mode == 1:
        raise KeyError("k") from ValueError("v")
    if mode == 2:
        raise ValueError from None
    return x * 3.0


@pytest.mark.parametrize("mode", [1, 2])
def test_raise_from_sets_the_cause(mode):
    with pytest.raises(Exception) as plain:
        raises_from(1.0, mode)
    for run in (lambda: mc.grad(raises_from)(1.0, mode), lambda: mc.jvp(raises_from, (1.0, mode), (1.0, None))):
        with pytest.raises(type(plain.value)) as info:
            run()
        assert repr(info.value.__cause__) == repr(plain.value.__cause__)
        assert info.value.__suppress_context__
    check_derivatives(raises_from, 1.0, 0)


def test_match_failed_guard_leaves_an_existing_name_rebound_as_cpython_does():
    def f(x, pair):
        a = x * 0.5
        match pair:
            case (a, b) if a > 10.0:
                r = a * b
            case (_, b):
                r = b * x
        return a * x + r

    for pair in [(2.0, 1.5), (12.0, 0.5), (-3.0, 2.0)]:
        assert mc.value_and_grad(f)(1.5, pair)[0] == f(1.5, pair)
        check_derivatives(f, 1.5, pair)
