"""Test inputs of the scipy.stats rules whose derivative is a NumPy model's (rules/scipy_stats_models.py) and of
odeint with respect to its times (rules/scipy_integrate_rules.py): merged into CASES of tests/test_rules.py by catalog name."""
import collections  # noqa: F401  (the cases' sources use it)
import statistics  # noqa: F401

import numpy as np

from rule_case_kit import kit

F, Case = kit("lang12 rule case", globals())
C = Case
try:
    import scipy.fft as sf
    import scipy.integrate as si
    import scipy.linalg as sl
    import scipy.signal as ss
    import scipy.special as sp
    import scipy.stats as st
except ImportError:  # SciPy is optional
    sf = si = sl = sp = ss = st = None
V = np.array([0.3, 1.2, -0.7, 2.1, 0.5, 1.9])
M = np.array([[0.3, 1.2, -0.7], [2.1, 0.5, 1.9], [0.2, -1.1, 0.8], [1.4, 0.1, 0.6]])


A = np.array([[[0.3, -0.2, 0.5], [0.1, 0.4, -0.6]], [[0.7, 0.2, -0.1], [-0.3, 0.5, 0.2]]])
P = np.array([0.3, 0.6, 0.2, 0.8])
SQ = np.array([[4.0, 0.3, -0.5], [0.2, 3.0, 0.7], [-0.1, 0.4, 5.0]])
SPD = SQ @ SQ.T
LANG12_ZERO_CASES = {  # zero-derivative rules of this branch: a sample each
    "numpy.logical_xor": C("lambda a: np.logical_xor(a > 0.4, a < 1.5) * a", V),
    "numpy.ndarray.searchsorted": C("lambda a: a * (np.sort(V) + 0.05).searchsorted(a)", V),
    "numpy.ndarray.argpartition": C("lambda a: a[a.argpartition(2)] * 1.0", V),
    "numpy.ndarray.nonzero": C("lambda a: a[(a > 0.4).nonzero()] * 2.0", V),
}
LANG12_CASES = {  # rules/numpy_strided.py, rules/numpy_products_more.py, rules/python_collections.py
    "_statistics._normal_dist_inv_cdf": [C("lambda p, m, s: statistics.NormalDist(m, s).inv_cdf(p)", 0.3, 0.5, 1.7)],
    "numpy.ndarray.choose": [C("lambda a, b: np.array([0, 1, 0]).choose([a, b])", V[:3], V[3:])],
    "numpy.ndarray.view": [C("lambda a: a.view() * a", V), C("lambda m: m.T.view(np.float64)", M)],
    "numpy.polymul": [C("lambda a, b: np.polymul(a, b)", V, V[:2])],
    "numpy.nanprod": [C("lambda a: np.nanprod(np.where(a > 1.5, np.nan, a))", V),
                      C("lambda m: np.nanprod(np.where(m > 1.5, np.nan, m), axis=1, keepdims=True)", M)],
    "numpy.nanquantile": [C("lambda a: np.nanquantile(np.where(a > 1.5, np.nan, a), [0.3, 0.8])", V),
                          C("lambda m: np.nanquantile(np.where(m > 1.5, np.nan, m), 0.4, axis=1, method='nearest')", M)],
    "numpy.nanpercentile": [C("lambda m: np.nanpercentile(np.where(m > 1.5, np.nan, m), 40, axis=0, keepdims=True)", M)],
    "numpy.putmask": [C("lambda a, v: (np.putmask(a, a > 0.6, v), a * 2.0)[1]", V.copy(), V[:2] * 3.0)],
    "numpy.modf": [C("lambda a: np.modf(a * 3.0)[0] + np.modf(a)[1]", V)],
    "numpy.frompyfunc": [C("lambda a, b: np.frompyfunc(lambda t, s: t * s + np.sin(t), 2, 1)(a, b[:, None]).astype(float)",
                           V, V[:2])],
    "numpy.ufunc.reduceat": [C("lambda a: np.add.reduceat(a, [0, 2, 2, 4])", V),
                             C("lambda m: np.multiply.reduceat(m, [2, 0], axis=1)", M),
                             C("lambda m: np.maximum.reduceat(m, [0, 3])", M)],
    "collections.OrderedDict": [C("lambda a, x: (lambda d: d['w'] * d['b'] + d['k'])(collections.OrderedDict([('k', x)], w=a, b=x))",
                                  V[:3], 0.7)],
    "numpy.lib.stride_tricks.as_strided": [
        C("lambda a: np.lib.stride_tricks.as_strided(a, (2, 2), (a.itemsize, a.itemsize)) ** 2", V),
        C("lambda a: np.lib.stride_tricks.as_strided(np.concatenate([a, a * 2.0])[2:], (3, 3), (-a.itemsize, a.itemsize))"
          " * 1.0", V[:3])],
    "numpy.lib.stride_tricks.sliding_window_view": [
        C("lambda a: np.lib.stride_tricks.sliding_window_view(a, 3) ** 2", V),
        C("lambda m: np.lib.stride_tricks.sliding_window_view(m, (2, 2)) * m[0, 0]", M)],
    "numpy.broadcast_arrays": [C("lambda a, b: np.broadcast_arrays(a, b)[0] * np.broadcast_arrays(a, b)[1] ** 2",
                                 V[:3], M[:2, :1])],
    "numpy.vecdot": [C("lambda a, b: np.vecdot(a, b)", A, V[:3]), C("lambda a, b: np.vecdot(a, b, axis=1)", A, A * 2.0)],
    "numpy.linalg.vecdot": [C("lambda a, b: np.linalg.vecdot(a, b)", M, V[:3])],
    "numpy.linalg.outer": [C("lambda a, b: np.linalg.outer(a, b)", V[:3], V[3:])],
    "numpy.matvec": [C("lambda a, b: np.matvec(a, b)", A, V[:3])],
    "numpy.vecmat": [C("lambda a, b: np.vecmat(a, b)", V[:2], A)],
}


