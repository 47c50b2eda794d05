"""The rule registry: one entry per callable (or per `(type, method name)`).

A forward rule is a *template*: a function `jvp(t, y, *args, **kwargs)` that
builds the tangent of `y = fn(*args, **kwargs)` from the operands through a
small builder `t` (`t.d(x)` is x's tangent or None for zero, `t.call`,
`t.add`, `t.mul`, `t.lin`, ...).  The same template serves twice:

* at transform time with `IRBuilder` (forward/transform.py), where operands
  are IR values and the tangent becomes inline code (`dy = math.cos(x) * dx`);
* at run time with `EagerBuilder` (rules/eager.py), where operands are real values,
  for calls that can only be dispatched when the generated code runs.

Zero-derivative callables give no tangent.  `mutates` lists the argument
positions a callable writes (activity analysis needs it).  User rules
(`mc.frule`) take `(primals, tangents)` and return `(out, out_tangent)`.

This module holds the table itself: `Rule`, the `def*` registrations, `lookup`
(with the tables registered on first need), and which rules the user changed (what a
cache key describes one by one).  Around it, each a module of its own:

* rules/fingerprints.py: a rule's fingerprint, digested from what its callables do;
* rules/call_binding.py: templates see their call bound the way the function binds it
  (`bind_positional`), and return adjoints of keyword operands in a `KwAdj`;
* rules/eager.py: running a template on real values (`run_template`, `run_vjp`),
  and `out=` handled once for every rule (`run_template`, `rcall_into_out`).

`update` (an in-place operation's tangent written into storage) is defined here: generated
code calls it as `_mc.update` and the rule catalog names it `mooncake_ast.rules.registry.update`.
"""
from __future__ import annotations

import collections
import contextlib
import dataclasses
import inspect
import sys
import threading
from typing import Any, Callable, Iterator, Optional

import numpy as np

from ..arrays import is_other_array, mutable_in_place
from ..tangents import NoTangent, fresh
# (KwAdj, which reverse templates return, is imported from here by rule modules, as docs/rules.md describes)
from .call_binding import KwAdj, Template, _binding_jvp, _binding_vjp  # noqa: F401
from .fingerprints import _fingerprint


@dataclasses.dataclass
class Rule:
    key: Any
    jvp: Optional[Template] = None
    zero: bool = False
    mutates: tuple = ()
    user_frule: Optional[Callable] = None
    user_rrule: Optional[Callable] = None
    vjp: Optional[Callable] = None
    fingerprint_of: Any = ""  # a str, or a Fingerprint computed when first asked for
    jvp_template: Optional[Template] = None  # jvp as written (jvp itself binds the call's arguments first)
    complex_ok: bool = False  # its reverse template is right for complex values too (defcomplex)

    @property
    def fingerprint(self) -> str:
        return str(self.fingerprint_of)

    @fingerprint.setter
    def fingerprint(self, value: Any) -> None:
        self.fingerprint_of = value


_RULES: dict[Any, Rule] = {}
_VERSION = [0]  # bumped on every user registration; part of derived-rule cache keys
# Rules registered or changed outside the built-in tables (user rules, mc.frule, defjvp called by
# a user): those are what a cache key must describe one by one.  The built-in tables are
# described by the library's own fingerprint (its files) and NumPy's version.
_BUILTIN_PHASE = [True]
_CHANGED: dict[Any, None] = {}


def end_builtin_phase() -> None:
    """Called once the built-in tables are registered: later registrations are the user's."""
    _BUILTIN_PHASE[0] = False


_PHASE = threading.local()  # .builtin: this thread registers built-in tables (SciPy's, late)


@contextlib.contextmanager
def builtin_phase() -> Iterator[None]:
    """Registrations that are built-in tables although made later (SciPy's, on first need): in
    this thread only, so a user's rule registered meanwhile in another is still tracked."""
    old = getattr(_PHASE, "builtin", False)
    _PHASE.builtin = True
    try:
        yield
    finally:
        _PHASE.builtin = old


def changed_rules() -> list[Any]:
    """Keys of the rules registered or changed since the built-in tables."""
    return list(_CHANGED)


def key_fingerprint(rule: Rule) -> str:
    """What a cache key says of `rule`: its fingerprint where the user registered or changed it, else
    "builtin" (a built-in rule is a function of the library's files, which the key describes already,
    so its fingerprint need not be digested in every process that computes a key)."""
    fp = rule.fingerprint_of
    if type(fp) is str:
        return fp
    return str(fp) if rule.key in _CHANGED else "builtin"


