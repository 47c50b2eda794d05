"""Test inputs of the rules added by the lang helper's fifth pass on issue 12: the methods of every other
scipy.stats distribution, through its private formulas (rules/scipy_stats_generic.py; truncnorm through formulas
of ours in real arithmetic), and frozen ones.  Merged into CASES of tests/test_rules.py by catalog name, so each
is checked by check_derivatives in both modes."""
import numpy as np

from rule_case_kit import kit

F, Case = kit("lang16 rule case", globals())
C = Case
try:
    import scipy.stats as st
except ImportError:  # SciPy is optional
    st = None

X = np.array([-0.7, -0.1, 0.3, 0.8])
POS = np.array([1.3, 1.9, 2.6, 3.4])
Q = np.array([0.1, 0.35, 0.6, 0.9])
K = np.array([0, 1, 2, 4])


def _continuous(method):
    """A family per method: shapes positional and by keyword, loc and scale, arrays broadcast, frozen objects."""
    point = "q" if method in ("ppf", "isf") else "x"
    return [
        C(f"lambda {point}, l, s: st.gumbel_r.{method}({point}, l, s)", Q if point == "q" else X, 0.2, 1.4),
        C(f"lambda {point}, c, s: st.genextreme.{method}({point}, c, scale=s)", Q if point == "q" else X, 0.3, 1.6),
        C(f"lambda {point}, b: st.pareto.{method}({point}, b[:, None], loc=-0.5)", Q if point == "q" else POS,
          np.array([1.5, 2.5])),
        C(f"lambda {point}, k: st.vonmises.{method}({point}, kappa=k)", Q if point == "q" else X, 1.4,
          modes=("forward", "reverse") if method in ("logpdf", "pdf") else ()),
        C(f"lambda {point}, a, b: st.truncnorm.{method}({point}, a, b)", Q if point == "q" else X, -1.5, 1.2,
          modes=() if method in ("ppf", "isf") else ("forward", "reverse")),
        C(f"lambda {point}, a, s: st.weibull_min(a, scale=s).{method}({point})", Q if point == "q" else POS, 1.7, 2.2)
        if method in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf") else None,
        C(f"lambda {point}, a, s: st.skewnorm(a, 0.1, s).{method}({point})", Q if point == "q" else X, 0.7, 1.3,
          modes=("forward", "reverse") if method in ("logpdf", "pdf") else ()),
    ]


def _discrete(method):
    return [
        C(f"lambda a, b: st.betabinom.{method}(K, 6, a, b)", 1.5, 2.5),
        C(f"lambda p: st.logser.{method}(K + 1, p)", 0.4),
        C(f"lambda p: st.planck.{method}(K, p, loc=-1)", np.array([0.6, 0.9])[:, None]),
    ]


def lang16_cases(entries):
    """The cases by catalog name (`entries`: catalog())."""
    if st is None:
        return {}
    names = {e.key: e.name for e in entries}
    cases = {}
    from mooncake_ast.rules.scipy_stats_generic import CONTINUOUS_METHODS, DISCRETE_METHODS

    for method in CONTINUOUS_METHODS:
        cases[st.rv_continuous, method] = [c for c in _continuous(method) if c is not None and c.modes != ()]
    for method in DISCRETE_METHODS:
        cases[st.rv_discrete, method] = _discrete(method)
    return {names[k]: v for k, v in cases.items() if k in names}
