"""Issue 8 regressions (reverse-mode gradients that were silently wrong), part 1:

1. a structure read more than once (tuples, lists, dicts, namedtuples of arrays, a
   list of (W, b) in a tanh network, a helper's tuple, one array passed twice);
2. array rows iterated with helpers (enumerate, zip, reversed, sorted, dict, list, .T,
   Fortran order, 3-D, unequal zip, rows written through);
5. module-level arrays: read as constants (right gradients), written with active values
   (a GlobalWriteError naming file:line and the global, in both modes, never a number).

Every case runs through `check_case` (tests/regress_cases/__init__.py): check_derivatives
in both modes, plus the reverse gradient of every argument and the jvp against our own
central finite differences, the primal value, and the state of arguments and result.
Known failures are strict xfails with the failure in the reason; where only one mode is
wrong, the other mode still runs as its own test (ids ending -forward / -reverse).
"""
import inspect

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.forward.activity import GlobalWriteError
from tests.regress_cases import case, cases, check_case
from tests.regress_cases import structures as S


def rnd(*shape, seed=0, scale=0.5):
    return np.random.default_rng(seed).normal(size=shape) * scale


W1, b1 = rnd(3, 2, seed=1), rnd(3, seed=2)
W2, b2 = rnd(2, 3, seed=3), rnd(2, seed=4)
X2 = rnd(2, seed=5)

STRUCTURES = cases(
    case("tuple_read2_unused", S.tuple_read2_unused, rnd(3, seed=10)),
    case("tuple_read2", S.tuple_read2, rnd(3, seed=11)),
    case("tuple_read3", S.tuple_read3, rnd(3, seed=12)),
    case("tuple_sum_twice", S.tuple_sum_twice, rnd(2, 2, seed=13)),
    case("tuple_read_then_mutate_copy", S.tuple_read_then_mutate_copy, rnd(3, seed=14)),
    case("params0_twice", S.params0_twice, rnd(2, 2, seed=15), rnd(2, seed=16), rnd(2, seed=17)),
    case("params_loop_inline", S.params_loop_inline, np.eye(2) * 0.5, np.array([0.1, 0.2]), np.array([0.3, -0.4])),
    case("mlp_list_of_tuples", S.mlp, [(W1, b1), (W2, b2)], X2),
    case("mlp_built_from_args", S.mlp_built, W1, b1, W2, b2, X2),
    case("mlp_enumerate", S.mlp_enumerate, [(W1, b1), (W2, b2)], X2),
    case("nested_tuple_local", S.nested_tuple_local, rnd(2, 2, seed=18), rnd(2, seed=19), 0.7, rnd(2, seed=20)),
    case("nested_tuple_arg", S.nested_tuple_arg, ((rnd(2, 2, seed=21), rnd(2, seed=22)), 1.3), rnd(2, seed=23)),
    case("mixed_tuple_local", S.mixed_tuple_local, 0.8, rnd(3, seed=24)),
    case("mixed_tuple_arg", S.mixed_tuple_arg, (0.8, rnd(3, seed=25), 3)),
    case("helper_tuple_read2", S.helper_tuple_read2, rnd(3, seed=26), 1.5),
    case("helper_tuple_unpack_and_index", S.helper_tuple_unpack_and_index, rnd(3, seed=27), 0.6),
    case("namedtuple_local", S.namedtuple_local, rnd(2, 2, seed=28), rnd(2, seed=29), rnd(2, seed=30)),  # (rules/python_collections.py)
    case("namedtuple_arg", S.namedtuple_arg, S.Layer(rnd(2, 2, seed=31), rnd(2, seed=32)), rnd(2, seed=33)),
    case("namedtuple_attr_once", S.namedtuple_attr_once, S.Layer(rnd(2, 2, seed=61), rnd(2, seed=62))),
    case("namedtuple_attr_read2", S.namedtuple_attr_read2, S.Layer(rnd(2, 2, seed=63), rnd(2, seed=64))),
    case("namedtuple_list", S.namedtuple_list, [S.Layer(rnd(2, 2, seed=34), rnd(2, seed=35)),
                                                 S.Layer(rnd(2, 2, seed=36), rnd(2, seed=37))], rnd(2, seed=38)),
    case("list_read2_local", S.list_read2_local, rnd(3, seed=39), rnd(3, seed=40)),
    case("list_read2_arg", S.list_read2_arg, [rnd(3, seed=41), rnd(3, seed=42)]),
    case("list_floats_arrays_arg", S.list_floats_arrays_arg, [0.4, rnd(3, seed=43), -1.2]),
    case("dict_read2_local", S.dict_read2_local, rnd(3, seed=44), rnd(3, seed=45)),
    case("dict_read2_arg", S.dict_read2_arg, {"w": rnd(3, seed=46), "s": 0.9}),
    case("list_of_tuples_arg", S.list_of_tuples_arg,
         [(rnd(2, 2, seed=53), rnd(2, seed=54)), (rnd(2, seed=55), rnd(3, seed=56))]),
    case("list_of_float_tuples_arg", S.list_of_float_tuples_arg, [(0.5, 1.5), (-0.7, 2.0)]),
    case("list_of_lists_arg", S.list_of_lists_arg, [[rnd(2, 2, seed=57), rnd(2, seed=58)]]),
    case("list_of_float_tuples_index", S.list_of_float_tuples_index, [(0.5, 1.5), (-0.7, 2.0)]),
    case("dict_of_tuples_arg", S.dict_of_tuples_arg, {"layer": (rnd(2, 2, seed=59), rnd(2, seed=60)), "scale": 0.8}),
    case("dict_items_of_tuples_arg", S.dict_items_of_tuples_arg,
         {"l1": (rnd(2, 2, seed=65), rnd(2, seed=66)), "l2": (rnd(3, 2, seed=67), rnd(3, seed=68))}),
    case("tuple_item_mutated_by_helper", S.tuple_item_mutated_by_helper, rnd(3, seed=69)),
    case("tuple_unpacked_and_indexed", S.tuple_unpacked_and_indexed, rnd(3, seed=70), 0.7),
    case("list_same_array_twice_mutated", S.list_same_array_twice_mutated, rnd(3, seed=71)),
    case("dict_same_array_twice_mutated", S.dict_same_array_twice_mutated, rnd(3, seed=72)),
    case("dict_get_twice", S.dict_get_twice, rnd(3, seed=47)),
    case("same_array_twice", S.same_array_twice, rnd(3, seed=48), rnd(3, seed=49)),
    case("same_array_twice_combine", S.same_array_twice_combine, rnd(3, seed=50)),
    case("same_tuple_twice", S.same_tuple_twice, rnd(3, seed=51), rnd(3, seed=52)),
)

