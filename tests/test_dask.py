"""Derivatives on Dask arrays (issue 15): the benchmark workloads that use only NumPy calls (logistic
regression, tanh MLP, Rosenbrock; the code of examples/bench.py) in both modes, lazy until computed and
equal to the NumPy answer, which is itself checked against finite differences.

Dask runs the same rules through NumPy's dispatch; adjoints stay Dask arrays (arrays.py), and computing a
Dask value inside a derivative is refused (lazy.py), so every call here that returns proves that nothing
was computed on the way. What Dask cannot do is refused with an error naming the operation."""
import numpy as np
import pytest

da = pytest.importorskip("dask.array")
import dask  # noqa: E402

import mooncake_ast as mc  # noqa: E402
from mooncake_ast.errors import MooncakeError, UnsupportedDerivativeError  # noqa: E402
from mooncake_ast.lazy import LazyComputeError  # noqa: E402
from mooncake_ast.testing import check_derivatives  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning")


from tests.array_workloads import WORKLOADS, rosenbrock, workload  # noqa: E402


def lazy(a):
    """A Dask array of `a` in two chunks along each axis (one where the axis has size one)."""
    return da.from_array(a, chunks=tuple(max(1, (n + 1) // 2) for n in a.shape))


def assert_lazy_equal(got, expect):
    """got is a Dask array (nothing computed yet) whose value is expect."""
    assert isinstance(got, da.Array), type(got)
    value = got.compute()
    assert np.shape(value) == np.shape(expect)
    assert np.allclose(value, expect, rtol=1e-10, atol=1e-12), (value, expect)


# ---------------------------------------------------------------- both modes, each workload


@pytest.mark.parametrize("name", WORKLOADS)
def test_workload_both_modes_lazy_and_equal_to_numpy(name):
    f, args = workload(name)
    check_derivatives(f, *args)  # the NumPy answer, against finite differences (both modes)
    rng = np.random.default_rng(1)
    dirs = tuple(rng.normal(size=a.shape) for a in args)
    nums = tuple(range(len(args)))
    y0, dy0 = mc.jvp(f, args, dirs)
    g0 = mc.grad(f, argnums=nums)(*args)
    largs = tuple(lazy(a) for a in args)

    y, dy = mc.jvp(f, largs, tuple(lazy(d) for d in dirs))
    assert_lazy_equal(y, y0)
    assert_lazy_equal(dy, dy0)

    g = mc.grad(f, argnums=nums)(*largs)
    for gi, ei in zip(g, g0):
        assert_lazy_equal(gi, ei)

    value, (gw,) = mc.value_and_grad(f, argnums=(0,))(*largs)
    assert_lazy_equal(value, y0)
    assert_lazy_equal(gw, g0[0])

    y, pullback = mc.vjp(f, *largs)
    for _ in range(2):  # a pullback can be called again
        for gi, ei in zip(pullback(2.0), g0):
            assert_lazy_equal(gi, 2.0 * ei)


def layer(W, b, X):
    return np.tanh(X @ W + b)


def test_vjp_of_an_array_result_with_a_dask_cotangent():
    rng = np.random.default_rng(2)
    W, b, X = rng.normal(size=(3, 4)), rng.normal(size=4), rng.normal(size=(6, 3))
    ybar = rng.normal(size=(6, 4))
    _, pb0 = mc.vjp(layer, W, b, X)
    expect = pb0(ybar)
    y, pb = mc.vjp(layer, lazy(W), lazy(b), lazy(X))
    assert_lazy_equal(y, layer(W, b, X))
    for got, e in zip(pb(lazy(ybar)), expect):
        assert_lazy_equal(got, e)
    for got, e in zip(pb(ybar), expect):  # a NumPy cotangent of a Dask result: moved into Dask
        assert_lazy_equal(got, e)


def test_numpy_weights_with_dask_data():
    # Small NumPy parameters, data in Dask: forward mode is lazy; reverse mode needs the parameters as Dask
    # arrays (their adjoint depends on the data), and says so.
    f, (w, X, y) = workload("logistic")
    _, dy = mc.jvp(f, (w, lazy(X), lazy(y)), (np.ones(3), None, None))
    assert_lazy_equal(dy, mc.jvp(f, (w, X, y), (np.ones(3), None, None))[1])
    with pytest.raises(UnsupportedDerivativeError, match=r"da.from_array\(w\)"):
        mc.grad(f)(w, lazy(X), lazy(y))
    g = mc.grad(f)(da.from_array(w), lazy(X), lazy(y))  # one chunk
    assert_lazy_equal(g, mc.grad(f)(w, X, y))


def test_on_a_local_cluster():
    distributed = pytest.importorskip("distributed")
    f, args = workload("mlp")
    g0 = mc.grad(f, argnums=(0, 1, 2, 3))(*args)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster):
        g = mc.grad(f, argnums=(0, 1, 2, 3))(*(lazy(a) for a in args))
        assert all(isinstance(gi, da.Array) for gi in g)
        got = dask.compute(*g)  # on the cluster's two workers
    for gi, ei in zip(got, g0):
        assert np.allclose(gi, ei, rtol=1e-10, atol=1e-12)


# ---------------------------------------------------------------- writes: forward mode follows Dask, reverse refuses


def write_item(x, a):
    y = x * 2.0
    y[0] = a * y[1]
    return np.sum(y * y)


def test_item_assignment_forward_follows_dask_reverse_refused():
    x = np.array([1.0, -2.0, 3.0, 0.5])
    expect = mc.jvp(write_item, (x, 1.5), (np.ones(4), 0.5))
    y, dy = mc.jvp(write_item, (lazy(x), 1.5), (lazy(np.ones(4)), 0.5))
    assert_lazy_equal(y, expect[0])
    assert_lazy_equal(dy, expect[1])
    for thunk in (lambda: mc.grad(write_item)(lazy(x), 1.5), lambda: mc.vjp(write_item, lazy(x), 1.5)):
        with pytest.raises(UnsupportedDerivativeError, match=r"item assignment \(x\[i\] = v\) into a dask array"):
            thunk()


# ---------------------------------------------------------------- what would compute is refused


def as_float(x):
    return float(np.sum(x)) * np.sum(x * x)


def branch(x):
    s = np.sum(x * x)
    if s > 1.0:
        return s
    return -s


def norm_of(x):
    return np.linalg.norm(x)


def cumulative_product(x):
    return np.sum(np.cumprod(x))


def picked(x):
    return np.sum(x[np.array([0, 0, 2])] ** 2)


@pytest.mark.parametrize("f,what", [(as_float, "float(np.sum(x))"), (branch, "")])
def test_a_concrete_value_is_refused_in_both_modes(f, what):
    x = lazy(np.array([1.0, -2.0, 3.0, 0.5]))
    for thunk in (lambda: mc.jvp(f, (x,), (x,)), lambda: mc.grad(f)(x), lambda: mc.vjp(f, x)):
        with pytest.raises(LazyComputeError, match="needs the value of a Dask array") as info:
            thunk()
        assert "test_dask.py:" in str(info.value) and what in str(info.value)
        assert isinstance(info.value, MooncakeError)


def test_a_rule_not_written_for_lazy_arrays_is_named():
    x = lazy(np.array([1.0, -2.0, 3.0, 0.5]))
    with pytest.raises(LazyComputeError, match="not written for lazy arrays yet: mooncake_ast.rules") as info:
        mc.grad(cumulative_product)(x)  # (np.cumprod's derivative helper converts with np.asarray)
    assert "test_dask.py:" in str(info.value)
    assert_lazy_equal(mc.grad(norm_of)(x), mc.grad(norm_of)(x.compute()))  # (its helper keeps arrays in Dask)
    with pytest.raises(UnsupportedDerivativeError, match="index array"):
        mc.grad(picked)(x)
    assert np.allclose(mc.jvp(picked, (x,), (x,))[1].compute(), mc.jvp(picked, (x.compute(),), (x.compute(),))[1])


def test_dask_computes_as_usual_outside_a_derivative():
    x = lazy(np.array([1.0, 2.0]))
    mc.grad(rosenbrock)(lazy(np.array([0.5, 1.0, 2.0])))
    assert float(np.sum(x)) == 3.0  # the guard is gone once the call returns
    with pytest.raises(MooncakeError):
        mc.grad(as_float)(x)
    assert np.asarray(x * 2.0).tolist() == [2.0, 4.0]  # ... and after a refused call too


def test_tangent_and_cotangent_checked_by_shape_and_dtype():
    x = lazy(np.array([1.0, 2.0, 3.0]))
    with pytest.raises(mc.api.TangentError, match="shape"):
        mc.jvp(rosenbrock, (x,), (lazy(np.ones(4)),))
    with pytest.raises(mc.api.TangentError, match="dtype"):
        mc.jvp(rosenbrock, (x,), (lazy(np.ones(3, dtype=complex)),))
    _, pb = mc.vjp(layer, lazy(np.ones((2, 2))), lazy(np.ones(2)), lazy(np.ones((3, 2))))
    with pytest.raises(mc.api.TangentError, match="shape"):
        pb(np.ones((2, 2)))


def write_argument(x, a):
    x[1] = a * x[0]
    return np.sum(x * x)


def test_forward_write_into_an_argument_leaves_the_callers_tangent_alone():
    x = np.array([1.0, -2.0, 3.0])
    expect = mc.jvp(write_argument, (x.copy(), 2.0), (np.ones(3), 0.5))
    lx, dx = lazy(x), lazy(np.ones(3))
    y, dy = mc.jvp(write_argument, (lx, 2.0), (dx, 0.5))
    assert_lazy_equal(dy, expect[1])
    assert dx.compute().tolist() == [1.0, 1.0, 1.0]  # the tangent given is not written into
    _, dy = mc.jvp(write_argument, (lazy(x), 2.0), (None, 0.5))  # a zero tangent the write fills in
    assert_lazy_equal(dy, mc.jvp(write_argument, (x.copy(), 2.0), (None, 0.5))[1])


def methods_and_extrema(x, p):
    # ndarray methods and attributes on a Dask array take the ndarray rules; max/min pick the first tie
    h = x.reshape(4, 3).T @ p["w"] + p["b"]
    return (h * h).sum() + np.sum(np.max(x * x, axis=0)) + np.min(x) + x.mean()


def test_methods_attributes_extrema_and_dict_parameters():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(4, 3))
    x[1, 0] = x[0, 0]  # a tie in the max along axis 0
    p = {"w": rng.normal(size=4), "b": 0.5}
    check_derivatives(methods_and_extrema, rng.normal(size=(4, 3)), p)
    lp = {"w": lazy(p["w"]), "b": 0.5}
    gx0, gp0 = mc.grad(methods_and_extrema, argnums=(0, 1))(x, p)
    gx, gp = mc.grad(methods_and_extrema, argnums=(0, 1))(lazy(x), lp)
    assert_lazy_equal(gx, gx0)
    assert_lazy_equal(gp["w"], gp0["w"])
    assert_lazy_equal(gp["b"], gp0["b"])  # a float's adjoint: a lazy 0-d array
    d = rng.normal(size=(4, 3))
    _, dy = mc.jvp(methods_and_extrema, (lazy(x), lp), (lazy(d), {"w": lazy(np.ones(4)), "b": 1.0}))
    assert_lazy_equal(dy, mc.jvp(methods_and_extrema, (x, p), (d, {"w": np.ones(4), "b": 1.0}))[1])


def dask_function(x):
    return np.sum(da.exp(x))


def test_dask_functions_are_not_differentiated_as_source():
    with pytest.raises(mc.errors.MissingRuleError, match="Dask's own code"):
        mc.grad(dask_function)(lazy(np.array([1.0, 2.0])))


def products(a, b):
    return np.sum(np.dot(a, b) ** 2) + np.sum(np.tanh(a @ b))


@pytest.mark.parametrize("shapes", [((4, 3), (3,)), ((3,), (3, 2)), ((2, 4, 3), (1, 3, 2))], ids=str)
def test_products_in_both_modes(shapes):
    rng = np.random.default_rng(4)
    a, b = rng.normal(size=shapes[0]), rng.normal(size=shapes[1])
    if len(shapes[0]) == 3:  # np.dot and @ differ for stacks: @ alone (its batch axes broadcast)
        f = lambda a, b: np.sum(np.tanh(a @ b))  # noqa: E731
    else:
        f = products
    g0 = mc.grad(f, argnums=(0, 1))(a, b)
    for got, e in zip(mc.grad(f, argnums=(0, 1))(lazy(a), lazy(b)), g0):
        assert_lazy_equal(got, e)
    da_, db = rng.normal(size=a.shape), rng.normal(size=b.shape)
    _, dy = mc.jvp(f, (lazy(a), lazy(b)), (lazy(da_), db))
    assert_lazy_equal(dy, mc.jvp(f, (a, b), (da_, db))[1])


def test_the_guard_refuses_in_its_own_thread_only():
    import threading

    from mooncake_ast import lazy as lazy_mod

    x = lazy(np.array([1.0, 2.0]))
    seen = []
    with lazy_mod.guard(x):
        worker = threading.Thread(target=lambda: seen.append(float(np.sum(x))))  # another thread computes as usual
        worker.start()
        worker.join()
        with pytest.raises(LazyComputeError):
            float(np.sum(x))
    assert seen == [3.0] and float(np.sum(x)) == 3.0


def spread(x):
    return np.var(x) + np.sum(np.std(x, axis=1, keepdims=True)) + np.sum(np.var(x, axis=0, ddof=1)) \
        + np.sum(np.cumsum(x) ** 2) + np.sum(np.cumsum(x, axis=0) ** 2)


def test_variance_std_cumsum_in_both_modes():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(2, 3))
    check_derivatives(spread, x)
    for x in (x, np.array([[1.0, 1.0, 1.0], [0.5, -2.0, 3.0]])):  # a row of equal entries: std's kink (0)
        assert_lazy_equal(mc.grad(spread)(lazy(x)), mc.grad(spread)(x))
        d = rng.normal(size=x.shape)
        assert_lazy_equal(mc.jvp(spread, (lazy(x),), (lazy(d),))[1], mc.jvp(spread, (x,), (d,))[1])
