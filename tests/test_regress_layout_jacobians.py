"""Jacobians and Hessians of functions that write through `A.ravel()` / `A.reshape(-1)` (a view of a C-ordered A, a
copy of a Fortran-ordered one), for inputs in either memory order: the directions jacfwd and hessian make are laid
out as their input (higher._zeros_like_leaf), and hvp_core lays tangents out as their primals, so forward code
decides view-or-copy as the plain call does."""
import numpy as np
import pytest

import mooncake_ast as mc

A0 = np.array([[0.3, -0.7, 1.1], [0.4, 0.2, -0.5]])


def ravel_write(A):
    v = A.ravel()
    v[0] = v[0] * 3.0
    return np.sum(A ** 2) + np.sum(v ** 3)


def reshape_add(A):
    v = A.reshape(-1)
    v[1] += v[0] ** 2
    return np.sum(A ** 3) + np.sum(v ** 2)


def np_reshape_write(A):
    v = np.reshape(A, (3, 2))
    v[0, 1] = np.sin(v[1, 0])
    return np.sum(A ** 2 * v.T.reshape(2, 3)) + np.sum(np.cos(v))


def ravel_vector(A):
    v = A.ravel()
    v[2] = v[2] * v[3]
    return np.concatenate([A.ravel() ** 2, v])


FUNCTIONS = [ravel_write, reshape_add, np_reshape_write]


def _layout(A, order):
    return np.array(A, order=order, copy=True)


def _fd(g, order, h=1e-6):
    cols = []
    for k in range(A0.size):
        e = np.zeros(A0.size)
        e[k] = h
        e = e.reshape(A0.shape)
        cols.append((np.asarray(g(_layout(A0 + e, order))) - np.asarray(g(_layout(A0 - e, order)))) / (2 * h))
    return np.stack(cols, axis=-1).reshape(np.shape(g(_layout(A0, order))) + A0.shape)


def _close(a, b, tol=1e-5):
    np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=tol, atol=tol)


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("f", FUNCTIONS + [ravel_vector], ids=lambda f: f.__name__)
@pytest.mark.parametrize("api", ["jacfwd", "jacrev"])
def test_first_order_any_layout(api, f, order):
    _close(getattr(mc, api)(f)(_layout(A0, order)), _fd(f, order))


SECOND = {"hessian": mc.hessian, "jacfwd_grad": lambda f: mc.jacfwd(mc.grad(f)),
          "jacfwd_jacfwd": lambda f: mc.jacfwd(mc.jacfwd(f)), "jacrev_jacfwd": lambda f: mc.jacrev(mc.jacfwd(f))}


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("api", sorted(SECOND))
def test_second_order_any_layout(api, f, order):
    want = _fd(lambda z: mc.grad(f)(z), order)
    _close(SECOND[api](f)(_layout(A0, order)), want, tol=1e-4)


@pytest.mark.parametrize("tangent_order", ["C", "F"])
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_hessian_vector_products_any_layout(f, order, tangent_order):
    H = _fd(lambda z: mc.grad(f)(z), order)
    t = _layout(np.array([[1.0, 0.5, -0.3], [0.2, -1.0, 0.7]]), tangent_order)
    want = np.tensordot(H, t, axes=2)
    _close(mc.hvp(f, (_layout(A0, order),), (t,)), want, tol=1e-4)
    _close(mc.jvp(mc.grad(f), (_layout(A0, order),), (t,))[1], want, tol=1e-4)
