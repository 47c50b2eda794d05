"""`rvs` of scipy.stats' continuous distributions, in loc and scale (issue 12), both modes; registered by
scipy_stats.register() once scipy.stats is imported (no SciPy import here).

Every continuous distribution draws `rvs(*shapes, loc, scale)` as `loc + scale * draw(*shapes)` (SciPy's
rv_generic.rvs: its standard draw, then shifted and scaled), so for the draw that was made (a seed or not)
dy = dloc + dscale (y - loc) / scale: the pathwise derivative, that of the same random numbers, as
a reparameterised sample in variational inference needs.  Read from y itself, it needs no second draw.
Refused: a differentiated shape parameter (the draw's dependence on it is SciPy's inner sampler, not
a formula), and scale = 0.  `size` and `random_state` carry no derivative.  Discrete distributions draw
integers (no rule needed: no derivative).
"""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent

FUNCTIONS = ["rv_continuous.rvs"]


def _roles(dist, names):
    """Each operand's part: "shape", "loc", "scale" or None (size, random_state)."""
    shapes = [s.strip() for s in (dist.shapes or "").split(",") if s.strip()]
    k = len(shapes)
    out = []
    for i, name in enumerate(names):
        if name is None:
            out.append("shape" if i < k else "loc" if i == k else "scale" if i == k + 1 else None)
        else:
            out.append("shape" if name in shapes else name if name in ("loc", "scale") else None)
    return out


def _parts(dist, names, ops):
    if any(np.iscomplexobj(o) for o in ops if isinstance(o, (complex, np.ndarray, np.generic))):
        raise NotImplementedError(f"derivative of scipy.stats.{dist.name}.rvs with complex parameters (real only)")
    roles = _roles(dist, names)
    loc = next((o for o, r in zip(ops, roles) if r == "loc"), 0.0)
    scale = next((o for o, r in zip(ops, roles) if r == "scale"), 1.0)
    if np.any(np.asarray(scale) == 0):
        raise NotImplementedError(f"derivative of scipy.stats.{dist.name}.rvs with scale=0")
    return roles, loc, scale


def _zero(d):
    return d is NoTangent or d is None or not np.any(d)


def _shape_refused(dist):
    raise NotImplementedError(f"derivative of scipy.stats.{dist.name}.rvs in a shape parameter (the draw depends on it "
                              "through SciPy's sampler, not a formula): only loc and scale are differentiated")


def rvs_tangent(dist, y, names, *rest):
    n = len(names)
    ops, ds = rest[:n], rest[n:]
    roles, loc, scale = _parts(dist, names, ops)
    out = np.zeros(np.shape(y))
    for d, role in zip(ds, roles):
        if _zero(d) or role is None:
            continue
        if role == "shape":
            _shape_refused(dist)
        out = out + (d if role == "loc" else np.asarray(d) * (np.asarray(y) - loc) / scale)
    out = np.broadcast_to(out, np.shape(y)).copy() if np.shape(out) != np.shape(y) else out
    return float(out) if np.ndim(y) == 0 else out


def rvs_adjoint(dist, y, names, i, g, *ops):
    from ..reverse.adjoints import unbroadcast

    if g is NoTangent or g is None:
        return NoTangent
    roles, loc, scale = _parts(dist, names, ops)
    role = roles[i]
    if role is None:
        return NoTangent
    if role == "shape":  # (reverse mode cannot always tell a constant: refused only where the adjoint is used)
        from .scipy_special_more import RefusedAdjoint

        return RefusedAdjoint(f"derivative of scipy.stats.{dist.name}.rvs in a shape parameter (the draw depends on it "
                              "through SciPy's sampler, not a formula): only loc and scale are differentiated")
    bar = np.asarray(g, dtype=float) if role == "loc" else np.asarray(g, dtype=float) * (np.asarray(y) - loc) / scale
    out = unbroadcast(bar, ops[i])
    return float(out) if np.ndim(ops[i]) == 0 else np.reshape(out, np.shape(ops[i]))


def register(stats, registered) -> None:
    from .registry import KwAdj, defjvp, defvjp
    from .scipy_stats import _wants

    key = (stats.rv_continuous, "rvs")

    def jvp(t, y, self, *args, **kwargs):
        ops = [*args, *kwargs.values()]
        if all(t.d(o) is None for o in ops):
            return None
        names = (None,) * len(args) + tuple(kwargs)
        return t.call(rvs_tangent, self, y, names, *ops, *(t.dz(o) for o in ops))

    def vjp(t, g, y, self, *args, **kwargs):
        ops = [*args, *kwargs.values()]
        names = (None,) * len(args) + tuple(kwargs)
        adj = [t.call(rvs_adjoint, self, y, names, i, g, *ops) if _wants(t, o) else None for i, o in enumerate(ops)]
        named = {k: a for k, a in zip(kwargs, adj[len(args):]) if a is not None}
        return (None, *adj[:len(args)]) + ((KwAdj(named),) if named else ())

    defjvp(key, jvp)
    defvjp(key, vjp)
    registered[key] = "rv_continuous.rvs"
