"""Test inputs of the rules added for the realistic-function audit (scripts/realistic_audit.py):
rules/python_itertools.py, ... merged into CASES / ZERO_CASES of tests/test_rules.py by catalog name."""
import bisect  # noqa: F401  (the cases' sources use these)
import heapq  # noqa: F401
import itertools  # noqa: F401
import math  # noqa: F401
import operator  # noqa: F401

import numpy as np

from rule_case_kit import kit

F, Case = kit("realistic rule case", globals())
C = Case
RNG = np.random.default_rng(4242)
v4 = RNG.uniform(-0.9, 0.9, 4)
m32 = RNG.uniform(-0.9, 0.9, (3, 2))


def _acc(x):
    fn = sum(v * v for v in itertools.accumulate(x))  # the default: running sums
    return fn + sum(itertools.accumulate(x, lambda a, b: a * 0.5 + b * b))


def _acc_closure(x, s):
    return sum(itertools.accumulate(list(x), lambda a, b: a * s + b, initial=2))  # a closure over s


def _tee(x):
    a, b = itertools.tee(iter(x))  # (read as the furthest of the two asks: rules/itertools_lazy.py)
    first = next(b)
    return sum(p * q for p, q in zip(a, b)) + first * 2.0


def _islice_in_part(x):
    it = iter(x)
    a = next(itertools.islice(it, 3))  # (islice pulls one item; the rest is list(it)'s)
    return a * 2.0 + sum(v ** 2 for v in list(it))


REAL_CASES = {
    "itertools.tee": [C(_tee, v4), C("lambda x: sum(p * q * r for p, q, r in zip(*itertools.tee(x * x, 3)))", v4)],
    "itertools.pairwise": [C("lambda x: sum(a * b for a, b in itertools.pairwise(x))", v4),
                           C("lambda X: sum(np.sum(a * b) for a, b in itertools.pairwise(X))", m32)],
    "itertools.product": [C("lambda a, b: sum(math.sin(x * y) for x, y in itertools.product(a, b)) + sum(p * q for p, q in itertools.product(a, repeat=2))", v4[:2], list(v4[2:]))],
    "itertools.combinations": [C("lambda x: sum(a * b * c for a, b, c in itertools.combinations(x, 3))", v4)],
    "itertools.combinations_with_replacement": [C("lambda x: sum(a * b for a, b in itertools.combinations_with_replacement(x, 2))", v4)],
    "itertools.permutations": [C("lambda x: sum(a * b ** 2 for a, b in itertools.permutations(x, 2))", v4)],
    "itertools.chain": [C("lambda x, y: sum(v * v for v in itertools.chain(x, y, [y[0]]))", v4[:2], list(v4[2:]))],
    "chain.from_iterable": [C("lambda x, y: sum(itertools.chain.from_iterable([x, [y * y]]))", v4, 0.7)],
    "itertools.islice": [C("lambda x: sum(v * v for v in itertools.islice(x, 1, None, 2)) + sum(itertools.islice(iter(x), 2))", v4),
                         C(_islice_in_part, v4)],
    "itertools.compress": [C("lambda x: sum(v ** 3 for v in itertools.compress(x, [1, 0, 1, 1]))", v4)],
    "itertools.takewhile": [C("lambda x: sum(itertools.takewhile(lambda v: v < 0.8, x * x))", v4)],
    "itertools.dropwhile": [C("lambda x: sum(itertools.dropwhile(lambda v: v < 0.3, x * x))", v4)],
    "itertools.filterfalse": [C("lambda x: sum(v * v for v in itertools.filterfalse(lambda v: v > 0, x))", v4)],
    "itertools.repeat": [C("lambda x: sum(v * v for v in itertools.repeat(x, 3))", 0.4)],
    "itertools.accumulate": [C(_acc, v4), C(_acc, list(v4)), C(_acc_closure, v4, 0.6, modes=("reverse",)),
                             C("lambda x: sum(itertools.accumulate(x, operator.mul, initial=2))", v4)],
    "itertools.starmap": [C("lambda x, y: sum(itertools.starmap(lambda a, b: a * b * b, zip(x, y)))", v4, v4[::-1].copy())],
    "heapq.nlargest": [C("lambda x: sum(v * v for v in heapq.nlargest(2, list(x)))", v4)],
    "heapq.nsmallest": [C("lambda x: sum(heapq.nsmallest(3, x * x, key=lambda v: -v))", v4)],
    "heapq.merge": [C("lambda x, y: sum(v * i for i, v in enumerate(heapq.merge(sorted(x), [y, y + 1.0])))", v4, 0.1)],
}

