"""`scipy.integrate.solve_ivp(fun, t_span, y0, method, t_eval, ..., args=...)` differentiated with respect to
y0, its `args` and what `fun` captures from its closure (issue 12, second pass), both modes; registered by
scipy_integrate_rules.register() (no SciPy import here).  The result's `y` is differentiated at the times
`t` the plain call returned (the solver's choice of steps has no derivative); every other field is a
constant.

* Forward: the sensitivity equations.  solve_ivp integrates the state (y, s), s = dy, with the call's own
  method and tolerances and t_eval = the plain result's t: s' = the tangent of fun(t, y, *args) given
  (0, s, d args) and fun's own (its closure's) tangent (forward.runtime.fcall).
* Reverse: the pullback differentiates a fixed-step Runge-Kutta (RK4) solution between the output times,
  each stage through reverse.runtime.rcall; the number of steps doubles until RK4 agrees to 1e-7 (relative)
  with a tight-tolerance solve_ivp (DOP853, rtol 1e-11) at those times, so the derivative is that of the
  exact solution, as forward mode's is to the solver's tolerance.  Past 4096 steps per interval (stiff?)
  it refuses: use forward mode.
* The times: an output at a moving time tau_k (t_eval's entries; without t_eval, the first and last of the
  result's `t`, which are t_span's ends) moves along the solution, dy_k += f(tau_k, y_k) dtau_k, and the start
  t0 = t_span[0] moves the initial condition back along it: dy(t) = Phi(t, t0) (dy0 - f(t0, y0) dt0).  Forward
  mode starts the sensitivity equations from dy0 - f(t0, y0) dt0; reverse mode gives t0 the adjoint
  -lambda(t0) . f(t0, y0).  The result's `t` has the tangent dtau (the solver's own interior steps: 0).
* Events that do not stop the solver (none `terminal`): y and t are those without events.  Forward mode
  gives the events' times and states their tangents: an event function e vanishes at its time tau along
  the solution, so dtau = -(the tangent of e(tau, y(tau), *args) along (0, dy(tau), d args), its closure's
  included) / (de/dt + grad_y e . f(tau, y(tau))), and dy_event = dy(tau) + f dtau, with dy(tau) from the
  sensitivity equations' dense output.  Reverse mode: the pullback refuses a nonzero adjoint of
  t_events / y_events (the event times' adjoints are not computed); y's and t's are exact.
* A terminal event that stops the solver: the solution ends at the event's time, so the last output (without
  t_eval) moves with it, dy_end += f dtau_event, and the result's last `t` has the tangent dtau_event (forward);
  reverse mode turns the last output's adjoint g into g - c grad_y e and gives args -c grad_args e, where
  c = (g . f + g_t) / (de/dt + grad_y e . f), and e's other inputs (args, its closure) e's pullback of -c
  (_terminal_adjoints).
Refused by name: dense_output=True (the `sol` interpolant),
vectorized=True, complex y0, and a call whose own solution is further than 1e-6 (relative) from
a tight-tolerance one (the default rtol=1e-3 often is): its derivative would then not be the derivative of
what it computed (the advice: pass rtol=1e-8, atol=1e-10).
"""
from __future__ import annotations

import inspect

import numpy as np

from ..tangents import NoTangent, Tangent

_TOL, _MAX = 1e-7, 4096
_ACCURACY = 1e-6  # (the call's own solution must be this close to the exact one, relative to its size)
_REFUSE = ("derivative of scipy.integrate.solve_ivp {}: not supported (y0, args and what fun captures are "
           "differentiated, and t_span and t_eval)")


def _si():
    import scipy.integrate

    return scipy.integrate


def _zero(d):
    from .scipy_optimize_rules import _live

    return not _live(d)


def _bound(args, kwargs):
    b = inspect.signature(_si().solve_ivp).bind(*args, **kwargs)
    b.apply_defaults()
    out = dict(b.arguments)
    out.update(out.pop("options", {}))
    return out


def _events(b):
    ev = b.get("events")
    return [] if ev is None else list(ev) if isinstance(ev, (list, tuple)) else [ev]


