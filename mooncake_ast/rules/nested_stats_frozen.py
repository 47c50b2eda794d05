"""Frozen scipy.stats distributions differentiated twice: `d = st.norm(mu, s); d.logpdf(x)` (issue 10).

At first order `st.norm(mu, s)` and the frozen object's methods run hand-written rules, which have no derivative of
their own.  In code differentiated again, the call that freezes a distribution becomes a call of a plain function
here, `frozen_norm(loc=0.0, scale=1.0)`, which makes a FrozenModel: a Python object holding the parameters as fields,
whose methods call the plain models of nested_stats.py.  Forward code of forward code then sees an ordinary object
(its fields' tangents are the parameters'), and keywords (`st.norm(loc=m, scale=s)`) name the function's positional
parameters as for a model.

Each method call is compared with SciPy's frozen distribution at its arguments (`check`, api_rules._plan); where they
differ (outside the support) the call is refused by name, as nested_stats.model_for refuses.  A method or attribute
without a model (`d.mean()`, `d.rvs()`, `d.args`) is refused by name, never run without its derivative.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from . import nested_stats as _m


class FrozenModel:
    """A frozen distribution in code differentiated twice: its parameters as fields (`shapes` a tuple)."""

    name = ""
    methods: tuple = ()

    def __init__(self, shapes, loc, scale):
        self.shapes = shapes
        self.loc = loc
        self.scale = scale

    def __getattr__(self, attr: str) -> Any:
        from .forward_code_rules import NestingError

        if attr.startswith("_"):  # (the library's own probes, `__deepcopy__`, `_fields`: plain AttributeErrors)
            raise AttributeError(attr)
        raise NestingError(f"nested derivative: .{attr} of a frozen scipy.stats.{self.name} distribution is not "
                           f"supported at second order (supported: {', '.join(self.methods)}); call "
                           f"scipy.stats.{self.name}.{attr}(...) with the parameters instead")

    def check(self, method: str, args: tuple) -> None:
        """Refuse where the model's value at args differs from SciPy's (nested_stats.model_for's test)."""
        import scipy.stats as st

        from .forward_code_rules import NestingError

        with np.errstate(all="ignore"):
            want = getattr(getattr(st, self.name)(*self.shapes, loc=self.loc, scale=self.scale), method)(*args)
            got = getattr(self, method)(*args)
        if np.shape(want) != np.shape(got) or not np.allclose(got, want, rtol=1e-9, atol=1e-12, equal_nan=False):
            raise NestingError(f"nested derivative of a frozen scipy.stats.{self.name} distribution's {method}: its "
                               f"second derivative follows a model of the function, which differs from SciPy's value "
                               f"at these arguments (outside the support, an infinite or nan value); keep the "
                               f"arguments inside the distribution's support")


class FrozenNorm(FrozenModel):
    name = "norm"
    methods = ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")

    def logpdf(self, x):
        return _m.norm_logpdf(x, self.loc, self.scale)

    def pdf(self, x):
        return _m.norm_pdf(x, self.loc, self.scale)

    def cdf(self, x):
        return _m.norm_cdf(x, self.loc, self.scale)

    def logcdf(self, x):
        return _m.norm_logcdf(x, self.loc, self.scale)

    def sf(self, x):
        return _m.norm_sf(x, self.loc, self.scale)

    def logsf(self, x):
        return _m.norm_logsf(x, self.loc, self.scale)


class FrozenT(FrozenModel):
    name = "t"
    methods = ("logpdf", "pdf")

    def logpdf(self, x):
        return _m.t_logpdf(x, self.shapes[0], self.loc, self.scale)

    def pdf(self, x):
        return _m.t_pdf(x, self.shapes[0], self.loc, self.scale)


class FrozenCauchy(FrozenModel):
    name = "cauchy"
    methods = ("logpdf", "pdf")

    def logpdf(self, x):
        return _m.cauchy_logpdf(x, self.loc, self.scale)

    def pdf(self, x):
        return _m.cauchy_pdf(x, self.loc, self.scale)


class FrozenLaplace(FrozenModel):
    name = "laplace"
    methods = ("logpdf",)

    def logpdf(self, x):
        return _m.laplace_logpdf(x, self.loc, self.scale)


class FrozenLogistic(FrozenModel):
    name = "logistic"
    methods = ("logpdf",)

    def logpdf(self, x):
        return _m.logistic_logpdf(x, self.loc, self.scale)


class FrozenGamma(FrozenModel):
    name = "gamma"
    methods = ("logpdf",)

    def logpdf(self, x):
        return _m.gamma_logpdf(x, self.shapes[0], self.loc, self.scale)


class FrozenExpon(FrozenModel):
    name = "expon"
    methods = ("logpdf",)

    def logpdf(self, x):
        return _m.expon_logpdf(x, self.loc, self.scale)


# ---------------------------------------------------------------- the calls that freeze (planned as plain functions)


def frozen_norm(loc=0.0, scale=1.0):
    return FrozenNorm((), loc, scale)


def frozen_t(df, loc=0.0, scale=1.0):
    return FrozenT((df,), loc, scale)


def frozen_cauchy(loc=0.0, scale=1.0):
    return FrozenCauchy((), loc, scale)


def frozen_laplace(loc=0.0, scale=1.0):
    return FrozenLaplace((), loc, scale)


def frozen_logistic(loc=0.0, scale=1.0):
    return FrozenLogistic((), loc, scale)


def frozen_gamma(a, loc=0.0, scale=1.0):
    return FrozenGamma((a,), loc, scale)


def frozen_expon(loc=0.0, scale=1.0):
    return FrozenExpon((), loc, scale)


_MAKERS = {"norm": frozen_norm, "t": frozen_t, "cauchy": frozen_cauchy, "laplace": frozen_laplace,
           "logistic": frozen_logistic, "gamma": frozen_gamma, "expon": frozen_expon}
CLASSES = (FrozenNorm, FrozenT, FrozenCauchy, FrozenLaplace, FrozenLogistic, FrozenGamma, FrozenExpon)


def maker_for(f: Any, args: tuple, kwargs: Any) -> Optional[Any]:
    """The plain function standing for `f(*args, **kwargs)` where f is a scipy.stats distribution (the module's own
    object, `st.norm`) or its `freeze` method, called to make a frozen distribution; None for any other call.  Raises
    NestingError for a distribution without models, or arguments its maker does not take."""
    from .forward_code_rules import NestingError

    dist = f
    if getattr(f, "__name__", None) == "freeze" and getattr(f, "__self__", None) is not None:
        dist = f.__self__
    if not type(dist).__module__.startswith("scipy.stats") or not hasattr(dist, "freeze") or \
            not (dist is f or dist.freeze == f):
        return None
    try:
        import scipy.stats as st
    except ImportError:  # pragma: no cover
        return None
    name = getattr(dist, "name", None)
    if not isinstance(name, str) or getattr(st, name, None) is not dist:
        return None
    maker = _MAKERS.get(name)
    if maker is None:
        raise NestingError(f"nested derivative: a frozen scipy.stats.{name} distribution is not supported at second "
                           f"order (supported: {', '.join(_MAKERS)}); call scipy.stats.{name}'s methods with the "
                           f"parameters instead")
    code = maker.__code__
    params = code.co_varnames[:code.co_argcount]
    kw = dict(kwargs or {})
    if len(args) > len(params) or any(k not in params[len(args):] for k in kw) or \
            len(args) + len(kw) < code.co_argcount - len(maker.__defaults__ or ()):
        raise NestingError(f"nested derivative: freezing scipy.stats.{name} with arguments {len(args)} and "
                           f"{tuple(kw)} is not supported at second order (supported: {', '.join(params)})")
    return maker
