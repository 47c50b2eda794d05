"""Forward mode at run time: dispatch (`fcall`) and lazily derived rules.

`fcall(f, df, args, dargs)` runs when generated code reaches a call whose
callee was not known at generation time.  It uses, in order: Python's
operator protocol when an operand is a user object (objects.py: the user's
special methods, differentiated), a user rule (`mc.frule`), a built-in
template, zero derivative, or a rule derived from the callee's source
(functions, methods, closures, lambdas, callable objects, classes).  Derived rules are built on first use and cached per code
object (Mooncake's `LazyDerivedRule`), which is what makes recursion work:
by the time a function calls itself, its rule exists.
"""
from __future__ import annotations

import builtins
import inspect
import types
from typing import Any, Optional

import numpy as np

from .. import ops, prebuilt
from ..arrays import is_other_array, mutable_in_place
from ..errors import MissingRuleError, MooncakeError, SourceUnavailableError
from ..library_errors import in_library, runs_plainly
from ..rules import eager, registry
from ..rules.numpy_order import laid_out_as
from ..rules.registry import _VERSION as _REGISTRY_VERSION  # read per call: registry_version() without the call
from ..tangents import (FunctionTangent, MethodTangent, MutableTangent, NoTangent, is_mutable, storage, zero_tangent,
                        zero_tangent_sharing)
from .. import method_out
from . import object_calls, objects, state
from .dataclass_init import dataclass_init
from .state import _refuse_untracked_write, _session, _session_storage, closure_tangent


