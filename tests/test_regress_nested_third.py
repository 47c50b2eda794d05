"""Regressions of third derivatives (issue 10) through values a callee returns or builds: lists, dicts, arrays and
objects.  Each third derivative is compared with central differences of the second derivative mc.grad(mc.grad(f)),
itself compared with central differences of mc.grad(f), which check_derivatives checks."""
import dataclasses
import math

import numpy as np
import pytest

import mooncake_ast as mc

X0 = 0.769
H = 1e-5


def as_list(x):
    return [math.sin(x) * x]


def as_dict(x):
    return {"r": math.sin(x) * x}


def as_array(x):
    return np.array([math.sin(x) * x])


def item_of_list(x):
    return as_list(x)[0]


def item_of_dict(x):
    return as_dict(x)["r"]


def item_of_array(x):
    return as_array(x)[0]


class Box:
    def __init__(self, v):
        self.v = v


class Squares:
    def __init__(self, v):
        self.v = v * v


def field_of_new_object(x):
    return Box(math.sin(x) * x).v


def field_set_in_init(x):
    return Squares(x).v ** 3


def _tangent(f):
    def first(x):
        return mc.jvp(f, (x,), (1.0,))[1]

    def second(x):
        return mc.jvp(first, (x,), (1.0,))[1]

    return first, second


@pytest.mark.parametrize("f", [item_of_list, item_of_dict, item_of_array, field_of_new_object, field_set_in_init])
def test_third_derivative_through_a_returned_container_or_object(f):
    """Reverse mode over forward code of forward code lost the adjoints of lists, dicts and object tangents that a plan
    or mc.jvp's result copied (adjoints of those are kept by identity): grad(grad(grad(f))) was 0.  Forward mode at the
    third order lost the tangents of an object's tangent made in construction (a symbolic zero where forward code
    writes the fields): jvp(jvp(jvp(f))) was 0 or short by the terms of the fields set in __init__."""
    mc.testing.check_derivatives(f, X0)
    g, gg = mc.grad(f), mc.grad(mc.grad(f))
    assert gg(X0) == pytest.approx((g(X0 + H) - g(X0 - H)) / (2 * H), rel=1e-5, abs=1e-6)
    want = (gg(X0 + H) - gg(X0 - H)) / (2 * H)
    assert mc.grad(mc.grad(mc.grad(f)))(X0) == pytest.approx(want, rel=1e-5, abs=1e-6)
    first, second = _tangent(f)
    assert mc.jvp(second, (X0,), (1.0,))[1] == pytest.approx(want, rel=1e-5, abs=1e-6)
    assert mc.grad(second)(X0) == pytest.approx(want, rel=1e-5, abs=1e-6)


V = np.array([0.3, -0.2, 0.5])
XA = np.array([-0.45, -0.62, 0.13])


def writes_its_argument(x):
    x[0] = x[0] * x[1]
    return np.sum(x ** 3)


def tangent_along_v(w):
    return mc.jvp(writes_its_argument, (w,), (V,))[1]


def second_along_v(z):
    return mc.jvp(tangent_along_v, (z,), (V,))[1]


def hvp_along_v(z):
    return mc.jvp(mc.grad(writes_its_argument), (z,), (V,))[1]


def _fd(d, x):
    return np.stack([(d(x + H * e) - d(x - H * e)) / (2 * H) for e in np.eye(x.size)], axis=-1)


