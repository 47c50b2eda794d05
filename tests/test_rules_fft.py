"""numpy.fft rules (mooncake_ast/rules/numpy_fft.py) in both modes, on families of shapes, lengths,
axes and normalisations: check_derivatives compares each mode with finite differences, and the
reverse gradient is compared with central differences computed here as well."""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives

NORMS = (None, "backward", "ortho", "forward")


# Each test function ends in the same real scalar, written inline (reverse mode takes complex values only
# inside rules, never into a differentiated Python call): it reads the real and the imaginary part of
# every output entry with different weights.


def _fd(f, x, h=1e-6):
    g = np.zeros(x.shape, dtype=x.dtype)
    for idx in np.ndindex(x.shape):
        for unit in ((1.0, 1j) if np.iscomplexobj(x) else (1.0,)):
            a, b = x.copy(), x.copy()
            a[idx] += h * unit
            b[idx] -= h * unit
            g[idx] += unit * (f(a) - f(b)) / (2 * h)
    return g


def _check(f, x):
    """check_derivatives (both modes; forward only for complex inputs, which reverse mode refuses on entry),
    and for real x the gradient against our own differences."""
    check_derivatives(f, x.copy(), modes=("forward",) if np.iscomplexobj(x) else ("forward", "reverse"))
    if not np.iscomplexobj(x):
        np.testing.assert_allclose(mc.grad(f)(x.copy()), _fd(f, x), rtol=1e-5, atol=1e-6)


def _x(shape, complex_=False, seed=0):
    r = np.random.default_rng(seed)
    x = r.normal(size=shape)
    return x + 1j * r.normal(size=shape) if complex_ else x


# ---------------------------------------------------------------- 1-D transforms
@pytest.mark.parametrize("name", ["fft", "ifft"])
@pytest.mark.parametrize("n, axis, norm, cplx", [
    (None, -1, None, False), (None, 0, "ortho", True), (7, -1, "forward", False),
    (3, 1, "backward", True), (8, 0, None, True)])
def test_complex_1d(name, n, axis, norm, cplx):
    fn = getattr(np.fft, name)

    def f(x):
        y = fn(x if cplx else np.sin(x) + x, n=n, axis=axis, norm=norm)
        k = np.arange(y.size).reshape(y.shape)
        return np.sum(np.real(y) * np.cos(k)) + np.sum(np.imag(y) * np.sin(1.3 * k + 0.5))

    _check(f, _x((5, 4), cplx))


@pytest.mark.parametrize("n, axis, norm", [(None, -1, None), (7, -1, "ortho"), (4, 0, "forward"),
                                          (9, 0, "backward"), (3, 1, None)])
def test_rfft_and_ihfft(n, axis, norm):
    for fn in (np.fft.rfft, np.fft.ihfft):
        def f(x):
            y = fn(x * x, n, axis, norm)
            k = np.arange(y.size).reshape(y.shape)
            return np.sum(np.real(y) * np.cos(k)) + np.sum(np.imag(y) * np.sin(1.3 * k + 0.5))

        _check(f, _x((5, 6)))


@pytest.mark.parametrize("n, axis, norm, cplx", [
    (None, -1, None, True), (8, -1, "ortho", True), (7, -1, "forward", True), (5, 0, "backward", True),
    (12, 0, None, True), (None, 1, None, False), (6, 0, "ortho", False)])
def test_irfft_and_hfft(n, axis, norm, cplx):
    for fn in (np.fft.irfft, np.fft.hfft):
        def f(c):
            y = fn(c if cplx else c * 1.5, n=n, axis=axis, norm=norm)
            k = np.arange(y.size).reshape(y.shape)
            return np.sum(np.real(y) * np.cos(k)) + np.sum(np.imag(y) * np.sin(1.3 * k + 0.5))

        _check(f, _x((4, 5), cplx))


def test_rfft_irfft_roundtrip_and_power_spectrum():
    def f(x):
        # (reverse mode refuses complex arithmetic outside rules, so the spectrum is not filtered here)
        back = np.fft.irfft(np.fft.fftshift(np.fft.rfft(np.sin(x))), n=x.shape[-1])
        return np.sum(back ** 2 * x) + np.sum(np.abs(np.fft.fft(x, norm="ortho")) ** 2)

    _check(f, _x((9,)))
    _check(f, _x((3, 8), seed=3))


