"""Test inputs of the SciPy rules of issue 12 (rules/scipy_special_more.py, rules/scipy_stats.py,
logsumexp's b=), merged into CASES of tests/test_rules.py by catalog name.  Empty without SciPy.

Shape parameters of cdf-like methods are written as literals: they are constants (a differentiated
one is refused, tested in tests/test_rules_scipy_more.py)."""

import numpy as np

from rule_case_kit import kit

from rule_cases_python_lib import python_lib_cases  # noqa: F401  (re-exported for test_rules.py's one import line)

RNG = np.random.default_rng(20261124)

try:
    import scipy.linalg as la
    import scipy.signal as sg
    import scipy.special as sp
    import scipy.stats as st
except ImportError:  # SciPy is optional
    sp = st = la = sg = None






F, Case = kit("sci rule case", globals())
C = Case
u3 = np.array([0.3, 0.55, 0.8])
p3 = np.array([0.7, 1.5, 2.5])
c3 = np.array([-0.6, 0.15, 0.9])
# (distribution, shape parameters as source text, points x)
CONTINUOUS = [("norm", "", c3), ("t", "3.5, ", c3), ("chi2", "2.5, ", p3), ("beta", "1.5, 2.5, ", u3),
              ("gamma", "1.7, ", p3), ("expon", "", p3), ("laplace", "", c3)]


def _cases():
    if sp is None:
        return {}
    out = {
        sp.betainc: [C("lambda x: sp.betainc(1.5, 2.5, x)", u3), C("lambda x: sp.betainc(0.7, 3.0, x)", u3)],
        sp.gammainc: [C("lambda x: sp.gammainc(1.5, x)", p3), C("lambda x: sp.gammainc(np.array([0.5, 2.0, 4.0]), x)", p3)],
        sp.gammaincc: [C("lambda x: sp.gammaincc(2.5, x)", p3)],
        sp.jv: [C("lambda x: sp.jv(1.5, x)", p3), C("lambda x: sp.jv(0, x)", c3)],
        sp.yn: [C("lambda x: sp.yn(2, x)", p3), C("lambda x: sp.yn(0, x)", p3)],
        sp.iv: [C("lambda x: sp.iv(0.5, x)", u3), C("lambda x: sp.iv(2, x)", c3)],
        sp.ive: [C("lambda x: sp.ive(1.0, x)", c3)],
        sp.j0: [C("lambda x: sp.j0(x)", c3 * 3.0)],
        sp.j1: [C("lambda x: sp.j1(x)", c3 * 3.0)],
        sp.y0: [C("lambda x: sp.y0(x)", p3)],
        sp.y1: [C("lambda x: sp.y1(x)", p3)],
        sp.rgamma: [C("lambda x: sp.rgamma(x)", np.array([-1.5, 0.5, 2.5])),
                    C("lambda x: sp.rgamma(x)", np.array([-2.0, 0.0, -1.0]))],
        sp.gammasgn: [C("lambda x: sp.gammasgn(x) * x", np.array([-1.5, 0.5, 2.5]))],
    }
    for dist, shapes, x in CONTINUOUS:
        cls = type(getattr(st, dist))
        for m in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"):
            out[(cls, m)] = [C(f"lambda x, loc, scale: st.{dist}.{m}(x, {shapes}loc, scale)", x, -0.05, 1.3),
                             C(f"lambda x, scale: st.{dist}.{m}(x, {shapes}loc=0.02, scale=scale)", x, 0.9)]
    poisson = type(st.poisson)
    out[(poisson, "logpmf")] = [C("lambda mu: st.poisson.logpmf(np.array([0, 1, 3, 5]), mu)", 2.3),
                                C("lambda mu: st.poisson.logpmf(3, mu)", np.array([0.5, 2.0, 4.0]))]
    out[(poisson, "pmf")] = [C("lambda mu: st.poisson.pmf(np.array([0, 1, 3, 5]), mu=mu)", 2.3)]
    a = RNG.normal(size=(3, 3))
    cov = a @ a.T + 3.0 * np.eye(3)
    mvn = type(st.multivariate_normal)
    X, mean = RNG.normal(size=(4, 3)), RNG.normal(size=3)
    out[(mvn, "logpdf")] = [C("lambda x, m, c: st.multivariate_normal.logpdf(x, m, c)", X, mean, cov),
                            C("lambda x, m, c: st.multivariate_normal.logpdf(x, mean=m, cov=c)", X[0], mean, cov),
                            C("lambda x, m: st.multivariate_normal.logpdf(x, m)", X, mean)]
    out[(mvn, "pdf")] = [C("lambda x, m, c: st.multivariate_normal.pdf(x, m, c)", X[0], mean, cov)]
    out[(mvn, "entropy")] = [C("lambda c: st.multivariate_normal.entropy(np.zeros(3), c)", cov),
                             C("lambda c: st.multivariate_normal.entropy(np.zeros(2), cov=c)", np.array([0.5, 1.5]))]
    for m in ("cdf", "sf", "logcdf", "logsf"):
        out[(poisson, m)] = [C(f"lambda mu: st.poisson.{m}(np.array([0.0, 1.0, 2.5, 5.0]), mu)", 2.3)]
    import scipy.linalg as la
    import scipy.signal as sg
    out[la.sqrtm] = [C("lambda a: la.sqrtm(a @ a.T + np.eye(3))", a)]
    out[la.solve_sylvester] = [C("lambda a, b, q: la.solve_sylvester(a, b, q)", a + 3.0 * np.eye(3), cov, RNG.normal(size=(3, 3)))]
    out[sg.convolve] = [C("lambda x, y: sg.convolve(x, y) + np.sum(sg.convolve(x, y, 'valid'))", RNG.normal(size=5), RNG.normal(size=3)),
                        C("lambda x, y: sg.convolve(x, y, mode='same')", RNG.normal(size=(3, 4)), RNG.normal(size=(2, 2)))]
    out[sg.correlate] = [C("lambda x, y: sg.correlate(x, y, 'same') * 2.0", RNG.normal(size=(3, 4)), RNG.normal(size=(2, 3)))]
    return out


def sci_cases(entries):
    """The cases by catalog name (`entries`: catalog()); logsumexp's b= cases are added to its own."""
    if sp is None:
        return {}
    names = {e.key: e.name for e in entries}
    return {names[k]: v for k, v in _cases().items() if k in names}


def logsumexp_b_cases():
    if sp is None:
        return []
    x, b = RNG.uniform(-1, 1, size=(2, 3)), RNG.uniform(0.5, 2.0, size=(2, 3))
    return [C("lambda x, b: sp.logsumexp(x, b=b)", x, b),
            C("lambda x, b: sp.logsumexp(x, axis=0, b=b)", x, b[:, :1]),
            C("lambda x: sp.logsumexp(x, axis=1, b=np.array([1.0, 2.0, 0.5]), keepdims=True)", x)]
