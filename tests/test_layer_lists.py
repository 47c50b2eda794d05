"""Issue 9: a list of (weights, bias) tuples the function only reads (`for W, b in params`) has a plain adjoint:
zeros of its layout, and each item's parts' adjoints handed back as a tuple (reverse/layer_lists.py); near
misses (an item handed on, a part written or viewed, the list reversed, tied weights) stay right."""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.reverse.runtime import kinds_of
from mooncake_ast.testing import check_derivatives
from tests import layer_list_cases as c

R = np.random.default_rng(8)
PARAMS = [(R.normal(size=(3, 4)) / 2, R.normal(size=4)), (R.normal(size=(4, 2)) / 2, R.normal(size=2))]
SQUARE = [(R.normal(size=(3, 3)) / 2, R.normal(size=3)) for _ in range(3)]
SCALED = [(W, b, 0.5 + k) for k, (W, b) in enumerate(PARAMS)]
X = R.normal(size=3)

CASES = [
    (c.mlp, (PARAMS, X)),
    (c.by_index, (PARAMS, X)),
    (c.enumerated, (SQUARE, X)),
    (c.with_scale, (SCALED, X)),
    (c.two_passes, (PARAMS, X)),
    (c.item_handed_on, (PARAMS, X)),
    (c.part_written, (PARAMS, X)),
    (c.part_viewed, (PARAMS, X)),
    (c.reversed_layers, (SQUARE, X)),
    (c.tied, ([(SQUARE[0][0], SQUARE[0][1]), (SQUARE[0][0], SQUARE[1][1])], X)),
]


@pytest.mark.parametrize("fn,args", CASES, ids=[f"{f.__name__}{k}" for k, (f, _) in enumerate(CASES)])
def test_lists_of_layers(fn, args):
    check_derivatives(fn, *args)


@pytest.mark.parametrize("fn,args", CASES[:5], ids=[f.__name__ for f, _ in CASES[:5]])
def test_layer_adjoints_are_plain(fn, args):
    mc.vjp(fn, *args)
    src = mc.source(fn, "reverse")
    assert "_mc.add_layer_adjoint(params_bar" in src or "_mc.add_layer_adjoint(layers_bar" in src
    assert "getitem_reverse" not in src and "_mc.take(" not in src


def test_layouts():
    assert kinds_of((PARAMS, X))[0] == "any:list:tuple:f.nn;f.n"
    assert kinds_of(([(PARAMS[0][0], PARAMS[0][1]), (np.ones((4, 1)), np.ones(1))],))[0] == "any:list:tuple:f.n?;f.?"
    assert kinds_of((SCALED,))[0] == "any:list:tuple:f.nn;f.n;num"
    assert kinds_of(([(PARAMS[0][0], PARAMS[0][1]), (PARAMS[0][0], PARAMS[1][1])],))[0] == "any"  # (tied)
    assert kinds_of(([(PARAMS[0][0], PARAMS[0][1]), (PARAMS[1][1], PARAMS[1][1])],))[0] == "any"  # (ranks differ)
