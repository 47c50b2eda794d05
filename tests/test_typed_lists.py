"""Issue 9: lists of floats the function only reads get a plain list adjoint (`xs_bar[i] += v_bar`), their
items are typed floats (plain arithmetic); lists the function writes, appends to, aliases, returns or hands on
keep the generic storage.  Every case in both modes against finite differences."""
import ast
import copy

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives
from tests import typed_list_cases as c


def pullback_refs(fn, *args):
    mc.vjp(fn, *copy.deepcopy(args))
    tree = ast.parse(mc.source(fn, "reverse"))
    pull = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.endswith("__pullback"))
    return [n.attr for n in ast.walk(pull) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
            and n.value.id == "_mc"]


XS = [0.7, -1.3, 2.1, 0.4]
YS = [1.1, 0.2, -0.6, 0.9]
A = np.arange(8.0).reshape(4, 2) / 7.0

READ_ONLY = [
    (c.loop_sum_squares, (XS,), set()),
    (c.index_loop, (XS, 0.6), set()),
    (c.enumerate_weights, (XS,), set()),
    (c.zip_lists_direct, (XS, YS), set()),
    (c.zip_two_lists, (XS, YS[:3]), None),
    (c.readers, (XS,), None),
    (c.sorted_reader, (XS,), None),
    (c.as_array, (XS, np.array([0.5, -1.0, 2.0, 0.3])), None),
    (c.early_exit, (XS, 1.0), None),
    (c.early_exit, (XS, 5.0), None),
    (c.while_newton, ([0.5, 2.0, 3.5],), set()),
    (c.list_and_array, (XS, A), set()),
    (c.items_to_helper, (XS,), None),
]


@pytest.mark.parametrize("fn,args,helpers", READ_ONLY, ids=[f"{f.__name__}{k}" for k, (f, _, _) in enumerate(READ_ONLY)])
def test_read_only_lists(fn, args, helpers):
    check_derivatives(fn, *args)
    if helpers is not None:
        assert set(pullback_refs(fn, *args)) <= helpers
    src = mc.source(fn, "reverse")
    assert "any:list:f" in src  # (typed when the derivative was made)
    if fn is c.zip_two_lists:
        return  # (handed to a user function: generic storage; the derivative is still right)


def test_plain_pullback_reads_like_a_person_wrote_it():
    mc.vjp(c.loop_sum_squares, XS)
    src = mc.source(c.loop_sum_squares, "reverse")
    assert "xs_bar = [0.0] * len(xs)" in src
    assert "] += " in src


MORE_THAN_READ = [
    (c.written, ([0.7, -1.3],)),
    (c.appended, ([0.7, -1.3],)),
    (c.appended_array, ([0.7, -1.3],)),
    (c.aliased_then_written, ([0.7, -1.3],)),
    (c.returned, ([0.7, -1.3],)),
    (c.handed_on, ([0.7, -1.3],)),
    (c.sliced, ([0.7, -1.3, 2.0],)),
    (c.method_read, ([0.7, -1.3, 0.8],)),
    (c.reversed_iteration, ([0.7, -1.3, 2.0],)),
    (c.items_to_helper_then_written, ([0.7, -1.3, 2.0],)),
]


@pytest.mark.parametrize("fn,args", MORE_THAN_READ, ids=[f.__name__ for f, _ in MORE_THAN_READ])
def test_lists_more_than_read_stay_right(fn, args):
    check_derivatives(fn, *args)


def test_the_same_list_twice_is_not_typed():
    """One object under two parameters has one adjoint (the generic storage's convention, as for arrays)."""
    xs = [0.7, -1.3, 2.0]
    g = mc.grad(c.zip_lists_direct, argnums=(0, 1))(xs, xs)
    expect = [np.exp(v) + v * np.exp(v) for v in xs]
    assert np.allclose(g[0], expect) and np.allclose(g[1], expect)
    assert "any:list:f" not in mc.source(c.zip_lists_direct, "reverse")


def test_lists_with_other_items_are_not_typed():
    check_derivatives(c.loop_sum_squares, [0.7, 2, -1.3])  # (an int item)
    check_derivatives(c.loop_sum_squares, [np.float64(0.7), -1.3])
