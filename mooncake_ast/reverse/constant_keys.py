"""Dict keys that activity calls input-dependent but that are constants: their values come from literals only.

Reverse mode refuses a dict key that depends on the inputs and can carry a derivative (a float: rules/dict_key_checks.py
says why).  Which keys depend on the inputs comes from activity (forward/activity.py), which works on alias classes:
`d.get(k, 0.0)` is a method call it does not know, so it joins k, and the list k was read from, to d's class, and
the write `d[k] = d.get(k, 0.0) + v` of a value from the inputs then marks the whole class as holding input data --
k included.  So `for k, v in zip([1.0, 2.0, 1.0], x): d[k] = d.get(k, 0.0) + v` was refused, though k is 1.0 or 2.0
whatever x is (forward mode, which sees k's tangent is zero, took it).

Here a key is proved constant by its provenance, looked at in the IR: a literal; a number computed by plain
arithmetic, `float`, `int`, ... from constants (`float(i % 2)` of a loop counter); an item of a container made in
the function from constants (a list or tuple display, `np.array` of one, a module-level tuple) that nothing can
write (every use of it is a read: an item, `len`, the `for` loop's sequence, `zip`, an array made from it).  The
index of such an item does not matter: whatever it is, the item is one of the constants.  Anything else keeps
activity's answer, so a key that really depends on the inputs (`x[0] * 3.0`, an item of a list appended to, a
parameter) is still refused."""
from __future__ import annotations

import builtins
import math
import operator
from typing import Any

import numpy as np

from .. import ops
from ..frontend import generator_ops
from ..ir.nodes import Call, Const, Global, Phi, Value

# Calls whose result is a number computed from their operands alone: constant operands give a constant.
_NUMERIC = frozenset({
    operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod, operator.pow,
    operator.neg, operator.pos, operator.abs, builtins.float, builtins.int, builtins.abs, builtins.round,
    builtins.bool, builtins.str, builtins.complex, np.float64, np.float32, np.int64, np.int32, math.floor, math.ceil,
    ops.identity,
})
# Calls that make a container holding the operands (or copies of their items).
_DISPLAYS = frozenset({ops.list_of, ops.tuple_of})
_ARRAY_MAKERS = frozenset({np.array, np.asarray})
_SORTED_ARRAYS = frozenset({np.unique, np.sort})  # (a new 1-d array of a 1-d container's items)
_RANGES = frozenset({np.linspace, np.arange})  # (of literal bounds: a 1-d array of numbers)
_ARRAYS = _ARRAY_MAKERS | _SORTED_ARRAYS | _RANGES
# Calls that only read a container given to them (its items, its length), returning nothing that aliases it.
_READERS = frozenset({builtins.len, operator.contains, ops.not_contains, builtins.sum, builtins.min, builtins.max,
                      builtins.sorted, builtins.list, builtins.tuple,
                      generator_ops.exhausted, generator_ops.consumed,  # (a `for` loop's end: a generator's state)
                      builtins.zip, builtins.enumerate, builtins.iter, builtins.reversed})  # (items: literals, numbers)


def key_varies(tr: Any, v: Value) -> bool:
    """Does the key v (or the container of keys v) depend on the inputs: activity says so, and its provenance does
    not prove it a constant?"""
    if isinstance(v, Const) or v not in tr.act.active:
        return False
    return not (_constant(tr, v, set()) or _constant_container(tr, v, set()))  # (keys to come: `zip(keys, vs)`)


def _constant(tr: Any, v: Value, seen: set) -> bool:
    """Is v's value made from literals only?  (A cycle through phis is taken as constant: a loop counter `0, i + 1`.)"""
    if isinstance(v, Const):
        return True
    if v in seen:
        return True
    seen.add(v)
    if isinstance(v, Phi):
        return all(_constant(tr, w, seen) for w in v.incoming.values())
    if not isinstance(v, Call) or v.kwargs:
        return False
    fn = _callee(tr, v)
    if fn in _NUMERIC:
        return all(_constant(tr, a, seen) for a in v.args)
    if fn is operator.getitem and len(v.args) == 2:
        return _constant_container(tr, v.args[0], set())
    return False


