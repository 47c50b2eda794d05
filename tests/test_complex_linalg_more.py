"""np.linalg slogdet, cholesky, qr, lstsq and np.cumprod of complex values (rules/numpy_linalg_complex_more.py,
numpy_reductions.py): forward mode against finite differences, reverse mode by the dot-product test against
forward mode (tests/test_complex_reverse.py checks reverse mode alone, in its table of whitelisted rules)."""
import numpy as np
import pytest

from mooncake_ast.testing import check_derivatives

RNG = np.random.default_rng(31)


def _c(*shape):
    return RNG.normal(size=shape) + 1j * RNG.normal(size=shape)


M = _c(3, 3) + 3 * np.eye(3)
T = _c(4, 2)
B = _c(4)

CASES = {
    "slogdet": (lambda m: np.linalg.slogdet(m)[1] + np.linalg.slogdet(m)[0], (M,)),
    "cholesky": (lambda m: np.linalg.cholesky(m @ m.conj().T + 3 * np.eye(3)), (M,)),
    "cholesky upper, one triangle read": (lambda m: np.linalg.cholesky(m + 4 * np.eye(3), upper=True), (M,)),
    "qr": (lambda m: np.linalg.qr(m)[0] * 2.0 + np.linalg.qr(m)[1], (M,)),
    "qr tall, r only": (lambda t: np.linalg.qr(t, mode="r"), (T,)),
    "lstsq": (lambda t, b: np.linalg.lstsq(t, b, rcond=None)[0] + np.linalg.lstsq(t, b, rcond=None)[1][0]
              + np.linalg.lstsq(t, b, rcond=None)[3], (T, B)),
    "lstsq, real matrix": (lambda t, b: np.linalg.lstsq(t, b, rcond=None)[0], (T.real.copy(), B)),
    "lstsq, real right-hand side": (lambda t, b: np.linalg.lstsq(t, b, rcond=None)[0], (T, B.real.copy())),
    "cumprod": (lambda z: np.cumprod(z, axis=0) + z.cumprod(axis=1), (0.5 * _c(3, 2),)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_complex_linear_algebra(name):
    f, args = CASES[name]
    check_derivatives(f, *args)
