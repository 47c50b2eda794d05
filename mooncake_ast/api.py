"""The public API (DESIGN.md §1), JAX-style: `jvp`, `grad`, `vjp`, ..., and `differentiate`.

Inputs are checked at this boundary, as JAX checks them, so that a mistake is an error that
says what to do and never a wrong number: `argnums` (an int or a tuple of distinct ints,
negative ones counted from the end), the structure, shape and dtype of tangents against the
primals and of cotangents against the result, a scalar result for `grad`, and (reverse mode
only) no complex numbers in the arguments, the result or the cotangent.
"""
from __future__ import annotations

import contextlib
import functools
import numbers
import types
from typing import Any, Callable, Optional

import numpy as np

from .errors import MooncakeError, UnsupportedDerivativeError, generated_location
from .foreign import arguments, refuse_foreign
from .reverse import shadows
from .reverse.adjoints import AdjTuple
from .reverse.runtime import ReverseError, derived_reverse, may_write, rcall
from .rules import registry
from . import api_fast as _fast  # (the short paths of jvp and grad: it reads this module's helpers when called)
from .tangents import MutableTangent, NoTangent, Tangent, is_data_object, materialize, zero_tangent, zeros_like_tangent


class ArgnumsError(MooncakeError, ValueError, TypeError):
    """`argnums` is not an int or a tuple of distinct ints within the call's positional arguments."""


class TangentError(MooncakeError, ValueError, TypeError):
    """A tangent (jvp) or cotangent (vjp) does not match its primal or result in structure, shape or dtype."""


class NonScalarOutputError(MooncakeError, TypeError):
    """`grad` / `value_and_grad` of a function whose result is not a real scalar."""


class ComplexReverseError(ReverseError):
    """Reverse mode was given complex numbers (an argument, the result or a cotangent)."""


@contextlib.contextmanager
def _refusals_located():
    """A rule's NotImplementedError (an option or operand whose derivative is not written) becomes an
    UnsupportedDerivativeError that names the user's line as well as what the rule said."""
    try:
        yield
    except NotImplementedError as e:
        if isinstance(e, MooncakeError):
            raise
        raise _located(e) from e


def _located(e: NotImplementedError) -> UnsupportedDerivativeError:
    where = generated_location(e.__traceback__)
    return UnsupportedDerivativeError(f"{where}: {e}" if where else str(e))


def _as_function(f: Any) -> Any:
    return f.__wrapped_fn__ if isinstance(f, Differentiable) else f


def _name(f: Any) -> str:
    return getattr(f, "__qualname__", None) or getattr(f, "__name__", None) or repr(f)


# ---------------------------------------------------------------- checks of values given to the API

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
    if x is NoTangent:
        return "mc.NoTangent()"
    if isinstance(x, (list, tuple, dict)):
        return f"a {type(x).__name__} of length {len(x)}"
    if x is None:
        return "None"
    name = type(x).__name__
    return f"{'an' if name[:1] in 'aeiou' else 'a'} {name}"


def _is_object(p: Any) -> bool:
    return hasattr(p, "__dict__") and not isinstance(p, _OPAQUE) and is_data_object(p)


def _nondifferentiable(p: Any) -> bool:
    if isinstance(p, _NONDIFF_SCALARS) or isinstance(p, _OPAQUE):
        return True
    return isinstance(p, np.ndarray) and p.dtype.kind in "biuSUMm"


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
            from .testing import same_value

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
            if arr.dtype.kind not in ("iuf" if p.dtype.kind == "f" else "iufc"):
                self.fail(where, f"has dtype {arr.dtype}, but it is {_describe(p)}: give a "
                                 f"{'real ' if p.dtype.kind == 'f' else ''}{self.what} of dtype {p.dtype}")
            return np.array(arr, dtype=p.dtype)
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
            given = _fields_given(t)
            if given is None:
                self.fail(where, f"must be an mc.Tangent with fields of {type(p).__name__} (or a dict of them): "
                                 f"the {self.what} given is {_describe(t)}")
            fields = vars(p)
            self._check_fields(given, fields, where, p)
            return MutableTangent({k: self(given.get(k), v, f"{where}.{k}") for k, v in fields.items()})
        return t

    def _check_fields(self, given: Any, names: Any, where: str, p: Any) -> None:
        extra = [k for k in given if k not in names]
        if extra:
            self.fail(where, f"names {extra!r}, which {_describe(p)} does not have")


