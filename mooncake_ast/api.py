"""The public API (DESIGN.md §1), JAX-style: `jvp`, `grad`, `vjp`, ..., and `differentiate`.

Inputs are checked at this boundary, as JAX checks them, so that a mistake is an error that
says what to do and never a wrong number: `argnums` (an int or a tuple of distinct ints,
negative ones counted from the end), the structure, shape and dtype of tangents against the
primals and of cotangents against the result, and a real scalar result for `grad` (a complex one is a
ComplexReverseError pointing to vjp).  Complex arguments, results and cotangents are differentiated in
reverse mode by the rules README "Complex numbers" lists; other rules refuse them when the pullback runs.
"""
from __future__ import annotations

import contextlib
import functools
import types
from typing import Any, Callable, Optional

import numpy as np

from .errors import MooncakeError, UnsupportedDerivativeError, generated_location, refuse_not_callable
from .foreign import arguments, refuse_foreign
from .reverse import shadows
from .reverse.adjoints import AdjTuple
from .reverse.runtime import derived_reverse, may_write, rcall, reusable
from .rules import registry
from . import api_fast as _fast  # (the short paths of jvp and grad: it reads this module's helpers when called)
from . import hvp_fast as _hvp_fast  # (the short path of jvp(grad(f)): likewise)
from .tangents import NoTangent, materialize


from . import aliases, argument_overlap, held_state, lazy
from . import device_refusals
from .arrays import is_other_array
from .api_checks import (ComplexReverseError, TangentError, _Converter, _describe, _is_real_number,  # noqa: F401
                         _nondifferentiable, _refuse_complex)  # (others import these from here)
from . import tracebacks as _tb
from .adjoint_structure import to_user as _to_user  # noqa: F401  (hvp_core, nested_closures, api_fast read it here)
from .function_arguments import refuse_function_with_state as _refuse_function_with_state
from .differentiable import Differentiable, differentiate, _lookup  # noqa: F401  (the public names live here too)


class ArgnumsError(MooncakeError, ValueError, TypeError):
    """`argnums` is not an int or a tuple of distinct ints within the call's positional arguments.

    The message shows the argnums given, the number of positional arguments of the call, and the valid
    range; argnums counts positional arguments only, so pass an argument to differentiate positionally.

    Example:
        >>> def g(x):
        ...     return x * x
        >>> try:
        ...     mc.grad(g, argnums=1)(3.0)
        ... except mc.ArgnumsError as e:
        ...     print(e)
        grad(g, argnums=1): argument 1 is out of range for a call with 1 positional argument (valid: -1 to 0);
        argnums counts positional arguments only: pass the argument to differentiate positionally
    """


class NonScalarOutputError(MooncakeError, TypeError):
    """`grad` / `value_and_grad` of a function whose result is not a real scalar (a float, a NumPy float or
    a 0-d float array), or, with has_aux=True, not a pair `(value, aux)`.  For a vector-valued function use
    `mc.vjp` (a vector-Jacobian product) or `mc.jacrev` / `mc.jacfwd` (the whole Jacobian).

    Example:
        >>> def v(x):
        ...     return x * np.ones(2)
        >>> try:
        ...     mc.grad(v)(1.0)
        ... except mc.NonScalarOutputError as e:
        ...     print("mc.jacrev" in str(e))
        True
        >>> mc.jacrev(v)(1.0)
        array([1., 1.])
    """


@contextlib.contextmanager
def _refusals_located():
    """A rule's NotImplementedError (an option or operand whose derivative is not written) becomes an
    UnsupportedDerivativeError that names the user's line as well as what the rule said; so does CuPy's
    refusal of a host copy inside a helper (device_refusals.py)."""
    try:
        yield
    except NotImplementedError as e:
        if isinstance(e, MooncakeError):
            raise
        raise _located(e) from e
    except TypeError as e:
        refused = device_refusals.refusal(e)  # a helper not written for CuPy arrays: named
        if refused is None:
            raise
        raise refused from e


def _located(e: NotImplementedError) -> UnsupportedDerivativeError:
    where = generated_location(e.__traceback__)
    return UnsupportedDerivativeError(f"{where}: {e}" if where else str(e))


_OUTERMOST: list = []  # (rules/nested_cells' enter_outermost, leave_outermost, imported on first use: it imports api)


