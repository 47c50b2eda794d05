"""Rules of the API entry points, so that derivatives nest (`grad(grad(f))`, `jvp(grad(f))`, ...).

The entry points are not traced as code (their bodies manage tapes and contexts); they are
primitives, and their rules apply a transformation to the *generated* code:

* `jvp(f, primals, tangents)` (and the run-time dispatcher `fcall` that forward code calls) is,
  under an outer transformation, a call of f's generated forward function `f__jvp(*primals,
  *tangents)`, which is ordinary Python: reverse mode differentiates it (reverse over forward) and
  forward mode differentiates it again (forward over forward).
* `grad(f)(*args)` is differentiated through the symmetry of second derivatives, never by
  differentiating the tape-driven reverse code: the tangent of the gradient in direction `v` is
  the gradient of the directional derivative, `d/dt grad f(a + t v) = grad_a (Df(a)[v])`, and the
  adjoint of the gradient for a cotangent `w` is `grad_a (Df(a)[w])` as well.  So every nesting
  becomes reverse mode over forward code, which composes to any order.

Run-time helpers that generated forward code calls (`_mc.pow_deriv`, `_mc.storage_of`, ...) get
their rules in forward_code_rules.py, those that write tangents or read objects' tangents (`_mc.update`,
`_mc.getattr_tangent`, ...) through plain-Python twins (nested_helpers.py); calls forward code dispatches
on objects, classes, array and list methods and writes get their plans in nested_plans.py.  What cannot
be nested correctly raises a NestingError naming it.
"""
from __future__ import annotations

import operator
import types
from typing import Any

import numpy as np

from ..forward.runtime import conform as _conform
from ..api import Differentiable, ValueAndGrad, jvp as _jvp_api
from ..forward import objects as _objects
from ..forward.runtime import _bind_fast, argument_kinds, derived_forward, fcall as _fcall_rt
from ..reverse.adjoints import AdjTuple
from ..reverse.runtime import rcall
from ..tangents import FunctionTangent, MethodTangent, MutableTangent, NoTangent, materialize
from ..tangents import storage as _storage
from .operator_rules import _is_concatenator, integer_scalar
from .builtin_rules import cell_tangent_get as _cell_tangent_get, storage_of as _storage_of
from . import helpers as h
from .registry import bump_version, defzero, lookup
from .nested_plan_kit import _Plan, _dense, _plain_outer
from . import nested_ufunc_methods as _ufunc_methods
from .nested_api_plans import _fcall_plan, _grad_plan, _jvp_plan, refuse_not_implemented as _refuse_not_implemented
from .nested_plans import method_parts
from .python_caches import unmemoised
from .nested_fcall_rules import _by_keys, _fcall_frule, _fcall_rrule  # noqa: F401
from .nested_grad_objects import (_CONSTANT, _TRACED, _captures_values, _cell_full, _factory_frule,  # noqa: F401
                                  _factory_rrule, _refuse_captures, _refuse_traced_captures, constant_callable,
                                  is_constant)
from . import nested_templates as _nested_templates
from . import nested_variadic as _nested_variadic
from . import nested_scalar_item as _nested_scalar_item
from . import nested_closures_third as _nested_closures_third
from .nested_closures_third import plan as _third_closure_plan
from . import nested_helpers as _nested_helpers
from .nested_calls import (_constant_defaults, _fcall_keywords_plan, _keywords_positional,  # noqa: F401
                           _frozen, _module_level_constant, _positional, _refuse_reverse_over_nested_state,
                           defaults_kept, extra_zero, frozen_default, no_defaults as _no_defaults, plan_kinds,
                           read_only_default, takes_frozen_default)
from .nested_cells import as_function_tangent as _as_function_tangent, outermost_constants, owned_cells, owned_tangent, \
    rebinds_captured
from .forward_code_rules import NestingError, _expand, _name, _prepare_cells, _zero, user_rule  # noqa: F401
from . import plain_forwards as _plain_forwards  # noqa: E402
from .plain_forwards import (_PLAIN, _conform_fwd, _log_for_pow_at_fwd, _log_for_pow_fwd, _pow_const_fwd,  # noqa: F401
                             _pow_deriv_fwd, _pow_deriv_full_fwd, _pow_deriv_int_fwd, _pow_full_fwd, _pow_int_fwd,
                             _storage_fwd, _view_read_fwd, _zero_fwd, _zero_kw_fwd)


