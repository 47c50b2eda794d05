"""Regression cases of issue 8 (silently wrong reverse-mode gradients) and their checker.

The functions under test live in `structures.py` and `containers.py` (real modules: their
source is read).  `check_case` checks one function at one point two ways:

1. `mc.testing.check_derivatives` (forward against finite differences, reverse against
   forward by the dot-product test);
2. independently of the library: every argument's reverse gradient (`mc.vjp`, then the
   pullback with a random cotangent) and the forward tangent (`mc.jvp` along a random
   direction) against central finite differences of <cotangent, f(args)> computed here.
   Bugs that forward and reverse mode share are caught by (2) only.

It also checks the primal value, that the arguments are left as a plain call leaves
them (after `mc.jvp`, and after `mc.vjp` and its pullback), and that the value returned
by `mc.vjp` is unchanged by running the pullback.
"""
from __future__ import annotations

import copy
from typing import Any, Callable

import numpy as np

import mooncake_ast as mc

NoTangent = mc.NoTangent()

H = 1e-5            # central-difference step
RTOL = 1e-5
ATOL = 1e-6


# ---------------------------------------------------------------- structures


def is_float_leaf(x: Any) -> bool:
    if isinstance(x, bool):
        return False
    if isinstance(x, (float, np.floating)):
        return True
    return isinstance(x, np.ndarray) and x.dtype.kind == "f"


def flat(x: Any) -> np.ndarray:
    """The differentiable numbers of `x` (floats, float arrays, inside lists/tuples/dicts)."""
    out: list[np.ndarray] = []

    def walk(v: Any) -> None:
        if is_float_leaf(v):
            out.append(np.asarray(v, dtype=float).ravel())
        elif isinstance(v, (list, tuple)):
            for e in v:
                walk(e)
        elif isinstance(v, dict):
            for k in v:
                walk(v[k])

    walk(x)
    return np.concatenate(out) if out else np.zeros(0)


def unflat(x: Any, vec: np.ndarray) -> Any:
    """A new object shaped like `x` whose differentiable numbers are `vec` (flat's order)."""
    pos = [0]

    def build(v: Any) -> Any:
        if is_float_leaf(v):
            n = int(np.size(v))
            chunk = vec[pos[0]:pos[0] + n]
            pos[0] += n
            if isinstance(v, np.ndarray):
                if v.ndim == 0:
                    return np.array(chunk[0], dtype=v.dtype)
                out = np.empty_like(v)          # keeps the memory order (Fortran, transposed)
                out[...] = chunk.reshape(v.shape)
                return out
            return type(v)(chunk[0]) if isinstance(v, np.floating) else float(chunk[0])
        if isinstance(v, tuple):
            items = [build(e) for e in v]
            return type(v)(*items) if hasattr(v, "_fields") else tuple(items)
        if isinstance(v, list):
            return [build(e) for e in v]
        if isinstance(v, dict):
            return {k: build(e) for k, e in v.items()}
        return copy.deepcopy(v)

    out = build(x)
    assert pos[0] == vec.size
    return out


def flat_like(g: Any, primal: Any, where: str) -> np.ndarray:
    """Flatten an adjoint/tangent `g` in the order of flat(primal), checking its structure."""
    out: list[np.ndarray] = []

    def walk(t: Any, p: Any, path: str) -> None:
        if is_float_leaf(p):
            if t is NoTangent or t is None:
                out.append(np.zeros(np.size(p)))
                return
            if isinstance(p, np.ndarray):
                assert np.shape(t) == p.shape, f"{path}: adjoint shape {np.shape(t)} != argument shape {p.shape}"
            else:
                assert isinstance(t, (float, np.floating)), f"{path}: adjoint of a float is {t!r}, not a float"
            out.append(np.asarray(t, dtype=float).ravel())
        elif isinstance(p, (list, tuple)):
            if t is NoTangent or t is None:
                for i, e in enumerate(p):
                    walk(NoTangent, e, f"{path}[{i}]")
                return
            assert isinstance(t, (list, tuple)) and len(t) == len(p), \
                f"{path}: adjoint {t!r} for a {type(p).__name__} of {len(p)}"
            for i, (a, e) in enumerate(zip(t, p)):
                walk(a, e, f"{path}[{i}]")
        elif isinstance(p, dict):
            if t is NoTangent or t is None:
                for k, e in p.items():
                    walk(NoTangent, e, f"{path}[{k!r}]")
                return
            assert isinstance(t, dict), f"{path}: adjoint {t!r} for a dict"
            for k, e in p.items():
                walk(t.get(k, NoTangent), e, f"{path}[{k!r}]")

    walk(g, primal, where)
    return np.concatenate(out) if out else np.zeros(0)


