"""Regressions of helper breadth10 (issue 12): itertools, filter, `yield from`, shuffles and permutations in
realistic functions (tests/breadth10_cases.py), first order in each mode (mc.testing.check_derivatives) and second
order (mc.hessian, mc.jacfwd(mc.grad(f)), mc.jacrev(mc.grad(f)) against central differences of mc.grad).

Before: every second order here was refused ("the forward derivative of pairwise comes from a hand-written rule";
"keyword arguments are not supported nested"), shuffle and permuted had no rule, accumulate over arrays was wrong
in reverse mode (rows[0]'s adjoint counted twice), and itertools.count failed in reverse mode."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import mooncake_ast as mc
import breadth10_cases as B

X6 = np.array([0.3, -0.7, 1.1, 0.45, -0.2, 0.8])
XP = np.array([0.3, 0.7, 1.1, 0.45, 0.2, 0.8])
XB = np.array([0.9, 0.4, -0.3, 1.3, -0.6, 0.55])

ALL = ["moving_average_pairwise", "pairwise_rows", "running_sum", "smoothed", "accumulate_rows", "accumulate_initial",
       "grid_energy", "pair_interactions", "product_of_arrays", "chained", "chained_rows", "every_other",
       "head_then_rest", "exhausted_then_chained", "starmapped", "padded_products", "padded_with_x", "repeated_scale",
       "selected", "positive_energy", "nonzero_cubes", "delegating_generators", "yield_from_slices", "shuffled_loss",
       "shuffled_rows", "global_shuffle", "permuted_columns"]
SPARSE = ["laplacian_energy", "stencil_constant", "weighted_graph", "features_from_x"]  # (first order: D @ x's rule
# has no derivative of its own, so their second orders are refused by name)
SECOND_MARKS: dict = {}  # (name -> marks; the second orders of typed loops over iterators pass since lazy2)


def _fd_jacobian(g, x, h=1e-5):
    return np.stack([(np.asarray(g(x + h * e)) - np.asarray(g(x - h * e))) / (2 * h) for e in np.eye(len(x))], -1)


@pytest.mark.parametrize("x", [X6, XB], ids=["x6", "xb"])
@pytest.mark.parametrize("mode", ["forward", "reverse"])
@pytest.mark.parametrize("name", ALL + SPARSE)
def test_first_order(name, mode, x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        mc.testing.check_derivatives(getattr(B, name), x.copy(), modes=(mode,))


def _second_params():
    out = []
    for name in ALL:
        for api in ("hessian", "jacfwd", "jacrev"):
            out.append(pytest.param(name, api, id=f"{name}-{api}", marks=SECOND_MARKS.get(name, [])))
    return out


@pytest.mark.parametrize("name, api", _second_params())
def test_second_order(name, api):
    f = getattr(B, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        x = X6.copy()
        ours = np.asarray(mc.hessian(f)(x) if api == "hessian" else getattr(mc, api)(mc.grad(f))(x))
        ref = _fd_jacobian(mc.grad(f), X6.copy())
    np.testing.assert_allclose(ours, ref, rtol=1e-4, atol=1e-4 * (1.0 + np.max(np.abs(ref))))


@pytest.mark.parametrize("x", [X6, XP])
def test_accumulate_rows_reverse_matches_forward(x):
    """accumulate over array rows yields rows[0] itself: its adjoint is counted once (it was twice)."""
    g = mc.grad(B.accumulate_rows)(x.copy())
    np.testing.assert_allclose(g, mc.jacfwd(B.accumulate_rows)(x.copy()), rtol=1e-10, atol=1e-12)


def test_shuffle_moves_the_argument_as_the_plain_call():
    """The shuffled array, the generator's state after the call, and the gradient, as the plain call leaves them."""
    x = X6.copy()
    g = mc.grad(B.shuffled_loss)(x)
    np.testing.assert_array_equal(x, X6)
    want = _fd_jacobian(lambda y: np.array([B.shuffled_loss(y)]), X6.copy())[0]
    np.testing.assert_allclose(g, want, rtol=1e-6, atol=1e-8)


def test_global_shuffle_leaves_the_global_state_as_the_plain_call():
    B.global_shuffle(X6.copy())
    after_plain = np.random.random()
    mc.grad(B.global_shuffle)(X6.copy())
    assert np.random.random() == after_plain


def test_sparse_conversion_dropping_a_differentiated_zero_refused():
    """`sps.csr_matrix(A)` stores A's nonzero entries only: an entry that is 0.0 here but differentiated (row 0 of
    outer(x, y) at x[0] = 0) has a derivative the CSR matrix cannot carry -- refused by name in both modes, never
    dropped."""
    import scipy.sparse as sps

    def f(x):
        return float(np.sum((sps.csr_matrix(np.outer(x[:3], x[3:])) @ x[3:]) ** 2))

    x = X6.copy()
    x[0] = 0.0
    with pytest.raises(mc.MooncakeError, match="conversion dropped"):
        mc.jvp(f, (x,), (np.ones(6),))
    with pytest.raises(mc.MooncakeError, match="conversion dropped"):
        mc.grad(f)(x)


def test_count_forward_and_refused_reverse():
    mc.testing.check_derivatives(B.count_numbered, X6.copy(), modes=("forward",))
    with pytest.raises(NotImplementedError, match="reverse mode of itertools.count.*enumerate"):
        mc.grad(B.count_numbered)(X6.copy())


def test_differentiated_count_refused_in_forward():
    import itertools

    def f(x):
        return sum(k * v for k, v in zip(itertools.count(x[0], 1.0), x))

    with pytest.raises(NotImplementedError, match="differentiated start or step"):
        mc.jvp(f, (X6.copy(),), (np.ones(6),))


def test_more_iterables_than_models_refused_by_name():
    import itertools

    def f(x):
        return sum(v * v for v in itertools.chain(x[:1], x[1:2], x[2:3], x[3:4], x[4:]))

    mc.testing.check_derivatives(f, X6.copy())
    with pytest.raises(mc.MooncakeError, match="itertools.chain: 5 positional arguments"):
        mc.hessian(f)(X6.copy())


def test_infinite_repeat_refused_at_second_order():
    import itertools

    def f(x):
        return sum(a * b for a, b in zip(x, itertools.repeat(x[0])))

    with pytest.raises(Exception, match="repeat"):
        mc.hessian(f)(X6.copy())
