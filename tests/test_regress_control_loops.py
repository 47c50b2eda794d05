"""Loops as users write them: every shape of while test, and break / continue / return / else
in nested for and while loops (issues 8 and 16).  Both modes, and finite differences."""
import numpy as np
import pytest

from test_regress_control_util import check_both


# ---------------------------------------------------------------- while tests
def w_and(y):
    it = 0
    while y < 10.0 and it < 100:
        y = y * 1.5
        it += 1
    return y


def w_or(y):
    it = 0
    while y < 10.0 or it < 2:
        y = y * 1.5 + 0.1
        it += 1
    return y


def w_not_or(y):
    it = 0
    while not (y > 10.0 or it >= 50):
        y = y * 1.3
        it += 1
    return y * y


def w_not(y):
    done = False
    while not done:
        y = y * 1.2
        done = y > 4.0
    return y


def w_walrus(acc):
    while (acc := acc * 2.0) < 3.0:
        pass
    return acc


def w_walrus_body(y):
    n = 0
    while (z := y * 1.3) < 10.0:
        y = z + 0.1 * y
        n += 1
    return z * y + n


def w_walrus_and(y):
    it = 0
    while (z := y * 1.3) < 10.0 and it < 20:
        y = z + 0.1
        it += 1
    return y * z


def w_walrus_break(y):
    while (z := y * 1.5) < 20.0:
        y = z + 0.1
        if y > 8.0:
            break
    else:
        y = y * 0.5
    return y * z


def w_walrus_return(y):
    t = 0.0
    while (z := y * 1.5) < 20.0:
        y = z + 0.1
        t = t + y * z
        if y > 8.0:
            return t * y
    return t + z


def w_walrus_in_for(x):
    t = 0.0
    for i in range(3):
        y = x + i
        while (y := y * 1.4) < 5.0:
            t = t + y
    return t


def w_newton(a):
    y = a
    tol = 1e-10
    while abs(y * y - a) > tol:
        y = 0.5 * (y + a / y)
    return y


def w_chain(y):
    while 0.0 < y < 10.0:
        y = y * 1.7 + 0.2
    return y


def w_ternary(y, flip):
    while (y if flip else -y) < 5.0:
        y = y + 0.5 * y
    return y


def w_comp(y):
    while sum([y * k for k in range(3)]) < 20.0:
        y = y * 1.4
    return y


def w_and_else_break(y):
    it = 0
    while y < 50.0 and it < 10:
        y = y * 1.5
        it += 1
        if y > 20.0:
            break
    else:
        y = y * 3.0
    return y


def w_and_return(y):
    it = 0
    while y < 50.0 and it < 10:
        y = y * 1.5
        if y > 20.0:
            return y * 2.0
        it += 1
    return y


def w_nested_and(x):
    t = 0.0
    for i in range(3):
        y = x
        while y < 4.0 + i and y > 0.0:
            y = y * 1.5
            t = t + y
    return t


def w_else_break_outer(x):
    t = 0.0
    for i in range(4):
        y = x
        while y < 2.0 + i or i == 5:
            y = y * 1.5
        else:
            if i == 2:
                break
            t = t + y
    return t


WHILE_CASES = [
    (w_and, (1.0,)), (w_and, (20.0,)), (w_or, (1.0,)), (w_or, (20.0,)), (w_not_or, (1.0,)),
    (w_not, (1.0,)), (w_walrus, (1.0,)), (w_walrus, (0.7,)), (w_walrus, (5.0,)), (w_walrus_body, (1.0,)),
    (w_walrus_and, (1.0,)), (w_walrus_break, (1.0,)), (w_walrus_break, (7.0,)), (w_walrus_break, (30.0,)),
    (w_walrus_return, (1.0,)), (w_walrus_return, (7.0,)), (w_walrus_return, (30.0,)), (w_walrus_in_for, (0.7,)), (w_newton, (2.0,)), (w_newton, (0.3,)), (w_chain, (0.5,)), (w_ternary, (1.0, True)),
    (w_ternary, (-1.0, False)), (w_comp, (1.0,)), (w_and_else_break, (1.0,)), (w_and_else_break, (11.0,)),
    (w_and_else_break, (60.0,)), (w_and_return, (1.0,)), (w_and_return, (60.0,)), (w_nested_and, (1.0,)),
    (w_else_break_outer, (1.0,)),
]


@pytest.mark.parametrize("f,args", WHILE_CASES, ids=lambda x: getattr(x, "__name__", ""))
def test_while_tests(f, args):
    check_both(f, *args)


def test_walrus_while_value():
    import mooncake_ast as mc

    assert mc.grad(w_walrus)(1.0) == 4.0  # 1 -> 2 -> 4: two doublings
    assert mc.jvp(w_walrus, (1.0,), (1.0,))[1] == 4.0
    assert abs(mc.grad(w_newton)(2.0) - 0.5 / np.sqrt(2.0)) < 1e-8


# ---------------------------------------------------------------- break / continue / return / else
def l_if_and_continue(x):
    t = 0.0
    for i in range(5):
        if i > 0 and i % 2 == 0:
            continue
        t = t + x * i
    return t


def l_if_or_break(x):
    t = 0.0
    for i in range(6):
        if x * i > 4.0 or i == 4:
            break
        t = t + x * x * i
    return t


