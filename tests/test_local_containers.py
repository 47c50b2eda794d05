"""Issue 9: containers a function builds (or takes) and reads get plain adjoints in reverse mode
(reverse/local_dicts.py: `d_bar = dict.fromkeys(d, 0.0)`, `d_bar[k] += g`; reverse/local_lists.py and
star_lists.py: `xs_bar = [0.0] * len(xs)`, `v_bar = xs_bar.pop()`, slices and starred parts), checked
against finite differences in both modes, and the near misses (returned, written after a view is read,
aliased, array values written in place or viewed, made in a branch, keys that carry a derivative) stay
right, on the generic path."""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives
from tests import local_dict_cases as c

V = {"x": 1.5, "y": -0.5, "z": 2.0}

# (function, arguments): dicts made by a display, a comprehension or writes in a loop (once, or in each run of a
# loop's body); read by key, by `.items()`, `.values()`, `for k in d`, `k in d`, `sum`; a dict parameter of
# floats read through its views; lists of floats or arrays made by a display, appends or a comprehension, after a
# loop or in each run of one, sliced or star-unpacked.
PLAIN = [
    (c.display_by_key, (0.7, 1.3)),
    (c.display_values_sum, (0.7, 1.3)),
    (c.comprehension_items, (V, 0.7)),
    (c.setitem_loop_values, (0.8, 4)),
    (c.setitem_loop_items, (0.8, 4)),
    (c.keys_then_index, (V, 0.6)),
    (c.overwritten_key, (0.7, 1.2)),
    (c.duplicate_constant_keys, (0.7, 1.2)),
    (c.pairs_by_index, (V, 0.3)),
    (c.param_values_only, (V, 0.3)),
    (c.list_after_loop, (0.7, 3)),
    (c.list_display, (0.7, 1.3)),
    (c.list_display_repeated_item, (0.7,)),
    (c.running_update, (0.7, 3)),
    (c.values_in_branch, (0.7, True)),
    (c.values_in_branch, (0.7, False)),
    (c.contains_check, (0.7,)),
    (c.list_slices, ([0.4, 1.1, -0.6, 0.9, 1.3], 0.7)),
    (c.slices_in_loop, ([0.4, 1.1, -0.6, 0.9], 0.7)),
    (c.star_middle, ([0.4, 1.1, -0.6, 0.9, 1.3], 0.7)),
    (c.star_middle, ([0.4, 1.1, -0.6], 0.7)),
    (c.star_arrays, ([np.random.default_rng(70 + i).normal(size=(3, 3)) * 0.6 for i in range(4)],
                     np.random.default_rng(75).normal(size=3))),
    (c.array_list_built, (np.array([0.3, -0.2, 0.5]), 3)),
    (c.array_list_sliced, ([np.random.default_rng(80 + i).normal(size=(3, 3)) * 0.6 for i in range(3)],
                           np.random.default_rng(85).normal(size=3))),
    (c.dict_in_loop, (0.7,)),
    (c.list_in_loop, (0.7, 3)),
    (c.sum_loop_name_clash, (0.7, 3)),
    (c.dict_per_iteration_views, (0.7, 3)),
    (c.array_list_param_appended, (np.array([0.3, -0.2]), np.array([1.1, 0.4]))),
]

NEAR_MISSES = [
    (c.returned_dict, (0.7,)),
    (c.write_after_view, (0.7,)),
    (c.handed_on, (0.7,)),
    (c.aliased, (0.7,)),
    (c.array_values, (np.array([0.3, 0.5]),)),
    (c.branch_made, (0.7, True)),
    (c.branch_made, (0.7, False)),
    (c.duplicate_display_keys, (0.7, 1.2, 1, 2)),
    (c.duplicate_display_keys, (0.7, 1.2, "a", "a")),  # (equal keys: the first value reaches nothing)
    (c.duplicate_display_keys, (0.7, 1.2, 1, 1)),
    (c.view_in_loop_with_writes, (0.7, 3)),
    (c.dict_per_iteration_written_after_view, (0.7, 3)),
    (c.star_array_viewed, ([np.random.default_rng(70 + i).normal(size=(2, 3)) for i in range(3)], np.ones(3))),
    (c.array_list_item_written, (np.array([0.3, -0.2, 0.5]), 3)),
    (c.array_list_returned, (np.array([0.3, -0.2, 0.5]),)),
    (c.star_array_written, ([np.random.default_rng(70 + i).normal(size=(2, 3)) for i in range(3)], np.ones(3))),
    (c.int_value_written, (0.7,)),
    (c.captured, (0.7,)),
]

