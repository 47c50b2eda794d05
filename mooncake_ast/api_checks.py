"""Checks of the values a user gives the API (DESIGN.md §1): tangents and cotangents against their
primals and results, and a complex result given to grad.

They run at the boundary, as JAX checks them, so that a mistake is a TangentError or a
ComplexReverseError that says what to do, never a wrong number deep inside a derivative.
"""
from __future__ import annotations

import functools
import numbers
import types
from typing import Any, Optional

import numpy as np

from .arrays import is_array, is_other_array
from .errors import MooncakeError
from .reverse.runtime import ReverseError
from .tangents import MutableTangent, NoTangent, Tangent, is_data_object, laid_out_like, materialize, zero_tangent


def _name(f: Any) -> str:
    return getattr(f, "__qualname__", None) or getattr(f, "__name__", None) or repr(f)


class TangentError(MooncakeError, ValueError, TypeError):
    """A tangent (jvp) or cotangent (vjp) does not match its primal or result in structure, shape or dtype.

    The message says where (`argument 0`, `the result[1]['w']`), what the primal is (`an array of shape
    (3,) and dtype float64`) and what was given.  Tangents have the structure of their primal: a float
    for a float, an array of the same shape for an array, the same container for a container, an
    mc.Tangent (or a dict) of fields for an object; None or mc.NoTangent() for a zero.

    Example:
        >>> def g(x):
        ...     return x * 2.0
        >>> try:
        ...     mc.jvp(g, (np.ones(3),), (np.ones(2),))
        ... except mc.TangentError as e:
        ...     print(e)
        jvp: the tangent of argument 0 has shape (2,), but it is an array of shape (3,) and dtype float64:
        give a tangent of shape (3,)
    """


class ComplexReverseError(ReverseError):
    """grad or value_and_grad of a function with a complex result: a gradient needs a real scalar (a real loss).
    Use mc.vjp with a complex cotangent, or differentiate a real function of the result (its real part, abs).

    Complex arguments are differentiated in reverse mode (README "Complex numbers"): the gradient of a real
    loss L with respect to z = x + iy is dL/dx + i dL/dy, and a pullback maps y_bar to
    x_bar = conj(f'(z)) * y_bar for holomorphic f -- Re(sum(conj(x_bar) * x_dot)) == Re(sum(conj(y_bar) * y_dot))
    for every tangent x_dot, the real inner product on C = R^2.  JAX returns the conjugate of this gradient
    (conjugate to convert); PyTorch and autograd return this one.  A rule whose reverse template is not yet right
    for complex values refuses them with a ReverseError that names it.

    Example:
        >>> def sq(z):
        ...     return z * z
        >>> try:
        ...     mc.grad(sq)(1.0 + 2.0j)
        ... except mc.ComplexReverseError as e:
        ...     print(type(e).__name__)
        ComplexReverseError
        >>> y, vjp_fn = mc.vjp(sq, 1.0 + 2.0j)
        >>> vjp_fn(1.0)                             # conj(f'(z)) * 1
        ((2-4j),)
    """



_NONDIFF_SCALARS = (bool, int, str, bytes, type(None), range, slice, np.integer, np.bool_, np.str_, np.bytes_)
_OPAQUE = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, types.ModuleType, type, np.ufunc,
           functools.partial)


def _is_real_number(t: Any) -> bool:
    if isinstance(t, (bool, np.bool_)):
        return False
    if isinstance(t, (int, float, np.integer, np.floating)):
        return True
    return isinstance(t, np.ndarray) and t.shape == () and t.dtype.kind in "iuf"


def _is_number(t: Any) -> bool:
    return _is_real_number(t) or isinstance(t, (complex, np.complexfloating)) or \
        (isinstance(t, np.ndarray) and t.shape == () and t.dtype.kind == "c")


def _describe(x: Any) -> str:
    if isinstance(x, np.ndarray):
        return f"an array of shape {x.shape} and dtype {x.dtype}"
    if is_other_array(x):
        return f"a {type(x).__module__.split('.')[0]} array of shape {x.shape} and dtype {x.dtype}"
    if x is NoTangent:
        return "mc.NoTangent()"
    if isinstance(x, (list, tuple, dict)):
        return f"a {type(x).__name__} of length {len(x)}"
    if x is None:
        return "None"
    from .frontend.generator_ops import _Handing  # (what a differentiated generator function returns)

    if isinstance(x, _Handing):
        return "a generator (a function with `yield`: differentiate a function that consumes it, e.g. sum(gen(x)))"
    name = type(x).__name__
    return f"{'an' if name[:1] in 'aeiou' else 'a'} {name}"


def _is_object(p: Any) -> bool:
    return hasattr(p, "__dict__") and not isinstance(p, _OPAQUE) and is_data_object(p)


def _nondifferentiable(p: Any) -> bool:
    if isinstance(p, _NONDIFF_SCALARS) or isinstance(p, _OPAQUE):
        return True
    return (isinstance(p, np.ndarray) or is_other_array(p)) and p.dtype.kind in "biuSUMm"