A32 = np.array([[1.0, 3.0], [2.0, 1.0], [0.5, 2.0]])      # distinct second column: sorted() has no ties
ROWS = cases(
    case("enumerate", S.rows_enumerate, A32.copy()),
    case("enumerate_index_too", S.rows_enumerate_index_too, rnd(3, 2, seed=60)),
    case("enumerate_fortran", S.rows_enumerate_index_too, np.asfortranarray(rnd(3, 2, seed=61))),
    case("enumerate_transposed", S.rows_enumerate_index_too, rnd(2, 3, seed=62).T),
    case("zip", S.rows_zip, rnd(3, 2, seed=63), rnd(3, 2, seed=64)),
    case("zip_fortran", S.rows_zip, np.asfortranarray(rnd(3, 2, seed=65)), rnd(2, 3, seed=66).T),
    case("zip_self_reversed", S.rows_zip_self_reversed, rnd(3, 2, seed=67)),
    case("reversed", S.rows_reversed, rnd(3, 2, seed=68)),
    case("reversed_transposed", S.rows_reversed, rnd(2, 3, seed=69).T),
    case("sorted_key", S.rows_sorted_key, A32.copy()),
    case("sorted_key_fortran", S.rows_sorted_key, np.asfortranarray(A32)),
    case("dict_enumerate", S.rows_dict_enumerate, rnd(3, 2, seed=70)),
    case("list", S.rows_list, rnd(3, 2, seed=71)),
    case("list_transposed", S.rows_list, rnd(2, 3, seed=72).T),
    case("for_row_in_A_T", S.rows_of_transpose, rnd(3, 2, seed=73)),
    case("for_row_in_A_T_fortran", S.rows_of_transpose, np.asfortranarray(rnd(3, 2, seed=74))),
    case("3d", S.rows_3d, rnd(2, 2, 3, seed=75)),
    case("3d_matrices", S.rows_3d_matrices, rnd(3, 2, 2, seed=76), rnd(2, seed=77)),
    case("3d_transposed", S.rows_3d, rnd(3, 2, 2, seed=78).transpose(2, 1, 0)),
    case("zip_unequal", S.rows_zip_unequal, rnd(4, seed=79), [0.5, -1.5]),
    case("zip_unequal_rows", S.rows_zip_unequal_rows, rnd(3, 2, seed=80), [0.5, -1.5]),
    case("zip_unequal_array", S.rows_zip_unequal, rnd(2, seed=81), rnd(4, seed=82)),
    case("written_through", S.rows_written_through, rnd(3, 2, seed=83)),
    case("written_through_fortran", S.rows_written_through, np.asfortranarray(rnd(3, 2, seed=84))),
    case("written_setitem", S.rows_written_setitem, rnd(3, 2, seed=85), 0.7),
    case("written_iadd", S.rows_written_iadd, rnd(3, 2, seed=86)),
    case("reversed_slice", S.rows_reversed_slice, rnd(3, 2, seed=92)),
    case("column_slice", S.rows_of_column_slice, rnd(3, 3, seed=93)),
    case("by_index", S.rows_by_index, rnd(3, 2, seed=94)),
    case("enumerate_zip_shifted", S.rows_enumerate_zip_shifted, rnd(3, 2, seed=95)),
    case("zip_star", S.rows_zip_star, rnd(2, 3, seed=96)),
    case("map_sum", S.rows_map, rnd(3, 2, seed=97)),
    case("list_written_through", S.rows_list_written_through, rnd(3, 2, seed=98)),
    case("running_sum_in_place", S.rows_running_sum_in_place, rnd(3, 2, seed=99)),
    case("running_sum_in_place_fortran", S.rows_running_sum_in_place, np.asfortranarray(rnd(3, 2, seed=100))),
    case("dict_enumerate_overwrite", S.rows_dict_enumerate_overwrite, rnd(3, 2, seed=101)),
    case("comprehension_reversed", S.rows_comprehension_reversed, rnd(3, 2, seed=102)),
    case("matmul", S.rows_matmul, rnd(3, 2, seed=103)),
    case("added_to_sum", S.rows_added_to_sum, rnd(3, 2, seed=104)),
    case("helper", S.rows_helper, rnd(3, 2, seed=87)),
    case("helper_transpose", S.rows_helper_transpose, rnd(3, 2, seed=88)),
    case("appended", S.rows_appended, rnd(3, 2, seed=89)),
    case("comprehension", S.rows_comprehension, rnd(3, 2, seed=90)),
)

