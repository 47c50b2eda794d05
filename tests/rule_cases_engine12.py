"""Test inputs of the rules added while tracing SciPy for issue 12 (helper `scipy`): rules/scipy_linalg_banded.py,
the layout conversions of rules/numpy_creation.py, and the cmath/NumPy rules of rules/numpy_float_bits.py and
rules/python_cmath.py; merged into CASES / ZERO_CASES of tests/test_rules.py by catalog name."""
import cmath  # noqa: F401  (the cases' sources use these)
import math  # noqa: F401

import numpy as np

from rule_case_kit import kit

F, Case = kit("engine12 rule case", globals())
C = Case
RNG = np.random.default_rng(1212)
v4 = RNG.uniform(-0.9, 0.9, 4)
m32 = RNG.uniform(-0.9, 0.9, (3, 2))

try:
    import scipy.linalg as sl
    import scipy.signal as ss
    import scipy.special as sp
    import scipy.stats as st
    from scipy.interpolate import _ppoly
except ImportError:  # SciPy is optional
    sl = ss = sp = st = _ppoly = None
P4 = np.array([0.2, 0.5, 0.3, 0.7])
Q4 = np.array([0.4, 0.1, 0.3, 0.2])
M23 = np.array([[0.2, 0.5, 0.3], [0.7, 0.4, 0.9]])


def _band(lower, upper, n=5):
    ab = RNG.normal(size=(lower + upper + 1, n))
    ab[upper] += 4.0  # (diagonally dominant: well conditioned)
    return ab


ENGINE12_CASES = {
    "numpy.ascontiguousarray": [C("lambda x: np.ascontiguousarray(x.T) * 2.0", m32),
                                C("lambda x: np.ascontiguousarray(x, dtype=np.float64)", v4)],
    "numpy.asfortranarray": [C("lambda x: np.asfortranarray(x) * x", m32)],
}
ZC = complex(0.6, -0.8)
_CM1 = ["exp", "log10", "sqrt", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh",
        "atanh"]
ENGINE12_CASES.update({f"cmath.{n}": [C(f"lambda z: cmath.{n}(z) * (1.0 + 0.5j)", ZC),
                                       C(f"lambda x: cmath.{n}(x * 0.5 + 0.1)", 0.3)] for n in _CM1})
ENGINE12_CASES["cmath.acosh"].append(C("lambda z: cmath.acosh(z)", complex(-1.5, 0.4)))  # (Re z < 0: the other sign)
ENGINE12_CASES["cmath.sqrt"].append(C("lambda x: cmath.sqrt(x)", -2.0))  # (a real operand, a complex result)
ENGINE12_CASES.update({
    "cmath.log": [C("lambda z: cmath.log(z)", ZC), C("lambda z, b: cmath.log(z, b)", ZC, 2.5),
                  C("lambda z, b: cmath.log(z, b)", ZC, complex(1.5, 0.5))],
    "cmath.phase": [C("lambda z: cmath.phase(z) * 2.0", ZC), C("lambda x: cmath.phase(x) + x", 0.7)],
    "cmath.polar": [C("lambda z: cmath.polar(z)[0] + 3.0 * cmath.polar(z)[1]", ZC)],
    "cmath.rect": [C("lambda r, p: cmath.rect(r, p)", 1.3, 0.4)],
})
ENGINE12_CASES.update({
    "math.nextafter": [C("lambda a, b: math.nextafter(a, b) * b", 0.3, 2.0)],
    "numpy.frexp": [C("lambda x: np.frexp(x)[0] * 2.0 + np.frexp(x)[1]", np.array([0.3, -2.5, 7.0, 1e-3]))],
    "numpy.nextafter": [C("lambda x, y: np.nextafter(x, y) * y", v4, 2.0 + v4),
                        C("lambda x: np.nextafter(x, 0.0)", m32)],
})
ENGINE12_ZERO_CASES: dict = {
    "numpy.spacing": C("lambda x: np.spacing(x) + x", v4),
    "cmath.isfinite": C("lambda z: float(cmath.isfinite(z)) + z", ZC),
    "cmath.isinf": C("lambda z: float(cmath.isinf(z)) + z", ZC),
    "cmath.isnan": C("lambda z: float(cmath.isnan(z)) + z", ZC),
    "cmath.isclose": C("lambda z: float(cmath.isclose(z, 1j)) + z", ZC),
}


