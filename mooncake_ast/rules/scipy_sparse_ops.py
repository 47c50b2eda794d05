"""scipy.sparse operations beyond `D @ x` and conversions (scipy_sparse_rules.py), both modes: stacking and block
matrices (vstack, hstack, bmat, block_array, block_diag), diags / diags_array, `A + B` and `A - B` of two sparse
matrices, toarray / todense and `D.sum(axis)`; the products (kron, `A @ B`, multiply, spsolve) are in
scipy_sparse_products.py, registered from here.

Each result's stored values are a linear (kron, products: bilinear) function of the operands' stored values, at
positions that follow from the operation: `vstack` moves block i's values down by the rows above it, `diags` puts
diagonal j's item i at (row, col) of its offset, `kron` puts a_i * b_j at (r_a * p + r_b, c_a * q + c_b).  So every
rule here is: find, for each operand value, the result's stored value at its position (`_slots`: SciPy decided the
result's layout, duplicates summed, zeros dropped), then add tangents there / read adjoints from there.  Without
these rules both modes traced SciPy into compiled kernels (`coo_todense`, `csr_matmat`, `gssv`) and object arrays
(bmat's grid): refused, or a crash (`list assignment index out of range` in forward mode of vstack).

As in scipy_sparse_rules, a value the operation dropped (a stored zero; a zero entry of a dense operand) has a
derivative the sparse result cannot carry: refused in forward mode where its tangent is not zero, and in reverse
mode an adjoint that refuses any use.  Formats with known layouts only (CSR, CSC, COO, DIA, BSR); LIL and DOK
operands are refused by name (convert with .tocsr()).
"""
from __future__ import annotations

import numpy as np

from ..tangents import MutableTangent, NoTangent
from .numpy_common import _no_adjoint
from .scipy_sparse_rules import _DROPPED, _data_tangent, _entry_positions, _keys, _refuse_format


def is_sparse(x) -> bool:
    import scipy.sparse as sps

    return sps.issparse(x)


# ---------------------------------------------------------------- operands' values and positions
def _layout(x):
    """(rows, cols, flat indices) of x's values: a sparse matrix's stored values inside the matrix (in the order of
    x.data flattened), a dense 2-D array's entries."""
    if is_sparse(x):
        found = _entry_positions(x)
        if found is None:
            _refuse_format(x)
        rows, cols, inside = found
        rows, cols = np.asarray(rows).ravel(), np.asarray(cols).ravel()
        flat = np.arange(rows.size)
        if inside is not None:
            return rows[inside], cols[inside], flat[inside]
        return rows, cols, flat
    a = np.asarray(x)
    if a.ndim != 2:
        raise NotImplementedError(f"derivative of a scipy.sparse operation on a {a.ndim}-D operand: pass 2-D arrays "
                                  f"or sparse matrices")
    r, c = np.indices(a.shape)
    return r.ravel(), c.ravel(), np.arange(a.size)


def _values(x):
    return np.asarray(x.data if is_sparse(x) else x).ravel()


def _size(x):
    return np.size(x.data) if is_sparse(x) else np.size(x)


def _tangent_values(x, dx):
    """The tangent of x's values, flat, or None where it is zero."""
    if is_sparse(x):
        d = _data_tangent(dx)
    else:
        d = None if dx is NoTangent or dx is None else dx
    return None if d is None else np.asarray(d).ravel()


def _adjoint_of(x, flat):
    """x's adjoint from the adjoint of its values (flat): its fields' for a sparse matrix, an array for a dense one."""
    from .scipy_special_more import RefusedAdjoint

    if flat is None:
        return NoTangent
    if isinstance(flat, RefusedAdjoint):
        return MutableTangent({"data": flat}) if is_sparse(x) else flat
    if is_sparse(x):
        return MutableTangent({"data": flat.reshape(np.shape(x.data))})
    return flat.reshape(np.shape(x))


def _data_adjoint(g, y):
    """The adjoint of the sparse result y's stored values (flat), or None where it is zero."""
    from .scipy_sparse_rules import stored_values_adjoint

    gd = stored_values_adjoint(g, y)
    return None if _no_adjoint(gd) else np.asarray(gd).ravel()


def _slots(y, rows, cols):
    """For each position (rows[k], cols[k]), the index into y.data (flattened) of y's stored value there, or -1
    where y stores none.  Refused where y stores a position twice (a non-canonical result)."""
    yr, yc, flat = _layout(y)
    keys = _keys(yr, yc, y.shape[1])
    order = np.argsort(keys, kind="stable")
    keys, flat = keys[order], flat[order]
    if keys.size > 1 and np.any(np.diff(keys) == 0):
        raise NotImplementedError("derivative of a scipy.sparse operation whose result stores a position twice: call "
                                  ".sum_duplicates() on the operands first")
    want = _keys(rows, cols, y.shape[1])
    if keys.size == 0:
        return np.full(want.shape, -1)
    pos = np.minimum(np.searchsorted(keys, want), keys.size - 1)
    return np.where(keys[pos] == want, flat[pos], -1)


