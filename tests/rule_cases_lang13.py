"""Test inputs of the rules added by the lang helper's second pass on issue 12 (scipy.special functions defined
by integrals, elementary-looking ones, ...): merged into CASES of tests/test_rules.py by catalog name, so each
rule is checked by check_derivatives in both modes (forward against finite differences, reverse against
forward)."""
import numpy as np

from rule_case_kit import kit

F, Case = kit("lang13 rule case", globals())
C = Case
try:
    import scipy.integrate as si
    import scipy.linalg as sl
    import scipy.signal as ss
    import scipy.special as sp
    import scipy.stats as st
except ImportError:  # SciPy is optional
    si = sl = sp = ss = st = None
V = np.array([0.3, 1.2, -0.7, 2.1, 0.5, 1.9])
P = np.array([0.3, 0.6, 0.2, 0.8])
N = np.array([[0.3, -0.7], [0.5, 0.2]])  # (a 2-D array: broadcasting against P's shape in the pullbacks)
N3 = np.array([[0.3, -0.7, 1.1], [0.5, 0.2, -0.4]])  # (distinct entries: no ties for maximum/median)
A3D = np.arange(24.0).reshape(2, 3, 4) ** 1.3 / 10.0
NS = np.array([[1.2, 0.4, -0.3], [0.2, -0.8, 0.5], [0.1, 0.3, 2.1]])  # (nonsymmetric, real distinct eigenvalues)
SOS = np.array([[0.2, 0.3, 0.1, 1.0, -0.3, 0.1], [0.5, -0.2, 0.1, 1.0, 0.2, 0.05]])
X = np.sin(np.arange(9.0)) + 0.1 * np.arange(9.0)
M2 = np.stack([X, np.cos(X)])
K2 = np.array([[0.3, -0.5, 1.2, 0.8, -1.1, 0.4], [0.2, 0.9, -0.4, 1.5, 0.1, -0.7]])
try:
    from scipy._lib.array_api_compat.numpy import linalg as xl  # (the solve lfilter_zi calls)
except ImportError:
    xl = None


def _rhs(t, y, k):
    return np.array([y[1], -k * np.sin(y[0])])


