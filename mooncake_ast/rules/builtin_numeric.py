"""Numeric builtins (abs, float, complex, sum, max, min, pow, round, divmod, conjugate) and the
builtins without a derivative (len, range, isinstance, str, ...), both modes.

Conventions: `abs` takes slope 0 at 0, `max`/`min` follow the first argument attaining the result,
`divmod`'s quotient and `round` have zero derivative.  `sum` of lists or tuples concatenates, so its
tangent is then the items' tangents concatenated.
"""
from __future__ import annotations

import builtins
import operator

import numpy as np

from ..errors import UnsupportedDerivativeError
from .. import ops
from ..tangents import NoTangent
from . import helpers as h
from .builtin_iteration import _A, _tangents, iter_tangents, xs_tuple
from .operator_rules import pow_adjoints, pow_tangent
from .registry import defcomplex, defjvp, defmethod, defvjp, defvjp_method, defzero


# ------------------------------------------------------------------ builtins
defjvp(builtins.abs, lambda t, y, x: t.call(h.abs_tangent, x, t.d(x)) if t.d(x) is not None else None)
defjvp(builtins.float, lambda t, y, x=0.0: t.call(real_tangent, t.d(x)) if t.d(x) is not None else None)
# NumPy's float scalar types as constructors (`np.float64(x)`): the identity on the value, like float().
for _np_float in (np.float64, np.float32):
    defjvp(_np_float, lambda t, y, x=0.0: t.call(np_float_tangent, y, x, t.d(x)) if t.d(x) is not None else None)
defjvp(builtins.complex, lambda t, y, real=0.0, imag=0.0: t.call(complex_tangent, t.dz(real), t.dz(imag)) if (t.d(real) is not None or t.d(imag) is not None) else None)
_NO_START = object()  # sum(xs) without a start: its derivatives need not name it
defjvp(builtins.sum, lambda t, y, xs, start=_NO_START: (
    None if t.d(xs) is None and (start is _NO_START or t.d(start) is None)
    else t.call(sum_tangent, y, xs, t.dz(xs)) if start is _NO_START
    else t.call(sum_tangent, y, xs, t.dz(xs), start, t.dz(start))))
defjvp(builtins.max, lambda t, y, *xs, **kw: t.call(minmax_tangent, builtins.max, y, t.call(ops.tuple_of, *xs), t.call(ops.tuple_of, *_tangents(t, xs)),
                                                   *_default_operand(t, kw)))
defjvp(builtins.min, lambda t, y, *xs, **kw: t.call(minmax_tangent, builtins.min, y, t.call(ops.tuple_of, *xs), t.call(ops.tuple_of, *_tangents(t, xs)),
                                                   *_default_operand(t, kw)))


def _default_operand(t, kw):
    """max/min(iterable, default=d): d's tangent, as an extra helper argument when d is differentiated."""
    return [t.d(kw["default"])] if "default" in kw and t.d(kw["default"]) is not None else []


def _same_item(x, y):
    """Is the item x the result y of max/min?  Identity, or equal value (rows of an array are new views
    each time they are read; `==` on arrays is elementwise, so arrays compare whole)."""
    if x is y:
        return True
    import numpy as np

    if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
        return np.shape(x) == np.shape(y) and bool(np.array_equal(x, y, equal_nan=True))
    try:
        return bool(x == y)
    except (TypeError, ValueError):
        return False
defjvp(builtins.pow, lambda t, y, a, b, mod=None: pow_tangent(t, y, a, b) if mod is None else None)  # pow(a, b, mod): integers
defjvp(builtins.round, lambda t, y, x, ndigits=None: None)
defjvp(builtins.divmod, lambda t, y, a, b: t.call(ops.tuple_of, NoTangent, t.sub(t.d(a), t.mul(t.call(_floordiv, a, b), t.d(b))))
       if (t.d(a) is not None or t.d(b) is not None) else None)


