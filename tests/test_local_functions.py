"""Issue 9: calls of a `lambda` or `def` made inside the differentiated function that captures nothing are typed
from its code (reverse/call_types.local_function), so arithmetic on their results is plain; the function object
itself has no adjoint.  Near misses stay right."""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives
from tests import local_function_cases as c

CASES = [
    (c.normal_cdf_price, (100.0, 95.0, 0.25)),
    (c.nested_def_arrays, (np.array([0.3, -0.4, 1.1]),)),
    (c.lambda_in_loop, (0.7,)),
    (c.captures_a_parameter, (0.7, 1.3)),
    (c.with_default, (0.7,)),
    (c.chosen_by_branch, (0.7,)),
    (c.chosen_by_branch, (-0.7,)),
    (c.handed_on, ([0.3, -1.2, 0.8],)),
    (c.returns_tuple, (1.7,)),
    (c.local_recursion, (0.9, 3)),
    (c.writes_its_argument, (0.6,)),
]


@pytest.mark.parametrize("fn,args", CASES, ids=[f"{f.__name__}-{i}" for i, (f, _) in enumerate(CASES)])
def test_local_functions(fn, args):
    check_derivatives(fn, *args)


def test_results_of_local_functions_are_plain_numbers():
    mc.vjp(c.normal_cdf_price, 100.0, 95.0, 0.25)
    pullback = mc.source(c.normal_cdf_price, "reverse").split("def normal_cdf_price__pullback")[1].split("\ndef ")[0]
    for generic in ("_mc.acc", "_mc.take", "_mc.NoTangent", "mul_vjp", "add_vjp"):
        assert generic not in pullback, pullback
