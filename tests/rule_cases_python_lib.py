"""Test inputs of the rules in mooncake_ast/rules/python_lib.py (issue 12), merged into CASES of
tests/test_rules.py by catalog name (format as in rule_cases_extra.py)."""
import functools
import operator  # noqa: F401  (the cases' sources use it)
import statistics

import numpy as np

from rule_case_kit import kit







F, Case = kit("python lib rule case", globals())
C = Case
v3 = np.array([0.4, -1.1, 0.75])
_CASES = {
    functools.reduce: [C("lambda x, y: functools.reduce(operator.mul, [x, y, x], 1.0)", 0.7, 1.3),
                       C("lambda x, y: functools.reduce(lambda a, b: a * b + np.sin(b), [x, y, x * y])", v3, v3 + 0.5),
                       C("lambda x: functools.reduce(np.add, list(x))", np.array([[0.3, 0.2], [1.0, -0.4]]))],
    statistics.fmean: [C("lambda x, y: statistics.fmean([x, y, x * y])", 0.7, 1.3)],
    statistics.mean: [C("lambda x, y: statistics.mean((x, y, x * y))", 0.7, 1.3)],
    statistics.pstdev: [C("lambda x, y: statistics.pstdev([x, y, x * y])", 0.7, 1.3),
                        C("lambda x, m: statistics.pstdev([x, 2.0, x * x], m)", 0.7, 1.1)],
    statistics.stdev: [C("lambda x, y: statistics.stdev([x, y, x * y])", 0.7, 1.3)],
    statistics.pvariance: [C("lambda x, y: statistics.pvariance([x, y, x * y])", 0.7, 1.3)],
    statistics.variance: [C("lambda x, y: statistics.variance([x, y, 3.0], y)", 0.7, 1.3)],
}


def python_lib_cases(entries):
    names = {e.key: e.name for e in entries}
    return {names[k]: v for k, v in _CASES.items() if k in names}
