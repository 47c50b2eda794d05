"""Rules of what generated forward code calls at run time.

Nested derivatives differentiate generated forward code (see api_rules.py), so its run-time helpers
(`_mc.pow_deriv`, `_mc.storage`, `conform`, ...) need rules of their own; calls it dispatches at
run time (`_mc.fcall(operator.mul, ...)`) need a forward derivative written as ordinary Python
instead, and those are in plain_forwards.py (`_PLAIN`).  Closure cells read explicitly
by forward code (`fn.__closure__[i].cell_contents`) get adjoint storage reverse mode can add into.
Helpers that write tangent storage or read an object's tangent hand each call to a plain-Python twin
for its case (nested_helpers.py).
"""
from __future__ import annotations

import operator
from typing import Any

import numpy as np

from ..errors import MooncakeError
from ..forward.runtime import _all_zero
from ..reverse.adjoints import AdjTuple
from ..reverse.adjoints import MethodAdjoint
from ..tangents import FunctionTangent, MethodTangent, NoTangent
from .nested_cells import _CellShadow, _prepare_cells, function_tangent_zero  # noqa: F401  (api_rules reads them here)
from . import helpers as h
from . import nested_helpers as nh
from .plain_forwards import lowered_exponent
from .registry import defcomplex, _entry, defjvp, defvjp, defzero
from .strong_zeros import strong_mul


class NestingError(MooncakeError, NotImplementedError):
    """A derivative of a derivative that mooncake_ast cannot compute correctly (named in the message), raised
    rather than a wrong number; the message says what to change (README "Higher-order derivatives" lists the
    cases: a closure made inside the differentiated code, has_aux and keywords of nested entry points, ...).

    Example:
        >>> def f(x):
        ...     y, pullback = mc.vjp(np.sin, x)   # reverse mode over mc.vjp inside the function
        ...     return pullback(1.0)[0] * x
        >>> try:
        ...     mc.grad(f)(1.0)
        ... except mc.NestingError as e:
        ...     print(type(e).__name__)
        NestingError
    """


def _name(f: Any) -> str:
    return getattr(f, "__qualname__", None) or getattr(f, "__name__", None) or type(f).__name__


def _zero(t: Any) -> bool:
    """Is t a zero tangent (symbolic, or dense zeros)?  A function's tangent is zero when what it captures has no
    tangent: cells empty or holding none (a closure over a function, a constant), never a number or storage (a list
    or an array tangent may still be written through)."""
    if isinstance(t, FunctionTangent):
        return function_tangent_zero(t)
    return _all_zero(t)


def _cell_tangent_get_adjoint(g: Any, y: Any, dc: Any) -> Any:
    """Reverse of `cell_tangent_get(dc)` (a closure's tangent cell read by its forward code): g into the cell's
    storage (an array's adjoint is in its own storage already), none for the cell as a value."""
    from ..reverse import shadows

    if dc is None or dc is NoTangent:
        return NoTangent
    shadows.cell_get_reverse(g, y, dc, NoTangent)
    return NoTangent


def _expand(ts: Any, n: int) -> tuple:
    return (NoTangent,) * n if ts is NoTangent or ts is None else tuple(ts)


def user_rule(fn: Any, frule: Any, rrule: Any) -> None:
    """Register hand-written forward and reverse rules (the user-rule protocol) of a library callable."""
    r = _entry(fn)
    r.user_frule, r.user_rrule, r.jvp, r.vjp, r.zero = frule, rrule, None, None, False
    r.fingerprint = "api:" + _name(fn)


# ---------------------------------------------------------------- rules of the run-time helpers


def _pow_deriv_d(t: Any, base: Any, p: Any) -> Any:
    return t.mul(p, t.call(h.pow_deriv, base, t.call(lowered_exponent, p)))


def _pow_deriv_dp(t: Any, base: Any, p: Any, z: Any) -> Any:
    # d/dp (p * base**(p-1)) = base**(p-1) * (1 + p * log(base)), for the factor z it multiplies (dp or an adjoint;
    # the log is finite where z is 0: helpers.log_for_pow)
    return t.mul(t.call(np.power, base, t.sub(p, 1.0)), t.add(1.0, t.mul(p, t.call(h.log_for_pow, base, z))))