GLOBAL_READS = cases(
    case("mean_x_W0", S.global_mean_mul, -0.5),
    case("W0_plus_x", S.global_add, -0.5),
    case("x_W0_matmul_W0", S.global_mul_matmul, 0.7),
    case("x_M0_matmul_W0", S.global_matrix, 1.3),
    case("tanh_W0_x", S.global_tanh, 0.9),
    case("array_arg", S.global_array_arg, rnd(3, seed=91)),
    case("iterated", S.global_iterated, 0.4),
    case("in_helper", S.global_in_helper, 0.4),
    case("sub_pow", S.global_sub_pow, 0.3),
    case("x_minus_W0", S.global_sub, 0.3),
    case("np_add_W0_x", S.global_np_add, 0.3),
    case("W0_plus_x_indexed", S.global_add_indexed, 0.3),
    case("M0_x2_plus_W0_minus_x", S.global_matrix_mixed, 0.7),
    case("local_ones_plus_x", S.local_const_plus_x, 0.7),
    case("maximum_W0_x", S.global_maximum, 0.1),
    case("x_times_M0", S.global_matrix_mul, 0.7),
)


@pytest.mark.parametrize("fn,args,opts", STRUCTURES)
def test_structure_read_more_than_once(fn, args, opts):
    check_case(fn, args, **opts)


@pytest.mark.parametrize("fn,args,opts", ROWS)
def test_rows_iterated(fn, args, opts):
    check_case(fn, args, **opts)


@pytest.mark.parametrize("fn,args,opts", GLOBAL_READS)
def test_module_level_array_read(fn, args, opts):
    check_case(fn, args, **opts)


def _write_line(fn):
    """file:line of the line marked `# WRITE` in fn (or the helper it calls)."""
    lines, start = inspect.getsourcelines(fn)
    for k, text in enumerate(lines):
        if "# WRITE" in text:
            return f"{inspect.getsourcefile(fn)}:{start + k}"
    return _write_line(S._store)


GLOBAL_WRITES = [
    pytest.param(S.global_write_slice, 1.5, "buf", id="slice"),
    pytest.param(S.global_write_item, 1.5, "buf", id="item"),
    pytest.param(S.global_write_iadd, 1.5, "buf", id="iadd_ellipsis"),
    pytest.param(S.global_write_iadd_alias, 1.5, "buf", id="iadd_alias"),
    pytest.param(S.global_write_alias, 1.5, "buf", id="alias_slice"),
    pytest.param(S.global_write_in_helper, 1.5, "buf", id="in_helper"),
    pytest.param(S.global_dict_setitem, 1.5, "CACHE", id="dict_setitem"),
    pytest.param(S.global_list_append, 1.5, "LOG", id="list_append"),
    pytest.param(S.global_write_out, np.array([1.0, 2.0, 3.0]), "buf", id="ufunc_out"),
]


@pytest.mark.parametrize("mode", ["forward", "reverse"])
@pytest.mark.parametrize("fn,x,name", GLOBAL_WRITES)
def test_module_level_array_write_refused(fn, x, name, mode):
    S.buf[:] = 0.0
    before = S.buf.copy()
    with pytest.raises(GlobalWriteError) as info:
        if mode == "forward":
            mc.jvp(fn, (x,), (np.ones_like(x) if isinstance(x, np.ndarray) else 1.0,))
        else:
            y, pullback = mc.vjp(fn, x)
            pullback(1.0)
    assert isinstance(info.value, mc.MooncakeError)
    text = str(info.value)
    assert _write_line(fn) in text, text
    assert f"`{name}`" in text, text
    np.testing.assert_array_equal(S.buf, before)   # refused before anything ran
