"""An array written from a view of itself with other steps (`b[::2] = b[:3]`) is refused in both modes
(frontend/overlapping_writes.py): NumPy then writes element by element, reading elements it has already written,
and reverse mode's gradient was that of the copy semantics (found by hunt's random family `fancy`).  Shifts and
reversals, which NumPy makes as if copied, and element copies stay differentiated."""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives

A = np.array([0.3, -0.45, 0.8])
W = np.arange(6.0)


def every_other_from_the_front(x, a):
    b = np.concatenate([a, a]) * x
    b[::2] = b[:3]
    return np.sum(b * W)


def through_a_named_view(x, a):
    b = np.concatenate([a, a]) * x
    v = b[:3]
    b[::2] = v
    return np.sum(b * W)


def step_not_literal(x, a):
    b = np.concatenate([a, a]) * x
    k = 2
    b[::k] = b[:3]
    return np.sum(b * W)


REFUSED = [every_other_from_the_front, through_a_named_view, step_not_literal]


def shift_right(x, a):
    b = np.concatenate([a, a]) * x
    b[1:] = b[:-1]
    return np.sum(b * W)


def shift_left(x, a):
    b = np.concatenate([a, a]) * x
    b[:-1] = b[1:]
    return np.sum(b * W)


def reversed_into_itself(x, a):
    b = np.concatenate([a, a]) * x
    b[::-1] = b[::1]
    return np.sum(b * W)


def element_recurrence(x, a):
    b = np.concatenate([a, a]) * x
    for i in range(1, 6):
        b[i] = 0.5 * b[i - 1] + b[i]
    return np.sum(b * W)


def copied_value(x, a):
    b = np.concatenate([a, a]) * x
    b[::2] = b[:3].copy()
    return np.sum(b * W)


def same_steps(x, a):
    b = np.concatenate([a, a]) * x
    b[2::2] = b[1:5:2]
    return np.sum(b * W)


DIFFERENTIATED = [shift_right, shift_left, reversed_into_itself, element_recurrence, copied_value, same_steps]


@pytest.mark.parametrize("f", REFUSED, ids=lambda f: f.__name__)
@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_a_write_from_an_overlapping_view_with_other_steps_is_refused(f, mode):
    with pytest.raises(mc.MooncakeError, match="view of the array it is written into"):
        if mode == "reverse":
            mc.grad(f)(0.7, A.copy())
        else:
            mc.jvp(f, (0.7, A.copy()), (1.0, np.zeros(3)))


@pytest.mark.parametrize("f", DIFFERENTIATED, ids=lambda f: f.__name__)
def test_shifts_reversals_and_copies_are_differentiated(f):
    check_derivatives(f, 0.7, A.copy())
