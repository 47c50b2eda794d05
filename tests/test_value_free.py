"""`mc.grad` runs the forward pass without the value where that saves work (reverse/value_free.py):
`<f>__forward_tape` is `<f>__forward` less what only the returned value reads.

Every function is checked the same way: the gradient from mc.grad (which uses the value-free pass
where there is one) equals the one from mc.value_and_grad (which never does), and both modes agree
with finite differences; the module has the value-free pass exactly where it saves work.
"""
import math

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives

R = np.random.default_rng(5)


def logistic(w, X, y):
    p = 1.0 / (1.0 + np.exp(-(X @ w)))
    return -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def sine_loop(x, n):
    s = 0.0
    for i in range(n):
        s = s + math.sin(x * i)
    return s


def branchy(x):
    if x > 0.5:
        return math.exp(x) * math.log(x) + x ** 3
    elif x > 0.0:
        return math.sqrt(x) * 2.0
    return -x


def helper(v):
    return np.sum(np.cos(v))


def calls_user_code(x):
    t = np.tanh(x)
    return helper(t) + np.sum(t * t * t)


def value_read_by_the_tape(x):
    e = np.exp(np.sum(x ** 2))
    return e * e


def early_exit_loop(x):
    acc = 0.0
    for v in x:
        if v > 2.0:
            break
        acc = acc + math.log(1.0 + v * v) * math.cosh(v)
    return acc


def mean_of_products(A, b):
    z = A @ b
    return np.mean(np.sin(z) * np.cos(z) + z ** 4)


CASES = {
    "logistic": (logistic, lambda: (R.normal(size=4), R.normal(size=(6, 4)), (R.random(6) < 0.5) * 1.0), True),
    "rosenbrock": (rosenbrock, lambda: (R.normal(size=7),), True),
    "sine_loop": (sine_loop, lambda: (0.3, 6), True),
    "branchy_high": (branchy, lambda: (1.7,), True),
    "branchy_low": (branchy, lambda: (0.3,), True),
    # (helper's result is typed from its code, reverse/call_types.py: a float, so grad needs no value to check it)
    "calls_user_code": (calls_user_code, lambda: (R.normal(size=5),), True),
    "value_read_by_the_tape": (value_read_by_the_tape, lambda: (R.normal(size=3) * 0.3,), False),
    "early_exit_loop": (early_exit_loop, lambda: (np.array([0.3, -1.2, 0.8, 2.5, 0.1]),), True),
    "mean_of_products": (mean_of_products, lambda: (R.normal(size=(5, 3)), R.normal(size=3)), True),
}


@pytest.mark.parametrize("name", CASES)
def test_grad_without_the_value_is_the_gradient(name):
    fn, make, _ = CASES[name]
    args = make()
    g = mc.grad(fn)(*args)
    _, g2 = mc.value_and_grad(fn)(*args)
    assert np.allclose(g, g2, rtol=1e-12, atol=0)
    check_derivatives(fn, *args)


@pytest.mark.parametrize("name", CASES)
def test_value_free_pass_where_it_saves_work(name):
    fn, make, expected = CASES[name]
    mc.grad(fn)(*make())
    text = mc.source(fn, "reverse")
    assert ("__forward_tape(" in text) is expected, text


def test_not_for_vector_results():
    def square(x):
        return np.exp(x) * np.log(1.0 + x * x) + np.sin(x)

    x = R.random(3)
    y, pullback = mc.vjp(square, x)
    assert "__forward_tape(" not in mc.source(square, "reverse")
    check_derivatives(square, x)


def test_value_and_grad_still_computes_the_value():
    x = R.normal(size=7)
    value, g = mc.value_and_grad(rosenbrock)(x)
    assert value == pytest.approx(rosenbrock(x)) and np.allclose(g, mc.grad(rosenbrock)(x))


def test_a_call_that_raises_still_raises():
    # The value-free pass drops `y * np.log(p)`, but not NumPy's check that y and p broadcast: with
    # labels of the wrong length the plain call raises, and so must the gradient.
    w, X = R.normal(size=4), R.normal(size=(6, 4))
    y = (R.random(5) < 0.5) * 1.0
    with pytest.raises(ValueError):
        logistic(w, X, y)
    mc.grad(logistic)(w, X, (R.random(6) < 0.5) * 1.0)  # (the derivative is made for these kinds)
    with pytest.raises(ValueError):
        mc.grad(logistic)(w, X, y)


def test_long_elif_chain_whose_branches_only_make_the_value(tmp_path):
    # The value-free pass empties every branch (`if not c:` nests the rest): printed flat all the same,
    # past Python's 100 levels of indentation.
    import importlib.util

    n = 110
    lines = ["import math", "", "def chain(x):", f"    k = int(x * 7) % {n}"]
    for i in range(n):
        lines += [f"    {'if' if i == 0 else 'elif'} k == {i}:", f"        y = math.sin(x) * {i + 1} + x * x"]
    lines += ["    else:", "        y = x", "    return y"]
    path = tmp_path / "long_chain.py"
    path.write_text("\n".join(lines) + "\n")
    spec = importlib.util.spec_from_file_location("long_chain", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    for x in (0.5, 3.3):
        k = int(x * 7) % n
        assert mc.grad(mod.chain)(x) == pytest.approx(math.cos(x) * (k + 1) + 2 * x)
    assert "__forward_tape(" in mc.source(mod.chain, "reverse")
