"""Regression (found by tests/test_scipy_tracing.py once slices of plain arrays were plain reads): SciPy's wrapped
statistics (rules/scipy_stats_wrapped.py) handed back an array argument's identity-keyed storage as its adjoint.
A caller holding the argument's adjoint as a value added it and the storage was counted twice:
`st.entropy(x, Q) + np.sum(x ** 2)` gave the entropy's part twice (on the trunk too, silently)."""
import numpy as np
import pytest

from mooncake_ast.testing import check_derivatives

st = pytest.importorskip("scipy.stats")

X = np.array([0.2, 0.5, 0.3, 0.7])
Q = X[::-1] + 0.1

CASES = [
    lambda x: st.entropy(x, Q) + np.sum(x ** 2),
    lambda x: st.entropy(x, x[::-1] + 0.1),
    lambda x: st.skew(x) * st.kurtosis(x) + np.sum(np.sin(x)),
    lambda x: st.entropy(x, Q) * st.skew(x) - st.entropy(Q, x),
]


@pytest.mark.parametrize("k", range(len(CASES)))
def test_wrapped_statistics_with_other_uses_of_the_argument(k):
    check_derivatives(CASES[k], X)
