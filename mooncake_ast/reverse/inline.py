"""Small helpers of the user's, and methods of objects the function makes, differentiated in line.

`y = layer.forward(x)` with `forward` three lines of NumPy, or `k1 = rhs(y, t)` in an integrator: called through the
run-time dispatcher, each such call hands its arguments to code the transform cannot see, so they (and whatever
shares their storage) keep identity-keyed adjoints, the call returns its pullback as a closure on the tape, and
the pullback reads `t8, t7, _ = t3(_mc.take(y, y_bar))` where a person writes the helper's three lines backwards.
Julia's compiler inlines small callees before Mooncake sees them; here this pass does, on the IR, before types are
inferred: the callee is lowered from its source and its blocks take the call's place (parameters read the
arguments, its return goes to what follows the call), so the whole computation is typed and differentiated as one
function and its pullback is plain.

Only where that cannot change what runs and the user's traceback stays theirs:

* the callee is a plain function of the caller's own module (same globals, so its global reads mean what they
  meant), a method `obj.m(...)` of an instance this function makes of a plain class of that module
  (reverse/local_objects.class_shape) whose bound method is called at once (or the instance itself, its
  `__call__`), or a `def`/`lambda` of the function
  itself without defaults (its variables read the caller's own cells, as they would);
* no rule of the user's on it; not a generator; defaults that are numbers, strings or None (`*values` and
  `**options` take the call's extra arguments as a tuple and a dict display; `helper(*args, **opts)` of displays is
  first the plain call it stands for);
* one `return`, at the end (early exits would not leave structured code), and no `raise` or `assert` (an error the
  helper raises must show the user the helper's frame and the caller's: tracebacks.py maps a generated frame to
  one user line);
* its own function object read only to find the code of the functions it defines (a factory of closures); no
  frame introspection (`locals()`, `super()`, ...); small; not the caller itself;
* no global name either reads is a variable of the other (`def f(SCALE): return helper(SCALE)` with `helper`
  reading the module's `SCALE`).

Global names read are recorded as bindings, so rebinding one makes the derivative stale, and the callees' code is
in the cache key (forward/generate.environment digests global functions and classes).  Afterwards the defs and
lambdas every call of which is in line are dropped, cells only the function reads are its values again, and
branches on the constants a call passed are folded.
"""
from __future__ import annotations

import builtins
import dataclasses
import inspect
import types
from typing import Any, Optional

from .. import ops
from ..ir.fold_dicts import fold_dict_reads
from ..ir.fold_tuples import fold_tuple_reads
from ..ir.analysis import dominators, uses
from ..ir.nodes import Block, Branch, Call, Const, Function, Global, Goto, Raise, Return
from ..rules import registry
from . import map_calls, value_classes
from .cleanup import substitute
from .inline_index import InlineIndex

_MAX_STATEMENTS = 60  # a callee this long stays a call
_MAX_TOTAL = 400  # statements inlined into one function, all together
_ROUNDS = 4  # a helper's helpers are inlined too, and the closures a factory put in line returns
_FRAME_READERS = {builtins.locals, builtins.globals, builtins.vars, builtins.eval, builtins.exec, builtins.super,
                  inspect.currentframe}
_PLAIN_DEFAULTS = (int, float, bool, str, type(None))
# Off: each call put in line scans the whole function (to find its block, its uses, the global names read, what
# reads it), as before the shortcut (tests/test_scale_inline_records.py compares the modules made both ways).
INDEXED = True