# ---------------------------------------------------------------- the forward function of a call


def _refuse_lazy_second_order(f: Any, dy: Any) -> None:
    """Second derivatives (forward over reverse) of Dask arrays are not supported yet (issue 15): say so."""
    from ..arrays import library_of_type
    from ..errors import UnsupportedInputError

    lib = library_of_type(type(dy))
    if lib in ("dask", "cupy"):
        name, how = ("Dask", "compute the input first (x.compute())") if lib == "dask" else ("CuPy", "bring the input "
                                                                                             "to the host (x.get())")
        raise UnsupportedInputError(f"the Hessian of {_name(f)}: second derivatives of {name} arrays are not supported "
                                    f"yet (first derivatives are: mc.jvp, mc.vjp, mc.grad); {how} to differentiate "
                                    f"with NumPy")


def _plan(f: Any, df: Any, args: tuple, dargs: tuple, kwargs: Any = None, reverse: bool = False,
          keys: tuple = ()) -> _Plan:
    """`reverse`: the plan is for reverse mode over the call in the computation now running (_rev_fcall), which
    takes a closure's nonzero tangent where it was made in this computation (nested_cells.owned_tangent).  `keys`:
    the last len(keys) arguments are keywords of those names (a variadic function's call: nested_variadic.py)."""
    if keys:
        from .nested_variadic import variadic_plan

        plan = variadic_plan(f, df, tuple(args), tuple(dargs), tuple(keys))
        if plan is None:
            raise NestingError(f"nested derivative of {_name(f)}: differentiated keyword arguments are not supported "
                               f"nested")
        return plan
    if isinstance(f, Differentiable):
        f = f.__wrapped_fn__
    f = unmemoised(f)  # (`@functools.cache`: the function it wraps, as at first order)
    same = _ufunc_methods.as_function(f, args, kwargs)
    if same is not None:  # (`np.add.reduce(A, axis=1)`: np.sum's plan, nested_ufunc_methods.py)
        return _ufunc_methods.function_plan(same, df, tuple(args), tuple(dargs), reverse)
    n = len(args)
    if not kwargs and _zero(df):
        from . import itertools_models, nested_copies, nested_draws, nested_stats, nested_stats_frozen

        model = nested_stats.model_for(f, args, None) or nested_draws.model_for(f, args, None) or \
            nested_stats_frozen.maker_for(f, args, None) or itertools_models.model_for(f, args, None) or \
            nested_copies.model_for(f, args, None)
        if model is None:  # (a scipy.sparse matrix times a dense array: scipy_sparse_models.py)
            from . import scipy_sparse_models

            model = scipy_sparse_models.model_for(f, args, None)
        if model is not None:  # (a scipy.stats density or a draw called positionally: its plain model)
            return _plan(model, NoTangent, args, dargs, None, reverse)
    if not kwargs and _nested_scalar_item.is_scalar_item(f, args):  # (`x[1].item()`: nested_scalar_item.py)
        plan = _nested_scalar_item.item_plan(f, df)
        if plan is not None:
            return plan
    special = _special_plan(f, df, args, dargs, kwargs)
    if kwargs and special is None and _constant_call(f, args, dargs, kwargs):
        # (`rng.normal(size=(4, 3))`: a draw, or a function with no derivative, given only values that are never
        # differentiated: a constant at every order)
        return _Plan(_zero_kw_fwd, (f, tuple(args), dict(kwargs)), lambda b: (NoTangent, _expand(b[1], n), (NoTangent,) * n),
                     lambda tf, targs, tdargs: (NoTangent, targs, NoTangent), layout=None)
    if kwargs:
        if special is None:
            raise NestingError(f"nested derivative of {_name(f)}: keyword arguments are not supported nested")
    if special is not None:
        return special
    if not _zero(df) and not isinstance(f, (types.FunctionType, types.MethodType)):
        raise NestingError(f"nested derivative: the callable {_name(f)} itself has a nonzero tangent; differentiating "
                           f"through what a callable object captures is not supported nested: pass those values as arguments")
    if isinstance(f, ValueAndGrad):
        return _grad_plan(f, args, dargs)
    if f is _api_jvp():
        return _jvp_plan(args, dargs)
    if f is _fcall_rt:
        return _fcall_plan(args, dargs)
    if getattr(f, "__mc_jacobian__", None) is not None:  # (mc.hessian(g)(w) inside: nested_jacobians.py)
        from .nested_jacobians import jacobian_plan

        return jacobian_plan(f, df, tuple(args), tuple(dargs))
    third = _third_closure_plan(f, args, dargs)
    if third is not None:  # (a closure made by forward code of forward code: nested_closures_third.py)
        return third
    plain = _PLAIN.get(f) if _hashable(f) else None
    if f is np.copy and n == 1:  # (`_mc.linear(np.copy, da)`, differentiated at a third order)
        plain = _copy_fwd
    if f is _nested_helpers.with_dense_tangent and n == 2:  # (mc.jvp's result, at a fourth order: an identity)
        from ..higher_traced import with_dense_tangent_forward as plain
    if f is np.putmask and _plain_forwards.putmask_plain(args):  # (a masked write: plain_forwards._putmask_fwd)
        plain = _plain_forwards._putmask_fwd
    if plain is None and type(f) is types.BuiltinMethodType and isinstance(getattr(f, "__self__", None), np.ufunc):
        from .numpy_ufunc_at import scatter_forward

        plain = scatter_forward(f, args, dargs)  # (np.add.at / np.subtract.at: the scatter of the tangents, plain NumPy)
    if f is operator.getitem and n == 2 and not _is_concatenator(args[0]):
        # an index is never differentiated (but np.r_'s): view_read's forward code adds no index tangent, which
        # getitem's added to the item's (`list + NoTangent` raised a TypeError at the third order: an item of a
        # tuple holding a list)
        plain = _view_read_fwd
    if f is _with_index_tangent() and n == 4 and not _is_concatenator(args[1]):
        # (an item read with an index of unknown type, `x[i]` in a loop, in forward code of forward code: the item, as
        # is; was refused at the third order, "the forward derivative of with_index_tangent comes from a hand-written
        # rule")
        plain = _nested_helpers.with_index_tangent_fwd
    # An integer exponent (`x ** 2`) is constant at every order whatever its tangent holds (through int()); an
    # exponent whose tangent is symbolically zero is a constant here; a tangent that is zero in value may belong
    # to a differentiated exponent, whose derivative an outer derivative needs.
    if f is h.pow_deriv:
        plain = _pow_deriv_int_fwd if integer_scalar(args[1]) else \
            _pow_deriv_fwd if _symbolic_zero(dargs[1]) or _integer(args[1]) else _pow_deriv_full_fwd
    elif f is operator.pow:
        plain = _pow_int_fwd if integer_scalar(args[1]) else \
            _pow_const_fwd if _symbolic_zero(dargs[1]) or _integer(args[1]) else _pow_full_fwd
    elif f is h.log_for_pow and n in (1, 2):
        plain = _log_for_pow_fwd if n == 1 else _log_for_pow_at_fwd
    elif _storage_like(f):
        plain = _storage_fwd if f is not _conform_target() else _conform_fwd
    rule = lookup(f) if plain is None and _hashable(f) else None
    if f is _cell_tangent_get or f is _cell_tangent():
        # (a closure's tangent cell read, dispatched by forward code differentiated again: zero where the tangent it
        # reads from is; a closure's nonzero tangent reaches forward code now (_closure_forward_plan), so a nonzero
        # one here is refused, never dropped)
        if not all(_zero(d) or type(d) is types.CellType and not _cell_full(d) for d in _expand(dargs, n)[:1]):
            raise NestingError(f"nested derivative: the tangent cells of a closure whose captured variables are "
                               f"differentiated, read at this order ({_name(f)}), are not supported; pass those "
                               f"variables as arguments")
    if rule is not None and (rule.zero or f is _cell_tangent_get or f is _cell_tangent()) and \
            (not isinstance(f, type) or f in (bool, int, str)):  # (a builtin conversion with no derivative: bool(x))
        # (a closure's tangent cell read, dispatched by forward code differentiated again: a zero there, where
        # forward mode passes closures' tangents as the constant zero; forward_code_rules.py)
        return _Plan(_zero_fwd, (f, tuple(args)), lambda b: (NoTangent, _expand(b[1], n), (NoTangent,) * n),
                     lambda tf, targs, tdargs: (NoTangent, targs), layout=None)
    if plain is not None:
        plan = _Plan(plain, (*args, *_dense(dargs, args)), lambda b: (NoTangent, tuple(b[:n]), tuple(b[n:])),
                     _plain_outer, layout=(False, ()))
        # an integer argument (`x ** 2`'s exponent) and its tangent are constants: no adjoint, whose terms (the
        # exponent's log(base), nan below 0) would only add nan times zero
        plan.inactive = frozenset(k for i, a in enumerate(args) if _integer(a) for k in (i, n + i))
        if plain is _log_for_pow_at_fwd:  # (its z only picks log|base| or nan below 0: piecewise constant)
            plan.inactive |= {1, 3}
        return plan
    if isinstance(f, types.MethodType) and isinstance(f.__func__, types.FunctionType) and lookup(f) is None:
        from .nested_stats_frozen import FrozenModel

        if isinstance(f.__self__, FrozenModel):  # (a frozen distribution's method: checked against SciPy's value)
            f.__self__.check(f.__name__, tuple(args))
        dself = df.self_tangent if isinstance(df, MethodTangent) else NoTangent
        inner = _plan(f.__func__, NoTangent, (f.__self__, *args), (dself, *dargs))
        split_method, outer_method, df_bar = method_parts(inner)
        plan = _Plan(inner.fn, inner.call_args, split_method, outer_method)
        plan.df_bar, plan.takes_df = df_bar, True
        plan.arg_pos = inner.arg_pos[1:] if inner.arg_pos is not None else None
        plan.tan_pos = inner.tan_pos[1:] if inner.tan_pos is not None else None
        return plan
    if isinstance(f, types.FunctionType) and lookup(f) is None:
        # zero tangents of arrays as dense zeros: the forward code is specialised on argument kinds, and a
        # symbolic zero would make its array operations dispatch at run time (slow under reverse mode)
        # and a float's as 0.0: the code is typed on argument kinds, and typed for a number it computed `db = ones *
        # dx` as NoTangent for dx NoTangent, whose writes through `b.flat[i]` or a view were dropped (jvp(jacrev(f)))
        dargs = tuple(materialize(d, a) if d is NoTangent and isinstance(a, np.ndarray) and a.dtype.kind == "f" else
                      0.0 if d is NoTangent and type(a) is float else d for a, d in zip(args, dargs))
        if _variadic(f) and not _only_module_keywords(f, n) and _nested_variadic.is_variadic_function(f):
            from .nested_variadic import variadic_plan

            return variadic_plan(f, df, tuple(args), tuple(dargs))  # (`*vals`, `**extra`: nested_variadic.py)
        primals, tangents = _bind_keyword_only(f, args, dargs)
        m = len(primals)
        if (m != n or _variadic(f)) and not _only_module_keywords(f, n) and not _constant_defaults(f, n, m):
            from .nested_defaults import defaults_plan

            plan = defaults_plan(f, df, tuple(args), tuple(dargs), reverse)
            if plan is not None:  # (defaults made inside differentiated code: extra arguments, with their tangents)
                return plan
            raise NestingError(f"nested derivative of {_name(f)}: call it with all its parameters given positionally "
                               f"(defaults, *args and keywords are not supported nested)")
        # (generated code's `*, _mc=_mc` keywords are parameters of its own forward code: passed, zero tangent)
        try:
            rule = derived_forward(f, plan_kinds(primals, tangents))
        except SyntaxError as e:  # the emitter's names for a derivative of a derivative of a derivative can clash
            raise NestingError(f"nested derivative of {_name(f)}: the generated forward code of this order does not "
                               f"compile ({e.msg}); use reverse mode for the outer derivatives") from e
        if m > n:  # (array defaults as read-only copies; the extras' zero tangents dense: nested_calls.extra_zero)
            primals = (*primals[:n], *(frozen_default(p) for p in primals[n:]))
            tangents = (*tangents[:n], *(extra_zero(p) for p in primals[n:]))
        # (one zero per extra, in each place it goes: forward code writes a tangent only where it writes the value,
        # which a read-only default refuses)
        pad = tuple(extra_zero(p) for p in primals[n:])
        if rule.takes_self:
            # (its defaults are not read where the call gives every parameter: `inner(s, v)` of `def inner(s, v=a)`)
            given = m == n and not f.__kwdefaults__
            # (a closure rebinding what it captures writes its tangent cells: it gets them even while they hold no
            # tangent yet, the first call of `nonlocal total; total = total + v * v` in a loop)
            stateful = isinstance(df, FunctionTangent) and rebinds_captured(f)
            if (not _zero(df) or stateful) and reverse and \
                    owned_tangent(f, _no_defaults(df) if given else df, not given):
                # a closure over differentiated values made in this computation, with its tangent (forward code
                # calling it): its forward code reads both's cells, whose adjoints go into the cells' storage, which
                # the pullback of the code that made them reads (_prepare_all_cells)
                plan = _Plan(rule.fn, (f, df, *primals, *tangents),
                             lambda b: (NoTangent, tuple(b[2:2 + n]), tuple(b[2 + m:2 + m + n])), None)
                plan.arg_pos = list(range(2, 2 + n))
                plan.tan_pos = list(range(2 + m, 2 + m + n))
                plan.defaults_passed = f if given else None
                return plan
            if not _zero(df) or stateful:
                if reverse or not isinstance(df, FunctionTangent):
                    raise NestingError(f"nested derivative of {_name(f)}: differentiating with respect to the variables "
                                       f"the function captures (closure, defaults) is not supported nested; pass them "
                                       f"as arguments")
                from .nested_closures import closure_forward_plan

                return closure_forward_plan(f, df, rule, primals, tangents, n)
            plan = _Plan(rule.fn, (f, NoTangent, *primals, *tangents),
                         lambda b: (NoTangent, tuple(b[2:2 + n]), tuple(b[2 + m:2 + m + n])),
                         lambda tf, targs, tdargs: (tf, NoTangent, *targs, *pad, *tdargs, *pad),
                         layout=(True, tuple(primals[n:])))
            if is_constant(f) or not _captures_values(f):
                plan.inactive = frozenset({0, 1})  # what f captures is a constant here: no adjoint
            plan.arg_pos = list(range(2, 2 + n))
            plan.tan_pos = list(range(2 + m, 2 + m + n))
            return plan
        plan = _Plan(rule.fn, (*primals, *tangents), lambda b: (NoTangent, tuple(b[:n]), tuple(b[m:m + n])),
                     lambda tf, targs, tdargs: (*targs, *pad, *tdargs, *pad), layout=(False, tuple(primals[n:])))
        plan.arg_pos = list(range(n))
        plan.tan_pos = list(range(m, m + n))
        return plan
    if rule is not None and _nested_templates.qualifies(f, rule):
        plan = _nested_templates.template_plan(f, args, dargs, reverse)
        if plan is not None:  # (a primitive dispatched at run time: its template, inlined in a wrapper's forward code)
            return plan
    if rule is None and _constant_call(f, args, dargs, {}):
        # a callable with no rule given only values that are never differentiated (`np.random.default_rng(0)`): a
        # constant at every order, as forward mode found it (a float argument would need a rule: refused below)
        return _Plan(_zero_fwd, (f, tuple(args)), lambda b: (NoTangent, _expand(b[1], n), (NoTangent,) * n),
                     lambda tf, targs, tdargs: (NoTangent, targs), layout=None)
    from ..frontend.try_ops import guarded_call

    if f is guarded_call:  # (how a `try` statement runs its body's calls: the user knows the statement, not this)
        raise NestingError("nested derivative: a `try` statement of your function is not supported at second order; "
                           "test the condition with an `if` before the operation that would fail, or move the "
                           "try/except into a function you do not differentiate twice")
    raise NestingError(f"nested derivative: the forward derivative of {_name(f)} comes from a hand-written rule, which "
                       f"has no derivative of its own; higher derivatives through it are not supported: write the "
                       f"line without it, or register a rule for a function of yours that calls it")


