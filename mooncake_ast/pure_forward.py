"""Generated forward code that can change nothing outside its own frame: a Jacobian need not take the state f holds.

jacfwd takes, before its first pass, the state f can reach (its arguments, what it captures, module-level objects
it names, random generators: held_state.py), so that a further pass -- the probe of a new batched trace, the
one-direction-at-a-time fallback -- starts where the first one did.  That costs a walk and copies on every call.
Generated forward code that is one straight run of NumPy arithmetic on its arguments and module-level arrays writes
nothing and draws nothing, so every pass starts from the entry state by itself: `writes_nothing(fn)` says so.

Decided from fn's bytecode, conservatively (anything not recognised means "may write"): straight-line code only
(no jumps, loops, nested functions, imports, `*args` calls), no stores but to local variables, no in-place
operators, and every call one of

* a NumPy ufunc given at most its inputs positionally and no `out=` (a third positional argument of np.add is its
  output array),
* a NumPy / math function from a list of ones that return new values or views (`np.sum`, `np.dot`, `np.where`,
  `np.linalg.norm`, ...), given fewer positional arguments than the one that is its output (`np.dot(a, b, out)`,
  `np.sum(a, axis, dtype, out)`), or
* an array method from a list of ones that write nothing (`x.sum()`, `x.reshape(...)`; not `x.sort()`, `x.fill()`),
  likewise,

where the module-level names it reads are NumPy, math, numbers and numeric arrays only (so every value the code
holds is an array, a number or a module, and attribute reads run no user code).  Those names can be rebound: the
objects they were bound to are kept with the answer and compared on each call (`writes_nothing` is per call).
Only CPython 3.11's bytecode is read; other versions answer False (the state is taken, as before).
"""
from __future__ import annotations

import dis
import math
import sys
import types
from typing import Any

import numpy as np

_STACK_NEUTRAL = frozenset({"RESUME", "NOP", "CACHE", "EXTENDED_ARG", "PRECALL"})
_ANY = 99  # (no positional parameter writes)
# name -> how many positional arguments a call may give before one that is an output array (`x.sum(axis, dtype,
# out)`, `np.dot(a, b, out)`); `out=` by keyword is refused separately
_ARRAY_METHODS = {
    "sum": 2, "mean": 2, "prod": 2, "max": 1, "min": 1, "std": 2, "var": 2, "dot": 1, "reshape": _ANY, "ravel": _ANY,
    "flatten": _ANY, "copy": _ANY, "transpose": _ANY, "astype": _ANY, "conj": 0, "conjugate": 0, "cumsum": 2,
    "cumprod": 2, "squeeze": _ANY, "swapaxes": _ANY, "any": 1, "all": 1, "argmax": 1, "argmin": 1, "item": _ANY,
    "diagonal": _ANY, "trace": 4, "round": 1, "nonzero": 0, "tolist": 0}
_NUMPY_FUNCTIONS = {
    "sum": 3, "mean": 3, "prod": 3, "dot": 2, "vdot": _ANY, "inner": _ANY, "outer": 2, "tensordot": _ANY,
    "einsum": _ANY, "transpose": _ANY, "reshape": _ANY, "ravel": _ANY, "diag": _ANY, "diagonal": _ANY, "trace": 5,
    "max": 2, "min": 2, "amax": 2, "amin": 2, "std": 3, "var": 3, "cumsum": 3, "cumprod": 3, "where": 3, "clip": 3,
    "concatenate": 2, "stack": 2, "zeros": _ANY, "ones": _ANY, "zeros_like": _ANY, "ones_like": _ANY, "full": _ANY,
    "full_like": _ANY, "eye": _ANY, "identity": _ANY, "arange": _ANY, "linspace": _ANY, "asarray": _ANY,
    "array": _ANY, "copy": _ANY, "tile": _ANY, "repeat": _ANY, "squeeze": _ANY, "expand_dims": _ANY,
    "broadcast_to": _ANY, "flip": _ANY, "roll": _ANY, "diff": _ANY, "kron": _ANY, "tril": _ANY, "triu": _ANY,
    "norm": _ANY, "solve": _ANY, "inv": _ANY, "det": _ANY, "slogdet": _ANY, "cholesky": _ANY, "real": _ANY,
    "imag": _ANY, "round": 2, "sort": _ANY, "cross": _ANY, "atleast_1d": _ANY, "atleast_2d": _ANY, "any": 2,
    "all": 2, "argmax": 2, "argmin": 2, "shape": _ANY, "ndim": _ANY, "size": _ANY}
_PURE_CALLABLES: dict = {}  # id of a function above (np.x, np.linalg.x) or of math -> its positional limit
_MODULES = (np, np.linalg, math)
_KNOWN: dict = {}  # code -> (globals dict, names read, the objects they were bound to, the answer)


def _pure_callables() -> dict:
    if not _PURE_CALLABLES:
        for module in (np, np.linalg):
            for name, limit in _NUMPY_FUNCTIONS.items():
                fn = getattr(module, name, None)
                if callable(fn) and not isinstance(fn, np.ufunc) and id(fn) not in _PURE_CALLABLES:
                    _PURE_CALLABLES[id(fn)] = limit
        for k, v in vars(math).items():
            if callable(v) and not k.startswith("_"):
                _PURE_CALLABLES[id(v)] = _ANY
    return _PURE_CALLABLES


