"""Test inputs of the rules added for issue 12's second round (mooncake_ast/rules/issue12_rules.py and the
modules it imports), merged into CASES of tests/test_rules.py by catalog name: entries whose name already
has cases (numpy.ufunc.at) are appended to them.  One or two small cases per rule; refusals and other
checks are in tests/test_rules_issue12.py."""
import collections
import statistics  # noqa: F401  (the cases' sources use it)

import numpy as np

from rule_case_kit import kit

F, Case = kit("issue12 rule case", globals())
C = Case
RNG = np.random.default_rng(1212)
v5 = RNG.uniform(0.5, 1.5, 5)
m34 = RNG.uniform(-0.9, 0.9, (3, 4))
z33 = RNG.normal(size=(3, 3)) + 1j * RNG.normal(size=(3, 3))  # not Hermitian: eigh reads one triangle
z43 = RNG.normal(size=(4, 3)) + 1j * RNG.normal(size=(4, 3))


def mul_at(a, b):
    a = a * 1.0
    np.multiply.at(a, [0, 2, 0, 4, 0], b)  # position 0 three times: each update sees the previous one
    return a


def max_at(a, b):
    a = a.astype(float)  # (real only: complex input warns, so tests/test_complex_forward.py leaves it out)
    np.maximum.at(a, (np.array([0, 2, 2]), np.array([1, 3, 3])), b)  # 2-D, a repeated pair
    return a * a


def div_power_at(a, b):
    a = a * 1.0
    np.divide.at(a, [1, 1, 3], b)
    np.power.at(a, slice(0, 2), 2.5)  # a slice and a constant exponent
    return a


def unary_at(a):
    a = a * 1.0
    np.square.at(a, [1, 1, 2])
    np.negative.at(a[1:], [0])  # through a view
    return a


def regression(x, y):
    fit = statistics.linear_regression(list(x), y)
    slope, intercept = fit
    return slope * 2.0 + intercept * fit.slope + statistics.linear_regression(x, y, proportional=True).slope


def trig_at(a):
    a = a * 1.0
    np.arctan.at(a, [0, 0])
    np.log1p.at(a, [2, 3])
    np.floor.at(a, [4])  # slope 0
    return a * 2.0


def deque_floats(x, y):
    """Every deque method the rules cover, on differentiated values."""
    d = collections.deque([x, y * 2.0], maxlen=4)
    d.append(x * y)
    d.appendleft(y)
    d.append(3.0 * x)  # bounded: pushes y out on the left
    d.extend([x, y])
    d.extendleft([y * y])
    d.rotate(2)
    first = d.pop() * d.popleft()
    d.reverse()
    d.insert(1, x - y)
    d.remove(d[2])
    e = d.copy()
    e[0] = e[0] * x
    s = first + e[0] + d[1] * sum(d)
    d.clear()
    return s + len(d)


def deque_indices(x):
    """The same methods on a queue of indices (no derivative passes through it): both modes."""
    d = collections.deque([0, 1], maxlen=4)
    d.append(2)
    d.appendleft(1)
    d.extend([0, 2])
    d.extendleft([1])
    d.rotate(1)
    i = d.pop() + d.popleft()
    d.reverse()
    d.insert(1, 0)
    d.remove(d[2])
    e = d.copy()
    e[0] = 2
    out = x[i % 3] * x[e[0]] + x[d[1]]
    d.clear()
    return out