def _bind_keyword_only(f: Any, args: tuple, dargs: tuple) -> tuple:
    """_bind_fast of f's call with args (and tangents dargs), those after its positional parameters its keyword-only
    ones in order (a keyword call planned positionally: nested_calls._keywords_positional)."""
    code = f.__code__
    k = code.co_argcount
    if len(args) <= k or _variadic(f) or len(args) > k + code.co_kwonlyargcount:
        return _bind_fast(f, NoTangent, args, dargs, {}, {})
    names = code.co_varnames[k:len(args)]
    return _bind_fast(f, NoTangent, tuple(args[:k]), tuple(dargs[:k]), dict(zip(names, args[k:])),
                      dict(zip(names, dargs[k:])))


def _copy_fwd(a, da):
    return np.copy(a), np.copy(da)


def _special_plan(f: Any, df: Any, args: tuple, dargs: tuple, kwargs: Any) -> Any:
    from .nested_plans import special_plan

    return special_plan(f, df, args, dargs, kwargs)


def _symbolic_zero(d: Any) -> bool:
    return d is NoTangent or d is None


def _integer(v: Any) -> bool:
    """An int (not a bool), a NumPy integer or an integer array: a value that is never differentiated."""
    return integer_scalar(v) or (isinstance(v, np.ndarray) and v.dtype.kind in "iu")