def _sparse_result_tangent(y, out):
    return NoTangent if out is None else MutableTangent({"data": out.reshape(np.shape(y.data))})


# ---------------------------------------------------------------- placements: each operand value lands at a position
def placed_tangent(y, leaves, dleaves, pieces):
    """Tangent of y whose stored value at each piece's position is the sum of the operand values placed there:
    pieces are (leaf number, the leaf's flat value indices, rows, cols, sign)."""
    out = None
    for i, src, rows, cols, sign in pieces:
        d = _tangent_values(leaves[i], dleaves[i])
        if d is None:
            continue
        slots = _slots(y, rows, cols)
        vals = d[src] * sign
        if np.any((slots < 0) & (vals != 0)):
            raise NotImplementedError(f"forward mode of a scipy.sparse operation: {_DROPPED}")
        if out is None:
            out = np.zeros(np.size(y.data), dtype=np.result_type(y.data.dtype, d.dtype, float))
        keep = slots >= 0
        np.add.at(out, slots[keep], vals[keep])
    return _sparse_result_tangent(y, out)


def placed_adjoints(y, leaves, g, pieces):
    """The adjoints of the leaves (a list, NoTangent for none) from y's adjoint."""
    from .scipy_special_more import RefusedAdjoint

    gd = _data_adjoint(g, y)
    flats = [None] * len(leaves)
    if gd is None:
        return [NoTangent] * len(leaves)
    for i, src, rows, cols, sign in pieces:
        if isinstance(flats[i], RefusedAdjoint):
            continue
        slots = _slots(y, rows, cols)
        if np.any(slots < 0):
            flats[i] = RefusedAdjoint(f"reverse mode of a scipy.sparse operation: {_DROPPED}")
            continue
        if flats[i] is None:
            flats[i] = np.zeros(_size(leaves[i]), dtype=np.result_type(gd.dtype, float))
        np.add.at(flats[i], src, gd[slots] * sign)
    return [_adjoint_of(x, f) for x, f in zip(leaves, flats)]


def _grid(blocks, kind):
    """The grid of blocks (rows of blocks, None for an empty block) of bmat/vstack/hstack."""
    if kind == "vstack":
        return [[b] for b in blocks]
    if kind == "hstack":
        return [list(blocks)]
    return [list(row) for row in blocks]


def _grid_pieces(grid):
    """(leaves, pieces) of a grid of blocks: each block's values moved by the heights and widths before it."""
    heights = [next((np.shape(b)[0] for b in row if b is not None), 0) for row in grid]
    n_cols = max((len(row) for row in grid), default=0)
    widths = [next((np.shape(row[j])[1] for row in grid if j < len(row) and row[j] is not None), 0)
              for j in range(n_cols)]
    r_off, c_off = np.cumsum([0] + heights), np.cumsum([0] + widths)
    leaves, pieces = [], []
    for i, row in enumerate(grid):
        for j, b in enumerate(row):
            if b is None:
                continue
            rows, cols, flat = _layout(b)
            pieces.append((len(leaves), flat, rows + r_off[i], cols + c_off[j], 1.0))
            leaves.append(b)
    return leaves, pieces


def _grid_tangents(grid, dblocks, kind):
    """The blocks' tangents in the grid's order (NoTangent where zero)."""
    if dblocks is NoTangent or dblocks is None:
        return [NoTangent] * sum(b is not None for row in grid for b in row)
    dgrid = _grid(dblocks, kind)
    return [(drow[j] if drow is not NoTangent and drow is not None else NoTangent)
            for row, drow in zip(grid, dgrid) for j, b in enumerate(row) if b is not None]


def _rebuild(blocks, adjoints, kind):
    """The adjoint of `blocks` (a list or tuple, or a list of rows for bmat) from the leaves' adjoints in order."""
    from ..reverse.adjoints import AdjList, AdjTuple

    it = iter(adjoints)

    def seq(items, make):
        out = [NoTangent if b is None else next(it) for b in items]
        return AdjList(out) if isinstance(items, list) else AdjTuple(out)

    if kind in ("vstack", "hstack"):
        return seq(blocks, None)
    rows = [seq(row, None) for row in blocks]
    return AdjList(rows) if isinstance(blocks, list) else AdjTuple(rows)