def inline_calls(ir: Function, user_globals: dict, bindings: dict, caller_code: Any,
                 numbers: frozenset = frozenset()) -> int:
    """Inline what qualifies (see the module docstring), recording the global names read in `bindings`; the number
    of calls inlined.  `numbers`: the parameters the derivative is specialised to numbers for."""
    from ..frontend.statements import lower_function  # (the frontend: only when a callee is lowered)

    done = budget = 0
    refused: dict = {}  # {code: _UNLOWERED or size}: callees refused whatever the call, or over the budget left
    for _ in range(_ROUNDS):
        _static_applies(ir)
        rebound = written_globals(ir)
        map_calls.rewrite_map_lists(ir, user_globals, rebound,  # (`list(map(f, xs))` of an f put in line next)
                                    lambda f: _goes_in_line(ir, f, user_globals, caller_code, rebound, numbers))
        # (no instance of a plain class made here: no operator, property or method of one to look at)
        instances = any(isinstance(s.fn, Global) and _plain_class(user_globals.get(s.fn.name)) is not None
                        for b in ir.blocks for s in b.stmts)
        index = InlineIndex(ir) if INDEXED else None
        found = [(b, s, t) for b in ir.blocks for s in b.stmts
                 for t in [_target(ir, s, user_globals, caller_code, rebound, numbers, instances, index)]
                 if t is not None]
        if not found:
            break
        spliced: set = set()
        for b, s, (fn, self_value, name, cells, how) in found:
            if self_value in spliced:
                continue  # (`(p + q).norm2()`: the object is what `__add__` returns, found in the next round)
            if _block_of(ir, s, index).loop is not None:
                continue  # (a call in a loop's header, `while f(x) > tol`: the header stays one block)
            known = refused.get(fn.__code__) if INDEXED else None
            if known is not None and (known is _UNLOWERED or known > _MAX_STATEMENTS or budget + known > _MAX_TOTAL):
                continue  # (lowering it again would give the same callee, refused the same way)
            try:
                callee = lower_function(fn)
            except Exception:  # noqa: BLE001 - a callee we cannot lower stays a call
                refused[fn.__code__] = _UNLOWERED
                continue
            size = sum(len(blk.stmts) for blk in callee.blocks)
            if size > _MAX_STATEMENTS or not _plain_body(callee):
                refused[fn.__code__] = _UNLOWERED  # (whatever the budget: never in line)
            elif budget + size > _MAX_TOTAL:
                refused[fn.__code__] = size  # (what is left of the budget only shrinks)
            if size > _MAX_STATEMENTS or budget + size > _MAX_TOTAL or not _plain_body(callee) or \
                    len(callee.freevars) != len(cells) or _names_clash(ir, callee, index):
                continue
            args = _bind(fn, callee, s, self_value, how)
            if args is None:
                continue
            args.update(zip(callee.freevars, cells))  # (a closure's variables: the caller's own cells)
            self_ref = getattr(callee, "self_ref", None)
            if self_ref is not None and _reads(callee, self_ref):
                if name is None and self_value is None and _is_function(s.fn):
                    # (a def of the caller's that defines functions itself, `def outer(t): def inner(u): ...`: the
                    # function object the caller made and calls is where they find their code, as in the call)
                    args[self_ref] = s.fn
                elif cells or name is None:
                    continue  # (no name to find its code by)
                else:
                    args[self_ref] = Const(fn)  # (the functions it defines find their code in it: `make_scaler`)
            for p, v in list(args.items()):
                if isinstance(v, _Extra):  # (`*values`, `**options`: the call's extra arguments, as a display)
                    packed = Call(Const(v.display), v.items, loc=s.loc)
                    home = _block_of(ir, s, index)
                    home.stmts.insert(home.stmts.index(s), packed)
                    packed.block = home
                    args[p] = packed
                    if index is not None:
                        index.add(packed, home)
            if fn is map_calls.map_list:
                map_calls.carry_call_line(callee, s)  # (no frame of its own: `map` is the builtin, f's frames follow)
            _splice(ir, _block_of(ir, s, index), s, callee, args, index, mark=fn is not map_calls.map_list)
            spliced.add(s)
            if isinstance(s.fn, Call) and s.fn.callee() is getattr and s.fn is not self_value and \
                    (_uses(ir, s.fn) if index is None else index.read(s.fn)) == 0:
                bound = s.fn  # (the bound method `obj.m` or the static method `C.m`, read only by the call)
                home = _block_of(ir, bound, index)
                home.stmts = [x for x in home.stmts if x is not bound]
                if index is not None:
                    index.remove(bound)
            budget += size
            done += 1
            if name is not None:
                bindings[name] = user_globals[name]  # (the derivative is stale once the name is rebound)
            elif self_value is not None:
                cls_name = value_classes.values_of(self_value, numbers)[0][0].fn.name
                bindings[cls_name] = user_globals[cls_name]
        if done:  # (between rounds, so that `h = compose(f, g)` then `h(x)` calls g's and f's values, put in line next)
            fold_tuple_reads(ir)  # (`a, b = helper(x)` of a helper returning `(s, s / n)`: a is s, as in the helper)
            fold_dict_reads(ir, user_globals)  # (`coeffs.get("c0", 0.0)` of a helper's `**coeffs`)
            _drop_unused_functions(ir)
            _cells_as_values(ir)
            _constant_branches(ir)
    return done


