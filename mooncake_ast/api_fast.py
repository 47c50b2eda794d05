"""The short paths of `mc.jvp` and `mc.grad` for the common call: a plain function of numbers and float arrays.

For such a call most of the API's checks cannot fail (nothing foreign, nothing complex, the primals are
the arguments), so the call is a few dict look-ups (forward/runtime.fast_forward_rule,
reverse/fastpath.fast_rule) and the generated code; what can matter still runs (the rule's staleness,
tangent shapes and dtypes, one array passed twice, the result's type, state snapshots of derivatives
that may write).  Anything else returns None, and the caller takes the general path (api.py).
"""
from __future__ import annotations

import re
import types
from typing import Any, Callable, Optional

import numpy as np

from . import api as _api
from .errors import MooncakeError
from .foreign import refuse_foreign
from .forward.runtime import fast_forward_rule
from .reverse import shadows
from .reverse.fastpath import fast_pullback, fast_rule, with_number_defaults
from .tangents import NoTangent, laid_out_like, materialize


def jvp_fast(f: Callable, primals: tuple, tangents: tuple) -> Optional[tuple]:
    """`jvp` of the common call (forward/runtime.fast_forward_rule says which), or None.

    For numbers and float arrays the checks of `_jvp` reduce to the type tests here: nothing foreign, each
    tangent a real number (float primal), None (a zero) or a real array of the primal's shape (copied to
    fresh storage of the primal's dtype, as the converter does); one array passed twice, or anything else,
    goes the general way, which checks that its tangents agree and says what is wrong."""
    fn = f if type(f) is types.FunctionType else _api._as_function(f)
    if type(fn) is not types.FunctionType:
        return None
    # (a number given no tangent is inactive in the rule, as the general path makes it: passed NoTangent to code
    # typed for a number's tangent, `db = ones * dx` was NoTangent and writes through `b.flat[i]` or a view
    # `b[1:] *= v` were dropped, a silently wrong jvp)
    zero = tuple((t is None or t is NoTangent) and type(p) is not np.ndarray for p, t in zip(primals, tangents))
    rule = fast_forward_rule(fn, primals, zero if True in zero else None)
    if rule is None:
        return None
    dargs = []
    arrays: list = []
    for p, t in zip(primals, tangents):
        tp = type(p)
        if tp is np.ndarray:
            if any(p is q for q in arrays):
                return None
            arrays.append(p)
            d = fresh_array_tangent(p, t)
            if d is None:
                return None
            dargs.append(d)
        elif t is None or t is NoTangent:
            dargs.append(NoTangent)  # (inactive in the rule: `zero` above)
        elif tp is float and (type(t) is float or type(t) is int):
            dargs.append(float(t))
        else:
            return None
    try:
        y, dy = rule.call_bound(fn, NoTangent, primals, tuple(dargs))
    except NotImplementedError as e:
        if isinstance(e, MooncakeError):
            raise
        raise _api._located(e) from e
    if type(y) is not float and type(y) is not np.ndarray:
        refuse_foreign("jvp", _api._name(fn), [("the result", y)])
    return y, materialize(dy, y)


def fresh_array_tangent(p: np.ndarray, t: Any) -> Optional[np.ndarray]:
    """The tangent of float array p in storage of its own (zeros for None), of p's dtype; None where t is not
    a real array of p's shape (the general path's converter says what is wrong)."""
    if t is None or t is NoTangent:
        return np.zeros_like(p)
    if type(t) is np.ndarray and t.shape == p.shape and t.dtype.kind in "iuf":
        return laid_out_like(p, t)
    return None


_REAL_SCALARS = frozenset({float, np.float64, np.float32})  # results whose seed is 1.0 and that pass every check


def user_adjoints(ctx: shadows.Context, args: tuple, bars: Any, nums: tuple) -> tuple:
    """`api._to_user(shadows.full_adjoint(a, g), a)` for the arguments at `nums`, inside `ctx`.

    The two common cases are short and give what those calls give: a float's float adjoint is
    itself; a float array's adjoint that is an array of its shape and dtype, when neither the
    array nor the adjoint is in the call's storage yet, becomes the array's storage and is handed
    over as it is (recorded as full_adjoint records it, so that an adjoint object shared by two
    arguments is handed out once and copied for the second)."""
    if not ctx.shadows and not ctx.adopted:  # (the generated code used no storage: the usual case)
        quick = _quick_adjoints(args, bars, nums)
        if quick is not None:
            return quick
    out = []
    for i in nums:
        a, g = args[i], bars[i]
        ta = type(a)
        if ta is float and type(g) is float:
            out.append(g)
        elif ta is np.ndarray and type(g) is np.ndarray and g.shape == a.shape and (g.dtype is a.dtype or g.dtype == a.dtype) \
                and a.dtype.kind == "f" and id(a) not in ctx.shadows and id(g) not in ctx.adopted:
            ctx.adopted[id(g)] = g
            ctx.shadows[id(a)] = (a, g)
            out.append(g)
        else:
            out.append(_api._to_user(shadows.full_adjoint(a, g), a))
    return tuple(out)