def check(b):
    if b.get("dense_output"):
        raise NotImplementedError(_REFUSE.format("with dense_output=True (its sol interpolant)"))
    if b.get("vectorized"):
        raise NotImplementedError(_REFUSE.format("with vectorized=True"))
    if np.iscomplexobj(b["y0"]):
        raise NotImplementedError(_REFUSE.format("of complex y0"))
    if np.iscomplexobj(b["t_span"]) or (b.get("t_eval") is not None and np.iscomplexobj(b["t_eval"])):
        raise NotImplementedError(_REFUSE.format("of complex times"))


def _floats(d, k):
    """A tangent of k times (a tuple or list of tangents, an array, NoTangent) as k floats."""
    if _zero(d):
        return np.zeros(k)
    if isinstance(d, (tuple, list)):
        return np.array([0.0 if _zero(v) else float(np.real(v)) for v in d])
    return np.broadcast_to(np.asarray(d, dtype=float), (k,)).astype(float)


def _moving_times(b, res, dt_span, dt_eval):
    """(dt0, the tangent of each output time): t_eval's own, or without t_eval the ends' (t_span's)."""
    times = np.asarray(res["t"], dtype=float)
    d0, d1 = _floats(dt_span, 2)
    if b.get("t_eval") is not None:
        return d0, _floats(dt_eval, len(np.ravel(b["t_eval"])))[:times.size]
    dtau = np.zeros(times.size)
    if times.size:
        dtau[0], dtau[-1] = d0, d1
    return d0, dtau


def _slopes(fun, p, times, ys):
    """f(t_k, y_k) at each output (one column each, like res.y)."""
    if not len(times):
        return np.zeros(np.shape(ys))
    return np.stack([np.ravel(np.asarray(fun(t, y, *p), dtype=float)) for t, y in zip(times, np.asarray(ys).T)], axis=1)


def _reference(b, res, p):
    """A tight-tolerance solution at the result's times (with t_span[0] first): (times, values, the plain
    right-hand side).  Refuses where the call's own solution is far from it: its derivative (that of the
    exact solution, which both modes give) would then not be the derivative of what the call computed."""
    fun = b["fun"]
    y0 = np.asarray(b["y0"], dtype=float).ravel()
    t0 = float(b["t_span"][0])
    times = np.asarray(res["t"], dtype=float)
    tt = np.concatenate([[t0], times]) if times.size == 0 or times[0] != t0 else times
    plain = lambda t, y: np.ravel(np.asarray(fun(t, y, *p), dtype=float))  # noqa: E731
    ref = _si().solve_ivp(plain, _span(b, res), y0, method="DOP853", t_eval=tt, rtol=1e-11, atol=1e-12).y
    got = np.asarray(res["y"], dtype=float)
    scale = np.max(np.abs(ref)) + 1e-300
    err = np.max(np.abs(got - ref[:, -got.shape[1]:])) / scale if got.size else 0.0
    if err > _ACCURACY:
        raise NotImplementedError(
            f"derivative of scipy.integrate.solve_ivp solved to a relative accuracy of only {err:.1e} here: the "
            "derivative of the exact solution would not be the derivative of what this call computed.  Pass "
            "tighter tolerances (e.g. rtol=1e-8, atol=1e-10), or use scipy.integrate.odeint")
    return tt, ref.T, plain


def _stopped_by(b, res):
    """The index of the terminal event that stopped the solver (res.status 1), or None."""
    if res.get("status") != 1 or not len(res["t"]):
        return None
    for i, (e, times) in enumerate(zip(_events(b), res["t_events"])):
        if getattr(e, "terminal", False) and len(times) and times[-1] == res["t"][-1]:
            return i
    return None


def _span(b, res):
    """The interval the call solved over: t_span, or up to where a terminal event stopped it."""
    if _stopped_by(b, res) is None:
        return b["t_span"]
    return (b["t_span"][0], float(res["t"][-1]))


def _args(b):
    a = b.get("args")
    return () if a is None else (tuple(a) if isinstance(a, (tuple, list)) else (a,))