def _constant_call(f: Any, args: tuple, dargs: tuple, kwargs: dict) -> bool:
    """Is f a builtin (or a method of numpy.random's generators) with no rule or a draw's, called with zero tangents
    on values no derivative flows through, so that its result is a constant at every order?  (Python functions are
    differentiated instead: what they read besides their arguments may depend on the input.)"""
    if isinstance(f, types.FunctionType) or isinstance(getattr(f, "__func__", None), types.FunctionType) or \
            not all(_zero(d) for d in _expand(dargs, len(args))):
        return False
    owner = getattr(f, "__self__", None)
    if not (owner is None or isinstance(owner, types.ModuleType) or
            type(owner).__module__.startswith("numpy.random")):
        return False
    rule = lookup(f) if _hashable(f) else None
    if rule is not None and not rule.zero and not type(owner).__module__.startswith("numpy.random"):
        return False
    return all(_inert(a) for a in args) and all(_inert(v) for v in kwargs.values())


def _inert(v: Any) -> bool:
    """A value no derivative ever flows through: None, a bool, a string, an integer, an integer or bool array, or
    a tuple of those (a shape)."""
    if isinstance(v, tuple):
        return all(_inert(x) for x in v)
    return v is None or isinstance(v, (bool, str, bytes, np.bool_)) or _integer(v) or \
        (isinstance(v, np.ndarray) and v.dtype.kind == "b")


