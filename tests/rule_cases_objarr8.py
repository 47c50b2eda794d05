"""Test inputs of rules helper objarr8 added or changed (Nov 28): `a //= b` (a zero derivative that writes an array
in place: its aliases lose their derivative too), merged into CASES of tests/test_rules.py by catalog name."""
import operator

import numpy as np

from rule_case_kit import kit

F, Case = kit("objarr8 rule case", globals())
C = Case


def floordiv_in_place_seen_by_an_alias(a, b):
    y = a * 3.0
    z = y  # the same array: `y //= b` writes it
    y //= b
    return z * a + y


def floordiv_in_place_number(a, b):
    n = a * 3.0
    n //= b  # a number: a new value, zero derivative
    return n * a


OBJARR8_CASES = {
    "_operator.ifloordiv": [C(floordiv_in_place_seen_by_an_alias, np.array([0.7, -1.3, 2.1]), 0.8),
                            C(floordiv_in_place_number, 0.7, 0.9),
                            C("lambda a: operator.ifloordiv(a, 0.7) + a", 2.3)],
}
