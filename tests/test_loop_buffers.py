"""Issue 9: an array made and written element by element within one trip of a loop gets a plain adjoint buffer,
made afresh where the pullback undoes the trip (reverse/buffers.py); arrays kept past the trip, read in another
block or filled on some paths only stay right."""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives
from tests import loop_buffer_cases as c

R = np.random.default_rng(31)
X = R.uniform(0.1, 0.9, size=6)

CASES = [
    (c.stencil, (X, 0.2)),
    (c.filled_rows, (X, 0.7)),
    (c.slot_read_back, (X, 0.7)),
    (c.kept_past_trip, (X, 0.7)),
    (c.read_in_next_block, (X, 0.7)),
    (c.conditional_fill, (X, 0.7)),
]


@pytest.mark.parametrize("fn,args", CASES, ids=[f.__name__ for f, _ in CASES])
def test_loop_buffers(fn, args):
    check_derivatives(fn, *args)


@pytest.mark.parametrize("fn", [c.stencil, c.slot_read_back])
def test_loop_buffer_is_plain(fn):
    mc.grad(fn, argnums=(0, 1))(X, 0.3)
    src = mc.source(fn, "reverse")
    pullback = src[src.index("def "):]
    assert "_mc.acc(" not in pullback and "_mc.take(" not in pullback and "setitem_reverse" not in pullback
