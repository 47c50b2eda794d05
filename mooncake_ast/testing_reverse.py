"""The reverse-mode part of mc.testing.check_derivatives: the pullback against forward mode (the
dot-product test, input by input and output by output) and against finite differences.

It also checks what a pullback must leave alone: the arguments restored when it runs, the result,
the arguments and the cotangent given unchanged after it, and gradients with their arguments'
structure (aliased arguments getting the same one).
"""
from __future__ import annotations

import copy
import math
from typing import TYPE_CHECKING, Any, Callable, Optional

import numpy as np

from .tangents import NoTangent
from .testing_forward import _call_forward, _evaluate, _random_dvalues
from .testing_inputs import _from_vector, _gradient_problem, _unique_vector
from .testing_values import flatten, random_tangent, same_value, tangent_vector

if TYPE_CHECKING:
    from .testing import _Case


def _pull(case: _Case, y_bar_of: Callable, check: bool) -> tuple[Any, Any, list]:
    """A vjp on fresh inputs, pulled back with cotangent `y_bar_of(y)`: (y, y_bar, gradients per input)."""
    from .api import _vjp

    run_args, run_kwargs = case.fresh()
    run_values = [*run_args, *run_kwargs.values()]
    entry = copy.deepcopy(run_values)

    def restored() -> None:
        if check:
            case.check_state(run_values, "pullback restores", "at the end of the pullback", against=entry)

    y, pullback = _vjp(case.f, run_args, run_kwargs, api="check_derivatives", on_restored=restored)
    if check:
        case.check_result(y, "vjp primal", "of vjp")
        case.check_state(run_values, "vjp primal", "after vjp")
    y_bar = y_bar_of(y)
    given = copy.deepcopy(y_bar)
    g_args, g_kwargs = pullback(y_bar)
    grads = [*g_args, *(g_kwargs[k] for k in case.keys)]
    if check:
        if not same_value(y_bar, given, rtol=0.0, atol=0.0):
            raise case.fail("cotangent unchanged", f"the pullback changed the cotangent it was given: {given!r} "
                                                   f"became {y_bar!r}")
        case.check_result(y, "result after the pullback", "after the pullback")
        case.check_state(run_values, "state after the pullback", "after the pullback")
        for label, g, p in zip(case.labels, grads, case.values):
            why = _gradient_problem(g, p, label)
            if why:
                raise case.fail("gradient structure", why)
        for group in case.groups:
            for i in group:
                for j in group:
                    if i < j and case.values[i] is case.values[j] and not same_value(grads[i], grads[j], 0.0, 0.0):
                        raise case.fail("aliased arguments", f"{case.labels[i]} and {case.labels[j]} are the same "
                                        f"object but got different gradients, {grads[i]!r} and {grads[j]!r}")
    return y, y_bar, grads


def _group_vector(case: _Case, group: list, ts: list) -> np.ndarray:
    seen: set = set()
    return np.array([v for i in group for v in _unique_vector(ts[i], case.values[i], seen)], dtype=float)


