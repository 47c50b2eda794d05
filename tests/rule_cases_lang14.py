"""Test inputs of the rules added by the lang helper's third pass on issue 12 (the incomplete gamma and beta
functions in their parameters and the scipy.stats shape parameters through them, fractional_matrix_power,
solve_ivp in its times): merged into CASES of tests/test_rules.py by catalog name, so each rule is checked by
check_derivatives in both modes (forward against finite differences, reverse against forward)."""
import numpy as np

from rule_case_kit import kit

F, Case = kit("lang14 rule case", globals())
C = Case
try:
    import scipy.integrate as si
    import scipy.linalg as sl
    import scipy.special as sp
    import scipy.stats as st
except ImportError:  # SciPy is optional
    si = sl = sp = st = None
P = np.array([0.3, 0.6, 0.2, 0.8])
Z = np.array([-1.0, 0.3, 2.0, 0.05])
A = np.array([[2.0, 0.3], [0.4, 1.5]])  # (real positive eigenvalues: SciPy returns a real power)
C2 = np.array([[1.0, 0.3], [0.3, 2.0]])
X2 = np.array([[0.2, 0.5], [-0.3, 1.0], [1.2, -0.4]])
L3 = np.array([[0.5, 0.0, 0.0], [0.15, 0.7, 0.0], [0.05, 0.07, 0.6]])


def _rhs(t, y, k):
    return np.array([y[1], -k * np.sin(y[0]) + 0.1 * t])


_TIGHT = "rtol=1e-10, atol=1e-12"


K = np.array([0, 2, 5, 3])


COVX = np.sin(np.arange(12.0)).reshape(3, 4) + 0.1 * np.arange(12.0).reshape(3, 4)
NUMPY_CASES = {np.cov: [C("lambda x, w: np.cov(x, aweights=w)", COVX, P + 0.5),
                        C("lambda x, w: np.cov(x, None, True, False, None, np.array([1, 2, 1, 3]), w)", COVX, P + 0.5),
                        C("lambda w: np.cov(COVX[0], bias=True, aweights=w)", P + 0.5)],
               np.linalg.pinv: [C("lambda a: np.linalg.pinv(a, hermitian=True)", COVX[:, :3] @ COVX[:, :3].T + np.eye(3)),
                                C("lambda x: np.linalg.pinv(x.T @ x, hermitian=True)", COVX[:2, :3])]}


