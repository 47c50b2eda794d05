"""scipy.linalg's everyday functions through NumPy models (issue 12), both modes; registered by
scipy_linalg_rules.register() once the user's code has imported scipy.linalg.

scipy.linalg.inv, solve, det, eigh, eigvalsh, svd, svdvals, qr, lstsq, pinv and norm call compiled LAPACK
wrappers, which have no rules.  Each has a NumPy counterpart with rules (np.linalg.*), so the derivative is
that of a small NumPy model of SciPy's function (below), run through fcall / rcall with the same arguments,
while the value is SciPy's own.  The model reads what SciPy reads: `solve(assume_a='pos', lower=False)`
reads one triangle of `a` (the model mirrors it onto the other), `eigh(lower=...)` one triangle.  SciPy's
result and the model's are compared each time: where they differ (another sign of an eigenvector or
singular vector, an option the model does not follow) the derivative is refused, never guessed.  Refused
too: subsets and type= 2 or 3 of eigh (its generalized problem with b= is modelled through the Cholesky factor
of b), pivoting, `mode='raw'`, banded or tridiagonal solves.
"""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent

NAMES = ["det", "eigh", "eigvalsh", "inv", "lstsq", "norm", "pinv", "qr", "solve", "svd", "svdvals"]
FUNCTIONS = [f"linalg.{n}" for n in NAMES]
_SYMMETRIC = {"sym": False, "symmetric": False, "her": True, "hermitian": True, "pos": True, "positive definite": True}


def _refuse(name, what):
    raise NotImplementedError(f"derivative of scipy.linalg.{name} with {what}")


# ------------------------------------------------------------------ the models (traced: plain NumPy)
def inv_model(a, overwrite_a=False, check_finite=True):
    return np.linalg.inv(a)


def det_model(a, overwrite_a=False, check_finite=True):
    return np.linalg.det(a)


def _as_read(a, assume_a, lower):
    """The matrix solve() works with, from the entries SciPy reads for `assume_a`."""
    kind = "gen" if assume_a is None else str(assume_a)
    if kind in ("gen", "general"):
        return a
    if kind in _SYMMETRIC:
        part = np.tril(a) if lower else np.triu(a)
        strict = np.tril(a, -1) if lower else np.triu(a, 1)
        return part + (np.conj(strict).T if _SYMMETRIC[kind] else strict.T)
    if kind == "diagonal":
        return np.diag(np.diagonal(a))
    if kind in ("upper triangular", "lower triangular"):
        return np.triu(a) if kind.startswith("upper") else np.tril(a)
    raise NotImplementedError(f"derivative of scipy.linalg.solve with assume_a={assume_a!r}")


def solve_model(a, b, lower=False, overwrite_a=False, overwrite_b=False, check_finite=True, assume_a=None,
                transposed=False):
    m = _as_read(a, assume_a, lower)
    return np.linalg.solve(np.transpose(m) if transposed else m, b)


def _mirrored(a, lower):
    """The Hermitian matrix LAPACK sees from one triangle of a."""
    part, strict = (np.tril(a), np.tril(a, -1)) if lower else (np.triu(a), np.triu(a, 1))
    return part + np.conj(strict).T


def _generalized(a, b, lower, eigvals_only):
    """A v = w B v (B positive definite) as the standard problem of C = L^-1 A L^-H, B = L L^H: v = L^-H u."""
    li = np.linalg.inv(np.linalg.cholesky(_mirrored(b, lower)))
    c = li @ _mirrored(a, lower) @ np.conj(li).T
    c = 0.5 * (c + np.conj(c).T)
    if eigvals_only:
        return np.linalg.eigvalsh(c)
    w, u = np.linalg.eigh(c)
    return w, np.conj(li).T @ u