def _check_reverse(case: _Case, rng: np.random.Generator, fd_max: int) -> list:
    """Reverse mode against forward mode, input by input (and output by output), and against finite differences."""
    y, y_bar, grads = _pull(case, lambda y: random_tangent(y, rng), check=True)
    ybar_vec = tangent_vector(y_bar, y)
    done = ["per-input dot-product tests against forward mode"]
    tangents = {}
    for group in case.groups:
        dvalues = _random_dvalues(case, rng, group)
        y2, dy, _, _ = _call_forward(case, dvalues)
        xdot = _group_vector(case, group, [NoTangent if d is None else d for d in dvalues])
        if not xdot.size:
            continue
        dy_vec = tangent_vector(dy, y2)
        tangents[tuple(group)] = (xdot, dy_vec)
        _dot_test(case, group, _group_vector(case, group, grads), xdot, ybar_vec, dy_vec, "")

    # Output by output, for a result made of several parts: errors in one part cannot hide in another's.
    if isinstance(y, (tuple, list)) and 2 <= len(y) <= 8 and tangents:
        sizes = [flatten(part).size for part in y]
        if sum(sizes) == ybar_vec.size and sum(1 for s in sizes if s) > 1:
            for j, size in enumerate(sizes):
                if size:
                    def only_j(y: Any, j: int = j) -> Any:
                        parts = [random_tangent(p, rng) if i == j else None for i, p in enumerate(y)]
                        return parts if isinstance(y, list) else tuple(parts)

                    yj, ybar_j, grads_j = _pull(case, only_j, check=False)
                    ybar_j_vec = tangent_vector([NoTangent if t is None else t for t in ybar_j], list(yj))
                    for group in case.groups:
                        if tuple(group) in tangents:
                            xdot, dy_vec = tangents[tuple(group)]
                            _dot_test(case, group, _group_vector(case, group, grads_j), xdot, ybar_j_vec, dy_vec,
                                      f", output {j} of the result")
            done.append("output by output")

    for group in case.groups:
        g_vec = _group_vector(case, group, grads)
        if 0 < g_vec.size <= fd_max:
            _fd_test(case, group, g_vec, ybar_vec)
            done.append(f"finite differences for {case.group_label(group)}")
    return done


def _dot_test(case: _Case, group: list, xbar: np.ndarray, xdot: np.ndarray, ybar: np.ndarray, dy: np.ndarray,
              where: str) -> None:
    lhs, rhs = float(np.dot(xbar, xdot)), float(np.dot(ybar, dy)) if ybar.size == dy.size else math.nan
    scale = max(float(np.sum(np.abs(xbar * xdot))), float(np.sum(np.abs(ybar * dy))) if ybar.size == dy.size else 0.0)
    if not case.within(lhs, rhs, scale) <= 10.0:  # a sum of products: ten times the tolerance, as ever
        raise case.fail("reverse vs forward", f"{case.group_label(group)}{where}: <x_bar, x_dot> = {lhs:.10g} from the "
                        f"pullback, but <y_bar, J x_dot> = {rhs:.10g} from forward mode with a tangent in this input "
                        f"only (difference {abs(lhs - rhs):.3g})")


def _fd_test(case: _Case, group: list, g_vec: np.ndarray, ybar_vec: np.ndarray) -> None:
    """Each number of the gradient against central finite differences of <y_bar, f(x)>."""
    n = g_vec.size
    offsets = []
    for i in group:
        offsets += [(i, k) for k in range(len(_unique_vector(NoTangent, case.values[i], set())))]

    def phi(k: int, h: float) -> Optional[float]:
        e = np.zeros(n)
        e[k] = 1.0
        it, memo = iter(e.tolist()), {}
        seeds = [_from_vector(case.values[i], it, memo) if i in group else NoTangent for i in range(len(case.values))]
        out = _evaluate(case, seeds, h, result_only=True)
        if out is None or out.size != ybar_vec.size:
            return None
        return float(np.dot(ybar_vec, out))

    best_err = np.full(n, math.inf)
    best_fd = np.full(n, math.nan)
    remaining = list(range(n))
    for h in case.fd_order:
        still = []
        for k in remaining:
            plus, minus = phi(k, h), phi(k, -h)
            if plus is not None and minus is not None:
                fd = (plus - minus) / (2 * h)
                err = case.within(float(g_vec[k]), fd)
                if err < best_err[k]:
                    best_err[k], best_fd[k] = err, fd
            if not best_err[k] <= 1.0:
                still.append(k)
        remaining = still
        if not remaining:
            return
    k = max(remaining, key=lambda k: best_err[k] if np.isfinite(best_err[k]) else math.inf)
    label_i, idx = offsets[k] if k < len(offsets) else (group[0], k)
    if not np.isfinite(best_fd[k]):
        raise case.fail("reverse vs finite differences", f"{case.labels[label_i]}: finite differences failed at every "
                        f"step size for number {idx}")
    raise case.fail("reverse vs finite differences",
                    f"{case.labels[label_i]}: number {idx} of its gradient is {g_vec[k]:.10g}, finite differences of "
                    f"<y_bar, f(x)> give {best_fd[k]:.10g} ({best_err[k]:.3g}x the tolerance)")
