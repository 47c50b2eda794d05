"""NumPy rules, both modes: products (dot, matmul, inner, outer, tensordot, einsum, kron, vdot, cross).

Together because they are all bilinear: the forward rule is the sum of the product with one factor
replaced by its tangent, and each factor's adjoint contracts g with the other factor.  tensordot
is differentiated as the equivalent einsum.
"""
from __future__ import annotations

import numpy as np

from .. import ops
from ..arrays import in_library_of
from ..tangents import NoTangent
from .numpy_common import _float_dtype, _in_storage, _no_adjoint, _unb
from .registry import defcomplex, defjvp, defvjp
from .strong_products import matrix_product_tangent
from .strong_zeros import vector_product_adjoints

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"  # string.ascii_letters (not imported: 0.5 ms)


# ------------------------------------------------------------------ products
defjvp(np.dot, lambda t, y, a, b: matrix_product_tangent(t, np.dot, a, b))  # (strong terms after an infinite slope)
defjvp(np.matmul, lambda t, y, a, b: matrix_product_tangent(t, np.matmul, a, b))
defjvp(np.inner, lambda t, y, a, b: t.add(t.lin(np.inner, t.d(a), b), t.linr(np.inner, a, t.d(b))))
defjvp(np.outer, lambda t, y, a, b: t.add(t.lin(np.outer, t.d(a), b), t.linr(np.outer, a, t.d(b))))


# ================================================================== reverse rules
defvjp(np.dot, lambda t, g, y, a, b: vector_product_adjoints(t, g, a, b, "dot") or
       (t.call(dot_adjoint_a, g, a, b), t.call(dot_adjoint_b, g, a, b)))
defvjp(np.matmul, lambda t, g, y, a, b: vector_product_adjoints(t, g, a, b) or
       (t.call(matmul_adjoint_a, g, a, b), t.call(matmul_adjoint_b, g, a, b)))


def dot_adjoint_a(g, a, b, _conj=True):
    """np.dot(a, b) sums a's last axis against b's second-to-last (its only one if b is a vector)."""
    if _no_adjoint(g):
        return NoTangent
    a, b, g = in_library_of((a, b, g))
    if _conj and _complex(g, a, b):  # (complex: contract with conj(b), the real part for a real a; README "Complex numbers")
        return _fit(dot_adjoint_a(g, a, np.conj(b), _conj=False), a)
    if a.ndim == 0 or b.ndim == 0:
        return (g * b).sum() if a.ndim == 0 else g * b
    if b.ndim == 1:
        return np.multiply.outer(g, b) if a.ndim > 1 else g * b
    if b.ndim == 2:
        return np.dot(g, b.T) if a.ndim > 1 or g.ndim else g * b
    # y[i.., k.., m] = sum_n a[i.., n] b[k.., n, m]: contract g's (k.., m) with b's (k.., m)
    gk = list(range(a.ndim - 1, g.ndim))
    bk = list(range(b.ndim - 2)) + [b.ndim - 1]
    return np.tensordot(g, b, axes=(gk, bk))


def dot_adjoint_b(g, a, b, _conj=True):
    if _no_adjoint(g):
        return NoTangent
    a, b, g = in_library_of((a, b, g))
    if _conj and _complex(g, a, b):
        return _fit(dot_adjoint_b(g, np.conj(a), b, _conj=False), b)
    if a.ndim == 0 or b.ndim == 0:
        return (g * a).sum() if b.ndim == 0 else g * a
    if a.ndim == 1:
        out = np.multiply.outer(a, g) if b.ndim > 1 else g * a
    else:
        out = np.tensordot(a, g, axes=(list(range(a.ndim - 1)), list(range(a.ndim - 1))))
    return np.moveaxis(out, 0, -2) if b.ndim > 2 else out  # (n, k.., m) -> (k.., n, m)


def _sparse_operand(a, b):
    """0 or 1 where a or b is a scipy.sparse matrix (its rules: rules/scipy_sparse_rules.py), else None."""
    import sys

    sparse = sys.modules.get("scipy.sparse")
    if sparse is None:
        return None
    return 0 if sparse.issparse(a) else 1 if sparse.issparse(b) else None