_JOIN_KINDS = {np.concatenate: "concatenate", np.stack: "stack", np.vstack: "vstack", np.hstack: "hstack"}


def _join_tangent_adjoint(join: Any, xs: Any, dxs: Any, g: Any, axis: Any) -> Any:
    """The adjoints of the parts' tangents dxs of `join_tangent(join, xs, dxs, axis)` (a part without a tangent
    gets none)."""
    from .numpy_shapes import join_adjoint

    pieces = join_adjoint(_JOIN_KINDS[join], xs, g, axis)
    if pieces is NoTangent:
        return NoTangent
    pieces = [NoTangent if d is NoTangent or d is None else p for p, d in zip(pieces, dxs)]
    if isinstance(dxs, tuple):
        return AdjTuple(pieces)
    from ..reverse.adjoints import AdjList

    return AdjList(pieces)


def _helper_defs() -> None:
    from ..forward import transform as fwd
    from ..forward.runtime import conform, fit
    from ..forward.transform import cell_tangent
    from ..tangents import storage, zero_tangent
    from . import builtin_attributes, builtin_displays, builtin_iteration

    user = user_rule
    # (the base's term with a strong zero, rules/strong_zeros.py: p (p-1) base**(p-2) is inf or nan at 0 or below for
    # a fractional p, where a zero tangent or adjoint, np.where's unselected side, must give 0)
    defjvp(h.pow_deriv, lambda t, y, base, p: t.add(t.call(strong_mul, t.d(base), _pow_deriv_d(t, base, p))
                                                    if t.d(base) is not None else None,
                                                    t.mul(t.d(p), _pow_deriv_dp(t, base, p, t.d(p)))
                                                    if t.d(p) is not None else None))
    defvjp(h.pow_deriv, lambda t, g, y, base, p: (t.call(_unbroadcast_to, t.call(strong_mul, g, _pow_deriv_d(t, base, p)), base),
                                                  t.call(_unbroadcast_to, t.mul(g, _pow_deriv_dp(t, base, p, g)), p)))
    defzero(h.sign, zero_tangent)
    # Run-time helpers of NumPy rules that forward code calls, differentiated again: the mask of max/min's first
    # extremum is piecewise constant; the tangent of a join is linear in the parts' tangents (xs: their shapes)
    from . import numpy_reductions, numpy_shapes

    defzero(numpy_reductions._first_extremum)
    defjvp(nh.view_read, lambda t, y, tc, index: t.call(fwd.item_storage, tc, t.d(tc), index, y)
           if t.d(tc) is not None else None)
    _entry(nh.view_read).vjp = _entry(operator.getitem).vjp
    # Reverse mode over code calling view_read (forward code of forward code: `_view_read_fwd`, differentiated at a
    # third order) reverses it as it reverses `tc[index]`: the read's adjoint, in a view's storage already part of
    # tc's, is not added to tc's storage a second time (getitem's template did: grad(grad(grad(f))) of a slice of a
    # copy of an array written in place came out with that slice's adjoint counted twice).
    from ..reverse.special import SPECIAL

    SPECIAL[nh.view_read] = SPECIAL[operator.getitem]
    defjvp(numpy_shapes.join_tangent, lambda t, y, join, xs, dxs, axis: t.call(numpy_shapes.join_tangent, join, xs,
                                                                              t.d(dxs), axis)
           if t.d(dxs) is not None else None)
    defvjp(numpy_shapes.join_tangent, lambda t, g, y, join, xs, dxs, axis:
           (None, None, t.call(_join_tangent_adjoint, join, xs, dxs, g, axis), None))
    # The tangent cells of a function's closure: forward mode over forward code passes the function's tangent as
    # the constant zero (a nonzero one is refused: api_rules._plan), so what is read from it has no tangent; reverse
    # mode over it may pass a closure's own tangent, made by the computation now running (_plan's `reverse`,
    # nested_cells.owned_tangent): a read's adjoint goes into the tangent cell's storage, as a closure read's does.
    from .nested_cells import cell_tangent_tangent

    defjvp(cell_tangent, lambda t, y, dfn, index, writer=None: t.call(cell_tangent_tangent, t.d(dfn), index, writer)
           if t.d(dfn) is not None else None)
    defvjp(cell_tangent, lambda t, g, y, dfn, index, writer=None: (None, None, None))
    defjvp(builtin_displays.cell_tangent_get, lambda t, y, dc: t.call(builtin_displays.cell_tangent_get, t.d(dc))
           if t.d(dc) is not None else None)
    defvjp(builtin_displays.cell_tangent_get, lambda t, g, y, dc: (t.call(_cell_tangent_get_adjoint, g, y, dc),))
    # (log_for_pow(base, z): z only picks log|base| or nan below 0, piecewise constant: no derivative of its own)
    defjvp(h.log_for_pow, lambda t, y, base, z=None: t.div(t.d(base), base))
    defvjp(h.log_for_pow, lambda t, g, y, base, z=None: (t.div(g, base),) if z is None else (t.div(g, base), None))
    for fn in (storage, builtin_displays.storage_of):
        defjvp(fn, lambda t, y, x, dx: t.d(dx))
        defvjp(fn, lambda t, g, y, x, dx: (None, g))
    defjvp(conform, lambda t, y, yy, x, dx: t.call(conform, yy, x, t.d(dx)) if t.d(dx) is not None else None)
    defvjp(conform, lambda t, g, y, yy, x, dx: (None, None, t.call(_conform_adjoint, g, yy, x, dx)))
    # (fit is linear in the tangent, as conform: a broadcast, undone by unbroadcasting)
    defjvp(fit, lambda t, y, yy, dy: t.call(fit, yy, t.d(dy)) if t.d(dy) is not None else None)
    defvjp(fit, lambda t, g, y, yy, dy: (None, t.call(_unbroadcast_to, g, dy)))
    defcomplex(fit)  # (a broadcast has real coefficients: its adjoint is the same for complex values)
    user(builtin_attributes.getattr_tangent, _getattr_tangent_frule, _getattr_tangent_rrule)
    user(builtin_iteration.concat_tangent, _concat_tangent_frule, _concat_tangent_rrule)
    defjvp(fwd.fresh_storage, lambda t, y, value, d: t.call(fwd.fresh_storage, value, t.d(d)) if t.d(d) is not None else None)
    defvjp(fwd.fresh_storage, lambda t, g, y, value, d: (None, g))
    user(fwd.item_storage, _item_storage_frule, _item_storage_rrule)
    # `a[i] += v` in forward code updates the tangent of a view in place (`_mc.update`): nested, its twin
    # (nested_helpers.py) writes into the view as user code would, and item_storage of an array tangent is
    # a read of the view (its adjoint shared with its base's, as reverse mode keeps it for user code).
    from . import registry as _registry

    for fn in (nh.new_object, nh.new_tangent, nh.zero_storage, nh.result_storage):  # zero storage (written later)
        user(fn, _new_storage_frule(fn), _new_storage_rrule(fn))
    from . import operator_rules

    # `a[i]`'s tangent from a differentiated index i: zero unless `a` is np.r_ / np.c_ (refused nested then)
    user(operator_rules.index_tangent, _index_tangent_frule, _index_tangent_rrule)
    user(operator_rules.with_index_tangent, _with_index_tangent_frule, _with_index_tangent_rrule)
    user(nh.method_tangent_fwd, _method_tangent_fwd_frule, _method_tangent_fwd_rrule)
    user(nh.with_dense_tangent, nh._with_dense_tangent_frule, nh._with_dense_tangent_rrule)
    user(_registry.update, _update_frule, _update_rrule)
    _registry.lookup(_registry.update).mutates = (0,)  # (it writes into the tangent storage dx)
    # `np.array(x)` / `np.asarray(x)` in forward code: their tangent helpers are linear in dx, which has x's
    # structure (so the adjoint is np.array's own, through x).
    from . import numpy_creation as creation

    for fn in (creation.array_tangent, creation.asarray_tangent):
        defjvp(fn, lambda t, y, yy, x, dx, fn=fn: t.call(fn, yy, x, t.d(dx)) if t.d(dx) is not None else None)
        defvjp(fn, lambda t, g, y, yy, x, dx: (None, None, t.call(creation.array_adjoint, x, g)))


