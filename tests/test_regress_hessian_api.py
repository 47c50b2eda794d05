"""mc.hessian's API gaps (issue 10): keyword arguments passed through every entry point as constants (JAX's rule:
argnums picks positional arguments; keywords go to f unchanged), and the Hessian of a function with a non-scalar
result in JAX's layout (`jacfwd(jacrev(f))`: the output's dimensions, then the input's twice).  Everything is checked
against central differences of f (first order) and of mc.grad / mc.jacrev (second order)."""
from __future__ import annotations

import numpy as np
import pytest

import mooncake_ast as mc

X = np.array([0.3, -0.7, 1.1])
Y = np.array([0.5, 1.3])


def _fd(d1, x, h=1e-6):
    """Central differences of d1 at array x: d1's dimensions, then x's."""
    x = np.asarray(x, dtype=float)
    cols = []
    for k in range(x.size):
        e = np.zeros(x.size)
        e[k] = h
        e = e.reshape(x.shape)
        cols.append((np.asarray(d1(x + e), dtype=float) - np.asarray(d1(x - e), dtype=float)) / (2 * h))
    return np.stack(cols, axis=-1).reshape(np.shape(d1(x.copy())) + x.shape)


def _close(a, b, tol=1e-5):
    np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=tol, atol=tol)


# ---------------------------------------------------------------- scalar functions taking keyword arguments


def loop_kw(x, scale=1.5, steps=3):
    s = 0.0
    for k in range(steps):
        s = s + np.sum(np.sin(x * (k + 1))) * scale
    return s


def branch_kw(x, scale=1.5, mode="cube"):
    if mode == "cube":
        return np.sum(x ** 3) * scale
    return np.sum(np.exp(x)) * scale + x[0] * x[1]


def inplace_kw(x, scale=1.5):
    y = x.copy()
    for i in range(1, y.shape[0]):
        y[i] = y[i] * y[i - 1] + scale
    return np.sum(y ** 2)


class Quadratic:
    def __init__(self, a):
        self.a = a

    def energy(self, x, scale=1.0):
        return np.sum(self.a * x ** 2) * scale + np.prod(np.cos(x))


SCALARS = [
    (loop_kw, {"scale": 2.0}),
    (loop_kw, {"scale": -0.5, "steps": 2}),
    (branch_kw, {"scale": 2.0}),
    (branch_kw, {"scale": 0.7, "mode": "exp"}),
    (inplace_kw, {"scale": 0.3}),
    (Quadratic(np.array([1.0, 2.0, 3.0])).energy, {"scale": 2.5}),
]
IDS = ["loop", "loop_steps", "branch_cube", "branch_exp", "inplace", "method"]


def _bound(f, kw):
    return lambda z: f(z, **kw)


@pytest.mark.parametrize("f,kw", SCALARS, ids=IDS)
def test_first_order_entry_points_pass_keywords(f, kw):
    want = _fd(_bound(f, kw), X)
    _close(mc.grad(f)(X.copy(), **kw), want)
    value, g = mc.value_and_grad(f)(X.copy(), **kw)
    _close(value, f(X.copy(), **kw))
    _close(g, want)


@pytest.mark.parametrize("f,kw", SCALARS, ids=IDS)
@pytest.mark.parametrize("api", ["hessian", "jacfwd_grad", "jacrev_grad"])
def test_hessian_with_keyword_arguments(f, kw, api):
    H = {"hessian": mc.hessian(f), "jacfwd_grad": mc.jacfwd(mc.grad(f)), "jacrev_grad": mc.jacrev(mc.grad(f))}[api]
    want = _fd(lambda z: mc.grad(f)(z.copy(), **kw), X)
    _close(H(X.copy(), **kw), want, tol=1e-4)
    _close(H(X.copy()), _fd(lambda z: mc.grad(f)(z.copy()), X), tol=1e-4)  # (the defaults again: nothing kept)


def vector_kw(x, scale=1.5):
    return np.array([np.sum(x ** 3) * scale, x[0] * x[1] * x[2], np.sin(x[1]) * scale])