def _entry(key: Any) -> Rule:
    user = not _BUILTIN_PHASE[0] and not getattr(_PHASE, "builtin", False)
    if user and _PENDING:
        _lazy_rules()  # (a table registered after the user's rule would replace it)
    rule = _RULES.get(key)
    if rule is None:
        rule = _RULES[key] = Rule(key)
    if user:
        try:
            _CHANGED[key] = None
        except TypeError:  # pragma: no cover  (keys of the registry are hashable)
            pass
    return rule


def defjvp(fn: Any, template: Template, *, mutates: tuple = ()) -> None:
    """Register the forward template of `fn` (it sees operands bound the way `fn` binds them)."""
    r = _entry(fn)
    r.jvp, r.zero, r.mutates = _binding_jvp(fn, template), False, mutates
    r.fingerprint = _fingerprint(template, mutates)
    r.jvp_template = template


def defvjp(fn: Any, template: Template) -> None:
    """Register the reverse template of `fn`: `vjp(t, g, y, *args, **kwargs)` returns one
    adjoint contribution per positional argument (None for zero)."""
    r = _entry(fn)
    r.vjp = _binding_vjp(fn, template)
    r.fingerprint = _fingerprint(r.jvp_template or r.jvp, template, r.mutates)


def defcomplex(*fns: Any) -> None:
    """Mark the reverse templates of `fns` right for complex values (the whitelist of README "Complex numbers").

    Reverse mode follows the real inner product on C = R^2: a template must give x_bar with
    Re(sum(conj(x_bar) x_dot)) == Re(sum(conj(y_bar) y_dot)), so conj(f'(z)) * y_bar for holomorphic f,
    and the real part of an adjoint that reaches a real operand.  Only templates written that way and
    checked by check_derivatives with complex inputs are marked: every other template refuses complex
    operands and results when the pullback runs (reverse/adjoints.refuse_complex_rule), never guesses.
    Keys are what defvjp takes (a callable, or `(type, method name)`).
    """
    for fn in fns:
        r = _RULES.get(fn)
        if r is None or r.vjp is None:
            raise ValueError(f"defcomplex({fn!r}): no reverse template is registered for it")
        r.complex_ok = True


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


def defrrule_at_run_time(fn: Any, rrule: Callable, *extra: Any) -> None:
    """Give `fn` a reverse rule that runs when the call runs, like a user's `mc.rrule`.

    For callables whose pullback must know what the call did (which items a consumer read, which callable
    ran, what a solver converged to): a template fixed when the code is generated cannot know it.  The forward
    parts registered before stay; the fingerprint covers them, the rule and `extra` (helpers the rule's
    behaviour depends on), so a changed rule changes the cache key."""
    r = _entry(fn)
    r.user_rrule = rrule
    r.fingerprint = _fingerprint(r.jvp_template or r.jvp, r.user_frule, rrule, r.mutates, *extra)


_LAZY_LOCK = threading.Lock()
# Rule tables registered on first need: (module whose import brings the callables, rules module, its function
# that registers them).  Each is registered by the first lookup that misses (or the first user registration)
# after the user's code has imported its module: those modules cost more to import than the rules of
# everything else (SciPy 0.5 s, numpy.random 10 ms, numpy.ma 8 ms, statistics 2.5 ms), and their callables only exist, and can only be met,
# once they are imported.  scipy.stats after scipy.special.  (A rules module that registers as it is imported
# cannot be deferred: a generated module imports the rules module of a helper it calls, `from
# mooncake_ast.rules import numpy_fft`, and its registrations would then count as the user's.)
_LAZY_TABLES = (("numpy.random", "numpy_realistic", "register_draws"),
                ("numpy.random", "numpy_random_permutations", "register"), ("numpy.ma", "numpy_masked", "register"),
                ("statistics", "python_lib", "register_statistics"), ("statistics", "python_statistics_more", "register"),
                ("scipy.special", "scipy_rules", "register"), ("scipy.stats", "scipy_stats", "register"),
                ("scipy.linalg", "scipy_linalg_rules", "register"), ("scipy.signal", "scipy_signal_rules", "register"),
                ("scipy.spatial", "scipy_spatial_rules", "register"),
                ("scipy.integrate", "scipy_integrate_rules", "register"),
                ("scipy.optimize", "scipy_optimize_rules", "register"),
                ("scipy.interpolate", "scipy_interpolate_rules", "register"),
                ("scipy.fft", "scipy_fft_rules", "register"), ("scipy.sparse", "scipy_sparse_rules", "register"),
                ("scipy.sparse.linalg", "scipy_sparse_products", "register_linalg"),
                ("logging", "python_logging", "register"), ("random", "python_random", "register"),
                ("itertools", "itertools_count", "register"),
                ("numpy.polynomial", "numpy_polynomial_convert", "register"),
                ("scipy.signal", "scipy_signal_design", "register"))
