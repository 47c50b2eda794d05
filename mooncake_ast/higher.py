"""Jacobians, Hessians and Hessian-vector products: `jacfwd`, `jacrev`, `hessian`, `hvp`.

Layouts follow JAX: a Jacobian block has the output's dimensions, then the input's; a tuple
`argnums` gives a tuple of blocks per output leaf; pytrees (tuples, lists, dicts) of floats and
float arrays are inputs and outputs, and a block of a scalar by a scalar is a NumPy scalar.

* `jacfwd` runs f's generated forward code once with a batch of all input directions (batching.py),
  checked against one ordinary pass in a random direction whenever the pass takes a path (a trace of
  its operations on the batch) not checked before; where the code cannot carry a batch, one pass per
  direction.
* `jacrev` runs one forward pass and calls the pullback once per output element, on one tape where the derived
  pullback may be called again (jacobian_rows.py; else mc.vjp's pullback runs the forward pass again per row).
* `hessian(f) = jacfwd(grad(f))`; `jvp` of a `grad(f)` is a Hessian-vector product, computed by
  reverse mode over f's generated forward code (see rules/api_rules.py): `hvp` calls that directly.

The small functions the rules of the API entry points differentiate (`directional`, `apply`,
`grad_call_jvp`, ...) are ordinary Python in higher_traced.py, re-exported here.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .rules.api_rules import hvp_core
from .rules.nested_cells import enter_outermost, leave_outermost
from . import aliases, hvp_fast
from .tangents import materialize
from .api import (ArgnumsError, Grad, MooncakeError, NonScalarOutputError, _argnums_checked, _as_function, _jvp, _name,
                  _refusals_located, _vjp, _wraps, aux_pair)
from .jacobian_rows import reusable_pullback
from .tracebacks import user_errors
from .keyword_binding import bind_keywords, is_nested
from .batching import Batched, Trace, unbatch
from .foreign import arguments, refuse_foreign
from .pytrees import (PytreeError, _assemble, _flatten, _leaf_kinds, _leaf_shapes, _refuse_ints,  # noqa: F401
                      _scalar_or_array, _unflatten)
from .jacobian_rules import _jacobian_name, jacobian_forward, jacobian_reverse  # noqa: F401
from .jacobian_columns import _columns, _plain_rule, _still_current  # noqa: F401  (one forward pass per direction)
from .jacobian_layout import _PLAIN_SCALARS, _InputLayout, _fortran, _kinds_key, _zeros_like_leaf  # noqa: F401
from .jacobian_layout import fresh_copy, probe_laid_out, zeros_laid_out_as
from .higher_traced import (_GRAD_APPLY, _GRAD_DIRECTIONAL, _VG_APPLY, _VG_DIRECTIONAL, _hvp_frule,  # noqa: F401
                            _hvp_rrule, apply, directional, factory_fwd, forward_of_fcall, forward_of_forward,
                            forward_of_jvp, fresh_arrays, grad_call_jvp, hvp_plain, plain_jvp)


def _nums(argnums: Any, nargs: int, api: str, f: Any) -> tuple:
    nums = []
    for n in _argnums_checked(argnums, api, f):
        if not -nargs <= n < nargs:
            raise ArgnumsError(f"{api}({_name(f)}, argnums={argnums!r}): argument {n} is out of range for a call with "
                               f"{nargs} positional argument{'s' if nargs != 1 else ''} (valid: {-nargs} to {nargs - 1}); "
                               f"argnums counts positional arguments only: pass the argument to differentiate "
                               f"positionally")
        nums.append(n % nargs)
    if len(set(nums)) != len(nums):
        raise ArgnumsError(f"{api}({_name(f)}, argnums={argnums!r}): positions {nums} repeat an argument; give each "
                           f"position once")
    return tuple(nums)


# ---------------------------------------------------------------- jacfwd / jacrev


def jacfwd(f: Callable, argnums: Any = 0, has_aux: bool = False) -> Callable:
    """The Jacobian of f by forward mode (one input direction per column), JAX's layout.

    Args:
        f: a function of floats, float arrays, and tuples/lists/dicts of them, whose source is available.
        argnums: the position (an int) or positions (a tuple) of the arguments to differentiate.
        has_aux: whether f returns `(value, aux)`; aux is returned as it is.
    Returns:
        `J(*args, **kwargs)`: the Jacobian at args; a block has the output's dimensions, then the
        input's (a tuple of blocks for a tuple argnums); with has_aux, `(J, aux)`.
    Raises:
        ArgnumsError, TangentError, NonScalarOutputError (has_aux without a pair), and the errors of mc.jvp.

    Example:
        >>> J = mc.jacfwd(lambda x: np.array([x[0] * x[1], np.sin(x[2])]))(np.array([1.0, 2.0, 3.0]))
        >>> J.shape                                  # [[2, 1, 0], [0, 0, cos(3)]]
        (2, 3)

    How: one batched forward pass for all input directions where f's forward code can carry a batch (a
    pass down a path not seen before is checked against an ordinary pass, see _batched_blocks), else
    one jvp per direction.  What depends only on the call's argument kinds (argnums resolved, the input
    pytree and its sizes, the identity directions) is worked out once per kind and kept on J."""
    return _jacfwd(f, argnums, has_aux)


def _jacfwd(f: Callable, argnums: Any, has_aux: bool, hessian_of: Any = None) -> Callable:
    """jacfwd; `hessian_of` = (g, argnums, has_aux) where f is mc.hessian(g)'s gradient: where g's result is not a
    scalar, the Hessian is the Jacobian of g's Jacobian (`jacfwd(jacrev(g))`, JAX's layout: the output's dimensions,
    then the input's twice), worked out once a call finds it so and kept per argument kind."""
    _argnums_checked(argnums, "jacfwd", f)
    single = not isinstance(argnums, (tuple, list))
    layouts: dict = {}  # argument kinds -> _InputLayout

    api = "hessian" if type(f) is Grad else "jacfwd"  # (the Jacobian of a gradient: what mc.hessian makes)

    vector_hessian: list = []  # jacfwd(jacrev(g)), made when a call finds g's result is not a scalar

    def jac(*args: Any, **kwargs: Any) -> Any:
        if kwargs and is_nested(f):  # (a derivative of a derivative: keywords bound to the innermost function)
            return bind_keywords(out, kwargs, args)(*args)
        args, copied = aliases.unaliased(f, args)  # (arrays f also holds: as copies)
        depth = enter_outermost(f)
        try:
            with _refusals_located():  # (a rule's NotImplementedError: a refusal naming the user's line, as jvp's)
                out_ = _jacfwd_at(args, kwargs)
        finally:
            leave_outermost(depth)
        aliases.check_unwritten(api, _name(f), copied)
        return out_

    def _vector_hessian(args: tuple, kwargs: dict) -> Any:
        if not vector_hessian:
            g, g_argnums, g_aux = hessian_of
            vector_hessian.append(jacfwd(jacrev(g, g_argnums, g_aux), g_argnums, g_aux))
        return vector_hessian[0](*args, **kwargs)

    def _jacfwd_at(args: tuple, kwargs: dict) -> Any:
        key = _kinds_key(args) if not kwargs else None
        lay = layouts.get(key) if key is not None else None
        if lay is not None and lay.vector_hessian:
            return _vector_hessian(args, kwargs)
        if lay is None or not lay.plain:  # (floats and float arrays hold nothing foreign)
            refuse_foreign(api, _name(f), arguments(args, kwargs, set(_nums(argnums, len(args), api, f)).__contains__))
        if lay is None:
            nums = _nums(argnums, len(args), api, f)
            if type(f) is Grad:  # (hessian: the gradient's tangent at an int has no meaning)
                for i in nums:
                    _refuse_ints(api, f"argument {i}", args[i])
            lay = _InputLayout(tuple(args[i] for i in nums), nums, args)
            if key is not None and len(layouts) < 64:
                layouts[key] = lay
        column = _columns(f, args, kwargs, lay.nums, lay)
        try:
            batched = _batched_blocks(f, column, lay, has_aux)
            if batched is not None:
                out_tree, aux, blocks = batched
            else:
                out_tree, aux, blocks = _blocks_one_by_one(f, args, kwargs, column, lay.leaves_of(args), lay.tree,
                                                           lay.sizes, lay.kinds, has_aux)
        except NonScalarOutputError as e:
            if hessian_of is None or not getattr(e, "nonscalar_result", False):
                raise
            column.restore()  # (the arguments and what f holds as they were on entry: f ran)
            lay.vector_hessian = True
            return _vector_hessian(args, kwargs)
        out = _assemble(blocks, out_tree, lay.tree, single)
        return (out, aux) if has_aux else out

    jac.__name__ = f"jacfwd({_name(f)})"
    out = user_errors(jac)
    _wraps(out, f)  # (f's __name__, __doc__, __wrapped__, as mc.grad's)
    if hessian_of is not None:
        out.__mc_hessian_of__ = hessian_of  # type: ignore[attr-defined]  (keyword_binding rebuilds it)
    out.__mc_jacobian__ = (f, argnums, has_aux, "jacfwd")  # type: ignore[attr-defined]  (see jacobian_forward)
    return out


