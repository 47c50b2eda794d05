"""Issue 9: pullbacks that read like a person's where the types are known, each family checked against finite
differences in reverse mode, and its emitted source checked for the run-time helper it no longer needs."""
import re

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.tangents import NoTangent
from mooncake_ast.testing import check_derivatives
from tests import plain_pullback_cases as c


def _pullback(fn, *args):
    mc.vjp(fn, *args)
    src = mc.source(fn, "reverse")
    start = src.index("__pullback(", src.index("\ndef "))
    end = src.find("\ndef ", start)
    return src[start:end if end >= 0 else len(src)]


@pytest.mark.parametrize("fn,args", [
    (c.tuple_items_in_loop, ((0.5, 1.5, 2.0), 2.0)),
    (c.tuple_display_in_loop, (0.5, -1.2, 0.8)),
])
def test_items_of_a_tuple_of_floats_read_in_a_loop_are_floats(fn, args):
    check_derivatives(fn, *args, modes=("reverse",))
    src = _pullback(fn, *args)
    assert "append_reverse" not in src and "_mc.take(" not in src and "sum_items_adjoint" not in src, src


@pytest.mark.parametrize("fn,args", [
    (c.mixed_tuple_in_loop, (0.7, np.array([0.2, -0.4]))),
    (c.arrays_of_a_tuple_written, (np.array([0.3, -0.5, 0.2]), np.array([1.2, 0.4, 0.1]))),
])
def test_tuple_items_of_mixed_types_or_written_through_stay_right(fn, args):
    check_derivatives(fn, *args, modes=("reverse",))


@pytest.mark.parametrize("fn,args", [
    (c.appended_rows, ([[0.5, -1.0], [2, 0.3], [0.7, 0.1]], [1.5, -0.4])),  # (an int in a row: items unknown)
    (c.appended_then_written, ([np.array([0.3, -0.2]), 0.5, np.array([1.1, 0.4])],)),
])
def test_undoing_an_append_records_nothing_of_the_call(fn, args):
    check_derivatives(fn, *args, modes=("reverse",))
    src = _pullback(fn, *args)
    assert "append_reverse" not in src and "_mc.undo_append(" in src and "undo_append(t" in src, src


@pytest.mark.parametrize("fn", [c.horner_over_display, c.horner_over_slice])
def test_reversed_of_a_list_the_function_makes_is_walked_by_index(fn):
    check_derivatives(fn, 0.7, 1.3, -0.4, modes=("reverse",))
    src = _pullback(fn, 0.7, 1.3, -0.4)
    assert "_mc." not in src.replace("_mc.add_slice(", ""), src


def test_reversed_of_a_display_written_in_the_loop_is_refused():
    """`for v in reversed(xs)` takes xs's items when the loop starts, where Python reads each one when it gets
    there: a write to xs inside the loop gave a wrong primal in both modes (1.41 for 0.74). Refused now."""
    with pytest.raises(mc.MooncakeError, match="reversed"):
        check_derivatives(c.reversed_display_written, 0.7, 1.3, modes=("reverse",))
    with pytest.raises(mc.MooncakeError, match="reversed"):
        mc.jvp(c.reversed_display_written, (0.7, 1.3), (1.0, 0.0))


def test_reversed_of_a_display_written_before_the_loop_stays_right():
    check_derivatives(c.reversed_display_written_before, 0.7, 1.3, modes=("reverse",))


def test_writes_take_none_of_their_own_value():
    check_derivatives(c.writes_of_containers, 0.7, -1.3, modes=("reverse",))
    src = _pullback(c.writes_of_containers, 0.7, -1.3)
    assert "_reverse(_mc.NoTangent, None," not in src, src


@pytest.mark.parametrize("fn,args", [
    (c.gather_by_index_list, (np.array([0.3, -1.2, 0.8, 2.0]), [2, 0, 2, 3])),
    (c.exponents_from_pairs, (1.3, [(0, 2), (1, 1), (2, 3)], {"double": True, "name": "p"})),
])
def test_arguments_without_a_derivative_leave_the_pullback(fn, args):
    """Lists, tuples and dicts of ints, strings and flags are marked not differentiated (reverse/constant_args.py):
    no statement of the pullback differentiates them, and their adjoint is the same structure of zeros as before."""
    check_derivatives(fn, *args, modes=("forward", "reverse"))
    src = _pullback(fn, *args)
    name = fn.__code__.co_varnames[1]
    code = "\n".join(line for line in src.splitlines() if not line.lstrip().startswith("#"))
    assert "sequence_adjoint" not in src and len(re.findall(rf"\b{name}\b", code)) == 2, src  # (tape, `take(ks, ..)`)
    grads = mc.vjp(fn, *args)[1](1.0)
    assert grads[1] and _zeros(grads[1]), grads


