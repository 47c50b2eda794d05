"""Running a rule's template on real values, when a call can only be dispatched as the generated code runs.

The forward template that the transforms run with an IR builder (inline code) runs here
with `EagerBuilder` on `H` handles (a value and its tangent): `run_template`.  The reverse
template runs with the eager reverse builder of reverse/runtime.py through `run_vjp`,
which hands back adjoints of keyword operands by name.  `out=` is handled here once for
every rule: `run_template` (forward) and `rcall_into_out` (reverse) run the template on the
fresh result and write the buffer's tangent, or restore the buffer and route its adjoint;
a template never sees `out=`.

Apart from the registry, which only stores and finds rules: this is what the run-time
dispatchers (forward/runtime.py, reverse/runtime.py, reverse/shadows.py) do with one.
"""
from __future__ import annotations

import collections
import dataclasses
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from ..tangents import NoTangent, zero_tangent
from .call_binding import split_adjoints
from .fingerprints import qualified
from .registry import update

if TYPE_CHECKING:
    from .registry import Rule


def run_vjp(rule: Rule, fn: Any, builder: Any, g: Any, y: Any, args: tuple, kwargs: dict) -> tuple[list, dict]:
    """Run rule's reverse template on a call: (adjoints of args, adjoints of kwargs by name), None for zero.

    For the run-time callers (reverse/runtime.py, reverse/shadows.py): operands passed by keyword get
    their adjoints back by name instead of being dropped.  `builder` is the eager reverse builder and
    args/kwargs are its operand handles.
    """
    try:
        builder.keyword_adjoints = True
    except AttributeError:
        pass
    if not rule.complex_ok:  # (a real formula never runs on complex values: defcomplex)
        from ..reverse.adjoints import refuse_complex_rule

        refuse_complex_rule(qualified(fn), *(v.value if isinstance(v, H) else v for v in (y, *args, *kwargs.values())))
    pos, named = split_adjoints(rule.vjp(builder, g, y, *args, **kwargs))  # type: ignore[misc]
    pos += [None] * (len(args) - len(pos))
    return pos[:len(args)], named


def numpy_function(fn: Any) -> bool:
    """Is fn a NumPy function that reads a symbolic zero argument as 0.0 (through its `__array__`)? (Not a ufunc:
    NoTangent opts out of ufuncs, whose reflected operators keep it symbolic.)"""
    return not isinstance(fn, np.ufunc) and (getattr(fn, "__module__", None) or "").startswith("numpy")


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
        values = [self._v(a) for a in args]
        if any(v is NoTangent for v in values) and numpy_function(fn):  # (identity: `in` would compare arrays)
            # NumPy reads the symbolic zero as 0.0 (its __array__); an array library that refuses conversions
            # (CuPy) needs the number itself.
            values = [0.0 if v is NoTangent else v for v in values]
        return fn(*values, **{k: self._v(v) for k, v in kwargs.items()})

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
        # A symbolic zero met at run time (a helper's NoTangent result) is skipped exactly like the
        # None known when the template is built: the other operand is returned as it is, so a tangent
        # that aliases storage (`dc[key]` of getitem) keeps aliasing it.  (`NoTangent + t` copies t.)
        if a is None or a is NoTangent:
            return b
        if b is None or b is NoTangent:
            return a
        a, b = self._v(a), self._v(b)
        if type(a) is collections.deque and not isinstance(b, collections.deque):
            return collections.deque([*a, *b], a.maxlen)  # (`d += items` of a deque: its tangent extended)
        return a + b

    def sub(self, a: Any, b: Any) -> Any:
        if b is None or b is NoTangent:
            return a
        if a is None or a is NoTangent:
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


def run_template(rule: Rule, fn: Any, args: tuple, dargs: tuple, kwargs: dict, dkwargs: dict) -> tuple[Any, Any]:
    """Evaluate `fn` and its tangent by running the rule's template eagerly.

    A rule that mutates its arguments computes its tangent first, from the
    values before the call (its template does not see `y`).
    """
    if rule.zero:
        return fn(*args, **kwargs), NoTangent
    if kwargs.get("out") is not None:
        return _into_out(rule, fn, args, dargs, kwargs, dkwargs)
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