def _blocks_one_by_one(f: Callable, args: tuple, kwargs: dict, column: Callable, in_leaves: list, in_tree: Any,
                       sizes: list, kinds: list, has_aux: bool) -> tuple:
    """(output tree, aux, blocks) from one forward pass per input direction (the fallback)."""
    cols: list = []
    out_tree = aux = None
    for li, leaf in enumerate(in_leaves):
        for k in range(sizes[li]):
            # (each laid out as its leaf, see _fortran; element k of the leaf in C order, whatever its layout)
            basis = [zeros_laid_out_as(v) for v in in_leaves]
            if basis[li].ndim:
                basis[li][np.unravel_index(k, basis[li].shape)] = 1.0
            else:
                basis[li][()] = 1.0
            dx = _unflatten(in_tree, [float(b) if kind == "number" else b for b, kind in zip(basis, kinds)])
            y, dy = column(dx)
            if has_aux:
                (y, aux), dy = aux_pair("jacfwd", f, y), dy[0]
            leaves: list = []
            out_tree = _flatten(y, [])
            _flatten(dy, leaves)
            cols.append([np.asarray(v, dtype=float).reshape(-1) for v in leaves])
    if out_tree is None:  # no input components: evaluate once for the output's structure
        y = f(*args, **kwargs)
        y, aux = aux_pair("jacfwd", f, y) if has_aux else (y, None)
        out_tree = _flatten(y, [])
    out_sizes = [int(np.prod(s)) for s in _leaf_shapes(out_tree)]
    blocks = []
    for o, so in enumerate(out_sizes):
        row, start = [], 0
        for si in sizes:
            row.append(np.stack([cols[c][o] for c in range(start, start + si)], axis=1) if si else np.zeros((so, 0)))
            start += si
        blocks.append(row)
    return out_tree, aux, blocks


