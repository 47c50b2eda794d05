"""`global` writes inside differentiated functions (issue 12; frontend/global_writes.py, global_ops.py).

* the plain call's effect on the module happens, in both modes, once per call (counters, caches, arrays);
* a value the function writes and then reads back carries its derivative (floats, arrays, lists; written on
  some paths only; in loops; rebound by a call in between);
* a value that can carry a derivative, written by differentiated code and read by another call in the same
  differentiation (a helper's write read by its caller, a function's write read by its next call, `mod.N`
  from another module) is refused by name; read by a later, separate differentiation it is a constant.
"""
import importlib
import sys

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.errors import UnsupportedDerivativeError
from mooncake_ast.testing import check_derivatives

COUNT = 0
CACHE = None
BUF = None
SCALE = 3.0
HISTORY = []
ACC = 0.0


def counted(x):
    global COUNT
    COUNT += 1
    return x * x * SCALE


def cache_float(x):
    global CACHE
    CACHE = x * 2.0
    return CACHE * SCALE + np.sin(CACHE)


def cache_array(x):
    global CACHE, COUNT
    COUNT = COUNT + 1
    CACHE = np.cos(x) * x
    y = np.sum(CACHE * CACHE)
    CACHE = CACHE[::-1] + y
    return CACHE @ x


def cache_list(x):
    global CACHE
    CACHE = [x, x * x]
    CACHE.append(np.exp(x))
    return sum(CACHE) * CACHE[1]


def cache_on_one_path(x):
    global CACHE
    CACHE = 0.5  # a constant first
    if x > 0.2:
        CACHE = x * 3.0
    return CACHE * x


def accumulate_in_loop(x, n):
    global ACC
    ACC = 0.0
    for i in range(n):
        ACC = ACC + x * (i + 1)
        if i == 1:
            ACC = ACC * x
    return ACC


def buffer_written(x):
    global BUF
    buf = np.zeros(3)
    buf[0] = x
    buf[2] = x * x
    BUF = buf
    return np.sum(BUF * BUF)


def buffer_written_in_place(x):
    global BUF
    BUF = np.zeros(3)
    BUF[0] = x  # (the array this call made and stored: changed in place, the module sees the change)
    BUF[1:] += x * BUF[0]
    return np.sum(BUF * BUF)


SHARED = np.zeros(3)


def module_array_changed_in_place(x):
    SHARED[0] = x  # (an array the module held before the call: refused as for any module-level object)
    return np.sum(SHARED * SHARED)


def _reset_cache():
    global CACHE
    CACHE = 7


def rebound_by_callee(x):
    global CACHE
    CACHE = x * 2.0
    before = CACHE * x
    _reset_cache()
    return before + CACHE


def deleted_global(x):
    global CACHE
    CACHE = x * 4.0
    y = CACHE * CACHE
    del CACHE
    return y


def grown_in_while(x):
    global CACHE
    CACHE = x
    while CACHE < 5.0:  # (a read in a loop's condition)
        CACHE = CACHE * 1.7 + 0.1
    return CACHE


def in_try(x):
    global CACHE
    try:
        CACHE = x * 2.0
        y = CACHE + np.exp(x)
        y = y + {1: 0.0}[int(x > 0)]
    except KeyError:
        y = CACHE * CACHE
    finally:
        z = CACHE * 3.0
    return y + z + sum(CACHE * k for k in range(3))


CASES = [(counted, (1.3,)), (cache_float, (0.7,)), (cache_float, (-1.1,)), (cache_array, (np.array([0.3, -0.5, 1.2]),)),
         (cache_list, (0.4,)), (cache_on_one_path, (0.9,)), (cache_on_one_path, (-0.4,)),
         (accumulate_in_loop, (0.6, 3)), (accumulate_in_loop, (1.4, 1)), (buffer_written, (0.8,)),
         (buffer_written_in_place, (-0.6,)), (grown_in_while, (0.8,)), (grown_in_while, (6.0,)), (in_try, (0.8,)),
         (in_try, (-0.8,)),
         (rebound_by_callee, (1.2,)), (deleted_global, (0.3,))]


