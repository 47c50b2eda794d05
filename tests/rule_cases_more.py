"""Test inputs of the rules in mooncake_ast/rules/numpy_fft.py and numpy_more.py (issue 12), merged into
CASES of tests/test_rules.py (its format: see rule_cases_extra.py).  The families of shapes and options
are in tests/test_rules_fft.py and tests/test_rules_numpy_more.py; these are one or two per rule."""
import numpy as np

from rule_cases_extra import BOTH, FWD, REV, C, U  # noqa: F401

x5, x34, x345 = U(5), U(3, 4), U(3, 4, 5)
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
}
