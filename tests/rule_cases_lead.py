"""Test inputs of rules the lead added (rules/python_caches.py: the wrapper functools.lru_cache / cache make),
merged into CASES of tests/test_rules.py by catalog name."""
import functools
import math

import numpy as np

from rule_case_kit import kit

F, Case = kit("lead rule case", globals())
C = Case


def memoised_closure(x, t):
    @functools.lru_cache(maxsize=8)
    def g(v):
        return math.sin(v) * x
    return g(t) + g(t) * 2.0 + g(0.5)


LEAD_CASES = {"functools._lru_cache_wrapper": [C(memoised_closure, 0.7, 1.3)]}
