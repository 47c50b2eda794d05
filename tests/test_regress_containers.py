"""Issue 8 regressions (reverse-mode gradients that were silently wrong), part 2:

3. container mutation methods in both modes: list append / extend / insert / pop / remove /
   sort / reverse / clear / += / *= / del, dict update / |= / | / setdefault / pop / popitem /
   clear / overwrite, ndarray.sort() and .fill(); floats and arrays as values, mutable and
   immutable items mixed, arguments mutated;
4. fancy-index writes with repeated indices (=, +=, -=, *=; 1-D, 2-D, scalars, broadcast);
6. values returned after in-place updates: the value mc.vjp returns is unchanged after
   the pullback runs.

Every case runs through `check_case` (tests/regress_cases/__init__.py): check_derivatives
in both modes, plus the reverse gradient of every argument and the jvp against our own
central finite differences, the primal value, and the state of arguments and result.
`del xs[i]` and length-changing slice assignment have reverse mode since 46e491e, so they
are checked in full (check_case(..., refuse_reverse=True) would accept a MooncakeError).
"""
import numpy as np
import pytest

from tests.regress_cases import case, cases, check_case
from tests.regress_cases import containers as C


def rnd(*shape, seed=0, scale=0.5):
    return np.random.default_rng(seed).normal(size=shape) * scale


A3, B3 = rnd(3, seed=1), rnd(3, seed=2)

LIST_METHODS = cases(
    case("append", C.list_append, 0.7, -1.3),
    case("append_arrays", C.list_append_arrays, A3, B3),
    case("extend", C.list_extend, 0.7, -1.3),
    case("extend_arrays", C.list_extend_arrays, A3, B3),
    case("insert", C.list_insert, 0.7, -1.3),
    case("insert_arrays", C.list_insert_arrays, A3, B3),
    case("pop_index", C.list_pop_index, 0.7, -1.3, 2.1),
    case("pop_negative", C.list_pop_negative, 0.7, -1.3, 2.1),
    case("pop_arrays", C.list_pop_arrays, A3, B3),
    case("remove", C.list_remove, 2.0, 4.0),
    case("remove_mixed", C.list_remove_mixed, 2.0, 4.0),
    case("sort_key", C.list_sort_key, 0.7, -1.3, 2.1),
    case("sort_reverse", C.list_sort_reverse, 0.7, -1.3, 2.1),
    case("sort_plain", C.list_sort_plain, 0.7, -1.3, 2.1),
    case("sort_arrays_key", C.list_sort_arrays_key, np.array([0.5, 1.0, 2.0]), np.array([-1.0, 0.3, 0.2]),
         np.array([2.0, -0.4, 0.1])),
    case("reverse", C.list_reverse, 0.7, -1.3, 2.1),
    case("reverse_arrays", C.list_reverse_arrays, A3, B3),
    case("clear", C.list_clear, 0.7, -1.3),
    case("iadd", C.list_iadd, 0.7, -1.3),
    case("iadd_arrays", C.list_iadd_arrays, A3, B3),
    case("imul", C.list_imul, 0.7, -1.3),
    case("setitem_overwrite", C.list_setitem_overwrite, 0.7, -1.3),
    case("del_item", C.list_del, 0.7, -1.3),
    case("del_item_arrays", C.list_del_arrays, A3, B3),
    case("del_slice", C.list_del_slice, 0.7, -1.3),
    case("del_negative", C.list_del_negative, 0.7, -1.3, 2.1),
    case("slice_assign_shorter", C.list_slice_assign_shorter, 0.7, -1.3),
    case("slice_assign_longer", C.list_slice_assign_longer, 0.7, -1.3),
    case("slice_assign_reversed", C.list_slice_assign_reversed, 0.7, -1.3),
    case("mixed_items", C.list_mixed_items, A3, 0.6),
    case("arg_append", C.list_arg_append, [0.7, -1.3], 0.4),
    case("arg_sort", C.list_arg_sort, [0.7, -1.3, 2.1]),
    case("arg_arrays_pop", C.list_arg_arrays_pop, [rnd(3, seed=3), rnd(3, seed=4)]),
)

DICT_METHODS = cases(
    case("update_mapping", C.dict_update_mapping, 0.7, -1.3),
    case("update_pairs", C.dict_update_pairs, 0.7, -1.3),
    case("update_keywords", C.dict_update_keywords, 0.7, -1.3),
    case("update_keyword_new", C.dict_update_keyword_new, 0.7),
    case("update_arrays", C.dict_update_arrays, A3, B3),
    case("ior", C.dict_ior, 0.7, -1.3),
    case("ior_arrays", C.dict_ior_arrays, A3, B3),
    case("or", C.dict_or, 0.7, -1.3),
    case("or_arrays", C.dict_or_arrays, A3, B3),
    case("setdefault_absent", C.dict_setdefault_absent, 0.7, -1.3),
    case("setdefault_present", C.dict_setdefault_present, 0.7, -1.3),
    case("setdefault_both", C.dict_setdefault_both, 0.7, -1.3),
    case("setdefault_list", C.dict_setdefault_list, 0.7, -1.3),
    case("pop_present", C.dict_pop_present, 0.7, -1.3),
    case("pop_default", C.dict_pop_default, 0.7, -1.3),
    case("pop_arrays", C.dict_pop_arrays, A3, B3),
    case("popitem", C.dict_popitem, 0.7, -1.3),
    case("clear", C.dict_clear, 0.7, -1.3),
    case("overwrite", C.dict_overwrite, 0.7, -1.3),
    case("overwrite_arrays", C.dict_overwrite_arrays, A3, B3),
    case("del", C.dict_del, 0.7, -1.3),
    case("mixed_items", C.dict_mixed_items, A3, 0.6),
    case("arg_update", C.dict_arg_update, {"a": 0.7}, -1.3),
)

