"""`d.get("k", default)` of a dict parameter whose keys the call's kinds name is `d["k"]` or the default, so the
pullback builds the dict's adjoint from one variable per key; dicts the function writes keep their `.get`."""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives
from tests import dict_get_cases as c

W = np.array([[0.3, -0.2], [0.5, 0.1], [-0.4, 0.7]])
CASES = [
    (c.with_default, ({"a": 0.7, "b": -0.3}, 1.3)),
    (c.with_default, ({"a": 0.7, "b": -0.3, "c": 0.25}, 1.3)),
    (c.with_default, ({"a": 0.7}, 1.3)),
    (c.written_then_read, ({"a": 0.7}, 1.3)),
    (c.param_written, ({"a": 0.7}, 1.3)),
    (c.arrays, ({"W": W, "b": np.array([0.1, -0.2, 0.3])}, np.array([0.4, -0.6]))),
    (c.arrays, ({"W": W}, np.array([0.4, -0.6]))),
    (c.param_item_replaced, ({"a": 0.7}, 1.3)),
]


@pytest.mark.parametrize("fn,args", CASES, ids=[f"{f.__name__}-{i}" for i, (f, _) in enumerate(CASES)])
def test_dict_get(fn, args):
    check_derivatives(fn, *args)


def test_the_dicts_adjoint_is_built_from_its_keys():
    mc.vjp(c.with_default, {"a": 0.7}, 1.3)
    src = mc.source(c.with_default, "reverse")
    assert "{'a': a_bar}" in src and "getitem_reverse" not in src, src
    g = mc.grad(c.with_default)({"a": 0.7}, 1.3)
    assert g == {"a": pytest.approx(1.69)}
