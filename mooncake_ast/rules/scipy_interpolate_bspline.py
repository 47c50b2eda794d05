"""The compiled pieces of SciPy's B-splines, both modes: what make_interp_spline, interp1d(kind='cubic' / 'quadratic'
/ ...), BSpline and make_lsq_spline's callers reach once the transforms trace their Python; registered by
scipy_interpolate_rules.register().  This module never imports SciPy itself (its register() does).

* `_dierckx.evaluate_spline(t, c, k, xp, nu, extrapolate)` gives out[p, j] = sum_i c[i, j] B_i^(nu)(xp[p]):
  linear in c, so dout = evaluate_spline(dc) + D dxp (D: the same with nu + 1, zero past the degree); in
  reverse c_bar = B^T g (B[p, i] = B_i^(nu)(xp[p]), evaluated a block of unit coefficient columns at a time)
  and xp_bar[p] = sum_j D[p, j] g[p, j].  Points outside the knots without extrapolation give NaN values;
  where their adjoint is zero they contribute nothing.
* LAPACK `dgbsv(kl, ku, ab, b)` (make_interp_spline's banded solve; A[i, j] = ab[kl + ku + i - j, j]) gives
  (lu, piv, x, info) with x = A^-1 b: dx = A^-1 (db - dA x), b_bar = A^-T x_bar (dgbtrs with the same LU,
  transposed), ab_bar = band(-b_bar x^T) in the rows A occupies (the first kl rows are LAPACK's workspace).  The
  call runs without overwrite_ab / overwrite_b (SciPy only says they *may* be overwritten), so ab and b stay
  intact for the derivative.  The LU factors themselves get no derivative: a tangent or adjoint that refuses
  any use (make_interp_spline discards them).  Real matrices only (dgbsv is the real routine).
* The collocation matrix (`_dierckx._coloc(x, t, k, ab, offset)`, written into ab) and the boundary rows
  (`_dierckx.evaluate_all_bspl(t, k, xval, left, nu)`) depend on the data sites x and the knots t.  Their
  derivative there (and evaluate_spline's in t) is not implemented: a differentiated x or t is refused by name in
  forward mode, and gets a NaN adjoint in reverse mode (see _unknown_adjoint: discarded with the storage of a
  constant, as x and t are when only the data values y are differentiated; NaN in the gradient of a
  differentiated input, never a plausible number).  _coloc's overwritten entries of ab lose their old adjoint.
"""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent

FUNCTIONS = ["interpolate._dierckx.evaluate_spline", "interpolate._dierckx._coloc",
             "interpolate._dierckx.evaluate_all_bspl", "interpolate._dierckx.find_interval", "linalg.lapack.dgbsv",
             "linalg.lapack.get_lapack_funcs", "linalg.blas.get_blas_funcs"]

_SITES = ("derivative of a scipy.interpolate B-spline (make_interp_spline, interp1d(kind='cubic'), BSpline) with "
          "respect to its data sites x or knots t is not implemented; only the data values y and the points where "
          "the spline is read are differentiated.  Make x and the knots constants (e.g. compute them from "
          "constants), or use scipy.interpolate.CubicSpline, which is differentiated in its sites")
_LU = ("derivative of the LU factors returned by scipy.linalg.lapack.dgbsv is not implemented (only its solution x "
       "is differentiated)")


def _dierckx():
    from scipy.interpolate import _dierckx

    return _dierckx


def _lapack():
    from scipy.linalg import lapack

    return lapack


def _zero(v):
    return v is None or v is NoTangent or (isinstance(v, (np.ndarray, float, int)) and not np.any(v))


def _refused(message):
    from .scipy_special_more import RefusedAdjoint

    return RefusedAdjoint(message)


def _refuse_live(*tangents):
    if not all(_zero(d) for d in tangents):
        raise NotImplementedError(_SITES)


def _pad(dargs, n):
    return tuple(dargs) + (NoTangent,) * (n - len(dargs))