@pytest.mark.parametrize("outer", ["jacfwd", "jacrev"])
@pytest.mark.parametrize("inner", ["jacfwd", "jacrev"])
def test_jacobian_of_jacobian_with_keyword_arguments(outer, inner):
    J2 = getattr(mc, outer)(getattr(mc, inner)(vector_kw))
    want = _fd(lambda z: mc.jacrev(vector_kw)(z.copy(), scale=-2.0), X)
    _close(mc.jacrev(vector_kw)(X.copy(), scale=-2.0), _fd(lambda z: vector_kw(z, scale=-2.0), X))
    _close(mc.jacfwd(vector_kw)(X.copy(), scale=-2.0), _fd(lambda z: vector_kw(z, scale=-2.0), X))
    _close(J2(X.copy(), scale=-2.0), want, tol=1e-4)


def two_args_kw(x, y, scale=1.0):
    return np.sum(x ** 2 * y[0]) * scale + np.sin(y[1]) * x[0]


def test_hessian_tuple_argnums_with_keyword_arguments():
    H = mc.hessian(two_args_kw, argnums=(0, 1))(X.copy(), Y.copy(), scale=3.0)
    ref = mc.hessian(lambda x, y: two_args_kw(x, y, scale=3.0), argnums=(0, 1))(X.copy(), Y.copy())
    for i in range(2):
        for j in range(2):
            _close(H[i][j], ref[i][j])
    g1 = lambda y: mc.grad(two_args_kw, argnums=0)(X.copy(), y, scale=3.0)  # noqa: E731
    _close(H[0][1], _fd(g1, Y), tol=1e-4)


def aux_kw(x, scale=1.0):
    return np.sum(np.cos(x)) * scale, {"scale": scale}


def test_hessian_has_aux_with_keyword_arguments():
    H, aux = mc.hessian(aux_kw, has_aux=True)(X.copy(), scale=2.0)
    assert aux == {"scale": 2.0}
    _close(H, np.diag(-np.cos(X) * 2.0))


# ---------------------------------------------------------------- Hessians of functions with non-scalar results


def two_cubics(x):
    return np.array([np.sum(x ** 3), x[0] * x[1] * x[2]])


def looped_vector(x):
    out = np.zeros(2)
    for k in range(x.shape[0]):
        if x[k] > 0:
            out[0] = out[0] + x[k] ** 3
        else:
            out[1] = out[1] + np.sin(x[k]) * x[0]
    return out


def inplace_vector(x):
    y = x.copy()
    y[1:] = y[1:] * y[:-1]
    return y ** 2


class Field:
    def __init__(self, w):
        self.w = w

    def potential(self, x):
        return np.tanh(self.w * x) * np.sum(x ** 2)


VECTORS = [two_cubics, looped_vector, inplace_vector, Field(np.array([0.5, -1.0, 2.0])).potential]
VIDS = ["two_cubics", "loop_branch", "inplace", "method"]


def _vector_hessian_ref(f, x):
    """Differences of mc.jacrev (which is checked against differences of f first)."""
    _close(mc.jacrev(f)(x.copy()), _fd(f, x))
    return _fd(lambda z: mc.jacrev(f)(z.copy()), x)


@pytest.mark.parametrize("f", VECTORS, ids=VIDS)
def test_hessian_of_vector_valued_function(f):
    want = _vector_hessian_ref(f, X)
    H = mc.hessian(f)
    out = np.shape(f(X.copy()))
    got = H(X.copy())
    assert got.shape == out + X.shape + X.shape
    _close(got, want, tol=1e-4)
    _close(H(X.copy() * 0.9), _fd(lambda z: mc.jacrev(f)(z.copy()), X * 0.9), tol=1e-4)  # (the kept decision)
    _close(got, mc.jacfwd(mc.jacrev(f))(X.copy()), tol=1e-9)


def test_hessian_vector_then_scalar_kinds():
    """One Hessian function called at a matrix (vector result) and a number (scalar result): each kind its way."""
    def f(x):
        return np.sin(x) * x

    H = mc.hessian(f)
    _close(H(0.7), 2 * np.cos(0.7) - 0.7 * np.sin(0.7))
    got = H(X.copy())
    assert got.shape == (3, 3, 3)
    _close(got, _fd(lambda z: mc.jacrev(f)(z.copy()), X), tol=1e-4)
    _close(H(0.7), 2 * np.cos(0.7) - 0.7 * np.sin(0.7))


def matrix_out(x):
    return np.outer(x, x) * np.sum(x)


def test_hessian_of_matrix_valued_function():
    got = mc.hessian(matrix_out)(X.copy())
    assert got.shape == (3, 3, 3, 3)
    _close(got, _vector_hessian_ref(matrix_out, X), tol=1e-4)


