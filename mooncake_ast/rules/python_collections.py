"""`collections` types made inside differentiated code (issue 12): defaultdict, OrderedDict and namedtuple classes.

* `defaultdict(factory, mapping_or_pairs, **kw)` is a dict: its tangent is a defaultdict of the
  values' tangents whose factory makes the zero tangent of what the primal factory makes, so a read
  of a missing key inserts a matching zero on both sides (`d[k] += x`, `d[k].append(x)`).  Its
  adjoint is a dict's: each key's slot goes back to the argument the value came from (a keyword wins
  over the mapping, a later pair over an earlier one).
* A namedtuple class is a tuple with names; its `__new__` is generated with `exec`, so it has no
  source to trace.  Calling the class binds the arguments to the fields (defaults included) and the
  tangent / adjoint is a tuple in field order, the project's convention for namedtuples.
  `_make` and `_replace` go through `tuple.__new__(cls, iterable)`, which gets a rule here too.

`collections.deque` has its rules in python_deque.py (forward) and python_deque_reverse.py (reverse).
"""
from __future__ import annotations

import collections
import inspect
from typing import Any

from ..tangents import NoTangent, zero_tangent
from .call_binding import KwAdj
from .registry import defjvp, defrrule_at_run_time, defzero


# ------------------------------------------------------------------ collections.defaultdict
def _zero_factory(factory: Any) -> Any:
    return (lambda: zero_tangent(factory())) if factory is not None else None


def defaultdict_tangent(y: Any, factory: Any, pairs: tuple, dkw: dict) -> Any:
    from .builtin_methods import dict_tangent

    out = collections.defaultdict(_zero_factory(factory))
    out.update(dict_tangent(y, pairs, dkw))
    return out


def _defaultdict_jvp(t: Any, y: Any, factory: Any = None, /, *a: Any, **kw: Any) -> Any:
    from .. import ops

    if len(a) > 1:
        raise TypeError("defaultdict expected at most 2 arguments")
    return t.call(defaultdict_tangent, y, factory, t.call(ops.tuple_of, *[t.call(ops.tuple_of, x, t.dz(x)) for x in a]),
                  t.call(ops.dict_of, *[z for k, v in kw.items() for z in (k, t.dz(v))]))


def _value_slot(y: Any, g: Any, k: Any) -> Any:
    """Key k's adjoint as a value (a mutable value's lives in its own storage, shared with the source)."""
    from ..tangents import is_mutable

    if is_mutable(y[k]) or not isinstance(g, dict):
        return NoTangent
    return g.get(k, NoTangent)


def rrule_defaultdict(*args: Any, **kw: Any) -> tuple:
    from ..reverse.adjoints import AdjDict, AdjList, AdjTuple

    if len(args) > 2:
        raise TypeError("defaultdict expected at most 2 arguments")
    src = args[1] if len(args) > 1 else None
    if src is not None and not isinstance(src, (dict, list, tuple)):
        raise NotImplementedError("reverse mode of collections.defaultdict of an iterator: pass a dict or a list of pairs")
    y = collections.defaultdict(*args, **kw)

    def pullback(g: Any) -> tuple:
        bars: list = [NoTangent] * len(args)
        if isinstance(src, dict):
            bars[1] = AdjDict({k: _value_slot(y, g, k) for k in src if k not in kw})
        elif src is not None:
            last = {}
            for i, (k, _) in enumerate(src):
                last[k] = i
            items = [AdjTuple((NoTangent, _value_slot(y, g, k))) if last[k] == i and k not in kw else NoTangent
                     for i, (k, _) in enumerate(src)]
            bars[1] = AdjTuple(items) if isinstance(src, tuple) else AdjList(items)
        named = {k: _value_slot(y, g, k) for k in kw}
        named = {k: v for k, v in named.items() if v is not NoTangent}
        return tuple(bars) + ((KwAdj(named),) if named else ())

    return y, pullback


defjvp(collections.defaultdict, _defaultdict_jvp)
defrrule_at_run_time(collections.defaultdict, rrule_defaultdict)


# ------------------------------------------------------------------ collections.OrderedDict
# A dict that remembers insertion order (as every dict does now): dict's rules, with an OrderedDict made.
# move_to_end reorders the tangent dict as it reorders the dict (forward mode reads a dict's tangents in the
# tangent dict's order: `list(d.values())`); reverse mode: reverse/containers._dict_method.
def ordereddict_tangent(y: Any, pairs: tuple, dkw: dict) -> Any:
    from .builtin_methods import dict_tangent

    return collections.OrderedDict(dict_tangent(y, pairs, dkw))


