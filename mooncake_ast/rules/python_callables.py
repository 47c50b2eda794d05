"""Callable objects of the standard library (issue 12): functools.partial, operator.itemgetter,
operator.attrgetter and operator.methodcaller, made and called inside differentiated code (and, through
`call_rule`, the namedtuple classes of python_collections.py).

They are C objects that call something else, so their rules say what they call and hand that call to
run-time dispatch (`fcall` in forward mode, `rcall` in reverse): a partial of a user function
differentiates that user function, a methodcaller differentiates the method it names, an itemgetter
is a read of an item (whose reverse adds into the container's storage, as `x[i]` does).

A partial (and a methodcaller) holds arguments, which may be differentiated: its tangent is a
`Tangent` with fields `func`, `args` and `keywords` (the bound arguments' tangents), made by the
constructor's rule; its adjoint a `BoundAdjoint` of the same three parts, which the constructor's
reverse hands back to the arguments the object was made from.  Like Python, `partial(partial(f, a), b)`
is one partial of f with (a, b); its tangent and adjoint follow that flattening.

`CALLS` maps a type to its (forward, reverse) call rules; forward/runtime.py and reverse/runtime.py
consult it (`call_rule`) for a callee that is an instance of one of these types.
"""
from __future__ import annotations

import collections

import functools
import types
import operator
from typing import Any

import numpy as np

from ..tangents import NoTangent, Tangent
from .call_binding import KwAdj
from .registry import defjvp, defrrule_at_run_time, defzero


class BoundAdjoint:
    """The adjoint of a partial or methodcaller: of its function (partial only) and bound arguments."""

    __slots__ = ("func", "args", "keywords")

    def __init__(self, func: Any, args: tuple, keywords: dict) -> None:
        self.func, self.args, self.keywords = func, tuple(args), dict(keywords)

    def __add__(self, other: Any) -> Any:
        from ..reverse.adjoints import accumulate

        if other is NoTangent or other is None:
            return self
        if not isinstance(other, BoundAdjoint):
            return NotImplemented
        keys = list(self.keywords) + [k for k in other.keywords if k not in self.keywords]
        return BoundAdjoint(accumulate(self.func, other.func),
                            tuple(accumulate(a, b) for a, b in zip(self.args, other.args)),
                            {k: accumulate(self.keywords.get(k, NoTangent), other.keywords.get(k, NoTangent)) for k in keys})

    __radd__ = __add__

    def __repr__(self) -> str:
        return f"BoundAdjoint(func={self.func!r}, args={self.args!r}, keywords={self.keywords!r})"


def _parts(dp: Any, n: int, keys: Any) -> tuple:
    """(func, args, keywords) tangents of a partial/methodcaller tangent (zeros for NoTangent)."""
    if isinstance(dp, Tangent):
        return dp.func, tuple(dp.args), dict(dp.keywords)
    return NoTangent, (NoTangent,) * n, {k: NoTangent for k in keys}


def _refuse_subclass(obj: Any) -> None:
    if type(obj) not in CALLS:
        raise NotImplementedError(f"derivative of a call of a {type(obj).__qualname__} (a subclass of "
                                  f"{type(obj).__mro__[1].__qualname__}): register a rule for it")


# ------------------------------------------------------------------ functools.partial
def partial_tangent(y: Any, n: int, dfunc: Any, *rest: Any) -> Any:
    """The tangent of y = partial(func, *args, **kw) from func's, the args' and the keywords' tangents
    (`rest`: n positional tangents, then name, tangent pairs)."""
    dargs = tuple(rest[:n])
    dkw = dict(zip(rest[n::2], rest[n + 1::2]))
    flat_args = len(y.args) - n  # partial of a partial: the inner one's arguments come first
    # (an inner partial binding keywords only is flattened too: its tangent arrives as dfunc, a partial's tangent;
    # taken as the function's, its keywords' tangents were lost, `partial(partial(f, w=c), a)`)
    if flat_args or (isinstance(dfunc, Tangent) and set(dfunc.fields) == {"func", "args", "keywords"}):
        inner_f, inner_a, inner_k = _parts(dfunc, flat_args, [k for k in y.keywords if k not in dkw])
        dfunc, dargs = inner_f, inner_a + dargs
        dkw = {**inner_k, **dkw}
    if dfunc is NoTangent and all(d is NoTangent for d in dargs) and all(d is NoTangent for d in dkw.values()):
        return NoTangent
    return Tangent({"func": dfunc, "args": dargs, "keywords": {k: dkw.get(k, NoTangent) for k in y.keywords}})


