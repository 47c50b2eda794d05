"""Tangents laid out in memory as their primals are (C or Fortran order).

`v = A.ravel()` is a view of a C-ordered A and a copy of a Fortran-ordered one; its tangent `dA.ravel()` must be
the same kind, or a write through v reaches the tangent alone (or the primal alone).  A tangent given in another
order than its primal (api_checks.laid_out_like), and the tangents of arrays made Fortran-ordered inside the
function (np.asfortranarray, `.copy(order="F")`), were laid out otherwise: jvp 6.94 for 10.54."""
import numpy as np
import pytest

import mooncake_ast as mc

A = np.array([[0.5, -1.2, 0.8], [1.1, 0.3, -0.7]])
T = np.array([[0.2, 0.9, -0.4], [0.6, -1.0, 0.3]])


def write_into_ravel(A):
    v = A.ravel()
    v[0] = v[0] * 3.0
    return np.sum(A ** 2) + np.sum(v ** 3)


def write_into_reshape(A):
    v = A.reshape(-1)
    v[1] += v[0] ** 2
    return np.sum(A ** 3) + np.sum(v ** 2)


def fortran_made_inside(A):
    B = np.asfortranarray(A * 1.0)
    V = B.ravel()
    V[0] = V[0] * 5.0
    return np.sum(B ** 2) + np.sum(V ** 2)


def fortran_copy_method(A):
    B = (A * 1.0).copy(order="F")
    V = B.reshape(-1)
    V[2] = V[2] + V[0] ** 2
    return np.sum(B ** 3) + np.sum(V)


def _fd_directional(f, a, t, order, h=1e-6):
    return (f(np.array(a + h * t, order=order)) - f(np.array(a - h * t, order=order))) / (2 * h)


@pytest.mark.parametrize("f", [write_into_ravel, write_into_reshape, fortran_made_inside, fortran_copy_method],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("primal, tangent", [("C", "C"), ("C", "F"), ("F", "C"), ("F", "F")])
def test_jvp_whatever_the_layouts(f, primal, tangent):
    a, t = np.array(A, order=primal), np.array(T, order=tangent)
    want = _fd_directional(f, A, T, primal)
    np.testing.assert_allclose(mc.jvp(f, (a,), (t,))[1], want, rtol=1e-6)
    np.testing.assert_allclose(np.sum(mc.grad(f)(np.array(A, order=primal)) * T), want, rtol=1e-6)
