"""Complex scipy.linalg.schur (complex A, or output='complex'), reverse mode (rules/scipy_linalg_schur.py).

LAPACK fixes each Schur vector's phase arbitrarily, so only functions that do not depend on those phases have a
derivative.  Reverse mode checks that from the adjoints and refuses otherwise; forward mode cannot check it and
refuses (so check_derivatives, which compares reverse with forward mode, cannot run here: the gradients are
compared with central finite differences of the real and imaginary parts instead)."""
import numpy as np
import pytest

import mooncake_ast as mc

sl = pytest.importorskip("scipy.linalg")

RNG = np.random.default_rng(3)
B = RNG.normal(size=(4, 4))
MATRICES = {
    "complex 3x3": RNG.normal(size=(3, 3)) + 1j * RNG.normal(size=(3, 3)),
    "real 3x3, complex form": RNG.normal(size=(3, 3)),
    "complex 4x4": RNG.normal(size=(4, 4)) + 1j * RNG.normal(size=(4, 4)),
    "real 2x2 rotation-like": np.array([[0.3, -1.2], [0.9, 0.1]]),
}


def norms(a):
    T, Z = sl.schur(a, output="complex")
    n = len(a)
    return np.sum(np.abs(T) ** 2) + np.sum(np.abs(Z) * B[:n, :n])


def matrix_function(a):
    T, Z = sl.schur(a, output="complex")
    n = len(a)
    f = Z @ np.diag(np.exp(np.diag(T))) @ np.conj(Z).T
    return np.real(np.trace(f @ B[:n, :n])) + np.real(np.sum(np.diag(T) ** 2))


def similarity(a):
    T, Z = sl.schur(a, output="complex")
    return np.sum(np.abs(Z @ (T @ T) @ np.conj(Z).T) ** 2) + np.imag(np.prod(np.diag(T)))


def _fd_grad(f, a, h=1e-6):
    g = np.zeros(a.shape, dtype=a.dtype)
    for idx in np.ndindex(a.shape):
        for unit in ((1.0, 1j) if np.iscomplexobj(a) else (1.0,)):
            e = np.zeros(a.shape, dtype=a.dtype)
            e[idx] = unit
            d = (f(a + h * e) - f(a - h * e)) / (2 * h)
            g[idx] += d * unit  # (the gradient in the inner product Re(conj(a) b): d/dRe + i d/dIm)
    return g


@pytest.mark.parametrize("fn", [norms, matrix_function, similarity])
@pytest.mark.parametrize("which", list(MATRICES))
def test_phase_free_functions_of_the_complex_schur_form(fn, which):
    a = MATRICES[which]
    g = mc.grad(fn)(a)
    np.testing.assert_allclose(g, _fd_grad(fn, a), rtol=1e-5, atol=1e-6)
    y, pb = mc.vjp(fn, a)
    np.testing.assert_allclose(pb(2.0)[0], 2.0 * g, rtol=1e-12, atol=1e-12)


def phase_of_a_vector(a):
    T, Z = sl.schur(a, output="complex")
    return np.real(Z[0, 0])


def off_diagonal(a):
    T, Z = sl.schur(a, output="complex")
    return np.real(T[0, 1]) + np.sum(np.abs(T))


def elementwise_square(a):
    T, Z = sl.schur(a, output="complex")
    return np.abs(np.sum(Z @ (T * T) @ np.conj(Z).T))


@pytest.mark.parametrize("fn", [phase_of_a_vector, off_diagonal, elementwise_square])
def test_functions_of_the_phases_are_refused_in_reverse_mode(fn):
    with pytest.raises(mc.MooncakeError, match="phases of the Schur vectors"):
        mc.grad(fn)(MATRICES["complex 3x3"])


def test_forward_mode_refuses_by_name():
    with pytest.raises(mc.MooncakeError, match="forward mode of scipy.linalg.schur.*reverse mode"):
        mc.jvp(norms, (MATRICES["complex 3x3"],), (np.ones((3, 3), dtype=complex),))


def test_real_schur_form_unchanged():
    a = np.array([[2.0, 0.3, -0.1], [0.2, -1.0, 0.4], [0.0, 0.5, 0.7]])
    mc.testing.check_derivatives(lambda m: np.sum(sl.schur(m)[0] ** 2) + np.sum(sl.schur(m)[1][:, 0] ** 2), a)
