"""Third derivatives through closures made inside the differentiated function, by forward mode (issue 10): forward
code of forward code makes the closure's cells and tangent cells, and those calls are planned once more
(mooncake_ast/rules/nested_closures_third.py).  Each against central differences of the second derivative."""
import numpy as np
import pytest

import mooncake_ast as mc


def captures_a_local(x):
    k = x * 2.0
    h = lambda y: y * k  # noqa: E731
    return h(1.0) * x * x


def factory(w):
    def apply(y):
        return np.tanh(w * y)
    return apply


def through_a_factory(x):
    return factory(x)(x) * x


def accumulates(x):
    acc = 0.0

    def bump(v):
        nonlocal acc
        acc = acc + v * x
    for i in range(3):
        bump(x * (i + 1))
    return acc * x


def captures_an_array(a):
    w = np.tanh(a)
    f = lambda v: np.sum(v * w * w)  # noqa: E731
    return f(a) * a[0]


def defaults_made_in_a_loop(x):
    fs = []
    for i in range(3):
        c = x ** 2 * (i + 1)
        fs.append(lambda t, c=c: t * c)
    return fs[0](-0.4) + fs[2](x)


@pytest.mark.parametrize("f, x, t", [(captures_a_local, 0.447, 1.0), (through_a_factory, 0.447, 1.0),
                                     (accumulates, 0.447, 1.0), (defaults_made_in_a_loop, 0.7, 1.0),
                                     (captures_an_array, np.array([0.3, -0.5, 0.7]), np.array([1.0, 0.4, -0.6]))])
def test_third_order_forward_through_a_closure(f, x, t):
    """jvp(jvp(jvp(f))) was refused (setattr on a cell); a first attempt that planned the cells' calls but gave the
    cells made at the third order no tangent cells was silently wrong (8 for 12 in captures_a_local).  A default made
    from the input (defaults_made_in_a_loop) lost the tangent of its tangent at the third order: 12 for 18
    (nested_defaults' outer read the defaults of a function's tangent that forward mode had made an object's)."""
    second = lambda s: mc.jvp(lambda u: mc.jvp(f, (u,), (t,))[1], (s,), (t,))[1]  # noqa: E731
    ref = (second(x + 1e-4 * t) - second(x - 1e-4 * t)) / 2e-4
    got = mc.jvp(second, (x,), (t,))[1]
    assert abs(got - ref) < 1e-6 * max(1.0, abs(ref))


@pytest.mark.parametrize("f", [captures_a_local, through_a_factory, accumulates])
def test_third_order_reverse_through_a_closure(f):
    """grad(grad(grad(f))) was refused ("reverse mode over forward mode over a closure whose captured variables are
    differentiated"); the captured values' adjoints go to the cells the reverse computation made
    (nested_closures.closure_forward_plan)."""
    gg = mc.grad(mc.grad(f))
    ref = (gg(0.447 + 1e-5) - gg(0.447 - 1e-5)) / 2e-5
    assert abs(mc.grad(gg)(0.447) - ref) < 1e-6 * max(1.0, abs(ref))


def test_third_order_reverse_through_a_closure_over_an_array():
    """jacrev of the Hessian of a function whose closure captures an array made from the input."""
    x = np.array([0.3, -0.5, 0.7])
    H = mc.hessian(captures_an_array)
    ref = np.stack([(H(x + e) - H(x - e)) / 2e-5 for e in np.eye(3) * 1e-5], axis=-1)
    np.testing.assert_allclose(mc.jacrev(H)(x), ref, rtol=1e-6, atol=1e-6)