def _ordereddict_jvp(t: Any, y: Any, *a: Any, **kw: Any) -> Any:
    from .. import ops

    return t.call(ordereddict_tangent, y, t.call(ops.tuple_of, *[t.call(ops.tuple_of, x, t.dz(x)) for x in a]),
                  t.call(ops.dict_of, *[z for k, v in kw.items() for z in (k, t.dz(v))]))


def rrule_ordereddict(*args: Any, **kw: Any) -> tuple:
    from .builtin_consumers import rrule_dict

    y, pullback = rrule_dict(*args, **kw)  # (its pullback reads the adjoint by key)
    return collections.OrderedDict(y), pullback


defjvp(collections.OrderedDict, _ordereddict_jvp)
defrrule_at_run_time(collections.OrderedDict, rrule_ordereddict)


def ordereddict_move_tangent(dd: Any, key: Any, last: bool = True) -> Any:
    """`d.move_to_end(key, last)` done on d's tangent dict (already done on d: the key is there)."""
    if isinstance(dd, dict) and key in dd:
        if isinstance(dd, collections.OrderedDict):
            dd.move_to_end(key, last)
        elif last:
            dd[key] = dd.pop(key)
        else:
            rest = {k: v for k, v in dd.items() if k != key}
            value = dd[key]
            dd.clear()
            dd[key] = value
            dd.update(rest)
    return NoTangent


defjvp((collections.OrderedDict, "move_to_end"),
       lambda t, y, d, key, last=True: t.call(ordereddict_move_tangent, t.dz(d), key, last), mutates=(0,))


# ------------------------------------------------------------------ namedtuple classes
def is_namedtuple_class(f: Any) -> bool:
    return isinstance(f, type) and issubclass(f, tuple) and isinstance(getattr(f, "_fields", None), tuple) \
        and getattr(f, "_make", None) is not None


def _bind(cls: type, args: tuple, kwargs: dict) -> list:
    """The field names in order, each with where its value came from: ("arg", i), ("kw", name) or ("default",)."""
    if getattr(getattr(cls.__new__, "__code__", None), "co_filename", None) != "<string>":
        raise NotImplementedError(f"derivative of constructing {cls.__qualname__}: it overrides namedtuple's __new__")
    sig = inspect.signature(cls.__new__)
    bound = sig.bind(cls, *args, **kwargs)  # raises TypeError as the call would
    given = bound.arguments
    out = []
    for i, name in enumerate(cls._fields):
        if name in given and i < len(args):
            out.append(("arg", i))
        elif name in kwargs:
            out.append(("kw", name))
        else:
            out.append(("default",))
    return out


def construct_forward(cls, dcls, args, dargs, kwargs, dkwargs):
    where = _bind(cls, args, kwargs)
    y = cls(*args, **kwargs)
    parts = tuple(dargs[w[1]] if w[0] == "arg" else dkwargs.get(w[1], NoTangent) if w[0] == "kw" else NoTangent
                  for w in where)
    return y, (NoTangent if all(p is NoTangent for p in parts) else parts)


def construct_reverse(cls, args, kwargs):
    from ..reverse.adjoints import AdjDict, AdjTuple

    where = _bind(cls, args, kwargs)
    y = cls(*args, **kwargs)

    def pullback(g):
        gs = list(g) if isinstance(g, (tuple, list)) else [NoTangent] * len(where)
        bars: list = [NoTangent] * len(args)
        named: dict = {}
        for w, gi in zip(where, gs):
            if w[0] == "arg":
                bars[w[1]] = gi
            elif w[0] == "kw":
                named[w[1]] = gi
        return NoTangent, AdjTuple(bars), AdjDict(named)

    return y, pullback


# ------------------------------------------------------------------ tuple.__new__(cls, iterable) (namedtuple._make)
def tuple_new_tangent(cls: Any, it: Any, dit: Any) -> Any:
    from .builtin_iteration import iter_tangents

    parts = iter_tangents(it, dit)
    return NoTangent if parts is NoTangent else tuple(parts)


def _tuple_new_jvp(t: Any, y: Any, cls: Any, it: Any = (), /, *rest: Any) -> Any:
    if t.d(it) is None:
        return None
    return t.call(tuple_new_tangent, cls, it, t.d(it))


def rrule_tuple_new(cls: Any, it: Any = (), /, *rest: Any) -> tuple:
    from ..reverse.builtin_adjoints import _like

    items = it if isinstance(it, (list, tuple)) else list(it)  # an iterator is consumed once, here
    y = tuple.__new__(cls, items, *rest)

    def pullback(g):
        if g is NoTangent or g is None:
            return (NoTangent, NoTangent)
        return (NoTangent, _like(it, list(g)))  # an iterator's adjoint: its items', in order

    return y, pullback


defjvp(tuple.__new__, _tuple_new_jvp)
defrrule_at_run_time(tuple.__new__, rrule_tuple_new)

