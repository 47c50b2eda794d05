"""Jacobians and Hessians through their fast paths (issue 10's cost targets), against finite differences.

jacfwd runs one batched forward pass where it can (batching.py) with the rule and the last checked trace kept per
input layout, and takes the state f can reach once per call (held_state.py: the walk through f's names kept per
function while what it read holds); mc.hessian computes each column as a Hessian-vector product by hvp_fast.  None of
that may change an answer: each family here -- loops, branches, in-place updates, objects, closures holding an RNG
or a counter, arguments sharing memory, tuple argnums, has_aux, pytrees, Fortran-ordered and 0-d inputs, n = 1, 2, 8
and 33 -- is checked against finite differences (or, where memory is shared, against jacrev, which differentiates
the same memory), in forward (jacfwd) and reverse (jacrev) mode, called several times (the kept decisions are then
reused), and the state f keeps is what one plain call leaves."""
import copy

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast import higher
from tests import jacobian_pure_cases as pure_cases
from tests.helpers import fd_jac
from tests.jacobian_pure_cases import pure_numpy

RNG = np.random.default_rng(1028)
A33 = RNG.normal(size=(33, 33)) / 6.0


def _close(got, want, rtol=1e-5, atol=1e-7):
    np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray(want, dtype=float), rtol=rtol, atol=atol)


# ---------------------------------------------------------------- vector functions of one array


def looped(x):
    y = np.zeros_like(x)
    acc = 0.0
    for i in range(x.shape[0]):
        acc = 0.5 * acc + np.sin(x[i]) * x[i - 1]
        y[i] = acc
    return y


def branchy(x):
    if np.sum(x) > 0.0:
        return np.tanh(x) * x[0] + x[::-1]
    return x ** 2 - np.cos(x) * np.sum(x)


def in_place(x):
    y = x.copy()
    y[1:] += 0.5 * y[:-1] * x[1:]
    y *= np.exp(-x)
    return y


def writes_its_argument(x):
    x *= 2.0  # (every pass must start from the caller's values: held_state.py)
    return np.sin(x) + np.sum(x)


def matrix_product(x):
    A = A33[:x.shape[0], :x.shape[0]]
    return np.tanh(A @ x) * x + np.sin(x) * np.sum(x ** 2)


class Layer:
    def __init__(self, n):
        self.W = RNG.normal(size=(n, n)) / 3.0
        self.b = RNG.normal(size=n)

    def apply(self, x):
        return np.tanh(self.W @ x + self.b) * x


VECTOR_FUNCTIONS = [looped, branchy, in_place, matrix_product]