def _enter_outermost(f: Any) -> int:
    """Where no derivative runs yet, f's closure cells are those of the outermost derivative (rules/nested_cells.py:
    a closure made inside that captures them as numbers nothing rebinds has constants there)."""
    if not _OUTERMOST:
        from .rules.nested_cells import enter_outermost, leave_outermost

        _OUTERMOST.extend((enter_outermost, leave_outermost))
    return _OUTERMOST[0](f)


def _leave_outermost(depth: int) -> None:
    _OUTERMOST[1](depth)


def _as_function(f: Any) -> Any:
    return f.__wrapped_fn__ if isinstance(f, Differentiable) else f


def _name(f: Any) -> str:
    return getattr(f, "__qualname__", None) or getattr(f, "__name__", None) or repr(f)


# ---------------------------------------------------------------- caller-visible state


# The caller-visible state (shadows.snapshot / shadows.reapply): the pullback rolls objects back to
# their values on entry, and the post-call state the caller saw is put back after it.
_reachable_mutables = shadows.reachable_mutables
_snapshot = shadows.snapshot
_reapply = shadows.reapply


# ---------------------------------------------------------------- forward mode


def jvp(f: Callable, primals: tuple, tangents: tuple) -> tuple[Any, Any]:
    """Forward mode: the value of `f(*primals)` and its directional derivative along `tangents`.

    Args:
        f: a Python function (or method, lambda, closure, callable object) whose source is available.
        primals: a tuple, the positional arguments of f.
        tangents: a tuple, one tangent per primal, of the primal's structure: a float for a float, an
            array of the same shape for an array, a list/tuple/dict of tangents for a container, an
            mc.Tangent (or dict) of fields for an object; None (or mc.NoTangent()) means zero.
    Returns:
        `(y, y_dot)`: `y = f(*primals)` and `y_dot = J @ tangents`, of the structure of y.
    Raises:
        TangentError: a tangent of the wrong structure, shape or dtype.  UnsupportedSyntaxError,
        MissingRuleError, SourceUnavailableError: f cannot be differentiated (the message says why and
        what to do).  An exception your code raises is raised unchanged, with your file:line.

    Example:
        >>> def f(x, y):
        ...     return x * math.sin(y)
        >>> mc.jvp(f, (2.0, 0.5), (1.0, 0.0))      # d/dx
        (0.958..., 0.479...)
    """
    depth = _enter_outermost(f)
    try:
        refuse_not_callable(f, "mc.jvp")
        if not isinstance(primals, tuple) or not isinstance(tangents, tuple):
            raise TangentError("jvp(f, primals, tangents): primals and tangents must be tuples, e.g. "
                               "mc.jvp(f, (x,), (dx,))")
        if len(primals) != len(tangents):
            raise TangentError(f"jvp: {len(primals)} primals but {len(tangents)} tangents; give one tangent per "
                               f"primal (None for a zero tangent)")
        copied = None
        if isinstance(f, ValueAndGrad):  # (reverse mode inside: arrays f also holds, as copies)
            primals, copied = aliases.unaliased(f, primals)
        groups = argument_overlap.views_of_one_memory(primals)
        if groups:  # (an argument that is a view of another: their tangents views of one, argument_overlap.py)
            tangents = tuple(argument_overlap.tie(primals, list(tangents), groups, add=False))
        done = _hvp_fast.jvp_of_grad(f, primals, tangents) if type(f) is Grad else _fast.jvp_fast(f, primals, tangents)
        if done is None:
            y, dy, _, _ = _jvp(f, primals, tangents, {}, {})
            done = y, materialize(dy, y)
        if copied is not None:
            aliases.check_unwritten("jvp", _name(f), copied)
        return done
    except Exception as e:
        raise _tb.for_user(e)
    finally:
        _leave_outermost(depth)


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
    with _refusals_located(), lazy.guard(args, dargs, kwargs, dkwargs):
        y, dy = fcall(_as_function(f), NoTangent, tuple(args), dargs, kwargs, dkwargs)
    refuse_foreign(api, _name(f), [("the result", y)])
    return y, dy, dargs, dkwargs


