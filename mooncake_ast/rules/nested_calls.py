"""Nested calls whose arguments are not simply positional, and the closures and state nested derivatives may
treat as constants (split from api_rules.py, one concept per module):

* a module-level helper called with keywords or leaving its defaults out (`helper(y, scale=s)`): planned as a
  positional call, the keywords' adjoints given back as a dict, the defaults constant extra primals;
* a closure made at module level that keeps no state: what it captures is a constant of every derivative;
* reverse mode over a second forward order that keeps storage of module-level state: refused (it crashed), but
  for module-level arrays, kept read-only meanwhile.
"""
from __future__ import annotations

import types
import weakref
from typing import Any

from ..reverse.adjoints import AdjTuple
from ..tangents import NoTangent
from .forward_code_rules import NestingError, _expand, _name
from .registry import lookup


def _api() -> Any:
    from . import api_rules

    return api_rules


def _variadic(f: Any) -> bool:
    return _api()._variadic(f)


def _constant_defaults(f: Any, n: int, m: int) -> bool:
    """Do the m - n parameters after the n given positionally take f's defaults, and are those constants here?  A
    module-level function's defaults were made when its module ran (`def helper(p, scale=1.0)` called as
    `helper(y)`): constants at every order, passed as constant extra primals without adjoints (as generated code's
    module keywords).  A function made inside differentiated code may have defaults made from the inputs: refused."""
    if _variadic(f) or m <= n or "<locals>" in getattr(f, "__qualname__", "<locals>"):
        return False
    from ..tangents import is_mutable

    code, defaults, kwdefaults = f.__code__, f.__defaults__ or (), f.__kwdefaults__ or {}
    # (keyword-only parameters left to their defaults come after the positional ones: `dataclasses.astuple(obj, *,
    # tuple_factory=tuple)` called as `astuple(o)`)
    kwonly = code.co_varnames[code.co_argcount:code.co_argcount + code.co_kwonlyargcount]
    left = kwonly[max(0, n - code.co_argcount):]  # (those not given: a keyword call planned positionally gives some)
    return m == code.co_argcount + len(kwonly) and n >= code.co_argcount - len(defaults) and \
        all(k in kwdefaults for k in left) and \
        not any(is_mutable(d) and not read_only_default(d) for d in (*defaults, *(kwdefaults[k] for k in left)))
    # (a mutable default is state; a NumPy array is passed as a read-only copy, so a write into it is refused)


def read_only_default(d: Any) -> bool:
    """A default a nested call may take as a constant if it is never written: a NumPy array of numbers (passed as a
    read-only copy, frozen_default: a write into it, or into a view of it, raises, and is refused by name)."""
    import numpy as np

    return type(d) is np.ndarray and d.dtype.kind in "biufc"


def frozen_default(d: Any) -> Any:
    """A read-only copy of an array default (read_only_default), else d itself."""
    if not read_only_default(d):
        return d
    c = d.copy()
    c.flags.writeable = False
    _FROZEN_DEFAULTS[id(c)] = c
    return c


_FROZEN_DEFAULTS: Any = weakref.WeakValueDictionary()  # id -> the read-only copies frozen_default made


def is_frozen_default(a: Any) -> bool:
    """Is a a read-only copy frozen_default made (not a module-level array kept read-only by _frozen)?"""
    return _FROZEN_DEFAULTS.get(id(a)) is a


def takes_frozen_default(call_args: Any) -> bool:
    """Does a plan's call take a read-only copy of an array default (frozen_default)?"""
    return bool(_FROZEN_DEFAULTS) and any(_FROZEN_DEFAULTS.get(id(a)) is a for a in call_args)


def extra_zero(p: Any) -> Any:
    """The zero tangent of a constant extra argument of forward code (a default, a module keyword): 0.0 for a float,
    fresh zeros for a float array (forward code is typed on its arguments' kinds, and typed for a number or a float
    array it computed `db = ones * ds` as NoTangent for a NoTangent ds, whose writes through a view were dropped: a
    second derivative 0.0 for 1.44 through `helper(p, scale=2.0)` writing `b[1:] *= p`), NoTangent otherwise."""
    import numpy as np

    if type(p) is float:
        return 0.0
    if type(p) is np.ndarray and p.dtype.kind == "f":
        return np.zeros_like(p)
    return NoTangent


