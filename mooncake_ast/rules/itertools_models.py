"""Plain-Python models of `itertools` (and `filter`), for derivatives of derivatives.

The first-order rules of itertools (python_itertools.py) and filter (builtin_consumers.py) are hand-written: they
run when the call runs and have no derivative of their own, so `mc.hessian` (reverse mode over forward code) and
`mc.jacfwd(mc.grad(f))` (forward over forward code) were refused where a function used them ("the forward
derivative of pairwise comes from a hand-written rule").  Here each call is modelled by ordinary Python over lists
(`pairwise(xs)`: the list of `(items[i], items[i + 1])`, returned as an iterator), which mooncake_ast differentiates
as it differentiates the user's code: at any order, both modes.  api_rules._plan (positional calls) and
nested_fcall_rules._stats_model (calls with keywords, which then name the model's positional parameters) ask
`model_for` for the model standing for a call.

The models read their inputs when called (an iterator passed in is consumed as far as the plain call would consume
it over the whole iteration: `islice(it, stop)` reads `stop` items, takewhile up to the first item failing, so `it`
can be read on afterwards).  Where the call's result is read only in part and the iterator read again after, the
plain call reads less: `model_for` refuses such a call over an iterator (frontend/iterator_rereads.itertools_site
finds the pattern in the user's function), where the first-order rules read as asked (itertools_lazy.py).  Functions given to them (accumulate's func, starmap's, filter's predicate) are
called by the model, so they are differentiated like any call.  Variadic calls (chain, product, zip_longest) have
one model per number of iterables, up to MAX_ITERABLES; more are refused by name.
"""
from __future__ import annotations

import builtins
import itertools
from typing import Any, Optional


from ..lazy_iteration import is_iterator
from .registry import defzero

MAX_ITERABLES = 4


# ---------------------------------------------------------------- the models (plain Python: they are traced)
def _all_of(iterables):
    out = []
    for it in iterables:
        items = list(it)
        for i in range(len(items)):
            out.append(items[i])
    return iter(out)


def chain1(a):
    return _all_of([a])


def chain2(a, b):
    return _all_of([a, b])


def chain3(a, b, c):
    return _all_of([a, b, c])


def chain4(a, b, c, d):
    return _all_of([a, b, c, d])


def chain_from_iterable(iterables):
    return _all_of(list(iterables))


def pairwise(iterable):
    items = list(iterable)
    out = []
    for i in range(len(items) - 1):
        out.append((items[i], items[i + 1]))
    return iter(out)


class _End:
    """What next() gives past the end of an iterator (a constant: never differentiated)."""


_END = _End()


def _read_prefix(iterable, stop):
    """The first `stop` items of iterable, read no further (an iterator passed in is read on by its next reader)."""
    it = iter(iterable)
    items = []
    for k in range(stop):
        v = next(it, _END)
        if v is _END:
            break
        items.append(v)
    return items


def _sliced(iterable, start, stop, step):
    items = list(iterable) if stop is None else _read_prefix(iterable, stop)
    out = []
    for i in range(start, len(items), step):
        out.append(items[i])
    return iter(out)


def islice2(iterable, stop):
    return _sliced(iterable, 0, stop, 1)


def islice3(iterable, start, stop):
    return _sliced(iterable, 0 if start is None else start, stop, 1)


def islice4(iterable, start, stop, step):
    return _sliced(iterable, 0 if start is None else start, stop, 1 if step is None else step)


def accumulate(iterable, func=None, initial=None):
    items = list(iterable)
    out = []
    if initial is not None:
        out.append(initial)
    for v in items:
        if len(out) == 0:
            out.append(v)
        elif func is None:
            out.append(out[-1] + v)
        else:
            out.append(func(out[-1], v))
    return iter(out)


def starmap(function, iterable):
    items = list(iterable)
    out = []
    for i in range(len(items)):
        out.append(function(*items[i]))
    return iter(out)


def _product_of(iterables, repeat):
    pools = []
    for k in range(repeat):
        for it in iterables:
            pools.append(it)
    rows = [()]
    for pool in pools:
        longer = []
        for row in rows:
            for v in pool:
                longer.append(row + (v,))
        rows = longer
    return iter(rows)


def _pools(iterables):
    """Each iterable read once, whole (product reads its arguments before it yields, in order)."""
    out = []
    for it in iterables:
        out.append(list(it))
    return out


