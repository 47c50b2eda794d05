"""A dict or object parameter whose items or fields the function rewrites with values of another type loses the
item types the call's kinds gave it (reverse/settle_types): `params["a"] = Box(x); params["a"] * y` read the Box
as a number, and d/dx came out 0 (half of d/dx when x also multiplied it), silently, before."""
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives
from tests import written_param_cases as c

CASES = [
    (c.dict_item_replaced, lambda: ({"a": 0.7}, 1.3, 0.4)),
    (c.dict_item_replaced_and_restored, lambda: ({"a": 0.7}, 1.3)),
    (c.field_replaced, lambda: (c.Holder(0.7), 1.3, 0.4)),
    (c.field_rewritten_same_type, lambda: (c.Holder(0.7), 1.3, 0.4)),
    (c.dict_only_read, lambda: ({"a": 0.7, "b": 0.2}, 1.3)),
    (c.field_replaced_by_a_method, lambda: (c.Resettable(0.7), 1.3, 0.4)),
    (c.field_replaced_by_a_helper, lambda: (c.Holder(0.7), 1.3, 0.4)),
]


@pytest.mark.parametrize("fn,args", CASES, ids=[f.__name__ for f, _ in CASES])
def test_written_parameters(fn, args):
    check_derivatives(fn, *args())


def test_the_gradient_through_the_stored_object_is_whole():
    assert mc.grad(c.dict_item_replaced, argnums=(1, 2))({"a": 0.7}, 1.3, 0.4) == (pytest.approx(0.8), pytest.approx(2.6))
    assert mc.grad(c.dict_item_replaced_and_restored, argnums=1)({"a": 0.7}, 1.3) == pytest.approx(5.2)