NDARRAY_METHODS = cases(
    case("sort_copy", C.ndarray_sort_copy, np.array([0.3, -1.2, 0.8])),
    case("sort_arg", C.ndarray_sort_arg, np.array([0.3, -1.2, 0.8])),
    case("sort_axis0", C.ndarray_sort_axis0, np.array([[0.3, -1.2], [0.8, 0.1], [-0.5, 0.9]])),
    case("sort_rows", C.ndarray_sort_rows, np.array([[0.3, -1.2, 0.5], [0.8, 0.1, -0.4]])),
    case("fill", C.ndarray_fill, 0.7),
    case("fill_overwrite", C.ndarray_fill_overwrite, A3, 0.7),
    case("fill_row", C.ndarray_fill_row, rnd(2, 3, seed=5), 0.7),
)

FANCY_WRITES = cases(
    case("set_repeat", C.fancy_set_repeat, np.array([1.0, 2.0])),
    case("set_repeat_weighted", C.fancy_set_repeat_weighted, rnd(2, seed=6)),
    case("set_repeat3", C.fancy_set_repeat3, np.array([1.0, 2.0, 3.0])),
    case("iadd_repeat", C.fancy_iadd_repeat, np.array([1.0, 2.0])),
    case("iadd_repeat_arg", C.fancy_iadd_repeat_arg, A3, rnd(3, seed=7)),
    case("isub_repeat", C.fancy_isub_repeat, A3, rnd(2, seed=8)),
    case("imul_repeat", C.fancy_imul_repeat, A3, rnd(2, seed=9)),
    case("2d", C.fancy_2d, np.array([1.0, 2.0])),
    case("2d_mixed", C.fancy_2d_mixed, rnd(2, 3, seed=10), rnd(3, seed=11)),
    case("2d_iadd", C.fancy_2d_iadd, rnd(2, 3, seed=12), rnd(2, seed=13)),
    case("rows", C.fancy_rows, rnd(3, 2, seed=14)),
    case("scalar", C.fancy_scalar, 0.7),
    case("scalar_over_arg", C.fancy_scalar_over_arg, A3, 0.7),
    case("array_index", C.fancy_array_index, A3, rnd(3, seed=15)),
    case("negative_same_element", C.fancy_negative_same, rnd(2, seed=16)),
    case("broadcast_row", C.fancy_broadcast_row, rnd(3, seed=17)),
    case("broadcast_column", C.fancy_broadcast_column, rnd(2, seed=18)),
    case("broadcast_iadd", C.fancy_broadcast_iadd, rnd(2, 3, seed=19), rnd(3, seed=20)),
    case("read_original", C.fancy_read_original, A3, rnd(2, seed=21)),
    case("set_repeat_arg_inplace", C.fancy_set_repeat_arg_inplace, A3, rnd(2, seed=22)),
    case("set_repeat_view", C.fancy_set_repeat_view, A3, rnd(2, seed=23)),
    case("set_repeat_row_view", C.fancy_set_repeat_row_view, rnd(2, 3, seed=24), rnd(2, seed=25)),
    case("add_at_repeat", C.fancy_add_at, A3, rnd(2, seed=26)),
)

RETURNED = cases(
    case("tuple_copy_iadd", C.ret_tuple_copy_iadd, A3),
    case("array_updates", C.ret_array_updates, A3, 0.7),
    case("list_after_updates", C.ret_list_after_updates, A3, 0.7),
    case("dict_after_updates", C.ret_dict_after_updates, A3, 0.7),
    case("alias", C.ret_alias, A3),
    case("arg_mutated", C.ret_arg_mutated, A3),
    case("arg_list_mutated", C.ret_arg_list_mutated, [0.7, -1.3], 0.4),
    case("nested", C.ret_nested, A3, 0.7),
    case("view", C.ret_view, A3),
    case("sorted_in_place", C.ret_sorted_in_place, np.array([0.3, -1.2, 0.8])),
    case("row_view_of_arg", C.ret_row_view_of_arg, rnd(3, 2, seed=27)),
    case("rows_list", C.ret_rows_list, rnd(3, 2, seed=28)),
    case("alias_with_float", C.ret_alias_with_float, A3),
)


@pytest.mark.parametrize("fn,args,opts", LIST_METHODS)
def test_list_methods(fn, args, opts):
    check_case(fn, args, **opts)


@pytest.mark.parametrize("fn,args,opts", DICT_METHODS)
def test_dict_methods(fn, args, opts):
    check_case(fn, args, **opts)


@pytest.mark.parametrize("fn,args,opts", NDARRAY_METHODS)
def test_ndarray_methods(fn, args, opts):
    check_case(fn, args, **opts)


@pytest.mark.parametrize("fn,args,opts", FANCY_WRITES)
def test_fancy_index_writes_with_repeats(fn, args, opts):
    check_case(fn, args, **opts)


@pytest.mark.parametrize("fn,args,opts", RETURNED)
def test_returned_values_mutated(fn, args, opts):
    check_case(fn, args, **opts)
