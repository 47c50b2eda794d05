"""mc.grad of a function called without its trailing number defaults takes the short path with the defaults
filled in (reverse/fastpath.with_number_defaults), and stays right when the defaults are reassigned, when one is
not a number, and with argnums."""
import numpy as np
import pytest

import mooncake_ast as mc
from tests import fast_default_cases as c


def test_defaults_left_out():
    assert mc.grad(c.scaled)(0.5) == pytest.approx(2.0 * (1 + 2 * 0.5 + 3 * 0.25))
    assert mc.grad(c.scaled)(0.5, 1.0) == pytest.approx(1 + 2 * 0.5 + 3 * 0.25)
    w, x = np.array([0.3, -0.2]), np.array([1.0, 2.0])
    expected = x * (1 - np.tanh(w * x) ** 2) + 0.2 * w
    np.testing.assert_allclose(mc.grad(c.with_array)(w, x), expected)


def test_reassigned_defaults_are_read_again():
    g = mc.grad(c.scaled)
    before = g(0.5)
    old = c.scaled.__defaults__
    try:
        c.scaled.__defaults__ = (3.0, 2)
        assert g(0.5) == pytest.approx(3.0 * (1 + 2 * 0.5))
        c.scaled.__defaults__ = (np.float32(3.0), 2)  # (not a Python number: the long way)
        assert g(0.5) == pytest.approx(3.0 * (1 + 2 * 0.5))
    finally:
        c.scaled.__defaults__ = old
    assert g(0.5) == before


def test_none_default_takes_the_long_way():
    assert mc.grad(c.none_default)(0.5) == pytest.approx(1.0)
    assert mc.grad(c.none_default)(0.5, 3.0) == pytest.approx(3.0)