_PROBE_RNG: list = []  # its Generator, made on first use (`import mooncake_ast` does not import numpy.random: 10 ms)
_NO_BATCH: set = set()  # (code, input shapes) where batched tangents failed or disagreed with the probe
_MAX_CHECKED = 256  # traces kept per forward code (beyond that, every new pass is probed)


def _batched_blocks(f: Callable, column: Callable, lay: "_InputLayout", has_aux: bool) -> Any:
    """(output tree, aux, blocks) from one forward pass whose tangents carry a leading batch axis, or None.

    Generated forward code is written for one tangent; Batched (batching.py) makes the operations it
    applies to tangents act on every direction of the batch, and refuses the rest.  What it cannot see is
    code that inspects a tangent's type and then does something else with it, so a batched pass is
    checked: one ordinary pass in a random direction r must give `sum_k r_k column_k`.  A batched result
    that is wrong in any column fails that check with probability one (the errors are fixed before r is
    drawn), and then the columns are computed one direction at a time; failures are remembered (per code
    and input shapes), so the next call goes straight to the fallback.

    Each batched pass records its trace: every operation on a batched tangent, with the shapes and kinds of
    its operands (batching.py), which is all the meaning of those operations depends on.  So a pass with
    the trace of a checked pass (same function, forward code and input layout) is right as that one was,
    and is not probed again; a pass down another branch, or with other shapes inside, has another trace
    and is checked.  That holds only where no code chose what to do by a batch's type: a wrong branch
    taken for a batch can agree with the right one at one point (a run-time helper that updates array
    tangents in place and returns any other, at a point where the update changes nothing) and not at the
    next.  So a pass in which code asked `isinstance` of a batched tangent is marked in its trace
    (batching.py), and such passes are probed on every call."""
    n = lay.n
    fn = column.fn
    if n < 2 or fn is None or lay.batch is False:
        return None
    code = getattr(getattr(f, "__func__", f), "__code__", None)
    if lay.batch is None:  # (a layout's first call: decided before for this code and these shapes?)
        lay.batch = code is not None and (code, tuple(lay.shapes)) not in _NO_BATCH
        if not lay.batch:
            return None
    tr = Trace()
    batch = [Batched(fresh_copy(e), tr) for e in lay.eyes]  # fresh: forward code may write into its tangents
    try:
        with np.errstate(all="ignore"):
            y, dy = column(_unflatten(lay.tree, batch) if not lay.simple else tuple(batch), raw=True)
        inspected = tr.inspected  # (read before materialize, which looks at the result's type)
        if type(dy) is not Batched:
            dy = materialize(dy, y)
        aux = None
        if has_aux:
            (y, aux), dy = aux_pair("jacfwd", f, y), dy[0]
        if type(y) is np.ndarray and y.dtype.kind == "f" and type(dy) is Batched:  # one array out: the common case
            out_tree, d = ("leaf", y.shape), dy.data
            if d.shape[1:] != y.shape or d.shape[0] != n:
                raise ValueError("batched tangent of the wrong shape")
            flats = [d.reshape(n, -1)]
        else:
            out_leaves: list = []
            out_tree = _flatten(y, out_leaves)
            d_leaves = [unbatch(d, n, o) for d, o in zip(_leaves_like(dy, out_tree), out_leaves)]
            if any(d.shape != (n,) + o.shape for d, o in zip(d_leaves, out_leaves)):
                raise ValueError("batched tangent of the wrong shape")
            flats = [d.reshape(n, -1) for d in d_leaves]
        last = lay.last_checked  # (this layout's last checked trace, with its code: the usual call repeats it)
        if inspected or last is None or last[0] is not fn or last[1] is not code or last[2] != tr:
            trace = (lay.sig, tuple(tr))
            checked = _checked_of(fn, code)
            if inspected or checked is None or trace not in checked:
                _probe(column, lay, has_aux, flats)
                if not inspected and checked is not None and len(checked) < _MAX_CHECKED:
                    checked.add(trace)
            if not inspected and checked is not None and trace in checked:
                lay.last_checked = (fn, code, list(tr))  # (a copy: a batch kept past the pass can add to tr)
    except Exception:  # the code cannot carry a batch: one direction at a time
        _NO_BATCH.add((code, tuple(lay.shapes)))
        lay.batch = False
        return None
    blocks = []
    for flat in flats:
        row, start = [], 0
        for size in lay.sizes:
            row.append(flat[start:start + size].T)
            start += size
        blocks.append(row)
    return out_tree, aux, blocks


