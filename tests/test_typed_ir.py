"""Issue 9: what the typed IR knows reaches the generated code.  Tuple reads fold to their items, builtins,
constants and in-place operators of numbers are typed, NumPy results are typed, views get plain adjoint
buffers when nothing writes (and keep storage when something does).  Each function is checked in both modes
against finite differences, over several inputs, and the plain cases have pullbacks without run-time helpers."""
import ast

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives
from tests import typed_ir_cases as c


def helper_refs(fn, *args):
    mc.vjp(fn, *args)
    tree = ast.parse(mc.source(fn, "reverse"))
    pull = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.endswith("__pullback"))
    return [n.attr for n in ast.walk(pull) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
            and n.value.id == "_mc"]


def arr(*shape, seed=0, shift=0.0):
    return np.random.default_rng(seed).normal(size=shape) + shift


SCALAR = [
    (c.swap_chain, [(0.3, 1.7), (-1.2, 0.4), (2.0, 2.0)]),
    (c.swap_in_loop, [(0.8, 3), (-0.4, 0), (1.5, 5)]),
    (c.constants_by_name, [(0.3,), (1.4,), (-2.0,)]),
    (c.builtins_of_numbers, [(0.3, 1.7), (1.2, -0.4), (-2.0, 0.25), (3.0, 0.9)]),
    (c.augmented_numbers, [(0.3, 1.7), (-1.2, 0.4)]),
    (c.powers, [(0.7,), (1.9,), (3.0,)]),
]


@pytest.mark.parametrize("fn,argsets", SCALAR, ids=[f.__name__ for f, _ in SCALAR])
def test_scalar_families(fn, argsets):
    for args in argsets:
        check_derivatives(fn, *args)


@pytest.mark.parametrize("fn,args", [(c.swap_chain, (0.3, 1.7)), (c.constants_by_name, (0.3,)),
                                     (c.powers, (0.7,))])
def test_scalar_pullbacks_are_plain(fn, args):
    # (a fractional power of a Python float may be complex: its base is checked, tests/test_complex_reverse.py; its
    # base's slope is infinite at 0, so the adjoint multiplies it as a strong zero: docs/nan-derivatives.md)
    allowed = {"refuse_complex_power", "strong_mul"}
    assert [r for r in helper_refs(fn, *args) if r not in allowed] == []


def test_tuple_reads_fold_in_the_forward_code_too():
    src_fwd = (mc.jvp(c.swap_chain, (0.3, 1.7), (1.0, 0.0)), mc.source(c.swap_chain, "forward"))[1]
    assert "unpack" not in src_fwd


def test_fractional_power_below_one_keeps_the_helper_at_zero():
    """d(x**0.5)/dx at 0 is inf; written plainly as 0.5 * x ** -0.5 it would raise for a float zero."""
    refs = helper_refs(c.powers_array, arr(4, shift=3.0))
    assert refs.count("pow_deriv") == 1  # (x ** 0.5 only; x ** 1.5 and x ** 3 are plain)
    g = mc.grad(c.powers_array)(np.array([0.0, 1.0, 4.0]))
    assert np.isinf(g[0]) and np.allclose(g[1:], [1.5 + 3 + 0.5, 1.5 * 2 + 3 * 16 + 0.25])


ARRAYS = [
    (c.powers_array, [(arr(5, shift=3.0),), (np.array([0.5, 2.0, 9.0]),)]),
    (c.rows_unpacked, [(arr(3, 4, seed=1),), (arr(3, 1, seed=2),)]),
    (c.views_read_only, [(arr(12, seed=3),), (arr(12, seed=4),)]),
    (c.views_and_writes, [(arr(12, seed=5),), (arr(12, seed=6),)]),
    (c.view_written_in_place, [(arr(6, seed=7),), (arr(6, seed=8),)]),
    (c.norms_and_inverses, [(arr(3, 3, seed=9) + 3 * np.eye(3), arr(3, seed=10)),
                            (arr(4, 4, seed=11) + 4 * np.eye(4), arr(4, seed=12))]),
    (c.where_and_cumsum, [(arr(6, seed=13),), (arr(1, seed=14),)]),
]


@pytest.mark.parametrize("fn,argsets", ARRAYS, ids=[f.__name__ for f, _ in ARRAYS])
def test_array_families(fn, argsets):
    for args in argsets:
        check_derivatives(fn, *[a.copy() if isinstance(a, np.ndarray) else a for a in args])


def test_views_of_a_function_that_writes_nothing_are_plain():
    assert helper_refs(c.views_read_only, arr(12, seed=3)) == []
    src = mc.source(c.views_read_only, "reverse")
    assert "np.zeros_like(T)" in src and "np.transpose(" in src


def test_views_with_writes_keep_storage():
    """A write through a view changes its base: the adjoints must stay in identity-keyed storage."""
    assert helper_refs(c.views_and_writes, arr(12, seed=5)) != []
    assert helper_refs(c.view_written_in_place, arr(6, seed=7)) != []