def _options(b):
    """The call's keyword options, for solving the augmented system the same way."""
    skip = ("fun", "t_span", "y0", "t_eval", "events", "dense_output", "vectorized", "args", "jac", "jac_sparsity")
    return {k: v for k, v in b.items() if k not in skip}


class ResultTangent(Tangent):
    """The tangent of an OdeResult, a dict whose items are also read as attributes (res.y, res["y"]): an
    object's tangent (read by attribute) that is read by item too (a field not listed has a zero tangent)."""

    def __getitem__(self, name):
        return self.fields.get(name, NoTangent)

    def get(self, name, default=NoTangent):
        return self.fields.get(name, default)


def _result_tangent(res, dy):
    """The tangent of the OdeResult: y's, every other field a constant."""
    return ResultTangent({"y": dy})


def _event_tangents(b, res, sol, n, p, dp, devents, plain):
    """The tangents of t_events and y_events (see the module's docstring)."""
    from ..forward.runtime import fcall

    events = _events(b)
    if isinstance(devents, (list, tuple)):
        des = list(devents) + [NoTangent] * (len(events) - len(devents))
    else:
        des = [devents if len(events) == 1 and not isinstance(b.get("events"), (list, tuple)) else NoTangent] * len(events)
    zeros = (NoTangent,) * len(p)
    dts, dys = [], []
    for e, de, times, states in zip(events, des, res["t_events"], res["y_events"]):
        dt_e, dy_e = np.zeros(len(times)), np.zeros(np.shape(states))
        for k, (tau, ytau) in enumerate(zip(times, states)):
            stau = sol.sol(tau)[n:]
            ftau = plain(tau, ytau)
            _, num = fcall(e, de, (tau, ytau) + p, (NoTangent, stau) + dp)
            _, den = fcall(e, NoTangent, (tau, ytau) + p, (1.0, ftau) + zeros)
            num = 0.0 if _zero(num) else float(np.real(num))
            den = float(np.real(den)) if not _zero(den) else 0.0
            if den == 0.0:
                raise NotImplementedError(_REFUSE.format("with an event whose function touches zero without crossing it"))
            dt_e[k] = -num / den
            dy_e[k] = stau + ftau * dt_e[k]
        dts.append(dt_e)
        dys.append(dy_e)
    return dts, dys


def ivp_tangent(res, dfun, dy0, dt_span, dt_eval, dargs, *args, devents=NoTangent, **kwargs):
    from ..forward.runtime import fcall

    b = _bound(args, kwargs)
    check(b)
    fun, p = b["fun"], _args(b)
    _, _, plain = _reference(b, res, p)
    dt0, dtau = _moving_times(b, res, dt_span, dt_eval)
    dp = (NoTangent,) * len(p) if _zero(dargs) else tuple(dargs) if isinstance(dargs, (tuple, list)) else (dargs,)
    y0 = np.asarray(b["y0"], dtype=float)
    n = y0.size

    def aug(t, z):
        f, df = fcall(fun, dfun, (t, z[:n]) + p, (NoTangent, z[n:]) + dp)
        df = np.zeros(n) if df is NoTangent or df is None else np.ravel(np.asarray(df, dtype=float))
        return np.concatenate([np.ravel(np.asarray(f, dtype=float)), np.broadcast_to(df, (n,))])

    s0 = np.zeros(n) if _zero(dy0) else np.ravel(np.broadcast_to(np.asarray(dy0, dtype=float), y0.shape))
    if dt0:
        s0 = s0 - dt0 * plain(float(b["t_span"][0]), y0.ravel())
    events = bool(_events(b))
    sol = _si().solve_ivp(aug, _span(b, res), np.concatenate([y0.ravel(), s0]), t_eval=res["t"], dense_output=events,
                          **_options(b))
    if not sol.success:
        raise NotImplementedError(_REFUSE.format(f"(the sensitivity equations did not solve: {sol.message})"))
    dy = sol.y[n:]
    fields = {"y": dy}
    if events:
        fields["t_events"], fields["y_events"] = _event_tangents(b, res, sol, n, p, dp, devents, plain)
        stop = _stopped_by(b, res)
        if stop is not None and b.get("t_eval") is None:
            dtau = dtau.copy()
            dtau[-1] = fields["t_events"][stop][-1]  # (the solution ends where the terminal event fired: it moves with it)
    if np.any(dtau):
        fields["y"] = dy + _slopes(plain, (), res["t"], res["y"]) * dtau
        fields["t"] = dtau
    return ResultTangent(fields)


