"""The public API (DESIGN.md §1), JAX-style: `jvp`, `grad`, `vjp`, ..., and `differentiate`."""
from __future__ import annotations

import functools
import inspect
import types
from typing import Any, Callable, Optional

from .errors import MooncakeError
from .tangents import NoTangent, materialize, zero_tangent


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

    def jvp(self, primals: tuple, tangents: tuple) -> tuple[Any, Any]:
        return jvp(self.__wrapped_fn__, primals, tangents)

    def _generated(self, mode: str) -> Any:
        fn = self.__wrapped_fn__
        if mode == "forward":
            from .forward.runtime import derived_forward

            return derived_forward(fn).gen
        if mode == "reverse":
            from .reverse.runtime import derived_reverse  # type: ignore[import-not-found]

            return derived_reverse(fn).gen
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
