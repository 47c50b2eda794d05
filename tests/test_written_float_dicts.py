"""Dict parameters of floats the function writes (`d[k] = v`): a plain `d_bar` dict in the pullback.

reverse/local_dicts.py keeps such a parameter typed while every write puts a float in by a key the pullback
knows is there (a key of the dict itself, a constant key the call's dict had) or adds once (`d["extra"] = v`,
run exactly once: undone by deleting it).  The pullback starts from the adjoint the caller keeps for the dict
after the call (shadows.claim_float_dict).  Every other write keeps the generic path, which must stay right:
those families are here too.  All are checked in both modes by finite differences.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import mooncake_ast as mc


def decay_all(params, x):
    for key in params:
        params[key] = params[key] * 0.9 + 0.1 * x
    params["extra"] = params["a"] * params["b"]
    return params["a"] * x + params["b"] * x ** 2 + params["extra"]


def rescale_known(params, s):
    params["a"] = params["a"] * s
    params["b"] = math.tanh(params["b"] + params["a"])
    return sum(params.values()) + params["a"] * params["b"]


def items_after_writes(params, s):
    for k in params:
        params[k] = params[k] * s
    total = 0.0
    for k, v in params.items():
        total = total + v * v
    return total + len(params) * s


def new_key_in_loop(params, s):
    # (the same new key written in every trip: the generic path)
    for i in range(3):
        params["acc"] = params.get("acc", 0.0) + params["a"] * s
    return params["acc"] * params["b"]


def new_key_in_branch(params, s):
    if s > 0.0:
        params["extra"] = params["a"] * s  # (not run on every call: the generic path)
    return params["a"] + params.get("extra", 0.0) * params["b"]


def array_written(params, s):
    params["a"] = np.array([params["a"], s])  # (not a float: the parameter is untyped, generic path)
    return float(np.sum(params["a"] ** 2)) + params["b"] * s


def constant_written(params, s):
    y = params["a"] * s
    params["a"] = 0.5
    return y + params["a"] * params["b"] * s


_STEPS = {"decay": decay_all, "rescale": rescale_known, "items": items_after_writes}


def dispatched_callers(params, s):
    # (called through a dict, so not put in line: each callee's pullback claims the caller's adjoint of params)
    a = _STEPS["decay"](params, s)
    b = _STEPS["rescale"](params, s)
    c = _STEPS["items"](params, s)
    return a + b * params["a"] + c * params["extra"] + params["b"]


def caller_in_line(params, s):
    a = rescale_known(params, s)
    return a * params["b"] + params["a"]


_FAMILIES = [decay_all, rescale_known, items_after_writes, new_key_in_loop, new_key_in_branch, array_written,
             constant_written, dispatched_callers, caller_in_line]
_DICTS = [{"a": 0.5, "b": -1.2}, {"a": -0.3, "b": 0.8, "c": 1.7}]


@pytest.mark.parametrize("d", _DICTS, ids=["ab", "abc"])
@pytest.mark.parametrize("fn", _FAMILIES, ids=[f.__name__ for f in _FAMILIES])
@pytest.mark.parametrize("scalar", [0.7, -0.35])
def test_both_modes(fn, d, scalar):
    mc.testing.check_derivatives(fn, dict(d), scalar)


def test_pullback_is_plain():
    mc.grad(decay_all)({"a": 0.5, "b": -1.2}, 0.7)
    src = mc.source(decay_all, "reverse")
    start = src.index("def decay_all__pullback")
    end = src.find("def decay_all__forward_tape")
    pullback = src[start:end if end > 0 else None]
    assert "params_bar = _mc.claim_float_dict(params)" in pullback and "_mc.give_back(params, params_bar)" in pullback
    assert pullback.count("_mc.") == 2, pullback
    assert "del params['extra']" in pullback


def test_gradient_keys_are_the_entry_keys():
    g = mc.grad(decay_all)({"a": 0.5, "b": -1.2}, 0.7)
    assert set(g) == {"a", "b"}
    d = {"a": 0.5, "b": -1.2}
    mc.grad(decay_all)(d, 0.7)
    assert set(d) == {"a", "b", "extra"}  # (the caller's dict as the plain call leaves it)
