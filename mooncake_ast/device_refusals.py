"""A derivative helper that is not written for CuPy arrays names itself (issue 15).

CuPy refuses what would silently copy between host and device: `np.asarray(gpu_array)` raises "Implicit
conversion to a NumPy array is not allowed", and an operation mixing a NumPy array with a CuPy one raises
"Unsupported type <class 'numpy.ndarray'>". Raised inside one of our run-time helpers (a rule written with
`np.asarray`, or one that makes NumPy zeros), that TypeError says nothing of which derivative needs the
work; here it becomes an UnsupportedDerivativeError naming the helper and the user's line, as lazy.py does
for Dask. Raised by the user's own code, it is the user's error and stays as it is.
"""
from __future__ import annotations

import linecache
import os
from types import TracebackType
from typing import Optional

from .errors import UnsupportedDerivativeError, generated_location

_CUPY_MESSAGES = ("Implicit conversion to a NumPy array is not allowed", "Unsupported type <class 'numpy.ndarray'>")
_PACKAGE = os.path.dirname(os.path.abspath(__file__))


def refusal(e: BaseException) -> Optional[UnsupportedDerivativeError]:
    """The UnsupportedDerivativeError for CuPy's refusal `e` raised inside one of our helpers, or None."""
    if not isinstance(e, TypeError) or not any(m in str(e) for m in _CUPY_MESSAGES):
        return None
    helper = _innermost_helper(e.__traceback__)
    if helper is None:
        return None
    filename, lineno, function, module = helper
    if function.endswith("__pullback"):  # a generated pullback: derivative code, not the user's
        where = generated_location(e.__traceback__)
        return UnsupportedDerivativeError(
            f"{where + ': ' if where else ''}reverse mode meets NumPy values (or numbers) computed from CuPy arrays "
            f"and mixed with them again, and cannot pass a device adjoint back to them without a copy to the host "
            f"({e}); keep the whole computation on the device (cp.asarray of NumPy constants, no float() of device "
            f"values), or use forward mode (mc.jvp)")
    code = linecache.getline(filename, lineno).strip()
    where = generated_location(e.__traceback__)
    return UnsupportedDerivativeError(
        f"{where + ': ' if where else ''}the derivative of this operation is not written for CuPy arrays yet: "
        f"{module}.{function} ({os.path.basename(filename)}:{lineno}) `{code}` would copy a device array to the host "
        f"or mix it with a NumPy array ({e}); bring the inputs to the host first (x.get()) to differentiate with "
        f"NumPy")


def _innermost_helper(tb: Optional[TracebackType]) -> Optional[tuple]:
    """(file, line, function, module) of the innermost frame outside the array libraries, if it is in this
    package's own code (a helper) or a generated pullback, else None (the user's code, or the forward code that
    runs it, asked)."""
    from .arrays import _NAMESPACES

    libraries = {getattr(m, "__name__", "") for m in _NAMESPACES.values()}
    found = None
    while tb is not None:
        frame = tb.tb_frame
        module = frame.f_globals.get("__name__", "") or ""
        if module.split(".")[0] not in _LIBRARIES and module not in libraries:
            found = (frame.f_code.co_filename, tb.tb_lineno, frame.f_code.co_name, module)
        tb = tb.tb_next
    if found is None:
        return None
    if found[2].endswith("__pullback") or os.path.abspath(found[0]).startswith(_PACKAGE + os.sep):
        return found
    return None


_LIBRARIES = frozenset({"numpy", "cupy", "cupyx", "cupy_backends"})