def _constant_container(tr: Any, c: Value, seen: set) -> bool:
    """Is c a container made in the function of literals that nothing writes (so each of its items is a literal)?"""
    if isinstance(c, Const):  # (a tuple of literals: an array made of it is 1-d, its items numbers, not views)
        return isinstance(c.value, (str, bytes, range)) or isinstance(c.value, tuple) and all(map(_literal, c.value))
    if isinstance(c, Global):  # (a module-level tuple: immutable, and rebinding it with values from the inputs
        # while the derivative runs is refused where it is read, frontend/global_ops.check_global_read)
        value = getattr(tr.resolver, "g", {}).get(c.name)
        return type(value) is tuple and all(map(_literal, value))
    if c in seen or not isinstance(c, Call) or c.kwargs:
        return False
    seen.add(c)
    fn = _callee(tr, c)
    if fn in _DISPLAYS:
        made = all(isinstance(a, Const) and _literal(a.value) for a in c.args)
    elif fn is ops.sequence or fn in _ARRAY_MAKERS or fn in _SORTED_ARRAYS:
        made = len(c.args) == 1 and _constant_container(tr, c.args[0], seen)
    elif fn in _RANGES:
        made = 0 < len(c.args) <= 3 and all(isinstance(a, Const) and type(a.value) in (int, float) for a in c.args)
    else:
        return False
    return made and _unwritten(tr, c, set(), fn in _ARRAYS or _array_made(tr, c))


def _array_made(tr: Any, c: Value) -> bool:
    """Is c an array made from a display (`ops.sequence(np.array([...]))`), not the display itself?"""
    while isinstance(c, Call) and _callee(tr, c) is ops.sequence and len(c.args) == 1:
        c = c.args[0]
    return isinstance(c, Call) and _callee(tr, c) in _ARRAYS


def _unwritten(tr: Any, c: Value, seen: set, array: bool) -> bool:
    """Is every use of c a read, and every value that may share c's storage (`ops.sequence(c)`, `np.asarray(c)`,
    a slice of an array) unwritten too?  A phi, a call not listed, a method of c: taken as a possible write.  (An
    item or a slice of a list display of literals shares nothing with it.)"""
    if c in seen:
        return True
    seen.add(c)
    users = _users(tr).get(c)
    if users is None:
        return False
    for u in users:
        if not isinstance(u, Call) or c is u.fn or c in u.kwargs.values():
            return False
        fn = _callee(tr, u)
        if fn is operator.getitem and len(u.args) == 2 and u.args[0] is c:
            if array and not (_int_index(tr, u.args[1]) or _unwritten(tr, u, seen, True)):  # (a slice: a view)
                return False
        elif fn is ops.sequence or fn in _ARRAY_MAKERS or fn in _SORTED_ARRAYS:
            if not _unwritten(tr, u, seen, array or fn in _ARRAYS):
                return False
        elif fn not in _READERS:
            return False
    return True


def _int_index(tr: Any, i: Value) -> bool:
    """An index that picks one item (an int: a literal, a loop counter, an item of a range), not a slice or a mask
    (views, copies)."""
    if isinstance(i, Const):
        return type(i.value) is int
    if isinstance(i, Phi):  # (a `for` loop's counter: 0, then itself + 1)
        return all(isinstance(w, Const) and type(w.value) is int or _counter_step(w, i) for w in i.incoming.values())
    if _is_call_of(i, operator.getitem) and len(i.args) == 2:  # (`for i in range(n)`: an item of the range)
        seq = i.args[0]
        while _is_call_of(seq, ops.sequence) and len(seq.args) == 1:
            seq = seq.args[0]
        return isinstance(seq, Call) and _callee(tr, seq) is range and _int_index(tr, i.args[1])
    return _is_call_of(i, ops.identity) and len(i.args) == 1 and _int_index(tr, i.args[0])


def _counter_step(w: Value, phi: Phi) -> bool:
    return _is_call_of(w, operator.add) and len(w.args) == 2 and w.args[0] is phi and isinstance(w.args[1], Const) \
        and type(w.args[1].value) is int


def _is_call_of(v: Value, fn: Any) -> bool:
    return isinstance(v, Call) and isinstance(v.fn, Const) and v.fn.value is fn


def _literal(value: Any) -> bool:
    return type(value) in (int, float, bool, str, complex, bytes) or value is None


def _callee(tr: Any, s: Call) -> Any:
    try:
        fn = tr.resolver.raw_callee(s)
        hash(fn)
        return fn
    except Exception:  # (an unhashable or unresolvable callee: nothing this module knows)
        return None


def _users(tr: Any) -> dict:
    """Each value's users (statements and phis) in the function, found once per transform."""
    found = getattr(tr, "_constant_key_users", None)
    if found is None:
        found = {}
        for b in tr.ir.blocks:
            for phi in b.phis:
                for w in phi.incoming.values():
                    found.setdefault(w, []).append(phi)
            for s in b.stmts:
                for w in s.operands():
                    found.setdefault(w, []).append(s)
            for w in b.term.operands():  # type: ignore[union-attr]
                found.setdefault(w, []).append(b.term)
        tr._constant_key_users = found
    return found