def eigh_model(a, b=None, *, lower=True, eigvals_only=False, overwrite_a=False, overwrite_b=False, type=1,
               check_finite=True, subset_by_index=None, subset_by_value=None, driver=None):
    if subset_by_index is not None or subset_by_value is not None or (b is not None and type != 1):
        _refuse("eigh", "subset_by_index=, subset_by_value= or type= 2 or 3")
    if b is not None:
        return _generalized(a, b, lower, eigvals_only)
    if eigvals_only:
        return np.linalg.eigvalsh(a, UPLO="L" if lower else "U")
    return np.linalg.eigh(a, UPLO="L" if lower else "U")


def eigvalsh_model(a, b=None, *, lower=True, overwrite_a=False, overwrite_b=False, type=1, check_finite=True,
                   subset_by_index=None, subset_by_value=None, driver=None):
    if subset_by_index is not None or subset_by_value is not None or (b is not None and type != 1):
        _refuse("eigvalsh", "subset_by_index=, subset_by_value= or type= 2 or 3")
    if b is not None:
        return _generalized(a, b, lower, True)
    return np.linalg.eigvalsh(a, UPLO="L" if lower else "U")


def svd_model(a, full_matrices=True, compute_uv=True, overwrite_a=False, check_finite=True, lapack_driver="gesdd"):
    return np.linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)


def svdvals_model(a, overwrite_a=False, check_finite=True):
    return np.linalg.svd(a, compute_uv=False)


def qr_model(a, overwrite_a=False, lwork=None, mode="full", pivoting=False, check_finite=True):
    if pivoting or mode == "raw":
        _refuse("qr", "pivoting=True or mode='raw'")
    if mode == "r":
        return (np.linalg.qr(a, mode="r"),)
    return np.linalg.qr(a, mode="complete" if mode == "full" else "reduced")


def lstsq_model(a, b, cond=None, overwrite_a=False, overwrite_b=False, check_finite=True, lapack_driver=None):
    x, residues, rank, sv = np.linalg.lstsq(a, b, rcond=cond)
    if np.ndim(b) == 1 and np.size(residues) == 1:
        residues = residues[0]  # (SciPy's residue of one right-hand side is a number)
    return x, residues, rank, sv


def pinv_model(a, *, atol=None, rtol=None, return_rank=False, check_finite=True):
    if atol is not None or return_rank:
        _refuse("pinv", "atol= or return_rank=True")
    return np.linalg.pinv(a) if rtol is None else np.linalg.pinv(a, rtol=rtol)


def norm_model(a, ord=None, axis=None, keepdims=False, check_finite=True):
    return np.linalg.norm(a, ord=ord, axis=axis, keepdims=keepdims)


MODELS = {"inv": inv_model, "det": det_model, "solve": solve_model, "eigh": eigh_model, "eigvalsh": eigvalsh_model,
          "svd": svd_model, "svdvals": svdvals_model, "qr": qr_model, "lstsq": lstsq_model, "pinv": pinv_model,
          "norm": norm_model}


# ------------------------------------------------------------------ the rules
def _numbers(v):
    if isinstance(v, (tuple, list)):
        return [p for part in v for p in _numbers(part)]
    return [np.asarray(v)]


def _close(a, b):
    return np.allclose(a, b, rtol=1e-7, atol=1e-10, equal_nan=True)


def _agree(name, y, ym):
    """Compare SciPy's result with the model's; per part of a tuple result, None or the signs s (one per column of U
    or V, one per row of Vh) with SciPy's part = s * the model's: eigenvectors and singular vectors are defined up to
    sign, and SciPy's LAPACK driver may pick the other one.  Anything else that differs is refused."""
    ours, theirs = _numbers(ym), _numbers(y)
    if len(ours) != len(theirs):
        _disagree(name)
    signs = []
    for a, b in zip(ours, theirs):
        if a.shape != b.shape:
            _disagree(name)
        if a.dtype.kind not in "fc" or _close(a, b):
            signs.append(None)
            continue
        found = None
        if name in ("eigh", "svd") and a.ndim == 2 and not np.iscomplexobj(a):
            for axis in (-2, -1):
                s = np.sign(np.sum(a * b, axis=axis, keepdims=True))
                s[s == 0] = 1.0
                if _close(a * s, b):
                    found = s
                    break
        if found is None:
            _disagree(name, np.iscomplexobj(a) or np.iscomplexobj(b))
        signs.append(found)
    return signs


