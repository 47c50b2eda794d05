"""`list(map(f, xs))` with f a def or lambda of the function is put in line as the comprehension it is
(reverse/map_calls.py), then f's call in line too: the pullback is plain code (the trunk: 28 to 55 helper
references each).  Both modes against finite differences; the pullback's helpers counted; a golden module; the second
order against differences of the gradient; errors raised inside f show the user the frames Python shows."""
import traceback

import numpy as np
import pytest

import mooncake_ast as mc
from scripts.helper_refs import pullback_counts
from tests import map_functions as f
from tests.test_golden import _body, _compare


def _calls():
    r = np.random.default_rng(5)
    return {
        f.lambda_sort_and_map: ([0.3, 1.2, -0.5, 0.8], 0.7),
        f.map_def: ([0.3, 1.2, -0.5], 0.7),
        f.map_arrays: ([0.5 * r.normal(size=(3, 3)) for _ in range(3)], r.normal(size=3)),
        f.map_in_loop: ([0.3, 1.2, -0.5], 0.7, 3),
        f.map_of_map: ([0.3, 1.2, -0.5], 0.7),
        f.map_then_appended: ([0.3, 1.2, -0.5], 0.7),
        f.divide_by: ([0.3, 1.2], 0.7),
        f.map_module_function: ([0.3, -1.2, 0.5], 0.7),
        f.map_not_in_line: ([0.3, 1.2, 0.5], 0.7),  # (a def with two returns: it stays the call of map it was)
        f.consumers_of_map: ([0.3, -1.2, 0.55, 0.95], 0.7),  # (sum, min, sorted, tuple of map objects; no ties)
    }


FUNCTIONS = list(_calls())
IDS = [fn.__name__ for fn in FUNCTIONS]
MOST_REFS = {f.lambda_sort_and_map: 1, f.map_def: 0, f.map_arrays: 2, f.map_in_loop: 0, f.map_of_map: 0,
             f.map_then_appended: 0, f.divide_by: 0, f.map_module_function: 1,
             f.consumers_of_map: 20}  # (the trunk: 125; what is left is the tuple's)


def _wrt(args):
    return tuple(i for i, a in enumerate(args) if not isinstance(a, int))


@pytest.mark.parametrize("fn", FUNCTIONS, ids=IDS)
def test_map_derivatives(fn):
    mc.testing.check_derivatives(fn, *_calls()[fn])


def test_map_of_arrays_gradient_of_the_list():
    """map_arrays' list of arrays (check_derivatives differences the array argument only): against differences."""
    Ws, x = _calls()[f.map_arrays]
    gW = mc.grad(f.map_arrays, argnums=0)(Ws, x)
    eps = 1e-6
    for k in range(len(Ws)):
        for idx in [(0, 0), (1, 2), (2, 1)]:
            up = [W.copy() for W in Ws]
            dn = [W.copy() for W in Ws]
            up[k][idx] += eps
            dn[k][idx] -= eps
            fd = (f.map_arrays(up, x) - f.map_arrays(dn, x)) / (2 * eps)
            assert abs(gW[k][idx] - fd) < 1e-6 * max(1.0, abs(fd))


@pytest.mark.parametrize("fn", list(MOST_REFS), ids=[fn.__name__ for fn in MOST_REFS])
def test_map_pullback_is_plain(fn):
    args = _calls()[fn]
    mc.grad(fn, argnums=_wrt(args))(*args)
    refs, _ = pullback_counts(mc.source(fn, "reverse"))
    assert refs <= MOST_REFS[fn], mc.source(fn, "reverse")


def test_map_golden():
    args = _calls()[f.lambda_sort_and_map]
    mc.grad(f.lambda_sort_and_map, argnums=(0, 1))(*args)
    _compare("lambda_sort_and_map.reverse.py.txt", _body(mc.source(f.lambda_sort_and_map, "reverse")))


@pytest.mark.parametrize("fn", [fn for fn in FUNCTIONS if fn is not f.map_arrays],
                         ids=[i for i in IDS if i != "map_arrays"])
def test_map_second_order(fn):
    """d/ds of the whole gradient: jvp over mc.grad against central differences."""
    args = _calls()[fn]
    k = 1
    grad = mc.grad(fn, argnums=_wrt(args))

    def g(sk):
        out = grad(*args[:k], sk, *args[k + 1:])
        return np.concatenate([np.ravel(np.asarray(o, dtype=float)) for o in out])

    _, hv = mc.jvp(g, (args[k],), (1.0,))
    eps = 1e-6
    fd = (g(args[k] + eps) - g(args[k] - eps)) / (2 * eps)
    np.testing.assert_allclose(hv, fd, rtol=1e-5, atol=1e-6)


def _frames(call):
    try:
        call()
    except Exception as e:  # noqa: BLE001
        return type(e), [fr.name for fr in traceback.extract_tb(e.__traceback__) if fr.filename == f.__file__]
    raise AssertionError("no error")


@pytest.mark.parametrize("args", [([0.3, 1.2], 0.0), (2.0, 1.0)], ids=["inside_f", "not_iterable"])
def test_map_errors_show_python_frames(args):
    plain = _frames(lambda: f.divide_by(*args))
    derived = _frames(lambda: mc.grad(f.divide_by, argnums=(1,))(*args))
    assert derived == plain, (derived, plain)
