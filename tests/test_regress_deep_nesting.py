"""A long chain of array updates (`x = x * 1.01 + b * c`, 260 times) made the pullback one expression of over 200
nested calls (`_mc.broadcast_check(_mc.broadcast_check(...))`), which Python's parser refuses ("too many nested
parentheses"): the emitter now names a value before an expression would nest brackets more than 60 deep."""
import importlib.util

import numpy as np

import mooncake_ast as mc


def test_a_long_chain_of_updates(tmp_path):
    lines = ["import numpy as np", "", "", "def f(a, b):", "    x = a"]
    lines += [f"    x = x * 1.01 + b * {k % 7}.0" for k in range(260)]
    lines += ["    return np.sum(x)", ""]
    path = tmp_path / "deep_chain_mod.py"
    path.write_text("\n".join(lines))
    spec = importlib.util.spec_from_file_location("deep_chain_mod", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    a, b = np.ones(3), np.full(3, 0.5)
    assert np.allclose(mc.grad(mod.f)(a, b), 1.01 ** 260)  # (b not differentiated: its shape checked 260 times)
    ga, gb = mc.grad(mod.f, argnums=(0, 1))(a, b)
    assert np.allclose(ga, 1.01 ** 260)
    coef = sum((k % 7) * 1.01 ** (259 - k) for k in range(260))
    assert np.allclose(gb, coef)
    _, t = mc.jvp(mod.f, (a, b), (np.ones(3), np.zeros(3)))
    assert np.isclose(t, 3 * 1.01 ** 260)
