"""`mc.differentiate(f)` / `@mc.differentiate`: a function that keeps its behaviour and gains its
derivatives and generated code as methods.

It is a descriptor, like a function, so that a decorated method binds: `m.loss(3.0)` calls the method
and `m.loss.grad(3.0)` differentiates it with respect to its first argument after `self` (the object's
fields are constants there; `mc.grad(Model.loss)(m, 3.0)` gives the object's gradient as an mc.Tangent).
"""
from __future__ import annotations

import functools
import os
import sys
import types
from typing import Any, Callable, Optional

from .errors import MooncakeError


class Differentiable:
    """A function wrapped by `mc.differentiate`: calls it unchanged; derivatives as methods.

    Methods: `grad(*args, argnums=0, has_aux=False)`, `value_and_grad(...)`, `jvp(primals, tangents)`,
    `vjp(*primals)`, `source(mode)`, `source_path(mode)`, `ir()`.  It can decorate a method of a class.

    Args:
        f: the function (made by `mc.differentiate(f)` or `@mc.differentiate`).
    Raises:
        its methods raise what `mc.grad`, `mc.jvp`, ... raise (ArgnumsError, TangentError, ...); an
        exception f raises is raised unchanged, with f's file:line in the traceback.

    Example:
        >>> @mc.differentiate
        ... def f(x):
        ...     return x * x
        >>> f(3.0), f.grad(3.0)
        (9.0, 6.0)
    """

    def __init__(self, f: Callable) -> None:
        # Above @staticmethod / @classmethod: the function, bound as those bind it (see __get__).
        self._binds = type(f) if isinstance(f, (staticmethod, classmethod)) else None
        if self._binds is not None:
            f = f.__func__
        self.__wrapped_fn__ = f
        functools.update_wrapper(self, f, updated=())

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.__wrapped_fn__(*args, **kwargs)

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        if self._binds is staticmethod:
            return self
        if self._binds is classmethod:
            return Differentiable(types.MethodType(self.__wrapped_fn__, objtype if objtype is not None else type(obj)))
        if obj is None:
            return self
        return Differentiable(types.MethodType(self.__wrapped_fn__, obj))

    def __repr__(self) -> str:
        return f"mc.differentiate({getattr(self.__wrapped_fn__, '__qualname__', self.__wrapped_fn__)!r})"

    def __reduce__(self) -> Any:
        f = self.__wrapped_fn__
        if _lookup(getattr(f, "__module__", None), getattr(f, "__qualname__", None)) is self:
            return f.__qualname__  # a decorated module-level function: by reference, like a function
        return (differentiate, (f,))

    def jvp(self, primals: tuple, tangents: tuple) -> tuple[Any, Any]:
        """`mc.jvp(f, primals, tangents)`: `(f(*primals), J @ tangents)`, forward mode."""
        from .api import jvp
        from .tracebacks import for_user

        try:
            return jvp(self.__wrapped_fn__, primals, tangents)
        except Exception as e:  # (so that the traceback shows this line, not the library's below it)
            raise for_user(e)

    def vjp(self, *primals: Any) -> tuple[Any, Callable]:
        """`mc.vjp(f, *primals)`: `(f(*primals), vjp_fn)`; `vjp_fn(out_bar)` gives one adjoint per primal."""
        from .api import vjp
        from .tracebacks import for_user

        try:
            return vjp(self.__wrapped_fn__, *primals)
        except Exception as e:
            raise for_user(e)

    def grad(self, *args: Any, argnums: Any = 0, has_aux: bool = False, **kwargs: Any) -> Any:
        """`mc.grad(f, argnums, has_aux)(*args, **kwargs)`: the gradient of scalar-valued f at `args`
        (with has_aux=True, f returns `(value, aux)` and this returns `(gradient, aux)`)."""
        from .api import grad
        from .tracebacks import for_user

        try:
            return grad(self.__wrapped_fn__, argnums, has_aux)(*args, **kwargs)
        except Exception as e:
            raise for_user(e)

    def value_and_grad(self, *args: Any, argnums: Any = 0, has_aux: bool = False, **kwargs: Any) -> Any:
        """`mc.value_and_grad(f, argnums, has_aux)(*args, **kwargs)`: `(value, gradient)`
        (with has_aux=True: `((value, aux), gradient)`)."""
        from .api import value_and_grad
        from .tracebacks import for_user

        try:
            return value_and_grad(self.__wrapped_fn__, argnums, has_aux)(*args, **kwargs)
        except Exception as e:
            raise for_user(e)

    def _generated(self, mode: str) -> Any:
        fn = self.__wrapped_fn__
        if mode in ("forward", "reverse"):
            fn = _function_of(fn, mode)
        if mode == "forward":
            from .forward.runtime import LATEST, derived_forward

            # The module the last call used (specialised on its arguments), or a generic one.
            rule = LATEST.get(getattr(fn, "__code__", None))
            return (rule or derived_forward(fn)).gen
        if mode == "reverse":
            from .reverse.runtime import LATEST, DerivedReverse

            # The module the last gradient call used (specialised on its arguments), or a generic one.
            rule = LATEST.get(getattr(fn, "__code__", None))
            return (rule or DerivedReverse(fn, {})).gen
        raise ModeError(f"source(f, mode): mode must be 'forward' or 'reverse', not {mode!r}")

    def source(self, mode: str = "forward") -> str:
        """The text of the generated module ("forward" or "reverse"): the one the last call in that mode
        used (specialised on its argument types), else a generic one."""
        from .cache import read_source
        from .tracebacks import for_user

        try:
            return read_source(self._generated(mode).module)
        except Exception as e:
            raise for_user(e)

    def source_path(self, mode: str = "forward") -> Optional[str]:
        """The file in the cache the generated module of `source(mode)` was imported from (open it in an
        editor, or set a breakpoint in it)."""
        from .cache import source_path
        from .tracebacks import for_user

        try:
            return source_path(self._generated(mode).module)
        except Exception as e:
            raise for_user(e)

    def ir(self) -> str:
        """The function's SSA IR (basic blocks, phis, one call per statement), as text."""
        from .frontend.statements import lower_function
        from .ir import format_function
        from .tracebacks import for_user

        try:
            return format_function(lower_function(self.__wrapped_fn__))
        except Exception as e:
            raise for_user(e)