def _ppoly_eval(c, x, xp, nu=0, extrapolate=True):
    out = np.empty((len(xp), c.shape[2]))
    _ppoly.evaluate(c, x, xp, nu, extrapolate, out)
    return out * 1.0


BREAKS = np.array([0.0, 0.4, 0.7, 1.0])
POINTS = np.array([0.1, 0.5, 0.95, 0.45, 1.2, -0.1])  # (none at a breakpoint; two outside, extrapolated)


def engine12_scipy_cases(entries):
    """The SciPy cases by catalog name (`entries`: catalog())."""
    if sl is None:
        return {}
    names = {e.key: e.name for e in entries}
    cases = {
        sl.solve_banded: [C("lambda ab, b: sl.solve_banded((1, 1), ab, b)", _band(1, 1), RNG.normal(size=5)),
                          C("lambda ab, b: sl.solve_banded((2, 0), ab, b, check_finite=False)", _band(2, 0),
                            RNG.normal(size=(5, 2))),
                          C("lambda ab, b: sl.solve_banded((0, 2), ab * 1.0, b * 1.0, overwrite_ab=True, overwrite_b=True)",
                            _band(0, 2), RNG.normal(size=5))],
        _ppoly.evaluate: [C(_ppoly_eval, RNG.normal(size=(4, 3, 2)), BREAKS, POINTS),
                          C(lambda c, x, xp: _ppoly_eval(c, x, xp, 1, False), RNG.normal(size=(3, 3, 1)), BREAKS,
                            POINTS[:4])],
        sp.rel_entr: [C("lambda p, q: sp.rel_entr(p, q)", P4, Q4)],
        sp.kl_div: [C("lambda p, q: sp.kl_div(p, q)", P4, Q4)],
        ss.savgol_filter: [C("lambda x: ss.savgol_filter(x, 5, 2)", RNG.normal(size=12)),
                           C("lambda x, d: ss.savgol_filter(x, 7, 3, deriv=1, delta=d)", RNG.normal(size=40), 0.3),
                           C("lambda x, c: ss.savgol_filter(x, 6, 2, mode='constant', cval=c)", RNG.normal(size=30), 0.7),
                           C("lambda x: ss.savgol_filter(x, 3, 1, axis=0, mode='wrap')", m32)],
        st.entropy: [C("lambda p: st.entropy(p)", P4), C("lambda p, q: st.entropy(p, qk=q, base=2.0)", P4, Q4),
                     C("lambda m: st.entropy(m, axis=1)", M23)],
        st.skew: [C("lambda p: st.skew(p)", P4), C("lambda m: st.skew(m, axis=None, bias=False)", M23)],
        st.kurtosis: [C("lambda p: st.kurtosis(p)", P4),
                      C("lambda m: st.kurtosis(m, axis=1, keepdims=True, fisher=False)", M23)],
        st.gmean: [C("lambda p: st.gmean(p)", P4)],
        st.hmean: [C("lambda m: st.hmean(m, axis=0)", M23)],
        st.pmean: [C("lambda p: st.pmean(p, 1.5)", P4)],
        st.sem: [C("lambda m: st.sem(m, axis=1)", M23)],
        st.tmin: [C("lambda p: st.tmin(p)", P4)],
        st.tmax: [C("lambda p: st.tmax(p)", P4)],
        st.median_abs_deviation: [C("lambda p: st.median_abs_deviation(p)", P4)],
        st.trim_mean: [C("lambda p: st.trim_mean(p, 0.1)", P4)],
    }
    return {names[k]: v for k, v in cases.items() if k in names}
