"""The short call paths keep what they decided for a call (api_fast._Decision, _JvpDecision) and reuse it for the
next call like it: these tests change, between calls of one `mc.grad(f)` / `mc.value_and_grad(f)` / `mc.jvp(f, ...)`
(and of a new one made per call), whatever the decision was made from -- argument types, dtypes, ranks, size-one
axes, complex values, ndarray subclasses, containers and objects, memory sharing, argnums, the function's code,
defaults and globals, registered rules -- and compare every answer with the general path's (the short paths turned
off), which decides everything afresh.  A decision reused when it should not be is a wrong gradient."""
from __future__ import annotations

import dataclasses
import gc
import weakref

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast import api_fast
from mooncake_ast.reverse import fastpath

# ---------------------------------------------------------------- functions differentiated


def square_sum(x):
    return np.sum(x * x) if isinstance(x, np.ndarray) else x * x


def abs_square(x):
    return np.sum(np.abs(x) ** 2)


WEIGHTS = np.array([1.0, 2.0, 3.0])


def weighted(x):
    return np.sum(x * WEIGHTS)  # (x of shape (1,) broadcasts: its gradient is the sum of WEIGHTS)


def outer_sum(x, y):
    return np.sum(x[:, None] * y[None, :] * x[:, None])


def two(x, y):
    return x * x * y + 3.0 * y


def scaled(x, s=2.0):
    return s * np.sum(x * x) if isinstance(x, np.ndarray) else s * x * x


def pair_product(v):
    return v[0] * v[1]


@dataclasses.dataclass
class Point:
    a: float
    b: float


def point_product(p):
    return p.a * p.b * p.b


def helper(x):
    return x * x


def calls_helper(x):
    return helper(x) + x


def cubed(x):
    return x * x * x


def alternative(x):
    return 5.0 * x


class Sub(np.ndarray):
    pass


def flat_write(x, a):
    b = np.ones(3) * x
    b.flat[1] = a[0] * a[2]
    return np.sum(b * b)


def view_write(x, a):
    b = np.ones(3) * x
    v = b[1:]
    v *= a[0]
    return np.sum(b * b)


# ---------------------------------------------------------------- the oracle


def general(call):
    """call() with the short paths turned off: everything decided afresh by the general path."""
    fast_grad, fast_jvp = api_fast.grad_fast, api_fast.jvp_fast
    api_fast.grad_fast = lambda vg, args: None
    api_fast.jvp_fast = lambda f, primals, tangents: None
    try:
        return call()
    finally:
        api_fast.grad_fast, api_fast.jvp_fast = fast_grad, fast_jvp