class defaults_kept:
    """A write into a read-only default (frozen_default) while a nested call runs, refused by name."""

    def __init__(self, f: Any, active: bool) -> None:
        self.f, self.active = f, active

    def __enter__(self) -> "defaults_kept":
        return self

    def __exit__(self, typ: Any, e: Any, tb: Any) -> Any:
        # (active: this call takes a copy; else any copy alive, one a call inside took, whose rule may hold no `with`:
        # higher_traced.forward_of_forward is differentiated again)
        if (self.active or len(_FROZEN_DEFAULTS)) and typ is ValueError and "read-only" in str(e):
            raise NestingError(f"nested derivative of {_name(self.f)}: the function writes into an array it takes as "
                               f"a default (state kept between calls, which derivatives do not follow); pass the "
                               f"array as an argument, or copy it before writing") from e
        return False


def _fcall_keywords_plan(f: Any, df: Any, fargs: Any, fdargs: Any, rest: list, dargs: tuple) -> Any:
    """fcall of `fcall(f, df, args, dargs, kwargs, dkwargs)` for a plain function whose keywords name positional
    parameters: the positional call's plan, the keywords' adjoints given back as dicts."""
    from ..reverse.adjoints import AdjDict

    n = len(fargs)
    kw, dkw = rest[0], (rest[1] if len(rest) > 1 else None)
    names = _keywords_positional(f, n, kw)
    tf, tdf, tfargs, tfdargs, tkw, tdkw = (tuple(dargs) + (NoTangent,) * 6)[:6]
    pos = lambda a, k: _positional(f, names, _expand(a, n), k, True)  # noqa: E731
    inner = _api()._jvp_plan((f, _positional(f, names, fargs, kw), pos(fdargs, dkw)), (tf, pos(tfargs, tkw),
                                                                                      pos(tfdargs, tdkw)), fresh=False)
    m = n + len(names)

    def parts(b: Any) -> tuple:
        b = _expand(b, m)
        return AdjTuple(b[:n]), AdjDict({k: b[n + i] for i, k in enumerate(names) if k in kw})

    def split(b: Any) -> tuple:
        _, (_, a1, a2), (_, d1, d2) = inner.split(b)
        (a1, k1), (a2, k2), (d1, l1), (d2, l2) = parts(a1), parts(a2), parts(d1), parts(d2)
        k = 4 + len(rest)  # (fcall's own arguments: f, df, args, dargs, kwargs[, dkwargs])
        return NoTangent, (NoTangent, NoTangent, a1, a2, k1, k2)[:k], (NoTangent, NoTangent, d1, d2, l1, l2)[:k]

    def outer(t_f: Any, targs: tuple, tdargs: tuple) -> tuple:
        targs, tdargs = _expand(targs, 6), _expand(tdargs, 6)
        return inner.outer(t_f, (targs[0], pos(targs[2], targs[4]), pos(targs[3], targs[5])),
                           (tdargs[0], pos(tdargs[2], tdargs[4]), pos(tdargs[3], tdargs[5])))

    return _api()._Plan(inner.fn, inner.call_args, split, outer)


def plan_kinds(primals: tuple, tangents: tuple, kinds: Any = None) -> tuple:
    """The argument kinds of a plan's forward code: an int given no tangent is inactive there, as the first-order
    path makes it (forward/runtime._derived_rule).  Given NoTangent in code typed for a number's tangent, `db = ones
    * dn` was NoTangent and writes through a view (`b[1:] *= x`) or `b.flat[i]` were dropped: the Hessian in x of
    such a function with an int n was 0.0 for 16.0.  (A float's zero tangent is 0.0 here: _plan.)"""
    from ..forward.runtime import argument_kinds

    kinds = argument_kinds(primals) if kinds is None else kinds
    if not any(type(p) in (int, bool) and (d is NoTangent or d is None) for p, d in zip(primals, tangents)):
        return kinds
    return tuple(k + ":inactive" if type(p) in (int, bool) and (d is NoTangent or d is None) and k == "num" else k
                 for k, p, d in zip(kinds, primals, tangents))


def no_defaults(df: Any) -> Any:
    """A closure's tangent without its defaults' tangents (a call that gives every parameter reads no default)."""
    from ..tangents import FunctionTangent

    return FunctionTangent(df.cells, (), {}) if isinstance(df, FunctionTangent) else df


_KEEPS_LEVELS: dict = {}  # code of forward code of forward code -> whether it keeps storage of storage


