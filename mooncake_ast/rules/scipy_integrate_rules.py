"""Rules of `scipy.integrate` (odeint, quad, cumulative_trapezoid), both modes; registered by
registry.lookup once the user's code has imported scipy.integrate.  This module never imports SciPy
itself.  odeint and quad call compiled Fortran with the user's function: their rules call the user's
function through fcall (forward) or rcall (reverse), so it may be a closure over differentiated values.

* odeint(func, y0, t, args=...), forward: the sensitivity equations.  The state (y, s) with
  s = dy, integrated by odeint itself with the same options: s' = the tangent of func(y, t, *args)
  given tangents (s, 0, d args) and func's own (its closure's) tangent.  The tangent is s at the times t.
* odeint, reverse: the pullback differentiates a fixed-step Runge-Kutta (RK4) solution between the
  times t, each stage through rcall.  Its step is halved until RK4's values agree with odeint's to
  1e-7 (relative to the solution's size; plain calls, before anything is recorded): the derivative of
  a converged discretisation converges to the derivative of the solution.  A stiff problem that needs
  more than 4096 steps per output interval is refused (use forward mode).
* quad(func, a, b, args=...): d/dp int_a^b f = int_a^b df/dp, plus f(b) db - f(a) da.  Forward: quad
  of the integrand's tangent (fcall).  Reverse: a 64-point Gauss-Legendre rule over [a, b] whose
  pullbacks (rcall, linear in the adjoint) are called with the weights (composite: 4 or 16 panels when one
  does not reproduce quad's value to 1e-9; an infinite limit mapped onto a finite interval first); refused
  when none does (a singular or badly resolved integrand).
* cumulative_trapezoid(y, x=None, dx=1.0, axis=-1, initial=None): bilinear in y and the spacing:
  out = cumsum(h (y[1:] + y[:-1]) / 2) along axis.

* solve_ivp: differentiated in y0, args, fun's closure, t_span and t_eval by scipy_integrate_ivp.py (which replaces the
  constant-only rules here at registration).  Its result object's fields are read by item (sol["y"]) in
  reverse mode.

* odeint's times t: y(t_i) moves with t_i along the solution (f(y(t_i), t_i) dt_i), and t_0 is where the
  solution starts (y(t_i) gains -Phi(t_i, t_0) f(y0, t_0) dt_0, Phi = dy(t_i)/dy0; the two cancel at i = 0).

Options passed positionally after `args` are refused, as are
full_output=True for quad and tfirst with Dfun (the Jacobian argument is not used by the rules).
"""
from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from ..tangents import MutableTangent, NoTangent
from .registry import defrrule_at_run_time

FUNCTIONS = ["integrate.cumulative_trapezoid", "integrate.odeint", "integrate.quad", "integrate.solve_ivp"]
_IVP = ("derivative of scipy.integrate.solve_ivp with respect to what it reads (its function's arguments or captured "
        "values, y0, t_span): not implemented.  Use scipy.integrate.odeint (differentiated in both modes), or a "
        "fixed-step integrator written in Python")
REGISTERED: dict = {}
_RK4_TOL, _RK4_MAX = 1e-7, 4096
_GL_NODES, _GL_TOL = 64, 1e-9


def _integrate():
    import scipy.integrate

    return scipy.integrate


def _zero(v):
    return v is None or v is NoTangent


def _nonzero(d):
    if _zero(d):
        return False
    if isinstance(d, (tuple, list)):
        return any(_nonzero(x) for x in d)
    return bool(np.any(np.asarray(d) != 0)) if isinstance(d, (float, int, np.ndarray, np.generic)) else True


def _bound(fn, args, kwargs):
    """The call's arguments by parameter name (defaults filled in)."""
    b = inspect.signature(fn).bind(*args, **kwargs)
    b.apply_defaults()
    return dict(b.arguments)


def _tuple(p):
    return tuple(p) if isinstance(p, (tuple, list)) else (p,)


def _dtuple(p, dp):
    if _zero(dp):
        return (NoTangent,) * len(p)
    return tuple(dp) if isinstance(dp, (tuple, list)) else (dp,)


