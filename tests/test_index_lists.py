"""Arrays indexed by a list display of int literals (`B[[0, 2]] = B[[2, 0]]`): plain adjoint arrays.

ir/types.getitem_type types `x[[2, 0]]` (NumPy reads the list as an int array: the rows listed, a copy), and
reverse/buffers.py keeps the array's adjoint a plain array: a read adds back with `np.add.at` (a position may
repeat), a write by distinct positions (`distinct_positions`) is undone like a mask's.  Repeated or mixed-sign
positions in a write keep the generic path.  All checked in both modes by finite differences.
"""
from __future__ import annotations

import numpy as np
import pytest

import mooncake_ast as mc


def swap_rows(A):
    B = A.copy()
    B[[0, 2]] = B[[2, 0]]
    w = np.arange(1.0, B.shape[0] + 1)
    return float(w @ B @ np.ones(B.shape[1]) + np.sum(B[0] * A[0]))


def gather_repeated(x, s):
    y = x[[1, 1, 0]] * s
    return float(np.sum(y * y) + np.sum(x[[0]]) * s)


def write_rows_from_values(x, s):
    y = np.zeros_like(x)
    y[[0, 2]] = x[[1, 0]] * s
    y[[-1]] = s * 2.0  # (a number broadcast into the row)
    return float(np.sum(np.tanh(y) * x))


def write_repeated(x, s):
    y = x.copy()
    y[[1, 1]] = x[[0, 2]] * s  # (NumPy keeps the last write: the generic path)
    return float(np.sum(y ** 2))


def write_mixed_signs(x, s):
    y = x * 1.0
    y[[0, -1]] = y[[1, 2]] * s  # (0 and -1: one row for a one-row array; the generic path)
    return float(np.sum(y * x))


_FAMILIES = [swap_rows, gather_repeated, write_rows_from_values, write_repeated, write_mixed_signs]
_SHAPES = [(4,), (4, 3), (5, 2)]


@pytest.mark.parametrize("shape", _SHAPES, ids=["n", "n3", "n2"])
@pytest.mark.parametrize("fn", _FAMILIES, ids=[f.__name__ for f in _FAMILIES])
def test_both_modes(fn, shape):
    x = np.random.default_rng(len(shape) * 10 + shape[0]).normal(size=shape)
    if fn is swap_rows:
        if len(shape) == 1:
            pytest.skip("swap_rows needs rows")
        mc.testing.check_derivatives(fn, x)
    else:
        mc.testing.check_derivatives(fn, x, 0.7)


def test_swap_rows_pullback_is_plain():
    mc.grad(swap_rows)(np.random.default_rng(0).normal(size=(4, 3)))
    src = mc.source(swap_rows, "reverse")
    pullback = src[src.index("def swap_rows__pullback"):]
    pullback = pullback[:pullback.find("def swap_rows__forward_tape")] if "forward_tape" in pullback else pullback
    assert "_mc." not in pullback, pullback
    assert "np.add.at(B_bar, " in pullback
