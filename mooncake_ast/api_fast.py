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
import weakref
from typing import Any, Callable, Optional

import numpy as np

from . import api as _api
from .errors import MooncakeError
from .foreign import refuse_foreign
from .forward.runtime import _WRITTEN_AHEAD as _FORWARD_AHEAD
from .forward.runtime import LATEST as forward_latest
from .forward.runtime import DerivedForward, fast_forward_rule
from .reverse import shadows
from .reverse.derived_rules import LATEST
from .reverse.fastpath import CLEARED, fast_pullback, fast_rule, kinds_unchanged, kinds_witness, with_number_defaults
from .tangents import NoTangent, laid_out_like, materialize


def jvp_fast(f: Callable, primals: tuple, tangents: tuple) -> Optional[tuple]:
    """`jvp` of the common call (forward/runtime.fast_forward_rule says which), or None.

    For numbers and float arrays the checks of `_jvp` reduce to the type tests here: nothing foreign, each
    tangent a real number (float primal), None (a zero) or a real array of the primal's shape (copied to
    fresh storage of the primal's dtype, as the converter does); one array passed twice, or anything else,
    goes the general way, which checks that its tangents agree and says what is wrong.  The rule of the
    latest call is kept for the next one like it (_JvpDecision)."""
    fn = f if type(f) is types.FunctionType else _api._as_function(f)
    if type(fn) is not types.FunctionType:
        return None
    d = _LAST_JVP[0]
    if d is not None and d.fn() is fn and d.code is fn.__code__ and not _FORWARD_AHEAD \
            and _jvp_signature(primals, tangents) == d.signature and not d.rule.stale(fn):
        rule = forward_latest[d.code] = d.rule  # (what `mc.source` shows: the rule the last call ran)
    else:
        # (a number given no tangent is inactive in the rule, as the general path makes it: passed NoTangent to
        # code typed for a number's tangent, `db = ones * dx` was NoTangent and writes through `b.flat[i]` or a
        # view `b[1:] *= v` were dropped, a silently wrong jvp)
        zero = tuple((t is None or t is NoTangent) and type(p) is not np.ndarray for p, t in zip(primals, tangents))
        rule = fast_forward_rule(fn, primals, zero if True in zero else None)
        if rule is None:
            return None
        if type(rule) is DerivedForward and not _FORWARD_AHEAD:  # (what fast_forward_rule keeps, kept here too)
            signature = _jvp_signature(primals, tangents)
            if signature is not None:
                _LAST_JVP[0] = _JvpDecision(fn, signature, rule)
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


class _JvpDecision:
    """The forward rule of jvp_fast's latest call, and what it was found from: the function object and its
    code, and _jvp_signature of the primals and tangents (finer than the rule's argument kinds: whatever
    fast_forward_rule keys the rule by is unchanged when it is).  Reused while the rule is not stale, as
    fast_forward_rule's own entries are; immutable once made."""

    __slots__ = ("fn", "code", "signature", "rule")

    def __init__(self, fn: types.FunctionType, signature: tuple, rule: Any) -> None:
        self.fn, self.code, self.signature, self.rule = weakref.ref(fn), fn.__code__, signature, rule  # (see _Decision)


_LAST_JVP: list = [None]
_INACTIVE = object()  # (in a signature: a number given no tangent, of kind "num:inactive")


def _jvp_signature(primals: tuple, tangents: tuple) -> Optional[tuple]:
    """What the forward rule of the common call is found from, per argument: a float array's shape (its type
    exactly np.ndarray, its dtype real floating), a number's type (or _INACTIVE when its tangent is None);
    None for any other call."""
    out = []
    for p, t in zip(primals, tangents):
        tp = type(p)
        if tp is np.ndarray:
            if p.dtype.kind != "f":
                return None
            out.append(p.shape)
        elif tp is float or tp is int or tp is bool:
            out.append(_INACTIVE if t is None or t is NoTangent else tp)
        else:
            return None
    return tuple(out) if len(primals) == len(tangents) else None


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


class _Decision:
    """What grad_fast found for one call, kept for the next call like it (a loop calling `g(x)`, or
    `mc.grad(f)(x)` making a new Grad each time): the rule, and what follows from it and from argnums.

    It is reused only when everything it was decided from is unchanged: the function object and its code
    and defaults (`f.__code__ = ...` and `f.__defaults__ = ...` are allowed), the number of arguments,
    argnums, fast_kinds of the arguments (types, float dtypes, ranks, size-one axes, memory sharing), the
    rule's staleness (rebound globals, new registrations) and fastpath.clear_fast's epoch.  Then
    fast_rule would have returned the same rule: the decision replaces its key building, the look-up in
    its dict and the argnums and defaults handling, nothing that depends on the values.  Immutable once
    made: shared between threads through a slot, each reader checks it whole."""

    __slots__ = ("fn", "code", "defaults", "nargs", "tail", "given", "nums", "witness", "rule", "gen", "tape",
                 "plain", "takes_self", "epoch")

    def __init__(self, fn: types.FunctionType, args: tuple, primals: tuple, given: tuple, nums: tuple, rule: Any) -> None:
        gen = rule.gen
        # (fn held weakly: a decision in the process's slot keeps no closure, and what it captured, alive)
        self.fn, self.code, self.defaults, self.nargs, self.given, self.nums = \
            weakref.ref(fn), fn.__code__, fn.__defaults__, len(args), given, nums
        self.tail = primals[len(args):]  # (number defaults of parameters left out: with_number_defaults)
        self.witness = kinds_witness(args)  # (the tail's kinds are fixed while the defaults are the same object)
        self.rule, self.gen, self.takes_self, self.epoch = rule, gen, gen.takes_self, CLEARED[0]
        # A derivative that may write is finished as every other call is (ValueAndGrad._finish), in a Context;
        # one that reads no storage (_plain) and writes nothing runs without entering one.
        self.plain = not gen.may_write and _plain(gen)
        # mc.grad does not return the value: the forward pass without it (reverse/value_free.py), where there is
        # one -- the value was typed a real scalar when it was generated, so there is nothing to check of it.
        self.tape = gen.forward_tape if not gen.may_write else None


