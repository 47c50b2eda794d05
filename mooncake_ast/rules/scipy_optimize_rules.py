"""Rules of `scipy.optimize`, both modes; registered by registry.lookup once the user's code has imported
scipy.optimize.  This module never imports SciPy itself.  SciPy's solvers run compiled code (or long
Python loops over it) with the user's function, so they cannot be traced; realistic code uses them in
two ways, and both get rules:

* Scalar root finders (brentq, brenth, ridder, bisect, toms748, newton) are differentiated by the
  implicit function theorem: x* solves f(x*, p) = 0, so dx* = -(df/dp . dp) / (df/dx) at x*, where p
  is everything f depends on that is differentiated (its `args`, and what it closes over).  Forward:
  two tangents of f at x* through fcall (in x alone, and in everything but x).  Reverse: the pullback
  of f at x* (rcall) called with -g / (df/dx).  Where the bracket or starting point moves, x* does not
  (it is the root): those get zero.  full_output=True gives (x*, RootResults): the results object is
  a constant.
* root_scalar(f, args=..., bracket=... / x0=...) the same way: its RootResults' `root` gets the implicit
  derivative (every other field is a count or a flag); a solve that did not converge, or f given with
  fprime=True (f returns its own derivative too), is refused.
* Everything else (minimize, minimize_scalar, least_squares, curve_fit, root, root_scalar, fsolve,
  linprog, differential_evolution, ...) is a constant when nothing it reads is differentiated (a fit
  made once, its result used as data): zero tangent, no adjoints.  When something it reads is
  differentiated, forward mode refuses (a NotImplementedError naming the solver), and reverse mode
  hands those inputs a RefusedAdjoint: discarded when the input turns out constant, a refusal when
  it is used (the function itself gets none when it captures nothing differentiable).  Starting
  points (x0, p0, bracket) get zero: a converged solution does not move with them.  Implicit
  differentiation of optimisers (it needs the Hessian) is not implemented.
"""
from __future__ import annotations

import inspect

import numpy as np

from ..tangents import FunctionTangent, MethodTangent, MutableTangent, NoTangent, Tangent

ROOTS = ["bisect", "brenth", "brentq", "newton", "ridder", "toms748"]
CONSTANT = ["curve_fit", "fmin", "fminbound", "fsolve", "least_squares", "linprog", "lsq_linear", "minimize",
            "minimize_scalar", "nnls", "root"]
FUNCTIONS = sorted(f"optimize.{n}" for n in ROOTS + CONSTANT + ["root_scalar"])
REGISTERED: dict = {}


def _optimize():
    import scipy.optimize

    return scipy.optimize


def _live(d, depth=0) -> bool:
    """Does the tangent d carry anything nonzero (closures' cells and objects' fields included)?"""
    if d is None or d is NoTangent or depth > 20:
        return False
    if isinstance(d, (bool, str)):
        return False
    if isinstance(d, (int, float, complex, np.number, np.ndarray)):
        return bool(np.any(d))
    if isinstance(d, (tuple, list)):
        return any(_live(x, depth + 1) for x in d)
    if isinstance(d, dict):
        return any(_live(x, depth + 1) for x in d.values())
    if isinstance(d, FunctionTangent):
        cells = [c.cell_contents if hasattr(c, "cell_contents") else c for c in d.cells if c is not None] \
            if isinstance(d.cells, (tuple, list)) else []  # (NoTangent: a function made without cells)
        return _live(cells, depth + 1) or _live(d.defaults, depth + 1) or _live(d.kwdefaults, depth + 1)
    if isinstance(d, MethodTangent):
        return _live(d.self_tangent, depth + 1)
    if isinstance(d, (Tangent, MutableTangent)):
        return _live(dict(d.fields), depth + 1)
    try:
        return bool(np.any(d))
    except Exception:  # noqa: BLE001  (an unknown tangent: assume it carries something)
        return True


# ------------------------------------------------------------------ constants
def _constant_message(name):
    return (f"derivative of scipy.optimize.{name} with respect to what it reads (its function's arguments or "
            f"captured values, its starting point or data): implicit differentiation of an optimiser is not "
            f"implemented.  Use its result as a constant (compute it from constants), or differentiate a "
            f"stationarity condition yourself (e.g. with a root finder such as brentq, which is differentiated)")