def random_like(x: Any, rng: np.random.Generator) -> Any:
    """A random tangent/cotangent with x's structure (None where x is not differentiable)."""
    if is_float_leaf(x):
        if isinstance(x, np.ndarray) and x.ndim:
            return rng.normal(size=x.shape)
        return float(rng.normal())
    if isinstance(x, (list, tuple)):
        items = [random_like(e, rng) for e in x]
        return items if isinstance(x, list) else tuple(items)
    if isinstance(x, dict):
        return {k: random_like(v, rng) for k, v in x.items()}
    return None


def as_cotangent(w: Any) -> Any:
    """None (not differentiable) as NoTangent, for the pullback."""
    if w is None:
        return NoTangent
    if isinstance(w, list):
        return [as_cotangent(e) for e in w]
    if isinstance(w, tuple):
        return tuple(as_cotangent(e) for e in w)
    if isinstance(w, dict):
        return {k: as_cotangent(v) for k, v in w.items()}
    return w


def inner(w: Any, y: Any) -> float:
    """<w, y> over the differentiable numbers (w from random_like(y) or a tangent of y)."""
    if w is None or w is NoTangent:
        return 0.0
    if isinstance(y, (list, tuple)):
        return sum(inner(a, b) for a, b in zip(w, y))
    if isinstance(y, dict):
        return sum(inner(w.get(k, None), y[k]) for k in y)
    if is_float_leaf(y):
        return float(np.sum(np.asarray(w, dtype=float) * np.asarray(y, dtype=float)))
    return 0.0


def same(a: Any, b: Any) -> bool:
    """Equal values and structure (exact up to 1e-12)."""
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape == b.shape
                and bool(np.allclose(a, b, rtol=1e-12, atol=1e-12, equal_nan=True)))
    if is_float_leaf(a) or is_float_leaf(b):
        try:
            return abs(float(a) - float(b)) <= 1e-12 * (1.0 + abs(float(b)))
        except (TypeError, ValueError):
            return False
    return a == b


# ---------------------------------------------------------------- finite differences


def fd_gradients(f: Callable, args: tuple, w: Any) -> list[np.ndarray]:
    """Per argument: d<w, f(args)>/d(arg) by central differences, flattened like flat(arg)."""
    grads = []
    for i, a in enumerate(args):
        x0 = flat(a)
        g = np.zeros(x0.size)
        for k in range(x0.size):
            vals = []
            for s in (H, -H):
                xk = x0.copy()
                xk[k] += s
                trial = copy.deepcopy(args)
                trial = trial[:i] + (unflat(a, xk),) + trial[i + 1:]
                vals.append(inner(w, f(*trial)))
            g[k] = (vals[0] - vals[1]) / (2 * H)
        grads.append(g)
    return grads


def _close(got: np.ndarray, want: np.ndarray) -> bool:
    return got.shape == want.shape and bool(np.allclose(got, want, rtol=RTOL, atol=ATOL))


# ---------------------------------------------------------------- the check


