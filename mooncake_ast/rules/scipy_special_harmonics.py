"""`scipy.special.sph_harm_y(n, m, theta, phi)` (issue 12), both modes, in theta and phi; registered by
scipy_special_more.register(); this module never imports SciPy itself.

SciPy computes the angular derivatives itself: `sph_harm_y(n, m, theta, phi, diff_n=1)` returns
(Y, J) with J[..., 0] = dY/dtheta and J[..., 1] = dY/dphi (= i m Y).  Y is complex and the angles
real, so the tangent is J . (dtheta, dphi) and the adjoint of an angle is Re(conj(J[..., k]) Ybar)
(the real inner product), summed over the axes broadcasting added.  n and m are integers (no
derivative); `diff_n=` other than 0 (a tuple of derivatives) is refused, as are complex angles.
"""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent

FUNCTIONS = ["sph_harm_y"]


def _jac(n, m, theta, phi, diff_n):
    import scipy.special

    if diff_n:
        raise NotImplementedError("derivative of scipy.special.sph_harm_y with diff_n= (a tuple of derivatives): "
                                  "differentiate the derivatives SciPy returns instead of asking for them")
    if np.iscomplexobj(theta) or np.iscomplexobj(phi):
        raise NotImplementedError("derivative of scipy.special.sph_harm_y at complex angles (real angles only)")
    return scipy.special.sph_harm_y(n, m, theta, phi, diff_n=1)[1]


def sph_harm_tangent(n, m, theta, phi, diff_n, dtheta, dphi):
    jac = _jac(n, m, theta, phi, diff_n)
    out = np.zeros(jac.shape[:-1], dtype=complex)
    if dtheta is not NoTangent:
        out = out + jac[..., 0] * dtheta
    if dphi is not NoTangent:
        out = out + jac[..., 1] * dphi
    return out[()]


def sph_harm_adjoint(n, m, theta, phi, diff_n, g, k):
    from ..reverse.adjoints import unbroadcast

    if g is NoTangent or g is None:
        return NoTangent
    jac = _jac(n, m, theta, phi, diff_n)
    bar = np.real(np.conj(jac[..., k]) * g)
    like = theta if k == 0 else phi
    out = unbroadcast(bar, like)
    return float(out) if np.ndim(like) == 0 and not isinstance(like, np.ndarray) else out


def register(sp, named) -> None:
    from .registry import defcomplex, defjvp, defvjp

    fn = getattr(sp, "sph_harm_y", None)
    if fn is None:
        return
    fn = named("sph_harm_y", fn)

    def jvp(t, y, n, m, theta, phi, diff_n=0):
        if t.d(theta) is None and t.d(phi) is None:
            return None
        return t.call(sph_harm_tangent, n, m, theta, phi, diff_n, t.dz(theta), t.dz(phi))

    def vjp(t, g, y, n, m, theta, phi, diff_n=0):
        needs = getattr(t, "needs", None)
        bars = [None if needs is not None and not needs(op) else t.call(sph_harm_adjoint, n, m, theta, phi, diff_n, g, k)
                for k, op in enumerate((theta, phi))]
        return (None, None, *bars)

    defjvp(fn, jvp)
    defvjp(fn, vjp)
    defcomplex(fn)  # (complex result, real angles: the adjoint is the real inner product's; complex angles refused)