DEQUE = [C(deque_floats, 0.7, -0.4), C(deque_indices, np.array([0.5, -1.2, 0.8]))]
ISSUE12_CASES = {
    "numpy.ufunc.at": [C(mul_at, v5, RNG.uniform(0.5, 1.5, 5)), C(max_at, m34, RNG.uniform(-0.9, 0.9, 3)),
                       C(div_power_at, v5, 1.7), C(unary_at, v5), C(trig_at, v5),
                       C("lambda a, b: (np.fmod.at(a, [1, 1], b), np.copysign.at(a, [0], -1.0), a * 1.0)[2]", v5 * 3.0, 0.7)],
    "numpy.ufunc.reduce": [C("lambda x: np.float_power.reduce(x + 1.0, axis=0) + np.fmod.reduce(x * 3.0, axis=1)[1]", m34 + 1.0)],
    "numpy.ufunc.accumulate": [C("lambda x: np.copysign.accumulate(x) + np.float_power.accumulate(x + 1.0, 1)", m34)],
    "numpy.ufunc.outer": [C("lambda a, b: np.fmod.outer(a * 3.0, b) + np.heaviside.outer(a - 1.0, b)", v5, RNG.uniform(0.5, 1.5, 3))],
    # numpy_linalg_complex.py (forward mode; test_rules checks that reverse mode refuses complex values)
    "numpy.linalg.eigh": [C("lambda a: np.linalg.eigh(a)[1] * np.linalg.eigh(a, 'U')[0]", z33)],
    "numpy.linalg.eigvalsh": [C("lambda a: np.linalg.eigvalsh(a, 'U')", z33)],
    "numpy.linalg.svd": [C("lambda a: np.linalg.svd(a, full_matrices=False)[0] * np.linalg.svd(a, False)[1]", z43),
                         C("lambda a: np.linalg.svd(a, full_matrices=False)[2] + np.linalg.svd(a, compute_uv=False)[0]", z43.T.copy())],
    # python_deque.py
    "collections.deque": DEQUE,  # (its methods are bound methods of a builtin: python_callables.call_rule)
    # python_statistics_more.py
    "statistics.geometric_mean": [C("lambda x: statistics.geometric_mean(x) * x[0]", v5), C("lambda a, b: statistics.geometric_mean((a, b * 2.0))", 0.7, 1.3)],
    "statistics.harmonic_mean": [C("lambda x: statistics.harmonic_mean(list(x))", v5), C("lambda x, w: statistics.harmonic_mean(x, weights=w)", v5, v5[::-1] * 2.0)],
    "statistics.correlation": [C("lambda x, y: statistics.correlation(list(x), y)", v5, RNG.uniform(-1, 1, 5))],
    "statistics.linear_regression": [C(regression, v5, RNG.uniform(-1, 1, 5))],
}


# ---------------------------------------------------------------- numpy_misc_ops.py, numpy_functional.py, numpy_vectorize.py, np.place, np.sign
def place_into(x, v):
    y = x * 1.0
    np.place(y, np.array([True, False, True, True, False]), v)  # 3 entries from 2 values: NumPy repeats them
    return y * x


def branchy(v):
    return v ** 2 + np.sin(v) if v > 0 else 3.0 * v


def slice_pair(v, c):
    return np.array([np.sum(v * c), np.prod(v)])


ISSUE12_CASES.update({
    "numpy.sign": [C("lambda a: np.sign(a) * a", v5 - 1.0), C("lambda z: np.sign(z) * 2.0", z33[0])],
    "numpy.divmod": [C("lambda a, b: np.divmod(a, b)[1] * 2.0 + np.divmod(a, b)[0]", m34 * 3.0, RNG.uniform(0.5, 1.5, 4))],
    "numpy.ldexp": [C("lambda x: np.ldexp(x, np.array([1, 2, 3, 0]))", m34)],
    "numpy.resize": [C("lambda x: np.resize(x, (2, 4)) + np.sum(np.resize(x, 3))", v5)],
    "numpy.ediff1d": [C("lambda x, b: np.ediff1d(x, to_begin=b, to_end=[1.0])", m34, RNG.uniform(-1, 1, 2)),
                      C("lambda x, e: np.ediff1d(x, e)", v5, 0.4)],
    "numpy.choose": [C("lambda x, y: np.choose(np.array([[0, 3], [1, 2]]), (x, y, x * y, 2.0), mode='wrap')", m34[:2, :2], v5[:2])],
    "numpy.place": [C(place_into, v5, RNG.uniform(-1, 1, 2))],
    "numpy.piecewise": [C("lambda x, c: np.piecewise(x, [x < 0.9, x > 0.7], [lambda v: c * v ** 2, lambda v: np.sin(v) * c, 1.5])", v5, 1.3)],
    "numpy.apply_along_axis": [C("lambda x, c: np.apply_along_axis(slice_pair, 0, x, c)", m34, 0.7)],
    "numpy.vectorize": [C("lambda x: np.vectorize(branchy)(x)", v5 - 1.0)],
    "numpy.lib._function_base_impl.vectorize.__call__": [C("lambda x, y: np.vectorize(lambda a, b: a * b + a)(x, y)", m34, v5[:4])],
})
ISSUE12_ZERO_CASES_MORE = {"numpy.around": C("lambda x: np.around(x, 1) * x", v5)}
if hasattr(np.linalg, "svdvals"):
    ISSUE12_CASES["numpy.linalg.svdvals"] = [C("lambda a: np.linalg.svdvals(a)", z43)]