def l_elif_continue(a):
    x = np.float64(2.0)
    t = 0.0
    for i in range(4):
        if i == 1:
            continue
        elif x > 0:
            x *= 0.9
        else:
            continue
        t = t + x * a
    return t


def l_elif_rebind(a):
    t = 0.0
    y = a
    for i in range(5):
        if i == 1:
            y = y * 2.0
            continue
        elif i == 3:
            break
        else:
            y = y + a
        t = t + y
    return t


def l_for_else_continue(a):
    t = 0.0
    for i in range(3):
        for j in range(3):
            if j == 1:
                continue
            t = t + a * j
        else:
            continue
        t = t * 2.0
    return t


def l_for_else_break_inner(a):
    t = 0.0
    for i in range(3):
        for j in range(3):
            if j == i:
                break
            t = t + a * j
        else:
            t = t * 2.0
            continue
        t = t + a
    return t


def l_for_else_return(a):
    for i in range(2):
        pass
    else:
        if a[0] < 5:
            return a[1] * 2
    return np.sum(a)


def l_for_else_return_loop(a):
    t = 0.0
    for i in range(3):
        t = t + a[i] * a[i]
    else:
        if t > 100.0:
            return t
    return t * a[0]


def l_while_else_return(x):
    i = 0
    while i < 3:
        x = x * 1.1
        i += 1
    else:
        if x > 1.0:
            return x * x
    return x


def l_nested_continue_break(x):
    t = 0.0
    for i in range(4):
        for j in range(4):
            if j == 1:
                continue
            if j == 3:
                break
            t = t + x * (i + j)
        if i == 2:
            break
        t = t * 1.1
    return t


def l_return_nested(x):
    t = 0.0
    for i in range(4):
        j = 0
        while j < 3:
            t = t + x * j
            if t > 3.0:
                return t * x
            j += 1
    return t


def l_unreachable_after(x):
    t = 0.0
    for i in range(3):
        if i == 1:
            t = t + x
            continue
        else:
            t = t * x
            continue
        t = t * 100.0  # never runs
    return t


def l_while_true_break(x):
    n = 0
    while True:
        x = x * 1.2
        n += 1
        if x > 3.0 or n > 20:
            break
    return x


def mix_v1(a):
    t = 0.0
    x = a
    for i in range(5):
        if i == 1 and x > 0:
            x = x * 2.0
            continue
        elif i == 3 or x < -100:
            break
        else:
            x = x + 1.0
        t = t + x
    return t

def mix_v2(a):
    t = 0.0
    i = 0
    while i < 6:
        i += 1
        if i % 2 == 0:
            if t > 100.0:
                break
            continue
        elif i == 5:
            t = t * a
        t = t + a * i
    return t

def mix_v3(a):
    t = 0.0
    for i in range(3):
        for j in range(3):
            if j == i:
                continue
            elif j > i and t > 1.0:
                break
            t = t + a * (i + 1) * (j + 1)
        else:
            t = t * 1.1
    return t

def mix_v4(a):
    t = 0.0
    for i in range(4):
        if i < 2:
            if a > 0:
                t = t + a
            else:
                continue
        else:
            if i == 3:
                return t * a
        t = t * 1.5
    return t

def mix_v5(a):
    t = a
    while True:
        t = t * 1.3
        if t > 5.0 and t < 1000.0:
            break
        elif t > 1000.0:
            return -t
    return t


LOOP_CASES = [
    (mix_v1, (1.5,)), (mix_v2, (1.5,)), (mix_v3, (0.7,)), (mix_v4, (1.5,)), (mix_v4, (-1.5,)), (mix_v5, (1.0,)),
    (l_if_and_continue, (1.5,)), (l_if_or_break, (0.5,)), (l_if_or_break, (2.1,)), (l_elif_continue, (1.5,)),
    (l_elif_rebind, (1.5,)), (l_for_else_continue, (1.5,)), (l_for_else_break_inner, (1.5,)),
    (l_for_else_return, (np.array([1.0, 2.0]),)), (l_for_else_return, (np.array([7.0, 2.0]),)),
    (l_for_else_return_loop, (np.array([1.0, 2.0, 3.0]),)), (l_for_else_return_loop, (np.array([10.0, 2.0, 3.0]),)),
    (l_while_else_return, (0.5,)), (l_while_else_return, (2.0,)), (l_nested_continue_break, (1.5,)),
    (l_return_nested, (0.55,)), (l_return_nested, (0.01,)), (l_unreachable_after, (1.5,)), (l_while_true_break, (1.0,)),
]


@pytest.mark.parametrize("f,args", LOOP_CASES, ids=lambda x: getattr(x, "__name__", ""))
def test_loop_exits(f, args):
    check_both(f, *args)


def test_structuring_errors_are_mooncake_errors_with_the_line():
    import mooncake_ast as mc
    from mooncake_ast.emit.structure import EmitError
    from mooncake_ast.frontend.statements import lower_function
    from mooncake_ast.ir.regions import RegionError

    assert issubclass(RegionError, mc.MooncakeError) and issubclass(EmitError, mc.MooncakeError)
    ir = lower_function(w_and)
    header = next(b for b in ir.blocks if b.loop is not None)
    for cls in (RegionError, EmitError):
        from mooncake_ast.errors import block_loc

        err = cls("unstructured jump", block_loc(header))
        assert f"{__file__}:" in str(err) and "while y < 10.0 and it < 100:" in str(err)