def check_case(f: Callable, args: tuple, *, seed: int = 0, refuse_reverse: bool = False,
               modes: tuple = ("forward", "reverse")) -> None:
    """Check f at args (see the module docstring).

    refuse_reverse: reverse mode may instead raise a MooncakeError (a clear refusal), never
    give a wrong number; forward mode is checked in full either way.
    modes: with a single mode, that mode is checked against finite differences only (the
    dot-product test needs both); used beside a strict xfail of the other mode.
    """
    args = tuple(args)
    rng = np.random.default_rng(seed)
    ref_args = copy.deepcopy(args)
    y_ref = f(*ref_args)                     # ref_args: the state a plain call leaves
    w = random_like(y_ref, rng)
    tangents = tuple(random_like(a, rng) for a in args)
    fd = fd_gradients(f, args, w)

    # (1) the library's own check
    if "forward" in modes:
        both = "reverse" in modes and not refuse_reverse
        mc.testing.check_derivatives(f, *copy.deepcopy(args), modes=("forward", "reverse") if both else ("forward",),
                                     seed=seed)
    # (2) against finite differences
    if "reverse" in modes:
        try:
            _check_reverse(f, args, ref_args, y_ref, w, fd)
        except mc.MooncakeError:
            if not refuse_reverse:
                raise
    if "forward" in modes:
        _check_forward(f, args, ref_args, y_ref, w, fd, tangents)


def _check_reverse(f, args, ref_args, y_ref, w, fd) -> None:
    run = copy.deepcopy(args)
    y, pullback = mc.vjp(f, *run)
    assert same(y, y_ref), f"reverse primal {y!r} != plain call {y_ref!r}"
    y_seen = copy.deepcopy(y)
    grads = pullback(as_cotangent(copy.deepcopy(w)))
    assert isinstance(grads, tuple) and len(grads) == len(args), f"pullback returned {grads!r}"
    for i, (g, a) in enumerate(zip(grads, args)):
        got = flat_like(g, a, f"adjoint of argument {i}")
        assert _close(got, fd[i]), f"reverse: adjoint of argument {i} is {got}, finite differences {fd[i]}"
    for i, (a, b) in enumerate(zip(run, ref_args)):
        assert same(a, b), f"argument {i} after the pullback is {a!r}, after a plain call {b!r}"
    assert same(y, y_seen), f"the value returned by mc.vjp changed when the pullback ran: {y_seen!r} -> {y!r}"
    assert same(y, y_ref), f"the value returned by mc.vjp is {y!r} after the pullback, a plain call gives {y_ref!r}"


def _check_forward(f, args, ref_args, y_ref, w, fd, tangents) -> None:
    run = copy.deepcopy(args)
    y, dy = mc.jvp(f, run, as_cotangent(copy.deepcopy(tangents)))
    assert same(y, y_ref), f"forward primal {y!r} != plain call {y_ref!r}"
    for i, (a, b) in enumerate(zip(run, ref_args)):
        assert same(a, b), f"argument {i} after mc.jvp is {a!r}, after a plain call {b!r}"
    got = inner(w, dy)
    want = sum(float(fd[i] @ flat(t)) if t is not None else 0.0 for i, t in enumerate(tangents))
    assert np.isclose(got, want, rtol=RTOL, atol=ATOL), f"forward: <w, dy> = {got}, finite differences {want}"


# ---------------------------------------------------------------- parametrization


def case(name: str, fn: Callable, *args: Any, xfail: str = "", xfail_reverse: str = "", xfail_forward: str = "",
         **opts: Any) -> list:
    """pytest params (fn, args, opts) for one case.

    xfail: the whole case is a known failure (strict: it must fail).  xfail_reverse /
    xfail_forward: that mode is a known failure (strict xfail, checked against finite
    differences alone) and the other mode is still checked, as its own passing test.
    """
    import pytest

    if xfail:
        return [pytest.param(fn, args, opts, id=name, marks=pytest.mark.xfail(strict=True, reason=xfail))]
    if xfail_reverse or xfail_forward:
        bad, good = ("reverse", "forward") if xfail_reverse else ("forward", "reverse")
        return [pytest.param(fn, args, {**opts, "modes": (bad,)}, id=f"{name}-{bad}",
                             marks=pytest.mark.xfail(strict=True, reason=xfail_reverse or xfail_forward)),
                pytest.param(fn, args, {**opts, "modes": (good,)}, id=f"{name}-{good}")]
    return [pytest.param(fn, args, opts, id=name)]


def cases(*groups: list) -> list:
    return [p for g in groups for p in g]
