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

import numpy as np

from ..api import Differentiable, ValueAndGrad, _nondifferentiable
from ..tangents import NoTangent
from .forward_code_rules import NestingError, _expand, _name, _zero
from .nested_cells import outermost_constants


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


def _defined_at(f: Any) -> str:
    code = getattr(f, "__code__", None)
    return f" ({code.co_filename.rsplit('/', 1)[-1]}:{code.co_firstlineno})" if code is not None else ""


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
    if _module_constant_function(f):
        return
    cells = [c.cell_contents for c in (getattr(f, "__closure__", None) or ()) if _cell_full(c)]
    if cells and outermost_constants(f):  # (numbers in cells of the outermost derivative's function: constants)
        cells = [v for v in cells if callable(v)]
    values = [*cells, *(getattr(f, "__defaults__", None) or ())]
    if any(_holds_values(v) for v in values):
        raise NestingError(f"nested derivative of {what}: {_name(f)}{_defined_at(f)} captures values (closure variables "
                           f"or defaults); "
                           f"reverse mode over its gradient does not differentiate them: pass them as arguments")


_CODE = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, type, types.ModuleType)


def _module_constant_function(f: Any) -> bool:
    """Is f a function held by a module-level name of its own module (`def loss(w, lam=0.1)`, or
    `loss = make_loss(1.7)`), whose defaults and cells hold only immutable constants (numbers, strings, tuples of
    them, plain functions) and which rebinds no cell?  Such values were made before any differentiation began and
    cannot change, so they are constants of every derivative: reverse mode over `grad(f)` inside differentiated code,
    which gives them no adjoint, is exact (hunt10: `mc.grad(lambda w: mc.grad(loss)(w) @ v)` of a loss with a
    float default was refused).  A closure made inside differentiated code is a new object no module-level name
    holds; a mutable default (an array) could be written by the outer code: both still refused."""
    if not isinstance(f, types.FunctionType):
        return False
    held = getattr(f, "__globals__", None)
    if not isinstance(held, dict) or not any(v is f for v in list(held.values())):
        return False
    cells = [c.cell_contents for c in (f.__closure__ or ()) if _cell_full(c)]
    values = [*cells, *(f.__defaults__ or ()), *((f.__kwdefaults__ or {}).values())]
    if not all(_immutable_constant(v) for v in values):
        return False
    if f.__closure__:
        from ..attribute_checks import writes_captured

        return not writes_captured(f)
    return True


def _immutable_constant(v: Any, depth: int = 0) -> bool:
    """A value that nothing can change: a number, string, None, a tuple of such, or code without state of its own
    (a plain function without cells, a builtin, a class, a module)."""
    if isinstance(v, (bool, int, float, complex, str, bytes, type(None), np.generic)):
        return True
    if isinstance(v, tuple) and depth < 4:
        return all(_immutable_constant(x, depth + 1) for x in v)
    if isinstance(v, types.FunctionType):
        return not v.__closure__ and not v.__defaults__ and not v.__kwdefaults__
    return isinstance(v, (types.BuiltinFunctionType, type, types.ModuleType))


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
    return any(_captured_value(v) for v in values)


def _captured_value(v: Any, depth: int = 0) -> bool:
    """Could v, captured by a closure, hold something differentiable?  Not a module, an int or string, a tuple of
    such (`rest = ()` in `lambda y: f(y, *rest)`), nor a function whose own captures are immutable constants (a
    module-level `def`, hunt10: `mc.grad(lambda x: mc.jvp(lambda y: loss(y, *rest), (x,), (v,))[1])` was refused
    for capturing `loss` and an empty tuple).  Anything else (a float, an array, an object, a closure over values)
    may be: the caller refuses or differentiates it."""
    if isinstance(v, types.ModuleType) or _nondifferentiable(v):
        return False
    if isinstance(v, tuple) and depth < 4:
        return any(_captured_value(x, depth + 1) for x in v)
    if isinstance(v, types.FunctionType):
        return not (_immutable_constant(v) or _module_constant_function(v))
    return True


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
