"""The short path of Hessian-vector products (mooncake_ast/hvp_fast.py): `mc.jvp(mc.grad(f))` and `mc.hvp`.

Each case is checked against central differences of mc.grad along the direction (and, for small
cases, against mc.hessian applied to it); a spy on rules/api_rules.hvp_core says whether the call
took the short path or the general one, so both are exercised on purpose."""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.rules import api_rules

RNG = np.random.default_rng(11)


@pytest.fixture
def general_calls(monkeypatch):
    """A list that grows by one for each call that takes the general path (hvp_core)."""
    calls = []
    real = api_rules.hvp_core

    def spy(*a, **k):
        calls.append(a[0])
        return real(*a, **k)

    monkeypatch.setattr(api_rules, "hvp_core", spy)
    return calls


def fd_hvp(g, args, tangents, eps=1e-5):
    """Central differences of the gradient function g along the tangents (None: zero)."""
    plus = tuple(a + eps * t if t is not None else a for a, t in zip(args, tangents))
    minus = tuple(a - eps * t if t is not None else a for a, t in zip(args, tangents))
    gp, gm = g(*plus), g(*minus)
    if isinstance(gp, tuple):
        return tuple((p - m) / (2 * eps) for p, m in zip(gp, gm))
    return (gp - gm) / (2 * eps)


def close(a, b, tol=1e-6):
    if isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b)
        for x, y in zip(a, b):
            close(x, y, tol)
        return
    assert np.shape(a) == np.shape(b)
    assert np.allclose(a, b, rtol=tol, atol=tol), (a, b)


# ---------------------------------------------------------------- functions under test


def mlp(W1, b1, W2, X, y):
    h = np.tanh(X @ W1 + b1)
    return np.mean((h @ W2 - y) ** 2)


def looped(x, c):
    """A loop with a branch on the values and in-place updates of a local array."""
    z = x * 1.0  # (x.copy() and np.array(x) are not supported nested yet)
    s = 0.0
    for i in range(z.shape[0]):
        if z[i] > 0.0:
            z[i] = np.sin(z[i]) * c
        else:
            z[i] = z[i] ** 3 + c * c
        s = s + z[i] * z[i - 1]
    return s + np.sum(z ** 2) * c


class Quadratic:
    def __init__(self, A):
        self.A = A

    def energy(self, x):
        return 0.5 * x @ self.A @ x + np.sum(np.cos(x))


MODEL = Quadratic(np.array([[2.0, 0.5, 0.0], [0.5, 1.0, 0.3], [0.0, 0.3, 3.0]]))


def uses_method(x, s):
    return MODEL.energy(x * s) + s ** 3


def scalar_pair(a, b):
    return a * a * b + np.exp(a * b) - b ** 4


def two_arrays(a, b):
    return np.sum(a * a * b) + np.sum(np.exp(a * b)) - np.sum(b ** 4)


def writes_argument(x):
    x[0] = x[0] * x[1]  # (the derivative may write its argument: its state after the call is put back)
    return np.sum(x ** 3)


def non_scalar(x):
    return x * 2.0


# ---------------------------------------------------------------- the short path


def test_mlp_all_parameters_matches_fd_and_hand(general_calls):
    W1, b1, W2 = RNG.normal(size=(4, 5)), RNG.normal(size=5), RNG.normal(size=(5, 1))
    X, y = RNG.normal(size=(6, 4)), RNG.normal(size=(6, 1))
    v = (RNG.normal(size=W1.shape), RNG.normal(size=b1.shape), RNG.normal(size=W2.shape))
    g = mc.grad(mlp, argnums=(0, 1, 2))
    args = (W1, b1, W2, X, y)
    tangents = (*v, None, None)
    saved = [a.copy() for a in (*args, *v)]
    grads, hv = mc.jvp(g, args, tangents)
    assert not general_calls
    close(grads, g(*args), 1e-12)
    close(hv, fd_hvp(g, args, tangents))
    # the same answer as mc.hvp and the general path's own (hessian of the flat parameters)
    close(mc.hvp(lambda a, b, c: mlp(a, b, c, X, y), (W1, b1, W2), v), hv, 1e-10)
    for a, s in zip((*args, *v), saved):
        assert np.array_equal(a, s)  # arguments and tangents are left as they were
    grads2, hv2 = mc.jvp(g, args, tangents)  # second call: from the kept decisions
    close(hv2, hv, 1e-14)
    assert not general_calls


def test_loop_branch_inplace_and_hessian(general_calls):
    x, v = RNG.normal(size=5), RNG.normal(size=5)
    for argnums in (0, (0, 1), (-1,)):
        g = mc.grad(looped, argnums=argnums)
        dc = 0.7
        out, hv = mc.jvp(g, (x, 1.3), (v, dc))
        close(out, g(x, 1.3), 1e-12)
        close(hv, fd_hvp(g, (x, 1.3), (v, dc)))
    H = mc.hessian(lambda z: looped(z, 1.3))(x)
    close(mc.jvp(mc.grad(looped), (x, 1.3), (v, None))[1], H @ v, 1e-8)
    close(mc.hvp(lambda z: looped(z, 1.3), (x,), (v,)), H @ v, 1e-8)
    assert looped not in general_calls


def test_method_of_object_and_scalars(general_calls):
    x, v = RNG.normal(size=3), RNG.normal(size=3)
    g = mc.grad(uses_method, argnums=(0, 1))
    out, hv = mc.jvp(g, (x, 0.8), (v, -0.5))
    close(hv, fd_hvp(g, (x, 0.8), (v, -0.5)))
    hs = mc.hvp(scalar_pair, (0.4, 1.1), (1.0, 2))  # (an int tangent of a float: as the converter takes it)
    close(hs, fd_hvp(mc.grad(scalar_pair, argnums=(0, 1)), (0.4, 1.1), (1.0, 2.0)))
    assert type(hs[0]) is float and type(hs[1]) is float
    assert not general_calls
    # a bound method as the function itself: the general path, same answer
    f = MODEL.energy
    close(mc.jvp(mc.grad(f), (x,), (v,))[1], fd_hvp(mc.grad(f), (x,), (v,)))


