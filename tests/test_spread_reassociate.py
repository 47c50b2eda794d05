"""Issue 9: scalar adjoints kept scalar (reverse/spread.py) and products written in fewer passes
(reverse/reassociate.py).  Every function of tests/spread_cases.py over shapes that broadcast, against
forward mode and finite differences; and what the pullbacks read like."""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives
from tests import spread_cases as c


def arr(*shape, seed=0, shift=0.0):
    return np.random.default_rng(seed).normal(size=shape) + shift


def pos(*shape, seed=0):
    return np.random.default_rng(seed).uniform(0.5, 2.0, size=shape)


CASES = [
    ("sum_of_product vec", c.sum_of_product, lambda: (arr(5, seed=1), arr(5, seed=2))),
    ("sum_of_product rows", c.sum_of_product, lambda: (arr(3, 4, seed=1), arr(4, seed=2))),
    ("sum_of_product cols", c.sum_of_product, lambda: (arr(3, 1, seed=1), arr(1, 4, seed=2))),
    ("sum_of_product scalar", c.sum_of_product, lambda: (arr(3, 4, seed=1), 0.7)),
    ("mean_of_power", c.mean_of_power, lambda: (arr(2, 3, seed=3),)),
    ("sum_of_ufunc", c.sum_of_ufunc, lambda: (arr(4, seed=4),)),
    ("product_of_sums", c.product_of_sums, lambda: (arr(3, seed=5), arr(2, 2, seed=6))),
    ("sum_of_matmul", c.sum_of_matmul, lambda: (arr(3, 4, seed=7), arr(4, 2, seed=8))),
    ("sum_of_matmul vec", c.sum_of_matmul, lambda: (arr(3, 4, seed=7), arr(4, seed=8))),
    ("outer_broadcast", c.sum_of_outer_broadcast, lambda: (arr(3, seed=9), arr(4, seed=10))),
    ("row_broadcast", c.sum_of_row_broadcast, lambda: (arr(3, 4, seed=11), arr(4, seed=12))),
    ("row_broadcast 1", c.sum_of_row_broadcast, lambda: (arr(3, 4, seed=11), arr(1, seed=12))),
    ("col_broadcast", c.sum_of_row_broadcast, lambda: (arr(3, 4, seed=11), arr(3, 1, seed=12))),
    ("signs_and_constants", c.signs_and_constants, lambda: (arr(4, seed=13), pos(4, seed=14))),
    ("signs broadcast", c.signs_and_constants, lambda: (arr(2, 4, seed=13), pos(4, seed=14))),
    ("read_twice", c.read_twice, lambda: (arr(2, 3, seed=15),)),
    ("keepdims_twice", c.keepdims_twice, lambda: (arr(2, 3, seed=16),)),
    ("reduction_in_loop", c.reduction_in_loop, lambda: (arr(4, seed=17), 3)),
    ("reduction_in_branch +", c.reduction_in_branch, lambda: (pos(4, seed=18),)),
    ("reduction_in_branch -", c.reduction_in_branch, lambda: (-pos(4, seed=18),)),
    ("changed_in_place", c.changed_in_place, lambda: (arr(4, seed=19), 1.7)),
    ("filled_between", c.filled_between, lambda: (arr(3, seed=20), 0.7)),
    ("through_helper", c.through_helper, lambda: (arr(5, seed=21), arr(5, seed=22))),
    ("slice_reads", c.slice_reads, lambda: (arr(6, seed=23),)),
    ("where_and_maximum", c.where_and_maximum, lambda: (arr(6, seed=24),)),
    ("divide_chain", c.divide_chain, lambda: (arr(5, seed=25), (arr(5, seed=26) > 0) * 1.0)),
    ("scalar_param", c.scalar_param_times_array, lambda: (arr(3, 2, seed=27), 1.3)),
    ("written_rows", c.written_rows, lambda: (arr(3, 4, seed=28), arr(4, seed=29))),
    # a callee's NumPy-float result nobody reads: its pullback gets a real zero, which a spread meets
    ("result_unused", c.result_unused, lambda: (-0.575, -0.746, arr(3, seed=30))),
    ("closure_default_unused", c.closure_default_unused, lambda: (0.26, -0.32, arr(3, seed=31), arr(2, 3, seed=32))),
]


@pytest.mark.parametrize("fn, make", [(f, m) for _, f, m in CASES], ids=[n for n, _, _ in CASES])
def test_spread_cases(fn, make):
    args = make()
    wrt = tuple(i for i, a in enumerate(args) if not isinstance(a, int))
    check_derivatives(fn, *args)
    grads = mc.grad(fn, argnums=wrt)(*args)
    # gradients have the arguments' shapes: a spread scalar never leaks out as one
    for i, g in zip(wrt, grads):
        assert np.shape(g) == np.shape(args[i])


def _pullback(fn, *args):
    mc.grad(fn)(*args)
    text = mc.source(fn, "reverse")
    return text[text.index("__pullback("):]


def test_sum_adjoint_stays_a_scalar():
    """np.sum's adjoint is the scalar times the other factor: no np.full, no extra pass."""
    body = _pullback(c.sum_of_product, arr(5, seed=1), arr(5, seed=2))
    assert "np.full" not in body and "x_bar = out_bar * y" in body


def test_constants_fold_into_one_pass():
    """Rosenbrock: `g * 100.0 * (2.0 * a)` is `out_bar * 200.0 * a`; minus signs go into the constants."""
    body = _pullback(c.slice_reads, arr(6, seed=23))
    assert "out_bar * 200.0 * t" in body and "out_bar * -2.0 * t" in body
    assert "np.full" not in body and "-(" not in body


def test_double_negation_cancels():
    body = _pullback(c.divide_chain, arr(5, seed=25), (arr(5, seed=26) > 0) * 1.0)
    assert "-(-" not in body and "np.full" not in body


def test_spread_is_made_an_array_where_a_matrix_product_reads_it():
    body = _pullback(c.sum_of_matmul, arr(3, 4, seed=7), arr(4, 2, seed=8))
    assert "np.full(" in body  # (g @ B.T needs the array)


def test_product_read_twice_is_computed_once():
    body = _pullback(c.read_twice, arr(2, 3, seed=15))
    assert body.count("out_bar * x") <= 1


def test_no_sharing_across_an_in_place_change():
    """u * a before `u *= s` is not u * a after it: the pullback must not reuse the product."""
    check_derivatives(c.changed_in_place, arr(4, seed=30), -0.4)
    check_derivatives(c.filled_between, arr(4, seed=31), 1.9)