# ---------------------------------------------------------------- scipy_stats_more.py (SciPy is optional)
def _stats_cases():
    """Cases by catalog name of the rules scipy_stats_more registers (none without SciPy)."""
    try:
        import scipy.stats  # noqa: F401  (the rules are registered once it is imported)
    except ImportError:
        return {}
    from mooncake_ast.rules import scipy_stats_more
    from mooncake_ast.rules.catalog import catalog

    names = {e.key: e.name for e in catalog()}
    q, x, x2 = np.array([0.2, 0.55, 0.9]), np.array([0.3, 0.6, 1.2]), np.array([0.3, 0.5])
    by_name = {}
    shapes = {"norm": "", "t": "3.0, ", "chi2": "3.0, ", "beta": "2.0, 3.0, ", "gamma": "2.0, ", "expon": "", "laplace": ""}
    for dist, sh in shapes.items():
        by_name[f"{dist}.ppf"] = [C(f"lambda q, m, s: st.{dist}.ppf(q, {sh}m, s)", q, 0.1, 1.3)]
        by_name[f"{dist}.isf"] = [C(f"lambda q: st.{dist}.isf(q, {sh}scale=1.5)", q)]
    # frozen distributions: parameters differentiated through the object (m, s), or constant
    frozen = {"logpdf": "st.t(4.0, m, s)", "pdf": "st.gamma(2.0, scale=s)", "cdf": "st.norm(m, s)",
              "logcdf": "st.beta.freeze(2.0, 3.0, m - 0.5, s)", "sf": "st.expon(scale=s)", "logsf": "st.laplace(m)",
              "ppf": "st.chi2(3.0, m, s)", "isf": "st.norm(scale=s)"}
    for method, made in frozen.items():
        by_name[f"rv_continuous_frozen.{method}"] = [C(f"lambda x, m, s: {made}.{method}(x) * 2.0", q if method in ("ppf", "isf") else x, 0.2, 1.3)]
    for method in scipy_stats_more.FROZEN_DISCRETE:  # piecewise constant: slope 0 in k (and in q); k between integers
        wrap = "np.exp" if method.startswith("log") else ""  # (log of 0 between integers)
        arg = np.array([0.3, 0.75]) if method in ("ppf", "isf") else np.array([0.4, 1.3])
        by_name[f"rv_discrete_frozen.{method}"] = [C(f"lambda k: k * {wrap}(st.poisson(2.5).{method}(k)) + k", arg)]
    by_name["multivariate_normal_frozen.logpdf"] = [C("lambda x, m, c: st.multivariate_normal(m, c).logpdf(x)", x2, np.array([0.1, -0.2]), COV)]
    by_name["multivariate_normal_frozen.entropy"] = [C("lambda m, c: st.multivariate_normal(m, c).entropy() * 2.0", np.array([0.1, -0.2]), COV)]
    by_name["multivariate_normal_frozen.pdf"] = [C("lambda x, m, c: st.multivariate_normal(mean=[m, 0.1], cov=c).pdf(x)", x2, 0.3, np.array([0.7, 1.2]))]
    by_name["rv_generic.__call__"] = [C("lambda x, m: st.norm(m, 1.2).logpdf(x) + st.t(3.0, loc=m).logpdf(x)", x, 0.3)]
    by_name["rv_generic.freeze"] = [C("lambda x, s: st.norm.freeze(loc=0.3, scale=s).sf(x)", x, 1.4)]
    by_name["multivariate_normal_gen.__call__"] = [C("lambda x, c: st.multivariate_normal(cov=c).logpdf(x)", x2, 0.8)]
    return {names[key]: by_name[name] for key, name in scipy_stats_more.REGISTERED.items() if name in by_name}  # (the rest: rule_cases_realistic.py)


# zero-derivative rules (test_rules.py's ZERO_CASES): used next to a differentiated value
ISSUE12_ZERO_CASES = {
    "collections.deque.count": C("lambda x: x * collections.deque([1, 2, 1]).count(1) + x", 0.6),
    "collections.deque.index": C("lambda x: x * collections.deque([1, 2]).index(2) + x", 0.6),
    "collections.deque.__len__": C("lambda x: x * len(collections.deque([1, 2])) + x", 0.6),
    "collections.deque.__contains__": C("lambda x: x * (2 in collections.deque([1, 2])) + x", 0.6),
    **ISSUE12_ZERO_CASES_MORE,
}

try:
    import scipy.stats as st  # noqa: F401  (the cases' sources use it)
except ImportError:  # pragma: no cover
    st = None
COV = np.array([[1.0, 0.3], [0.3, 0.8]])
ISSUE12_CASES.update(_stats_cases())