def pytree_out(x):
    return {"a": np.sum(x ** 3), "b": np.sin(x) * x[0]}


def test_hessian_of_pytree_valued_function():
    got = mc.hessian(pytree_out)(X.copy())
    want = mc.jacfwd(mc.jacrev(pytree_out))(X.copy())
    assert set(got) == {"a", "b"} and got["a"].shape == (3, 3) and got["b"].shape == (3, 3, 3)
    _close(got["a"], _fd(lambda z: mc.grad(lambda y: pytree_out(y)["a"])(z.copy()), X), tol=1e-4)
    _close(got["b"], _fd(lambda z: mc.jacrev(lambda y: pytree_out(y)["b"])(z.copy()), X), tol=1e-4)
    _close(got["b"], want["b"])


def vector_two_args(x, y):
    return np.array([np.sum(x ** 2) * y[0], x[0] * np.sin(y[1])])


def test_hessian_of_vector_valued_function_tuple_argnums():
    """JAX's nesting: H[i][j] is d2 f / d arg_i d arg_j with the output's dimensions first."""
    H = mc.hessian(vector_two_args, argnums=(0, 1))(X.copy(), Y.copy())
    assert H[0][0].shape == (2, 3, 3) and H[0][1].shape == (2, 3, 2) and H[1][0].shape == (2, 2, 3)
    assert H[1][1].shape == (2, 2, 2)
    g0 = lambda y: mc.jacrev(vector_two_args, argnums=0)(X.copy(), y)  # noqa: E731
    _close(H[0][1], _fd(g0, Y), tol=1e-4)
    g1 = lambda x: mc.jacrev(vector_two_args, argnums=1)(x, Y.copy())  # noqa: E731
    _close(H[1][0], _fd(g1, X), tol=1e-4)
    _close(H[0][0], _fd(lambda x: mc.jacrev(vector_two_args)(x, Y.copy()), X), tol=1e-4)


def vector_aux(x):
    return np.sin(x) * np.sum(x), "tag"


def test_hessian_of_vector_valued_function_has_aux():
    H, aux = mc.hessian(vector_aux, has_aux=True)(X.copy())
    assert aux == "tag" and H.shape == (3, 3, 3)
    _close(H, _fd(lambda z: mc.jacrev(lambda y: vector_aux(y)[0])(z.copy()), X), tol=1e-4)


def test_hessian_of_vector_valued_function_with_keyword_arguments():
    got = mc.hessian(vector_kw)(X.copy(), scale=-2.0)
    _close(got, _fd(lambda z: mc.jacrev(vector_kw)(z.copy(), scale=-2.0), X), tol=1e-4)


def test_hessian_of_function_writing_its_argument_vector_result():
    """f writes its argument: the vector path starts from the entry values (the scalar attempt ran f first)."""
    def f(x):
        x[0] = x[0] * x[1]
        return x ** 2

    x = X.copy()
    got = mc.hessian(f)(x)

    def ref(z):
        z = z.copy()
        return mc.jacrev(f)(z)
    _close(got, _fd(ref, X), tol=1e-4)


def test_jacfwd_of_grad_still_refuses_a_vector_result():
    """Only mc.hessian takes any output (as jax.hessian does); mc.jacfwd(mc.grad(f)) is a gradient's Jacobian."""
    with pytest.raises(mc.NonScalarOutputError, match="needs a real scalar result"):
        mc.jacfwd(mc.grad(two_cubics))(X.copy())


def test_scalar_hessian_unchanged():
    f = loop_kw
    _close(mc.hessian(f)(X.copy()), _fd(lambda z: mc.grad(f)(z.copy()), X), tol=1e-4)
    assert mc.hessian(lambda x: np.sum(x ** 3))(np.array([1.0, 2.0])).tolist() == [[6.0, 0.0], [0.0, 12.0]]


# ---------------------------------------------------------------- mc.grad called with keywords inside differentiated code


def mode_kw(y, mode="sin", scale=1.0):
    return (np.sum(np.sin(y)) if mode == "sin" else np.sum(y ** 3)) * scale


def grad_with_literal_keywords(z):
    return mc.grad(mode_kw)(z, mode="cube", scale=2.0)


def cube_or_sin(y, mode="sin"):
    return np.sum(np.sin(y)) if mode == "sin" else np.sum(y ** 3)


def grad_with_string_keyword(z):
    return np.sum(mc.grad(cube_or_sin)(z, mode="cube") * z)


