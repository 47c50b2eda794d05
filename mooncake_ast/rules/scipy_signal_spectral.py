"""`scipy.signal.periodogram` and `scipy.signal.welch` (issue 12, second pass), differentiated with respect to the
data x (and fs, and a window given as an array), both modes; registered by scipy_signal_rules.register() (no
SciPy import here).

SciPy computes them through ShortTimeFFT, whose properties cache values in the object (no tracing), so a
NumPy model of Welch's method stands in: segments of nperseg samples every nperseg - noverlap, each
detrended ('constant', 'linear' or False), windowed, transformed (rfft, or fft for return_onesided=False),
|X|^2 scaled by 1 / (fs sum(w^2)) ('density') or 1 / sum(w)^2 ('spectrum'), the one-sided bins doubled but
for 0 (and Nyquist for even nfft), and averaged over the segments (periodogram: one segment, the whole
signal).  mooncake_ast differentiates the model itself (forward.runtime.fcall, reverse.runtime.rcall), and
the rule compares its value with SciPy's on every call: where they differ (an option the model does not
follow) it refuses, never a wrong derivative.  Refused: average='median', complex x, a callable detrend.
The frequencies are constants of the sizes (in fs: f = k fs / nfft, differentiated too).
"""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent

FUNCTIONS = ["signal.periodogram", "signal.welch"]
_REFUSE = "derivative of scipy.signal.{} {}: not supported"


def _signal():
    import scipy.signal

    return scipy.signal


def _zero(d):
    from .scipy_optimize_rules import _live

    return not _live(d)


