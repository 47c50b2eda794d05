"""Plans of dispatched calls on objects and arrays, for derivatives of derivatives.

Forward code leaves some calls to run-time dispatch (`_mc.fcall(setattr, ...)`, `_mc.fcall(Lin, ...)`,
`_mc.fcall(m, dm, ...)` for a callable object, `_mc.fcall(x.copy, ...)`).  Nested, such a call is one
call of ordinary Python computing `(y, dy)` (api_rules._plan): here, the forward functions of
nested_helpers.py, or the derived forward code of the user method the call runs.

Tangents of objects (`MutableTangent`) are passed as they are, never copied: forward code writes an
object's field tangents into them, and reverse mode routes their adjoints by identity.
"""
from __future__ import annotations

import builtins
import copy
import functools
import operator
import sys
import types
from typing import Any, Optional

import numpy as np

from ..forward.dataclass_init import dataclass_init
from ..forward import objects as _objects
from ..frontend import generator_ops as _generator_ops, try_ops as _try_ops
from ..reverse.adjoints import MethodAdjoint
from ..tangents import MethodTangent, MutableTangent, NoTangent, zero_tangent
from . import nested_guarded as _nested_guarded, nested_helpers as nh, nested_iteration as _nested_iteration
from .nested_array_methods import array_method_plan
from .nested_partials import is_partial
from .nested_containers import (dict_method_plan, is_dict_method, is_plain_namedtuple, list_method_plan,
                                namedtuple_plan, zip_plan)
from .nested_plan_kit import (_among, _api, _dense_keep, _dense_one, _plain_plan, _refuse, _user_class, _user_object,
                              _zero_plan)


def _is_factory(f: Any) -> bool:
    """mc.grad, mc.value_and_grad, mc.jacfwd, mc.jacrev, mc.hessian (their results are constants of a derivative)."""
    from .. import api, higher

    return any(f is g for g in (api.grad, api.value_and_grad, higher.jacfwd, higher.jacrev, higher.hessian))


def _factory_plan(f: Any, args: tuple, dargs: tuple, kwargs: Any) -> Any:
    """`mc.grad(g, ...)` (and the other factories) in forward code differentiated again: a constant made by a call
    through the factory's own rules (higher.factory_fwd), which mark it made inside differentiated code; refused where
    g has a tangent (it captures differentiated values), as the factory's rules refuse it."""
    from ..higher import factory_fwd

    api = _api()
    n = len(args)
    d = api._expand(dargs, n)
    if n and not api._zero(d[0]):
        raise _refuse(f"mc.{f.__name__} of a function whose captured variables are differentiated (pass them as "
                      f"arguments instead)")
    return api._Plan(factory_fwd, (f, tuple(args), dict(kwargs or {})),
                     lambda b: (NoTangent, (NoTangent,) * n, (NoTangent,) * n),
                     lambda tf, targs, tdargs: (NoTangent, NoTangent, NoTangent))


def _is_hvp(f: Any) -> bool:
    from ..higher import hvp

    return f is hvp


def _plain_vectorize(vec: Any, x: Any) -> bool:
    """An np.vectorize of a Python function with no signature, excluded or non-float otypes, capturing no numbers
    (numpy_vectorize's own checks), called with one float array."""
    import types

    from .numpy_vectorize import _closes_over_numbers

    otypes = getattr(vec, "otypes", None)
    return (isinstance(vec.pyfunc, types.FunctionType) and getattr(vec, "signature", None) is None
            and not getattr(vec, "excluded", None) and not (otypes and any(np.dtype(o).kind != "f" for o in otypes))
            and not _closes_over_numbers(vec.pyfunc) and isinstance(x, np.ndarray) and x.dtype.kind == "f")