def differentiate(f: Callable) -> Differentiable:
    """Wrap `f` so that it keeps working as before and has its derivatives as methods; a decorator too.

    Args:
        f: a Python function, method, lambda or callable object whose source is available (above or
            below @staticmethod / @classmethod in a class: it binds as they do).
    Returns:
        a `Differentiable`: `f(...)` unchanged, plus `.grad`, `.value_and_grad`, `.jvp`, `.vjp`,
        `.source(mode)`, `.source_path(mode)` and `.ir()`.  On a method of a class, `obj.method.grad(x)`
        differentiates with respect to `x` (the object is bound).
    Raises:
        NotCallableError: f is not callable (a MooncakeError and a TypeError).  Its methods raise what
        `mc.grad`, `mc.jvp`, ... raise.

    Example:
        >>> @mc.differentiate
        ... def f(x, y):
        ...     return x * y + y
        >>> f.grad(2.0, 3.0), f.grad(2.0, 3.0, argnums=(0, 1))
        (3.0, (3.0, 3.0))
        >>> "def f__pullback(" in f.source("reverse")   # the generated reverse-mode module: print it
        True
    """
    from .errors import refuse_not_callable

    if not isinstance(f, (staticmethod, classmethod)):
        refuse_not_callable(f, "mc.differentiate")
    return f if isinstance(f, Differentiable) else Differentiable(f)


class ModeError(MooncakeError, ValueError):
    """`source(f, mode)` with a mode other than "forward" or "reverse"."""


def _function_of(f: Any, mode: str) -> types.FunctionType:
    """The Python function whose generated module `source(f)` shows: f, a method's function, a partial's
    function, a callable object's `__call__`; a callable with a rule of its own (np.sin) or without Python code has none."""
    from .errors import qualified_name
    from .rules import registry

    while isinstance(f, functools.partial):
        f = f.func  # (the module of the function it calls)
    library = os.path.dirname(os.path.abspath(__file__)) + os.sep
    if isinstance(f, types.FunctionType) and not os.path.abspath(f.__code__.co_filename).startswith(library):
        return f
    target = getattr(f, "__func__", None) if isinstance(f, types.MethodType) else None
    if target is None and not isinstance(f, (types.BuiltinFunctionType, type)) and registry.lookup(f) is None \
            and not type(f).__module__.startswith("mooncake_ast"):
        call = getattr(type(f), "__call__", None)
        target = call if isinstance(call, types.FunctionType) else None
    if isinstance(target, types.FunctionType):
        return target
    name = qualified_name(f)
    if registry.lookup(f) is not None:
        raise MooncakeError(f"{name} has no generated {mode} module: mooncake_ast differentiates it with a rule "
                            f"(mooncake-ast rules lists them); mc.source shows the modules of Python functions")
    if type(f).__module__.startswith("mooncake_ast") or isinstance(f, types.FunctionType):  # mc.grad(g), mc.jacrev(g)
        shown = f.__name__ if isinstance(f, types.FunctionType) else repr(f)
        raise MooncakeError(f"{shown} has no generated {mode} module of its own: its derivatives run the generated "
                            f"code of the function g it was made from; mc.source(g, mode) shows it "
                            f"(mc.source(mc.grad(g), 'forward') shows the module of Hessian-vector products)")
    raise MooncakeError(f"{name} has no generated {mode} module: it is not a Python function (mc.source shows "
                        f"the module generated for a Python function, a method or a callable object's __call__)")


def _lookup(module: Any, qualname: Any) -> Any:
    """The object named `module.qualname`, if it can be imported by that name (how pickle finds it)."""
    obj = sys.modules.get(module) if isinstance(module, str) else None
    for part in (qualname or "<>").split("."):
        obj = getattr(obj, part, None)
    return obj