def _into_out(rule: Rule, fn: Any, args: tuple, dargs: tuple, kwargs: dict, dkwargs: dict) -> tuple[Any, Any]:
    """`fn(..., out=o)` (a ufunc, a reduction, cumsum, clip, ...): the tangent of the fresh result,
    written into o's tangent storage; the primal call itself writes o.  The template never sees out=
    (it would write the tangent into the user's buffer).  A ufunc's `where=` leaves the unselected
    entries of o, and of its tangent, as they were."""
    out = kwargs["out"]
    dout = dkwargs.get("out", NoTangent)
    rest = {k: v for k, v in kwargs.items() if k != "out"}
    single = isinstance(out, tuple) and len(out) == 1
    if isinstance(out, tuple) and not single:
        return _into_several_outs(rule, fn, args, dargs, kwargs, dkwargs)
    target, dtarget = (out[0], dout[0] if isinstance(dout, tuple) else dout) if single else (out, dout)
    masked = _is_ufunc(fn) and rest.get("where", True) is not True
    whole = {k: v for k, v in rest.items() if not (masked and k == "where")}  # masked: every entry, then selected
    hs = [H(a, d) for a, d in zip(args, dargs)]
    kh = {k: H(v, dkwargs.get(k, NoTangent)) for k, v in whole.items()}
    fresh_y = fn(*args, **whole)
    dy = rule.jvp(EagerBuilder(), fresh_y, *hs, **kh)  # type: ignore[misc]  # from the inputs before o changes
    if dy is not None and dy is not NoTangent:
        dy = _copy_if_shared(dy, dtarget)
    if masked:
        import numpy as np

        old_d = np.zeros(np.shape(target)) if dtarget is NoTangent else np.array(dtarget, copy=True)
        new_d = old_d * 0 if dy is None or dy is NoTangent else dy
        dy = np.where(rest["where"], new_d, old_d)
    y = fn(*args, **kwargs)
    dtarget = update(dtarget, dy) if dtarget is not NoTangent else (NoTangent if dy is None else dy)
    return y, (dtarget,) if single and isinstance(y, tuple) else dtarget


def _into_several_outs(rule: Rule, fn: Any, args: tuple, dargs: tuple, kwargs: dict, dkwargs: dict) -> tuple[Any, Any]:
    """`fn(..., out=(q, r))` of a ufunc with several outputs (np.divmod, np.modf, np.frexp): the tangents of the fresh
    results, each written into its output's tangent storage (as reverse/writes.py's _several_out_reverse undoes)."""
    out = kwargs["out"]
    rest = {k: v for k, v in kwargs.items() if k != "out"}
    if rest:
        raise NotImplementedError(f"derivative of {qualified(fn)} with several out= arrays and other keywords: assign "
                                  f"the results instead")
    douts = dkwargs.get("out", NoTangent)
    douts = douts if isinstance(douts, tuple) else (NoTangent,) * len(out)
    fresh_y = fn(*args)
    dy = rule.jvp(EagerBuilder(), fresh_y, *[H(a, d) for a, d in zip(args, dargs)])  # type: ignore[misc]
    parts = dy if isinstance(dy, tuple) else (NoTangent,) * len(out)
    parts = tuple(_copy_if_shared(p, d) for p, d in zip(parts, douts))
    y = fn(*args, **kwargs)
    return y, tuple(update(d, p) if d is not NoTangent and d is not None else (NoTangent if p is None else p)
                    for d, p in zip(douts, parts))


def _copy_if_shared(dy: Any, dtarget: Any) -> Any:
    import numpy as np

    if isinstance(dy, np.ndarray) and isinstance(dtarget, np.ndarray) and np.shares_memory(dy, dtarget):
        return dy.copy()
    return dy