def source(f: Callable, mode: str = "forward") -> str:
    """The text of the generated derivative module of `f`, to read (or to save and ship).

    Args:
        f: a function (or an `mc.differentiate` wrapper, or `mc.grad(g)`).
        mode: "forward" (the jvp module: `f__jvp(<primals>, <tangents>)` returns the value and the
            tangent) or "reverse" (`f__forward` runs f and records a tape, `f__pullback` walks back
            through it).  The module is the one the last call in that mode
            used (derivatives are specialised on argument types), else a generic one.
            For `f = mc.grad(g)` in "forward" mode (Hessian-vector products, `hessian`, `jvp(grad(g))`),
            it is reverse mode over g's generated forward code.
    Returns:
        the module's Python source, with a comment naming the line of your code each group comes from.
    Raises:
        MooncakeError (also a ValueError): an unknown mode; f has no generated module (a built-in such
        as np.sin, differentiated by a rule).  The errors of `jvp` / `grad` when f cannot be differentiated.

    Example:
        >>> def f(x):
        ...     return x * x
        >>> mc.grad(f)(3.0)
        6.0
        >>> "def f__pullback(" in mc.source(f, "reverse")   # print(...) it to read it
        True
    """
    try:
        if isinstance(f, ValueAndGrad) and mode == "forward":
            inner = differentiate(_as_function(f.f))._generated("forward").function
            return differentiate(inner).source("reverse")
        return differentiate(f).source(mode)
    except Exception as e:
        raise _tb.for_user(e)


# ---------------------------------------------------------------- reverse mode


def vjp(f: Callable, *primals: Any) -> tuple[Any, Callable]:
    """Reverse mode: the value of `f(*primals)` and a function that pulls cotangents back.

    Args:
        f: a Python function (or method, lambda, closure, callable object) whose source is available.
        *primals: the positional arguments of f.
    Returns:
        `(y, vjp_fn)`: `y = f(*primals)`; `vjp_fn(y_bar)` returns a tuple with one adjoint per primal
        (`y_bar @ J`), each of its primal's structure (mc.NoTangent() for ints, strings, ...).  `y_bar`
        has the structure of y (None or mc.NoTangent() for a zero part).  vjp_fn can be called many
        times, each call giving what a fresh mc.vjp would; afterwards the arguments are as the plain call
        left them.  Where f's generated code writes nothing its caller can reach (no in-place update,
        no append), nor do the calls it makes, every call reuses the one forward pass's tape; otherwise
        each call after the first runs the forward pass again from the arguments' state on entry
        (docs/how-it-works.md, "Calling a pullback again").
    Raises:
        TangentError (from vjp_fn): a cotangent of the wrong structure, shape or dtype.
        ReverseError: a rule not yet right for complex values met one (README "Complex numbers": the
        convention is x_bar = conj(f'(z)) y_bar; JAX's is its conjugate).  The errors of `jvp` when f cannot be
        differentiated; an exception your code raises is raised unchanged, with your file:line.

    Example:
        >>> y, vjp_fn = mc.vjp(lambda x: np.sin(x), np.array([0.0, 1.0]))
        >>> vjp_fn(np.ones(2))
        (array([1.        , 0.54030231]),)
    """
    try:
        refuse_not_callable(f, "mc.vjp")
        y, pullback = _vjp(f, primals, {})
    except Exception as e:
        raise _tb.for_user(e)

    def vjp_fn(out_bar: Any, *more: Any) -> tuple:
        try:
            if more:
                raise TangentError(f"vjp_fn takes one cotangent, of the structure of {_name(f)}'s result, but was "
                                   f"given {1 + len(more)}: for a result that is a tuple, pass one tuple, "
                                   f"vjp_fn((a_bar, b_bar))")
            return pullback(out_bar)[0]
        except Exception as e:
            raise _tb.for_user(e)

    vjp_fn.__doc__ = f"The pullback of {_name(f)} at the primals given to mc.vjp: vjp_fn(y_bar) -> one adjoint per primal."
    return y, vjp_fn