@pytest.mark.parametrize("f", VECTOR_FUNCTIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("n", [1, 2, 8, 33])
@pytest.mark.parametrize("mode", [mc.jacfwd, mc.jacrev], ids=["jacfwd", "jacrev"])
def test_vector_functions_agree_with_finite_differences(f, n, mode):
    J = mode(f)
    for seed in range(3):  # (later calls reuse what the first decided: rule, trace, held-state roots)
        x = np.random.default_rng(seed + 10 * n).normal(size=n)
        if seed == 2:
            x = -np.abs(x)  # (branchy's other branch: a new trace, probed)
        _close(J(x), fd_jac(f, x))


@pytest.mark.parametrize("n", [1, 2, 8, 33])
@pytest.mark.parametrize("mode", [mc.jacfwd, mc.jacrev], ids=["jacfwd", "jacrev"])
def test_a_function_writing_its_argument_is_differentiated_at_the_callers_values(n, mode):
    J = mode(writes_its_argument)
    for seed in range(2):
        x = np.random.default_rng(seed).normal(size=n)
        x0 = x.copy()
        want = fd_jac(lambda v: writes_its_argument(v.copy()), x0)
        _close(J(x), want)
        _close(x, 2.0 * x0)  # (afterwards as one plain call leaves it)


@pytest.mark.parametrize("n", [2, 8])
@pytest.mark.parametrize("mode", [mc.jacfwd, mc.jacrev], ids=["jacfwd", "jacrev"])
def test_a_bound_method_of_an_object(n, mode):
    layer = Layer(n)
    J = mode(layer.apply)
    for seed in range(2):
        x = np.random.default_rng(seed).normal(size=n)
        _close(J(x), fd_jac(layer.apply, x))


# ---------------------------------------------------------------- state f keeps between calls


def make_rng_closure(seed):
    rng = np.random.default_rng(seed)

    def noisy(x):
        return np.sin(x) * (1.0 + rng.normal(size=x.shape))
    return noisy, rng


def make_counter_closure():
    count = [0]

    def counted(x):
        count[0] += 1
        return np.tanh(x) * x / (1.0 + count[0])
    return counted, count


def _at_state(state):
    """The noisy function of a fresh closure whose generator is at `state`."""
    g, r = make_rng_closure(0)
    r.bit_generator.state = copy.deepcopy(state)
    return g, r


@pytest.mark.parametrize("n", [1, 2, 8, 33])
@pytest.mark.parametrize("mode", [mc.jacfwd, mc.jacrev], ids=["jacfwd", "jacrev"])
def test_a_closure_drawing_from_a_generator_draws_once_per_jacobian(n, mode):
    f, rng = make_rng_closure(7)
    x = np.random.default_rng(n).normal(size=n)
    J = mode(f)
    for _ in range(3):
        entry = copy.deepcopy(rng.bit_generator.state)
        fd = fd_jac(lambda v: _at_state(entry)[0](v), x)  # (every evaluation draws what the entry state gives)
        _close(J(x), fd)
        g, r = _at_state(entry)
        g(x)
        assert rng.bit_generator.state == r.bit_generator.state  # (afterwards: one call's draws, no more)


@pytest.mark.parametrize("n", [2, 8])
@pytest.mark.parametrize("mode", [mc.jacfwd, mc.jacrev], ids=["jacfwd", "jacrev"])
def test_a_closure_counting_its_calls_counts_one_per_jacobian(n, mode):
    f, count = make_counter_closure()
    x = np.random.default_rng(n).normal(size=n)
    for call in range(1, 4):
        scale = 1.0 / (1.0 + call)
        want = fd_jac(lambda v: np.tanh(v) * v * scale, x)
        _close(mode(f)(x), want)
        assert count[0] == call


HELD = None


def reads_a_rebound_global(x):
    if HELD is not None:
        HELD.append(1)
        return np.sin(x) * len(HELD)
    return np.sin(x)


@pytest.mark.parametrize("mode", [mc.jacfwd, mc.jacrev], ids=["jacfwd", "jacrev"])
def test_a_global_rebound_between_calls_is_followed(mode):
    """held_state keeps the walk through f's names per function: a global rebound from None to a list f appends to
    must be seen as new state on the next call (each pass appends from the entry length)."""
    global HELD
    x = np.array([0.3, -0.2, 0.9])
    J = mode(reads_a_rebound_global)
    try:
        HELD = None
        _close(J(x), np.diag(np.cos(x)))
        for k in range(1, 4):
            HELD = [0] * k
            _close(J(x), np.diag(np.cos(x)) * (k + 1))
            assert len(HELD) == k + 1
    finally:
        HELD = None


# ---------------------------------------------------------------- several arguments, pytrees, aux, layouts


def two_args(a, b):
    return np.tanh(a) * b[0] + a * np.sum(b ** 2)


def tree_input(p):
    return np.sin(p["w"]) * p["s"] + p["v"][0] * p["v"][1]


def with_aux(x):
    y = np.sin(x) * np.sum(x)
    return y, {"norm": float(np.sum(x ** 2))}


def of_a_matrix(X):
    return np.tanh(X @ X.T)[0] * X[:, 1] + np.sum(X, axis=0)[0] * X[:, 2]


def of_a_number(x):
    return np.array([np.sin(x), x ** 3, np.exp(x) * x])


@pytest.mark.parametrize("mode", [mc.jacfwd, mc.jacrev], ids=["jacfwd", "jacrev"])
def test_tuple_argnums(mode):
    J = mode(two_args, argnums=(0, 1))
    for seed in range(2):
        r = np.random.default_rng(seed)
        a, b = r.normal(size=3), r.normal(size=4)
        Ja, Jb = J(a, b)
        _close(Ja, fd_jac(lambda v: two_args(v, b), a))
        _close(Jb, fd_jac(lambda v: two_args(a, v), b))


@pytest.mark.parametrize("mode", [mc.jacfwd, mc.jacrev], ids=["jacfwd", "jacrev"])
def test_pytree_input(mode):
    J = mode(tree_input)
    for seed in range(2):
        r = np.random.default_rng(seed)
        p = {"w": r.normal(size=3), "s": float(r.normal()), "v": (float(r.normal()), float(r.normal()))}
        got = J(p)
        _close(got["w"], fd_jac(lambda w: tree_input({**p, "w": w}), p["w"]))
        _close(got["s"], fd_jac(lambda s: tree_input({**p, "s": float(s)}), np.array(p["s"])))
        for k in range(2):
            def moved(t, k=k):
                v = list(p["v"])
                v[k] = float(t)
                return tree_input({**p, "v": tuple(v)})
            _close(got["v"][k], fd_jac(moved, np.array(p["v"][k])))


@pytest.mark.parametrize("mode", [mc.jacfwd, mc.jacrev], ids=["jacfwd", "jacrev"])
@pytest.mark.parametrize("n", [1, 8, 33])
def test_has_aux(mode, n):
    J = mode(with_aux, has_aux=True)
    x = np.random.default_rng(n).normal(size=n)
    got, aux = J(x)
    _close(got, fd_jac(lambda v: with_aux(v)[0], x))
    assert aux == {"norm": float(np.sum(x ** 2))}


@pytest.mark.parametrize("mode", [mc.jacfwd, mc.jacrev], ids=["jacfwd", "jacrev"])
def test_fortran_ordered_input(mode):
    J = mode(of_a_matrix)
    for seed in range(2):
        X = np.asfortranarray(np.random.default_rng(seed).normal(size=(3, 4)))
        got = J(X)
        assert got.shape == (3, 3, 4)
        _close(got, fd_jac(of_a_matrix, np.ascontiguousarray(X)))


@pytest.mark.parametrize("mode", [mc.jacfwd, mc.jacrev], ids=["jacfwd", "jacrev"])
def test_zero_dimensional_input(mode):
    J = mode(of_a_number)
    for x in (np.array(0.7), np.array(-1.3)):
        got = J(x)
        assert got.shape == (3,)
        _close(got, fd_jac(of_a_number, x))


# ---------------------------------------------------------------- arguments sharing memory


def pair(a, b):
    return np.sin(a) * b[: a.shape[0]] + a ** 2


@pytest.mark.parametrize("argnums", [0, 1, (0, 1)])
def test_shared_memory_jacfwd_agrees_with_jacrev(argnums):
    """One object passed twice, and a view of another argument: memory is what is differentiated, the same way
    in both modes (argument_overlap.py)."""
    x = np.random.default_rng(4).normal(size=6)
    for args in ((x, x), (x[:3], x), (x[2:5], x[1:])):
        fwd, rev = mc.jacfwd(pair, argnums=argnums)(*args), mc.jacrev(pair, argnums=argnums)(*args)
        for a, b in zip(fwd, rev) if isinstance(argnums, tuple) else ((fwd, rev),):
            _close(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("argnums", [0, 1, (0, 1)])
@pytest.mark.parametrize("n", [1, 5, 33])
@pytest.mark.parametrize("mode", [mc.jacfwd, mc.jacrev], ids=["jacfwd", "jacrev"])
def test_one_array_passed_twice_is_differentiated_as_its_memory(argnums, n, mode):
    """f(x, x): the derivative with respect to either position is the total derivative (DESIGN.md §2: one object,
    one tangent).  jacfwd with argnums=(0, 1) moved only the position a direction belonged to (a Jacobian off by
    the other position's part); it now sums both positions' directions into the one tangent of that memory."""
    x = np.random.default_rng(5 + n).normal(size=n)
    total = fd_jac(lambda v: pair(v, v), x)
    got = mode(pair, argnums=argnums)(x, x)
    for block in (got if isinstance(argnums, tuple) else (got,)):
        _close(block, total)


def scalar_pair(a, b):
    return np.sum(np.sin(a) * b ** 2) + np.sum(a ** 3) * b[0]


def test_hessian_of_one_array_passed_twice():
    x = np.random.default_rng(6).normal(size=4)
    total = fd_hessian(lambda v: scalar_pair(v, v), x)
    H = mc.hessian(scalar_pair, argnums=(0, 1))(x, x)
    for row in H:
        for block in row:
            _close(block, total, rtol=1e-4, atol=1e-5)
    _close(mc.hessian(scalar_pair)(x, x), total, rtol=1e-4, atol=1e-5)


# ---------------------------------------------------------------- Hessians


def fd_hessian(f, x, h=1e-4):
    """Second central differences of scalar f at array x."""
    x = np.asarray(x, dtype=float)
    n = x.size
    H = np.zeros((n, n))
    E = np.eye(n).reshape((n,) + x.shape) * h
    for i in range(n):
        for j in range(n):
            H[i, j] = (f(x + E[i] + E[j]) - f(x + E[i] - E[j]) - f(x - E[i] + E[j]) + f(x - E[i] - E[j])) / (4 * h * h)
    return H.reshape(x.shape + x.shape)


XM = RNG.normal(size=(6, 3))
YM = RNG.normal(size=6)


def mlp_loss(w):
    W1 = w[:6].reshape(3, 2)
    W2 = w[6:]
    h = np.tanh(XM @ W1)
    return np.mean((h @ W2 - YM) ** 2)


def in_place_loop_loss(x):
    y = np.zeros_like(x)
    y[0] = np.tanh(x[0])
    for i in range(1, x.shape[0]):
        y[i] = 0.5 * y[i - 1] + np.tanh(x[i]) * x[i - 1]
    return np.sum(y * y)


class Quadratic:
    def __init__(self, n):
        M = RNG.normal(size=(n, n))
        self.M = M @ M.T / n

    def energy(self, x):
        return 0.5 * x @ (self.M @ x) + np.sum(np.cos(x) * x ** 2)


@pytest.mark.parametrize("n", [1, 2, 8])
@pytest.mark.parametrize("f", [in_place_loop_loss, "method"], ids=["in_place_loop", "class_method"])
def test_hessians_agree_with_second_differences(f, n):
    if f == "method":
        f = Quadratic(n).energy
    H = mc.hessian(f)
    for seed in range(2):
        x = np.random.default_rng(seed).normal(size=n)
        _close(H(x), fd_hessian(f, x), rtol=1e-4, atol=1e-5)


def test_mlp_loss_hessian():
    H = mc.hessian(mlp_loss)
    for seed in range(2):
        w = np.random.default_rng(seed).normal(size=8)
        got = H(w)
        _close(got, fd_hessian(mlp_loss, w), rtol=1e-4, atol=1e-5)
        _close(got, got.T, rtol=1e-10, atol=1e-12)
        for k in range(3):  # (each column a Hessian-vector product: the same as mc.hvp's)
            e = np.zeros(8)
            e[k] = 1.0
            _close(got[:, k], mc.hvp(mlp_loss, (w,), (e,)), rtol=1e-10, atol=1e-12)


def test_hessian_columns_take_the_short_path(monkeypatch):
    """A plain scalar function's Hessian: each column by hvp_fast, never the general path (jvp's checks, fcall and
    hvp_core per column: 19x a gradient each at n = 8)."""
    from mooncake_ast.rules import hvp_core as general

    calls = []
    real = general.hvp_core

    def counting(*a, **k):
        calls.append(1)
        return real(*a, **k)

    monkeypatch.setattr(general, "hvp_core", counting)
    import mooncake_ast.rules.api_rules as api_rules

    monkeypatch.setattr(api_rules, "hvp_core", counting)  # (where the general path looks it up)
    w = np.random.default_rng(3).normal(size=8)
    _close(mc.hessian(mlp_loss)(w), fd_hessian(mlp_loss, w), rtol=1e-4, atol=1e-5)
    assert not calls


def test_hessian_with_tuple_argnums_and_aux():
    def loss(a, b):
        return np.sum(np.sin(a) * b) + np.sum(a ** 2) * b[0], {"n": 1}

    a, b = np.array([0.3, -0.4]), np.array([1.2, 0.5])
    H, aux = mc.hessian(loss, argnums=(0, 1), has_aux=True)(a, b)
    assert aux == {"n": 1}
    flat = lambda v: loss(v[:2], v[2:])[0]  # noqa: E731
    full = fd_hessian(flat, np.concatenate([a, b]))
    _close(H[0][0], full[:2, :2], rtol=1e-4, atol=1e-5)
    _close(H[0][1], full[:2, 2:], rtol=1e-4, atol=1e-5)
    _close(H[1][0], full[2:, :2], rtol=1e-4, atol=1e-5)
    _close(H[1][1], full[2:, 2:], rtol=1e-4, atol=1e-5)


def test_the_batched_pass_is_taken_for_these_functions():
    """jacfwd of the vector functions above goes through one batched pass (else the tests above would only check
    the one-direction-at-a-time fallback)."""
    for f in (branchy, matrix_product):  # (looped and in_place write a batch into an array's tangent: refused)
        x = np.random.default_rng(0).normal(size=8)
        mc.jacfwd(f)(x)
        assert (f.__code__, ((8,),)) not in higher._NO_BATCH, f.__name__


# ---------------------------------------------------------------- generated code that writes nothing (pure_forward.py)

GEN = np.random.default_rng(0)
LOG = []
def writes_in_place(x):
    x[0] = 1.0
    return np.sin(x) * x


def ufunc_positional_out(x):
    np.multiply(x, 2.0, x)
    return np.sin(x)


def ufunc_keyword_out(x):
    np.multiply(x, 2.0, out=x)
    return np.sin(x)


def draws_globally(x):
    return np.sin(x) * np.random.normal(size=x.shape)


def draws_from_a_generator(x):
    return np.sin(x) * GEN.normal(size=x.shape)


def appends_to_a_list(x):
    LOG.append(1)
    return np.sin(x) * len(LOG)


def sorts_in_place(x):
    y = np.sin(x)
    y.sort()
    return y * x


def dot_positional_out(x):
    out = np.zeros(4)
    np.dot(np.eye(4), x, out)
    return np.sin(out) * x


def method_positional_out(x):
    s = np.zeros(())
    x.sum(0, None, s)
    return np.sin(x) * s


def _helper(x):
    return np.cos(x)


def calls_a_helper(x):
    return _helper(x) * x


IMPURE = [writes_in_place, ufunc_positional_out, ufunc_keyword_out, draws_globally, draws_from_a_generator,
          appends_to_a_list, sorts_in_place, calls_a_helper, dot_positional_out, method_positional_out, looped, branchy,
          in_place, writes_its_argument]


@pytest.mark.parametrize("f", IMPURE, ids=lambda f: f.__name__)
def test_code_that_may_write_is_not_taken_for_pure(f):
    from mooncake_ast import pure_forward
    from mooncake_ast.forward.runtime import fast_forward_rule

    try:
        rule = fast_forward_rule(f, (np.ones(4),), None)
    except Exception:  # (no forward code for it: nothing to judge)
        return
    assert rule is None or not pure_forward.writes_nothing(rule.fn)


def test_straight_numpy_code_is_pure_until_a_name_it_reads_is_rebound():
    from mooncake_ast import pure_forward
    from mooncake_ast.forward.runtime import fast_forward_rule

    rule = fast_forward_rule(pure_numpy, (np.ones(4),), None)
    assert pure_forward.writes_nothing(rule.fn)
    names = vars(pure_cases)
    saved = names["W4"]
    try:
        names["W4"] = [0.5, -1.0, 2.0, 0.25]  # (a list: not a numeric array any more, its `*` not NumPy's)
        assert not pure_forward.writes_nothing(rule.fn)
    finally:
        names["W4"] = saved
    assert pure_forward.writes_nothing(rule.fn)


@pytest.mark.parametrize("f", [pure_numpy, draws_from_a_generator, appends_to_a_list, sorts_in_place,
                               ufunc_keyword_out], ids=lambda f: f.__name__)
@pytest.mark.parametrize("mode", [mc.jacfwd, mc.jacrev], ids=["jacfwd", "jacrev"])
def test_jacobians_of_code_pure_or_not_agree_with_finite_differences(f, mode):
    """Each Jacobian is one evaluation at the entry state: the generator, the log, the argument are where one
    plain call leaves them, and the Jacobian that of the function at the entry state."""
    global GEN
    for seed in range(2):
        x = np.random.default_rng(seed).normal(size=4)
        GEN = np.random.default_rng(5)
        LOG.clear()

        def at_entry(v):
            global GEN
            GEN = np.random.default_rng(5)
            LOG.clear()
            return f(v.copy())

        want = fd_jac(at_entry, x)
        GEN = np.random.default_rng(5)
        LOG.clear()
        x_in = x.copy()
        _close(mode(f)(x_in), want)
        assert len(LOG) == (1 if f is appends_to_a_list else 0)
        if f is ufunc_keyword_out:
            _close(x_in, 2.0 * x)