def matmul_adjoint_a(g, a, b, _conj=True):
    if _no_adjoint(g) or a is NoTangent or b is NoTangent:
        # (a symbolic zero operand, forward code's tangent of a product carried by a loop from a constant start,
        # `dP = dP @ A + P @ dA` with dP zero on entry, reversed at a second order: the product is zero whatever the
        # other operand, and the zero itself takes no adjoint; np.swapaxes of it raised an AxisError)
        return NoTangent
    which = _sparse_operand(a, b)
    if which is not None:  # (`D @ x` typed as a product: a sparse matrix's adjoint is its stored values')
        from . import scipy_sparse_rules as sp

        return sp.sparse_times_matrix_adjoint(g, a, b) if which == 0 else sp.times_sparse_adjoint(g, b, a)
    a, b, g = in_library_of((a, b, g))
    if _conj and _complex(g, a, b):
        return _fit(matmul_adjoint_a(g, a, np.conj(b), _conj=False), a)
    if a.ndim == 2 and b.ndim == 2:
        return g @ b.T
    if a.ndim == 2 and b.ndim == 1:
        return np.outer(g, b)
    if b.ndim == 1:
        return np.multiply.outer(g, b) if a.ndim > 1 else g * b
    gb = np.matmul(g[..., None, :] if a.ndim == 1 else g, np.swapaxes(b, -1, -2))
    gb = gb[..., 0, :] if a.ndim == 1 else gb
    from ..reverse.adjoints import unbroadcast

    return unbroadcast(gb, a)


def matmul_adjoint_b(g, a, b, _conj=True):
    if _no_adjoint(g) or a is NoTangent or b is NoTangent:
        # (a symbolic zero operand, forward code's tangent of a product carried by a loop from a constant start,
        # `dP = dP @ A + P @ dA` with dP zero on entry, reversed at a second order: the product is zero whatever the
        # other operand, and the zero itself takes no adjoint; np.swapaxes of it raised an AxisError)
        return NoTangent
    which = _sparse_operand(a, b)
    if which is not None:
        from . import scipy_sparse_rules as sp

        return sp.sparse_times_adjoint(g, a, b) if which == 0 else sp.times_sparse_matrix_adjoint(g, b, a)
    a, b, g = in_library_of((a, b, g))
    if _conj and _complex(g, a, b):
        return _fit(matmul_adjoint_b(g, np.conj(a), b, _conj=False), b)
    if a.ndim == 2 and b.ndim in (1, 2):
        return a.T @ g  # matrix-vector stays matrix-vector
    if a.ndim == 1:
        return a[:, None] * g[..., None, :] if b.ndim > 1 else g * a
    ga = np.matmul(np.swapaxes(a, -1, -2), g[..., :, None] if b.ndim == 1 else g)
    ga = ga[..., 0] if b.ndim == 1 else ga
    from ..reverse.adjoints import unbroadcast

    return unbroadcast(ga, b)


defvjp(np.outer, lambda t, g, y, a, b: (t.call(outer_adjoint, g, a, b, 0), t.call(outer_adjoint, g, a, b, 1)))
defvjp(np.inner, lambda t, g, y, a, b: (t.call(inner_adjoint_a, g, a, b), t.call(inner_adjoint_b, g, a, b)))


def outer_adjoint(g, a, b, which, _conj=True):
    """np.outer flattens its inputs: y[i, j] = a.flat[i] * b.flat[j]."""
    if _no_adjoint(g):
        return NoTangent
    if _conj and _complex(g, a, b):
        x = a if which == 0 else b
        return _fit(outer_adjoint(g, np.conj(a), np.conj(b), which, _conj=False), x)
    g = np.asarray(g)
    out = g @ np.ravel(b) if which == 0 else g.T @ np.ravel(a)
    x = a if which == 0 else b
    return _scalar_like(x, out.reshape(np.shape(x)))