def _vjp(f: Callable, args: tuple, kwargs: dict, api: str = "vjp",
         on_restored: Optional[Callable] = None) -> tuple[Any, Callable]:
    """vjp with keyword arguments: `(y, pullback)`, `pullback(out_bar) -> (args_bar, kwargs_bar)`.

    For check_derivatives: `on_restored()` runs after the pullback, before the caller's objects are put
    back in their post-call state."""
    fn = _as_function(f)
    refuse_foreign(api, _name(fn), arguments(args, kwargs))
    args, copied = aliases.unaliased(fn, tuple(args))  # (arrays f also holds: as copies)
    ctx = shadows.Context()
    guard = functools.partial(lazy.guard, args, kwargs)  # (Dask values stay lazy: lazy.py)
    held = held_state.take_held(fn)  # (state f keeps between calls, for a second pullback's forward pass)
    depth = _enter_outermost(fn)
    try:
        with ctx, _refusals_located(), guard():
            y, pb = rcall(fn, tuple(args), kwargs)
    finally:
        _leave_outermost(depth)
    held_post = held_state.take_held(fn) if held is not None else None
    refuse_foreign(api, _name(fn), [("the result", y)])
    if copied is not None:
        aliases.check_unwritten(api, _name(fn), copied)
    post = _snapshot((*args, *kwargs.values(), y))
    # A pullback whose tape it may consume again (reverse/generate.reusable_tape: it writes nothing its caller can
    # reach and pops copies of its stacks) is kept and called again, in fresh adjoint storage each time; any other
    # is called once, and a later call runs the forward pass again from the entry state.
    state: dict = {"pb": pb, "pre": None, "reusable": reusable(pb), "calls": 0}

    def pullback(out_bar: Any) -> tuple:
        refuse_foreign(api, _name(fn), [("the cotangent", out_bar)])
        seed = _Converter("cotangent", api, symbolic_top=False)(out_bar, y, "the result", top=True)
        if state.get("broken"):
            raise MooncakeError(f"{api}: an earlier call of this pullback was interrupted, so the arguments' state "
                                "on entry is not known any more; call mc.vjp again")
        run, run_ctx = state["pb"], ctx
        try:
            if run is None:
                # The tape of the first forward pass is consumed: put the arguments back in their state on
                # entry and run the forward pass again, in fresh adjoint storage (a pullback can be called
                # many times).
                held_state.put_back(held)
                if state["pre"] is not None:
                    _reapply(state["pre"])
                run_ctx = shadows.Context()
                depth = _enter_outermost(fn)
                try:
                    with run_ctx, _refusals_located(), guard():
                        _, run = rcall(fn, tuple(args), kwargs)
                finally:
                    _leave_outermost(depth)
            elif state["calls"]:
                run_ctx = shadows.Context()  # (the tape kept: only the adjoint storage is new)
            state["calls"] += 1
            if not state["reusable"]:
                state["pb"] = None
            with run_ctx, _refusals_located(), lazy.guard(args, kwargs, seed):
                _, args_bar, kwargs_bar = run(seed)
        except BaseException:
            shadows.put_back(post, run_ctx)  # interrupted (Ctrl-C) or failed half way back: as the plain call leaves them
            state["broken"] = state["pre"] is None and may_write(run) if run is not None else True
            raise
        with run_ctx, _refusals_located(), lazy.guard(args, kwargs, seed):
            grads = tuple(_to_user(shadows.full_adjoint(p, g), p) for g, p in zip(args_bar, args))
            kgrads = {k: _to_user(shadows.full_adjoint(v, kwargs_bar.get(k, NoTangent)), v) for k, v in kwargs.items()}
        if on_restored is not None:
            on_restored()
        if state["pre"] is None and may_write(run):
            # The entry state, which the pullback restored: of the arguments, and of the other objects it
            # rolled back (a second pullback runs the forward pass again from there).
            state["pre"] = _snapshot((*args, *kwargs.values())) + [(x, shadows.state_of(x))
                                                                   for x, _ in shadows.touched_states(run_ctx)]
        shadows.put_back(post, run_ctx)
        held_state.put_back(held_post)
        return grads, kgrads

    return y, pullback


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


_NUMS: dict = {}  # (argnums given, positional arguments) -> ValueAndGrad._nums's answer: a new mc.grad(f) per call


