"""scipy.sparse products, both modes: kron, a product of two sparse matrices (`A @ B`), `D.multiply(w)` by a dense
array or a number, and scipy.sparse.linalg.spsolve (registered by scipy_sparse_ops.register, spsolve by
`register_linalg` once scipy.sparse.linalg is imported).

Bilinear in the operands' stored values: kron puts a_i * b_j at (r_a * p + r_b, c_a * q + c_b); `A @ B`'s tangent is
dA @ B + A @ dB read at the result's stored positions, its adjoints (G @ B^T) at A's positions and (A^T @ G) at B's;
spsolve's x = A^-1 b has the tangent A^-1 (db - dA x) and the adjoints A^-T g for b, -b_bar[r] x[c] for A's stored
value at (r, c).  Positions, slots and refusals as in scipy_sparse_ops.
"""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent
from .numpy_common import _no_adjoint
from .scipy_sparse_ops import (_DROPPED, _adjoint_of, _data_adjoint, _item, _layout, _slots, _sparse_result_tangent,
                               _tangent_values, _values, is_sparse)
from .scipy_sparse_rules import _with_values


# ---------------------------------------------------------------- kron (bilinear)
def _kron_pairs(A, B):
    ra, ca, fa = _layout(A)
    rb, cb, fb = _layout(B)
    p, q = np.shape(B)
    rows = (ra[:, None] * p + rb[None, :]).ravel()
    cols = (ca[:, None] * q + cb[None, :]).ravel()
    ia = np.repeat(fa, fb.size)
    ib = np.tile(fb, fa.size)
    return rows, cols, ia, ib


def kron_tangent(A, B, y, dA, dB):
    rows, cols, ia, ib = _kron_pairs(A, B)
    da, db = _tangent_values(A, dA), _tangent_values(B, dB)
    if da is None and db is None:
        return NoTangent
    a, b = _values(A), _values(B)
    vals = 0.0
    if da is not None:
        vals = vals + da[ia] * b[ib]
    if db is not None:
        vals = vals + a[ia] * db[ib]
    if not is_sparse(y):
        out = np.zeros(np.shape(y), dtype=np.result_type(np.asarray(y).dtype, vals, float))
        np.add.at(out, (rows, cols), vals)
        return out
    slots = _slots(y, rows, cols)
    if np.any((slots < 0) & (vals != 0)):
        raise NotImplementedError(f"forward mode of scipy.sparse.kron: {_DROPPED}")
    out = np.zeros(np.size(y.data), dtype=np.result_type(y.data.dtype, vals, float))
    np.add.at(out, slots[slots >= 0], vals[slots >= 0])
    return _sparse_result_tangent(y, out)


def kron_adjoint(A, B, y, g):
    from .scipy_special_more import RefusedAdjoint

    rows, cols, ia, ib = _kron_pairs(A, B)
    if is_sparse(y):
        gd = _data_adjoint(g, y)
        if gd is None:
            return NoTangent, NoTangent
        slots = _slots(y, rows, cols)
        if np.any(slots < 0):
            refused = RefusedAdjoint(f"reverse mode of scipy.sparse.kron: {_DROPPED}")
            return _adjoint_of(A, refused), _adjoint_of(B, refused)
        gv = gd[slots]
    else:
        if _no_adjoint(g):
            return NoTangent, NoTangent
        gv = np.asarray(g)[rows, cols]
    a, b = _values(A), _values(B)
    ga = np.zeros(a.size, dtype=np.result_type(gv, float))
    gb = np.zeros(b.size, dtype=np.result_type(gv, float))
    np.add.at(ga, ia, gv * b[ib])
    np.add.at(gb, ib, gv * a[ia])
    return _adjoint_of(A, ga), _adjoint_of(B, gb)


# ---------------------------------------------------------------- products of two sparse matrices
def _at(S, rows, cols):
    """The values of the sparse matrix S at (rows, cols) (zeros where it stores none)."""
    if rows.size == 0:
        return np.zeros(0, dtype=S.dtype)
    return np.asarray(S.tocsr()[rows, cols]).ravel()


