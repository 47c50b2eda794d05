"""`del name` inside differentiated code (frontend/del_stmt.py): after `del x`, x is unbound (a read
raises UnboundLocalError, as in Python) and the derivative of what ran is right, both modes."""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives


def straight(x):
    y = x * 2.0
    z = y * y
    del y
    return z + x


def rebind_in_branch(x, c):
    y = x * 3.0
    if c:
        del y
        y = x * x
    return y


def in_loop(x, n):
    s = 0.0
    y = x
    for i in range(n):
        t = x * (i + 1.0)
        s = s + t * y
        del t
        if i == 1:
            del y  # read again in later iterations: bound again below
            y = s
    return s


def several(a):
    b, c = a * 2.0, np.sin(a)
    del b, c
    b = a * a
    return np.sum(b)


def deleted_in_some_iterations(a):
    out = 0.0
    for i in range(3):
        b = a[i] * a
        out = out + np.sum(b)
        if i < 2:
            del b
    return out + np.sum(b)  # (the last iteration's b: a phi that may hold the deleted marker, typed as such)


def caught(x):
    y = x * 2.0
    try:
        del y
        z = y
    except UnboundLocalError:
        z = x * x
    return z


def captured(x):
    y = x * 2.0
    h = lambda: y * x  # noqa: E731
    r = h()
    del y
    return r


@pytest.mark.parametrize("f, args", [
    (straight, (1.5,)), (rebind_in_branch, (1.5, True)), (rebind_in_branch, (1.5, False)), (in_loop, (1.3, 4)),
    (several, (np.array([0.3, 0.8]),)), (deleted_in_some_iterations, (np.array([0.2, 0.5, 0.9]),)), (caught, (1.5,)), (captured, (1.5,)),
])
def test_derivative_after_del(f, args):
    check_derivatives(f, *args)


def deleted_on_one_path(x, c):
    y = x * 3.0
    if c:
        del y
    return y


def deleted_twice(x):
    y = x * 2.0
    del y
    del y
    return x


def _rebound_param(x, c):
    y = x * x
    del x
    if c:
        x = y * 3.0
    return x * y


def test_second_derivative_through_del():
    check_derivatives(lambda x: mc.grad(_rebound_param)(x, True), 1.5)


@pytest.mark.parametrize("f, args", [(deleted_on_one_path, (1.5, True)), (deleted_twice, (1.5,))])
def test_read_after_del_raises(f, args):
    with pytest.raises(UnboundLocalError, match="'y'"):
        mc.grad(f)(*args)
    with pytest.raises(UnboundLocalError, match="'y'"):
        mc.jvp(f, args, (1.0,) + (None,) * (len(args) - 1))