def special_plan(f: Any, df: Any, args: tuple, dargs: tuple, kwargs: Any = None) -> Optional[Any]:
    """A plan for the dispatched calls handled here, or None (api_rules._plan's own branches then).

    Keyword arguments (never differentiated: the caller checked) are taken by array methods only."""
    n = len(args)
    if _is_factory(f):
        return _factory_plan(f, args, dargs, kwargs)
    if kwargs:
        if nh.is_list_method(f) and f.__name__ == "sort" and not args:
            from .nested_containers import list_sort_plan

            return list_sort_plan(f, df, kwargs)  # (`xs.sort(key=..., reverse=True)`)
        return array_method_plan(f, df, args, dargs, kwargs) if nh.is_array_method(f) else None
    if is_partial(f):
        from .nested_partials import partial_plan

        plan = partial_plan(f, df, tuple(args), tuple(dargs))
        if plan is not None:  # (functools.partial(f, w=W): f's call with W in place, nested_partials.py)
            return plan
    if f is _super_function() or f is _super_getter():  # (find a parent's method/getter from classes and a name)
        return _zero_plan(f, args)
    if _among(f, _HELPERS):
        return _helper_plan(f, args, dargs)
    if f is np.vectorize and n == 1 and all(_api()._zero(d) for d in _api()._expand(dargs, n)):
        return _zero_plan(f, args)  # (np.vectorize(g) of a g capturing nothing differentiated: a constant)
    if type(f) is np.vectorize and n == 1 and _api()._zero(df) and _plain_vectorize(f, args[0]):
        # (`np.vectorize(g)(x)` of one float array: g's forward code run entry by entry, nested_helpers.vectorize_fwd)
        plan = _api()._Plan(nh.vectorize_fwd, (f.pyfunc, args[0], _dense_one(dargs[0], args[0])),
                            lambda b: (NoTangent, (b[1],), (b[2],)),
                            lambda tf, targs, tdargs: (NoTangent, targs[0], tdargs[0]))
        plan.inactive = frozenset({0})
        return plan
    if f is operator.itemgetter and all(_api()._zero(d) for d in _api()._expand(dargs, n)):
        return _zero_plan(f, args)  # (the getter made from constant keys: a constant)
    if type(f) is operator.itemgetter and n == 1 and _api()._zero(df):
        from .nested_plan_kit import dense_same as _dense_same

        # (`operator.itemgetter(1)(L)`: the items and their tangents' items, read by the same getter; no adjoint
        # for the getter, whose keys are constants)
        plan = _api()._Plan(nh.itemgetter_fwd, (f, args[0], _dense_same(dargs[0], args[0])),
                            lambda b: (NoTangent, (b[1],), (b[2],)), lambda tf, targs, tdargs: (NoTangent, targs[0],
                                                                                               tdargs[0]))
        plan.inactive = frozenset({0})
        return plan
    if f is _try_ops.guarded_call or f is _generator_ops.finish or _among(f, _CATCHING):
        from .nested_guarded import guarded_plan

        plan = guarded_plan(f, args, dargs)
        if plan is not None:  # (a `try` body's calls, a generator's end: nested_guarded.py)
            return plan
    if _consumer(f):
        from .nested_consumers import consumer_plan

        plan = consumer_plan(f, args, dargs)
        if plan is not None:  # (map, functools.reduce, np.fromiter, statistics.fmean: nested_consumers.py)
            return plan
    if _among(f, _LINEAR_HELPERS) and n == 3:
        return _plain_plan(_LINEAR_HELPERS[f], (*args, *_dense_keep(dargs, args)), 3)
    if f is nh.new_object or f is nh.new_tangent or f is nh.zero_storage or f is nh.result_storage:
        fn = {nh.new_object: nh.new_object_fwd, nh.new_tangent: nh.new_tangent_fwd, nh.zero_storage: nh.zero_storage_fwd,
              nh.result_storage: nh.result_storage_fwd}.get(f)
        if fn is None:
            raise _refuse("a new object's tangent storage, differentiated")
        return _plain_plan(fn, (*args, *(NoTangent,) * n), n)
    if _among(f, _INPLACE) and n == 2 and not any(_user_object(a) for a in args):
        return _plain_plan(_INPLACE[f], (*args, *_dense_keep(dargs, args)), 2)
    try:
        if f is operator.setitem and n == 3:
            return _setitem_plan(args, dargs)
        if f is builtins.setattr and n == 3:
            return _setattr_plan(args, dargs)
        if f is _OBJECT_SETATTR and n == 3:  # (a frozen dataclass's __post_init__ setting a field)
            return _setattr_plan(args, dargs, past_class=True)
        if f is operator.getitem and n == 2 and _user_object(args[0]):
            return _special_method_plan(f, args, dargs)
    except TypeError:  # (unhashable operands of the comparisons above cannot occur; f is compared by identity)
        return None
    if f is builtins.iter:
        plan = _nested_iteration.iter_plan(args, dargs)
        if plan is not None:  # (a user's `__iter__` returning `iter(self.vals)`: nested_iteration.py)
            return plan
    if _among(f, _objects.ITERATION) and args and _user_object(args[0]):
        plan = _nested_iteration.iteration_plan(f, args, dargs)
        if plan is not None:  # (a class with __iter__: nested_iteration.py)
            return plan
    if f is builtins.getattr and args and _user_object(args[0]):
        from .nested_attributes import getattr_plan

        plan = getattr_plan(args, dargs)
        if plan is not None:  # (a field or property read by a dispatched getattr: nested_attributes.py)
            return plan
    if _objects.dispatches(f) and any(_user_object(a) for a in args) and not _plain_tuples(f, args):
        return _special_method_plan(f, args, dargs)
    if _seeded_draw(f) and _api()._constant_call(f, args, dargs, {}):
        # (`rng.permutation(3)`, a draw given integers only, in a draw's model (nested_draws.py): a constant at every
        # order, though the method has rules for arrays with derivatives)
        return _zero_plan(f, args)
    if nh.is_array_method(f):
        return array_method_plan(f, df, args, dargs, {})
    if _is_hvp(f):  # (mc.hvp in forward code differentiated again: its plain Python, as its rules run it)
        from ..higher import hvp_plain

        return _api()._plan(hvp_plain, df, tuple(args), tuple(dargs))
    if f is builtins.zip:
        return zip_plan(tuple(args), tuple(_api()._expand(dargs, n)))
    if nh.is_list_method(f):
        return list_method_plan(f, df, args, dargs)
    if is_dict_method(f):
        return dict_method_plan(f, df, args, dargs)
    if isinstance(f, type) and is_plain_namedtuple(f):  # (collections.namedtuple, typing.NamedTuple)
        return namedtuple_plan(f, args, dargs)
    if isinstance(f, type) and _user_class(f):
        return _construct_plan(f, args, dargs)
    if _user_object(f) and not isinstance(f, type):
        call = getattr(type(f), "__call__", None)
        if isinstance(call, types.FunctionType):
            return _object_call_plan(f, df, call, args, dargs)
    return None