def _zeros(g):
    if isinstance(g, (list, tuple)):
        return all(_zeros(v) for v in g)
    if isinstance(g, dict):
        return all(_zeros(v) for v in g.values())
    return g is NoTangent


def test_a_list_of_ints_given_floats_is_differentiated():
    check_derivatives(c.constant_list_written_by_a_helper, 0.7, [1, 2], [3], modes=("reverse",))
    shared = [1, 2]  # (the same list twice: a write into one is a write into the other)
    _, pb = mc.vjp(c.constant_list_written_by_a_helper, 0.7, shared, shared)
    assert np.isclose(pb(1.0)[0], 4 * 0.7 + 1.0)  # (y = 2x * x + 1 * x: js[0] is ks[0])
    """`ks.append(x * 3.0)` makes the list of ints hold a float with a derivative: activity takes it up again."""
    for modes in (("reverse",), ("forward",)):
        check_derivatives(c.constant_list_made_active, 0.7, [1, 2], modes=modes)
    ks = [1, 2]
    _, pb = mc.vjp(c.constant_list_made_active, 0.7, ks)
    x_bar = pb(1.0)[0]
    # y = (1 + 2 + x^2) x + 3 x * 1: dy/dx = 3 + 3 x^2 + 3 (ks[-1] is 3x at the call; the list is ks as it was)
    assert np.isclose(x_bar, 3.0 + 3 * 0.7 ** 2 + 3.0), x_bar


@pytest.mark.parametrize("fn,args", [
    (c.appended_rows, ([[0.5, -1.0], [2.0, 0.3], [0.7, 0.1]], [1.5, -0.4])),
    (c.row_sums, ([[0.5, -1.0, 0.2], [2.0, 0.3, -0.6]], 0.7)),
])
def test_rows_of_a_nested_list_add_into_their_slots(fn, args):
    """A list of lists of floats the function only reads (reverse/row_lists.py): `rows_bar[i][j] += g`."""
    check_derivatives(fn, *args)
    src = _pullback(fn, *args)
    assert "_mc.zero_rows(" in src and "getitem_reverse" not in src and "_mc.acc(" not in src, src
    assert "_mc." not in src.replace("_mc.zero_rows(", ""), src


@pytest.mark.parametrize("fn,args", [
    (c.row_written, ([[0.5, -1.0], [2.0, 0.3]], 0.8)),
    (c.rows_to_array, ([[0.5, -1.0], [2.0, 0.3]], [1.5, -0.4])),
])
def test_nested_lists_written_or_handed_on_stay_right(fn, args):
    check_derivatives(fn, *args)


def test_a_row_that_is_another_argument_is_not_typed():
    """`rows = [v, w]` with v passed too: one list, two ways in (runtime.kinds_of keeps both generic)."""
    v = [1.5, -0.4]
    check_derivatives(c.appended_rows, [v, [0.2, 0.9]], v, modes=("reverse",))
    _, pb = mc.vjp(c.appended_rows, [v, [0.2, 0.9]], v)
    assert "zero_rows" not in mc.source(c.appended_rows, "reverse")


def test_a_dict_of_floats_keyed_by_ints_is_a_plain_dict_of_adjoints():
    """`{0: 1.0, 2: -0.5}` only read (reverse/int_keys.py): `coeffs_bar[p] += g`, its keys ints (`x ** p` plain)."""
    args = ({0: 1.0, 2: -0.5, 1: 0.3}, 0.8)
    check_derivatives(c.int_keyed_powers, *args)
    src = _pullback(c.int_keyed_powers, *args)
    assert "dict.fromkeys(coeffs, 0.0)" in src and "getitem_reverse" not in src and "_mc.acc(" not in src, src


@pytest.mark.parametrize("coeffs", [{0: 1.0, 2: -0.5}, {0: 1.0, "a": 2.0, True: 0.5}])
def test_dicts_keyed_by_ints_written_or_mixed_stay_right(coeffs):
    fn = c.int_keyed_written if "a" not in coeffs else c.sorted_free_powers
    check_derivatives(fn, dict(coeffs), 0.8)


def test_a_typed_list_a_closure_writes_is_derived_again_untyped():
    """`kept.append(x)` with kept the caller's `xs` (or a row of `rows`): the IR cannot see that they are one list, so
    reverse/generate.py derives again with the list untyped (constant_args.lists_reached_outside); the typed float
    list crashed with IndexError before, the row would have too."""
    f, g, kept = c.closure_writing_its_list()
    for fn, arg in ((f, kept), (g, [kept])):
        del kept[2:]
        _, pb = mc.vjp(fn, 0.5, arg)
        assert np.isclose(pb(1.0)[0], 2 * 0.5)  # (y = x * x: xs[-1] is x once appended)
        assert "zero_rows" not in mc.source(fn, "reverse") and "[0.0] *" not in mc.source(fn, "reverse")
