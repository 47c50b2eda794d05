"""The short path of a Hessian-vector product: `mc.jvp(mc.grad(f), primals, tangents)` and `mc.hvp`.

The general path reaches the generated code through five layers (`jvp`'s checks and conversions,
`fcall`, the forward rule of `grad`, `hvp_core`'s plan, and `rcall` over f's forward code), each
deciding again what the first call decided once.  For the common call -- f a plain function with
a positional signature, every argument a float or a float array of type np.ndarray, no two
arrays sharing memory -- those decisions depend only on (f, the argument kinds, argnums), so they
are made once and kept here: the forward rule of f for those kinds, its generated forward code F,
and the reverse rule of F for the differentiated positions.

What can change the answer is still done on every call: the staleness test of both derivatives
(a rebound global, a registered rule); the tangents' types, shapes and dtypes (copied to fresh
storage of the primal's dtype, as the converter does); the result's type (a real scalar, else the
general path says what is wrong); the adjoints' conversion through the call's storage (an adjoint
object shared by two outputs is handed out once); and, where the derivative may write to its
arguments, the post-call state put back after the pullback, as hvp_core does.  Functions that read
what they capture, arrays passed twice, ints, containers, objects and anything else return None:
the caller takes the general path (rules/api_rules.hvp_core), which has every check and message.
"""
from __future__ import annotations

import inspect
import types
from typing import Any, Optional

import numpy as np

from . import api as _api  # (partially initialised while api imports this module: read at call time only)
from .errors import MooncakeError
from .forward import objects
from .forward.runtime import argument_kinds, derived_forward
from .reverse import shadows
from .reverse.adjoints import AdjTuple
from .reverse.fastpath import fast_kinds
from .reverse.runtime import derived_rule
from .rules import registry
from .tangents import NoTangent


class _Entry:
    """What one (function, argument kinds, argnums, with gradient) decides once."""

    __slots__ = ("fwd", "F", "rev", "extra", "pos", "tpos", "ok")

    def __init__(self, fwd: Any, F: Any, rev: Any, extra: tuple, pos: tuple, tpos: tuple, ok: bool) -> None:
        self.fwd, self.F, self.rev, self.extra, self.pos, self.tpos, self.ok = fwd, F, rev, extra, pos, tpos, ok

    def stale(self, fn: types.FunctionType) -> bool:
        return self.fwd.stale(fn) or (self.rev is not None and self.rev.stale(self.F))


_ENTRIES: dict = {}  # (code, id(globals), kinds, nums, with_grad) -> _Entry
_SIMPLE: dict = {}  # code -> number of parameters, or -1 if the signature is not plain positional
_shared: dict = {}  # helpers of upper layers, imported on first use (they import api, which imports this module)


def _upper() -> dict:
    if not _shared:
        from .api_fast import fresh_array_tangent, user_adjoints
        from .rules import helpers
        from .rules.api_rules import _CONSTANT, _PLAIN, _real_scalar, _storage_like, refuse_hessian_result

        _shared.update(user_adjoints=user_adjoints, constant=_CONSTANT, refuse_result=refuse_hessian_result,
                       fresh=fresh_array_tangent, real_scalar=_real_scalar,
                       library=lambda fn: fn in _PLAIN or fn is helpers.pow_deriv or _storage_like(fn))
    return _shared


def _positional_count(fn: types.FunctionType) -> int:
    n = _SIMPLE.get(fn.__code__)
    if n is None:
        params = inspect.signature(fn, follow_wrapped=False).parameters.values()
        plain = all(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)
        if len(_SIMPLE) > 4096:
            _SIMPLE.clear()
        n = _SIMPLE[fn.__code__] = len(params) if plain else -1
    return n


def _tangents(args: tuple, tangents: tuple) -> Optional[tuple]:
    """Dense tangents in fresh storage (floats, float arrays of the primal's shape and dtype), or None.

    Fresh: the reverse pass routes adjoints by object identity, so a tangent must not be an argument
    (`jvp(grad(f), (x,), (x,))`), and the caller's tangent arrays must not be written."""
    up_fresh = _upper()["fresh"]
    out = []
    for p, t in zip(args, tangents):
        if type(p) is np.ndarray:
            d = up_fresh(p, t)
            if d is None:
                return None
            out.append(d)
        elif type(p) is float:
            if t is None or t is NoTangent:
                out.append(0.0)
            elif type(t) is float or type(t) is int:
                out.append(float(t))
            else:
                return None
        else:
            return None  # (ints, bools, objects, containers: the general path)
    return tuple(out)


