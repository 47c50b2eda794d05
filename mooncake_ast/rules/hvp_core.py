"""`hvp_core`: the tangent of `grad(f)(*args)` in a direction, by reverse mode over f's generated forward code -- the
one pass behind mc.hvp, mc.hessian's columns and the forward rule of mc.grad -- with the checks of its arguments and
result.  (Split from api_rules.py, which re-exports these names; its plans are imported when called, as api_rules
imports this module at its end.)"""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import argument_overlap
from ..api import NonScalarOutputError, _snapshot, _to_user
from ..reverse import shadows as _shadows
from ..reverse.adjoints import AdjTuple
from ..reverse.runtime import may_write, rcall
from ..tangents import NoTangent, laid_out_like, materialize
from .forward_code_rules import _name


def hvp_core(f: Any, args: tuple, dargs: tuple, nums: tuple, with_grad: bool = False) -> Any:
    """The tangent of `grad(f, nums)(*args)` in direction dargs (all arguments): reverse mode over f's forward
    code, seeded on the tangent output, differentiating only the arguments in nums (one per num, a tuple).

    The fast path of `hvp`, `hessian` and the forward rule of grad: no gradient value, no API layers.

    With `with_grad`, `(value, gradients, tangents)` from the same single pass, or None where that cannot be
    done (see below): the tangent output is `Df(a)[v]`, linear in v, so its adjoint with respect to the
    tangent input v is exactly `grad f(a)`, at no extra forward pass.  The tangents are fresh copies then (an
    adjoint routed by object identity must not mix a tangent with an argument it aliases, and code that
    writes to its arguments writes to their tangents too: the caller's must stay as they were)."""
    from .api_rules import _dense, _plan, _prepare_all_cells, constant_callable

    args = tuple(args)
    if with_grad and argument_overlap.views_of_one_memory(args):
        return None  # (the tangents of arguments sharing memory are views of one buffer: not copied apart)
    if with_grad:  # (fresh copies, laid out as their primals: see tangents.laid_out_like)
        dargs = tuple((laid_out_like(a, d) if type(a) is np.ndarray and a.shape == d.shape and a.dtype.kind == "f"
                       else d.copy()) if type(d) is np.ndarray else d for a, d in zip(args, dargs))
    else:
        dargs = tuple(laid_out_like(a, d) if type(d) is np.ndarray and type(a) is np.ndarray and a.ndim > 1
                      and a.shape == d.shape and a.dtype == d.dtype and a.flags.f_contiguous != d.flags.f_contiguous
                      else d for a, d in zip(args, dargs))
    ctx = _shadows.Context()
    with ctx, constant_callable(f):
        plan = _plan(f, NoTangent, args, tuple(dargs))
        if plan.arg_pos is None:
            if with_grad:
                return None
            from .. import higher

            dg = higher._GRAD_DIRECTIONAL(f, args, _dense(tuple(dargs), args))
            return tuple(dg[i] for i in nums)
        # (an object passed in several places is differentiated in all of them: argument_overlap.py)
        active = tuple(nums) + tuple(argument_overlap.sharing(args, nums))
        wrt = frozenset(plan.arg_pos[i] for i in active)
        if with_grad:
            wrt = wrt | frozenset(plan.tan_pos[i] for i in active)
        _prepare_all_cells(plan.call_args)
        (y, dy), pb = rcall(plan.fn, plan.call_args, {}, wrt=wrt)
        writes = may_write(pb)
        if with_grad and not _real_scalar(y):
            return None
        post = _snapshot(args) if writes else None
        if (dy is NoTangent or dy is None) and _real_scalar(y):
            # a symbolic zero: no differentiated argument reaches the result (its Hessian and gradient are zero; the
            # arguments stay as f left them)
            zeros = tuple(materialize(NoTangent, args[i]) for i in nums)
            return (y, zeros, zeros) if with_grad else zeros
        seed = 1.0 if not isinstance(dy, np.ndarray) else np.ones((), dtype=dy.dtype)
        if not isinstance(dy, (float, np.floating, np.ndarray)) or np.ndim(dy) != 0:
            refuse_hessian_result(f, y, dy)
        _, bars, _ = pb(AdjTuple((NoTangent, seed)))
        out = tuple(_to_user(_shadows.full_adjoint(args[i], bars[plan.arg_pos[i]]), args[i]) for i in nums)
        if with_grad:
            grads = tuple(_to_user(_shadows.full_adjoint(plan.call_args[plan.tan_pos[i]], bars[plan.tan_pos[i]]),
                                   args[i]) for i in nums)
            out = (y, grads, out)
    if post is not None:
        _shadows.put_back(post, ctx)  # (and what else the pullback rolled back: globals, closures)
    return out


def refuse_hessian_result(f: Any, y: Any, dy: Any) -> None:
    """The error for a function whose Hessian is asked for and whose result (y, tangent dy) is not a real scalar."""
    from .api_rules import _refuse_lazy_second_order

    _refuse_lazy_second_order(f, dy)
    raise NonScalarOutputError(f"the Hessian of {_name(f)} needs a real scalar result, got {type(y).__name__}")


def _real_scalar(y: Any) -> bool:
    return type(y) is float or isinstance(y, np.floating) or (type(y) is np.ndarray and y.shape == ()
                                                              and y.dtype.kind == "f")


def _plain_floats(args: tuple, nums: tuple) -> bool:
    """Arguments the one-pass jvp of a gradient takes: float arrays and floats differentiated, no complex
    values anywhere (those keep the ordinary path and its checks and messages)."""
    for i, a in enumerate(args):
        t = type(a)
        if t is np.ndarray:
            if a.dtype.kind not in ("f" if i in nums else "fiub"):
                return False
        elif t is float or t is np.float64:
            continue
        elif i in nums or not (t is int or t is bool or a is None):
            return False
    return True
