"""Every corpus function through check_derivatives in reverse mode (dot-product test against forward mode)."""
import pytest

import mooncake_ast as mc
from tests.corpus import all_cases

CASES = all_cases()


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_reverse(case):
    mc.testing.check_derivatives(case.fn, *case.args(), modes=("reverse",), **case.kwargs())