def _seeded_draw(f: Any) -> bool:
    """A method of a numpy.random Generator or RandomState."""
    return type(getattr(f, "__self__", None)).__module__.startswith("numpy.random")


def _plain_tuples(f: Any, args: tuple) -> bool:
    """Are the user objects among args namedtuples whose class gives f no method of its own (`u, v = pair`): tuples
    to f, planned as a tuple's operation (was refused: 'unpack on a Pair, int is not supported at this order')."""
    if not all(is_plain_namedtuple(type(a)) for a in args if _user_object(a)):
        return False
    return not any(_objects._user(t.method) for t in (_objects.attempts(f, args) or []))


def _helpers() -> frozenset:
    from ..forward.transform import item_storage
    from . import builtin_rules
    from .registry import update

    return frozenset({update, item_storage, builtin_rules.getattr_tangent})


_HELPERS = _helpers()
_CATCHING = frozenset({_nested_guarded.guarded_fcall, _nested_guarded.stop_fcall})
_CONSUMERS = frozenset({builtins.map, functools.reduce, np.fromiter, copy.deepcopy, builtins.tuple, builtins.list,
                        builtins.dict})


def _consumer(f: Any) -> bool:
    """One of _CONSUMERS, or statistics.fmean / mean (found in sys.modules: importing statistics costs 2.5 ms, and
    its functions cannot be met before the user's code imports it)."""
    if _among(f, _CONSUMERS):
        return True
    st = sys.modules.get("statistics")
    return st is not None and (f is st.fmean or f is st.mean)