def _refuse_update() -> NestingError:
    return NestingError("nested derivative: an in-place update of a dict's tangent is not supported at this order")


def _update_frule(p: tuple, t: tuple) -> tuple:
    """`update(dx, new)`: forward mode over its twin for these operands (nested_helpers.update_twin)."""
    from .registry import update

    ts = _expand(t, len(p))
    if all(_zero(d) for d in ts):
        # Nothing differentiated flows in.  Written in place, the result is dx itself, and its tangent is dx's
        # tangent storage (already all zero), never a new NoTangent: later writes through dx (`dw[0] += v` after
        # `dw *= c`, dw a view) must still reach the storage its base shares.
        y = update(*p)
        if y is not p[0] or ts[0] is None or ts[0] is NoTangent:
            return y, NoTangent
        # (the zero tangent of `new` written into dx's tangent storage as dx was written: a list's may change length)
        from ..tangents import zero_tangent

        return y, update(ts[0], zero_tangent(p[1]) if ts[1] is NoTangent or ts[1] is None else ts[1])
    twin = nh.update_twin(*p)
    if twin is None:
        raise _refuse_update()
    return nh.twin_frule(twin, p, t)


def _update_rrule(dx: Any, new: Any) -> tuple:
    twin = nh.update_twin(dx, new)
    if twin is None:
        raise _refuse_update()
    return nh.twin_rrule(twin, (dx, new))


