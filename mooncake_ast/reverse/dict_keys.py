"""Where a key that depends on the inputs enters a dict, reverse mode puts a run-time refusal in the pullback.

A dict keeps no derivative of its keys, so a key that carries one would lose it silently (rules/dict_key_checks.py
says why).  Displays and plain `d[k] = v` have their checks beside their adjoints (builtin_rules, transform); this
module covers the other routes, which the pullback otherwise undoes through rules that run when the code runs and
know nothing of which values depend on the inputs: `dict(...)` / `OrderedDict(...)` / `defaultdict(f, ...)` of
pairs or of `zip(keys, values)`, `d.update(...)`, `d.setdefault(k, v)`, and `d[k] = v` dispatched when the code runs
(a container of unknown type).

Which operands can carry a key is read off the IR: the first operand of a `zip`, the first item of each pair in a
tuple display; only where the structure is unknown does the whole operand go to the check, which then looks at each
pair's key.  A check is emitted only for operands that depend on the inputs, and refuses only keys that can carry
a derivative (floats, float arrays), so string and int keys, and constant float keys, stay free."""
from __future__ import annotations

import collections
import operator
from typing import Any

from .. import ops
from ..ir.analysis import uses
from ..ir.nodes import Call, Const, Global, Value
from ..rules import dict_key_checks as checks
from .constant_keys import key_varies
from .special import hashable

_CONSTRUCTORS = {dict: 0, collections.OrderedDict: 0, collections.defaultdict: 1}


def emit_key_checks(tr: Any, s: Call) -> None:
    """Emit, in the pullback at s, the refusal of a key that depends on the inputs (nothing when none can)."""
    fn = tr.resolver.raw_callee(s)
    if fn is operator.setitem and len(s.args) == 3:
        if tr.resolver.callee(s)[0] is None and _varied(tr, s.args[1]):  # (dispatched: the static check is skipped)
            _emit(tr, checks.check_key_of, s.args[0], s.args[1])
        return
    if hashable(fn) and fn in _CONSTRUCTORS:
        at = _CONSTRUCTORS[fn]
        if len(s.args) > at:
            _pairs(tr, s, s.args[at])
        return
    method = _method_of(s)
    if method is None or not s.args:
        return
    obj, name = method
    if name == "setdefault" and _varied(tr, s.args[0]):
        _emit(tr, checks.check_key_of, obj, s.args[0])
    elif name == "update":
        _pairs(tr, obj, s.args[0])


def _pairs(tr: Any, container: Value, pairs: Value) -> None:
    """The keys `pairs` brings into `container` (a dict or a mapping's pairs, an iterable of pairs or a zip)."""
    if not _varied(tr, pairs):
        return
    made_by = tr.resolver.raw_callee(pairs) if isinstance(pairs, Call) else None
    if made_by is zip and pairs.args:
        keys = pairs.args[0]
        if isinstance(keys, Call) and tr.resolver.raw_callee(keys) is ops.tuple_of:  # (a list may grow later)
            for k in keys.args:
                if _varied(tr, k):
                    _emit(tr, checks.check_key_of, container, k)
        elif _varied(tr, keys):
            _emit(tr, checks.check_key_items, container, keys)
        return
    if made_by in (enumerate, ops.dict_of):  # (int keys; a display's keys are checked where it is made)
        return
    # (a list display may be appended to before the call: checked when the code runs, unless this call is its only use)
    if made_by is ops.tuple_of or made_by is ops.list_of and uses(tr.ir).get(pairs) == 1:
        unknown = False
        for item in pairs.args:
            if isinstance(item, Call) and tr.resolver.raw_callee(item) is ops.tuple_of and item.args:
                if _varied(tr, item.args[0]):
                    _emit(tr, checks.check_key_of, container, item.args[0])
            elif _varied(tr, item):
                unknown = True
        if not unknown:
            return
    _emit(tr, checks.check_pair_keys, container, pairs)


def _method_of(s: Call) -> Any:
    """`obj.name(...)` as (obj, name), from its callee `getattr(obj, 'name')`."""
    f = s.fn
    if (isinstance(f, Call) and isinstance(f.fn, Const) and f.fn.value is getattr and len(f.args) == 2
            and isinstance(f.args[1], Const) and isinstance(f.args[1].value, str)):
        return f.args[0], f.args[1].value
    return None


def _varied(tr: Any, v: Value) -> bool:
    return not isinstance(v, (Const, Global)) and key_varies(tr, v)


def _emit(tr: Any, check: Any, container: Value, operand: Value) -> None:
    c = tr.b.call(check, [tr.primal(container), tr.primal(operand)])
    c.keep = True  # (its result unread: the pullback's sweep would drop it)