def _constant_branches(ir: Function) -> None:
    """`if squash:` of a default the call left as it was (`True`): only the branch that runs is kept."""
    changed = False
    for b in ir.blocks:
        if isinstance(b.term, Branch) and isinstance(b.term.cond, Const) and b.loop is None and \
                type(b.term.cond.value) in (bool, int, float, str, type(None)):
            taken, dropped = (b.term.then, b.term.orelse) if b.term.cond.value else (b.term.orelse, b.term.then)
            if taken is dropped:
                continue
            b.term = Goto(taken)
            for phi in dropped.phis:
                phi.incoming.pop(b, None)
            changed = True
    if changed:
        ir.remove_unreachable()
        single = {}
        for b in ir.blocks:  # (a join left with one way in: its phis are the value that comes)
            if len(b.preds) == 1 and b.loop is None:
                single.update((phi, next(iter(phi.incoming.values()))) for phi in b.phis if len(phi.incoming) == 1)
                b.phis = [phi for phi in b.phis if phi not in single]
        substitute(ir, single)


def _cells_as_values(ir: Function) -> None:
    """A cell that only the function itself now reads (its closures all in line), written once before every read:
    each read is the value written (`a_cell.cell_contents = a` ... `a_cell.cell_contents` is `a`)."""
    count = uses(ir)
    sets: dict = {}
    gets: dict = {}
    for b in ir.blocks:
        for st in b.stmts:
            if st.callee() is ops.cell_set and len(st.args) == 2:
                sets.setdefault(st.args[0], []).append(st)
            elif st.callee() is ops.cell_get and len(st.args) == 1:
                gets.setdefault(st.args[0], []).append(st)
    dom = None
    for cell, written in sets.items():
        if not (isinstance(cell, Call) and cell.callee() is ops.new_cell and len(written) == 1):
            continue
        w = written[0]
        reads = gets.get(cell, [])
        if count.get(cell, 0) != 1 + len(reads) or w.args[1] is cell:
            continue  # (the cell is read otherwise: a closure not in line, a frame)
        dom = dom or dominators(ir)
        wb = _block_of(ir, w)
        if not all(_before(ir, dom, w, wb, r) for r in reads):
            continue
        substitute(ir, {r: w.args[1] for r in reads})
        gone = {w, cell, *reads}
        for b in ir.blocks:
            b.stmts = [st for st in b.stmts if st not in gone]


def _before(ir: Function, dom: Any, w: Call, wb: Block, r: Call) -> bool:
    """Does w run before r on every path to r?"""
    rb = _block_of(ir, r)
    if rb is wb:
        return wb.stmts.index(w) < wb.stmts.index(r)
    return rb in dom and wb in dom[rb]


def _drop_unused_functions(ir: Function) -> None:
    """The `def`s and `lambda`s every call of which is now in line (and the names they were given, the code and
    the tuples of defaults and cells only they read): making a function object changes nothing, and nothing
    reads these any more."""
    parts: set = set()
    while True:
        count = uses(ir)
        dead = {s for b in ir.blocks for s in b.stmts if not count.get(s) and (
            s.callee() is ops.make_function or s in parts or
            s.callee() is ops.identity and len(s.args) == 1 and _is_function(s.args[0]))}
        if not dead:
            return
        for d in dead:
            parts.update(a for a in d.args if isinstance(a, Call) and
                         a.callee() in (ops.nested_code, ops.tuple_of, ops.dict_of, ops.make_function))
        for b in ir.blocks:
            b.stmts = [s for s in b.stmts if s not in dead]


def _is_function(v: Any) -> bool:
    while isinstance(v, Call) and v.callee() is ops.identity and len(v.args) == 1:
        v = v.args[0]
    return isinstance(v, Call) and v.callee() is ops.make_function


def _block_of(ir: Function, s: Call, index: Optional["InlineIndex"] = None) -> Block:
    if index is not None:
        b = index.block.get(s)
        if b is not None:
            return b
    return next(b for b in ir.blocks if any(x is s for x in b.stmts))


_UNLOWERED = object()  # (in `refused`: a callee that cannot be lowered, or too long or not plain, whatever the call)


