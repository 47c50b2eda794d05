"""An inner derivative call whose function updates its argument in place, inside a function differentiated again
(rules/nested_writes.py): forward mode follows the update (the argument's tangent after the call is that of the
updated value), reverse mode refuses by name; never the derivative of the value on entry."""
import numpy as np
import pytest

import mooncake_ast as mc

Z = np.array([0.3, -0.7, 1.1])
V = np.array([0.5, 1.0, -0.3])


def doubles(y):
    y *= 2.0
    return np.sum(y ** 2)


def adds_sine(y):
    y += np.sin(y)
    return np.sum(y * y * y)


def writes_first(y):
    y[0] = y[0] * y[1]
    return np.sum(np.cos(y))


def doubles_vector(y):
    y *= 2.0
    return y ** 2


def adds_sine_vector(y):
    y += np.sin(y)
    return np.tanh(y)


UPDATES = {doubles: lambda y: 2.0 * y, adds_sine: lambda y: y + np.sin(y),
           writes_first: lambda y: np.concatenate([[y[0] * y[1]], y[1:]]),
           doubles_vector: lambda y: 2.0 * y, adds_sine_vector: lambda y: y + np.sin(y)}
SCALAR = [doubles, adds_sine, writes_first]
VECTOR = [doubles_vector, adds_sine_vector]
INNER = {"grad": (SCALAR, mc.grad), "value_and_grad": (SCALAR, mc.value_and_grad), "hessian": (SCALAR, mc.hessian),
         "jacfwd": (VECTOR, mc.jacfwd), "jacrev": (VECTOR, mc.jacrev)}
CASES = [(api, g) for api, (gs, _) in sorted(INNER.items()) for g in gs]
IDS = [f"{api}-{g.__name__}" for api, g in CASES]


def _outer(api, g):
    inner = INNER[api][1]

    def outer(z):
        w = z * 1.5
        inner(g)(w)  # leaves w updated, as the plain call g(w) does
        return np.sum(w * np.sin(z))
    return outer


def _by_hand(g):
    update = UPDATES[g]
    return lambda z: np.sum(update(z * 1.5) * np.sin(z))


def _fd(f, x, h=1e-6):
    return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(x.size)])


@pytest.mark.parametrize("api, g", CASES, ids=IDS)
@pytest.mark.parametrize("outer", ["jacfwd", "jvp"])
def test_forward_mode_follows_the_update(outer, api, g):
    f = _outer(api, g)
    want = _fd(_by_hand(g), Z)
    if outer == "jvp":
        np.testing.assert_allclose(mc.jvp(f, (Z.copy(),), (V,))[1], want @ V, rtol=1e-6, atol=1e-7)
    else:
        np.testing.assert_allclose(mc.jacfwd(f)(Z.copy()), want, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("api, g", CASES, ids=IDS)
@pytest.mark.parametrize("outer", ["grad", "jacrev"])
def test_reverse_mode_refuses_by_name(outer, api, g):
    with pytest.raises(mc.NestingError, match="writes to its argument"):
        getattr(mc, outer)(_outer(api, g))(Z.copy())


@pytest.mark.parametrize("g", SCALAR, ids=lambda g: g.__name__)
def test_inner_function_working_on_a_copy_is_right_in_both_modes(g):
    def outer(z):
        w = z * 1.5
        gw = mc.grad(lambda y: g(y.copy()))(w)  # (the update on a copy: w is not written)
        return np.sum(gw * np.sin(z)) + np.sum(w ** 2)

    want = _fd(outer, Z)
    np.testing.assert_allclose(mc.grad(outer)(Z.copy()), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mc.jacfwd(outer)(Z.copy()), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("api, g", CASES, ids=IDS)
@pytest.mark.parametrize("outer", ["grad", "jacrev"])
def test_reverse_mode_when_the_written_argument_is_not_read_again(outer, api, g):
    """The update is the inner call's business when nothing reads the argument afterwards: right, not refused."""
    inner = INNER[api][1]

    def f(z):
        w = z * 1.5
        r = inner(g)(w)
        r = r[1] if api == "value_and_grad" else r
        return np.sum(r) * np.sum(np.sin(z))

    np.testing.assert_allclose(getattr(mc, outer)(f)(Z.copy()), _fd(f, Z), rtol=1e-5, atol=1e-6)
