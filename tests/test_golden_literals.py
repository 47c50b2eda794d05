"""Golden reverse modules of code whose types come from literals (issue 9), and the gradients those types give.

`labels = [2, 0]` read as `logits[rows, labels]`, `m[:, 0]`, `np.outer(x, [1.0, -0.5, 0.3])`: typed, their pullbacks
are plain NumPy (`np.add.at` for an int-array read, `W_bar @ t`); each family is checked in both modes too.
"""
import numpy as np
import pytest

import mooncake_ast as mc
from tests import golden_functions as g
from tests.test_golden import _body, _compare


def test_softmax_labels_loss_reverse_source():
    mc.grad(g.softmax_labels_loss)(np.array([0.3, -0.7, 1.1, 0.4]))
    source = _body(mc.source(g.softmax_labels_loss, "reverse"))
    _compare("softmax_labels_loss.reverse.py.txt", source)
    pullback = source.split("__pullback", 1)[1].split("\n\n\n", 1)[0]
    assert "getitem_reverse" not in pullback and "outer_adjoint" not in pullback and "_mc.take" not in pullback


def gather_pairs(x):
    """An int-array read whose positions repeat (rows and columns from a range and a literal list)."""
    M = np.outer(x, x[::-1])
    return np.sum(M[np.arange(3), [1, 1, 0]] ** 2) + np.sum(M[:, 0] * x)


def gather_literal_rows(x):
    M = np.outer(x, [2.0, -1.0])
    idx = [0, 2, 0]
    return np.sum(np.tanh(M[idx]) * M[:, 1][idx][:, None])


def labels_with_negatives(x):
    logits = np.outer([1.0, 0.5, -0.3], x)
    return np.sum(logits[np.arange(3), [-1, 0, -1]] * logits[:, -1])


def outer_both_ways(a, b):
    return np.sum(np.outer(a, b) ** 2) + np.sum(np.outer([0.5, -1.5], a) * np.outer(b, [1.0, 2.0, 3.0]).T[:2, :len(a)])


def top_rows(x):
    """An index from np.argsort, through two views: copies read by np.add.at's pullback."""
    M = np.outer(x, [1.0, -2.0, 0.5])
    idx = np.argsort(x)[::-1][:2]
    return np.sum(np.sin(M[idx]) * M[idx, 0][:, None])


def index_written_after_read(x):
    """The index array is written after the read (and through a view of it): the pullback must read it as it was."""
    M = np.outer(x, x)
    idx = np.array([0, 2, 2])
    first = np.sum(M[idx] ** 2)
    head = idx[:2]
    head[0] = 1
    return first + np.sum(np.cos(M[idx]))


def sorted_positions_written(x):
    order = np.argsort(x)
    top = order[::-1][:2]
    value = np.sum(np.outer(x, [1.0, 3.0])[top] ** 2)
    order[-1] = 0
    return value + np.sum(np.outer(x, [1.0, 3.0])[top])


FAMILY = [
    (top_rows, lambda r: (r.normal(size=4),)),
    (index_written_after_read, lambda r: (r.normal(size=3),)),
    (sorted_positions_written, lambda r: (r.normal(size=4),)),
    (g.softmax_labels_loss, lambda r: (r.normal(size=4),)),
    (gather_pairs, lambda r: (r.normal(size=3),)),
    (gather_literal_rows, lambda r: (r.normal(size=3),)),
    (labels_with_negatives, lambda r: (r.normal(size=4),)),
    (outer_both_ways, lambda r: (r.normal(size=3), r.normal(size=3))),
]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("fn,args", FAMILY, ids=[f.__name__ for f, _ in FAMILY])
def test_literal_typed_gradients(fn, args, seed):
    mc.testing.check_derivatives(fn, *args(np.random.default_rng(seed)))


@pytest.mark.parametrize("fn", [gather_pairs, labels_with_negatives, outer_both_ways, top_rows])
def test_literal_typed_pullbacks_are_plain(fn):
    args = dict(FAMILY)[fn](np.random.default_rng(0))
    mc.grad(fn, argnums=tuple(range(len(args))))(*args)
    pullback = mc.source(fn, "reverse").split("__pullback", 1)[1].split("\n\n\n", 1)[0]
    assert "getitem_reverse" not in pullback and "outer_adjoint" not in pullback, pullback


def mask_written_after_read(x):
    """A mask read, then changed (through the generic read's path: M is read item by item nowhere else)."""
    M = np.outer(x, [1.0, 2.0])
    mask = M > 0.0
    picked = np.sum(M[mask] ** 2)
    mask[0, 0] = not mask[0, 0]
    return picked + np.sum(np.where(mask, M, 0.0))


def mask_flipped_same_count(x):
    """The mask changed after the read but keeps its count: a pullback reading it late would be silently wrong."""
    M = np.outer(x, [1.0, -1.0])
    mask = np.array([[True, False], [False, True], [True, False]])
    picked = np.sum(np.sin(M[mask]))
    mask[0] = [False, True]
    return picked + np.sum(M[mask])


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("fn", [mask_written_after_read, mask_flipped_same_count])
def test_masks_written_after_the_read(fn, seed):
    mc.testing.check_derivatives(fn, np.random.default_rng(seed).normal(size=3))
