"""NumPy's output argument in one form, `out=c`, whichever way the code gives it.

`np.add(a, b, out=(c,))` is `np.add(a, b, out=c)`: a one-result ufunc takes its output either way.  And a ufunc
takes its outputs positionally after its inputs (`np.add(a, x, b)`, `np.sin(v, b)`), as NumPy's functions with an
`out` parameter do in its place (`np.dot(A, v, b)`, `np.clip(v, lo, hi, b)`, `np.sum(M, 1, None, b)`).

The transforms' rules for `out=` read the output array from the keyword: a tuple holding it looked like no array
at all to them (forward mode gave the written array a zero tangent, silently; reverse mode failed), and an output
given positionally was taken for an operand (both modes lost the write: a zero derivative).  Only where the callee
is known when the derivative is made to be a NumPy ufunc with one result, or a NumPy function whose signature names
`out`: for anything else (a function of the user's with an `out` parameter) the arguments are what they are.
"""
from __future__ import annotations

import functools
import inspect
import operator
from typing import Any, Callable, Optional

import numpy as np

from .. import ops
from ..method_out import ufunc_method_parameters
from .nodes import Call, Const, Function


def single_out_tuples(ir: Function, resolve: Callable[[Any], Any],
                      zero_derivative: Callable[[Any], bool] = lambda fn: False) -> None:
    """Rewrite `out=(c,)` of one-result ufuncs as `out=c`, and outputs given positionally as `out=`
    (`resolve` gives the callable a callee value denotes, or None); then the output of a call whose derivative is
    zero (`zero_derivative`) as a store of its result (_zero_derivative_out)."""
    written = []
    for b in ir.blocks:
        for s in b.stmts:
            if len(s.args) >= 2 and "out" not in (s.kwargs or {}):
                _positional_out(s, resolve)
            out = s.kwargs.get("out") if s.kwargs else None
            if isinstance(out, Call) and out.callee() is ops.tuple_of and len(out.args) == 1 and not out.kwargs:
                fn = resolve(s.fn)
                if isinstance(fn, np.ufunc) and fn.nout == 1:
                    s.kwargs = {**s.kwargs, "out": out.args[0]}
            out = s.kwargs.get("out") if s.kwargs else None
            if out is not None and not (isinstance(out, Const) and out.value is None) and "where" not in s.kwargs \
                    and not (isinstance(out, Call) and out.callee() is ops.tuple_of):
                fn = resolve(s.fn)
                if fn is not None and zero_derivative(fn):
                    written.append((b, s, out))
    for b, s, out in written:
        _zero_derivative_out(ir, b, s, out)
    for b in ir.blocks:
        for s in list(b.stmts):
            if isinstance(s, Call) and _writes_in_place_by_copy_false(s, resolve):
                _nan_to_num_in_place(ir, b, s)


def _writes_in_place_by_copy_false(s: Call, resolve: Callable[[Any], Any]) -> bool:
    """`np.nan_to_num(y, copy=False)` (or `np.nan_to_num(y, False)`): a write of y's entries."""
    if not s.args or resolve(s.fn) is not np.nan_to_num:
        return False
    copy = s.args[1] if len(s.args) > 1 else (s.kwargs or {}).get("copy")
    return isinstance(copy, Const) and copy.value is False


def _nan_to_num_in_place(ir: Function, b: Any, s: Call) -> None:
    """`np.nan_to_num(y, copy=False)` as `t = np.nan_to_num(y); np.copyto(y, t)`, and the call's result read as y.

    NumPy writes y's entries in place; as a value-returning call the transforms gave y no new derivative (forward
    mode kept the tangent of an entry it replaced, reverse mode refused).  np.copyto is a write both modes know
    (rules/numpy_writes.py): y's replaced entries lose their derivative, and every alias of y sees it."""
    y = s.args[0]
    rest = {k: v for k, v in (s.kwargs or {}).items() if k != "copy"}
    plain = Call(s.fn, [y, *s.args[2:]], rest, loc=s.loc)
    _as_store(ir, b, s, plain, Call(Const(np.copyto), [y, plain], {}, loc=s.loc), y)


