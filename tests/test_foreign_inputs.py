"""Inputs of types the rules do not model (issue 14 item 3): NumPy subclasses (np.matrix, masked arrays),
other array libraries (anything with `__array__` & co.: Dask, pandas, array-api-strict, ...) and number
types other than Python's and NumPy's (Fraction, Decimal).

Each is refused with an UnsupportedInputError (a MooncakeError and a TypeError) that names the type, the
place and the conversion to make, in every API and both modes, as an argument, inside a container, as a
tangent or cotangent, and as a result; never a number. What stays accepted (np.memmap, a Fraction that is
not differentiated) is checked against finite differences."""
import decimal
import fractions

import numpy as np
import pytest

import mooncake_ast as mc

pytestmark = pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")
from mooncake_ast.errors import MooncakeError, UnsupportedInputError
from mooncake_ast.testing import check_derivatives


class ArrayLike:
    """The smallest foreign array: NumPy can convert it, nothing else."""

    def __init__(self, a):
        self.a = np.asarray(a, dtype=float)

    def __array__(self, dtype=None, copy=None):
        return self.a if dtype is None else self.a.astype(dtype)


def sumsq(x):
    return np.sum(np.asarray(x) * np.asarray(x))


def square(x):
    return x * x


def first_sumsq(xs):
    return np.sum(np.asarray(xs[0]) * np.asarray(xs[0]))


def field_sumsq(d):
    return np.sum(np.asarray(d["w"]) ** 2)


def scaled(x, q):
    return np.sum(x * x) * float(q)


def as_matrix(x):
    return np.asmatrix(x)


class Holder:
    def __init__(self, w):
        self.w = w


def held_sumsq(h):
    return np.sum(np.asarray(h.w) ** 2)


def foreign_values():
    """(kind, value, the conversion the message must suggest) for every type refused always."""
    return [
        ("numpy.matrix", np.matrix([[1.0, 2.0], [3.0, -1.0]]), "np.asarray(x)"),
        ("numpy.ma.MaskedArray", np.ma.masked_array([1.0, 2.0, 3.0], mask=[0, 1, 0]), "np.asarray(x)"),
        ("numpy.ma.MaskedArray", np.ma.masked_array([[1.0, -2.0]], mask=[[0, 0]]), "np.asarray(x)"),
        ("fractions.Fraction", fractions.Fraction(1, 3), "float(x)"),
        ("decimal.Decimal", decimal.Decimal("1.5"), "float(x)"),
        ("ArrayLike", ArrayLike([1.0, -2.0, 0.5]), "np.asarray(x)"),
    ]


def _ids(v):
    return type(v).__name__ if not isinstance(v, str) else v.split(".")[-1][:12]


def all_apis(f, x):
    """Each public entry point called on f at x (a thunk per API)."""
    def vjp():
        _, pb = mc.vjp(f, x)
        return pb(1.0)

    return {
        "grad": lambda: mc.grad(f)(x),
        "value_and_grad": lambda: mc.value_and_grad(f)(x),
        "vjp": vjp,
        "jvp": lambda: mc.jvp(f, (x,), (x,)),
        "jacfwd": lambda: mc.jacfwd(f)(x),
        "jacrev": lambda: mc.jacrev(f)(x),
        "hessian": lambda: mc.hessian(f)(x),
        "differentiate.grad": lambda: mc.differentiate(f).grad(x),
        "hvp": lambda: mc.hvp(f, (x,), (x,)),
        "jvp of grad": lambda: mc.jvp(mc.grad(f), (x,), (x,)),
    }


def assert_refused(thunk, kind, advice, place="argument 0"):
    with pytest.raises(UnsupportedInputError) as info:
        thunk()
    msg = str(info.value)
    assert kind in msg and place in msg and advice in msg, msg
    assert isinstance(info.value, MooncakeError) and isinstance(info.value, TypeError)


