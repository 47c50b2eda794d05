"""Jacobians, Hessians and Hessian-vector products: `jacfwd`, `jacrev`, `hessian`, `hvp`.

Layouts follow JAX: a Jacobian block has the output's dimensions, then the input's; a tuple
`argnums` gives a tuple of blocks per output leaf; pytrees (tuples, lists, dicts) of floats and
float arrays are inputs and outputs, and a block of a scalar by a scalar is a NumPy scalar.

* `jacfwd` runs one jvp per input direction (no batched tangents yet: generated forward code
  is written for one tangent, and running it with a batch axis would misread indexing and
  reductions, so it is not attempted).
* `jacrev` runs one forward pass and calls the (reusable) pullback once per output element.
* `hessian(f) = jacfwd(grad(f))`; `jvp` of a `grad(f)` is a Hessian-vector product, computed by
  reverse mode over f's generated forward code (see rules/api_rules.py): `hvp` calls that directly.

The small functions at the bottom (`directional`, `apply`, `grad_call_jvp`) are ordinary Python
on purpose: the rules of the API entry points differentiate them, so they must stay traceable.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .rules.api_rules import forward_code
from .tangents import NoTangent
from .api import ArgnumsError, Grad, MooncakeError, ValueAndGrad, _argnums_checked, _jvp, _name, _vjp, jvp


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
    raise PytreeError(f"a Jacobian's inputs and outputs must be floats, float arrays, or tuples, lists and dicts "
                      f"of them; got {type(x).__name__}")


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


def _nums(argnums: Any, nargs: int, api: str, f: Any) -> tuple:
    nums = []
    for n in _argnums_checked(argnums, api, f):
        if not -nargs <= n < nargs:
            raise ArgnumsError(f"{api}({_name(f)}, argnums={argnums!r}): argument {n} is out of range for a call with "
                               f"{nargs} positional arguments")
        nums.append(n % nargs)
    if len(set(nums)) != len(nums):
        raise ArgnumsError(f"{api}({_name(f)}, argnums={argnums!r}): repeated argument")
    return tuple(nums)


def _assemble(blocks: list, out_tree: Any, in_tree: Any, single: bool) -> Any:
    """blocks[o][i]: the (size_o, size_i) matrix of output leaf o by input leaf i -> JAX's layout."""
    out_shapes, in_shapes = _leaf_shapes(out_tree), _leaf_shapes(in_tree)
    per_out = []
    for o, so in enumerate(out_shapes):
        parts = [_scalar_or_array(blocks[o][i].reshape(tuple(so) + tuple(si))) for i, si in enumerate(in_shapes)]
        tree = _unflatten(in_tree, parts)  # a tuple over argnums
        per_out.append(tree[0] if single else tree)
    return _unflatten(out_tree, per_out)


# ---------------------------------------------------------------- jacfwd / jacrev


def jacfwd(f: Callable, argnums: Any = 0, has_aux: bool = False) -> Callable:
    """`J(*args)`: the Jacobian of f by forward mode (one jvp per input component)."""
    _argnums_checked(argnums, "jacfwd", f)
    single = not isinstance(argnums, (tuple, list))

    def jac(*args: Any, **kwargs: Any) -> Any:
        nums = _nums(argnums, len(args), "jacfwd", f)
        in_leaves: list = []
        in_tree = _flatten(tuple(args[i] for i in nums), in_leaves)
        sizes = [leaf.size for leaf in in_leaves]
        kinds = _leaf_kinds(in_tree)
        cols: list = []
        out_tree = aux = None
        for li, leaf in enumerate(in_leaves):
            for k in range(sizes[li]):
                basis = [np.zeros_like(v) for v in in_leaves]
                basis[li].reshape(-1)[k] = 1.0
                dx = _unflatten(in_tree, [float(b) if kind == "number" else b for b, kind in zip(basis, kinds)])
                dargs: list = [None] * len(args)
                for j, i in enumerate(nums):
                    dargs[i] = dx[j]
                y, dy, _, _ = _jvp(f, tuple(args), tuple(dargs), kwargs, {}, api="jacfwd")
                from .tangents import materialize

                dy = materialize(dy, y)
                if has_aux:
                    y, aux, dy = y[0], y[1], dy[0]
                leaves: list = []
                out_tree = _flatten(y, [])
                _flatten(dy, leaves)
                cols.append([np.asarray(v, dtype=float).reshape(-1) for v in leaves])
        if out_tree is None:  # no input components: evaluate once for the output's structure
            y = f(*args, **kwargs)
            y, aux = (y[0], y[1]) if has_aux else (y, None)
            out_tree = _flatten(y, [])
        out_sizes = [int(np.prod(s)) for s in _leaf_shapes(out_tree)]
        blocks = []
        for o, so in enumerate(out_sizes):
            row, start = [], 0
            for i, si in enumerate(sizes):
                m = np.stack([cols[c][o] for c in range(start, start + si)], axis=1) if si else np.zeros((so, 0))
                row.append(m)
                start += si
            blocks.append(row)
        out = _assemble(blocks, out_tree, in_tree, single)
        return (out, aux) if has_aux else out

    jac.__name__ = f"jacfwd({_name(f)})"
    return jac