# ---------------------------------------------------------------- 2-D and n-D transforms
@pytest.mark.parametrize("name", ["fft2", "ifft2", "fftn", "ifftn"])
@pytest.mark.parametrize("s, axes, norm, cplx", [
    (None, None, None, False), (None, (0, 2), "ortho", True), ((3, 5), (1, 2), "forward", True),
    ((4, 2), (0, 1), None, False), ((2, 3), None, "backward", True)])
def test_complex_nd(name, s, axes, norm, cplx):
    fn = getattr(np.fft, name)
    kw = {"s": s, "norm": norm}
    if axes is not None:
        kw["axes"] = axes

    def f(x):
        y = fn(x if cplx else np.tanh(x), **kw)
        k = np.arange(y.size).reshape(y.shape)
        return np.sum(np.real(y) * np.cos(k)) + np.sum(np.imag(y) * np.sin(1.3 * k + 0.5))

    _check(f, _x((3, 4, 2), cplx))


@pytest.mark.parametrize("name", ["rfft2", "rfftn"])
@pytest.mark.parametrize("s, axes, norm", [(None, None, None), ((4, 6), (0, 2), "ortho"),
                                           ((2, 3), (2, 1), "forward"), ((5, 4), None, "backward")])
def test_rfft_nd(name, s, axes, norm):
    fn = getattr(np.fft, name)
    kw = {"s": s, "norm": norm}
    if axes is not None:
        kw["axes"] = axes

    def f(x):
        y = fn(x * x + x, **kw)
        k = np.arange(y.size).reshape(y.shape)
        return np.sum(np.real(y) * np.cos(k)) + np.sum(np.imag(y) * np.sin(1.3 * k + 0.5))

    _check(f, _x((3, 4, 5)))


@pytest.mark.parametrize("name", ["irfft2", "irfftn"])
@pytest.mark.parametrize("s, axes, norm, cplx", [(None, None, None, True), ((4, 6), (0, 2), "ortho", True),
                                                 ((2, 5), (2, 1), "forward", True), ((3, 3), None, "backward", False)])
def test_irfft_nd(name, s, axes, norm, cplx):
    fn = getattr(np.fft, name)
    kw = {"s": s, "norm": norm}
    if axes is not None:
        kw["axes"] = axes

    def f(c):
        y = fn(c if cplx else c * 2.0, **kw)
        k = np.arange(y.size).reshape(y.shape)
        return np.sum(np.real(y) * np.cos(k)) + np.sum(np.imag(y) * np.sin(1.3 * k + 0.5))

    _check(f, _x((3, 4, 3), cplx))


# ---------------------------------------------------------------- shifts
@pytest.mark.parametrize("axes", [None, 0, (1,), (0, 1)])
def test_shifts(axes):
    def f(x):
        y = np.fft.fftshift(x * x, axes) + 2 * np.fft.ifftshift(np.sin(x), axes=axes)
        k = np.arange(y.size).reshape(y.shape)
        return np.sum(np.real(y) * np.cos(k)) + np.sum(np.imag(y) * np.sin(1.3 * k + 0.5))

    _check(f, _x((5, 4)))
    _check(f, _x((3, 6), seed=2))


def test_fft_of_a_constant_has_zero_gradient_and_out_buffers_work():
    c = np.arange(4.0)

    def f(x):
        return x * np.sum(np.abs(np.fft.fft(c)))

    assert mc.grad(f)(2.0) == pytest.approx(np.sum(np.abs(np.fft.fft(c))))

    def g(x):
        buf = np.zeros(4, dtype=complex)
        np.fft.fft(x, out=buf)  # out= is handled for every rule by the registry (written, restored, routed)
        return np.sum(np.real(buf)) + np.sum(np.imag(buf) * np.arange(4.0))

    x = np.array([0.3, -1.0, 2.0, 0.5])
    _check(g, x)
    # sum_k Re(X_k) = 4 x_0 and sum_k k Im(X_k) = -sum_t x_t sum_k k sin(2 pi k t / 4)
    expect = np.array([4.0, 0.0, 0.0, 0.0]) - np.array([sum(k * np.sin(2 * np.pi * k * t / 4) for k in range(4)) for t in range(4)])
    np.testing.assert_allclose(mc.grad(g)(x), expect, atol=1e-12)


