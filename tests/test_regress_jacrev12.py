"""jacrev12: a pullback called many times (on one tape where it can be kept whole), and jacrev from one forward pass.

Every call of a pullback must give what a fresh mc.vjp gives, whether the tape was kept (reverse/generate.py's
`stack_slots`: nothing written the caller reaches, no other call's pullback handed on) or the forward pass runs
again; jacrev (one forward pass, one pullback per row where the tape is kept: jacobian_rows.py) must agree with
jacfwd and with central finite differences on n -> m functions with loops, branches, in-place writes and objects.
"""
import copy
import math

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.reverse.runtime import rcall, reusable

RNG = np.random.default_rng(12)


# ---------------------------------------------------------------- functions, each n -> m

def plain_map(x):
    return np.tanh(x) * x[::-1] + 0.5 * np.sin(x)


def loop_with_break(x):
    s = x.copy()
    for i in range(6):
        s = np.sin(s) * x + 0.1 * i
        if np.sum(s) > 4.0:
            break
    return s[:3] * 2.0


def while_stack(x):
    s = x * 1.0
    k = 0
    while k < 4:
        if s[0] > 0.0:
            s = s * x + 1.0
        else:
            s = s - 0.5 * x
        k += 1
    return s


def scalar_loop(x):
    out = np.zeros(2)
    total = 0.0
    for v in x:
        total = total + math.sin(v) * v
    out = out + total
    return out * np.array([1.0, -2.0])


def in_place_rows(x):
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        out[i] = x[i] * x[(i + 1) % x.shape[0]]
    out *= 1.5
    return out


def local_in_place(x):
    tmp = x.copy()
    tmp[1:] += tmp[:-1] * 0.5
    y = tmp * tmp
    tmp[0] = 3.0
    return y + tmp


def appended_rows(x):
    rows = []
    for i in range(3):
        rows.append(x * (i + 1.0) + x[i])
    return np.concatenate(rows)[::2]


def helper(v, c):
    s = 0.0
    for t in v:
        s = s + t * c
    return s * v


def calls_helper(x):
    return helper(np.sin(x), 0.7) + helper(x, 1.3)


class Scaler:
    def __init__(self, w):
        self.w = w

    def apply(self, x):
        return np.tanh(self.w * x) + self.w


def with_object(x):
    s = Scaler(x[0])
    return s.apply(x) * x


def dict_params(x, p):
    return p["a"] * np.sin(x) + p["b"] * x ** 2


def make_closure(c):
    def closed(x):
        acc = x * c
        for i in range(2):
            acc = np.cos(acc) + x
        return acc
    return closed


def branchy(x):
    y = np.empty(x.shape[0] + 1)
    for i in range(x.shape[0]):
        if x[i] > 0.3:
            y[i] = x[i] ** 2
        else:
            y[i] = -x[i] * 3.0
    y[-1] = np.sum(x * x)
    return y


def power(t, n):
    if n == 0:
        return 1.0
    return t * power(t, n - 1)


def numbers_recursion(x):
    out = []
    for i in range(x.shape[0]):
        out.append(power(float(x[i]), 3) + power(float(x[i - 1]), 2))
    return np.array(out) * x


def calls_in_loop(x):
    acc = np.zeros(3)
    for i in range(x.shape[0]):
        acc = acc + power(float(x[i]), i % 3 + 1) * np.array([1.0, -0.5, 2.0])
    return acc


FUNCTIONS = [plain_map, loop_with_break, while_stack, scalar_loop, in_place_rows, local_in_place, appended_rows,
             calls_helper, with_object, make_closure(0.8), branchy, numbers_recursion, calls_in_loop]


def fd_jacobian(f, x, eps=1e-6):
    cols = []
    for j in range(x.size):
        e = np.zeros_like(x)
        e[j] = eps
        cols.append((np.asarray(f(x + e), dtype=float) - np.asarray(f(x - e), dtype=float)).reshape(-1) / (2 * eps))
    return np.stack(cols, axis=1)


def point(n=5):
    return RNG.uniform(-0.9, 0.9, size=n)


# ---------------------------------------------------------------- a pullback called many times