def _fields_given(t: Any) -> Optional[dict]:
    if isinstance(t, (Tangent, MutableTangent)):
        return dict(t.fields)
    if isinstance(t, dict):
        return dict(t)
    return None


class _Converter:
    """Checks a user's tangent (`what="tangent"`) or cotangent against a primal or result and
    gives it in the form the transforms take (fresh storage, dtype of the primal)."""

    def __init__(self, what: str, api: str, symbolic_top: bool) -> None:
        self.what, self.api, self.symbolic_top = what, api, symbolic_top
        self.memo: dict = {}

    def fail(self, where: str, msg: str) -> None:
        raise TangentError(f"{self.api}: the {self.what} of {where} {msg}")

    def __call__(self, t: Any, p: Any, where: str, top: bool = False) -> Any:
        mutable = isinstance(p, (np.ndarray, list, dict)) or _is_object(p)
        if mutable and id(p) in self.memo and self.what == "cotangent":
            # One object in several places of the result: each place's cotangent adds into the object's
            # one adjoint (JAX: `return u, u` pulls back a + b to u).
            return self.convert(t, p, where, top)
        if mutable and id(p) in self.memo:
            first_where, first_t, out = self.memo[id(p)]
            again = self.convert(t, p, where, top)
            from .testing_values import same_value

            if not same_value(again, out, rtol=0.0, atol=0.0):
                self.fail(where, f"differs from the {self.what} of {first_where}, which is the same object: one "
                                 f"object has one {self.what}, so give both places the same value")
            return out
        out = self.convert(t, p, where, top)
        if mutable:
            self.memo[id(p)] = (where, t, out)
        return out

    def convert(self, t: Any, p: Any, where: str, top: bool) -> Any:
        if t is None or t is NoTangent:
            # Zero: the symbolic zero for a whole jvp argument (as ever), dense zeros elsewhere (a pullback
            # is not required to take symbolic zeros inside a structure).
            return zero_tangent(p) if top and self.symbolic_top else materialize(NoTangent, p)
        if _nondifferentiable(p):
            self.fail(where, f"must be None or mc.NoTangent(): it is {_describe(p)}, which is not differentiable, "
                             f"but the {self.what} given is {_describe(t)}")
        if isinstance(p, (float, np.floating)):
            if not _is_real_number(t):
                self.fail(where, f"must be a real number: it is a float, and the {self.what} given is {_describe(t)}")
            return float(t)
        if isinstance(p, (complex, np.complexfloating)):
            if not _is_number(t):
                self.fail(where, f"must be a number: it is a complex number, and the {self.what} given is {_describe(t)}")
            return complex(t)
        if is_other_array(p):
            return self.in_library(t, p, where)
        if isinstance(p, np.ndarray):
            if p.dtype.kind not in "fc":
                return t
            arr = t if isinstance(t, np.ndarray) else None
            if arr is None and isinstance(t, (list, tuple, numbers.Number, np.generic)):
                try:
                    arr = np.asarray(t)
                except Exception:
                    arr = None
            if arr is None:
                self.fail(where, f"must be an array of shape {p.shape}: it is {_describe(p)}, "
                                 f"and the {self.what} given is {_describe(t)}")
            assert arr is not None
            if arr.shape != p.shape:
                self.fail(where, f"has shape {arr.shape}, but it is {_describe(p)}: give a {self.what} of shape "
                                 f"{p.shape}")
            # Integer directions are directions (converted to the primal's dtype, as Python ints are); bools,
            # strings, objects and complex values for a real array are mistakes.
            if arr.dtype.kind not in ("iuf" if p.dtype.kind == "f" else "iufc"):
                self.fail(where, f"has dtype {arr.dtype}, but it is {_describe(p)}: give a "
                                 f"{'real ' if p.dtype.kind == 'f' else ''}{self.what} of dtype {p.dtype} "
                                 f"(np.asarray(t, dtype=np.{p.dtype.name}) converts one)")
            return laid_out_like(p, arr)
        if isinstance(p, (list, tuple)) and not isinstance(t, (Tangent, MutableTangent)):
            if not isinstance(t, (list, tuple)) or len(t) != len(p):
                self.fail(where, f"must be a list or tuple of length {len(p)}: it is {_describe(p)}, and the "
                                 f"{self.what} given is {_describe(t)}")
            items = [self(ti, pi, f"{where}[{i}]") for i, (ti, pi) in enumerate(zip(t, p))]
            return items if isinstance(p, list) else tuple(items)
        if isinstance(p, tuple) and hasattr(p, "_fields"):
            given = _fields_given(t) or {}
            self._check_fields(given, p._fields, where, p)
            return tuple(self(given.get(k), getattr(p, k), f"{where}.{k}") for k in p._fields)
        if isinstance(p, dict):
            if not isinstance(t, dict):
                self.fail(where, f"must be a dict: it is {_describe(p)}, and the {self.what} given is {_describe(t)}")
            self._check_fields(t, p, where, p)
            return {k: self(t.get(k), v, f"{where}[{k!r}]") for k, v in p.items()}
        if _is_object(p):
            from .frontend.generator_ops import _Handing

            if isinstance(p, _Handing):
                self.fail(where, f"is {_describe(p)}, which has no {self.what}")
            given = _fields_given(t)
            if given is None:
                self.fail(where, f"must be an mc.Tangent with fields of {type(p).__name__} (or a dict of them): "
                                 f"the {self.what} given is {_describe(t)}")
            fields = vars(p)
            self._check_fields(given, fields, where, p)
            return MutableTangent({k: self(given.get(k), v, f"{where}.{k}") for k, v in fields.items()})
        return t

    def in_library(self, t: Any, p: Any, where: str) -> Any:
        """The (co)tangent of a Dask (CuPy) array: an array of the same shape (NumPy's is moved into p's
        library) or a number (filled to p's shape), with p's dtype; checked only by shape and dtype, never
        by value, so that a lazy one stays lazy."""
        if isinstance(t, (numbers.Number, np.generic)) and not isinstance(t, bool):
            arr = np.asarray(t)
            if arr.dtype.kind not in ("iuf" if p.dtype.kind == "f" else "iufc"):
                self.fail(where, f"has dtype {arr.dtype}, but it is {_describe(p)}")
            return np.full_like(p, t)
        if not is_array(t) or (isinstance(t, np.ndarray) and type(t) is not np.ndarray):
            self.fail(where, f"must be an array of shape {p.shape}: it is {_describe(p)}, and the {self.what} given "
                             f"is {_describe(t)}")
        if t.shape != p.shape:
            self.fail(where, f"has shape {t.shape}, but it is {_describe(p)}: give a {self.what} of shape {p.shape}")
        if t.dtype.kind not in ("iuf" if p.dtype.kind == "f" else "iufc"):
            self.fail(where, f"has dtype {t.dtype}, but it is {_describe(p)}: give a "
                             f"{'real ' if p.dtype.kind == 'f' else ''}{self.what} of dtype {p.dtype}")
        if not is_other_array(t):
            t = np.asarray(t, like=p)  # (a NumPy tangent of a Dask array: into Dask)
        # A new array object (for Dask a new handle on the same graph: nothing computed or copied), as NumPy's is
        # fresh storage: code that writes into its argument (Dask's item assignment) writes into its tangent.
        return t.copy() if t.dtype == p.dtype else t.astype(p.dtype)

    def _check_fields(self, given: Any, names: Any, where: str, p: Any) -> None:
        extra = [k for k in given if k not in names]
        if extra:
            have = list(names)
            noun = "keys" if isinstance(p, dict) else "fields"
            self.fail(where, f"names {noun[:-1]}{'s' if len(extra) > 1 else ''} {', '.join(map(repr, extra))}, which "
                             f"{_describe(p)} does not have (its {noun}: {', '.join(map(repr, have[:8]))}"
                             f"{', ...' if len(have) > 8 else ''}); give a {self.what} with the argument's {noun}")


