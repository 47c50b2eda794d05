"""In-place updates of 0-d arrays followed by item writes, both modes.

reverse/prepare.plain_inplace rewrote `s *= w` on a fresh float array as `s = s * w`; for an array of no axes
that is a NumPy scalar, so a following `s[...] = v` raised TypeError in reverse mode only (found by hunt13).
"""
import numpy as np
import pytest

import mooncake_ast as mc


def zero_d_scaled_then_written(x):
    s = np.zeros(())
    s *= 2.0
    s[...] = x[0] * x[1]
    return float(s)


def zero_d_added_then_item(x):
    s = np.zeros(())
    s += x[0]
    s[()] = s * x[1]
    return float(s) * x[0]


def zero_d_subtracted_then_augmented(x):
    s = np.array(1.5)
    s -= 0.5
    s[...] += x[0] ** 2
    return s * x[1]


def zero_d_in_loop(x):
    s = np.zeros(())
    for v in x:
        s *= 0.5
        s[...] = s + v * v
    return float(s)


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("f", [zero_d_scaled_then_written, zero_d_added_then_item, zero_d_subtracted_then_augmented,
                               zero_d_in_loop], ids=lambda f: f.__name__)
def test_zero_d_inplace_then_item_write(f, mode):
    mc.testing.check_derivatives(f, np.array([0.3, -0.7, 0.2]), modes=(mode,))