def _entry(fn: types.FunctionType, args: tuple, dargs: tuple, kinds: tuple, nums: tuple, with_grad: bool) -> _Entry:
    """The decisions of hvp_core's plan for this call, made as it makes them (_plan's branch for a plain function)."""
    n = len(args)
    fwd = derived_forward(fn, argument_kinds(args))
    if fwd.takes_self:  # f reads what it captures: the general path (constant_callable, cell storage)
        return _Entry(fwd, None, None, (), (), (), False)
    pos = tuple(nums)
    tpos = tuple(n + i for i in nums)
    wrt = frozenset(pos) | (frozenset(tpos) if with_grad else frozenset())
    F = fwd.fn
    if objects.dispatches(F) or registry.lookup(F) is not None:  # (as rcall would find: never, for generated code)
        return _Entry(fwd, None, None, (), (), (), False)
    rev, primals, _ = derived_rule(F, (*args, *dargs), {}, wrt)
    ok = len(primals) >= 2 * n
    return _Entry(fwd, F, rev, tuple(primals[2 * n:]), pos, tpos, ok)


def core(fn: Any, args: tuple, tangents: tuple, nums: tuple, with_grad: bool) -> Optional[tuple]:
    """`(hvps, grads)` (grads None without with_grad), one per position in nums, or None for the general path.

    hvps[k] is the tangent of `grad(f, nums[k])(*args)` in direction `tangents`; grads[k] the gradient
    itself, read off the same pass (the adjoint of the tangent input: see api_rules.hvp_core)."""
    if type(fn) is not types.FunctionType or _positional_count(fn) != len(args):
        return None
    kinds = fast_kinds(args)
    if kinds is None:
        return None
    dargs = _tangents(args, tangents)
    if dargs is None:
        return None
    key = (fn.__code__, id(fn.__globals__), kinds, nums, with_grad)
    entry = _ENTRIES.get(key)
    up = _upper()
    if entry is None or entry.stale(fn):
        if registry.lookup(fn) is not None or objects.dispatches(fn) or up["library"](fn):
            return None  # (a rule, or the library's own forward code: hvp_core's plan has a branch for each)
        try:
            entry = _entry(fn, args, dargs, kinds, nums, with_grad)
        except Exception:
            return None  # (f cannot be differentiated: the general path raises what it raises, with its message)
        if len(_ENTRIES) > 1024:
            _ENTRIES.clear()
        _ENTRIES[key] = entry
    if not entry.ok:
        return None
    gen = entry.rev.gen
    call = (*args, *dargs, *entry.extra)
    constant = up["constant"]
    constant.append(fn)  # (as hvp_core's constant_callable(f): what f captures is a constant of this derivative)
    ctx = shadows.Context()
    try:
        with ctx:
            (y, dy), tape = gen.forward(entry.F, *call) if gen.takes_self else gen.forward(*call)
            if with_grad and not up["real_scalar"](y):
                return None  # (as hvp_core: the general path computes the gradient of such a result apart)
            if not (type(dy) is float or isinstance(dy, (np.floating, np.ndarray)) and np.ndim(dy) == 0):
                if not gen.may_write:
                    return None  # (nothing written: the general path says what is wrong with the result)
                up["refuse_result"](fn, y, dy)  # (the arguments were written: not run again)
            post = shadows.snapshot(args) if gen.may_write else None  # (as hvp_core: put back after the pullback)
            seed = 1.0 if type(dy) is not np.ndarray else np.ones((), dtype=dy.dtype)
            bars = gen.pullback(AdjTuple((NoTangent, seed)), tape)
            if len(bars) < len(call):
                bars = (*bars, *(NoTangent,) * (len(call) - len(bars)))  # (as _unbind pads them)
            hvps = up["user_adjoints"](ctx, call, bars, entry.pos)
            grads = up["user_adjoints"](ctx, call, bars, entry.tpos) if with_grad else None
    except NotImplementedError as e:
        if isinstance(e, MooncakeError):
            raise
        raise _api._located(e) from e
    finally:
        del constant[-1]
    if post is not None:
        shadows.put_back(post, ctx)  # (and what else the pullback rolled back: globals, closures)
    return hvps, grads


def jvp_of_grad(g: Any, primals: tuple, tangents: tuple) -> Optional[tuple]:
    """`mc.jvp(g, primals, tangents)` for g = mc.grad(f) (exactly api.Grad, no has_aux), or None."""
    if g.has_aux:
        return None
    nums, _ = g._nums(len(primals))
    done = core(g.f, primals, tangents, nums, True)
    if done is None:
        return None
    hvps, grads = done
    if isinstance(g.argnums, (tuple, list)):
        return grads, hvps
    return grads[0], hvps[0]


def hvp(f: Any, primals: tuple, tangents: tuple) -> Any:
    """`mc.hvp(f, primals, tangents)` for the common call, or None."""
    done = core(f, primals, tangents, tuple(range(len(primals))), False)
    if done is None:
        return None
    hvps = done[0]
    return hvps[0] if len(primals) == 1 else hvps
