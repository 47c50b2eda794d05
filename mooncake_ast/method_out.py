"""A NumPy method's output array given positionally, `A.max(0, o, True)`, as the keyword the rules read, `out=o`.

The rules for `out=` (rules/eager.py's into-out calls, both runtimes' dispatch) read the output array from the
keyword.  A function given its output positionally (`np.sum(M, 1, None, o)`) is rewritten before the transforms
run (ir/ufunc_out.py), since the callee is known then; a method is not: `A.max` is `getattr(A, "max")`, and what A
is may be known only when the code runs (a user object's `max(a, b, c)` takes no `out`).  An output taken for an
operand was lost by both modes: o kept its old derivative, a silent zero.

So the two runtimes ask `moved_out` of each call of a bound method whose positional arguments reach the method's
`out` (`A.max(0, o)`, `A.sum(1, None, o)`, `np.add.reduce(A, 0, None, o)`, a ufunc found only at run time given its
output after its inputs): when the method is an ndarray's or a NumPy ufunc's, the arguments from `out` on are moved
to their keywords, and the call is the keyword call, whose derivative the rules know; reverse mode hands the
adjoints of the moved arguments back at their positions (`adjoints_at_positions`), where the generated code reads
them.  The static rewrite of typed methods (ir/typed_methods.py) leaves such calls dispatched, for this.

The parameter names are NumPy's (numpy.ndarray's method signatures and the ufunc methods'), positional from the
first one on, as NumPy accepts them (`keepdims` after `out` is positional although the signature shows **kwargs).
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

# ndarray method -> its parameters after self, in the order NumPy takes them positionally
NDARRAY_PARAMETERS: dict[str, tuple] = {
    "max": ("axis", "out", "keepdims", "initial", "where"),
    "min": ("axis", "out", "keepdims", "initial", "where"),
    "sum": ("axis", "dtype", "out", "keepdims", "initial", "where"),
    "prod": ("axis", "dtype", "out", "keepdims", "initial", "where"),
    "mean": ("axis", "dtype", "out", "keepdims"),
    "std": ("axis", "dtype", "out", "ddof", "keepdims"),
    "var": ("axis", "dtype", "out", "ddof", "keepdims"),
    "cumsum": ("axis", "dtype", "out"),
    "cumprod": ("axis", "dtype", "out"),
    "clip": ("min", "max", "out"),
    "round": ("decimals", "out"),
    "dot": ("b", "out"),
    "trace": ("offset", "axis1", "axis2", "dtype", "out"),
    "all": ("axis", "out", "keepdims"),
    "any": ("axis", "out", "keepdims"),
    "argmax": ("axis", "out"),
    "argmin": ("axis", "out"),
    "choose": ("choices", "out", "mode"),
    "compress": ("condition", "axis", "out"),
    "take": ("indices", "axis", "out", "mode"),
}
# ufunc method -> its parameters after the array(s) it takes first, and how many those are
UFUNC_METHOD_PARAMETERS: dict[str, tuple] = {
    "reduce": (1, ("axis", "dtype", "out", "keepdims", "initial", "where")),
    "accumulate": (1, ("axis", "dtype", "out")),
    "reduceat": (2, ("axis", "dtype", "out")),
}


def out_position(names: tuple) -> int:
    return names.index("out")


def ndarray_method_reaches_out(name: str, n_args: int) -> bool:
    """Does `x.name(<n_args positional arguments>)` of an ndarray give its output positionally?"""
    names = NDARRAY_PARAMETERS.get(name)
    return names is not None and n_args > out_position(names)


def ufunc_method_parameters(fn: Any) -> Optional[tuple]:
    """(how many arrays come first, the parameter names after them) for a NumPy ufunc's reduce / accumulate /
    reduceat; None for anything else."""
    owner = getattr(fn, "__self__", None)
    if not isinstance(owner, np.ufunc):
        return None
    return UFUNC_METHOD_PARAMETERS.get(getattr(fn, "__name__", None))


def moved_out(f: Any, args: Any, kwargs: Optional[dict]) -> Optional[tuple]:
    """(the position the keywords start at, their names) where the call `f(*args, **kwargs)` is a NumPy method (or
    ufunc) given its output array positionally; None for every other call (and where moving would change what
    NumPy does: more arguments than it takes, or one given twice, raise as in the plain call)."""
    owner = getattr(f, "__self__", None)
    if owner is None:  # (a plain function or a ufunc: most calls the runtimes dispatch end here)
        if not isinstance(f, np.ufunc) or f.nout != 1 or len(args) != f.nin + 1 or "out" in (kwargs or {}):
            return None
        return f.nin, ("out",)
    if isinstance(owner, np.ndarray):
        names = NDARRAY_PARAMETERS.get(getattr(f, "__name__", None))
        first = 0
    elif isinstance(owner, np.ufunc):
        entry = UFUNC_METHOD_PARAMETERS.get(getattr(f, "__name__", None))
        if entry is None:
            return None
        first, names = entry
    else:
        return None
    if names is None:
        return None
    k = first + out_position(names)
    if len(args) <= k or len(args) - first > len(names):
        return None
    moved = names[k - first:len(args) - first]
    if set(moved) & set(kwargs or {}):
        return None
    return k, moved


def as_keyword_call(args: Any, kwargs: Optional[dict], moved: tuple) -> tuple:
    """(positional arguments, keyword arguments) of the call with the arguments from `out` on given by keyword
    (`out=None` given positionally dropped: NumPy's default)."""
    k, names = moved
    named = dict(kwargs or {})
    for name, v in zip(names, tuple(args)[k:]):
        if not (name == "out" and v is None):
            named[name] = v
    return tuple(args)[:k], named


def keyword_tangents(dargs: Any, dkwargs: Optional[dict], args: Any, moved: tuple) -> tuple:
    """The tangents, split as as_keyword_call splits the arguments."""
    k, names = moved
    named = dict(dkwargs or {})
    for name, v, d in zip(names, tuple(args)[k:], tuple(dargs)[k:]):
        if not (name == "out" and v is None):
            named[name] = d
    return tuple(dargs)[:k], named


def positional_pullback(pb: Any, args: Any, moved: tuple) -> Any:
    """The pullback of the keyword call, giving the moved arguments' adjoints back at their positions."""
    from .reverse.adjoints import AdjDict, AdjTuple
    from .tangents import NoTangent

    k, names = moved
    n = len(tuple(args))

    def pullback(g: Any) -> tuple:
        f_bar, pos, named = pb(g)
        pos = list(pos)[:k] + [NoTangent] * (k - len(pos))
        rest = dict(named) if named else {}
        pos += [rest.pop(name, NoTangent) for name in names]
        pos += [NoTangent] * (n - len(pos))
        return f_bar, AdjTuple(pos), AdjDict(rest)

    return pullback