def product1(a, repeat=1):
    return _product_of(_pools([a]), repeat)


def product2(a, b, repeat=1):
    return _product_of(_pools([a, b]), repeat)


def product3(a, b, c, repeat=1):
    return _product_of(_pools([a, b, c]), repeat)


def product4(a, b, c, d, repeat=1):
    return _product_of(_pools([a, b, c, d]), repeat)


def _longest(iterables, fillvalue):
    cols = _pools(iterables)
    n = 0
    for c in cols:
        if len(c) > n:
            n = len(c)
    out = []
    for i in range(n):
        row = ()
        for c in cols:
            if i < len(c):
                row = row + (c[i],)
            else:
                row = row + (fillvalue,)
        out.append(row)
    return iter(out)


def zip_longest1(a, fillvalue=None):
    return _longest([a], fillvalue)


def zip_longest2(a, b, fillvalue=None):
    return _longest([a, b], fillvalue)


def zip_longest3(a, b, c, fillvalue=None):
    return _longest([a, b, c], fillvalue)


def zip_longest4(a, b, c, d, fillvalue=None):
    return _longest([a, b, c, d], fillvalue)


def repeat(obj, times):
    out = []
    for k in range(times):
        out.append(obj)
    return iter(out)


def compress(data, selectors):
    items = iter(data)
    keep = iter(selectors)
    out = []
    while True:  # (an item, then its selector, as itertools reads them: an iterator passed in is read no further)
        v = next(items, _END)
        if v is _END:
            break
        s = next(keep, _END)
        if s is _END:
            break
        if s:
            out.append(v)
    return iter(out)


def filter_model(function, iterable):
    out = []
    for v in list(iterable):
        if function is None:
            if v:
                out.append(v)
        elif function(v):
            out.append(v)
    return iter(out)


def takewhile(predicate, iterable):
    items = iter(iterable)
    out = []
    while True:  # (up to the first item failing the predicate, as itertools reads: the rest is the next reader's)
        v = next(items, _END)
        if v is _END or not predicate(v):
            break
        out.append(v)
    return iter(out)


def dropwhile(predicate, iterable):
    out = []
    dropping = True
    for v in list(iterable):
        if dropping and predicate(v):
            continue
        dropping = False
        out.append(v)
    return iter(out)


def filterfalse(predicate, iterable):
    out = []
    for v in list(iterable):
        if predicate is None:
            if not v:
                out.append(v)
        elif not predicate(v):
            out.append(v)
    return iter(out)


def make_slice(start, stop, step):
    """`slice(start, stop, step)`: indices, no derivative at any order (registered zero below).  A generator's body
    runs its calls guarded (frontend/generator_ops.py), so `yield from xs[:2]` met slice() as a dispatched call with
    a hand-written rule, refused at second order."""
    return slice(start, stop, step)


def make_slice1(stop):
    return slice(stop)


def make_slice2(start, stop):
    return slice(start, stop)


# ---------------------------------------------------------------- which model stands for a call
_BY_ARITY = {
    itertools.chain: (None, chain1, chain2, chain3, chain4),
    itertools.product: (None, product1, product2, product3, product4),
    itertools.zip_longest: (None, zip_longest1, zip_longest2, zip_longest3, zip_longest4),
    itertools.islice: (None, None, islice2, islice3, islice4),
}
_FIXED = {
    itertools.chain.from_iterable: chain_from_iterable, itertools.pairwise: pairwise,
    itertools.accumulate: accumulate, itertools.starmap: starmap, itertools.repeat: repeat,
    itertools.compress: compress, builtins.filter: filter_model, itertools.takewhile: takewhile,
    itertools.dropwhile: dropwhile, itertools.filterfalse: filterfalse,
}
_NAMES = {itertools.chain.from_iterable: "itertools.chain.from_iterable", builtins.filter: "filter"}


def _label(f: Any) -> str:
    return _NAMES.get(f) or f"itertools.{f.__name__}"


def _known(f: Any) -> bool:
    try:
        return f in _FIXED or f in _BY_ARITY
    except TypeError:  # (an unhashable callable)
        return False


