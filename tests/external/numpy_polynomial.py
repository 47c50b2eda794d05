"""Pure-Python polynomial evaluators from NumPy 2.x (numpy/numpy, BSD-3-Clause).

Copied as-is from the installed numpy (2.4) sources, docstrings dropped.
"""
import numpy as np
import numpy as NX
from numpy import poly1d

from tests.external import Case


# Origin: numpy/numpy, numpy/polynomial/chebyshev.py, chebval (BSD-3-Clause)
def chebval(x, c, tensor=True):
    c = np.array(c, ndmin=1, copy=True)
    if c.dtype.char in '?bBhHiIlLqQpP':
        c = c.astype(np.double)
    if isinstance(x, (tuple, list)):
        x = np.asarray(x)
    if isinstance(x, np.ndarray) and tensor:
        c = c.reshape(c.shape + (1,) * x.ndim)

    if len(c) == 1:
        c0 = c[0]
        c1 = 0
    elif len(c) == 2:
        c0 = c[0]
        c1 = c[1]
    else:
        x2 = 2 * x
        c0 = c[-2]
        c1 = c[-1]
        for i in range(3, len(c) + 1):
            tmp = c0
            c0 = c[-i] - c1
            c1 = tmp + c1 * x2
    return c0 + c1 * x


# Origin: numpy/numpy, numpy/polynomial/hermite.py, hermval (BSD-3-Clause)
def hermval(x, c, tensor=True):
    c = np.array(c, ndmin=1, copy=None)
    if c.dtype.char in '?bBhHiIlLqQpP':
        c = c.astype(np.double)
    if isinstance(x, (tuple, list)):
        x = np.asarray(x)
    if isinstance(x, np.ndarray) and tensor:
        c = c.reshape(c.shape + (1,) * x.ndim)

    x2 = x * 2
    if len(c) == 1:
        c0 = c[0]
        c1 = 0
    elif len(c) == 2:
        c0 = c[0]
        c1 = c[1]
    else:
        nd = len(c)
        c0 = c[-2]
        c1 = c[-1]
        for i in range(3, len(c) + 1):
            tmp = c0
            nd = nd - 1
            c0 = c[-i] - c1 * (2 * (nd - 1))
            c1 = tmp + c1 * x2
    return c0 + c1 * x2


# Origin: numpy/numpy, numpy/polynomial/legendre.py, legval (BSD-3-Clause)
def legval(x, c, tensor=True):
    c = np.array(c, ndmin=1, copy=None)
    if c.dtype.char in '?bBhHiIlLqQpP':
        c = c.astype(np.double)
    if isinstance(x, (tuple, list)):
        x = np.asarray(x)
    if isinstance(x, np.ndarray) and tensor:
        c = c.reshape(c.shape + (1,) * x.ndim)

    if len(c) == 1:
        c0 = c[0]
        c1 = 0
    elif len(c) == 2:
        c0 = c[0]
        c1 = c[1]
    else:
        nd = len(c)
        c0 = c[-2]
        c1 = c[-1]
        for i in range(3, len(c) + 1):
            tmp = c0
            nd = nd - 1
            c0 = c[-i] - c1 * ((nd - 1) / nd)
            c1 = tmp + c1 * x * ((2 * nd - 1) / nd)
    return c0 + c1 * x


# Origin: numpy/numpy, numpy/polynomial/polynomial.py, polyval (BSD-3-Clause)
def polyval(x, c, tensor=True):
    c = np.array(c, ndmin=1, copy=None)
    if c.dtype.char in '?bBhHiIlLqQpP':
        # astype fails with NA
        c = c + 0.0
    if isinstance(x, (tuple, list)):
        x = np.asarray(x)
    if isinstance(x, np.ndarray) and tensor:
        c = c.reshape(c.shape + (1,) * x.ndim)

    c0 = c[-1] + x * 0
    for i in range(2, len(c) + 1):
        c0 = c[-i] + c0 * x
    return c0


# Origin: numpy/numpy, numpy/lib/_polynomial_impl.py, polyval (BSD-3-Clause); edits: renamed
# to lib_polyval (clash with the function above), `numpy._core.numeric as NX` -> `numpy as NX`.
def lib_polyval(p, x):
    p = NX.asarray(p)
    if isinstance(x, poly1d):
        y = 0
    else:
        x = NX.asanyarray(x)
        y = NX.zeros_like(x)
    for pv in p:
        y = y * x + pv
    return y


def _r(seed):
    return np.random.default_rng(seed)


_T = ("numpy", "polynomial")
CASES = [
    Case(chebval, lambda: (0.3, _r(100).normal(size=5)), tags=_T + ("clenshaw", "scalar_x")),
    Case(hermval, lambda: (_r(101).uniform(-1, 1, 4), _r(102).normal(size=4)), tags=_T + ("clenshaw", "reshape")),
    Case(legval, lambda: (_r(103).uniform(-1, 1, 3), _r(104).normal(size=6)), tags=_T + ("clenshaw", "reshape")),
    Case(polyval, lambda: (0.7, [float(v) for v in _r(105).normal(size=5)]), tags=_T + ("horner", "list_to_array")),
    Case(lib_polyval, lambda: (_r(106).normal(size=4), _r(107).uniform(-1, 1, 3)), tags=_T + ("horner", "zeros_like")),
]