def inner_adjoint_a(g, a, b, _conj=True):
    """np.inner: y[i.., j..] = sum_k a[i.., k] b[j.., k] (a product when either is a scalar)."""
    if _no_adjoint(g):
        return NoTangent
    if _conj and _complex(g, a, b):
        return _fit(inner_adjoint_a(g, a, np.conj(b), _conj=False), a)
    a, b, g = np.asarray(a), np.asarray(b), np.asarray(g)
    if a.ndim == 0 or b.ndim == 0:
        return (g * b).sum() if a.ndim == 0 else g * b
    nb = b.ndim - 1
    return np.tensordot(g, b, axes=(list(range(g.ndim - nb, g.ndim)), list(range(nb))))


def inner_adjoint_b(g, a, b, _conj=True):
    if _no_adjoint(g):
        return NoTangent
    if _conj and _complex(g, a, b):
        return _fit(inner_adjoint_b(g, np.conj(a), b, _conj=False), b)
    a, b, g = np.asarray(a), np.asarray(b), np.asarray(g)
    if a.ndim == 0 or b.ndim == 0:
        return (g * a).sum() if b.ndim == 0 else g * a
    na = a.ndim - 1
    return np.tensordot(g, a, axes=(list(range(na)), list(range(na))))


def _complex(*values):
    """Is any of the values complex (then adjoints contract with the other factors' conjugates)?"""
    return any(np.iscomplexobj(v) for v in values)


def _fit(res, x):
    """An adjoint for x: its real part where x is real (the adjoint of R -> C), as the kind of number x is."""
    if np.iscomplexobj(res) and not np.iscomplexobj(x):
        res = np.real(res)
    return _scalar_like(x, res) if not isinstance(x, np.ndarray) else res


def _scalar_like(x, arr):
    """arr as the kind of number x is (a Python float for a Python float), arr itself for arrays."""
    if isinstance(x, np.ndarray):
        return arr
    arr = np.asarray(arr)
    if isinstance(x, (bool, int, float)) and arr.ndim == 0:
        return float(arr.real)
    if isinstance(x, complex) and arr.ndim == 0:
        return complex(arr)
    return arr


# ================================================================== products: tensordot, einsum, kron, vdot, cross


def _einsum_terms(subscripts, shapes):
    """The input terms and the output term of an einsum, '...' spelled out as letters, implicit output made explicit."""
    if not isinstance(subscripts, str):
        raise NotImplementedError("derivatives of np.einsum need the subscripts-string form, not the interleaved one")
    s = subscripts.replace(" ", "")
    lhs, out = s.split("->") if "->" in s else (s, None)
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        raise ValueError(f"einsum subscripts {subscripts!r} name {len(terms)} operands, {len(shapes)} given")
    spare = [c for c in _LETTERS if c not in s]
    n_ell = max([len(sh) - (len(tm) - 3) for tm, sh in zip(terms, shapes) if "..." in tm], default=0)
    ell = "".join(spare[:n_ell])
    full = []
    for tm, sh in zip(terms, shapes):
        if "..." in tm:
            k = len(sh) - (len(tm) - 3)
            tm = tm.replace("...", ell[n_ell - k:] if k else "")
        full.append(tm)
    if out is None:
        letters = lhs.replace(".", "").replace(",", "")
        out = ell + "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    else:
        out = out.replace("...", ell)
    return full, out


def einsum_tangent(subscripts, operands, tangents, **kw):
    """Linear in each operand: the sum of einsums with one operand replaced by its tangent."""
    kw = {k: v for k, v in kw.items() if k != "out"}
    total = NoTangent
    for i, d in enumerate(tangents):
        if d is NoTangent:
            continue
        ops_ = list(operands)
        # d itself when it has the operand's shape: then a view einsum returns ("ij->ji", "ii->i") is the same
        # view of the tangent, and writes through it reach the operand's tangent
        ops_[i] = d if np.shape(d) == np.shape(operands[i]) else np.broadcast_to(d, np.shape(operands[i]))
        term = np.einsum(subscripts, *ops_, **kw)
        total = term if total is NoTangent else total + term
    return total