def _find_complex(x: Any, where: str, seen: Optional[set] = None) -> Optional[str]:
    """Where in `x` a complex number is (a description), or None."""
    if isinstance(x, (complex, np.complexfloating)):
        return where
    if isinstance(x, np.ndarray):
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
    """Reverse mode has no adjoint convention for complex numbers yet: refuse them where they enter."""
    for where, v in values:
        found = _find_complex(v, where)
        if found:
            raise ComplexReverseError(
                f"{api} of {_name(f)}: {found} holds complex numbers; reverse mode does not support complex values "
                f"yet (no adjoint convention is implemented). Use forward mode (mc.jvp), or pass the real and "
                f"imaginary parts as separate float arguments")


# ---------------------------------------------------------------- caller-visible state


# The caller-visible state (shadows.snapshot / shadows.reapply): the pullback rolls objects back to
# their values on entry, and the post-call state the caller saw is put back after it.
_reachable_mutables = shadows.reachable_mutables
_snapshot = shadows.snapshot
_reapply = shadows.reapply


# ---------------------------------------------------------------- forward mode


def jvp(f: Callable, primals: tuple, tangents: tuple) -> tuple[Any, Any]:
    """`(f(*primals), J·tangents)`; a tangent of None means zero."""
    if not isinstance(primals, tuple) or not isinstance(tangents, tuple):
        raise TangentError("jvp(f, primals, tangents): primals and tangents must be tuples, e.g. "
                           "mc.jvp(f, (x,), (dx,))")
    if len(primals) != len(tangents):
        raise TangentError(f"jvp: {len(primals)} primals but {len(tangents)} tangents; give one tangent per primal "
                           f"(None for a zero tangent)")
    done = _fast.jvp_fast(f, primals, tangents)
    if done is not None:
        return done
    y, dy, _, _ = _jvp(f, primals, tangents, {}, {})
    return y, materialize(dy, y)


def _jvp(f: Callable, args: tuple, dargs: tuple, kwargs: dict, dkwargs: dict, api: str = "jvp") -> tuple:
    """jvp with keyword arguments: `(y, dy, dargs, dkwargs)`, the last two the argument tangents after the
    call (changed where the call mutates its arguments)."""
    from .forward.runtime import fcall

    # A number argument is differentiated where a tangent is given (check_derivatives: every argument).
    given = lambda i: api == "check_derivatives" or (dargs[i] is not None and dargs[i] is not NoTangent)  # noqa: E731
    refuse_foreign(api, _name(f), arguments(args, kwargs, given)
                   + [(f"the tangent of argument {i}", t) for i, t in enumerate(dargs)]
                   + [(f"the tangent of keyword argument {k!r}", t) for k, t in dkwargs.items()])
    conv = _Converter("tangent", api, symbolic_top=True)
    dargs = tuple(conv(t, p, f"argument {i}", top=True) for i, (p, t) in enumerate(zip(args, dargs)))
    dkwargs = {k: conv(dkwargs.get(k), v, f"keyword argument {k!r}", top=True) for k, v in kwargs.items()}
    with _refusals_located():
        y, dy = fcall(_as_function(f), NoTangent, tuple(args), dargs, kwargs, dkwargs)
    refuse_foreign(api, _name(f), [("the result", y)])
    return y, dy, dargs, dkwargs


def source(f: Callable, mode: str = "forward") -> str:
    """The text of the generated module for `f` in `mode` ("forward" or "reverse").

    For `f = mc.grad(g)` in "forward" mode (the derivative of a gradient: Hessian-vector products, `hessian`,
    `jvp(grad(g))`), the module is reverse mode over g's generated forward code."""
    if isinstance(f, ValueAndGrad) and mode == "forward":
        inner = differentiate(_as_function(f.f))._generated("forward").function
        return differentiate(inner).source("reverse")
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
    if getattr(type(g), "refuses_use", False):
        g._refuse()  # a derivative a rule could not give (a RefusedAdjoint): asked for, so the refusal is raised
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
    if isinstance(primal, (float, np.floating)) and (_is_real_number(g) or (isinstance(g, np.ndarray) and g.size == 1
                                                                            and g.dtype.kind in "iuf")):
        return float(np.asarray(g).reshape(()))
    return g


def vjp(f: Callable, *primals: Any) -> tuple[Any, Callable]:
    """`(f(*primals), vjp_fn)`; `vjp_fn(out_bar)` returns one adjoint per primal (a tuple).

    `out_bar` has the structure of the result (None or mc.NoTangent() for a zero part)."""
    y, pullback = _vjp(f, primals, {})

    def vjp_fn(out_bar: Any) -> tuple:
        return pullback(out_bar)[0]

    return y, vjp_fn


