"""NumPy rules, both modes: numpy.fft (fft/ifft/rfft/irfft/hfft/ihfft, their 2-D and n-D forms,
fftshift/ifftshift), with `n`/`s`, `axis`/`axes` and `norm`.

Every transform here is linear over the reals, so its tangent is the same call on the tangent.  The
reverse rules are the adjoints under the inner product the rest of the library uses for complex
numbers, Re(conj(a) * b) (see numpy_elementwise's real/imag rules):

* complex to complex (fft, ifft, fftn, ...): the DFT matrix is symmetric, so its adjoint is
  conj(F(conj(g))) with the same `s`, `axes` and `norm`; the zero-padding or truncation to `s` is
  undone afterwards (the adjoint of padding is truncation and the other way round).
* real to half-spectrum (rfft, rfftn): the half spectrum is a selection of the full one, so g is
  zero-padded to the full length and sent through the complex adjoint; the real part is kept.
* half-spectrum to real (irfft, irfftn): y_t = sum_k w_k Re(c_k e^{+2 pi i k t/n}) / n, where w_k is 2
  except for the entries that have no mirror image (k = 0, and k = n/2 for even n), so
  c_bar = w * rfftn(g) under the dual normalisation (backward <-> forward, ortho alone).
* hfft and ihfft are irfft and rfft of a conjugate with the normalisation swapped (as NumPy defines them).

`out=` is handled for every rule by the registry (the template sees the call without it; a call that
still reaches these helpers with one is refused).  Only `a` is differentiated; `n`, `s`, `axes` and
`norm` are options.  Every rule here is marked right for complex values in reverse mode (registry.defcomplex):
complex inputs, and complex spectra fed to other whitelisted rules, are differentiated in both modes.
"""
from __future__ import annotations

import inspect

import numpy as np

from ..tangents import NoTangent
from .numpy_common import _no_adjoint
from .registry import defcomplex, defjvp, defvjp

_C2C = {np.fft.fft: np.fft.fftn, np.fft.ifft: np.fft.ifftn, np.fft.fft2: np.fft.fftn,
        np.fft.ifft2: np.fft.ifftn, np.fft.fftn: np.fft.fftn, np.fft.ifftn: np.fft.ifftn}
_R2C = (np.fft.rfft, np.fft.rfft2, np.fft.rfftn)
_C2R = (np.fft.irfft, np.fft.irfft2, np.fft.irfftn)
_ONE_D = (np.fft.fft, np.fft.ifft, np.fft.rfft, np.fft.irfft, np.fft.hfft, np.fft.ihfft)
_SWAP = {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}


def _options(fn, a, p, k):
    """(axes, s or None, norm) of the call fn(a, *p, **k), 1-D calls written as n-D ones."""
    b = inspect.signature(fn).bind(a, *p, **k)
    b.apply_defaults()
    o = b.arguments
    if o.get("out") is not None:
        raise NotImplementedError(f"derivative of numpy.fft.{fn.__name__} with out=: assign the result instead")
    if fn in _ONE_D:
        return (o["axis"],), (None if o["n"] is None else (o["n"],)), o["norm"]
    s, axes = o["s"], o["axes"]
    nd = np.ndim(a)
    if axes is None:
        axes = tuple(range(nd)) if s is None else tuple(range(nd - len(s), nd))
    axes = tuple(int(ax) % nd for ax in axes)
    if s is not None and any(n is None or n == -1 for n in s):
        s = tuple(np.shape(a)[ax] if n is None or n == -1 else n for n, ax in zip(s, axes))
    return axes, (None if s is None else tuple(s)), o["norm"]


def _full(x, axes, s, half_last=False):
    """The transform lengths along axes: s, or x's own (for a half spectrum on the last axis, 2 (m - 1))."""
    axes = tuple(int(ax) % np.ndim(x) for ax in axes)
    if s is not None:
        return axes, tuple(int(n) for n in s)
    s = [np.shape(x)[ax] for ax in axes]
    if half_last:
        s[-1] = 2 * (s[-1] - 1)
    return axes, tuple(s)


def _fit(v, shape, axes):
    """v truncated or zero-padded along axes to the lengths that `shape` has there."""
    v = np.asarray(v)
    for ax in axes:
        n, m = v.shape[ax], shape[ax]
        if n > m:
            v = v[(slice(None),) * ax + (slice(0, m),)]
        elif n < m:
            pad = [(0, 0)] * v.ndim
            pad[ax] = (0, m - n)
            v = np.pad(v, pad)
    return v


def _real_if(x, v):
    """An adjoint for x: its real part when x is real (an imaginary part has no direction to go to there)."""
    v = np.asarray(v)
    if not np.iscomplexobj(x):
        v = np.real(v)
    return v[()] if v.ndim == 0 else v


def c2c_adjoint(inverse, x, g, axes, s, norm):
    axes, s = _full(x, axes, s)
    f = np.fft.ifftn if inverse else np.fft.fftn
    v = np.conj(f(np.conj(np.asarray(g)), s=s, axes=axes, norm=norm))
    return _real_if(x, _fit(v, np.shape(x), axes))


