"""`sorted(xs)` of a list of floats (a parameter, or a list the function builds) is a list the function makes: its
adjoint is a plain list, handed back into xs's slots by one helper (list_adjoints.add_sorted, which finds each item
by identity: the sort's key is not called again), and everything that reads the sorted list is plain too.  Both
modes against finite differences; the pullback's helpers counted; golden modules; the second order (forward over
the generated pullback) against differences of the gradient."""
import numpy as np
import pytest

import mooncake_ast as mc
from scripts.helper_refs import pullback_counts
from tests import sorted_list_functions as f
from tests.test_golden import _body, _compare


def _calls():
    return {
        f.weighted_order: ([0.3, 1.5, -0.9, 0.2], 1.3),
        f.keyed_lambda: ([0.3, 1.5, -0.9, 0.2], 1.3),
        f.keyed_builtin_reversed: ([0.3, -1.5, -0.9, 0.2], 0.7),
        f.median_of_odd: ([0.3, 1.5, -0.9, 0.2, 1.1], 0.8),
        f.sorted_then_appended: ([0.3, 1.5, -0.9, 0.2], 1.2),
        f.sorted_in_loop: ([0.3, 1.5, -0.9, 0.2], 0.6, 3),
        f.sorted_with_ties: (0.7,),
        f.trimmed_mean: ([0.3, 1.5, -0.9, 0.2, 0.6], 0.5),
        f.written_after_sort: ([0.3, 1.5, -0.9, 0.2], 1.3),
        f.keyed_closure: ([0.3, 1.5, -0.9, 0.2], 0.4),  # (a key reading a cell: still the run-time helpers)
    }


FUNCTIONS = list(_calls())
IDS = [fn.__name__ for fn in FUNCTIONS]
# At most this many `_mc.` references in the pullback (the trunk before: 16 to 55 each).
MOST_REFS = {f.weighted_order: 1, f.keyed_lambda: 1, f.keyed_builtin_reversed: 1, f.median_of_odd: 1,
             f.sorted_then_appended: 1, f.sorted_in_loop: 1, f.sorted_with_ties: 1, f.trimmed_mean: 2,
             f.written_after_sort: 3}


def _wrt(args):
    return tuple(i for i, a in enumerate(args) if not isinstance(a, int))


@pytest.mark.parametrize("fn", FUNCTIONS, ids=IDS)
def test_sorted_derivatives(fn):
    mc.testing.check_derivatives(fn, *_calls()[fn])


@pytest.mark.parametrize("fn", list(MOST_REFS), ids=[fn.__name__ for fn in MOST_REFS])
def test_sorted_pullback_is_plain(fn):
    args = _calls()[fn]
    mc.grad(fn, argnums=_wrt(args))(*args)
    refs, _ = pullback_counts(mc.source(fn, "reverse"))
    assert refs <= MOST_REFS[fn], mc.source(fn, "reverse")


@pytest.mark.parametrize("fn", [f.sorted_then_appended, f.trimmed_mean], ids=["sorted_then_appended", "trimmed_mean"])
def test_sorted_golden(fn):
    args = _calls()[fn]
    mc.grad(fn, argnums=_wrt(args))(*args)
    _compare(f"{fn.__name__}.reverse.py.txt", _body(mc.source(fn, "reverse")))


@pytest.mark.parametrize("fn", FUNCTIONS, ids=IDS)
def test_sorted_second_order(fn):
    """d/ds of the whole gradient (the list's adjoints and s's): jvp over mc.grad against central differences."""
    args = _calls()[fn]
    k = 1 if len(args) > 1 else 0
    wrt = _wrt(args)
    grad = mc.grad(fn, argnums=wrt)

    def g(sk):  # (fresh lists each call: written_after_sort writes the caller's)
        fresh = [list(a) if isinstance(a, list) else a for a in args]
        out = grad(*fresh[:k], sk, *fresh[k + 1:])
        return np.concatenate([np.ravel(np.asarray(o, dtype=float)) for o in out])

    if fn is f.keyed_closure:  # (as on the trunk: the generic pullback reads the key's cell, refused by name)
        with pytest.raises(mc.errors.UnsupportedDerivativeError, match="closure's cell"):
            mc.jvp(g, (args[k],), (1.0,))
        return
    _, hv = mc.jvp(g, (args[k],), (1.0,))
    eps = 1e-6
    fd = (g(args[k] + eps) - g(args[k] - eps)) / (2 * eps)
    np.testing.assert_allclose(hv, fd, rtol=1e-5, atol=1e-6)


def test_add_sorted_finds_items_by_identity():
    from mooncake_ast.reverse.list_adjoints import add_sorted

    a, b = 0.5, 0.25
    xs = [a, b, a, 1.0, 9.0]  # (one float object twice; 9.0 appended after the sort)
    ys = sorted(xs[:4])
    xs_bar = [0.0] * 4
    add_sorted(xs_bar, xs, ys, [1.0, 2.0, 3.0, 4.0])
    assert xs_bar == [2.0, 1.0, 3.0, 4.0]