def _item_storage_frule(p: tuple, t: tuple) -> tuple:
    from ..forward import transform as fwd

    container, dcontainer, index, item = p
    tdc = _expand(t, 4)[1]
    y = fwd.item_storage(container, dcontainer, index, item)
    if tdc is NoTangent or tdc is None:
        return y, NoTangent
    return y, tdc[index]


def _item_storage_rrule(container: Any, dcontainer: Any, index: Any, item: Any) -> tuple:
    """An item of an array's, list's, tuple's or dict's tangent: reverse mode over a plain read of it (its storage
    made first, as item_storage makes it), so views and mutable items keep the adjoint storage reverse mode gives
    them in user code."""
    from ..forward import transform as fwd

    y = fwd.item_storage(container, dcontainer, index, item)
    if dcontainer is NoTangent or dcontainer is None:
        return y, lambda g: (NoTangent,) * 4
    if not isinstance(dcontainer, (np.ndarray, list, tuple, dict)):
        raise NestingError(f"nested derivative: reading an item of a {type(dcontainer).__name__} tangent is not "
                           f"supported at this order")
    return nh.twin_rrule(nh.item_read, (container, dcontainer, index, item))


def _refuse_attr(name: str) -> NestingError:
    return NestingError(f"nested derivative: the tangent of attribute {name!r} of a differentiated object, read by "
                        f"generated code, is not supported at this order")


def _getattr_twin(obj: Any, dobj: Any, name: Any, value: Any) -> Any:
    """The twin for a read of a differentiated object's attribute tangent (its storage made first), or refused."""
    from . import builtin_attributes

    twin = nh.getattr_twin(obj, dobj, name, value)
    if twin is None:
        raise _refuse_attr(name)
    if twin is nh.attr_field:
        builtin_attributes.getattr_tangent(obj, dobj, name, value)  # (a mutable field's zero tangent made storage)
    return twin


def _getattr_tangent_frule(p: tuple, t: tuple) -> tuple:
    from . import builtin_attributes

    obj, dobj, name, value = p
    if dobj is NoTangent:
        return builtin_attributes.getattr_tangent(*p), NoTangent
    twin = _getattr_twin(*p)
    if twin is nh.attr_method:  # MethodTangent(dobj): its tangent is MethodTangent(tangent of dobj)
        tdobj = _expand(t, 4)[1]
        return MethodTangent(dobj), (NoTangent if tdobj is NoTangent or tdobj is None else MethodTangent(tdobj))
    return nh.twin_frule(twin, p, t)


