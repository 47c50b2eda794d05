"""`scipy.linalg.eig` and `scipy.linalg.eigvals` of one real or complex square matrix (issue 12, second pass),
both modes; registered by scipy_linalg_rules.register() (no SciPy import here).  They call the same LAPACK
routine as np.linalg.eig / eigvals (geev: unit eigenvectors, each with its largest entry real), so they take
those rules (numpy_more_linalg.py); each call checks that SciPy's result is NumPy's.  Refused: the generalized
problem (b=), left=True, right=False and homogeneous_eigvals=True.
`scipy.linalg.polar` (scipy_linalg_polar.py: sums of singular values, finite where they repeat) is registered
from here too.
"""
from __future__ import annotations

import numpy as np

from .scipy_linalg_polar import FUNCTIONS as POLAR_FUNCTIONS

FUNCTIONS = ["linalg.eig", "linalg.eigvals"] + POLAR_FUNCTIONS


def _check(what, a, y, b=None, left=False, right=True, homogeneous_eigvals=False, **_):
    if b is not None or left or not right or homogeneous_eigvals:
        raise NotImplementedError(f"derivative of scipy.linalg.{what} with b=, left=True, right=False or "
                                  "homogeneous_eigvals=True: only the standard problem's eigenvalues and right eigenvectors")
    ref = np.linalg.eig(a) if what == "eig" else np.linalg.eigvals(a)
    same = all(np.allclose(u, v, rtol=1e-10, atol=1e-12) for u, v in zip(ref, y)) if what == "eig" else \
        np.allclose(ref, y, rtol=1e-10, atol=1e-12)
    if not same:
        raise NotImplementedError(f"derivative of scipy.linalg.{what}: its result differs from np.linalg.{what}'s here")


def eig_tangent(what, a, y, da, **opts):
    from . import numpy_more_linalg as m

    _check(what, a, y, **opts)
    if what == "eigvals":
        return _as(y, m.eigvals_tangent(a, y, da))
    dw, dv = m.eig_tangent(a, y, da)
    return _as(y[0], dw), _as(y[1], dv)


def _as(y, d):
    """The tangent in the result's dtype (SciPy's eigenvalues are complex even where NumPy's are real)."""
    return np.asarray(d, dtype=complex) if np.iscomplexobj(y) and not np.iscomplexobj(d) else d


def eig_adjoint(what, a, y, g, **opts):
    from . import numpy_more_linalg as m

    _check(what, a, y, **opts)
    return m.eig_adjoint(a, y, g) if what == "eig" else m.eigvals_adjoint(a, y, g)


def register(registered) -> None:
    import inspect

    import scipy.linalg as sl

    from . import scipy_linalg_polar
    from .registry import defcomplex, defjvp, defvjp

    scipy_linalg_polar.register(registered)
    for what in ("eig", "eigvals"):
        fn = getattr(sl, what)
        registered[fn] = f"linalg.{what}"
        names = list(inspect.signature(fn).parameters)[1:]

        def jvp(t, y, a, *p, what=what, names=names, **k):
            if t.d(a) is None:
                return None
            return t.call(eig_tangent, what, a, y, t.d(a), **dict(zip(names, p)), **k)

        def vjp(t, g, y, a, *p, what=what, names=names, **k):
            return (t.call(eig_adjoint, what, a, y, g, **dict(zip(names, p)), **k),) + (None,) * len(p)

        defjvp(fn, jvp)
        defvjp(fn, vjp)
        defcomplex(fn)