def stacked_tangent(kind, blocks, y, dblocks):
    grid = _grid(blocks, kind)
    leaves, pieces = _grid_pieces(grid)
    return placed_tangent(y, leaves, _grid_tangents(grid, dblocks, kind), pieces)


def stacked_adjoint(kind, blocks, y, g):
    grid = _grid(blocks, kind)
    leaves, pieces = _grid_pieces(grid)
    return _rebuild(blocks, placed_adjoints(y, leaves, g, pieces), kind)


def _diagonal_grid(mats):
    n = len(mats)
    return [[m if j == i else None for j in range(n)] for i, m in enumerate(mats)]


def _diag_pieces(mats):
    """block_diag's placements: each block moved by the rows and columns of those before it."""
    leaves, pieces = [], []
    r0 = c0 = 0
    for m in mats:
        rows, cols, flat = _layout(m)
        pieces.append((len(leaves), flat, rows + r0, cols + c0, 1.0))
        leaves.append(m)
        r0, c0 = r0 + np.shape(m)[0], c0 + np.shape(m)[1]
    return leaves, pieces


def block_diag_tangent(mats, y, dmats):
    leaves, pieces = _diag_pieces(list(mats))
    d = [NoTangent] * len(leaves) if dmats is NoTangent or dmats is None else list(dmats)
    return placed_tangent(y, leaves, d, pieces)


def block_diag_adjoint(mats, y, g):
    from ..reverse.adjoints import AdjList, AdjTuple

    leaves, pieces = _diag_pieces(list(mats))
    out = placed_adjoints(y, leaves, g, pieces)
    return AdjList(out) if isinstance(mats, list) else AdjTuple(out)


# ---------------------------------------------------------------- diags
def _diags_operands(diagonals, offsets, shape):
    """(the diagonals as a list, was it one array given alone, offsets, shape) as SciPy's diags reads them."""
    single = np.isscalar(offsets) or np.ndim(offsets) == 0
    if single and (len(diagonals) == 0 or np.ndim(diagonals[0]) == 0):
        diagonals, alone = [np.atleast_1d(diagonals)], True
    else:
        diagonals, alone = list(diagonals), False
    offsets = np.atleast_1d(offsets).astype(int)
    if shape is None:
        m = len(diagonals[0]) + abs(int(offsets[0]))
        shape = (m, m)
    return diagonals, alone, offsets, tuple(shape)


def _diags_pieces(diagonals, offsets, shape):
    m, n = shape
    pieces = []
    for j, (d, k) in enumerate(zip(diagonals, offsets)):
        length = min(m + k, n - k, min(m, n))
        if length < 0:
            raise ValueError(f"offset {k} out of bounds")
        cols = max(0, k) + np.arange(length)
        rows = cols - k
        src = np.zeros(length, dtype=np.int64) if np.size(d) == 1 else np.arange(length)
        pieces.append((j, src, rows, cols, 1.0))
    return pieces


def _as_leaf(d):
    a = np.atleast_1d(np.asarray(d))
    return a


def diags_tangent(diagonals, y, ddiagonals, offsets=0, shape=None):
    diags, alone, offs, shape = _diags_operands(diagonals, offsets, shape)
    if ddiagonals is NoTangent or ddiagonals is None:
        return NoTangent
    dlist = [ddiagonals] if alone else [NoTangent if d is None else d for d in ddiagonals]
    leaves = [_as_leaf(d) for d in diags]
    dleaves = [d if d is NoTangent else np.atleast_1d(np.asarray(d)) for d in dlist]
    return placed_tangent(y, leaves, dleaves, _diags_pieces(leaves, offs, shape))


def diags_adjoint(diagonals, y, g, offsets=0, shape=None):
    from ..reverse.adjoints import AdjList, AdjTuple

    diags, alone, offs, shape = _diags_operands(diagonals, offsets, shape)
    leaves = [_as_leaf(d) for d in diags]
    out = placed_adjoints(y, leaves, g, _diags_pieces(leaves, offs, shape))
    out = [a if a is NoTangent or np.ndim(d) else a.reshape(np.shape(d)) for a, d in zip(out, diags)]
    if alone:
        a = out[0]
        return a if a is NoTangent else np.reshape(a, np.shape(diagonals))
    return AdjList(out) if isinstance(diagonals, list) else AdjTuple(out)


