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

from .rules import registry


def frule(fn: Any) -> Callable[[Callable], Callable]:
    """Decorator: `rule(primals, tangents, **kwargs) -> (fn(*primals, **kwargs), tangent)`."""

    def register(rule: Callable) -> Callable:
        r = registry._entry(fn)
        r.user_frule, r.jvp, r.zero = _forward_adapter(rule), None, False
        r.fingerprint = registry._fingerprint(rule)
        registry.bump_version()
        return rule

    return register


def rrule(fn: Any) -> Callable[[Callable], Callable]:
    """Decorator: `rule(*args, **kwargs) -> (fn(*args, **kwargs), pullback)`, pullback(y_bar) -> one adjoint per argument."""

    def register(rule: Callable) -> Callable:
        r = registry._entry(fn)
        r.user_rrule, r.vjp, r.zero = rule, None, False
        r.fingerprint = registry._fingerprint(r.user_frule, rule)
        registry.bump_version()
        return rule

    return register


def zero_derivative(*fns: Any) -> None:
    """Declare callables non-differentiable: their results get zero tangents and adjoints."""
    registry.defzero(*fns)
    registry.bump_version()


def _forward_adapter(rule: Callable) -> Callable:
    def call(primals: tuple, tangents: tuple, **kwargs: Any) -> tuple:
        return rule(primals, tangents, **kwargs)

    call.__wrapped__ = rule  # type: ignore[attr-defined]
    return call