def lang14_cases(entries):
    """The cases by catalog name (`entries`: catalog())."""
    names = {e.key: e.name for e in entries}
    if sp is None:
        return {names[k]: v for k, v in NUMPY_CASES.items() if k in names}
    cases = {
        sp.gammainc: [C("lambda a, x: sp.gammainc(a, x)", P + 0.5, P * 3.0), C("lambda a: sp.gammainc(a, 40.0 * P)", P * 20.0)],
        sp.gammaincc: [C("lambda a, x: sp.gammaincc(a * 3.0, x)", P + 0.05, P * 3.0)],
        sp.betainc: [C("lambda a, b, x: sp.betainc(a, b, x)", P + 0.5, P[::-1] + 1.0, P),
                     C("lambda a, b: sp.betainc(a, b, 0.4)", np.array([0.2, 30.0]), np.array([40.0, 0.7]))],
        sp.betaincc: [C("lambda a, b, x: sp.betaincc(a, b, x)", P + 0.5, P[::-1] + 1.0, P)],
        sp.stdtr: [C("lambda d, t: sp.stdtr(d, t)", P * 5.0 + 0.5, Z), C("lambda d: sp.stdtr(d, 0.0) + sp.stdtr(d, -3.0)", 2.5)],
        sp.gammaincinv: [C("lambda a, p: sp.gammaincinv(a, p)", P + 0.5, P)],
        sp.gammainccinv: [C("lambda a, p: sp.gammainccinv(a, p)", P + 0.5, P)],
        sp.betaincinv: [C("lambda a, b, p: sp.betaincinv(a, b, p)", P + 0.5, P[::-1] + 1.0, P)],
        sl.fractional_matrix_power: [C("lambda a: sl.fractional_matrix_power(a, 0.5)", A),
                                     C("lambda a, t: sl.fractional_matrix_power(a, t)", A, -0.7),
                                     C("lambda a: sl.fractional_matrix_power(a, 2) + sl.fractional_matrix_power(a, -1)", A)],
        si.solve_ivp: [C(f"lambda t0, T, y0: si.solve_ivp(_rhs, (t0, T), y0, args=(0.8,), {_TIGHT}).y[:, -1]", 0.2, 1.3, P[:2]),
                       C(f"lambda T: si.solve_ivp(_rhs, [0.0, T], P[:2], args=(0.8,), {_TIGHT}).t[-1] * 2.0", 1.1),
                       C(f"lambda T: si.solve_ivp(_rhs, (0.0, T), P[:2], t_eval=np.linspace(0.0, T, 4), args=(0.8,), {_TIGHT}).y", 1.1),
                       C(f"lambda te: si.solve_ivp(_rhs, (0.0, 2.0), P[:2], 'RK45', te, args=(0.8,), {_TIGHT}).y", np.array([0.3, 0.9, 1.5, 1.8])),
                       C(f"lambda T: si.solve_ivp(_rhs, (1.0, T), P[:2], args=(0.8,), {_TIGHT}).y[:, -1]", 0.2)],
        sp.chdtr: [C("lambda v, x: sp.chdtr(v, x)", P + 1.0, P * 2.0)], sp.chdtrc: [C("lambda v, x: sp.chdtrc(v, x)", P + 1.0, P * 2.0)],
        sp.gdtr: [C("lambda a, b, x: sp.gdtr(a, b, x)", P + 1.0, P + 0.5, P * 2.0)],
        sp.gdtrc: [C("lambda a, b, x: sp.gdtrc(a, b, x)", P + 1.0, P + 0.5, P * 2.0)],
        sp.pdtr: [C("lambda m: sp.pdtr(3, m)", P * 4.0)], sp.pdtrc: [C("lambda m: sp.pdtrc(2.0, m)", P * 4.0)],
        sp.bdtr: [C("lambda p: sp.bdtr(3, 7, p)", P)], sp.bdtrc: [C("lambda p: sp.bdtrc(2, 7, p)", P)],
        sp.fdtr: [C("lambda a, b, x: sp.fdtr(a, b, x)", P + 2.0, P + 3.0, P * 3.0)],
        sp.fdtrc: [C("lambda a, b, x: sp.fdtrc(a, b, x)", P + 2.0, P + 3.0, P * 3.0)],
        sp.stdtrit: [C("lambda d, p: sp.stdtrit(d, p)", P * 4.0 + 1.0, P)],
        sp.ndtri_exp: [C("lambda y: sp.ndtri_exp(y)", -P * 3.0)],
        sl.cosm: [C("lambda a: sl.cosm(a)", A * 0.4)], sl.sinm: [C("lambda a: sl.sinm(a)", A * 0.4)],
        sl.tanm: [C("lambda a: sl.tanm(a)", A * 0.4)], sl.coshm: [C("lambda a: sl.coshm(a)", A * 0.4)],
        sl.sinhm: [C("lambda a: sl.sinhm(a)", A * 0.4)], sl.tanhm: [C("lambda a: sl.tanhm(a)", A * 0.4)],
        sl.eigh: [C("lambda a, b: sl.eigh(a, b)", C2 + np.eye(2), A @ A.T), C("lambda a, b: sl.eigh(a, b, lower=False, eigvals_only=True)", C2, A @ A.T)],
        sl.eigvalsh: [C("lambda a, b: sl.eigvalsh(a, b)", C2 + np.eye(2), A @ A.T)],
        sl.solve_continuous_lyapunov: [C("lambda a, q: sl.solve_continuous_lyapunov(a, q)", -2.0 * np.eye(2) + A * 0.3, C2)],
    }
    for m in ("cdf", "sf", "logcdf", "logsf"):
        cases[(type(st.t), m)] = [C(f"lambda x, df: st.t.{m}(x, df, 0.1, 1.3)", Z, 3.5)]
        cases[(type(st.chi2), m)] = [C(f"lambda x, df: st.chi2.{m}(x, df)", P * 4.0, 2.5)]
        cases[(type(st.gamma), m)] = [C(f"lambda x, a: st.gamma.{m}(x, a, scale=1.5)", P * 4.0, P + 1.0)]
        cases[(type(st.invgamma), m)] = [C(f"lambda x, a: st.invgamma.{m}(x, a)", P * 4.0, 2.2)]
        cases[(type(st.beta), m)] = [C(f"lambda x, a, b: st.beta.{m}(x, a, b)", P, 2.2, P + 0.5)]
    for m in ("ppf", "isf"):
        cases[(type(st.t), m)] = [C(f"lambda q, df: st.t.{m}(q, df)", P, 3.5)]
        cases[(type(st.chi2), m)] = [C(f"lambda q, df: st.chi2.{m}(q, df)", P, 2.5)]
        cases[(type(st.gamma), m)] = [C(f"lambda q, a: st.gamma.{m}(q, a)", P, P + 1.0)]
        cases[(type(st.invgamma), m)] = [C(f"lambda q, a: st.invgamma.{m}(q, a, scale=2.0)", P, 2.2)]
        cases[(type(st.beta), m)] = [C(f"lambda q, a, b: st.beta.{m}(q, a, b)", P, 2.2, 1.5)]
    mvn, frozen = type(st.multivariate_normal), st._multivariate.multivariate_normal_frozen
    # (3-D: SciPy integrates by QMC; an unreachable abseps makes it use all of maxpts, and with the seed fixed its
    # value is a smooth function of the inputs)
    tight = "abseps=1e-12, releps=1e-12, maxpts=20000, rng=np.random.default_rng(0)"
    cases[(mvn, "cdf")] = [C("lambda x, m, c: st.multivariate_normal.cdf(x, m, c)", X2, P[:2], C2),
                           C("lambda x, m, c: st.multivariate_normal.cdf(x, m, c)", P[:2], 0.3, 1.5),
                           C("lambda x, c: st.multivariate_normal.cdf(x, np.zeros(2), c)", X2[1], P[1:3] + 0.5),
                           C(f"lambda x, l: st.multivariate_normal.cdf(x, np.zeros(3), l @ l.T + np.eye(3), {tight})", P[:3], L3,
                             rtol=1e-4)]
    cases[(mvn, "logcdf")] = [C("lambda x, m, c: st.multivariate_normal.logcdf(x, mean=m, cov=c)", X2[0], P[:2], C2)]
    cases[(frozen, "cdf")] = [C("lambda x, m: st.multivariate_normal(m, C2).cdf(x)", X2, P[:2])]
    cases[(frozen, "logcdf")] = [C("lambda x, c: st.multivariate_normal(np.zeros(2), c).logcdf(x)", X2[2], C2)]
    for m in ("logpmf", "pmf", "cdf", "sf", "logcdf", "logsf"):
        cases[(type(st.binom), m)] = [C(f"lambda p: st.binom.{m}(K, 6, p)", P), C(f"lambda p: st.binom.{m}(K + 1, 6, p, loc=1)", 0.35)]
        kb = "np.zeros(4)" if m == "logsf" else "np.array([0, 0, 1, 0])"  # (sf(1) = 0: logsf -inf)
        cases[(type(st.bernoulli), m)] = [C(f"lambda p: st.bernoulli.{m}({kb}, p)", P)]
        cases[(type(st.geom), m)] = [C(f"lambda p: st.geom.{m}(K + 1, p)", P)]
        cases[(type(st.nbinom), m)] = [C(f"lambda n, p: st.nbinom.{m}(K, n, p)", 2.5, P)]
    cases.update(NUMPY_CASES)
    return {names[k]: v for k, v in cases.items() if k in names}
