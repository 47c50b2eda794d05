"""Adjoints handed to the user in the structure of their argument (DESIGN.md §1): a float for a float, an array
of the argument's shape and dtype for an array, the same container for a list / tuple / dict, an `mc.Tangent` for
an object, `mc.NoTangent()` for ints and strings.  (Split from api.py; `api._to_user` is this function.)"""
from __future__ import annotations

from typing import Any

import numpy as np

from .api_checks import _is_real_number
from .arrays import is_other_array
from .tangents import MutableTangent, NoTangent, Tangent, adjoint_in_library, zeros_like_tangent


def to_user(g: Any, primal: Any) -> Any:
    """An adjoint in the structure of its argument (tuples, lists, dicts; objects as mc.Tangent)."""
    if type(primal) is np.ndarray and type(g) is np.ndarray and g.shape == primal.shape and primal.dtype.kind == "f":
        # (a complex adjoint of a real argument: its real part, the adjoint of R -> C; README "Complex numbers")
        return g if g.dtype == primal.dtype else (g.real if g.dtype.kind == "c" else g).astype(primal.dtype)
    if isinstance(primal, (bool, int, str, bytes, type(None))) and not isinstance(primal, float):
        return NoTangent
    if g is NoTangent or g is None:
        return zeros_like_tangent(primal)
    if getattr(type(g), "refuses_use", False):
        g._refuse()  # a derivative a rule could not give (a RefusedAdjoint): asked for, so the refusal is raised
    if isinstance(primal, (list, tuple)) and isinstance(g, (list, tuple)):
        items = [to_user(a, p) for a, p in zip(g, primal)]
        return list(items) if isinstance(primal, list) else tuple(items)
    if isinstance(primal, dict) and isinstance(g, dict):
        return {k: to_user(g.get(k, NoTangent), v) for k, v in primal.items()}
    if isinstance(g, MutableTangent) and hasattr(primal, "__dict__"):
        return Tangent({k: to_user(g.fields.get(k, NoTangent), v) for k, v in vars(primal).items()})
    if is_other_array(primal) or is_other_array(g):
        return adjoint_in_library(g, primal)  # (a Dask argument's, or a Dask adjoint of a NumPy one: stays lazy)
    if isinstance(primal, np.ndarray):
        if primal.dtype.kind not in "fc":
            return NoTangent
        if primal.dtype.kind == "f" and np.iscomplexobj(g):
            g = np.real(g)  # (as above)
        return np.asarray(g, dtype=primal.dtype).reshape(primal.shape) if np.ndim(g) else np.full(primal.shape, g, dtype=primal.dtype)
    if isinstance(primal, (float, np.floating)) and (_is_real_number(g) or (isinstance(g, np.ndarray) and g.size == 1
                                                                            and g.dtype.kind in "iuf")):
        return float(np.asarray(g).reshape(()))
    if isinstance(primal, (float, np.floating)) and isinstance(g, (complex, np.complexfloating)):
        return float(g.real)  # (as for arrays above)
    if isinstance(primal, (complex, np.complexfloating)) and (isinstance(g, (int, float, complex, np.number)) or
                                                             (isinstance(g, np.ndarray) and g.size == 1 and g.dtype.kind in "iufc")):
        v = np.asarray(g).reshape(())[()]  # a complex argument's gradient is a complex number (dL/dx + i dL/dy)
        return complex(v) if type(primal) is complex else type(primal)(v)
    return g