def _ode(y, t, k):
    return np.array([y[1], -k * y[0] - 0.1 * t * y[1]])


def lang12_scipy_cases(entries):
    """The cases by catalog name (`entries`: catalog())."""
    if st is None:
        return {}
    names = {e.key: e.name for e in entries}
    cases = {
        st.moment: [C("lambda a: st.moment(a, 3)", V), C("lambda a: st.moment(a, [2, 3], axis=1)", M),
                    C("lambda a: st.moment(a, 2, axis=None, center=a[0, 0])", M)],
        st.variation: [C("lambda a: st.variation(a + 3.0)", V),
                       C("lambda a: st.variation(a + 3.0, axis=1, ddof=1, keepdims=True)", M)],
        st.tmean: [C("lambda a: st.tmean(a, (-1.0, 1.5), (False, True), axis=0)", M)],
        st.tvar: [C("lambda a: st.tvar(a, (None, 1.5), axis=None)", M)],
        st.tstd: [C("lambda a: st.tstd(a, axis=1, ddof=0)", M)],
        st.tsem: [C("lambda a: st.tsem(a, (-1.0, None))", V)],
        st.iqr: [C("lambda a: st.iqr(a, axis=0, rng=(10, 80), scale='normal')", M),
                 C("lambda a: st.iqr(a, interpolation='midpoint', keepdims=True)", M)],
        sp.betaincc: [C("lambda x: sp.betaincc(2.0, 3.0, x)", P)],
        sp.stdtr: [C("lambda x: sp.stdtr(3.5, x * 4.0 - 2.0)", P)],
        sp.dawsn: [C("lambda x: sp.dawsn(x * 3.0)", P)],
        sp._ufuncs._zeta: [C("lambda q: sp.zeta(3.0, q + 1.0)", P)],
        st.linregress: [C("lambda x, y: st.linregress(x, y).slope * st.linregress(x, y).intercept_stderr", V, V[::-1] ** 2),
                        C("lambda x, y: tuple(st.linregress(x, y, alternative='less'))[1:4]", V, np.sin(V))],
        sp.exp2: [C("lambda a: sp.exp2(a)", P)], sp.cbrt: [C("lambda a: sp.cbrt(a + 1.0)", P)],
        sp.loggamma: [C("lambda a: sp.loggamma(a + 1.0)", P)], sp.expi: [C("lambda a: sp.expi(a + 0.5)", P)],
        sp.spence: [C("lambda a: sp.spence(a + 0.5)", P)], sp.yv: [C("lambda a: sp.yv(1.5, a + 1.0)", P)],
        sp.hyp1f1: [C("lambda a: sp.hyp1f1(1.0, 2.5, a)", P)], sp.hyp2f1: [C("lambda a: sp.hyp2f1(1.0, 2.0, 3.5, a)", P)],
        sp.eval_hermite: [C("lambda a: sp.eval_hermite(3, a)", P)], sp.eval_chebyt: [C("lambda a: sp.eval_chebyt(4, a)", P)],
        sp.eval_legendre: [C("lambda a: sp.eval_legendre(3, a)", P), C("lambda a: sp.eval_legendre(3, a * 0.0 + 1.0) * a", P)],
        sp.huber: [C("lambda a: sp.huber(0.5, a - 0.2)", P)], sp.pseudo_huber: [C("lambda a: sp.pseudo_huber(0.5, a - 0.2)", P)],
        sl.inv: [C("lambda a: sl.inv(a)", SQ)], sl.det: [C("lambda a: sl.det(a)", SQ)],
        sl.solve: [C("lambda a, b: sl.solve(a, b)", SQ, V[:3]), C("lambda a, b: sl.solve(a, b, assume_a='pos', lower=True)",
                                                                   SPD + np.tril(SQ, -1), V[:3])],
        sl.eigh: [C("lambda a: (lambda w, v: (w, v * v[0]))(*sl.eigh(a))", SPD),  # (v * v[0]: the same for -v)
                  C("lambda a: sl.eigh(a, eigvals_only=True, lower=False)", SPD)],
        sl.eigvalsh: [C("lambda a: sl.eigvalsh(a)", SPD)],
        sl.svd: [C("lambda a: sl.svd(a, full_matrices=False)", M), C("lambda a: sl.svd(a, compute_uv=False)", M)],
        sl.svdvals: [C("lambda a: sl.svdvals(a)", M)], sl.qr: [C("lambda a: sl.qr(a, mode='economic')", M)],
        sl.lstsq: [C("lambda a, b: sl.lstsq(a, b)[0]", M, V[:4])], sl.pinv: [C("lambda a: sl.pinv(a)", M)],
        sl.norm: [C("lambda a: sl.norm(a, ord=1, axis=0)", M)],
        ss.lfilter: [C("lambda b, a, x: ss.lfilter(b, a, x)", P[:3], np.array([1.2, -0.3]), V),
                     C("lambda x: ss.lfilter([1.0, 0.5], [1.0, -0.3], x, axis=0)", M)],
        (st.rv_continuous, "mean"): [C("lambda l, s: st.norm.mean(loc=l, scale=s)", 0.3, 1.5)],
        (st.rv_continuous, "median"): [C("lambda l, s: st.gamma.median(2.0, l, s)", V[:2], 1.5)],
        (st.rv_continuous, "var"): [C("lambda l, s: st.beta(2.0, 3.0, loc=l, scale=s).var()", 0.3, 1.5)],
        (st.rv_continuous, "std"): [C("lambda s: st.gamma.std(2.0, scale=s)", 1.5)],
        (st.rv_continuous, "entropy"): [C("lambda s: st.t.entropy(3.0, 0.2, s)", 1.5)],
        st.kstat: [C("lambda a: st.kstat(a, 3)", V)],
        st.kstatvar: [C("lambda a: st.kstatvar(a)", V)],
        st.circmean: [C("lambda a: st.circmean(a)", V)],
        st.circvar: [C("lambda a: st.circvar(a)", V)],
        st.circstd: [C("lambda a: st.circstd(a, high=3.0, low=-1.0)", V)],
        st.differential_entropy: [C("lambda a: st.differential_entropy(a)", V)],
        sf.fft: [C("lambda a: sf.fft(a, 6, norm='ortho')", V)], sf.ifft: [C("lambda a: sf.ifft(a * 1j, axis=0)", M)],
        sf.rfft: [C("lambda a: sf.rfft(a)", V)], sf.irfft: [C("lambda a: sf.irfft(sf.rfft(a) * 2.0, 6)", V)],
        sf.hfft: [C("lambda a: sf.hfft(a + 1j * a[::-1])", V)], sf.ihfft: [C("lambda a: sf.ihfft(a, norm='forward')", V)],
        sf.fft2: [C("lambda a: sf.fft2(a)", M)], sf.ifft2: [C("lambda a: sf.ifft2(a, s=(3, 3))", M)],
        sf.rfft2: [C("lambda a: sf.rfft2(a)", M)], sf.irfft2: [C("lambda a: sf.irfft2(sf.rfft2(a), M.shape)", M)],
        sf.fftn: [C("lambda a: sf.fftn(a, axes=(0,))", M)], sf.ifftn: [C("lambda a: sf.ifftn(a)", M)],
        sf.rfftn: [C("lambda a: sf.rfftn(a, axes=(1,))", M)], sf.irfftn: [C("lambda a: sf.irfftn(sf.rfftn(a), M.shape)", M)],
        si.odeint: [C("lambda y0, t, k: si.odeint(_ode, y0, t, (k,))", np.array([0.4, -0.2]), np.array([0.1, 0.3, 0.6]),
                      0.7, rtol=1e-4, atol=1e-5),
                    C("lambda t: si.odeint(lambda t, y: -y * y, [1.0], list(t), tfirst=True)", np.array([0.0, 0.5]),
                      rtol=1e-4, atol=1e-5)],
    }
    return {names[k]: v for k, v in cases.items() if k in names}
