"""Matrix products whose terms are exactly 0 where a factor is, whatever the other (inf and nan included).

A matrix product is a sum of products, and an infinite tangent or adjoint can meet a weight that is exactly 0 in
it.  `A @ np.sqrt(x)` at x[1] == 0 where A's column 1 is 0: sqrt's tangent there is inf, and `A @ dv` summed
0 * inf = nan into every entry, where y does not depend on x[1] at all (its derivative along x[1] is 0).
`np.sqrt(A @ x)` where A's row 1 is 0: (A @ x)[1] is 0 whatever x, sqrt's adjoint there is inf, and
`A.T @ g` gave nan in every entry of x's gradient, where forward mode (whose tangent there is exactly 0, a strong
zero at sqrt) gives the true, finite one.  As strong_zeros.times_partial does for elementwise products, each term
of the sum is a strong product here: 0 where either factor is 0.  Where every value is finite (the usual case,
an O(size) check against the product's own cost) the plain product runs.

Only in functions where an infinite slope can send such values (one that calls sqrt, cbrt, arcsin / arccos, a
fractional power or the entr family, strong_zeros.INFINITE_SLOPES) or where a zero adjoint can meet an overflowed
factor (strong_zeros.adjoints_meet_overflow): elsewhere the rules keep the plain products (LV's `A @ x`).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..tangents import NoTangent
from .registry import defjvp, defvjp
from .strong_zeros import INFINITE_SLOPES, _sends_infinite_adjoints, strong_product

__all__ = ["strong_matmul", "strong_matmul_adjoint"]


def _plain(*xs: Any) -> bool:
    """Is the plain product right for these operands: anything but real NumPy arrays and numbers with a
    non-finite value (complex, device and sparse arrays keep the plain product too)?"""
    for x in xs:
        if isinstance(x, np.ndarray):
            if x.dtype.kind not in "fiub":
                return True
        elif isinstance(x, (float, int, np.floating, np.integer)) and not isinstance(x, (bool, complex)):
            pass
        else:
            return True
    return all(bool(np.isfinite(x).all()) for x in xs)


def _contract(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """C[..., i, k] = sum_j X[..., i, j] Y[..., k, j] (batch axes broadcast), each term a strong product.  The
    contraction indices that meet no inf or nan go through one matmul; the few that do, term by term."""
    odd = ~np.isfinite(X).reshape(-1, X.shape[-1]).all(axis=0) | ~np.isfinite(Y).reshape(-1, Y.shape[-1]).all(axis=0)
    fine = ~odd
    out = np.matmul(X[..., fine], np.swapaxes(Y[..., fine], -1, -2))
    if odd.any():
        out = out + strong_product(X[..., :, None, odd], Y[..., None, :, odd]).sum(axis=-1)
    return out


def strong_matmul(a: Any, b: Any) -> Any:
    """a @ b, each term of each sum exactly 0 where either factor is 0 (a tangent's inf times a weight 0)."""
    if a is NoTangent or b is NoTangent or a is None or b is None:
        return NoTangent
    if _plain(a, b) or np.ndim(a) == 0 or np.ndim(b) == 0:
        return np.matmul(a, b)
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    out = _contract(a2, np.swapaxes(b2, -1, -2))
    if b.ndim == 1:
        out = out[..., 0]
    if a.ndim == 1:
        out = out[..., 0, :] if b.ndim > 1 else out[..., 0]
    return out


def strong_matmul_adjoint(g: Any, a: Any, b: Any, which: int) -> Any:
    """The adjoint of a (which == 0) or b (which == 1) of y = a @ b for y's adjoint g, each term a strong
    product: an infinite g where a weight is exactly 0 sends nothing back (np.sqrt(A @ x) with a zero row)."""
    from .numpy_products import matmul_adjoint_a, matmul_adjoint_b

    if g is NoTangent or g is None or a is NoTangent or b is NoTangent:
        return NoTangent
    if _plain(g, a, b) or np.ndim(a) == 0 or np.ndim(b) == 0:
        return matmul_adjoint_a(g, a, b) if which == 0 else matmul_adjoint_b(g, a, b)
    from ..reverse.adjoints import unbroadcast

    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    g2 = np.asarray(g)[..., None] if b.ndim == 1 else np.asarray(g)
    g2 = g2[..., None, :] if a.ndim == 1 else g2
    if which == 0:
        out = _contract(g2, b2)  # (.., n, p) with (.., m, p): g b^T
        return unbroadcast(out[..., 0, :] if a.ndim == 1 else out, a)
    out = _contract(np.swapaxes(a2, -1, -2), np.swapaxes(g2, -1, -2))  # a^T g
    return unbroadcast(out[..., 0] if b.ndim == 1 else out, b)


strong_matmul_adjoint.dense_in_dense = True  # type: ignore[attr-defined]  # (a real array for a real g: reverse/templates.py)


# Their own derivatives (a Hessian differentiates the code that calls them): all bilinear, each term again
# strong.  With y = a @ b, a_bar = A(g, b) and b_bar = B(a, g): a cotangent h of A(g, b) sends h @ b to g and
# B(h, g) to b; one of B(a, g) sends a @ h to g and A(g, h) to a.  np.dot's (strong_dot_adjoint) likewise.
def _product(t: Any, fn: Any, a: Any, b: Any) -> Any:
    """The strong product fn(a, b) in code being built (fn: np.matmul or np.dot)."""
    return t.call(strong_matmul, a, b) if fn is np.matmul else t.call(strong_matmul_tangent_term, np.dot, a, b)


def _adjoint_rules(helper: Any, fn: Any) -> None:
    """Register the rules of helper(g, a, b, which), fn's strong adjoint of a (which 0) or b (which 1)."""
    def tangent(t: Any, y: Any, g: Any, a: Any, b: Any, which: Any) -> Any:
        dg, da, db = t.d(g), t.d(a), t.d(b)
        second = (db if t.value(which) == 0 else da)
        return t.add(t.call(helper, dg, a, b, which) if dg is not None else None,
                     None if second is None else
                     t.call(helper, g, a, db, which) if t.value(which) == 0 else t.call(helper, g, da, b, which))

    def adjoints(t: Any, h: Any, y: Any, g: Any, a: Any, b: Any, which: Any) -> tuple:
        if t.value(which) == 0:  # y = A(g, b)
            return (_product(t, fn, h, b), None, t.call(helper, g, h, b, 1), None)
        return (_product(t, fn, a, h), t.call(helper, g, a, h, 0), None, None)  # y = B(a, g)

    defjvp(helper, tangent)
    defvjp(helper, adjoints)
    INFINITE_SLOPES.add(helper)  # (the code that calls it, differentiated again, keeps its strong zeros)


def strong_dot_adjoint(g: Any, a: Any, b: Any, which: int) -> Any:
    """np.dot's adjoint of a or b: as a matmul's for vectors and matrices (strong), np.dot's own otherwise."""
    if np.ndim(a) > 2 or np.ndim(b) > 2 or np.ndim(a) == 0 or np.ndim(b) == 0:
        from .numpy_products import dot_adjoint_a, dot_adjoint_b

        return dot_adjoint_a(g, a, b) if which == 0 else dot_adjoint_b(g, a, b)
    return strong_matmul_adjoint(g, a, b, which)


def strong_matmul_tangent_term(fn: Any, a: Any, b: Any) -> Any:
    """fn(a, b) for one linear piece of a product's tangent: strong_matmul where fn's product is a matmul's
    (np.matmul, `@`, np.dot of vectors and matrices), fn itself otherwise (np.dot of higher arrays)."""
    if a is NoTangent or b is NoTangent or a is None or b is None:
        return NoTangent
    if fn is np.dot and (np.ndim(a) > 2 or np.ndim(b) > 2 or np.ndim(a) == 0 or np.ndim(b) == 0):
        return fn(a, b)  # (np.dot of a number is a product, no matmul: `np.dot(t, t * t)` of floats)
    return strong_matmul(a, b)


def _matmul_adjoints(t: Any, g: Any, y: Any, a: Any, b: Any) -> tuple:
    return (t.call(strong_matmul_adjoint, g, a, b, 0), t.call(strong_matmul_adjoint, g, a, b, 1))


def _dot_adjoints(t: Any, g: Any, y: Any, a: Any, b: Any) -> tuple:
    return (t.call(strong_dot_adjoint, g, a, b, 0), t.call(strong_dot_adjoint, g, a, b, 1))


def _term_tangent(t: Any, y: Any, fn: Any, a: Any, b: Any) -> Any:
    da, db = t.d(a), t.d(b)
    return t.add(t.call(strong_matmul_tangent_term, fn, da, b) if da is not None else None,
                 t.call(strong_matmul_tangent_term, fn, a, db) if db is not None else None)


defjvp(strong_matmul, lambda t, y, a, b: _term_tangent(t, y, np.matmul, a, b))
defvjp(strong_matmul, _matmul_adjoints)
defjvp(strong_matmul_tangent_term, _term_tangent)
defvjp(strong_matmul_tangent_term, lambda t, g, y, fn, a, b: (None, *(_dot_adjoints if t.value(fn) is np.dot else
                                                                      _matmul_adjoints)(t, g, y, a, b)))
INFINITE_SLOPES.update((strong_matmul, strong_matmul_tangent_term))
_adjoint_rules(strong_matmul_adjoint, np.matmul)
_adjoint_rules(strong_dot_adjoint, np.dot)


# ---------------------------------------------------------------- when the rules use them
def tangents_meet_zero_weights(t: Any) -> bool:
    """May a tangent reaching a matrix product be infinite (an infinite slope's, at a finite input) where its
    weight is exactly 0?  In forward code being built: where the function calls an infinite slope; in a pullback
    being built: as strong_zeros.partials_meet_infinities says; at run time: yes (the values decide)."""
    fwd = getattr(t, "fwd", None)
    if fwd is None:
        if getattr(t, "rt", None) is not None:
            from .strong_zeros import partials_meet_infinities

            return partials_meet_infinities(t)
        return True
    known = fwd.__dict__.get("_mc_infinite_slopes")
    if known is None:
        resolver, ir = getattr(fwd, "resolver", None), getattr(fwd, "ir", None)
        known = resolver is not None and ir is not None and any(
            _sends_infinite_adjoints(resolver, st) for b in ir.blocks for st in b.stmts if hasattr(st, "args"))
        fwd.__dict__["_mc_infinite_slopes"] = known
    return known


def matrix_product_tangent(t: Any, fn: Any, a: Any, b: Any) -> Any:
    """The tangent of fn(a, b) (np.matmul, np.dot, `@`): strong products where an infinite tangent can meet a
    zero weight (tangents_meet_zero_weights), else fn's own linear pieces, as the rule always wrote them."""
    if not tangents_meet_zero_weights(t):
        return t.add(t.lin(fn, t.d(a), b), t.linr(fn, a, t.d(b)))
    return _term_tangent(t, None, np.dot if fn is np.dot else np.matmul, a, b)


def matrix_product_adjoints(t: Any, g: Any, a: Any, b: Any, kind: str) -> Any:
    """(a's, b's) adjoints of np.matmul / np.dot(a, b) / `a @ b` as strong products, in a function where an
    infinite adjoint can meet a zero weight; None elsewhere (the product rules' own adjoints)."""
    from .strong_zeros import adjoints_meet_overflow, partials_meet_infinities

    if g is None or not (partials_meet_infinities(t) or adjoints_meet_overflow(t, g)):
        return None
    return (_dot_adjoints if kind == "dot" else _matmul_adjoints)(t, g, None, a, b)
