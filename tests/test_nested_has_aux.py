"""Nested derivatives of gradients taken with has_aux=True (rules/nested_aux.py): `mc.hessian(f, has_aux=True)`,
`jacfwd/jacrev(grad(f, has_aux=True), has_aux=True)`, `jvp` of such gradients (the aux differentiated too, as JAX
does) and gradients of functions that call them, against central differences of first derivatives.  (All were
refused: "has_aux=True is not supported nested".)"""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.rules.forward_code_rules import NestingError
from tests.helpers import fd_jac

X3 = np.array([0.3, -0.7, 1.1])
T3 = np.array([0.5, 1.0, -0.3])


def loop_aux(x):
    s = 0.0
    for i in range(len(x)):
        if x[i] > 0:
            s = s + np.sin(x[i]) * x[i - 1]
        else:
            s = s + x[i] ** 3
    return s * s, {"s": s, "n": len(x)}


def inplace_aux(x):
    y = x.copy()
    y[0] = y[0] * y[1]
    y[1:] += np.tanh(y[:-1])
    return np.sum(np.sin(y) * y), (np.cos(x[0]) * x, "tag")


def writes_argument_aux(x):
    x[0] = x[0] * x[2]  # (the derivative is at the argument's value on entry)
    return np.sum(x ** 3), x[0]


class Stateful:
    def __init__(self, w):
        self.w = w

    def loss(self, x):
        h = np.tanh(self.w * x)
        return np.sum(h ** 2) + h[0] * x[1], h


FUNCS = [loop_aux, inplace_aux, writes_argument_aux, Stateful(np.array([0.5, -1.0, 2.0])).loss]
IDS = ["loop", "inplace", "writes_argument", "method"]


def value(f):
    return lambda y: f(y.copy())[0]


def aux_leaf(f):
    def leaf(y):
        aux = f(y.copy())[1]
        return aux["s"] if isinstance(aux, dict) else aux[0] if isinstance(aux, tuple) else aux
    return leaf


@pytest.mark.parametrize("f", FUNCS, ids=IDS)
@pytest.mark.parametrize("how", ["hessian", "jacfwd_grad", "jacrev_grad", "jacfwd_jacrev"])
def test_hessian_with_aux(f, how):
    H_ref = fd_jac(lambda y: mc.grad(value(f))(y), X3)
    x = X3.copy()
    if how == "hessian":
        H, aux = mc.hessian(f, has_aux=True)(x)
    elif how == "jacfwd_grad":
        H, aux = mc.jacfwd(mc.grad(f, has_aux=True), has_aux=True)(x)
    elif how == "jacrev_grad":
        H, aux = mc.jacrev(mc.grad(f, has_aux=True), has_aux=True)(x)
    else:
        H, aux = mc.jacfwd(mc.jacrev(f, has_aux=True), has_aux=True)(x)
    np.testing.assert_allclose(H, H_ref, rtol=1e-5, atol=1e-6)
    expected_aux = f(X3.copy())[1]  # the aux of one plain call at the point
    leaf = aux_leaf(lambda y: (None, aux))(X3)
    np.testing.assert_allclose(leaf, aux_leaf(lambda y: (None, expected_aux))(X3))
    np.testing.assert_array_equal(x, _after_call(f, X3))  # the argument as a plain call leaves it


def _after_call(f, x):
    y = x.copy()
    f(y)
    return y


@pytest.mark.parametrize("f", FUNCS, ids=IDS)
@pytest.mark.parametrize("api", ["grad", "value_and_grad"])
def test_jvp_of_gradient_with_aux(f, api):
    H_ref = fd_jac(lambda y: mc.grad(value(f))(y), X3)
    d_aux = fd_jac(lambda e: aux_leaf(f)(X3 + e * T3), np.array(0.0))
    d_value = fd_jac(lambda e: value(f)(X3 + e * T3), np.array(0.0))
    out, tangent = mc.jvp(getattr(mc, api)(f, has_aux=True), (X3.copy(),), (T3,))
    if api == "grad":
        dg, daux = tangent
    else:
        (dv, daux), dg = tangent
        np.testing.assert_allclose(dv, d_value, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(dg, H_ref @ T3, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(aux_leaf(lambda y: (None, daux))(X3), d_aux, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("f", FUNCS, ids=IDS)
@pytest.mark.parametrize("outer", ["grad", "jacfwd", "jacrev"])
def test_derivative_of_function_using_gradient_and_aux(f, outer):
    def uses_both(y):
        g, aux = mc.grad(f, has_aux=True)(y.copy())
        return np.sum(g * T3) + 0.5 * np.sum(aux_leaf(lambda z: (None, aux))(y))

    if outer != "jacfwd" and f is FUNCS[3]:  # (reverse mode over the gradient of a bound method, as without aux)
        with pytest.raises(NestingError, match="bound method"):
            getattr(mc, outer)(uses_both)(X3.copy())
        return
    got = getattr(mc, outer)(uses_both)(X3.copy())
    np.testing.assert_allclose(got, fd_jac(uses_both, X3), rtol=1e-5, atol=1e-6)


def mlp_loss(params, X, target):
    h = np.tanh(X @ params["W"] + params["b"])
    out = h @ params["v"]
    err = out - target
    return np.mean(err ** 2), {"err": err, "h": h}


@pytest.mark.parametrize("how", ["hessian", "jacrev"])
def test_hessian_of_pytree_loss_with_aux(how):
    rng = np.random.default_rng(3)
    params = {"W": rng.normal(size=(3, 4)), "b": rng.normal(size=4), "v": rng.normal(size=4)}
    X, target = rng.normal(size=(5, 3)), rng.normal(size=5)
    if how == "hessian":
        H, aux = mc.hessian(mlp_loss, has_aux=True)(params, X, target)
    else:
        H, aux = mc.jacrev(mc.grad(mlp_loss, has_aux=True), has_aux=True)(params, X, target)
    np.testing.assert_allclose(aux["err"], mlp_loss(params, X, target)[1]["err"])
    for a in ("W", "b", "v"):
        for b in ("W", "v"):
            ref = fd_jac(lambda z: mc.grad(lambda p: mlp_loss(p, X, target)[0])(dict(params, **{b: z}))[a], params[b])
            np.testing.assert_allclose(H[a][b], ref, rtol=1e-5, atol=1e-6)


def two_args_aux(a, b):
    s = 0.0
    for i in range(3):
        s = s + a[i] * b ** (i + 1)
        if s > 2.0:
            s = s - np.sin(s)
    return s, s * b


def test_hessian_with_aux_and_argnums_tuple():
    a, b = np.array([0.3, -0.2, 0.5]), 0.8
    H, aux = mc.hessian(two_args_aux, argnums=(0, 1), has_aux=True)(a, b)
    np.testing.assert_allclose(aux, two_args_aux(a, b)[1])
    ga = lambda aa, bb: mc.grad(two_args_aux, argnums=0, has_aux=True)(aa, bb)[0]  # noqa: E731
    gb = lambda aa, bb: mc.grad(two_args_aux, argnums=1, has_aux=True)(aa, bb)[0]  # noqa: E731
    np.testing.assert_allclose(H[0][0], fd_jac(lambda aa: ga(aa, b), a), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(H[0][1], fd_jac(lambda bb: ga(a, float(bb)), np.array(b)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(H[1][0], fd_jac(lambda aa: gb(aa, b), a), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(H[1][1], fd_jac(lambda bb: gb(a, float(bb)), np.array(b)), rtol=1e-5, atol=1e-6)
