"""Generation time: which SSA values of a function may be (or hold) instances of user classes.

When the code is generated, `ObjectFlow` finds the operator statements whose operands
may be user objects; the resolver then leaves them to run-time dispatch (forward/objects.py)
instead of inlining the numeric template (which would do tangent arithmetic on the object's
tangent).  Numbers and arrays (arguments specialised as such, NumPy results, arithmetic of
those) never are, so numeric code keeps its inline templates.  The argument kinds a rule
is specialised on reach the analysis through `generating` / `current_kinds`.

Separate from the run-time dispatch: this reads the IR once per generated function, the
dispatch runs per operator call and never sees the IR.
"""
from __future__ import annotations

import builtins
import operator
import threading
import types
from typing import Any, Optional

import numpy as np

from .. import ops
from ..arrays import library_of_type
from .objects import _ARITHMETIC, _PLAIN_BASES, _PLAIN_TYPES, INPLACE, is_user_object


class _Generating(threading.local):
    """Argument kinds of the rules being generated in this thread (innermost last): per thread,
    as threads generate concurrently and must not see each other's kinds."""

    def __init__(self) -> None:
        self.stack: list = []


_GENERATING = _Generating()


class generating:
    """`with generating(kinds):` lets the resolvers made inside know the argument kinds."""

    def __init__(self, kinds: Optional[dict]) -> None:
        self.kinds = dict(kinds or {})

    def __enter__(self) -> None:
        _GENERATING.stack.append(self.kinds)

    def __exit__(self, *exc: Any) -> None:
        _GENERATING.stack.pop()


def current_kinds() -> Optional[dict]:
    stack = _GENERATING.stack
    return stack[-1] if stack else None


def _plain_constant(value: Any) -> bool:
    return not is_user_object(value) and not isinstance(value, (list, dict, set))


def _plain_global(value: Any) -> bool:
    return isinstance(value, (int, float, complex, bool, str, bytes, type(None), np.ndarray, np.generic, np.ufunc,
                              types.ModuleType, types.FunctionType, types.BuiltinFunctionType, type))


def _numeric_module(fn: Any) -> bool:
    if isinstance(fn, np.ufunc):
        return True
    mod = getattr(fn, "__module__", None) or ""
    return mod == "math" or mod == "numpy" or mod.startswith("numpy.")


_NUMBER_RESULT = {builtins.len, builtins.float, builtins.int, builtins.bool, builtins.round, builtins.isinstance,
                  builtins.hash, builtins.id, builtins.str, builtins.repr, operator.not_, operator.truth, operator.is_,
                  operator.is_not}