def constant_tangent(name, *tangents):
    if any(_live(d) for d in tangents):
        raise NotImplementedError(_constant_message(name))
    return NoTangent


def constant_adjoint(name, g, *value):
    from ..reverse.runtime import _nondifferentiable
    from .scipy_special_more import RefusedAdjoint

    if not _live(g) or (value and _nondifferentiable(value[0])):
        return NoTangent
    return RefusedAdjoint(_constant_message(name))


def _may_differentiate(v, depth=0) -> bool:
    """Could v hold a differentiable value (a float, a float array, a container or object of them)?"""
    if depth > 10 or v is None or isinstance(v, (bool, int, str, bytes, range, type)) or inspect.ismodule(v):
        return False
    if isinstance(v, (float, complex, np.inexact)):
        return True
    if isinstance(v, np.ndarray):
        return v.dtype.kind in "fc" or v.dtype == object
    if isinstance(v, (np.integer, np.bool_)):
        return False
    if isinstance(v, (tuple, list, set, frozenset)):
        return any(_may_differentiate(x, depth + 1) for x in v)
    if isinstance(v, dict):
        return any(_may_differentiate(x, depth + 1) for x in v.values())
    if inspect.isfunction(v):
        cells = [c.cell_contents for c in (v.__closure__ or ()) if _filled(c)]
        return _may_differentiate(cells + list(v.__defaults__ or ()) + list((v.__kwdefaults__ or {}).values()), depth + 1)
    if inspect.isbuiltin(v) or isinstance(v, np.ufunc):
        return False
    return True  # a bound method, a callable object, ...: what it reads is not known here


def _filled(cell):
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


def function_adjoint(name, f, g):
    """The adjoint of the function an optimiser minimises (or solves): zero when it captures nothing that
    could be differentiated (a lambda over constants and modules), else a refused adjoint."""
    if not _may_differentiate(f):
        return NoTangent
    return constant_adjoint(name, g)


# Starting points (a converged solution does not move with them: zero derivative).
START = {"minimize": ("x0",), "minimize_scalar": ("bracket",), "least_squares": ("x0",), "curve_fit": ("p0",),
         "root": ("x0",), "root_scalar": ("x0", "x1", "bracket"), "fsolve": ("x0",), "fmin": ("x0",)}


# ------------------------------------------------------------------ root finders
def _bound(fn, args, kwargs):
    b = inspect.signature(fn).bind(*args, **kwargs)
    b.apply_defaults()
    return dict(b.arguments)


def _p(b):
    a = b.get("args", ())
    return tuple(a) if isinstance(a, (tuple, list)) else (a,)


def _dp(p, dargs):
    if dargs is None or dargs is NoTangent:
        return (NoTangent,) * len(p)
    return tuple(dargs) if isinstance(dargs, (tuple, list)) else (dargs,)


def _slope(name, func, x, p):
    from ..forward.runtime import fcall

    _, fx = fcall(func, NoTangent, (x,) + p, (1.0,) + (NoTangent,) * len(p))
    fx = float(np.real(0.0 if fx is NoTangent else fx))
    if fx == 0 or not np.isfinite(fx):
        raise NotImplementedError(f"derivative of scipy.optimize.{name}: f'(x*) = {fx} at the root (a multiple root)")
    return fx


def root_tangent(name, func, y, dfunc, dargs, *args, **kwargs):
    """The tangent of x* = <name>(func, ..., args=...) (y: its result) by the implicit function theorem."""
    from ..forward.runtime import fcall

    b = _bound(getattr(_optimize(), name), (func,) + args, kwargs)
    full = bool(b.get("full_output"))
    x = y[0] if full else y
    extra = b.get("args", ())
    if np.iscomplexobj(x) or any(np.iscomplexobj(a) for a in (extra if isinstance(extra, tuple) else (extra,))):
        raise NotImplementedError(f"derivative of scipy.optimize.{name} of complex values is not supported")
    if np.ndim(x) != 0:
        raise NotImplementedError(f"derivative of scipy.optimize.{name} with an array of starting points")
    p = _p(b)
    dp = _dp(p, dargs)
    if not (_live(dfunc) or any(_live(d) for d in dp)):
        return (NoTangent, NoTangent) if full else NoTangent
    _, fp = fcall(func, dfunc, (x,) + p, (NoTangent,) + dp)
    dx = -float(np.real(0.0 if fp is NoTangent else fp)) / _slope(name, func, x, p)
    return (dx, NoTangent) if full else dx


