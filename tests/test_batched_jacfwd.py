"""jacfwd's batched forward pass (batching.py, higher._batched_blocks).

Jacobians of functions with loops, branches, in-place updates, reductions, matrix products, objects and
lists agree with jacrev and finite differences (and the functions' first derivatives pass
check_derivatives); the guard probes a batched pass once per new trace (again when the code takes another
path) and catches a rule that gives a batch another meaning than one tangent; the Batched operations that
could mix directions refuse instead."""
import copy

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast import higher
from mooncake_ast.batching import Batched
from mooncake_ast.testing import check_derivatives
from tests.helpers import fd_jac

A5 = np.random.default_rng(11).normal(size=(5, 5)) / 2.0




# ---------------------------------------------------------------- functions of every kind


def loop_branch(x):
    y = x * 1.0
    for _ in range(3):
        if np.sum(y) > 0.0:
            y = np.tanh(A5 @ y) + 0.5 * y
        else:
            y = y * np.cos(y) - 0.25 * y ** 2
    return y


def inplace_update(x):
    y = x * 2.0
    y[1:] += x[:-1] * x[1:]
    y[0] = np.sum(x ** 2)
    return y


def reductions_and_products(X):
    s = np.sum(X, axis=-1, keepdims=True).T[0, :1]
    return np.sum(X ** 2, axis=0) * np.mean(X, axis=0) + X[1] * (X.T @ X[:, 0]) + s


class Model:
    def __init__(self, w):
        self.w = w

    def predict(self, x):
        return np.tanh(self.w * x) + x[::-1] * np.sum(self.w * x)


def list_of_parts(x):
    parts = [x[0] * x[1], np.sin(x[2]), x[3] ** 2]
    out = []
    for p in parts:
        out.append(p * x[0] + 1.0)
    return out[0], out[1] + out[2]


def matrix_of_vector(x):
    M = x.reshape(2, 2)
    return (M @ A5[:2, :2] + np.sum(M) * M.T).reshape(-1)


MODEL = Model(np.random.default_rng(12).normal(size=5))
CASES = [(loop_branch, (5,)), (inplace_update, (5,)), (reductions_and_products, (3, 4)),
         (MODEL.predict, (5,)), (matrix_of_vector, (4,))]


@pytest.mark.parametrize("f,shape", CASES, ids=lambda c: getattr(c, "__name__", str(c)))
def test_jacfwd_agrees_with_jacrev_and_finite_differences(f, shape):
    J = mc.jacfwd(f)
    for seed in range(3):  # several points: a trace checked at one point is reused at the next
        x = np.random.default_rng(seed).normal(size=shape)
        if seed == 0:
            check_derivatives(f, x)
        before = x.copy()
        got = J(x)
        np.testing.assert_array_equal(x, before)
        np.testing.assert_allclose(got, mc.jacrev(f)(x), rtol=1e-9, atol=1e-11)
        np.testing.assert_allclose(got, fd_jac(f, x), rtol=1e-5, atol=1e-7)


def test_jacfwd_of_a_tuple_output_built_from_a_list():
    J = mc.jacfwd(list_of_parts)
    for seed in range(2):
        x = np.random.default_rng(seed).normal(size=4)
        got = J(x)
        want = mc.jacrev(list_of_parts)(x)
        for g, w, k in zip(got, want, range(2)):
            np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-11)
            np.testing.assert_allclose(g, fd_jac(lambda v: list_of_parts(v)[k], x), rtol=1e-5, atol=1e-7)


def test_the_common_functions_go_through_one_batched_pass():
    """The fast path is taken where it should be (else the tests above would only test the fallback)."""
    for f, shape in CASES:
        mc.jacfwd(f)(np.random.default_rng(0).normal(size=shape))
        code = getattr(f, "__func__", f).__code__
        assert (code, (shape,)) not in higher._NO_BATCH, f


