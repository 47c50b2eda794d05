"""Forward rules of `operator` (the normalised form of Python's syntax)."""
from __future__ import annotations

import operator as op

import numpy as np

from ..tangents import NoTangent
from . import helpers as h
from .numpy_common import cj
from .registry import defcomplex, defjvp, defvjp, defzero

# ------------------------------------------------------------------ arithmetic
defjvp(op.add, lambda t, y, a, b: t.add(t.d(a), t.d(b)))
defjvp(op.sub, lambda t, y, a, b: t.sub(t.d(a), t.d(b)))
defjvp(op.mul, lambda t, y, a, b: t.add(t.mul(t.d(a), b), t.mul(a, t.d(b))))
defjvp(op.truediv, lambda t, y, a, b: t.div(t.sub(t.d(a), t.mul(y, t.d(b))), b))
def mod_b_tangent(a, b, db):
    """The part of (a % b)'s tangent from b's, -(a // b) * db; none where a is text: `"%4d %8.3f" % (k, v)` formats
    (a // b of a str and a tuple raised a TypeError, in both modes, where the tuple held a differentiated value)."""
    if isinstance(a, (str, bytes)):
        return NoTangent
    return -(a // b) * db


def mod_quotient(a, b):
    """a // b, the factor of b's adjoint in a % b; 0 where a is text (formatting: no derivative)."""
    return 0.0 if isinstance(a, (str, bytes)) else a // b


def _mod_tangent(t, a, b):
    if t.d(b) is None or isinstance(t.value(a), (str, bytes)):
        return t.d(a)
    return t.add(t.d(a), t.call(mod_b_tangent, a, b, t.d(b)))


defjvp(op.mod, lambda t, y, a, b: _mod_tangent(t, a, b))


def pow_tangent(t, y, a, b):
    """d(a ** b) = b a^(b-1) da + a^b log(a) db, each term built only where its operand has a tangent: run-time
    dispatch (the eager builder) computes every argument it is given, and log(a) of a constant exponent's base
    is wasted work (and a host conversion of a device array).  log_for_pow(a, db): finite where db is 0, so
    that a zero exponent tangent (a constant float exponent's, made dense by an outer derivative) gives 0 below 0,
    not nan * 0."""
    da, db = t.d(a), t.d(b)
    return t.add(times_base_slope(t, da, t.call(h.pow_deriv, a, b), b) if da is not None else None,
                 t.mul(db, t.mul(y, t.call(h.log_for_pow, a, db))) if db is not None else None)


defjvp(op.pow, pow_tangent)
defjvp(op.neg, lambda t, y, a: t.neg(t.d(a)))
defjvp(op.pos, lambda t, y, a: t.d(a))
defjvp(op.abs, lambda t, y, a: t.call(h.abs_tangent, a, t.d(a)) if t.d(a) is not None else None)
defjvp(op.matmul, lambda t, y, a, b: _matrix_product_tangent(t, a, b))

# ------------------------------------------------------------------ in place (tangent computed before the call)
defjvp(op.iadd, lambda t, y, a, b: t.update(t.d(a), t.add(t.d(a), t.d(b)) if t.d(b) is not None or t.is_num(a) or t.d(a) is None
                                        else t.call(h.extended_by_constant, t.d(a), b)), mutates=(0,))
defjvp(op.isub, lambda t, y, a, b: t.update(t.d(a), t.sub(t.d(a), t.d(b))), mutates=(0,))
defjvp(op.imul, lambda t, y, a, b: t.update(t.d(a), t.add(t.mul(t.d(a), b), t.mul(a, t.d(b)))), mutates=(0,))
defjvp(op.itruediv, lambda t, y, a, b: t.update(t.d(a), t.div(t.sub(t.d(a), t.mul(t.call(op.truediv, a, b), t.d(b))), b)), mutates=(0,))
defjvp(op.ipow, lambda t, y, a, b: t.update(t.d(a), pow_tangent(t, t.call(op.pow, a, b), a, b)), mutates=(0,))
defjvp(op.imatmul, lambda t, y, a, b: t.update(t.d(a), t.add(t.lin(op.matmul, t.d(a), b), t.linr(op.matmul, a, t.d(b)))), mutates=(0,))
defjvp(op.imod, lambda t, y, a, b: t.update(t.d(a), t.sub(t.d(a), t.mul(t.call(op.floordiv, a, b), t.d(b)))), mutates=(0,))
# `a //= b` has a zero derivative, and on an array it writes a in place: a's tangent (which every alias of a shares)
# is zeroed, not left as it was (`z = y; y //= 1` read z with y's old derivative).
defjvp(op.ifloordiv, lambda t, y, a, b: t.update(t.d(a), None) if t.d(a) is not None else None, mutates=(0,))

# ------------------------------------------------------------------ items
def _getitem_jvp(t, y, a, i):
    item = t.lin(op.getitem, t.d(a), i)
    if t.d(i) is None:
        return item
    if item is None:
        return t.call(index_tangent, a, i, t.d(i))
    return t.call(with_index_tangent, item, a, i, t.d(i))  # (not `item + ...`: a sum is a new array, not a view)


defjvp(op.getitem, _getitem_jvp)


def _is_concatenator(a):
    """Is a np.r_ or np.c_ (or another instance of their base class, numpy's AxisConcatenator)?"""
    import numpy as np

    return isinstance(a, type(np.r_).__mro__[1])


def _concat_items(i, di):
    """The items of `np.r_[i]` and their tangents (zeros of the right size for constants, slices included)."""
    import numpy as np

    items = i if isinstance(i, tuple) else (i,)
    ditems = di if isinstance(di, tuple) else (di,) * len(items) if di is NoTangent else (di,)
    out = []
    for k, (v, d) in enumerate(zip(items, ditems)):
        if isinstance(v, str):
            out.append(v)  # a directive ("r", "0,2", ...): kept
        elif d is not NoTangent:
            out.append(np.broadcast_to(d, np.shape(v)) if np.shape(d) != np.shape(v) else d)
        elif isinstance(v, slice):
            out.append(np.zeros(np.r_[v].shape))
        else:
            out.append(np.zeros(np.shape(v)) if np.ndim(v) else 0.0)
    return tuple(out)


def index_tangent(a, i, di):
    """The tangent of `a[i]` coming from i: nonzero only for the index-expression builders np.r_ and
    np.c_, which concatenate their "index" (linear in each item)."""
    if not _is_concatenator(a) or di is NoTangent:
        return NoTangent
    return a[_concat_items(i, di)]


def with_index_tangent(item, a, i, di):
    """`item` (the tangent's `a[i]`) plus the tangent coming from the index i (np.r_ / np.c_ only), as the same
    object when that is zero: where `a[i]` is a view, its tangent must stay a view of a's tangent, so that a write
    to the array after the read shows in both (`w = b[s]; b[1:] = ...; w.sum()`)."""
    extra = index_tangent(a, i, di)
    return item if extra is NoTangent else item + extra


def index_adjoint(a, i, g):
    """The adjoint of i in `a[i]` for np.r_/np.c_ (one adjoint per item, a tuple for a tuple index): the
    part of g each item was copied to, read back by pushing the items' positions through the same
    concatenation.  NoTangent for every other container (an index is not differentiable)."""
    import numpy as np

    if not _is_concatenator(a) or g is NoTangent:
        return NoTangent
    items = i if isinstance(i, tuple) else (i,)
    sizes, parts = [], []
    for v in items:
        if isinstance(v, str):
            parts.append(v)
            sizes.append(None)
            continue
        n = np.r_[v].size if isinstance(v, slice) else int(np.size(v))
        parts.append((np.arange(n, dtype=float) + sum(s for s in sizes if s) + 1).reshape(np.shape(np.r_[v]) if isinstance(v, slice) else np.shape(v)))
        sizes.append(n)
    label = a[tuple(parts)]  # where each entry of each item ended up (labels 1, 2, ...)
    flat_g = np.asarray(g, dtype=float).reshape(-1)
    flat_label = np.asarray(label).reshape(-1)
    adj = []
    start = 1
    for v, n in zip(items, sizes):
        if n is None or isinstance(v, slice):
            adj.append(NoTangent)
            start += n or 0
            continue
        got = np.zeros(n)
        np.add.at(got, (flat_label - start)[(flat_label >= start) & (flat_label < start + n)].astype(int),
                  flat_g[(flat_label >= start) & (flat_label < start + n)])
        start += n
        adj.append(float(got[0]) if np.ndim(v) == 0 and not isinstance(v, np.ndarray) else got.reshape(np.shape(v)))
    return tuple(adj) if isinstance(i, tuple) else adj[0]
defjvp(op.setitem, lambda t, y, a, i, v: t.call(op.setitem, t.d(a), _checked_index(t, i), _slot(t, v))
       if t.d(a) is not None else None, mutates=(0,))


def _checked_index(t, i):
    """`d[x * 3.0] = v`: a key with a tangent would lose it (builtin_keys.checked_key refuses one that is not
    zero); an index without one is the index."""
    if t.d(i) is None:
        return i
    from .builtin_keys import checked_key

    return t.call(checked_key, i, t.d(i))


def _slot(t, v):
    """The tangent written into a slot: storage if the value may be mutable, else its tangent or zero."""
    from .builtin_displays import stored

    return t.dz(v) if t.is_num(v) else stored(t, v)
defjvp(op.delitem, lambda t, y, a, i: t.call(op.delitem, t.d(a), i) if t.d(a) is not None else None, mutates=(0,))

# ------------------------------------------------------------------ not differentiable
defzero(op.floordiv, op.lt, op.le, op.gt, op.ge, op.eq, op.ne, op.not_, op.truth,
        op.is_, op.is_not, op.contains, op.and_, op.or_, op.xor, op.invert, op.lshift, op.rshift,
        op.index, op.countOf, op.indexOf, op.length_hint)
defzero(op.iand, op.ior, op.ixor, op.ilshift, op.irshift, mutates=(0,))


# ================================================================== reverse rules
defvjp(op.add, lambda t, g, y, a, b: (t.unb(g, a), t.unb(g, b)) if getattr(t, "result_is_num", False)
       else _pair(t, t.call(_adj().add_vjp, g, y, a, b, _needs(t, a), _needs(t, b))))
defvjp(op.sub, lambda t, g, y, a, b: (t.unb(g, a), t.unb(t.neg(g), b)))
def mul_adjoints(t, g, y, a, b):
    """(a's, b's) adjoints of a * b: g * b and g * a, as strong zeros where an infinite adjoint or an overflowed
    factor can meet a zero (strong_zeros.times_partial: `d * d` under a sqrt at d == 0, `np.where(c, big * a, 0)`);
    sequences and other operands by the run-time helper (`[0.0] * n`, complex values)."""
    from .strong_zeros import adjoints_meet_overflow, partials_meet_infinities, times_partial

    if getattr(t, "result_is_num", False):
        return t.unb(times_partial(t, g, b), a), t.unb(times_partial(t, g, a), b)
    zero_partials, zero_adjoints = partials_meet_infinities(t), adjoints_meet_overflow(t, g)
    if g is not None and (zero_partials or zero_adjoints):
        if _real_operand(t, a) and _real_operand(t, b):
            return (t.unb(times_partial(t, g, b), a) if _needs(t, a) else None,
                    t.unb(times_partial(t, g, a), b) if _needs(t, b) else None)
        if getattr(t, "rt", None) is not None:  # (types not known here: the run time looks)
            from .strong_zeros import strong_mul_vjp

            return _pair(t, t.call(strong_mul_vjp, g, y, a, b, _needs(t, a), _needs(t, b), zero_partials, zero_adjoints))
    return _pair(t, t.call(_adj().mul_vjp, g, y, a, b, _needs(t, a), _needs(t, b)))


def _real_operand(t, v):
    """Is operand v certainly a real number or a real float array (by its type in a pullback being built, by its
    value at run time)?"""
    type_of = getattr(t, "type_of", None)
    if type_of is not None:
        from ..ir.types import Num, is_float_array

        ty = type_of(v)
        return isinstance(ty, Num) and ty.kind in ("float", "int") or is_float_array(ty)
    x = t.value(v)
    return isinstance(x, (float, int, np.floating, np.integer)) and not isinstance(x, bool) or \
        isinstance(x, np.ndarray) and x.dtype.kind in "fi"


defvjp(op.mul, mul_adjoints)


def _needs(t, x):
    """Is operand x differentiated (so its adjoint is worth computing)?"""
    needs = getattr(t, "needs", None)
    return True if needs is None else needs(x)


def _pair(t, both):
    """Split a helper's (a_bar, b_bar) result (lists and tuples mean concatenation/repetition)."""
    if hasattr(both, "tuple_size"):
        both.tuple_size = 2
    return t.call(op.getitem, both, 0), t.call(op.getitem, both, 1)
def quotient_adjoints(t, g, y, a, b):
    """(a's, b's) adjoints of a / b: g / b and -g y / b.  In b's, a quotient that is exactly 0 (a == 0: the empty
    bin of `counts / counts.sum()`) is a strong zero (strong_zeros.py): d(a/b)/db = -y/b is exactly 0 there, and an
    infinite adjoint reaching it (sqrt, a ** 0.7 or entr of that 0, whose own tangent is 0 in forward mode) must
    not make b's adjoint nan.  Numbers, and a numerator that is a non-zero constant (`1.0 / (1.0 + e)`, whose
    quotient is never 0 at a finite b), keep the plain product."""
    from .strong_zeros import adjoints_meet_overflow, strong_mul, strong_product

    if g is not None and adjoints_meet_overflow(t, g):
        # (np.where's unselected side: `np.where(x != 0, 1 / x, 0.0)` at x == 0 has g == 0, b == 0 and y == inf;
        # each adjoint exactly 0 where g is)
        a_bar = t.unb(t.call(strong_mul, g, cj(t, t.div(1.0, b), b)), a)
        return a_bar, t.unb(t.neg(t.call(strong_product, g, cj(t, t.div(y, b), y, b))), b)
    a_bar = t.unb(t.div(g, cj(t, b, b)), a)  # (first: the statements in the order the plain template made them)
    k = t.value(a)
    if isinstance(k, (int, float)) and k != 0 or t.num(y):
        gy = t.mul(g, cj(t, y, y))
    else:
        gy = None if g is None else t.call(strong_mul, cj(t, y, y), g)
    return a_bar, t.unb(t.neg(t.div(gy, cj(t, b, b))), b)


defvjp(op.truediv, quotient_adjoints)
defvjp(op.mod, lambda t, g, y, a, b: (t.unb(g, a), t.unb(t.neg(t.mul(g, t.call(mod_quotient, a, b))), b)))
def integer_scalar(v):
    """An int (not a bool) or a NumPy integer: an exponent that is never differentiated, at any order."""
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def _finite_base_slope(k):
    """Is the slope k * a**(k-1) finite wherever a ** k is (a whole number k: infinite only at a pole of a ** k
    itself)?  A fractional k has an infinite slope at 0 below one, and a nan one (as its value) below 0."""
    return isinstance(k, (int, float, np.integer, np.floating)) and not isinstance(k, bool) and \
        bool(np.isfinite(k)) and float(k).is_integer()


def times_base_slope(t, z, slope, b):
    """z * d(a**b)/da for a tangent or adjoint z: with a strong zero (strong_zeros.py) where the slope can be
    infinite at a base whose power is finite (a ** 0.5 at 0, an exponent only the run time knows)."""
    if z is None:
        return None
    if _finite_base_slope(t.value(b)):
        return t.mul(z, slope)
    from .strong_zeros import strong_mul

    return t.call(strong_mul, z, slope)


def pow_adjoints(t, g, y, a, b):
    """(a's, b's) adjoints of a ** b; none for an integer exponent (`x ** 2`), which is never differentiated:
    its term, log(a) (nan below 0), would be computed for nothing at run time and spoil higher orders.  For other
    exponents log_for_pow(a, g) is finite where g is 0, so that the derivatives of b's adjoint are not nan * 0."""
    from .strong_zeros import adjoints_meet_overflow, strong_mul, times_partial

    k = t.value(b)
    if _finite_base_slope(k) and (k >= 2 or k == 0):  # (a ** 2: its slope 2a is exactly 0 at a == 0)
        a_bar = times_partial(t, g, cj(t, t.call(h.pow_deriv, a, b), a, b))
    elif _finite_base_slope(k) and g is not None and adjoints_meet_overflow(t, g):  # (x ** -1 at 0, unselected)
        a_bar = t.call(strong_mul, g, cj(t, t.call(h.pow_deriv, a, b), a, b))
    else:
        a_bar = times_base_slope(t, g, cj(t, t.call(h.pow_deriv, a, b), a, b), b)
    return (t.unb(a_bar, a),
            None if integer_scalar(t.value(b)) else t.unb(t.mul(g, cj(t, t.mul(y, t.call(h.log_for_pow, a, g)), y)), b))


defvjp(op.pow, pow_adjoints)
defvjp(op.neg, lambda t, g, y, a: (t.neg(g),))
defvjp(op.pos, lambda t, g, y, a: (g,))
defvjp(op.abs, lambda t, g, y, a: (t.mul(g, t.call(h.sign, a)),))  # (complex a: g a/|a|, NumPy 2's sign)
defvjp(op.matmul, lambda t, g, y, a, b: _vector_product(t, g, a, b) or
       (t.call(_np_rules().matmul_adjoint_a, g, a, b), t.call(_np_rules().matmul_adjoint_b, g, a, b)))


def _matrix_product_tangent(t, a, b):
    from .strong_products import matrix_product_tangent

    return matrix_product_tangent(t, op.matmul, a, b)


def _vector_product(t, g, a, b):
    from .strong_zeros import vector_product_adjoints

    return vector_product_adjoints(t, g, a, b)
defvjp(op.getitem, lambda t, g, y, a, i: (t.call(_adj().item_adjoint, a, i, g), t.call(index_adjoint, a, i, g) if _needs(t, i) else None))


def _np_rules():
    from . import numpy_rules

    return numpy_rules


def _adj():
    from ..reverse import adjoints

    return adjoints


# Right for complex values in reverse mode (README "Complex numbers"; tests/test_complex_reverse.py): mul, truediv
# and pow conjugate the other factor and the derivative (the run-time helpers add_vjp/mul_vjp/unbroadcast as well);
# abs takes g x / |x|; a complex adjoint reaching a real operand keeps its real part (unbroadcast).
defcomplex(op.add, op.sub, op.mul, op.truediv, op.pow, op.neg, op.pos, op.abs, op.matmul, op.getitem)
