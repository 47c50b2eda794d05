"""numpy.random Generator draws with float parameters, differentiated twice (`rng.uniform(-1.0, 1.0, size=3)`).

A draw's forward derivative is a hand-written rule (its location-scale form), which has no derivative of its own;
a draw given only integers and shapes is a constant at every order (api_rules._constant_call), but its float
parameters may be differentiated by an outer derivative (`rng.normal(mu, s)` with mu from x).  Here the draws of a
location-scale family have plain models, `low + (high - low) * rng.random(shape)`, whose only draw takes a shape
(a constant), so every order sees ordinary arithmetic in the parameters; keywords become the model's positional
parameters (nested_fcall_rules), so their adjoints travel as arguments'.

Each model is checked on every call against the Generator's own draw from the same state (then restored): a
different value (another NumPy, another family member) is refused by name, never differentiated.
"""
from __future__ import annotations

import types
from typing import Any, Optional

import numpy as np


def _shape(size, a, b):
    """The shape of the draw: size, else the parameters' broadcast shape."""
    if size is None:
        return np.broadcast_shapes(np.shape(a), np.shape(b))
    return size


def generator_uniform(rng, low=0.0, high=1.0, size=None):
    return low + (high - low) * rng.random(_shape(size, low, high))


def generator_normal(rng, loc=0.0, scale=1.0, size=None):
    return loc + scale * rng.standard_normal(_shape(size, loc, scale))


def generator_exponential(rng, scale=1.0, size=None):
    return scale * rng.standard_exponential(_shape(size, scale, scale))


def generator_permutation(rng, x, axis=0):
    """`rng.permutation(x)` of an array: the rows of x at a permutation of their indices, drawn from the same state
    (checked against the draw's own value below): linear in x at every order."""
    return np.take(x, rng.permutation(np.shape(x)[axis]), axis=axis)


def generator_choice(rng, a, size=None, replace=True, p=None, axis=0, shuffle=True):
    """`rng.choice(a, ...)` of an array: the rows of a at indices drawn from the same state (checked below)."""
    return np.take(a, rng.choice(np.shape(a)[axis], size, replace, p, 0, shuffle), axis=axis)


# (only families with a standard draw that takes a shape alone: laplace's or gumbel's standard draw is the family's
# own method with float parameters, which would come back here; and permutations and choices of an array, whose
# index draws take an int)
_MODELS = {"uniform": generator_uniform, "normal": generator_normal, "exponential": generator_exponential,
           "permutation": generator_permutation, "choice": generator_choice}


def _plain_float(v: Any) -> bool:
    return isinstance(v, float) or (isinstance(v, np.ndarray) and v.dtype.kind == "f")


def model_for(f: Any, args: tuple, kwargs: Any) -> Optional[Any]:
    """The model of `f(*args, **kwargs)` for a location-scale draw of a numpy.random.Generator with a float
    parameter, bound to the generator (a method: its keywords map like a plain method's), or None."""
    rng = getattr(f, "__self__", None)
    if type(rng) is not np.random.Generator:
        return None
    model = _MODELS.get(getattr(f, "__name__", ""))
    if model is None:
        return None
    kw = dict(kwargs or {})
    params = [*args, *(v for k, v in kw.items() if k != "size")]
    if not any(_plain_float(p) for p in params):
        return None  # (integers and shapes only: a constant, api_rules._constant_call)
    from .forward_code_rules import NestingError

    code = model.__code__
    names = code.co_varnames[1:code.co_argcount]
    if len(args) > len(names) or any(k not in names[len(args):] for k in kw):
        raise NestingError(f"nested derivative of Generator.{f.__name__}: arguments {tuple(kw) or len(args)} are not "
                           f"supported at second order (supported: {', '.join(names)})")
    state = rng.bit_generator.state
    try:
        want = f(*args, **kw)
        after = rng.bit_generator.state
        rng.bit_generator.state = state
        got = model(rng, *args, **kw)
        same = np.shape(want) == np.shape(got) and np.array_equal(want, got) and rng.bit_generator.state == after
    finally:
        rng.bit_generator.state = state
    if not same:
        raise NestingError(f"nested derivative of Generator.{f.__name__}: its second derivative follows a model of "
                           f"the draw, which differs from NumPy's draw here; draw standard values outside the "
                           f"differentiated function and scale them there")
    return types.MethodType(model, rng)
