"""Issue 9: an array a loop updates in place (`u += alpha * lap`) is differentiated as `u = u + alpha * lap` when
nothing can tell the two apart (reverse/carried_inplace.py), and slices of arrays nothing writes are plain reads
(reverse/view_reads.py); the near misses (the array of one trip kept, aliased, viewed across the update, updated
in a branch, a parameter updated, views written) stay right."""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives
from tests import carried_inplace_cases as c

R = np.random.default_rng(21)
U = R.uniform(0.2, 0.8, size=7)

CASES = [
    (c.heat, (U, 0.2)),
    (c.reflect, (U, 0.1)),
    (c.shifts, (U, 0.7)),
    (c.gradient_steps, (U, 0.1)),
    (c.while_norm, (U, 0.6)),
    (c.history_kept, (U, 0.3)),
    (c.alias_before_loop, (U, 0.3)),
    (c.view_kept_across_update, (U, 0.3)),
    (c.update_in_branch, (U, 0.3)),
    (c.break_after_update, (U, 0.3)),
    (c.parameter_updated, (U, 0.3)),
    (c.nested_reset, (U, 0.2)),
    (c.slice_written_later, (U, 0.5)),
    (c.view_written, (U, 0.5)),
    (c.view_of_view, (U, 0.5)),
    (c.self_view_unused, (U, 0.5)),  # (random programs, seed 10500: the update's adjoint is the symbolic zero)
    (c.self_view_used, (U, 0.5)),
]


@pytest.mark.parametrize("fn,args", CASES, ids=[f.__name__ for f, _ in CASES])
def test_carried_updates(fn, args):
    check_derivatives(fn, *[a.copy() if isinstance(a, np.ndarray) else a for a in args])


@pytest.mark.parametrize("fn", [c.reflect, c.gradient_steps, c.nested_reset])
def test_carried_update_is_plain(fn):
    mc.grad(fn, argnums=(0, 1))(U.copy(), 0.2)
    src = mc.source(fn, "reverse")
    pullback = src[src.index("def "):]
    assert "_mc.acc(" not in pullback and "_mc.take(" not in pullback and "inplace_reverse" not in pullback
    assert "getitem_reverse" not in pullback
