"""Derivatives of Dask arrays stay lazy: computing one inside a derivative is refused (issue 15).

A derivative on Dask arrays is more Dask graph, computed when the user asks (`.compute()`, on a
cluster or not). A rule or helper that converts an adjoint with `np.asarray` or `float()`, or a
branch on a lazy value, would instead compute part of the graph on the spot: at best slow (a pass
over data bigger than memory, in the middle of a pullback), at worst a NumPy array handed back where a
Dask one belongs. So while an API call works on Dask values, Dask's implicit computations (`__array__`,
`__float__`, `__bool__`, `.compute()` without a scheduler) reach a scheduler that raises a
LazyComputeError naming the line that asked: the helper not yet written for lazy arrays, or the user's
line that needs a concrete value. An error beats a silent computation (DESIGN: a refusal, never a guess).

The scheduler is set through `dask.config` (global), once for all threads that are inside a guarded
call, and is taken away when the last one leaves; computations in other threads meanwhile go to the
scheduler they would have used (the one configured before, a distributed Client, else threads).
An explicit `x.compute(scheduler=...)` inside the user's function is not intercepted: that is asked for.
(Being global, the setting can clobber a `dask.config.set(scheduler=...)` another thread makes while a
guarded call runs: it is restored to what it was when the first guarded call began.)
"""
from __future__ import annotations

import contextlib
import linecache
import os
import sys
import threading
from typing import Any, Iterable, Optional

from .arrays import is_lazy
from .errors import UnsupportedDerivativeError


class LazyComputeError(UnsupportedDerivativeError):
    """A derivative on Dask arrays would compute a Dask value on the spot (np.asarray, float(), a branch on
    it) instead of staying lazy: refused, with the line that asked and what to do."""


def holds_lazy(values: Iterable, budget: int = 10000) -> bool:
    """Is a Dask array among `values` (inside lists, tuples, dicts and objects' fields too)?"""
    if "dask" not in sys.modules:
        return False  # no Dask array can exist
    stack = list(values)
    seen: set = set()
    while stack and budget > 0:
        v = stack.pop()
        budget -= 1
        if is_lazy(v):
            return True
        if id(v) in seen:
            continue
        seen.add(id(v))
        if isinstance(v, (list, tuple)):
            stack.extend(v)
        elif isinstance(v, dict):
            stack.extend(v.values())
        else:
            fields = getattr(v, "fields", None)  # mc.Tangent / MutableTangent
            if isinstance(fields, dict) and (type(v).__module__ or "").startswith("mooncake_ast"):
                stack.extend(fields.values())
            elif type(v).__module__ not in ("builtins", "numpy") and not callable(v):
                d = getattr(v, "__dict__", None)
                if isinstance(d, dict):
                    stack.extend(d.values())
    return False


# ---------------------------------------------------------------- the refusing scheduler

_lock = threading.Lock()
_installed: dict = {"depth": 0, "setter": None, "before": None}
_local = threading.local()


def guard(*values: Any) -> Any:
    """A context manager: refuses Dask computations in this thread while it is open, if `values` hold a
    Dask array (else it does nothing)."""
    return _Guard() if holds_lazy(values) else contextlib.nullcontext()


class _Guard:
    def __enter__(self) -> None:
        import dask

        with _lock:
            if _installed["depth"] == 0:
                _installed["before"] = dask.config.get("scheduler", None)
                setter = dask.config.set(scheduler=_scheduler)
                setter.__enter__()
                _installed["setter"] = setter
            _installed["depth"] += 1
        _local.depth = getattr(_local, "depth", 0) + 1

    def __exit__(self, *exc: Any) -> None:
        _local.depth -= 1
        with _lock:
            _installed["depth"] -= 1
            if _installed["depth"] == 0:
                setter, _installed["setter"] = _installed["setter"], None
                setter.__exit__(None, None, None)


def _scheduler(*args: Any, **kwargs: Any) -> Any:
    if getattr(_local, "depth", 0):
        raise LazyComputeError(_why(sys._getframe(1)))
    return _usual_scheduler()(*args, **kwargs)  # another thread: not ours to refuse


def _usual_scheduler() -> Any:
    """The scheduler a computation would use without the guard (the configured one, a Client, threads)."""
    import dask.base

    before = _installed["before"]
    if before is not None and before is not _scheduler:
        return dask.base.get_scheduler(scheduler=before)
    try:
        from distributed import get_client

        return get_client().get
    except (ImportError, ValueError):
        import dask.threaded

        return dask.threaded.get


_SKIP = tuple(os.sep + p + os.sep for p in ("dask", "distributed", "numpy", "contextlib.py"))


def _why(frame: Any) -> str:
    """Which line asked for the value: the first frame outside Dask and NumPy (and this module)."""
    here = os.path.abspath(__file__)
    culprit = None
    f = frame
    while f is not None:
        name = f.f_code.co_filename
        if os.path.abspath(name) != here and not any(s in name for s in _SKIP):
            culprit = f
            break
        f = f.f_back
    user = _user_line(frame)
    where = f" (for {user})" if user else ""
    if culprit is None:
        return ("a Dask array would be computed inside the derivative" + where + ": derivatives on Dask arrays stay "
                "lazy; compute the inputs first (x.compute()) to differentiate with NumPy")
    name = culprit.f_code.co_filename
    line = linecache.getline(name, culprit.f_lineno).strip()
    code = f"`{line}` " if line else ""
    place = f"{os.path.basename(name)}:{culprit.f_lineno}"
    if "mooncake_ast" in name.split(os.sep) and not _generated(name):
        mod = culprit.f_globals.get("__name__", "mooncake_ast")
        return (f"the derivative of this operation is not written for lazy arrays yet: {mod}.{culprit.f_code.co_name} "
                f"({place}) {code}would compute a Dask array (to NumPy or a Python number){where}; derivatives on Dask "
                f"arrays stay lazy, so this is refused rather than computed: compute the inputs first (x.compute()) "
                f"to differentiate with NumPy")
    return (f"{user or place + '  ' + line} needs the value of a Dask array (a conversion to NumPy or to a Python "
            f"number, such as np.asarray, float() or .item(), or a branch on it), which would compute it inside the "
            f"derivative; derivatives on Dask arrays stay lazy: keep the value a Dask array (e.g. np.where instead of "
            f"if), or compute the inputs first (x.compute()) to differentiate with NumPy")


def _generated(filename: str) -> bool:
    return linecache.getline(filename, 1).startswith("# mooncake_ast-key")


def _user_line(frame: Any) -> Optional[str]:
    """`file.py:12  text` of the user's line the innermost generated-code frame runs (as errors.generated_location
    finds it from a traceback)."""
    import traceback

    from .tracebacks import user_location

    return user_location(traceback.extract_stack(frame))
