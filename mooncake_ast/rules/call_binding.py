"""Templates see their call bound the way the function binds it, and give keyword operands their adjoints.

Operands passed by the function's parameter names move into their positional slots
first (`bind_positional`; the registry wraps every template with `_binding_jvp` /
`_binding_vjp`), so a template names its operands positionally whatever the call did.
A reverse template returns one adjoint per positional argument, then optionally a
`KwAdj` of adjoints of keyword operands (`np.sum(x, initial=y)`); a caller reads those
when its builder says `keyword_adjoints` (see `split_adjoints`), and for any other
caller a differentiated keyword operand is refused, never dropped.

Apart from the registry: it is about calls and signatures, and the registry only wraps
templates with it when they are registered.
"""
from __future__ import annotations

import inspect
from typing import Any, Callable

from .fingerprints import qualified
from .text_signatures import simple_text_signature

Template = Callable[..., Any]


# ---------------------------------------------------------------- binding a call's arguments

_SIGNATURES: dict[Any, Any] = {}
_EMPTY = inspect.Parameter.empty


def _signature(fn: Any) -> Any:
    """fn's signature (cached), or None for callables without one (ufuncs, most builtins, methods keys)."""
    try:
        return _SIGNATURES[fn]
    except KeyError:
        pass
    except TypeError:  # unhashable
        return None
    sig = None
    if callable(fn) and not isinstance(fn, tuple):
        try:
            import numpy as np

            if not isinstance(fn, np.ufunc):
                sig = simple_text_signature(fn) or inspect.signature(fn)
        except (TypeError, ValueError):
            sig = None
    _SIGNATURES[fn] = sig
    return sig


def bind_positional(fn: Any, args: Any, kwargs: dict) -> tuple[tuple, dict]:
    """The call `fn(*args, **kwargs)` with its operands in positional slots, as `fn` binds them.

    Keyword arguments that name `fn`'s required parameters (no default, positional-or-keyword,
    e.g. `np.dot(a=, b=)`, `np.sum(a=)`, `np.linalg.solve(a=, b=)`, `np.stack(arrays=)`) move into
    their positional slots, in order, as long as the slots before them are filled: the rule
    templates name their operands positionally, and reverse templates return one adjoint per
    positional argument.  Everything else stays a keyword.  Callables without a signature
    (ufuncs, builtins, methods) are returned as given.  Works on any values (run-time values or
    IR values at transform time): only names and positions are looked at.
    """
    args = tuple(args)
    if not kwargs:
        return args, kwargs
    sig = _signature(fn)
    if sig is None:
        return args, kwargs
    params = list(sig.parameters.values())
    moved = list(args)
    rest = dict(kwargs)
    for p in params[len(args):]:
        if p.kind is not inspect.Parameter.POSITIONAL_OR_KEYWORD or p.default is not _EMPTY or p.name not in rest:
            break
        moved.append(rest.pop(p.name))
    if len(moved) == len(args):
        return args, kwargs
    return tuple(moved), rest


def _moved_names(fn: Any, n_args: int, n_bound: int) -> list:
    if n_bound <= n_args:  # nothing moved (the usual call): no signature to read (a builtin's is parsed by inspect)
        return []
    sig = _signature(fn)
    params = list(sig.parameters.values()) if sig is not None else []
    return [p.name for p in params[n_args:n_bound]]


def _binding_jvp(fn: Any, template: Template) -> Template:
    if isinstance(fn, tuple):
        def method_jvp(t: Any, y: Any, /, *args: Any, **kwargs: Any) -> Any:
            args, kwargs, _ = spill_positionals(fn, template, 2, args, kwargs)
            return template(t, y, *args, **kwargs)

        method_jvp.__wrapped__ = template  # type: ignore[attr-defined]
        return method_jvp

    def jvp(t: Any, y: Any, /, *args: Any, **kwargs: Any) -> Any:  # (a keyword operand may be called y)
        args, kwargs = bind_positional(fn, args, kwargs)
        args, kwargs, _ = spill_positionals(fn, template, 2, args, kwargs)
        return template(t, y, *args, **kwargs)

    jvp.__wrapped__ = template  # type: ignore[attr-defined]
    return jvp


class KwAdj(dict):
    """Adjoints of operands passed by keyword, by parameter name: the last element of a reverse
    template's result (e.g. `np.sum(x, initial=y)` gives `(x_bar, KwAdj(initial=y_bar))`)."""


def split_adjoints(contribs: Any) -> tuple[list, dict]:
    """A reverse template's result as (adjoints of the positional arguments, adjoints of keywords by name)."""
    contribs = list(contribs)
    named: dict = {}
    if contribs and isinstance(contribs[-1], KwAdj):
        named = dict(contribs.pop())
    return contribs, named


