"""`del xs[i]` (README: supported) in both modes, including reverse mode (issue 8-cr14)."""
import numpy as np
import pytest

import mooncake_ast as mc
from test_regress_control_util import check_both


def del_middle(x, y):
    xs = [x, y, 3.0]
    del xs[1]
    return xs[0] * xs[1]


def del_negative(x, y):
    xs = [x, y * 2.0, x * y]
    del xs[-1]
    return xs[0] * xs[1] + len(xs)


def del_in_loop(x):
    xs = [x * (i + 1.0) for i in range(5)]
    i = 0
    while len(xs) > 2:
        del xs[i % len(xs)]
        i += 1
    return xs[0] * xs[1]


def del_arrays(a):
    parts = [a * 2.0, np.sin(a), a * a]
    del parts[0]
    return np.sum(parts[0] * parts[1])


def del_dict(x, y):
    d = {"a": x, "b": y, "c": x * y}
    del d["b"]
    return d["a"] * d["c"]


def del_two(x, y):
    xs = [x, y, x * y, y * y]
    del xs[0], xs[1]
    return xs[0] * xs[1]


CASES = [(del_middle, (2.0, 3.0)), (del_negative, (2.0, 3.0)), (del_in_loop, (1.5,)),
         (del_arrays, (np.array([0.5, 1.5]),)), (del_dict, (2.0, 3.0)), (del_two, (2.0, 3.0))]


@pytest.mark.parametrize("f,args", CASES, ids=lambda x: getattr(x, "__name__", ""))
def test_del_item(f, args):
    check_both(f, *args)


def test_del_values():
    assert mc.grad(del_middle, argnums=(0, 1))(2.0, 3.0) == (3.0, 0.0)


def del_of_argument(xs):
    del xs[0]
    return xs[0] * 2.0


def del_slice_of_argument(xs, a):
    del xs[1:3]
    del xs[-1]
    return xs[0] * np.sum(a) + xs[-1]


def test_del_of_an_argument_list_is_undone_by_the_pullback():
    # The container's type is not known when the code is generated: the run-time undo puts the
    # removed items back where they stood, so the caller's list is as a plain call leaves it.
    xs = [1.0, 2.0]
    assert mc.grad(del_of_argument)(xs) == [0.0, 2.0]
    assert xs == [2.0]
    check_both(del_slice_of_argument, [1.0, 2.0, 3.0, 4.0, 5.0], np.array([0.5, -1.0]))