def _disagree(name, complex_data=False):
    if complex_data:  # (eigen- and singular vectors of complex matrices are defined up to a phase, not a sign)
        raise NotImplementedError(f"derivative of scipy.linalg.{name} of complex matrices: NumPy's counterpart gives "
                                  f"another result")
    raise NotImplementedError(f"derivative of scipy.linalg.{name} for these arguments: NumPy's counterpart gives "
                              f"another result (an option it does not follow)")


def _signed(parts, signs):
    return tuple(p if s is None or p is NoTangent or p is None else p * s for p, s in zip(parts, signs))


def _shaped(dy, y, signs):
    """The model's tangent in the form of SciPy's result (a NumPy named result becomes a tuple), signs applied."""
    if isinstance(y, tuple):
        parts = list(dy) if isinstance(dy, (tuple, list)) else [NoTangent] * len(y)
        return _signed(parts, signs) if len(signs) == len(parts) else tuple(parts)
    return dy if signs[0] is None else dy * signs[0]


def model_tangent(name, y, args, dargs, kwargs, dkwargs):
    from ..forward.runtime import fcall

    ym, dy = fcall(MODELS[name], NoTangent, tuple(args), tuple(dargs), kwargs, {k: dkwargs.get(k, NoTangent) for k in kwargs})
    signs = _agree(name, y, ym)
    return NoTangent if dy is NoTangent or dy is None else _shaped(dy, y, signs)


def _jvp(name):
    def jvp(t, y, *args, **kwargs):
        if all(t.d(a) is None for a in (*args, *kwargs.values())):
            return None
        from .. import ops

        names = [z for k, v in kwargs.items() for z in (k, v)]
        dnames = [z for k, v in kwargs.items() for z in (k, t.dz(v))]
        return t.call(model_tangent, name, y, t.call(ops.tuple_of, *args), t.call(ops.tuple_of, *[t.dz(a) for a in args]),
                      t.call(ops.dict_of, *names), t.call(ops.dict_of, *dnames))

    return jvp


def _rrule(fn, name):
    def rrule(*args, **kwargs):
        from ..reverse.runtime import rcall
        from .call_binding import KwAdj
        from .scipy_stats_wrapped import _as_value

        y = fn(*args, **kwargs)
        ym, pb = rcall(MODELS[name], tuple(args), dict(kwargs))
        signs = _agree(name, y, ym)

        def pullback(g):
            if g is NoTangent or g is None:
                return (NoTangent,) * len(args) + ((KwAdj(),) if kwargs else ())
            if any(s is not None for s in signs):  # (d(s v) = s dv: the adjoint of the model's part is s g)
                g = type(g)(_signed(list(g), signs)) if isinstance(g, tuple) else g * signs[0]
            _, pos, named = pb(g)
            pos = tuple(_as_value(v) for v in pos) + (NoTangent,) * (len(args) - len(pos))
            named = {k: _as_value(v) for k, v in dict(named).items() if v is not NoTangent and v is not None}
            return pos + ((KwAdj(named),) if kwargs else ())

        return y, pullback

    return rrule


def register(registered: dict) -> None:
    """Register the rules (scipy_linalg_rules.register calls this)."""
    import scipy.linalg as la

    from .fingerprints import _fingerprint
    from .registry import _entry, defjvp

    for name in NAMES:
        fn = getattr(la, name, None)
        if fn is None:
            continue
        registered[fn] = f"linalg.{name}"
        defjvp(fn, _jvp(name))
        r = _entry(fn)
        r.user_rrule = _rrule(fn, name)
        r.fingerprint = _fingerprint(r.jvp_template, model_tangent, _rrule, MODELS[name])