def _checked_of(fn: Any, code: Any) -> Any:
    """The set of checked (input layout, trace) pairs of forward code fn run for f's code `code`, kept on fn
    itself (so it lives as long as the code does), or None where fn cannot keep one."""
    d = getattr(fn, "__dict__", None)
    if d is None:
        return None
    by_code = d.get("_mc_checked_batches")
    if by_code is None:
        by_code = d.setdefault("_mc_checked_batches", {})
    entry = by_code.get(id(code))
    if entry is None or entry[0] is not code:  # (the entry holds the code: its id stands for no other)
        entry = by_code[id(code)] = (code, set())
    return entry[1]


def _probe(column: Callable, lay: "_InputLayout", has_aux: bool, flats: list) -> None:
    """Raise ValueError unless one ordinary pass in a random direction r gives `r @ flat` for each output leaf."""
    n = lay.n
    if not _PROBE_RNG:
        _PROBE_RNG.append(np.random.default_rng(20261123))
    r = _PROBE_RNG[0].normal(size=n)
    probe, start = [], 0
    for shape, size, kind, fortran, strides in zip(lay.shapes, lay.sizes, lay.kinds, lay.fortran, lay.strides):
        piece = r[start:start + size].reshape(shape)
        # (fresh, as the leaf is laid out: forward code may write into it)
        probe.append(float(piece) if kind == "number" else probe_laid_out(piece, fortran, strides))
        start += size
    _, dy_r = column(_unflatten(lay.tree, probe) if not lay.simple else tuple(probe))
    if has_aux:
        dy_r = dy_r[0]
    r_leaves: list = []
    _flatten(dy_r, r_leaves)
    if len(r_leaves) != len(flats):
        raise ValueError("the probe's tangent has another structure")
    for flat, want in zip(flats, r_leaves):
        diff = np.abs(r @ flat - np.reshape(want, -1))
        scale = 1.0 + np.abs(flat).max(initial=0.0) * np.abs(r).sum()
        if diff.size and not diff.max() <= 1e-9 * scale:
            raise ValueError("batched tangents disagree with the probe")


