"""Derivatives on GPU arrays (issue 15): values and adjoints stay in the array's library, and equal the NumPy
answer (itself checked against finite differences in the NumPy suites).

Each test runs on two libraries: `stand-in`, a CPU array type with CuPy's strictness (no implicit
conversion to NumPy, no mixing with NumPy arrays, 0-d arrays from reductions and indexing;
tests/strict_device_array.py), always; and `cupy`, real CuPy arrays on a GPU, where CuPy and a GPU are
present (skipped otherwise; CI has no GPU). What a derivative cannot do on these arrays is refused with an
UnsupportedDerivativeError naming the construct, never answered with a wrong number."""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.errors import MooncakeError, UnsupportedDerivativeError, UnsupportedInputError
from tests import strict_device_array as sda
from tests.corpus import all_cases
from tests.array_workloads import WORKLOADS, workload

sda.register()


def _cupy_or_none():
    try:
        import cupy
        if cupy.cuda.runtime.getDeviceCount() < 1:
            return None
        return cupy
    except Exception:  # not installed, no driver, no device
        return None


CUPY = _cupy_or_none()


class Library:
    """How a test moves arrays to the library and back."""

    def __init__(self, name):
        self.name = name
        self.array_type = sda.DeviceArray if name == "stand-in" else CUPY.ndarray

    def to(self, a):
        if isinstance(a, np.ndarray) and a.dtype.kind == "f":
            return sda.DeviceArray(a.copy()) if self.name == "stand-in" else CUPY.asarray(a)
        if isinstance(a, list):
            return [self.to(v) for v in a]
        if isinstance(a, tuple):
            return tuple(self.to(v) for v in a)
        if isinstance(a, dict):
            return {k: self.to(v) for k, v in a.items()}
        return a

    def host(self, x):
        if isinstance(x, self.array_type):
            return x.get()
        if isinstance(x, (list, tuple)):
            return type(x)(self.host(v) for v in x)
        if isinstance(x, dict):
            return {k: self.host(v) for k, v in x.items()}
        return x

    def holds(self, x):
        """Does x hold an array of this library (inside lists, tuples, dicts too)?"""
        if isinstance(x, self.array_type):
            return True
        if isinstance(x, (list, tuple)):
            return any(self.holds(v) for v in x)
        if isinstance(x, dict):
            return any(self.holds(v) for v in x.values())
        return False


LIBRARIES = [pytest.param(Library("stand-in"), id="stand-in"),
             pytest.param("cupy", id="cupy", marks=pytest.mark.skipif(CUPY is None, reason="needs CuPy and a GPU"))]


@pytest.fixture(params=LIBRARIES)
def lib(request):
    return request.param if isinstance(request.param, Library) else Library("cupy")


def assert_in_library_and_equal(lib, got, expect):
    """got is an array of the library (not NumPy, not a Python number) whose value is expect."""
    assert isinstance(got, lib.array_type), type(got)
    value = lib.host(got)
    assert np.shape(value) == np.shape(expect)
    assert np.allclose(value, expect, rtol=1e-10, atol=1e-12), (value, expect)


# ---------------------------------------------------------------- the benchmark workloads, every API


@pytest.mark.parametrize("name", WORKLOADS)
def test_workload_stays_on_the_device_and_equals_numpy(lib, name):
    f, args = workload(name)
    rng = np.random.default_rng(1)
    dirs = tuple(rng.normal(size=a.shape) for a in args)
    nums = tuple(range(len(args)))
    y0, dy0 = mc.jvp(f, args, dirs)
    g0 = mc.grad(f, argnums=nums)(*args)
    dargs = lib.to(args)

    sda.HOST_READS["count"] = 0
    y, dy = mc.jvp(f, dargs, lib.to(dirs))
    g = mc.grad(f, argnums=nums)(*dargs)
    value, (gw,) = mc.value_and_grad(f, argnums=(0,))(*dargs)
    yv, pullback = mc.vjp(f, *dargs)
    cot = [pullback(2.0), pullback(lib.to(np.array(2.0)))]  # a number, and a 0-d device array
    assert sda.HOST_READS["count"] == 0, "a derivative brought a device value to the host"

    assert_in_library_and_equal(lib, y, y0)
    assert_in_library_and_equal(lib, dy, dy0)
    for gi, ei in zip(g, g0):
        assert_in_library_and_equal(lib, gi, ei)
    assert_in_library_and_equal(lib, value, y0)
    assert_in_library_and_equal(lib, gw, g0[0])
    assert_in_library_and_equal(lib, yv, y0)
    for c in cot:
        for gi, ei in zip(c, g0):
            assert_in_library_and_equal(lib, gi, 2.0 * ei)


