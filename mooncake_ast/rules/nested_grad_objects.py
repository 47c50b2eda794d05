"""Gradient objects inside differentiated code (split from api_rules.py, which re-exports these names): which ones were
made there (`_TRACED`: what their function captures may be differentiated by the outer transformation, and reverse
mode over them refuses captured values), the rules of mc.grad / mc.value_and_grad / mc.jacfwd & co. called there
(their results are constants, or closures' tangents: nested_closures.py), and the callables whose captured values are
constants of the differentiation now running (`constant_callable`)."""
from __future__ import annotations

import contextlib
import types
import weakref
from typing import Any

from ..api import Differentiable, ValueAndGrad, _nondifferentiable
from ..tangents import NoTangent
from .forward_code_rules import NestingError, _expand, _name, _zero


# grad objects made inside differentiated code (by the rules of mc.grad / mc.value_and_grad below): what their
# function captures may be differentiated by the outer transformation.  Objects made outside are constants.
_TRACED: "weakref.WeakSet" = weakref.WeakSet()


def _refuse_traced_captures(g: Any, objects: bool = True) -> None:
    if g in _TRACED:
        _refuse_captures(g.f, repr(g), objects)


def _factory_frule(factory: Any) -> Any:
    def frule(p: tuple, t: tuple, **kwargs: Any) -> tuple:
        if p and not _zero(t[0]):
            from .nested_closures import closure_factory_tangent

            tangent = closure_factory_tangent(factory, tuple(p), tuple(_expand(t, len(p))), kwargs)
            if tangent is not None:  # (a closure over differentiated values: nested_closures.py)
                y = factory(*p, **kwargs)
                _TRACED.add(y)
                return y, tangent
            raise NestingError(f"nested derivative: mc.{factory.__name__} of a function whose captured variables are "
                               f"differentiated is not supported; pass them as arguments instead")
        y = factory(*p, **kwargs)
        _TRACED.add(y)
        return y, NoTangent

    return frule


def _factory_rrule(factory: Any) -> Any:
    def rrule(*args: Any, **kwargs: Any) -> tuple:
        y = factory(*args, **kwargs)
        _TRACED.add(y)  # its reverse rule refuses captured values: the adjoint here is always zero
        return y, lambda g: (NoTangent,) * len(args)

    return rrule


def _refuse_captures(f: Any, what: str, objects: bool = True) -> None:
    """Reverse rules of grad(f) give no adjoint to what f captures: refuse a function that captures values, and
    (`objects`) a callable object holding values (reverse mode over f's forward code, which takes the object as an
    argument, differentiates its fields: not refused there)."""
    if isinstance(f, types.MethodType):
        raise NestingError(f"nested derivative of {what}: reverse mode over the gradient of a bound method is not "
                           f"supported (its object could be differentiated); pass a plain function taking the object")
    if objects and not isinstance(f, (types.FunctionType, types.BuiltinFunctionType, type)) and _holds_values(f):
        # (a callable object: its fields are what it holds -- `m = Model(p); mc.grad(m)(d)` held m.w constant)
        raise NestingError(f"nested derivative of {what}: reverse mode over the gradient of a callable object holding "
                           f"values ({type(f).__name__}'s fields) does not differentiate them; pass a plain function "
                           f"taking the object as an argument (`mc.grad(lambda x, m: m(x))(d, model)`), or take the "
                           f"outer derivative with mc.jvp / mc.jacfwd")
    cells = [c.cell_contents for c in (getattr(f, "__closure__", None) or ()) if _cell_full(c)]
    values = [*cells, *(getattr(f, "__defaults__", None) or ())]
    if any(_holds_values(v) for v in values):
        raise NestingError(f"nested derivative of {what}: {_name(f)} captures values (closure variables or defaults); "
                           f"reverse mode over its gradient does not differentiate them: pass them as arguments")


_CODE = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, type, types.ModuleType)


def _holds_values(v: Any) -> bool:
    """Whether v holds something differentiable: a number or an array, or an object (callable ones too: a model
    with __call__) or container holding one; functions, classes and modules are code, not values."""
    if isinstance(v, _CODE) or (callable(v) and not hasattr(v, "__dict__")):
        return False
    try:
        return not _nondifferentiable(v)
    except RecursionError:
        return True


def _captures_values(f: Any) -> bool:
    """Does f capture (closure cells, defaults) anything differentiable?"""
    cells = [c.cell_contents for c in (getattr(f, "__closure__", None) or ()) if _cell_full(c)]
    values = [*cells, *(getattr(f, "__defaults__", None) or ()), *((getattr(f, "__kwdefaults__", None) or {}).values())]
    return any(not _nondifferentiable(v) and not isinstance(v, types.ModuleType) for v in values)


# Callables whose captured values are constants of the differentiation now running: the functions a rule
# differentiates afresh with respect to explicit arguments only (e.g. f in jvp(grad(f)), hvp(f)).  A closure
# made inside differentiated code is a new object, never in this list while it is live.
_CONSTANT: list = []


@contextlib.contextmanager
def constant_callable(f: Any):
    chain = [f]
    while isinstance(chain[-1], ValueAndGrad) or isinstance(chain[-1], Differentiable):
        chain.append(chain[-1].f if isinstance(chain[-1], ValueAndGrad) else chain[-1].__wrapped_fn__)
    if isinstance(chain[-1], types.MethodType):
        chain.append(chain[-1].__func__)
    _CONSTANT.extend(chain)
    try:
        yield
    finally:
        del _CONSTANT[len(_CONSTANT) - len(chain):]


def is_constant(f: Any) -> bool:
    return any(c is f for c in _CONSTANT)


def _cell_full(c: Any) -> bool:
    try:
        c.cell_contents
        return True
    except ValueError:
        return False