# Which positional arguments are iterables (the rest, and the keywords, are checked by itertools itself below).
_ITERABLES = {itertools.chain.from_iterable: (0,), itertools.pairwise: (0,), itertools.accumulate: (0,),
              itertools.starmap: (1,), itertools.repeat: (), itertools.compress: (0, 1), builtins.filter: (1,),
              itertools.takewhile: (1,), itertools.dropwhile: (1,), itertools.filterfalse: (1,), itertools.islice: (0,)}


def _check_arguments(f: Any, args: tuple, kw: dict) -> None:
    """Let itertools check the arguments that are not iterables (`islice(x, -1)`, `product(a, repeat=-1)` raise):
    the same call with empty lists for the iterables, which reads nothing.  The model never runs the call itself."""
    where = _ITERABLES.get(f, tuple(range(len(args))))
    f(*[[] if i in where else a for i, a in enumerate(args)], **kw)


def _refuse(f: Any, why: str) -> Exception:
    from .forward_code_rules import NestingError

    return NestingError(f"nested derivative of {_label(f)}: {why}")


def model_for(f: Any, args: tuple, kwargs: Any) -> Optional[Any]:
    """The plain model standing for `f(*args, **kwargs)` where f is one of the itertools above (or filter), else None.
    Raises NestingError where f has no model for these arguments (more iterables than MAX_ITERABLES, an infinite
    `repeat`, a keyword the model does not take)."""
    if f is builtins.slice and not kwargs and 1 <= len(args) <= 3:
        return (make_slice1, make_slice2, make_slice)[len(args) - 1]
    if not _known(f):
        if type(getattr(f, "__self__", None)).__module__.startswith("numpy.random"):
            from .numpy_random_permutations import model_for as permutation_model

            return permutation_model(f, args, kwargs)  # (rng.shuffle, rng.permuted: the same way)
        return None
    kw = dict(kwargs or {})
    n = len(args)
    if f in _BY_ARITY:
        models = _BY_ARITY[f]
        model = models[n] if n < len(models) else None
        if model is None:
            raise _refuse(f, f"{n} positional arguments are not supported at second order (at most "
                             f"{len(models) - 1}); chain or zip the iterables in steps")
    else:
        model = _FIXED[f]
    code = model.__code__
    params = code.co_varnames[:code.co_argcount]
    if n > len(params) or any(k not in params[n:] for k in kw):
        raise _refuse(f, f"arguments {tuple(kw) or n} are not supported at second order (supported: "
                         f"{', '.join(params)})")
    if model is repeat and n + len(kw) < 2:
        raise _refuse(f, "an infinite repeat (no `times`) has no model; pass times")
    _check_arguments(f, args, kw)
    if f is not itertools.product and any(is_iterator(a) or (type(a) in (list, tuple) and any(is_iterator(v) for v in a))
                                          for a in args):  # (product reads its inputs whole, as its model does)
        import sys

        from ..frontend.iterator_rereads import itertools_site

        refusal = itertools_site(sys._getframe(1))
        if refusal is not None:
            raise _refuse(f, refusal)
    return model


defzero(make_slice, make_slice1, make_slice2)  # (registered with the built-in rules: python_itertools imports this module)


# ---------------------------------------------------------------- a model's reverse rule (first order)
def model_rrule(model: Any, args: tuple, kwargs: dict) -> tuple:
    """`(y, pullback)` of the call through its model's derived reverse code, the pullback giving one adjoint per
    positional argument and the keywords' in a KwAdj, as run-time reverse rules do.  For calls whose items are
    objects with adjoint storage (arrays): the derived code routes their adjoints by identity, where a hand-written
    pullback handing an item's adjoint back as a value would count it twice when the result holds the item itself
    (`accumulate(rows)` yields rows[0])."""
    from ..reverse.runtime import rcall
    from .call_binding import KwAdj

    y, pb = rcall(model, tuple(args), dict(kwargs))

    def pullback(g: Any) -> tuple:
        _, bars, kwbars = pb(g)
        bars = tuple(bars) + (None,) * (len(args) - len(tuple(bars)))
        named = {k: v for k, v in dict(kwbars or {}).items() if k in kwargs}
        return tuple(bars[:len(args)]) + ((KwAdj(named),) if named else ())

    return y, pullback


def holds_storage(items: Any) -> bool:
    """Does a list or tuple of items hold an object whose adjoint lives in storage found by identity (an array, a
    list, a dict, an object)?"""
    from ..tangents import is_mutable

    return any(is_mutable(v) for v in items)
