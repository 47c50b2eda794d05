"""Rules of mooncake_ast/rules/numpy_more.py, numpy_more_linalg.py and numpy_ufunc_methods.py in both
modes, on families of shapes, axes and options: check_derivatives (forward against finite differences,
reverse against forward), the gradient against central differences computed here, and the refusals
where no derivative exists."""
import copy

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives

R = np.random.default_rng(7)


def U(*shape, lo=-1.0, hi=1.0):
    return R.uniform(lo, hi, size=shape) if shape else float(R.uniform(lo, hi))


def _fd(f, args, i, h=1e-6):
    x = args[i]
    if isinstance(x, float):
        a, b = list(copy.deepcopy(args)), list(copy.deepcopy(args))
        a[i], b[i] = x + h, x - h
        return (f(*a) - f(*b)) / (2 * h)
    g = np.zeros(np.shape(x))
    for idx in np.ndindex(g.shape):
        a, b = copy.deepcopy(list(args)), copy.deepcopy(list(args))
        a[i][idx] += h
        b[i][idx] -= h
        g[idx] = (f(*a) - f(*b)) / (2 * h)
    return g


def check(f, *args, tol=1e-5):
    """Both modes (check_derivatives), and mc.grad of sum(f * weights) against central differences."""
    check_derivatives(f, *copy.deepcopy(args))
    y = f(*copy.deepcopy(args))
    w = np.cos(np.arange(np.size(y)) + 0.3).reshape(np.shape(y))

    def s(*a):
        return np.sum(np.asarray(f(*a)) * w)

    nums = tuple(i for i, a in enumerate(args) if isinstance(a, float) or (isinstance(a, np.ndarray) and a.dtype.kind == "f"))
    grads = mc.grad(lambda *a: np.sum(f(*a) * w), argnums=nums)(*copy.deepcopy(args))
    grads = grads if isinstance(grads, tuple) else (grads,)
    for i, g in zip(nums, grads):
        np.testing.assert_allclose(g, _fd(s, args, i), rtol=tol, atol=tol, err_msg=f"argument {i}")


# ---------------------------------------------------------------- copies
@pytest.mark.parametrize("obj, axis", [(1, None), ([0, 2], 0), (slice(1, 3), 1), (-1, 1), (np.array([True, False, True]), 0)])
def test_delete(obj, axis):
    check(lambda x: np.delete(x * x, obj, axis), U(3, 4))


@pytest.mark.parametrize("obj, vshape, axis", [(1, (), None), ([0, 2], (2,), None), (2, (3,), 1), (0, (1, 4), 0), ([1, 1], (), 1)])
def test_insert(obj, vshape, axis):
    check(lambda x, v: np.insert(np.sin(x), obj, v * 2.0, axis=axis), U(3, 4), U(*vshape) if vshape else U())


def test_insert_values_by_keyword():
    check(lambda x, v: np.insert(x, 1, values=v, axis=0), U(2, 3), U(3))


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_compress_and_extract(axis):
    cond = np.array([True, False, True])
    check(lambda x: np.compress(cond, x * x, axis=axis), U(3, 3))
    check(lambda x: np.extract(x > 0, x ** 3), U(4, 3))


@pytest.mark.parametrize("k", [0, 1, -2])
def test_diagflat(k):
    check(lambda v: np.diagflat(v * v, k), U(3))
    check(lambda v: np.diagflat(v, k=k), U(2, 2))


@pytest.mark.parametrize("layout", ["row", "grid", "nested"])
def test_block(layout):
    def f(a, b, c):
        if layout == "row":
            return np.block([a, b * 2.0])
        if layout == "grid":
            return np.block([[a, b], [c, c * a]])
        return np.block([[[a, b]], [[c, a]]])

    check(f, U(2, 2), U(2, 2), U(2, 2))


@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 3, 2)])
def test_atleast_3d(shape):
    x = U(*shape) if shape else U()
    check(lambda x: np.atleast_3d(x) * 2.0, x)


def test_atleast_3d_several():
    check(lambda a, b: np.sum(np.atleast_3d(a, b)[0]) * np.sum(np.atleast_3d(a, b)[1] ** 2), U(3), U(2, 2))


@pytest.mark.parametrize("axis, start", [(0, 0), (2, 0), (0, 3), (1, -1), (-1, 1)])
def test_rollaxis(axis, start):
    check(lambda x: np.rollaxis(x * x, axis, start) * np.arange(24.0).reshape(np.rollaxis(np.zeros((2, 3, 4)), axis, start).shape), U(2, 3, 4))