def layer(W, b, X):
    return np.tanh(X @ W + b)


def test_vjp_of_an_array_result_with_a_device_cotangent(lib):
    rng = np.random.default_rng(2)
    W, b, X = rng.normal(size=(3, 4)), rng.normal(size=4), rng.normal(size=(6, 3))
    ybar = rng.normal(size=(6, 4))
    _, pb0 = mc.vjp(layer, W, b, X)
    y, pb = mc.vjp(layer, *lib.to((W, b, X)))
    assert_in_library_and_equal(lib, y, layer(W, b, X))
    for got, e in zip(pb(lib.to(ybar)), pb0(ybar)):
        assert_in_library_and_equal(lib, got, e)


# ---------------------------------------------------------------- the corpus: right or refused, never wrong


def _float_array_cases():
    out = []
    for case in all_cases():
        args = case.args()
        if Library("stand-in").holds(Library("stand-in").to(args)):
            out.append(case)
    return out


CASES = _float_array_cases()


def _close(a, b):
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return isinstance(b, (list, tuple)) and len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    return np.allclose(np.asarray(a, dtype=complex), np.asarray(b, dtype=complex), rtol=1e-9, atol=1e-12)


def _direction(a, rng):
    """A random tangent for a float or float array (None where there is nothing to differentiate)."""
    if isinstance(a, np.ndarray) and a.dtype.kind == "f":
        return rng.normal(size=a.shape)
    if isinstance(a, float):
        return 0.3
    if isinstance(a, (list, tuple)):
        items = [_direction(v, rng) for v in a]
        return None if any(v is None for v in items) else type(a)(items)
    if isinstance(a, dict):
        items = {k: _direction(v, rng) for k, v in a.items()}
        return None if any(v is None for v in items.values()) else items
    return None


OUTCOMES: dict = {}


@pytest.mark.parametrize("mode", ["grad", "jvp"])
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_corpus_function_right_or_refused(lib, case, mode):
    try:
        case.fn(*lib.to(case.args()), **case.kwargs())
    except Exception:
        pytest.skip("the function itself does not run on these arrays")
    args = case.args()
    if mode == "grad":
        nums = tuple(i for i, a in enumerate(args) if lib.holds(lib.to(a)))
        try:
            expect = mc.grad(case.fn, argnums=nums)(*case.args(), **case.kwargs())
        except MooncakeError:
            pytest.skip("not a scalar function")
        run = lambda: mc.grad(case.fn, argnums=nums)(*lib.to(case.args()), **case.kwargs())  # noqa: E731
    else:
        rng = np.random.default_rng(0)
        dirs = tuple(_direction(a, rng) for a in args)
        if any(d is None for d in dirs):
            pytest.skip("an argument with no float tangent")
        expect = mc.jvp(case.fn, case.args(), dirs)
        run = lambda: mc.jvp(case.fn, lib.to(case.args()), lib.to(dirs))  # noqa: E731
    try:
        got = run()
    except UnsupportedDerivativeError as e:
        OUTCOMES[lib.name, mode, case.name] = "refused"
        assert "not supported" in str(e)
        return
    OUTCOMES[lib.name, mode, case.name] = "right"
    assert lib.holds(got) or not lib.holds(expect), "a derivative left the device"
    assert _close(lib.host(got), expect), (lib.host(got), expect)


def test_corpus_mostly_differentiated_not_refused():
    """The family above is not vacuous: most corpus functions are differentiated on the stand-in, not refused.
    (Run after it in the same process; alone, it runs the family itself.)"""
    lib = Library("stand-in")
    for mode in ("grad", "jvp"):
        for case in CASES:
            if (lib.name, mode, case.name) not in OUTCOMES:
                try:
                    test_corpus_function_right_or_refused(lib, case, mode)
                except pytest.skip.Exception:
                    pass
    right = sum(v == "right" for (name, _, _), v in OUTCOMES.items() if name == "stand-in")
    refused = sum(v == "refused" for (name, _, _), v in OUTCOMES.items() if name == "stand-in")
    assert right >= 55 and refused <= 15, (right, refused)


# ---------------------------------------------------------------- random programs: right or refused, never wrong

RANDOM_FAMILIES = ["numpy", "rows", "inplace", "containers", "control", "classes", "mixed"]


