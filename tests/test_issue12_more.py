"""Issue 12, the rest: relative imports inside functions of a package, SciPy statistics that trace into
NumPy models, collections.defaultdict/deque corners (both modes, checked against finite differences)."""
import importlib
import textwrap

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives


def test_relative_import_inside_a_function(tmp_path, monkeypatch):
    pkg = tmp_path / "mc_relpkg"
    (pkg / "inner").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "inner" / "__init__.py").write_text("")
    (pkg / "helpers.py").write_text("def square(x):\n    return x * x\n")
    (pkg / "inner" / "use.py").write_text(textwrap.dedent("""\
        import numpy as np

        def f(x):
            from ..helpers import square
            from .. import helpers as hp
            return np.sum(square(x) * hp.square(x[0]))
        """))
    monkeypatch.syspath_prepend(str(tmp_path))
    f = importlib.import_module("mc_relpkg.inner.use").f
    check_derivatives(f, np.array([0.5, 1.5, 2.0]))


# ---------------------------------------------------------------- item access by the special method's name
def _defaultdict_setitem(x):
    import collections

    d = collections.defaultdict(float)
    collections.defaultdict.__setitem__(d, "a", x * 2.0)
    d["b"] += x
    d.__setitem__("c", d.__getitem__("a") * x)
    return d["a"] * d["b"] + d["c"] + d.__len__()


def _list_and_array_dunders(a):
    items = [a * 2.0, a]
    list.__setitem__(items, 0, items.__getitem__(1) * 3.0)
    b = np.ndarray.__getitem__(a, 0) * a.__getitem__(1)
    items.__delitem__(1)
    return items[0] * b


def _array_arithmetic_by_name(a):
    return np.polyval(np.polyint(a), 0.5) + a.__rsub__(2.0) * np.ndarray.__mul__(a, a[::-1]) + a.__rpow__(1.5)


@pytest.mark.parametrize("f, x", [(_defaultdict_setitem, 1.3), (_list_and_array_dunders, np.array([0.3, 0.7])),
                                  (_array_arithmetic_by_name, np.array([0.3, 1.2, -0.7]))])
def test_item_access_by_special_method(f, x):
    check_derivatives(f, x)


# ---------------------------------------------------------------- SciPy code that takes strided views (as_strided)
@pytest.mark.parametrize("make", ["toeplitz", "hankel"])
def test_scipy_matrices_built_from_strided_views(make):
    sl = pytest.importorskip("scipy.linalg")
    build = getattr(sl, make)
    check_derivatives(lambda a: build(a, a[::-1] * 2.0) @ a, np.array([0.3, 1.2, -0.7]))


# ---------------------------------------------------------------- NumPy 2 functions through their Python implementation
@pytest.mark.parametrize("f, x", [
    (lambda m: np.amax(m, axis=0) * np.amin(m), np.array([[0.3, 1.2], [-0.7, 2.1]])),
    (lambda m: np.cumulative_sum(m, axis=0, include_initial=True) * np.unstack(m)[1], np.array([[0.3, 1.2], [-0.7, 2.1]])),
    (lambda m: np.linalg.matrix_norm(m) + np.linalg.vector_norm(m[0], ord=3), np.array([[0.3, 1.2], [-0.7, 2.1]])),
    (lambda m: np.linalg.tensorsolve(m + 3.0 * np.eye(2), m[0]), np.array([[0.3, 1.2], [-0.7, 2.1]])),  # (__array_wrap__)
])
def test_numpy_dispatcher_without_a_rule(f, x):
    check_derivatives(f, x)


def test_fftconvolve_through_scipy_fft():
    ss = pytest.importorskip("scipy.signal")
    check_derivatives(lambda a: ss.fftconvolve(a, a[::-1] * 2.0), np.array([0.3, 1.2, -0.7, 2.1]))


# ---------------------------------------------------------------- `try: len(x) except TypeError:` (NumPy's histogram2d)
def _count_or_one(x, bins):
    try:
        n = len(bins)
    except TypeError:
        n = 1
    return x * n


@pytest.mark.parametrize("bins", [3, [1, 2]])
def test_try_len_except_type_error(bins):
    check_derivatives(_count_or_one, 1.5, bins)


def _zip_strict(a, b):
    return sum(p * q for p, q in zip(a, b, strict=True))


def test_zip_strict_in_a_loop():
    check_derivatives(_zip_strict, np.array([0.3, 1.2]), np.array([0.5, -0.7]))
    with pytest.raises(ValueError, match="zip"):
        mc.grad(_zip_strict)(np.array([0.3, 1.2]), np.array([0.5]))


# ---------------------------------------------------------------- statistics with weights and keyword arguments
def test_statistics_weights_and_keywords():
    import statistics

    v, w = np.array([0.3, 1.2, -0.7, 2.1]), np.array([1.0, 2.0, 0.5, 1.5])
    check_derivatives(lambda a, b: statistics.fmean(list(a), list(b)), v, w)
    check_derivatives(lambda a: statistics.fmean(list(a), weights=[1, 2, 3, 4]), v)
    # keyword arguments holding floats, in reverse mode: the same gradient as passed by position (checked above)
    by_name = mc.grad(lambda a, b: statistics.fmean(list(a), weights=list(b)), argnums=(0, 1))(v, w)
    by_position = mc.grad(lambda a, b: statistics.fmean(list(a), list(b)), argnums=(0, 1))(v, w)
    np.testing.assert_allclose(by_name[0], by_position[0])
    np.testing.assert_allclose(by_name[1], by_position[1])
