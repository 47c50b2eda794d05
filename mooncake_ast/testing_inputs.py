"""The inputs of a derivative check: how failures name them, which share objects, and their numbers
as one vector (each shared part once), for mc.testing.check_derivatives.

Arguments that share a mutable object (`f(a, a)`, `f([a], a)`) are one input with one gradient
(DESIGN.md §1), so they are checked together, each shared number counted once; `_gradient_problem`
says why a gradient does not have its argument's structure.
"""
from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

from .tangents import MutableTangent, NoTangent, Tangent, is_data_object
from .testing_values import _is_leaf_float


def _input_labels(f: Callable, args: tuple, kwargs: dict) -> list[str]:
    """"argument 1 (y)", "keyword argument 'k'": how failures name an input."""
    import inspect

    names: list = []
    try:
        params = list(inspect.signature(f).parameters.values())
        names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        pass
    labels = [f"argument {i}" + (f" ({names[i]})" if i < len(names) else "") for i in range(len(args))]
    return labels + [f"keyword argument {k!r}" for k in kwargs]


def _groups(values: list) -> list[list[int]]:
    """Inputs that share a mutable object (`f(a, a)`, `f([a], a)`) form one group: one input to differentiate."""
    from .reverse.shadows import reachable_mutables as _reachable_mutables

    owner: dict = {}
    parent = list(range(len(values)))

    def find(i: int) -> int:
        while parent[i] != i:
            i = parent[i]
        return i

    for i, v in enumerate(values):
        for m in _reachable_mutables((v,)):
            j = owner.setdefault(id(m), i)
            if find(j) != find(i):
                parent[find(i)] = find(j)
    out: dict = {}
    for i in range(len(values)):
        out.setdefault(find(i), []).append(i)
    return sorted(out.values())


def _is_shared(p: Any) -> bool:
    return isinstance(p, (np.ndarray, list, dict)) or (hasattr(p, "__dict__") and is_data_object(p))


def _unique_vector(t: Any, p: Any, seen: set) -> list:
    """The numbers of tangent `t` in the order of `flatten(p)`, each mutable part of p counted once (`seen`)."""
    out: list = []

    def walk(t: Any, p: Any) -> None:
        if _is_shared(p):
            if id(p) in seen:
                return
            seen.add(id(p))
        if isinstance(p, (bool, str, bytes, int, np.integer, np.bool_)) or p is None:
            return
        if _is_leaf_float(p):
            out.append(0.0 if t is NoTangent or t is None else float(np.real(t)))
        elif isinstance(p, (complex, np.complexfloating)):
            c = 0j if t is NoTangent or t is None else complex(t)
            out.extend([c.real, c.imag])
        elif isinstance(p, np.ndarray):
            if p.dtype.kind in "fc":
                d = np.zeros(p.shape, p.dtype) if t is NoTangent or t is None else np.broadcast_to(np.asarray(t), p.shape)
                if p.dtype.kind == "f":
                    out.extend(np.asarray(d, dtype=float).ravel().tolist())
                else:
                    out.extend(np.real(d).ravel().tolist() + np.imag(d).ravel().tolist())
        elif isinstance(p, (list, tuple)):
            items = list(t) if isinstance(t, (list, tuple)) else [NoTangent] * len(p)
            for a, b in zip(items, p):
                walk(a, b)
        elif isinstance(p, dict):
            for k in p:
                walk(t.get(k, NoTangent) if isinstance(t, dict) else NoTangent, p[k])
        elif hasattr(p, "__dict__") and is_data_object(p):
            fields = t.fields if isinstance(t, (MutableTangent, Tangent)) else {}
            for k, v in vars(p).items():
                walk(fields.get(k, NoTangent), v)

    walk(t, p)
    return out