def _root_rrule(name):
    def rrule(*args, **kwargs):
        from ..reverse.adjoints import AdjTuple
        from ..reverse.runtime import rcall
        from .call_binding import KwAdj

        fn = getattr(_optimize(), name)
        y = fn(*args, **kwargs)
        b = _bound(fn, args, kwargs)
        full = bool(b.get("full_output"))
        x = y[0] if full else y
        if np.ndim(x) != 0:
            raise NotImplementedError(f"reverse mode of scipy.optimize.{name} with an array of starting points")
        func, p = b["func"] if "func" in b else b["f"], _p(b)
        x = float(x)

        def pullback(g):
            gx = g[0] if full and isinstance(g, (tuple, list)) else g
            if gx is NoTangent or gx is None or float(gx) == 0.0:
                return (NoTangent,) * len(args)
            fx = _slope(name, func, x, p)
            _, pb = rcall(func, (x,) + p, {})
            fb, ab, _ = pb(-float(gx) / fx)
            p_adj = list(ab)[1:]
            p_adj = NoTangent if all(v is NoTangent for v in p_adj) else (
                AdjTuple(p_adj) if isinstance(b.get("args", ()), (tuple, list)) else p_adj[0])
            names = list(inspect.signature(fn).parameters)
            out = {names[0]: fb, "args": p_adj}
            pos = [out.get(names[i], NoTangent) if i < len(names) else NoTangent for i in range(len(args))]
            named = {k: out[k] for k in kwargs if k in out and out[k] is not NoTangent}
            return tuple(pos) + ((KwAdj(named),) if named else ())

        return y, pullback

    return rrule


# ------------------------------------------------------------------ root_scalar (a RootResults object)
def _root_scalar_point(b, res):
    if not getattr(res, "converged", False):
        raise NotImplementedError("derivative of scipy.optimize.root_scalar that did not converge")
    if b.get("fprime") is True:
        raise NotImplementedError("derivative of scipy.optimize.root_scalar with fprime=True (f returning its "
                                  "derivative too): pass fprime as a function, or leave it out")
    x = res.root
    if np.iscomplexobj(x) or np.ndim(x) != 0:
        raise NotImplementedError("derivative of scipy.optimize.root_scalar of complex or array values")
    return float(x)


def root_scalar_tangent(func, res, dfunc, dargs, *args, **kwargs):
    """The tangent of root_scalar's RootResults: its root's, by the implicit function theorem."""
    from ..forward.runtime import fcall

    b = _bound(_optimize().root_scalar, (func,) + args, kwargs)
    x = _root_scalar_point(b, res)
    p = _p(b)
    dp = _dp(p, dargs)
    if not (_live(dfunc) or any(_live(d) for d in dp)):
        return NoTangent
    _, fp = fcall(func, dfunc, (x,) + p, (NoTangent,) + dp)
    dx = -float(np.real(0.0 if fp is NoTangent else fp)) / _slope("root_scalar", func, x, p)
    return MutableTangent({"root": dx})


def _field(g, name):
    if g is None or g is NoTangent:
        return NoTangent
    return g.get(name, NoTangent) if isinstance(g, dict) else getattr(g, name, NoTangent)