# ------------------------------------------------------------------ the sites and knots in reverse mode
def _unknown_adjoint(v):
    """The adjoint of the sites or knots, whose derivative is not implemented: NaN.  A run-time pullback cannot
    tell whether the array it was given is differentiated (the knots are an attribute of the BSpline object, and
    arrays' adjoints go into storage that takes what it is given, so a refusal that waits to be read cannot be
    stored there).  NaN is discarded with the storage of a constant, and reaches the gradient of a differentiated
    input as NaN: never a plausible number.  (Forward mode refuses by name.)"""
    return np.full(np.shape(v), np.nan)


# ------------------------------------------------------------------ evaluate_spline
def _basis_adjoint(t, k, xp, nu, extrapolate, g, ncoef):
    """c_bar = B^T g, B built a block of unit coefficient columns at a time (memory O(len(xp) * block))."""
    ev = _dierckx().evaluate_spline
    quiet = ~np.any(g != 0, axis=1)  # (points whose value was not used: NaN basis rows contribute nothing)
    cbar = np.zeros((ncoef, g.shape[1]))
    block = 256
    for j0 in range(0, ncoef, block):
        j1 = min(ncoef, j0 + block)
        unit = np.zeros((ncoef, j1 - j0))
        unit[np.arange(j0, j1), np.arange(j1 - j0)] = 1.0
        B = ev(t, unit, k, xp, nu, extrapolate)
        B[quiet] = 0.0
        cbar[j0:j1] = B.T @ g
    return cbar


def evaluate_spline_frule(args, dargs, **kwargs):
    ev = _dierckx().evaluate_spline
    t, c, k, xp, nu, extrapolate = (list(args) + [kwargs.get(n) for n in ("t", "c", "k", "xp", "nu", "extrapolate")
                                                  [len(args):]])[:6]
    dt, dc, _, dxp = _pad(dargs, 4)[:4]
    y = ev(*args, **kwargs)
    _refuse_live(dt)
    if _zero(dc) and _zero(dxp):
        return y, NoTangent
    dy = np.zeros(y.shape) if _zero(dc) else ev(t, np.ascontiguousarray(dc, dtype=float), k, xp, nu, extrapolate)
    if not _zero(dxp):
        dy = dy + ev(t, c, k, xp, nu + 1, extrapolate) * np.asarray(dxp, dtype=float).reshape(-1, 1)
    return y, dy


def evaluate_spline_rrule(*args, **kwargs):
    from .call_binding import KwAdj

    ev = _dierckx().evaluate_spline
    names = ("t", "c", "k", "xp", "nu", "extrapolate")
    b = dict(zip(names, args))
    b.update(kwargs)
    t, c, k, xp, nu, extrapolate = (b.get(n) for n in names)
    y = ev(*args, **kwargs)

    def pullback(g):
        bars = dict.fromkeys(names, NoTangent)
        if not _zero(g):
            g = np.asarray(g)
            if np.iscomplexobj(g):
                raise NotImplementedError("reverse mode of a scipy.interpolate B-spline with complex values")
            g = g.reshape(y.shape)
            bars["c"] = _basis_adjoint(t, k, xp, nu, extrapolate, g, np.shape(c)[0]).reshape(np.shape(c))
            D = ev(t, c, k, xp, nu + 1, extrapolate)
            slope = np.where(g != 0, D * g, 0.0).sum(axis=1)
            bars["xp"] = slope.reshape(np.shape(xp))
            if np.any(c) and np.any(g):
                bars["t"] = _unknown_adjoint(t)
        pos = tuple(bars[names[i]] for i in range(len(args)))
        named = {n: bars[n] for n in kwargs if bars.get(n, NoTangent) is not NoTangent}
        return pos + ((KwAdj(named),) if named else ())

    return y, pullback


# ------------------------------------------------------------------ evaluate_all_bspl (boundary derivative rows)
def evaluate_all_bspl_frule(args, dargs, **kwargs):
    y = _dierckx().evaluate_all_bspl(*args, **kwargs)
    dt, _, dxval = _pad(dargs, 3)[:3]
    _refuse_live(dt, dxval)
    return y, NoTangent