def r2c_adjoint(x, g, axes, s, norm):
    axes, s = _full(x, axes, s)
    shape = list(np.shape(g))
    shape[axes[-1]] = s[-1]
    v = np.conj(np.fft.fftn(np.conj(_fit(g, shape, axes[-1:])), s=s, axes=axes, norm=norm))
    return _real_if(x, _fit(np.real(v), np.shape(x), axes))


def c2r_adjoint(x, g, axes, s, norm):
    axes, s = _full(x, axes, s, half_last=True)
    n = s[-1]
    w = np.full(n // 2 + 1, 2.0)
    w[0] = 1.0
    if n % 2 == 0:
        w[-1] = 1.0
    w = w.reshape([-1 if i == axes[-1] else 1 for i in range(np.ndim(g))])
    v = w * np.fft.rfftn(np.asarray(g), s=s, axes=axes, norm=_SWAP[norm])
    return _real_if(x, _fit(v, np.shape(x), axes))


def fft_adjoint(fn, x, g, *p, **k):
    """The adjoint of x in y = fn(x, *p, **k) (one of numpy.fft's transforms) for y's adjoint g."""
    if _no_adjoint(g):
        return NoTangent
    axes, s, norm = _options(fn, x, p, k)
    if fn in _C2C:
        return c2c_adjoint(_C2C[fn] is np.fft.ifftn, x, g, axes, s, norm)
    if fn in _R2C:
        return r2c_adjoint(x, g, axes, s, norm)
    if fn in _C2R:
        return c2r_adjoint(x, g, axes, s, norm)
    if fn is np.fft.hfft:  # hfft(a) = irfft(conj(a)) with the normalisation swapped
        return _real_if(x, np.conj(c2r_adjoint(np.asarray(x, dtype=complex), g, axes, s, _SWAP[norm])))
    if fn is np.fft.ihfft:  # ihfft(a) = conj(rfft(a)) with the normalisation swapped
        return r2c_adjoint(x, np.conj(g), axes, s, _SWAP[norm])
    raise NotImplementedError(f"reverse mode of numpy.fft.{fn.__name__}")  # pragma: no cover


def fft_tangent(fn, x, dx, *p, **k):
    """fn is real-linear in x: the tangent is the same transform of dx."""
    _options(fn, x, p, k)  # refuses out=
    return fn(np.broadcast_to(dx, np.shape(x)) if np.shape(dx) != np.shape(x) else dx, *p, **k)


def fft_tangent_adjoint(fn, x, dx, g, *p, **k):
    """The adjoint of dx in fft_tangent (reverse mode over forward code: a second derivative): the transform's adjoint,
    for an operand of dx's kind (real or complex) and shape (a broadcast tangent summed back)."""
    from .forward_code_rules import _unbroadcast_to

    if _no_adjoint(g):
        return NoTangent
    like = np.asarray(x, dtype=complex) if np.iscomplexobj(dx) and not np.iscomplexobj(x) else x
    return _unbroadcast_to(fft_adjoint(fn, like, g, *p, **k), dx)


def _register(fn):
    defjvp(fn, lambda t, y, a, *p, **k: t.call(fft_tangent, fn, a, t.d(a), *p, **k) if t.d(a) is not None else None)
    defvjp(fn, lambda t, g, y, a, *p, **k: (t.call(fft_adjoint, fn, a, g, *p, **k),) + (None,) * len(p))


for _fn in (*_C2C, *_R2C, *_C2R, np.fft.hfft, np.fft.ihfft):
    _register(_fn)
# fft_tangent, which forward code calls, is linear in dx (the same transform): its rules make second derivatives
# (forward and reverse mode over forward code) without differentiating its options' inspect.signature binding
defjvp(fft_tangent, lambda t, y, fn, x, dx, *p, **k: t.call(fft_tangent, fn, x, t.d(dx), *p, **k)
       if t.d(dx) is not None else None)
defvjp(fft_tangent, lambda t, g, y, fn, x, dx, *p, **k: (None, None, t.call(fft_tangent_adjoint, fn, x, dx, g, *p, **k))
       + (None,) * len(p))


# ------------------------------------------------------------------ fftshift / ifftshift: permutations
def shift_adjoint(inverse, g, axes=None):
    if _no_adjoint(g):
        return NoTangent
    return (np.fft.fftshift if inverse else np.fft.ifftshift)(g, axes)


defjvp(np.fft.fftshift, lambda t, y, x, *p, **k: t.call(np.fft.fftshift, t.d(x), *p, **k) if t.d(x) is not None else None)
defjvp(np.fft.ifftshift, lambda t, y, x, *p, **k: t.call(np.fft.ifftshift, t.d(x), *p, **k) if t.d(x) is not None else None)
defvjp(np.fft.fftshift, lambda t, g, y, x, *p, **k: (t.call(shift_adjoint, False, g, *p, **k),) + (None,) * len(p))
defvjp(np.fft.ifftshift, lambda t, g, y, x, *p, **k: (t.call(shift_adjoint, True, g, *p, **k),) + (None,) * len(p))


defcomplex(*_C2C, *_R2C, *_C2R, np.fft.hfft, np.fft.ihfft, np.fft.fftshift, np.fft.ifftshift, fft_tangent)