def _dense(d, like):
    return np.zeros(np.shape(like)) if _zero(d) else np.broadcast_to(np.asarray(d, dtype=float), np.shape(like))


# ------------------------------------------------------------------ odeint
_ODE_OPTS = ("rtol", "atol", "tcrit", "h0", "hmax", "hmin", "mxstep")


def _rhs_call(func, tfirst, y, t, p):
    return (t, y) + p if tfirst else (y, t) + p


def odeint_tangent(func, y0, tt, y, dfunc, dy0, dtt, dargs, *rest, **kw):
    """The tangent of odeint(func, y0, tt, *rest, **kw) (y: its result), by the sensitivity equations."""
    from ..forward.runtime import fcall

    odeint = _integrate().odeint
    b = _bound(odeint, (func, y0, tt) + rest, kw)
    if b["Dfun"] is not None and b["tfirst"]:
        raise NotImplementedError("derivative of scipy.integrate.odeint with Dfun and tfirst=True")
    p = _tuple(b["args"])
    dp = _dtuple(p, dargs)
    y0 = np.asarray(y0, dtype=float)
    n = y0.size
    tfirst = b["tfirst"]

    def aug(z, t):
        yy, s = z[:n], z[n:]
        args = _rhs_call(func, tfirst, yy, t, p)
        dargs_ = (NoTangent, s) + dp if tfirst else (s, NoTangent) + dp
        f, df = fcall(func, dfunc, args, dargs_)
        return np.concatenate([np.ravel(np.asarray(f, dtype=float)), np.ravel(_dense(df, yy))])

    opts = {k: b[k] for k in _ODE_OPTS if b[k] is not None}
    s0 = np.ravel(_dense(dy0, y0))
    dt = np.ravel(_dense(dtt, tt)) if _nonzero(dtt) else None
    times = np.asarray(tt, dtype=float)
    if dt is not None:  # moving t[0] moves where the solution starts: dy(t_i) gains -Phi(t_i, t_0) f(y0, t_0) dt_0
        s0 = s0 - dt[0] * _rhs_value(func, tfirst, y0.ravel(), times[0], p)
    sol = odeint(aug, np.concatenate([y0.ravel(), s0]), tt, **opts)
    ds = sol[:, n:]
    if dt is not None:  # ... and each output moves along the solution with its own time: f(y(t_i), t_i) dt_i
        Y = (y[0] if b["full_output"] else y).reshape(len(times), -1)
        ds = ds + dt[:, None] * np.stack([_rhs_value(func, tfirst, Y[i], times[i], p) for i in range(len(times))])
    return (ds, NoTangent) if b["full_output"] else ds


def _rhs_value(func, tfirst, y, t, p):
    """func at (y, t) as a flat float array (a plain call: it multiplies a time's tangent or adjoint)."""
    return np.ravel(np.asarray(func(*_rhs_call(func, tfirst, y, t, p)), dtype=float))


def _times_adjoint(func, tfirst, tt, Y, gY, y0_bar, p):
    """The adjoint of odeint's times t: g_i . f(y_i, t_i) for each output, less y0_bar . f(y0, t_0) for t_0
    (where the solution starts; y0_bar = sum_i Phi(t_i, t_0)^T g_i is the adjoint of y0)."""
    f = [_rhs_value(func, tfirst, Y[i], tt[i], p) for i in range(len(tt))]
    out = np.array([float(np.dot(gY[i], f[i])) for i in range(len(tt))])
    out[0] -= float(np.dot(y0_bar, f[0]))
    return out


def _rk4_plain(func, tfirst, y0, tt, p, m):
    out = [y0]
    y = y0
    for k in range(len(tt) - 1):
        h = (tt[k + 1] - tt[k]) / m
        t = tt[k]
        for _ in range(m):
            f = lambda yy, s: np.asarray(func(*_rhs_call(func, tfirst, yy, s, p)), dtype=float)  # noqa: E731
            k1 = f(y, t)
            k2 = f(y + 0.5 * h * k1, t + 0.5 * h)
            k3 = f(y + 0.5 * h * k2, t + 0.5 * h)
            k4 = f(y + h * k3, t + h)
            y = y + h / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
            t = t + h
        out.append(y)
    return np.stack(out)


