"""Test inputs of the scipy.stats rules whose derivative is a NumPy model's (rules/scipy_stats_models.py) and of
odeint with respect to its times (rules/scipy_integrate_rules.py): merged into CASES of tests/test_rules.py by catalog name."""
import numpy as np

from rule_case_kit import kit

F, Case = kit("lang12 rule case", globals())
C = Case
try:
    import scipy.integrate as si
    import scipy.stats as st
except ImportError:  # SciPy is optional
    si = st = None
V = np.array([0.3, 1.2, -0.7, 2.1, 0.5, 1.9])
M = np.array([[0.3, 1.2, -0.7], [2.1, 0.5, 1.9], [0.2, -1.1, 0.8], [1.4, 0.1, 0.6]])


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
        si.odeint: [C("lambda y0, t, k: si.odeint(_ode, y0, t, (k,))", np.array([0.4, -0.2]), np.array([0.1, 0.3, 0.6]),
                      0.7, rtol=1e-4, atol=1e-5),
                    C("lambda t: si.odeint(lambda t, y: -y * y, [1.0], list(t), tfirst=True)", np.array([0.0, 0.5]),
                      rtol=1e-4, atol=1e-5)],
    }
    return {names[k]: v for k, v in cases.items() if k in names}
