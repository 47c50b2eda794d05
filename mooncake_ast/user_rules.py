"""Registering hand-written rules: `@mc.frule(fn)`, `@mc.rrule(fn)`, `mc.zero_derivative(fn)`.

JAX's `custom_jvp`/`custom_vjp` semantics: a callable with a user rule is never traced
into; the rule is used wherever the callable is called, in derived code too.  Registering
or changing a rule invalidates every derivative that could have used the old one.

    @mc.frule(my_fn)
    def my_fn_jvp(primals, tangents):          # tangents: one per positional argument
        x, = primals; dx, = tangents
        return my_fn(x), 2.0 * dx

    @mc.rrule(my_fn)
    def my_fn_vjp(x):                           # the same arguments as my_fn
        y = my_fn(x)
        return y, lambda y_bar: (2.0 * y_bar,)  # one adjoint per positional argument
"""
from __future__ import annotations

from typing import Any, Callable

from .errors import UserRuleError, qualified_name, refuse_not_callable
from .rules import call_binding, fingerprints, registry


def frule(fn: Any) -> Callable[[Callable], Callable]:
    """Register a hand-written forward-mode rule for `fn` (JAX's custom_jvp); a decorator.

    Args:
        fn: the callable the rule is for (a function, builtin, NumPy ufunc, method of a class...).
    Returns:
        a decorator for `rule(primals, tangents, **kwargs) -> (fn(*primals, **kwargs), tangent_out)`:
        `primals` is the tuple of positional arguments, `tangents` one tangent per positional argument
        (mc.NoTangent() for a non-differentiable one); keyword arguments are passed as they are.
        The rule is returned unchanged, and used wherever fn is called, in derived code too; fn is
        never traced into.  Registering again replaces the rule; derivatives that used the old one
        are made again.
    Raises:
        NotCallableError: fn, or the rule, is not callable (when registering).
        UserRuleError (when a derivative runs): the rule does not return a pair; the message names the
        rule's file:line.

    Example:
        >>> def softplus(x):
        ...     return np.log1p(np.exp(x))
        >>> @mc.frule(softplus)
        ... def softplus_jvp(primals, tangents):
        ...     (x,), (dx,) = primals, tangents
        ...     return softplus(x), dx / (1.0 + np.exp(-x))
    """

    refuse_not_callable(fn, "mc.frule", "the callable the rule is for", "write @mc.frule(my_fn) above the rule's def")

    def register(rule: Callable) -> Callable:
        refuse_not_callable(rule, f"mc.frule({qualified_name(fn)})", "the rule, a function",
                            "use it as a decorator, above the rule's def")
        r = registry._entry(fn)
        r.user_frule, r.jvp, r.zero = _forward_adapter(fn, rule), None, False
        r.fingerprint = fingerprints._fingerprint(rule)
        registry.bump_version()
        return rule

    return register


def rrule(fn: Any) -> Callable[[Callable], Callable]:
    """Register a hand-written reverse-mode rule for `fn` (JAX's custom_vjp); a decorator.

    Args:
        fn: the callable the rule is for.
    Returns:
        a decorator for `rule(*args, **kwargs) -> (fn(*args, **kwargs), pullback)`, where
        `pullback(y_bar)` returns a tuple with one adjoint per positional argument, in order
        (mc.NoTangent() for one that is not differentiable).  The rule is returned unchanged and used
        wherever fn is called in reverse mode; fn is never traced into.  A function with only an
        rrule cannot be differentiated in forward mode (register an frule too).
    Raises:
        NotCallableError: fn, or the rule, is not callable (when registering).
        UserRuleError (when a derivative runs): the rule does not return `(value, pullback)`, or the
        pullback returns the wrong number of adjoints; the message names the rule's file:line.

    Example:
        >>> def clip_grad(x):
        ...     return x
        >>> @mc.rrule(clip_grad)
        ... def clip_grad_vjp(x):
        ...     return x, lambda y_bar: (np.clip(y_bar, -1.0, 1.0),)
    """

    refuse_not_callable(fn, "mc.rrule", "the callable the rule is for", "write @mc.rrule(my_fn) above the rule's def")

    def register(rule: Callable) -> Callable:
        refuse_not_callable(rule, f"mc.rrule({qualified_name(fn)})", "the rule, a function",
                            "use it as a decorator, above the rule's def")
        r = registry._entry(fn)
        r.user_rrule, r.vjp, r.zero = _reverse_adapter(fn, rule), None, False
        r.fingerprint = fingerprints._fingerprint(r.user_frule, rule)
        registry.bump_version()
        return rule

    return register


