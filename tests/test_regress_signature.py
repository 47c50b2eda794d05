"""A called function whose decorator set another `__signature__` (array_api_compat's wrappers, so scipy.signal.windows
.hann): its derivative takes the parameters of its code, not of the signature shown (a KeyError on a keyword-only
default, then a TypeError on the count of arguments)."""
import functools
import inspect

import numpy as np

from mooncake_ast.testing import check_derivatives


def shows_wrapped(f):
    @functools.wraps(f)
    def wrapper(*args, scale=2.0, **kwargs):
        return f(*args, **kwargs) * scale

    wrapper.__signature__ = inspect.signature(f)
    return wrapper


@shows_wrapped
def weighted(x, y=1.0):
    return x * y


def caller(x):
    return weighted(x, 3.0) + weighted(x) + weighted(x, y=x)


def test_a_shown_signature_is_not_the_codes():
    check_derivatives(caller, 0.7)
    check_derivatives(lambda v: np.sum(caller(v)), np.array([0.3, -1.2]))