def _refuse_reverse_over_nested_state(f: Any, fn: Any) -> tuple:
    """Reverse mode over forward code of forward code that keeps tangent storage of module-level state (its
    `module_tangent(obj, 1)` calls, forward/state.py): the storage's lists fell out of step with the state's
    (an IndexError in tests/test_nested_families.py), so refused, as before levels of storage existed -- unless
    every such object is a module-level NumPy array (a constant array handed to a class's constructor, `Model(W)`,
    gets storage because the object could write it).  Those are returned, to be kept read-only while the code runs
    (_frozen): a write into one raises, and is refused, instead of a derivative missing the write's."""
    code = getattr(fn, "__code__", None)
    if code is None or "module_tangent" not in code.co_names or not code.co_name.endswith("__jvp__jvp"):
        return ()
    keeps = _KEEPS_LEVELS.get(code)
    if keeps is None:
        import inspect

        try:
            text = inspect.getsource(fn)
        except (OSError, TypeError):
            text = "module_tangent(?, 1)"  # (unknown: refused)
        keeps = _KEEPS_LEVELS[code] = _kept_state(text)
    if keeps is False:  # (module_tangent(obj) only, of state the code it differentiates reads: fine)
        return ()
    arrays = _module_arrays(keeps, getattr(fn, "__globals__", {}))
    if arrays is None:
        raise NestingError(f"nested derivative of {_name(f)}: reverse mode over a second order of forward mode over "
                           f"code that keeps the derivative of module-level state (a module-level object, or a class "
                           f"attribute, that a method or closure changes) is not supported; pass that object as an "
                           f"argument")
    return arrays


def _kept_state(text: str) -> Any:
    """False where forward code of forward code (its text) keeps no storage of storage; else the module-level names
    whose storage it keeps (None where one cannot be named: a local not made by `module_tangent(NAME)`)."""
    import re

    targets = re.findall(r"module_tangent\(([^()]*), \d+\)", text)
    if not targets:
        return False
    names = []
    for t in targets:
        t = t.strip()
        if not t.isidentifier():
            return None
        made = re.findall(rf"\b{t} = [\w.]*module_tangent\((\w+)\)", text)
        if made:  # (a lower order's storage of NAME: `t1 = _mc.module_tangent(W)`)
            if len(set(made)) != 1:
                return None
            t = made[0]
        names.append(t)
    return tuple(sorted(set(names)))


def _module_arrays(names: Any, g: dict) -> Any:
    """What of the module-level values of these names in globals g is kept read-only while the code runs: their NumPy
    arrays, and the user objects among them as `(object, its fields)` (their arrays frozen too; a field rebound
    meanwhile is refused after the call, see _frozen), dicts likewise as `(dict, its items)` -- or None where one
    holds something else (a list: it cannot be kept).  (A module-level callable object, `LAYER(x)` with LAYER a
    dataclass of arrays, was refused at the third order though nothing writes it.)"""
    if not names:
        return None
    out: list = []
    for name in names:
        if not _freezable(g.get(name), out, 0):
            return None
    return tuple(out)


_FROZEN_LEAVES = (float, int, bool, complex, str, bytes, type(None))


def _freezable(v: Any, out: list, depth: int) -> bool:
    """Add v's arrays and objects to `out` where v can be kept as it is (see _module_arrays); False if it cannot."""
    import numpy as np

    from ..forward.objects import is_user_object

    if type(v) is np.ndarray:
        if v.dtype.kind not in "fiubc":
            return False
        out.append(v)
        return True
    if isinstance(v, _FROZEN_LEAVES) or isinstance(v, np.generic):
        return True
    if type(v) is tuple:
        return all(_freezable(item, out, depth) for item in v)
    if type(v) is dict and depth < 4 and all(type(k) in (str, int, bool) or k is None for k in v):
        # (a module-level dict of numbers, strings and arrays, only read: its items are checked after the call, as
        # an object's fields are, and a change is refused; its arrays are frozen)
        items = dict(v)
        out.append((v, items))
        return all(_freezable(item, out, depth + 1) for item in items.values())
    if depth < 4 and is_user_object(v) and not isinstance(v, type) and type(getattr(v, "__dict__", None)) is dict \
            and not hasattr(type(v), "__slots__"):
        fields = dict(v.__dict__)
        out.append((v, fields))
        return all(_freezable(item, out, depth + 1) for item in fields.values())
    return False


class _frozen:
    """Keeps arrays read-only while the code under it runs; a write into one is refused (see
    _refuse_reverse_over_nested_state)."""

    def __init__(self, f: Any, kept: tuple) -> None:
        self.f, self.flags = f, ()
        self.arrays = tuple(a for a in kept if type(a) is not tuple)
        self.objects = tuple(a for a in kept if type(a) is tuple)  # (object, its fields on entry)

    def __enter__(self) -> "_frozen":
        self.flags = tuple(a.flags.writeable for a in self.arrays)
        for a in self.arrays:
            a.flags.writeable = False
        return self

    def __exit__(self, typ: Any, e: Any, tb: Any) -> Any:
        for a, w in zip(self.arrays, self.flags):
            if w:
                a.flags.writeable = True
        if typ is ValueError and "read-only" in str(e):
            raise NestingError(f"nested derivative of {_name(self.f)}: reverse mode over a second order of forward mode "
                               f"over code that writes a module-level array (through an object holding it) is not "
                               f"supported; pass the array as an argument") from e
        for obj, fields in self.objects:
            now = obj if type(obj) is dict else obj.__dict__
            if len(now) != len(fields) or any(k not in now or now[k] is not v for k, v in fields.items()):
                now.clear()  # (put back as found: the derivative is not given)
                now.update(fields)
                if typ is None:
                    raise NestingError(f"nested derivative of {_name(self.f)}: reverse mode over a second order of "
                                       f"forward mode over code that changes a module-level object "
                                       f"({type(obj).__name__}) is not supported; pass the object as an argument")
        return False