def _put_along(X, v):
    Y = X * 1.0
    np.put_along_axis(Y, np.array([[0, 1], [1, 1], [1, 0]]), v * v, axis=1)  # (1, 1): the last write wins
    return Y * X


x8, w8 = RNG.uniform(-0.95, 0.95, 8), RNG.uniform(0.5, 1.5, 8)
REAL_CASES.update({
    "numpy.histogram": [C("lambda w, x: np.histogram(x, bins=4, range=(-1.0, 1.0), weights=w)[0]", w8, x8),
                        C("lambda w, x: np.histogram(x, bins=4, weights=w, density=True)[0]", w8, x8),
                        C("lambda x, lo, hi: (lambda c, e: c * e[1:])(*np.histogram(x, 3, (lo, hi), density=True))", x8, -1.0, 1.0),
                        C("lambda x, b: np.histogram(x, bins=b * 2.0, density=True)[0]", x8, np.array([-0.6, -0.1, 0.2, 0.7]))],
    "numpy.fromiter": [C("lambda x: np.fromiter((v ** 2 for v in x), dtype=float) * 2.0", v4),
                       C("lambda x: np.fromiter(map(np.sin, x), float, 3)", v4)],
    "numpy.put_along_axis": [C(_put_along, m32 @ m32.T, m32)],
})

REAL_CASES["numpy.trapezoid"] = [C("lambda u, h: np.trapezoid(u ** 2, dx=h)", v4, 0.2),  # (keyword operands' adjoints)
                               C("lambda u, x: np.trapezoid(u ** 2, x=x * x)", v4[:3], np.array([0.1, 0.4, 0.8]))]

REAL_CASES["numpy.cross"] = [C("lambda a, b: np.cross(a, b)", m32, m32[::-1].copy()),  # 2-vectors: the z component
                             C("lambda a, b: np.cross(a, b, axisa=0)", m32.T.copy(), RNG.uniform(-1, 1, (3, 2)))]
REAL_CASES["numpy.gradient"] = [C("lambda x, h: np.gradient(x * x, h)", v4, 0.5),  # a uniform spacing, differentiated
                                C("lambda X, h, k: np.gradient(X * X, h, k)[1]", m32, 0.5, 0.7)]

_DRAW_ARGS = {"normal": "m, s", "laplace": "m, s", "gumbel": "m, s", "logistic": "m, s", "uniform": "m, m + s",
              "lognormal": "m, s", "exponential": "s"}
for _cls in ("Generator", "RandomState"):
    _make = "np.random.default_rng(5)" if _cls == "Generator" else "np.random.RandomState(5)"
    for _kind, _args in _DRAW_ARGS.items():
        REAL_CASES[f"numpy.{_cls}.{_kind}"] = [C(f"lambda m, s: {_make}.{_kind}({_args}, size=3)", 0.3, 1.2)]
REAL_CASES["numpy.Generator.normal"].append(C("lambda m, s: np.random.default_rng(5).normal(loc=m, scale=s, size=(2, 3))", v4[:3], 0.7))

