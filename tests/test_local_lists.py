"""Issue 9: lists a function builds by appending floats have a plain list adjoint (reverse/local_lists.py:
`terms_bar = [0.0] * len(terms)`, `v_bar = terms_bar.pop()`), and the near misses (ints appended, arrays
appended, the list returned, handed on, popped, captured, made in a loop, written) stay right."""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives
from tests import local_list_cases as c

CASES = [
    (c.series, (0.7, 6)),
    (c.recurrence, (0.3, 0.9)),
    (c.branchy, ([0.5, -1.0, 2.0, 0.1], 0.2)),
    (c.reductions, (np.array([0.3, -0.4, 1.1]),)),
    (c.ints_and_floats, (0.6,)),
    (c.arrays_appended, (np.array([0.3, -0.4]),)),
    (c.returned_list, (0.6,)),
    (c.handed_on, (0.4,)),
    (c.popped, (0.5,)),
    (c.captured, (0.8,)),
    (c.made_in_loop, (0.9,)),
    (c.item_written, (0.7,)),
    (c.sorted_read, ([0.5, -1.0, 2.0, 0.1], 0.2)),
    (c.while_break_list, (0.4,)),
    (c.while_break_list, (1.4,)),
    (c.try_list, (0.6,)),
    (c.list_of_obj_fields, (0.7,)),
    (c.running_variance, (np.array([0.1, -0.9, 0.3, 1.4, 0.2]),)),
]


@pytest.mark.parametrize("fn,args", CASES, ids=[f.__name__ for f, _ in CASES])
def test_lists_built_by_appending(fn, args):
    check_derivatives(fn, *args)


@pytest.mark.parametrize("fn,args", CASES[:4], ids=[f.__name__ for f, _ in CASES[:4]])
def test_appended_floats_have_a_plain_list_adjoint(fn, args):
    mc.vjp(fn, *args)
    src = mc.source(fn, "reverse")
    assert ".pop()" in src and "append_reverse" not in src and "undo_append" not in src and "_mc.take(" not in src


def test_numbers_unpacked_from_constants_do_not_make_the_list_generic():
    mc.vjp(c.running_variance, np.array([0.1, -0.9, 0.3, 1.4, 0.2]))
    src = mc.source(c.running_variance, "reverse")
    assert "out_bar_2 = [0.0] * len(out)" in src and "append_reverse" not in src and "getitem_reverse" not in src, src
