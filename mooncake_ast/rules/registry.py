"""The rule registry: one entry per callable (or per `(type, method name)`).

A forward rule is a *template*: a function `jvp(t, y, *args, **kwargs)` that
builds the tangent of `y = fn(*args, **kwargs)` from the operands through a
small builder `t` (`t.d(x)` is x's tangent or None for zero, `t.call`,
`t.add`, `t.mul`, `t.lin`, ...).  The same template serves twice:

* at transform time with `IRBuilder` (forward/transform.py), where operands
  are IR values and the tangent becomes inline code (`dy = math.cos(x) * dx`);
* at run time with `EagerBuilder` (below), where operands are real values, for
  calls that can only be dispatched when the generated code runs.

Zero-derivative callables give no tangent.  `mutates` lists the argument
positions a callable writes (activity analysis needs it).  User rules
(`mc.frule`) take `(primals, tangents)` and return `(out, out_tangent)`.
"""
from __future__ import annotations

import dataclasses
import hashlib
import inspect
from typing import Any, Callable, Optional

from ..tangents import NoTangent, fresh, zero_tangent

Template = Callable[..., Any]


@dataclasses.dataclass
class Rule:
    key: Any
    jvp: Optional[Template] = None
    zero: bool = False
    mutates: tuple = ()
    user_frule: Optional[Callable] = None
    user_rrule: Optional[Callable] = None
    vjp: Optional[Callable] = None
    fingerprint: str = ""


_RULES: dict[Any, Rule] = {}
_VERSION = [0]  # bumped on every user registration; part of derived-rule cache keys


def _fingerprint(*parts: Any) -> str:
    h = hashlib.sha256()
    for p in parts:
        if callable(p):
            try:
                p = inspect.getsource(p)
            except (OSError, TypeError):
                p = getattr(p, "__qualname__", repr(p))
        h.update(repr(p).encode())
    return h.hexdigest()[:16]


def _entry(key: Any) -> Rule:
    rule = _RULES.get(key)
    if rule is None:
        rule = _RULES[key] = Rule(key)
    return rule


def defjvp(fn: Any, template: Template, *, mutates: tuple = ()) -> None:
    """Register the forward template of `fn`."""
    r = _entry(fn)
    r.jvp, r.zero, r.mutates = template, False, mutates
    r.fingerprint = _fingerprint(template, mutates)


def defvjp(fn: Any, template: Template) -> None:
    """Register the reverse template of `fn`: `vjp(t, g, y, *args, **kwargs)` returns one
    adjoint contribution per positional argument (None for zero)."""
    r = _entry(fn)
    r.vjp = template
    r.fingerprint = _fingerprint(r.jvp, template, r.mutates)


def defvjp_method(cls: type, name: str, template: Template) -> None:
    defvjp((cls, name), template)


def defmethod(cls: type, name: str, template: Template, *, mutates: tuple = ()) -> None:
    """Register the template of the method `cls.name` (the template's first operand is self)."""
    defjvp((cls, name), template, mutates=mutates)


def defzero(*fns: Any, mutates: tuple = ()) -> None:
    """Register callables whose outputs do not depend differentiably on their inputs."""
    for fn in fns:
        r = _entry(fn)
        r.zero, r.jvp, r.mutates = True, None, mutates
        r.fingerprint = "zero"


def defrule(fn: Any, frule: Callable, *, mutates: tuple = ()) -> None:
    """Register a run-time forward rule `frule(args, dargs, **kwargs) -> (y, dy)` (no template)."""
    r = _entry(fn)
    r.user_frule, r.jvp, r.zero, r.mutates = frule, None, False, mutates
    r.fingerprint = _fingerprint(frule)


def lookup(fn: Any) -> Optional[Rule]:
    try:
        rule = _RULES.get(fn)
    except TypeError:  # unhashable callable
        return None
    if rule is not None:
        return rule
    owner = getattr(fn, "__self__", None)
    name = getattr(fn, "__name__", None)
    if owner is not None and name is not None and not isinstance(owner, type) and not inspect.ismodule(owner):
        for cls in type(owner).__mro__:
            rule = _RULES.get((cls, name))
            if rule is not None:
                return rule
    return None


def all_rules() -> dict[Any, Rule]:
    return dict(_RULES)


def registry_version() -> int:
    return _VERSION[0]


def bump_version() -> None:
    _VERSION[0] += 1


# ---------------------------------------------------------------- builders