# ---------------------------------------------------------------- values
@pytest.mark.parametrize("N, increasing", [(None, False), (3, True), (5, False), (1, False)])
def test_vander(N, increasing):
    check(lambda x: np.vander(x, N, increasing=increasing), U(4))


@pytest.mark.parametrize("minlength", [0, 7])
def test_bincount_weights(minlength):
    idx = np.array([0, 3, 1, 3, 3, 5])
    check(lambda w: np.bincount(idx, w * w, minlength=minlength), U(6))
    check(lambda w: np.bincount(idx, weights=w), U(6))


def test_angle_and_real_if_close():
    check(lambda x: np.angle(np.fft.fft(x), deg=True), U(5))
    check(lambda x: np.angle(x) + x, U(4))  # real x: the angle is piecewise constant
    check(lambda x: np.real_if_close(np.fft.ifft(np.fft.fft(x))) * x, U(6))
    z = U(3) + 1j * U(3)
    check_derivatives(lambda z: np.angle(z), z, modes=("forward",))


def test_unique_values_and_its_refusal():
    check(lambda x: np.unique(x) * np.arange(5.0), U(5))
    check(lambda x: np.unique(x.reshape(-1)) ** 2, U(2, 3))
    xs = np.array([0.5, 0.25, 0.5])
    with pytest.raises(NotImplementedError, match="more than once"):
        mc.grad(lambda x: np.sum(np.unique(x) ** 2))(xs)
    check(lambda x: np.unique(x, return_counts=True)[0] ** 2, U(3))  # (the counts: integers, no derivative)
    with pytest.raises(NotImplementedError, match="axis"):
        mc.grad(lambda x: np.sum(np.unique(x, axis=0)))(U(3, 2))


@pytest.mark.parametrize("axis, keepdims", [(None, False), (0, False), (1, True), ((0, 1), False), (-1, False)])
def test_nanmedian(axis, keepdims):
    holes = np.zeros((4, 5), dtype=bool)
    holes[1, 2] = holes[3, 0] = holes[0, 4] = True

    def f(a):  # (check_derivatives perturbs every input entry: the NaNs are made inside)
        return np.nanmedian(np.where(holes, np.nan, a * 3.0), axis=axis, keepdims=keepdims)

    check(f, U(4, 5))
    clean = U(3, 4)
    check(lambda a: np.nanmedian(a, axis=axis, keepdims=keepdims), clean)


@pytest.mark.parametrize("deg, ycols", [(1, None), (2, None), (3, 2), (0, None)])
def test_polyfit(deg, ycols):
    x = np.linspace(-1.0, 1.0, 7) + U(7) * 0.1
    y = U(7) if ycols is None else U(7, ycols)
    check(lambda x, y: np.polyfit(x, np.sin(y), deg), x, y)
    check(lambda x, y, w: np.polyfit(x * 1.0, y, deg, w=w * w), x, y, U(7, lo=0.5, hi=1.5))
    check(lambda x, y, w: np.polyfit(x, y, deg, None, False, w), x, y, U(7, lo=0.5, hi=1.5))


def test_polyfit_refuses_full_and_cov():
    with pytest.raises(NotImplementedError, match="full=True"):
        mc.grad(lambda y: np.sum(np.polyfit(np.arange(5.0), y, 1, full=True)[0]))(U(5))


def test_scalar_constructors():
    check(lambda x: np.longdouble(x) ** 2 + np.float64(x), 0.75)
    assert mc.grad(lambda x: np.float16(x) * 2.0)(0.75) == 2.0  # rounding: slope 1 by convention, as float32
    check(lambda x: np.imag(np.complex128(x)) + np.real(np.complex128(x)) * 2.0, U(3))
    assert mc.grad(lambda x: x * np.int64(3.7))(2.0) == 3.0
    check_derivatives(lambda z: np.complex64(z) * 1.0, 0.5 + 0.25j, modes=("forward",), rtol=1e-3, atol=1e-3)  # single precision


# ---------------------------------------------------------------- linear algebra
@pytest.mark.parametrize("shapes", [[(2, 3), (3, 4)], [(3,), (3, 4), (4, 2)], [(2, 3), (3, 3), (3,)], [(4,), (4, 3), (3, 2), (2,)]])
def test_multi_dot(shapes):
    arrays = [U(*s) for s in shapes]
    check(lambda *a: np.linalg.multi_dot(list(a)) * 1.5, *arrays)


