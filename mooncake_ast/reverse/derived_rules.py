"""Derived reverse rules: the pullback of a call of a Python function without a rule, generated from its source.

`derived_rule` finds (or generates, through reverse/generate.py) the rule for a call's argument kinds -- cached per
code object, globals and kinds (`_DERIVED`, and `_FAST` without building the full key) and made stale when a global
it read is rebound or a rule is registered (`DerivedReverse.stale`); `derived_reverse` runs its forward pass and
wraps its pullback, which hands back the adjoints of the parameters as the call bound them (`_unbind`), defaults
included (`_defaults_adjoint`).  The run-time dispatcher (reverse/runtime.rcall) calls it for user functions."""
from __future__ import annotations

import builtins
import types
from typing import Any

import numpy as np

from .. import prebuilt, reused_tapes
from ..errors import MissingRuleError, SourceUnavailableError
from ..forward.object_flow import generating
from ..forward.runtime import _code_signature
from ..rules import registry
from ..rules.registry import _VERSION as _REGISTRY_VERSION  # read per call: registry_version() without the call
from ..tangents import NoTangent
from .adjoints import AdjDict, AdjTuple
from .argument_kinds import kinds_of

def may_write(pullback: Any) -> bool:
    """Can the call behind this pullback have written to objects its caller can reach?"""
    return getattr(pullback, "may_write", True)


class DerivedReverse:
    def __init__(self, fn: types.FunctionType, kinds: dict[str, str], quiet: tuple = ()) -> None:
        from ..cache import GENERATION_LOCK
        from .generate import generate_reverse

        # the key (it reads sources) and the module are made one thread at a time (see GENERATION_LOCK)
        with GENERATION_LOCK, generating(kinds):  # the resolver gives operators on user objects to rcall
            self.gen = generate_reverse(fn, kinds, quiet)
        self.registry_version = registry.registry_version()

        self._checks = tuple(self.gen.bindings.items())

    def stale(self, fn: types.FunctionType) -> bool:
        """Has a global the derivative read been rebound, or a rule been registered, since it was made?"""
        if self.registry_version != _REGISTRY_VERSION[0]:
            return True
        g = fn.__globals__
        for name, obj in self._checks:
            found = g.get(name, _UNBOUND)
            if found is not obj and (found is not _UNBOUND or getattr(builtins, name, None) is not obj):
                return True
        return False


_UNBOUND = object()
_WRITTEN_AHEAD = prebuilt.REVERSE  # (empty unless a module `mooncake-ast generate` wrote was imported)
_DERIVED: dict[tuple, DerivedReverse] = {}
_FAST: dict[tuple, DerivedReverse] = {}  # (code, argument kinds, wrt) -> rule, without building the full key
LATEST: dict = {}  # code -> the rule used most recently (what `mc.source(f, "reverse")` shows)


_SIGNATURES: dict = {}


def derived_reverse(fn: types.FunctionType, args: tuple, kwargs: dict, wrt: Any = None) -> tuple:
    """`(fn(*args, **kwargs), pullback)` through the reverse rule derived from fn's source."""
    rule, primals, sig_params = derived_rule(fn, args, kwargs, wrt)
    gen = rule.gen
    out = gen.forward(fn, *primals) if gen.takes_self else gen.forward(*primals)
    return _with_pullback(fn, gen, out, sig_params, args, kwargs)


def derived_rule(fn: types.FunctionType, args: tuple, kwargs: dict, wrt: Any = None, quiet: tuple = ()) -> tuple:
    """(the derived rule for this call's argument kinds, the bound primals, fn's parameters)."""
    sig = _SIGNATURES.get(fn.__code__)
    if sig is None:
        params = list(_code_signature(fn).parameters.values())
        simple = all(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)
        npos = sum(1 for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))
        # keyword-only parameters after the positional ones, none of them *args / **kwargs (generated
        # code's `*, _mc=_mc`): a positional call binds them to their defaults without inspect
        kwonly = tuple(p.name for p in params[npos:]) if all(p.kind is p.KEYWORD_ONLY for p in params[npos:]) else None
        sig = _SIGNATURES[fn.__code__] = (params, simple, kwonly)
    sig_params, simple, kwonly = sig
    if simple and not kwargs and len(args) == len(sig_params):
        primals = tuple(args)
    elif simple and not kwargs and len(args) < len(sig_params) and len(fn.__defaults__ or ()) >= len(sig_params) - len(args):
        primals = tuple(args) + fn.__defaults__[len(fn.__defaults__) - (len(sig_params) - len(args)):]  # as bind() gives
    elif kwonly and not kwargs and len(args) == len(sig_params) - len(kwonly) and _has_defaults(fn, kwonly):
        kwdefaults = fn.__kwdefaults__
        primals = tuple(args) + tuple(kwdefaults[name] for name in kwonly)  # as bind() gives them
    else:
        from ..forward.runtime import bind

        primals, _ = bind(fn, NoTangent, tuple(args), (NoTangent,) * len(args), kwargs, {})
    if _WRITTEN_AHEAD and (written := prebuilt.reverse_rule(fn)) is not None:
        return written, primals, sig_params  # (while a module `mooncake-ast generate` wrote runs: nothing derived)
    kinds_t = kinds_of(primals)
    fast_key = (fn.__code__, id(fn.__globals__), kinds_t, wrt, quiet)  # equal code in two modules: two rules
    rule = _FAST.get(fast_key)
    if rule is None or rule.stale(fn):
        kinds = {p.name: k for p, k in zip(sig_params, kinds_t)}
        if wrt is not None:
            for i, p in enumerate(sig_params):
                if i >= len(args) or i not in wrt:
                    kinds[p.name] += ":inactive"  # not differentiated; still a number or not
        key = (fn.__code__, id(fn.__globals__), tuple(sorted(kinds.items())), quiet)
        rule = _DERIVED.get(key)
        if rule is None or rule.stale(fn):
            try:
                rule = DerivedReverse(fn, kinds, quiet)
            except SourceUnavailableError as e:
                raise MissingRuleError(fn, "reverse", f"no Python source: {e}") from None
            _DERIVED[key] = rule
        _FAST[fast_key] = rule
    LATEST[fn.__code__] = rule  # (made or reused: what `mc.source` shows is the rule the last call ran)
    return rule, primals, sig_params


