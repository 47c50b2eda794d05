"""Issue 9: a list of float arrays the function only reads (`for W in Ws`, `Ws[i]`) has a plain adjoint: a zero
array like each item, and each read's adjoint added into its slot (`Ws_bar[i] += W_bar`, reverse/typed_lists.py);
near misses (an item written or viewed, handed on, the list written, reduced whole, an item returned) keep
identity-keyed storage, and every derivative stays right."""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.reverse.runtime import kinds_of
from mooncake_ast.testing import check_derivatives
from tests import array_list_cases as c

R = np.random.default_rng(11)
SQUARE = [R.normal(size=(3, 3)) / 2 for _ in range(3)]
BIASES = [R.normal(size=3) for _ in range(3)]
VECS = [R.normal(size=3) for _ in range(4)]
X = R.normal(size=3)

TYPED = [
    (c.chain, (SQUARE, X)),
    (c.by_index, (SQUARE, BIASES, X)),
    (c.last_and_first, (SQUARE, X)),
    (c.read_twice, (VECS, X)),
    (c.enumerated, (VECS, X)),
    (c.zipped, (SQUARE, BIASES, X)),
    (c.reversed_walk, (SQUARE, X)),
    (c.branchy, (VECS, 0.1)),
]
UNUSED = [(c.unused_chain, (SQUARE, X))]  # (random programs, seed 10600: the items' adjoints are the symbolic zero)
NEAR_MISSES = [
    (c.item_written, (VECS,)),
    (c.item_viewed_and_written, (SQUARE,)),
    (c.handed_on, (VECS, X)),
    (c.list_written, (VECS, X)),
    (c.summed, (VECS,)),
    (c.stacked, (VECS,)),
    (c.returned_item, (VECS, X)),
    (c.item_row_read, (SQUARE, X)),
    (c.chain, ([SQUARE[0], SQUARE[0]], X)),  # (one array twice: one adjoint, kept by storage)
    (c.chain, ([SQUARE[0], SQUARE[1][:, :]], SQUARE[1][0])),  # (an argument views an item)
]


def _copy(args):
    return tuple([a.copy() for a in x] if isinstance(x, list) else x for x in args)


@pytest.mark.parametrize("fn,args", TYPED + NEAR_MISSES + UNUSED,
                         ids=[f"{f.__name__}{k}" for k, (f, _) in enumerate(TYPED + NEAR_MISSES + UNUSED)])
def test_lists_of_arrays(fn, args):
    check_derivatives(fn, *_copy(args) if fn in (c.item_written, c.item_viewed_and_written, c.list_written) else args)


@pytest.mark.parametrize("fn,args", TYPED, ids=[f.__name__ for f, _ in TYPED])
def test_list_adjoints_are_plain(fn, args):
    mc.vjp(fn, *args)
    src = mc.source(fn, "reverse")
    assert "_mc.zero_arrays(" in src
    assert "getitem_reverse" not in src and "_mc.take(" not in src and "_mc.acc(" not in src


def test_list_of_arrays_gradient_is_a_list():
    g = mc.grad(c.by_index, argnums=(0, 1))(SQUARE, BIASES, X)
    assert type(g[0]) is list and len(g[0]) == 3 and all(gi.shape == (3, 3) for gi in g[0])
    assert type(g[1]) is list and all(gi.shape == (3,) for gi in g[1])


def test_layouts():
    assert kinds_of((SQUARE, X))[0] == "any:list:arr:f.nn"
    assert kinds_of(([np.ones((3, 1)), np.ones((3, 2))],))[0] == "any:list:arr:f.n?"
    assert kinds_of(([SQUARE[0], SQUARE[0]],))[0] == "any"  # (one array twice)
    assert kinds_of(([np.ones(3), np.ones((3, 3))],))[0] == "any"  # (ranks differ)
    assert kinds_of(([np.ones(3, dtype=int)],))[0] == "any"
    assert kinds_of((SQUARE, SQUARE[1]))[0] == "any"  # (an argument is an item)
