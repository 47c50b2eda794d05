"""Arguments that share memory (one array passed twice, a view of another argument): every entry point agrees
(argument_overlap.py).  Memory is what is differentiated (DESIGN.md §2: one object, one tangent; a view's tangent is
the view of its base's): each case is written as g(m) = f(*views of m), and the derivatives of f with respect to an
argument are those of g restricted to the memory that argument views; a direction for an argument moves all the
arguments sharing its memory."""
import numpy as np
import pytest

import mooncake_ast as mc

RNG = np.random.default_rng(7)
M6 = np.array([0.3, -0.7, 1.1, 0.4, 0.2, -0.5])


def sin_times_square(a, b):
    return np.sum(np.sin(a) * b ** 2)


def sines_and_cubes(A, v):
    return np.sum(np.sin(A) * 2.0) + np.sum(v ** 3)


def products(a, b):
    return np.sum(a * a * b) + np.sum(np.cos(a * b))


def matrix_and_transpose(A, B):
    return np.sum(np.tanh(A @ B)) + np.sum(A ** 2 * np.sin(B.T))


# name: (f, views(m) -> the arguments, memory shape)
CASES = {
    "same_object": (sin_times_square, lambda m: (m[:3], m[:3]), 6),
    "row_of_matrix": (sines_and_cubes, lambda m: (m.reshape(2, 3), m.reshape(2, 3)[0]), 6),
    "matrix_after_row": (lambda v, A: sines_and_cubes(A, v), lambda m: (m.reshape(2, 3)[1], m.reshape(2, 3)), 6),
    "overlapping_slices": (products, lambda m: (m[:4], m[2:]), 6),
    "disjoint_slices": (products, lambda m: (m[:3], m[3:]), 6),
    "strided": (products, lambda m: (m[::2], m[1:4]), 6),
    "transpose": (matrix_and_transpose, lambda m: (m.reshape(2, 2), m.reshape(2, 2).T), 4),
}
IDS = sorted(CASES)


def _case(name):
    f, views, size = CASES[name]
    m = M6[:size].copy()
    return f, views, m


def _index_views(views, size):
    """For each argument, the memory index of each of its elements (the view applied to arange)."""
    return [np.asarray(v) for v in views(np.arange(size))]


def _fd_grad(g, m, h=1e-6):
    out = np.zeros(m.size)
    for k in range(m.size):
        e = np.zeros(m.size)
        e[k] = h
        out[k] = (g(m + e) - g(m - e)) / (2 * h)
    return out


def _memory_derivatives(name):
    f, views, m = _case(name)
    g = lambda z: f(*views(z.copy()))  # noqa: E731
    grad_m = _fd_grad(g, m)
    hess_m = np.stack([_fd_grad(lambda z: mc.grad(g)(z)[k], m) for k in range(m.size)])
    return f, views, m, grad_m, hess_m


def _close(a, b, tol=1e-5):
    np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=tol, atol=tol)


@pytest.mark.parametrize("argnum", [0, 1])
@pytest.mark.parametrize("name", IDS)
def test_first_order_entry_points_agree(name, argnum):
    f, views, m, grad_m, _ = _memory_derivatives(name)
    idx = _index_views(views, m.size)[argnum]
    want = grad_m[idx]
    args = views(m)
    _close(mc.grad(f, argnums=argnum)(*args), want)
    _close(mc.value_and_grad(f, argnums=argnum)(*args)[1], want)
    _close(mc.jacrev(f, argnums=argnum)(*args), want)
    _close(mc.jacfwd(f, argnums=argnum)(*args), want)
    _close(mc.vjp(f, *args)[1](1.0)[argnum], want)
    _close(mc.grad(f, argnums=(0, 1))(*args)[argnum], want)
    _close(mc.jacfwd(f, argnums=(0, 1))(*args)[argnum], want)
    _close(mc.jacrev(f, argnums=(0, 1))(*args)[argnum], want)


@pytest.mark.parametrize("name", IDS)
def test_jvp_moves_memory(name):
    f, views, m, grad_m, _ = _memory_derivatives(name)
    t = RNG.normal(size=m.size)
    tangents = views(t)
    _close(mc.jvp(f, views(m), tangents)[1], grad_m @ t)
    # a view's tangent left out is the view of the others' (where its memory is in theirs)
    idx = _index_views(views, m.size)
    covered = np.zeros(m.size, dtype=bool)
    covered[idx[0].ravel()] = True
    if covered[idx[1].ravel()].all():
        _close(mc.jvp(f, views(m), (tangents[0], None))[1], grad_m @ np.where(covered, t, 0.0))


@pytest.mark.parametrize("name", [n for n in IDS if n not in ("disjoint_slices",)])
def test_jvp_refuses_two_tangents_for_one_memory(name):
    f, views, m, _, _ = _memory_derivatives(name)
    a, b = views(m)
    ta, tb = np.ones(a.shape), np.zeros(b.shape)
    with pytest.raises(mc.TangentError):
        mc.jvp(f, (a, b), (ta, tb))


@pytest.mark.parametrize("argnum", [0, 1])
@pytest.mark.parametrize("name", IDS)
def test_second_order_entry_points_agree(name, argnum):
    f, views, m, _, hess_m = _memory_derivatives(name)
    idx = _index_views(views, m.size)[argnum]
    want = hess_m[np.ix_(idx.ravel(), idx.ravel())].reshape(idx.shape + idx.shape)
    args = views(m)
    _close(mc.hessian(f, argnums=argnum)(*args), want, 1e-4)
    _close(mc.jacfwd(mc.grad(f, argnums=argnum), argnums=argnum)(*args), want, 1e-4)
    _close(mc.jacrev(mc.grad(f, argnums=argnum), argnums=argnum)(*args), want, 1e-4)


@pytest.mark.parametrize("name", IDS)
def test_hessian_vector_products_move_memory(name):
    f, views, m, _, hess_m = _memory_derivatives(name)
    t = RNG.normal(size=m.size)
    hv = hess_m @ t
    idx = _index_views(views, m.size)
    got = mc.hvp(f, views(m), views(t))
    for k in (0, 1):
        _close(got[k], hv[idx[k]], 1e-4)
    _close(mc.jvp(mc.grad(f, argnums=0), views(m), views(t))[1], hv[idx[0]], 1e-4)


def test_writes_through_shared_memory_are_seen_by_both():
    """A function that writes through one argument sees it through the other, as the plain call does."""
    def f(A, v):
        A[0] *= 2.0
        return np.sum(v ** 2) + np.sum(A)

    def g(m):
        A = m.reshape(2, 3)
        return f(A, A[0])

    want = _fd_grad(lambda z: g(z.copy()), M6)
    A = M6.copy().reshape(2, 3)
    _close(mc.grad(f)(A, A[0]), want.reshape(2, 3))
    _close(A[0], 2 * M6[:3])  # (the plain call's effect, once)
    A = M6.copy().reshape(2, 3)
    _close(mc.jacfwd(f)(A, A[0]), want.reshape(2, 3))
    _close(A[0], 2 * M6[:3])
