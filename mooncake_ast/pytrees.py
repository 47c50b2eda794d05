"""Pytrees of floats and float arrays for the Jacobians (higher.py): flattening to leaves and back, and the
assembly of Jacobian blocks in JAX's layout (the output's dimensions, then the input's; a tuple of blocks for a tuple
argnums; a NumPy scalar for a scalar by a scalar).  (Split from higher.py.)"""
from __future__ import annotations

from typing import Any

import numpy as np

from .api import MooncakeError
from .tangents import NoTangent


class PytreeError(MooncakeError, TypeError):
    """A Jacobian input or output that is not a pytree of floats and float arrays."""


# ---------------------------------------------------------------- pytrees of floats and arrays


def _flatten(x: Any, leaves: list) -> Any:
    """Append x's leaves to `leaves`; return the structure to rebuild it (see _unflatten)."""
    if isinstance(x, tuple) and not hasattr(x, "_fields"):
        return ("tuple", [_flatten(v, leaves) for v in x])
    if isinstance(x, list):
        return ("list", [_flatten(v, leaves) for v in x])
    if isinstance(x, dict):
        return ("dict", list(x.keys()), [_flatten(v, leaves) for v in x.values()])
    if isinstance(x, (float, int, np.floating, np.integer)) and not isinstance(x, (bool, np.bool_)):
        leaves.append(np.asarray(x, dtype=float))
        return ("leaf", (), "number")
    if isinstance(x, np.ndarray) and x.dtype.kind in "iuf":
        leaves.append(np.asarray(x, dtype=float) if x.dtype.kind != "f" else x)
        return ("leaf", x.shape)
    if x is NoTangent:  # (the derivative of an int: jacrev's adjoint of an int argument, jacfwd's tangent of len(x))
        raise PytreeError("a Jacobian needs float arguments and results (or float arrays, or containers of them): "
                          "an int argument (in reverse mode) or an int result has none; pass floats (2.0, not 2), "
                          "leave int arguments out of argnums, and return floats")
    raise PytreeError(f"a Jacobian's inputs and outputs must be floats, float arrays, or tuples, lists and dicts "
                      f"of them; got {type(x).__name__}")


def _refuse_ints(api: str, where: str, x: Any) -> None:
    """A PytreeError naming `where` when x is (or holds) an int or an int array: it has no derivative, so it
    has no place in a Jacobian (rather than a TangentError about a tangent the user never gave)."""
    if isinstance(x, (tuple, list)):
        for i, v in enumerate(x):
            _refuse_ints(api, f"{where}[{i}]", v)
    elif isinstance(x, dict):
        for k, v in x.items():
            _refuse_ints(api, f"{where}[{k!r}]", v)
    elif (isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))) or \
            (isinstance(x, np.ndarray) and x.dtype.kind in "iu"):
        shown = "an int" if not isinstance(x, np.ndarray) else f"an int array (dtype {x.dtype})"
        raise PytreeError(f"{api}: {where} is {shown}, which has no derivative; a Jacobian needs floats and float "
                          f"arrays: pass floats (2.0, not 2; x.astype(float)), leave int arguments out of argnums, "
                          f"and return floats")


def _unflatten(tree: Any, leaves: Any) -> Any:
    it = iter(leaves)

    def build(t: Any) -> Any:
        if t[0] == "tuple":
            return tuple(build(c) for c in t[1])
        if t[0] == "list":
            return [build(c) for c in t[1]]
        if t[0] == "dict":
            return {k: build(c) for k, c in zip(t[1], t[2])}
        return next(it)

    return build(tree)


def _leaf_shapes(tree: Any) -> list:
    out: list = []

    def walk(t: Any) -> None:
        if t[0] == "leaf":
            out.append(t[1])
        else:
            for c in t[-1]:
                walk(c)

    walk(tree)
    return out


def _leaf_kinds(tree: Any) -> list:
    out: list = []

    def walk(t: Any) -> None:
        if t[0] == "leaf":
            out.append(t[2] if len(t) > 2 else "array")
        else:
            for c in t[-1]:
                walk(c)

    walk(tree)
    return out


def _scalar_or_array(a: np.ndarray) -> Any:
    return a[()] if a.ndim == 0 else a


def _assemble(blocks: list, out_tree: Any, in_tree: Any, single: bool) -> Any:
    """blocks[o][i]: the (size_o, size_i) matrix of output leaf o by input leaf i -> JAX's layout."""
    if single and out_tree[0] == "leaf" and len(in_tree[1]) == 1 and in_tree[1][0][0] == "leaf":
        return _scalar_or_array(blocks[0][0].reshape(tuple(out_tree[1]) + tuple(in_tree[1][0][1])))  # one by one
    out_shapes, in_shapes = _leaf_shapes(out_tree), _leaf_shapes(in_tree)
    per_out = []
    for o, so in enumerate(out_shapes):
        parts = [_scalar_or_array(blocks[o][i].reshape(tuple(so) + tuple(si))) for i, si in enumerate(in_shapes)]
        tree = _unflatten(in_tree, parts)  # a tuple over argnums
        per_out.append(tree[0] if single else tree)
    return _unflatten(out_tree, per_out)