# ------------------------------------------------------------------ reverse: RK4 through rcall
def _rk4(f, y0, tt, m):
    ys, y = [y0], y0
    for k in range(len(tt) - 1):
        h, t = (tt[k + 1] - tt[k]) / m, tt[k]
        for _ in range(m):
            k1 = f(t, y)
            k2 = f(t + 0.5 * h, y + 0.5 * h * k1)
            k3 = f(t + 0.5 * h, y + 0.5 * h * k2)
            k4 = f(t + h, y + h * k3)
            y, t = y + h / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4), t + h
        ys.append(y)
    return np.array(ys)


def rrule_solve_ivp(*args, **kwargs):
    from ..reverse.adjoints import AdjTuple
    from ..reverse.runtime import rcall
    from .call_binding import KwAdj
    from .scipy_integrate_rules import rk4_adjoint_sweep, state_adjoint_as_value
    from .scipy_special_more import RefusedAdjoint

    si = _si()
    b = _bound(args, kwargs)
    check(b)
    res = si.solve_ivp(*args, **kwargs)
    stop = _stopped_by(b, res)  # (a terminal event that never fired changes nothing)
    fun, p = b["fun"], _args(b)
    y0 = np.asarray(b["y0"], dtype=float).ravel()
    names = list(inspect.signature(si.solve_ivp).parameters)

    def tape():
        """The differentiated RK4 pass (made when an adjoint arrives: a call whose inputs are constants, its
        result used as data, needs none of it): (output times, steps per interval, [(h, stage pullbacks)])."""
        tt, ref, plain = _reference(b, res, p)
        scale = np.max(np.abs(ref)) + 1e-300
        m = 4
        while np.max(np.abs(_rk4(plain, y0, tt, m) - ref)) > _TOL * scale:
            m *= 2
            if m > _MAX:
                raise NotImplementedError("reverse mode of scipy.integrate.solve_ivp: a fixed-step RK4 with 4096 steps "
                                          "between output times does not reproduce the solution (a stiff problem?): "
                                          "use forward mode (mc.jvp, mc.jacfwd)")
        steps, y_cur = [], y0.copy()

        def stage(t, yy):
            out, pb = rcall(fun, (t, yy) + p, {})
            return np.ravel(np.asarray(out, dtype=float)), state_adjoint_as_value(pb, yy, 1)

        for k in range(len(tt) - 1):
            h, t = (tt[k + 1] - tt[k]) / m, tt[k]
            for _ in range(m):
                k1, pb1 = stage(t, y_cur)
                k2, pb2 = stage(t + 0.5 * h, y_cur + 0.5 * h * k1)
                k3, pb3 = stage(t + 0.5 * h, y_cur + 0.5 * h * k2)
                k4, pb4 = stage(t + h, y_cur + h * k3)
                y_cur, t = y_cur + h / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4), t + h
                steps.append((h, (pb1, pb2, pb3, pb4)))
        return tt, m, steps

    def refusals(message):
        """Every input's adjoint a refusal when used (a constant's is discarded unread)."""
        out = {n: RefusedAdjoint(message) for n in ("fun", "t_span", "y0", "t_eval", "args")}
        pos = tuple(out.get(names[i], NoTangent) for i in range(len(args)))
        named = {k: out[k] for k in kwargs if k in out}
        return pos + ((KwAdj(named),) if named else ())

    def plain_of():
        return lambda t, y: np.ravel(np.asarray(fun(t, y, *p), dtype=float))

    def pullback(g):
        if _events(b) and (not _zero(_field(g, "t_events")) or not _zero(_field(g, "y_events"))):
            return refusals("reverse mode of scipy.integrate.solve_ivp: the adjoints of t_events and y_events (the "
                            "event times and states) are not computed; use forward mode (mc.jvp, mc.jacfwd)")
        gy = g.get("y", NoTangent) if isinstance(g, dict) else getattr(g, "y", NoTangent) if g is not None else NoTangent
        if _zero(gy):
            gt = _field(g, "t")
            if _zero(gt):
                return (NoTangent,) * len(args)
            gy = np.zeros(np.shape(res["y"]))  # (only the times' adjoint: t_span's and t_eval's)
        try:
            tt, m, steps = tape()
        except NotImplementedError as e:
            return refusals(str(e))
        lead = len(tt) != len(res["t"])
        gY = np.asarray(gy, dtype=float).reshape(len(y0), -1).T  # (one row per output time)
        moved = None
        if stop is not None and b.get("t_eval") is None:
            try:
                gY, moved = _terminal_adjoints(b, res, g, gY, p, stop)
            except NotImplementedError as e:
                return refusals(str(e))
        if lead:
            gY = np.concatenate([np.zeros((1, len(y0))), gY])
        ybar, fn_bar, p_bar = rk4_adjoint_sweep(steps, m, gY, 1, len(p))  # (fun(t, y, *args): y at 1)
        if moved is not None:
            from .scipy_integrate_rules import add_call_adjoint

            p_bar = [add_call_adjoint(a, m_) for a, m_ in zip(p_bar, moved)]
        span_bar, eval_bar = _time_adjoints(b, res, g, gy, ybar, plain_of(), y0, stopped=stop is not None)
        y0_in = b["y0"]
        y0_bar = ybar.reshape(np.shape(y0_in)) if isinstance(y0_in, np.ndarray) else (
            float(ybar[0]) if np.ndim(y0_in) == 0 else type(y0_in)(float(v) for v in ybar))
        p_adj = NoTangent if all(v is NoTangent for v in p_bar) else (
            AdjTuple(p_bar) if isinstance(b.get("args"), (tuple, list)) else p_bar[0])
        out = {"fun": fn_bar, "t_span": span_bar, "y0": y0_bar, "t_eval": eval_bar, "args": p_adj}
        pos = [out.get(names[i], NoTangent) for i in range(len(args))]
        named = {k: out[k] for k in kwargs if k in out and out[k] is not NoTangent}
        return tuple(pos) + ((KwAdj(named),) if named else ())

    return res, pullback


