"""Small helpers of the user's, and methods of objects the function makes, differentiated in line.

`y = layer.forward(x)` with `forward` three lines of NumPy, or `k1 = rhs(y, t)` in an integrator: called through the
run-time dispatcher, each such call hands its arguments to code the transform cannot see, so they (and whatever
shares their storage) keep identity-keyed adjoints, the call returns its pullback as a closure on the tape, and
the pullback reads `t8, t7, _ = t3(_mc.take(y, y_bar))` where a person writes the helper's three lines backwards.
Julia's compiler inlines small callees before Mooncake sees them; here this pass does, on the IR, before types are
inferred: the callee is lowered from its source and its blocks take the call's place (parameters read the
arguments, its return goes to what follows the call), so the whole computation is typed and differentiated as one
function and its pullback is plain.

Only where that cannot change what runs: the callee is a plain function of the caller's own module (same globals,
so its global reads mean what they meant), or a method `obj.m(...)` of an instance this function makes of a plain
class of that module (reverse/local_objects.class_shape) whose bound method is called at once; no rule of the
user's; no closure, generator, `*args`/`**kwargs` or keyword-only parameters, defaults that are numbers or
strings; one `return`, at the end (early exits would not leave structured code); no nested functions, no frame
introspection; small; not recursive.  The name it was read by is recorded as a binding, so rebinding it makes the
derivative stale, and its code is in the cache key (forward/generate.environment digests global functions and
classes).
"""
from __future__ import annotations

import builtins
import inspect
import types
from typing import Any, Optional

from ..ir.fold_tuples import fold_tuple_reads
from ..ir.nodes import Block, Call, Const, Function, Global, Goto, Return
from ..rules import registry
from .cleanup import substitute

_MAX_STATEMENTS = 60  # a callee this long stays a call
_MAX_TOTAL = 400  # statements inlined into one function, all together
_ROUNDS = 2  # a helper's helpers are inlined too, one level down
_FRAME_READERS = {builtins.locals, builtins.globals, builtins.vars, builtins.eval, builtins.exec, builtins.super,
                  inspect.currentframe}
_PLAIN_DEFAULTS = (int, float, bool, str, type(None))


def inline_calls(ir: Function, user_globals: dict, bindings: dict, caller_code: Any) -> int:
    """Inline what qualifies (see the module docstring), recording the global names read in `bindings`; the number
    of calls inlined."""
    from ..frontend.statements import lower_function  # (the frontend: only when a callee is lowered)

    done = budget = 0
    for _ in range(_ROUNDS):
        found = [(b, s, t) for b in ir.blocks for s in b.stmts
                 for t in [_target(ir, s, user_globals, caller_code)] if t is not None]
        if not found:
            break
        for b, s, (fn, self_value, name) in found:
            if _block_of(ir, s).loop is not None:
                continue  # (a call in a loop's header, `while f(x) > tol`: the header stays one block)
            try:
                callee = lower_function(fn)
            except Exception:  # noqa: BLE001 - a callee we cannot lower stays a call
                continue
            size = sum(len(blk.stmts) for blk in callee.blocks)
            if size > _MAX_STATEMENTS or budget + size > _MAX_TOTAL or not _plain_body(callee):
                continue
            args = _bind(fn, callee, s, self_value)
            if args is None:
                continue
            _splice(ir, _block_of(ir, s), s, callee, args)
            if self_value is not None:  # (the bound method `obj.m`, read only by the call)
                bound = s.fn
                home = _block_of(ir, bound)
                home.stmts = [x for x in home.stmts if x is not bound]
            budget += size
            done += 1
            if name is not None:
                bindings[name] = user_globals[name]  # (the derivative is stale once the name is rebound)
            else:
                cls_name = self_value.fn.name
                bindings[cls_name] = user_globals[cls_name]
    if done:
        fold_tuple_reads(ir)  # (`a, b = helper(x)` of a helper returning `(s, s / n)`: a is s, as in the helper)
    return done


def _block_of(ir: Function, s: Call) -> Block:
    return next(b for b in ir.blocks if any(x is s for x in b.stmts))


