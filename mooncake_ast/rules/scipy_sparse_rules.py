"""A scipy.sparse matrix (or sparse array) times a dense vector or matrix, both modes; registered once the user's
code has imported scipy.sparse (registry._LAZY_TABLES).

`D @ x`, `x @ D` and `D.dot(x)` are bilinear in the dense operand and the matrix's stored values (`D.data`): the
tangent is `D @ dx + dD @ x`, where dD has D's sparsity and the tangent of D.data as its values, and the adjoint of
x is `D^T @ g`, that of the stored value at (r, c) is `g[r] x[c]` (summed over the columns of a dense matrix x).  D is
then a plain object to the transforms (its adjoint is its fields', `data` here), so a matrix made from the input
(`sps.diags(x)`) is followed like one made from constants.  Without these rules the transforms differentiated
SciPy's own Python code, which ends in compiled kernels (`_sparsetools.dia_matvec`: reverse mode failed) and writes
private caches (`_upcast_memo`: forward mode refused).  Formats: CSR, CSC, COO and DIA (their stored values' rows
and columns are known); a derivative through another format's values (BSR, LIL, DOK) is refused.
"""
from __future__ import annotations

import numpy as np

from ..tangents import MutableTangent, NoTangent, Tangent
from .numpy_common import _no_adjoint


def _entry_positions(D):
    """The row and column of each stored value, in the layout of D.data (flattened), and a mask of the stored values
    inside the matrix (DIA pads its diagonals), or None for a format whose layout is not known here."""
    fmt = getattr(D, "format", None)
    n_rows, n_cols = D.shape
    if fmt in ("csr", "csc"):
        outer = np.repeat(np.arange(len(D.indptr) - 1), np.diff(D.indptr))
        rows, cols = (outer, D.indices) if fmt == "csr" else (D.indices, outer)
        return rows, cols, None
    if fmt == "coo":
        return D.row, D.col, None
    if fmt == "dia":
        cols = np.broadcast_to(np.arange(D.data.shape[1]), D.data.shape)
        rows = cols - np.asarray(D.offsets)[:, None]
        inside = (rows >= 0) & (rows < n_rows) & (cols < n_cols)
        return np.where(inside, rows, 0).ravel(), np.where(inside, cols, 0).ravel(), inside.ravel()
    return None


def _refuse_format(D):
    raise NotImplementedError(f"the derivative with respect to the stored values of a scipy.sparse matrix in the "
                              f"{getattr(D, 'format', type(D).__name__)!r} format is not supported: convert it "
                              f"with .tocsr() first")


def _with_values(D, values):
    """D's sparsity with other stored values (the tangent of D as a matrix)."""
    out = D.copy()
    out.data = np.asarray(values, dtype=np.result_type(D.data.dtype, np.asarray(values).dtype)).reshape(D.data.shape)
    return out


def _data_tangent(dD):
    """The tangent of D.data inside D's tangent (its fields' tangents), or None where it is zero."""
    if isinstance(dD, (MutableTangent, Tangent)):
        d = dD.fields.get("data", NoTangent)
        if d is not NoTangent and d is not None and np.any(np.asarray(d) != 0):
            return d
    return None


def sparse_times_tangent(D, x, dD, dx):
    """Tangent of D @ x: D @ dx + dD @ x."""
    out = None if dx is NoTangent or dx is None else np.asarray(D @ dx)
    dd = _data_tangent(dD)
    if dd is not None:
        if _entry_positions(D) is None:
            _refuse_format(D)
        more = np.asarray(_with_values(D, dd) @ x)
        out = more if out is None else out + more
    return NoTangent if out is None else out


def times_sparse_tangent(x, D, dx, dD):
    """Tangent of x @ D: dx @ D + x @ dD."""
    out = None if dx is NoTangent or dx is None else np.asarray(D.T @ np.asarray(dx).T).T
    dd = _data_tangent(dD)
    if dd is not None:
        if _entry_positions(D) is None:
            _refuse_format(D)
        more = np.asarray(_with_values(D, dd).T @ np.asarray(x).T).T
        out = more if out is None else out + more
    return NoTangent if out is None else out


def sparse_times_adjoint(g, D, x):
    """The adjoint of x in y = D @ x: D^T @ g, shaped like x."""
    if _no_adjoint(g):
        return NoTangent
    return np.asarray(D.T @ np.asarray(g)).reshape(np.shape(x))


def times_sparse_adjoint(g, D, x):
    """The adjoint of x in y = x @ D: g @ D^T, shaped like x."""
    if _no_adjoint(g):
        return NoTangent
    return np.asarray(D @ np.asarray(g).T).T.reshape(np.shape(x))


def _values_adjoint(D, left, right):
    """The adjoint of D's stored values where y = left-side @ D @ right-side is read: left[r] * right[c] per stored
    value (summed over the columns of matrices), as D's fields' adjoint (a MutableTangent of `data`)."""
    found = _entry_positions(D)
    if found is None:
        _refuse_format(D)
    rows, cols, inside = found
    left, right = np.asarray(left), np.asarray(right)
    part = left[rows] * right[cols]
    if part.ndim > 1:
        part = part.sum(axis=tuple(range(1, part.ndim)))
    if inside is not None:
        part = np.where(inside, part, 0.0)
    return MutableTangent({"data": part.reshape(D.data.shape)})


def sparse_times_matrix_adjoint(g, D, x):
    """The adjoint of D (its stored values) in y = D @ x: g[r] x[c]."""
    if _no_adjoint(g):
        return NoTangent
    return _values_adjoint(D, np.asarray(g), np.asarray(x))


def times_sparse_matrix_adjoint(g, D, x):
    """The adjoint of D (its stored values) in y = x @ D: x[..., r] g[..., c]."""
    if _no_adjoint(g):
        return NoTangent
    return _values_adjoint(D, np.asarray(x).T, np.asarray(g).T)


def _base():
    import scipy.sparse

    return scipy.sparse._base._spbase


def register() -> None:
    """Register the rules (registry.lookup calls this once scipy.sparse is imported)."""
    from .registry import defjvp, defmethod, defvjp, defvjp_method

    spbase = _base()

    def right(t, y, D, x):  # D @ x
        if t.d(D) is None and t.d(x) is None:
            return None
        return t.call(sparse_times_tangent, D, x, t.dz(D), t.dz(x))

    def left(t, y, D, x):  # x @ D (D.__rmatmul__(x))
        if t.d(D) is None and t.d(x) is None:
            return None
        return t.call(times_sparse_tangent, x, D, t.dz(x), t.dz(D))

    def right_adjoint(t, g, y, D, x):
        return t.call(sparse_times_matrix_adjoint, g, D, x), t.call(sparse_times_adjoint, g, D, x)

    def left_adjoint(t, g, y, D, x):
        return t.call(times_sparse_matrix_adjoint, g, D, x), t.call(times_sparse_adjoint, g, D, x)

    for name, jvp, vjp in (("__matmul__", right, right_adjoint), ("dot", right, right_adjoint),
                           ("__rmatmul__", left, left_adjoint)):
        if name.startswith("__"):  # (`D @ x`: the operator calls the class's function with (D, x))
            defjvp(getattr(spbase, name), jvp)
            defvjp(getattr(spbase, name), vjp)
        else:  # (D.dot(x): the bound method)
            defmethod(spbase, name, jvp)
            defvjp_method(spbase, name, vjp)