def _from_vector(p: Any, it: Any, memo: dict) -> Any:
    """A tangent of p taking its numbers from iterator `it` in `_unique_vector` order (shared parts once)."""
    if _is_shared(p) and id(p) in memo:
        return memo[id(p)]
    if isinstance(p, (bool, str, bytes, int, np.integer, np.bool_)) or p is None:
        return NoTangent
    if _is_leaf_float(p):
        return float(next(it))
    if isinstance(p, (complex, np.complexfloating)):
        return complex(next(it), next(it))
    if isinstance(p, np.ndarray):
        if p.dtype.kind == "f":
            out: Any = np.array([next(it) for _ in range(p.size)], dtype=p.dtype).reshape(p.shape)
        elif p.dtype.kind == "c":
            re = [next(it) for _ in range(p.size)]
            im = [next(it) for _ in range(p.size)]
            out = (np.array(re) + 1j * np.array(im)).astype(p.dtype).reshape(p.shape)
        else:
            return NoTangent
        memo[id(p)] = out
        return out
    if isinstance(p, list):
        out = []
        memo[id(p)] = out
        out.extend(_from_vector(v, it, memo) for v in p)
        return out
    if isinstance(p, tuple):
        return tuple(_from_vector(v, it, memo) for v in p)
    if isinstance(p, dict):
        out = {}
        memo[id(p)] = out
        for k, v in p.items():
            out[k] = _from_vector(v, it, memo)
        return out
    if hasattr(p, "__dict__") and is_data_object(p):
        out = MutableTangent({})
        memo[id(p)] = out
        for k, v in vars(p).items():
            out.fields[k] = _from_vector(v, it, memo)
        return out
    return NoTangent


def _gradient_problem(g: Any, p: Any, where: str) -> Optional[str]:
    """Why gradient `g` does not have the structure DESIGN.md §1 promises for argument `p` (None if it does)."""
    if isinstance(p, (bool, str, bytes, int, np.integer, np.bool_)) or p is None or \
            (isinstance(p, np.ndarray) and p.dtype.kind not in "fcO"):
        return None if g is NoTangent else f"{where} is not differentiable, its gradient must be mc.NoTangent(), not {g!r}"
    if _is_leaf_float(p):
        ok = isinstance(g, (float, np.floating)) and not isinstance(g, np.ndarray)
        return None if ok else f"{where} is a float, its gradient must be a float, not {type(g).__name__} {g!r}"
    if isinstance(p, (complex, np.complexfloating)):
        ok = isinstance(g, (complex, np.complexfloating)) and not isinstance(g, np.ndarray)
        return None if ok else f"{where} is a complex number, its gradient must be one, not {type(g).__name__} {g!r}"
    if isinstance(p, np.ndarray) and p.dtype.kind in "fc":
        if not isinstance(g, np.ndarray) or g.shape != p.shape or g.dtype != p.dtype:
            what = f"an array of shape {g.shape} and dtype {g.dtype}" if isinstance(g, np.ndarray) else repr(g)
            return f"{where} is an array of shape {p.shape} and dtype {p.dtype}, its gradient must be one too, not {what}"
        return None
    if isinstance(p, (list, tuple)):
        if type(g) is not (list if isinstance(p, list) else tuple) or len(g) != len(p):
            return f"{where} is a {type(p).__name__} of length {len(p)}, its gradient must be one too, not {g!r}"
        for i, (a, b) in enumerate(zip(g, p)):
            why = _gradient_problem(a, b, f"{where}[{i}]")
            if why:
                return why
        return None
    if isinstance(p, dict):
        if not isinstance(g, dict) or list(g) != list(p):
            return f"{where} is a dict with keys {list(p)}, its gradient must be one too, not {g!r}"
        for k in p:
            why = _gradient_problem(g[k], p[k], f"{where}[{k!r}]")
            if why:
                return why
        return None
    if hasattr(p, "__dict__") and is_data_object(p):
        if not isinstance(g, Tangent) or list(g.fields) != list(vars(p)):
            return f"{where} is a {type(p).__name__} with fields {list(vars(p))}, its gradient must be an mc.Tangent " \
                   f"with those fields, not {g!r}"
        for k, v in vars(p).items():
            why = _gradient_problem(g.fields[k], v, f"{where}.{k}")
            if why:
                return why
    return None
