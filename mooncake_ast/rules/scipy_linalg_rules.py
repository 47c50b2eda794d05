"""Rules of `scipy.linalg` functions whose source cannot be traced (they call compiled code inside a
`try`), both modes; registered by registry.lookup once the user's code has imported scipy.linalg.
This module never imports SciPy itself.

* sqrtm: Y = sqrtm(A) solves Y Y = A, so Y dY + dY Y = dA: dY = solve_sylvester(Y, Y, dA); the
  adjoint solves the transposed equation, Abar = solve_sylvester(Y^T, Y^T, Ybar).
* solve_sylvester: X solves A X + X B = Q, so A dX + dX B = dQ - dA X - X dB.  With the operator
  L(X) = A X + X B, whose adjoint is L*(Y) = A^T Y + Y B^T: Qbar = L*^-1(Xbar) =
  solve_sylvester(A^T, B^T, Xbar), Abar = -Qbar X^T, Bbar = -X^T Qbar.
Both need the Sylvester equation to have one solution (no eigenvalue of A equal to minus one of B;
for sqrtm, no two eigenvalues of Y summing to 0): otherwise SciPy's solver fails and so does the rule.
"""
from __future__ import annotations

import numpy as np

from .scipy_linalg_banded import FUNCTIONS as BANDED_FUNCTIONS
from .scipy_linalg_models import FUNCTIONS as MODEL_FUNCTIONS
from .scipy_linalg_more import FUNCTIONS as MORE_FUNCTIONS
from .scipy_linalg_schur import FUNCTIONS as SCHUR_FUNCTIONS
from .scipy_linalg_eig import FUNCTIONS as EIG_FUNCTIONS
from .scipy_linalg_lyapunov import FUNCTIONS as LYAPUNOV_FUNCTIONS
from .scipy_linalg_power import FUNCTIONS as POWER_FUNCTIONS
from .scipy_linalg_trig import FUNCTIONS as TRIG_FUNCTIONS
from .scipy_linalg_funm import FUNCTIONS as FUNM_FUNCTIONS
from .scipy_linalg_more import _linalg, _mT, _zero  # noqa: F401  (the helpers both modules use)
from ..tangents import NoTangent

FUNCTIONS = sorted(["linalg.solve_sylvester", "linalg.sqrtm"] + MORE_FUNCTIONS + BANDED_FUNCTIONS + MODEL_FUNCTIONS + SCHUR_FUNCTIONS + EIG_FUNCTIONS
                   + POWER_FUNCTIONS + LYAPUNOV_FUNCTIONS + TRIG_FUNCTIONS + FUNM_FUNCTIONS)  # (the rest: scipy_linalg_more, _banded)
REGISTERED: dict = {}


def _square(what, a):
    if np.ndim(a) != 2:
        raise NotImplementedError(f"derivative of scipy.linalg.{what} of anything but a 2-D matrix")


def sqrtm_tangent(a, y, da):
    _square("sqrtm", a)
    da = np.broadcast_to(np.asarray(da), np.shape(a))
    return _linalg().solve_sylvester(y, y, da)


def sqrtm_adjoint(a, y, g):
    _square("sqrtm", a)
    if _zero(g):
        return NoTangent
    out = _linalg().solve_sylvester(np.conj(_mT(y)), np.conj(_mT(y)), np.asarray(g))
    return np.real(out) if not np.iscomplexobj(a) else out


def sylvester_tangent(a, b, q, x, da, db, dq):
    rhs = 0.0
    if not _zero(dq):
        rhs = rhs + np.asarray(dq)
    if not _zero(da):
        rhs = rhs - np.asarray(da) @ x
    if not _zero(db):
        rhs = rhs - x @ np.asarray(db)
    rhs = np.broadcast_to(rhs, np.shape(x))
    return _linalg().solve_sylvester(a, b, rhs)


def sylvester_adjoints(a, b, x, g):
    """(Abar, Bbar, Qbar)."""
    if _zero(g):
        return NoTangent, NoTangent, NoTangent
    qbar = _linalg().solve_sylvester(_mT(a), _mT(b), np.asarray(g))
    return -qbar @ _mT(x), -_mT(x) @ qbar, qbar


def register() -> None:
    """Register the rules (registry.lookup calls this once scipy.linalg is imported)."""
    from .numpy_common import _split
    from .registry import defjvp, defvjp

    la = _linalg()
    REGISTERED[la.sqrtm] = "linalg.sqrtm"
    REGISTERED[la.solve_sylvester] = "linalg.solve_sylvester"

    defjvp(la.sqrtm, lambda t, y, a, *p, **k: t.call(sqrtm_tangent, a, y, t.dz(a)) if t.d(a) is not None else None)
    defvjp(la.sqrtm, lambda t, g, y, a, *p, **k: (t.call(sqrtm_adjoint, a, y, g),) + (None,) * len(p))
    from .registry import defcomplex

    defcomplex(la.sqrtm)  # (its adjoint solves with conjugate transposes: right for complex values)

    def sylvester_jvp(t, y, a, b, q):
        if t.d(a) is None and t.d(b) is None and t.d(q) is None:
            return None
        return t.call(sylvester_tangent, a, b, q, y, t.dz(a), t.dz(b), t.dz(q))

    def sylvester_vjp(t, g, y, a, b, q):
        return tuple(_split(t, t.call(sylvester_adjoints, a, b, y, g), 3))

    defjvp(la.solve_sylvester, sylvester_jvp)
    defvjp(la.solve_sylvester, sylvester_vjp)

    from . import scipy_linalg_banded, scipy_linalg_models, scipy_linalg_more

    scipy_linalg_more.register(REGISTERED)
    scipy_linalg_banded.register(REGISTERED)
    scipy_linalg_models.register(REGISTERED)  # (inv, solve, det, eigh, svd, qr, lstsq, pinv, norm: NumPy models)
    from . import scipy_linalg_schur

    scipy_linalg_schur.register(REGISTERED)  # (schur, rq)
    from . import scipy_linalg_eig

    scipy_linalg_eig.register(REGISTERED)  # (eig, eigvals: np.linalg's rules)
    from . import scipy_linalg_power

    scipy_linalg_power.register(REGISTERED)  # (fractional_matrix_power)
    from . import scipy_linalg_lyapunov

    scipy_linalg_lyapunov.register(REGISTERED)  # (solve_continuous_lyapunov)
    from . import scipy_linalg_trig

    scipy_linalg_trig.register(REGISTERED)  # (cosm, sinm, tanm, coshm, sinhm, tanhm)
    from . import scipy_linalg_funm

    scipy_linalg_funm.register(REGISTERED)  # (funm, signm)