def writes_nothing(fn: Any) -> bool:
    """Can a call of the generated function fn change nothing but its own locals (see the module's doc)?"""
    code = getattr(fn, "__code__", None)
    if code is None or type(fn) is not types.FunctionType:
        return False
    g = fn.__globals__
    known = _KNOWN.get(code)
    if known is None or known[0] is not g or any(g.get(n, _UNBOUND) is not v for n, v in zip(known[1], known[2])):
        names = tuple(sorted({ins.argval for ins in dis.get_instructions(code) if ins.opname == "LOAD_GLOBAL"}))
        values = tuple(g.get(n, _UNBOUND) for n in names)
        try:
            answer = _decide(code, g)
        except Exception:  # (bytecode this reader does not know: may write)
            answer = False
        if len(_KNOWN) > 1024:
            _KNOWN.clear()
        known = _KNOWN[code] = (g, names, values, answer)
    return known[3]


_UNBOUND = object()


def _global_ok(v: Any) -> bool:
    """A module-level value straight-line NumPy code may read without any call of it reaching user code."""
    if isinstance(v, types.ModuleType):
        return v in _MODULES
    if type(v) is np.ndarray:
        return v.dtype.kind in "biufc"
    if isinstance(v, (bool, int, float, complex, np.number, str, type(None))):
        return True
    if isinstance(v, tuple):
        return all(isinstance(i, (bool, int, float, complex, np.number)) for i in v)
    return isinstance(v, np.ufunc) or id(v) in _pure_callables()


def _resolve(tag: Any, g: dict) -> Any:
    """The object a stack tag stands for where it is known (a global, an attribute of a known module), else _UNBOUND."""
    if tag is None or tag == "value":
        return _UNBOUND
    if tag[0] == "global":
        return g.get(tag[1], _UNBOUND)
    base = _resolve(tag[1], g)
    if isinstance(base, types.ModuleType) and base in _MODULES:
        return getattr(base, tag[2], _UNBOUND)
    return _UNBOUND


def _call_ok(callee: Any, argc: int, kwnames: tuple, g: dict) -> bool:
    if "out" in kwnames:
        return False
    obj = _resolve(callee, g)
    if obj is not _UNBOUND:
        if isinstance(obj, np.ufunc):
            return argc <= obj.nin  # (a further positional argument is the output array)
        return argc <= _pure_callables().get(id(obj), -1)
    if isinstance(callee, tuple) and callee[0] == "attr":
        base = callee[1]
        receiver = _resolve(base, g) if base is not None and base != "value" else _UNBOUND
        if base == "value" or type(receiver) is np.ndarray:  # (a method of an array or number this code holds)
            return argc <= _ARRAY_METHODS.get(callee[2], -1)
    return False


def _decide(code: types.CodeType, g: dict) -> bool:
    if sys.version_info[:2] != (3, 11):
        return False
    if any(isinstance(c, types.CodeType) for c in code.co_consts) or code.co_flags & 0x20:  # (nested code, generator)
        return False
    stack: list = []
    kwnames: tuple = ()
    for ins in dis.get_instructions(code):
        op = ins.opname
        if op in _STACK_NEUTRAL:
            continue
        if op == "LOAD_GLOBAL":
            if ins.argval not in g or not _global_ok(g[ins.argval]):
                return False
            if ins.arg & 1:
                stack.append(None)
            stack.append(("global", ins.argval))
        elif op in ("LOAD_FAST", "LOAD_CONST"):
            stack.append("value")
        elif op == "STORE_FAST" or op == "POP_TOP":
            stack.pop()
        elif op == "LOAD_ATTR":
            stack.append(("attr", stack.pop(), ins.argval))
        elif op == "LOAD_METHOD":
            base = stack.pop()
            stack += [None, ("attr", base, ins.argval)]
        elif op == "PUSH_NULL":
            stack.append(None)
        elif op == "KW_NAMES":
            kwnames = tuple(code.co_consts[ins.arg])
        elif op == "CALL":
            argc = ins.arg
            if len(stack) < argc + 2 or not _call_ok(stack[-argc - 1], argc - len(kwnames), kwnames, g):
                return False
            del stack[-argc - 2:]
            stack.append("value")
            kwnames = ()
        elif op == "BINARY_OP":
            if ins.arg >= 13:  # (NB_INPLACE_*: `a += b` writes a)
                return False
            del stack[-2:]
            stack.append("value")
        elif op in ("BINARY_SUBSCR", "COMPARE_OP", "IS_OP", "CONTAINS_OP"):
            del stack[-2:]
            stack.append("value")
        elif op in ("UNARY_NEGATIVE", "UNARY_POSITIVE", "UNARY_INVERT", "UNARY_NOT"):
            stack[-1] = "value"
        elif op in ("BUILD_TUPLE", "BUILD_LIST", "BUILD_SLICE"):
            if ins.arg:
                del stack[-ins.arg:]
            stack.append("value")
        elif op == "RETURN_VALUE":
            stack.pop()
        else:  # (jumps, stores other than to locals, imports, in-place and star calls, ...: may write)
            return False
    return True