def rrule_odeint(*args, **kwargs):
    from ..reverse.adjoints import AdjTuple
    from ..reverse.runtime import rcall
    from .call_binding import KwAdj

    odeint = _integrate().odeint
    b = _bound(odeint, args, kwargs)
    func, tfirst = b["func"], b["tfirst"]
    p = _tuple(b["args"])
    tt = np.asarray(b["t"], dtype=float)
    y0 = np.asarray(b["y0"], dtype=float)
    y = odeint(*args, **kwargs)
    Y = y[0] if b["full_output"] else y
    scale = np.max(np.abs(Y)) + 1e-300
    m = 4
    while True:
        if np.max(np.abs(_rk4_plain(func, tfirst, y0.ravel(), tt, p, m) - Y.reshape(len(tt), -1))) <= _RK4_TOL * scale:
            break
        m *= 2
        if m > _RK4_MAX:
            raise NotImplementedError(
                "reverse mode of scipy.integrate.odeint: a fixed-step RK4 with 4096 steps between output times does "
                "not reproduce odeint's solution (a stiff problem?): use forward mode (mc.jvp, mc.jacfwd)")
    # the differentiated pass: each stage through rcall
    steps = []  # per step: (h, [pullbacks of the 4 stages])
    y_cur = y0.ravel().copy()  # (a copy: the adjoint of the caller's own array would go to its storage)

    def stage(yy, s):
        out, pb = rcall(func, _rhs_call(func, tfirst, yy, s, p), {})
        return np.asarray(out, dtype=float), state_adjoint_as_value(pb, yy, 1 if tfirst else 0)

    for k in range(len(tt) - 1):
        h = (tt[k + 1] - tt[k]) / m
        t = tt[k]
        for _ in range(m):
            k1, pb1 = stage(y_cur, t)
            k2, pb2 = stage(y_cur + 0.5 * h * k1, t + 0.5 * h)
            k3, pb3 = stage(y_cur + 0.5 * h * k2, t + 0.5 * h)
            k4, pb4 = stage(y_cur + h * k3, t + h)
            y_cur = y_cur + h / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
            t = t + h
            steps.append((h, (pb1, pb2, pb3, pb4)))
    yi = 1 if tfirst else 0  # the position of y among func's arguments

    def pullback(g):
        gY = g[0] if b["full_output"] and isinstance(g, (tuple, list)) else g
        if _zero(gY):
            return (NoTangent,) * len(args)
        gY = np.asarray(gY, dtype=float).reshape(len(tt), -1)
        ybar, fn_bar, p_bar = rk4_adjoint_sweep(steps, m, gY, yi, len(p))
        y0_bar = ybar.reshape(np.shape(b["y0"])) if isinstance(b["y0"], np.ndarray) else _like_y0(b["y0"], ybar)
        t_bar = _times_adjoint(func, tfirst, tt, Y.reshape(len(tt), -1), gY, ybar, p)
        t_bar = t_bar.reshape(np.shape(b["t"])) if isinstance(b["t"], np.ndarray) else _like_y0(b["t"], t_bar)
        p_adj = NoTangent if all(_zero(v) for v in p_bar) else (
            AdjTuple(p_bar) if isinstance(b["args"], (tuple, list)) else p_bar[0])
        out = {"func": fn_bar, "y0": y0_bar, "t": t_bar, "args": p_adj}
        names = ["func", "y0", "t", "args"]
        pos = [out.get(names[i], NoTangent) if i < len(names) else NoTangent for i in range(len(args))]
        named = {k: out[k] for k in kwargs if k in out and not _zero(out[k])}
        return tuple(pos) + ((KwAdj(named),) if named else ())

    return y, pullback


