"""Higher-order derivatives (issue 10): jacfwd, jacrev, hessian, hvp and nesting of the entry points,
checked against finite differences of lower-order derivatives (central differences, several points)."""
import numpy as np
import pytest

import mooncake_ast as mc
from tests.helpers import fd_jac

RNG = np.random.default_rng(7)


def fd_scalar(f, x, eps=1e-5):
    return (f(x + eps) - f(x - eps)) / (2 * eps)


# ---------------------------------------------------------------- functions under test


def wiggle(x):
    """A scalar function with a loop and a branch."""
    s = x
    for i in range(3):
        if s > 1.0:
            s = s * 0.5 + np.sin(s)
        else:
            s = s ** 3 / 3.0 + np.exp(-s)
    return s


def poly_loop(x):
    acc = 0.0
    k = 1.0
    while k < 4.0:
        acc = acc + np.cos(k * x) / k
        k = k + 1.0
    if acc > 0:
        return acc * x
    return acc - x * x


def mlp_loss(W1, b1, W2, b2, X):
    h = np.tanh(X @ W1 + b1)
    out = h @ W2 + b2
    return np.mean(out ** 2)


def inplace_loop(x):
    y = np.zeros_like(x)
    y[0] = np.tanh(x[0])
    for i in range(1, len(x)):
        y[i] = 0.5 * y[i - 1] + np.tanh(x[i])
    return np.sum(y ** 2)


class Energy:
    def __init__(self, a):
        self.a = a

    def energy(self, x):
        return np.sum(self.a * x ** 3) + np.sin(x[0] * x[1])


def vec_fn(x):
    y = np.empty(3)
    y[0] = x[0] * x[1]
    y[1] = np.sin(x[2]) + x[0] ** 2
    y[2] = np.exp(x[1]) * x[3]
    return y


def inplace_vec(x):
    out = np.zeros_like(x)
    out[0] = np.tanh(x[0])
    for i in range(1, len(x)):
        out[i] = 0.5 * out[i - 1] * x[i] + np.tanh(x[i])
    return out


# ---------------------------------------------------------------- third derivatives of scalar functions


@pytest.mark.parametrize("f", [wiggle, poly_loop])
@pytest.mark.parametrize("x", [0.3, 0.9, 1.7])
def test_third_derivative_grad_grad_grad(f, x):
    d2 = mc.grad(mc.grad(f))
    d3 = mc.grad(d2)(x)
    assert d3 == pytest.approx(fd_scalar(d2, x), rel=1e-5, abs=1e-6)
    assert mc.grad(f)(x) == pytest.approx(fd_scalar(f, x), rel=1e-6, abs=1e-7)


@pytest.mark.parametrize("x", [0.4, 1.3])
def test_third_derivative_mixed_nestings(x):
    d2 = mc.grad(mc.grad(wiggle))
    want = fd_scalar(d2, x)
    assert mc.jvp(mc.grad(mc.grad(wiggle)), (x,), (1.0,))[1] == pytest.approx(want, rel=1e-5)
    assert mc.grad(lambda y: mc.jvp(mc.grad(wiggle), (y,), (1.0,))[1])(x) == pytest.approx(want, rel=1e-5)
    assert mc.jvp(lambda y: mc.jvp(mc.grad(wiggle), (y,), (1.0,))[1], (x,), (1.0,))[1] == pytest.approx(want, rel=1e-5)


# ---------------------------------------------------------------- Hessians


def _mlp_args(rng, n_in=3, n_hidden=4, n=5):
    return (rng.normal(size=(n_in, n_hidden)), rng.normal(size=n_hidden), rng.normal(size=(n_hidden, 1)),
            rng.normal(size=1), rng.normal(size=(n, n_in)))