# Making a namedtuple class (inside the differentiated function): a class, nothing to differentiate;
# constructing its instances is differentiated above.
defzero(collections.namedtuple)


# ------------------------------------------------------------------ collections.Counter
# Made from a mapping of numbers (or keywords), a Counter is a dict of them: dict's rules, with a Counter made (its
# tangent a Counter too, so a missing key reads 0 in both).  Made from an iterable of keys, its values are counts:
# no derivative.  Keywords that repeat a key of the mapping are added to it (Counter.update): refused, rather than
# differentiated as dict() would (which replaces).
def _counter_args(args: tuple, kw: dict) -> bool:
    """Is the Counter made from numbers that may carry derivatives (a mapping, keywords)?  Refuses what the rules
    would get wrong."""
    import collections.abc

    src = args[0] if args else None
    if src is not None and not isinstance(src, collections.abc.Mapping):
        if kw:
            raise NotImplementedError("derivative of collections.Counter(iterable, **keywords): the keywords are added "
                                      "to the counts; make it from one mapping instead")
        return False
    if src is not None and kw and set(src) & set(kw):
        raise NotImplementedError("derivative of collections.Counter(mapping, **keywords) with a key in both (their "
                                  "values are added): make it from one mapping instead")
    return True


def counter_tangent(y: Any, args: tuple, pairs: tuple, dkw: dict) -> Any:
    from .builtin_methods import dict_tangent

    if not _counter_args(args, dkw):
        return collections.Counter()
    return collections.Counter(dict_tangent(y, pairs, dkw))


def _counter_jvp(t: Any, y: Any, *a: Any, **kw: Any) -> Any:
    from .. import ops

    return t.call(counter_tangent, y, t.call(ops.tuple_of, *a),
                  t.call(ops.tuple_of, *[t.call(ops.tuple_of, x, t.dz(x)) for x in a]),
                  t.call(ops.dict_of, *[z for k, v in kw.items() for z in (k, t.dz(v))]))


def rrule_counter(*args: Any, **kw: Any) -> tuple:
    from .builtin_consumers import rrule_dict

    if not _counter_args(args, kw):
        y = collections.Counter(*args, **kw)
        return y, lambda g: (NoTangent,) * len(args)
    y, pullback = rrule_dict(*args, **kw)  # (its pullback reads the adjoint by key)
    return collections.Counter(y), pullback


defjvp(collections.Counter, _counter_jvp)
defrrule_at_run_time(collections.Counter, rrule_counter, _counter_args)



def _zero_tangent(d: Any) -> bool:
    if d is NoTangent or d is None:
        return True
    if isinstance(d, dict):
        return all(_zero_tangent(v) for v in d.values())
    if isinstance(d, (list, tuple)):
        return all(_zero_tangent(v) for v in d)
    try:
        return not bool(d != 0) if isinstance(d, (int, float, complex)) else False
    except (TypeError, ValueError):
        return False


def counter_change_tangent(name: str, c: Any, dc: Any, args: tuple, dargs: tuple, kw: dict, dkw: dict) -> Any:
    """Counter.update and Counter.subtract add counts, where dict.update (whose rules a dict subclass's methods would
    otherwise get) replaces: refused where a derivative flows, rather than differentiated as a replacement.  Where
    none does (counting keys), the keys the call adds get zero tangents in c's tangent, which reads them later."""
    import collections.abc

    if not all(_zero_tangent(d) for d in (dc, *dargs, *dkw.values())):
        raise NotImplementedError(f"derivative of collections.Counter.{name} (it adds to the counts): make a new "
                                  "Counter from a dict of the sums, e.g. Counter({k: c[k] + v for k, v in other.items()})")
    if isinstance(dc, dict):
        src = args[0] if args else ()
        keys = list(src.keys()) if isinstance(src, collections.abc.Mapping) else list(src) if not isinstance(
            src, collections.abc.Iterator) else []
        for k in [*keys, *kw]:
            dc.setdefault(k, 0.0)
    return NoTangent


def _counter_change_rules(name: str) -> None:
    from .registry import defjvp

    def jvp(t: Any, y: Any, c: Any, *a: Any, **kw: Any) -> Any:
        from .. import ops

        if t.d(c) is None and all(t.d(v) is None for v in (*a, *kw.values())):
            return None
        return t.call(counter_change_tangent, name, c, t.dz(c), t.call(ops.tuple_of, *a),
                      t.call(ops.tuple_of, *[t.dz(v) for v in a]), t.call(ops.dict_of, *[z for k, v in kw.items() for z in (k, v)]),
                      t.call(ops.dict_of, *[z for k, v in kw.items() for z in (k, t.dz(v))]))

    defjvp((collections.Counter, name), jvp, mutates=(0,))  # (no reverse rule: reverse mode says so by name)


for _name in ("update", "subtract"):
    _counter_change_rules(_name)