def state_adjoint_as_value(pb: Any, yy: np.ndarray, yi: int) -> Any:
    """A stage's pullback that hands back the state's adjoint as a value: the derived rule of a callable object's
    `__call__` (or of code that reads y part by part) keeps the adjoint of its array argument in the array's
    storage and hands back nothing, which the sweep read as zero (d/dk -0.418 for -0.122)."""
    from ..reverse import shadows

    def run(g: Any) -> tuple:
        fb, ab, kb = pb(g)
        ab = list(ab)
        ab[yi] = shadows.full_adjoint(yy, ab[yi])
        return fb, ab, kb

    return run


def add_call_adjoint(total: Any, part: Any) -> Any:
    """The adjoint of one argument summed over the pullbacks of many calls of the same function (quadrature nodes,
    RK4 stages).  A mutable argument's adjoint lives in its storage (reverse/shadows.py): each pullback adds its share
    into that storage and hands back the storage itself, which then holds every call's share; adding it once more per
    call counted the earlier calls again (args=(dict,) of solve_ivp / odeint / quad: adjoints hundreds of times too
    large)."""
    from ..reverse.adjoints import accumulate

    if part is total and _is_storage(part):
        return total
    return accumulate(total, part)


def _is_storage(v: Any) -> bool:
    """Is the adjoint v an object's storage (which a pullback hands back by identity), not a value of its own?"""
    from ..reverse import shadows

    if isinstance(v, np.ndarray):
        return shadows.is_storage(v)
    return isinstance(v, (dict, list, MutableTangent))


def rk4_adjoint_sweep(steps: list, m: int, gY: np.ndarray, yi: int, n_params: int) -> tuple:
    """Back through fixed-step RK4, m steps per output interval, each step recorded as (h, the pullbacks of its four
    stage calls of the right-hand side, whose state argument is at position yi and extra arguments from 2 on); gY
    holds the adjoint of the state at each output time.  Returns the adjoint of the initial state, of the right-hand
    side, and of each of its extra arguments (odeint's and solve_ivp's reverse modes both take this)."""
    from ..reverse.adjoints import accumulate

    fn_bar, p_bar = NoTangent, [NoTangent] * n_params
    ybar = gY[-1].copy()
    for k in reversed(range(len(gY) - 1)):
        for j in reversed(range(m)):
            h, pbs = steps[k * m + j]
            kbar = [h / 6.0 * ybar, h / 3.0 * ybar, h / 3.0 * ybar, h / 6.0 * ybar]
            nxt = ybar.copy()
            for i, coef in ((3, h), (2, 0.5 * h), (1, 0.5 * h), (0, None)):
                fb, ab, _ = pbs[i](kbar[i])
                fn_bar = add_call_adjoint(fn_bar, fb)
                yb = np.zeros_like(ybar) if _zero(ab[yi]) else np.asarray(ab[yi], dtype=float).ravel()
                nxt = nxt + yb
                if coef is not None:
                    kbar[i - 1] = kbar[i - 1] + coef * yb
                for q in range(n_params):
                    p_bar[q] = add_call_adjoint(p_bar[q], ab[2 + q])
            ybar = nxt
        ybar = ybar + gY[k]
    return ybar, fn_bar, p_bar


def _like_y0(y0, ybar):
    from ..reverse.adjoints import AdjList, AdjTuple

    if isinstance(y0, (int, float, np.generic)):
        return float(ybar[0])
    items = [float(v) for v in ybar]
    return AdjTuple(items) if isinstance(y0, tuple) else AdjList(items)


# ------------------------------------------------------------------ quad
def _check_quad(b, what):
    if b.get("full_output"):
        raise NotImplementedError(f"{what} of scipy.integrate.quad with full_output")
    if b.get("weight") is not None or b.get("points") is not None:
        raise NotImplementedError(f"{what} of scipy.integrate.quad with weight= or points=")


