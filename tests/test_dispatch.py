"""The per-call dispatch of `mc.grad`, `mc.value_and_grad` and `mc.jvp` (api_fast.py, reverse/fastpath.py).

A repeated call takes a short path that skips checks which cannot fail for numbers and float arrays.
These tests pin what must not change on that path: the rule is rebuilt when a global it read is
rebound or a rule is registered, the argument kinds (rank, size-one axes, aliasing) pick the same
rule as kinds_of, aliased and shared adjoints keep their identity semantics, and every call that
is not plain (keywords, defaults, writes, other types) still gets the full treatment.
Values are checked against central differences, over families of inputs.
"""
from __future__ import annotations

import importlib.util
import types

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.errors import UnsupportedInputError
from mooncake_ast.reverse import fastpath, runtime
from mooncake_ast.tangents import NoTangent



@pytest.fixture(autouse=True)
def _rules_taken_out_again():
    """Rules a test registers are removed after it (the registry is global: later tests list it,
    `mooncake-ast rules` and docs/rules.md)."""
    from mooncake_ast.rules import registry

    before = set(registry._RULES)
    yield
    added = set(registry._RULES) - before
    for key in added:
        del registry._RULES[key]
    if added:
        registry.bump_version()

def _fd_grad(f, args, i, h=1e-6):
    """Central differences of scalar f in argument i (a float or a float array)."""
    x = args[i]
    if isinstance(x, float):
        up = list(args); up[i] = x + h
        dn = list(args); dn[i] = x - h
        return (f(*up) - f(*dn)) / (2 * h)
    g = np.zeros(x.shape)
    for k in np.ndindex(x.shape):
        xp, xm = x.copy(), x.copy()
        xp[k] += h
        xm[k] -= h
        up = list(args); up[i] = xp
        dn = list(args); dn[i] = xm
        g[k] = (f(*up) - f(*dn)) / (2 * h)
    return g


def _module(tmp_path, src: str) -> types.ModuleType:
    """A fresh module from a file (the derivation reads the source), whose globals the test can rebind."""
    path = tmp_path / "mc_dispatch_case.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location(f"mc_dispatch_case_{abs(hash(str(tmp_path)))}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_rebinding_a_global_function_regenerates(tmp_path):
    mod = _module(tmp_path, "import numpy as np\n"
                  "def h(x):\n    return 2.0 * x\n"
                  "def f(x):\n    return np.sum(h(x) * x)\n")
    g = mc.grad(mod.f)
    for x in (np.array([0.5, -1.0, 2.0]), np.array([[1.0, 2.0]]), 1.5):
        want = 4.0 * x
        np.testing.assert_allclose(g(x), want)
        np.testing.assert_allclose(g(x), want)  # the second call takes the cached rule
    mod.h = lambda x: np.sin(x)  # noqa: E731 - rebound: the derivative read the old h
    for x in (np.array([0.5, -1.0, 2.0]), 0.7):
        want = np.sin(x) + x * np.cos(x)
        np.testing.assert_allclose(g(x), want, rtol=1e-12)
        np.testing.assert_allclose(g(x), _fd_grad(mod.f, (x,), 0), rtol=1e-6)


def test_rebinding_a_global_constant_is_seen(tmp_path):
    mod = _module(tmp_path, "import numpy as np\nC = 2.0\ndef f(x):\n    return np.sum(C * x * x)\n")
    x = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(mc.grad(mod.f)(x), 4.0 * x)
    mod.C = 5.0
    np.testing.assert_allclose(mc.grad(mod.f)(x), 10.0 * x)


def test_registering_a_rule_after_calls_is_used(tmp_path):
    mod = _module(tmp_path, "def f(x):\n    return x * x\n")
    g = mc.grad(mod.f)
    assert g(3.0) == 6.0
    assert g(3.0) == 6.0

    @mc.rrule(mod.f)
    def f_rule(x):
        return x * x, lambda y_bar: (100.0 * y_bar,)

    assert g(3.0) == 100.0


