"""Float-array parameters the function updates in place, `x /= np.linalg.norm(x)`, `velocity *= beta`: one plain
adjoint array instead of identity-keyed storage.

Each in-place update `x op= v` makes a new SSA value that is the same object as `x`; the chain of them (through
loop phis) is the caller's array in its successive states.  Generic reverse mode keeps the chain's adjoint in
storage and undoes each update with `inplace_reverse`.  A person writes what storage does, with a variable:

    x_bar = <the adjoint the caller has for x after the call>   # once, at the start of the pullback
    ...
    v_bar += (x_bar * old).sum()       # the update's own pullback, `x_new = old * v`, with the saved `old`
    x_bar = x_bar * v
    x[...] = old                       # undone, so what the pullback reads of x before it is as it was

One variable serves the whole chain (every state of the object shares it, as storage does), started from the
caller's storage (`shadows.claim`: a caller that reads its array after the call keeps that adjoint there) and
returned as the parameter's adjoint.  This is right when nothing else can reach the array: a float-array
parameter the call cannot alias (reverse/argument_kinds.kinds_of), whose states are only updated in place by +=, -=, *=,
/= with a real operand that is not the array itself and broadcasts into it, joined by phis of the chain alone,
and read by operations that make new arrays.  A view, an item write, a return, a call of unknown code, or any
other use keeps the generic path.
"""
from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any

from ..ir.nodes import Call, Const, Param, Phi
from ..ir.types import Num, is_float_array, is_real
from ..rules import call_binding, registry
from . import shadows
from .buffers import reads_only_use, uses_of
from .handles import PH
from .special import INPLACE, hashable
from .templates import TemplateBuilder

if TYPE_CHECKING:
    from .transform import ReverseTransform

_UPDATES = {operator.iadd, operator.isub, operator.imul, operator.itruediv}


def find(rt: "ReverseTransform") -> dict:
    """value -> its chain's parameter, for every state of the parameters this module handles."""
    uses = uses_of(rt)
    out: dict = {}
    for p in rt.ir.params:
        if not (rt.param_is_typed(p) and is_float_array(rt.type_of(p))):
            continue
        chain = _chain(rt, p, uses)
        if chain is not None and any(isinstance(m, Call) for m in chain):
            for m in chain:
                out[m] = p
    return out


def _chain(rt: "ReverseTransform", p: Param, uses: dict) -> Any:
    chain, work = {p}, [p]
    while work:
        m = work.pop()
        for s, pos in uses.get(m, []):
            if s == "return" or not isinstance(s, (Call, Phi)):
                return None
            if isinstance(s, Phi):
                if s not in chain:
                    chain.add(s)
                    work.append(s)
                continue
            fn = rt.resolver.callee(s)[0]
            if hashable(fn) and fn in _UPDATES and pos == 0 and len(s.args) == 2 and not s.kwargs:
                w = s.args[1]
                tw = rt.type_of(w)
                tm = rt.type_of(m)
                fits = isinstance(tw, Num) or is_real(tw) and is_float_array(tm) and len(tw.axes) <= len(tm.axes)
                if w is m or not fits:
                    return None
                rt.types[s] = tm  # (w fits in m: the update keeps m's shape and dtype)
                if s not in chain:
                    chain.add(s)
                    work.append(s)
                continue
            if reads_only_use(rt, s, pos, None) or _number_of(rt, s):
                continue
            return None
    # every phi of the chain joins states of the chain only; every state is active (its update is undone)
    for m in chain:
        if isinstance(m, Phi) and not all(x in chain for x in m.incoming.values()):
            return None
        if m not in rt.act.active:
            return None
    return chain


def drop_inactive(rt: "ReverseTransform") -> bool:
    """Drop the chains with a state that gets no adjoint code (its update would not be undone); True if any was."""
    gone = {p for m, p in rt.chain_of.items() if not rt.active(m)}
    if gone:
        rt.chain_of = {m: p for m, p in rt.chain_of.items() if p not in gone}
    return bool(gone)


def _number_of(rt: "ReverseTransform", s: Call) -> bool:
    """Is s a pure operation with a rule that gives a number (`np.linalg.norm(x)`: it cannot hold the array)?"""
    rule = rt.resolver.callee(s)[1]
    return rule is not None and (rule.zero or rule.vjp is not None) and not rule.mutates and rule.user_rrule is None \
        and rule.user_frule is None and "out" not in s.kwargs and isinstance(rt.type_of(s), Num)


def exempt(rt: "ReverseTransform", s: Any) -> bool:
    """Is s an update this module undoes (no storage for it or its operands)?"""
    return s in rt.chain_of and isinstance(s, Call)


def start(rt: "ReverseTransform") -> None:
    """`x_bar = _mc.claim(x)` for each parameter handled here, at the start of the pullback."""
    for p in rt.ir.params:
        if rt.chain_of.get(p) is p:
            init = rt.b.call(shadows.claim, [rt.primal(p)])
            rt.dense_values.add(init)
            rt.write_adj(p, init)


def reverse(rt: "ReverseTransform", s: Call, fn: Any) -> None:
    """Undo `y = x op= v`: its pullback as `y = old op v` with the saved `old`, then `x[...] = old`."""
    x, w = s.args
    saved = rt.saves.get(s)
    if saved is None:
        saved = rt.saves[s] = Call(Const(shadows.save_inplace), [x], loc=s.loc)
        rt.home[saved] = rt.home[s]
    rt.types[saved] = rt.type_of(x)
    rt.act.active.add(saved)  # (the template's operand: its adjoint is wanted, and goes to x below)
    rt.useful.add(saved)
    plain = INPLACE[fn]
    rule = registry.lookup(plain)
    g = rt.take_adj(s, keep_spread=True)
    if g is not None:
        t = TemplateBuilder(rt, False, rt.types.get(s), stmt=s, stmt_fn=plain)
        t.refuse_complex_unless_safe(rule, plain, s)
        t.receive(g)
        ga, gw = call_binding.split_adjoints(rule.vjp(t, g, PH(s), PH(saved), PH(w)))[0][:2]
        rt.accumulate(x, ga)
        rt.accumulate(w, gw)
    restore = rt.b.call(operator.setitem, [rt.primal(s), Const(Ellipsis), rt.primal(saved)])
    restore.keep = True  # type: ignore[attr-defined]