def _getattr_tangent_rrule(obj: Any, dobj: Any, name: Any, value: Any) -> tuple:
    from . import builtin_attributes

    if dobj is NoTangent:
        return builtin_attributes.getattr_tangent(obj, dobj, name, value), lambda g: (NoTangent,) * 4
    twin = _getattr_twin(obj, dobj, name, value)
    if twin is nh.attr_method:  # the adjoint of a method tangent is its self tangent's (a MethodAdjoint)
        def pullback(g: Any) -> tuple:
            return NoTangent, (g.self_adjoint if isinstance(g, MethodAdjoint) else NoTangent), NoTangent, NoTangent

        return MethodTangent(dobj), pullback
    return nh.twin_rrule(twin, (obj, dobj, name, value))


def _new_storage_frule(fn: Any) -> Any:
    def frule(p: tuple, t: Any) -> tuple:
        from ..tangents import zero_tangent

        y = fn(*p)
        return y, zero_tangent(y)

    return frule


def _new_storage_rrule(fn: Any) -> Any:
    def rrule(*args: Any) -> tuple:
        return fn(*args), lambda g: (NoTangent,) * len(args)

    return rrule


def _index_tangent_check(a: Any) -> None:
    from . import operator_rules

    if operator_rules._is_concatenator(a):
        raise NestingError("nested derivative: an index built by np.r_ / np.c_ from differentiated values is not "
                           "supported at this order")


def _index_tangent_frule(p: tuple, t: Any) -> tuple:
    from . import operator_rules

    _index_tangent_check(p[0])
    return operator_rules.index_tangent(*p), NoTangent


def _index_tangent_rrule(a: Any, i: Any, di: Any) -> tuple:
    from . import operator_rules

    _index_tangent_check(a)
    return operator_rules.index_tangent(a, i, di), lambda g: (NoTangent,) * 3


def _with_index_tangent_frule(p: tuple, t: Any) -> tuple:
    """Linear in the item, which it returns as is (a view stays a view): so does its tangent."""
    from . import operator_rules

    _index_tangent_check(p[1])
    return operator_rules.with_index_tangent(*p), _expand(t, 4)[0]


def _with_index_tangent_rrule(item: Any, a: Any, i: Any, di: Any) -> tuple:
    from . import operator_rules

    _index_tangent_check(a)
    return operator_rules.with_index_tangent(item, a, i, di), lambda g: (g, NoTangent, NoTangent, NoTangent)


def _method_tangent_fwd_frule(p: tuple, t: Any) -> tuple:
    """Forward rule of nested_helpers.method_tangent_fwd: MethodTangent is linear in its self tangent."""
    t = _expand(t, 8)

    def method(d: Any) -> Any:
        return NoTangent if d is NoTangent or d is None else MethodTangent(d)

    return nh.method_tangent_fwd(*p), (method(t[1]), method(t[5]))


def _method_tangent_fwd_rrule(*args: Any) -> tuple:
    """Reverse rule of nested_helpers.method_tangent_fwd: each MethodTangent's adjoint is a MethodAdjoint."""
    def self_bar(g: Any) -> Any:
        return g.self_adjoint if isinstance(g, MethodAdjoint) else NoTangent

    def pullback(g: Any) -> tuple:
        g1, g2 = (NoTangent, NoTangent) if g is NoTangent or g is None else tuple(g)
        return NoTangent, self_bar(g1), NoTangent, NoTangent, NoTangent, self_bar(g2), NoTangent, NoTangent

    return nh.method_tangent_fwd(*args), pullback