def evaluate_all_bspl_rrule(*args, **kwargs):
    y = _dierckx().evaluate_all_bspl(*args, **kwargs)

    def pullback(g):
        live = not _zero(g)  # (the knots t are the first operand, the point xval the third)
        return tuple(_unknown_adjoint(a) if live and i in (0, 2) else NoTangent for i, a in enumerate(args))

    return y, pullback


# ------------------------------------------------------------------ _coloc (writes the collocation matrix)
def _written(x, t, k, ab, offset):
    """Which entries of ab _coloc writes (run on a NaN-filled copy)."""
    probe = np.full(np.shape(ab), np.nan, order="C" if np.asarray(ab).flags.c_contiguous else "F")
    _dierckx()._coloc(x, t, k, probe, offset)
    return ~np.isnan(probe)


def coloc_tangent(x, t, k, ab, offset, dx, dt, dab):
    """Forward: refuses differentiated sites or knots; the written entries of ab get a zero tangent."""
    _refuse_live(dx, dt)
    if not _zero(dab):
        dab[_written(x, t, k, ab, offset)] = 0.0
    return None


def _coloc_jvp(t, y, x, knots, k, ab, offset=0):
    if t.d(x) is None and t.d(knots) is None and t.d(ab) is None:
        return None
    t.call(coloc_tangent, x, knots, k, ab, offset, t.dz(x), t.dz(knots), t.dz(ab))
    return None


def coloc_rrule(*args, **kwargs):
    from ..reverse import shadows
    from .call_binding import KwAdj

    names = ("x", "t", "k", "ab", "offset")
    b = dict(zip(names, args))
    b.update(kwargs)
    ab = b["ab"]
    old = ab.copy()
    mask = _written(b["x"], b["t"], b["k"], ab, b.get("offset", 0) or 0)
    y = _dierckx()._coloc(*args, **kwargs)

    def pullback(g):
        shadows.remember(ab)
        sh = shadows.shadow(ab)
        used = bool(np.any(np.asarray(sh)[mask]))
        sh[mask] = 0.0  # (overwritten: their old values had no influence)
        ab[...] = old
        bars = dict.fromkeys(names, NoTangent)
        if used:
            bars["x"], bars["t"] = _unknown_adjoint(b["x"]), _unknown_adjoint(b["t"])
        pos = tuple(bars[names[i]] for i in range(len(args)))
        named = {n: bars[n] for n in kwargs if bars.get(n, NoTangent) is not NoTangent}
        return pos + ((KwAdj(named),) if named else ())

    return y, pullback


# ------------------------------------------------------------------ dgbsv
def _gbsv_parts(args, kwargs):
    names = ("kl", "ku", "ab", "b")
    b = dict(zip(names, args))
    b.update({n: kwargs[n] for n in names if n in kwargs})
    return b["kl"], b["ku"], np.asarray(b["ab"]), np.asarray(b["b"])


def _gbsv_intact(args, kwargs):
    kl, ku, ab, rhs = _gbsv_parts(args, kwargs)
    if np.iscomplexobj(ab) or np.iscomplexobj(rhs):
        raise NotImplementedError("derivative of scipy.linalg.lapack.dgbsv of complex values")
    return kl, ku, ab, rhs, _lapack().dgbsv(kl, ku, ab, rhs, overwrite_ab=0, overwrite_b=0)


def _band_rows(ab, kl):
    return np.asarray(ab)[kl:]


def _gbtrs(lu, kl, ku, r, piv, trans):
    """A^-1 r (trans 0) or A^-T r (trans 1) with dgbsv's factors."""
    shape = np.shape(r)
    out, _ = _lapack().dgbtrs(lu, kl, ku, np.asarray(r, dtype=float).reshape(shape[0], -1), piv, trans=trans)
    return out.reshape(shape)