@pytest.mark.parametrize("shape", [(), (1,), (3,), (1, 4), (4, 1), (2, 3), (1, 1, 2)])
def test_kinds_change_between_calls(shape):
    def f(x, w):
        return np.sum(np.tanh(x) * w) + np.sum(x * x)

    g = mc.grad(f, argnums=(0, 1))
    rng = np.random.default_rng(len(shape))
    for x in (rng.normal(size=shape), 0.3):
        for w in (rng.normal(size=shape), 1.7, rng.normal(size=shape).astype(np.float32)):
            if isinstance(x, float) and not isinstance(w, float):
                continue
            for _ in range(2):  # first and cached call
                gx, gw = g(x, w)
                np.testing.assert_allclose(gx, _fd_grad(f, (x, w), 0), rtol=1e-5, atol=1e-6)
                if isinstance(w, np.ndarray) and w.dtype == np.float32:
                    assert gw.dtype == np.float32
                else:
                    np.testing.assert_allclose(gw, _fd_grad(f, (x, w), 1), rtol=1e-5, atol=1e-6)


def test_fast_kinds_agrees_with_kinds_of():
    a = np.arange(6.0).reshape(2, 3)
    b = np.ones((1, 3))
    cases = [(1.0,), (2,), (True,), (a,), (a, b), (a, a), (a, a[0]), (a[0], a[1]), (a[:, 0], b), (a.T, a),
             (a, 1.0, b), (np.float32(1.0) * a,), (np.ones(1), np.ones((1, 1)), np.ones(4)),
             (np.frombuffer(np.arange(4.0).tobytes()), np.ones(4))]
    for args in cases:
        assert fastpath.fast_kinds(args) in (None, runtime.kinds_of(args)), args
    assert fastpath.fast_kinds((a, a)) is None and fastpath.fast_kinds((a, a[0])) is None
    assert fastpath.fast_kinds((a, b)) == runtime.kinds_of((a, b))
    # what the fast path leaves to the general one
    for other in ([1.0], (1.0,), {"w": a}, np.arange(3), 1j, np.float64(1.0), np.matrix(a), None):
        assert fastpath.fast_kinds((other,)) is None


def test_aliased_arguments():
    def f(x, y):
        return np.sum(x * y) + np.sum(np.sin(x))

    g = mc.grad(f, argnums=(0, 1))
    rng = np.random.default_rng(1)
    for a in (rng.normal(size=4), rng.normal(size=(2, 3))):
        for _ in range(2):
            # One array passed twice is one object with one adjoint: what both places give it.
            gx, gy = g(a, a)
            np.testing.assert_allclose(gx, 2 * a + np.cos(a))
            np.testing.assert_allclose(gy, 2 * a + np.cos(a))
        v = rng.normal(size=6)
        for _ in range(2):
            gx, gy = g(v[:3], v[3:])  # views of one buffer, not overlapping: separate adjoints
            np.testing.assert_allclose(gx, v[3:] + np.cos(v[:3]))
            np.testing.assert_allclose(gy, v[:3])


def test_overlapping_views():
    def f(x, y):
        return np.sum(x * x * y)

    v = np.linspace(0.1, 1.0, 5)
    g = mc.grad(f, argnums=(0, 1))
    # The shared elements' adjoint is kept once per element of memory, and each view reads it.
    total = np.zeros(5)
    total[:4] += 2 * v[:4] * v[1:]
    total[1:] += v[:4] ** 2
    for _ in range(2):
        gx, gy = g(v[:4], v[1:])
        np.testing.assert_allclose(gx, total[:4])
        np.testing.assert_allclose(gy, total[1:])