def product_tangent(D, E, y, dD, dE):
    """Tangent of y = D @ E of two sparse matrices: dD @ E + D @ dE, read at y's stored positions."""
    dd, de = _tangent_values(D, dD), _tangent_values(E, dE)
    if dd is None and de is None:
        return NoTangent
    if not is_sparse(y):
        out = 0.0
        if dd is not None:
            out = out + np.asarray((_with_values(D, dd) @ E).toarray())
        if de is not None:
            out = out + np.asarray((D @ _with_values(E, de)).toarray())
        return out
    parts = []
    if dd is not None:
        parts.append((_with_values(D, dd) @ E).tocoo())
    if de is not None:
        parts.append((D @ _with_values(E, de)).tocoo())
    out = np.zeros(np.size(y.data), dtype=np.result_type(y.data.dtype, float))
    for p in parts:
        p.sum_duplicates()
        slots = _slots(y, p.row, p.col)
        if np.any((slots < 0) & (p.data != 0)):
            raise NotImplementedError(f"forward mode of a product of scipy.sparse matrices: {_DROPPED}")
        np.add.at(out, slots[slots >= 0], p.data[slots >= 0])
    return _sparse_result_tangent(y, out)


def product_adjoints(D, E, y, g):
    """Adjoints of D and E in y = D @ E: (G @ E^T) at D's positions and (D^T @ G) at E's, with G y's adjoint as a
    matrix of y's layout."""
    if is_sparse(y):
        gd = _data_adjoint(g, y)
        if gd is None:
            return NoTangent, NoTangent
        G = _with_values(y, gd)
    else:
        if _no_adjoint(g):
            return NoTangent, NoTangent
        import scipy.sparse as sps

        G = sps.csr_matrix(np.asarray(g))
    rd, cd, fd = _layout(D)
    re, ce, fe = _layout(E)
    gD = np.zeros(np.size(D.data))
    gE = np.zeros(np.size(E.data))
    gD[fd] = _at(G @ E.T, rd, cd)
    gE[fe] = _at(D.T @ G, re, ce)
    return _adjoint_of(D, gD), _adjoint_of(E, gE)


# ---------------------------------------------------------------- multiply (elementwise) by a dense array or a number
def _broadcast_at(other, shape, rows, cols):
    return np.broadcast_to(np.asarray(other), shape)[rows, cols]


def _unbroadcast(full, like):
    shape = np.shape(like)
    while full.ndim > len(shape):
        full = full.sum(axis=0)
    for ax, n in enumerate(shape):
        if n == 1 and full.shape[ax] != 1:
            full = full.sum(axis=ax, keepdims=True)
    return full.reshape(shape)


def _refuse_sparse_other(other):
    if is_sparse(other):
        raise NotImplementedError("derivative of D.multiply(E) of two scipy.sparse matrices is not supported: "
                                  "multiply by E.toarray(), or by a dense array")


def multiply_tangent(D, other, y, dD, dother):
    _refuse_sparse_other(other)
    rows, cols, flat = _layout(D)
    d, vals = _tangent_values(D, dD), None
    if d is not None:
        vals = d[flat] * _broadcast_at(other, D.shape, rows, cols)
    if dother is not NoTangent and dother is not None:
        more = _values(D)[flat] * _broadcast_at(dother, D.shape, rows, cols)
        vals = more if vals is None else vals + more
    if vals is None:
        return NoTangent
    if not is_sparse(y):
        out = np.zeros(np.shape(y), dtype=np.result_type(np.asarray(y).dtype, vals, float))
        np.add.at(out, (rows, cols), vals)
        return out
    slots = _slots(y, rows, cols)
    if np.any((slots < 0) & (vals != 0)):
        raise NotImplementedError(f"forward mode of a scipy.sparse multiply: {_DROPPED}")
    out = np.zeros(np.size(y.data), dtype=np.result_type(y.data.dtype, vals, float))
    np.add.at(out, slots[slots >= 0], vals[slots >= 0])
    return _sparse_result_tangent(y, out)