_PENDING = list(_LAZY_TABLES)  # the tables not registered yet (emptied as they are)


def _lazy_rules() -> bool:
    """Register the pending tables whose module the user's code has imported.  True when one was
    registered just now.  (Cheap when none is due: a few `in sys.modules` per lookup that misses.)"""
    modules = sys.modules
    if not any(m in modules for m, _, _ in _PENDING):
        return False
    if getattr(_PHASE, "builtin", False):
        return False  # a lookup made while registering tables: not for the pending ones yet
    import importlib

    with _LAZY_LOCK:  # another thread looking up meanwhile waits for the whole table
        due = [t for t in _PENDING if t[0] in modules]
        for table in due:
            _, name, register = table
            with builtin_phase():
                getattr(importlib.import_module(f"{__package__}.{name}"), register)()
            _PENDING.remove(table)
    return bool(due)


def lookup(fn: Any) -> Optional[Rule]:
    try:
        rule = _RULES.get(fn)
    except TypeError:  # unhashable callable
        return None
    if rule is not None:
        return rule
    if _PENDING and _lazy_rules():
        return lookup(fn)
    owner = getattr(fn, "__self__", None)
    name = getattr(fn, "__name__", None)
    if owner is not None and name is not None and not isinstance(owner, type) and not inspect.ismodule(owner):
        for cls in type(owner).__mro__:
            rule = _RULES.get((cls, name))
            if rule is not None:
                return rule
        if is_other_array(owner):
            return _RULES.get((np.ndarray, name))  # a Dask array's method: the ndarray method's rule (arrays.py)
    return None


def zero_derivative(fn: Any) -> bool:
    """Does fn have a zero derivative and write nothing of its own (np.floor, comparisons: ir/ufunc_out.py writes
    their `out=` as a store)?"""
    rule = lookup(fn)
    return rule is not None and rule.zero and not rule.mutates and rule.user_frule is None and rule.user_rrule is None


def lookup_exact(key: Any) -> Optional[Rule]:
    """The rule registered under exactly `key` (no method resolution, no lazy registration)."""
    return _RULES.get(key)


def all_rules() -> dict[Any, Rule]:
    """Every registered rule.  After import this is the full table (rule listings, docs): the lazily
    registered tables included (SciPy's whenever SciPy is installed), so a listing does not depend on
    what the process imported before.  (Derivations never call this: they look rules up one by one.)"""
    if _PENDING and not _BUILTIN_PHASE[0]:
        import statistics  # noqa: F401
        import numpy.ma  # noqa: F401
        import numpy.random  # noqa: F401

        try:
            import scipy.linalg  # noqa: F401
            import scipy.integrate  # noqa: F401
            import scipy.interpolate  # noqa: F401
            import scipy.optimize  # noqa: F401
            import scipy.signal  # noqa: F401
            import scipy.spatial.distance  # noqa: F401
            import scipy.sparse  # noqa: F401
            import scipy.special  # noqa: F401
            import scipy.stats  # noqa: F401
        except ImportError:  # SciPy is optional
            pass
    _lazy_rules()
    return dict(_RULES)


def registry_version() -> int:
    return _VERSION[0]


def bump_version() -> None:
    _VERSION[0] += 1


# ---------------------------------------------------------------- the tangent of an in-place operation

def update(dx: Any, new: Any) -> Any:
    """The tangent after an in-place operation: written into `dx` if `dx` is mutable storage."""
    if new is None:
        new = NoTangent
    if dx is new:
        return dx
    try:
        if mutable_in_place(dx):
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
    if isinstance(dx, collections.deque) and isinstance(new, collections.deque):
        dx.clear()
        dx.extend(new)
        return dx
    return new


def is_index_builder(obj: Any) -> bool:
    """np.r_, np.c_ (numpy's AxisConcatenator instances): `obj[items]` concatenates its items, which are operands."""
    from .operator_rules import _is_concatenator

    return _is_concatenator(obj)