def _quick_adjoints(args: tuple, bars: Any, nums: tuple) -> Optional[tuple]:
    """What user_adjoints gives when no storage was used and every adjoint is the common case (a float's
    float, or a fresh array of its float array's shape and dtype, no array handed out twice); else None."""
    out = []
    seen = None
    for i in nums:
        a, g = args[i], bars[i]
        ta = type(a)
        if ta is float and type(g) is float:
            out.append(g)
        elif ta is np.ndarray and type(g) is np.ndarray and g.shape == a.shape \
                and (g.dtype is a.dtype or g.dtype == a.dtype) and a.dtype.kind == "f":
            if seen is None:
                seen = [g]
            elif any(g is o for o in seen):
                return None  # (one adjoint object for two arguments: the long way copies it for the second)
            else:
                seen.append(g)
            out.append(g)
        else:
            return None
    return tuple(out)


# Run-time helpers that read no adjoint storage (shadows.current): a generated module that uses no others
# runs without entering a Context (the plain NumPy modules of typed arrays and numbers).
_PLAIN_HELPERS = frozenset({"NoTangent", "broadcast_check", "sequence"})
_HELPER = re.compile(r"_mc\.(\w+)")  # (no leading \b: a literal first is found forty times faster)


def _plain(gen: Any) -> bool:
    """Does the generated module call no run-time helper that reads storage?  (Its text says; once per module.)"""
    known = getattr(gen, "plain", None)
    if known is None:
        text = getattr(gen.module, "__mooncake_ast_text__", None)
        known = gen.plain = isinstance(text, str) and helpers_used(text) <= _PLAIN_HELPERS
    return known


def helpers_used(text: str) -> set:
    """The names the text reads from `_mc` (not from a longer name ending in `_mc`)."""
    return {m.group(1) for m in _HELPER.finditer(text)
            if m.start() == 0 or not (text[m.start() - 1].isalnum() or text[m.start() - 1] == "_")}


def grad_fast(vg: Any, args: tuple) -> Optional[tuple]:
    """`(value, gradient)` of the common call (reverse/fastpath.fast_rule says which), or None.

    It skips only work that cannot change the answer for such a call: numbers and float arrays
    hold nothing foreign or complex, and the primals are the arguments.  A derivative that may
    write (or a result other than a float) is finished as every other call is (ValueAndGrad._finish: state
    snapshot and restore); otherwise the adjoints go through the same storage (a Context) and the
    same conversion to the user's form as every other call."""
    fn = vg.f
    if type(fn) is not types.FunctionType:
        fn = _api._as_function(fn)
        if type(fn) is not types.FunctionType:
            return None
    nums, wrt = vg._nums(len(args))
    args = with_number_defaults(fn, args)  # (argnums count the arguments given: nums index both alike)
    rule = fast_rule(fn, args, wrt)
    if rule is None:
        return None
    gen = rule.gen
    # mc.grad does not return the value: the forward pass without it (reverse/value_free.py), where there is
    # one -- the value was typed a real scalar when it was generated, so there is nothing to check of it.
    run = gen.forward_tape if gen.forward_tape is not None and not gen.may_write and type(vg) is _api.Grad else None
    if run is not None and _plain(gen):  # (no storage to enter: a Context only for the unusual adjoints)
        try:
            bars = gen.pullback(1.0, (run(fn, *args) if gen.takes_self else run(*args))[1])
        except NotImplementedError as e:
            if isinstance(e, MooncakeError):
                raise
            raise _api._located(e) from e
        grads = _quick_adjoints(args, bars, nums)
        if grads is None:
            with shadows.Context() as ctx:
                grads = user_adjoints(ctx, args, bars, nums)
        return None, (grads if isinstance(vg.argnums, (tuple, list)) else grads[0])
    ctx = shadows.Context()
    with ctx:
        try:
            if run is not None:
                out = run(fn, *args) if gen.takes_self else run(*args)
            else:
                out = gen.forward(fn, *args) if gen.takes_self else gen.forward(*args)
            if run is None and (gen.may_write or type(out[0]) not in _REAL_SCALARS):
                return vg._finish(fn, args, {}, nums, out[0], fast_pullback(fn, gen, out, args), gen.may_write)
            grads = user_adjoints(ctx, args, gen.pullback(1.0, out[1]), nums)
        except NotImplementedError as e:
            if isinstance(e, MooncakeError):
                raise
            raise _api._located(e) from e
    return out[0], (grads if isinstance(vg.argnums, (tuple, list)) else grads[0])