def _target(ir: Function, s: Call, g: dict, caller_code: Any, rebound: set, numbers: frozenset,
            instances: bool = True, index: Optional[InlineIndex] = None) -> Optional[tuple]:
    """(the function s calls, the value of `self` or None, the global name read, the cells it closes over, how it
    takes the call's arguments: see _bind) if s may be inlined."""
    self_value = name = how = None
    if isinstance(s.fn, Const) and s.fn.value is map_calls.map_list:
        return map_calls.map_list, None, None, [], None
    local = _local_function(s, g)
    if local is not None:
        fn, cells = local
        return (fn, None, None, cells, None) if _plain_code(fn, caller_code) else None
    if not instances and (value_classes.operator_of(s, g) is not None or s.callee() is getattr):
        return None
    if value_classes.operator_of(s, g) is not None:  # `v + dt * g` of instances of a plain class: its methods
        objects = [a for a in s.args if not value_classes.is_number(a, numbers)]
        classes = {value_classes.class_of(a, g, numbers) for a in objects}
        cls = classes.pop() if len(classes) == 1 else None
        fn = value_classes.dispatched(s, cls, numbers, g) if cls is not None else None
        if fn is None:
            return None
        reflected = value_classes.operands_in_order(s, numbers) != list(s.args)
        how = "swap" if reflected else None  # (`dt * g` is g.__rmul__(dt))
        name = next(c.fn.name for c in value_classes.values_of(objects[0], numbers)[0])
        if name in rebound:
            return None
    elif isinstance(s.fn, Call) and isinstance(s.fn.fn, Global) and s.fn.callee() is None and \
            _plain_class(g.get(s.fn.fn.name)) is not None:  # `layer(x)` of `layer = Dense(W, b)`: its `__call__`
        fn = _plain_class(g.get(s.fn.fn.name)).__dict__.get("__call__")
        self_value = s.fn
    elif isinstance(s.fn, Global):
        name = s.fn.name
        fn = g.get(name)
        if name in rebound:
            return None  # (`global helper; helper = ...` in the function: the call reads what it holds then)
    elif s.callee() is getattr and len(s.args) == 2 and not s.kwargs and isinstance(s.args[1], Const) and \
            type(s.args[1].value) is str:  # `c.norm` of a property of the object's plain class: its getter
        cls = value_classes.class_of(s.args[0], g, numbers)
        prop = cls.__dict__.get(s.args[1].value) if cls is not None else None
        if type(prop) is not property or type(prop.fget) is not types.FunctionType or \
                any(_instance_may_hold(ir, cls, v, s.args[1].value, index)
                    for v in value_classes.values_of(s.args[0], numbers)[1]):
            return None
        fn, how = prop.fget, "property"
        name = cls.__name__ if g.get(cls.__name__) is cls else None
        if name is None or name in rebound:
            return None
    elif isinstance(s.fn, Call) and s.fn.callee() is getattr and len(s.fn.args) == 2 and \
            isinstance(s.fn.args[0], Global) and isinstance(s.fn.args[1], Const) and \
            type(_plain_class(g.get(s.fn.args[0].name)).__dict__.get(s.fn.args[1].value) if
                 _plain_class(g.get(s.fn.args[0].name)) is not None else None) is staticmethod:
        name = s.fn.args[0].name  # `Counter2D.combine(u, v)` of a static method of a plain class: its function
        if name in rebound:
            return None
        fn = g[name].__dict__[s.fn.args[1].value].__func__
    elif isinstance(s.fn, Call) and s.fn.callee() is getattr and len(s.fn.args) == 2 and \
            isinstance(s.fn.args[0], Global) and isinstance(s.fn.args[1], Const) and \
            type(_plain_class(g.get(s.fn.args[0].name)).__dict__.get(s.fn.args[1].value) if
                 _plain_class(g.get(s.fn.args[0].name)) is not None else None) is classmethod:
        # `Series.from_array(x)`, an alternative constructor: its function with `cls` the class read, so the object
        # it makes is one the function makes (typed, its own operators and __getitem__); called through the
        # dispatcher its type was unknown and `s[i]` / `s * s` on it went the generic way (wrong or a crash)
        name = s.fn.args[0].name
        if name in rebound:
            return None
        fn, self_value = g[name].__dict__[s.fn.args[1].value].__func__, s.fn.args[0]
    elif isinstance(s.fn, Call) and s.fn.callee() is getattr and len(s.fn.args) == 2 and \
            isinstance(s.fn.args[1], Const) and type(s.fn.args[1].value) is str:
        obj = s.fn.args[0]
        cls = value_classes.class_of(obj, g, numbers)  # (first: `_uses` walks the whole function, once per call)
        if cls is not None and (_uses(ir, s.fn) if index is None else index.count.get(s.fn, 0)) != 1:
            cls = None
        attr = s.fn.args[1].value
        if cls is None or any(_instance_may_hold(ir, cls, v, attr, index)
                              for v in value_classes.values_of(obj, numbers)[1]):
            return None
        fn = cls.__dict__.get(attr)
        self_value = obj
    else:
        return None
    if type(fn) is not types.FunctionType or fn.__globals__ is not g or registry.lookup(fn) is not None or \
            fn.__code__.co_freevars or not _plain_code(fn, caller_code):
        return None
    return fn, self_value, name, [], how


