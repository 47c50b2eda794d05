"""Issue 12, second pass (the lang helper): what the new rules refuse, by name, instead of a wrong number.
The derivatives themselves are checked by check_derivatives through tests/rule_cases_lang13.py (merged into
tests/test_rules.py); here each refusal is asserted in the mode(s) it concerns."""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives

X = np.array([0.3, 1.2, -0.7, 2.1])
A = np.array([[1.2, 0.4, -0.3], [0.2, -0.8, 0.5], [0.1, 0.3, 2.1]])


def refused(match, fn, *args):
    """Both modes refuse, naming why: forward (jvp) and reverse (grad of the sum of the real part)."""
    with pytest.raises((NotImplementedError, mc.MooncakeError), match=match):
        mc.jvp(fn, args, tuple(np.ones_like(a) for a in args))
    with pytest.raises((NotImplementedError, mc.MooncakeError), match=match):
        mc.grad(lambda *a: np.sum(np.real(fn(*a))))(*args)


def test_masked_arrays_refused_by_name():
    refused("numpy.ma.array", lambda x: np.ma.array(x, mask=[0, 1, 0, 0]).sum(), X)
    refused("numpy.ma.masked_where", lambda x: np.ma.masked_where(x < 0, x).mean(), X)


def test_pad_modes_without_a_derivative():
    refused("mode='empty'", lambda x: np.pad(x, 2, mode="empty"), X)
    refused("complex", lambda z: np.pad(z, 2, mode="median"), X + 0.5j)


def test_special_refusals():
    sp = pytest.importorskip("scipy.special")
    refused("complex", lambda z: sp.lambertw(z), X + 0.5j)
    refused("'v'", lambda v: sp.struve(v, 1.3), X)
    refused("derivative=True", lambda x: sp.spherical_jn(2, x, derivative=True), X + 1.0)
    refused("sigma == 0", lambda x: sp.voigt_profile(x, 0.0, 0.5), X)


def test_linalg_refusals():
    sl = pytest.importorskip("scipy.linalg")
    rot = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 2.0]]) + 0.1 * A
    refused("2x2 blocks", lambda a: sl.schur(a)[0], rot)
    refused("sort=", lambda a: sl.schur(a, sort="lhp")[0], A)
    refused("not square", lambda a: sl.rq(a)[0], A[:2])


def test_signal_refusals():
    ss = pytest.importorskip("scipy.signal")
    refused("complex", lambda x: ss.lfilter([0.5, 0.2], [1.0, -0.3], x, zi=np.array([0.1 + 0.2j]))[0], X)
    refused("median", lambda x: ss.welch(np.concatenate([x, x, x]), nperseg=4, average="median")[1], X)
    refused("boundary='wrap'", lambda a: ss.convolve2d(a, A, boundary="wrap"), A)


def _stop(t, y):
    return y[0] - 0.5


_stop.terminal = True


def test_stats_and_integrate_refusals():
    st = pytest.importorskip("scipy.stats")
    si = pytest.importorskip("scipy.integrate")
    with pytest.raises((NotImplementedError, mc.MooncakeError), match="cho_cov"):
        mc.grad(lambda d: np.sum(st.gaussian_kde(d).cho_cov))(X)
    refused("callable bw_method", lambda d: st.gaussian_kde(d, bw_method=lambda k: 0.5).evaluate(0.3), X)
    refused("accuracy", lambda k: si.solve_ivp(lambda t, y: -k * y, (0.0, 1.0), np.array([1.0, 2.0])).y, 0.7)  # (rtol=1e-3)
    # (a terminal event: differentiated since, tests/test_rules_lang16.py; a closure over k in fun, here)
    check_derivatives(lambda k: si.solve_ivp(lambda t, y: -k * y, (0.0, 1.0), np.ones(1), events=_stop,
                                             rtol=1e-10, atol=1e-12).y[:, -1], 0.7)