@pytest.mark.parametrize("p", [None, 2, -2, "fro"])
def test_cond(p):
    a = U(3, 3) + 2.0 * np.eye(3)
    check(lambda x: np.linalg.cond(x, p), a)
    check(lambda x: np.linalg.cond(x, p), U(2, 3, 3) + 3.0 * np.eye(3))


def test_cond_refuses_other_norms_and_ties():
    with pytest.raises(NotImplementedError, match="p=1"):
        mc.grad(lambda x: np.linalg.cond(x, 1))(np.eye(2) + 0.1)
    with pytest.raises(NotImplementedError, match="repeated"):
        mc.grad(lambda x: np.linalg.cond(x))(np.diag([1.0, 2.0, 2.0]))


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_eigvals(seed):
    r = np.random.default_rng(seed)
    a = r.normal(size=(4, 4))
    check(lambda x: np.real(np.linalg.eigvals(x)) + 2.0 * np.imag(np.linalg.eigvals(x)), a)
    s = a + a.T  # real eigenvalues: NumPy returns a real array
    check(lambda x: np.sort(np.linalg.eigvals(x)), s)


@pytest.mark.parametrize("seed", [0, 1, 2, 5])
def test_eig_values_and_vectors(seed):
    r = np.random.default_rng(seed)
    a = r.normal(size=(3, 3))

    def f(x):
        w, v = np.linalg.eig(x)
        return np.real(v) * np.real(w) + np.imag(v) * 0.5 + np.abs(w)[None, :]

    check(f, a)
    check(lambda x: np.linalg.eig(x)[1], a + a.T)


def test_eig_refuses_repeated_eigenvalues():
    with pytest.raises(NotImplementedError, match="repeated"):
        mc.grad(lambda x: np.sum(np.real(np.linalg.eigvals(x))))(np.eye(3))


# ---------------------------------------------------------------- ufunc methods
UFUNCS = [np.add, np.subtract, np.multiply, np.divide, np.power, np.maximum, np.minimum, np.fmax, np.fmin,
          np.hypot, np.arctan2, np.logaddexp, np.logaddexp2, np.remainder]


@pytest.mark.parametrize("u", UFUNCS, ids=lambda u: u.__name__)
def test_outer(u):
    check(lambda a, b: u.outer(a, b), U(3, lo=0.5, hi=1.5), U(2, 2, lo=0.5, hi=1.5))


@pytest.mark.parametrize("u", UFUNCS, ids=lambda u: u.__name__)
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_accumulate(u, axis):
    check(lambda x: u.accumulate(x, axis=axis), U(3, 4, lo=0.5, hi=1.5))


@pytest.mark.parametrize("u", UFUNCS, ids=lambda u: u.__name__)
@pytest.mark.parametrize("axis, keepdims", [(0, False), (1, True), (-1, False)])
def test_reduce(u, axis, keepdims):
    x = U(3, 4, lo=0.5, hi=1.5)
    fn = lambda x: u.reduce(x, axis=axis, keepdims=keepdims)  # noqa: E731
    moved = np.moveaxis(x, axis, 0)
    left_fold = moved[0]
    for k in range(1, moved.shape[0]):
        left_fold = u(left_fold, moved[k])
    if np.allclose(np.squeeze(fn(x)), left_fold, rtol=1e-9, atol=1e-12):
        check(fn, x)
    else:  # NumPy folded in another order (np.power, np.arctan2 along a contiguous axis in NumPy 2.4): refused
        for mode in ("forward", "reverse"):
            with pytest.raises(NotImplementedError, match="left-to-right fold"):
                check_derivatives(fn, x, modes=(mode,))


@pytest.mark.parametrize("u", [np.add, np.multiply, np.maximum, np.minimum, np.logaddexp, np.hypot], ids=lambda u: u.__name__)
@pytest.mark.parametrize("axis", [None, (0, 2)])
def test_reduce_several_axes_and_initial(u, axis):
    check(lambda x: u.reduce(x, axis=axis), U(2, 3, 2, lo=0.5, hi=1.5))
    check(lambda x: u.reduce(x, axis=0, initial=0.7), U(3, 2, lo=0.5, hi=1.5))
    check(lambda x, c: u.reduce(x, 0, None, None, False, c), U(3, 2, lo=0.5, hi=1.5), 0.8)
    check(lambda x, c: u.reduce(x * c, axis=1, initial=c), U(3, 2, lo=0.5, hi=1.5), 0.9)


def test_reduce_refuses_where():
    with pytest.raises(NotImplementedError, match="where="):
        mc.grad(lambda x: np.add.reduce(x, where=np.array([True, False, True])))(U(3))
