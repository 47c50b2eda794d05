"""What an operator or a method of a scipy.sparse matrix made in the function writes and shares (for activity).

Activity (forward/activity.py) takes a call it knows no rule for, dispatched when the code runs, to write each of
its operands, and its result to share their storage.  For `A @ x` with `A = sps.csr_matrix(D)` made in the
function from a constant D that made A, and so D, written with data from the inputs: D got an adjoint, which the
conversion's pullback refuses for the zeros it drops ("reverse mode of a scipy.sparse conversion").  A constant
sparse matrix is a constant linear operator, and SciPy's operators and methods write none of their operands, so:

* `A op y` (`@ * + - / **`, unary `-A`): SciPy's method runs first; it writes nothing and returns a new value.
* `y op A` (`x @ A`, `x * A`): y's own method runs first.  An array defers to the matrix (SciPy sets
  `__array_priority__`), but y may be an object of the user's, whose method may write y: y stays written and
  shared, the matrix does not.
* `A.dot(y)`, `A.multiply(y)`, `A.sum()`, `A.toarray()`, ...: new values, nothing written.
* `A.T`, `A.transpose()`, `A.tocsr()`, `A.copy()`, ...: may share A's arrays (`csr.tocsr()` is A itself), so they
  share A's storage; nothing is written.  A matrix reached so is a matrix made in the function too.

A matrix is "made in the function" when a scipy.sparse class or maker (`sps.diags`, `sps.kron`) makes it there,
statically known; a matrix handed in, or made by a call resolved only when the code runs, keeps the general rule.
"""
from __future__ import annotations

import operator
from typing import Any, Callable, Optional

from .. import ops
from ..ir.nodes import Call, Const, Value

SPARSE_OPERATORS = frozenset({operator.add, operator.sub, operator.mul, operator.truediv, operator.matmul,
                              operator.neg, operator.pos, operator.pow})
# Methods returning a new value that shares nothing with the matrix.
_FRESH_METHODS = frozenset({"dot", "multiply", "toarray", "todense", "sum", "mean", "power", "maximum", "minimum",
                            "diagonal", "getrow", "getcol", "count_nonzero", "trace", "conj", "conjugate"})
# Methods (and the attribute `T`) whose result may share the matrix's arrays.
_VIEW_METHODS = frozenset({"transpose", "tocsr", "tocsc", "tocoo", "asformat", "copy", "astype", "reshape"})

# (the operands a call may write, by position; the operands its result may share storage with)
Roles = tuple[tuple[int, ...], tuple[Value, ...]]


def sparse_call(static_rule: Callable, s: Call) -> Optional[Roles]:
    """s's roles when it is an operator or a method of a sparse matrix made in the function; else None."""
    callee = s.callee()
    if callee in SPARSE_OPERATORS and s.args and not s.kwargs:
        if sparse_made(static_rule, s.args[0]):
            return (), ()
        if len(s.args) == 2 and sparse_made(static_rule, s.args[1]) and callee is not operator.pow:
            return (0,), (s.args[0],)
        return None
    method = _method_of(s)
    if method is None:
        return None
    obj, name = method
    if name not in _FRESH_METHODS and name not in _VIEW_METHODS or not sparse_made(static_rule, obj):
        return None
    return (), ((obj,) if name in _VIEW_METHODS else ())


def sparse_made(static_rule: Callable, v: Value, depth: int = 6) -> bool:
    """Is v a scipy.sparse matrix made in the function, or reached from one by `.T` or a view method?"""
    if not isinstance(v, Call) or depth <= 0:
        return False
    if v.callee() is getattr and len(v.args) == 2 and isinstance(v.args[1], Const) and v.args[1].value == "T":
        return sparse_made(static_rule, v.args[0], depth - 1)
    method = _method_of(v)
    if method is not None and method[1] in _VIEW_METHODS:
        return sparse_made(static_rule, method[0], depth - 1)
    maker, _ = static_rule(v)
    if maker is None:
        maker = _imported_attribute(v.fn)  # (`import scipy.sparse as sps` inside the function)
    if isinstance(maker, type):
        return (getattr(maker, "__module__", None) or "").startswith("scipy.sparse") and \
            any(c.__name__ == "_spbase" for c in maker.__mro__)
    from .object_flow import _sparse_maker

    return maker is not None and _sparse_maker(maker)


def _method_of(s: Call) -> Any:
    """`obj.name(...)` as (obj, name), from its callee `getattr(obj, 'name')`."""
    f = s.fn
    if (isinstance(f, Call) and f.callee() is getattr and len(f.args) == 2 and isinstance(f.args[1], Const)
            and isinstance(f.args[1].value, str)):
        return f.args[0], f.args[1].value
    return None


def _imported_attribute(v: Value) -> Any:
    """What `getattr(import_module("mod"), "name")` (`sps.csr_matrix` after `import scipy.sparse as sps` in the
    function) denotes, where the module is imported already; else None."""
    import sys

    if not (isinstance(v, Call) and v.callee() is getattr and len(v.args) == 2 and isinstance(v.args[1], Const)):
        return None
    m = v.args[0]
    if not (isinstance(m, Call) and m.callee() is ops.import_module and m.args and isinstance(m.args[0], Const)):
        return None
    module = sys.modules.get(m.args[0].value) if isinstance(m.args[0].value, str) else None
    return getattr(module, v.args[1].value, None) if module is not None and isinstance(v.args[1].value, str) else None