class EagerBuilder:
    """Runs a template on real values (run-time dispatch).  Operands are `H` handles."""

    def d(self, h: Any) -> Any:
        if isinstance(h, H):
            return None if h.tangent is NoTangent else h.tangent
        return None

    @staticmethod
    def _v(x: Any) -> Any:
        return x.value if isinstance(x, H) else x

    def value(self, x: Any) -> Any:
        return self._v(x)

    def is_num(self, x: Any) -> bool:
        import numbers

        return isinstance(self._v(x), numbers.Number)

    def call(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        return fn(*(self._v(a) for a in args), **{k: self._v(v) for k, v in kwargs.items()})

    def lin(self, fn: Any, dx: Any, *args: Any, **kwargs: Any) -> Any:
        if dx is None:
            return None
        return self.call(fn, dx, *args, **kwargs)

    def linr(self, fn: Any, x: Any, dy: Any) -> Any:
        """`fn(x, dy)`, linear in its second argument (e.g. `x @ dy`)."""
        return None if dy is None else self.call(fn, x, dy)

    def dz(self, h: Any) -> Any:
        """The tangent of `h`, or the symbolic zero NoTangent (for building containers)."""
        d = self.d(h)
        return NoTangent if d is None else d

    def add(self, a: Any, b: Any) -> Any:
        if a is None:
            return b
        if b is None:
            return a
        return self._v(a) + self._v(b)

    def sub(self, a: Any, b: Any) -> Any:
        if b is None:
            return a
        if a is None:
            return -self._v(b)
        return self._v(a) - self._v(b)

    def mul(self, a: Any, b: Any) -> Any:
        if a is None or b is None:
            return None
        return self._v(a) * self._v(b)

    def div(self, a: Any, b: Any) -> Any:
        if a is None:
            return None
        return self._v(a) / self._v(b)

    def neg(self, a: Any) -> Any:
        return None if a is None else -self._v(a)

    def zero_like(self, x: Any) -> Any:
        return zero_tangent(self._v(x))

    def update(self, dx: Any, new: Any) -> Any:
        return update(dx, new)

    def const(self, v: Any) -> Any:
        return v


@dataclasses.dataclass
class H:
    """An operand of an eager template: a value and its tangent."""

    value: Any
    tangent: Any


def update(dx: Any, new: Any) -> Any:
    """The tangent after an in-place operation: written into `dx` if `dx` is mutable storage."""
    if new is None:
        new = NoTangent
    if dx is new:
        return dx
    try:
        import numpy as np

        if isinstance(dx, np.ndarray):
            if new is NoTangent:
                dx[...] = 0
            else:
                dx[...] = new
            return dx
    except ValueError:
        return fresh(new)
    if isinstance(dx, list) and isinstance(new, list):
        dx[:] = new
        return dx
    if isinstance(dx, dict) and isinstance(new, dict):
        dx.clear()
        dx.update(new)
        return dx
    return new


def run_template(rule: Rule, fn: Any, args: tuple, dargs: tuple, kwargs: dict, dkwargs: dict) -> tuple[Any, Any]:
    """Evaluate `fn` and its tangent by running the rule's template eagerly.

    A rule that mutates its arguments computes its tangent first, from the
    values before the call (its template does not see `y`).
    """
    if rule.zero:
        return fn(*args, **kwargs), NoTangent
    if "out" in kwargs and _is_ufunc(fn):
        return _ufunc_out(rule, fn, args, dargs, kwargs, dkwargs)
    hs = [H(a, d) for a, d in zip(args, dargs)]
    kh = {k: H(v, dkwargs.get(k, NoTangent)) for k, v in kwargs.items()}
    if rule.mutates:
        dy = rule.jvp(EagerBuilder(), None, *hs, **kh)  # type: ignore[misc]
        y = fn(*args, **kwargs)
    else:
        y = fn(*args, **kwargs)
        dy = rule.jvp(EagerBuilder(), y, *hs, **kh)  # type: ignore[misc]
    return y, (NoTangent if dy is None else dy)


def _is_ufunc(fn: Any) -> bool:
    import numpy as np

    return isinstance(fn, np.ufunc)


def _ufunc_out(rule: Rule, fn: Any, args: tuple, dargs: tuple, kwargs: dict, dkwargs: dict) -> tuple[Any, Any]:
    """`ufunc(a, b, out=o)`: the tangent of the fresh result, then written into o's tangent storage."""
    out = kwargs["out"]
    dout = dkwargs.get("out", NoTangent)
    rest = {k: v for k, v in kwargs.items() if k != "out"}
    hs = [H(a, d) for a, d in zip(args, dargs)]
    fresh_y = fn(*args, **rest)
    dy = rule.jvp(EagerBuilder(), fresh_y, *hs)  # type: ignore[misc]
    single = isinstance(out, tuple) and len(out) == 1
    target, dtarget = (out[0], dout[0] if isinstance(dout, tuple) else dout) if single else (out, dout)
    y = fn(*args, **kwargs)
    dtarget = update(dtarget, dy) if dtarget is not NoTangent else dy
    return y, (dtarget,) if single and isinstance(y, tuple) else dtarget