def _leaves_like(t: Any, tree: Any) -> list:
    """The leaves of t (a tangent, possibly holding Batched leaves) in the order of the pytree `tree`."""
    out: list = []

    def walk(v: Any, node: Any) -> None:
        if node[0] == "leaf":
            out.append(v)
        elif node[0] == "dict":
            for k, sub in zip(node[1], node[2]):
                walk(v[k], sub)
        else:
            if len(v) != len(node[1]):
                raise ValueError("tangent structure differs from the output's")
            for item, sub in zip(v, node[1]):
                walk(item, sub)

    walk(t, tree)
    return out


def jacrev(f: Callable, argnums: Any = 0, has_aux: bool = False) -> Callable:
    """The Jacobian of f by reverse mode: one forward pass, one pullback per output component (cheaper than
    jacfwd when there are fewer outputs than inputs).

    Args:
        f: a function of floats, float arrays, and tuples/lists/dicts of them, whose source is available.
        argnums: the position (an int) or positions (a tuple) of the arguments to differentiate.
        has_aux: whether f returns `(value, aux)`; aux is returned as it is.
    Returns:
        `J(*args, **kwargs)`: the Jacobian at args, in jacfwd's layout (the output's dimensions, then the
        input's; a tuple of blocks for a tuple argnums); with has_aux, `(J, aux)`.
    Raises:
        ArgnumsError, NonScalarOutputError (has_aux without a pair), ComplexReverseError, and the errors
        of mc.vjp.

    Example:
        >>> def f(a, b):
        ...     return a * b
        >>> [float(block) for block in mc.jacrev(f, argnums=(0, 1))(2.0, 3.0)]   # NumPy scalars: d/da, d/db
        [3.0, 2.0]

    How: one forward pass, then the pullback once per output element on its one tape where the pullback may be
    called again (f writes nothing its caller can reach: docs/how-it-works.md, "Calling a pullback again"); else
    each row after the first runs the forward pass again from the arguments' state on entry.
    """
    _argnums_checked(argnums, "jacrev", f)
    single = not isinstance(argnums, (tuple, list))
    if getattr(f, "__mc_jacobian__", None) is not None and not has_aux:
        # The Jacobian of a Jacobian function (jacrev(jacfwd(f)), jacrev(hessian(f))): the same array as
        # jacfwd's, whose tangents the Jacobian's forward rule gives (jacobian_forward); reverse mode would
        # have to trace the Jacobian's own Python (its loops over directions and its caches), which it cannot.
        out = jacfwd(f, argnums)
        _wraps(out, f)
        return out  # (its __mc_jacobian__ says jacfwd: its own tangents are Jacobians by forward mode too)

    def jac(*args: Any, **kwargs: Any) -> Any:
        if kwargs and is_nested(f):  # (a derivative of a derivative: keywords bound to the innermost function)
            return bind_keywords(out, kwargs, args)(*args)
        args, copied = aliases.unaliased(f, args)  # (arrays f also holds: as copies)
        depth = enter_outermost(f)
        try:
            out_ = _jacrev_at(args, kwargs)
        finally:
            leave_outermost(depth)
        aliases.check_unwritten("jacrev", _name(f), copied)
        return out_

    def _jacrev_at(args: tuple, kwargs: dict) -> Any:
        nums = _nums(argnums, len(args), "jacrev", f)
        for i in nums:
            _refuse_ints("jacrev", f"argument {i}", args[i])
        in_leaves: list = []
        in_tree = _flatten(tuple(args[i] for i in nums), in_leaves)
        sizes = [leaf.size for leaf in in_leaves]
        fast = reusable_pullback(_as_function(f), tuple(args), nums) if not kwargs else None
        if fast is not None:  # (one forward pass, the generated pullback once per row: jacobian_rows.py)
            y_all, row = fast
        else:
            y_all, pullback = _vjp(f, tuple(args), kwargs, api="jacrev")
            row = lambda ybar: (lambda g: tuple(g[i] for i in nums))(pullback(ybar)[0])  # noqa: E731
        y, aux = aux_pair("jacrev", f, y_all) if has_aux else (y_all, None)
        _refuse_ints("jacrev", "the result", y)
        out_leaves: list = []
        out_tree = _flatten(y, out_leaves)
        rows: list = []
        kinds = _leaf_kinds(out_tree)
        layouts = [(np.shape(v), np.asarray(v).dtype) for v in out_leaves]
        for oi, leaf in enumerate(out_leaves):
            for k in range(leaf.size):
                # C order always: zeros_like keeps a transposed leaf's F order, where reshape(-1) is a copy and
                # the 1.0 written through it was lost (a zero row of the Jacobian).
                basis = [np.zeros(shape, dtype=dtype) for shape, dtype in layouts]
                basis[oi].reshape(-1)[k] = 1.0
                ybar = _unflatten(out_tree, [float(b) if kind == "number" else b for b, kind in zip(basis, kinds)])
                grads = row((ybar, None) if has_aux else ybar)
                leaves: list = []
                _flatten(grads, leaves)
                rows.append([np.asarray(v, dtype=float).reshape(-1) for v in leaves])
        blocks, start = [], 0
        for oi, leaf in enumerate(out_leaves):
            blocks.append([np.stack([rows[r][i] for r in range(start, start + leaf.size)], axis=0) if leaf.size
                           else np.zeros((0, sizes[i])) for i in range(len(sizes))])
            start += leaf.size
        out = _assemble(blocks, out_tree, in_tree, single)
        return (out, aux) if has_aux else out

    jac.__name__ = f"jacrev({_name(f)})"
    out = user_errors(jac)
    _wraps(out, f)  # (f's __name__, __doc__, __wrapped__, as mc.grad's)
    out.__mc_jacobian__ = (f, argnums, has_aux, "jacrev")  # type: ignore[attr-defined]  (see jacobian_forward)
    return out


