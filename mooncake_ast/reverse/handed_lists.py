"""A copy of a list of floats handed to one of the user's functions that only reads it: `horner(coeffs[1:], x)`.

`coeffs[1:]` is a new list (a list's slice is a copy) of the floats of `coeffs`.  Handed to a user function, it
needs no identity-keyed storage when

* the function (a plain Python function the call names through a module global, without a rule of the user's)
  only reads the parameter it lands in: items by an index, `len`, slices of it (new lists again, which it may hand
  on in turn), never a write, a method, a return, a store or handing the list itself on (`only_reads`).  Then
  its own pullback adds nothing into the caller's storage for the list: the adjoint it hands back for that
  argument is all there is (a plain list of floats from its typed pullback, or its storage otherwise: both a
  sequence of numbers that reverse/list_adjoints.add_list_adjoint adds slot by slot);
* the copy is used by that call only (nothing reads it after the callee may have done anything to it), and the
  call's result is a number (it holds no part of the list).

The callee's summary (reverse/call_types.py) then types that parameter as the list of floats the copy is, so a
recursive `return coeffs[0] + x * horner(coeffs[1:], x)` is typed a float on every path, and the caller keeps
the copy as reverse/typed_lists.py keeps a list it makes: `add_list_adjoint(t_bar, g)`, then `add_slice`.
"""
from __future__ import annotations

import builtins
import operator
import types
from typing import TYPE_CHECKING, Any

from .. import ops
from ..ir.nodes import Call, Global, Param, Return
from ..ir.types import FLOAT, Lst, Num

if TYPE_CHECKING:
    from .transform import ReverseTransform

_ONLY_READS: dict = {}  # (code, globals, position) -> whether the function only reads that parameter
_READS = (builtins.len, operator.getitem)


def only_reads(fn: types.FunctionType, k: int) -> bool:
    """Does fn only read its k-th positional parameter (a list): `p[i]` (an item: a float, or a new list when i is a
    slice), `len(p)`, and nothing else (see the module docstring)?  False where fn cannot be lowered."""
    key = (fn.__code__, id(fn.__globals__), k)  # (its globals say what `len` is)
    if key not in _ONLY_READS:
        if len(_ONLY_READS) > 1024:
            _ONLY_READS.clear()
        _ONLY_READS[key] = False  # (while it is worked out: a recursive question answers no)
        try:
            _ONLY_READS[key] = _only_reads(fn, k)
        except Exception:  # noqa: BLE001 - a function we cannot lower is simply not looked into
            _ONLY_READS[key] = False
    return _ONLY_READS[key]


def _only_reads(fn: types.FunctionType, k: int) -> bool:
    from ..frontend.source import function_source
    from ..frontend.statements import lower_function

    code = fn.__code__
    if code.co_flags & 0x0C or k >= code.co_argcount or code.co_cellvars and \
            code.co_varnames[k] in code.co_cellvars:
        return False  # (*args / **kwargs; a parameter a nested function captures: it may do anything with it)
    ir = lower_function(fn, function_source(fn))
    name = code.co_varnames[k]
    p = next((q for q in ir.params if isinstance(q, Param) and q.name == name), None)
    if p is None:
        return False
    for b in ir.blocks:
        if any(p in phi.incoming.values() for phi in b.phis):
            return False
        if isinstance(b.term, Return) and b.term.value is p or not isinstance(b.term, Return) and \
                p in b.term.operands():
            return False
        for s in b.stmts:
            if p is s.fn or p in s.kwargs.values():
                return False
            if p not in s.args:
                continue
            callee = _callee(fn, s)
            if not (callee in _READS and s.args[0] is p and p not in s.args[1:] and not s.kwargs and
                    len(s.args) == (1 if callee is builtins.len else 2)):
                return False
    return True


def _callee(fn: types.FunctionType, s: Call) -> Any:
    """What s calls: its constant, or the module global (or builtin) it names in fn's module; else None."""
    if isinstance(s.fn, Global):
        if s.fn.name in fn.__globals__:
            return fn.__globals__[s.fn.name]
        return getattr(builtins, s.fn.name, None)
    return s.callee()


def slice_type(st: Call, arg_types: list, count: dict) -> Any:
    """In a callee's summary (reverse/call_types.py): `xs[a:b]` of a list of floats used once, as the argument of a
    call, is a list of floats (a copy: a later write of it by that callee drops its type there, `only_reads`, and
    nothing else reads it).  None otherwise."""
    from .local_lists import is_slice

    if is_slice(st) and arg_types and arg_types[0] == Lst(FLOAT) and count.get(st) == 1:
        return arg_types[0]
    return None


def handed_copy(rt: "ReverseTransform", s: Call, v: Any, uses: dict) -> bool:
    """Is v a slice of a list of floats (typed here) whose only use is as a positional argument of the user's
    function call s that only reads it, s's result a number?"""
    from .call_types import user_function
    from .local_lists import is_slice

    if not (isinstance(v, Call) and is_slice(v) and rt.type_of(v) == Lst(FLOAT) and len(uses.get(v, [])) == 1):
        return False
    if s.kwargs or v not in s.args or s.args.count(v) != 1 or not isinstance(rt.type_of(s), Num):
        return False
    fn = user_function(rt.resolver, s)
    return fn is not None and only_reads(fn, s.args.index(v))