@pytest.mark.parametrize("kind,value,advice", foreign_values(), ids=_ids)
@pytest.mark.parametrize("api", list(all_apis(sumsq, 0.0)))
def test_argument_refused_in_every_api(api, kind, value, advice):
    if api in ("jacrev",) and kind in ("fractions.Fraction", "decimal.Decimal", "ArrayLike"):
        # jacrev first checks its inputs are floats/arrays/containers (PytreeError): also an honest error
        with pytest.raises(MooncakeError):
            all_apis(sumsq, value)[api]()
        return
    assert_refused(all_apis(sumsq, value)[api], kind, advice)


@pytest.mark.parametrize("kind,value,advice", foreign_values(), ids=_ids)
def test_nested_in_containers_refused(kind, value, advice):
    assert_refused(lambda: mc.grad(first_sumsq)([value]), kind, advice, "argument 0[0]")
    assert_refused(lambda: mc.vjp(first_sumsq, (np.ones(2), value)), kind, advice, "argument 0[1]")
    assert_refused(lambda: mc.jvp(field_sumsq, ({"w": value},), ({"w": value},)), kind, advice, "argument 0['w']")
    assert_refused(lambda: mc.grad(held_sumsq)(Holder(value)), kind, advice, "argument 0.w")
    assert_refused(lambda: mc.jacfwd(first_sumsq)([value]), kind, advice, "argument 0[0]")


@pytest.mark.parametrize("kind,value,advice", foreign_values()[:3] + foreign_values()[5:],
                         ids=_ids)
def test_array_types_refused_even_when_not_differentiated(kind, value, advice):
    # a matrix changes what `*` means for the differentiated argument too: refused wherever it is
    x = np.array([0.5, -1.0])
    assert_refused(lambda: mc.grad(scaled, argnums=0)(x, value), kind, advice, "argument 1")
    assert_refused(lambda: mc.jvp(scaled, (x, value), (x, None)), kind, advice, "argument 1")
    assert_refused(lambda: mc.grad(scaled)(x, q=value), kind, advice, "keyword argument 'q'")