def _vjp(f: Callable, args: tuple, kwargs: dict, api: str = "vjp", on_restored: Optional[Callable] = None,
         complex_ok: bool = False) -> tuple[Any, Callable]:
    """vjp with keyword arguments: `(y, pullback)`, `pullback(out_bar) -> (args_bar, kwargs_bar)`.

    For check_derivatives: `on_restored()` runs after the pullback, before the caller's objects are put
    back in their post-call state; `complex_ok` lets rules that meet complex intermediates be tested
    with the convention <y_bar, y_dot> = Re(conj(y_bar) y_dot)."""
    fn = _as_function(f)
    refuse = (lambda values: None) if complex_ok else functools.partial(_refuse_complex, api, fn)
    refuse_foreign(api, _name(fn), arguments(args, kwargs))
    refuse([(f"argument {i}", a) for i, a in enumerate(args)] + [(f"keyword argument {k!r}", v) for k, v in kwargs.items()])
    ctx = shadows.Context()
    with ctx, _refusals_located():
        y, pb = rcall(fn, tuple(args), kwargs)
    refuse_foreign(api, _name(fn), [("the result", y)])
    refuse([("the result", y)])
    post = _snapshot((*args, *kwargs.values(), y))
    state: dict = {"pb": pb, "pre": None}

    def pullback(out_bar: Any) -> tuple:
        refuse_foreign(api, _name(fn), [("the cotangent", out_bar)])
        seed = _Converter("cotangent", api, symbolic_top=False)(out_bar, y, "the result", top=True)
        refuse([("the cotangent", out_bar)])
        if state.get("broken"):
            raise MooncakeError(f"{api}: an earlier call of this pullback was interrupted, so the arguments' state "
                                "on entry is not known any more; call mc.vjp again")
        run, run_ctx = state["pb"], ctx
        try:
            if run is None:
                # The tape of the first forward pass is consumed: put the arguments back in their state on
                # entry and run the forward pass again, in fresh adjoint storage (a pullback can be called
                # many times).
                if state["pre"] is not None:
                    _reapply(state["pre"])
                run_ctx = shadows.Context()
                with run_ctx, _refusals_located():
                    _, run = rcall(fn, tuple(args), kwargs)
            state["pb"] = None
            with run_ctx, _refusals_located():
                _, args_bar, kwargs_bar = run(seed)
        except BaseException:
            _reapply(post)  # interrupted (Ctrl-C) or failed half way back: as the plain call leaves them
            state["broken"] = state["pre"] is None and may_write(run) if run is not None else True
            raise
        with run_ctx, _refusals_located():
            grads = tuple(_to_user(shadows.full_adjoint(p, g), p) for g, p in zip(args_bar, args))
            kgrads = {k: _to_user(shadows.full_adjoint(v, kwargs_bar.get(k, NoTangent)), v) for k, v in kwargs.items()}
        if on_restored is not None:
            on_restored()
        if state["pre"] is None and may_write(run):
            state["pre"] = _snapshot((*args, *kwargs.values()))  # the entry state, which the pullback restored
        _reapply(post)
        return grads, kgrads

    return y, pullback


def _lookup(module: Any, qualname: Any) -> Any:
    """The object named `module.qualname`, if it can be imported by that name (how pickle finds it)."""
    import sys

    obj = sys.modules.get(module) if isinstance(module, str) else None
    for part in (qualname or "<>").split("."):
        obj = getattr(obj, part, None)
    return obj


def _argnums_checked(argnums: Any, api: str, f: Any) -> tuple:
    """The ints of `argnums` (as given: negative ones stay negative until the call's length is known)."""
    def bad(why: str) -> ArgnumsError:
        return ArgnumsError(f"{api}({_name(f)}, argnums={argnums!r}): {why}; argnums must be an int or a tuple of "
                            f"distinct ints, positions of positional arguments (negative ones count from the end)")

    nums = (argnums,) if isinstance(argnums, (int, np.integer)) and not isinstance(argnums, (bool, np.bool_)) else argnums
    if not isinstance(nums, (tuple, list)):
        raise bad(f"{type(argnums).__name__} is not an int or a tuple")
    for n in nums:
        if not isinstance(n, (int, np.integer)) or isinstance(n, (bool, np.bool_)):
            raise bad(f"{n!r} is not an int")
    return tuple(int(n) for n in nums)