def test_hessian_mlp_loss_against_fd():
    args = _mlp_args(RNG)
    H = mc.hessian(mlp_loss, argnums=0)(*args)
    assert H.shape == (3, 4, 3, 4)
    fd = fd_jac(lambda W: mc.grad(mlp_loss)(W, *args[1:]), args[0])
    np.testing.assert_allclose(H, fd, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(H.reshape(12, 12), H.reshape(12, 12).T, atol=1e-10)


def test_hessian_mlp_tuple_argnums_blocks():
    args = _mlp_args(RNG)
    H = mc.hessian(mlp_loss, argnums=(1, 3))(*args)
    assert isinstance(H, tuple) and len(H) == 2 and all(isinstance(r, tuple) and len(r) == 2 for r in H)
    assert H[0][0].shape == (4, 4) and H[0][1].shape == (4, 1) and H[1][0].shape == (1, 4) and H[1][1].shape == (1, 1)
    fd = fd_jac(lambda b1: mc.grad(mlp_loss, argnums=3)(args[0], b1, args[2], args[3], args[4]), args[1])
    np.testing.assert_allclose(H[1][0], fd, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("n", [3, 6])
def test_hessian_inplace_loop(n):
    x = RNG.normal(size=n)
    before = x.copy()
    H = mc.hessian(inplace_loop)(x)
    np.testing.assert_array_equal(x, before)
    np.testing.assert_allclose(H, fd_jac(mc.grad(inplace_loop), x), rtol=1e-5, atol=1e-7)


def test_hessian_of_a_method():
    obj = Energy(np.array([0.5, -1.0, 2.0]))
    x = RNG.normal(size=3)
    H = mc.hessian(obj.energy)(x)
    np.testing.assert_allclose(H, fd_jac(lambda v: mc.grad(obj.energy)(v), x), rtol=1e-5, atol=1e-7)


def test_hessian_of_scalar_is_scalar_and_hvp():
    H = mc.hessian(wiggle)(0.7)
    assert np.ndim(H) == 0 and float(H) == pytest.approx(fd_scalar(mc.grad(wiggle), 0.7), rel=1e-6)
    args = _mlp_args(RNG)
    v = RNG.normal(size=args[0].shape)
    b1, W2, b2, X = args[1:]
    f = lambda W: mlp_loss(W, b1, W2, b2, X)  # noqa: E731  (a closure over arrays)
    Hv = mc.hvp(f, (args[0],), (v,))
    want = (mc.grad(f)(args[0] + 1e-6 * v) - mc.grad(f)(args[0] - 1e-6 * v)) / 2e-6
    np.testing.assert_allclose(Hv, want, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(mc.jvp(mc.grad(f), (args[0],), (v,))[1], Hv, rtol=1e-10)


# ---------------------------------------------------------------- Jacobians both ways


@pytest.mark.parametrize("f,n", [(vec_fn, 4), (inplace_vec, 5), (np.tanh, 3)])
def test_jacobians_both_ways(f, n):
    for _ in range(2):
        x = RNG.normal(size=n)
        before = x.copy()
        Jf = mc.jacfwd(f)(x)
        Jr = mc.jacrev(f)(x)
        np.testing.assert_array_equal(x, before)
        np.testing.assert_allclose(Jf, Jr, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(Jf, fd_jac(f, x), rtol=1e-5, atol=1e-7)


def test_jacobian_layout_pytrees_and_argnums():
    def f(p, s):
        return {"u": p["a"] * s, "v": (np.sum(p["b"] ** 2) * s, p["a"][:2])}

    p = {"a": RNG.normal(size=3), "b": RNG.normal(size=(2, 2))}
    s = 0.7
    for jac in (mc.jacfwd, mc.jacrev):
        J = jac(f, argnums=(0, 1))(p, s)
        assert set(J) == {"u", "v"}
        Jua, Jus = J["u"][0]["a"], J["u"][1]
        assert Jua.shape == (3, 3) and np.shape(Jus) == (3,)
        np.testing.assert_allclose(Jua, s * np.eye(3))
        np.testing.assert_allclose(Jus, p["a"])
        assert J["v"][0][0]["b"].shape == (2, 2) and np.ndim(J["v"][0][1]) == 0
        np.testing.assert_allclose(J["v"][0][0]["b"], 2 * s * p["b"])
        assert J["v"][1][0]["a"].shape == (2, 3) and J["v"][1][0]["b"].shape == (2, 2, 2)
        Js = jac(f, argnums=1)(p, s)
        np.testing.assert_allclose(Js["u"], p["a"])


def test_jacobian_has_aux():
    def f(x):
        return np.sin(x) * x[0], {"norm": float(np.sum(x ** 2))}

    x = RNG.normal(size=3)
    for jac in (mc.jacfwd, mc.jacrev):
        J, aux = jac(f, has_aux=True)(x)
        np.testing.assert_allclose(J, fd_jac(lambda v: f(v)[0], x), rtol=1e-6, atol=1e-8)
        assert aux["norm"] == pytest.approx(np.sum(x ** 2))


def test_scalar_to_scalar_jacobians_are_scalars():
    for jac in (mc.jacfwd, mc.jacrev):
        d = jac(np.sin)(0.3)
        assert np.ndim(d) == 0 and float(d) == pytest.approx(np.cos(0.3))


# ---------------------------------------------------------------- nestings of grad and jvp


def test_grad_grad_jvp_grad_grad_jvp_agree():
    def f(x, y):
        return np.sum(np.sin(x) * y ** 2) + np.prod(x[:2])

    x, y = RNG.normal(size=3), RNG.normal(size=3)
    v = RNG.normal(size=3)
    H = fd_jac(lambda a: mc.grad(f)(a, y), x)
    np.testing.assert_allclose(mc.jvp(mc.grad(f), (x, y), (v, None))[1], H @ v, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(mc.grad(lambda a: mc.jvp(f, (a, y), (v, None))[1])(x), H @ v, rtol=1e-5, atol=1e-7)
    # mixed partials: jvp of grad wrt x in a y direction
    Hxy = fd_jac(lambda b: mc.grad(f)(x, b), y)
    np.testing.assert_allclose(mc.jvp(mc.grad(f), (x, y), (None, v))[1], Hxy @ v, rtol=1e-5, atol=1e-7)
    g2 = mc.grad(lambda a: np.sum(mc.grad(f)(a, y) * v))(x)
    np.testing.assert_allclose(g2, H @ v, rtol=1e-5, atol=1e-7)


def test_value_and_grad_nested():
    f = lambda x: np.sin(x) * x ** 2  # noqa: E731
    val, (dv, dg) = mc.jvp(mc.value_and_grad(f), (0.8,), (1.0,))
    assert dv == pytest.approx(fd_scalar(f, 0.8), rel=1e-6)
    assert dg == pytest.approx(fd_scalar(mc.grad(f), 0.8), rel=1e-6)
    assert mc.grad(lambda x: mc.value_and_grad(f)(x)[1])(0.8) == pytest.approx(dg, rel=1e-9)


# ---------------------------------------------------------------- reusable pullbacks


def scale_in_place(x, xs):
    x *= 2.0
    xs.append(np.sum(x ** 2))
    for i in range(len(x)):
        x[i] = x[i] * np.sin(x[i])
    return x * xs[-1]


@pytest.mark.parametrize("seed", [0, 1])
def test_vjp_pullback_called_many_times_with_mutation(seed):
    rng = np.random.default_rng(seed)
    x0 = rng.normal(size=4)
    x, xs = x0.copy(), [1.0]
    y, pb = mc.vjp(scale_in_place, x, xs)
    after_x, after_xs = x.copy(), list(xs)
    np.testing.assert_allclose(y, scale_in_place(x0.copy(), [1.0]))
    rows = []
    for k in range(4):
        e = np.zeros(4)
        e[k] = 1.0
        gx, gxs = pb(e)
        rows.append(gx)
        np.testing.assert_array_equal(x, after_x)  # the caller sees the plain call's effect, every time
        assert xs == after_xs
        assert len(gxs) == 1
    fd = fd_jac(lambda v: scale_in_place(v.copy(), [1.0]), x0)
    np.testing.assert_allclose(np.array(rows), fd, rtol=1e-5, atol=1e-7)
    again, _ = pb(np.eye(4)[2])
    np.testing.assert_allclose(again, rows[2], rtol=1e-12)


def nested_loops(x):
    s = x * 1.0
    for i in range(3):
        for j in range(i):
            s = np.sin(s) * x[j]
    return s


def write_into(a, c):
    a[0] = a[0] * a[1] * c
    a *= c
    return a


def calls_a_writer(x):
    z = x.copy()
    w = write_into(z, x[2])
    for _ in range(2):
        w = write_into(w, x[0])
    return w * z


@pytest.mark.parametrize("f", [nested_loops, calls_a_writer])
def test_vjp_pullback_called_again_on_its_tape(f):
    """A pullback that keeps its tape (reverse/generate.reusable_tape: stacks of nested loops popped from copies) or
    holds the pullback of a call that writes its argument (runtime.reusable: the forward pass runs again): each
    call gives the same row, as jacfwd does."""
    x = np.array([0.3, 0.7, 1.1])
    _, pb = mc.vjp(f, x)
    J = mc.jacfwd(f)(x)
    for e in (np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 3.0]), np.eye(3)[1]):
        np.testing.assert_allclose(pb(e)[0], J.T @ e, rtol=1e-10)


# ---------------------------------------------------------------- honest refusals


def test_grad_grad_of_a_method_and_a_closure_made_outside():
    obj = Energy(np.array([0.5, -1.0, 2.0]))
    x = RNG.normal(size=3)
    v = RNG.normal(size=3)
    H = fd_jac(mc.grad(obj.energy), x)
    g_energy = mc.grad(obj.energy)  # made outside: its object is a constant of the outer derivative
    np.testing.assert_allclose(mc.grad(lambda y: np.sum(g_energy(y) * v))(x), H @ v, rtol=1e-5, atol=1e-7)
    with pytest.raises(mc.NestingError):  # made inside: its object could be differentiated, so refused
        mc.grad(lambda y: np.sum(mc.grad(obj.energy)(y) * v))(x)
    k = 1.7
    g = lambda t: np.sin(k * t) * t  # noqa: E731  (captures k, a constant here)
    d3 = mc.grad(mc.grad(mc.grad(g)))(0.4)
    assert d3 == pytest.approx(fd_scalar(mc.grad(mc.grad(g)), 0.4), rel=1e-5)


def test_grad_made_inside_differentiated_code():
    f = lambda t: t ** 3  # noqa: E731
    assert mc.grad(lambda x: mc.grad(f)(x) * x)(0.7) == pytest.approx(3 * 3 * 0.7 ** 2, rel=1e-9)
    assert mc.grad(lambda x: mc.grad(lambda t: t ** 3)(x))(0.7) == pytest.approx(6 * 0.7, rel=1e-9)


def test_hessians_of_closures_over_numbers_tuples_and_arrays():
    a, pair, w = 0.7, (0.7, np.arange(1.0, 4.0)), np.arange(1.0, 4.0)
    x = RNG.normal(size=3)
    for f in (lambda v: np.sum(np.sin(a * v)), lambda v: np.sum(np.sin(pair[0] * v) * pair[1]),
              lambda v: np.sum(np.tanh(v * w) ** 2)):
        np.testing.assert_allclose(mc.hessian(f)(x), fd_jac(mc.grad(f), x), rtol=1e-5, atol=1e-7)


def test_closures_over_differentiated_values_and_refused_nesting():
    """A closure made inside differentiated code that captures what is differentiated: computed in both modes now
    (rules/nested_closures.py; tests/test_nested_closures.py), once refused; mc.vjp inside stays an error."""
    def outer(k):
        return mc.grad(lambda t: k * t ** 2)(k)  # the inner function captures the differentiated k

    want = (outer(1.5 + 1e-6) - outer(1.5 - 1e-6)) / 2e-6
    np.testing.assert_allclose(mc.grad(outer)(1.5), want, rtol=1e-6)
    np.testing.assert_allclose(mc.jvp(outer, (1.5,), (1.0,))[1], want, rtol=1e-6)
    with pytest.raises(mc.MooncakeError):
        mc.grad(lambda x: mc.vjp(np.sin, x)[1](1.0)[0])(0.3)
    for k0 in (2.0, np.array([2.0, 1.0])):  # a closure made inside differentiated code, capturing what is differentiated
        g = lambda k: np.sum(mc.jvp(lambda t: k * t ** 2, (1.5,), (1.0,))[1])  # noqa: E731
        mc.testing.check_derivatives(g, k0, modes=("reverse",))


# ---------------------------------------------------------------- batched forward mode


A8 = np.random.default_rng(3).normal(size=(8, 8))


def elementwise(x):
    return np.tanh(x) * x + np.sin(x) ** 2 / (1.0 + x * x)


def matvec(x):
    h = np.tanh(A8 @ x)
    return h * x + A8.T @ h


def reduces(x):
    return np.tanh(x) * np.sum(x ** 2) + x[::-1] * x[0]


@pytest.mark.parametrize("f", [elementwise, matvec, reduces, inplace_vec])
def test_jacfwd_batched_or_not_is_right(f):
    from mooncake_ast import higher

    for seed in range(2):
        x = np.random.default_rng(seed).normal(size=8)
        J = mc.jacfwd(f)(x)
        np.testing.assert_allclose(J, fd_jac(f, x), rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(J, mc.jacrev(f)(x), rtol=1e-9, atol=1e-11)
    batched = (f.__code__, ((8,),)) not in higher._NO_BATCH
    if f in (matvec, reduces):  # matrix products, reductions and reads by index carry the batch
        assert batched
    if f is inplace_vec:  # writes into fresh arrays do not: one direction at a time, after the probe
        assert not batched


def test_source_of_a_gradient_in_forward_mode_is_the_hvp_module():
    x = RNG.normal(size=3)
    mc.hessian(inplace_loop)(x)
    text = mc.source(mc.grad(inplace_loop), "forward")
    assert "Reverse-mode derivative of inplace_loop__jvp" in text


# ---------------------------------------------------------------- fast paths: one-pass jvp of grad, cached layouts


def scaled_loss(x, c, k):
    return c * np.sum(np.sin(x) * x ** 2) + k * x[0] * x[-1]


@pytest.mark.parametrize("seed", range(3))
def test_jvp_of_grad_gives_gradient_and_hvp_from_one_pass(seed):
    rng = np.random.default_rng(seed)
    W1, b1, W2, b2, X = _mlp_args(rng)
    args = (W1, b1, W2, b2, X)
    v = tuple(rng.normal(size=a.shape) for a in args[:4])
    keep = [a.copy() for a in (*args, *v)]
    g = mc.grad(mlp_loss, argnums=(0, 1, 2, 3))
    gv, hv = mc.jvp(g, args, (*v, None))
    for a, b in zip(gv, g(*args)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    for a, b in zip(hv, mc.hvp(mlp_loss, args, (*v, None))[:4]):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    for a, b in zip((*args, *v), keep):  # neither the arguments nor the caller's tangents change
        np.testing.assert_array_equal(a, b)
    # mixed arguments (an array, a float and an int constant), a tangent that is the primal itself
    x = rng.normal(size=5)
    gs = mc.grad(scaled_loss)
    gx, hx = mc.jvp(gs, (x, 1.3, 2), (x, None, None))
    np.testing.assert_allclose(gx, gs(x, 1.3, 2), rtol=1e-12)
    np.testing.assert_allclose(hx, fd_jac(lambda z: gs(z, 1.3, 2), x) @ x, rtol=1e-5, atol=1e-7)
    # a float argument differentiated
    g1 = mc.grad(scaled_loss, argnums=1)
    d1, h1 = mc.jvp(g1, (x, 1.3, 2), (x, 0.5, None))
    assert abs(d1 - g1(x, 1.3, 2)) <= 1e-12 * (1 + abs(d1))
    np.testing.assert_allclose(h1, fd_scalar(lambda c: g1(x + c * x, 1.3 + 0.5 * c, 2), 0.0), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("n", [3, 6])
def test_jvp_of_grad_of_inplace_loop_and_method(n):
    rng = np.random.default_rng(n)
    x, v = rng.normal(size=n), rng.normal(size=n)
    g = mc.grad(inplace_loop)
    gx, hx = mc.jvp(g, (x,), (v,))
    np.testing.assert_allclose(gx, g(x), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(hx, fd_jac(g, x) @ v, rtol=1e-5, atol=1e-7)
    e = Energy(rng.normal(size=n))
    ge = mc.grad(e.energy)
    gx, hx = mc.jvp(ge, (x,), (v,))
    np.testing.assert_allclose(gx, ge(x), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(hx, fd_jac(ge, x) @ v, rtol=1e-5, atol=1e-7)


def test_jacfwd_reused_across_points_shapes_and_kinds():
    """One Jacobian function called at many points, two input shapes and float / array arguments: the
    layouts kept per argument kind must never leak from one call into another."""
    J = mc.jacfwd(matvec)
    for seed in range(4):
        x = np.random.default_rng(10 + seed).normal(size=8)
        np.testing.assert_allclose(J(x), mc.jacrev(matvec)(x), rtol=1e-9, atol=1e-11)
    Je = mc.jacfwd(elementwise)
    for n in (3, 8, 3):
        x = np.random.default_rng(n).normal(size=n)
        np.testing.assert_allclose(Je(x), fd_jac(elementwise, x), rtol=1e-5, atol=1e-7)
    J2 = mc.jacfwd(lambda a, b: np.array([a * b, np.sin(a) + b ** 2]), argnums=(0, 1))
    for a, b in ((0.3, 1.2), (2.0, -0.7)):
        da, db = J2(a, b)
        np.testing.assert_allclose(da, [b, np.cos(a)], rtol=1e-12)
        np.testing.assert_allclose(db, [a, 2 * b], rtol=1e-12)


def test_jacobian_wrappers_carry_name_doc_and_wrapped():
    """mc.jacfwd / mc.jacrev / mc.hessian return functions with f's __name__, __doc__ and __wrapped__ (so its
    signature), as mc.grad's do; nested ones too (jacrev of a Jacobian function)."""
    import inspect

    for api in (mc.jacfwd, mc.jacrev, mc.hessian):
        J = api(wiggle)
        assert J.__name__ == "wiggle" and J.__wrapped__ is wiggle and J.__doc__ == wiggle.__doc__
        assert inspect.signature(J) == inspect.signature(wiggle)
    JJ = mc.jacrev(mc.jacfwd(wiggle))
    assert JJ.__name__ == "wiggle" and JJ.__doc__ == wiggle.__doc__
    H = mc.hessian(wiggle)(0.7)
    assert float(H) == pytest.approx(fd_scalar(mc.grad(wiggle), 0.7), rel=1e-6)
