"""scipy.linalg.solve_banded, both modes (real matrices): SciPy's CubicSpline and other splines solve with it.

solve_banded((l, u), ab, b) solves A x = b for the matrix A stored by diagonals: A[i, j] = ab[u + i - j, j]
(entries of ab outside the band are never read).  As for any linear solve, dx = A^-1 (db - dA x), and in
reverse b_bar = A^-T x_bar, A_bar = -b_bar x^T, read back into band storage (ab_bar zero where ab is unused).
A^T is banded too, with the bandwidths swapped: A^T[i, j] = abT[l + i - j, j] with
abT[r, j] = ab[l + u - r, j + r - l], so the pullback solves with solve_banded as well.

The rules run the call themselves (not a template after it), with `overwrite_ab` and `overwrite_b` off:
CubicSpline passes both, which lets LAPACK destroy ab (the derivative reads it) and return b itself as
the solution (one object for two values with different adjoints).  SciPy promises only that the arrays
*may* be overwritten, so leaving them intact is one of the plain call's outcomes.  In forward mode ab
and b are taken positionally (their tangents are not handed to a run-time rule by keyword).  Complex
matrices: forward mode (the same formula); reverse mode refuses them.
"""
from __future__ import annotations

import inspect

import numpy as np

from ..tangents import NoTangent

FUNCTIONS = ["linalg.solve_banded"]


def _linalg():
    import scipy.linalg

    return scipy.linalg


def _zero(v):
    return v is None or v is NoTangent


def _bound(args, kwargs):
    b = inspect.signature(_linalg().solve_banded).bind(*args, **kwargs)
    b.apply_defaults()
    return b.arguments


def _band_matvec(ab, x, lower, upper):
    """A @ x for A stored by diagonals (x of shape (n,) or (n, k))."""
    ab = np.asarray(ab)
    x = np.asarray(x)
    n = ab.shape[1]
    out = np.zeros(np.broadcast_shapes(x.shape, x.shape), dtype=np.result_type(ab, x))
    for r in range(lower + upper + 1):
        k = r - upper  # row i = j + k
        lo, hi = max(0, -k), min(n, n - k)
        if lo >= hi:
            continue
        d = ab[r, lo:hi]
        out[lo + k:hi + k] += d[:, None] * x[lo:hi] if x.ndim == 2 else d * x[lo:hi]
    return out


def _transposed(ab, lower, upper):
    """The band storage of A^T (lower bandwidth `upper`, upper bandwidth `lower`)."""
    ab = np.asarray(ab)
    n = ab.shape[1]
    out = np.zeros_like(ab)
    for r in range(lower + upper + 1):
        s = r - lower  # column shift: abT[r, j] = ab[l + u - r, j + s]
        lo, hi = max(0, -s), min(n, n - s)
        if lo < hi:
            out[r, lo:hi] = ab[lower + upper - r, lo + s:hi + s]
    return out


def _band_outer(bbar, x, lower, upper, n):
    """-(b_bar x^T) read into band storage: ab_bar[r, j] = -sum_c b_bar[j + r - u, c] x[j, c]."""
    bbar2 = bbar.reshape(n, -1)
    x2 = np.asarray(x).reshape(n, -1)
    out = np.zeros((lower + upper + 1, n))
    for r in range(lower + upper + 1):
        k = r - upper
        lo, hi = max(0, -k), min(n, n - k)
        if lo < hi:
            out[r, lo:hi] = -np.sum(bbar2[lo + k:hi + k] * x2[lo:hi], axis=1)
    return out


def _real(*xs):
    if any(np.iscomplexobj(x) for x in xs if not _zero(x)):
        raise NotImplementedError("derivative of scipy.linalg.solve_banded of complex matrices")


def _intact(kwargs):
    """The call's keywords with nothing overwritten (see the module's docstring)."""
    return {**kwargs, "overwrite_ab": False, "overwrite_b": False}


def _args(args):
    return tuple(args[:3])  # (overwrite_ab, overwrite_b, check_finite after them: given by keyword)


def solve_banded_frule(args, dargs, **kwargs):
    """Forward: x = A^-1 b, dx = A^-1 (db - dA x)."""
    la = _linalg()
    p = _bound(args, kwargs)
    dargs = tuple(dargs) + (NoTangent,) * (len(args) - len(dargs))
    if len(args) < 3 and any(k in kwargs for k in ("ab", "b")):
        raise NotImplementedError("forward mode of scipy.linalg.solve_banded: pass ab and b positionally")
    (lower, upper), ab, b = p["l_and_u"], p["ab"], p["b"]
    dab, db = dargs[1] if len(args) > 1 else NoTangent, dargs[2] if len(args) > 2 else NoTangent
    x = la.solve_banded(*_args(args), **_intact({**kwargs, "check_finite": p["check_finite"]}))
    if _zero(dab) and _zero(db):
        return x, NoTangent
    rhs = np.zeros(np.shape(x)) if _zero(db) else np.asarray(db).reshape(np.shape(x))
    if not _zero(dab):
        rhs = rhs - _band_matvec(dab, x, lower, upper)
    return x, la.solve_banded((lower, upper), ab, rhs, check_finite=False)


def solve_banded_rrule(*args, **kwargs):
    """Reverse: b_bar = A^-T x_bar, ab_bar = band(-b_bar x^T)."""
    from .call_binding import KwAdj

    la = _linalg()
    p = _bound(args, kwargs)
    (lower, upper), ab, b = p["l_and_u"], p["ab"], p["b"]
    x = la.solve_banded(*_args(args), **_intact({**kwargs, "check_finite": p["check_finite"]}))

    def pullback(g):
        if _zero(g):
            return (NoTangent,) * len(args) + ((KwAdj(),) if kwargs else ())
        _real(ab, g)
        n = np.shape(ab)[1]
        bbar = la.solve_banded((upper, lower), _transposed(ab, lower, upper),
                               np.asarray(g, dtype=float).reshape(np.shape(x)), check_finite=False)
        abbar = _band_outer(bbar, x, lower, upper, n)
        bbar = bbar.reshape(np.shape(b))
        out = {"l_and_u": NoTangent, "ab": abbar, "b": bbar}
        names = list(inspect.signature(la.solve_banded).parameters)
        pos = tuple(out.get(names[i], NoTangent) for i in range(len(args)))
        named = {k: out[k] for k in kwargs if k in out and out[k] is not NoTangent}
        return pos + ((KwAdj(named),) if named else ())

    return x, pullback


def register(REGISTERED) -> None:
    """Register the rules (scipy_linalg_rules.register calls this once scipy.linalg is imported)."""
    from .registry import defrrule_at_run_time, defrule

    la = _linalg()
    REGISTERED[la.solve_banded] = "linalg.solve_banded"
    defrule(la.solve_banded, solve_banded_frule)
    defrrule_at_run_time(la.solve_banded, solve_banded_rrule)
