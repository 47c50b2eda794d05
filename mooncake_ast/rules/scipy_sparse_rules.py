"""A scipy.sparse matrix (or sparse array) times a dense vector or matrix, both modes; registered once the user's
code has imported scipy.sparse (registry._LAZY_TABLES).

`D @ x`, `x @ D` and `D.dot(x)` are bilinear in the dense operand and the matrix's stored values (`D.data`): the
tangent is `D @ dx + dD @ x`, where dD has D's sparsity and the tangent of D.data as its values, and the adjoint of
x is `D^T @ g`, that of the stored value at (r, c) is `g[r] x[c]` (summed over the columns of a dense matrix x).  D is
then a plain object to the transforms (its adjoint is its fields', `data` here), so a matrix made from the input
(`sps.diags(x)`) is followed like one made from constants.  Without these rules the transforms differentiated
SciPy's own Python code, which ends in compiled kernels (`_sparsetools.dia_matvec`: reverse mode failed) and writes
private caches (`_upcast_memo`: forward mode refused).  Formats: CSR, CSC, COO, DIA and BSR (their stored values'
rows and columns are known); a derivative through another format's values (LIL, DOK) is refused.
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
    if fmt == "bsr":  # (blocks of R x C values: data[k, i, j] at (block row * R + i, block column * C + j))
        R, C = D.blocksize
        block_rows = np.repeat(np.arange(len(D.indptr) - 1), np.diff(D.indptr))
        rows = block_rows[:, None, None] * R + np.arange(R)[None, :, None] + 0 * np.arange(C)[None, None, :]
        cols = np.asarray(D.indices)[:, None, None] * C + np.arange(C)[None, None, :] + 0 * np.arange(R)[None, :, None]
        return rows.ravel(), cols.ravel(), None
    if fmt == "dia":
        cols = np.broadcast_to(np.arange(D.data.shape[1]), D.data.shape)
        rows = cols - np.asarray(D.offsets)[:, None]
        inside = (rows >= 0) & (rows < n_rows) & (cols < n_cols)
        return np.where(inside, rows, 0).ravel(), np.where(inside, cols, 0).ravel(), inside.ravel()
    return None


def _sparse(x):
    return hasattr(x, "format") and hasattr(x, "tocoo") and hasattr(x, "data") and not isinstance(x, np.ndarray)


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


def stored_values_adjoint(g, y):
    """The adjoint of the sparse matrix y's stored values (shaped like y.data) from y's adjoint: its `data` field's,
    or, where code that took y for a dense matrix gave a dense adjoint (one entry per row and column), the entries
    at the stored positions.  Anything else is refused: read as zero it would be a silently wrong derivative."""
    if _no_adjoint(g):
        return NoTangent
    if isinstance(g, (MutableTangent, Tangent)):
        return g.fields.get("data", NoTangent)
    if np.ndim(g) == 2 and np.shape(g) == tuple(y.shape):
        found = _entry_positions(y)
        if found is None:
            _refuse_format(y)
        rows, cols, inside = found
        part = np.asarray(g)[rows, cols]
        if inside is not None:
            part = np.where(inside, part, 0.0)
        return part.reshape(np.shape(y.data))
    raise NotImplementedError(f"reverse mode: the adjoint of a scipy.sparse matrix came as a {type(g).__name__}, "
                              f"which is not the adjoint of its stored values")


def sparse_times_tangent(D, x, dD, dx):
    """Tangent of D @ x: D @ dx + dD @ x."""
    if _sparse(x):  # (a product of two sparse matrices: scipy_sparse_ops)
        from .scipy_sparse_products import product_tangent

        return product_tangent(D, x, D @ x, dD, dx)
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
    if _sparse(x):
        from .scipy_sparse_products import product_adjoints

        return product_adjoints(D, x, D @ x, g)[1]
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
    if _sparse(x):
        from .scipy_sparse_products import product_adjoints

        return product_adjoints(D, x, D @ x, g)[0]
    return _values_adjoint(D, np.asarray(g), np.asarray(x))


def times_sparse_matrix_adjoint(g, D, x):
    """The adjoint of D (its stored values) in y = x @ D: x[..., r] g[..., c]."""
    if _no_adjoint(g):
        return NoTangent
    return _values_adjoint(D, np.asarray(x).T, np.asarray(g).T)


# ---------------------------------------------------------------- conversions and construction
# `D.tocsr()` (tocsc, tocoo) and `sps.csr_matrix(A)` (csc_matrix, csr_array, csc_array) of a dense array, another
# sparse matrix, or (data, indices, indptr) / (data, (row, col)): the result's stored values are sums of the
# operand's, at the same (row, column); which go where is found from the two layouts (SciPy decides: duplicates
# summed, DIA's padding and zeros dropped).  Linear: the tangent of stored value j is the sum of the tangents of the
# operand's values at its position; the adjoint of an operand value is that of the stored value at its position.
# Without these rules both modes traced SciPy into compiled conversion kernels (`_sparsetools.dia_tocsr`,
# `coo_tocsr`): refused in reverse mode.  A value the conversion drops (a stored zero) has a derivative the result
# cannot carry: refused in forward mode where its tangent is not zero, and in reverse mode an adjoint that refuses
# any use (scipy_special_more.RefusedAdjoint: discarded unread where the operand is a constant).

_DROPPED = ("a value the conversion dropped (a stored zero, or a zero entry of a dense array) has a derivative that "
            "the sparse result cannot carry; keep the matrix's sparsity fixed (build it from (data, (row, col))) so "
            "that every differentiated entry is stored, and make a constant matrix's array outside the function (a "
            "module-level array)")


def _keys(rows, cols, n_cols):
    return np.asarray(rows, dtype=np.int64) * int(n_cols) + np.asarray(cols, dtype=np.int64)


def _slot_map(src_rows, src_cols, keep, y):
    """For each operand value (flat), the index into y.data where it lands, or -1 where it is dropped or padding."""
    from .scipy_sparse_ops import _slots  # (the same lookup as the other operations': refused where y stores twice)

    slots = _slots(y, src_rows, src_cols)
    if keep is not None:
        slots = np.where(keep, slots, -2)  # (padding: not a value of the matrix)
    return slots


def _operand_layout(x, fmt):
    """(rows, cols, keep, how to read the operand's values tangent/adjoint) of a conversion's operand: a sparse matrix,
    a dense 2-D array, (data, indices, indptr) in the result's format, or (data, (row, col)); None if not known."""
    if hasattr(x, "format") and hasattr(x, "data") and hasattr(x, "shape"):
        found = _entry_positions(x)
        return None if found is None else (found[0], found[1], found[2], "sparse")
    if isinstance(x, np.ndarray) and x.ndim == 2:
        r, c = np.indices(x.shape)
        return r.ravel(), c.ravel(), None, "dense"
    if isinstance(x, tuple) and len(x) == 2 and isinstance(x[1], tuple) and len(x[1]) == 2:
        return np.asarray(x[1][0]).ravel(), np.asarray(x[1][1]).ravel(), None, "coo"
    if isinstance(x, tuple) and len(x) == 3 and fmt in ("csr", "csc"):
        outer = np.repeat(np.arange(len(x[2]) - 1), np.diff(np.asarray(x[2])))
        inner = np.asarray(x[1])
        return (outer, inner, None, "compressed") if fmt == "csr" else (inner, outer, None, "compressed")
    return None


def _values_tangent(dx, how):
    """The tangent of the operand's values (flat), or None where it is zero."""
    if how == "sparse":
        d = _data_tangent(dx)
    elif how == "dense":
        d = None if dx is NoTangent or dx is None else dx
    else:
        d = dx[0] if isinstance(dx, (tuple, list)) and len(dx) else None
        d = None if d is NoTangent or d is None else d
    return None if d is None else np.asarray(d).ravel()


def _same_values_memory(a, b) -> bool:
    """Is a the array b itself, or a view of exactly b's entries in b's order (scipy's `A.T` keeps A's data so)?"""
    if a is b:
        return True
    return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape == b.shape and a.dtype == b.dtype \
        and a.strides == b.strides and a.__array_interface__["data"][0] == b.__array_interface__["data"][0]


def _own_values_tangent(dx, how):
    """The operand's values' tangent storage itself (zero or not), or None."""
    if how == "sparse":
        return dx.fields.get("data") if isinstance(dx, (MutableTangent, Tangent)) else None
    if how == "dense":
        return dx
    return dx[0] if isinstance(dx, (tuple, list)) and len(dx) else None


def _operand_values(x):
    """The array of the operand's values (a sparse matrix's data, a tuple form's first item, a dense array)."""
    if hasattr(x, "format") and hasattr(x, "data"):
        return x.data
    if isinstance(x, tuple) and x:
        return x[0]
    return x


def _shares_values(x, y):
    """Does y hold the operand's values array itself (`D.tocsr()` of a CSR matrix is D; `csr_matrix((data, indices,
    indptr))` keeps data): then its values' derivative is the operand's by identity, not a sum of copies."""
    v = _operand_values(x)
    return y is x or (isinstance(v, np.ndarray) and isinstance(y.data, np.ndarray) and np.shares_memory(v, y.data))


def _carries_nothing(d) -> bool:
    """Is the tangent d of an operand exactly zero everywhere (NoTangent, zeros, empty lists, an object array of
    them: the tangent storage of a lil_matrix that only constants were written into)?"""
    if d is None or d is NoTangent:
        return True
    if isinstance(d, MutableTangent):
        return all(_carries_nothing(v) for v in d.fields.values())
    if isinstance(d, (list, tuple)):
        return all(_carries_nothing(v) for v in d)
    if isinstance(d, np.ndarray):
        return all(_carries_nothing(v) for v in d.flat) if d.dtype == object else not np.any(d)
    if isinstance(d, (int, float, complex, np.number)):
        return d == 0
    return False


def converted_tangent(x, y, dx):
    """Tangent of y = conversion of x (a MutableTangent of y's `data`), NoTangent where x's values have none."""
    layout = _operand_layout(x, getattr(y, "format", None))
    if dx is NoTangent or dx is None:
        return NoTangent
    if y is x:
        return dx  # (the same object: the same tangent)
    if layout is None:
        if _carries_nothing(dx):  # (a lil_matrix assembled from constants, `K[i, i] = 2.0`, then .tocsr(): no tangent)
            return NoTangent
        raise NotImplementedError(f"derivative of making a scipy.sparse {getattr(y, 'format', '')} matrix from a "
                                  f"{type(x).__name__}: pass a dense array, a sparse matrix or (data, (row, col))")
    rows, cols, keep, how = layout
    if _same_values_memory(y.data, _operand_values(x)):
        # (`A.T`, `csc_matrix((A.data, ...))`: y's values are x's array itself, so y's tangent values are x's tangent
        # array itself too; a copy lost every later write through y, `B = A.T; B.data[1] = v`, for A)
        own = _own_values_tangent(dx, how)
        if isinstance(own, np.ndarray) and own.shape == y.data.shape:
            return MutableTangent({"data": own})
    d = _values_tangent(dx, how)
    if d is None:
        return NoTangent
    slots = _slot_map(rows, cols, keep, y)
    if np.any((slots == -1) & (d != 0)):
        raise NotImplementedError(f"forward mode of a scipy.sparse conversion: {_DROPPED}")
    out = np.zeros(np.shape(y.data), dtype=np.result_type(y.data.dtype, d.dtype, float))
    np.add.at(out, slots[slots >= 0], d[slots >= 0])
    return MutableTangent({"data": out})


def converted_adjoint(x, y, g):
    """Adjoint of the operand x of y = conversion of x, from y's (its `data` field's)."""
    from ..reverse.adjoints import AdjTuple
    from .scipy_special_more import RefusedAdjoint

    gd = stored_values_adjoint(g, y)
    if _no_adjoint(gd) or _shares_values(x, y):  # (y's values are x's own: their adjoint went there by identity)
        return NoTangent
    layout = _operand_layout(x, getattr(y, "format", None))
    if layout is None:
        return RefusedAdjoint(f"reverse mode of making a scipy.sparse matrix from a {type(x).__name__}")
    rows, cols, keep, how = layout
    slots = _slot_map(rows, cols, keep, y)
    if np.any(slots == -1):
        values = RefusedAdjoint(f"reverse mode of a scipy.sparse conversion: {_DROPPED}")
    else:
        values = np.where(slots >= 0, np.asarray(gd).ravel()[np.maximum(slots, 0)], 0.0)
    if how == "sparse":
        return MutableTangent({"data": values if isinstance(values, RefusedAdjoint) else values.reshape(x.data.shape)})
    if how == "dense":
        return values if isinstance(values, RefusedAdjoint) else values.reshape(x.shape)
    data = values if isinstance(values, RefusedAdjoint) else values.reshape(np.shape(x[0]))
    return AdjTuple((data,) + (NoTangent,) * (len(x) - 1))


_CONVERSIONS = ("tocsr", "tocsc", "tocoo")
_CONSTRUCTED = ("csr_matrix", "csc_matrix", "csr_array", "csc_array")


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

    def convert(t, y, D, *args, **kwargs):  # D.tocsr(copy=False)
        return t.call(converted_tangent, D, y, t.dz(D)) if t.d(D) is not None else None

    def convert_adjoint(t, g, y, D, *args, **kwargs):
        return (t.call(converted_adjoint, D, y, g),) + (None,) * len(args)

    for name in _CONVERSIONS:
        defmethod(spbase, name, convert)
        defvjp_method(spbase, name, convert_adjoint)

    def construct(t, y, arg1, *args, **kwargs):  # sps.csr_matrix(A, shape=None, dtype=None, copy=False)
        return t.call(converted_tangent, arg1, y, t.dz(arg1)) if t.d(arg1) is not None else None

    def construct_adjoint(t, g, y, arg1, *args, **kwargs):
        return (t.call(converted_adjoint, arg1, y, g),) + (None,) * len(args)

    import scipy.sparse as sps

    for name in _CONSTRUCTED:
        cls = getattr(sps, name, None)
        if cls is not None:
            defjvp(cls, construct)
            defvjp(cls, construct_adjoint)

    from . import scipy_sparse_ops

    scipy_sparse_ops.register()  # (stacking, diags, kron, sums, products, toarray, multiply)
    from . import scipy_sparse_models

    scipy_sparse_models.register()  # (D @ x at the second order)