REAL_ZERO_CASES = {
    "numpy.result_type": C("lambda x: x.astype(np.result_type(x, 1.0)) * 2.0", v4),
    "numpy.common_type": C("lambda x: x.astype(np.common_type(x)) * 2.0", v4),
    "numpy.promote_types": C("lambda x: x.astype(np.promote_types(x.dtype, np.float32)) * 2.0", v4),
    "numpy.can_cast": C("lambda x: x * np.can_cast(x.dtype, np.float64)", v4),
    "numpy.min_scalar_type": C("lambda x: x * (np.min_scalar_type(3) == np.uint8)", v4),
    "numpy.finfo": C("lambda x: x + np.finfo(x.dtype).eps * x", v4),
    "numpy.iinfo": C("lambda x: x * (np.iinfo(np.int8).max / 127)", v4),
    "numpy.dtype": C("lambda x: x.astype(np.dtype('float64')) * 2.0", v4),
    "numpy.issubdtype": C("lambda x: x * np.issubdtype(x.dtype, np.floating)", v4),
    "numpy.lexsort": C("lambda x: x[np.lexsort((x, np.array([1, 0, 1, 0])))] * 2.0", v4),
    "numpy.isrealobj": C("lambda x: x * np.isrealobj(x)", v4),
    "numpy.iscomplexobj": C("lambda x: x * (1.0 + np.iscomplexobj(x))", v4),
    "_bisect.bisect_left": C("lambda x: x[bisect.bisect_left([0.1, 0.5], x[1])] * x[0]", v4),
    "_bisect.bisect_right": C("lambda x: x[bisect.bisect([0.1, 0.5], x[1])] * x[0]", v4),
}


# ------------------------------------------------------------------ SciPy (optional)
try:
    import scipy.integrate as si
    import scipy.linalg as sl
    import scipy.optimize as so
    import scipy.spatial.distance as sd
    import scipy.special as sp
    import scipy.stats as st
except ImportError:  # SciPy is optional
    sl = sd = si = so = st = sp = None

A3 = RNG.normal(size=(3, 3)) + 3.0 * np.eye(3)
P3 = np.array([[0.1, 0.9, 0.2], [0.3, 0.2, 3.0], [1.5, 0.4, 0.1]])  # lu_factor pivots
b3, B32 = RNG.normal(size=3), RNG.normal(size=(3, 2))
X43, Y33 = RNG.normal(size=(4, 3)), RNG.normal(size=(3, 3))


def _decay(y, t, k):
    return np.array([-k * y[0], k * y[0] - 0.5 * y[1]])


def _ode_args(k, y0):
    return si.odeint(_decay, y0, np.linspace(0.0, 2.0, 4), args=(k,))


def _ode_closure(k, y0):
    return si.odeint(lambda t, y: -k * y * y, y0, [0.0, 0.5, 1.0], tfirst=True)


def _quad_args(a, lo, hi):
    val, err = si.quad(lambda t, c: math.sin(c * t) * t, lo, hi, args=(a,))
    return val


def _fit(w, x):
    """A fit made once from constants, its result used as data (res["x"]: see tests/test_rules_realistic.py)."""
    res = so.minimize(lambda z: np.sum((z - 1.0) ** 2), np.zeros(2))
    return np.sum(w * res["x"]) + np.sum(x * so.minimize_scalar(lambda t: (t - 0.3) ** 2)["x"])


# Fits made from constants, their results used as data.  The data are literal tuples: an array, even a
# global one, is taken as possibly differentiated by reverse mode's activity analysis, and its refused
# adjoint then refuses the call (tests/test_rules_realistic.py shows the refusal).
CONSTANT_FITS = {
    "curve_fit": "so.curve_fit(lambda t, a, b: a * t + b, (0.0, 1.0, 2.0, 3.0), (1.0, 3.0, 5.2, 7.1))[0]",
    "least_squares": "so.least_squares(lambda z: z - 1.5, np.zeros(2))['x']",
    "root": "so.root(lambda z: z ** 3 - 2.0, np.ones(2))['x']",
    "root_scalar": "so.root_scalar(lambda z: z * z - 2.0, bracket=(0.0, 2.0))['root']",
    "fsolve": "so.fsolve(lambda z: z ** 3 - 3.0, np.ones(2))",
    "linprog": "so.linprog((1.0, 1.0), A_ub=((-1.0, 0.0), (0.0, -1.0)), b_ub=(-1.0, -1.0))['x']",
    "lsq_linear": "so.lsq_linear(((1.0, 0.0), (0.0, 2.0)), (1.0, 2.0))['x']",
    "nnls": "so.nnls(((1.0, 0.0), (0.0, 1.0)), (1.0, -2.0))[0]",
    "fmin": "so.fmin(lambda z: np.sum((z - 0.5) ** 2), np.zeros(2), disp=False)",
    "fminbound": "so.fminbound(lambda z: (z - 0.2) ** 2, -1.0, 1.0)",
}


def _root(c, d):
    return so.brentq(lambda x, a, b: math.cos(x) - a * x - b, 0.0, 2.0, args=(c, d)) ** 2


