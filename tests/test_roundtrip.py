"""Lower every corpus function, verify its IR, emit the primal back as Python: same results and argument states."""
import copy

import pytest

from mooncake_ast.testing_values import same_value
from tests.corpus import all_cases
from tests.helpers import lower_verified, run_primal_roundtrip

CASES = all_cases()


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_ir_verifies(case):
    lower_verified(case.fn)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_primal_roundtrip(case):
    args, kwargs = case.args(), case.kwargs()
    a1, k1 = copy.deepcopy(args), copy.deepcopy(kwargs)
    expected = case.fn(*a1, **k1)
    a2, k2 = copy.deepcopy(args), copy.deepcopy(kwargs)
    got = run_primal_roundtrip(case.fn, *a2, **k2)
    assert same_value(got, expected, rtol=1e-12, atol=0), (got, expected)
    assert same_value(a2, a1, rtol=1e-12, atol=0)
