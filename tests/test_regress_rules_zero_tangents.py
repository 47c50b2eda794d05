"""Every forward rule case again, with some arguments' tangents the symbolic zero (None to mc.jvp).

Generated code cannot know which tangents are zero at run time (a constant array returned by a
helper, an argument the user does not differentiate): every rule must take NoTangent for any
differentiable operand and give the same tangent as for explicit zeros (issue 16, cr6: np.linalg.norm
of a constant failed with "NoTangent has no attribute ndim").
"""
import copy
import os
import warnings

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.tangents import NoTangent
from tests.test_rules import CASES, _is_complex, _modes


def _zeros(a):
    if isinstance(a, (float, complex)):
        return type(a)(0)
    if isinstance(a, np.ndarray) and a.dtype.kind in "fc":
        return np.zeros_like(a)
    if isinstance(a, (list, tuple)):
        return type(a)(_zeros(v) for v in a)
    return None


def _ones(a):
    if isinstance(a, (float, complex)):
        return type(a)(0.7)
    if isinstance(a, np.ndarray) and a.dtype.kind in "fc":
        return np.full_like(a, 0.7)
    if isinstance(a, (list, tuple)):
        return type(a)(_ones(v) for v in a)
    return None


def _differentiable(a):
    return _zeros(a) is not None and not (isinstance(a, (list, tuple)) and all(_zeros(v) is None for v in a))


def _dense(t, like):
    """A tangent with symbolic zeros made explicit (for comparison)."""
    if t is NoTangent or t is None:
        return _zeros(like) if _zeros(like) is not None else 0.0
    if isinstance(t, (list, tuple)):
        likes = like if isinstance(like, (list, tuple)) and len(like) == len(t) else [None] * len(t)
        return [_dense(v, lk) for v, lk in zip(t, likes)]
    if isinstance(t, dict):
        return {k: _dense(v, like.get(k) if isinstance(like, dict) else None) for k, v in t.items()}
    return t


def _close(a, b):
    if isinstance(a, dict) or isinstance(b, dict):
        return isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, list) or isinstance(b, list):
        return isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    try:
        return np.allclose(np.asarray(a, dtype=complex), np.asarray(b, dtype=complex), rtol=1e-9, atol=1e-12, equal_nan=True)
    except (TypeError, ValueError):
        return a == b


# Every rule's first usable case in `make test`, its first two in `make test-all` (more add time, not rules).
_PER_RULE = 2 if os.environ.get("MOONCAKE_AST_ALL_PROBES") == "1" else 1


def _cases():
    for name, cases in CASES.items():
        taken = 0
        for i, case in enumerate(cases):
            if case.xfail or "forward" not in _modes(name, case) or taken == _PER_RULE:
                continue
            live = [k for k, a in enumerate(case.args) if _differentiable(a)]
            if not live or len(case.args) > 5:
                continue
            taken += 1
            yield pytest.param(name, case, live, id=f"{name}[{i}]")


_HELD: dict = {}


def frozen(k):
    """The k-th held argument, read from a module dict: a value whose tangent is the symbolic zero, known
    only when the code runs (like a constant array a helper returns)."""
    return _HELD[k]


def held_call(f, flags, *args):
    """f(*args) with the flagged arguments replaced by their held copies (zero tangents).  Spelled out
    per arity: a list or tuple of the arguments would give them tangent storage (explicit zeros)."""
    n = len(args)
    a0 = frozen(0) if flags[0] else args[0]
    if n == 1:
        return f(a0)
    a1 = frozen(1) if flags[1] else args[1]
    if n == 2:
        return f(a0, a1)
    a2 = frozen(2) if flags[2] else args[2]
    if n == 3:
        return f(a0, a1, a2)
    a3 = frozen(3) if flags[3] else args[3]
    if n == 4:
        return f(a0, a1, a2, a3)
    a4 = frozen(4) if flags[4] else args[4]
    return f(a0, a1, a2, a3, a4)


@pytest.mark.parametrize("name, case, live", list(_cases()))
def test_forward_rule_with_zero_tangents(name, case, live):
    # each differentiable argument alone zero, then all but the first zero: the same tangent as explicit zeros
    subsets = [[k] for k in live] + ([live[1:]] if len(live) > 2 else [])
    for zero in subsets:
        args = tuple(copy.deepcopy(a) for a in case.args)  # unaliased: each argument gets its own tangent here
        flags = tuple(k in zero for k in range(len(args)))
        dense = tuple(_zeros(a) if k in zero else _ones(a) for k, a in enumerate(args))
        _HELD.clear()
        _HELD.update({k: copy.deepcopy(a) for k, a in enumerate(args)})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y1, dy1 = mc.jvp(case.fn, copy.deepcopy(args), copy.deepcopy(dense))
            y2, dy2 = mc.jvp(held_call, (case.fn, flags, *copy.deepcopy(args)), (None, None, *copy.deepcopy(dense)))
        assert _close(_dense(dy2, y2), _dense(dy1, y1)), f"{name}: zero tangents for arguments {zero} give {dy2!r}, explicit zeros {dy1!r}"