class ValueAndGrad:
    """`mc.value_and_grad(f)`: a module-level callable, so it pickles (by reference to f) and can be
    sent to other processes; the receiving process builds (or loads from its cache) the derivative."""

    _api_name = "value_and_grad"

    def __init__(self, f: Callable, argnums: Any = 0, has_aux: bool = False) -> None:
        refuse_not_callable(f, f"mc.{self._api_name}")
        self.f, self.argnums, self.has_aux = f, argnums, has_aux
        _wraps(self, f)
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
        known = _NUMS.get((self.given, nargs))
        if known is not None:
            self._by_count[nargs] = known
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
        if len(_NUMS) > 1024:
            _NUMS.clear()
        known = self._by_count[nargs] = _NUMS[(self.given, nargs)] = (tuple(nums), frozenset(nums))
        return known

    def __call__(self, *args: Any, **kwargs: Any) -> tuple:
        depth = _enter_outermost(self.f)
        try:
            args, copied = aliases.unaliased(_as_function(self.f), args)  # (arrays f also holds: as copies)
            done = _fast.grad_fast(self, args) if not kwargs and not self.has_aux else None
            if done is None:
                with shadows.Context(), _refusals_located(), lazy.guard(args, kwargs):
                    done = self._value_and_grad(_as_function(self.f), args, kwargs)
            if copied is not None:
                aliases.check_unwritten(self._api_name, _name(self.f), copied)
            return done
        except Exception as e:
            raise _tb.for_user(e)
        finally:
            _leave_outermost(depth)

    def _value_and_grad(self, fn: Any, args: tuple, kwargs: dict) -> tuple:
        nums, wrt = self._nums(len(args))
        api = self._api_name
        refuse_foreign(api, _name(fn), arguments(args, kwargs, wrt.__contains__))
        for i in nums:
            _refuse_function_with_state(api, fn, i, args[i])
        same = argument_overlap.sharing(args, nums)
        if same:  # (an argument sharing memory with a differentiated one: differentiated too, argument_overlap.py)
            wrt = wrt | same
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
        value, aux = aux_pair(api, fn, out) if has_aux else (out, None)
        refuse_foreign(api, _name(fn), [("the result" + ("'s value" if has_aux else ""), value)])
        seed = self._seed(fn, value)
        try:
            _, args_bar, _ = pb(AdjTuple((seed, NoTangent)) if has_aux else seed)
        except BaseException:
            if writes:  # interrupted (Ctrl-C) or failed half way back: as the plain call leaves them
                shadows.put_back(post, shadows.current())
            raise
        grads = tuple(_to_user(shadows.full_adjoint(args[i], args_bar[i]), args[i]) for i in nums)
        if writes:
            shadows.put_back(post, shadows.current())  # (and objects reached otherwise: globals, closures)
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
        if is_other_array(value) and value.shape == () and value.dtype.kind in "iuf":
            return np.ones_like(value) if value.dtype.kind == "f" else NoTangent  # (in its library: a lazy Dask 1)
        if isinstance(value, (complex, np.complexfloating)) or (isinstance(value, np.ndarray) and value.dtype.kind == "c"):
            _refuse_complex(self._api_name, fn, [("the result", value)])
        if value is None:
            raise NonScalarOutputError(
                f"{self._api_name} of {_name(fn)} needs a real scalar result (a float or a 0-d float array), but "
                f"{_name(fn)} returned None: does it end without a `return`?")
        err = NonScalarOutputError(
            f"{self._api_name} of {_name(fn)} needs a real scalar result (a float or a 0-d float array), got "
            f"{_describe(value)}; for a vector-valued function use mc.vjp (a vector-Jacobian product) or mc.jacrev / "
            f"mc.jacfwd (the whole Jacobian), or reduce the result to a scalar (e.g. np.sum)")
        # (mc.hessian of a function with this result is the Jacobian of its Jacobian, JAX's layout: higher.py)
        err.nonscalar_result = isinstance(value, (np.ndarray, tuple, list, dict))
        raise err


class Grad(ValueAndGrad):
    """`mc.grad(f)`: like ValueAndGrad, returning only the gradient(s) (and aux with has_aux)."""

    _api_name = "grad"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            (value, g) = ValueAndGrad.__call__(self, *args, **kwargs)
        except Exception as e:
            raise _tb.for_user(e)
        return (g, value[1]) if self.has_aux else g


def aux_pair(api: str, f: Any, out: Any) -> tuple:
    """`(value, aux)` of the result of a function differentiated with has_aux=True, or an error that says so."""
    if not (isinstance(out, (tuple, list)) and len(out) == 2):
        raise NonScalarOutputError(f"{api}({_name(f)}, has_aux=True) needs f to return a pair (value, aux), but it "
                                   f"returned {_describe(out)}; return `value, aux`, or leave has_aux out")
    return out[0], out[1]