def _concat_tangent_frule(pairs: tuple, tpairs: tuple) -> tuple:
    """`concat_tangent((p, dp), ...)` (the tangent of `(*a, *b)`) is linear in the dp: so is its tangent."""
    from . import builtin_iteration

    out: tuple = ()
    for (p, dp), tpair in zip(pairs, _expand(tpairs, len(pairs))):
        tdp = NoTangent if tpair is NoTangent or tpair is None else tpair[1]
        if tdp is NoTangent or tdp is None:
            out = out + (NoTangent,) * len(tuple(p))
        elif isinstance(tdp, (tuple, list)):
            out = out + tuple(tdp)
        elif _unpacked_array(p, dp, tdp):  # (`[*x]`: the items of an array's tangent are its tangent's rows)
            out = out + tuple(list(tdp))
        else:
            raise NestingError("nested derivative: unpacking an array into a call (`f(*arr)`) is not supported nested")
    return builtin_iteration.concat_tangent(*pairs), out


def _unpacked_array(p: Any, dp: Any, tdp: Any = None) -> bool:
    """`*p` of a 1-D float array with its tangent dp an array of the same shape (and tdp, the next order's, too): its
    items are numbers.  (The rows of a matrix are views, whose adjoints reverse mode already shares with the matrix's:
    added again here they counted twice -- a Hessian's diagonal doubled -- so they stay refused.)"""
    return (isinstance(p, np.ndarray) and p.ndim == 1 and p.dtype.kind in "fc" and isinstance(dp, np.ndarray)
            and dp.shape == p.shape and (tdp is None or (isinstance(tdp, np.ndarray) and tdp.shape == p.shape)))


def _concat_tangent_rrule(*pairs: Any) -> tuple:
    from . import builtin_iteration
    for p, dp in pairs:
        if dp is not NoTangent and not isinstance(dp, (tuple, list)) and not _unpacked_array(p, dp):
            raise NestingError("nested derivative: unpacking an array into a call (`f(*arr)`) is not supported nested")

    def pullback(g: Any) -> tuple:
        bars, start = [], 0
        for p, dp in pairs:
            k = len(tuple(p))
            part = NoTangent if g is NoTangent or dp is NoTangent else AdjTuple(g[start:start + k])
            if isinstance(dp, np.ndarray) and part is not NoTangent:  # (the rows' adjoints into one array's)
                rows = np.zeros(dp.shape, dtype=np.result_type(dp.dtype, float))
                for j, gj in enumerate(part):
                    if gj is not NoTangent and gj is not None:
                        rows[j] += np.asarray(gj)
                part = rows
            if isinstance(dp, list) and part is not NoTangent:
                from ..reverse.adjoints import AdjList

                part = AdjList(list(part))
            bars.append(AdjTuple((NoTangent, part)))
            start += k
        return tuple(bars)

    return builtin_iteration.concat_tangent(*pairs), pullback


def _conform_adjoint(g: Any, y: Any, x: Any, dx: Any) -> Any:
    """The adjoint of dx in `conform(y, x, dx)`: unbroadcast for numbers and arrays; an object's, list's or dict's
    tangent passes through (conform returns it as it is), a concatenated sequence's is refused."""
    if isinstance(y, (tuple, list)) and isinstance(x, (tuple, list)) and y is not x and len(y) > len(x):
        raise NestingError("nested derivative: a sequence concatenated with a constant (`t + (c,)`) inside generated "
                           "code is not supported at this order")
    if isinstance(dx, (np.ndarray, float, int, complex, np.number)):
        return _unbroadcast_to(g, dx)
    if dx is NoTangent:
        return _unbroadcast_to(g, dx) if isinstance(g, (np.ndarray, float, int, complex, np.number)) else NoTangent
    return g


def _unbroadcast_to(g: Any, like: Any) -> Any:
    """The adjoint of a broadcast of `like` (a number or an array) to g's shape; its real part for a real `like` (the
    real inner product: a real tangent broadcast into a complex one, forward code of `z = x[0] + 1j * x[1]`)."""
    if g is NoTangent:
        return g
    g = np.asarray(g)
    if g.dtype.kind == "c" and not np.iscomplexobj(like):
        g = g.real
    shape = np.shape(like)
    while g.ndim > len(shape):
        g = g.sum(axis=0)
    for i, s in enumerate(shape):
        if s == 1 and g.shape[i] != 1:
            g = g.sum(axis=i, keepdims=True)
    if isinstance(like, np.ndarray):
        return g
    return complex(g) if g.dtype.kind == "c" else float(g)


_helper_defs()