def _linear_helpers() -> dict:
    from . import numpy_creation as creation

    return {creation.array_tangent: nh.array_tangent_fwd, creation.asarray_tangent: nh.asarray_tangent_fwd}


_LINEAR_HELPERS = _linear_helpers()
_INPLACE = {operator.iadd: nh.iadd_fwd, operator.isub: nh.isub_fwd, operator.imul: nh.imul_fwd,
            operator.itruediv: nh.itruediv_fwd}


def _helper_plan(f: Any, args: tuple, dargs: tuple) -> Any:
    """A run-time helper dispatched by forward code of forward code: its twin's forward code."""
    api = _api()
    twin = nh.helper_twin(f, args)
    if twin is nh.attr_method:
        return api._Plan(nh.method_tangent_fwd, (*args, *dargs), lambda b: (NoTangent, tuple(b[:4]), tuple(b[4:])),
                         api._plain_outer, layout=(False, ()))
    if twin is None:
        if all(api._zero(d) for d in dargs):  # (nothing differentiated reaches it)
            return _zero_plan(f, args)
        raise _refuse(f"the run-time helper {getattr(f, '__name__', f)} on these operands")
    return api._plan(twin, NoTangent, tuple(args), tuple(dargs))


def _super_getter() -> Any:
    from ..frontend.supercalls import super_getter

    return super_getter


def _super_function() -> Any:
    from ..frontend.supercalls import super_function

    return super_function


# ---------------------------------------------------------------- writes


def _setitem_plan(args: tuple, dargs: tuple) -> Any:
    a, i, v = args
    da, _, dv = dargs
    if _user_object(a):
        return _special_method_plan(operator.setitem, args, dargs)
    if isinstance(da, (np.ndarray, list, dict)) or (type(a) is np.flatiter and type(da) is np.flatiter):
        # (`a.flat[i] = v` writes its tangent's flat iterator alike: reverse mode follows a flat iterator's writes
        # into its array's storage, reverse/writes.py)
        return _plain_plan(nh.setitem_fwd, (a, i, v, da, NoTangent, _dense_one(dv, v)), 3)
    if (da is NoTangent or da is None) and _api()._zero(dv):
        return _plain_plan(nh.setitem_primal_fwd, (a, i, v, NoTangent, NoTangent, NoTangent), 3)
    raise _refuse(f"writing an item into a {type(a).__name__} whose tangent is a {type(da).__name__}")


_OBJECT_SETATTR = object.__setattr__


def _setattr_plan(args: tuple, dargs: tuple, past_class: bool = False) -> Any:
    """`setattr(obj, name, v)`, or `object.__setattr__(obj, name, v)` with past_class (which a frozen class allows)."""
    obj, name, v = args
    dobj, _, dv = dargs
    if type(obj) is types.CellType and name == "cell_contents" and type(dobj) is types.CellType:
        # (a closure's cell that forward code made and fills, `x_cell.cell_contents = x`, differentiated again: a
        # third order through a closure made inside the function)
        from .nested_closures_third import set_cell_fwd

        return _plain_plan(set_cell_fwd, (obj, name, v, dobj, NoTangent, _dense_one(dv, v)), 3)
    if not isinstance(name, str) or not _user_object(obj):
        raise _refuse(f"setattr on a {type(obj).__name__}")
    prop = _objects._special(type(obj), name)
    if isinstance(prop, property) and isinstance(prop.fset, types.FunctionType):
        return _picked(_api()._plan(prop.fset, NoTangent, (obj, v), (dobj, dv)), (0, 2), 3)
    own = _objects._special(type(obj), "__setattr__")
    if not past_class and isinstance(own, types.FunctionType):  # the class's own __setattr__ (first order alike:
        # forward/objects._own_attribute_method): it may store something else than v
        return _picked(_api()._plan(own, NoTangent, (obj, name, v), (dobj, NoTangent, dv)), (0, 1, 2), 3)
    if hasattr(prop, "__set__") and not isinstance(prop, types.MemberDescriptorType):  # (a slot is a field)
        raise _refuse(f"setting attribute {name!r} through a descriptor")
    if isinstance(dobj, MutableTangent):
        return _plain_plan(nh.object_setattr_fwd if past_class else nh.setattr_fwd,
                           (obj, name, v, dobj, NoTangent, _dense_one(dv, v)), 3)
    if (dobj is NoTangent or dobj is None) and _api()._zero(dv):
        return _plain_plan(nh.object_setattr_primal_fwd if past_class else nh.setattr_primal_fwd,
                           (obj, name, v, NoTangent, NoTangent, NoTangent), 3)
    raise _refuse(f"setting attribute {name!r} of an object whose tangent is a {type(dobj).__name__}")


