"""The public API (DESIGN.md §1), JAX-style: `jvp`, `grad`, `vjp`, ..., and `differentiate`."""
from __future__ import annotations

import functools
import inspect
import types
from typing import Any, Callable, Optional

import numpy as np

from .errors import MooncakeError
from .reverse import shadows
from .reverse.adjoints import AdjDict, AdjList, AdjTuple, MethodAdjoint
from .reverse.runtime import derived_reverse, may_write, rcall
from .rules import registry
from .tangents import MutableTangent, NoTangent, Tangent, materialize, zero_tangent, zeros_like_tangent


def _as_function(f: Any) -> Any:
    return f.__wrapped_fn__ if isinstance(f, Differentiable) else f


def jvp(f: Callable, primals: tuple, tangents: tuple) -> tuple[Any, Any]:
    """`(f(*primals), J·tangents)`; a tangent of None means zero."""
    from .forward.runtime import fcall

    f = _as_function(f)
    if not isinstance(primals, tuple) or not isinstance(tangents, tuple):
        raise TypeError("jvp(f, primals, tangents): primals and tangents must be tuples")
    if len(primals) != len(tangents):
        raise ValueError(f"jvp: {len(primals)} primals but {len(tangents)} tangents")
    dargs = tuple(zero_tangent(p) if t is None else _check_tangent(p, t) for p, t in zip(primals, tangents))
    y, dy = fcall(f, NoTangent, tuple(primals), dargs)
    return y, materialize(dy, y)


def _check_tangent(p: Any, t: Any) -> Any:
    import numpy as np

    if isinstance(p, np.ndarray) and p.dtype.kind in "fc":
        t = np.asarray(t, dtype=p.dtype if p.dtype.kind == "c" else float)
        if t.shape != p.shape:
            raise ValueError(f"tangent of shape {t.shape} for an argument of shape {p.shape}")
        return t.copy()
    if isinstance(p, (list, dict)) or hasattr(p, "__dict__"):
        from .tangents import fresh

        return fresh(materialize(t, p))
    return t


def source(f: Callable, mode: str = "forward") -> str:
    """The text of the generated module for `f` in `mode` ("forward" or "reverse")."""
    return differentiate(f).source(mode)


class Differentiable:
    """`mc.differentiate(f)`: calls `f` unchanged; derivatives and generated code as methods."""

    def __init__(self, f: Callable) -> None:
        self.__wrapped_fn__ = f
        functools.update_wrapper(self, f)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.__wrapped_fn__(*args, **kwargs)

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        if obj is None:
            return self
        return types.MethodType(self, obj)

    def __reduce__(self) -> Any:
        f = self.__wrapped_fn__
        if _lookup(getattr(f, "__module__", None), getattr(f, "__qualname__", None)) is self:
            return f.__qualname__  # a decorated module-level function: by reference, like a function
        return (differentiate, (f,))

    def jvp(self, primals: tuple, tangents: tuple) -> tuple[Any, Any]:
        return jvp(self.__wrapped_fn__, primals, tangents)

    def vjp(self, *primals: Any) -> tuple[Any, Callable]:
        return vjp(self.__wrapped_fn__, *primals)

    def grad(self, *args: Any, argnums: Any = 0, **kwargs: Any) -> Any:
        return grad(self.__wrapped_fn__, argnums)(*args, **kwargs)

    def value_and_grad(self, *args: Any, argnums: Any = 0, **kwargs: Any) -> Any:
        return value_and_grad(self.__wrapped_fn__, argnums)(*args, **kwargs)

    def _generated(self, mode: str) -> Any:
        fn = self.__wrapped_fn__
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
        raise ValueError(f"mode must be 'forward' or 'reverse', not {mode!r}")

    def source(self, mode: str = "forward") -> str:
        from .cache import read_source

        return read_source(self._generated(mode).module)

    def source_path(self, mode: str = "forward") -> Optional[str]:
        from .cache import source_path

        return source_path(self._generated(mode).module)

    def ir(self) -> str:
        from .frontend.statements import lower_function
        from .ir import format_function

        return format_function(lower_function(self.__wrapped_fn__))


def differentiate(f: Callable) -> Differentiable:
    """Wrap `f` (also usable as a decorator)."""
    return f if isinstance(f, Differentiable) else Differentiable(f)


# ---------------------------------------------------------------- reverse mode


def _to_user(g: Any, primal: Any) -> Any:
    """An adjoint in the structure of its argument (tuples, lists, dicts; objects as mc.Tangent)."""
    if type(primal) is np.ndarray and type(g) is np.ndarray and g.shape == primal.shape and primal.dtype.kind == "f":
        return g if g.dtype == primal.dtype else g.astype(primal.dtype)
    if isinstance(primal, (bool, int, str, bytes, type(None))) and not isinstance(primal, float):
        return NoTangent
    if g is NoTangent or g is None:
        return zeros_like_tangent(primal)
    if isinstance(primal, (list, tuple)) and isinstance(g, (list, tuple)):
        items = [_to_user(a, p) for a, p in zip(g, primal)]
        return list(items) if isinstance(primal, list) else tuple(items)
    if isinstance(primal, dict) and isinstance(g, dict):
        return {k: _to_user(g.get(k, NoTangent), v) for k, v in primal.items()}
    if isinstance(g, MutableTangent) and hasattr(primal, "__dict__"):
        return Tangent({k: _to_user(g.fields.get(k, NoTangent), v) for k, v in vars(primal).items()})
    if isinstance(primal, np.ndarray):
        if primal.dtype.kind not in "fc":
            return NoTangent
        return np.asarray(g, dtype=primal.dtype).reshape(primal.shape) if np.ndim(g) else np.full(primal.shape, g, dtype=primal.dtype)
    if isinstance(primal, float) and isinstance(g, (int, float, np.floating, np.integer)):
        return float(g)
    return g


