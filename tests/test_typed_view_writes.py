"""Writes through a basic-index view of a float array (`v = a[::2]; v *= s`, `mid[:] = v * mid`) made writes of the
array (reverse/view_writes.py), whose adjoint is then a plain array (reverse/buffers.py).  Both modes against
finite differences, including the forms that must stay as they were (a fancy index copies, an int index of a vector
gives a number, a view read after its update); helpers counted; a golden module; the second order."""
import numpy as np
import pytest

import mooncake_ast as mc
from scripts.helper_refs import pullback_counts
from tests import view_write_functions as f
from tests.test_golden import _body, _compare


def _calls():
    r = np.random.default_rng(2)
    return {
        f.scale_every_other: (r.normal(size=6), 0.8),
        f.update_ops_on_copy: (r.normal(size=6), r.normal(size=3), 1.3),
        f.power_of_view: (r.normal(size=5), 0.7),
        f.row_and_column: (r.normal(size=(3, 3)), r.normal(size=3), 0.6),
        f.whole_writes: (r.normal(size=5), 1.3),
        f.whole_write_of_number: (r.normal(size=6), 0.9),
        f.fancy_copy_untouched: (r.normal(size=4), 0.8),
        f.scalar_item_rebound: (r.normal(size=4), 0.8),
        f.in_a_loop: (r.normal(size=6), 0.9, 3),
        f.view_read_after: (r.normal(size=6), 0.8),
    }


FUNCTIONS = list(_calls())
IDS = [fn.__name__ for fn in FUNCTIONS]
# The pullback's `_mc.` references at most (the trunk: 8 to 27 each for the first seven).
MOST_REFS = {f.scale_every_other: 1, f.update_ops_on_copy: 3, f.power_of_view: 0, f.row_and_column: 0,
             f.whole_writes: 0, f.whole_write_of_number: 0, f.in_a_loop: 0}


def _fresh(args):
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def _wrt(args):
    return tuple(i for i, a in enumerate(args) if not isinstance(a, int))


@pytest.mark.parametrize("fn", FUNCTIONS, ids=IDS)
def test_view_write_derivatives(fn):
    mc.testing.check_derivatives(fn, *_fresh(_calls()[fn]))


@pytest.mark.parametrize("fn", FUNCTIONS, ids=IDS)
def test_view_write_leaves_the_arguments_as_the_call_does(fn):
    """The gradient call writes the caller's arrays exactly as the plain call does."""
    args = _calls()[fn]
    plain, derived = _fresh(args), _fresh(args)
    fn(*plain)
    mc.grad(fn, argnums=_wrt(args))(*derived)
    for p, d in zip(plain, derived):
        np.testing.assert_array_equal(p, d)


@pytest.mark.parametrize("fn", list(MOST_REFS), ids=[fn.__name__ for fn in MOST_REFS])
def test_view_write_pullback_is_plain(fn):
    args = _fresh(_calls()[fn])
    mc.grad(fn, argnums=_wrt(args))(*args)
    refs, _ = pullback_counts(mc.source(fn, "reverse"))
    assert refs <= MOST_REFS[fn], mc.source(fn, "reverse")


def test_view_write_golden():
    args = _fresh(_calls()[f.whole_writes])
    mc.grad(f.whole_writes, argnums=(0, 1))(*args)
    _compare("whole_writes.reverse.py.txt", _body(mc.source(f.whole_writes, "reverse")))


@pytest.mark.parametrize("fn", FUNCTIONS, ids=IDS)
def test_view_write_second_order(fn):
    """d/ds of the whole gradient (the last float argument): jvp over mc.grad against central differences."""
    args = _calls()[fn]
    k = max(i for i, a in enumerate(args) if isinstance(a, float))
    grad = mc.grad(fn, argnums=_wrt(args))

    def g(sk):
        fresh = _fresh(args)
        out = grad(*fresh[:k], sk, *fresh[k + 1:])
        return np.concatenate([np.ravel(np.asarray(o, dtype=float)) for o in out])

    _, hv = mc.jvp(g, (args[k],), (1.0,))
    eps = 1e-6
    fd = (g(args[k] + eps) - g(args[k] - eps)) / (2 * eps)
    np.testing.assert_allclose(hv, fd, rtol=1e-5, atol=1e-5)