def _partial_jvp(t: Any, y: Any, func: Any, /, *args: Any, **kw: Any) -> Any:
    if t.d(func) is None and all(t.d(a) is None for a in args) and all(t.d(v) is None for v in kw.values()):
        return None
    return t.call(partial_tangent, y, len(args), t.dz(func), *[t.dz(a) for a in args],
                  *[z for k, v in kw.items() for z in (k, t.dz(v))])


def _routed(args: tuple, gs: list) -> list:
    """Bound arguments' adjoints from one call: the parts that belong to mutable objects go into their storage now
    (shadows.route), the rest stay values.  Kept as values, two calls' adjoints were summed where the partial is
    reversed, and one of them could already be the storage of an array the callee also reached another way (a
    bound method's field): counted twice."""
    from ..reverse.shadows import route

    return [route(a, g) for a, g in zip(args, gs)] + list(gs[len(args):])



def _routed_keywords(bound: dict, kb: dict, given: dict) -> dict:
    """_routed for the keywords bound in the object (not those the call gave)."""
    from ..reverse.shadows import route

    return {k: route(v, kb.get(k, NoTangent)) for k, v in bound.items() if k not in given}


def rrule_partial(func: Any, /, *args: Any, **kw: Any) -> tuple:
    from ..reverse.adjoints import accumulate
    from ..reverse.shadows import _has_shadow, shadow

    y = functools.partial(func, *args, **kw)
    inner = len(y.args) - len(args)
    flattened = isinstance(func, functools.partial) and y.func is not func  # (also one binding keywords only)

    def pullback(g: Any) -> tuple:
        if not isinstance(g, BoundAdjoint):
            g = BoundAdjoint(NoTangent, [NoTangent] * len(y.args), {})  # (its keywords' storage may still hold some)
        f_bar = g.func
        if inner or flattened:  # the inner partial's part of the flattened one goes back to it
            f_bar = BoundAdjoint(g.func, g.args[:inner], {k: v for k, v in g.keywords.items() if k not in kw})
        named = {k: g.keywords.get(k, NoTangent) for k in kw}
        if kw and _has_shadow(y.keywords):  # (`p.keywords` read: the dict's storage holds its values' adjoints)
            held = shadow(y.keywords)
            named = {k: accumulate(v, held.get(k, NoTangent)) for k, v in named.items()}
        named = {k: v for k, v in named.items() if v is not NoTangent}
        return (f_bar, *g.args[inner:]) + ((KwAdj(named),) if named else ())

    return y, pullback


def call_partial_forward(p, dp, args, dargs, kwargs, dkwargs):
    from ..forward.runtime import fcall

    _refuse_subclass(p)
    df, da, dk = _parts(dp, len(p.args), p.keywords)
    return fcall(p.func, df, (*p.args, *args), (*da, *dargs), {**p.keywords, **kwargs}, {**dk, **dkwargs})


def call_partial_reverse(p, args, kwargs):
    from ..reverse.adjoints import AdjDict, AdjTuple
    from ..reverse.runtime import rcall

    _refuse_subclass(p)
    n = len(p.args)
    y, pb = rcall(p.func, (*p.args, *args), {**p.keywords, **kwargs})

    def pullback(g):
        fb, ab, kb = pb(g)
        ab = list(ab) + [NoTangent] * (n + len(args) - len(ab))
        kb = dict(kb or {})
        p_bar = BoundAdjoint(fb, _routed(p.args, ab[:n]),
                             _routed_keywords(p.keywords, kb, kwargs))
        return p_bar, AdjTuple(ab[n:]), AdjDict({k: kb[k] for k in kwargs if k in kb})

    return y, pullback


# ------------------------------------------------------------------ operator.methodcaller
def _methodcaller_parts(m: Any) -> tuple:
    """(name, args, keywords) of a methodcaller, from how it pickles."""
    red = m.__reduce__()
    if red[0] is type(m):
        return red[1][0], tuple(red[1][1:]), {}
    return red[0].args[0], tuple(red[1]), dict(red[0].keywords)  # (partial(methodcaller, name, **kw), args)


def methodcaller_tangent(y: Any, n: int, *rest: Any) -> Any:
    dargs = tuple(rest[:n])
    dkw = dict(zip(rest[n::2], rest[n + 1::2]))
    if all(d is NoTangent for d in dargs) and all(d is NoTangent for d in dkw.values()):
        return NoTangent
    return Tangent({"func": NoTangent, "args": dargs, "keywords": dkw})


def _methodcaller_jvp(t: Any, y: Any, name: Any, /, *args: Any, **kw: Any) -> Any:
    if all(t.d(a) is None for a in args) and all(t.d(v) is None for v in kw.values()):
        return None
    return t.call(methodcaller_tangent, y, len(args), *[t.dz(a) for a in args],
                  *[z for k, v in kw.items() for z in (k, t.dz(v))])