# What the generic path writes for containers: none of it is left where the types are known.
GENERIC = ("_mc.acc(", "_mc.take(", "_mc.rcall(", "_mc.item_of(", "_mc.getitem_reverse(", "_mc.setitem_reverse(",
           "_mc.getattr_reverse(", "_mc.sum_items_adjoint(", "_mc.save_item(", "_mc.append_reverse(",
           "_mc.undo_append(", "_mc.add_list_adjoint(")


def _pullback(fn, args):
    mc.vjp(fn, *args)
    src = mc.source(fn, "reverse")
    start = src.index(f"def {fn.__name__}__pullback(")
    end = src.find("\ndef ", start + 1)
    return src[start:end if end > 0 else len(src)]


@pytest.mark.parametrize("fn,args", PLAIN + NEAR_MISSES, ids=[f.__name__ for f, _ in PLAIN + NEAR_MISSES])
def test_dicts_derivatives(fn, args):
    check_derivatives(fn, *args)


@pytest.mark.parametrize("fn,args", PLAIN, ids=[f.__name__ for f, _ in PLAIN])
def test_dicts_have_a_plain_dict_adjoint(fn, args):
    pb = _pullback(fn, args)
    assert not [h for h in GENERIC if h in pb], pb


def test_comprehension_pullback_reads_like_a_person_wrote_it():
    pb = _pullback(c.comprehension_items, (V, 0.7))
    assert "scaled_bar = dict.fromkeys(scaled, 0.0)" in pb
    assert "values_bar = dict.fromkeys(values, 0.0)" in pb
    assert "scaled_bar[k] = 0.0" in pb and "values_bar[k] += " in pb
    assert "for k in scaled_bar:" in pb  # (`sum(scaled.values())`: g into every slot)
    assert "_mc." not in pb


def test_overwritten_key_gives_each_value_its_own_reads():
    # d["a"] is written three times; each read belongs to the value written last before it
    _, pb = mc.vjp(c.overwritten_key, 0.7, 1.2)
    x, y = 0.7, 1.2
    assert np.allclose(pb(1.0), (3.0 + 2 * (y * x) * y, 2 * (y * x) * x + 0.5))


def test_float_keys_stay_generic():
    # a key that carries a derivative: the dict is not typed (its keys' adjoints would be dropped)
    pb = _pullback(c.float_keys, (0.7,))
    assert "dict.fromkeys" not in pb


def test_list_built_after_a_loop_has_a_plain_list_adjoint():
    pb = _pullback(c.list_after_loop, (0.7, 3))
    assert "vals_bar = [0.0] * len(vals)" in pb and "vals_bar.pop()" in pb
    assert "_mc.append_reverse(" not in pb and "_mc.undo_append(" not in pb and "_mc.take(" not in pb
    assert "_mc." not in pb  # (`sum(vals)`: `for k in range(len(vals_bar)): vals_bar[k] += g`)


def test_list_display_takes_its_items_slots():
    pb = _pullback(c.list_display, (0.7, 1.3))
    assert "vals_bar = [0.0] * len(vals)" in pb and "vals_bar[0]" in pb and "vals_bar.pop()" in pb


def test_star_unpacking_keeps_python_s_error():
    with pytest.raises(ValueError):
        mc.vjp(c.star_too_short, [0.4])
    assert np.allclose(mc.vjp(c.star_too_short, [0.4, 1.5])[1](1.0)[0], [1.5, 0.4])