# ---------------------------------------------------------------- the adjoints themselves, on complex operands
CASES = [(np.fft.fft, (7,), {}), (np.fft.ifft, (4, 3), {"axis": 0, "n": 6, "norm": "ortho"}),
         (np.fft.fftn, (3, 4, 2), {"s": (5, 3), "axes": (0, 2), "norm": "forward"}),
         (np.fft.ifft2, (3, 4), {"s": (2, 6)}), (np.fft.irfft, (5,), {}), (np.fft.irfft, (4, 6), {"n": 7, "axis": 0}),
         (np.fft.irfft, (6,), {"n": 4, "norm": "ortho"}), (np.fft.irfftn, (3, 4, 5), {"s": (4, 6), "axes": (0, 2)}),
         (np.fft.irfft2, (4, 3), {"norm": "forward"}), (np.fft.hfft, (5,), {"n": 9}), (np.fft.hfft, (3, 4), {"axis": 0}),
         (np.fft.hfft, (6,), {"norm": "ortho"})]


@pytest.mark.parametrize("fn, shape, kw", CASES)
def test_adjoint_dot_product_on_complex_inputs(fn, shape, kw):
    """<g, A dx> = Re<A* g, dx> for random complex dx and g: the reverse rule is the adjoint of the map
    the forward rule applies (check_derivatives cannot feed complex inputs to reverse mode)."""
    from mooncake_ast.rules.numpy_fft import fft_adjoint

    r = np.random.default_rng(len(shape) + len(kw))
    dx = r.normal(size=shape) + 1j * r.normal(size=shape)
    y = fn(dx, **kw)
    g = r.normal(size=y.shape) + (1j * r.normal(size=y.shape) if np.iscomplexobj(y) else 0)
    lhs = np.real(np.vdot(g, y))
    rhs = np.real(np.vdot(fft_adjoint(fn, dx, g, **kw), dx))
    assert lhs == pytest.approx(rhs, rel=1e-10, abs=1e-10)


@pytest.mark.parametrize("fn, kw", [(np.fft.rfft, {"n": 9}), (np.fft.ihfft, {"axis": 0, "norm": "ortho"}),
                                    (np.fft.rfftn, {"s": (3, 8)}), (np.fft.rfft2, {"axes": (1, 0)})])
def test_adjoint_dot_product_on_real_inputs(fn, kw):
    from mooncake_ast.rules.numpy_fft import fft_adjoint

    r = np.random.default_rng(5)
    dx = r.normal(size=(4, 6))
    y = fn(dx, **kw)
    g = r.normal(size=y.shape) + 1j * r.normal(size=y.shape)
    assert np.real(np.vdot(g, y)) == pytest.approx(np.vdot(fft_adjoint(fn, dx, g, **kw), dx), rel=1e-10, abs=1e-10)


def test_slice_of_the_real_part_of_a_spectrum():
    """A part of np.real(z) is a float view of complex storage, whose adjoint storage is its own: the adjoint of
    the part goes there (it was lost, a zero gradient, before)."""
    def f(x):
        return np.real(np.fft.fft(x))[:2]

    def f_astype(x):
        z = x.astype(complex)
        return np.sum(np.real(z)[:2] * 3.0) + np.sum(np.real(z)[1:, ::2] ** 2) + np.sum(np.imag(z)[0])

    def f_first(x):
        return np.real(np.fft.fft(x)[:2])

    x = _x((3, 4))
    for fn in (f, f_astype, f_first):
        check_derivatives(fn, x)
    g = mc.grad(f_astype)(x)
    want = np.zeros_like(x)
    want[:2] += 3.0
    want[1:, ::2] += 2.0 * x[1:, ::2]
    assert np.allclose(g, want)
