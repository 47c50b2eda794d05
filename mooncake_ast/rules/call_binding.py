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
                sig = inspect.signature(fn)
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
        return template

    def jvp(t: Any, y: Any, /, *args: Any, **kwargs: Any) -> Any:  # (a keyword operand may be called y)
        args, kwargs = bind_positional(fn, args, kwargs)
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


def _method_vjp(template: Template) -> Template:
    """A method's reverse template (no signature to bind by): keyword operands the template refused
    (numpy_common._refuse_keywords) still get their refused adjoints, never a silently dropped one."""
    def vjp(t: Any, g: Any, y: Any, /, *args: Any, **kwargs: Any) -> Any:
        pos, named = split_adjoints(template(t, g, y, *args, **kwargs))
        refused = getattr(t, "refused_keywords", None)
        if refused:
            from .numpy_common import refused_keyword_adjoint

            for k, name in list(refused.items()):
                if k in kwargs and named.get(k) is None:
                    named[k] = t.call(refused_keyword_adjoint, g, name, k, kwargs[k])
            refused.clear()
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
        return _method_vjp(template)

    names: list = []  # the template's operand names, read on first use (not at import)

    def vjp(t: Any, g: Any, y: Any, /, *args: Any, **kwargs: Any) -> Any:
        bound, rest = bind_positional(fn, args, kwargs)
        pos, named = split_adjoints(template(t, g, y, *bound, **rest))
        refused = getattr(t, "refused_keywords", None)
        if refused:  # keyword operands a template refused (numpy_common._refuse_keywords): refused adjoints
            from .numpy_common import refused_keyword_adjoint

            for k, name in list(refused.items()):
                if k in rest and named.get(k) is None:
                    named[k] = t.call(refused_keyword_adjoint, g, name, k, rest[k])
            refused.clear()
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