# ---------------------------------------------------------------- sums of two sparse matrices
def sum_tangent(A, B, y, dA, dB, sign):
    if not is_sparse(B):
        raise NotImplementedError(f"derivative of a scipy.sparse matrix plus a {type(B).__name__}: add two sparse "
                                  f"matrices, or convert with .toarray() first")
    ra, ca, fa = _layout(A)
    rb, cb, fb = _layout(B)
    return placed_tangent(y, [A, B], [dA, dB], [(0, fa, ra, ca, 1.0), (1, fb, rb, cb, sign)])


def sum_adjoint(A, B, y, g, sign):
    if not is_sparse(B):
        raise NotImplementedError(f"derivative of a scipy.sparse matrix plus a {type(B).__name__}: add two sparse "
                                  f"matrices, or convert with .toarray() first")
    ra, ca, fa = _layout(A)
    rb, cb, fb = _layout(B)
    return tuple(placed_adjoints(y, [A, B], g, [(0, fa, ra, ca, 1.0), (1, fb, rb, cb, sign)]))


# ---------------------------------------------------------------- toarray / todense
def dense_tangent(D, y, dD):
    d = _tangent_values(D, dD)
    if d is None:
        return NoTangent
    rows, cols, flat = _layout(D)
    out = np.zeros(np.shape(y), dtype=np.result_type(np.asarray(y).dtype, d.dtype, float))
    np.add.at(out, (rows, cols), d[flat])
    return out  # (a plain array for todense's np.matrix too: see _summed)


def dense_adjoint(D, y, g):
    if _no_adjoint(g):
        return NoTangent
    rows, cols, flat = _layout(D)
    out = np.zeros(np.size(D.data), dtype=np.result_type(np.asarray(g).dtype, float))
    out[flat] = np.asarray(g)[rows, cols]
    return _adjoint_of(D, out)


# ---------------------------------------------------------------- sums of the stored values (D.sum(axis))
def _summed(D, vals, rows, cols, axis, y):
    n_rows, n_cols = D.shape
    if axis is None:
        out = np.sum(vals)
    elif axis in (0, -2, 1, -1):
        at, n = (cols, n_cols) if axis in (0, -2) else (rows, n_rows)
        out = np.zeros(n, dtype=np.result_type(vals, float))
        np.add.at(out, at, vals)  # (np.bincount's weights are real only)
    else:
        raise NotImplementedError(f"derivative of a scipy.sparse sum over axis {axis!r}")
    # (a plain array where SciPy gives a np.matrix: `np.asarray(A.sum(axis=0))`'s tangent is the tangent as it is,
    # and a np.matrix's `*` is a matrix product)
    return np.reshape(out, np.shape(y)) if np.ndim(y) else out


def sum_values_tangent(D, y, dD, axis=None):
    d = _tangent_values(D, dD)
    if d is None:
        return NoTangent
    rows, cols, flat = _layout(D)
    return _summed(D, d[flat], rows, cols, axis, y)


def sum_values_adjoint(D, y, g, axis=None):
    if _no_adjoint(g):
        return NoTangent
    rows, cols, flat = _layout(D)
    g = np.asarray(g)
    if axis is None:
        part = np.full(rows.shape, g.reshape(()), dtype=np.result_type(g, float))
    else:
        part = g.ravel()[cols if axis in (0, -2) else rows]
    out = np.zeros(np.size(D.data), dtype=np.result_type(part, float))
    out[flat] = part
    return _adjoint_of(D, out)