def fcall(f: Any, df: Any, args: tuple, dargs: Any, kwargs: Optional[dict] = None, dkwargs: Any = None) -> tuple:
    """`(f(*args, **kwargs), its tangent)`."""
    kwargs = kwargs or {}
    if dargs is NoTangent:
        dargs = (NoTangent,) * len(args)
    if dkwargs is NoTangent or dkwargs is None:
        dkwargs = {k: NoTangent for k in kwargs}
    if len(args) > 1 and "out" not in kwargs:
        moved = method_out.moved_out(f, args, kwargs)  # (`A.max(0, o)`: o is the output, as `out=o` is)
        if moved is not None:
            dargs, dkwargs = method_out.keyword_tangents(dargs, dkwargs, args, moved)
            args, kwargs = method_out.as_keyword_call(args, kwargs, moved)
    if objects.dispatches(f):
        done = object_calls.float_forward(f, args, dargs) if not kwargs else None
        if done is None:
            done = object_calls.forward_call(f, args, dargs, kwargs)
        if done is not None:
            return done
    rule = registry.lookup(f)
    if rule is not None:
        if args:
            from ..consumed_iterators import read_first  # (`math.prod(it)` found at run time: it read first)

            read = read_first(f, args, dargs)
            if read is not None:
                args, dargs = read
        if rule.user_frule is not None:
            if kwargs and getattr(rule.user_frule, "sees_keyword_tangents", False):  # (rules/python_itertools.py)
                return rule.user_frule(tuple(args), tuple(dargs), _mc_dkwargs=dkwargs, **kwargs)
            return rule.user_frule(tuple(args), tuple(dargs), **kwargs)
        if rule.user_rrule is not None and rule.jvp is None and not rule.zero:
            raise MissingRuleError(f, "forward", "it has a reverse rule only")
        if rule.zero and kwargs.get("out") is not None and not rule.mutates:
            return eager.zero_derivative_into_out(f, args, kwargs, dkwargs)  # (`y.round(out=y)`: y's tangent goes)
        if rule.jvp is not None or rule.zero:
            owner = getattr(f, "__self__", None)
            if (rule.key.__class__ is tuple) and owner is not None:  # a method: self is the first operand
                dself = df.self_tangent if isinstance(df, MethodTangent) else NoTangent
                if rule.mutates and not rule.zero:
                    _refuse_untracked_write(f, owner, dself, dargs)
                y, dy = eager.run_template(rule, _unbound(f), (owner, *args), (dself, *dargs), kwargs, dkwargs)
                dy = laid_out_as(y, (owner, *args, *kwargs.values()), (dself, *dargs, *dkwargs.values()), dy)
            else:
                if rule.mutates and args and not rule.zero and 0 in rule.mutates:
                    _refuse_untracked_write(f, args[0], dargs[0], dargs[1:])
                y, dy = eager.run_template(rule, f, tuple(args), tuple(dargs), kwargs, dkwargs)
                if rule.mutates and args:
                    dy = _conform_result(args[0], args, dargs, dy)
                else:
                    dy = laid_out_as(y, (*args, *kwargs.values()), (*dargs, *dkwargs.values()),
                                     _conform_result(y, args, dargs, dy))
            if dy is NoTangent and f is ops.sequence:
                # what a for loop iterates, dispatched (forward code differentiated again): its tangent is iterated in
                # step with it (`zip(seq, dseq)`), so one zero per item, as the loop's own template gives (an
                # iterator's, read as the loop asks: one per item pulled)
                from ..lazy_iteration import LazySequence, Zeros

                return y, Zeros(y) if isinstance(y, LazySequence) else [NoTangent] * len(y)
            return y, _materialize_mutable(y, dy)
    if isinstance(f, types.FunctionType):
        if f is ops.new_cell:
            # a closure's cell made by forward code (`k_cell = _mc.new_cell()`), differentiated again: its tangent is
            # a cell of its own, which `k_cell.cell_contents = v` fills (builtin_attributes.setattr_tangent) and the
            # closure's tangent holds (make_function's rule), as the first-order transform makes one for user code
            return types.CellType(), types.CellType()
        # The derived rule runs from this frame (not through helpers): each level of the user's
        # recursion costs two Python frames (the generated function and fcall), not four.
        if runs_plainly(f) and df is NoTangent and all(d is NoTangent for d in (*dargs, *dkwargs.values())):
            y = f(*args, **kwargs)  # (inspect.signature(fn), no tangent going in: not traced)
            return y, _materialize_mutable(y, NoTangent)
        if decorates_a_class(f, args, kwargs):
            # `@dataclasses.dataclass(frozen=True)`, `@functools.total_ordering` of a class made in the function:
            # run plainly; they return the class itself, whose tangent is its storage, kept by identity
            y = f(*args, **kwargs)
            return y, dargs[0] if y is args[0] else _materialize_mutable(y, NoTangent)
        if f.__closure__ is not None:
            df = closure_tangent(f, df)
        try:
            rule, primals, tangents = _derived_rule(f, df, args, dargs, kwargs, dkwargs)
            if rule.takes_self:
                return rule.fn(f, df, *primals, *tangents)
            return rule.fn(*primals, *tangents)
        except MooncakeError as e:
            named = in_library(f, e)  # (installed code holding what we cannot differentiate: named by what was called)
            if named is None:
                raise
            raise named from None
    if isinstance(f, types.MethodType):
        dself = df.self_tangent if isinstance(df, MethodTangent) else NoTangent
        return fcall(f.__func__, NoTangent, (f.__self__, *args), (dself, *dargs), kwargs, dkwargs)
    calls = _library_callable(f)
    if calls is not None:  # functools.partial, operator.itemgetter/attrgetter/methodcaller, namedtuple classes (rules/python_callables.py)
        return calls[0](f, df, tuple(args), tuple(dargs), kwargs, dkwargs)
    if isinstance(f, type):
        return _construct(f, args, dargs, kwargs, dkwargs)
    plain = objects.plain_construction(f, args)
    if plain is not None:  # (`super().__call__(*a)` in a metaclass's __call__)
        cls, skip = plain
        return _construct(cls, tuple(args[skip:]), tuple(dargs[skip:]), kwargs, dkwargs, through_metaclass=False)
    call = getattr(type(f), "__call__", None)
    if isinstance(call, types.FunctionType):  # a callable object
        return fcall(call, NoTangent, (f, *args), (df, *dargs), kwargs, dkwargs)
    if _all_zero(df) and all(_all_zero(d) for d in dargs) and all(_all_zero(d) for d in dkwargs.values()):
        # Nothing differentiable flows in, so nothing flows out: no rule needed (e.g. rng.random(shape)).
        y = f(*args, **kwargs)
        owner = (getattr(f, "__self__", None),) if isinstance(df, MethodTangent) else ()  # (b.__array__(), b.getfield())
        if _may_reach_storage(y, (*owner, *args, *kwargs.values()),
                              ((df.self_tangent,) if owner else ()) + (*dargs, *dkwargs.values())):
            raise MissingRuleError(f, "forward")
        return y, zero_tangent_sharing(y, (*args, *kwargs.values()), (*dargs, *dkwargs.values()))
    raise MissingRuleError(f, "forward")