defzero(builtins.len, builtins.range, builtins.isinstance, builtins.issubclass, builtins.int, builtins.bool,
        builtins.str, builtins.repr, builtins.type, builtins.id, builtins.hash, builtins.print, builtins.callable,
        builtins.hasattr, builtins.all, builtins.any, builtins.format, builtins.ord, builtins.chr,
        builtins.slice, builtins.bin, builtins.hex, builtins.oct, builtins.ascii)


def _floordiv(a, b):
    return a // b


def complex_tangent(dre, dim):
    """The tangent of complex(re, im) = re + 1j im: always a complex number (zeros are symbolic)."""
    out = 0j
    if dre is not NoTangent:
        out = out + dre
    if dim is not NoTangent:
        out = out + 1j * dim
    return out


def complex_part_adjoint(x, g, part):
    """complex(re, im): re's adjoint is g (its real part if re is real); im's is -1j g (Im(g) if im is real)."""
    if g is NoTangent or isinstance(x, str):
        return NoTangent
    a = g if part == 0 else -1j * g
    return a if isinstance(x, complex) else float(complex(a).real)


def divmod_adjoint(a, b, g, which):
    """divmod(a, b) = (a // b, a - (a // b) b): only the remainder carries a derivative."""
    if g is NoTangent or g is None:
        return NoTangent
    r = g[1] if len(g) > 1 else NoTangent
    if r is NoTangent or r is None:
        return NoTangent
    return r if which == 0 else -r * (a // b)


def real_tangent(dx):
    return float(dx.real) if isinstance(dx, complex) else float(dx)


def np_float_tangent(y, x, dx):
    """np.float64(x) / np.float32(x): a scalar of a number (its tangent a float, as float()'s), an array of an array
    (`np.float64(np.diff(x))` in scipy.integrate.simpson: float() of its tangent raised a TypeError): x itself where
    x has that dtype already (NumPy returns the same object: the same tangent), else a new array whose tangent is
    x's real part in y's dtype."""
    if y is x:
        return dx
    if isinstance(y, np.ndarray):
        d = np.asarray(dx)
        return (d.real if np.iscomplexobj(d) else d).astype(y.dtype)
    return real_tangent(dx)


def sum_tangent(y, xs, dxs, start=0, dstart=NoTangent):
    """Tangent of `sum(xs, start)`: the sum of the tangents, or, where sum concatenates lists or
    tuples (the result is one), the concatenation of the items' tangents after start's."""
    if isinstance(y, (list, tuple)):
        ditems = iter_tangents(xs, dxs) if dxs is not NoTangent else [NoTangent] * len(xs)
        items = xs if isinstance(xs, (list, tuple)) else [None] * len(ditems)
        out = _sequence_tangent(start, dstart)
        for item, d in zip(items, ditems):
            out.extend(_sequence_tangent(item, d))
        if len(out) != len(y):
            raise NotImplementedError("derivative of sum() concatenating an iterator's items: pass a list")
        return tuple(out) if isinstance(y, tuple) else out
    if dxs is not NoTangent and isinstance(xs, (list, tuple, _DICT_VALUES)) and _is_object(y):
        return _sum_of_objects(list(xs), dxs, start, dstart)  # (one test of the result, not of every item)
    out = dstart
    if dxs is not NoTangent:
        for d in iter_tangents(xs, dxs):
            out = out + d
    return out


_DICT_VALUES = type({}.values())  # (`sum(d.values())`: read again here, as a dict's values can be)


def _is_object(y):
    """Is the sum an instance of the user's class (the items added with their `__add__`/`__radd__`)?"""
    from ..forward.objects import is_user_object

    return is_user_object(y)


def _sum_of_objects(xs, dxs, start, dstart):
    """`sum(vs)` of the user's objects adds them with their `__add__`/`__radd__`, run inside sum() in C: added
    again here, through the dispatcher that differentiates those methods."""
    from ..forward.runtime import fcall

    total, dtotal = start, dstart
    for v, d in zip(xs, iter_tangents(xs, dxs)):
        total, dtotal = fcall(operator.add, NoTangent, (total, v), (dtotal, d))
    return dtotal


def _sequence_tangent(x, dx):
    if dx is not NoTangent:
        return list(dx)
    if x is None:
        raise NotImplementedError("derivative of sum() concatenating an iterator's items: pass a list")
    return [NoTangent] * len(x)


def _iterable_items(x, reverse=False):
    """The items max/min read from x, after the call: an iterator is exhausted by then, so ours (map's
    recorded results, a generator's items) give those the call read (forward mode: right after it; reverse
    mode: builtin_adjoints.read_again), and any other iterator is refused (its items are gone: the derivative
    would be silently zero)."""
    from ..reverse.builtin_adjoints import ItemsIterator, last_read, read_again

    if isinstance(x, ItemsIterator):
        return read_again(x, "max/min") if reverse else last_read(x)
    items = getattr(x, "items", None)
    if isinstance(items, list) and getattr(type(x), "__mc_items__", False):  # (ours; not a user's `items` field)
        return items
    if iter(x) is x:
        raise UnsupportedDerivativeError(
            f"max/min of an iterator ({type(x).__name__}): its items are consumed by the call, so their derivatives "
            "cannot be found afterwards; pass a list (`max(list(it))`)")
    return list(x)


def minmax_tangent(which, y, xs, dxs, ddefault=NoTangent):
    """Tangent of max/min: that of the first argument equal to the result (ties: the first); that of
    `default=` when the iterable was empty."""
    if len(xs) == 1:  # max(iterable)
        items = _iterable_items(xs[0])
        if not items:
            return ddefault
        ditems = dxs[0]
        if ditems is NoTangent:
            return NoTangent
        ditems = iter_tangents(xs[0], ditems)
    else:
        items, ditems = list(xs), list(dxs)
    for x, d in zip(items, ditems):
        if _same_item(x, y):
            return d
    return NoTangent


def minmax_adjoint(y, xs, k, g):
    """max/min: the first argument (or item of the one iterable) that is the result gets g (ties: the first)."""
    from ..reverse.adjoints import AdjList, AdjTuple

    if g is NoTangent or g is None:
        return NoTangent
    if len(xs) == 1:
        if isinstance(xs[0], dict):  # (`max(d, key=d.get)`: the arg-max of a dict is one of its keys, which carry
            return NoTangent         # no derivative; the values key= read were read through `d.get`, not as items)
        items = _iterable_items(xs[0], reverse=True)
        out = [NoTangent] * len(items)
        for i, v in enumerate(items):
            if _same_item(v, y):
                out[i] = g
                break
        from ..reverse.builtin_adjoints import ItemsIterator, to_the_end

        if isinstance(xs[0], ItemsIterator):
            return to_the_end(xs[0], out)
        if isinstance(xs[0], list):
            return AdjList(out)
        if _is_array(xs[0]):
            from .numpy_common import _in_storage

            if _in_storage(xs[0], g):
                return NoTangent  # the row's adjoint is a view of the array's storage: already counted there
            return _array_of(xs[0], out)
        return AdjTuple(out)
    for i, v in enumerate(xs):
        if _same_item(v, y):
            return g if i == k else NoTangent
    return NoTangent


def _is_array(x):
    import numpy as np

    return isinstance(x, np.ndarray)


def _array_of(x, items):
    """The adjoint of an array iterated over (its rows or entries): the items' adjoints stacked, zeros for none."""
    import numpy as np

    out = np.zeros(np.shape(x), dtype=np.result_type(np.asarray(x).dtype, float))
    for i, v in enumerate(items):
        if v is not NoTangent:
            out[i] = v
    return out


def minmax_default_adjoint(xs, g):
    """max/min(iterable, default=d): d gets g when the iterable was empty."""
    return g if len(xs) == 1 and not list(xs[0]) else NoTangent


# ------------------------------------------------------------------ reverse rules
defvjp(builtins.abs, lambda t, g, y, x: (t.mul(g, t.call(h.sign, x)),))
defvjp(builtins.float, lambda t, g, y, x=0.0: (_float_adjoint(t, g, x),))
for _np_float in (np.float64, np.float32):
    defvjp(_np_float, lambda t, g, y, x=0.0: (_float_adjoint(t, g, x) if t.num(x) else t.call(np_float_adjoint, x, g),))


def np_float_adjoint(x, g):
    """np.float64(x): of an array, g itself, as np.asarray's (numpy_creation.array_adjoint), its real part for a
    real x; of a number, float()'s."""
    if isinstance(x, np.ndarray):
        from .numpy_creation import array_adjoint

        return array_adjoint(x, np.real(g) if np.iscomplexobj(g) and not np.iscomplexobj(x) else g)
    return _A().real_adjoint(x, g)


def _float_adjoint(t, g, x):
    """float(x): g itself for a real number x (typed pullbacks), else the real part of g, shaped as x."""
    if getattr(t, "plain_numbers", None) is not None and t.plain_numbers(g, x):
        return g
    return t.call(_A().real_adjoint, x, g)
defvjp(builtins.sum, lambda t, g, y, xs, start=_NO_START: (
    t.call(_A().sum_items_adjoint, xs, g) if start is _NO_START else t.call(_A().sum_items_adjoint, xs, g, start),
    None if start is _NO_START else t.call(_A().sum_start_adjoint, start, g)))
defvjp(builtins.max, lambda t, g, y, *xs, **kw: _minmax_vjp(t, g, y, xs, kw, operator.gt))
defvjp(builtins.min, lambda t, g, y, *xs, **kw: _minmax_vjp(t, g, y, xs, kw, operator.lt))


def _minmax_vjp(t, g, y, xs, kw, beats):
    from .call_binding import KwAdj

    if len(xs) == 2 and not kw and getattr(t, "plain_numbers", None) is not None and t.plain_numbers(g, *xs):
        # max(a, b) of two numbers is b only when b > a (ties and NaNs keep a), min(a, b) when b < a:
        # `a_bar = 0.0 if b > a else g`, `b_bar = g if b > a else 0.0`.
        second = t.call(beats, xs[1], xs[0])
        return t.choose(second, 0.0, g), t.choose(second, g, 0.0)
    out = tuple(t.call(minmax_adjoint, y, xs_tuple(t, xs), k, g) for k in range(len(xs)))
    needs = getattr(t, "needs", None)
    if "default" in kw and (needs is None or needs(kw["default"])):
        out += (KwAdj(default=t.call(minmax_default_adjoint, xs_tuple(t, xs), g)),)
    return out
defvjp(builtins.pow, lambda t, g, y, a, b, mod=None: () if mod is not None else pow_adjoints(t, g, y, a, b))


defvjp(builtins.round, lambda t, g, y, *a: (None,) * len(a))


defvjp(builtins.complex, lambda t, g, y, real=0.0, imag=0.0: (t.call(complex_part_adjoint, real, g, 0), t.call(complex_part_adjoint, imag, g, 1)))
defvjp(builtins.divmod, lambda t, g, y, a, b: (t.call(divmod_adjoint, a, b, g, 0), t.call(divmod_adjoint, a, b, g, 1)))


def conjugate_number(v):
    """conj of a number or a tangent/adjoint of one (a Python complex stays one; the symbolic zero stays zero)."""
    return v if v is NoTangent or isinstance(v, (int, float)) else v.conjugate()


# z.conjugate() of a Python complex number (or of a float: itself); conj is its own adjoint.
for _num in (complex, float):
    defmethod(_num, "conjugate", lambda t, y, x: t.call(conjugate_number, t.d(x)) if t.d(x) is not None else None)
    defvjp_method(_num, "conjugate", lambda t, g, y, x: (t.call(conjugate_number, g),))


# Right for complex values in reverse mode (README "Complex numbers"; tests/test_complex_reverse.py): abs takes
# g z/|z|, complex(re, im) gives re g and -1j g (real parts for real parts), sum adds, pow conjugates.
defcomplex(builtins.abs, builtins.complex, builtins.sum, builtins.pow, (complex, "conjugate"), (float, "conjugate"))
