"""Defs inside local functions (`def outer(t): def inner(u): ...`, a decorator made in the function) are put in line
(reverse/inline.py hands the inner defs the function object the caller made), so their reverse modules are plain
code: no run-time helper in the pullback, as a person writes it.  Both modes against finite differences, the
pullbacks pinned by golden files, and the second order (re-differentiating the generated code) still right."""
import numpy as np
import pytest

import mooncake_ast as mc
from tests import closure_functions as c
from tests.test_golden import _body, _compare


def _calls():
    r = np.random.default_rng(7)
    return {
        c.two_level: (0.3, 0.7),
        c.two_level_arrays: (0.5 * r.normal(size=(3, 3)), r.normal(size=3)),
        c.nested_in_loop: (0.4, 3),
        c.lambda_in_local_def: (0.6,),
        c.decorated_inside: (0.5,),
        c.three_levels: (0.3, -0.8),
        c.outer_called_twice_arrays: (r.normal(size=4), r.normal(size=4)),
        c.factory_in_function: (0.3, 0.8),
        c.inner_escapes: ([0.3, 1.2, -0.4], 0.7),
        c.recursive_outer: (0.4, 3),  # (recursive through its own cell: still a call, checked for its values)
    }


FUNCTIONS = list(_calls())
PLAIN = [fn for fn in FUNCTIONS if fn is not c.recursive_outer]
IDS = [f.__name__ for f in FUNCTIONS]


def _wrt(args):
    return tuple(i for i, a in enumerate(args) if not isinstance(a, int))


def _pullback(source, name):
    return source.split(f"def {name}__pullback(", 1)[1].split("\n\n\n", 1)[0]


@pytest.mark.parametrize("fn", FUNCTIONS, ids=IDS)
def test_nested_defs_derivatives(fn):
    mc.testing.check_derivatives(fn, *_calls()[fn])


@pytest.mark.parametrize("fn", PLAIN, ids=[fn.__name__ for fn in PLAIN])
def test_nested_defs_pullback_is_plain(fn):
    args = _calls()[fn]
    mc.grad(fn, argnums=_wrt(args))(*args)
    pullback = _pullback(mc.source(fn, "reverse"), fn.__name__)
    assert "_mc." not in pullback, pullback


@pytest.mark.parametrize("fn", [c.two_level, c.two_level_arrays, c.decorated_inside],
                         ids=["two_level", "two_level_arrays", "decorated_inside"])
def test_nested_defs_golden(fn):
    args = _calls()[fn]
    mc.grad(fn, argnums=_wrt(args))(*args)
    _compare(f"{fn.__name__}.reverse.py.txt", _body(mc.source(fn, "reverse")))


@pytest.mark.parametrize("fn", FUNCTIONS, ids=IDS)
def test_nested_defs_second_order(fn):
    """jvp of the gradient (forward over the generated reverse code) against central differences of the gradient."""
    args = _calls()[fn]
    k = max(i for i, a in enumerate(args) if isinstance(a, (float, np.ndarray)))
    r = np.random.default_rng(1)
    x = args[k]
    dx = r.normal(size=np.shape(x)) if isinstance(x, np.ndarray) else 1.0
    grad = mc.grad(fn, argnums=k)

    def g(xk):
        return grad(*args[:k], xk, *args[k + 1:])

    _, hv = mc.jvp(g, (x,), (dx,))
    eps = 1e-5
    fd = (g(x + eps * dx) - g(x - eps * dx)) / (2 * eps)
    np.testing.assert_allclose(hv, fd, rtol=1e-5, atol=1e-6)
