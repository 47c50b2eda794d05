"""Test inputs of the rules in mooncake_ast/rules/numpy_fft.py and numpy_more.py (issue 12), merged into
CASES of tests/test_rules.py (its format: see rule_cases_extra.py).  The families of shapes and options
are in tests/test_rules_fft.py and tests/test_rules_numpy_more.py; these are one or two per rule."""
import numpy as np

from rule_cases_extra import BOTH, FWD, REV, C, U  # noqa: F401

from mooncake_ast.rules.numpy_more import block_adjoint, block_tangent  # noqa: F401  (np.block's own helpers)

x5, x34, x345 = U(5), U(3, 4), U(3, 4, 5)


def _block_tangents(a, b):
    return block_tangent([[a, b], [b, a]], [[b * a, a], [b, b ** 2]])


def _block_adjoints(a, g):
    parts = block_adjoint(g[:, :3] * a.sum(), [[a[:, :2], a[:, 2:3]]])
    return parts[0][1] * a[:, 2:3] + np.sum(parts[0][0] ** 2)
z34 = U(3, 4) + 1j * U(3, 4)

MORE_CASES = {
    "numpy.fft.fft": [C("lambda x: np.real(np.fft.fft(x)) + np.imag(np.fft.fft(x, 7, 0)[:3])", x34), C("lambda z: np.fft.fft(z, norm='ortho')", z34)],
    "numpy.fft.ifft": [C("lambda x: np.imag(np.fft.ifft(x, n=3, axis=0, norm='forward'))", x34)],
    "numpy.fft.rfft": [C("lambda x: np.abs(np.fft.rfft(x, 9))", x5)],
    "numpy.fft.irfft": [C("lambda x: np.fft.irfft(np.fft.fft(x, axis=0), 6)", x34), C("lambda z: np.fft.irfft(z, axis=0)", z34)],
    "numpy.fft.hfft": [C("lambda x: np.fft.hfft(np.fft.fft(x, axis=0), norm='ortho')", x34), C("lambda z: np.fft.hfft(z, 5)", z34)],
    "numpy.fft.ihfft": [C("lambda x: np.real(np.fft.ihfft(x, axis=0)) + np.imag(np.fft.ihfft(x, axis=0))", x34)],
    "numpy.fft.fft2": [C("lambda x: np.real(np.fft.fft2(x, s=(4, 3)))", x345), C("lambda z: np.fft.fft2(z)", z34)],
    "numpy.fft.ifft2": [C("lambda x: np.imag(np.fft.ifft2(x, axes=(0, 2), norm='ortho'))", x345)],
    "numpy.fft.fftn": [C("lambda x: np.abs(np.fft.fftn(x))", x345)],
    "numpy.fft.ifftn": [C("lambda x: np.real(np.fft.ifftn(x, s=(2, 6), axes=(2, 0)))", x345)],
    "numpy.fft.rfft2": [C("lambda x: np.imag(np.fft.rfft2(x))", x345)],
    "numpy.fft.rfftn": [C("lambda x: np.real(np.fft.rfftn(x, s=(3, 6), axes=(0, 1), norm='forward'))", x345)],
    "numpy.fft.irfft2": [C("lambda x: np.fft.irfft2(np.fft.fft(x, axis=1))", x345)],
    "numpy.fft.irfftn": [C("lambda x: np.fft.irfftn(np.fft.fft(x, axis=0), s=(3, 4, 7))", x345), C("lambda z: np.fft.irfftn(z)", z34)],
    "numpy.fft.fftshift": [C("lambda x: np.fft.fftshift(x, axes=0) * x", x34)],
    "numpy.fft.ifftshift": [C("lambda x: np.fft.ifftshift(x) * x", x345)],
    # numpy_more.py
    "numpy.insert": [C("lambda x, v: np.insert(x, [0, 2], v, axis=1)", x34, U(2))],
    "numpy.delete": [C("lambda x: np.delete(x, [0, 2], 1) * 2.0", x34)],
    "numpy.compress": [C("lambda x: np.compress([True, False, True], x, axis=0)", x34)],
    "numpy.extract": [C("lambda x: np.extract(x > 0, x)", x34)],
    "numpy.diagflat": [C("lambda v: np.diagflat(v, 1)", x5)],
    "numpy.block": [C("lambda a, b: np.block([[a, b], [b, a]])", x34, U(3, 4))],
    "mooncake_ast.rules.numpy_more.block_tangent": [C(_block_tangents, x34, U(3, 4))],
    "mooncake_ast.rules.numpy_more.block_adjoint": [C(_block_adjoints, x34, U(3, 4))],
    "numpy.atleast_3d": [C("lambda x: np.atleast_3d(x) * 2.0", x34)],
    "numpy.rollaxis": [C("lambda x: np.rollaxis(x, 2, 0) * 1.0", x345)],
    "numpy.vander": [C("lambda x: np.vander(x, 4)", x5)],
    "numpy.bincount": [C("lambda w: np.bincount(np.array([0, 2, 2, 1, 0]), w)", x5)],
    "numpy.angle": [C("lambda x: np.angle(np.fft.fft(x))", x5), C("lambda z: np.angle(z)", z34)],
    "numpy.real_if_close": [C("lambda x: np.real_if_close(x) * x", x5)],
    "numpy.unique": [C("lambda x: np.unique(x) * 2.0", x34)],
    "numpy.nanmedian": [C("lambda x: np.nanmedian(x, axis=1)", x34)],
    "numpy.polyfit": [C("lambda x, y: np.polyfit(x, y, 2)", np.linspace(0.0, 1.0, 6) + U(6) * 0.05, U(6))],
    # half precision: finite differences see its rounding steps (the slope 1 itself: test_rules_numpy_more.py)
    "numpy.float16": [C("lambda x: np.float16(x) * 2.0", 0.5, rtol=0.1, atol=0.1)],
    "numpy.longdouble": [C("lambda x: np.longdouble(x) * x", 0.7)],
    "numpy.complex128": [C("lambda x: np.real(np.complex128(x)) * x", x5), C("lambda z: np.complex128(z)", 0.3 + 0.2j)],
    "numpy.complex64": [C("lambda x: np.real(np.complex64(x)) * 1.0", 0.5, rtol=1e-3, atol=1e-3)],
    "numpy.clongdouble": [C("lambda x: np.imag(np.clongdouble(x)) + np.real(np.clongdouble(x)) * 2.0", 0.4)],
    # numpy_more_linalg.py
    "numpy.linalg.multi_dot": [C("lambda a, b, c: np.linalg.multi_dot([a, b, c])", U(4), x34.T.copy(), U(3))],
    "numpy.linalg.cond": [C("lambda x: np.linalg.cond(x)", U(3, 3) + 2.0 * np.eye(3))],
    "numpy.linalg.eig": [C("lambda x: np.real(np.linalg.eig(x)[1]) + np.imag(np.linalg.eig(x)[0])", U(3, 3))],
    "numpy.linalg.eigvals": [C("lambda x: np.abs(np.linalg.eigvals(x))", U(3, 3))],
    # numpy_ufunc_methods.py (one catalog entry per method, whatever the ufunc)
    "numpy.ufunc.reduce": [C("lambda x: np.multiply.reduce(x, axis=1)", x34), C("lambda x: np.maximum.reduce(x, axis=None)", x34)],
    "numpy.ufunc.accumulate": [C("lambda x: np.add.accumulate(x, 1) + np.hypot.accumulate(x)", x34)],
    "numpy.ufunc.outer": [C("lambda a, b: np.subtract.outer(a, b) + np.arctan2.outer(a, b)", x5, x34)],
}

# NumPy's integer and bool constructors (zero derivative): used next to a differentiated value
MORE_ZERO_CASES = {f"numpy.{n}": C(f"lambda x: x * np.{n}(x > 0.0) + x" if n == "bool" else f"lambda x: x * np.{n}(3.7) + x", 0.6)
                   for n in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool")}
