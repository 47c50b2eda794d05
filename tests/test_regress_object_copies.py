"""copy.copy and copy.deepcopy of instances of the user's classes (a state snapshot, a model copied before an
update), in both modes. They were refused; now fields are followed as `copy` copies them: a shallow copy shares
its mutable fields with the original (an in-place write through either is seen by both), a deep copy makes new
ones whose adjoints go back to the fields they were copied from."""
import copy
import dataclasses

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives


class State:
    def __init__(self, pos, vel):
        self.pos = pos
        self.vel = vel


class Model:
    def __init__(self, W, scale):
        self.W = W
        self.scale = scale
        self.log = []


@dataclasses.dataclass
class Params:
    w: np.ndarray
    b: float


def shallow_numbers(x):
    s = State(x, x * x)
    t = copy.copy(s)
    t.pos = t.pos * 3.0
    return s.pos + t.pos * t.vel


def shallow_shares_arrays(x):
    m = Model(np.array([x, 1.0]), x)
    c = copy.copy(m)
    c.W *= 2.0  # (the same array as m.W)
    c.scale = c.scale + 1.0
    return np.sum(m.W * c.W) * c.scale + m.scale


def deep_arrays(x):
    m = Model(np.array([x, 1.0]), x)
    c = copy.deepcopy(m)
    c.W[0] = c.W[0] * x
    c.log.append(x)
    return np.sum(m.W * c.W) * c.scale + sum(c.log)


def snapshots(x):
    s = State(np.array([x, 0.5]), np.array([1.0, x]))
    history = []
    for _ in range(3):
        s.pos = s.pos + 0.1 * s.vel
        s.vel *= 0.9
        history.append(copy.deepcopy(s))
    return sum(np.sum(h.pos ** 2) + np.sum(h.vel) for h in history)


def nested_objects(x):
    outer = State(State(x, 2.0), np.array([x, x * x]))
    c = copy.deepcopy(outer)
    c.pos.pos = c.pos.pos * x
    return c.pos.pos + outer.pos.pos + np.sum(c.vel * outer.vel)


def dataclass_copy(x):
    p = Params(np.array([x, 2.0]), x * x)
    q = copy.copy(p)
    r = copy.deepcopy(p)
    r.w[1] = x
    return np.sum(q.w * r.w) + q.b * r.b


CASES = [shallow_numbers, shallow_shares_arrays, deep_arrays, snapshots, nested_objects, dataclass_copy]


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_copies_of_objects(fn):
    check_derivatives(fn, 0.7)


class Hooked:
    def __init__(self, v):
        self.v = v

    def __deepcopy__(self, memo):
        return Hooked(self.v * 2.0)


def copy_hook(x):
    return copy.deepcopy(Hooked(x)).v


def test_copy_hooks_refused():
    """A class that decides how it is copied is not guessed at."""
    with pytest.raises(mc.MooncakeError, match="deepcopy"):
        mc.grad(copy_hook)(0.7)
    with pytest.raises(mc.MooncakeError, match="deepcopy"):
        mc.jvp(copy_hook, (0.7,), (1.0,))
