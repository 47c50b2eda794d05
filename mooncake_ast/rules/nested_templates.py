"""Primitives that forward code dispatches at run time, for derivatives of derivatives.

Where forward code knows which primitive it calls (`math.log(x)`), it inlines the primitive's template (`da0 / a0`),
ordinary Python that the next order differentiates.  Where it does not -- every call of a `try` body or of a
generator's body (`guarded_call(math.log, ...)`), a callable held in a variable (`h = math.log; h(x)`), the function
map() or functools.reduce() applies -- it dispatches the call, `_mc.fcall(math.log, ...)`, and the rule runs the
template at run time, which no transform sees.  Differentiated again, such a call is the forward code of a wrapper
written here, `def call_log(a0): return _m.log(a0)` with `_m` the primitive's module: the forward transform inlines
the template there as it would in the user's code, so the call nests as a static call does, to any order.

Only primitives with a forward template (not a run-time rule), that write nothing, called positionally, and found
as an attribute of their module under their name get a wrapper; the wrapper's forward code must not dispatch the
primitive again (it would come back here), which is checked once per argument kinds.
"""
from __future__ import annotations

import inspect
import linecache
import sys
import types
from typing import Any, Optional

from ..tangents import NoTangent

_WRAPPERS: dict = {}
_INLINED: dict = {}


def _module_of(f: Any) -> Optional[types.ModuleType]:
    """The module that holds f under its __name__ (math for math.log, numpy for np.arctan2), or None."""
    name = getattr(f, "__name__", None)
    if not isinstance(name, str) or not name.isidentifier() or name.startswith("_"):
        return None
    # (scipy.special's ufuncs name no module: `sp.psi` in the forward code of gammaln's model at the third order)
    for modname in (getattr(f, "__module__", None), "numpy", "builtins", "math", "scipy.special"):
        mod = sys.modules.get(modname) if isinstance(modname, str) else None
        if mod is not None and getattr(mod, name, None) is f:
            return mod
    return None


def wrapper(f: Any, n: int) -> Optional[Any]:
    """`def call_<name>(a0, ..., a{n-1}): return _m.<name>(a0, ...)` for the primitive f, or None."""
    key = (f, n)
    if key in _WRAPPERS:
        return _WRAPPERS[key]
    mod = _module_of(f)
    fn = None
    if mod is not None:
        name = f.__name__
        params = ", ".join(f"a{i}" for i in range(n))
        src = f"def call_{name}({params}):\n    return _m.{name}({params})\n"
        filename = f"<mooncake_ast call of {mod.__name__}.{name}/{n}>"
        linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
        scope = {"_m": mod, "__name__": __name__ + "_calls"}
        exec(compile(src, filename, "exec"), scope)  # noqa: S102 - our own two lines, naming a module's attribute
        fn = scope[f"call_{name}"]
    _WRAPPERS[key] = fn
    return fn


def qualifies(f: Any, rule: Any) -> bool:
    """Is f a primitive whose forward derivative is a template (inlined by forward code) and that writes nothing?"""
    return (rule is not None and rule.jvp is not None and rule.user_frule is None and not rule.zero
            and not rule.mutates and rule.key.__class__ is not tuple and not isinstance(f, type))


def template_plan(f: Any, args: tuple, dargs: tuple, reverse: bool) -> Optional[Any]:
    """The plan of `fcall(f, NoTangent, args, dargs)`: that of the wrapper's call, or None where f has none or its
    forward code would dispatch f again."""
    from ..forward import objects as _objects
    from ..forward.runtime import derived_forward
    from .api_rules import _plan
    from .nested_plans import _dense_keep

    w = wrapper(f, len(args))
    if w is None:
        return None
    kinds = tuple(_objects.kind_of(a) for a in args)
    key = (f, len(args), kinds)
    if key not in _INLINED:
        try:
            src = inspect.getsource(derived_forward(w, kinds).fn)
        except (OSError, TypeError):
            src = "fcall("
        _INLINED[key] = f"fcall(_m.{f.__name__}" not in src and "fcall(" not in src
    if not _INLINED[key]:
        return None
    return _plan(w, NoTangent, tuple(args), _dense_keep(tuple(dargs), tuple(args)), None, reverse)