def _variadic(f: Any) -> bool:
    """Does f take *args or **kwargs (so that its parameters are not its positional arguments one by one)?"""
    return bool(f.__code__.co_flags & (0x04 | 0x08))  # CO_VARARGS | CO_VARKEYWORDS


def _only_module_keywords(f: Any, n: int) -> bool:
    """Are f's parameters after the first n keyword-only ones whose defaults are modules (as in generated code)?"""
    import inspect

    params = list(inspect.signature(f, follow_wrapped=False).parameters.values())
    rest = params[n:]
    return len(params) > n and all(p.kind is p.KEYWORD_ONLY and isinstance(p.default, types.ModuleType) for p in rest)


def _storage_like(f: Any) -> bool:
    return f is _storage or f is _storage_of or f is _conform


def _cell_tangent() -> Any:
    from ..forward.transform import cell_tangent

    return cell_tangent


def _conform_target() -> Any:
    return _conform


def _api_jvp() -> Any:
    return _jvp_api


def forward_code(f: Any, args: tuple, dargs: tuple) -> Any:
    """(the generated forward function that computes `fcall(f, 0, args, dargs)`, whether it takes (f, df) first (None:
    its plan arranges the arguments), its constant extra arguments, their zero tangents twice)."""
    plan = _plan(f, NoTangent, tuple(args), tuple(dargs))
    if plan.layout is None:  # (a plan that arranges its own arguments: nested_plans.plan_args, plan_tangents)
        return plan.fn, None, (), (), ()
    takes_self, extra = plan.layout
    return plan.fn, takes_self, extra, tuple(extra_zero(p) for p in extra), (None,) * len(extra)


