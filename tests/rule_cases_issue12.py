"""Test inputs of the rules added for issue 12's second round (mooncake_ast/rules/issue12_rules.py and the
modules it imports), merged into CASES of tests/test_rules.py by catalog name: entries whose name already
has cases (numpy.ufunc.at) are appended to them.  One or two small cases per rule; refusals and other
checks are in tests/test_rules_issue12.py."""
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
    a = a * 1.0
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
    # python_statistics_more.py
    "statistics.geometric_mean": [C("lambda x: statistics.geometric_mean(x) * x[0]", v5), C("lambda a, b: statistics.geometric_mean((a, b * 2.0))", 0.7, 1.3)],
    "statistics.harmonic_mean": [C("lambda x: statistics.harmonic_mean(list(x))", v5), C("lambda x, w: statistics.harmonic_mean(x, weights=w)", v5, v5[::-1] * 2.0)],
    "statistics.correlation": [C("lambda x, y: statistics.correlation(list(x), y)", v5, RNG.uniform(-1, 1, 5))],
    "statistics.linear_regression": [C(regression, v5, RNG.uniform(-1, 1, 5))],
}
if hasattr(np.linalg, "svdvals"):
    ISSUE12_CASES["numpy.linalg.svdvals"] = [C("lambda a: np.linalg.svdvals(a)", z43)]
