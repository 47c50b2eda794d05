"""Issue 9: float arrays a loop hands from one trip to the next (`cur, nxt = nxt, cur`, or `nxt = np.empty_like(cur)`
each trip) get plain adjoint arrays moved back along the loop's phis (reverse/buffer_webs.py); shapes where two
names could hold one array stay on identity-keyed storage.  Every case is checked in both modes."""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives
from tests import loop_carried_buffer_cases as c

R = np.random.default_rng(14)
U = R.uniform(0.2, 0.9, size=6)
A = R.uniform(-0.5, 0.5, size=(4, 3))

PLAIN = [
    (c.jacobi_swap, (U, 3)),
    (c.jacobi_swap, (U, 0)),
    (c.jacobi_swap, (U, 1)),
    (c.jacobi_swap_loss, (U, 0.3, 4)),
    (c.jacobi_swap_loss, (U, 0.3, 0)),
    (c.fresh_each_trip, (U, 0.7, 3)),
    (c.fresh_each_trip, (U, 0.7, 0)),
    (c.rows_swapped, (A, 0.4, 3)),
    (c.rows_swapped, (A, 0.4, 2)),
    (c.three_way_rotation, (U, 4)),
    (c.three_way_rotation, (U, 2)),
    (c.while_swap, (U, 0.8)),
    (c.fresh_rows_each_trip, (A, 0.6, 3)),
    (c.fresh_rows_each_trip, (A.astype(np.float32), 0.6, 2)),
]
GUARDED = [
    (c.same_array_twice, (U, 3)),
    (c.conditional_swap, (U, 3)),
    (c.copied_into_other, (U, 3)),
    (c.start_read_after_loop, (U, 3)),
    (c.start_read_after_loop, (U, 0)),
    (c.inner_loop_last, (U, 2)),
    (c.early_exit, (U, 3)),
    (c.renamed_then_written, (U, 0.6)),
    (c.branch_then_counter, (U, 0.6)),
    (c.fresh_then_branch, (U, 0.6)),
]


def _ids(cases):
    return [f"{f.__name__}-{a[-1]}-{np.asarray(a[0]).dtype}" for f, a in cases]


@pytest.mark.parametrize("fn,args", PLAIN + GUARDED, ids=_ids(PLAIN + GUARDED))
def test_derivatives(fn, args):
    check_derivatives(fn, *args)


def _pullback(fn) -> str:
    src = mc.source(fn, "reverse")
    lines = [ln for ln in src.splitlines() if not ln.startswith("# mooncake_ast-")]
    text = "\n".join(lines)
    start = text.index(f"def {fn.__name__}__pullback(")
    end = text.find("\ndef ", start + 1)
    return text[start:] if end < 0 else text[start:end]


@pytest.mark.parametrize("fn,args", PLAIN, ids=_ids(PLAIN))
def test_plain_pullback(fn, args):
    mc.vjp(fn, *args)
    assert "_mc." not in _pullback(fn)


@pytest.mark.parametrize("fn,args", GUARDED[:4], ids=_ids(GUARDED[:4]))
def test_aliasing_shapes_keep_storage(fn, args):
    """Where two names may hold one array, the adjoint stays identity-keyed (a plain move would be wrong)."""
    mc.vjp(fn, *args)
    assert "_mc." in _pullback(fn)


@pytest.mark.parametrize("fn,args", [(c.jacobi_swap, (U, 3)), (c.rows_swapped, (A, 0.4, 3))])
def test_value_kept_and_pullback_repeatable(fn, args):
    """The pullback undoes the writes of the arrays it moves adjoints of; the value the caller holds stays as the
    forward pass left it, and a second pullback call gives the same answer."""
    value, pb = mc.vjp(fn, *args)
    seen = np.array(value, copy=True)
    g = np.ones_like(seen) if np.ndim(seen) else 1.0
    first = pb(g)
    assert np.array_equal(np.asarray(value), seen)
    second = pb(g)
    for a, b in zip(first, second):
        np.testing.assert_allclose(a, b)