_CLASS_DECORATORS = frozenset({"dataclasses", "functools", "typing", "enum", "abc"})


def decorates_a_class(f: Any, args: tuple, kwargs: dict) -> bool:
    """Is `f(cls)` a library class decorator (`@dataclasses.dataclass(...)`, `@functools.total_ordering`) applied to
    a class made by a `class` statement?  One argument only: `typing.cast(float, v)` takes a class too, and run
    plainly its result lost v's derivative (a silently zero gradient)."""
    return (len(args) == 1 and not kwargs and isinstance(args[0], type) and bool(args[0].__flags__ & (1 << 9))
            and (getattr(f, "__module__", None) or "").split(".")[0] in _CLASS_DECORATORS)


def _may_reach_storage(y: Any, args: tuple, dargs: tuple) -> bool:
    """Can y (the plain result of a callable without a rule) reach an argument array whose tangent is storage,
    zero for now?  Then a later write through y (`for v in np.nditer(b, op_flags=["readwrite"]): v[...] = ...`, a
    view) changes b, and a fresh zero tangent for y would miss it: the call is refused, as with a nonzero tangent."""
    arrays = [a for a, d in zip(args, dargs) if isinstance(a, np.ndarray) and isinstance(d, np.ndarray)]
    if not arrays:
        return False

    def reaches(v: Any) -> bool:
        if v is None or isinstance(v, (bool, int, float, complex, str, bytes, np.generic)):
            return False
        if isinstance(v, np.ndarray):
            return any(np.may_share_memory(v, a) for a in arrays)
        if isinstance(v, (tuple, list)):
            return any(reaches(e) for e in v)
        return True  # (an object that may hold a reference to the array: an iterator, an nditer, a flatiter)
    return reaches(y)


def _library_callable(f: Any) -> Any:
    from ..rules.python_callables import call_rule

    return call_rule(f)


def _all_zero(t: Any) -> bool:
    """Is t the zero tangent (symbolically, or as all-zero storage)?"""
    import numpy as np

    if t is NoTangent or t is None:
        return True
    if isinstance(t, MethodTangent):
        return _all_zero(t.self_tangent)
    if isinstance(t, (float, int, complex)):
        return t == 0
    if isinstance(t, np.ndarray):
        return not t.any()
    if isinstance(t, (list, tuple)):
        return all(_all_zero(v) for v in t)
    if isinstance(t, dict):
        return all(_all_zero(v) for v in t.values())
    if isinstance(t, MutableTangent):
        return all(_all_zero(v) for v in t.fields.values())
    return False


def fit(y: Any, dy: Any) -> Any:
    """The tangent of a sum `x + a` of a number x and an array a, of the array's shape: `dx + da` is a number
    when da is a zero with no shape (an int's or a number argument's `NoTangent`), and `np.sum` of it would
    count it once instead of once per element."""
    import numpy as np

    if dy is NoTangent or type(y) is not np.ndarray or getattr(dy, "shape", None) == y.shape:
        return dy
    out = np.empty(y.shape, dtype=np.result_type(y.dtype, np.asarray(dy).dtype))
    out[...] = dy
    return out