class ObjectFlow:
    """Which SSA values of one function may be (or hold) instances of user classes.

    Each value may be a user object (OBJ: an operator on it runs user code) and/or a
    container that may hold one (HOLD: its items and attributes may be objects).  From the
    start: arguments specialised as obj / objs (or of unknown kind), closure cells, the
    function itself, globals bound to anything but numbers, arrays, modules, functions and
    classes.  Unknown callees may return anything and store objects into their arguments;
    an operator with an OBJ operand may return anything; parts of OBJ/HOLD values may be
    objects; a container built from or written with OBJ/HOLD values holds them; aliases
    (phis, `y = x`, `a += b`) share one fate.  Numbers and arrays (numeric arguments,
    NumPy and math results, arithmetic of those) are never objects.
    """

    def __init__(self, stmts: list, phis: list, param_kinds: Optional[dict], user_globals: dict, raw_callee: Any,
                 plain_calls: frozenset = frozenset()) -> None:
        """`plain_calls`: calls of the user's functions known to return numbers or arrays (reverse/call_types.py)."""
        from ..ir.nodes import Call, Const, Global, Param, Phi

        self.kinds = param_kinds
        self.g = user_globals
        fns = {s: raw_callee(s) for s in stmts}

        def base_plain(v: Any) -> Optional[bool]:
            """True/False where known without the fixpoint; None for statements and phis."""
            if isinstance(v, Const):
                return _plain_constant(v.value)
            if isinstance(v, Global):
                return v.name in self.g and _plain_global(self.g[v.name]) or (
                    v.name not in self.g and hasattr(builtins, v.name))
            if isinstance(v, Param) and type(v) is Param:
                return self._param_kind(v) in ("num", "arr")
            if isinstance(v, (Call, Phi)):
                return None
            return False  # closure cells, the function itself

        def base_source(v: Any) -> bool:
            """A value that may be a user object from the start (not computed here)."""
            if isinstance(v, Param) and type(v) is Param:
                return self._param_kind(v) not in ("num", "arr", "any")
            return not isinstance(v, (Call, Phi)) and base_plain(v) is False

        # Plain (a number or an array, never an object or a container): greatest fixpoint.
        plain = {v for v in [*stmts, *phis]}

        def is_plain(v: Any) -> bool:
            b = base_plain(v)
            return b if b is not None else v in plain

        changed = True
        while changed:
            changed = False
            for s in stmts:
                if s not in plain or s in plain_calls:  # (typed by reverse mode: a number or an array)
                    continue
                fn = fns[s]
                if fn is None:  # a method of a number or an array (x.sum()) gives numbers and arrays
                    f = s.fn
                    ok = s in plain_calls or (isinstance(f, Call) and raw_callee(f) is builtins.getattr and len(f.args) == 2
                                              and is_plain(f.args[0]) and not (isinstance(f.args[0], Global) and
                                                                               _makes_objects(self.g.get(f.args[0].name))))
                    # (`Series.from_array(a)`: a classmethod of a user class read from the module may make an object)
                elif _numeric_module(fn) or fn in _NUMBER_RESULT:
                    ok = True
                elif fn is operator.getitem and len(s.args) == 2 and _display_item(s, raw_callee) is not None:
                    ok = is_plain(_display_item(s, raw_callee))  # (`lo, hi = 0.0, x`: an item of a tuple display)
                elif fn is operator.getitem and len(s.args) == 2 and _of_range(s.args[0], raw_callee):
                    ok = True  # (`for k in range(n)`: an int, or a range of ints for a slice; never an object)
                elif fn in (operator.getitem, builtins.getattr):
                    ok = (is_plain(s.args[0]) or fn is builtins.getattr and self._field_read(s)) if s.args else False
                elif fn in _ARITHMETIC or fn is ops.identity:
                    ok = all(is_plain(a) for a in (*s.args, *s.kwargs.values()))
                else:
                    ok = False
                if not ok:
                    plain.discard(s)
                    changed = True
            for p in phis:
                if p in plain and not all(is_plain(v) for v in p.incoming.values()):
                    plain.discard(p)
                    changed = True

        # Aliases (the same object under two names) share one class; each class may be a user
        # object (OBJ) and/or a container that may hold one (HOLD).
        parent: dict = {}

        def find(v: Any) -> Any:
            parent.setdefault(v, v)
            while parent[v] is not v:
                parent[v] = parent[parent[v]]
                v = parent[v]
            return v

        def union(a: Any, b: Any) -> None:
            ra, rb = find(a), find(b)
            if ra is not rb:
                parent[ra] = rb
                flags[rb] = flags.get(rb, 0) | flags.pop(ra, 0)

        flags: dict = {}
        OBJ, HOLD = 1, 2

        def get(v: Any) -> int:
            return 0 if is_plain(v) else flags.get(find(v), 0)

        def add(v: Any, f: int) -> bool:
            if not f or is_plain(v):
                return False
            r = find(v)
            old = flags.get(r, 0)
            if old | f != old:
                flags[r] = old | f
                return True
            return False

        for st in stmts:
            if fns[st] is ops.identity or fns[st] in INPLACE:
                if st.args and not is_plain(st) and not is_plain(st.args[0]):
                    union(st, st.args[0])  # the same object (`a += b` on a list, `y = x`)
        for ph in phis:
            for v in ph.incoming.values():
                if not is_plain(ph) and not is_plain(v):
                    union(ph, v)
        for v in {v for st in stmts for v in (st, st.fn, *st.args, *st.kwargs.values())}:
            if not is_plain(v) and base_source(v):
                kind = self._param_kind(v) if isinstance(v, Param) and type(v) is Param else "unknown"
                add(v, HOLD if kind == "objs" else OBJ if kind == "obj" else OBJ | HOLD)

        parts = {operator.getitem, builtins.getattr, builtins.next, ops.cell_get}
        containers = {builtins.iter, ops.sequence, ops.unpack, ops.tuple_of, ops.list_of, ops.set_of, ops.dict_of,
                      getattr(ops, "concat_tuple", None), getattr(ops, "merge_dicts", None), ops.merge_kwargs}
        writes = {operator.setitem: 0, builtins.setattr: 0, ops.cell_set: 0}
        changed = True
        while changed:
            changed = False
            for st in stmts:
                if st in plain_calls:  # (its result holds no object; the callee may still store some in its operands)
                    for v in (*st.args, *st.kwargs.values()):
                        changed |= add(v, HOLD)
                    continue
                if is_plain(st):
                    continue
                fn = fns[st]
                operands = [v for v in (*st.args, *st.kwargs.values()) if not is_plain(v)]
                seen = 0
                for v in operands:
                    seen |= get(v)
                if fn is builtins.range or fn in (ops.sequence, builtins.iter) and _of_range(st, raw_callee):
                    continue  # (a range holds ints, and stores nothing into what it is given)
                if fn is None or _makes_objects(fn) or _sparse_maker(fn):  # unknown code (or a class whose
                    # instances are objects, e.g. collections.UserList): it may return anything and store objects into
                    # its operands
                    changed |= add(st, OBJ | HOLD)
                    f = st.fn
                    if isinstance(f, Call) and raw_callee(f) is builtins.getattr and f.args:
                        changed |= add(f.args[0], HOLD)  # obj.method(...) may change obj
                    for v in operands:
                        changed |= add(v, HOLD)
                elif fn in _ARITHMETIC or fn in INPLACE:
                    changed |= add(st, (OBJ | HOLD) if seen & OBJ else seen & HOLD)
                    if fn in INPLACE and st.args and seen:
                        changed |= add(st.args[0], HOLD)
                elif fn in parts:
                    base = get(st.args[0]) if st.args else 0
                    changed |= add(st, OBJ | HOLD if base else 0)
                elif fn in containers:
                    changed |= add(st, HOLD if seen else 0)
                elif fn in writes:
                    value = get(st.args[-1]) if st.args else 0
                    if value:
                        changed |= add(st.args[writes[fn]], HOLD)
                elif fn is builtins.sorted and len(st.args) == 1:  # (a new list of the items; `key=` is only called)
                    changed |= add(st, HOLD if get(st.args[0]) else 0)
                elif seen:  # other known callables (max, zip, ...): anything may come out or be stored
                    changed |= add(st, OBJ | HOLD)
                    for v in operands:
                        changed |= add(v, HOLD)
        self._get, self._plain, self._OBJ = get, is_plain, OBJ

    def _field_read(self, s: Any) -> bool:
        """`p.W` of a parameter whose kind names its fields (`obj:fields:W=f.nn;b=f.n`: instance attributes
        holding float arrays or floats, which no class attribute shadows; reverse/argument_kinds.kinds_of)."""
        from ..ir.nodes import Const, Param

        p = s.args[0]
        if len(s.args) != 2 or not isinstance(s.args[1], Const) or not (isinstance(p, Param) and type(p) is Param):
            return False
        parts = (self.kinds or {}).get(p.name, "").split(":")
        return len(parts) >= 3 and parts[:2] == ["obj", "fields"] and \
            any(entry.partition("=")[0] == s.args[1].value for entry in parts[2].split(";"))

    def _param_kind(self, p: Any) -> str:
        """The kind the rule is specialised on; unknown (a generic rule) may be anything."""
        if self.kinds is None or p.name not in self.kinds:
            return "unknown"
        return self.kinds[p.name].split(":")[0]

    def may_be_object(self, v: Any) -> bool:
        """May v itself be an instance of a user class (so an operator on it runs user code)?"""
        return bool(self._get(v) & self._OBJ)


