"""Rules of `scipy.fft`'s discrete Fourier transforms (fft, ifft, rfft, irfft, hfft, ihfft and their 2-D and
n-D forms), both modes; registered by registry.lookup once the user's code has imported scipy.fft (SciPy's
fftconvolve and oaconvolve go through them).  This module never imports SciPy itself.

They are SciPy's `uarray` multimethods, with no Python source, and each computes what NumPy's function of
the same name does (same n/s, axis/axes and norm; `overwrite_x` and `workers` change how, not what).  They
are linear, so the tangent is SciPy's own transform of the tangent, and the adjoint is that of NumPy's
function (numpy_fft.py), reached through its reverse rule.  A `plan` (a backend's precomputed plan) is
refused, as are transforms NumPy has no counterpart of (hfft2/hfftn, dct/dst: no rule).
"""
from __future__ import annotations

import inspect

import numpy as np

from ..tangents import NoTangent

NAMES = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn",
         "rfftn", "irfftn"]
FUNCTIONS = [f"fft.{n}" for n in NAMES]
REGISTERED: dict = {}
_SIGNATURES: dict = {}


def _fft():
    import scipy.fft

    return scipy.fft


def _numpy_args(fn, args, kwargs):
    """(NumPy's function, its keywords) for SciPy's call fn(*args, **kwargs) (args include x)."""
    sig = _SIGNATURES.get(fn)
    if sig is None:
        sig = _SIGNATURES[fn] = inspect.signature(fn)
    b = sig.bind(*args, **kwargs)
    if b.arguments.get("plan") is not None:
        raise NotImplementedError(f"derivative of scipy.fft.{fn.__name__} with a plan: call it without one")
    kw = {k: v for k, v in b.arguments.items() if k in ("n", "axis", "s", "axes", "norm")}
    return getattr(np.fft, fn.__name__), kw


def fft_tangent(name, x, dx, *args, **kwargs):
    if dx is NoTangent or dx is None:
        return NoTangent
    fn = getattr(_fft(), name)
    _numpy_args(fn, (x, *args), kwargs)  # (refuses a plan)
    dx = np.asarray(dx)
    if not np.iscomplexobj(dx) and np.iscomplexobj(x):
        dx = dx.astype(np.result_type(x.dtype, np.complex64))
    return fn(dx, *args, **{k: v for k, v in kwargs.items() if k != "overwrite_x"})


def fft_adjoint(name, x, g, *args, **kwargs):
    from ..reverse.runtime import rcall

    if g is NoTangent or g is None:
        return NoTangent
    fn = getattr(_fft(), name)
    npfn, kw = _numpy_args(fn, (x, *args), kwargs)
    _, pb = rcall(npfn, (np.asarray(x),), kw)
    _, a, _ = pb(g)
    return a[0] if len(a) else NoTangent


def register() -> None:
    """Register the rules (registry.lookup calls this once scipy.fft is imported)."""
    from .registry import defcomplex, defjvp, defvjp

    sfft = _fft()
    for name in NAMES:
        fn = getattr(sfft, name, None)
        if fn is None or getattr(np.fft, name, None) is None:
            continue
        REGISTERED[fn] = f"fft.{name}"
        defjvp(fn, lambda t, y, x, *p, name=name, **k: t.call(fft_tangent, name, x, t.d(x), *p, **k)
               if t.d(x) is not None else None)
        defvjp(fn, lambda t, g, y, x, *p, name=name, **k: (t.call(fft_adjoint, name, x, g, *p, **k),) + (None,) * len(p))
        defcomplex(fn)  # (complex values: NumPy's pullbacks, written for them)