def _with_index_tangent() -> Any:
    from .operator_rules import with_index_tangent

    return with_index_tangent


def _hashable(f: Any) -> bool:
    try:
        hash(f)
        return True
    except TypeError:
        return False


# ---------------------------------------------------------------- rules of fcall and jvp


def _prepare_all_cells(call_args: tuple, defaults_passed: Any = None) -> None:
    """Functions passed to forward code that capture differentiable values: constants of the differentiation
    now running get cell storage their explicit reads add into (the adjoint is dropped: they are constants);
    a closure made by the reverse computation now running gets the same storage, which that computation's pullback
    reads (nested_cells.owned_cells); any other is refused, since what it captures may be differentiated.
    `defaults_passed`: the function whose defaults the call passes as arguments (nested_defaults.defaults_plan)."""
    for a in call_args:
        if isinstance(a, FunctionTangent):  # (a closure's tangent, passed with it: nested_cells.owned_tangent)
            _prepare_cells(a)
        if isinstance(a, types.FunctionType) and a.__closure__:
            if _captures_values(a) and not is_constant(a) and not _module_level_constant(a) and \
                    not owned_cells(a, a is not defaults_passed) and not outermost_constants(a):
                raise NestingError(f"nested derivative of {_name(a)}{_defined_at(a)}: reverse mode over the forward "
                                   f"code of a function "
                                   f"that captures values (closure variables) made inside differentiated code is not "
                                   f"supported here (the closure was made by an enclosing derivative, or captures them "
                                   f"through defaults); pass those values as arguments")
            # (also cells of ints and other constants: a read's adjoint, computed all the same (`t * k` of an int k),
            # has storage to go to, where it is dropped; plain cell storage has none, an AttributeError)
            _prepare_cells(a)