def conform(y: Any, x: Any, dx: Any) -> Any:
    """The tangent of y when it is x's tangent passed through (`y = c + x` with c constant).

    An array result gets a tangent of its own shape and dtype, in new storage: a
    number's tangent broadcast against a constant array, and never x's tangent
    object itself (a later in-place write to x, or to y, must not reach the other).
    """
    import numpy as np

    if isinstance(y, (tuple, list)) and isinstance(x, (tuple, list)) and y is not x and len(y) > len(x):
        return _conform_sequence(y, x, dx)
    if dx is NoTangent or not mutable_in_place(y) or y is x:
        return dx
    if y.dtype.kind not in "fc":
        return NoTangent
    if not isinstance(y, np.ndarray):  # a CuPy array: new storage of its library, on its device
        kind = getattr(dx, "dtype", np.result_type(dx)).kind
        out = np.empty_like(y, dtype=np.result_type(y.dtype, dx) if kind in "fc" else y.dtype)
        out[...] = dx
        return out
    d = np.asarray(dx)
    # (laid out as y, C or Fortran order: `y.reshape(-1)` is then a view, or a copy, for both -- rules/numpy_order)
    out = np.empty_like(y, dtype=np.result_type(y.dtype, d.dtype) if d.dtype.kind in "fc" else y.dtype, subok=False)
    out[...] = d
    return out


def _conform_sequence(y: Any, x: Any, dx: Any) -> Any:
    """`y = x + c` or `c + x` for tuples and lists with c constant: x's tangents, zeros for c's items."""
    n, rest = len(x), len(y) - len(x)
    parts = list(dx) if isinstance(dx, (tuple, list)) else [NoTangent] * n
    zeros = [NoTangent] * rest
    if all(y[i] is x[i] for i in range(n)):
        items = parts + zeros
    elif all(y[rest + i] is x[i] for i in range(n)):
        items = zeros + parts
    else:  # cannot tell which part came from x: say so rather than guess
        raise MooncakeError("forward mode cannot tell which part of a concatenated sequence is the variable one")
    return tuple(items) if isinstance(y, tuple) else list(items)


def _conform_result(y: Any, args: tuple, dargs: tuple, dy: Any) -> Any:
    """`conform` for a template run at run time: only when dy is an operand's tangent or of another shape."""
    import numpy as np

    if not mutable_in_place(y) or dy is NoTangent:
        return dy
    for a, d in zip(args, dargs):
        if d is dy and a is not y:
            return conform(y, a, dy)
    if not mutable_in_place(dy) or dy.shape != y.shape:
        if isinstance(dy, (int, float, complex, np.number, np.ndarray)) or is_other_array(dy):
            return conform(y, None, dy)
    return dy


def _unbound(bound: Any) -> Any:
    """A function of (self, *args) calling the bound method's name on self (for method rules)."""
    return lambda self, *a, **k: getattr(self, bound.__name__)(*a, **k)


def _materialize_mutable(y: Any, dy: Any) -> Any:
    """A float array (or list, dict, object) needs real tangent storage: callers may write into it."""
    if dy is NoTangent and not isinstance(y, (float, int, complex, bool, str, type(None), tuple)):
        return zero_tangent(y)
    return dy