def _zero_derivative_out(ir: Function, b: Any, s: Call, out: Any) -> None:
    """`np.floor(y, out=y)` as `t = np.floor(y); y[...] = t`, and the call's result (the output array) read as y.

    A call whose derivative is zero needs no derivative code, and the transforms left it out: the output kept its
    old tangent in forward mode and its adjoint in reverse mode (both modes gave y's derivative through a floor).
    As a store, the write is what every write is to them: the output's tangent replaced by zeros, its adjoint
    killed and its old values restored for the pullbacks before it."""
    plain = Call(s.fn, list(s.args), {k: v for k, v in s.kwargs.items() if k != "out"}, loc=s.loc)
    _as_store(ir, b, s, plain, Call(Const(operator.setitem), [out, Const(Ellipsis), plain], loc=s.loc), out)


def _as_store(ir: Function, b: Any, s: Call, plain: Call, store: Call, written: Any) -> None:
    """s replaced in its block by `plain` (the value) and `store` (its write into `written`), and every use of s's
    result by `written` (the array the call wrote)."""
    plain.block = store.block = b  # type: ignore[attr-defined]
    i = b.stmts.index(s)
    b.stmts[i:i + 1] = [plain, store]
    for blk in ir.blocks:
        for x in (*blk.phis, *blk.stmts, *((blk.term,) if blk.term is not None else ())):
            x.replace_operand(s, written)


def _positional_out(s: Call, resolve: Callable[[Any], Any]) -> None:
    """`np.add(a, x, b)` as `np.add(a, x, out=b)`; `np.sum(M, 1, None, b)` as `np.sum(M, 1, None, out=b)` (what
    follows out moved to its keyword too; `out=None` given positionally dropped)."""
    fn = resolve(s.fn)
    if isinstance(fn, np.ufunc):
        # (NumPy's own: SciPy's ufuncs have rules that take outputs positionally, `*out`, as scipy.special's Python
        # wrappers pass them, `_zeta(x, q, out)` with out None)
        if fn.nout == 1 and len(s.args) == fn.nin + 1 and getattr(np, fn.__name__, None) is fn:
            out = s.args[fn.nin]
            s.args = s.args[:fn.nin]
            if not (isinstance(out, Const) and out.value is None):
                s.kwargs = {**(s.kwargs or {}), "out": out}
        return
    method = ufunc_method_parameters(fn)  # (`np.add.reduce(A, 0, None, o)`: NumPy's names, method_out.py)
    if method is not None:
        first, rest = method
        names = (first + rest.index("out"), rest[rest.index("out"):], frozenset())
    elif not callable(fn) or not (getattr(fn, "__module__", None) or "").startswith("numpy"):
        return
    else:
        try:
            names = _parameters_from_out(fn)
        except TypeError:  # (unhashable)
            return
    if names is None or len(s.args) <= names[0]:
        return
    k = names[0]
    moved = dict(zip(names[1], s.args[k:]))
    if len(s.args) - k > len(names[1]) or set(moved) & set(s.kwargs or {}):
        return  # (more than the signature takes, or given twice: NumPy's TypeError, as in the plain call)
    if isinstance(moved.get("out"), Const) and moved["out"].value is None:
        del moved["out"]
    args = list(s.args[:k])
    while args and len(args) - 1 in names[2] and isinstance(args[-1], Const) and args[-1].value is None:
        args.pop()  # (`dtype` given as None before out: its default, as if not given: the rules take what they know)
    s.args = args
    s.kwargs = {**(s.kwargs or {}), **moved}


@functools.lru_cache(maxsize=512)
def _parameters_from_out(fn: Any) -> Optional[tuple]:
    """(the position of fn's `out` parameter, the names of the parameters from it on that can be given by keyword
    as well as by position, the positions before it whose default is None), or None where fn has no positional
    `out`."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return None
    for i, p in enumerate(params):
        if p.kind is inspect.Parameter.VAR_POSITIONAL:
            return None
        if p.name == "out":
            if p.kind is not inspect.Parameter.POSITIONAL_OR_KEYWORD:
                return None
            rest = []
            for q in params[i:]:
                if q.kind is not inspect.Parameter.POSITIONAL_OR_KEYWORD:
                    break
                rest.append(q.name)
            none_default = frozenset(j for j, q in enumerate(params[:i]) if q.default is None)
            return i, tuple(rest), none_default
    return None