def _defined_at(f: Any) -> str:
    """` (file.py:line)` of a Python function's definition, for refusals."""
    code = getattr(f, "__code__", None)
    return f" ({code.co_filename.rsplit('/', 1)[-1]}:{code.co_firstlineno})" if code is not None else ""


def _rev_fcall(f: Any, df: Any, args: tuple, dargs: tuple, kwargs: Any = None, keys: tuple = ()) -> tuple:
    """Reverse rule of `fcall(f, df, args, dargs) -> (y, dy)`: reverse mode over f's forward code."""
    args, dargs = tuple(args), _expand(dargs, len(args))
    plan = _plan(f, df, args, dargs, kwargs, reverse=True, keys=keys)
    if plan.grad_of is not None:
        _refuse_traced_captures(plan.grad_of, objects=False)  # (a callable object's fields: its forward code's arguments)
    # modules passed as arguments (generated code's `_mc`, a parameter of its own forward code) are constants, and so
    # is a symbolic zero tangent: differentiated, the forward code's operations on it (`np.sum(dv)` of a NoTangent dv)
    # got adjoints of the wrong shape (hessian of `f(0.5, a)` where f's array result depends on its float argument only)
    wrt = frozenset(i for i, a in enumerate(plan.call_args) if not isinstance(a, types.ModuleType)
                    and i not in plan.inactive and a is not NoTangent)
    _prepare_all_cells(plan.call_args, plan.defaults_passed)
    frozen = _refuse_reverse_over_nested_state(f, plan.fn)
    if frozen:  # (module-level arrays the code keeps storage of: read-only meanwhile, nested_calls.py)
        with _frozen(f, frozen):
            out, pb = rcall(plan.fn, plan.call_args, {}, wrt=wrt if isinstance(plan.fn, types.FunctionType) else None)
    else:
        with defaults_kept(f, takes_frozen_default(plan.call_args)):
            out, pb = rcall(plan.fn, plan.call_args, {}, wrt=wrt if isinstance(plan.fn, types.FunctionType) else None)
    _refuse_not_implemented(f, out)

    def pullback(g: Any) -> tuple:
        try:
            _, bars, _ = pb(g)
        except AttributeError as e:
            if "ShadowCell" not in str(e):
                raise
            raise NestingError(f"nested derivative of {_name(f)}: reverse mode over its forward code cannot route "
                               f"adjoints into a number or tuple that it captures from an enclosing function; pass "
                               f"those values as arguments (captured arrays and lists work)") from e
        f_bar, a_bar, d_bar = plan.split(tuple(bars))
        df_bar = plan.df_bar(tuple(bars)) if plan.df_bar is not None else NoTangent
        return f_bar, AdjTuple(a_bar), AdjTuple(d_bar), df_bar

    return out, pullback