@pytest.mark.parametrize("fn, args", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_derivatives_through_written_globals(fn, args):
    check_derivatives(fn, *args)


@pytest.mark.parametrize("fn, args", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_module_state_after_the_call_is_the_plain_calls(fn, args):
    def state():
        g = globals()
        return {k: (np.copy(g[k]) if isinstance(g.get(k), np.ndarray) else list(g[k]) if isinstance(g.get(k), list)
                    else g.get(k, "<deleted>")) for k in ("CACHE", "BUF", "ACC")}

    def reset():
        globals().update(CACHE=None, BUF=None, ACC=0.0)

    reset()
    fn(*args)
    plain = state()
    for run in (lambda: mc.grad(fn)(*args), lambda: mc.jvp(fn, args, tuple(np.ones_like(a) for a in args))):
        reset()
        if not isinstance(args[-1], int):
            run()
        else:
            (mc.grad(lambda v: fn(v, args[1]))(args[0]), mc.jvp(lambda v: fn(v, args[1]), args[:1], (1.0,)))
        after = state()
        for k, v in plain.items():
            np.testing.assert_array_equal(np.asarray(after[k], dtype=object), np.asarray(v, dtype=object), err_msg=k)


def test_counter_counts_each_call_once():
    global COUNT
    COUNT = 0
    mc.grad(counted)(1.5)
    assert COUNT == 1
    mc.jvp(counted, (1.5,), (1.0,))
    assert COUNT == 2
    mc.value_and_grad(counted)(0.5)
    assert COUNT == 3


# ------------------------------------------------------------------ across calls: refused, by name
def _store(x):
    global CACHE
    CACHE = x * 5.0


def helper_writes_caller_reads(x):
    _store(x)
    return CACHE + x


def reads_then_writes(x):
    global CACHE
    old = CACHE if isinstance(CACHE, float) else 0.0
    CACHE = x * x
    return old + CACHE


def called_twice(x):
    return reads_then_writes(x) + reads_then_writes(x * 2.0)


def _rebind_active(x):
    global CACHE
    CACHE = x * 9.0


def rebound_actively(x):
    global CACHE
    CACHE = x * 2.0
    _rebind_active(x)
    return CACHE


@pytest.mark.parametrize("mode", ["forward", "reverse"])
def test_module_array_changed_in_place_is_refused(mode):
    with pytest.raises(mc.MooncakeError, match="SHARED"):
        if mode == "forward":
            mc.jvp(module_array_changed_in_place, (0.7,), (1.0,))
        else:
            mc.grad(module_array_changed_in_place)(0.7)


@pytest.mark.parametrize("fn", [helper_writes_caller_reads, called_twice, rebound_actively])
@pytest.mark.parametrize("mode", ["forward", "reverse"])
def test_reads_across_calls_are_refused(fn, mode):
    with pytest.raises(UnsupportedDerivativeError, match="CACHE.*same differentiation"):
        if mode == "forward":
            mc.jvp(fn, (0.7,), (1.0,))
        else:
            mc.grad(fn)(0.7)


def test_a_later_differentiation_reads_the_global_as_a_constant():
    mc.grad(cache_float)(0.7)  # leaves CACHE = 1.4, written by differentiated code

    def reader(x):
        return CACHE * x

    assert mc.grad(reader)(2.0) == pytest.approx(1.4)
    assert mc.jvp(reader, (2.0,), (1.0,))[1] == pytest.approx(1.4)


def test_module_attribute_written_elsewhere_is_refused(tmp_path, monkeypatch):
    (tmp_path / "lang17_state_mod.py").write_text(
        "VALUE = 0.0\n\ndef put(x):\n    global VALUE\n    VALUE = x * 3.0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    mod = importlib.import_module("lang17_state_mod")
    globals()["lang17_state_mod"] = mod
    try:
        def uses(x):
            lang17_state_mod.put(x)
            return lang17_state_mod.VALUE * x

        for run in (lambda: mc.grad(uses)(0.5), lambda: mc.jvp(uses, (0.5,), (1.0,))):
            with pytest.raises(UnsupportedDerivativeError, match="lang17_state_mod.VALUE"):
                run()
    finally:
        del globals()["lang17_state_mod"]
        sys.modules.pop("lang17_state_mod", None)


# ------------------------------------------------------------------ a helper without inputs reading a written global
def _get_cache():
    return CACHE


def helper_without_inputs_reads(x):
    _store(x)
    return _get_cache() * x


@pytest.mark.parametrize("mode", ["forward", "reverse"])
def test_getter_called_without_differentiable_arguments_is_refused(mode):
    # (a call without differentiable arguments ran plainly, and read the written CACHE as a constant: a zero)
    with pytest.raises(UnsupportedDerivativeError, match="CACHE.*same differentiation"):
        if mode == "forward":
            mc.jvp(helper_without_inputs_reads, (0.7,), (1.0,))
        else:
            mc.grad(helper_without_inputs_reads)(0.7)


# ------------------------------------------------------------------ globals(), eval, exec, locals
def globals_write(x):
    globals()["CACHE"] = x * 2.0
    return CACHE * x


def globals_write_read_by_helper(x):
    globals()["CACHE"] = x * 2.0
    return _get_cache() * x


def globals_written_constant_and_own_value(x):
    globals()["COUNT"] = 3
    return x * COUNT


def evaluates(x):
    return eval("x * 3")


def executes(x):
    ns = {"x": x}
    exec("y = x * 2", ns)
    return ns["y"]


def reads_locals(x):
    y = x * 2.0
    return locals()["y"]


@pytest.mark.parametrize("fn, match", [(globals_write, "CACHE.*same differentiation"),
                                       (globals_write_read_by_helper, "CACHE.*same differentiation"), (evaluates, "eval"),
                                       (executes, "exec"), (reads_locals, "locals")])
@pytest.mark.parametrize("mode", ["forward", "reverse"])
def test_scope_readers_and_globals_writes_are_refused(fn, match, mode):
    # (eval's result had a zero derivative, and globals()["N"] = v then N read as a constant: silently)
    with pytest.raises(mc.MooncakeError, match=match):
        if mode == "forward":
            mc.jvp(fn, (0.7,), (1.0,))
        else:
            mc.grad(fn)(0.7)


@pytest.mark.parametrize("fn", [globals_written_constant_and_own_value])
def test_globals_reads_and_constant_writes(fn):
    check_derivatives(fn, 0.7)