def test_stale_global_is_seen():
    global SCALE
    SCALE = 2.0

    def f(x):
        return SCALE * np.sum(x ** 3)

    x, v = RNG.normal(size=4), RNG.normal(size=4)
    first = mc.jvp(mc.grad(f), (x,), (v,))[1]
    SCALE = 5.0
    second = mc.jvp(mc.grad(f), (x,), (v,))[1]
    close(second, first * 2.5, 1e-12)
    close(second, fd_hvp(mc.grad(f), (x,), (v,)))


def test_rule_registered_later_is_seen():
    def cube(z):
        return z ** 3

    def f(x):
        return np.sum(cube(x)) + np.sum(x * x)

    x, v = RNG.normal(size=4), RNG.normal(size=4)
    close(mc.jvp(mc.grad(f), (x,), (v,))[1], (6 * x + 2) * v, 1e-12)
    mc.zero_derivative(cube)  # (a registered rule makes the kept derivatives stale)
    close(mc.jvp(mc.grad(f), (x,), (v,))[1], 2 * v, 1e-12)
    close(mc.hvp(f, (x,), (v,)), 2 * v, 1e-12)


def test_float32_and_int_tangent_arrays():
    x = RNG.normal(size=4).astype(np.float32)
    v = np.array([1, -2, 0, 3])
    _, hv = mc.jvp(mc.grad(lambda z: np.sum(np.sin(z) * z)), (x,), (v,))
    assert hv.dtype == np.float32
    x64 = x.astype(float)
    close(hv, (2 * np.cos(x64) - x64 * np.sin(x64)) * v, 1e-5)


# ---------------------------------------------------------------- what stays on the general path


def test_aliasing_goes_general(general_calls):
    x, v = RNG.normal(size=3), RNG.normal(size=3)
    g = mc.grad(two_arrays, argnums=(0, 1))
    hv = mc.jvp(g, (x, x), (v, v))[1]  # one array passed twice: one adjoint (the sum), kept by storage
    assert general_calls
    close(hv, fd_hvp(lambda z: g(z, z), (x,), (v,)))
    y = x.copy()
    hv2 = mc.jvp(mc.grad(lambda z: np.sum(z ** 4)), (y,), (y,))[1]  # the tangent is the argument itself
    close(hv2, 12 * y ** 2 * y, 1e-12)
    assert np.array_equal(y, x)


def test_writing_argument_is_put_back(general_calls):
    x, v = np.array([0.5, -1.2, 2.0]), np.array([0.3, 1.0, -0.4])
    expect = fd_hvp(lambda z: mc.grad(writes_argument)(z.copy()), (x,), (v,))
    arg = x.copy()
    _, hv = mc.jvp(mc.grad(writes_argument), (arg,), (v,))
    close(hv, expect)
    after = x.copy()
    writes_argument(after)
    assert np.array_equal(arg, after)  # as the plain call leaves it
    assert not general_calls
    arg = x.copy()
    close(mc.hvp(writes_argument, (arg,), (v,)), expect)
    assert np.array_equal(arg, after)


def test_refusals_are_the_general_ones():
    x = RNG.normal(size=3)
    g = mc.grad(lambda z: np.sum(z ** 2))
    with pytest.raises(mc.TangentError):
        mc.jvp(g, (x,), (np.ones(4),))
    with pytest.raises(mc.TangentError):
        mc.jvp(g, (x,), (np.ones(3, dtype=complex),))
    with pytest.raises(mc.NonScalarOutputError):
        mc.jvp(mc.grad(non_scalar), (x,), (x,))
    with pytest.raises(mc.NonScalarOutputError):
        mc.hvp(non_scalar, (x,), (x,))
    # (jvp of a gradient with has_aux works since rules/nested_aux.py: the general path, as before, not a refusal)
    (grad, aux), (hv, _) = mc.jvp(mc.grad(lambda z: (np.sum(z ** 2), 1), has_aux=True), (x,), (x,))
    close(hv, 2.0 * x)
    assert aux == 1
    with pytest.raises(mc.ArgnumsError):
        mc.jvp(mc.grad(scalar_pair, argnums=2), (1.0, 2.0), (1.0, 1.0))


def test_int_and_container_arguments_still_work(general_calls):
    def powsum(x, n):
        s = 0.0
        for k in range(n):
            s = s + np.sum(x ** (k + 1)) / (k + 1)
        return s

    x, v = RNG.normal(size=3), RNG.normal(size=3)
    g = mc.grad(powsum)
    close(mc.jvp(g, (x, 3), (v, None))[1], fd_hvp(g, (x, 3), (v, None)))
    lst = [x, 2.0]
    h = mc.grad(lambda p: np.sum(p[0] ** 3) * p[1])
    close(mc.jvp(h, (lst,), ([v, 0.0],))[1][0], 6 * x * v * 2.0, 1e-10)
    assert general_calls


def writes_non_scalar(x):
    x[0] = x[0] * 2.0
    return x * x


def test_non_scalar_result_of_a_writing_function_is_refused_once(general_calls):
    x = np.array([1.0, 2.0])
    with pytest.raises(mc.NonScalarOutputError):
        mc.hvp(writes_non_scalar, (x,), (np.ones(2),))
    assert x[0] == 2.0 and not general_calls  # written once, as the plain call writes it: not run again
