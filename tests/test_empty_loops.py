"""Loops of the pullback with nothing left to do go, with the trips the forward pass recorded for them
(reverse/empty_loops.py): grad with respect to x of code whose loops only update another argument."""
import math

import numpy as np
import pytest

import mooncake_ast as mc


def other_arg_loop(x, y):
    for i in range(5):
        y = y * 1.1 + math.sin(y)
    return x * 2.0 + y


def nested_and_while(x, y):
    k = 0
    while y < 3.0 and k < 10:
        for j in range(3):
            y = y + 0.1 * math.cos(y + j)
        k += 1
    return math.sin(x) * 3.0 + y


def mixed(x, y):
    """One loop with work for x, one without."""
    s = 0.0
    for i in range(4):
        s = s + x * i
    for i in range(4):
        y = y * 0.5
    return s + y


def _fd(f, x, y, h=1e-6):
    return (f(x + h, y) - f(x - h, y)) / (2 * h)


@pytest.mark.parametrize("f", [other_arg_loop, nested_and_while, mixed], ids=lambda f: f.__name__)
def test_gradient_in_x(f):
    g = mc.grad(f)(0.3, 0.5)
    assert np.isclose(g, _fd(f, 0.3, 0.5), rtol=1e-6, atol=1e-8)
    gx, gy = mc.grad(f, argnums=(0, 1))(0.3, 0.5)  # (the loops do work for y: a derivative of its own)
    assert np.isclose(gx, g) and np.isclose(gy, (f(0.3, 0.5 + 1e-6) - f(0.3, 0.5 - 1e-6)) / 2e-6, rtol=1e-5)


def test_the_empty_loop_and_its_record_go():
    mc.grad(other_arg_loop)(0.3, 0.5)
    src = mc.source(other_arg_loop, "reverse")
    pullback = src[src.index("def other_arg_loop__pullback("):].split("\ndef ")[0]
    assert "for " not in pullback and "ranges" not in src, src


def test_a_loop_with_work_stays():
    mc.grad(mixed)(0.3, 0.5)
    src = mc.source(mixed, "reverse")
    pullback = src[src.index("def mixed__pullback("):].split("\ndef ")[0]
    assert pullback.count("for ") == 1, pullback