def multiply_adjoints(D, other, y, g):
    from .scipy_special_more import RefusedAdjoint

    _refuse_sparse_other(other)
    rows, cols, flat = _layout(D)
    if is_sparse(y):
        gd = _data_adjoint(g, y)
        if gd is None:
            return NoTangent, NoTangent
        slots = _slots(y, rows, cols)
        if np.any(slots < 0):
            refused = RefusedAdjoint(f"reverse mode of a scipy.sparse multiply: {_DROPPED}")
            return _adjoint_of(D, refused), refused
        gv = gd[slots]
    else:
        if _no_adjoint(g):
            return NoTangent, NoTangent
        gv = np.asarray(g)[rows, cols]
    gD = np.zeros(np.size(D.data), dtype=np.result_type(gv, float))
    gD[flat] = gv * _broadcast_at(other, D.shape, rows, cols)
    full = np.zeros(D.shape, dtype=np.result_type(gv, float))
    np.add.at(full, (rows, cols), gv * _values(D)[flat])
    if np.ndim(other) == 0:
        g_other = float(full.sum()) if isinstance(other, (float, int)) else full.sum()
    else:
        g_other = _unbroadcast(full, other)
    return _adjoint_of(D, gD), g_other


# ---------------------------------------------------------------- spsolve
def _refuse_sparse_rhs(b):
    if is_sparse(b):
        raise NotImplementedError("derivative of scipy.sparse.linalg.spsolve with a sparse right-hand side: pass "
                                  "b as a dense array (b.toarray())")


def spsolve_tangent(A, b, x, dA, db, *args, **kwargs):
    """Tangent of x = A^-1 b: A^-1 (db - dA x)."""
    from scipy.sparse.linalg import spsolve

    _refuse_sparse_rhs(b)
    rhs = None if db is NoTangent or db is None else np.asarray(db)
    dd = _tangent_values(A, dA)
    if dd is not None:
        more = -np.asarray(_with_values(A, dd) @ x)
        rhs = more.reshape(np.shape(b)) if rhs is None else rhs + more.reshape(np.shape(b))
    if rhs is None:
        return NoTangent
    return np.asarray(spsolve(A, rhs, *args, **kwargs)).reshape(np.shape(x))


def spsolve_adjoints(A, b, x, g, *args, **kwargs):
    """Adjoints of A (its stored values: -b_bar[r] x[c]) and b (A^-T g) in x = A^-1 b."""
    from scipy.sparse.linalg import spsolve

    from .scipy_sparse_rules import _values_adjoint

    _refuse_sparse_rhs(b)
    if _no_adjoint(g):
        return NoTangent, NoTangent
    At = A.T.tocsc() if A.format != "csr" else A.T  # (the transpose of CSR is CSC: what spsolve wants)
    bbar = np.asarray(spsolve(At, np.asarray(g), *args, **kwargs)).reshape(np.shape(x))
    return _values_adjoint(A, -bbar, np.asarray(x)), bbar.reshape(np.shape(b))


def register_linalg() -> None:
    """spsolve's rules (registry.lookup calls this once scipy.sparse.linalg is imported)."""
    import scipy.sparse.linalg as spla

    from .registry import _entry, defjvp, defvjp

    def jvp(t, y, A, b, *a, **k):
        if t.d(A) is None and t.d(b) is None:
            return None
        return t.call(spsolve_tangent, A, b, y, t.dz(A), t.dz(b), *a, **k)

    def vjp(t, g, y, A, b, *a, **k):
        pair = t.call(spsolve_adjoints, A, b, y, g, *a, **k)
        return (t.call(_item, pair, 0), t.call(_item, pair, 1)) + (None,) * len(a)

    defjvp(spla.spsolve, jvp)
    defvjp(spla.spsolve, vjp)
    _entry(spla.spsolve).fresh = True  # (activity: a new array, no part of A or b)
