"""Nested derivatives of a call that leaves parameters to the function's defaults, where those defaults were made
inside differentiated code: `fs.append(lambda t, c=c: t * c)` with c from the inputs, called as `fs[0](y)`.

The call is planned as a positional one: the defaults used become extra arguments of the function's forward code,
their tangents those the function's tangent holds (a FunctionTangent's `defaults`, made by forward code with the
function).  Reverse mode gives the defaults' adjoints back where the first order keeps them: the function's in a
FunctionAdjoint (make_function's reverse rule hands them on to the values the defaults were made from), and the
function's tangent's in the `defaults` field of its adjoint storage (the FunctionTangent object forward code made,
whose construction's pullback reads it).  Forward mode over it takes both's tangents (`outer`).  What is not a plain
positional call with positional defaults (keyword-only parameters, *args, mutable defaults, captured cells with
tangents) keeps its refusal.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..reverse.adjoints import AdjTuple, FunctionAdjoint
from ..tangents import FunctionTangent, MutableTangent, NoTangent, is_mutable, materialize
from .nested_cells import as_function_tangent, function_tangent_zero


def _api() -> Any:
    from . import api_rules

    return api_rules


def _cells_zero(f: Any, df: Any) -> bool:
    if not f.__closure__ or df is NoTangent or df is None:
        return True
    if not isinstance(df, FunctionTangent):
        return False
    return function_tangent_zero(FunctionTangent(df.cells, (), {}))


def _dense(d: Any, a: Any) -> Any:
    if (d is NoTangent or d is None) and isinstance(a, np.ndarray) and a.dtype.kind == "f":
        return materialize(d, a)
    return d


def defaults_plan(f: Any, df: Any, args: tuple, dargs: tuple, reverse: bool = False) -> Optional[Any]:
    """The plan of `fcall(f, df, args, dargs)` for a plain function f called with its first n parameters, the rest
    taking f's positional defaults; None where this is not such a call.  `reverse`: for reverse mode over the call in
    the computation now running (a closure whose captured cells have tangents is planned only where that computation
    made them, nested_cells.owned_tangent; api_rules._plan)."""
    from .nested_calls import frozen_default, read_only_default

    api = _api()
    code, defaults = f.__code__, f.__defaults__ or ()
    n, m = len(args), f.__code__.co_argcount
    first = m - len(defaults)
    if api._variadic(f) or code.co_kwonlyargcount or not defaults or not first <= n < m:
        return None
    used = defaults[n - first:]
    if not (df is NoTangent or df is None or isinstance(df, FunctionTangent)):
        return None
    cells = not _cells_zero(f, df)  # (the closure's captured values have tangents: (f, df) go to its forward code)
    if cells and not _cells_planned(f, df, reverse):
        return None
    ddefaults = tuple(df.defaults) if isinstance(df, FunctionTangent) and df.defaults else (NoTangent,) * len(defaults)
    ddefaults = ddefaults + (NoTangent,) * (len(defaults) - len(ddefaults))
    if any(is_mutable(d) and not read_only_default(d) for d in used):
        # a mutable default is state the function may change between calls (`def g(t, w=w): w *= t[0]`): reverse
        # mode over the forward code of such a call gave wrong second derivatives; refused.  An array is passed as a
        # read-only copy (nested_calls.frozen_default): a write into it is refused by name, reads are differentiated
        return None
    used = tuple(frozen_default(d) for d in used)
    primals = (*args, *used)
    tangents = (*(_dense(d, a) for d, a in zip(dargs, args)),
                *(_dense(d, a) for d, a in zip(ddefaults[n - first:], used)))
    from ..forward import objects as _objects
    from ..forward.runtime import derived_forward

    from .nested_calls import plan_kinds

    rule = derived_forward(f, plan_kinds(primals, tangents, tuple(_objects.kind_of(a) for a in primals)))
    if cells and not rule.takes_self:
        return None
    s = 2 if rule.takes_self else 0
    head = ((f, df) if cells else (f, NoTangent)) if rule.takes_self else ()
    k = m - n  # defaults used

    def refuse_unowned() -> None:
        # (forward code of a closure with differentiated cells, differentiated again in reverse mode: its cells'
        # adjoints go to storage only the computation that made them reads, nested_closures.closure_forward_plan)
        from .nested_closures import owned_function

        if cells and not owned_function(f, _cells_only(df), defaults_too=False):
            raise api.NestingError(f"nested derivative of {api._name(f)}: reverse mode over forward mode over a "
                                   f"closure whose captured variables are differentiated is not supported here (the "
                                   f"closure was made outside the reverse computation now running); pass them as "
                                   f"arguments")

    def split(b: Any) -> tuple:
        refuse_unowned()
        b = tuple(b) + (NoTangent,) * (s + 2 * m - len(b))
        d_bars = b[s + n:s + m]
        f_bar = NoTangent
        if any(x is not NoTangent and x is not None for x in d_bars):
            f_bar = FunctionAdjoint(AdjTuple((NoTangent,) * (len(defaults) - k) + tuple(d_bars)), NoTangent)
        return f_bar, tuple(b[s:s + n]), tuple(b[s + m:s + m + n])

    def df_bar(b: Any) -> Any:
        refuse_unowned()
        b = tuple(b) + (NoTangent,) * (s + 2 * m - len(b))
        dd_bars = b[s + m + n:s + 2 * m]
        if not isinstance(df, FunctionTangent) or all(x is NoTangent or x is None for x in dd_bars):
            return NoTangent
        return MutableTangent({"defaults": AdjTuple((NoTangent,) * (len(defaults) - k) + tuple(dd_bars))})

    def outer(tf: Any, targs: tuple, tdargs: tuple, tdf: Any = NoTangent) -> tuple:
        tdefaults = _defaults_of(as_function_tangent(tf), len(defaults))[n - first:]
        tddefaults = _defaults_of(as_function_tangent(tdf), len(defaults))[n - first:]
        head_t = (_cells_only(tf), _cells_only(tdf)) if cells else (NoTangent, NoTangent)
        return (head_t if s else ()) + (*targs, *tdefaults, *tdargs, *tddefaults)

    def check_tangents(tf: Any, tdf: Any) -> None:
        from .nested_closures import owned_function

        if cells and not all(api._zero(t) or owned_function(None, _cells_only(t)) for t in (tf, tdf)):
            refuse_unowned_tangents()

    def refuse_unowned_tangents() -> None:
        raise api.NestingError(f"nested derivative of {api._name(f)}: reverse mode over forward mode over a "
                               f"closure whose captured variables are differentiated is not supported here; pass them "
                               f"as arguments")

    plan = api._Plan(rule.fn, (*head, *primals, *tangents), split, outer)
    plan.takes_df = True
    plan.df_bar = df_bar
    if cells:
        plan.check_tangents = check_tangents
        plan.defaults_passed = f
    if s and not cells:
        plan.inactive = frozenset({0, 1})
    plan.arg_pos = list(range(s, s + n))
    plan.tan_pos = list(range(s + m, s + m + n))
    return plan


def _cells_only(t: Any) -> Any:
    """A closure's tangent without its defaults' tangents (those go to the call as arguments here)."""
    t = as_function_tangent(t)
    if isinstance(t, FunctionTangent):
        return FunctionTangent(t.cells, (), {})
    return t


def _cells_planned(f: Any, df: Any, reverse: bool) -> bool:
    """Can a call of closure f whose captured values have tangents (in df) be planned here?  In reverse mode, where the
    computation now running made its cells and df's (nested_cells.owned_tangent); in forward mode, where df is a
    closure's tangent forward code made (its tangent cells reach the forward code through `outer`)."""
    from .nested_cells import owned_tangent

    if not isinstance(df, FunctionTangent) or type(df.cells) is not tuple:
        return False
    return owned_tangent(f, _cells_only(df), defaults_too=False) if reverse else True


def _defaults_of(t: Any, count: int) -> tuple:
    """The defaults' tangents a function's tangent t holds (zeros where it holds none)."""
    if isinstance(t, FunctionTangent) and t.defaults:
        d = tuple(t.defaults)
        return d + (NoTangent,) * (count - len(d))
    return (NoTangent,) * count
