"""Issue 9: reverse mode specialised on types.  Every function of tests/typed_cases.py, over argument
shapes that exercise broadcasting (size-one axes, missing axes, scalars), against forward mode and finite
differences (check_derivatives), and the generated pullbacks read like hand-written NumPy."""
import re

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives
from tests import typed_cases as t


def rng(seed):
    return np.random.default_rng(seed)


def arr(*shape, seed=0, scale=1.0, shift=0.0):
    return rng(seed).normal(size=shape) * scale + shift


PAIRS = [((3, 4), (4,)), ((3, 1), (1, 4)), ((3, 4), (3, 1)), ((1,), (5,)), ((2, 3, 4), (3, 1)), ((4,), (1,)),
         ((3, 4), (3, 4)), ((2, 1, 3), (4, 1))]
BINARY = [t.add_sin, t.sub_mul, t.div_exp, t.powers]


@pytest.mark.parametrize("fn", BINARY, ids=[f.__name__ for f in BINARY])
@pytest.mark.parametrize("shapes", PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_broadcasting_both_ways(fn, shapes):
    a, b = arr(*shapes[0], seed=1), arr(*shapes[1], seed=2)
    check_derivatives(fn, a, b)
    check_derivatives(fn, b, a)


@pytest.mark.parametrize("shape", [(4,), (3, 1), (1, 5), (2, 3)])
def test_scalar_and_array(shape):
    check_derivatives(t.scalar_and_array, arr(*shape, seed=3), 0.7)


CASES = {
    "reductions": (t.reductions, lambda: (arr(3, 4, seed=4),)),
    "reductions 1xn": (t.reductions, lambda: (arr(1, 4, seed=5),)),
    "methods": (t.methods, lambda: (arr(3, 4, seed=6), arr(4, seed=7))),
    "matmuls": (t.matmuls, lambda: (arr(3, 4, seed=8), arr(4, seed=9))),
    "matmuls 1x1": (t.matmuls, lambda: (arr(1, 1, seed=8), arr(1, seed=9))),
    "two layers": (t.two_layers, lambda: (arr(5, 6, seed=10, scale=0.5), arr(6, seed=11), arr(6, 1, seed=12),
                                          arr(1, seed=13), arr(7, 5, seed=14))),
    "two layers batch 1": (t.two_layers, lambda: (arr(5, 6, seed=10, scale=0.5), arr(1, 6, seed=11), arr(6, 2, seed=12),
                                                  arr(2, seed=13), arr(1, 5, seed=14))),
    "recurrence": (t.recurrence, lambda: (arr(7, seed=15),)),
    "recurrence of one": (t.recurrence, lambda: (arr(1, seed=15),)),
    "slices": (t.slices, lambda: (arr(6, seed=16),)),
    "slices of two": (t.slices, lambda: (arr(2, seed=16),)),
    "overlapping copy": (t.overlapping_copy, lambda: (arr(5, seed=17),)),
    "scalar into slice": (t.scalar_into_slice, lambda: (arr(6, seed=18),)),
    "matrix entries": (t.matrix_entries, lambda: (arr(3, 4, seed=19), arr(3, seed=20))),
    "write after read": (t.write_after_read, lambda: (arr(4, seed=21),)),
    "indexed and whole": (t.indexed_and_whole, lambda: (arr(5, seed=22),)),
    "fill array": (t.fill_array, lambda: (0.6, 6)),
    "euler": (t.euler, lambda: (arr(4, 4, seed=23, scale=0.1), arr(4, seed=24, scale=0.1), arr(4, seed=25, shift=1.0),
                                0.05, 12)),
    "sometimes used": (t.sometimes_used, lambda: (arr(4, seed=26), 7)),
    "early exit": (t.early_exit, lambda: (arr(3, seed=27, scale=0.3), 6)),
    "early exit taken": (t.early_exit, lambda: (arr(3, seed=27, scale=0.3, shift=20.0), 6)),
    "rosenbrock": (t.rosenbrock, lambda: (arr(6, seed=30),)),
    "rosenbrock of two": (t.rosenbrock, lambda: (arr(2, seed=31),)),
    "slice against whole": (t.slice_against_whole, lambda: (arr(2, seed=32),)),
    "shifted differences": (t.shifted_differences, lambda: (arr(7, seed=33),)),
    "shifted differences of three": (t.shifted_differences, lambda: (arr(3, seed=33),)),
    "dict layer": (t.dict_layer, lambda: ({"W": arr(3, 4, seed=40), "b": arr(3, seed=41), "scale": 0.7}, arr(4, seed=42))),
    "dict in loop": (t.dict_in_loop, lambda: ({"A": arr(3, 3, seed=43, scale=0.5), "c": arr(3, seed=44)}, arr(3, seed=45), 4)),
    "dict unused key": (t.dict_unused_key, lambda: ({"a": arr(3, seed=46), "z": arr(2, seed=47)}, arr(3, seed=48))),
    "dict written": (t.dict_written, lambda: ({"a": arr(3, seed=49), "b": arr(2, seed=50)}, arr(3, seed=51))),
    "dict item written in place": (t.dict_item_written_in_place, lambda: ({"a": arr(3, seed=52), "b": arr(3, seed=53)},
                                                                          arr(3, seed=54))),
    "dict passed on": (t.dict_passed_on, lambda: ({"a": arr(3, seed=55), "b": arr(3, seed=56)}, arr(3, seed=57))),
    "dict sharing an array": (t.dict_layer, lambda: (lambda W: ({"W": W, "b": W[:, 0], "scale": 0.3}, arr(3, seed=58)))(
        arr(3, 3, seed=59))),
    "loop over len": (t.loop_over_len, lambda: (arr(4, seed=60),)),
    "loop over len of three": (t.loop_over_len, lambda: (arr(3, seed=61),)),
    "conditional array +": (t.conditional_array, lambda: (arr(3, seed=28), 1.0)),
    "conditional array -": (t.conditional_array, lambda: (arr(3, seed=28), -1.0)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_typed_cases(name):
    fn, args = CASES[name]
    check_derivatives(fn, *args())


def test_a_float32_array_is_typed_too():
    x = arr(5, seed=29).astype(np.float32)
    g = mc.grad(t.recurrence)(x)
    ref = mc.grad(t.recurrence)(x.astype(np.float64))
    np.testing.assert_allclose(g, ref, rtol=1e-4, atol=1e-5)


def test_the_same_array_in_two_arguments_keeps_one_adjoint_per_object():
    """Arguments that share memory are not typed (kinds_of): identity-keyed storage adds both positions'
    contributions into the one object, as before."""
    def f(a, b):
        return np.sum(a * b * b)
    x = np.array([1.0, 2.0])
    ga, gb = mc.grad(f, argnums=(0, 1))(x, x)
    np.testing.assert_allclose(ga, 3 * x * x)
    np.testing.assert_allclose(gb, 3 * x * x)
    ga, gb = mc.grad(f, argnums=(0, 1))(x, x.copy())
    np.testing.assert_allclose(ga, x * x)
    np.testing.assert_allclose(gb, 2 * x * x)


def test_a_view_and_its_base_in_two_arguments_are_not_typed():
    def g(a, b):
        a[0] = b[1] * 2.0
        return np.sum(a * b)
    x = np.arange(1.0, 6.0)
    from mooncake_ast.reverse.runtime import kinds_of
    assert kinds_of((x, x[1:])) == ("arr", "arr")
    assert kinds_of((x, x.copy())) == ("arr:f:n", "arr:f:n")
    assert kinds_of((x, [x])) == ("arr", "any")


def _pullback(fn, *args, argnums=0):
    """The generated pullback, less the symbolic zeros returned for arguments not differentiated."""
    mc.grad(fn, argnums=argnums)(*args)
    text = mc.source(fn, "reverse")
    text = text[re.search(r"\ndef \w+__pullback\(", text).start():]  # the pullback alone
    end = text.find("\ndef ", 1)
    return (text if end < 0 else text[:end]).replace("_mc=_mc", "").replace("_mc.NoTangent", "")


def test_mlp_pullback_is_plain_numpy():
    src = _pullback(t.two_layers, arr(5, 6), arr(6), arr(6, 1), arr(1), arr(7, 5), argnums=(0, 1, 2, 3))
    assert "_mc." not in src
    assert ".sum(axis=0)" in src and ".T @ " in src  # (the bias adjoints: the method, as a person writes it)


def test_recurrence_pullback_adds_into_buffers():
    src = _pullback(t.recurrence, arr(6))
    assert "x_bar = np.zeros_like(x)" in src and "x_bar[i] += " in src and "y_bar[i] = 0.0" in src
    assert "_mc." not in src


def test_rosenbrock_pullback_adds_slices_into_one_buffer():
    src = _pullback(t.rosenbrock, arr(8))
    assert "x_bar = np.zeros_like(x)" in src and "x_bar[1:] += " in src and "_mc." not in src


def test_dict_of_arrays_pullback_builds_the_dict():
    src = _pullback(t.dict_layer, {"W": arr(3, 4), "b": arr(3), "scale": 0.7}, arr(4))
    assert "_mc." not in src and "{'W': " in src


def test_len_does_not_keep_an_array_out_of_buffers():
    src = _pullback(t.loop_over_len, arr(5))
    assert "x_bar[i] += " in src and "_mc." not in src


def test_euler_pullback_accumulates_in_place():
    src = _pullback(t.euler, arr(4, 4, scale=0.1), arr(4, scale=0.1), arr(4, shift=1.0), 0.05, 5, argnums=(0, 1))
    assert "A_bar = np.zeros_like(A)" in src and "A_bar += " in src and "np.outer(" in src
    assert "_mc." not in src
