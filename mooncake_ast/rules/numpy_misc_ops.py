"""NumPy rules, both modes, for a few array functions real code uses (issue 12): np.divmod,
np.ldexp, np.around, np.resize, np.ediff1d and np.choose.

* divmod(a, b) = (floor(a / b), a - floor(a / b) b): the quotient moves in jumps (derivative 0, the
  jumps themselves counted as 0, like np.floor_divide); the remainder is np.remainder's.
* ldexp(x, i) = x 2^i with an integer exponent: linear in x.
* around(a, decimals): jumps (derivative 0), like np.round.
* resize(a, shape) repeats a's entries (flattened, C order) until the new size: linear; the adjoint
  of an entry sums the adjoints of its copies.
* ediff1d(ary, to_end, to_begin) = [to_begin, differences of ary.ravel(), to_end]: linear in all three.
* choose(a, choices) picks, entry by entry, from the choice a names (a: integers, no derivative):
  linear in the choices; a choice's adjoint is the result's where it was picked (summed over the
  axes it was broadcast along).  mode='wrap'/'clip' map a the way NumPy does.
"""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent
from .numpy_common import _dense, _no_adjoint, _split, _unb
from .call_binding import KwAdj
from .registry import defjvp, defvjp, defzero


def _none(v):
    return v is None or v is NoTangent


# ------------------------------------------------------------------ np.divmod
def divmod_tangent(a, b, y, da, db):
    q = np.asarray(y[0])
    dr = 0.0
    if not _none(da):
        dr = dr + da
    if not _none(db):
        dr = dr - q * db
    dr = np.broadcast_to(np.asarray(dr, dtype=np.result_type(float, q.dtype)), q.shape)
    dq = np.zeros(q.shape, dtype=dr.dtype)
    return (dq[()], dr[()]) if q.ndim == 0 else (dq, np.array(dr))


def divmod_adjoints(a, b, y, g):
    """(a's adjoint, b's adjoint) from the adjoint of (quotient, remainder): the remainder's only."""
    gr = NoTangent if _no_adjoint(g) else g[1]
    if _no_adjoint(gr):
        return NoTangent, NoTangent
    gr = np.asarray(gr)
    return _unb(gr, a), _unb(-gr * np.asarray(y[0]), b)


defjvp(np.divmod, lambda t, y, a, b, **k: t.call(divmod_tangent, a, b, y, t.d(a), t.d(b))
       if (t.d(a) is not None or t.d(b) is not None) else None)
defvjp(np.divmod, lambda t, g, y, a, b, **k: _split(t, t.call(divmod_adjoints, a, b, y, g), 2))

# ------------------------------------------------------------------ np.ldexp, np.around
defjvp(np.ldexp, lambda t, y, x, i, **k: t.mul(t.d(x), t.call(np.ldexp, 1.0, i)) if t.d(x) is not None else None)
defvjp(np.ldexp, lambda t, g, y, x, i, **k: (t.unb(t.mul(g, t.call(np.ldexp, 1.0, i)), x), None))
defzero(np.around)
# whether two arrays overlap in memory: a bool, a question about storage (`if np.shares_memory(y, z): z = z.copy()`)
defzero(np.shares_memory, np.may_share_memory)


# ------------------------------------------------------------------ np.resize
def resize_adjoint(a, g):
    if _no_adjoint(g):
        return NoTangent
    n = int(np.size(a))
    flat = np.asarray(g).reshape(-1)
    out = np.zeros(n, dtype=np.result_type(float, flat.dtype))
    if n and flat.size:
        np.add.at(out, np.arange(flat.size) % n, flat)
    out = out.reshape(np.shape(a))
    return out[()] if out.ndim == 0 else out


defjvp(np.resize, lambda t, y, a, new_shape: t.lin(np.resize, t.d(a), new_shape))
defvjp(np.resize, lambda t, g, y, a, new_shape: (t.call(resize_adjoint, a, g), None))


# ------------------------------------------------------------------ np.ediff1d
def _ediff_parts(to_end, to_begin):
    nb = 0 if to_begin is None else int(np.size(to_begin))
    ne = 0 if to_end is None else int(np.size(to_end))
    return nb, ne


def ediff1d_tangent(ary, dary, to_end, dend, to_begin, dbegin):
    def dense(x, d):
        if x is None:
            return None
        kind = np.result_type(float, np.asarray(x).dtype, np.asarray(d).dtype if not _none(d) else float)
        return np.asarray(_dense(x, d) if not _none(d) else np.zeros(np.shape(x)), dtype=kind)

    return np.ediff1d(dense(ary, dary), to_end=dense(to_end, dend), to_begin=dense(to_begin, dbegin))