def same(a, b) -> None:
    assert type(a) is type(b), (a, b)
    if isinstance(a, np.ndarray):
        assert a.shape == b.shape and a.dtype == b.dtype, (a, b)
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=0)
    elif isinstance(a, (tuple, list)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            same(x, y)
    elif isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            same(a[k], b[k])
    elif isinstance(a, mc.Tangent):
        same(a.fields, b.fields)
    elif isinstance(a, (float, complex, np.floating, np.complexfloating)):
        assert a == pytest.approx(b, rel=1e-12, abs=0), (a, b)
    else:
        assert a == b or a is b, (a, b)


def agree(ours, call) -> None:
    """ours() gives what call() gives on the general path, or raises the same kind of error."""
    try:
        expected = general(call)
    except Exception as e:
        with pytest.raises(type(e)):
            ours()
        return
    same(ours(), expected)


def args_sequence():
    """Arguments of one function of one parameter, in an order where each changes what a decision holds."""
    return [
        (1.5,), (np.array([1.0, 2.0]),), (np.array([1.0, 2.0], dtype=np.float32),), (2.5,),
        (np.array([[1.0, -2.0], [0.5, 4.0]]),), (np.array(3.0),), (np.array([1.0, 2.0]),), ([1.0, 2.0],),
        (np.array([1.0 + 2.0j, -0.5j]),), (np.array([1.0, 2.0]).view(Sub),), (np.arange(6.0)[::2],),
        (3,), (np.array([1.0, 2.0]),), (True,), (1.5,),
    ]


def list_square(x):
    return x[0] * x[0] + x[1] * x[1] if isinstance(x, list) else square_sum(x)


# ---------------------------------------------------------------- grad and value_and_grad


@pytest.mark.parametrize("make", [mc.grad, mc.value_and_grad], ids=["grad", "value_and_grad"])
@pytest.mark.parametrize("held", [True, False], ids=["held", "new_per_call"])
def test_one_callable_many_argument_kinds(make, held):
    g = make(list_square)
    for args in args_sequence():
        agree(lambda: (g if held else make(list_square))(*args), lambda: make(list_square)(*args))


@pytest.mark.parametrize("make", [mc.grad, mc.value_and_grad], ids=["grad", "value_and_grad"])
def test_complex_then_real_then_complex(make):
    g = make(abs_square)
    for x in (np.array([1.0, -2.0]), np.array([1.0 + 2.0j, 3.0 - 1.0j]), np.array([0.5, 0.25]),
              np.array([1.0 + 2.0j, 3.0 - 1.0j], dtype=np.complex64), np.array([2.0, 1.0], dtype=np.float32)):
        same(g(x), general(lambda: make(abs_square)(x)))


@pytest.mark.parametrize("make", [mc.grad, mc.value_and_grad], ids=["grad", "value_and_grad"])
def test_size_one_axes_and_ranks(make):
    """The same rank with another size-one axis broadcasts otherwise: another kind, another rule."""
    g = make(weighted)
    for x in (np.array([1.0, 2.0, 3.0]), np.array([2.0]), np.array([1.0, 1.0, 1.0]), np.array([[1.0], [2.0], [0.5]]),
              np.array([[1.0, 2.0, 3.0]]), np.array([[4.0]]), np.array(2.0), np.array([2.0])):
        same(g(x), general(lambda: make(weighted)(x)))
    if make is mc.grad:
        np.testing.assert_allclose(g(np.array([2.0])), [6.0])
        np.testing.assert_allclose(g(np.array([2.0, 0.0, 1.0])), WEIGHTS)


@pytest.mark.parametrize("make", [mc.grad, mc.value_and_grad], ids=["grad", "value_and_grad"])
def test_two_arguments_shapes_and_sharing(make):
    g = make(outer_sum, argnums=(0, 1))
    a = np.array([1.0, 2.0, 3.0])
    b = np.array([0.5, -1.0])
    calls = [(a, b), (a, a), (a[:2], a[1:]), (a, b.copy()), (a[:2], b), (np.array([1.0]), b), (a, b)]
    for args in calls:
        same(g(*args), general(lambda: make(outer_sum, argnums=(0, 1))(*args)))


@pytest.mark.parametrize("make", [mc.grad, mc.value_and_grad], ids=["grad", "value_and_grad"])
def test_argnums_change_between_callables_of_one_function(make):
    for argnums in (0, 1, (0, 1), (1,), -1, (1, 0), 0):
        for args in ((2.0, 3.0), (np.array(1.5), 3.0), (np.array([1.0, 2.0]), 3.0), (2.0, 3.0)):
            agree(lambda: make(two, argnums=argnums)(*args), lambda: make(two, argnums=argnums)(*args))


@pytest.mark.parametrize("make", [mc.grad, mc.value_and_grad], ids=["grad", "value_and_grad"])
def test_containers_and_objects_between_numbers(make):
    g = make(pair_product)
    for v in ([2.0, 3.0], (2.0, 3.0), np.array([2.0, 3.0]), {0: 2.0, 1: 3.0}, [np.array([1.0, 2.0]), 3.0],
              np.array([2.0, 3.0], dtype=np.float32), [2.0, 3.0]):
        agree(lambda: g(v), lambda: make(pair_product)(v))
    h = make(point_product)
    for p in (Point(2.0, 3.0), Point(np.array([1.0, 2.0]), 3.0), Point(2.0, 3.0)):
        agree(lambda: h(p), lambda: make(point_product)(p))


@pytest.mark.parametrize("make", [mc.grad, mc.value_and_grad], ids=["grad", "value_and_grad"])
def test_defaults_and_code_reassigned(make):
    def local(x, s=2.0):
        return s * x * x

    g = make(local)
    same(g(3.0), general(lambda: make(local)(3.0)))
    local.__defaults__ = (5.0,)
    assert g(3.0) == general(lambda: make(local)(3.0))
    assert make(local)(3.0) == general(lambda: make(local)(3.0))
    same(g(3.0, 1.0), general(lambda: make(local)(3.0, 1.0)))
    original = local.__code__
    try:
        local.__code__ = scaled.__code__
        same(g(3.0), general(lambda: make(local)(3.0)))
        same(g(np.array([1.0, 2.0])), general(lambda: make(local)(np.array([1.0, 2.0]))))
    finally:
        local.__code__ = original
    same(g(3.0), general(lambda: make(local)(3.0)))


@pytest.mark.parametrize("make", [mc.grad, mc.value_and_grad], ids=["grad", "value_and_grad"])
def test_closures_of_one_code(make):
    """New closures of one code object (a loop making `lambda x: c * x * x`): each its own captured value."""
    for c in (1.0, 2.0, 3.0, 2.0):
        fn = (lambda x: c * x * x)
        assert make(fn)(3.0) == general(lambda: make(fn)(3.0))
    for c in (1.0, 2.0, 3.0):
        fn = (lambda x, c=c: c * np.sum(x * x))
        same(make(fn)(np.array([3.0])), general(lambda: make(fn)(np.array([3.0]))))


@pytest.mark.parametrize("make", [mc.grad, mc.value_and_grad], ids=["grad", "value_and_grad"])
def test_rebound_global_and_registered_rule(make):
    global helper
    g = make(calls_helper)
    first = g(2.0)
    same(first, general(lambda: make(calls_helper)(2.0)))
    saved = helper
    try:
        helper = cubed
        same(g(2.0), general(lambda: make(calls_helper)(2.0)))
        assert (g(2.0) if make is mc.grad else g(2.0)[1]) == 13.0
        helper = alternative
        same(g(2.0), general(lambda: make(calls_helper)(2.0)))
    finally:
        helper = saved
    same(g(2.0), first)


def test_fast_cache_cleared():
    g = mc.grad(square_sum)
    g(2.0)
    fastpath.clear_fast()
    assert g(2.0) == 4.0
    assert g(np.array([1.0])) == pytest.approx(np.array([2.0]))


def test_results_of_other_types_after_floats():
    def maybe_array(x, flag):
        return x * x if flag > 0 else np.array([x, x])

    g = mc.value_and_grad(maybe_array)
    assert g(3.0, 1.0) == (9.0, 6.0)
    with pytest.raises(mc.NonScalarOutputError):
        g(3.0, -1.0)
    assert g(3.0, 1.0) == (9.0, 6.0)


# ---------------------------------------------------------------- forward mode


def jvp_sequence():
    return [
        (1.5, 1.0), (1.5, None), (np.array([1.0, 2.0]), np.array([1.0, 0.0])), (np.array([1.0, 2.0]), None),
        (np.array([1.0, 2.0], dtype=np.float32), np.array([1.0, 1.0], dtype=np.float32)), (2.0, 3),
        (np.array([[1.0, 2.0]]), np.array([[0.5, 1.0]])), (np.array(2.0), np.array(1.0)), (3, 1.0), (3, None),
        (np.array([1.0 + 1.0j]), np.array([1.0 + 0.0j])), (np.array([1.0, 2.0]).view(Sub), np.array([1.0, 1.0])),
        ([1.0, 2.0], [1.0, 0.0]), (1.5, 2.0),
    ]


def test_jvp_many_argument_kinds():
    for x, dx in jvp_sequence():
        agree(lambda: mc.jvp(list_square, (x,), (dx,)), lambda: mc.jvp(list_square, (x,), (dx,)))


def test_jvp_size_one_axes_and_two_arguments():
    for x in (np.array([1.0, 2.0, 3.0]), np.array([2.0]), np.array([[2.0], [1.0], [0.0]]), np.array([1.0, 0.0, 1.0])):
        dx = np.ones_like(x)
        same(mc.jvp(weighted, (x,), (dx,)), general(lambda: mc.jvp(weighted, (x,), (dx,))))
    for p, t in (((2.0, 3.0), (1.0, 0.0)), ((2.0, 3.0), (None, 1.0)), ((2.0, 3.0), (1.0, None)),
                 ((np.array([1.0]), 3.0), (np.array([1.0]), None)), ((2.0, 3.0), (1.0, 1.0))):
        same(mc.jvp(two, p, t), general(lambda: mc.jvp(two, p, t)))


@pytest.mark.parametrize("f", [flat_write, view_write])
def test_jvp_number_tangent_left_out_after_given(f):
    """A number's tangent given, then left out (None: the rule's kind `num:inactive`, whose code keeps the writes
    into arrays made from the number), then given: each call its own rule."""
    a, t = np.array([0.3, -0.2, 0.5]), np.array([0.4, 1.0, -0.6])
    for x, dx in ((0.37, 1.0), (0.37, None), (0.37, 0.5), (2, None), (0.37, None), (np.array(0.37), None)):
        agree(lambda: mc.jvp(f, (x, a.copy()), (dx, t.copy())), lambda: mc.jvp(f, (x, a.copy()), (dx, t.copy())))


@pytest.mark.parametrize("mode", ["grad", "value_and_grad", "jvp"])
def test_one_code_other_globals(mode):
    """A function made from another's code with other globals (types.FunctionType(code, globals)): its own rule."""
    import types

    other = types.FunctionType(weighted.__code__, {**globals(), "WEIGHTS": np.array([-1.0, 0.5, 4.0])})
    x = np.array([1.0, 2.0, 3.0])
    for fn in (weighted, other, weighted, other):
        if mode == "jvp":
            agree(lambda: mc.jvp(fn, (x,), (np.ones(3),)), lambda: mc.jvp(fn, (x,), (np.ones(3),)))
        else:
            make = mc.grad if mode == "grad" else mc.value_and_grad
            agree(lambda: make(fn)(x), lambda: make(fn)(x))


def test_jvp_defaults_code_and_globals():
    global helper

    def local(x, s=2.0):
        return s * x * x

    assert mc.jvp(local, (3.0,), (1.0,)) == (18.0, 12.0)
    local.__defaults__ = (5.0,)
    assert mc.jvp(local, (3.0,), (1.0,)) == general(lambda: mc.jvp(local, (3.0,), (1.0,)))
    local.__code__ = alternative.__code__
    assert mc.jvp(local, (3.0,), (1.0,)) == (15.0, 5.0)
    saved = helper
    assert mc.jvp(calls_helper, (2.0,), (1.0,)) == (6.0, 5.0)
    try:
        helper = cubed
        assert mc.jvp(calls_helper, (2.0,), (1.0,)) == (10.0, 13.0)
    finally:
        helper = saved
    assert mc.jvp(calls_helper, (2.0,), (1.0,)) == (6.0, 5.0)
    for c in (1.0, 2.0, 3.0):
        fn = (lambda x: c * x * x)
        assert mc.jvp(fn, (3.0,), (1.0,)) == (9.0 * c, 6.0 * c)


# ---------------------------------------------------------------- the decisions are kept, and hold nothing alive


def test_repeated_calls_skip_the_rule_search(monkeypatch):
    """A repeated call reuses what was decided (this fails where every call searches for its rule)."""
    x = np.array([1.0, 2.0])
    g = mc.grad(square_sum)
    g(x)
    mc.grad(square_sum)(1.5)
    mc.jvp(square_sum, (1.5,), (1.0,))

    def refused(*a, **k):
        raise AssertionError("searched again")

    monkeypatch.setattr(api_fast, "fast_rule", refused)
    monkeypatch.setattr(api_fast, "fast_forward_rule", refused)
    assert mc.grad(square_sum)(1.5) == 3.0
    assert mc.jvp(square_sum, (1.5,), (1.0,)) == (2.25, 3.0)
    assert mc.value_and_grad(square_sum)(1.5) == (2.25, 3.0)
    with pytest.raises(AssertionError, match="searched again"):
        g(np.array([[1.0]]))  # (another rank: searched)


def test_decisions_hold_no_closure_alive():
    class Held:
        pass

    held = Held()
    ref = weakref.ref(held)

    def make():
        h = held

        def closure(x):
            return x * x if h is not None else x

        return closure

    fn = make()
    assert mc.grad(fn)(3.0) == 6.0
    assert mc.value_and_grad(fn)(3.0) == (9.0, 6.0)
    # (not mc.jvp: forward mode keeps the tangent storage of what a closure captured, forward/runtime._session)
    del fn, held
    gc.collect()
    assert ref() is None