def dgbsv_frule(args, dargs, **kwargs):
    from .scipy_linalg_banded import _band_matvec

    kl, ku, ab, rhs, y = _gbsv_intact(args, kwargs)
    lu, piv, x, info = y
    _, _, dab, db = _pad(dargs, 4)[:4]
    if (_zero(dab) and _zero(db)) or info != 0:
        return y, NoTangent
    r = np.zeros(np.shape(x)) if _zero(db) else np.asarray(db, dtype=float).reshape(np.shape(x))
    if not _zero(dab):
        r = r - _band_matvec(_band_rows(dab, kl), x, kl, ku)
    dx = _gbtrs(lu, kl, ku, r, piv, 0)
    dlu = NoTangent if _zero(dab) else _refused(_LU)
    return y, (dlu, NoTangent, dx, NoTangent)


def dgbsv_rrule(*args, **kwargs):
    from .call_binding import KwAdj
    from .scipy_linalg_banded import _band_outer

    kl, ku, ab, rhs, y = _gbsv_intact(args, kwargs)
    lu, piv, x, info = y

    def pullback(g):
        glu, gx = (g[0], g[2]) if isinstance(g, (tuple, list)) else (NoTangent, NoTangent)
        if not _zero(glu):
            raise NotImplementedError(_LU)
        bars = {"kl": NoTangent, "ku": NoTangent, "ab": NoTangent, "b": NoTangent}
        if not _zero(gx):
            gx = np.asarray(gx)
            if np.iscomplexobj(gx):
                raise NotImplementedError("reverse mode of scipy.linalg.lapack.dgbsv of complex values")
            bbar = _gbtrs(lu, kl, ku, gx.reshape(np.shape(x)).astype(float), piv, 1)
            abbar = np.zeros(np.shape(ab))
            abbar[kl:] = _band_outer(bbar, x, kl, ku, np.shape(ab)[1])
            bars.update(ab=abbar, b=bbar.reshape(np.shape(rhs)))
        names = ("kl", "ku", "ab", "b")
        pos = tuple(bars[names[i]] if i < 4 else NoTangent for i in range(len(args)))
        named = {n: bars[n] for n in kwargs if bars.get(n, NoTangent) is not NoTangent}
        return pos + ((KwAdj(named),) if named else ())

    return y, pullback


def register(REGISTERED) -> None:
    """Register the rules (scipy_interpolate_rules.register calls this once scipy.interpolate is imported)."""
    from .registry import defjvp, defrrule_at_run_time, defrule, defzero

    d, lapack = _dierckx(), _lapack()
    REGISTERED[d.evaluate_spline] = "interpolate._dierckx.evaluate_spline"
    defrule(d.evaluate_spline, evaluate_spline_frule)
    defrrule_at_run_time(d.evaluate_spline, evaluate_spline_rrule, _unknown_adjoint)
    REGISTERED[d.evaluate_all_bspl] = "interpolate._dierckx.evaluate_all_bspl"
    defrule(d.evaluate_all_bspl, evaluate_all_bspl_frule)
    defrrule_at_run_time(d.evaluate_all_bspl, evaluate_all_bspl_rrule, _unknown_adjoint)
    REGISTERED[d.find_interval] = "interpolate._dierckx.find_interval"
    defzero(d.find_interval)
    from scipy.linalg import blas

    # (they pick a compiled routine by the arrays' dtypes: a choice, no derivative; traced, their pullback would
    # undo attribute writes on the routine, which a fortran object does not allow)
    REGISTERED[lapack.get_lapack_funcs] = "linalg.lapack.get_lapack_funcs"
    REGISTERED[blas.get_blas_funcs] = "linalg.blas.get_blas_funcs"
    defzero(lapack.get_lapack_funcs, blas.get_blas_funcs)
    REGISTERED[lapack.dgbsv] = "linalg.lapack.dgbsv"
    defrule(lapack.dgbsv, dgbsv_frule)
    defrrule_at_run_time(lapack.dgbsv, dgbsv_rrule)
    REGISTERED[d._coloc] = "interpolate._dierckx._coloc"
    defjvp(d._coloc, _coloc_jvp, mutates=(3,))
    defrrule_at_run_time(d._coloc, coloc_rrule)