def ediff1d_adjoints(ary, to_end, to_begin, g):
    """(ary's, to_end's, to_begin's adjoints)."""
    if _no_adjoint(g):
        return NoTangent, NoTangent, NoTangent
    g = np.asarray(g)
    nb, ne = _ediff_parts(to_end, to_begin)
    n = int(np.size(ary))
    gd = g[nb:nb + max(n - 1, 0)]
    abar = np.zeros(n)
    if n > 1:
        abar[1:] += gd
        abar[:-1] -= gd
    abar = abar.reshape(np.shape(ary))

    def shaped(part, like):
        if like is None:
            return NoTangent
        part = part.reshape(np.shape(like)) if np.size(like) == part.size else part
        return part[()] if isinstance(part, np.ndarray) and part.ndim == 0 else part

    return abar, shaped(g[len(g) - ne:] if ne else g[:0], to_end), shaped(g[:nb], to_begin)


def _ediff_bind(p, k):
    names = ("to_end", "to_begin")
    b = dict(zip(names, p))
    b.update(k)
    return b.get("to_end"), b.get("to_begin")


def _ediff_jvp(t, y, ary, p, k):
    end, begin = _ediff_bind(p, k)
    if t.d(ary) is None and (end is None or t.d(end) is None) and (begin is None or t.d(begin) is None):
        return None
    return t.call(ediff1d_tangent, ary, t.dz(ary), end, None if end is None else t.dz(end),
                  begin, None if begin is None else t.dz(begin))


def _ediff_vjp(t, g, y, ary, p, k):
    end, begin = _ediff_bind(p, k)
    abar, ebar, bbar = _split(t, t.call(ediff1d_adjoints, ary, end, begin, g), 3)
    pos = (abar, ebar, bbar)[:1 + len(p)]
    named = {n: v for n, v in (("to_end", ebar), ("to_begin", bbar)) if n in k}
    return pos + ((KwAdj(named),) if named else ())


defjvp(np.ediff1d, lambda t, y, ary, *p, **k: _ediff_jvp(t, y, ary, p, k))
defvjp(np.ediff1d, lambda t, g, y, ary, *p, **k: _ediff_vjp(t, g, y, ary, p, k))


# ------------------------------------------------------------------ np.choose
def _choose_mode(k):
    if k.get("out") is not None:
        raise NotImplementedError("derivative of np.choose with out=")
    return k.get("mode", "raise")


def _picked(a, n, mode):
    a = np.asarray(a)
    if mode == "wrap":
        return a % n
    if mode == "clip":
        return np.clip(a, 0, n - 1)
    return a


def choose_tangent(a, choices, dchoices, mode="raise"):
    from .builtin_iteration import iter_tangents

    ds = [NoTangent] * len(choices) if _none(dchoices) else list(iter_tangents(choices, dchoices))
    dense = [np.zeros(np.shape(c)) if _none(d) else np.asarray(_dense(c, d), dtype=np.result_type(float, np.asarray(d).dtype))
             for c, d in zip(choices, ds)]
    return np.choose(a, dense, mode=mode)


def choose_adjoint(a, choices, g, mode="raise"):
    from ..reverse.adjoints import AdjList, AdjTuple

    if _no_adjoint(g):
        return NoTangent
    g = np.asarray(g)
    idx = np.broadcast_to(_picked(a, len(choices), mode), g.shape)
    bars = [_unb(np.where(idx == i, g, 0.0), np.asarray(c)) for i, c in enumerate(choices)]
    return AdjList(bars) if isinstance(choices, list) else AdjTuple(bars)


defjvp(np.choose, lambda t, y, a, choices, **k: t.call(choose_tangent, a, choices, t.d(choices), _choose_mode(k))
       if t.d(choices) is not None else None)
defvjp(np.choose, lambda t, g, y, a, choices, **k: (None, t.call(choose_adjoint, a, choices, g, _choose_mode(k))))

from .numpy_methods import _as_method  # noqa: E402

_as_method("choose", np.choose)  # a.choose(choices): self is np.choose's first operand (the indices)


def _polymul_like_convolve():
    """np.polymul(a1, a2) of coefficient arrays is np.convolve(a1, a2): the same rule (it went through poly1d
    objects, whose tangents the convolution could not read)."""
    from .registry import defvjp, lookup

    r = lookup(np.convolve)
    if r is not None and (r.jvp_template or r.jvp) is not None and r.vjp is not None:
        defjvp(np.polymul, r.jvp_template or r.jvp)
        defvjp(np.polymul, getattr(r.vjp, "__wrapped__", r.vjp))


_polymul_like_convolve()