def _target(ir: Function, s: Call, g: dict, caller_code: Any) -> Optional[tuple]:
    """(the function s calls, the value of `self` or None, the global name read) if s may be inlined."""
    from .local_objects import class_shape

    self_value = name = None
    if isinstance(s.fn, Global):
        name = s.fn.name
        fn = g.get(name)
    elif isinstance(s.fn, Call) and s.fn.callee() is getattr and len(s.fn.args) == 2 and \
            isinstance(s.fn.args[1], Const) and type(s.fn.args[1].value) is str:
        obj = s.fn.args[0]
        if not (isinstance(obj, Call) and isinstance(obj.fn, Global) and _uses(ir, s.fn) == 1):
            return None
        cls = g.get(obj.fn.name)
        if not isinstance(cls, type) or class_shape(cls) is None:
            return None
        fn = cls.__dict__.get(s.fn.args[1].value)
        self_value = obj
    else:
        return None
    if type(fn) is not types.FunctionType or fn.__globals__ is not g or registry.lookup(fn) is not None:
        return None
    code = fn.__code__
    if code is caller_code or code.co_freevars or code.co_flags & 0x2AC or code.co_kwonlyargcount:
        return None  # (closures, generators and coroutines, *args / **kwargs, keyword-only parameters)
    if any(type(d) not in _PLAIN_DEFAULTS for d in fn.__defaults__ or ()):
        return None
    return fn, self_value, name


def _uses(ir: Function, v: Any) -> int:
    return sum(1 for b in ir.blocks for x in [*b.phis, *b.stmts, b.term] for o in x.operands() if o is v)


def _plain_body(callee: Function) -> bool:
    """One return, at the end of the callee's code; nothing that reads its own frame or function object."""
    returns = [b for b in callee.blocks if isinstance(b.term, Return)]
    if len(returns) != 1 or callee.freevars:
        return False
    self_ref = getattr(callee, "self_ref", None)
    for b in callee.blocks:
        for s in b.stmts:
            if self_ref is not None and self_ref in s.operands():
                return False
            fn = s.callee()
            if isinstance(s.fn, Global) and getattr(builtins, s.fn.name, None) in _FRAME_READERS or \
                    fn in _FRAME_READERS:
                return False
    return True


def _bind(fn: types.FunctionType, callee: Function, s: Call, self_value: Any) -> Optional[dict]:
    """{parameter: the value it takes} for the call s, or None if the call does not bind plainly."""
    positional = ([self_value] if self_value is not None else []) + list(s.args)
    params = callee.params
    if len(positional) > len(params) or any(p.kind != "POSITIONAL_OR_KEYWORD" for p in params):
        return None
    out: dict = {}
    for p, v in zip(params, positional):
        out[p] = v
    defaults = fn.__defaults__ or ()
    first_default = len(params) - len(defaults)
    for k, p in enumerate(params[len(positional):], start=len(positional)):
        if p.name in s.kwargs:
            out[p] = s.kwargs[p.name]
        elif k >= first_default:
            out[p] = Const(defaults[k - first_default])
        else:
            return None
    if set(s.kwargs) - {p.name for p in params[len(positional):]}:
        return None
    return out


def _splice(ir: Function, b: Block, s: Call, callee: Function, args: dict) -> None:
    """The callee's blocks in the place of s: b's statements after s and its terminator move to a new block that
    the callee's return goes to, and what read s reads the returned value."""
    substitute(callee, args)
    for blk in callee.blocks:  # (a loop over a parameter: what its record says it walks)
        if blk.loop is not None:
            for attr in ("counter", "seq", "length", "item"):
                if getattr(blk.loop, attr) in args:
                    setattr(blk.loop, attr, args[getattr(blk.loop, attr)])
    k = b.stmts.index(s)
    after = Block(-1)
    after.stmts, b.stmts = b.stmts[k + 1:], b.stmts[:k]
    after.term, b.term = b.term, Goto(callee.entry)
    for x in after.stmts:
        x.block = after
    for succ in after.successors():
        succ.preds = [after if p is b else p for p in succ.preds]
        for phi in succ.phis:
            phi.incoming = {(after if p is b else p): v for p, v in phi.incoming.items()}
    for blk in ir.blocks:  # (a loop whose trip ended in b now ends in `after`)
        if blk.loop is not None and blk.loop.latch is b:
            blk.loop.latch = after
    ret = next(blk for blk in callee.blocks if isinstance(blk.term, Return))
    value = ret.term.value
    ret.term = Goto(after)
    after.preds = [ret]
    callee.entry.preds = [b]
    at = ir.blocks.index(b) + 1
    ir.blocks[at:at] = [*callee.blocks, after]
    for i, blk in enumerate(ir.blocks):
        blk.id = i
    substitute(ir, {s: value})
    ir.local_names |= callee.local_names
    ir.globals_read |= callee.globals_read
    if isinstance(value, Call) and value not in args.values() and s.hint and not value.hint:
        value.hint = s.hint  # (the value keeps the caller's name for it)