# ---------------------------------------------------------------- registration
def register() -> None:
    """Register the rules (scipy_sparse_rules.register calls this)."""
    import scipy.sparse as sps

    from .registry import _entry, defjvp, defmethod, defvjp, defvjp_method
    from .scipy_sparse_products import kron_adjoint, kron_tangent, multiply_adjoints, multiply_tangent

    spbase = sps._base._spbase

    def stacked(kind):
        def jvp(t, y, blocks, *a, **k):
            return t.call(stacked_tangent, kind, blocks, y, t.d(blocks)) if t.d(blocks) is not None else None

        def vjp(t, g, y, blocks, *a, **k):
            return (t.call(stacked_adjoint, kind, blocks, y, g),) + (None,) * len(a)

        return jvp, vjp

    for name, kind in (("vstack", "vstack"), ("hstack", "hstack"), ("bmat", "bmat"), ("block_array", "bmat")):
        fn = getattr(sps, name, None)
        if fn is not None:
            jvp, vjp = stacked(kind)
            defjvp(fn, jvp)
            defvjp(fn, vjp)

    def bd_jvp(t, y, mats, *a, **k):
        return t.call(block_diag_tangent, mats, y, t.d(mats)) if t.d(mats) is not None else None

    def bd_vjp(t, g, y, mats, *a, **k):
        return (t.call(block_diag_adjoint, mats, y, g),) + (None,) * len(a)

    defjvp(sps.block_diag, bd_jvp)
    defvjp(sps.block_diag, bd_vjp)

    def diags_jvp(t, y, diagonals, offsets=0, shape=None, format=None, dtype=None):
        if t.d(diagonals) is None:
            return None
        return t.call(diags_tangent, diagonals, y, t.d(diagonals), offsets, shape)

    def diags_vjp(t, g, y, diagonals, offsets=0, shape=None, format=None, dtype=None):
        return t.call(diags_adjoint, diagonals, y, g, offsets, shape), None, None, None, None

    defjvp(sps.diags, diags_jvp)
    defvjp(sps.diags, diags_vjp)
    if hasattr(sps, "diags_array"):
        def diags_array_jvp(t, y, diagonals, *, offsets=0, shape=None, format=None, dtype=None):
            if t.d(diagonals) is None:
                return None
            return t.call(diags_tangent, diagonals, y, t.d(diagonals), offsets, shape)

        def diags_array_vjp(t, g, y, diagonals, *, offsets=0, shape=None, format=None, dtype=None):
            return (t.call(diags_adjoint, diagonals, y, g, offsets, shape),)

        defjvp(sps.diags_array, diags_array_jvp)
        defvjp(sps.diags_array, diags_array_vjp)

    def kron_jvp(t, y, A, B, format=None):
        if t.d(A) is None and t.d(B) is None:
            return None
        return t.call(kron_tangent, A, B, y, t.dz(A), t.dz(B))

    def kron_vjp(t, g, y, A, B, format=None):
        pair = t.call(kron_adjoint, A, B, y, g)
        return t.call(_item, pair, 0), t.call(_item, pair, 1), None

    defjvp(sps.kron, kron_jvp)
    defvjp(sps.kron, kron_vjp)

    for name, sign in (("__add__", 1.0), ("__sub__", -1.0)):
        def sum_jvp(t, y, A, B, sign=sign):
            if t.d(A) is None and t.d(B) is None:
                return None
            return t.call(sum_tangent, A, B, y, t.dz(A), t.dz(B), sign)

        def sum_vjp(t, g, y, A, B, sign=sign):
            pair = t.call(sum_adjoint, A, B, y, g, sign)
            return t.call(_item, pair, 0), t.call(_item, pair, 1)

        defjvp(getattr(spbase, name), sum_jvp)
        defvjp(getattr(spbase, name), sum_vjp)

    def dense_jvp(t, y, D, order=None, out=None):
        if out is not None:
            raise NotImplementedError("derivative of a scipy.sparse toarray/todense with out=: assign the result")
        return t.call(dense_tangent, D, y, t.dz(D)) if t.d(D) is not None else None

    def dense_vjp(t, g, y, D, *a, **k):
        return (t.call(dense_adjoint, D, y, g),) + (None,) * len(a)

    for name in ("toarray", "todense"):
        defmethod(spbase, name, dense_jvp)
        defvjp_method(spbase, name, dense_vjp)

    def multiply_jvp(t, y, D, other):
        if t.d(D) is None and t.d(other) is None:
            return None
        return t.call(multiply_tangent, D, other, y, t.dz(D), t.dz(other))

    def multiply_vjp(t, g, y, D, other):
        pair = t.call(multiply_adjoints, D, other, y, g)
        return t.call(_item, pair, 0), t.call(_item, pair, 1)

    def sum_jvp(t, y, D, axis=None, dtype=None, out=None):
        if out is not None:
            raise NotImplementedError("derivative of a scipy.sparse sum with out=: assign the result instead")
        return t.call(sum_values_tangent, D, y, t.dz(D), axis) if t.d(D) is not None else None

    def sum_vjp(t, g, y, D, axis=None, dtype=None, out=None):
        return t.call(sum_values_adjoint, D, y, g, axis), None, None, None

    defmethod(spbase, "sum", sum_jvp)
    defvjp_method(spbase, "sum", sum_vjp)
    defmethod(spbase, "multiply", multiply_jvp)
    defvjp_method(spbase, "multiply", multiply_vjp)
    # (activity: each result is a new matrix or array, sharing no storage with the operands -- toarray's out= is
    # refused above -- so a constant made into a sparse matrix stays a constant)
    for key in (sps.vstack, sps.hstack, sps.bmat, getattr(sps, "block_array", None), sps.block_diag, sps.diags,
                getattr(sps, "diags_array", None), sps.kron, spbase.__add__, spbase.__sub__, (spbase, "toarray"),
                (spbase, "todense"), (spbase, "multiply"), (spbase, "sum")):
        if key is not None:
            _entry(key).fresh = True


def _item(pair, i):
    return pair[i]