def test_inference_types():
    from mooncake_ast.frontend.statements import lower_function
    from mooncake_ast.forward.transform import StaticResolver
    from mooncake_ast.ir.inference import infer_types
    from mooncake_ast.ir.types import FLOAT, Arr

    ir = lower_function(c.norms_and_inverses)
    r = StaticResolver(c.norms_and_inverses.__globals__, {"A": "arr", "v": "arr"})

    def constant(v):
        out = r.resolve(v)
        if out is r._NOTHING:
            raise LookupError(v)
        return out

    types = infer_types(ir, {"A": Arr("f", ("n@A.0", "n@A.1")), "v": Arr("f", ("n@v.0",))}, r.callee, constant)
    by_hint = {s.hint: t for s, t in types.items() if getattr(s, "hint", None)}
    assert by_hint["n"] == FLOAT and by_hint["w"] == Arr("f", ("n@v.0",)) and by_hint["B"] == Arr("f", ("n@A.0", "n@A.0"))


@pytest.mark.parametrize("idx", [[0, 2, 2, 4, 0], [5, 5, 5], [1], [-1, 0, -1]])
def test_fancy_reads_with_repeated_positions(idx):
    x = arr(6, seed=20)
    check_derivatives(c.fancy_reads, x, np.array(idx))
    g = mc.grad(c.fancy_reads)(x, np.array(idx))
    expect = np.zeros(6)
    np.add.at(expect, np.array(idx), 2.0 * x[np.array(idx)])
    expect += 3.0 * (x > 0.0) + np.array([1.0, 0, 1, 0, 1, 1])
    assert np.allclose(g, expect)


@pytest.mark.parametrize("idx", [[0, 2, 2], [1, 1, 1, 1], [2, 0]])
def test_fancy_rows(idx):
    check_derivatives(c.fancy_rows, arr(3, 4, seed=21), np.array(idx), arr(4, seed=22))


def test_fancy_reads_are_plain():
    assert set(helper_refs(c.fancy_reads, arr(6, seed=20), np.array([0, 2, 2]))) <= {"NoTangent"}  # (idx's adjoint)
    src = mc.source(c.fancy_reads, "reverse")
    assert "np.add.at(x_bar, idx," in src


def test_unused_tuple_item_with_an_infinite_part():
    """The caller never reads the second item (s / 0): the callee is derived knowing its adjoint is the symbolic
    zero (rcall's `quiet`), so no 0.0 / 0 or 0.0 * inf reaches the gradient."""
    x = np.array([1.0, 2.0, 3.0])
    with np.errstate(all="ignore"):
        assert np.allclose(mc.grad(c.uses_first_of_pair)(x), 2.0 * x)
        assert np.allclose(mc.grad(c.uses_second_of_triple)(x), 2.0 * x)
    mc.vjp(c.uses_first_of_pair, x)
    assert ", None, (1,))" in mc.source(c.uses_first_of_pair, "reverse")


@pytest.mark.parametrize("rows,cols", [([0, 2, 2, 0], [1, 1, 1, 3]), ([1], [0]), ([2, 2], [3, 3])])
def test_pair_index_reads(rows, cols):
    X = arr(3, 4, seed=23)
    check_derivatives(c.pair_index_reads, X, np.array(rows), np.array(cols))
    assert "np.add.at(X_bar, (rows, cols), picked_bar)" in mc.source(c.pair_index_reads, "reverse")


def test_joins_are_typed():
    from mooncake_ast.ir.op_types import joined_items
    from mooncake_ast.ir.types import UNKNOWN, Arr

    a, b = Arr("f", ("n@a.0", "n")), Arr("f", ("?", "n"))
    assert joined_items(np.concatenate, [a, b], 0) == Arr("f", ("?", "n"))
    assert joined_items(np.concatenate, [a, b], -1) == Arr("f", ("n@a.0", "?"))
    assert joined_items(np.stack, [a, a], 1) == Arr("f", ("n@a.0", "n", "n"))
    assert joined_items(np.stack, [a], -1) == Arr("f", ("n@a.0", "n", "1"))
    assert joined_items(np.concatenate, [a, Arr("f", ("n",))], 0) == UNKNOWN  # (ranks differ)
    check_derivatives(c.joins, arr(4, seed=24), arr(4, seed=25))


PAIR_FAMILY = [c.pair_reads_of_written, c.pair_accumulate_then_read, c.pair_copy_written, c.pair_write_of_copy]


@pytest.mark.parametrize("fn", PAIR_FAMILY, ids=[f.__name__ for f in PAIR_FAMILY])
def test_pair_index_reads_with_writes(fn):
    X = arr(3, 4, seed=26)
    for rows, cols in (([0, 2, 2, 0], [1, 1, 1, 3]), ([1], [0]), ([2, 2], [3, 3])):
        check_derivatives(fn, X, np.array(rows), np.array(cols))


@pytest.mark.parametrize("fn", [c.standardised_first, c.tuple_items_by_index, c.tuple_passed_on])
def test_tuples_of_numbers_from_user_functions(fn):
    x = np.array([0.3, 1.2, -0.4, 2.0])
    check_derivatives(fn, x)


def test_a_returned_tuple_of_numbers_is_unpacked_plainly():
    mc.vjp(c.standardised_first, np.array([0.3, 1.2, -0.4, 2.0]))
    src = mc.source(c.standardised_first, "reverse")
    assert "(mean_bar, var_bar)" in src and "unpack_adjoint" not in src, src