def grad_with_value_and_grad_keyword(z):
    value, g = mc.value_and_grad(mode_kw)(z, mode="cube", scale=0.5)
    return g * value


@pytest.mark.parametrize("f", [grad_with_literal_keywords, grad_with_value_and_grad_keyword])
def test_forward_over_grad_called_with_constant_keywords(f):
    want = _fd(f, X)
    _close(mc.jacfwd(f)(X.copy()), want, tol=1e-4)
    V = np.array([1.0, -2.0, 0.5])
    _close(mc.jvp(f, (X.copy(),), (V,))[1], want @ V, tol=1e-4)


def test_reverse_over_grad_called_with_a_string_keyword():
    _close(mc.grad(grad_with_string_keyword)(X.copy()), _fd(grad_with_string_keyword, X), tol=1e-4)


def grad_with_differentiated_keyword(z):
    return mc.grad(mode_kw)(z, scale=z[0])


def test_keyword_depending_on_the_input_is_refused_nested():
    with pytest.raises(mc.NestingError, match="keyword argument.*scale.*depends on the differentiated inputs"):
        mc.jvp(grad_with_differentiated_keyword, (X.copy(),), (np.ones(3),))


def test_reverse_over_grad_with_a_number_keyword_is_refused():
    """Reverse mode cannot tell a constant number keyword from a differentiated one: refused, never dropped."""
    with pytest.raises(mc.NestingError, match="reverse mode cannot tell it is a constant"):
        mc.jacrev(grad_with_literal_keywords)(X.copy())
    with pytest.raises(mc.NestingError, match="reverse mode cannot tell it is a constant"):
        mc.jacrev(grad_with_differentiated_keyword)(X.copy())


@pytest.mark.parametrize("outer", ["jacfwd", "jacrev"])
def test_third_order_with_keyword_arguments(outer):
    T = getattr(mc, outer)(mc.hessian(loop_kw))(X.copy(), scale=-0.5, steps=2)
    _close(T, _fd(lambda z: mc.hessian(loop_kw)(z.copy(), scale=-0.5, steps=2), X, h=1e-5), tol=1e-4)


def weighted_sines(y, w=None):
    return np.sum(np.sin(y) * w ** 2)


@pytest.mark.parametrize("view", ["same", "reversed", "in_tuple"])
@pytest.mark.parametrize("api", ["hessian", "jacfwd_grad", "jacrev_grad"])
def test_keyword_array_sharing_the_argument_is_a_constant(view, api):
    """`mc.hessian(f)(x, w=x)`: w is a constant (as mc.grad and JAX hold it), not moved with x by identity."""
    x = X.copy()
    w = {"same": x, "reversed": x[::-1], "in_tuple": x}[view]
    f = weighted_sines if view != "in_tuple" else (lambda y, w=None: weighted_sines(y, w=w[0]))
    kw = {"w": w if view != "in_tuple" else (w,)}
    H = {"hessian": mc.hessian(f), "jacfwd_grad": mc.jacfwd(mc.grad(f)), "jacrev_grad": mc.jacrev(mc.grad(f))}[api]
    w0 = np.array(w, copy=True)
    _close(mc.grad(f)(x, **kw), np.cos(X) * w0 ** 2)
    _close(H(x, **kw), np.diag(-np.sin(X) * w0 ** 2))


@pytest.mark.parametrize("how", ["keyword", "positional"])
@pytest.mark.parametrize("api", ["grad", "hessian", "jacfwd", "jacrev"])
def test_partial_holding_the_argument_holds_a_constant(how, api):
    """`functools.partial(f, w=x)` differentiated at that very x: the bound x is a constant (aliases.held_arrays looks
    into a partial's arguments); mc.grad gave cos(x) x^2 + 2 x sin(x), the derivative with w moving too."""
    import functools

    x = X.copy()
    if how == "keyword":
        p = functools.partial(weighted_sines, w=x)
    else:
        p = functools.partial(lambda w, y: weighted_sines(y, w=w), x)
    if api == "grad":
        got, want = mc.grad(p)(x), np.cos(X) * X ** 2
    elif api == "hessian":
        got, want = mc.hessian(p)(x), np.diag(-np.sin(X) * X ** 2)
    else:  # (the Jacobian of the gradient, by either mode)
        got, want = getattr(mc, api)(mc.grad(p))(x), np.diag(-np.sin(X) * X ** 2)
    _close(got, want)