def quad_tangent(func, a, b_, y, dfunc, da, db, dargs, *rest, **kw):
    from ..forward.runtime import fcall

    quad = _integrate().quad
    b = _bound(quad, (func, a, b_) + rest, kw)
    _check_quad(b, "forward mode")
    p = _tuple(b["args"])
    dp = _dtuple(p, dargs)

    def integrand(x):
        return float(np.real(_dense(fcall(func, dfunc, (x,) + p, (NoTangent,) + dp)[1], 0.0)))

    opts = {k: b[k] for k in ("epsabs", "epsrel", "limit") if k in b}
    dv = quad(integrand, a, b_, **opts)[0]
    if _nonzero(db):
        dv += float(func(b_, *p)) * float(db)
    if _nonzero(da):
        dv -= float(func(a, *p)) * float(da)
    return (dv, NoTangent)


def _quadrature_nodes(a, c, panels):
    """Nodes and weights of composite Gauss-Legendre (`panels` panels of _GL_NODES points) for int_a^c; an infinite
    limit is mapped onto a finite interval first: [a, inf) by x = a + s / (1 - s), s in [0, 1) (dx = ds / (1 - s)^2);
    (-inf, c] by x = c - s / (1 - s); the whole line by x = s / (1 - s^2), s in (-1, 1) (dx = (1 + s^2) / (1 - s^2)^2
    ds).  The weights include the Jacobian, so sum(w f(x)) approximates the integral."""
    t0, w0 = np.polynomial.legendre.leggauss(_GL_NODES)
    fa, fc = bool(np.isfinite(a)), bool(np.isfinite(c))
    lo, hi = (float(a), float(c)) if fa and fc else (0.0, 1.0) if fa != fc else (-1.0, 1.0)
    edges = np.linspace(lo, hi, panels + 1)
    s = np.concatenate([0.5 * (e1 - e0) * t0 + 0.5 * (e1 + e0) for e0, e1 in zip(edges[:-1], edges[1:])])
    w = np.concatenate([0.5 * (e1 - e0) * w0 for e0, e1 in zip(edges[:-1], edges[1:])])
    if fa and fc:
        return s, w
    if fa:
        return a + s / (1.0 - s), w / (1.0 - s) ** 2
    if fc:
        return c - s / (1.0 - s), w / (1.0 - s) ** 2
    return s / (1.0 - s * s), w * (1.0 + s * s) / (1.0 - s * s) ** 2


def _quadrature_rule(func, a, c, p, value):
    """The first composite rule (1, 4 or 16 panels) whose sum, from plain calls, reproduces quad's value to _GL_TOL."""
    for panels in (1, 4, 16):
        xs, ws = _quadrature_nodes(a, c, panels)
        approx = sum(w * float(func(float(x), *p)) for x, w in zip(xs, ws))
        if abs(approx - value) <= _GL_TOL * max(1.0, abs(value)):
            return xs, ws
    raise NotImplementedError("reverse mode of scipy.integrate.quad: composite Gauss-Legendre rules (up to 16 x "
                              f"{_GL_NODES} points) do not reproduce quad's value (a singular or sharply peaked "
                              "integrand?): use forward mode")


def rrule_quad(*args, **kwargs):
    from ..reverse.adjoints import AdjTuple, accumulate
    from ..reverse.runtime import rcall
    from .call_binding import KwAdj

    quad = _integrate().quad
    b = _bound(quad, args, kwargs)
    _check_quad(b, "reverse mode")
    func, a, c = b["func"], b["a"], b["b"]
    p = _tuple(b["args"])
    y = quad(*args, **kwargs)
    xs, ws = _quadrature_rule(func, a, c, p, y[0])
    calls = [rcall(func, (float(x),) + p, {}) for x in xs]
    fa = float(func(a, *p)) if np.isfinite(a) else 0.0  # (an infinite limit is a constant: no adjoint)
    fb = float(func(c, *p)) if np.isfinite(c) else 0.0

    def pullback(g):
        gv = g[0] if isinstance(g, (tuple, list)) else g
        if _zero(gv):
            return (NoTangent,) * len(args)
        gv = float(gv)
        fn_bar, p_bar = NoTangent, [NoTangent] * len(p)
        for w, (_, pb) in zip(ws, calls):
            f_b, ab, _ = pb(w * gv)
            fn_bar = add_call_adjoint(fn_bar, f_b)
            for q in range(len(p)):
                p_bar[q] = add_call_adjoint(p_bar[q], ab[1 + q])
        p_adj = NoTangent if all(_zero(v) for v in p_bar) else (
            AdjTuple(p_bar) if isinstance(b["args"], (tuple, list)) else p_bar[0])
        out = {"func": fn_bar, "a": -fa * gv, "b": fb * gv, "args": p_adj}
        names = ["func", "a", "b", "args"]
        pos = [out[names[i]] if i < len(names) else NoTangent for i in range(len(args))]
        named = {k: out[k] for k in kwargs if k in out and not _zero(out[k])}
        return tuple(pos) + ((KwAdj(named),) if named else ())

    return y, pullback