class ValueAndGrad:
    """`mc.value_and_grad(f)`: a module-level callable, so it pickles (by reference to f) and can be
    sent to other processes; the receiving process builds (or loads from its cache) the derivative."""

    _api_name = "value_and_grad"

    def __init__(self, f: Callable, argnums: Any = 0, has_aux: bool = False) -> None:
        self.f, self.argnums, self.has_aux = f, argnums, has_aux
        self.given = (argnums,) if type(argnums) is int else _argnums_checked(argnums, self._api_name, f)
        self._by_count: dict = {}

    def __repr__(self) -> str:
        return f"{self._api_name}({_name(self.f)}, argnums={self.argnums!r})"

    def __getstate__(self) -> dict:
        return {"f": self.f, "argnums": self.argnums, "has_aux": self.has_aux}

    def __setstate__(self, state: dict) -> None:
        ValueAndGrad.__init__(self, state["f"], state["argnums"], state["has_aux"])

    def _nums(self, nargs: int) -> tuple:
        """argnums for a call with `nargs` positional arguments: (positions, frozenset of them)."""
        known = self._by_count.get(nargs)
        if known is not None:
            return known
        nums = []
        for n in self.given:
            if not -nargs <= n < nargs:
                raise ArgnumsError(
                    f"{self._api_name}({_name(self.f)}, argnums={self.argnums!r}): argument {n} is out of range for a "
                    f"call with {nargs} positional argument{'s' if nargs != 1 else ''} (valid: {-nargs} to "
                    f"{nargs - 1}); argnums counts positional arguments only: pass the argument to differentiate "
                    f"positionally")
            nums.append(n % nargs)
        if len(set(nums)) != len(nums):
            raise ArgnumsError(f"{self._api_name}({_name(self.f)}, argnums={self.argnums!r}): positions {nums} for a "
                               f"call with {nargs} positional arguments repeat an argument; give each position once")
        known = self._by_count[nargs] = (tuple(nums), frozenset(nums))
        return known

    def __call__(self, *args: Any, **kwargs: Any) -> tuple:
        if not kwargs and not self.has_aux:
            done = _fast.grad_fast(self, args)
            if done is not None:
                return done
        with shadows.Context(), _refusals_located():
            return self._value_and_grad(_as_function(self.f), args, kwargs)

    def _value_and_grad(self, fn: Any, args: tuple, kwargs: dict) -> tuple:
        nums, wrt = self._nums(len(args))
        api = self._api_name
        refuse_foreign(api, _name(fn), arguments(args, kwargs, wrt.__contains__))
        _refuse_complex(api, fn, [(f"argument {i}", a) for i, a in enumerate(args)]
                        + [(f"keyword argument {k!r}", v) for k, v in kwargs.items()])
        if type(fn) is types.FunctionType and registry.lookup(fn) is None:
            out, pb = derived_reverse(fn, args, kwargs, wrt)  # the usual case: no general dispatch
        else:
            out, pb = rcall(fn, args, kwargs, wrt=wrt)
        return self._finish(fn, args, kwargs, nums, out, pb, may_write(pb))

    def _finish(self, fn: Any, args: tuple, kwargs: dict, nums: tuple, out: Any, pb: Callable, writes: bool) -> tuple:
        """From the forward pass's result and pullback: checks of the result, seed, pullback, gradients."""
        has_aux = self.has_aux
        api = self._api_name
        post = _snapshot((*args, *kwargs.values(), out)) if writes else None
        if has_aux and not (isinstance(out, (tuple, list)) and len(out) == 2):
            raise NonScalarOutputError(f"{api}({_name(fn)}, has_aux=True) needs f to return a pair (value, aux), "
                                       f"but it returned {_describe(out)}")
        value, aux = (out[0], out[1]) if has_aux else (out, None)
        refuse_foreign(api, _name(fn), [("the result" + ("'s value" if has_aux else ""), value)])
        seed = self._seed(fn, value)
        try:
            _, args_bar, _ = pb(AdjTuple((seed, NoTangent)) if has_aux else seed)
        except BaseException:
            if writes:  # interrupted (Ctrl-C) or failed half way back: as the plain call leaves them
                _reapply(post)
            raise
        grads = tuple(_to_user(shadows.full_adjoint(args[i], args_bar[i]), args[i]) for i in nums)
        if writes:
            _reapply(post)
        g = grads[0] if not isinstance(self.argnums, (tuple, list)) else grads
        return ((value, aux), g) if has_aux else (value, g)

    def _seed(self, fn: Any, value: Any) -> Any:
        """The cotangent 1 of a real scalar result (a float, a NumPy float, or a 0-d float array)."""
        if isinstance(value, (float, np.floating)):
            return 1.0
        if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
            return NoTangent  # an int result does not depend on the arguments: zero gradients
        if isinstance(value, np.ndarray) and value.shape == () and value.dtype.kind in "iuf":
            return np.ones((), dtype=value.dtype) if value.dtype.kind == "f" else NoTangent
        if isinstance(value, (complex, np.complexfloating)) or (isinstance(value, np.ndarray) and value.dtype.kind == "c"):
            _refuse_complex(self._api_name, fn, [("the result", value)])
        raise NonScalarOutputError(
            f"{self._api_name} of {_name(fn)} needs a real scalar result (a float or a 0-d float array), got "
            f"{_describe(value)}; use mc.vjp for other results, or reduce it to a scalar (e.g. np.sum)")


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
