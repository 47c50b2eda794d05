"""Run-time helpers that lowered `try` statements call, and their rules (try_stmt.py lowers).

Inside a `try` body every call that can raise is lowered to

    r = guarded_call(f, (args...), {kwargs...})    # f's value, or a Raised holding the exception
    if raised(r): exc = caught(r); goto the handlers
    ... r is f's value from here on

so an exception is an ordinary branch of the IR: both transforms follow the path that ran, and
exactly the statements that completed before the raise are differentiated.  `guarded_call`'s
rules run f's own rule (`fcall` / `rcall`) and catch what it raises:

* An error of mooncake_ast itself (MooncakeError: a missing rule, a refusal) is never caught: a
  handler must not turn "cannot differentiate" into "take the other path".
* When f is a rule (a primitive) and its derivative code raised, the plain call is run again:
  if it succeeds, the exception came from the rule, not from the user's code, and it is reported
  (a handler would otherwise hide it and differentiate a path the plain call never took).
* Reverse mode: when f is Python code differentiated by us and raised part-way, the statements it
  ran before the raise have no pullback.  That is right only when they wrote nothing the caller
  can reach (their results died with the raise); f's derived rule says whether it may write
  (`may_write`), and if it may, the call is refused (UnsupportedDerivativeError) rather than
  giving a gradient that misses those writes.  Forward mode needs no such check: its tangents
  were updated statement by statement alongside the values.
"""
from __future__ import annotations

import functools
import types
from typing import Any

from ..errors import MooncakeError, UnsupportedDerivativeError
from ..tangents import NoTangent


class Raised:
    """What `guarded_call` returns when the call raised: the exception, to be tested and caught."""

    __slots__ = ("exc",)

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc

    def __repr__(self) -> str:
        return f"Raised({self.exc!r})"


def guarded_call(f: Any, args: tuple, kwargs: dict) -> Any:
    """`f(*args, **kwargs)`, or a Raised holding what it raised (the plain call, without derivatives)."""
    try:
        return f(*args, **kwargs)
    except MooncakeError:
        raise
    except BaseException as e:  # noqa: BLE001  (handlers decide what they catch; the rest is re-raised)
        return Raised(e)


def raised(r: Any) -> bool:
    return type(r) is Raised


def caught(r: Raised) -> BaseException:
    return r.exc


def exception_instance(exc: Any) -> BaseException:
    """What `raise exc` raises: an instance (a class is called with no arguments), as Python does."""
    if isinstance(exc, type) and issubclass(exc, BaseException):
        exc = exc()
    if not isinstance(exc, BaseException):
        return TypeError("exceptions must derive from BaseException")
    return exc


def exception_matches(exc: BaseException, types_: Any) -> bool:
    """`except types_:` matches exc (a class or a tuple of classes, as Python checks them)."""
    if isinstance(types_, tuple):
        ok = all(isinstance(t, type) and issubclass(t, BaseException) for t in types_)
    else:
        ok = isinstance(types_, type) and issubclass(types_, BaseException)
    if not ok:
        raise TypeError("catching classes that do not inherit from BaseException is not allowed")
    return isinstance(exc, types_)


def reraise(exc: BaseException) -> BaseException:
    """The exception a propagation re-raises (the identity; named so generated code reads as what it does)."""
    return exc


# ---------------------------------------------------------------- rules

def _is_primitive(f: Any) -> bool:
    """Is f run by a rule, not differentiated as Python code?  (A partial is what it wraps.)"""
    from ..rules import registry

    if isinstance(f, functools.partial):
        return _is_primitive(f.func)

    try:
        if registry.lookup(f) is not None:
            return True
    except TypeError:
        pass
    if isinstance(f, (types.FunctionType, types.MethodType)):
        return False
    if isinstance(f, type):
        return not isinstance(getattr(f, "__init__", None), types.FunctionType)
    return not isinstance(getattr(type(f), "__call__", None), types.FunctionType)