def hessian(f: Callable, argnums: Any = 0, has_aux: bool = False) -> Callable:
    """The Hessian of f, forward over reverse (`jacfwd(grad(f))` for a scalar result, as JAX's `jacfwd(jacrev(f))`
    for any other).

    Args:
        f: a function of floats, float arrays and pytrees of them, whose source is available.
        argnums: the position (an int) or positions (a tuple) of the arguments to differentiate.
        has_aux: whether f returns `(value, aux)`; aux is returned as it is.
    Returns:
        `H(*args, **kwargs)`: the second derivatives at args (shape `x.shape + x.shape` for an array x and a
        scalar result; the result's dimensions first otherwise, `y.shape + x.shape + x.shape`; nested tuples of
        blocks for a tuple argnums, `H[i][j]`); keyword arguments are passed to f as constants; with has_aux,
        `(H, aux)`.
    Raises:
        the errors of mc.grad and of mc.jacfwd / mc.jacrev; NestingError for a second derivative mooncake_ast
        cannot compute correctly (named in the message).

    Example:
        >>> mc.hessian(lambda x: np.sum(x ** 3))(np.array([1.0, 2.0]))
        array([[ 6.,  0.],
               [ 0., 12.]])

    Each column is a Hessian-vector product: reverse mode over f's generated forward code.  A result that turns out
    not to be a scalar (the gradient refuses it) is differentiated as jacfwd(jacrev(f)) from then on, per argument
    kind (_jacfwd)."""
    out = _jacfwd(grad_for_hessian(f, argnums, has_aux), argnums, has_aux, (f, argnums, has_aux))
    _wraps(out, f)  # (f's own __name__, __doc__ and __wrapped__, not its gradient's)
    return out