def _method_vjp(fn: tuple, template: Template) -> Template:
    """A method's reverse template (no signature to bind by): keyword operands the template refused
    (numpy_common._refuse_keywords) still get their refused adjoints, never a silently dropped one."""
    def vjp(t: Any, g: Any, y: Any, /, *args: Any, **kwargs: Any) -> Any:
        n_args = len(args)
        args, kwargs, spilled = spill_positionals(fn, template, 3, args, kwargs)
        pos, named = split_adjoints(template(t, g, y, *args, **kwargs))
        refused = getattr(t, "refused_keywords", None)
        if refused:
            from .numpy_common import refused_keyword_adjoint

            for k, name in list(refused.items()):
                if k in kwargs and named.get(k) is None:
                    named[k] = t.call(refused_keyword_adjoint, g, name, k, kwargs[k])
            refused.clear()
        pos = _unspill(pos, named, spilled, len(args), n_args)  # (a refused spilled operand: in its slot)
        named = {k: c for k, c in named.items() if c is not None}
        return (*pos, KwAdj(named)) if named else tuple(pos)

    vjp.__wrapped__ = template  # type: ignore[attr-defined]
    return vjp


def _binding_vjp(fn: Any, template: Template) -> Template:
    """A reverse template that sees its operands bound like `fn` binds them.

    It returns one adjoint per positional argument its caller passed, then, if any operand passed by
    keyword has one, a `KwAdj` of those by name -- for a caller that says it reads them
    (`t.keyword_adjoints` true: it then adds `KwAdj` entries to the keyword arguments).  For any other
    caller those adjoints would be dropped, so a differentiated keyword operand is refused when the
    pullback runs (never a silent zero).
    """
    if isinstance(fn, tuple):
        return _method_vjp(fn, template)

    names: list = []  # the template's operand names, read on first use (not at import)

    def vjp(t: Any, g: Any, y: Any, /, *args: Any, **kwargs: Any) -> Any:
        bound, rest = bind_positional(fn, args, kwargs)
        n_bound = len(bound)
        bound, rest, spilled = spill_positionals(fn, template, 3, bound, rest)
        pos, named = split_adjoints(template(t, g, y, *bound, **rest))
        refused = getattr(t, "refused_keywords", None)
        if refused:  # keyword operands a template refused (numpy_common._refuse_keywords): refused adjoints
            from .numpy_common import refused_keyword_adjoint

            for k, name in list(refused.items()):
                if k in rest and named.get(k) is None:
                    named[k] = t.call(refused_keyword_adjoint, g, name, k, rest[k])
            refused.clear()
        pos = _unspill(pos, named, spilled, len(bound), n_bound)  # (a refused spilled operand: in its slot)
        bound = (*bound, *(rest.pop(name) for name in spilled))
        if len(pos) > len(bound) and not names:
            names.append(_template_operand_names(template, 3))
        names_of_template = names[0] if names else []
        for i in range(len(bound), len(pos)):  # adjoints of parameters the caller passed by keyword (sum(xs, start=z))
            if i < len(names_of_template) and names_of_template[i] in rest and pos[i] is not None:
                named.setdefault(names_of_template[i], pos[i])
        pos += [None] * (len(bound) - len(pos))
        for name, c in zip(_moved_names(fn, len(args), len(bound)), pos[len(args):]):
            named[name] = c
        pos = pos[:len(args)]
        named = {k: c for k, c in named.items() if c is not None}
        if not named:
            return tuple(pos)
        if getattr(t, "keyword_adjoints", False):
            return (*pos, KwAdj(named))
        from .numpy_common import _refuse_keywords

        _refuse_keywords(t, qualified(fn), **{k: kwargs[k] for k in named if k in kwargs})
        return tuple(pos)

    vjp.__wrapped__ = template  # type: ignore[attr-defined]
    return vjp


def _template_operand_names(template: Template, skip: int) -> list:
    """The names of a template's positional operands (after its first `skip` parameters, up to any *args)."""
    try:
        params = list(inspect.signature(template).parameters.values())[skip:]
    except (TypeError, ValueError):
        return []
    out = []
    for p in params:
        if p.kind is not inspect.Parameter.POSITIONAL_OR_KEYWORD:
            break
        out.append(p.name)
    return out


# ---------------------------------------------------------------- positional arguments a template takes by keyword

def spill_positionals(fn: Any, template: Template, skip: int, args: tuple, kwargs: dict) -> tuple:
    """`np.sum(x, None, float)`, `A.mean(0, float)`, `A.sum(1, None, None, True)`: positional arguments past the
    ones the template names positionally, given to it by the names the callable binds them to (dtype, keepdims,
    kind, axisa, ...) -- where the template reads them as keywords, as it does for `np.sum(x, dtype=float)`.

    Returns (args, kwargs, the names spilled).  Nothing moves for the usual call (no more positionals than the
    template takes, or a template with *args), nor where the names are not known (the call then fails in the
    template as before, never with an argument silently dropped: a template that takes **kwargs reads or refuses
    what it is given)."""
    if len(args) < 2:
        return args, kwargs, ()
    start = _spill_start(fn, template, skip)
    if start is None or len(args) <= start:
        return args, kwargs, ()
    names = _parameter_names(fn)
    if names is None or len(names) < len(args):
        return args, kwargs, ()
    spilled = names[start:len(args)]
    if any(name in kwargs for name in spilled) or not _takes_keywords(template, skip, spilled):
        return args, kwargs, ()
    return tuple(args[:start]), {**kwargs, **dict(zip(spilled, args[start:]))}, tuple(spilled)