def test_one_adjoint_object_for_two_arguments_is_handed_out_twice():
    def f(x, y):
        return np.sum(x + y)

    g = mc.grad(f, argnums=(0, 1))
    x, y = np.ones(3), np.full(3, 2.0)
    for _ in range(3):
        gx, gy = g(x, y)
        np.testing.assert_array_equal(gx, np.ones(3))
        np.testing.assert_array_equal(gy, np.ones(3))
        assert gx is not gy and not np.shares_memory(gx, gy)
        assert not np.shares_memory(gx, x) and not np.shares_memory(gy, y)
        gx[0] = 99.0  # the user owns the result
        assert gy[0] == 1.0


def test_keywords_and_defaults():
    def f(x, y=2.0, *, z=3.0):
        return x * x * y + z * x

    g = mc.grad(f)
    for x in (0.5, -1.25):
        for _ in range(2):
            assert g(x) == pytest.approx(2 * x * 2.0 + 3.0)
            assert g(x, 4.0) == pytest.approx(2 * x * 4.0 + 3.0)
            assert g(x, y=4.0) == pytest.approx(2 * x * 4.0 + 3.0)
            assert g(x, z=1.0) == pytest.approx(2 * x * 2.0 + 1.0)
    gy = mc.grad(f, argnums=1)
    assert gy(1.5, 2.0) == pytest.approx(1.5 ** 2)
    assert mc.value_and_grad(f, argnums=(0, 1))(1.5, 2.0)[1] == pytest.approx((2 * 1.5 * 2.0 + 3.0, 1.5 ** 2))


def test_int_and_bool_arguments():
    def f(x, n, flag):
        return x ** n if flag else x

    g = mc.grad(f, argnums=(0, 1, 2))
    for _ in range(2):
        gx, gn, gf = g(1.5, 3, True)
        assert gx == pytest.approx(3 * 1.5 ** 2)
        assert gn is NoTangent and gf is NoTangent
    assert g(1.5, 3, False)[0] == 1.0


def test_results_other_than_a_python_float():
    def f0(x):
        return np.sum(x)  # np.float64

    def f1(x):
        return np.asarray(np.sum(x * x))  # a 0-d array

    def f2(x):
        return x * x  # an array: not a scalar

    def f3(x):
        return 3  # an int: zero gradient

    x = np.array([1.0, 2.0])
    for _ in range(2):
        np.testing.assert_array_equal(mc.grad(f0)(x), np.ones(2))
        np.testing.assert_array_equal(mc.grad(f1)(x), 2 * x)
        with pytest.raises(mc.api.NonScalarOutputError):
            mc.grad(f2)(x)
        np.testing.assert_array_equal(mc.grad(f3)(x), np.zeros(2))
        v, gv = mc.value_and_grad(f1)(x)
        assert v == 5.0 and isinstance(v, np.ndarray)


def test_refusals_still_apply():
    def f(x):
        return np.sum(x * x)

    g = mc.grad(f)
    g(np.ones(2))
    with pytest.raises(mc.api.ComplexReverseError):
        g(np.ones(2) + 1j)
    with pytest.raises(mc.api.ComplexReverseError):
        g(1j)
    with pytest.raises(UnsupportedInputError):
        g(np.matrix([[1.0, 2.0]]))
    with pytest.raises(UnsupportedInputError):
        g(np.ma.masked_array([1.0, 2.0], mask=[0, 1]))


def test_a_writing_function_keeps_its_arguments_state():
    def f(x):
        x *= 2.0
        return np.sum(x * x)

    x = np.array([1.0, 2.0])
    for k in range(2):
        before = x.copy()
        gx = mc.grad(f)(x)
        np.testing.assert_allclose(gx, 8.0 * before)
        np.testing.assert_allclose(x, 2.0 * before)  # as the plain call leaves it


def test_unsupported_derivative_names_the_line():
    def f(x):
        return np.sum(np.pad(x, 1, mode="empty"))

    g = mc.grad(f)
    for _ in range(2):
        with pytest.raises(mc.errors.UnsupportedDerivativeError, match="test_dispatch.py:"):
            g(np.array([0.0, 1.0, 2.0]))


