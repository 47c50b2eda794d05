"""Third derivatives in reverse mode through functions that carry differentiated values in their defaults
(`lambda t, c=c: t * c` made in a loop, `def h(t, w=b)`): the adjoint of such a function's tangent, taken where the
function's is, is a FunctionAdjoint, which reverse/shadows.add_into now routes to the FunctionTangent's fields of those
names (was refused: "a FunctionTangent object was read by code that is not differentiated").  Checked against
central differences of second derivatives."""
import numpy as np
import pytest

import mooncake_ast as mc
from tests.helpers import fd_jac


def lambdas_in_loop(y):
    fs = []
    for i in range(3):
        c = y * (i + 1)
        fs.append(lambda t, c=c: t * c)
    return fs[0](y) + fs[2](y) ** 2


def one_lambda(y):
    c = np.sin(y) * 2
    h = lambda t, c=c: t * c + c ** 2  # noqa: E731
    return h(y) ** 2


def def_with_default(y):
    b = np.cos(y)

    def h(t, w=b):
        return t * w + w ** 3

    return h(y) * h(2.0)


def two_defaults(y):
    a, b = np.sin(y), y * y
    hs = [lambda t, a=a * k, b=b: a * t + b * t * t for k in range(1, 3)]
    return hs[0](y) * hs[1](0.5) + hs[1](y) ** 2


FUNCS = [lambdas_in_loop, one_lambda, def_with_default, two_defaults]
IDS = [f.__name__ for f in FUNCS]
Y = 0.7


def second(f):
    return lambda t: mc.grad(mc.grad(f))(float(t))


@pytest.mark.parametrize("f", FUNCS, ids=IDS)
@pytest.mark.parametrize("how", ["grad_grad_grad", "jvp_grad_grad", "grad_jvp_grad", "jacrev_hessian_vector"])
def test_third_derivative(f, how):
    ref = fd_jac(second(f), np.array(Y))
    if how == "grad_grad_grad":
        got = mc.grad(mc.grad(mc.grad(f)))(Y)
    elif how == "jvp_grad_grad":
        got = mc.jvp(mc.grad(mc.grad(f)), (Y,), (1.0,))[1]
    elif how == "grad_jvp_grad":
        got = mc.grad(lambda t: mc.jvp(mc.grad(f), (t,), (1.0,))[1])(Y)
    else:  # (a vector argument: the Hessian's Jacobian by reverse mode, through the same function of its sum)
        v = np.array([0.3, Y])
        g = lambda x: f(x[0] * x[1] + x[1])  # noqa: E731
        T = fd_jac(lambda x: mc.hessian(g)(x), v)
        np.testing.assert_allclose(mc.jacrev(mc.hessian(g))(v), T, rtol=1e-4, atol=1e-5)
        return
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)
