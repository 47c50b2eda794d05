"""Test inputs of rules the lead added (rules/python_caches.py: the wrapper functools.lru_cache / cache make;
operator_rules.with_index_tangent, which forward code calls for an item read by an index of unknown type), merged into
CASES of tests/test_rules.py by catalog name."""
import functools
import math

import numpy as np

from mooncake_ast.rules.operator_rules import with_index_tangent
from mooncake_ast.tangents import NoTangent

from rule_case_kit import kit

F, Case = kit("lead rule case", globals())
C = Case


def memoised_closure(x, t):
    @functools.lru_cache(maxsize=8)
    def g(v):
        return math.sin(v) * x
    return g(t) + g(t) * 2.0 + g(0.5)


def item_of_a_view(v):
    # (forward code's `dw = with_index_tangent(db[s], b, s, ds)`: nested, the item stays a view of the tangent)
    w = with_index_tangent(v[1:], v, slice(1, None), NoTangent)
    v[1] = 2.0 * v[0]
    return np.sum(w * w)


LEAD_CASES = {"functools._lru_cache_wrapper": [C(memoised_closure, 0.7, 1.3)],
              "mooncake_ast.rules.operator_rules.with_index_tangent": [C(item_of_a_view, np.array([0.3, -0.5, 0.8]))]}