def rrule_methodcaller(name: Any, /, *args: Any, **kw: Any) -> tuple:
    y = operator.methodcaller(name, *args, **kw)

    def pullback(g: Any) -> tuple:
        if not isinstance(g, BoundAdjoint):
            return (NoTangent,) * (1 + len(args))
        named = {k: v for k, v in g.keywords.items() if v is not NoTangent}
        return (NoTangent, *g.args) + ((KwAdj(named),) if named else ())

    return y, pullback


def call_methodcaller_forward(m, dm, args, dargs, kwargs, dkwargs):
    from ..forward.runtime import fcall
    from ..tangents import MethodTangent

    if len(args) != 1 or kwargs:
        raise TypeError("methodcaller expected 1 argument")
    name, margs, mkw = _methodcaller_parts(m)
    _, da, dk = _parts(dm, len(margs), mkw)
    obj, dobj = args[0], dargs[0]
    return fcall(getattr(obj, name), MethodTangent(dobj), margs, da, mkw, dk)


def call_methodcaller_reverse(m, args, kwargs):
    from ..reverse.adjoints import AdjDict, AdjTuple, MethodAdjoint
    from ..reverse.runtime import rcall

    if len(args) != 1 or kwargs:
        raise TypeError("methodcaller expected 1 argument")
    name, margs, mkw = _methodcaller_parts(m)
    y, pb = rcall(getattr(args[0], name), margs, mkw)

    def pullback(g):
        fb, ab, kb = pb(g)
        obj_bar = fb.self_adjoint if isinstance(fb, MethodAdjoint) else NoTangent
        ab = list(ab) + [NoTangent] * (len(margs) - len(ab))
        m_bar = BoundAdjoint(NoTangent, _routed(margs, ab), _routed_keywords(mkw, kb or {}, {}))
        return m_bar, AdjTuple([obj_bar]), AdjDict()

    return y, pullback


# ------------------------------------------------------------------ operator.itemgetter, operator.attrgetter
def _keys(obj: Any) -> tuple:
    """(the keys or dotted names it applies, whether it returns a tuple), from how it pickles."""
    keys = tuple(obj.__reduce__()[1])
    return keys, len(keys) != 1


def _reads(obj: Any) -> list:
    """The reads an itemgetter / attrgetter makes, as chains of (callable, key)."""
    keys, _ = _keys(obj)
    if isinstance(obj, operator.itemgetter):
        return [[(operator.getitem, k)] for k in keys]
    return [[(getattr, part) for part in k.split(".")] for k in keys]


def call_getter_forward(obj, dobj, args, dargs, kwargs, dkwargs):
    from ..forward.runtime import fcall

    if len(args) != 1 or kwargs:
        raise TypeError(f"{type(obj).__name__} expected 1 argument")
    outs = []
    for chain in _reads(obj):
        v, dv = args[0], dargs[0]
        for fn, key in chain:
            v, dv = fcall(fn, NoTangent, (v, key), (dv, NoTangent))
        outs.append((v, dv))
    if not _keys(obj)[1]:
        return outs[0]
    ys = tuple(v for v, _ in outs)
    dys = tuple(d for _, d in outs)
    return ys, (NoTangent if all(d is NoTangent for d in dys) else dys)


def call_getter_reverse(obj, args, kwargs):
    from ..reverse.adjoints import AdjDict, AdjTuple, accumulate
    from ..reverse.runtime import rcall

    if len(args) != 1 or kwargs:
        raise TypeError(f"{type(obj).__name__} expected 1 argument")
    steps, ys = [], []
    for chain in _reads(obj):
        v, pbs = args[0], []
        for fn, key in chain:
            v, pb = rcall(fn, (v, key), {})
            pbs.append(pb)
        steps.append(pbs)
        ys.append(v)
    several = _keys(obj)[1]

    def pullback(g):
        gs = list(g) if several and isinstance(g, (tuple, list)) else ([g] if not several else [NoTangent] * len(ys))
        total = NoTangent
        for pbs, gi in zip(steps, gs):
            for pb in reversed(pbs):
                gi = pb(gi)[1][0]
            total = accumulate(total, gi)
        return NoTangent, AdjTuple([total]), AdjDict()

    return (tuple(ys) if several else ys[0]), pullback


CALLS = {
    functools.partial: (call_partial_forward, call_partial_reverse),
    operator.methodcaller: (call_methodcaller_forward, call_methodcaller_reverse),
    operator.itemgetter: (call_getter_forward, call_getter_reverse),
    operator.attrgetter: (call_getter_forward, call_getter_reverse),
}