def _goes_in_line(ir: Function, f: Any, g: dict, caller_code: Any, rebound: set, numbers: frozenset) -> bool:
    """Would a call `f(v)` of the value f (a local def or lambda, or a module function) be put in line: a target whose
    code lowers to a plain body of one positional parameter, small enough?  (map_calls.py asks before it writes
    `list(map(f, xs))` out as the loop that calls f: a call that stays one is no plainer in a loop.)"""
    from ..frontend.statements import lower_function

    found = _target(ir, Call(f, [Const(None)]), g, caller_code, rebound, numbers, False)
    if found is None or found[1] is not None or found[4] is not None:
        return False
    try:
        callee = lower_function(found[0])
    except Exception:  # noqa: BLE001 - what cannot be lowered stays a call
        return False
    positional = [p for p in callee.params if p.kind == "POSITIONAL_OR_KEYWORD"]
    return sum(len(b.stmts) for b in callee.blocks) <= _MAX_STATEMENTS and _plain_body(callee) and \
        len(positional) == 1 and len(callee.params) == 1 and len(callee.freevars) == len(found[3])


def _instance_may_hold(ir: Function, cls: type, obj: Call, attr: str, index: Optional[InlineIndex] = None) -> bool:
    """Might `obj.attr` find an instance attribute rather than the class's method (a field of that name stored by
    the constructor, or an attribute of that name written anywhere in the function)?"""
    from .local_objects import class_shape

    shape = class_shape(cls)
    if shape is None or any(f == attr for f, _ in shape.fields) or any(f == attr for f, _ in shape.constants):
        return True
    writes = index.attribute_writes if index is not None else [st for b in ir.blocks for st in b.stmts]
    return any(st.callee() in (builtins.setattr, builtins.delattr) and st.args and st.args[0] is obj
               and not (isinstance(st.args[1], Const) and st.args[1].value != attr)
               for st in writes)


def written_globals(ir: Function) -> set:
    """The module globals the function writes or deletes (`global helper; helper = ...`)."""
    from ..frontend import stmt_ops

    writers = (stmt_ops.store_global, getattr(stmt_ops, "delete_global", None))
    return {st.args[1].value for b in ir.blocks for st in b.stmts
            if st.callee() in writers and len(st.args) >= 2 and isinstance(st.args[1], Const)}


def _plain_class(cls: Any) -> Any:
    """cls if it is a class whose instances find their methods plainly (reverse/local_objects.class_shape)."""
    from .local_objects import class_shape

    return cls if isinstance(cls, type) and class_shape(cls) is not None else None


def _plain_code(fn: types.FunctionType, caller_code: Any) -> bool:
    code = fn.__code__
    if code is caller_code or code.co_flags & 0x2A0:
        return False  # (generators and coroutines)
    return all(type(d) in _PLAIN_DEFAULTS for d in [*(fn.__defaults__ or ()), *(fn.__kwdefaults__ or {}).values()])


def _local_function(s: Call, g: dict) -> Optional[tuple]:
    """(a stand-in function, the cells it closes over) for a call of a `def` or `lambda` of the caller with no
    defaults (`lam = lambda t: 0.5 * t`, then `lam(x)`), also once handed to a helper inlined before; else None."""
    f = s.fn
    while isinstance(f, Call) and f.callee() is ops.identity and len(f.args) == 1:
        f = f.args[0]
    if not (isinstance(f, Call) and f.callee() is ops.make_function and len(f.args) == 5):
        return None
    code = getattr(f, "code_object", None)
    _, _, defaults, kwdefaults, closure = f.args
    if code is None or not all(isinstance(v, Call) and v.callee() in (ops.tuple_of, ops.dict_of) and not v.args
                               for v in (defaults, kwdefaults)):
        return None
    if not (isinstance(closure, Call) and closure.callee() is ops.tuple_of and
            len(closure.args) == len(code.co_freevars)):
        return None
    fn = types.FunctionType(code, g, code.co_name, None, tuple(types.CellType(None) for _ in code.co_freevars))
    return fn, list(closure.args)