def rcall_into_out(rule: Rule, fn: Any, args: tuple, kwargs: dict, builder: Any) -> tuple[Any, Callable]:
    """Reverse mode of `fn(*args, out=o, **kwargs)` (for a method: fn unbound, args[0] the object) for any rule with a reverse template (ufuncs,
    reductions, cumulative functions, clip, ...): `(y, pullback)`.

    The call writes o.  The pullback takes the adjoint collected in o's storage (o's new value was
    read through it), clears it, puts o's old value back, and returns the adjoints of the inputs as
    they were before the call (an input that is o itself, or a view of it, sees the old value).
    `pullback(g) -> (NoTangent, adjoints of args, adjoints of kwargs by name)`, out's own entry
    NoTangent: its adjoint lives in its storage.  `builder` is the eager reverse builder.
    """
    import numpy as np

    from ..reverse import shadows
    from ..reverse.adjoints import AdjDict, AdjTuple

    out = kwargs["out"]
    if isinstance(out, tuple) and len(out) != 1:
        raise NotImplementedError(f"reverse mode of {qualified(fn)} with several out= arrays: assign the results instead")
    target = out[0] if isinstance(out, tuple) else out
    if not isinstance(target, np.ndarray):
        raise NotImplementedError(f"reverse mode of {qualified(fn)}: out= must be a NumPy array")
    old = np.array(target, copy=True)
    rest = {k: v for k, v in kwargs.items() if k != "out"}
    y = fn(*args, **kwargs)
    where = rest.get("where", True) if _is_ufunc(fn) else True

    def pullback(g: Any) -> tuple:
        shadows.remember(target)
        sh = shadows.shadow(target)
        if g is not NoTangent and g is not None and not (isinstance(g, np.ndarray) and np.shares_memory(g, sh)):
            sh += g  # an adjoint handed to the call's result (not already in o's storage)
        gy = np.array(sh, copy=True)
        if where is True:
            sh[...] = 0
            target[...] = old
        else:
            gy = np.where(where, gy, 0.0)
            np.copyto(sh, 0.0, where=np.asarray(where))
            np.copyto(target, old, where=np.asarray(where))
        whole = {k: v for k, v in rest.items() if not (where is not True and k == "where")}  # gy is masked already
        y_val = fn(*args, **whole)
        hs = tuple(H(a, None) for a in args)
        kh = {k: H(v, None) for k, v in whole.items()}
        pos, named = run_vjp(rule, fn, builder, gy, H(y_val, None), hs, kh)
        pos = [NoTangent if c is None else c for c in pos]
        named = {k: (NoTangent if c is None else c) for k, c in named.items()}
        return NoTangent, AdjTuple(pos), AdjDict(named)

    return y, pullback


def _written_array(fn: Any, kwargs: dict) -> Any:
    """The one array `fn(..., out=o)` writes (o, or the single item of `out=(o,)`)."""
    out = kwargs["out"]
    if isinstance(out, tuple):
        if len(out) != 1:
            raise NotImplementedError(f"derivative of {qualified(fn)} with several out= arrays: assign the results instead")
        out = out[0]
    return out


def zero_derivative_into_out(fn: Any, args: tuple, kwargs: dict, dkwargs: dict) -> tuple[Any, Any]:
    """Forward mode of a call with a zero derivative that writes `out=o` (`y.round(out=y)`, found when the code
    runs; ir/ufunc_out.py rewrites the calls known when the code is made): o's tangent becomes zero where the call
    wrote (all of it, or where `where=` holds), as o's values are now the rounded ones."""
    import numpy as np

    y = fn(*args, **kwargs)
    dout = dkwargs.get("out", NoTangent)
    dtarget = dout[0] if isinstance(dout, tuple) and len(dout) == 1 else dout
    _written_array(fn, kwargs)
    where = kwargs.get("where", True) if _is_ufunc(fn) else True
    if dtarget is not NoTangent and dtarget is not None:
        if where is True:
            dtarget = update(dtarget, None)
        elif isinstance(dtarget, np.ndarray):
            np.copyto(dtarget, 0.0, where=np.asarray(where))
    return y, (dtarget,) if isinstance(y, tuple) else dtarget


def rcall_zero_into_out(fn: Any, args: tuple, kwargs: dict) -> tuple[Any, Callable]:
    """Reverse mode of a call with a zero derivative that writes `out=o` (found when the code runs): the pullback
    kills the adjoint collected in o's storage where the call wrote (what was written there does not depend on
    anything differentiably) and puts o's old values back; the operands get no adjoint."""
    import numpy as np

    from ..reverse import shadows
    from ..reverse.adjoints import AdjDict, AdjTuple

    target = _written_array(fn, kwargs)
    if not isinstance(target, np.ndarray):
        return fn(*args, **kwargs), lambda g: (NoTangent, AdjTuple([NoTangent] * len(args)), AdjDict())
    old = np.array(target, copy=True)
    where = kwargs.get("where", True) if _is_ufunc(fn) else True
    y = fn(*args, **kwargs)

    def pullback(g: Any) -> tuple:
        shadows.remember(target)
        sh = shadows.shadow(target)
        if where is True:
            sh[...] = 0
            target[...] = old
        else:
            np.copyto(sh, 0.0, where=np.asarray(where))
            np.copyto(target, old, where=np.asarray(where))
        return NoTangent, AdjTuple([NoTangent] * len(args)), AdjDict()

    return y, pullback
