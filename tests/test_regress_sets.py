"""Sets keep no derivatives of their items (equal items merge, the order is arbitrary).  A set of numbers that
depend on the inputs gave a silently zero derivative in both modes (`sum({x, 2.0 * x})`); now it is refused with
an error that says what to use instead.  Sets of ints, strings or tuples of them (indices, keys) still work."""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives


def display(x):
    return sum({x, 2.0 * x})


def from_list(x):
    return max(set([x, 2.0 * x]))


def frozen(x):
    return sum(frozenset([x, 3.0]))


def comprehension(xs):
    return sum({v * v for v in xs})


def over_set(xs):
    return sum(v * v for v in set(xs))


def int_exponents(x, ks):
    exps = {k % 4 for k in ks}
    return sum(x ** e for e in sorted(exps))


def index_set(x, pairs):
    idx = sorted({i for pair in pairs for i in pair})
    return np.sum(x[idx] ** 2)


def string_keys(d, names):
    seen = set(names)
    return sum(d[k] * d[k] for k in sorted(seen))


@pytest.mark.parametrize("fn,args", [(display, (0.7,)), (from_list, (0.7,)), (frozen, (0.7,)),
                                     (comprehension, ([0.5, 1.5],)), (over_set, ([0.5, 1.5],))],
                         ids=["display", "from_list", "frozen", "comprehension", "over_set"])
@pytest.mark.parametrize("mode", ["forward", "reverse"])
def test_sets_of_differentiable_numbers_are_refused(fn, args, mode):
    with pytest.raises(mc.MooncakeError, match="set"):
        if mode == "forward":
            mc.jvp(fn, args, tuple(np.ones_like(np.asarray(a)).tolist() if isinstance(a, list) else 1.0 for a in args))
        else:
            mc.grad(fn)(*args)


@pytest.mark.parametrize("fn,args", [(int_exponents, (1.3, [1, 2, 5, 6])),
                                     (index_set, (np.array([0.5, -1.0, 2.0]), [(0, 2), (2, 1)])),
                                     (string_keys, ({"a": 0.5, "b": -1.5}, ["a", "b", "a"]))],
                         ids=["int_exponents", "index_set", "string_keys"])
def test_sets_of_ints_and_strings_still_work(fn, args):
    check_derivatives(fn, *args)