def lang13_cases(entries):
    """The cases by catalog name (`entries`: catalog())."""
    names = {e.key: e.name for e in entries}
    numpy_cases = {
        np.atleast_1d: [C("lambda a, b: np.atleast_1d(a, b)[0] * 2.0 + np.atleast_1d(a, b)[1]", 0.3, P[:1]),
                        C("lambda a, b: np.atleast_1d(a, 2.0, b)", 0.3, N)],
        np.atleast_2d: [C("lambda a, b: np.atleast_2d(a, b)", P, N)],
        np.pad: [C("lambda a: np.pad(a, ((1, 2), (2, 1)), mode='linear_ramp', end_values=((0.5, 1.0), (2.0, -1.0)))", N),
                 C("lambda a: np.pad(a, 3, mode='mean')", P),
                 C("lambda a: np.pad(a, ((1, 2), (0, 1), (2, 0)), mode='mean', stat_length=((1, 2), (2, 1), (3, 3)))", A3D),
                 C("lambda a: np.pad(a, ((2, 1), (1, 2)), mode='maximum', stat_length=2)", N3),
                 C("lambda a: np.pad(a, 2, mode='minimum')", N3),
                 C("lambda a: np.pad(a, ((1, 2), (2, 3)), mode='median')", N3),
                 C("lambda a: np.pad(a, (3, 2), mode='median', stat_length=(3, 2))", V),
                 C("lambda a: np.pad(a, ((5, 3), (1, 4)), mode='reflect', reflect_type='odd')", N3),
                 C("lambda a: np.pad(a, 7, mode='symmetric', reflect_type='odd')", P)],
    }
    # numpy.ma refuses a differentiated array (tests/test_rules_lang13.py); a constant one is only data
    for name in ("array", "masked_array", "asarray", "asanyarray", "masked_invalid", "fix_invalid"):
        numpy_cases[getattr(np.ma, name)] = [C(f"lambda x: x * np.ma.{name}(np.array([1.0, 2.0, 3.0, 4.0])).filled(0.0)", P)]
    for name in ("masked_equal", "masked_not_equal", "masked_greater", "masked_greater_equal", "masked_less",
                 "masked_less_equal", "masked_values", "masked_object"):
        numpy_cases[getattr(np.ma, name)] = [C(f"lambda x: x * np.ma.{name}(np.array([1.0, 2.0, 3.0, 4.0]), 2.0).filled(0.0)", P)]
    numpy_cases[np.ma.masked_where] = [C("lambda x: x * np.ma.masked_where(P > 0.5, np.ones(4)).filled(0.0)", P)]
    numpy_cases[np.ma.masked_inside] = [C("lambda x: x * np.ma.masked_inside(np.ones(4), 0.5, 1.5).filled(2.0)", P)]
    numpy_cases[np.ma.masked_outside] = [C("lambda x: x * np.ma.masked_outside(np.ones(4), 0.5, 1.5).filled(2.0)", P)]
    if sp is None:
        return {names[k]: v for k, v in numpy_cases.items() if k in names}
    cases = {
        sp.airy: [C("lambda x: sp.airy(x)", V), C("lambda x: sp.airy(x)[1] * 2.0 + sp.airy(x)[2]", V)],
        sp.airye: [C("lambda x: sp.airye(x + 0.1)", P), C("lambda x: sp.airye(-x)[2]", P)],
        sp.fresnel: [C("lambda x: sp.fresnel(x)", V)],
        sp.sici: [C("lambda x: sp.sici(x)", P), C("lambda x: sp.sici(-x)[1] + sp.sici(x * 0.0)[0] * x", P)],
        sp.shichi: [C("lambda x: sp.shichi(x)", P)],
        sp.struve: [C("lambda x: sp.struve(1.5, x)", P), C("lambda x: sp.struve(0, x * 3.0)", P)],
        sp.modstruve: [C("lambda x: sp.modstruve(0.5, x)", P)],
        sp.owens_t: [C("lambda h, a: sp.owens_t(h, a)", V[:4], P), C("lambda h, a: sp.owens_t(h, a)", N, P[:2])],
        sp.ellipkm1: [C("lambda p: sp.ellipkm1(p)", P)],
        sp.ellipkinc: [C("lambda phi, m: sp.ellipkinc(phi, m)", P * 2.0, P * 0.9),
                       C("lambda phi, m: sp.ellipkinc(phi, m * 0.0) * m", P * 2.0, P)],
        sp.ellipeinc: [C("lambda phi, m: sp.ellipeinc(phi, m)", P * 2.0, P * 0.9 - 0.3),
                       C("lambda phi, m: sp.ellipeinc(phi, m * 0.0) * m", P * 2.0, P)],
        sp.wofz: [C("lambda x: sp.wofz(x)", V), C("lambda z: sp.wofz(z)", V[:4] + 1j * P)],
        sp.voigt_profile: [C("lambda x, s, g: sp.voigt_profile(x, s + 0.5, g + 0.2)", V[:4], P, P[::-1])],
        sp.cosm1: [C("lambda x: sp.cosm1(x)", V)],
        sp.exprel: [C("lambda x: sp.exprel(x)", V), C("lambda x: sp.exprel(x * 1e-5)", V)],
        sp.erfi: [C("lambda x: sp.erfi(x)", V)],
        sp.exp10: [C("lambda x: sp.exp10(x)", V)],
        sp.sindg: [C("lambda x: sp.sindg(x * 50.0)", V)], sp.cosdg: [C("lambda x: sp.cosdg(x * 50.0)", V)],
        sp.tandg: [C("lambda x: sp.tandg(x * 30.0)", V)], sp.cotdg: [C("lambda x: sp.cotdg(x * 30.0 + 10.0)", P)],
        sp.radian: [C("lambda d, m, s: sp.radian(d, m, s)", V[:4], P, 3.0)],
        sp.inv_boxcox: [C("lambda y, l: sp.inv_boxcox(y, l)", P, 0.3), C("lambda y, l: sp.inv_boxcox(y, l * 0.0) * l", P, 0.3)],
        sp.inv_boxcox1p: [C("lambda y, l: sp.inv_boxcox1p(y, l)", P, np.array([0.3, -0.2, 0.5, 1.1]))],
        sp.poch: [C("lambda z, m: sp.poch(z + 1.0, m)", P, P[::-1])],
        sp.jve: [C("lambda x: sp.jve(1.5, x)", P)], sp.yve: [C("lambda x: sp.yve(0.5, x + 0.5)", P)],
        sp.hyp0f1: [C("lambda x: sp.hyp0f1(1.5, x)", V)],
        sp.gammaincinv: [C("lambda p: sp.gammaincinv(2.0, p)", P)],
        sp.gammainccinv: [C("lambda p: sp.gammainccinv(2.5, p)", P)],
        sp.betaincinv: [C("lambda p: sp.betaincinv(2.0, 3.0, p)", P)],
        sp.eval_laguerre: [C("lambda x: sp.eval_laguerre(3, x)", V), C("lambda x: sp.eval_laguerre(0, x) * x", V)],
        sp.eval_chebyu: [C("lambda x: sp.eval_chebyu(3, x - 0.5)", P),
                         C("lambda x: sp.eval_chebyu(3, x * 0.0 + 1.0) * x + sp.eval_chebyu(2, x * 0.0 - 1.0) * x", P)],
        sp.lpmv: [C("lambda x: sp.lpmv(1, 2, x - 0.5)", P), C("lambda x: sp.lpmv(0, 2.5, x * 0.9)", V[:4] / 3.0)],
        sp.agm: [C("lambda a, b: sp.agm(a + 1.0, b + 0.5)", P, P[::-1]), C("lambda a: sp.agm(a + 1.0, a + 1.0)", P)],
        sp.lambertw: [C("lambda x: sp.lambertw(x)", P), C("lambda x: sp.lambertw(x - 0.35, k=-1)", P[:2] * 0.1)],
        sp.spherical_jn: [C("lambda x: sp.spherical_jn(2, x)", P)], sp.spherical_yn: [C("lambda x: sp.spherical_yn(1, x + 0.5)", P)],
        sp.spherical_in: [C("lambda x: sp.spherical_in(2, x)", P)], sp.spherical_kn: [C("lambda x: sp.spherical_kn(1, x + 0.5)", P)],
    }
    cases.update({
        sl.schur: [C("lambda a: sl.schur(a)[0]", NS), C("lambda a: (lambda tz: (tz[0], tz[1] * tz[1][0]))(sl.schur(a, 'real'))", NS)],
        sl.eigvals: [C("lambda a: sl.eigvals(a)", NS), C("lambda z: sl.eigvals(z)", NS + 0.3j * N3.T @ N3[:, :3])],
        sl.eig: [C("lambda a: (lambda w, v: (w, v * v[0]))(*sl.eig(a))", NS)],
        sl.lu: [C("lambda a: sl.lu(a)[1:]", NS[::-1].copy()), C("lambda a: sl.lu(a, permute_l=True)", NS),
                C("lambda a: sl.lu(a, p_indices=True)[2] * 2.0 + sl.lu(a)[1]", NS)],
        sl.rq: [C("lambda a: sl.rq(a)", NS), C("lambda a: sl.rq(a, mode='r')", NS),
                C("lambda a: sl.rq(a, mode='economic')[1][0]", NS)],
        ss.lfilter: [C("lambda b, a, x, zi: ss.lfilter(b, a, x, zi=zi)", P[:3], np.array([1.3, -0.4]), X, P[:2]),
                     C("lambda x, zi: ss.lfilter([0.2, 0.3], [1.0, -0.4], x, 0, zi)", M2.T.copy(), P[:2].reshape(1, 2)),
                     C("lambda b, a, zi: ss.lfilter(b, a, X[:1], zi=zi)", P[:3], np.array([0.9, 0.2, -0.1]), P[1:3])],
        ss.sosfilt: [C("lambda b, a, x: ss.sosfilt(np.concatenate([b, np.ones((2, 1)), a], axis=1), x)", SOS[:, :3], SOS[:, 4:], X),
                     C("lambda a, x, zi: ss.sosfilt(np.concatenate([SOS[:, :4], a], axis=1), x, zi=zi)", SOS[:, 4:], M2,
                       np.stack([np.stack([P[:2], P[2:]])] * 2)),
                     C("lambda x, zi: ss.sosfilt(SOS, x, 0, zi)", M2.T.copy(), np.stack([P[:2].reshape(2, 1) + 0 * M2[:, :1].T] * 2))],
    })
    for m in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"):
        cases[(type(st.weibull_max), m)] = [C(f"lambda x, c, l, s: st.weibull_max.{m}(x, c, l, s)", -P, 1.7, 0.1, 1.3)]
        cases[(type(st.weibull_min), m)] = [C(f"lambda x, c: st.weibull_min.{m}(x, c, 0.1, 1.2)", P + 0.3, 1.6)]
        cases[(type(st.lognorm), m)] = [C(f"lambda x, s: st.lognorm.{m}(x, s, scale=1.2)", P + 0.3, 0.7)]
    for m in ("ppf", "isf"):
        cases[(type(st.weibull_max), m)] = [C(f"lambda q, c, l, s: st.weibull_max.{m}(q, c, l, s)", P, 1.7, 0.1, 1.3)]
        cases[(type(st.weibull_min), m)] = [C(f"lambda q, c: st.weibull_min.{m}(q, c, scale=1.3)", P, 1.6)]
        cases[(type(st.lognorm), m)] = [C(f"lambda q, s: st.lognorm.{m}(q, s, 0.2)", P, 0.7)]
    cases[st.gaussian_kde] = [C("lambda d: st.gaussian_kde(d).covariance + st.gaussian_kde(d).log_det", V),
                              C("lambda d, w: (lambda k: k.covariance * k.log_det + k.factor)(st.gaussian_kde(d, 'silverman', w))",
                                K2, np.concatenate([P, P[:2]]) + 1.0),
                              C("lambda d: st.gaussian_kde(d, 'silverman', weights=[0.2, 0.5, 0.3]).evaluate(0.3)", V[:3]),
                              C("lambda d, w: st.gaussian_kde(d, weights=w).logpdf(P[:2])", V, V * V + 1.0),
                              C("lambda w: st.gaussian_kde(K2, 'silverman', w)(np.array([0.1, 0.2]))", np.concatenate([P, P[:2]]) + 1.0)]
    cases[(st.gaussian_kde, "evaluate")] = [C("lambda d, p: st.gaussian_kde(d).evaluate(p)", V, P),
                                            C("lambda d: st.gaussian_kde(d, bw_method=0.4).evaluate(np.array([[0.1], [0.2]]))", K2)]
    cases[(st.gaussian_kde, "pdf")] = [C("lambda d, p: st.gaussian_kde(list(d)).pdf(p)", V, P)]
    cases[(st.gaussian_kde, "logpdf")] = [C("lambda d, p: st.gaussian_kde(d).logpdf(p)", K2, N)]
    cases[(st.gaussian_kde, "__call__")] = [C("lambda p: st.gaussian_kde(V)(p)", P)]
    S = np.sin(np.arange(24.0) * 0.7) + 0.05 * np.arange(24.0) ** 1.5 / 10.0
    cases[ss.welch] = [C("lambda x: ss.welch(x, nperseg=8)[1]", S),
                       C("lambda x, fs: ss.welch(x, fs, nperseg=8, noverlap=2, nfft=11, detrend='linear', scaling='spectrum')",
                         S, 2.5),
                       C("lambda x, w: ss.welch(x, window=w, nperseg=6, return_onesided=False, detrend=False)[1]", S,
                         np.hanning(6) + 0.1),
                       C("lambda x: ss.welch(x, nperseg=5, axis=0)[1]", np.stack([S, S[::-1] ** 2]).T.copy())]
    cases[ss.convolve2d] = [C("lambda a, b: ss.convolve2d(a, b)", M2[:, :4], N), C("lambda a, b: ss.convolve2d(a, b, 'same')", M2, N),
                            C("lambda a: ss.convolve2d(a, N, mode='valid', boundary='fill', fillvalue=0)", M2)]
    cases[ss.correlate2d] = [C("lambda a, b: ss.correlate2d(a, b, 'valid')", M2, N), C("lambda a, b: ss.correlate2d(a, b, 'same')", M2, NS),
                             C("lambda b: ss.correlate2d(M2, b)", N)]
    cases[ss.detrend] = [C("lambda x: ss.detrend(x)", S), C("lambda x: ss.detrend(x, 0, 'constant')", M2.T.copy()),
                         C("lambda x: ss.detrend(list(x), type='linear', bp=[5, 12])", S),
                         C("lambda z: ss.detrend(z, axis=1)", M2 + 0.5j * M2[::-1])]
    cases[ss.periodogram] = [C("lambda x: ss.periodogram(x)[1]", S), C("lambda x, fs: ss.periodogram(x, fs, 'hann', 30)", S, 3.0),
                             C("lambda x: ss.periodogram(list(x), scaling='spectrum', detrend='linear')[1]", S[:9])]
    cases[si.solve_ivp] = [
        C("lambda k, y0: si.solve_ivp(_rhs, (0.0, 1.5), y0, args=(k,), rtol=1e-10, atol=1e-12).y[:, -1]", 0.8, P[:2]),
        C("lambda k: si.solve_ivp(lambda t, y: -k * y * y, (0.0, 1.0), [1.0, 0.5], t_eval=[0.3, 1.0], method='DOP853',"
          " rtol=1e-10, atol=1e-12)['y']", 0.7)]
    if xl is not None:
        cases[xl.solve] = [C("lambda a, b: xl.solve(a, b)", np.eye(2) * 3.0 + N, P[:2]),
                           C("lambda b: ss.filtfilt(b, [1.0, -0.4], X)", P[:2]),
                           C("lambda x: ss.sosfiltfilt(SOS, x)", np.sin(np.arange(20.0)))]
    cases.update(numpy_cases)
    return {names[k]: v for k, v in cases.items() if k in names}


def lang13_zero_cases(entries):
    """Zero-derivative rules of this pass, a sample each, by catalog name."""
    if st is None:
        return {}
    names = {e.key: e.name for e in entries}
    cases = {(type(st.poisson), "ppf"): C("lambda q, mu: st.poisson.ppf(q, mu) * q", P, 2.5),
             (type(st.poisson), "isf"): C("lambda q, mu: st.poisson.isf(q, mu, 1) * mu", P, 2.5)}
    return {names[k]: v for k, v in cases.items() if k in names}