def _scipy_cases():
    roots = {so.brentq: "so.brentq(lambda x: x ** 3 - c, 0.0, 3.0, xtol=1e-14)",
             so.brenth: "so.brenth(lambda x: x ** 3 - c, 0.0, 3.0, xtol=1e-14)",
             so.ridder: "so.ridder(lambda x: x ** 3 - c, 0.0, 3.0, xtol=1e-14)",
             so.bisect: "so.bisect(lambda x: x ** 3 - c, 0.0, 3.0, xtol=1e-14)",
             so.toms748: "so.toms748(lambda x: x ** 3 - c, 0.0, 3.0, xtol=1e-14)",
             so.newton: "so.newton(lambda x: x * x - c, 1.0, tol=1e-14)"}
    out = {fn: [C(f"lambda c: {src} * c", 2.0)] for fn, src in roots.items()}
    out[so.brentq].append(C(_root, 0.5, 0.1))
    fits = {getattr(so, n): [C(f"lambda w: np.sum(w * {src})", RNG.uniform(-1, 1, 2))] for n, src in CONSTANT_FITS.items()}
    fits[so.minimize] = fits[so.minimize_scalar] = [C(_fit, RNG.uniform(-1, 1, 2), 0.4)]
    return {**out, **fits,
        si.odeint: [C(_ode_args, 0.8, np.array([1.0, 0.2]), rtol=1e-4, atol=1e-5),
                    C(_ode_closure, 0.7, np.array([1.0, 0.2]), rtol=1e-4, atol=1e-5)],
        si.quad: [C("lambda a: si.quad(lambda t: np.exp(-a * t * t), 0.0, 1.0)[0]", 0.6),
                  C(_quad_args, 1.3, 0.1, 0.9)],
        si.solve_ivp: [C("lambda w: np.sum(w * si.solve_ivp(lambda t, y: -y, (0.0, 1.0), (1.0, 2.0), t_eval=(0.5, 1.0))['y'])",
                         RNG.uniform(-1, 1, (2, 2)))],
        si.cumulative_trapezoid: [C("lambda y: si.cumulative_trapezoid(y, dx=0.1)", v4),
                                  C("lambda y, x: si.cumulative_trapezoid(y, x, initial=0)", v4, np.array([0.0, 0.3, 0.4, 1.0])),
                                  C("lambda Y, h: si.cumulative_trapezoid(Y, dx=h, axis=0)", m32, 0.3)],
        sl.cholesky: [C("lambda a: sl.cholesky(a @ a.T + np.eye(3), lower=True)", A3),
                      C("lambda a: sl.cholesky(a @ a.T + np.eye(3))", A3)],
        sl.cho_factor: [C("lambda a: sl.cho_factor(a @ a.T + np.eye(3))[0] * 1.0", A3),
                        C("lambda a: sl.cho_factor(a @ a.T + np.eye(3), lower=True)[0] * 1.0", A3)],
        sl.cho_solve: [C("lambda a, b: sl.cho_solve(sl.cho_factor(a @ a.T + np.eye(3)), b)", A3, b3),
                       C("lambda a, b: sl.cho_solve(sl.cho_factor(a @ a.T + np.eye(3), lower=True), b)", A3, B32)],
        sl.solve_triangular: [C("lambda a, b: sl.solve_triangular(a, b, lower=True)", A3, b3),
                              C("lambda a, b: sl.solve_triangular(a, b, trans='T', unit_diagonal=True)", A3, B32)],
        sl.lu_factor: [C("lambda a: sl.lu_factor(a)[0] * 1.0", P3)],
        sl.lu_solve: [C("lambda a, b: sl.lu_solve(sl.lu_factor(a), b)", P3, b3),
                      C("lambda a, b: sl.lu_solve(sl.lu_factor(a), b, trans=1)", P3, B32)],
        sl.expm: [C("lambda a: sl.expm(a)", 0.3 * A3)],
        sl.logm: [C("lambda a: sl.logm(a @ a.T / 10.0)", A3)],
        sd.pdist: [C("lambda x: sd.pdist(x) + sd.pdist(x, 'sqeuclidean') * sd.pdist(x, metric='cityblock')", X43)],
        sd.cdist: [C("lambda a, b: sd.cdist(a, b) + sd.cdist(a, b, 'sqeuclidean') * sd.cdist(a, b, metric='cityblock')", X43, Y33)],
        sd.squareform: [C("lambda x: sd.squareform(sd.pdist(x)) @ x", X43),
                        C("lambda m: sd.squareform(m + m.T - 2.0 * np.diag(np.diag(m)))", Y33)],
    }


