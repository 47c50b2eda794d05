"""The rules of Jacobian functions (`mc.jacfwd(f)`, `mc.jacrev(f)`, `mc.hessian(f)`) inside differentiated code:
their tangents are Jacobians of directional derivatives (jacobian_forward), their adjoints cotangents contracted with
Jacobians of them by forward mode (jacobian_reverse).  Called by forward/runtime.py and reverse/runtime.py.  (Split
from higher.py, which re-exports them.)"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from . import held_state
from .reverse.shadows import reapply
from .api import Grad, _name
from .higher_traced import directional
from .rules.api_rules import NestingError
from .rules.nested_writes import entry_state, follow_update, guard_pullback, written
from .tangents import NoTangent, materialize


def _jacobian_name(J: Callable) -> str:
    """`jacfwd(f)` / `jacrev(f)` for messages (J itself carries f's __name__, as mc.grad's result does)."""
    f, _, _, kind = J.__mc_jacobian__
    return f"{kind}({_name(f)})"


def jacobian_forward(J: Callable, args: tuple, kwargs: dict, dargs: tuple) -> tuple:
    """`(J(*args), its tangent)` for a Jacobian function J = jacfwd(f) / jacrev(f) / hessian(g) and argument
    tangents dargs: the tangent is the Jacobian of the directional derivative, `d/dt J_f(x + t v) = J_h(x)` with
    `h(y) = Df(y)[v]` (symmetry of second derivatives), so mc.jacfwd(mc.hessian(g)) and mc.jvp of a Hessian are
    Jacobians of Hessian-vector products."""
    from .higher import jacfwd, jacrev

    f, argnums, has_aux, kind = J.__mc_jacobian__
    if kwargs:
        raise NestingError(f"nested derivative of {_jacobian_name(J)}: keyword arguments are not supported")
    pre = held_state.take(J, tuple(args))  # (the entry state, also what f keeps between calls: held_state.py)
    y = J(*args)
    update = written(pre[0])  # (f writes its arguments: their tangents follow the update, nested_writes.py)
    dirs = tuple(None if d is NoTangent else d for d in dargs)
    if all(d is None for d in dirs):
        return y, NoTangent

    def directional_derivative(*a):
        return directional(f, a, dirs)

    # (from the arguments' values on entry: J(*args) leaves them as f leaves them, which may be updated in place;
    # the Jacobian of the directional derivative was taken at the updated values, a wrong jacfwd(jacfwd(f)))
    post = held_state.take(J, tuple(args))
    held_state.put_back(pre)
    try:
        # (with has_aux the directional derivative is the pair's, (value's, aux's): the Jacobian of the first and the
        # second as it is are the tangents of (J, aux))
        dy = (jacfwd if kind == "jacfwd" else jacrev)(directional_derivative, argnums, has_aux)(*args)
    finally:
        held_state.put_back(post)
    if update:
        follow_update(f.f if isinstance(f, Grad) else f, tuple(args), tuple(dargs), pre[0])
    return y, dy


def jacobian_reverse(J: Callable, args: tuple, kwargs: dict) -> tuple:
    """`(J(*args), pullback)` for a Jacobian function J under reverse mode (`grad(lambda x: g(mc.jacfwd(f)(x)))`):
    J's own Python (loops over directions, caches) cannot be traced, so the adjoint of each float or float-array
    argument is the cotangent contracted with the Jacobian of J by forward mode (jacobian_forward's tangents):
    `a_bar = sum W * dJ/da`, one Jacobian of J per argument."""
    from .higher import jacfwd
    from .reverse.adjoints import AdjDict, AdjTuple

    from .rules.api_rules import _TRACED, _refuse_captures

    f, argnums, has_aux, kind = J.__mc_jacobian__
    if kwargs or has_aux:
        raise NestingError(f"nested derivative of {_jacobian_name(J)}: keyword arguments and has_aux are not supported")
    if J in _TRACED:  # made inside differentiated code: what f captures may be differentiated, and gets no adjoint
        # (hessian's f is grad(g): g's captures, not the gradient object's)
        _refuse_captures(f.f if isinstance(f, Grad) else f, _jacobian_name(J))
    entry = entry_state(tuple(args))
    y = J(*args)
    if not (isinstance(y, np.ndarray) or isinstance(y, (float, np.floating))):
        raise NestingError(f"reverse mode over {_jacobian_name(J)}: a Jacobian given as a tuple of blocks (several "
                           f"arguments or outputs) is not supported there; use mc.jacfwd of it, or one argnums")
    positions = [i for i, a in enumerate(args) if isinstance(a, (float, np.floating)) and not isinstance(a, bool)
                 or isinstance(a, np.ndarray) and a.dtype.kind == "f"]

    def pullback(w: Any) -> tuple:
        w = np.asarray(materialize(w, y) if w is not NoTangent else np.zeros(np.shape(y)), dtype=float)
        bars: list = [NoTangent] * len(args)
        for i in positions:
            # (at the arguments' values on entry, and left so, as a reverse pass leaves what it undid: f may write
            # them, and the Jacobian was taken at the written values, a wrong gradient)
            reapply(entry)
            JJ = np.asarray(jacfwd(J, argnums=i)(*args))  # J's dimensions, then argument i's
            bar = np.tensordot(w, JJ, axes=w.ndim)
            bars[i] = bar if isinstance(args[i], np.ndarray) else float(bar)
        reapply(entry)
        return NoTangent, AdjTuple(bars), AdjDict({})

    # (f wrote an argument read after the call: refused, nested_writes.py)
    return y, guard_pullback(kind if not isinstance(f, Grad) else "hessian", f.f if isinstance(f, Grad) else f, entry,
                             pullback)