def _module_level_constant(f: types.FunctionType) -> bool:
    """A closure made before the differentiation began, which keeps no state: held by a module-level name of its
    own module (`scale = make_scale(2.0)`), its cells holding numbers, tuples, functions (nothing mutable) that it
    never rebinds.  What it captures is a constant of every derivative, as for the function differentiated (a
    closure made inside differentiated code is a new object that no module-level name holds)."""
    from ..forward.state import _keeps_state

    g = getattr(f, "__globals__", None)
    if not isinstance(g, dict) or _keeps_state(f):
        return False
    return any(v is f for v in list(g.values()))


_DRAW_MODELS = (__package__ + ".nested_draws", __package__ + ".numpy_random_permutations")  # (shuffle, permuted)


def _bound_function(f: Any) -> tuple:
    """(the Python function whose parameters a call of f binds, how many of its first parameters the call does not
    give): a plain function itself; a user class's `__init__` (after self: `Body(x, v, mass=2.0)`); else (None, 0)."""
    if isinstance(f, types.FunctionType):
        return f, 0
    if isinstance(f, types.MethodType) and getattr(f.__func__, "__module__", None) in _DRAW_MODELS:
        return f.__func__, 1  # (a Generator's draw, its model bound to the generator: nested_draws.py)
    if isinstance(f, type):
        from .nested_plans import _user_class

        if _user_class(f):
            return f.__init__, 1
    return None, 0


def _keywords_positional(f: Any, n: int, kwargs: Any) -> Any:
    """For a call `f(*args, **kwargs)` of a module-level Python function (no rule) or user class whose keywords name
    positional parameters: the names of the parameters after the n positional arguments, in order, that the keywords
    (and the defaults) fill, so the call can be planned as a positional one; else None."""
    fn, skip = _bound_function(f)
    if not kwargs or fn is None or lookup(f) is not None or _variadic(fn) or \
            (fn.__code__.co_kwonlyargcount and fn is not f):
        return None
    # (a function made inside differentiated code may have defaults made from the inputs: only calls that give every
    # parameter up to the last keyword read none, `weighted(x, w=np.sin(x))` of a local `def weighted(a, w)`)
    local = "<locals>" in getattr(f, "__qualname__", "<locals>")
    code = fn.__code__
    # (a plain function's keyword-only parameters follow its positional ones, as its forward code takes them:
    # `kw(x, s=v, squash=False)` of `def kw(x, s=1.0, *, squash=True)`)
    names = code.co_varnames[skip:code.co_argcount + code.co_kwonlyargcount]
    rest = names[n:]
    defaults = fn.__defaults__ or ()
    kwdefaults = fn.__kwdefaults__ or {}
    first_default = code.co_argcount - skip - len(defaults)
    if any(k not in rest for k in kwargs):
        return None
    used = [k for k in rest if k in kwargs]
    last = max(rest.index(k) for k in used)
    # every parameter up to the last keyword given: given, or a default (which is then passed as a constant)
    for r in rest[:last + 1]:
        if r not in kwargs and local:
            return None
        if r not in kwargs and (names.index(r) < first_default if names.index(r) < code.co_argcount - skip
                                else r not in kwdefaults):
            return None
    from ..tangents import is_mutable

    if any(is_mutable(d) and not read_only_default(d) for d in (*defaults, *kwdefaults.values())):
        return None
    return rest[:last + 1]


def _positional(f: Any, names: Any, args: tuple, kwargs: Any, tangents: bool = False) -> tuple:
    """args followed by the values of names: from kwargs (a dict, or NoTangent for all zeros), else f's defaults
    (for tangents: zero)."""
    fn, _ = _bound_function(f)
    code = fn.__code__
    defaults = dict(zip(code.co_varnames[code.co_argcount - len(fn.__defaults__ or ()):code.co_argcount],
                        fn.__defaults__ or ()))
    defaults.update(fn.__kwdefaults__ or {})
    kw = kwargs if isinstance(kwargs, dict) else {}
    out = []
    for k in names:
        if k in kw:
            out.append(kw[k])
        else:
            out.append(NoTangent if tangents else frozen_default(defaults[k]))
    return (*tuple(args), *out)