def call_rule(f: Any) -> Any:
    """The (forward, reverse) call rules of a callable object of one of the types above, of a
    namedtuple class (rules/python_collections.py), of a bound method of a deque (rules/python_deque.py),
    of a builtin container's item-access method called by name (rules/python_dunders.py), of a NumPy
    function without a rule whose implementation is Python (rules/numpy_dispatchers.py), or None."""
    if isinstance(f, type):
        from .python_collections import construct_forward, construct_reverse, is_namedtuple_class

        if is_namedtuple_class(f):
            return construct_forward, construct_reverse
        from . import python_bunches  # SciPy's result classes: a tuple with extra attributes

        if python_bunches.is_tuple_bunch_class(f):
            return python_bunches.construct_forward, python_bunches.construct_reverse
        return (construct_plain_forward, construct_plain_reverse) if _untraceable_class(f) else None
    if isinstance(f, functools.partial) and str(getattr(f.func, "__module__", "")).startswith(("mooncake_ast.", "functools")) \
            and f.func is not functools.update_wrapper:
        return None  # our own partials (supercalls.py): as before (functools.wraps' goes to python_wrappers.py's rule)
    for cls in type(f).__mro__[:-1]:
        if cls in CALLS:
            return CALLS[cls]
    if isinstance(getattr(f, "__self__", None), collections.deque):  # a deque's bound method (rules/python_deque.py)
        from .python_deque import call_rule as deque_call_rule

        return deque_call_rule(f)
    if isinstance(getattr(f, "__self__", None), np.ndarray):
        from .numpy_method_calls import call_rule as array_call_rule  # a.put(...), a.compress(...)

        found = array_call_rule(f)
        if found is not None:
            return found
    if isinstance(f, np.ufunc):
        from .numpy_vectorize import call_frompyfunc_forward, call_frompyfunc_reverse, pyfunc_of

        if pyfunc_of(f) is not None:  # np.frompyfunc(fn, nin, 1): fn entry by entry
            return call_frompyfunc_forward, call_frompyfunc_reverse
    from .python_dunders import call_rule as dunder_call_rule  # `dict.__setitem__(d, k, v)`, `d.__getitem__(k)`, ...

    found = dunder_call_rule(f)
    if found is None:
        from .numpy_dispatchers import call_rule as dispatcher_call_rule  # NumPy functions through their Python code

        found = dispatcher_call_rule(f)
    return found


# ------------------------------------------------------------------ classes whose construction cannot be traced
# A class with its own __new__ or an __init__ written in C (random.Random, collections.Counter, a C extension's
# type) cannot be constructed field by field as the transforms construct Python classes.  Given nothing that
# carries a derivative, its instance is a constant: the plain call, with a zero tangent (pullback).  Otherwise
# the missing-rule error, as before.
def _untraceable_class(cls: type) -> bool:
    init = cls.__init__
    if init is object.__init__ and cls.__new__ is object.__new__:
        return False  # (an empty object: the transforms make it)
    if init is types.SimpleNamespace.__init__:
        return False  # (an attribute bag, made field by field: forward/runtime._construct, reverse/runtime._construct)
    return cls.__new__ is not object.__new__ or not isinstance(init, types.FunctionType)


def construct_plain_forward(cls, dcls, args, dargs, kwargs, dkwargs):
    from ..errors import MissingRuleError
    from ..forward.runtime import _all_zero, _may_reach_storage
    from ..tangents import zero_tangent

    if not (all(_all_zero(d) for d in dargs) and all(_all_zero(d) for d in dkwargs.values())):
        raise MissingRuleError(cls, "forward", "a class without a Python __init__")
    y = cls(*args, **kwargs)
    if _may_reach_storage(y, (*args, *kwargs.values()), (*dargs, *dkwargs.values())):
        # (np.nditer(b, op_flags=["readwrite"]) with b's tangent zero storage for now: writes through y change b)
        raise MissingRuleError(cls, "forward", "a class without a Python __init__")
    return y, zero_tangent(y)


def construct_plain_reverse(cls, args, kwargs):
    from ..errors import MissingRuleError
    from ..reverse.runtime import _nondifferentiable, _zero_pullback

    if not all(_nondifferentiable(a) for a in (*args, *kwargs.values())):
        raise MissingRuleError(cls, "reverse", "a class without a Python __init__")
    return cls(*args, **kwargs), _zero_pullback(len(args), kwargs)


defjvp(functools.partial, _partial_jvp)
defrrule_at_run_time(functools.partial, rrule_partial)
defjvp(operator.methodcaller, _methodcaller_jvp)
defzero(operator.itemgetter, operator.attrgetter)  # made from keys and names
defrrule_at_run_time(operator.methodcaller, rrule_methodcaller)
