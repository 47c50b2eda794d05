"""Second derivatives of realistic code (tests/hunt6_cases.py) in several nestings against central differences of
mc.grad, itself checked against differences of f; plus pytree, argnums, has_aux and memory-layout variants the
earlier hunts did not cover.  (hunt6: these passed; the findings are in tests/test_regress_hunt6*.py.)"""
import numpy as np
import pytest

import mooncake_ast as mc
from tests import hunt6_cases as C
from tests.test_regress_hunt6 import _close, _fd, _hessian_ref

X = np.array([0.3, -0.7, 1.1])
V = np.array([0.5, 1.0, -0.3])

_NESTINGS = {
    "hessian": lambda f, x: mc.hessian(f)(x),
    "jacrev_jacfwd": lambda f, x: mc.jacrev(mc.jacfwd(f))(x),
    "jacfwd_jacrev": lambda f, x: mc.jacfwd(mc.jacrev(f))(x),
    "hvp": lambda f, x: mc.hvp(f, (x,), (V,)),
    "grad_jvp": lambda f, x: mc.grad(lambda y: mc.jvp(f, (y,), (V,))[1])(x),
    "jvp_grad": lambda f, x: mc.jvp(mc.grad(f), (x,), (V,))[1],
}
_DIRECTIONAL = {"hvp", "grad_jvp", "jvp_grad"}
_ORDER = sorted(_NESTINGS)
# each case in three nestings, rotating through all six (one forward-over-reverse, one reverse-over-forward at least)
_PAIRS = [(f, _ORDER[(i + k) % len(_ORDER)]) for i, f in enumerate(C.CASES) for k in (0, 2, 4)]


@pytest.mark.parametrize("f, nesting", _PAIRS, ids=[f"{f.__name__}-{n}" for f, n in _PAIRS])
def test_second_derivatives_of_realistic_code(f, nesting):
    H = _hessian_ref(f, X)
    got = _NESTINGS[nesting](f, X.copy())
    _close(got, H @ V if nesting in _DIRECTIONAL else H, tol=2e-5)


# ---------------------------------------------------------------- pytrees, argnums, has_aux, layouts


def _tanh_layer(p):
    return np.sum(np.tanh(p["W"] @ p["x"] + p["b"]) ** 2) + p["s"] ** 2 * np.sum(p["x"])


_P = {"W": np.array([[0.5, -0.2, 0.1], [0.3, 0.4, -0.6]]), "x": X.copy(), "b": np.array([0.1, -0.3]), "s": 0.7}
_KEYS = ["W", "x", "b", "s"]


def _flat(p):
    return np.concatenate([np.ravel(p[k]) for k in _KEYS])


def _unflat(v):
    return {"W": v[:6].reshape(2, 3), "x": v[6:9], "b": v[9:11], "s": v[11]}


def test_hessian_of_dict_of_parameters_block_by_block():
    H = mc.hessian(_tanh_layer)(_P)
    rows = [np.concatenate([np.reshape(H[a][b], (np.size(_P[a]), np.size(_P[b]))) for b in _KEYS], axis=1)
            for a in _KEYS]
    want = _fd(lambda v: _flat(mc.grad(_tanh_layer)(_unflat(v))), _flat(_P))
    _close(np.concatenate(rows, axis=0), want)


@pytest.mark.parametrize("how", ["hvp", "jvp_grad"])
def test_directional_second_derivative_of_dict_of_parameters(how):
    t = np.linspace(-1, 1, 12)
    want = _fd(lambda v: _flat(mc.grad(_tanh_layer)(_unflat(v))), _flat(_P)) @ t
    if how == "hvp":
        got = mc.hvp(_tanh_layer, (_P,), (_unflat(t),))
    else:
        got = mc.jvp(mc.grad(_tanh_layer), (_P,), (_unflat(t),))[1]
    _close(_flat(got), want)


def _two_arguments(x, y):
    return np.sum(np.sin(x) * y ** 2) + np.sum(x) * np.prod(y)


@pytest.mark.parametrize("i, j", [(0, 0), (0, 1), (1, 0), (1, 1)])
def test_hessian_blocks_with_argnums_tuple(i, j):
    args = (X.copy(), np.array([0.2, 0.9, -0.4]))

    def grad_i(z):
        a = [c.copy() for c in args]
        a[j] = z
        return mc.grad(_two_arguments, argnums=i)(*a)
    _close(mc.hessian(_two_arguments, argnums=(0, 1))(*[c.copy() for c in args])[i][j], _fd(grad_i, args[j]))


def _with_aux(x, k):
    y = np.sum(x ** 3) * k
    return y, {"y": y, "x2": x ** 2}


@pytest.mark.parametrize("how", ["hessian", "jacfwd_grad", "jacrev_grad"])
def test_hessian_with_aux(how):
    want = np.diag(6 * X * 2.0)
    if how == "hessian":
        H, aux = mc.hessian(_with_aux, has_aux=True)(X.copy(), 2.0)
    elif how == "jacfwd_grad":
        H, aux = mc.jacfwd(mc.grad(_with_aux, has_aux=True), has_aux=True)(X.copy(), 2.0)
    else:
        H, aux = mc.jacrev(mc.grad(_with_aux, has_aux=True), has_aux=True)(X.copy(), 2.0)
    _close(H, want)
    _close(aux["x2"], X ** 2)


def _gram_energy(A):
    return np.sum(np.tanh(A @ A.T)) + np.linalg.det(A @ A.T)


_A = np.array([[0.3, -0.7, 1.1], [0.4, 0.2, -0.5]])


@pytest.mark.parametrize("layout", ["C", "F", "strided", "transposed_view"])
@pytest.mark.parametrize("nesting", ["hessian", "jacrev_jacfwd"])
def test_hessian_of_inputs_in_any_memory_layout(layout, nesting):
    """Inputs that are only read: any layout gives the C-ordered Hessian (writes through ravel are the WRONG of
    tests/test_regress_hunt6.py)."""
    A = {"C": _A.copy(), "F": np.asfortranarray(_A), "transposed_view": _A.T.copy().T,
         "strided": np.array([[0.3, 9, -0.7, 9, 1.1], [0.4, 9, 0.2, 9, -0.5]])[:, ::2]}[layout]
    want = _fd(lambda z: mc.grad(_gram_energy)(z), _A)
    _close(_NESTINGS[nesting](_gram_energy, A), want)


def _sin_squared_times_x(x):
    return np.sum(np.sin(x) ** 2 * x)


@pytest.mark.parametrize("nesting", ["hessian", "jacfwd_jacrev", "jacrev_jacfwd"])
def test_hessian_of_float32_input(nesting):
    x = X.astype(np.float32)
    xd = x.astype(float)
    want = np.diag(2 * np.cos(2 * xd) * xd + 2 * np.sin(2 * xd))
    _close(_NESTINGS[nesting](_sin_squared_times_x, x.copy()), want, tol=1e-4)
