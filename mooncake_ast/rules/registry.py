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

Templates see their call bound the way the function binds it: operands passed by
the function's parameter names move into their positional slots first
(`bind_positional`; `defjvp`/`defvjp` wrap every template with it).  A reverse
template returns one adjoint per positional argument, then optionally a `KwAdj`
of adjoints of keyword operands (`np.sum(x, initial=y)`); a caller reads those
when its builder says `keyword_adjoints` (see `split_adjoints`), and for any
other caller a differentiated keyword operand is refused, never dropped.
`out=` is handled here once for every rule: `run_template` (forward) and
`rcall_into_out` (reverse) run the template on the fresh result and write the
buffer's tangent, or restore the buffer and route its adjoint.
"""
from __future__ import annotations

import collections
import contextlib
import dataclasses
import inspect
import sys
import threading
import types
from typing import Any, Callable, Iterator, Optional

import numpy as np

from ..arrays import is_other_array, mutable_in_place
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


class Fingerprint:
    """A rule's fingerprint, computed when first needed (registration at import stays cheap).

    Digested from what the callables *do*, not their text: bytecode, constants, names, defaults
    and closure contents (recursively for nested code and functions), so it is the same in every
    process and changes when a template changes, without reading any source file."""

    __slots__ = ("parts", "value")

    def __init__(self, parts: tuple) -> None:
        self.parts = parts
        self.value: Optional[str] = None

    def __str__(self) -> str:
        if self.value is None:
            from ..digests import hasher  # (here: a module fewer for `import mooncake_ast`)

            h = hasher()
            for p in self.parts:
                _digest_into(h, p, 0)
                h.update(b"\1")
            self.value = h.hexdigest()[:16]
            self.parts = ()
        return self.value

    __format__ = lambda self, spec: format(str(self), spec)  # noqa: E731
    __repr__ = __str__


def _fingerprint(*parts: Any) -> Fingerprint:
    return Fingerprint(parts)


def strip_addresses(text: str) -> str:
    """`text` without the memory addresses reprs show (" at 0x7f..."), which differ per process."""
    i = text.find(" at 0x")
    while i >= 0:
        j = i + 6
        while j < len(text) and text[j] in "0123456789abcdefABCDEF":
            j += 1
        text = text[:i] + text[j:]
        i = text.find(" at 0x", i)
    return text


def _digest_into(h: Any, obj: Any, depth: int) -> None:
    """Feed a process-independent description of `obj` into the hash `h`."""
    if depth > 6:
        h.update(b"...")
        return
    code = getattr(obj, "__code__", None)
    if isinstance(obj, types.CodeType):
        code, obj = obj, None
    if isinstance(code, types.CodeType):
        h.update(code.co_code)
        h.update(repr((code.co_names, code.co_varnames, code.co_freevars, code.co_argcount,
                       code.co_kwonlyargcount, code.co_flags)).encode())
        for c in code.co_consts:
            _digest_into(h, c, depth + 1)
        if obj is not None:
            for d in (getattr(obj, "__defaults__", None) or ()):
                _digest_into(h, d, depth + 1)
            for k, d in sorted((getattr(obj, "__kwdefaults__", None) or {}).items()):
                h.update(k.encode())
                _digest_into(h, d, depth + 1)
            for cell in (getattr(obj, "__closure__", None) or ()):
                try:
                    content = cell.cell_contents
                except ValueError:  # an empty cell
                    content = None
                _digest_into(h, content, depth + 1)
        return
    if obj is None or isinstance(obj, (bool, int, float, complex, str, bytes)):
        h.update(repr(obj).encode())
    elif isinstance(obj, (tuple, list)):
        h.update(type(obj).__name__.encode())
        for x in obj:
            _digest_into(h, x, depth + 1)
    elif isinstance(obj, (set, frozenset, dict)):  # in an order that is the same in every process
        h.update(type(obj).__name__.encode())
        items = obj.items() if isinstance(obj, dict) else ((x, None) for x in obj)
        for k, v in sorted(items, key=lambda kv: repr(kv[0])):
            _digest_into(h, k, depth + 1)
            _digest_into(h, v, depth + 1)
    elif callable(obj) or isinstance(obj, (type, types.ModuleType)):
        h.update(strip_addresses(qualified(obj)).encode())
    else:
        h.update(strip_addresses(f"{type(obj).__qualname__}:{obj!r}")[:200].encode())
    h.update(b"\0")


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


# ---------------------------------------------------------------- binding a call's arguments

_SIGNATURES: dict[Any, Any] = {}
_EMPTY = inspect.Parameter.empty


def _signature(fn: Any) -> Any:
    """fn's signature (cached), or None for callables without one (ufuncs, most builtins, methods keys)."""
    try:
        return _SIGNATURES[fn]
    except KeyError:
        pass
    except TypeError:  # unhashable
        return None
    sig = None
    if callable(fn) and not isinstance(fn, tuple):
        try:
            import numpy as np

            if not isinstance(fn, np.ufunc):
                sig = inspect.signature(fn)
        except (TypeError, ValueError):
            sig = None
    _SIGNATURES[fn] = sig
    return sig


