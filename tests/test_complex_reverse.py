"""Reverse mode of complex numbers (README "Complex numbers"): the convention, each whitelisted rule with
complex inputs, user functions with loops and branches, mixed real/complex programs, and the refusals.

The convention is the real inner product on C = R^2: a pullback maps y_bar to x_bar with
Re(sum(conj(x_bar) x_dot)) == Re(sum(conj(y_bar) y_dot)) for every tangent x_dot, so x_bar = conj(f'(z)) y_bar
for holomorphic f, and the gradient of a real loss is dL/dx + i dL/dy.  check_derivatives tests exactly that
identity (complex cotangents for complex results) and finite differences of each real and imaginary part.
"""
import cmath

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.forward.runtime import fit as _fit
from mooncake_ast.rules.numpy_fft import fft_tangent as _fft_tangent
from mooncake_ast.testing import DerivativeCheckError, check_derivatives

RNG = np.random.default_rng(7)
pytestmark = pytest.mark.filterwarnings("error::numpy.exceptions.ComplexWarning")  # (a cast dropping imaginary parts)


def _c(*shape):
    return RNG.normal(size=shape) + 1j * RNG.normal(size=shape)


Z, W, X = _c(3), _c(3), RNG.normal(size=3)
M, R = _c(3, 3) + 3 * np.eye(3), RNG.normal(size=(3, 3)) + 3 * np.eye(3)
S = complex(0.6, -0.8)