def _field(g, name):
    if g is None or g is NoTangent:
        return NoTangent
    return g.get(name, NoTangent) if isinstance(g, dict) else getattr(g, name, NoTangent)


def _like(value, bars):
    """Adjoints of the times `bars` shaped like the argument `value` (a tuple, a list, an array)."""
    from ..reverse.adjoints import AdjList, AdjTuple

    if not np.any(bars):
        return NoTangent
    if isinstance(value, np.ndarray):
        return np.asarray(bars, dtype=float).reshape(value.shape)
    items = [float(v) for v in bars]
    return AdjTuple(items) if isinstance(value, tuple) else AdjList(items)


def _terminal_adjoints(b, res, g, gY, p, stop):
    """Reverse mode of a solution a terminal event stopped at tau (no t_eval): the last output y(tau) and t[-1] = tau
    move with tau, whose tangent is dtau = -(grad_y e . dy(tau) + grad_args e . dargs + e's closure's share) / den,
    den = de/dt + grad_y e . f.  So the last output's adjoint becomes g_y - c grad_y e and e's other inputs get
    e's pullback of -c, with c = (g_y . f + g_t) / den.  grad_y e and den come from forward mode (they must not
    touch the adjoint storage e's pullback adds its closure's share to, which takes the scaled -c only).
    Returns (the output adjoints, args' share)."""
    from ..forward.runtime import fcall
    from ..reverse.runtime import rcall

    e = _events(b)[stop]
    tau, y_tau = float(res["t"][-1]), np.asarray(res["y"], dtype=float)[:, -1]
    f_tau = np.ravel(np.asarray(b["fun"](tau, y_tau, *p), dtype=float))
    n, zeros = y_tau.size, (NoTangent,) * len(p)

    def slope(dt, dy):
        _, d = fcall(e, NoTangent, (tau, y_tau.copy()) + tuple(p), (dt, dy) + zeros)
        return 0.0 if _zero(d) else float(np.real(d))

    de_dy = np.array([slope(0.0, np.eye(n)[i]) for i in range(n)])
    den = slope(1.0, np.zeros(n)) + float(np.dot(de_dy, f_tau))
    if den == 0.0:
        raise NotImplementedError(_REFUSE.format("with an event whose function touches zero without crossing it"))
    gt = _field(g, "t")
    gt_last = 0.0 if _zero(gt) else float(np.ravel(np.asarray(gt, dtype=float))[-1])
    c = (float(np.dot(gY[-1], f_tau)) + gt_last) / den
    gY = gY.copy()
    gY[-1] = gY[-1] - c * de_dy
    _, pb = rcall(e, (tau, y_tau.copy()) + tuple(p), {})
    e_bar, pos, _ = pb(-c)
    if not _zero(e_bar):
        raise NotImplementedError(_REFUSE.format("in reverse mode with a terminal event function whose closure "
                                                 "holds differentiated values it hands back (pass them in args)"))
    pos = list(pos) + [NoTangent] * (2 + len(p) - len(pos))
    return gY, [NoTangent if _zero(a) else a for a in pos[2:2 + len(p)]]