def _fwd_fcall(f: Any, df: Any, args: tuple, dargs: tuple, tf: Any, tdf: Any, targs: Any, tdargs: Any,
               kwargs: Any = None, keys: tuple = ()) -> tuple:
    """Forward rule of `fcall`: forward mode over f's forward code."""
    fcall = _fcall_rt
    args, dargs = tuple(args), _expand(dargs, len(args))
    n = len(args)
    targs, tdargs = _expand(targs, n), _expand(tdargs, n)
    plan = _plan(f, df, args, dargs, kwargs, keys=keys)
    if plan.grad_of is not None and not _zero(tf):
        raise NestingError(f"nested derivative of {plan.grad_of!r}: its function has a nonzero tangent (it captures "
                           f"differentiated variables); pass them as arguments instead")
    kept = defaults_kept(f, takes_frozen_default(plan.call_args))
    if plan.takes_df:
        with kept:
            out = fcall(plan.fn, NoTangent, plan.call_args, plan.outer(tf, targs, tdargs, tdf))
    elif not _zero(_as_function_tangent(tdf)):  # (forward code's FunctionTangent, differentiated: nested_cells)
        raise NestingError("nested derivative: the tangent of a callable's tangent is not supported")
    else:
        outer = plan.outer(tf, targs, tdargs)
        if plan.inactive:  # (constants: their tangents are the symbolic zero, never a dense one)
            outer = tuple(NoTangent if i in plan.inactive else t for i, t in enumerate(outer))
        with kept:
            out = fcall(plan.fn, NoTangent, plan.call_args, outer)
    _refuse_not_implemented(f, out[0])
    return _result_storage(out)


def _result_storage(out: tuple) -> tuple:
    """out = ((y, dy), its tangent) with tangent storage for a list, dict or float array y or dy whose tangent is the
    symbolic zero: the code that called fcall may write into them (`xs[i] = ...` and its tangent's twin `dxs[i] = ...`
    after `xs = a[0]` of a tuple without tangent storage), and a write into a symbolic zero is dropped (jvp(jvp(f)) of
    an update of a list read from a tuple was zero).  So does an object's tangent; user objects are left as they are
    (nested_plans.py)."""
    (y, dy), t = out
    ty, tdy = _expand(t, 2)
    ty2, tdy2 = _plain_storage(y, ty), _plain_storage(dy, tdy)
    if ty2 is ty and tdy2 is tdy:
        return out
    return (y, dy), (ty2, tdy2)


def _plain_storage(v: Any, t: Any) -> Any:
    if t is not NoTangent and t is not None:
        return t
    if type(v) is np.ndarray:
        return np.zeros_like(v) if v.dtype.kind in "fc" else t
    if type(v) is list or type(v) is dict or type(v) is MutableTangent:
        # (a MutableTangent value: an object's tangent made by forward code being differentiated, as construct_fwd's
        # `to = new_tangent()`, whose fields __init__'s forward code writes: jvp(jvp(jvp(f))) of `Box(x * x).x`
        # lost them)
        return _storage(v, NoTangent)
    return t


# hvp_core (reverse mode over f's forward code: Hessian-vector products) and its helpers live in hvp_core.py; the
# rules and the API find them here too.
from .hvp_core import _plain_floats, _real_scalar, hvp_core, refuse_hessian_result  # noqa: E402,F401


# ---------------------------------------------------------------- run-time helpers of generated forward code


def _defs() -> None:
    from ..api import Grad, ValueAndGrad, jvp
    from ..forward.runtime import fcall

    from .nested_api_calls import _grad_frule, _grad_rrule, _jvp_frule, _jvp_rrule

    user = user_rule
    user(jvp, _jvp_frule, _jvp_rrule)
    user(fcall, _fcall_frule, _fcall_rrule)
    # A cell and its tangent cell made by forward code of forward code (nested_closures_third.new_cell_fwd),
    # differentiated once more: each has a tangent cell of its own (a fourth order refuses: this rule has none)
    new_cells = _nested_closures_third.new_cell_fwd
    user(new_cells, lambda p, t, **kw: (new_cells(), new_cells()), lambda: (new_cells(), lambda g: ()))
    # A dispatched call may write into what it is given (`acc.add(v)` changes acc and its tangent, reached
    # through the bound method and its MethodTangent): activity analysis of forward code must see those writes.
    lookup(fcall).mutates = (1, 2, 3)  # (not the callable: a global class or function is not written)
    user(ValueAndGrad.__call__, _grad_frule, _grad_rrule)
    user(Grad.__call__, _grad_frule, _grad_rrule)
    from .. import api

    for factory in (api.grad, api.value_and_grad):
        user(factory, _factory_frule(factory), _factory_rrule(factory))
    # (mc.vjp has no rule: traced, its body is refused as unsupported syntax, an error, as wanted)

    defzero(forward_code)
    bump_version()


_defs()