def spectral_model(x, fs, win, nperseg, noverlap, nfft, detrend, onesided, density):
    """Welch's estimate of the power spectral density of x (time on the last axis): (f, P)."""
    step = nperseg - noverlap
    count = (x.shape[-1] - nperseg) // step + 1
    segs = np.stack([x[..., k * step:k * step + nperseg] for k in range(count)], axis=-2)
    if detrend == "constant":
        segs = segs - np.mean(segs, axis=-1, keepdims=True)
    elif detrend == "linear":
        t = np.arange(nperseg, dtype=float)
        tc = t - np.mean(t)
        slope = np.sum(segs * tc, axis=-1, keepdims=True) / np.sum(tc * tc)
        segs = segs - np.mean(segs, axis=-1, keepdims=True) - slope * tc
    if onesided:
        spec = np.fft.rfft(segs * win, nfft)
    else:
        spec = np.fft.fft(segs * win, nfft)
    power = np.real(spec) ** 2 + np.imag(spec) ** 2
    if density:
        power = power / (fs * np.sum(win * win))
    else:
        power = power / np.sum(win) ** 2
    if onesided:
        last = nfft // 2 if nfft % 2 == 0 else nfft // 2 + 1
        scale = np.ones(power.shape[-1])
        scale[1:last] = 2.0
        power = power * scale
    freqs = (np.arange(nfft // 2 + 1) if onesided else np.fft.fftfreq(nfft) * nfft) * (fs / nfft)
    return freqs, np.mean(power, axis=-2)


def _bound(which, args, kwargs):
    import inspect

    fn = getattr(_signal(), which)
    b = inspect.signature(fn).bind(*args, **kwargs)
    b.apply_defaults()
    return dict(b.arguments)


def _setup(which, b):
    """(x with time last, axis, the model's arguments after x and fs) from the call's arguments."""
    x = np.asarray(b["x"])
    if np.iscomplexobj(x):
        raise NotImplementedError(_REFUSE.format(which, "of complex data"))
    if callable(b["detrend"]) or b["detrend"] not in ("constant", "linear", False):
        raise NotImplementedError(_REFUSE.format(which, f"with detrend={b['detrend']!r}"))
    if b.get("average", "mean") != "mean":
        raise NotImplementedError(_REFUSE.format(which, "with average='median'"))
    axis = b["axis"]
    n = x.shape[axis]
    if which == "periodogram":
        nperseg, noverlap = n, 0
    else:
        nperseg = 256 if b["nperseg"] is None else int(b["nperseg"])
        nperseg = min(nperseg, n)
        noverlap = nperseg // 2 if b["noverlap"] is None else int(b["noverlap"])
    nfft = nperseg if b["nfft"] is None else int(b["nfft"])
    window = b["window"]
    win = _signal().get_window(window, nperseg) if isinstance(window, (str, tuple)) else np.asarray(window, dtype=float)
    if which == "periodogram" and window is None:
        win = np.ones(nperseg)
    scaling = b["scaling"]
    if scaling not in ("density", "spectrum"):
        raise NotImplementedError(_REFUSE.format(which, f"with scaling={scaling!r}"))
    return axis, (win, nperseg, noverlap, nfft, b["detrend"], bool(b["return_onesided"]), scaling == "density")


def _check(which, y, fP):
    f, P = y
    if np.shape(P) != np.shape(fP[1]) or not np.allclose(P, fP[1], rtol=1e-8, atol=1e-14 * (np.max(np.abs(P)) + 1e-300)) \
            or not np.allclose(f, fP[0], rtol=1e-10, atol=1e-12):
        raise NotImplementedError(_REFUSE.format(which, "for these arguments: the NumPy model it is differentiated "
                                                 "through gives another value (an option it does not follow)"))


def _window_is_array(b):
    return not isinstance(b["window"], (str, tuple)) and b["window"] is not None


def spectral_tangent(which, y, dx, dfs, dwin, args, kwargs):
    from ..forward.runtime import fcall

    b = _bound(which, args, kwargs)
    axis, rest = _setup(which, b)
    x = np.moveaxis(np.asarray(b["x"], dtype=float), axis, -1)
    dxl = NoTangent if _zero(dx) else np.moveaxis(np.broadcast_to(np.asarray(dx, dtype=float), np.shape(b["x"])), axis, -1)
    dw = NoTangent if _zero(dwin) or not _window_is_array(b) else np.asarray(dwin, dtype=float)
    val, dval = fcall(spectral_model, NoTangent, (x, float(b["fs"])) + rest,
                      (dxl, NoTangent if _zero(dfs) else float(dfs), dw) + (NoTangent,) * (len(rest) - 1))
    out = (val[0], np.moveaxis(val[1], -1, axis))
    _check(which, y, out)
    df, dP = (NoTangent, NoTangent) if dval is NoTangent else dval
    return df, (NoTangent if dP is NoTangent else np.moveaxis(dP, -1, axis))


def spectral_adjoints(which, y, g, args, kwargs):
    """{parameter name: adjoint} for x, fs and an array window."""
    from ..reverse.runtime import rcall

    if g is NoTangent or g is None:
        return {}
    b = _bound(which, args, kwargs)
    axis, rest = _setup(which, b)
    x = np.moveaxis(np.asarray(b["x"], dtype=float), axis, -1)
    val, pb = rcall(spectral_model, (x, float(b["fs"])) + rest, {})
    _check(which, y, (val[0], np.moveaxis(val[1], -1, axis)))
    gf, gP = (g[0], g[1]) if isinstance(g, (tuple, list)) else (NoTangent, g)
    gP = NoTangent if _zero(gP) else np.moveaxis(np.asarray(gP, dtype=float), axis, -1)
    gf = NoTangent if _zero(gf) else np.asarray(gf, dtype=float)
    if gP is NoTangent and gf is NoTangent:
        return {}
    from ..reverse.adjoints import AdjTuple

    _, bars, _ = pb(AdjTuple([gf, gP]))
    out = {}
    if not _zero(bars[0]):
        xb = np.moveaxis(np.asarray(bars[0], dtype=float), -1, axis)
        out["x"] = xb if isinstance(b["x"], np.ndarray) else [float(v) for v in xb] if np.ndim(xb) == 1 else xb
    if not _zero(bars[1]):
        out["fs"] = float(bars[1])
    if _window_is_array(b) and not _zero(bars[2]):
        out["window"] = np.asarray(bars[2], dtype=float)
    return out


def register(registered) -> None:
    import inspect

    from .call_binding import KwAdj
    from .registry import defjvp, defvjp

    sig = _signal()
    for which in ("periodogram", "welch"):
        fn = getattr(sig, which)
        registered[fn] = f"signal.{which}"
        params = list(inspect.signature(fn).parameters)

        def jvp(t, y, *args, which=which, params=params, **kwargs):
            from .. import ops

            named = dict(zip(params, args), **kwargs)
            if all(t.d(v) is None for v in named.values()):
                return None
            d = {k: (t.dz(v) if k in named else NoTangent) for k, v in named.items()}
            return t.call(spectral_tangent, which, y, d.get("x", NoTangent), d.get("fs", NoTangent),
                          d.get("window", NoTangent), t.call(ops.tuple_of, *args),
                          t.call(ops.dict_of, *[z for k, v in kwargs.items() for z in (k, v)]))

        def vjp(t, g, y, *args, which=which, params=params, **kwargs):
            from .. import ops

            bars = t.call(spectral_adjoints, which, y, g, t.call(ops.tuple_of, *args),
                          t.call(ops.dict_of, *[z for k, v in kwargs.items() for z in (k, v)]))
            pos = tuple(t.call(_pick, bars, params[i]) for i in range(len(args)))
            named = {k: t.call(_pick, bars, k) for k in kwargs if k in ("x", "fs", "window")}
            return pos + ((KwAdj(named),) if named else ())

        defjvp(fn, jvp)
        defvjp(fn, vjp)


def _pick(bars, name):
    return bars.get(name, NoTangent)