def _names_clash(ir: Function, callee: Function, index: Optional[InlineIndex] = None) -> bool:
    """Would a global name one of them reads be a variable of the other once they are one function (`def f(SCALE):
    return helper(SCALE)` with `helper` reading the global `SCALE`): the generated code would read the variable."""
    theirs = {p.name for p in callee.params} | set(callee.local_names)
    if index is None:
        mine = {p.name for p in ir.params} | set(ir.local_names)
        return bool(_global_names(callee) & mine) or bool(_global_names(ir) & theirs)
    callee_names = _global_names(callee)
    index.callee_names = callee_names  # (what the call brings if it is put in line: Index.brought)
    if any(n in ir.local_names for n in callee_names) or callee_names & {p.name for p in ir.params}:
        return True
    if index.names is None:
        index.names = _global_names(ir)
    if not index.names & theirs:
        return False  # (a superset of the names read: none of theirs among them)
    return bool(_global_names(ir) & theirs)


def _global_names(fn: Function) -> set:
    names = set(fn.globals_read)
    for b in fn.blocks:
        for x in [*b.phis, *b.stmts, b.term]:
            names.update(o.name for o in x.operands() if isinstance(o, Global))
    return names


def _reads(fn: Function, v: Any) -> bool:
    return any(v in x.operands() for b in fn.blocks for x in [*b.phis, *b.stmts, b.term])


def _uses(ir: Function, v: Any) -> int:
    return sum(1 for b in ir.blocks for x in [*b.phis, *b.stmts, b.term] for o in x.operands() if o is v)


def _plain_body(callee: Function) -> bool:
    """One return, at the end of the callee's code; nothing that reads its own frame or function object."""
    returns = [b for b in callee.blocks if isinstance(b.term, Return)]
    if len(returns) != 1 or any(isinstance(b.term, Raise) for b in callee.blocks):
        return False  # (a `raise` or `assert` of the helper's: the user's traceback shows the helper's frame and the
        # call's line, which code in line could not give: tracebacks.py maps each generated frame to one user line)
    self_ref = getattr(callee, "self_ref", None)
    for b in callee.blocks:
        for s in b.stmts:
            if self_ref is not None and self_ref in s.operands() and s.callee() not in (ops.nested_code, ops.make_function):
                return False  # (its own function object read otherwise than to find the code of what it defines)
            fn = s.callee()
            if isinstance(s.fn, Global) and getattr(builtins, s.fn.name, None) in _FRAME_READERS or \
                    fn in _FRAME_READERS:
                return False
    return True


def _bind(fn: types.FunctionType, callee: Function, s: Call, self_value: Any, how: Optional[str]) -> Optional[dict]:
    """{parameter: the value it takes} for the call s, or None if the call does not bind plainly.  `how`: "swap" for
    an operator's reflected method (`dt * g` is `g.__rmul__(dt)`), "property" for `getattr(obj, "p")` of a property
    (its getter takes obj), None for a call as written."""
    given = s.args[::-1] if how == "swap" else s.args[:1] if how == "property" else list(s.args)
    positional = ([self_value] if self_value is not None else []) + given
    params = [p for p in callee.params if p.kind == "POSITIONAL_OR_KEYWORD"]
    keyword_only = [p for p in callee.params if p.kind == "KEYWORD_ONLY"]
    var = [p for p in callee.params if p.kind == "VAR_POSITIONAL"]
    var_kw = [p for p in callee.params if p.kind == "VAR_KEYWORD"]
    if len(positional) > len(params) and not var or \
            len(params) + len(keyword_only) + len(var) + len(var_kw) != len(callee.params):
        return None
    out: dict = {}
    if var:
        out[var[0]] = _Extra(positional[len(params):])
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
    kwdefaults = fn.__kwdefaults__ or {}
    for p in keyword_only:
        if p.name in s.kwargs:
            out[p] = s.kwargs[p.name]
        elif p.name in kwdefaults:
            out[p] = Const(kwdefaults[p.name])
        else:
            return None
    extra = [k for k in s.kwargs if k not in {p.name for p in [*params[len(positional):], *keyword_only]}]
    if extra and (not var_kw or any(k in {p.name for p in params} for k in extra)):
        return None  # (an unknown keyword, or one a positional argument already gave: Python's TypeError stays)
    if var_kw:
        out[var_kw[0]] = _Extra([x for k in extra for x in (Const(k), s.kwargs[k])], ops.dict_of)
    return out