@pytest.mark.parametrize("family", RANDOM_FAMILIES)
def test_random_programs_right_or_refused(lib, family, tmp_path):
    """tests/randprog's programs (their array arguments on the device): each derivative equals NumPy's, or,
    where the device primal computes another value (CuPy's 0-d arrays change in place under `+=`, NumPy's
    scalars do not), forward mode agrees with central differences of the device primal; or it is refused."""
    from tests.randprog import generate, load_program

    for seed in range(5):
        f, args, _ = load_program(generate(seed, family), str(tmp_path))
        try:
            y_dev = lib.host(f(*lib.to(args)))
        except Exception:
            continue  # the program itself does not run on these arrays
        same_primal = _close(y_dev, f(*args))
        rng = np.random.default_rng(seed)
        dirs = tuple(_direction(a, rng) for a in args)
        nums = tuple(range(len(args)))
        for mode in ("jvp", "grad"):
            try:
                if mode == "jvp":
                    got = lib.host(mc.jvp(f, lib.to(args), lib.to(dirs))[1])
                    if same_primal:
                        expect = mc.jvp(f, args, dirs)[1]
                    else:
                        eps = 1e-6
                        ends = [lib.host(f(*lib.to(tuple(a + s * eps * d for a, d in zip(args, dirs))))) for s in (1, -1)]
                        expect = (ends[0] - ends[1]) / (2 * eps)
                        assert np.allclose(got, expect, rtol=1e-5, atol=1e-6), (seed, got, expect)
                        continue
                elif same_primal and _scalar(y_dev):
                    got = lib.host(mc.grad(f, argnums=nums)(*lib.to(args)))
                    expect = mc.grad(f, argnums=nums)(*args)
                else:
                    continue
            except UnsupportedDerivativeError as e:
                assert "not supported" in str(e) or "not written for CuPy" in str(e) or "cannot pass" in str(e)
                continue
            assert _close(got, expect), (family, seed, mode, got, expect)


def _scalar(y):
    """Is y one number (a tuple of outputs of different shapes has no ndim)?"""
    return isinstance(y, (float, int, np.number)) or isinstance(y, np.ndarray) and y.ndim == 0


# ---------------------------------------------------------------- writes: forward follows, reverse refuses


def scale_view(a, s):
    v = a[::2]
    v *= s
    return np.sum(a ** 2)


def accumulate(x):
    total = 0.0
    for i in range(len(x)):
        total += x[i] * x[i]  # (after the first pass, total is a 0-d device array: += writes into it)
    return total


def test_writes_forward_follows_the_device_reverse_refuses(lib):
    a = np.array([0.5, -1.0, 2.0, 0.25, 1.5])
    for f, args, dirs in [(scale_view, (a, 0.8), (np.ones(5), 0.5)), (accumulate, (a,), (np.ones(5),))]:
        y0, dy0 = mc.jvp(f, tuple(x.copy() if isinstance(x, np.ndarray) else x for x in args), dirs)
        y, dy = mc.jvp(f, lib.to(tuple(x.copy() if isinstance(x, np.ndarray) else x for x in args)), lib.to(dirs))
        assert np.allclose(lib.host(y), y0) and np.allclose(lib.host(dy), dy0)
        with pytest.raises(UnsupportedDerivativeError, match="in-place operator .* is not supported"):
            mc.grad(f)(*lib.to(args))


def gather(x):
    idx = np.array([0, 0, 2, 3, 3, 3])
    return np.sum(x[idx] ** 2) + np.sum(x[x > 0.0])


def test_repeated_positions_add_on_the_device(lib):
    x = np.array([0.5, -1.0, 2.0, 0.25])
    assert_in_library_and_equal(lib, mc.grad(gather)(lib.to(x)), mc.grad(gather)(x))


def test_apis_that_do_not_take_device_arrays_refuse_them(lib):
    x = lib.to(np.array([0.5, -1.0, 2.0]))
    with pytest.raises(UnsupportedInputError, match="second derivatives of CuPy arrays are not supported"):
        mc.jvp(mc.grad(lambda v: np.sum(v ** 3)), (x,), (x,))
    for api in (mc.hessian, mc.jacfwd, mc.jacrev):  # (their inputs must be floats or float arrays)
        with pytest.raises(MooncakeError, match=type(x).__name__):
            api(lambda v: np.sum(v ** 3))(x)


def cumulative(x):
    return np.sum(np.cumprod(x))


def converts(x):
    return np.sum(np.asarray(x) * 2.0)


def test_a_helper_not_written_for_device_arrays_is_named_and_user_errors_stay(lib):
    x = lib.to(np.array([0.5, -1.0, 2.0]))
    with pytest.raises(UnsupportedDerivativeError, match=r"not written for CuPy arrays yet: mooncake_ast\.rules") as info:
        mc.grad(cumulative)(x)  # (np.cumprod's derivative helper converts with np.asarray)
    assert "test_device_arrays.py:" in str(info.value)
    with pytest.raises(TypeError, match="Implicit conversion to a NumPy array") as info:
        mc.grad(converts)(x)  # the user's own conversion: CuPy's error, unchanged
    assert not isinstance(info.value, MooncakeError)