def scale_every_other_in_place(a, s):
    v = a[::2]
    v *= s  # writes into the caller's array (and, in forward code, into its tangent)
    return np.sum(a ** 2) * a[1:3]


def test_jacfwd_of_a_function_writing_into_its_argument():
    """The batched pass gets this wrong (the run-time helper that updates a tangent in place returns any
    tangent that is not an array unchanged), and the probe must see it: its direction must not be written to
    by the pass it checks.  At zeros with s = 1 the update changes nothing, so the wrong pass agrees with the
    right one there; the helper looked at the batch's type, so the next point is probed again (and caught)."""
    rng = np.random.default_rng(53)
    J = mc.jacfwd(scale_every_other_in_place, argnums=(0, 1))
    for a0, s in ((np.zeros(6), 1.0), (rng.normal(size=6), 0.8), (rng.normal(size=6), 1.3)):
        Ja, Js = J(a0.copy(), s)
        fd_a = fd_jac(lambda v: scale_every_other_in_place(v.copy(), s), a0)
        f = scale_every_other_in_place
        fd_s = (f(a0.copy(), s + 1e-6) - f(a0.copy(), s - 1e-6)) / 2e-6
        np.testing.assert_allclose(Ja, fd_a, rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(Js, fd_s, rtol=1e-5, atol=1e-7)
        Ra, Rs = mc.jacrev(scale_every_other_in_place, argnums=(0, 1))(a0.copy(), s)
        np.testing.assert_allclose(Ja, Ra, rtol=1e-9, atol=1e-11)
        np.testing.assert_allclose(Js, Rs, rtol=1e-9, atol=1e-11)


# ---------------------------------------------------------------- the guard


def branchy(x):
    if x[0] > 0.0:
        return np.tanh(x) * x[1]
    return x[::-1] * np.sum(x ** 2)


def test_probe_runs_once_per_trace_and_again_on_a_new_path(monkeypatch):
    probes = []
    real = higher._probe

    def counting(*a, **k):
        probes.append(1)
        return real(*a, **k)

    monkeypatch.setattr(higher, "_probe", counting)
    J = mc.jacfwd(branchy)
    expected = []
    for x0 in (0.5, 0.9, -0.4, -1.1, 0.2):
        x = np.array([x0, 0.3, -0.8, 1.7])
        np.testing.assert_allclose(J(x), mc.jacrev(branchy)(x), rtol=1e-9, atol=1e-11)
        expected.append(len(probes))
    assert expected[0] == 1 and expected[1] == 1  # the same path: checked once
    assert expected[2] == expected[1] + 1  # the other branch: a new trace, checked
    assert expected[4] == expected[3] == expected[2]  # both paths known now


def scaled(x):
    return 2.0 * x


def _scaled_rule(primals, tangents):
    (x,), (t,) = primals, tangents
    if isinstance(t, np.ndarray):
        return 2.0 * x, 2.0 * t
    return 2.0 * x, 3.0 * t  # written for one tangent type only: wrong for any other (a batch included)


def uses_type_dispatching_rule(x):
    return np.sin(scaled(x)) * x[0]


@pytest.fixture
def scaled_rule():
    """The user rule, registered for this test only (the registry is global: later tests list it)."""
    from mooncake_ast.rules import registry

    before = set(registry._RULES)
    mc.frule(scaled)(_scaled_rule)
    yield
    for key in set(registry._RULES) - before:
        del registry._RULES[key]
    registry.bump_version()


def test_a_rule_that_treats_a_batch_differently_is_caught(scaled_rule):
    x = np.random.default_rng(3).normal(size=4)
    J = mc.jacfwd(uses_type_dispatching_rule)
    for _ in range(2):
        np.testing.assert_allclose(J(x), fd_jac(uses_type_dispatching_rule, x), rtol=1e-5, atol=1e-7)


# ---------------------------------------------------------------- Batched: item by item, or a refusal


def _items(b):
    return [b.data[k] for k in range(b.data.shape[0])]


def test_batched_indexing_and_assignment_per_direction():
    rng = np.random.default_rng(4)
    data = rng.normal(size=(3, 4, 5))
    b = Batched(data.copy())
    for idx in [(1,), (slice(1, 3),), (Ellipsis, 2), (None, 0), ([0, 2], slice(None)), (slice(None), [1, 3]),
                (np.array([0, 3]), np.array([1, 4])), (data[0] > 0,), (0, [1, 2])]:
        got = b[idx if len(idx) > 1 else idx[0]]
        for k, item in enumerate(_items(b)):
            np.testing.assert_array_equal(got.data[k], item[idx if len(idx) > 1 else idx[0]])
    with pytest.raises(TypeError):  # advanced indices apart: NumPy would move them before the batch axis
        b[[0, 1], :, [0, 1]]
    with pytest.raises(TypeError):
        b[1, :, [0, 1]]
    with pytest.raises(TypeError):
        b[True]
    # assignment: a batched value goes to each direction's item, a constant to every direction
    t = Batched(np.zeros((3, 4, 5)))
    v = Batched(rng.normal(size=(3, 5)))
    t[1] = v
    t[2, 1:] = 7.0
    for k in range(3):
        np.testing.assert_array_equal(t.data[k, 1], v.data[k])
        np.testing.assert_array_equal(t.data[k, 2, 1:], 7.0)
    with pytest.raises(TypeError):  # a constant as big as the batched target would broadcast across the batch
        t[0] = np.ones((3, 5))


def test_batched_refuses_comparisons_and_copies_its_data():
    b = Batched(np.arange(6.0).reshape(2, 3))
    for op in (lambda: b == b, lambda: b != 0, lambda: b < 1.0, lambda: bool(b), lambda: float(b),
               lambda: np.asarray(b), lambda: np.where(b.data > 0, b, 0.0), lambda: b @ b):
        with pytest.raises(TypeError):
            op()
    c = copy.copy(b)
    c.data[0, 0] = 99.0
    assert b.data[0, 0] == 0.0
    rows = list(b)
    assert len(rows) == 3 and all(isinstance(r, Batched) for r in rows)
    np.testing.assert_array_equal(rows[1].data, b.data[:, 1])
    s = np.sum(b.reshape(3, 1), axis=-1)
    np.testing.assert_array_equal(s.data, b.data)


def test_batched_in_place_updates_change_the_batch_itself():
    rng = np.random.default_rng(6)
    data = rng.normal(size=(3, 2, 4))
    b = Batched(data.copy())
    alias = b
    view = b[1]
    c = rng.normal(size=4)
    b += c  # a constant: the same for every direction
    other = Batched(rng.normal(size=(3, 4)))
    b *= other  # a batch of lower rank: item by item, broadcast within the item
    assert alias is b
    np.testing.assert_array_equal(view.data, b.data[:, 1])  # a view of the batch sees the update
    want = np.stack([(data[k] + c) * other.data[k] for k in range(3)])
    np.testing.assert_allclose(b.data, want)
    with pytest.raises(TypeError):
        b += np.ones((3, 2, 4))  # would broadcast against the batch axis
    with pytest.raises((TypeError, ValueError)):
        view += Batched(np.ones((3, 2, 4)))  # the result would not keep the target's shape


def test_looking_at_a_batch_type_marks_the_pass():
    from mooncake_ast.batching import Trace

    tr = Trace()
    b = Batched(np.ones((2, 3)), tr)
    c = (b * 2.0 + np.arange(3.0)) @ np.ones((3, 2))  # operations of the batch's own: recorded, not marked
    assert len(tr) == 3 and not tr.inspected and isinstance(b, Batched) and not tr.inspected
    assert not isinstance(c, np.ndarray) and tr.inspected  # a type test that fails for a batch