def _construct(cls: type, args: tuple, dargs: tuple, kwargs: dict, dkwargs: dict, through_metaclass: bool = True) -> tuple:
    """`cls(*args)` for a user class: allocate, then differentiate `__init__` on the new object (or the metaclass's
    Python `__call__`, which does what it does in its place)."""
    meta_call = objects.metaclass_call(cls) if through_metaclass else None
    if meta_call is not None:
        return fcall(meta_call, NoTangent, (cls, *args), (NoTangent, *dargs), kwargs, dkwargs)
    init = cls.__init__
    if init is object.__init__ and cls.__new__ is object.__new__ and not args and not kwargs:
        return cls(), MutableTangent({})  # a class without __init__ (`Helper()`): an empty object, as in reverse mode
    if init is types.SimpleNamespace.__init__ and not args:
        # (`types.SimpleNamespace(a=x, b=y)`, an attribute bag: its __init__ sets one attribute per keyword)
        obj = cls(**kwargs)
        return obj, MutableTangent({k: storage(v, dkwargs.get(k, NoTangent)) for k, v in kwargs.items()})
    if cls.__new__ is not object.__new__ or not isinstance(init, types.FunctionType):
        raise MissingRuleError(cls, "forward", "a class without a Python __init__")
    obj = cls.__new__(cls)
    dobj = MutableTangent({})
    if getattr(cls, "__dataclass_fields__", None) is not None and _generated(init):
        fields, initvars, bound = dataclass_init(cls, args, kwargs)
        dbound = inspect.signature(cls).bind_partial(*dargs, **{k: dkwargs.get(k, NoTangent) for k in kwargs})
        for name, value, given in fields:
            object.__setattr__(obj, name, value)  # as the generated __init__ does (also for frozen classes)
            d = dbound.arguments.get(name, NoTangent) if given else NoTangent
            dobj.fields[name] = storage(value, d)
        post = getattr(obj, "__post_init__", None)
        if post is not None:
            fcall(post, MethodTangent(dobj), tuple(v for _, v, _ in initvars),
                  tuple(dbound.arguments.get(n, NoTangent) if g else NoTangent for n, _, g in initvars))
        return obj, dobj
    fcall(init, NoTangent, (obj, *args), (dobj, *dargs), kwargs, dkwargs)
    return obj, dobj


def _generated(fn: types.FunctionType) -> bool:
    return fn.__code__.co_filename.startswith("<")


# ---------------------------------------------------------------- derived rules


class DerivedForward:
    """The forward rule derived from one function's source, for given argument kinds."""

    def __init__(self, fn: types.FunctionType, kinds: Optional[dict] = None) -> None:
        from ..cache import GENERATION_LOCK
        from .generate import generate_forward

        self.code = fn.__code__
        with GENERATION_LOCK:  # the key (it reads sources) and the module: one thread at a time
            self.gen = generate_forward(fn, kinds or {})
        self.fn = self.gen.function
        self.takes_self = self.gen.takes_self
        self.bindings = self.gen.bindings
        self.registry_version = registry.registry_version()

    def stale(self, fn: types.FunctionType) -> bool:
        """Has a global the derivative read been rebound, or a rule been registered, since it was made?"""
        if self.registry_version != _REGISTRY_VERSION[0]:
            return True
        g = fn.__globals__
        for name, obj in self.bindings.items():
            found = g.get(name, _UNBOUND)
            if found is not obj and (found is not _UNBOUND or getattr(builtins, name, None) is not obj):
                return True
        return False

    def call_bound(self, fn: types.FunctionType, dfn: Any, primals: tuple, tangents: tuple) -> tuple:
        if self.takes_self:
            if fn.__closure__ is not None:
                dfn = closure_tangent(fn, dfn)
            return self.fn(fn, dfn, *primals, *tangents)
        return self.fn(*primals, *tangents)

    def __call__(self, fn: types.FunctionType, dfn: Any, args: tuple, dargs: tuple, kwargs: dict, dkwargs: dict) -> tuple:
        primals, tangents = _bind_fast(fn, dfn, args, dargs, kwargs, dkwargs)
        return self.call_bound(fn, dfn, primals, tangents)


_SIGNATURES: dict = {}