def _time_adjoints(b, res, g, gy, ybar, plain, y0, stopped=False):
    """(t_span's adjoint, t_eval's) from the adjoints of y and of t and from lambda(t0) = ybar.  Where a terminal
    event stopped the solver, the last output's time is the event's, not t_span's end (no adjoint for it)."""
    times = np.asarray(res["t"], dtype=float)
    gY = np.asarray(gy, dtype=float).reshape(len(y0), -1)
    tau_bar = np.sum(gY * _slopes(plain, (), times, res["y"]), axis=0)
    gt = _field(g, "t")
    if not _zero(gt):
        tau_bar = tau_bar + np.broadcast_to(np.asarray(gt, dtype=float), tau_bar.shape)
    t0 = float(b["t_span"][0])
    start = -float(np.dot(ybar, plain(t0, y0)))
    if b.get("t_eval") is not None:  # (t_span's end only bounds the outputs: no adjoint)
        span = [start, 0.0]
        t_eval = b["t_eval"]
        bars = np.zeros(len(np.ravel(t_eval)))
        bars[:tau_bar.size] = tau_bar
        return _like(b["t_span"], span), _like(t_eval if isinstance(t_eval, (np.ndarray, tuple, list)) else np.asarray(t_eval), bars)
    span = [start, 0.0]
    if times.size:
        span[0] += tau_bar[0] if times.size > 1 else 0.0
        span[1] += 0.0 if stopped else tau_bar[-1]
    return _like(b["t_span"], span), NoTangent


def register(registered) -> None:
    from .registry import defjvp, defrrule_at_run_time

    si = _si()
    registered[si.solve_ivp] = "integrate.solve_ivp"

    rest_names = list(inspect.signature(si.solve_ivp).parameters)[3:]  # (method, t_eval, dense_output, events, ...)

    def jvp(t, y, fun, t_span, y0, *rest, **k):
        if all(t.d(v) is None for v in (fun, y0, *rest, *k.values())) and t.d(t_span) is None:
            return None
        named = dict(zip(rest_names, rest))
        named.update(k)
        devents = t.dz(named["events"]) if "events" in named else NoTangent
        return t.call(ivp_tangent, y, t.dz(fun), t.dz(y0), t.dz(t_span),
                      t.dz(named["t_eval"]) if "t_eval" in named else NoTangent,
                      t.dz(named["args"]) if "args" in named else NoTangent, fun, t_span, y0, *rest, devents=devents, **k)

    defjvp(si.solve_ivp, jvp)
    defrrule_at_run_time(si.solve_ivp, rrule_solve_ivp)
