"""A differentiated argument that is itself a function: refused where it holds numbers or arrays (its gradient
would be the derivative with respect to what it holds, which has no form to hand back).  (Split from api.py.)"""
from __future__ import annotations

import types
from typing import Any

from .errors import UnsupportedInputError
from .reverse.runtime import _nondifferentiable as _nondifferentiable_value


def _name(f: Any) -> str:
    from .api import _name as name

    return name(f)


def refuse_function_with_state(api: str, fn: Any, i: int, arg: Any) -> None:
    """A differentiated argument that is a function holding numbers or arrays (a closure's cells, its defaults):
    its gradient would be the derivative with respect to what it holds, which has no form to hand back;
    returning the zero tangent would read as "no dependence".  Refused, saying what to do.  (A callable object's
    gradient is the tangent of its fields, as for any object.)"""
    if not isinstance(arg, types.FunctionType):
        return  # (a callable object's gradient is its fields' tangent: supported)
    held = [c.cell_contents for c in arg.__closure__ or () if _cell_filled(c)]
    held += list(arg.__defaults__ or ()) + list((arg.__kwdefaults__ or {}).values())
    if not all(_holds_nothing_differentiable(v) for v in held):
        raise UnsupportedInputError(
            f"{api}({_name(fn)}, argnums=...): argument {i} is a function ({_name(arg)}) that holds numbers or "
            f"arrays (captured variables or defaults); mooncake_ast has no gradient to give for "
            f"a function: pass the values it holds as arguments and differentiate with respect to them "
            f"(e.g. `{api}(lambda k, x: {_name(fn)}(build(k), x))`, where build(k) makes the function from k), or "
            f"leave argument {i} out of argnums")


def _holds_nothing_differentiable(v: Any) -> bool:
    try:
        return _nondifferentiable_value(v)
    except RecursionError:  # (an object graph too deep or cyclic to walk: count it as holding numbers)
        return False


def _cell_filled(c: Any) -> bool:
    try:
        c.cell_contents
    except ValueError:
        return False
    return True