def einsum_adjoint(subscripts, k, g, *operands, _conj=True):
    """The adjoint of operand k: an einsum of g with the other operands onto k's letters.

    Letters only operand k has were summed over: g spreads along them.  A repeated letter (a trace,
    a diagonal) writes the result onto that diagonal of zeros.  Size-1 axes broadcast against larger
    ones are summed back.
    """
    if _no_adjoint(g) or np.ndim(g) == 0 and np.ndim(operands[k]) and not np.any(g):
        return NoTangent
    if len(operands) == 1 and _in_storage(operands[0], g):
        return NoTangent  # y was a view of the operand (e.g. "ij->ji"): its adjoint is already in the operand's storage
    if _conj and _complex(g, *operands):  # (the other operands conjugated; the real part for a real operand)
        conj = [o if j == k else np.conj(o) for j, o in enumerate(operands)]
        return _fit(einsum_adjoint(subscripts, k, g, *[np.asarray(o) for o in conj], _conj=False), operands[k])
    arrays = [np.asarray(o) for o in operands]
    terms, out = _einsum_terms(subscripts, [a.shape for a in arrays])
    mine, x = terms[k], arrays[k]
    uniq = "".join(dict.fromkeys(mine))
    others = [(tm, a) for j, (tm, a) in enumerate(zip(terms, arrays)) if j != k]
    avail = set(out).union(*[set(tm) for tm, _ in others])
    kept = "".join(c for c in uniq if c in avail)
    part = np.einsum(",".join([out] + [tm for tm, _ in others]) + "->" + kept, np.asarray(g), *[a for _, a in others])
    own = dict(zip(mine, x.shape))
    part = part.reshape([part.shape[kept.index(c)] if c in avail else 1 for c in uniq])
    for ax, c in enumerate(uniq):
        if own[c] == 1 and part.shape[ax] != 1:
            part = part.sum(axis=ax, keepdims=True)
    part = np.broadcast_to(part, [own[c] for c in uniq])
    dtype = np.result_type(part.dtype, _float_dtype(x))
    if len(uniq) == len(mine):
        res = np.array(part, dtype=dtype)
    else:
        res = np.zeros(x.shape, dtype=dtype)
        np.einsum(mine + "->" + uniq, res)[...] = part  # a writable view of the diagonal
    return _scalar_like(operands[k], res)


def _einsum_jvp(t, subscripts, operands, k):
    if all(t.d(o) is None for o in operands):
        return None
    return t.call(einsum_tangent, subscripts, t.call(ops.tuple_of, *operands), t.call(ops.tuple_of, *[t.dz(o) for o in operands]), **k)


def _interleaved_subscripts(args):
    """np.einsum(op0, sublist0, op1, sublist1, ..., [sublist_out]) as (subscripts string, operands)."""
    def term(sub):
        return "".join("..." if i is Ellipsis else _LETTERS[int(i)] for i in sub)

    ops_ = list(args[0::2])
    subs = list(args[1::2])
    if len(args) % 2:
        out = args[-1]
        ops_ = ops_[:-1]
        return ",".join(term(sb) for sb in subs) + "->" + term(out), ops_
    return ",".join(term(sb) for sb in subs), ops_


def einsum_tangent_any(args, dargs, **kw):
    """einsum's tangent in either calling form (subscripts string, or interleaved operands and sublists)."""
    if isinstance(args[0], str):
        return einsum_tangent(args[0], args[1:], dargs[1:], **kw)
    subscripts, operands = _interleaved_subscripts(args)
    return einsum_tangent(subscripts, operands, list(dargs[0::2])[:len(operands)], **kw)