def _find_complex(x: Any, where: str, seen: Optional[set] = None) -> Optional[str]:
    """Where in `x` a complex number is (a description), or None."""
    if isinstance(x, (complex, np.complexfloating)):
        return where
    if isinstance(x, np.ndarray) or is_other_array(x):
        return where if x.dtype.kind == "c" else None
    if isinstance(x, (float, int, str, bytes, type(None), np.generic)) or isinstance(x, _OPAQUE):
        return None
    seen = set() if seen is None else seen
    if id(x) in seen:
        return None
    seen.add(id(x))
    if isinstance(x, (list, tuple)):
        items: Any = enumerate(x)
        fmt = "{}[{}]"
    elif isinstance(x, dict):
        items = ((repr(k), v) for k, v in x.items())
        fmt = "{}[{}]"
    elif isinstance(x, (Tangent, MutableTangent)):
        items = x.fields.items()
        fmt = "{}.{}"
    elif isinstance(getattr(x, "__dict__", None), dict):
        items = vars(x).items()
        fmt = "{}.{}"
    else:
        return None
    for k, v in items:
        found = _find_complex(v, fmt.format(where, k), seen)
        if found:
            return found
    return None


def _refuse_complex(api: str, f: Any, values: list) -> None:
    """grad needs a real scalar result: refuse a complex one, pointing to vjp (ComplexReverseError)."""
    for where, v in values:
        found = _find_complex(v, where)
        if found:
            raise ComplexReverseError(
                f"{api} of {_name(f)}: {found} is complex; a gradient needs a real scalar result (a real loss). "
                f"Use mc.vjp with a complex cotangent, or take the gradient of a real function of it "
                f"(np.real(...), np.abs(...) ** 2). Complex arguments are fine: their gradient is dL/dx + i dL/dy")