_STARTS: dict = {}


def _spill_start(fn: Any, template: Template, skip: int) -> Any:
    """From which position on the call's positionals go to the template by name (cached): the template's
    positional slots end, or, before that, the first slot the template names after a parameter NumPy has
    elsewhere (`lambda t, y, x, axis=None, keepdims=False` for np.prod(a, axis, dtype, ...): A.prod(1, int) must
    not bind int to keepdims); None where the template takes *args."""
    key = (fn, template, skip)
    try:
        return _STARTS[key]
    except KeyError:
        pass
    except TypeError:
        return None
    own = _template_names(template, skip)
    start = None
    if own is not None:
        names = _parameter_names(fn) or []
        start = next((i for i in range(1, len(own)) if own[i] in names and names.index(own[i]) != i), len(own))
    _STARTS[key] = start
    return start


def _unspill(pos: list, named: dict, spilled: tuple, n_given: int, n_positional: int) -> list:
    """The adjoints of spilled positionals back in their positional slots (by name, where the template gave one)."""
    if not spilled:
        return pos
    pos = list(pos[:n_given]) + [None] * max(0, n_given - len(pos))
    pos += [named.pop(name, None) for name in spilled]
    return pos[:n_positional] if len(pos) > n_positional else pos


_SLOTS: dict = {}


def _template_names(template: Template, skip: int) -> Any:
    """The names of the operands the template takes positionally after its first `skip` parameters (cached);
    None where it takes *args (it takes any number: nothing to spill)."""
    key = (template, skip)
    try:
        return _SLOTS[key]
    except KeyError:
        pass
    except TypeError:
        return None
    try:
        params = list(inspect.signature(template).parameters.values())[skip:]
    except (TypeError, ValueError):
        params = None
    names: Any = [] if params is not None else None
    for p in params or ():
        if p.kind is inspect.Parameter.VAR_POSITIONAL:
            names = None
            break
        if p.kind not in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
            break
        names.append(p.name)
    _SLOTS[key] = names
    return names


_TAKES: dict = {}


def _takes_keywords(template: Template, skip: int, names: Any) -> bool:
    """Does the template accept these names as keywords (its **kwargs, or parameters of those names)?  (Cached:
    asked on each call that spills, at run time too.)"""
    key = (template, skip, tuple(names))
    try:
        return _TAKES[key]
    except KeyError:
        pass
    except TypeError:
        return _template_takes(template, skip, names)
    _TAKES[key] = found = _template_takes(template, skip, names)
    return found


def _template_takes(template: Template, skip: int, names: Any) -> bool:
    try:
        params = list(inspect.signature(template).parameters.values())[skip:]
    except (TypeError, ValueError):
        return False
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return True
    by_name = {p.name: p for p in params}
    return all(n in by_name and by_name[n].kind in (inspect.Parameter.KEYWORD_ONLY,
                                                      inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in names)


# ndarray methods that are the NumPy function with self first, whose keyword-only looking parameters (keepdims,
# initial, where) NumPy still binds positionally in the function's order (`A.sum(1, None, None, True)`)
_SELF_FIRST = {"sum": "sum", "prod": "prod", "mean": "mean", "max": "max", "min": "min", "var": "var", "std": "std",
               "cumsum": "cumsum", "cumprod": "cumprod", "ptp": "ptp", "any": "any", "all": "all"}
_NAMES: dict = {}


def _parameter_names(fn: Any) -> Any:
    """The names `fn` binds its positional arguments to, in order (a method's start with self); None if unknown."""
    try:
        return _NAMES[fn]
    except KeyError:
        pass
    except TypeError:
        return None
    names = None
    try:
        import numpy as np

        if isinstance(fn, tuple):
            cls, name = fn
            if isinstance(cls, type) and issubclass(cls, (np.ndarray, np.generic)) and name in _SELF_FIRST and \
                    hasattr(np, _SELF_FIRST[name]):
                names = _positional_names(inspect.signature(getattr(np, _SELF_FIRST[name])))
            elif isinstance(cls, type) and isinstance(name, str) and hasattr(cls, name):
                names = _positional_names(inspect.signature(getattr(cls, name)))
        else:
            sig = _signature(fn)
            names = _positional_names(sig) if sig is not None else None
    except (TypeError, ValueError):
        names = None
    _NAMES[fn] = names
    return names


def _positional_names(sig: Any) -> Any:
    out = []
    for p in sig.parameters.values():
        if p.kind is inspect.Parameter.VAR_POSITIONAL:
            return None
        if p.kind not in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
            break
        out.append(p.name)
    return out
