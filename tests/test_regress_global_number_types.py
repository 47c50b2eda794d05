"""Module-level numbers typed in reverse mode (reverse/settle_types._global_number): `t2 * N` with a module-level
float N is plain arithmetic in the pullback (it was the generic `mul_vjp`), derivatives stay right in both modes,
and rebinding the name between calls -- to another number, to a number of another type, to an array -- gives the
derivative for what it holds then (the derivation's key names the number's type: cache_key.environment)."""
from __future__ import annotations

import ast

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.api import _vjp

SCALE = 2.5
POWER = 3
FLAG = True
BUMPS = 0


def scaled_sines(x):
    t2 = np.sin(x)
    return np.sum(t2 * SCALE) + POWER * np.sum(x)


def scalar_mix(x, y):
    return x * SCALE + SCALE ** 2 * y - x / POWER + (x * y if FLAG else y)


def in_a_loop(x):
    s = 0.0
    for k in range(3):
        s = s + SCALE * np.sum(x ** 2) / (k + POWER)
    return s


def _bump():
    global BUMPS
    BUMPS = BUMPS + 1


def bumped_by_a_helper(x):
    global BUMPS
    BUMPS = 1
    a = x * BUMPS
    _bump()
    return a * BUMPS + x * SCALE


CASES = [(scaled_sines, (np.array([0.3, -0.4, 1.2]),)), (scalar_mix, (0.7, -1.1)),
         (in_a_loop, (np.array([0.5, 1.5]),)), (bumped_by_a_helper, (0.8,))]


@pytest.mark.parametrize("f,args", CASES, ids=lambda c: getattr(c, "__name__", None))
def test_derivatives_both_modes(f, args):
    mc.testing.check_derivatives(f, *args)


def _pullback_helpers(f, args) -> list:
    _vjp(f, args, {})
    src = mc.source(f, "reverse")
    return [n.attr for node in ast.parse(src).body
            if isinstance(node, ast.FunctionDef) and node.name.endswith("__pullback")
            for n in ast.walk(node) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "_mc"]


@pytest.mark.parametrize("f,args", CASES[:3], ids=lambda c: getattr(c, "__name__", None))
def test_pullback_plain(f, args):
    helpers = _pullback_helpers(f, args)
    assert not {"mul_vjp", "add_vjp", "number_adjoint", "unbroadcast"} & set(helpers), helpers


@pytest.mark.parametrize("values", [(2.5, 3.0, 4, True, np.array([1.0, 2.0, 3.0]), 1.5),
                                    (np.array([0.5, 1.0, 2.0]), 2.0, np.array([[1.0], [2.0], [3.0]]), -1)])
def test_rebinding_between_calls(values):
    global SCALE
    old = SCALE
    x = np.array([0.3, -0.4, 1.2])

    def fd(f, x, h=1e-6):
        return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(len(x))])

    try:
        for v in values:
            SCALE = v
            np.testing.assert_allclose(mc.grad(scaled_sines)(x), fd(scaled_sines, x), rtol=1e-6, atol=1e-6)
    finally:
        SCALE = old


def test_bumped_global_not_typed():
    # a user function called here rebinds a global: the reads around it keep what the forward pass read
    # (d/dx of x * 1 * 2 + x * SCALE)
    assert mc.grad(bumped_by_a_helper)(0.8) == pytest.approx(2.0 + SCALE, rel=1e-12)
