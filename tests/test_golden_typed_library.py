"""Golden reverse modules of array code whose types come from library calls and sizes (issue 9): norms along an
axis, `out=` updates of a copy, arrays made from an operand's sizes.  Each pullback has no run-time helper left."""
import numpy as np
import pytest

import mooncake_ast as mc
from tests import golden_functions as g
from tests.test_golden import _body, _compare


def _calls():
    r = np.random.default_rng(3)
    return {
        g.triplet_margin_loss: (r.normal(size=(4, 3)), r.normal(size=(4, 3)), r.normal(size=(4, 3)), 0.2),
        g.scaled_in_place: (r.normal(size=4), r.normal(size=4)),
        g.sized_builders: (r.normal(size=5),),
    }


FUNCTIONS = [g.triplet_margin_loss, g.scaled_in_place, g.sized_builders]


@pytest.mark.parametrize("fn", FUNCTIONS, ids=[f.__name__ for f in FUNCTIONS])
def test_library_typed_reverse_source(fn):
    args = _calls()[fn]
    mc.grad(fn, argnums=tuple(range(len(args))))(*args)
    source = _body(mc.source(fn, "reverse"))
    _compare(f"{fn.__name__}.reverse.py.txt", source)
    pullback = source.split("__pullback(", 1)[1].split("\n\n\n", 1)[0]
    assert "_mc." not in pullback, pullback


@pytest.mark.parametrize("fn", FUNCTIONS, ids=[f.__name__ for f in FUNCTIONS])
def test_library_typed_gradients(fn):
    mc.testing.check_derivatives(fn, *_calls()[fn])