def grad_for_hessian(f: Callable, argnums: Any, has_aux: bool = False) -> Grad:
    return Grad(f, argnums, has_aux)


@user_errors
def hvp(f: Callable, primals: tuple, tangents: tuple) -> Any:
    """The Hessian-vector product `H(primals) @ tangents` of scalar-valued f (JAX's `jvp(grad(f), ...)[1]`),
    without forming H: one reverse pass over f's generated forward code.

    Args:
        f: a function returning a real scalar, whose source is available.
        primals: a tuple, the point (f's positional arguments).
        tangents: a tuple, the vector, one tangent per primal, of its primal's structure.
    Returns:
        With one primal, `H @ v` for argument 0 (like `grad(f)`), of the primal's structure; with several,
        a tuple, one per primal.
    Raises:
        MooncakeError: primals and tangents not tuples of one length.  TangentError: a tangent of the wrong
        structure or shape.  The errors of mc.grad and mc.jvp.

    Example:
        >>> mc.hvp(lambda x: np.sum(x ** 3), (np.array([1.0, 2.0]),), (np.ones(2),))
        array([ 6., 12.])
    """
    if not isinstance(primals, tuple) or not isinstance(tangents, tuple) or len(primals) != len(tangents):
        raise MooncakeError("hvp(f, primals, tangents): primals and tangents must be tuples of one length")
    depth = enter_outermost(f)
    try:
        return _hvp(f, primals, tangents)
    finally:
        leave_outermost(depth)


def _hvp(f: Callable, primals: tuple, tangents: tuple) -> Any:
    from .rules.api_rules import _dense

    done = hvp_fast.hvp(f, primals, tangents)
    if done is not None:
        return done
    from .api import _Converter

    refuse_foreign("hvp", _name(f), arguments(primals, {}) + [(f"the tangent {i}", t) for i, t in enumerate(tangents)])
    conv = _Converter("tangent", "hvp", symbolic_top=True)
    dargs = _dense(tuple(conv(t, p, f"argument {i}", top=True) for i, (p, t) in enumerate(zip(primals, tangents))),
                   primals)
    grads = hvp_core(f, primals, dargs, tuple(range(len(primals))))
    return grads[0] if len(primals) == 1 else tuple(grads)


_DIRECTIONAL_JACOBIANS: dict = {}


def directional_jacobian(kind: str) -> Callable:
    """The Jacobian object (of the given kind) of higher_traced.directional_one with respect to its point: the tangent
    of a Jacobian object's call (rules/nested_jacobians.py).  One per kind, made once: a constant of every derivative."""
    J = _DIRECTIONAL_JACOBIANS.get(kind)
    if J is None:
        from .higher_traced import directional_one

        J = _DIRECTIONAL_JACOBIANS[kind] = (jacfwd if kind == "jacfwd" else jacrev)(directional_one, argnums=0)
    return J


def _defs() -> None:
    """mc.jacfwd / mc.jacrev / mc.hessian called inside differentiated code make constants (their rules), as
    mc.grad does (rules/api_rules.py); the Jacobian functions they return have rules of their own
    (jacobian_forward, jacobian_reverse)."""
    from .rules.api_rules import _factory_frule, _factory_rrule
    from .rules.forward_code_rules import user_rule

    for factory in (jacfwd, jacrev, hessian):
        user_rule(factory, _factory_frule(factory), _factory_rrule(factory))
    user_rule(hvp, _hvp_frule, _hvp_rrule)  # (mc.hvp inside differentiated code: hvp_plain's derivatives)
    from . import api
    from .higher_traced import _vjp_frule, _vjp_rrule

    user_rule(api.vjp, _vjp_frule, _vjp_rrule)  # (mc.vjp inside differentiated code: vjp_plain's derivatives)


_defs()