def test_argnums_errors_unchanged():
    def f(x, y):
        return x * y

    with pytest.raises(mc.api.ArgnumsError):
        mc.grad(f, argnums=2)(1.0, 2.0)
    with pytest.raises(mc.api.ArgnumsError):
        mc.grad(f, argnums=True)
    assert mc.grad(f, argnums=-1)(1.0, 2.0) == 1.0


def test_closures_with_different_cells():
    def make(c):
        def f(x):
            return c * x * x
        return f

    for c in (1.0, 2.0, 3.0):
        g = mc.grad(make(c))
        assert g(2.0) == pytest.approx(4.0 * c)
        assert g(2.0) == pytest.approx(4.0 * c)


# ---------------------------------------------------------------- mc.jvp's short path (api_fast.jvp_fast)


def test_jvp_rebinding_and_registration(tmp_path):
    mod = _module(tmp_path, "import numpy as np\n"
                            "def h(x):\n    return 2.0 * x\n"
                            "def f(x):\n    return h(x) * x\n")
    x, dx = np.array([0.5, -1.0, 2.0]), np.array([1.0, 2.0, 3.0])
    for _ in range(2):
        y, dy = mc.jvp(mod.f, (x,), (dx,))
        np.testing.assert_allclose(dy, 4.0 * x * dx)
    mod.h = np.sin
    y, dy = mc.jvp(mod.f, (x,), (dx,))
    np.testing.assert_allclose(dy, (np.cos(x) * x + np.sin(x)) * dx)

    @mc.frule(mod.f)
    def f_frule(primals, tangents):
        return mod.f(*primals), 7.0 * tangents[0]

    np.testing.assert_allclose(mc.jvp(mod.f, (x,), (dx,))[1], 7.0 * dx)


def test_jvp_tangent_forms():
    def f(x, s, n):
        return np.sum(np.sin(x) * s) * n

    x = np.array([0.1, 0.2, 0.3])
    for _ in range(2):
        y, dy = mc.jvp(f, (x, 2.0, 3), (np.array([1, 0, 0]), 1, None))  # int tangents of float primals
        assert dy == pytest.approx(3 * (2.0 * np.cos(0.1) + np.sum(np.sin(x))))
        y, dy = mc.jvp(f, (x, 2.0, 3), (None, None, None))
        assert dy == 0.0
        y, dy = mc.jvp(f, (x, 2.0, 3), (np.ones(3), mc.NoTangent(), mc.NoTangent()))
        assert dy == pytest.approx(6.0 * np.sum(np.cos(x)))
    with pytest.raises(mc.TangentError):
        mc.jvp(f, (x, 2.0, 3), (np.ones(4), None, None))
    with pytest.raises(mc.TangentError):
        mc.jvp(f, (x, 2.0, 3), (None, None, 1.0))  # an int is not differentiable
    with pytest.raises(mc.TangentError):
        mc.jvp(f, (x, 2.0, 3), (np.ones(3) + 0j, None, None))  # complex tangent of a real array


def test_jvp_one_array_twice_and_float32():
    def f(a, b):
        return a * b

    x = np.array([1.0, 2.0])
    for _ in range(2):
        _, dy = mc.jvp(f, (x, x), (np.ones(2), np.ones(2)))
        np.testing.assert_allclose(dy, 2 * x)
    with pytest.raises(mc.TangentError):
        mc.jvp(f, (x, x), (np.ones(2), np.zeros(2)))  # one object has one tangent
    x32 = x.astype(np.float32)
    y, dy = mc.jvp(f, (x32, x32.copy()), (np.ones(2), np.ones(2)))  # float64 tangents become float32
    assert dy.dtype == np.float32


def test_jvp_does_not_write_to_the_callers_tangent():
    def f(x):
        y = x * 1.0
        y *= 3.0
        return y

    x, dx = np.array([1.0, 2.0]), np.array([1.0, 1.0])
    for _ in range(2):
        _, dy = mc.jvp(f, (x,), (dx,))
        np.testing.assert_array_equal(dy, [3.0, 3.0])
        np.testing.assert_array_equal(dx, [1.0, 1.0])
        assert not np.shares_memory(dy, dx)