# One case per whitelisted rule (or family sharing one template), complex inputs, reverse mode.
CASES = {
    "arithmetic": (lambda z, w: (z + w) * z - w / z + (-z) ** 2, (Z, W)),
    "power": (lambda z, w: z ** w + np.power(w, 3), (Z, W)),
    "python numbers": (lambda a: a * a + 1.0 / a - abs(a) + complex(a.real, 2 * a.imag) ** 1.5, (S,)),
    "ufuncs": (lambda z, w: np.multiply(z, w) + np.divide(z, w) - np.subtract(z, np.negative(w)) + np.square(z)
               + np.reciprocal(w), (Z, W)),
    "trig": (lambda z: np.sin(z) + np.cos(z) + np.tan(z), (Z * 0.5,)),
    "inverse trig": (lambda z: np.arcsin(z) + np.arccos(z) + np.arctan(z), (Z,)),
    "hyperbolic": (lambda z: np.sinh(z) + np.cosh(z) + np.tanh(z) + np.arcsinh(z) + np.arctanh(0.3 * z), (Z * 0.5,)),
    "arccosh off the reals": (lambda z: np.arccosh(z), (-2.0 + 0.3j + 0.1 * Z,)),
    "exp and logs": (lambda z: np.exp(z) + np.exp2(z) + np.expm1(z) + np.log(z) + np.log2(z) + np.log10(z)
                     + np.log1p(z), (Z,)),
    "sqrt": (lambda z: np.sqrt(z), (Z,)),
    "abs sign angle": (lambda z: np.abs(z) + np.angle(z) + np.sign(z), (Z,)),
    "parts": (lambda z: np.real(z) * 2.0 + np.imag(z) + np.conj(z) + np.real_if_close(z), (Z,)),
    "where": (lambda z, w: np.where(np.abs(z) > 1.0, z, w), (Z, W)),
    "reductions": (lambda m: np.sum(m) + np.mean(m, axis=0) + np.prod(m, axis=1) + np.cumsum(m[0]), (M,)),
    "var std max min": (lambda m: np.var(m) + np.std(m, axis=1) + np.max(m, axis=0) + np.min(m), (M,)),
    "products": (lambda m, z, w: np.dot(m, z) + m @ w + np.inner(m, z) + np.outer(z, w)[0] + np.vdot(z, w), (M, Z, W)),
    "einsum tensordot kron": (lambda m, z: np.einsum("ij,j->i", m, z) + np.tensordot(m, z, axes=1)
                              + np.kron(z, z)[:3], (M, Z)),
    "shapes and indexing": (lambda m, z: np.concatenate([m.T.reshape(9)[:3], z])[1:4] * np.stack([z, z]).sum(axis=0)[0]
                            + m[1, ::-1].conj().copy() + np.transpose(m)[0] + np.reshape(m, (9,))[::3], (M, Z)),
    "fft": (lambda z: np.fft.fft(z) + np.fft.ifft(z, n=3, norm="ortho") + np.fft.fftshift(z), (Z,)),
    "fft 2-D and real": (lambda m: np.fft.fft2(m)[0] + np.fft.irfft(m[0], n=3), (M,)),
    "hfft": (lambda z: np.fft.hfft(z) * 1.0, (Z,)),
    "norms": (lambda m, z: np.linalg.norm(z) + np.linalg.norm(m, ord="nuc") + np.linalg.norm(m, axis=1)[0]
              + np.linalg.norm(z, ord=3), (M, Z)),
    "inv det solve": (lambda m, z: np.linalg.inv(m) @ z + np.linalg.det(m) + np.linalg.solve(m, z), (M, Z)),
    "real matrix, complex vector": (lambda r, z: np.linalg.solve(r, z) + np.linalg.inv(r) @ z, (R, Z)),
    "methods": (lambda m: m.sum() + m.mean(axis=1) + m.conj().ravel()[:3] + m.dot(m[0]), (M,)),
    "attributes .real .imag": (lambda z: z.real * z.imag + getattr(z, "imag") ** 2, (Z,)),
    "eig eigvals": (lambda m: np.linalg.eigvals(m) + np.abs(np.linalg.eig(m)[1][0]), (M,)),
    "eigh eigvalsh": (lambda m: np.linalg.eigh(m)[1][0] * np.linalg.eigvalsh(m, UPLO="U"), (M,)),
    "svd": (lambda m: np.linalg.svd(m, full_matrices=False)[0][1] + np.linalg.svd(m.T, full_matrices=False)[2][:, 0]
            + np.linalg.svd(m, compute_uv=False), (M[:, :2],)),
    "complex128 constructor": (lambda x, z: np.complex128(x) * z + np.complex128(z[0]), (0.7, Z)),
    "cumprod": (lambda z, m: np.cumprod(z) + np.cumprod(m, axis=1)[1] + m.cumprod(axis=0)[2], (Z, M)),
    "slogdet": (lambda m: np.linalg.slogdet(m)[1] * (1.0 + 0.5j) + np.linalg.slogdet(m)[0], (M,)),
    "cholesky": (lambda m: np.linalg.cholesky(m @ m.conj().T + 3 * np.eye(3))[2]
                 + np.linalg.cholesky(m.conj().T @ m + 3 * np.eye(3), upper=True)[0], (M,)),
    "cholesky of a non-Hermitian input": (lambda m: np.linalg.cholesky(m + 4 * np.eye(3))[1], (M,)),  # (reads a triangle)
    "qr": (lambda m: np.linalg.qr(m)[0][1] + np.linalg.qr(m)[1][0] + np.linalg.qr(m[:, :2], mode="r")[1].sum(), (M,)),
    "lstsq": (lambda m, z: np.linalg.lstsq(m[:, :2], z, rcond=None)[0] + np.linalg.lstsq(m[:, :2], z, rcond=None)[1]
              + np.linalg.lstsq(m[:, :2], z, rcond=None)[3], (M, Z)),
    "lstsq, real matrix": (lambda r, z: np.linalg.lstsq(r[:, :2], z, rcond=None)[0], (R, Z)),
    "forward code's fft_tangent and fit": (lambda z, w: _fft_tangent(np.fft.fft, z, w) + _fit(z, w[0])
                                           + _fit(z, w[1].real), (Z, Z[::-1] * 0.5)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_whitelisted_rules_with_complex_inputs(name):
    f, args = CASES[name]
    check_derivatives(f, *args, modes=("reverse",), fd_max=6)


# ---------------------------------------------------------------- the convention


def test_gradient_of_a_real_loss_is_dl_dx_plus_i_dl_dy():
    z = np.array([1.0 + 2.0j, 0.5 - 1.0j])
    g = mc.grad(lambda z: np.sum(np.abs(z) ** 2))(z)
    assert g.dtype == complex and np.allclose(g, 2 * z)  # |z|^2 = x^2 + y^2: 2x + 2iy
    assert mc.grad(lambda a: (a * a).real)(1.0 + 2.0j) == pytest.approx(2.0 - 4.0j)  # x^2 - y^2: 2x - 2iy
    assert type(mc.grad(lambda a: abs(a))(3.0 + 4.0j)) is complex


def test_holomorphic_pullback_is_conj_of_the_derivative_times_the_cotangent():
    z = 0.3 + 0.7j
    _, pb = mc.vjp(lambda z: z ** 3, z)
    (z_bar,) = pb(1.0 - 2.0j)
    assert z_bar == pytest.approx(np.conj(3 * z ** 2) * (1.0 - 2.0j))  # (JAX's vjp returns the conjugate)


def test_grad_of_a_complex_result_points_to_vjp():
    with pytest.raises(mc.ComplexReverseError, match="mc.vjp"):
        mc.grad(lambda z: np.sum(z * z))(Z)


def test_a_pullback_without_conj_fails_the_check():
    """The checker tests the convention itself: a rule giving f'(z) y_bar (no conj) for z^2 is caught."""
    def square(z):
        return z * z

    @mc.frule(square)
    def _square_jvp(primals, tangents):
        (z,), (dz,) = primals, tangents
        return z * z, 2 * z * dz

    @mc.rrule(square)
    def _square_vjp(z):
        return z * z, lambda y_bar: (2 * z * y_bar,)  # wrong for complex z: conj(2 z) y_bar

    def f(z):
        return square(z)

    check_derivatives(f, 0.7)  # right for real numbers
    with pytest.raises(DerivativeCheckError, match="reverse"):
        check_derivatives(f, 0.7 + 0.2j, modes=("reverse",))


# ---------------------------------------------------------------- user programs


def loop_loss(z, w, n):
    """A real loss of complex parameters through a loop, a branch and Python complex numbers."""
    acc = 0.0
    c = complex(0.5, -0.25)
    for k in range(n):
        t = z * np.exp(1j * k * w) + c
        if np.abs(t[0]) > 1.0:
            acc = acc + np.sum(np.abs(t) ** 2)
        else:
            acc = acc + np.real(np.vdot(t, z)) + np.angle(t[1])
        c = c * 0.5
    return acc


def test_real_loss_of_complex_parameters_with_loops_and_branches():
    z, w = np.array([0.9 + 0.4j, -0.3 + 0.8j]), 0.7 + 0.1j
    check_derivatives(loop_loss, z, w, 3)
    gz, gw = mc.grad(loop_loss, argnums=(0, 1))(z, w, 3)
    assert gz.dtype == complex and type(gw) is complex


def mixed(x, z, scale):
    """Real and complex values meeting: real parameters through complex intermediates, and back."""
    spectrum = np.fft.rfft(x * scale)
    phase = np.exp(1j * x[: spectrum.size])
    y = spectrum * phase + z
    return np.sum(np.real(y) ** 2) + scale * np.sum(np.imag(y * np.conj(z)))


def test_mixed_real_and_complex_program():
    x, z = RNG.normal(size=4), _c(3)
    check_derivatives(mixed, x, z, 1.3)
    gx, gz, gs = mc.grad(mixed, argnums=(0, 1, 2))(x, z, 1.3)
    assert gx.dtype == float and gz.dtype == complex and type(gs) is float  # real arguments get real gradients


def _in_place(z, w):
    a = z.copy()
    a *= w
    a += 1j
    a /= w + 2.0
    c = np.empty(3, dtype=complex)
    np.multiply(a, z, out=c)
    np.sin(c, out=c)
    return c


def test_in_place_updates_and_out_arguments():
    check_derivatives(_in_place, Z, W, modes=("reverse",))


def test_complex_values_inside_containers():
    def f(p):
        return np.sum(np.abs(p["a"] * p["b"][0])) + p["b"][1].real

    p = {"a": Z, "b": [W, 2.0 + 1.0j]}
    check_derivatives(f, p, modes=("reverse",))


# ---------------------------------------------------------------- refusals stay refusals


def _maximum_loss(z):
    return np.sum(np.real(np.maximum(z, 0.5 * z)))


def _dispatched(z, fn):
    return np.sum(np.real(fn(z)))


def _maximum_out(z):
    c = np.empty(3, dtype=complex)
    np.maximum(z, 0.5 * z, out=c)
    return np.sum(c.real)


def _fractional_power(x):
    s = x ** 0.5  # a complex number for x < 0: the real-number code after it must not run on it
    return (s * s * s).imag


@pytest.mark.parametrize("f, args", [
    (_maximum_loss, (Z,)),  # a template not marked right for complex values
    (_dispatched, (Z, np.sinc)),  # the same, dispatched when the code runs
    (_maximum_out, (Z,)),  # the same, writing into out=
    (lambda z: np.sum(np.real(_dispatched(z, np.sinc) * z)), (Z,)),  # inside a callee
    (lambda z: np.sum(np.real(np.sort(z))), (Z,)),  # complex values have no order to differentiate through
    (lambda z: np.sum(np.real(np.clip(z, -0.5, 0.5))), (Z,)),
    (lambda x: np.sum(np.real(np.fmax(np.fft.fft(x), 0.5))), (X,)),  # complex only in between
    (_fractional_power, (-2.0,)),
])
def test_rules_not_marked_for_complex_refuse(f, args):
    with pytest.raises(mc.MooncakeError, match="complex"):
        mc.grad(f)(*args)
    with pytest.raises(mc.MooncakeError, match="complex"):
        mc.vjp(f, *args)[1](1.0)


def test_dispatched_whitelisted_rule_runs():
    check_derivatives(_dispatched, Z, np.sin, modes=("reverse",))


def test_fractional_power_of_a_complex_base_is_differentiated():
    def f(x):
        s = complex(x) ** 0.5
        return (s * s * s).imag + cmath.pi

    check_derivatives(f, -2.0)


def test_scipy_rules_marked_for_complex():
    sp = pytest.importorskip("scipy.special")
    spla = pytest.importorskip("scipy.linalg")
    check_derivatives(lambda z: sp.erf(z) + sp.erfc(2 * z), 0.5 * Z, modes=("reverse",))
    check_derivatives(lambda a: spla.sqrtm(a), M, modes=("reverse",))
