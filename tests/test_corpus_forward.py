"""Every corpus function through check_derivatives in forward mode."""
import pytest

from tests.corpus import all_cases
import mooncake_ast as mc

CASES = all_cases()


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_forward(case):
    mc.testing.check_derivatives(case.fn, *case.args(), modes=("forward",), **case.kwargs())
