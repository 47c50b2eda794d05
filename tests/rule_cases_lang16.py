"""Test inputs of the rules added by the lang helper's fifth pass on issue 12: the methods of every other
scipy.stats distribution, through its private formulas (rules/scipy_stats_generic.py; truncnorm through formulas
of ours in real arithmetic), and frozen ones.  Merged into CASES of tests/test_rules.py by catalog name, so each
is checked by check_derivatives in both modes."""
import collections
import itertools
import operator
import statistics

import numpy as np

from rule_case_kit import kit

F, Case = kit("lang16 rule case", globals())
C = Case
try:
    import scipy.special as sp
    import scipy.stats as st
except ImportError:  # SciPy is optional
    sp = st = None

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


A47 = np.array([[0.3, -1.2, 0.8, 2.1, -0.4, 1.5, 0.1], [1.1, 0.2, -0.9, 0.6, 1.8, -1.5, 0.45],
                [-0.2, 0.9, 1.4, -0.6, 0.05, 0.7, -1.1], [0.5, -0.3, 2.2, 1.0, -0.8, 0.35, 1.6]])
NAN47 = np.isin(np.arange(28).reshape(4, 7), [9, 21])
# every method NumPy has (H&F's nine and the four older ones): weights from np.quantile itself (numpy_quantiles.py)
_METHODS = ["inverted_cdf", "averaged_inverted_cdf", "closest_observation", "interpolated_inverted_cdf", "hazen",
            "weibull", "median_unbiased", "normal_unbiased", "nearest", "midpoint"]
_POLY_CASES = [C("lambda c, x: np.sum(np.poly1d(c)(x))", POS, X),
               C("lambda c, x: np.sum(np.poly1d(c).deriv()(x)) + np.poly1d(c).integ(m=2)(0.3)", POS, X),
               C("lambda c: np.poly1d(np.concatenate([[0.0], c])).coeffs * np.poly1d(c).c", POS),
               C("lambda r, x: np.poly1d(r, r=True)(x)", X[:3], POS),
               C("lambda y, x: np.poly1d(np.polyfit(x, y, 2))(x) + np.poly1d(np.poly1d(y[:2]))(0.5)", POS, X)]
NUMPY_CASES = {
    # (Counter.update/subtract on counts of keys: no derivative flows through them, so no refusal; forward mode only,
    # reverse mode has no rule for them: test_rules_lang16.py)
    (collections.Counter, "update"): [C("lambda x: (lambda c: (c.update(['a', 'b', 'a']), c['a'] * x)[1])(collections.Counter())",
                                        0.7, modes=("forward",))],
    (collections.Counter, "subtract"): [C("lambda x: (lambda c: (c.subtract(['a']), c['a'] * x)[1])(collections.Counter('aab'))",
                                          0.7, modes=("forward",))],
    collections.Counter: [C("lambda x: sum(collections.Counter({'a': x[0], 'b': x[1]}).values())", X),
                          C("lambda x: collections.Counter(a=x[0], b=x[3])['a'] * collections.Counter({'a': x[2]})['zz']"
                            " + collections.Counter({'b': x[1]})['b'] * collections.Counter(['a', 'b', 'a'])['a']", X),
                          C("lambda x: collections.Counter({'a': x[0], 'b': x[1], 'c': x[2]}).most_common(1)[0][1] + "
                            "sum((collections.Counter({'a': x[0]}) + collections.Counter({'a': x[2], 'b': x[3]})).values())", X)],
    np.poly1d: _POLY_CASES,
    np.poly1d.__dict__["_coeffs"].fget: _POLY_CASES[:2],
    itertools.zip_longest: [C("lambda x, y: sum(a * b for a, b in itertools.zip_longest(x, y[:2], fillvalue=1.5))", X, POS),
                            C("lambda x, f: sum(a * b * c for a, b, c in itertools.zip_longest(list(x), x[1:], x[:1], "
                              "fillvalue=f))", X, 0.7),
                            C("lambda x: [a - b for a, b in itertools.zip_longest(x, x[:3], fillvalue=0.0)][-1]", X)],
    itertools.accumulate: [C("lambda x, s: list(itertools.accumulate(x, operator.mul, initial=s))[-1]", X, 1.3),
                           C("lambda x, s: sum(itertools.accumulate(list(x), initial=s * s))", X, 0.6)],
    itertools.compress: [C("lambda x: sum(itertools.compress(data=list(x), selectors=[1, 0, 1, 1]))", X)],
    # keyword arguments with floats (forward mode had no tangent for them: a template now binds them)
    statistics.fmean: [C("lambda x, w: statistics.fmean(list(x), weights=list(w))", X, POS),
                       C("lambda x: statistics.fmean(x, weights=[1.0, 2.0, 0.5, 1.5])", X)],
    statistics.stdev: [C("lambda x, m: statistics.stdev(list(x), xbar=m)", X, 0.1)],
    statistics.pvariance: [C("lambda x, m: statistics.pvariance(list(x), mu=m * m)", X, 0.4)],
    np.quantile: [C(f"lambda a: np.quantile(a, [0.13, 0.5, 0.77], axis=1, method='{m}')", A47) for m in _METHODS[::2]]
    + [C(f"lambda a: np.quantile(a[0], 0.3, method='{m}', keepdims=True)", A47) for m in _METHODS[1::2]],
    np.percentile: [C("lambda a: np.percentile(a, [25, 60], axis=0, method='hazen')", A47),
                    C("lambda a: np.percentile(a, 40, method='weibull')", A47)],
    np.nanquantile: [C("lambda a: np.nanquantile(np.where(NAN47, np.nan, a), [0.2, 0.9], axis=1, method='median_unbiased')", A47)],
    np.nanpercentile: [C("lambda a: np.nanpercentile(np.where(NAN47, np.nan, a), 35, axis=0, method='inverted_cdf')", A47)],
}


def lang16_cases(entries):
    """The cases by catalog name (`entries`: catalog())."""
    names = {e.key: e.name for e in entries}
    if st is None:
        return {names[k]: v for k, v in NUMPY_CASES.items() if k in names}
    cases = dict(NUMPY_CASES)
    cases[sp.kn] = [C("lambda x: sp.kn(2, x) + sp.kn(0, x * 2.0)", POS), C("lambda x: sp.kn(np.array([1, 3]), x)", 0.8)]
    cases[sp.ellipj] = [C("lambda u: sp.ellipj(u, 0.3)[0] * sp.ellipj(u, 0.3)[1]", X),
                        C("lambda u: sum(v * w for v, w in zip(sp.ellipj(u, 0.7), (1.0, -2.0, 0.5, 3.0)))", 0.9),
                        C("lambda u: np.sum(sp.ellipj(u[:, None], np.array([0.0, 0.4, 0.99]))[2])", X)]
    from mooncake_ast.rules.scipy_stats_generic import CONTINUOUS_METHODS, DISCRETE_METHODS

    for method in CONTINUOUS_METHODS:
        cases[st.rv_continuous, method] = [c for c in _continuous(method) if c is not None and c.modes != ()]
    for method in DISCRETE_METHODS:
        cases[st.rv_discrete, method] = _discrete(method)
    return {names[k]: v for k, v in cases.items() if k in names}