def bind_positional(fn: Any, args: Any, kwargs: dict) -> tuple[tuple, dict]:
    """The call `fn(*args, **kwargs)` with its operands in positional slots, as `fn` binds them.

    Keyword arguments that name `fn`'s required parameters (no default, positional-or-keyword,
    e.g. `np.dot(a=, b=)`, `np.sum(a=)`, `np.linalg.solve(a=, b=)`, `np.stack(arrays=)`) move into
    their positional slots, in order, as long as the slots before them are filled: the rule
    templates name their operands positionally, and reverse templates return one adjoint per
    positional argument.  Everything else stays a keyword.  Callables without a signature
    (ufuncs, builtins, methods) are returned as given.  Works on any values (run-time values or
    IR values at transform time): only names and positions are looked at.
    """
    args = tuple(args)
    if not kwargs:
        return args, kwargs
    sig = _signature(fn)
    if sig is None:
        return args, kwargs
    params = list(sig.parameters.values())
    moved = list(args)
    rest = dict(kwargs)
    for p in params[len(args):]:
        if p.kind is not inspect.Parameter.POSITIONAL_OR_KEYWORD or p.default is not _EMPTY or p.name not in rest:
            break
        moved.append(rest.pop(p.name))
    if len(moved) == len(args):
        return args, kwargs
    return tuple(moved), rest


def _moved_names(fn: Any, n_args: int, n_bound: int) -> list:
    if n_bound <= n_args:  # nothing moved (the usual call): no signature to read (a builtin's is parsed by inspect)
        return []
    sig = _signature(fn)
    params = list(sig.parameters.values()) if sig is not None else []
    return [p.name for p in params[n_args:n_bound]]


def _binding_jvp(fn: Any, template: Template) -> Template:
    if isinstance(fn, tuple):
        return template

    def jvp(t: Any, y: Any, /, *args: Any, **kwargs: Any) -> Any:  # (a keyword operand may be called y)
        args, kwargs = bind_positional(fn, args, kwargs)
        return template(t, y, *args, **kwargs)

    jvp.__wrapped__ = template  # type: ignore[attr-defined]
    return jvp


class KwAdj(dict):
    """Adjoints of operands passed by keyword, by parameter name: the last element of a reverse
    template's result (e.g. `np.sum(x, initial=y)` gives `(x_bar, KwAdj(initial=y_bar))`)."""


def split_adjoints(contribs: Any) -> tuple[list, dict]:
    """A reverse template's result as (adjoints of the positional arguments, adjoints of keywords by name)."""
    contribs = list(contribs)
    named: dict = {}
    if contribs and isinstance(contribs[-1], KwAdj):
        named = dict(contribs.pop())
    return contribs, named