def _confirm(f: Any, args: tuple, kwargs: dict, err: BaseException) -> None:
    """f is a primitive whose derivative raised `err`: make sure the plain call raises too.  (Not where the
    call cannot be repeated: an argument is an iterator, which the first call consumed; nor for a
    zero-derivative rule, whose derivative is the plain call itself.)"""
    if not _is_primitive(f) or any(hasattr(a, "__next__") for a in (*args, *kwargs.values())):
        return
    from ..rules import registry

    try:
        rule = registry.lookup(f)
    except TypeError:
        rule = None
    if rule is not None and rule.zero:
        return
    try:
        f(*args, **kwargs)
    except BaseException:  # noqa: BLE001
        return
    from ..errors import qualified_name

    raise MooncakeError(
        f"the derivative rule of {qualified_name(f)} raised {type(err).__name__}: {err}, where the plain call "
        "does not; inside a `try` this would be taken for the user's exception (please report it)") from err


def _python_function(f: Any, args: tuple) -> Any:
    """(the Python function f runs, the arguments it gets) for f differentiated from source; else (None, args)."""
    if isinstance(f, types.FunctionType):
        return f, args
    if isinstance(f, types.MethodType) and isinstance(f.__func__, types.FunctionType):
        return f.__func__, (f.__self__, *args)
    call = getattr(type(f), "__call__", None)
    if isinstance(call, types.FunctionType) and not isinstance(f, type):
        return call, (f, *args)
    return None, args


def frule_guarded(args: tuple, dargs: tuple, **kw: Any) -> tuple:
    from ..forward.runtime import fcall

    f, a, k = args
    df, da, dk = dargs
    try:
        return fcall(f, df, a, da, k, dk)
    except MooncakeError:
        raise
    except BaseException as e:  # noqa: BLE001
        _confirm(f, a, k, e)
        return Raised(e), NoTangent


def rrule_guarded(f: Any, a: tuple, k: dict) -> tuple:
    from ..reverse.adjoints import AdjDict, AdjTuple
    from ..reverse.runtime import rcall

    try:
        return rcall(f, a, k)
    except MooncakeError:
        raise
    except BaseException as e:  # noqa: BLE001
        _confirm(f, a, k, e)
        _refuse_partial_writes(f, a, k, e)

        def pullback(g: Any) -> tuple:
            return NoTangent, AdjTuple([NoTangent] * len(a)), AdjDict()

        return Raised(e), pullback


def _refuse_partial_writes(f: Any, a: tuple, k: dict, err: BaseException) -> None:
    """Reverse mode: f (Python code) raised part-way; refuse if what it ran may have written caller-visible state."""
    if _is_primitive(f):
        return  # a rule's call is all or nothing
    fn, full = _python_function(f, a)
    may = True
    if fn is not None:
        from ..reverse.runtime import derived_rule

        try:
            rule, _, _ = derived_rule(fn, full, k)
            may = bool(rule.gen.may_write)
        except Exception:  # noqa: BLE001  (cannot tell: refuse)
            may = True
    if may:
        from ..errors import qualified_name
        from .stmt_ops import _where

        raise UnsupportedDerivativeError(
            f"reverse mode: {qualified_name(f)} raised {type(err).__name__} part-way, inside a `try`{_where()}, after "
            "running code that may have written to objects the caller can reach; the pullback of that partial run "
            "is not known.  Test for the condition before the call instead of catching the exception, or use "
            "forward mode (mc.jvp / mc.jacfwd), which follows it") from err


ZERO_DERIVATIVE = (raised, caught, exception_instance, exception_matches, reraise)


def register_rules() -> None:
    """Called by rules/__init__.py with the built-in tables."""
    from ..rules.registry import defrrule_at_run_time
    from ..rules.registry import defrule, defzero

    defzero(*ZERO_DERIVATIVE)
    defrule(guarded_call, frule_guarded)
    defrrule_at_run_time(guarded_call, rrule_guarded)