@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("calls", [2, 3, 5])
def test_pullback_called_again_equals_a_fresh_one(f, calls):
    x = point()
    y, pb = mc.vjp(f, x.copy())
    seeds = [RNG.normal(size=np.shape(y)) for _ in range(calls)]
    got = [pb(s)[0] for s in seeds]
    for s, g in zip(seeds, got):
        _, fresh = mc.vjp(f, x.copy())
        np.testing.assert_allclose(g, fresh(s)[0], rtol=1e-12, atol=1e-14)
    again = pb(seeds[0])[0]  # (and once more with the first cotangent: the tape is still whole)
    np.testing.assert_allclose(again, got[0], rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("calls", [2, 4])
def test_pullback_of_dict_params_and_lists_called_again(calls):
    x, p = point(4), {"a": 0.7, "b": -1.2}
    y, pb = mc.vjp(dict_params, x, p)
    for _ in range(calls):
        s = RNG.normal(size=4)
        gx, gp = pb(s)
        _, fresh = mc.vjp(dict_params, x.copy(), dict(p))
        fx, fp = fresh(s)
        np.testing.assert_allclose(gx, fx, rtol=1e-12)
        assert gp.keys() == fp.keys() and all(gp[k] == pytest.approx(fp[k], rel=1e-12) for k in gp)


def push_and_scale(x, xs):
    xs.append(float(np.sum(x)))
    x *= 2.0
    return x * xs[-1]


@pytest.mark.parametrize("calls", [2, 3, 5])
def test_pullback_that_writes_its_arguments_called_again(calls):
    x0 = point(3)
    x, xs = x0.copy(), [1.0]
    y, pb = mc.vjp(push_and_scale, x, xs)
    after_x, after_xs = x.copy(), list(xs)
    for _ in range(calls):
        s = RNG.normal(size=3)
        gx, gxs = pb(s)
        _, fresh = mc.vjp(push_and_scale, x0.copy(), [1.0])
        fx, fxs = fresh(s)
        np.testing.assert_allclose(gx, fx, rtol=1e-12)
        np.testing.assert_array_equal(x, after_x)  # the caller sees the plain call's effect, every time
        assert xs == after_xs


# ---------------------------------------------------------------- which tapes are kept

@pytest.mark.parametrize("f, kept", [(plain_map, True), (loop_with_break, True), (while_stack, True),
                                     (scalar_loop, True), (calls_in_loop, True),
                                     (in_place_rows, False), (local_in_place, False), (appended_rows, False)],
                         ids=lambda v: getattr(v, "__name__", str(v)))
def test_tape_kept_only_where_the_pullback_writes_nothing(f, kept):
    _, pb = rcall(f, (point(),), {})
    assert reusable(pb) is kept
    if kept:  # (a kept tape: the derived pullback itself gives the same adjoints twice)
        s = RNG.normal(size=np.shape(f(point())))
        first = pb(s)[1][0]
        np.testing.assert_allclose(pb(s)[1][0], first, rtol=1e-14)


# ---------------------------------------------------------------- jacrev against jacfwd and differences

@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("n", [3, 6])
def test_jacrev_agrees_with_jacfwd_and_differences(f, n):
    x = point(n)
    before = x.copy()
    J = mc.jacrev(f)(x)
    np.testing.assert_array_equal(x, before)
    np.testing.assert_allclose(J, mc.jacfwd(f)(x.copy()), rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(J, fd_jacobian(lambda v: f(v.copy()), x), rtol=1e-5, atol=1e-7)


def two_args(x, y):
    z = np.outer(x, y).ravel()
    for i in range(2):
        z = np.sin(z) + z * y[0]
    return z[: x.size + 1]


@pytest.mark.parametrize("argnums", [0, 1, (0, 1)])
def test_jacrev_argnums_has_aux_and_keywords(argnums):
    x, y = point(3), point(2)
    J = mc.jacrev(two_args, argnums=argnums)(x, y)
    Jf = mc.jacfwd(two_args, argnums=argnums)(x, y)
    for a, b in zip(J if isinstance(argnums, tuple) else (J,), Jf if isinstance(argnums, tuple) else (Jf,)):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-11)
    aux_f = lambda x, y: (two_args(x, y), "aux")  # noqa: E731
    Ja, aux = mc.jacrev(aux_f, argnums=argnums, has_aux=True)(x, y)
    assert aux == "aux"
    for a, b in zip(Ja if isinstance(argnums, tuple) else (Ja,), J if isinstance(argnums, tuple) else (J,)):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    Jk = mc.jacrev(two_args, argnums=0)(x, y=y)  # (a keyword: mc.vjp's general path)
    np.testing.assert_allclose(Jk, Jf[0] if isinstance(argnums, tuple) else mc.jacfwd(two_args)(x, y), rtol=1e-9)


def scalar_result(x):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + math.cos(x[i]) * x[i]
    return s


def tuple_result(x):
    return np.sin(x) * 2.0, float(np.sum(x ** 3))


def test_jacrev_of_scalar_and_tuple_results():
    x = point(4)
    np.testing.assert_allclose(mc.jacrev(scalar_result)(x), mc.grad(scalar_result)(x), rtol=1e-12)
    a, b = mc.jacrev(tuple_result)(x)
    fa, fb = mc.jacfwd(tuple_result)(x)
    np.testing.assert_allclose(a, fa, rtol=1e-10)
    np.testing.assert_allclose(b, fb, rtol=1e-10)
    assert mc.jacrev(lambda t: t * math.sin(t))(0.7) == pytest.approx(math.sin(0.7) + 0.7 * math.cos(0.7))


def test_jacrev_of_an_object_method_and_float32():
    s = Scaler(0.4)
    x = point(4)
    np.testing.assert_allclose(mc.jacrev(s.apply)(x), mc.jacfwd(s.apply)(x), rtol=1e-10)
    x32 = x.astype(np.float32)
    np.testing.assert_allclose(mc.jacrev(plain_map)(x32), mc.jacfwd(plain_map)(x32), rtol=1e-5)


# ---------------------------------------------------------------- second order

def energy(x):
    e = 0.0
    for i in range(x.shape[0] - 1):
        e = e + (x[i + 1] - x[i] ** 2) ** 2 + 0.1 * math.sin(x[i])
    return e


@pytest.mark.parametrize("n", [3, 5])
def test_jacrev_of_grad_is_the_hessian(n):
    x = point(n)
    H = mc.jacrev(mc.grad(energy))(x)
    np.testing.assert_allclose(H, mc.hessian(energy)(x), rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(H, fd_jacobian(mc.grad(energy), x), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(H, H.T, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("f", [plain_map, while_stack, branchy], ids=lambda f: f.__name__)
def test_jacrev_of_jacrev_and_jacfwd_of_jacrev(f):
    x = point(3)
    inner = mc.jacrev(f)
    T = mc.jacfwd(inner)(x)
    np.testing.assert_allclose(T, fd_jacobian(lambda v: mc.jacfwd(f)(v), x).reshape(T.shape), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(mc.jacrev(inner)(x), T, rtol=1e-9, atol=1e-11)


def test_vjp_pullback_of_a_deepcopy_of_the_arguments_unchanged():
    x = point(4)
    keep = copy.deepcopy(x)
    _, pb = mc.vjp(while_stack, x)
    for _ in range(3):
        pb(RNG.normal(size=4))
    np.testing.assert_array_equal(x, keep)