def _wraps(wrapper: Any, f: Any) -> None:
    """`functools.update_wrapper` without copying f's `__dict__` (it would overwrite the wrapper's fields)."""
    # (the same, without update_wrapper's loop: `mc.grad(f)(x)` pays it per call; only for a wrapper whose attributes
    # live in its __dict__, a Grad: a function's __name__ and __doc__ do not, and jacfwd(f) kept the name 'jacfwd(f)')
    if type(f) is types.FunctionType and type(wrapper) is not types.FunctionType:
        d = wrapper.__dict__
        for name in functools.WRAPPER_ASSIGNMENTS:
            d[name] = getattr(f, name)
        d["__wrapped__"] = f
        return
    try:
        functools.update_wrapper(wrapper, f, updated=())
    except (AttributeError, TypeError):
        pass


def value_and_grad(f: Callable, argnums: Any = 0, has_aux: bool = False) -> Callable:
    """Reverse mode: a function that returns f's value and its gradient, from one forward and one backward pass.

    Args:
        f: a function returning a real scalar (a float or a 0-d float array); with has_aux=True, a pair
            `(scalar, aux)` whose aux is returned as it is, not differentiated.
        argnums: the position (an int) or positions (a tuple of ints, negative ones from the end) of the
            positional arguments to differentiate with respect to.
        has_aux: whether f returns `(value, aux)`.
    Returns:
        `g(*args, **kwargs) -> (value, gradient)` (with has_aux: `((value, aux), gradient)`); the gradient
        has the structure of its argument, a tuple of them when argnums is a tuple.  g has f's `__name__`,
        `__doc__` and `__wrapped__`, and pickles by reference to f.
    Raises:
        ArgnumsError: argnums not an int / tuple of distinct ints, or out of range for the call.
        NonScalarOutputError: f's result is not a real scalar (use mc.vjp or mc.jacrev), or with
            has_aux=True not a pair.  ComplexReverseError, and the errors of `mc.jvp`.

    Example:
        >>> value, g = mc.value_and_grad(lambda x: np.sum(x ** 2))(np.array([1.0, 2.0]))
        >>> float(value), g
        (5.0, array([2., 4.]))
    """
    return ValueAndGrad(f, argnums, has_aux)


def grad(f: Callable, argnums: Any = 0, has_aux: bool = False) -> Callable:
    """Reverse mode: a function that returns the gradient of scalar-valued f.

    Args:
        f: a Python function (or method, lambda, closure, callable object) whose source is available,
            returning a real scalar (a float or a 0-d float array); with has_aux=True, `(scalar, aux)`.
        argnums: the position (an int) or positions (a tuple of ints, negative ones from the end) of the
            positional arguments to differentiate with respect to.
        has_aux: whether f returns `(value, aux)`; then g returns `(gradient, aux)`.
    Returns:
        `g(*args, **kwargs)`: the gradient at args, of the structure of the argument (float -> float,
        array -> array of its shape, list/tuple/dict -> the same container, object -> mc.Tangent of its
        fields, int/str/None -> mc.NoTangent()); a tuple of gradients when argnums is a tuple.  g has f's
        `__name__`, `__doc__` and `__wrapped__`; `mc.source(f, "reverse")` shows the generated code.
    Raises:
        ArgnumsError: argnums not an int / tuple of distinct ints, or out of range for the call.
        NonScalarOutputError: f's result is not a real scalar (use mc.vjp or mc.jacrev), or with
            has_aux=True not a pair.  ComplexReverseError: a complex result (use mc.vjp).  A complex
            argument's gradient is complex, dL/dx + i dL/dy for z = x + iy (JAX returns its conjugate).
        UnsupportedSyntaxError, MissingRuleError, SourceUnavailableError: f cannot be differentiated (the
        message says why and what to do).  An exception your code raises is raised unchanged, and the
        traceback shows your file:line.

    Example:
        >>> def f(x, y):
        ...     return x * x * y
        >>> mc.grad(f)(3.0, 2.0)
        12.0
        >>> mc.grad(f, argnums=(0, 1))(3.0, 2.0)
        (12.0, 9.0)
    """
    return Grad(f, argnums, has_aux)
