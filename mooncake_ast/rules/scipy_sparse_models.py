"""Plain-NumPy models of `D @ x` for a scipy.sparse matrix D and a dense x, for derivatives of derivatives.

The first-order rules of `D @ x`, `x @ D` and `D.dot(x)` (scipy_sparse_rules.py) are hand-written: run when the call
runs, they have no derivative of their own, so a Hessian through them was refused ("the forward derivative of
_spbase.__matmul__ comes from a hand-written rule").  Here each product is written as ordinary NumPy over the
matrix's stored values, `D.data` (a field of D: its tangent and adjoint are D's), and their rows and columns (ints,
no derivative: `stored_positions` is registered as such), which mooncake_ast differentiates like the user's code,
at any order.  api_rules._plan asks `model_for` for the model standing for a call at the second order and beyond.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np


def stored_positions(D):
    """(rows, cols, flat indices into D.data raveled) of D's stored values inside the matrix: ints, no derivative."""
    from .scipy_sparse_ops import _layout

    return _layout(D)


def _product(D, x):
    rows, cols, flat = stored_positions(D)
    vals = D.data.ravel()[flat]
    n = D.shape[0]
    x = np.asarray(x)
    if x.ndim == 1:
        return np.bincount(rows, weights=vals * x[cols], minlength=n)
    return np.stack([np.bincount(rows, weights=vals * x[cols, j], minlength=n) for j in range(x.shape[1])], axis=1)


def sparse_matmul_model(D, x):
    """D @ x for a sparse D and a dense 1-D or 2-D x."""
    return _product(D, x)


def sparse_rmatmul_model(D, x):
    """x @ D (D.__rmatmul__(x)) for a sparse D and a dense 1-D or 2-D x: (D^T @ x^T)^T."""
    rows, cols, flat = stored_positions(D)
    vals = D.data.ravel()[flat]
    m = D.shape[1]
    x = np.asarray(x)
    if x.ndim == 1:
        return np.bincount(cols, weights=vals * x[rows], minlength=m)
    return np.stack([np.bincount(cols, weights=vals * x[j, rows], minlength=m) for j in range(x.shape[0])], axis=0)


def model_for(f: Any, args: tuple, kwargs: Any) -> Optional[Any]:
    """The model standing for `f(*args)` where f is a sparse matrix's product with a dense 1-D or 2-D array, else
    None (the caller goes on as before: refused by name)."""
    import sys

    if kwargs or len(args) != 2 or "scipy.sparse" not in sys.modules:
        return None
    import scipy.sparse as sps

    base = sps._base._spbase
    D, x = args
    if not sps.issparse(D) or not isinstance(x, np.ndarray) or x.ndim not in (1, 2) or x.dtype.kind == "c":
        return None
    known = getattr(D, "format", None) in ("csr", "csc", "coo", "dia", "bsr")
    if not hasattr(D, "data") or not known or np.iscomplexobj(D.data):
        return None
    if f is base.__matmul__ or f is getattr(base, "dot", None):
        return sparse_matmul_model
    if f is base.__rmatmul__:
        return sparse_rmatmul_model
    return None


def register() -> None:
    from .registry import defzero

    defzero(stored_positions)