def _bind_fast(fn: types.FunctionType, dfn: Any, args: tuple, dargs: tuple, kwargs: dict, dkwargs: dict) -> tuple:
    info = _SIGNATURES.get(fn.__code__)
    if info is None:
        params = list(_code_signature(fn).parameters.values())
        info = _SIGNATURES[fn.__code__] = ([p.name for p in params],
                                           all(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params))
    names, simple = info
    if simple and not kwargs and len(args) == len(names):
        return tuple(args), tuple(dargs)
    return bind(fn, dfn, args, dargs, kwargs, dkwargs)


def _derived_call(f: types.FunctionType, df: Any, args: tuple, dargs: tuple, kwargs: dict, dkwargs: dict) -> tuple:
    """Bind the arguments, then use the derived rule specialised on which of them are numbers."""
    rule, primals, tangents = _derived_rule(f, df, args, dargs, kwargs, dkwargs)
    return rule.call_bound(f, df, primals, tangents)


def _derived_rule(f: types.FunctionType, df: Any, args: tuple, dargs: tuple, kwargs: dict, dkwargs: dict) -> tuple:
    """(the derived rule for this call's argument kinds, bound primals, bound tangents)."""
    primals, tangents = _bind_fast(f, df, args, dargs, kwargs, dkwargs)
    kinds = argument_kinds(primals)
    if any(d is NoTangent for d in tangents):  # (a constant handed to a call: no tangent code for it)
        kinds = tuple(k + ":inactive" if d is NoTangent and (k == "num" or k.startswith("arr:f:")) else k
                      for k, d in zip(kinds, tangents))
    return derived_forward(f, kinds), primals, tangents


def argument_kinds(primals: tuple) -> tuple:
    """The kinds a derived forward rule is specialised on (objects.kind_of, and float arrays' axes), the same for a
    call made by forward code and for reverse-over-forward plans (rules/api_rules.py, hvp_fast.py): one rule, and
    forward code typed enough to read `s.max(axis=1)` as `np.max(s, axis=1)`."""
    return tuple(_array_kind(a) if type(a) is np.ndarray and a.dtype.kind == "f" else objects.kind_of(a)
                 for a in primals)


def _array_kind(a: np.ndarray) -> str:
    """The kind of a float array (exactly np.ndarray): "arr:f:" and per axis "1" (size one) or "n", as reverse
    mode's kinds and ir/types.decode spell them.  The forward transform then knows the types of what the code
    reads from the array (an element is a number: no tangent storage for it).  fast_forward_rule and the
    general path give the same kinds, so one rule serves both."""
    kind = _ARRAY_KINDS.get(a.shape)
    if kind is None:
        if len(_ARRAY_KINDS) > 4096:
            _ARRAY_KINDS.clear()
        kind = _ARRAY_KINDS[a.shape] = "arr:f:" + "".join(["1" if n == 1 else "n" for n in a.shape])
    return kind


def _code_signature(fn: types.FunctionType) -> inspect.Signature:
    """The signature of fn's code, which its derivative takes, even where a decorator set another `__signature__`
    (array_api_compat's wrappers show the wrapped function's parameters)."""
    if "__signature__" not in getattr(fn, "__dict__", {}):
        return inspect.signature(fn, follow_wrapped=False)
    clone = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    clone.__kwdefaults__ = fn.__kwdefaults__
    return inspect.signature(clone, follow_wrapped=False)