def vjp(f: Callable, *primals: Any) -> tuple[Any, Callable]:
    """`(f(*primals), vjp_fn)`; `vjp_fn(out_bar)` returns one adjoint per primal (a tuple)."""
    f = _as_function(f)
    ctx = shadows.Context()
    with ctx:
        y, pb = rcall(f, tuple(primals), {})
    post = shadows.snapshot((*primals, y))
    used = [False]

    def vjp_fn(out_bar: Any) -> tuple:
        if used[0]:
            raise MooncakeError("a vjp function can be called once (its tape is consumed); call mc.vjp again")
        used[0] = True
        with ctx:
            _, args_bar, _ = pb(out_bar)
            grads = tuple(_to_user(shadows.full_adjoint(p, g), p) for g, p in zip(args_bar, primals))
        shadows.reapply((*primals, y), post)
        return grads

    return y, vjp_fn


def _lookup(module: Any, qualname: Any) -> Any:
    """The object named `module.qualname`, if it can be imported by that name (how pickle finds it)."""
    import sys

    obj = sys.modules.get(module) if isinstance(module, str) else None
    for part in (qualname or "<>").split("."):
        obj = getattr(obj, part, None)
    return obj


class ValueAndGrad:
    """`mc.value_and_grad(f)`: a module-level callable, so it pickles (by reference to f) and can be
    sent to other processes; the receiving process builds (or loads from its cache) the derivative."""

    _api_name = "value_and_grad"

    def __init__(self, f: Callable, argnums: Any = 0, has_aux: bool = False) -> None:
        self.f, self.argnums, self.has_aux = f, argnums, has_aux
        self.nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
        self.wrt = frozenset(self.nums)

    def __repr__(self) -> str:
        name = getattr(self.f, "__qualname__", self.f)
        return f"{self._api_name}({name}, argnums={self.argnums!r})"

    def __getstate__(self) -> dict:
        return {"f": self.f, "argnums": self.argnums, "has_aux": self.has_aux}

    def __setstate__(self, state: dict) -> None:
        ValueAndGrad.__init__(self, state["f"], state["argnums"], state["has_aux"])

    def __call__(self, *args: Any, **kwargs: Any) -> tuple:
        with shadows.Context():
            return self._value_and_grad(_as_function(self.f), args, kwargs)

    def _value_and_grad(self, fn: Any, args: tuple, kwargs: dict) -> tuple:
        has_aux, nums = self.has_aux, self.nums
        if type(fn) is types.FunctionType and registry.lookup(fn) is None:
            out, pb = derived_reverse(fn, args, kwargs, self.wrt)  # the usual case: no general dispatch
        else:
            out, pb = rcall(fn, args, kwargs, wrt=self.wrt)
        writes = may_write(pb)
        post = shadows.snapshot((*args, out)) if writes else None
        value, aux = (out[0], out[1]) if has_aux else (out, None)
        if not isinstance(value, (float, int, np.floating, np.integer)) or isinstance(value, bool) or \
                (isinstance(value, np.ndarray) and value.shape != ()):
            raise TypeError(f"grad of {getattr(fn, '__qualname__', fn)} needs a scalar float result, got "
                            f"{type(value).__name__}; use mc.vjp for other outputs")
        seed = (1.0, NoTangent) if has_aux else 1.0
        _, args_bar, _ = pb(AdjTuple(seed) if has_aux else seed)
        grads = tuple(_to_user(shadows.full_adjoint(args[i], args_bar[i]), args[i]) for i in nums)
        if writes:
            shadows.reapply((*args, out), post)
        g = grads[0] if isinstance(self.argnums, int) else grads
        return ((value, aux), g) if has_aux else (value, g)


class Grad(ValueAndGrad):
    """`mc.grad(f)`: like ValueAndGrad, returning only the gradient(s) (and aux with has_aux)."""

    _api_name = "grad"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        (value, g) = ValueAndGrad.__call__(self, *args, **kwargs)
        return (g, value[1]) if self.has_aux else g


def value_and_grad(f: Callable, argnums: Any = 0, has_aux: bool = False) -> Callable:
    """`g(*args) -> (value, gradient(s))` for f returning a scalar (or `(scalar, aux)` with has_aux)."""
    return ValueAndGrad(f, argnums, has_aux)


def grad(f: Callable, argnums: Any = 0, has_aux: bool = False) -> Callable:
    """`g(*args)`: the gradient of scalar-valued f with respect to argument(s) `argnums`."""
    return Grad(f, argnums, has_aux)