def root_scalar_rrule(*args, **kwargs):
    from ..reverse.adjoints import AdjTuple
    from ..reverse.runtime import rcall
    from .call_binding import KwAdj

    fn = _optimize().root_scalar
    res = fn(*args, **kwargs)
    b = _bound(fn, args, kwargs)

    def pullback(g):
        gx = _field(g, "root")
        if gx is NoTangent or gx is None or float(gx) == 0.0:
            return (NoTangent,) * len(args) + ((KwAdj({}),) if kwargs else ())
        x = _root_scalar_point(b, res)
        func, p = b["f"], _p(b)
        fx = _slope("root_scalar", func, x, p)
        _, pb = rcall(func, (x,) + p, {})
        fb, ab, _ = pb(-float(gx) / fx)
        p_adj = list(ab)[1:]
        p_adj = NoTangent if all(v is NoTangent for v in p_adj) else (
            AdjTuple(p_adj) if isinstance(b.get("args", ()), (tuple, list)) else p_adj[0])
        out = {"f": fb, "args": p_adj}
        names = list(inspect.signature(fn).parameters)
        pos = [out.get(names[i], NoTangent) if i < len(names) else NoTangent for i in range(len(args))]
        named = {k: out[k] for k in kwargs if k in out and out[k] is not NoTangent}
        return tuple(pos) + ((KwAdj(named),) if named else ())

    return res, pullback


def _register_root_scalar(opt):
    from .registry import _entry, defjvp, defrrule_at_run_time

    fn = opt.root_scalar
    REGISTERED[fn] = "optimize.root_scalar"

    def jvp(t, y, *args, **kw):
        func = args[0] if args else kw.get("f")
        fargs = kw.get("args", args[1] if len(args) > 1 else ())  # (`args` is the 2nd parameter)
        if t.d(func) is None and t.d(fargs) is None:
            return None
        kw2 = {k: v for k, v in kw.items() if k != "f"}
        return t.call(root_scalar_tangent, func, y, t.dz(func), t.dz(fargs), *args[1:], **kw2)

    defjvp(fn, jvp)
    defrrule_at_run_time(fn, root_scalar_rrule)
    _entry(fn).fresh = True


# ------------------------------------------------------------------ registration
def register() -> None:
    """Register the rules (registry.lookup calls this once scipy.optimize is imported)."""
    from .registry import _entry, defjvp, defrrule_at_run_time, defvjp

    opt = _optimize()
    for name in ROOTS:
        fn = getattr(opt, name, None)
        if fn is None:
            continue
        REGISTERED[fn] = f"optimize.{name}"
        first = list(inspect.signature(fn).parameters)[0]

        def jvp(t, y, *args, name=name, first=first, **kw):
            func = args[0] if args else kw.get(first)
            fargs = kw.get("args", args[3] if len(args) > 3 else ())  # (`args` is the 4th parameter of each)
            if t.d(func) is None and t.d(fargs) is None:
                return None
            rest = args[1:] if args else ()
            kw2 = {k: v for k, v in kw.items() if k != first}
            return t.call(root_tangent, name, func, y, t.dz(func), t.dz(fargs), *rest, **kw2)

        defjvp(fn, jvp)
        defrrule_at_run_time(fn, _root_rrule(name))
    for name in CONSTANT:
        fn = getattr(opt, name, None)
        if fn is None:
            continue
        REGISTERED[fn] = f"optimize.{name}"

        params = list(inspect.signature(fn).parameters)
        start = START.get(name, ())

        def cjvp(t, y, *args, name=name, params=params, start=start, **kw):
            ops = [a for i, a in enumerate(args) if i >= len(params) or params[i] not in start]
            ops += [v for k, v in kw.items() if k not in start]
            live = [t.d(o) for o in ops if t.d(o) is not None]
            if not live:
                return None
            return t.call(constant_tangent, name, *live)

        def cvjp(t, g, y, *args, name=name, params=params, start=start, **kw):
            from .call_binding import KwAdj

            needs = getattr(t, "needs", None)

            def adjoint(key, a, first):
                if key in start or (needs is not None and not needs(a)):
                    return None
                return t.call(function_adjoint, name, a, g) if first else t.call(constant_adjoint, name, g, a)

            out = tuple(adjoint(params[i] if i < len(params) else None, a, i == 0) for i, a in enumerate(args))
            named = {k: adjoint(k, v, k == params[0]) for k, v in kw.items()}
            named = {k: v for k, v in named.items() if v is not None}
            return out + ((KwAdj(named),) if named else ())

        defjvp(fn, cjvp)
        defvjp(fn, cvjp)
        _entry(fn).fresh = True  # (activity: a new result object, no part of the function or data it was given)
    _register_root_scalar(opt)