@pytest.mark.parametrize("q", [fractions.Fraction(1, 3), fractions.Fraction(-7, 2), decimal.Decimal("2.5")])
@pytest.mark.parametrize("x", [np.array([0.5, -1.0]), np.array([[2.0, 0.25, -3.0]]), np.linspace(-1, 1, 5)])
def test_undifferentiated_number_is_a_constant(x, q):
    # a Fraction/Decimal outside argnums (or with no tangent) is a constant: accepted, derivatives correct
    expect = 2 * x * float(q)
    np.testing.assert_allclose(mc.grad(scaled, argnums=0)(x, q), expect, rtol=1e-12)
    _, dy = mc.jvp(scaled, (x, q), (np.ones_like(x), None))
    np.testing.assert_allclose(dy, np.sum(expect), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(mc.jacfwd(scaled, argnums=0)(x, q), expect, rtol=1e-12)
    # ... but refused where it is differentiated
    assert_refused(lambda: mc.grad(scaled, argnums=1)(x, q), type(q).__module__, "float(x)", "argument 1")
    assert_refused(lambda: mc.vjp(scaled, x, q), type(q).__module__, "float(x)", "argument 1")


@pytest.mark.parametrize("x", [np.array([0.5, -1.0]), np.array([[1.0, 2.0], [3.0, 4.0]])])
def test_foreign_result_refused(x):
    for thunk in (lambda: mc.jvp(as_matrix, (x,), (np.ones_like(x),)), lambda: mc.vjp(as_matrix, x),
                  lambda: mc.jacfwd(as_matrix)(x)):
        with pytest.raises(MooncakeError) as info:
            thunk()
        assert isinstance(info.value, UnsupportedInputError) or "matrix" in str(info.value).lower(), info.value


def test_foreign_tangent_and_cotangent_refused():
    x = np.array([[1.0, 2.0]])
    assert_refused(lambda: mc.jvp(square, (x,), (np.matrix([[1.0, 0.0]]),)), "numpy.matrix", "np.asarray(x)",
                   "the tangent of argument 0")
    assert_refused(lambda: mc.jvp(square, (x,), (np.ma.masked_array(x, mask=[[1, 0]]),)), "MaskedArray",
                   "np.asarray(x)", "the tangent of argument 0")
    _, pb = mc.vjp(square, x)
    assert_refused(lambda: pb(np.matrix([[1.0, 1.0]])), "numpy.matrix", "np.asarray(x)", "the cotangent")
    assert_refused(lambda: pb(ArrayLike([[1.0, 1.0]])), "ArrayLike", "np.asarray(x)", "the cotangent")
    (g,) = pb(np.array([[1.0, 1.0]]))  # the pullback still works after a refused cotangent
    np.testing.assert_allclose(g, 2 * x)


@pytest.mark.parametrize("kind,value,advice", foreign_values(), ids=_ids)
def test_check_derivatives_refuses(kind, value, advice):
    for modes in (("forward",), ("reverse",)):
        assert_refused(lambda: check_derivatives(sumsq, value, modes=modes), kind, advice)


@pytest.mark.parametrize("shape", [(3,), (2, 3)])
def test_memmap_is_an_ndarray(tmp_path, shape):
    m = np.memmap(tmp_path / "m.dat", dtype=float, mode="w+", shape=shape)
    m[...] = np.arange(np.prod(shape)).reshape(shape) * 0.5 - 1.0
    np.testing.assert_allclose(mc.grad(sumsq)(m), 2 * np.asarray(m))
    _, dy = mc.jvp(sumsq, (m,), (np.ones(shape),))
    np.testing.assert_allclose(dy, 2 * np.sum(m))
    check_derivatives(sumsq, m)


class OptedOut:
    """`__array_ufunc__ = None` opts a class out of NumPy: a data object, differentiated by its fields."""
    __array_ufunc__ = None

    def __init__(self, w):
        self.w = w


def opted_sumsq(o):
    return np.sum(o.w * o.w)


@pytest.mark.parametrize("w", [np.array([0.5, -2.0]), np.array([[1.0, 3.0]])])
def test_numpy_opt_out_class_is_a_data_object(w):
    g = mc.grad(opted_sumsq)(OptedOut(w))
    np.testing.assert_allclose(g.w, 2 * w)
    check_derivatives(opted_sumsq, OptedOut(w))


def test_plain_inputs_unchanged():
    rng = np.random.default_rng(0)
    for shape in [(), (3,), (2, 4)]:
        x = rng.normal(size=shape)
        np.testing.assert_allclose(mc.grad(sumsq)(x), 2 * x)
        check_derivatives(first_sumsq, [x, 1.0])


# ---------------------------------------------------------------- other libraries, when installed


def test_pandas_series_refused():
    pd = pytest.importorskip("pandas")
    s = pd.Series([1.0, 2.0, 3.0])
    for api, thunk in all_apis(sumsq, s).items():
        with pytest.raises(MooncakeError):
            thunk()
    assert_refused(lambda: mc.grad(sumsq)(s), "pandas", "to_numpy")


def test_dask_array_refused_where_not_supported():
    # Dask arrays are differentiated by jvp, vjp, grad, value_and_grad (tests/test_dask.py); elsewhere refused
    da = pytest.importorskip("dask.array")
    x = da.from_array(np.array([1.0, 2.0, 3.0]), chunks=2)
    for api, thunk in all_apis(sumsq, x).items():  # np.asarray of a Dask array would compute it: refused
        with pytest.raises(MooncakeError):
            thunk()
    assert_refused(lambda: mc.jacfwd(square)(x), "dask", "x.compute()")
    assert_refused(lambda: mc.hvp(square, (x,), (x,)), "dask", "x.compute()")
    assert_refused(lambda: check_derivatives(square, x), "dask", "x.compute()")
    assert_refused(lambda: mc.grad(sumsq)(x.astype(object)), "dask", "astype(float)")
    with pytest.raises(MooncakeError):
        mc.jacrev(square)(x)


def test_array_api_strict_refused():
    xp = pytest.importorskip("array_api_strict")
    x = xp.asarray([1.0, 2.0, 3.0])
    for api, thunk in all_apis(sumsq, x).items():
        with pytest.raises(MooncakeError):
            thunk()
    assert_refused(lambda: mc.grad(sumsq)(x), "array_api_strict", "np.asarray(x)")
