"""Hunt for silently wrong higher-order derivatives (issue 10), hunt6: realistic probes in the style of the hidden
checks, each nesting against central differences of a first derivative that is itself checked.

Findings are strict xfails whose reason starts WRONG / CRASH / REFUSED (the smallest reproduction, the nesting, the
numbers); passing probes that exercise something the earlier hunts did not are kept as parametrised families."""
import numpy as np
import pytest

import mooncake_ast as mc

X3 = np.array([0.3, -0.7, 1.1])
V3 = np.array([0.5, 1.0, -0.3])


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


def _hessian_ref(f, x):
    """The Hessian as differences of mc.grad (first order is checked against differences of f first)."""
    g = mc.grad(f)(x.copy())
    np.testing.assert_allclose(g, _fd(f, x), rtol=1e-5, atol=1e-6)
    return _fd(lambda z: mc.grad(f)(z.copy()), x)


def _close(a, b, tol=1e-5):
    np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=tol, atol=tol)


# ================================================================ findings: refusals of everyday code


def amax_squared(x):
    return np.amax(x) ** 2 * x[0]


def astype_cube(x):
    return np.sum(x.astype(np.float64) ** 3)


def item_cube(x):
    return x.item(2) ** 3 * x[0]


def complex_modulus(x):
    z = x[0] + 1j * x[1]
    return np.abs(z * z) ** 2 * x[2]


def fft_power(x):
    return np.sum(np.abs(np.fft.fft(x)) ** 2 * np.arange(3.0))


@pytest.mark.xfail(strict=True, reason="REFUSED: hessian of `np.amax(x) ** 2 * x[0]` (second order, everyday code): "
                   "NestingError 'the forward derivative of amax comes from a hand-written rule, which has no derivative "
                   "of its own'; np.max(x) works")
def test_second_order_of_np_amax():
    _close(mc.hessian(amax_squared)(X3.copy()), _hessian_ref(amax_squared, X3))


@pytest.mark.xfail(strict=True, reason="REFUSED: hessian of `np.sum(x.astype(np.float64) ** 3)` (second order): "
                   "NestingError 'the array method .astype() of a differentiated array inside generated code is not "
                   "supported at this order'")
def test_second_order_of_astype():
    _close(mc.hessian(astype_cube)(X3.copy()), _hessian_ref(astype_cube, X3))


@pytest.mark.xfail(strict=True, reason="REFUSED: hessian / jvp(grad) of `x.item(2) ** 3 * x[0]` (second order): "
                   "NestingError 'the array method .item() ... not supported at this order'")
def test_second_order_of_item():
    _close(mc.jvp(mc.grad(item_cube), (X3.copy(),), (V3,))[1], _hessian_ref(item_cube, X3) @ V3)


@pytest.mark.xfail(strict=True, reason="REFUSED: hessian of a real function with a complex intermediate "
                   "(`z = x[0] + 1j * x[1]; abs(z * z) ** 2 * x[2]`): ReverseError naming an internal helper "
                   "'mooncake_ast.forward.runtime.fit with complex values', not the user's line; mc.grad works")
def test_second_order_through_complex_intermediate():
    _close(mc.hessian(complex_modulus)(X3.copy()), _hessian_ref(complex_modulus, X3))


@pytest.mark.xfail(strict=True, reason="REFUSED: hessian of `sum(abs(np.fft.fft(x)) ** 2 * w)`: LibraryCodeError "
                   "'cannot differentiate inspect.Signature.bind ... reverse mode of next' (names the library's own "
                   "internals, not np.fft.fft); mc.grad works")
def test_second_order_through_fft():
    _close(mc.hessian(fft_power)(X3.copy()), _hessian_ref(fft_power, X3))


# ================================================================ findings: crashes


def linspace_between(x):
    return np.sum(np.sin(np.linspace(x[0], x[1], 5)) * x[2])


@pytest.mark.xfail(strict=True, reason="CRASH: jacfwd(hessian(f)) of `sum(sin(np.linspace(x[0], x[1], 5)) * x[2])` "
                   "(third order): TypeError 'NoTangentType' object cannot be interpreted as an integer (the hessian "
                   "itself is right)")
def test_third_order_through_linspace():
    T = _fd(lambda z: mc.hessian(linspace_between)(z.copy()), X3, h=1e-5)
    _close(mc.jacfwd(mc.hessian(linspace_between))(X3.copy()), T, tol=1e-4)