def jacrev(f: Callable, argnums: Any = 0, has_aux: bool = False) -> Callable:
    """`J(*args)`: the Jacobian of f by reverse mode (one forward pass, one pullback per output component)."""
    _argnums_checked(argnums, "jacrev", f)
    single = not isinstance(argnums, (tuple, list))

    def jac(*args: Any, **kwargs: Any) -> Any:
        nums = _nums(argnums, len(args), "jacrev", f)
        in_leaves: list = []
        in_tree = _flatten(tuple(args[i] for i in nums), in_leaves)
        sizes = [leaf.size for leaf in in_leaves]
        y_all, pullback = _vjp(f, tuple(args), kwargs, api="jacrev")
        y, aux = (y_all[0], y_all[1]) if has_aux else (y_all, None)
        out_leaves: list = []
        out_tree = _flatten(y, out_leaves)
        rows: list = []
        for oi, leaf in enumerate(out_leaves):
            for k in range(leaf.size):
                basis = [np.zeros_like(v) for v in out_leaves]
                basis[oi].reshape(-1)[k] = 1.0
                ybar = _unflatten(out_tree, [float(b) if kind == "number" else b
                                             for b, kind in zip(basis, _leaf_kinds(out_tree))])
                grads, _ = pullback((ybar, None) if has_aux else ybar)
                leaves: list = []
                _flatten(tuple(grads[i] for i in nums), leaves)
                rows.append([np.asarray(v, dtype=float).reshape(-1) for v in leaves])
        blocks, start = [], 0
        for oi, leaf in enumerate(out_leaves):
            blocks.append([np.stack([rows[r][i] for r in range(start, start + leaf.size)], axis=0) if leaf.size
                           else np.zeros((0, sizes[i])) for i in range(len(sizes))])
            start += leaf.size
        out = _assemble(blocks, out_tree, in_tree, single)
        return (out, aux) if has_aux else out

    jac.__name__ = f"jacrev({_name(f)})"
    return jac


def hessian(f: Callable, argnums: Any = 0) -> Callable:
    """`H(*args)`: the Hessian of scalar-valued f, forward over reverse (`jacfwd(grad(f))`).

    Each column is a Hessian-vector product: reverse mode over f's generated forward code."""
    return jacfwd(grad_for_hessian(f, argnums), argnums)


def grad_for_hessian(f: Callable, argnums: Any) -> Grad:
    return Grad(f, argnums)


def hvp(f: Callable, primals: tuple, tangents: tuple) -> Any:
    """The Hessian-vector product `H(primals) @ tangents` of scalar-valued f (JAX's `jvp(grad(f), ...)[1]`).

    With one primal, the product is for argument 0 (like `grad(f)`); with several, a tuple, one per primal."""
    from .rules.api_rules import _dense

    if not isinstance(primals, tuple) or not isinstance(tangents, tuple) or len(primals) != len(tangents):
        raise MooncakeError("hvp(f, primals, tangents): primals and tangents must be tuples of one length")
    from .api import _Converter

    conv = _Converter("tangent", "hvp", symbolic_top=True)
    dargs = _dense(tuple(conv(t, p, f"argument {i}", top=True) for i, (p, t) in enumerate(zip(primals, tangents))),
                   primals)
    from .rules.api_rules import constant_callable

    with constant_callable(f):  # hvp differentiates with respect to the primals only
        grads = _GRAD_DIRECTIONAL(f, primals, dargs)
    return grads[0] if len(primals) == 1 else tuple(grads)


# ---------------------------------------------------------------- traceable helpers (see rules/api_rules.py)


def directional(f, args, dargs):
    """Df(args)[dargs]: the derivative of f at args in direction dargs."""
    return jvp(f, args, dargs)[1]


def apply(f, args):
    return f(*args)


def _pick(t, nums, single):
    if single:
        return t[nums[0]]
    out = []
    for i in nums:
        out.append(t[i])
    return tuple(out)


def grad_call_jvp(f, nums, single, with_value, args, dargs):
    """(grad f(args), its tangent in direction dargs) -- or (value, grad) and theirs with `with_value`.

    The tangent of the gradient is the gradient of the directional derivative (symmetry of second
    derivatives), so this is reverse mode over forward mode."""
    value, g_all = _VG_APPLY(f, args)
    dvalue, dg_all = _VG_DIRECTIONAL(f, args, dargs)
    g = _pick(g_all, nums, single)
    dg = _pick(dg_all, nums, single)
    if with_value:
        return (value, g), (dvalue, dg)
    return g, dg


def forward_of_forward(f, args, dargs, targs, tdargs):
    """(jvp(f, args, dargs), its tangent for tangents targs, tdargs): forward mode over f's forward code."""
    fn, takes_self, extra, zeros, nones = forward_code(f, args, dargs)
    if takes_self:
        return jvp(fn, (f, NoTangent) + args + extra + dargs + zeros, (None, None) + targs + nones + tdargs + nones)
    return jvp(fn, args + extra + dargs + zeros, targs + nones + tdargs + nones)


_VG_APPLY = ValueAndGrad(apply, argnums=1)
_VG_DIRECTIONAL = ValueAndGrad(directional, argnums=1)
_GRAD_DIRECTIONAL = Grad(directional, argnums=1)
_GRAD_APPLY = Grad(apply, argnums=1)