@pytest.mark.parametrize("seed", range(3))
def test_jvp_matches_finite_differences(seed):
    def f(x, w, c):
        return np.tanh(x @ w) * c + np.sum(x ** 2)

    rng = np.random.default_rng(seed)
    x, w, c = rng.normal(size=(2, 3)), rng.normal(size=3), float(rng.normal())
    dx, dw, dc = rng.normal(size=(2, 3)), rng.normal(size=3), float(rng.normal())
    h = 1e-6
    fd = (f(x + h * dx, w + h * dw, c + h * dc) - f(x - h * dx, w - h * dw, c - h * dc)) / (2 * h)
    for _ in range(2):
        _, dy = mc.jvp(f, (x, w, c), (dx, dw, dc))
        np.testing.assert_allclose(dy, fd, rtol=1e-6, atol=1e-8)


# ---------------------------------------------------------------- batched tangents (jacfwd's one pass)


def test_batched_arithmetic_is_per_direction():
    from mooncake_ast.batching import Batched

    rng = np.random.default_rng(5)
    ops = [lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b, lambda a, b: a / b]
    for item in [(3,), (2, 3), (1, 3)]:
        data = rng.normal(size=(4,) + item)
        others = [2.5, 3, np.float64(1.5), np.int64(2), rng.normal(size=item), rng.normal(size=item[-1:]),
                  rng.normal(size=(1,)), Batched(rng.normal(size=(4,) + item) + 3.0)]
        for op in ops:
            for o in others:
                for left in (True, False):
                    got = op(Batched(data), o) if left else op(o, Batched(data))
                    o_k = (lambda k: o.data[k]) if isinstance(o, Batched) else (lambda k: o)
                    want = np.stack([op(data[k], o_k(k)) if left else op(o_k(k), data[k]) for k in range(4)])
                    assert isinstance(got, Batched)
                    np.testing.assert_allclose(got.data, want)
        np.testing.assert_allclose((-Batched(data)).data, -data)
        # an operand of higher rank than the item broadcasts each item up (the general way)
        big = rng.normal(size=(5,) + item)
        np.testing.assert_allclose((Batched(data) * big).data, np.stack([data[k] * big for k in range(4)]))
        np.testing.assert_allclose((big - Batched(data)).data, np.stack([big - data[k] for k in range(4)]))


def test_jacfwd_families_match_finite_differences():
    def f(x, s):
        return np.tanh(x * s) + np.sum(x ** 2) * x - 2.0 * x / (1.0 + x * x)

    J = mc.jacfwd(f)
    rng = np.random.default_rng(2)
    for n in (2, 5, 8):
        for _ in range(2):
            x, s = rng.normal(size=n), float(rng.normal())
            fd = np.stack([(f(x + 1e-6 * e, s) - f(x - 1e-6 * e, s)) / 2e-6 for e in np.eye(n)], axis=1)
            np.testing.assert_allclose(J(x, s), fd, rtol=1e-6, atol=1e-8)


def test_closure_over_arrays_sees_their_current_values():
    X = np.array([[1.0, 2.0], [3.0, 4.0], [0.5, -1.0]])

    def loss(w):
        return np.sum((X @ w) ** 2)

    g = mc.grad(loss)
    w = np.array([0.3, -0.2])
    for _ in range(2):
        np.testing.assert_allclose(g(w), 2 * X.T @ (X @ w))
        np.testing.assert_allclose(mc.jvp(loss, (w,), (np.ones(2),))[1], 2 * (X @ w) @ (X @ np.ones(2)))
    X *= 2.0  # in place: the closure reads the new values
    np.testing.assert_allclose(g(w), 2 * X.T @ (X @ w))
    np.testing.assert_allclose(mc.jvp(loss, (w,), (np.ones(2),))[1], 2 * (X @ w) @ (X @ np.ones(2)))