_SPARSE_MAKERS = frozenset({"diags", "diags_array", "kron", "vstack", "hstack", "bmat", "block_array", "block_diag"})


def _sparse_maker(fn: Any) -> bool:
    """Is fn a scipy.sparse function that makes a sparse matrix from differentiable values (sps.diags(x), sps.kron,
    sps.vstack: rules/scipy_sparse_ops.py)?  Its result's operators (`D @ x`) must dispatch on its class when the
    code runs, as a class's instances do: inlined as NumPy's template, `D @ x` gave its tangent as `dD @ x` of the
    matrix's field tangents."""
    return getattr(fn, "__name__", None) in _SPARSE_MAKERS and \
        (getattr(fn, "__module__", None) or "").startswith("scipy.sparse")


def _makes_objects(fn: Any) -> bool:
    """Is fn a class (not a builtin or NumPy type, not a Dask/CuPy array) whose instances are user objects, whose
    operators (`u[0]`, `u + v`) run the class's own methods?"""
    if not isinstance(fn, type) or fn in _PLAIN_TYPES or issubclass(fn, _PLAIN_BASES) or library_of_type(fn):
        return False
    module = fn.__module__ or ""
    return module not in ("builtins", "numpy") and not module.startswith("numpy.")


def function_values(block: Any) -> tuple[list, list]:
    """Every statement and phi of the function that `block` belongs to (found through the CFG)."""
    seen = {block}
    stack = [block]
    while stack:
        b = stack.pop()
        for n in (*b.preds, *b.successors()):
            if n not in seen:
                seen.add(n)
                stack.append(n)
    blocks = sorted(seen, key=lambda b: b.id)
    return [s for b in blocks for s in b.stmts], [p for b in blocks for p in b.phis]


def _of_range(v: Any, raw_callee: Any) -> bool:
    """Is v `range(...)` (the builtin's: the user's module does not rebind it), a slice of one, or a loop's `sequence` /
    `iter` of one?
    Its items are ints, whatever the arguments were (range calls their `__index__`, which must give an int)."""
    from ..ir.nodes import Call

    for _ in range(4):
        if not isinstance(v, Call):
            return False
        fn = raw_callee(v)
        if fn is builtins.range:
            return True
        if fn is operator.getitem and len(v.args) == 2 and isinstance(v.args[1], Call) and \
                raw_callee(v.args[1]) is slice:
            v = v.args[0]  # (`range(n)[1:]`: a range)
            continue
        if fn not in (ops.sequence, builtins.iter) or len(v.args) != 1 or v.kwargs:
            return False
        v = v.args[0]
    return False


def _display_item(s: Any, raw_callee: Any) -> Any:
    """The item `t[k]` reads when t is a tuple display made here and k a constant inside it (`lo = (0.0, x)[0]`,
    what `lo, hi = 0.0, x` lowers to); None otherwise."""
    from ..ir.nodes import Call, Const

    t, k = s.args
    if isinstance(t, Call) and raw_callee(t) is ops.tuple_of and not t.kwargs and isinstance(k, Const) and \
            type(k.value) is int and -len(t.args) <= k.value < len(t.args):
        return t.args[k.value]
    return None
