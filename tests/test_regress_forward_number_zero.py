"""Forward mode: a number argument without a tangent (an int, or a float given None) has the bare zero NoTangent
when the code runs; passed through `np.ones(3) + n` and added to a number's tangent, the sum's tangent was a
number, and `np.sum` of it counted it once instead of once per element (jvp, jacfwd: -0.5 for -1.5, silently).
Sums of an array and a number now give their tangent the array's shape (forward/runtime.fit)."""
import importlib.util

import numpy as np
import pytest

import mooncake_ast as mc

SOURCE = '''
import numpy as np


def through_int(x, n):
    v = -x * 0.5 + ((np.ones(3) + n) - n)
    return np.sum(v)


def through_float(x, y):
    v = -x * 0.5 + ((np.ones(3) + y) - y)
    return np.sum(v)


def number_plus_array(x, y):
    s = np.sum(np.ones(2) * x)
    w = np.ones(3) * y
    return np.sum(w + s) + np.sum(s - w)


def in_a_loop(x, n):
    total = np.zeros(4)
    for i in range(n):
        total = total + x * i
    return np.sum(total + n)
'''


@pytest.fixture(scope="module")
def mod(tmp_path_factory):
    path = tmp_path_factory.mktemp("fwdzero") / "fwd_zero_mod.py"
    path.write_text(SOURCE)
    spec = importlib.util.spec_from_file_location("fwd_zero_mod", path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


@pytest.mark.parametrize("name,args", [("through_int", (0.7, 3)), ("through_float", (0.7, 0.63)),
                                       ("number_plus_array", (0.7, 0.3)), ("in_a_loop", (0.7, 3))])
def test_tangent_of_x_alone(mod, name, args):
    f = getattr(mod, name)
    h = 1e-6
    fd = (f(args[0] + h, *args[1:]) - f(args[0] - h, *args[1:])) / (2 * h)
    assert np.isclose(mc.jvp(f, args, (1.0, None))[1], fd, rtol=1e-6)
    assert np.isclose(mc.jacfwd(f)(*args), fd, rtol=1e-6)
    assert np.isclose(mc.grad(f)(*args), fd, rtol=1e-6)