# ---------------------------------------------------------------- user objects' methods


def _picked(inner: Any, order: tuple, n: int) -> Any:
    """The plan of a call of n arguments that runs `inner`, a plan of the arguments at positions `order` (a
    property's setter for `setattr(obj, name, v)`: obj and v)."""
    api = _api()

    def spread(part: tuple) -> tuple:
        out = [NoTangent] * n
        for k, i in enumerate(order):
            out[i] = part[k]
        return tuple(out)

    def split(b: Any) -> tuple:
        f_bar, a, d = inner.split(b)
        return f_bar, spread(a), spread(d)

    def outer(tf: Any, targs: tuple, tdargs: tuple) -> tuple:
        return inner.outer(tf, tuple(targs[i] for i in order), tuple(tdargs[i] for i in order))

    return api._Plan(inner.fn, inner.call_args, split, outer)


def _special_method_plan(f: Any, args: tuple, dargs: tuple) -> Any:
    """An operator on user objects: the first Python method of a user class that Python's protocol reaches (a
    builtin method tried before it must say NotImplemented here and now; a user method that says NotImplemented is
    refused when it runs: api_rules._refuse_not_implemented)."""
    tries = _objects.attempts(f, args) or []
    for t in tries:
        cargs = tuple(args[i] for i in t.order)
        if _objects._user(t.method):
            inner = _api()._plan(t.method, NoTangent, cargs, tuple(dargs[i] for i in t.order))
            return inner if t.order == tuple(range(len(args))) else _picked(inner, t.order, len(args))
        if t.method(*cargs) is not NotImplemented:
            break
    raise _refuse(f"{getattr(f, '__name__', f)} on a {', '.join(type(a).__name__ for a in args)}")


def _object_call_plan(f: Any, df: Any, call: Any, args: tuple, dargs: tuple) -> Any:
    """`m(*args)` for an object of a class with a Python `__call__`: its forward code with m as self."""
    api = _api()
    inner = api._plan(call, NoTangent, (f, *args), (df, *dargs))

    def split(b: Any) -> tuple:
        _, a, d = inner.split(b)
        return a[0], tuple(a[1:]), tuple(d[1:])

    def outer(tf: Any, targs: tuple, tdargs: tuple, tdf: Any = NoTangent) -> tuple:
        return inner.outer(NoTangent, (tf, *targs), (tdf, *tdargs))

    plan = api._Plan(inner.fn, inner.call_args, split, outer)
    plan.df_bar = lambda b: inner.split(b)[2][0]
    plan.takes_df = True
    return plan


def method_parts(inner: Any) -> tuple:
    """(split, outer, df_bar) of a bound method's plan whose function's plan is `inner` (self first)."""
    def split(b: Any) -> tuple:
        _, a, d = inner.split(b)
        return MethodAdjoint(a[0]), tuple(a[1:]), tuple(d[1:])

    def outer(tf: Any, targs: tuple, tdargs: tuple, tdf: Any = NoTangent) -> tuple:
        tself = tf.self_tangent if isinstance(tf, MethodTangent) else NoTangent
        tdself = tdf.self_tangent if isinstance(tdf, MethodTangent) else NoTangent
        return inner.outer(NoTangent, (tself, *targs), (tdself, *tdargs))

    return split, outer, lambda b: MethodAdjoint(inner.split(b)[2][0])