def test_third_derivatives_of_a_function_that_writes_its_argument():
    """Forward mode over mc.jvp nested in differentiated code wrote f's tangent updates into the caller's tangent
    array (V itself changed, and jvp(jvp(jvp(f))) was wrong); forward mode over a gradient's tangent took the
    directional derivative at the arguments f had already updated (jvp(hessian(f)), jacfwd(hessian(f)) wrong)."""
    mc.testing.check_derivatives(writes_its_argument, XA.copy())
    Hd = lambda z: mc.hessian(writes_its_argument)(z.copy())  # noqa: E731
    np.testing.assert_allclose(Hd(XA), _fd(lambda z: mc.grad(writes_its_argument)(z.copy()), XA), rtol=1e-5, atol=1e-6)
    T = _fd(Hd, XA)
    v0 = V.copy()
    np.testing.assert_allclose(mc.jvp(second_along_v, (XA.copy(),), (V,))[1], np.einsum("ijk,i,j,k->", T, V, V, V),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(V, v0)
    np.testing.assert_allclose(mc.grad(second_along_v)(XA.copy()), np.einsum("ijk,i,j->k", T, V, V), rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(mc.jacfwd(mc.hessian(writes_its_argument))(XA.copy()), T, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mc.jvp(mc.hessian(writes_its_argument), (XA.copy(),), (V,))[1], T @ V, rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(mc.jacrev(hvp_along_v)(XA.copy()), np.einsum("ijk,j->ik", T, V), rtol=1e-5, atol=1e-6)


def first_above(xs, t):
    for i, v in enumerate(xs):
        if v > t:
            return v * (i + 1) + t * t * t
    return sum(xs)


def fresh_list_and_threshold():
    return ([0.2, 0.5, 1.4, 0.3], 1.0)


def threshold_scan(t):
    a = fresh_list_and_threshold()
    return first_above(a[0], t)


class Poly:
    def __init__(self, coeffs):
        self.coeffs = coeffs

    def __call__(self, x):
        acc = 0.0
        for c in reversed(self.coeffs):
            acc = acc * x + c
        return acc

    def derivative(self):
        return Poly([i * c for i, c in enumerate(self.coeffs)][1:])


def polynomial_object(c0):
    p = Poly([c0, c0 * c0, 0.5, -0.2])
    return p(0.9) + p.derivative()(0.9) ** 2


def list_of_tuples(x):
    ps = []
    for k in range(3):
        ps.append((x * k, np.array([x, 1.0])))
    return sum(a * np.sum(v) * x for a, v in ps)


@pytest.mark.parametrize("f,forward", [(threshold_scan, True), (polynomial_object, False),
                                       (list_of_tuples, True)])
def test_third_derivative_through_items_of_lists(f, forward):
    """Third derivatives through an item of a tuple holding a list, and through a list an object keeps, raised
    TypeError ('can only concatenate list (not NoTangentType) to list': the forward code of an item read added an
    index tangent to the item's): reads of items at higher orders are view_read's, whose index has no tangent."""
    x0 = 0.8
    mc.testing.check_derivatives(f, x0)
    gg = mc.grad(mc.grad(f))
    want = (gg(x0 + H) - gg(x0 - H)) / (2 * H)
    assert mc.grad(mc.grad(mc.grad(f)))(x0) == pytest.approx(want, rel=1e-5, abs=1e-6)
    if forward:  # (one case: the suite's time)
        first, second = _tangent(f)
        assert mc.jvp(second, (x0,), (1.0,))[1] == pytest.approx(want, rel=1e-5, abs=1e-6)


class Body:
    def __init__(self, x, v, m=2.0, k=0.5):
        self.x = x
        self.v = v
        self.m = m
        self.k = k

    def energy(self):
        return 0.5 * self.m * self.v ** 2 + 0.5 * self.k * self.x ** 2


def energy_of_body(x):
    b = Body(x * x, math.sin(x), m=1.0 + x, k=0.3)
    return b.energy() * b.m


def test_nested_derivatives_through_a_constructor_called_with_keywords():
    """`Body(x, v, m=..., k=...)` was refused nested ('keyword arguments are not supported nested'); a user class's
    keywords that name its __init__'s parameters are planned as a positional call, as a plain function's are."""
    f = energy_of_body
    mc.testing.check_derivatives(f, X0)
    g, gg = mc.grad(f), mc.grad(mc.grad(f))
    assert gg(X0) == pytest.approx((g(X0 + H) - g(X0 - H)) / (2 * H), rel=1e-5, abs=1e-6)
    first, second = _tangent(f)
    assert mc.jvp(first, (X0,), (1.0,))[1] == pytest.approx(gg(X0), rel=1e-9)
    assert mc.grad(first)(X0) == pytest.approx(gg(X0), rel=1e-9)
    want = (gg(X0 + H) - gg(X0 - H)) / (2 * H)
    assert mc.grad(mc.grad(mc.grad(f)))(X0) == pytest.approx(want, rel=1e-5, abs=1e-6)


WEIGHTS = [np.array([0.3, -0.2, 0.4]), 0.5]


def weighted_by_module_list(x):
    y = np.sin(x * np.array([1.0, 2.0, 0.5]))
    return np.sum(WEIGHTS[0] * y) + WEIGHTS[1] * x ** 3


def writes_into_module_list(x):
    w = WEIGHTS[0]
    w[0] = x
    return np.sum(w)


def test_third_derivative_over_a_module_level_list_of_arrays():
    """A module-level list holding arrays (weights, `W = [w, 0.5]`) read by the function got tangent storage of
    module-level state, over which a third order was refused (and most of the random programs' third orders with
    it); its items are constants now, as a list of numbers' are.  A write into one is still refused (forward mode)."""
    f = weighted_by_module_list
    mc.testing.check_derivatives(f, X0)
    gg = mc.grad(mc.grad(f))
    want = (gg(X0 + H) - gg(X0 - H)) / (2 * H)
    assert mc.grad(mc.grad(mc.grad(f)))(X0) == pytest.approx(want, rel=1e-5, abs=1e-6)
    first, second = _tangent(f)
    assert mc.jvp(second, (X0,), (1.0,))[1] == pytest.approx(want, rel=1e-5, abs=1e-6)
    with pytest.raises(mc.MooncakeError, match="module-level object `WEIGHTS`"):
        mc.jvp(writes_into_module_list, (X0,), (1.0,))


def writes_then_reads_module_list(x):
    WEIGHTS[0][0] = x * x
    return np.sum(WEIGHTS[0])


def test_write_into_an_array_of_a_module_level_list_is_refused():
    """`W[0][0] = x * x; return np.sum(W[0])` gave a tangent of 0 in forward mode, silently (the dispatched read
    `W[0]` was not seen as part of the module-level W, so the write was not refused); it is a GlobalWriteError."""
    saved = WEIGHTS[0].copy()
    try:
        with pytest.raises(mc.MooncakeError, match="module-level object `WEIGHTS`"):
            mc.jvp(writes_then_reads_module_list, (X0,), (1.0,))
    finally:
        WEIGHTS[0][...] = saved


@dataclasses.dataclass
class Log:
    rate: float
    values: list = dataclasses.field(default_factory=list)

    def push(self, v):
        self.values.append(v * self.rate)


def pushes_into_a_dataclass(x):
    h = Log(x)
    for k in range(3):
        h.push(x * k + 0.5)
    return sum(h.values) * h.values[-1]


def test_nested_derivatives_of_a_dataclass_with_a_default_factory():
    """jvp(jvp(f)) crashed (IndexError in construct_fields_fwd) where f builds a dataclass whose list field comes from
    default_factory: the plan gave no tangents for the fields left to their defaults, and none as storage."""
    f = pushes_into_a_dataclass
    mc.testing.check_derivatives(f, X0)
    g, gg = mc.grad(f), mc.grad(mc.grad(f))
    assert gg(X0) == pytest.approx((g(X0 + H) - g(X0 - H)) / (2 * H), rel=1e-5, abs=1e-6)
    first, second = _tangent(f)
    assert mc.jvp(first, (X0,), (1.0,))[1] == pytest.approx(gg(X0), rel=1e-9)
    want = (gg(X0 + H) - gg(X0 - H)) / (2 * H)
    assert mc.jvp(second, (X0,), (1.0,))[1] == pytest.approx(want, rel=1e-5, abs=1e-6)


class Pair:
    SCALE = 1.5

    def __init__(self, a, b):
        self.a = a
        self.b = b

    @staticmethod
    def combine(u, v):
        return u * v + u


def uses_a_static_method(x):
    p = Pair(x * x, 2.0)
    return Pair.combine(p.a, x) * Pair.SCALE


def test_nested_derivatives_through_a_static_method_read_from_its_class():
    """jvp(jvp(f)) crashed (KeyError 'combine') where f calls `Pair.combine(...)`: the class's tangent storage took the
    static method for a field; and a third order was refused (the class's module-level storage).  A class whose
    attributes never change is a constant now, and its functions have no tangent."""
    f = uses_a_static_method
    mc.testing.check_derivatives(f, X0)
    g, gg = mc.grad(f), mc.grad(mc.grad(f))
    assert gg(X0) == pytest.approx((g(X0 + H) - g(X0 - H)) / (2 * H), rel=1e-5, abs=1e-6)
    first, second = _tangent(f)
    assert mc.jvp(first, (X0,), (1.0,))[1] == pytest.approx(gg(X0), rel=1e-9)
    want = (gg(X0 + H) - gg(X0 - H)) / (2 * H)
    assert mc.grad(mc.grad(mc.grad(f)))(X0) == pytest.approx(want, rel=1e-5, abs=1e-6)


def stacks_rows(x):
    rows = []
    for k in range(3):
        rows.append(np.tanh(np.array([1.0, 0.5]) * x * (k + 1)))
    v = np.stack(rows)
    return np.sum(v * v) + np.sum(np.concatenate([v[0], v[1] * x]))


def test_third_derivative_through_stack_and_concatenate():
    """A third order through np.stack / np.concatenate of parts depending on x was refused ('the forward derivative
    of join_tangent comes from a hand-written rule'): join_tangent, linear in the parts' tangents, has a plan now."""
    f = stacks_rows
    mc.testing.check_derivatives(f, X0)
    gg = mc.grad(mc.grad(f))
    want = (gg(X0 + H) - gg(X0 - H)) / (2 * H)
    assert mc.grad(mc.grad(mc.grad(f)))(X0) == pytest.approx(want, rel=1e-5, abs=1e-6)
    first, second = _tangent(f)
    assert mc.jvp(second, (X0,), (1.0,))[1] == pytest.approx(want, rel=1e-5, abs=1e-6)


def copies_then_updates(x):
    v = np.arange(3.0) / 4 - x
    b = np.copy(v)
    b[1] = b[0] * (x + v[1])
    return np.sum(np.sin(b)) * x


def test_third_derivative_through_np_copy():
    """A third forward order through np.copy was refused ('the forward derivative of copy comes from a hand-written
    rule'): np.copy, linear, has a plain forward function at higher orders."""
    f = copies_then_updates
    mc.testing.check_derivatives(f, X0)
    gg = mc.grad(mc.grad(f))
    want = (gg(X0 + H) - gg(X0 - H)) / (2 * H)
    first, second = _tangent(f)
    assert mc.jvp(second, (X0,), (1.0,))[1] == pytest.approx(want, rel=1e-5, abs=1e-6)


def test_third_forward_order_of_a_loop_over_a_range():
    """jvp(jvp(jvp(f))) crashed ('NoTangent is not iterable') on a loop `for i in range(2)` whose forward code, at the
    third order, dispatches ops.sequence: its tangent is one zero per item now (randprog rows seed 7100000075, checked
    against finite differences of the second derivative by the family checker)."""
    import tempfile

    from tests.randprog.gen import generate
    from tests.randprog.nested import check_program_nested

    r = check_program_nested(generate(7100000075, "rows"), tempfile.mkdtemp(prefix="nested-third-"), ("jvp_jvp_jvp",))
    assert r.cls == "ok", r.describe()