def bind(fn: types.FunctionType, dfn: Any, args: tuple, dargs: tuple, kwargs: dict, dkwargs: dict) -> tuple[tuple, tuple]:
    """Match arguments and their tangents to the parameters (defaults, *args, **kwargs, keywords)."""
    sig = _code_signature(fn)
    bound = sig.bind(*args, **kwargs)
    dbound = sig.bind_partial(*dargs, **{k: dkwargs.get(k, NoTangent) for k in kwargs})
    primals, tangents = [], []
    defaults = list(fn.__defaults__ or ())
    ddefaults = list(dfn.defaults) if isinstance(dfn, FunctionTangent) and dfn.defaults else [NoTangent] * len(defaults)
    kwdefaults = fn.__kwdefaults__ or {}
    dkwdefaults = dfn.kwdefaults if isinstance(dfn, FunctionTangent) else {}
    positional = [p for p in sig.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    first_default = len(positional) - len(defaults)
    for i, (name, p) in enumerate(sig.parameters.items()):
        if name in bound.arguments:
            primals.append(bound.arguments[name])
            d = dbound.arguments.get(name, NoTangent)
            if p.kind is p.VAR_POSITIONAL:
                d = tuple(d) if d is not NoTangent else (NoTangent,) * len(bound.arguments[name])
                d = d + (NoTangent,) * (len(bound.arguments[name]) - len(d))
            elif p.kind is p.VAR_KEYWORD:
                d = {k: dkwargs.get(k, NoTangent) for k in bound.arguments[name]}
            tangents.append(d)
        elif p.kind is p.VAR_POSITIONAL:
            primals.append(())
            tangents.append(())
        elif p.kind is p.VAR_KEYWORD:
            primals.append({})
            tangents.append({})
        elif p.kind is p.KEYWORD_ONLY:
            # (a signature set by hand, `__signature__`, may give defaults the code's __kwdefaults__ does not have)
            primals.append(kwdefaults[name] if name in kwdefaults else p.default)
            tangents.append(dkwdefaults.get(name, NoTangent) if dkwdefaults else NoTangent)
        else:
            k = positional.index(p) - first_default
            primals.append(defaults[k])
            tangents.append(ddefaults[k] if k < len(ddefaults) else NoTangent)
        if tangents[-1] is NoTangent and name not in bound.arguments and is_mutable(primals[-1]) and \
                p.kind is not p.VAR_POSITIONAL and p.kind is not p.VAR_KEYWORD:
            # A mutable default (`cache={}`, `acc=[]`) lives as long as the function: state kept between calls,
            # whose tangent this computation keeps (as for a closure's cells), not new storage at each call.
            tangents[-1] = _session_storage(_session(), primals[-1])
    return tuple(primals), tuple(tangents)


def fast_forward_rule(fn: types.FunctionType, args: tuple, zero: Optional[tuple] = None) -> Optional[DerivedForward]:
    """The derived rule `fcall(fn, NoTangent, args, ...)` would use, for the common call only, else None.

    The common call: fn a plain function with no registered rule, called before with a plain positional
    signature that these arguments fill exactly, every argument a Python number or a float array of type
    np.ndarray (kinds "num" / _array_kind's, as the general path gives them).  The primals are then the
    arguments.  `zero` (optional, one bool per argument) says which tangents the caller passes as NoTangent:
    the rule computes nothing from those (kind `...:inactive`), so they must be the zero.

    A repeated call is a dict look-up and the rule's staleness test (_FAST_CALLS): the registry was asked
    about fn when the entry was made, and a user registration since then makes the rule stale.  (Asking
    it on every call cost more than the rest of the dispatch: registry.lookup of a function with no rule
    tests every pending lazy table's module.)"""
    code = fn.__code__
    info = _SIGNATURES.get(code)
    if info is None:  # (a first call: the signature as _bind_fast reads it, so that it takes this path too)
        params = list(_code_signature(fn).parameters.values())
        info = _SIGNATURES[code] = ([p.name for p in params],
                                    all(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params))
    if not info[1] or len(info[0]) != len(args):
        return None
    kinds = []
    for a in args:
        t = type(a)
        if t is float or t is int or t is bool:
            kinds.append("num")
        elif t is np.ndarray and a.dtype.kind == "f":
            kinds.append(_array_kind(a))
        else:
            return None
    if zero is not None and any(zero):
        kinds = [k + ":inactive" if z else k for k, z in zip(kinds, zero)]
    kinds = tuple(kinds)
    key = (code, id(fn.__globals__), kinds)
    rule = _FAST_CALLS.get(key) if not _WRITTEN_AHEAD else None  # (written modules: derived_forward decides)
    if rule is not None and not rule.stale(fn):
        LATEST[code] = rule  # (what `mc.source` shows: the rule the last call ran)
        return rule
    if registry.lookup(fn) is not None or objects.dispatches(fn):
        _FAST_CALLS.pop(key, None)
        return None
    rule = derived_forward(fn, kinds)
    if type(rule) is DerivedForward and not _WRITTEN_AHEAD:
        if len(_FAST_CALLS) > 4096:
            _FAST_CALLS.clear()
        _FAST_CALLS[key] = rule
    return rule


_FAST_CALLS: dict[tuple, DerivedForward] = {}  # (code, id(globals), kinds) -> rule, for fast_forward_rule's calls
_ARRAY_KINDS: dict[tuple, str] = {}  # shape -> kind of a float array of that shape ("arr:f:n1")


_UNBOUND = object()
_WRITTEN_AHEAD = prebuilt.FORWARD  # (empty unless a module `mooncake-ast generate` wrote was imported)
_DERIVED: dict[tuple, DerivedForward] = {}
LATEST: dict = {}  # code -> the rule used most recently (what `mc.source(f, "forward")` shows)


def derived_forward(fn: types.FunctionType, kinds: Optional[tuple] = None) -> DerivedForward:
    """The derived forward rule of fn for argument kinds ("num"/"any" per parameter; None: generic)."""
    # Equal code objects in two modules compare equal (the file and globals are not part of code
    # equality), and each needs its own derived rule, bound to its own globals.
    if fn.__code__ is _ENTRY_CODE and getattr(fn, "__mc_jacobian__", None) is not None:
        return _JACOBIAN_RULE  # (a Jacobian function: its derivative is another Jacobian, higher.jacobian_forward)
    if _WRITTEN_AHEAD and (written := prebuilt.forward_rule(fn)) is not None:
        return written  # (while a module `mooncake-ast generate` wrote runs: its derivative, nothing derived)
    key = (fn.__code__, id(fn.__globals__), kinds)
    rule = _DERIVED.get(key)
    if rule is None or rule.stale(fn):
        names = _SIGNATURES.get(fn.__code__, (None,))[0] or list(_code_signature(fn).parameters)
        try:
            rule = DerivedForward(fn, dict(zip(names, kinds)) if kinds else {})
        except SourceUnavailableError as e:
            raise MissingRuleError(fn, "forward", f"no Python source: {e}") from None
        _DERIVED[key] = rule
    LATEST[fn.__code__] = rule  # (made or reused: what `mc.source` shows is the rule the last call ran)
    return rule


class _JacobianRule:
    """The forward rule of a function made by mc.jacfwd / mc.jacrev / mc.hessian (its code is a wrapper's, not
    differentiable as code): `higher.jacobian_forward`, called as derived rules are (the function, its tangent, the
    bound *args and **kwargs, their tangents)."""

    takes_self = True

    @staticmethod
    def fn(J: Any, dJ: Any, args: tuple, kwargs: dict, dargs: tuple, dkwargs: dict) -> tuple:
        from ..higher import jacobian_forward

        return jacobian_forward(J, args, kwargs, dargs)

    def stale(self, fn: Any) -> bool:
        return False

    def call_bound(self, fn: Any, dfn: Any, primals: tuple, tangents: tuple) -> tuple:
        return self.fn(fn, dfn, *primals, *tangents)


def _entry_code() -> Any:
    from ..tracebacks import user_errors

    return user_errors(len).__code__  # (every wrapper user_errors makes runs this code)


_ENTRY_CODE = _entry_code()
state.CALL_CODES.update({fcall.__code__, DerivedForward.call_bound.__code__, DerivedForward.__call__.__code__})
_JACOBIAN_RULE = _JacobianRule()


def clear() -> None:
    _DERIVED.clear()
    _FAST_CALLS.clear()