def _has_defaults(fn: types.FunctionType, names: tuple) -> bool:
    kwdefaults = fn.__kwdefaults__
    return kwdefaults is not None and all(name in kwdefaults for name in names)


def _with_pullback(fn: types.FunctionType, gen: Any, out: tuple, sig_params: list, args: tuple, kwargs: dict) -> tuple:
    """`(value, pullback)` from the generated forward's `(value, tape)`."""
    y, tape = out
    pullback_fn = gen.pullback
    keeps = getattr(gen, "stack_slots", None) is not None  # (the tape kept whole: the pullback may be called again)
    if keeps:
        from .generate import nested_reusable, reusable_tape

    saved = reused_tapes.snapshot((tape, args, kwargs)) if keeps and reused_tapes.CHECK else None

    def pullback(g: Any) -> tuple:
        if g is NoTangent or g is None:
            g = _zero_like(y)  # the pullback of a real result computes with a real zero
        grads = pullback_fn(g, reusable_tape(gen, tape) if keeps else tape)
        if saved is not None:  # (its calls share the tape: ../reused_tapes.py)
            reused_tapes.assert_unchanged(saved, fn.__qualname__)
        return _defaults_adjoint(fn, sig_params, args, kwargs, grads), *_unbind(fn, sig_params, args, kwargs, grads)

    pullback.may_write = gen.may_write  # type: ignore[attr-defined]
    # (where the tape holds other calls' pullbacks, asked of them when it matters: reverse/runtime.reusable)
    pullback.reusable = keeps and (not gen.pullback_places or (lambda: nested_reusable(gen, tape)))  # type: ignore[attr-defined]
    return y, pullback


def _zero_like(y: Any) -> Any:
    """A real zero for a result typed real (ir/types.is_real: a float, NumPy's float scalars included, or a
    float array), which the pullback reads as a number or an array."""
    if type(y) is float or isinstance(y, np.floating):
        return 0.0
    if type(y) is np.ndarray and y.dtype.kind == "f":
        return np.zeros_like(y)
    return NoTangent


def _defaults_adjoint(fn: types.FunctionType, params: list, args: tuple, kwargs: dict, grads: tuple) -> Any:
    """The adjoint of fn itself: of the default values this call used (see FunctionAdjoint)."""
    defaults, kwdefaults = fn.__defaults__ or (), fn.__kwdefaults__ or {}
    if not defaults and all(type(v) is types.ModuleType for v in kwdefaults.values()):
        return NoTangent  # (generated code's `*, _mc=_mc`: a module has no adjoint)
    from .adjoints import FunctionAdjoint

    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    first_default = len(positional) - len(defaults)
    d_bars = [NoTangent] * len(defaults)
    k_bars = AdjDict()
    any_used = False
    from ..reverse.shadows import route

    for k, (p, g) in enumerate(zip(params, grads)):
        if g is NoTangent or g is None:
            continue
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            index = positional.index(p)
            if index >= len(args) and p.name not in kwargs and index >= first_default:
                # (a mutable default's adjoint is in its own storage already: only values move)
                d_bars[index - first_default] = route(defaults[index - first_default], g)
                any_used = True
        elif p.kind is p.KEYWORD_ONLY and p.name not in kwargs and p.name in kwdefaults:
            k_bars[p.name] = route(kwdefaults[p.name], g)
            any_used = True
    if not any_used:
        return NoTangent
    return FunctionAdjoint(AdjTuple(d_bars) if defaults else NoTangent, k_bars if kwdefaults else NoTangent)


def _unbind(fn: types.FunctionType, params: list, args: tuple, kwargs: dict, grads: tuple) -> tuple:
    """Map adjoints per parameter back to the call's positional and keyword arguments."""
    arg_bars: list = [NoTangent] * len(args)
    kw_bars = AdjDict()
    pos = 0
    for p, g in zip(params, grads):
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            if pos < len(args):
                arg_bars[pos] = g
                pos += 1
            elif p.name in kwargs:
                kw_bars[p.name] = g
        elif p.kind is p.VAR_POSITIONAL:
            rest = len(args) - pos
            items = list(g) if g is not NoTangent else [NoTangent] * rest
            for i in range(rest):
                arg_bars[pos + i] = items[i] if i < len(items) else NoTangent
            pos = len(args)
        elif p.kind is p.KEYWORD_ONLY:
            if p.name in kwargs:
                kw_bars[p.name] = g
        elif p.kind is p.VAR_KEYWORD:
            if g is not NoTangent:
                for k, v in g.items():
                    kw_bars[k] = v
    return AdjTuple(arg_bars), kw_bars


def clear() -> None:
    from .fastpath import clear_fast

    _DERIVED.clear()
    _FAST.clear()
    clear_fast()