def zero_derivative(*fns: Any) -> None:
    """Declare callables non-differentiable: their results get zero tangents and adjoints.

    Use it for callables whose results do not depend smoothly on their inputs (random numbers,
    counters, logging, lookups) and that have no source to read, instead of writing a rule.
    `mc.grad` of a function that calls them treats their results as constants.

    Args:
        *fns: the callables.
    Returns:
        None; the declaration holds for this process, for every derivative made after it (a derivative
        already generated that calls one of them is regenerated: the rules are part of the cache key).
    Raises:
        NotCallableError: one of them is not callable.

    Example:
        >>> import time
        >>> mc.zero_derivative(time.perf_counter)
        >>> def timed(x):
        ...     start = time.perf_counter()
        ...     return x * x + 0.0 * start
        >>> mc.grad(timed)(3.0)
        6.0
    """
    for fn in fns:
        refuse_not_callable(fn, "mc.zero_derivative", "callables", "pass the functions themselves, not their values")
    registry.defzero(*fns)
    registry.bump_version()


def _where(rule: Callable) -> str:
    """`file.py:12` of a rule's definition (its name when it has no code object)."""
    code = getattr(rule, "__code__", None)
    return f"{code.co_filename}:{code.co_firstlineno}" if code is not None else repr(rule)


def _describe(x: Any) -> str:
    if isinstance(x, (tuple, list)):
        return f"a {type(x).__name__} of length {len(x)}"
    return f"a value of type {type(x).__name__}"


def _forward_adapter(fn: Any, rule: Callable) -> Callable:
    """The rule as the runtime calls it, checked: it must return `(value, tangent)`."""

    def call(primals: tuple, tangents: tuple, **kwargs: Any) -> tuple:
        out = rule(primals, tangents, **kwargs)
        if not (isinstance(out, tuple) and len(out) == 2):
            raise UserRuleError(
                f"{_where(rule)}: the frule {getattr(rule, '__name__', rule)} of {qualified_name(fn)} returned "
                f"{_describe(out)}; a forward rule returns a pair `(fn(*primals), tangent of the result)`")
        return out

    call.__wrapped__ = rule  # type: ignore[attr-defined]
    return call


def _reverse_adapter(fn: Any, rule: Callable) -> Callable:
    """The rule as the runtime calls it, checked: it must return `(value, pullback)`, and the pullback one
    adjoint per positional argument of the call (plus, optionally, a trailing KwAdj of keyword adjoints)."""
    name = getattr(rule, "__name__", repr(rule))

    def call(*args: Any, **kwargs: Any) -> tuple:
        out = rule(*args, **kwargs)
        if not (isinstance(out, tuple) and len(out) == 2 and callable(out[1])):
            raise UserRuleError(
                f"{_where(rule)}: the rrule {name} of {qualified_name(fn)} returned {_describe(out)}; a reverse rule "
                f"returns a pair `(fn(*args), pullback)` whose pullback maps the result's cotangent to the adjoints "
                f"of the arguments")
        y, pb = out

        def pullback(y_bar: Any) -> Any:
            grads = pb(y_bar)
            items = list(grads) if isinstance(grads, (tuple, list)) else [grads]
            if items and isinstance(items[-1], call_binding.KwAdj):
                items.pop()
            if len(items) != len(args):
                raise UserRuleError(
                    f"{_where(rule)}: the pullback of the rrule {name} of {qualified_name(fn)} returned "
                    f"{len(items)} adjoint{'s' if len(items) != 1 else ''} for a call with {len(args)} positional "
                    f"argument{'s' if len(args) != 1 else ''}; return a tuple with one adjoint per positional argument, "
                    f"in order (mc.NoTangent() for an argument that is not differentiable)")
            return grads

        return y, pullback

    call.__wrapped__ = rule  # type: ignore[attr-defined]
    return call
