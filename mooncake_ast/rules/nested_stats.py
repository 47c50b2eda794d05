"""scipy.stats densities and distribution functions differentiated twice (Bayesian log-likelihood Hessians).

At first order `st.norm.logpdf(x, loc=m, scale=s)` runs a hand-written rule, which has no derivative of its own, so
forward code that dispatches it (`fcall(st.norm.logpdf, ...)`) could not be differentiated again.  Here each
supported method of a distribution has a plain-NumPy model with SciPy's parameters as positional ones
(`x, *shapes, loc=0.0, scale=1.0`): the nested call becomes a call of the model, whose forward code is generated
like any other function, so every order sees ordinary arithmetic.  Keywords (`loc=`, `df=`) become the model's
positional parameters (nested_fcall_rules: their adjoints and tangents travel as a positional argument's would), so
an outer derivative with respect to a keyword (a mixed partial, `loc` depending on x) is carried, never dropped.

Each model's value is compared with SciPy's on every call; where they differ (an option or a domain the model does
not follow, e.g. x outside a gamma's support) the call is refused by name, never differentiated wrongly.
"""
from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np
from scipy import special as _sp

_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
_LOG_PI = math.log(math.pi)


# ---------------------------------------------------------------- the models (differentiated as plain code)


def norm_logpdf(x, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    return -0.5 * z * z - np.log(scale) - _LOG_SQRT_2PI


def norm_pdf(x, loc=0.0, scale=1.0):
    return np.exp(norm_logpdf(x, loc, scale))


def norm_cdf(x, loc=0.0, scale=1.0):
    return _sp.ndtr((x - loc) / scale)


def norm_logcdf(x, loc=0.0, scale=1.0):
    return _sp.log_ndtr((x - loc) / scale)


def norm_sf(x, loc=0.0, scale=1.0):
    return _sp.ndtr((loc - x) / scale)


def norm_logsf(x, loc=0.0, scale=1.0):
    return _sp.log_ndtr((loc - x) / scale)


def t_logpdf(x, df, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    half = 0.5 * (df + 1.0)
    return _sp.gammaln(half) - _sp.gammaln(0.5 * df) - 0.5 * (np.log(df) + _LOG_PI) - half * np.log1p(z * z / df) \
        - np.log(scale)


def t_pdf(x, df, loc=0.0, scale=1.0):
    return np.exp(t_logpdf(x, df, loc, scale))


def cauchy_logpdf(x, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    return -_LOG_PI - np.log(scale) - np.log1p(z * z)


def cauchy_pdf(x, loc=0.0, scale=1.0):
    return np.exp(cauchy_logpdf(x, loc, scale))


def laplace_logpdf(x, loc=0.0, scale=1.0):
    return -np.abs(x - loc) / scale - np.log(2.0 * scale)


def logistic_logpdf(x, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    return -z - 2.0 * np.log1p(np.exp(-z)) - np.log(scale)


def gamma_logpdf(x, a, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    return (a - 1.0) * np.log(z) - z - _sp.gammaln(a) - np.log(scale)


def expon_logpdf(x, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    return -z - np.log(scale)  # (finite below loc, where SciPy's is -inf: model_for refuses there)


def multivariate_normal_logpdf(x, mean=None, cov=1, allow_singular=False):
    """SciPy's multivariate normal log-density: x of shape (d,) or (n, d); cov a number, a diagonal or a matrix (a
    singular cov, which SciPy allows with allow_singular=True, makes solve raise: never a wrong value)."""
    dev = x if mean is None else x - mean
    d = np.shape(dev)[-1]
    C = cov * np.eye(d) if np.ndim(cov) == 0 else np.diag(cov) if np.ndim(cov) == 1 else cov
    sol = np.linalg.solve(C, np.transpose(dev))
    maha = np.sum(dev * np.transpose(sol), axis=-1)
    logdet = np.linalg.slogdet(C)[1]
    return -0.5 * (d * (2.0 * _LOG_SQRT_2PI) + logdet + maha)


def multivariate_normal_pdf(x, mean=None, cov=1, allow_singular=False):
    return np.exp(multivariate_normal_logpdf(x, mean, cov, allow_singular))


_MODELS = {
    ("norm", "logpdf"): norm_logpdf, ("norm", "pdf"): norm_pdf, ("norm", "cdf"): norm_cdf,
    ("norm", "logcdf"): norm_logcdf, ("norm", "sf"): norm_sf, ("norm", "logsf"): norm_logsf,
    ("t", "logpdf"): t_logpdf, ("t", "pdf"): t_pdf,
    ("cauchy", "logpdf"): cauchy_logpdf, ("cauchy", "pdf"): cauchy_pdf,
    ("laplace", "logpdf"): laplace_logpdf, ("logistic", "logpdf"): logistic_logpdf,
    ("gamma", "logpdf"): gamma_logpdf, ("expon", "logpdf"): expon_logpdf,
    ("multivariate_normal", "logpdf"): multivariate_normal_logpdf,
    ("multivariate_normal", "pdf"): multivariate_normal_pdf,
}


# ---------------------------------------------------------------- which call has a model


def _model(f: Any) -> Optional[Any]:
    owner = getattr(f, "__self__", None)
    func = getattr(f, "__func__", None)
    if owner is None or func is None or not type(owner).__module__.startswith("scipy.stats"):
        return None
    try:
        import scipy.stats as st
    except ImportError:  # pragma: no cover - scipy is installed wherever an rv object exists
        return None
    name = getattr(owner, "name", None)
    if name is None and owner is getattr(st, "multivariate_normal", None):  # (SciPy's multivariate ones have no name)
        name = "multivariate_normal"
    if not isinstance(name, str) or getattr(st, name, None) is not owner:
        return None  # (a frozen distribution, a user's subclass, a distribution made with other defaults)
    return _MODELS.get((name, func.__name__))


def model_for(f: Any, args: tuple, kwargs: Any) -> Optional[Any]:
    """The model standing for the call `f(*args, **kwargs)` of a scipy.stats method (checked against SciPy's value
    at these arguments), or None where f is no such method.  Raises NestingError where a model exists but differs
    (a keyword it does not take, a domain it does not follow)."""
    model = _model(f)
    if model is None:
        return None
    from .forward_code_rules import NestingError

    kw = dict(kwargs or {})
    label = f"scipy.stats.{getattr(f.__self__, 'name', None) or 'multivariate_normal'}.{f.__func__.__name__}"
    code = model.__code__
    params = code.co_varnames[:code.co_argcount]
    if len(args) > len(params) or any(k not in params[len(args):] for k in kw):
        raise NestingError(f"nested derivative of {label}: arguments "
                           f"{tuple(kw) or len(args)} are not supported at second order (supported: {', '.join(params)})")
    with np.errstate(all="ignore"):
        want = f(*args, **kw)
        got = model(*args, **kw)
    if np.shape(want) != np.shape(got) or not np.allclose(got, want, rtol=1e-9, atol=1e-12, equal_nan=False):
        raise NestingError(f"nested derivative of {label}: its second "
                           f"derivative follows a model of the function, which differs from SciPy's value at these "
                           f"arguments (outside the support, an infinite or nan value); keep the arguments inside the "
                           f"distribution's support")
    return model
