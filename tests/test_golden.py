"""Golden tests: the printed IR and the generated forward module of a few functions.

Run with UPDATE_GOLDEN=1 to rewrite the files after an intended change, and
review the diff like any other code change.
"""
import os

import numpy as np
import pytest

import mooncake_ast as mc
from tests import golden_functions as g

HERE = os.path.join(os.path.dirname(__file__), "golden")
FUNCTIONS = [g.straight_line, g.branches, g.sine_sum, g.while_break, g.fill_array, g.unpack_and_call]


def _compare(name, text):
    path = os.path.join(HERE, name)
    if os.environ.get("UPDATE_GOLDEN"):
        with open(path, "w") as f:
            f.write(text)
    with open(path) as f:
        expected = f.read()
    assert text == expected, f"{name} changed; rerun with UPDATE_GOLDEN=1 if intended"


def _body(source):
    """The module without its first two lines (cache key and digest vary with versions)."""
    return source.split("\n", 2)[2]


@pytest.mark.parametrize("fn", FUNCTIONS, ids=[f.__name__ for f in FUNCTIONS])
def test_ir(fn):
    _compare(f"{fn.__name__}.ir.txt", mc.differentiate(fn).ir())


# Shown as specialised for the argument kinds of a typical call (floats are numbers).
FORWARD_CALLS = {g.straight_line: (1.5, 0.5), g.branches: (0.7,), g.sine_sum: (0.3, 5), g.while_break: (7.0,),
                 g.fill_array: (0.5, 6), g.unpack_and_call: ((0.3, 0.7),)}


@pytest.mark.parametrize("fn", FUNCTIONS, ids=[f.__name__ for f in FUNCTIONS])
def test_forward_source(fn):
    args = FORWARD_CALLS[fn]
    # (a tangent for every float: a None tangent makes a number inactive, and the module shown would be that one)
    mc.jvp(fn, args, tuple(np.ones_like(a) if isinstance(a, np.ndarray) else 1.0 if isinstance(a, float) else None
                           for a in args))
    _compare(f"{fn.__name__}.forward.py.txt", _body(mc.source(fn, "forward")))


# Reverse mode: straight-line code, an if/else, a for loop, a loop with break, a while loop with
# break, and a loop writing into an array.
REVERSE = [g.straight_line, g.branches, g.sine_sum, g.loop_with_break, g.while_with_break, g.fill_array]


# Each is shown as specialised for the argument kinds of a typical call (floats are numbers).
CALLS = {g.straight_line: (1.5, 0.5), g.branches: (0.7,), g.sine_sum: (0.3, 5), g.loop_with_break: (0.3, 4.0),
         g.while_with_break: (1.5,), g.fill_array: (0.5, 6)}


@pytest.mark.parametrize("fn", REVERSE, ids=[f.__name__ for f in REVERSE])
def test_reverse_source(fn):
    mc.grad(fn)(*CALLS[fn])
    _compare(f"{fn.__name__}.reverse.py.txt", _body(mc.source(fn, "reverse")))


# Issue 9: array code, reverse mode specialised on argument types (float arrays of these ranks).
def _arrays():
    r = np.random.default_rng(0)
    return {
        g.mlp_loss: ((r.normal(size=(4, 5)), r.normal(size=5), r.normal(size=(5, 1)), r.normal(size=1),
                      r.normal(size=(3, 4)), r.normal(size=(3, 1))), (0, 1, 2, 3)),
        g.logistic_loss: ((r.normal(size=4), r.normal(size=(6, 4)), (r.random(6) < 0.5) * 1.0), 0),
        g.inplace_recurrence: ((r.normal(size=5),), 0),
        g.euler_lotka_volterra: ((r.normal(size=(3, 3)) * 0.1, r.normal(size=3) * 0.1, r.random(3), 0.01, 4), (0, 1)),
        g.dict_params_loss: (({"W": r.normal(size=(3, 4)), "b": r.normal(size=3)}, r.normal(size=4)), 0),
        g.Affine.loss: ((g.Affine(r.normal(size=(3, 4)), r.normal(size=3)), r.normal(size=4)), 0),
        g.projectile: ((0.0, 1.0, 3.0, 0.05), (0, 1, 2, 3)),  # (a value class's operators: its objects are fields)
    }


TYPED = [g.mlp_loss, g.logistic_loss, g.inplace_recurrence, g.euler_lotka_volterra, g.dict_params_loss, g.Affine.loss,
         g.projectile]


@pytest.mark.parametrize("fn", TYPED, ids=[f.__qualname__ for f in TYPED])
def test_typed_reverse_source(fn):
    args, argnums = _arrays()[fn]
    mc.grad(fn, argnums=argnums)(*args)
    _compare(f"{fn.__qualname__}.reverse.py.txt", _body(mc.source(fn, "reverse")))