# ---------------------------------------------------------------- construction


def _construct_plan(cls: type, args: tuple, dargs: tuple) -> Any:
    """`cls(*args)`: a new object and its tangent, then `__init__`'s forward code (a dataclass's fields set)."""
    api = _api()
    n = len(args)
    dd = _dense_keep(dargs, args)
    if getattr(cls, "__dataclass_fields__", None) is not None and cls.__init__.__code__.co_filename.startswith("<"):
        params = getattr(cls, "__dataclass_params__", None)
        frozen = bool(getattr(params, "frozen", False))
        post_init = getattr(cls, "__post_init__", None)
        if post_init is not None and not isinstance(post_init, types.FunctionType):
            raise _refuse(f"constructing dataclass {cls.__name__}, whose __post_init__ is not a plain function")
        fields, initvars, bound = dataclass_init(cls, args, {})
        given = [nm for nm, _, g in fields if g]
        if initvars or given != list(bound.arguments)[:n] or len(bound.arguments) != n or \
                [nm for nm, _, _ in fields][:n] != given:
            raise _refuse(f"constructing dataclass {cls.__name__} with init-only fields or keyword arguments")
        # (the fields left to their defaults follow the given ones, with no tangent: constants)
        names = tuple(nm for nm, _, _ in fields)
        defaults = tuple(value for _, value, g in fields if not g)
        # (a mutable default, as default_factory's new list, gets tangent storage at each order: methods write it)
        zeros = tuple(zero_tangent(d) for d in defaults)
        # (a frozen class's fields are set past its __setattr__, as its __init__ does; a __post_init__ then runs as
        # forward code: both were refused at the second order)
        fn = nh.construct_post_init_fwd if post_init is not None else \
            nh.construct_frozen_fwd if frozen else nh.construct_fields_fwd
        flag = (frozen,) if post_init is not None else ()
        plan = api._Plan(fn, (cls, names, tuple(args) + defaults, tuple(dd) + zeros, *flag),
                         lambda b: (NoTangent, tuple(api._expand(b[2], n)), tuple(api._expand(b[3], n))),
                         lambda tf, targs, tdargs: (NoTangent, NoTangent,
                                                    (*api._expand(targs, n), *(zero_tangent(d) for d in defaults)),
                                                    (*api._expand(tdargs, n), *(zero_tangent(z) for z in zeros)),
                                                    *(NoTangent,) * len(flag)))
        if flag:
            plan.inactive = frozenset({4})
        return plan
    return api._Plan(nh.construct_fwd, (cls, tuple(args), dd),
                     lambda b: (NoTangent, tuple(api._expand(b[1], n)), tuple(api._expand(b[2], n))),
                     lambda tf, targs, tdargs: (NoTangent, targs, tdargs))


# ---------------------------------------------------------------- third order: a plan's arguments, differentiated
# `higher.forward_of_forward` (forward mode over forward code, the step of a third derivative) calls the function
# of a plan that arranges its own arguments (construction, methods, array methods, ...) with `plan_args` and
# `plan_tangents`: their derivatives are the plan's own maps (`outer` forward, `split` backward).


def plan_function(f: Any, df: Any, args: tuple, dargs: tuple, kwargs: Any) -> Any:
    """The function the plan of `fcall(f, df, args, dargs, kwargs)` calls (a constant: zero derivative)."""
    return _api()._plan(f, df, tuple(args), tuple(dargs), kwargs).fn


def plan_args(f: Any, df: Any, args: tuple, dargs: tuple, kwargs: Any) -> tuple:
    """The arguments the plan of `fcall(f, df, args, dargs, kwargs)` calls its function with (keywords, never
    differentiated, are the plan's: an array method's axis)."""
    return tuple(_api()._plan(f, df, tuple(args), tuple(dargs), kwargs).call_args)


def plan_tangents(f: Any, df: Any, args: tuple, dargs: tuple, kwargs: Any, tf: Any, tdf: Any, targs: tuple,
                  tdargs: tuple) -> tuple:
    """Their tangents for tangents tf of f, tdf of df, targs of args and tdargs of dargs (linear in those, constant
    in the rest)."""
    api = _api()
    n = len(args)
    plan = api._plan(f, df, tuple(args), tuple(dargs), kwargs)
    return tuple(_outer(plan, tf, tdf, api._expand(targs, n), api._expand(tdargs, n)))