_LAST: list = [None]  # the decision of the latest grad_fast call in this process (for a new Grad per call)


def _reused(vg: Any, fn: types.FunctionType, args: tuple) -> Optional[_Decision]:
    """The decision of vg's last call (or of the process's last call) where nothing it was made from
    changed, else None."""
    d = getattr(vg, "_fast_decision", None)
    if d is None or d.fn() is not fn:
        d = _LAST[0]
        if d is None or d.fn() is not fn:
            return None
    if d.nargs == len(args) and d.code is fn.__code__ and d.defaults is fn.__defaults__ \
            and (d.given is vg.given or d.given == vg.given) and d.epoch is CLEARED[0] \
            and kinds_unchanged(args, d.witness) and not d.rule.stale(fn):
        LATEST[d.code] = d.rule  # (what `mc.source` shows: the rule the last call ran)
        if _LAST[0] is not d:
            _LAST[0] = d
        return d
    return None


def _decided(vg: Any, fn: types.FunctionType, args: tuple) -> Optional[tuple]:
    """`(decision, primals)` of this call: fast_rule's, kept for the next call (on vg, and in the
    process's slot); None where fast_rule says the call is not a common one."""
    nums, wrt = vg._nums(len(args))
    primals = with_number_defaults(fn, args)  # (argnums count the arguments given: nums index both alike)
    rule = fast_rule(fn, primals, wrt)
    if rule is None:
        return None
    d = vg._fast_decision = _LAST[0] = _Decision(fn, args, primals, vg.given, nums, rule)
    return d, primals


def grad_fast(vg: Any, args: tuple) -> Optional[tuple]:
    """`(value, gradient)` of the common call (reverse/fastpath.fast_rule says which), or None.

    It skips only work that cannot change the answer for such a call: numbers and float arrays
    hold nothing foreign or complex, and the primals are the arguments.  A derivative that may
    write (or a result other than a float) is finished as every other call is (ValueAndGrad._finish: state
    snapshot and restore); otherwise the adjoints go through the same storage (a Context) and the
    same conversion to the user's form as every other call.  What was decided for the call is kept
    for the next one like it (_Decision)."""
    fn = vg.f
    if type(fn) is not types.FunctionType:
        fn = _api._as_function(fn)
        if type(fn) is not types.FunctionType:
            return None
    d = _reused(vg, fn, args)
    if d is not None:
        vg._fast_decision = d
        if d.tail:
            args = args + d.tail  # (number defaults of the parameters left out, as with_number_defaults adds them)
    else:
        found = _decided(vg, fn, args)
        if found is None:
            return None
        d, args = found
    gen, nums = d.gen, d.nums
    run = d.tape if type(vg) is _api.Grad else None
    if d.plain:  # (no storage to enter: a Context only for the unusual adjoints or results)
        try:
            if run is not None:
                out = run(fn, *args) if d.takes_self else run(*args)
            else:
                out = gen.forward(fn, *args) if d.takes_self else gen.forward(*args)
                if type(out[0]) not in _REAL_SCALARS:
                    with shadows.Context():
                        return vg._finish(fn, args, {}, nums, out[0], fast_pullback(fn, gen, out, args), False)
            bars = gen.pullback(1.0, out[1])
        except NotImplementedError as e:
            if isinstance(e, MooncakeError):
                raise
            raise _api._located(e) from e
        grads = _quick_adjoints(args, bars, nums)
        if grads is None:
            with shadows.Context() as ctx:
                grads = user_adjoints(ctx, args, bars, nums)
        return out[0], (grads if isinstance(vg.argnums, (tuple, list)) else grads[0])
    ctx = shadows.Context()
    with ctx:
        try:
            if run is not None:
                out = run(fn, *args) if d.takes_self else run(*args)
            else:
                out = gen.forward(fn, *args) if d.takes_self else gen.forward(*args)
            if run is None and (gen.may_write or type(out[0]) not in _REAL_SCALARS):
                return vg._finish(fn, args, {}, nums, out[0], fast_pullback(fn, gen, out, args), gen.may_write)
            grads = user_adjoints(ctx, args, gen.pullback(1.0, out[1]), nums)
        except NotImplementedError as e:
            if isinstance(e, MooncakeError):
                raise
            raise _api._located(e) from e
    return out[0], (grads if isinstance(vg.argnums, (tuple, list)) else grads[0])