# ------------------------------------------------------------------ cumulative_trapezoid
def _trap_parts(y, x, dx, axis):
    """(y moved to the last axis, the spacing h broadcast against the pairs)."""
    y = np.moveaxis(np.asarray(y, dtype=float), axis, -1)
    if x is None:
        h = np.asarray(dx, dtype=float)
    else:
        x = np.asarray(x, dtype=float)
        h = np.diff(x) if x.ndim == 1 else np.diff(np.moveaxis(x, axis, -1), axis=-1)
    return y, h


def _check_initial(initial):
    if initial is not None and initial != 0:
        raise ValueError("`initial` must be `None` or `0`.")


def cumtrapz_tangent(y, out, dy, x=None, dx=1.0, axis=-1, initial=None, ddx=NoTangent, dxx=NoTangent):
    _check_initial(initial)
    if any(np.iscomplexobj(v) for v in (y, dy, x, dx) if v is not None and v is not NoTangent):
        raise NotImplementedError("derivative of scipy.integrate.cumulative_trapezoid of complex values is not supported")
    yy, h = _trap_parts(y, x, dx, axis)
    s = 0.5 * h * _dense_like(dy, yy, y, axis, pairs=True)
    if x is None and _nonzero(ddx):
        s = s + 0.5 * float(ddx) * (yy[..., 1:] + yy[..., :-1])
    if x is not None and _nonzero(dxx):
        _, dh = _trap_parts(y, _dense(dxx, x), dx, axis)
        s = s + 0.5 * dh * (yy[..., 1:] + yy[..., :-1])
    res = np.cumsum(s, axis=-1)
    if initial is not None:
        res = np.concatenate([np.zeros(res.shape[:-1] + (1,)), res], axis=-1)
    return np.moveaxis(res, -1, axis)


def _dense_like(dy, yy, y, axis, pairs):
    if _zero(dy):
        return 0.0
    d = np.moveaxis(np.broadcast_to(np.asarray(dy, dtype=float), np.shape(y)), axis, -1)
    return d[..., 1:] + d[..., :-1] if pairs else d


def cumtrapz_adjoints(y, g, x=None, dx=1.0, axis=-1, initial=None):
    """(y_bar, x_bar, dx_bar)."""
    if _zero(g):
        return NoTangent, NoTangent, NoTangent
    yy, h = _trap_parts(y, x, dx, axis)
    gg = np.moveaxis(np.asarray(g, dtype=float), axis, -1)
    if initial is not None:
        gg = gg[..., 1:]
    sbar = np.flip(np.cumsum(np.flip(gg, -1), axis=-1), -1)  # s_i reaches every out_k, k >= i
    ybar = np.zeros_like(yy)
    ybar[..., 1:] += 0.5 * h * sbar
    ybar[..., :-1] += 0.5 * h * sbar
    hbar = 0.5 * sbar * (yy[..., 1:] + yy[..., :-1])
    xbar = dxbar = NoTangent
    if x is None:
        dxbar = float(np.sum(hbar))
    else:
        xa = np.asarray(x, dtype=float)
        hb = hbar if xa.ndim > 1 else hbar.reshape(-1, hbar.shape[-1]).sum(axis=0)
        xb = np.zeros(hb.shape[:-1] + (hb.shape[-1] + 1,))
        xb[..., 1:] += hb
        xb[..., :-1] -= hb
        xbar = xb if xa.ndim == 1 else np.moveaxis(xb, -1, axis)
    return np.moveaxis(ybar, -1, axis), xbar, dxbar