def _outer(plan: Any, tf: Any, tdf: Any, targs: tuple, tdargs: tuple) -> tuple:
    if plan.takes_df:
        return plan.outer(tf, targs, tdargs, tdf)
    from .nested_cells import as_function_tangent

    # (a closure's tangent made by forward code, differentiated: a MutableTangent of its fields, zero where its tangent
    # cells hold nothing, as for a closure over an int)
    if not _api()._zero(as_function_tangent(tdf)):
        raise _refuse("the tangent of a callable's tangent")
    return plan.outer(tf, targs, tdargs)


def _split(plan: Any, g: Any) -> tuple:
    n = len(plan.call_args)
    bars = (NoTangent,) * n if g is NoTangent or g is None else tuple(g) + (NoTangent,) * (n - len(tuple(g)))
    f_bar, a, d = plan.split(bars)
    df_bar = plan.df_bar(bars) if plan.df_bar is not None else NoTangent
    return f_bar, a, d, df_bar


def _plan_args_frule(p: tuple, t: Any) -> tuple:
    api = _api()
    f, df, args, dargs, kwargs = p
    tf, tdf, targs, tdargs, _ = api._expand(t, 5)
    n = len(args)
    plan = api._plan(f, df, tuple(args), tuple(dargs), kwargs)
    return tuple(plan.call_args), tuple(_outer(plan, tf, tdf, api._expand(targs, n), api._expand(tdargs, n)))


def _plan_args_rrule(f: Any, df: Any, args: tuple, dargs: tuple, kwargs: Any) -> tuple:
    from ..reverse.adjoints import AdjTuple

    plan = _api()._plan(f, df, tuple(args), tuple(dargs), kwargs)

    def pullback(g: Any) -> tuple:
        f_bar, a, d, df_bar = _split(plan, g)
        return f_bar, df_bar, AdjTuple(a), AdjTuple(d), NoTangent

    return tuple(plan.call_args), pullback


def _plan_tangents_frule(p: tuple, t: Any) -> tuple:
    api = _api()
    f, df, args, dargs, kwargs, tf, tdf, targs, tdargs = p
    *_, ttf, ttdf, ttargs, ttdargs = api._expand(t, 9)
    n = len(args)
    plan = api._plan(f, df, tuple(args), tuple(dargs), kwargs)
    y = tuple(_outer(plan, tf, tdf, api._expand(targs, n), api._expand(tdargs, n)))
    return y, tuple(_outer(plan, ttf, ttdf, api._expand(ttargs, n), api._expand(ttdargs, n)))


def _plan_tangents_rrule(f: Any, df: Any, args: tuple, dargs: tuple, kwargs: Any, tf: Any, tdf: Any, targs: tuple,
                         tdargs: tuple) -> tuple:
    from ..reverse.adjoints import AdjTuple

    api = _api()
    plan = api._plan(f, df, tuple(args), tuple(dargs), kwargs)
    n = len(args)
    y = tuple(_outer(plan, tf, tdf, api._expand(targs, n), api._expand(tdargs, n)))
    if plan.check_tangents is not None:  # (a closure's tangents: nested_closures.closure_forward_plan)
        plan.check_tangents(tf, tdf)

    def pullback(g: Any) -> tuple:
        f_bar, a, d, df_bar = _split(plan, g)
        zeros = AdjTuple((NoTangent,) * n)
        return NoTangent, NoTangent, zeros, zeros, NoTangent, f_bar, df_bar, AdjTuple(a), AdjTuple(d)

    return y, pullback


def _defs() -> None:
    from .forward_code_rules import user_rule
    from .registry import defzero

    defzero(plan_function)
    user_rule(plan_args, _plan_args_frule, _plan_args_rrule)
    user_rule(plan_tangents, _plan_tangents_frule, _plan_tangents_rrule)


_defs()