def _binding_vjp(fn: Any, template: Template) -> Template:
    """A reverse template that sees its operands bound like `fn` binds them.

    It returns one adjoint per positional argument its caller passed, then, if any operand passed by
    keyword has one, a `KwAdj` of those by name -- for a caller that says it reads them
    (`t.keyword_adjoints` true: it then adds `KwAdj` entries to the keyword arguments).  For any other
    caller those adjoints would be dropped, so a differentiated keyword operand is refused when the
    pullback runs (never a silent zero).
    """
    if isinstance(fn, tuple):
        return template

    names: list = []  # the template's operand names, read on first use (not at import)

    def vjp(t: Any, g: Any, y: Any, /, *args: Any, **kwargs: Any) -> Any:
        bound, rest = bind_positional(fn, args, kwargs)
        pos, named = split_adjoints(template(t, g, y, *bound, **rest))
        refused = getattr(t, "refused_keywords", None)
        if refused:  # keyword operands a template refused (numpy_common._refuse_keywords): refused adjoints
            from .numpy_common import refused_keyword_adjoint

            for k, name in list(refused.items()):
                if k in rest and named.get(k) is None:
                    named[k] = t.call(refused_keyword_adjoint, g, name, k, rest[k])
            refused.clear()
        if len(pos) > len(bound) and not names:
            names.append(_template_operand_names(template, 3))
        names_of_template = names[0] if names else []
        for i in range(len(bound), len(pos)):  # adjoints of parameters the caller passed by keyword (sum(xs, start=z))
            if i < len(names_of_template) and names_of_template[i] in rest and pos[i] is not None:
                named.setdefault(names_of_template[i], pos[i])
        pos += [None] * (len(bound) - len(pos))
        for name, c in zip(_moved_names(fn, len(args), len(bound)), pos[len(args):]):
            named[name] = c
        pos = pos[:len(args)]
        named = {k: c for k, c in named.items() if c is not None}
        if not named:
            return tuple(pos)
        if getattr(t, "keyword_adjoints", False):
            return (*pos, KwAdj(named))
        from .numpy_common import _refuse_keywords

        _refuse_keywords(t, qualified(fn), **{k: kwargs[k] for k in named if k in kwargs})
        return tuple(pos)

    vjp.__wrapped__ = template  # type: ignore[attr-defined]
    return vjp


def _template_operand_names(template: Template, skip: int) -> list:
    """The names of a template's positional operands (after its first `skip` parameters, up to any *args)."""
    try:
        params = list(inspect.signature(template).parameters.values())[skip:]
    except (TypeError, ValueError):
        return []
    out = []
    for p in params:
        if p.kind is not inspect.Parameter.POSITIONAL_OR_KEYWORD:
            break
        out.append(p.name)
    return out


def qualified(fn: Any) -> str:
    mod = getattr(fn, "__module__", None) or ""
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", repr(fn))
    return f"{mod}.{name}" if mod and mod != "builtins" else name


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
_LAZY_TABLES = (("numpy.random", "numpy_realistic", "register_draws"), ("numpy.ma", "numpy_masked", "register"),
                ("statistics", "python_lib", "register_statistics"), ("statistics", "python_statistics_more", "register"),
                ("scipy.special", "scipy_rules", "register"), ("scipy.stats", "scipy_stats", "register"),
                ("scipy.linalg", "scipy_linalg_rules", "register"), ("scipy.signal", "scipy_signal_rules", "register"),
                ("scipy.spatial", "scipy_spatial_rules", "register"),
                ("scipy.integrate", "scipy_integrate_rules", "register"),
                ("scipy.optimize", "scipy_optimize_rules", "register"),
                ("scipy.interpolate", "scipy_interpolate_rules", "register"), ("scipy.fft", "scipy_fft_rules", "register"))
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


# ---------------------------------------------------------------- builders


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


def is_index_builder(obj: Any) -> bool:
    """np.r_, np.c_ (numpy's AxisConcatenator instances): `obj[items]` concatenates its items, which are operands."""
    from .operator_rules import _is_concatenator

    return _is_concatenator(obj)


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
        raise NotImplementedError(f"derivative of {qualified(fn)} with several out= arrays: assign the results instead")
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