def einsum_adjoint_any(i, g, *args):
    """The adjoint of einsum's positional argument i in either calling form (zero for subscripts and sublists)."""
    if isinstance(args[0], str):
        return NoTangent if i == 0 else einsum_adjoint(args[0], i - 1, g, *args[1:])
    subscripts, operands = _interleaved_subscripts(args)
    if i % 2 or i // 2 >= len(operands):
        return NoTangent
    return einsum_adjoint(subscripts, i // 2, g, *operands)


def _einsum_jvp_any(t, args, k):
    if isinstance(t.value(args[0]), str):
        return _einsum_jvp(t, args[0], args[1:], k)
    if all(t.d(o) is None for o in args):
        return None
    return t.call(einsum_tangent_any, t.call(ops.tuple_of, *args), t.call(ops.tuple_of, *[t.dz(o) for o in args]), **k)


def _einsum_vjp_any(t, g, args):
    if isinstance(t.value(args[0]), str):
        return (None,) + tuple(t.call(einsum_adjoint, args[0], i, g, *args[1:]) for i in range(len(args) - 1))
    return tuple(t.call(einsum_adjoint_any, i, g, *args) for i in range(len(args)))


defjvp(np.einsum, lambda t, y, *args, **k: _einsum_jvp_any(t, args, k))
defvjp(np.einsum, lambda t, g, y, *args, **k: _einsum_vjp_any(t, g, args))


def tensordot_subscripts(a, b, axes=2):
    """np.tensordot(a, b, axes) as einsum subscripts."""
    na, nb = np.ndim(a), np.ndim(b)
    if np.ndim(axes) == 0:
        axes = int(axes)
        ax_a, ax_b = list(range(na - axes, na)), list(range(axes))
    else:
        ax_a, ax_b = axes
        ax_a = [ax_a] if np.ndim(ax_a) == 0 else list(ax_a)
        ax_b = [ax_b] if np.ndim(ax_b) == 0 else list(ax_b)
    ax_a = [int(i) % na for i in ax_a]
    ax_b = [int(i) % nb for i in ax_b]
    letters = iter(_LETTERS)
    la = [next(letters) for _ in range(na)]
    lb = [""] * nb
    for i, j in zip(ax_a, ax_b):
        lb[j] = la[i]
    lb = [c or next(letters) for c in lb]
    out = [la[i] for i in range(na) if i not in ax_a] + [lb[j] for j in range(nb) if j not in ax_b]
    return "".join(la) + "," + "".join(lb) + "->" + "".join(out)


def tensordot_right(db, a, axes=2):
    return np.tensordot(a, db, axes)


def tensordot_adjoint(k, g, a, b, axes=2):
    if _no_adjoint(g):
        return NoTangent
    return einsum_adjoint(tensordot_subscripts(a, b, axes), k, g, a, b)


defjvp(np.tensordot, lambda t, y, a, b, axes=2: t.add(t.lin(np.tensordot, t.d(a), b, axes), t.lin(tensordot_right, t.d(b), a, axes)))
defvjp(np.tensordot, lambda t, g, y, a, b, axes=2: (t.call(tensordot_adjoint, 0, g, a, b, axes), t.call(tensordot_adjoint, 1, g, a, b, axes), None))


def kron_adjoint(k, g, a, b, _conj=True):
    """kron(a, b) viewed with shape (a0, b0, a1, b1, ...) is the outer product: contract g with the other factor."""
    if _no_adjoint(g):
        return NoTangent
    if _conj and _complex(g, a, b):
        return _fit(kron_adjoint(k, g, np.conj(a) if k == 1 else a, np.conj(b) if k == 0 else b, _conj=False), a if k == 0 else b)
    A, B = np.asarray(a), np.asarray(b)
    nd = max(A.ndim, B.ndim)
    sa = (1,) * (nd - A.ndim) + A.shape
    sb = (1,) * (nd - B.ndim) + B.shape
    G = np.asarray(g).reshape([n for pair in zip(sa, sb) for n in pair])
    la, lb = _LETTERS[:nd], _LETTERS[nd:2 * nd]
    lg = "".join(p + q for p, q in zip(la, lb))
    if k == 0:
        res = np.einsum(f"{lg},{lb}->{la}", G, B.reshape(sb)).reshape(A.shape)
    else:
        res = np.einsum(f"{lg},{la}->{lb}", G, A.reshape(sa)).reshape(B.shape)
    return _scalar_like(a if k == 0 else b, res)


defjvp(np.kron, lambda t, y, a, b: t.add(t.lin(np.kron, t.d(a), b), t.linr(np.kron, a, t.d(b))))
defvjp(np.kron, lambda t, g, y, a, b: (t.call(kron_adjoint, 0, g, a, b), t.call(kron_adjoint, 1, g, a, b)))


def vdot_adjoint(g, a, b, which):
    """vdot(a, b) = sum(conj(a) * b) over the flattened arrays: a's adjoint conj(g) b, b's g a."""
    if _no_adjoint(g):
        return NoTangent
    other = b if which == 0 else a
    res = (np.conjugate(g) if which == 0 else g) * np.ravel(other)
    x = a if which == 0 else b
    return _fit(res.reshape(np.shape(x)), x)


defjvp(np.vdot, lambda t, y, a, b: t.add(t.lin(np.vdot, t.d(a), b), t.linr(np.vdot, a, t.d(b))))
defvjp(np.vdot, lambda t, g, y, a, b: (t.call(vdot_adjoint, g, a, b, 0), t.call(vdot_adjoint, g, a, b, 1)))


def _cross_axes(a, b, kw):
    """(axisa, axisb, axisc) of np.cross (`axis` overrides all three); 3-vectors only (the cross
    product of 2-vectors, a number, is refused)."""
    unknown = set(kw) - {"axisa", "axisb", "axisc", "axis"}
    if unknown:
        raise NotImplementedError(f"derivative of np.cross with {sorted(unknown)}")
    axes = [kw.get(n, -1) for n in ("axisa", "axisb", "axisc")]
    if kw.get("axis") is not None:
        axes = [kw["axis"]] * 3
    if np.ndim(a) == 0 or np.ndim(b) == 0 or np.shape(a)[axes[0]] not in (2, 3) or np.shape(b)[axes[1]] not in (2, 3):
        raise NotImplementedError("derivative of np.cross: 2- or 3-vectors only")
    return axes


def _as3(v):
    """A 2-vector (last axis) as the 3-vector np.cross takes it for: z = 0."""
    return v if v.shape[-1] == 3 else np.concatenate([v, np.zeros(v.shape[:-1] + (1,), dtype=v.dtype)], axis=-1)


def cross_tangent(a, b, da, db, **kw):
    """Bilinear: d(a x b) = da x b + a x db, with the same axes."""
    _cross_axes(a, b, kw)
    out = NoTangent
    if da is not NoTangent:
        out = np.cross(np.broadcast_to(da, np.shape(a)), b, **kw)
    if db is not NoTangent:
        out = out + np.cross(a, np.broadcast_to(db, np.shape(b)), **kw)
    return out


def cross_adjoint(g, a, b, which, **kw):
    """y = a x b (vectors along the last axes): a's adjoint is b x g, b's is g x a (then summed over
    broadcast axes); other axes are moved last and back."""
    axa, axb, axc = _cross_axes(a, b, kw)
    if _no_adjoint(g):
        return NoTangent
    a_, b_ = np.moveaxis(np.asarray(a), axa, -1), np.moveaxis(np.asarray(b), axb, -1)
    if a_.shape[-1] == 2 and b_.shape[-1] == 2:  # the result is the z component, a number per pair
        g_ = np.asarray(g)[..., None] * np.array([0.0, 0.0, 1.0])
    else:
        g_ = np.moveaxis(np.asarray(g), axc, -1)
    a3, b3 = _as3(a_), _as3(b_)
    res = np.cross(b3, g_) if which == 0 else np.cross(g_, a3)
    x_ = a_ if which == 0 else b_
    return np.moveaxis(_unb(res[..., :x_.shape[-1]], x_), -1, axa if which == 0 else axb)


defjvp(np.cross, lambda t, y, a, b, **k: t.call(cross_tangent, a, b, t.dz(a), t.dz(b), **k) if (t.d(a) is not None or t.d(b) is not None) else None)
defvjp(np.cross, lambda t, g, y, a, b, **k: (t.call(cross_adjoint, g, a, b, 0, **k), t.call(cross_adjoint, g, a, b, 1, **k)))


defcomplex(np.dot, np.matmul, np.inner, np.outer, np.einsum, np.tensordot, np.kron, np.vdot)