class _Extra:
    """The extra arguments a `*values` or `**options` parameter takes (made a tuple or a dict where the call is put
    in line): the items of the display to make."""

    def __init__(self, items: list, display: Any = ops.tuple_of) -> None:
        self.items = list(items)
        self.display = display


def _static_applies(ir: Function) -> None:
    """`helper(*args, power=3.0)` with `args = (x, y, z)`: a call with its arguments known where it is made
    (`ops.apply` of tuple displays, and of dict displays with string keys that nothing else reads), written as
    the plain call `helper(x, y, z, power=3.0)` so that it may be put in line."""
    if not any(s.callee() is ops.apply for b in ir.blocks for s in b.stmts):
        return
    count = uses(ir)
    touched: set = set()
    for b in ir.blocks:
        for s in b.stmts:
            if s.callee() is not ops.apply or len(s.args) != 3 or s.kwargs:
                continue
            fn, args, kwargs = s.args
            if not (isinstance(args, Call) and args.callee() is ops.concat_tuple and not args.kwargs and
                    all(isinstance(a, Call) and a.callee() is ops.tuple_of and not a.kwargs for a in args.args)):
                continue
            if not (isinstance(kwargs, Call) and kwargs.callee() is ops.merge_kwargs and not kwargs.kwargs and
                    count.get(kwargs) == 1 and all(isinstance(d, Call) and d.callee() is ops.dict_of and
                                                   count.get(d) == 1 and not d.kwargs for d in kwargs.args)):
                continue
            keys = [k for d in kwargs.args for k in d.args[0::2]]
            if not all(isinstance(k, Const) and type(k.value) is str for k in keys) or \
                    len({k.value for k in keys}) != len(keys):
                continue  # (a repeated keyword: Python's TypeError stays)
            s.fn = fn
            s.args = [item for part in args.args for item in part.args]
            s.kwargs = {k.value: v for d in kwargs.args for k, v in zip(d.args[0::2], d.args[1::2])}
            touched.update([args, *args.args, kwargs, *kwargs.args])
    while touched:  # (the displays only the call read: making them changes nothing)
        count = uses(ir)
        dead = {t for t in touched if not count.get(t)}
        if not dead:
            break
        touched -= dead
        for b in ir.blocks:
            b.stmts = [x for x in b.stmts if x not in dead]


def _mark_inlined(callee: Function, call: Call) -> None:
    """Each of the callee's statements says whose it is and where it was called (Loc.via), for comments and
    tracebacks: an error raised in it shows the caller's frame at the call and the callee's at its own line."""
    if call.loc is None:
        return
    step = ((callee.name, call.loc.file, call.loc.line),) + call.loc.via
    for blk in callee.blocks:
        for x in [*blk.phis, *blk.stmts, blk.term]:
            loc = getattr(x, "loc", None)
            if loc is not None:
                x.loc = dataclasses.replace(loc, via=step + loc.via)
        if blk.loop is not None and blk.loop.loc is not None:
            blk.loop.loc = dataclasses.replace(blk.loop.loc, via=step + blk.loop.loc.via)


def _splice(ir: Function, b: Block, s: Call, callee: Function, args: dict, index: Optional[InlineIndex] = None,
            mark: bool = True) -> None:
    """The callee's blocks in the place of s: b's statements after s and its terminator move to a new block that
    the callee's return goes to, and what read s reads the returned value.  mark: the callee's statements say whose
    they are (a frame of their own in comments and tracebacks)."""
    substitute(callee, args)
    if mark:
        _mark_inlined(callee, s)
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
    if index is None:
        substitute(ir, {s: value})
    else:
        index.spliced(s, callee, after)
        index.substitute(s, value)
        index.brought(index.callee_names, args)
    ir.local_names |= callee.local_names
    ir.globals_read |= callee.globals_read
    if isinstance(value, Call) and value not in args.values() and s.hint and not value.hint:
        value.hint = s.hint  # (the value keeps the caller's name for it)