# ------------------------------------------------------------------ solve_ivp (constant only)
def ivp_tangent(*tangents):
    from .scipy_optimize_rules import _live

    if any(_live(d) for d in tangents):
        raise NotImplementedError(_IVP)
    return NoTangent


def ivp_adjoint(g, f=None, first=False):
    from .scipy_optimize_rules import _live, _may_differentiate
    from .scipy_special_more import RefusedAdjoint

    if not _live(g) or (first and not _may_differentiate(f)):
        return NoTangent
    return RefusedAdjoint(_IVP)


# ------------------------------------------------------------------ registration
def register() -> None:
    """Register the rules (registry.lookup calls this once scipy.integrate is imported)."""
    from .numpy_common import _split
    from .call_binding import KwAdj
    from .registry import _entry, defjvp, defvjp

    si = _integrate()
    REGISTERED[si.odeint] = "integrate.odeint"
    REGISTERED[si.quad] = "integrate.quad"
    REGISTERED[si.cumulative_trapezoid] = "integrate.cumulative_trapezoid"

    def odeint_jvp(t, y, func, y0, tt, args=(), *rest, **k):
        if all(t.d(v) is None for v in (func, y0, tt, args)):
            return None
        return t.call(odeint_tangent, func, y0, tt, y, t.dz(func), t.dz(y0), t.dz(tt), t.dz(args), args, *rest, **k)

    defjvp(si.odeint, odeint_jvp)
    defrrule_at_run_time(si.odeint, rrule_odeint)

    def quad_jvp(t, y, func, a, b, args=(), *rest, **k):
        if all(t.d(v) is None for v in (func, a, b, args)):
            return None
        return t.call(quad_tangent, func, a, b, y, t.dz(func), t.dz(a), t.dz(b), t.dz(args), args, *rest, **k)

    defjvp(si.quad, quad_jvp)
    defrrule_at_run_time(si.quad, rrule_quad)

    def ct_jvp(t, y, yy, x=None, dx=1.0, axis=-1, initial=None):
        if all(t.d(v) is None for v in (yy, x, dx)):
            return None
        return t.call(cumtrapz_tangent, yy, y, t.dz(yy), x, dx, axis, initial, t.dz(dx), t.dz(x))

    def ct_vjp(t, g, y, yy, x=None, dx=1.0, axis=-1, initial=None):
        bars = _split(t, t.call(cumtrapz_adjoints, yy, g, x, dx, axis, initial), 3)
        return (bars[0], bars[1], bars[2])

    defjvp(si.cumulative_trapezoid, ct_jvp)
    defvjp(si.cumulative_trapezoid, ct_vjp)

    REGISTERED[si.solve_ivp] = "integrate.solve_ivp"

    def ivp_jvp(t, y, *args, **k):
        live = [t.d(v) for v in list(args) + list(k.values()) if t.d(v) is not None]
        return t.call(ivp_tangent, *live) if live else None

    def ivp_vjp(t, g, y, *args, **k):
        needs = getattr(t, "needs", None)

        def adj(v, first):
            return None if needs is not None and not needs(v) else t.call(ivp_adjoint, g, v, first)

        named = {n: adj(v, False) for n, v in k.items()}
        named = {n: v for n, v in named.items() if v is not None}
        return tuple(adj(v, i == 0) for i, v in enumerate(args)) + ((KwAdj(named),) if named else ())

    defjvp(si.solve_ivp, ivp_jvp)
    defvjp(si.solve_ivp, ivp_vjp)
    _entry(si.solve_ivp).fresh = True  # (activity: a new result object, no part of what it was given)
    from . import scipy_integrate_ivp

    scipy_integrate_ivp.register(REGISTERED)  # (replaces the two rules above: y0, args and fun's closure differentiated)