# the distributions added to rules/scipy_stats.py for the audit: (name, shapes as source text, points x)
NEW_CONTINUOUS = [("lognorm", "0.6, ", np.array([0.4, 1.1, 2.5])), ("uniform", "", np.array([0.2, 0.5, 0.9])),
                  ("cauchy", "", np.array([-0.6, 0.15, 0.9])), ("logistic", "", np.array([-0.6, 0.15, 0.9])),
                  ("invgamma", "2.5, ", np.array([0.4, 1.1, 2.5])), ("halfnorm", "", np.array([0.2, 0.7, 1.4])),
                  ("weibull_min", "1.7, ", np.array([0.4, 1.1, 2.5]))]


def _stats_cases():
    out = {}
    for dist, shapes, x in NEW_CONTINUOUS:
        cls = type(getattr(st, dist))
        for m in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"):
            out[(cls, m)] = [C(f"lambda x, loc, scale: st.{dist}.{m}(x, {shapes}loc, scale)", x, -0.05, 1.3)]
        if shapes:  # the shape parameter, differentiated in the density
            out[(cls, "logpdf")].append(C(f"lambda x, a: st.{dist}.logpdf(x, a, scale=1.2)", x, float(shapes[:-2])))
        q = np.array([0.2, 0.55, 0.9])
        out[(cls, "ppf")] = [C(f"lambda q, m, s: st.{dist}.ppf(q, {shapes}m, s)", q, 0.1, 1.3)]
        out[(cls, "isf")] = [C(f"lambda q: st.{dist}.isf(q, {shapes}scale=1.5)", q)]
    return out


def _special_cases():
    p3, c3, u3 = np.array([0.7, 1.5, 2.5]), np.array([-0.6, 0.15, 0.9]), np.array([0.1, 0.45, 0.8])
    return {
        sp.log1p: [C("lambda x: sp.log1p(x)", u3)], sp.expm1: [C("lambda x: sp.expm1(x)", c3)],
        sp.k0: [C("lambda x: sp.k0(x)", p3)], sp.k1: [C("lambda x: sp.k1(x)", p3)],
        sp.k0e: [C("lambda x: sp.k0e(x)", p3)], sp.k1e: [C("lambda x: sp.k1e(x)", p3)],
        sp.i0e: [C("lambda x: sp.i0e(x)", c3)], sp.i1e: [C("lambda x: sp.i1e(x)", c3)],
        sp.exp1: [C("lambda x: sp.exp1(x)", p3)],
        sp.ellipk: [C("lambda m: sp.ellipk(m)", u3)], sp.ellipe: [C("lambda m: sp.ellipe(m)", u3)],
        sp.kv: [C("lambda x: sp.kv(1.5, x)", p3), C("lambda x: sp.kv(np.array([0.5, 1.0, 2.5]), x)", p3)],
        sp.kve: [C("lambda x: sp.kve(0.5, x)", p3)],
        sp.expn: [C("lambda x: sp.expn(2, x) + sp.expn(1, x) + sp.expn(0, x)", p3)],
        sp.binom: [C("lambda n, k: sp.binom(n, k)", p3 + 3.0, u3 * 2.0)],
        sp.boxcox: [C("lambda x, l: sp.boxcox(x, l)", p3, 0.4), C("lambda x, l: sp.boxcox(x, l)", p3, np.array([0.3, 0.0, -0.5]))],
        sp.boxcox1p: [C("lambda x, l: sp.boxcox1p(x, l)", u3, 0.6)],
    }


def scipy_real_cases(entries):
    """The SciPy cases by catalog name (`entries`: catalog())."""
    if sl is None:
        return {}
    names = {e.key: e.name for e in entries}
    return {names[k]: v for k, v in {**_scipy_cases(), **_stats_cases(), **_special_cases()}.items() if k in names}
