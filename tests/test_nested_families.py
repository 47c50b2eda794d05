"""Nested derivatives (issue 10) by family: a sample of random programs checked in every nesting against
finite differences of the next-lower derivative (tests/randprog/nested.py; scripts/random_nested.py runs
hundreds), and regression tests of the nesting bugs that checker found.

Each regression compares a nested derivative with central differences of a first derivative that is itself
checked (check_derivatives, or the base checks of the family checker)."""
import os
import tempfile

import numpy as np
import pytest

import mooncake_ast as mc
from tests.randprog.gen import generate
from tests.randprog.nested import check_program_nested

from tests import nested_family_cases as C


def _fd(d1, x, h=1e-5):
    """Central differences of d1 (a first or second derivative) at array x: its dimensions, then x's."""
    cols = []
    for k in range(x.size):
        e = np.zeros(x.size)
        e[k] = h
        e = e.reshape(x.shape)
        cols.append((np.asarray(d1(x + e)) - np.asarray(d1(x - e))) / (2 * h))
    return np.stack(cols, axis=-1)


def _close(a, b):
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


X = np.array([0.4, -0.7, 1.1])
V = np.array([1.0, 0.5, -0.3])


# ---------------------------------------------------------------- families of random programs


@pytest.mark.parametrize("family,seed", [("arith", 2000000), ("inplace", 3), ("classes", 5), ("control", 7)])
def test_random_program_nestings(family, seed):
    """Every second-order nesting (and the bases) of one program of the family agrees with finite differences."""
    nestings = ("grad_grad", "jvp_grad", "grad_jvp", "jvp_jvp", "hessian", "jacrev_jacfwd", "jacfwd_jacfwd",
                "v_jacfwd_jacfwd")
    r = check_program_nested(generate(seed, family), tempfile.mkdtemp(prefix="nested-family-"), nestings)
    bad = [p for p in r.problems if p[0] in ("WRONG", "CRASH")]
    assert not bad, r.describe()


# ---------------------------------------------------------------- Jacobians of Jacobians


@pytest.mark.parametrize("outer", ["jacrev_jacfwd", "jacrev_jacrev", "jacrev_hessian"])
def test_jacrev_of_a_jacobian(outer):
    """jacrev of a Jacobian function was a GlobalWriteError / MissingRuleError (reverse mode traced the Jacobian's
    own Python); it is the Jacobian of the Jacobian now."""
    f = C.vector_map
    if outer == "jacrev_jacfwd":
        got, ref = mc.jacrev(mc.jacfwd(f))(X.copy()), _fd(lambda z: mc.jacfwd(f)(z.copy()), X)
    elif outer == "jacrev_jacrev":
        got, ref = mc.jacrev(mc.jacrev(f))(X.copy()), _fd(lambda z: mc.jacfwd(f)(z.copy()), X)
    else:
        got, ref = mc.jacrev(mc.hessian(C.scalar_loss))(X.copy()), _fd(lambda z: mc.hessian(C.scalar_loss)(z.copy()), X)
    assert got.shape == ref.shape
    _close(got, ref)


def test_reverse_mode_over_a_jacobian_function():
    """grad of a function of mc.jacfwd(f)(x) / mc.hessian(g)(x), the Jacobian made outside or inside."""
    for fn in (C.uses_jacobian_made_outside, C.uses_jacobian_made_inside, C.uses_hessian):
        mc.testing.check_derivatives(fn, X.copy())


# ---------------------------------------------------------------- in-place code with reshape / concatenate


@pytest.mark.parametrize("f", [C.inplace_reshape_concatenate, C.concatenate_then_inplace])
def test_jacfwd_jacfwd_inplace_reshape_concatenate(f):
    """jacfwd(jacfwd(f)) crashed ('list' object is not an iterator) on concatenate's tangent helper, and
    reverse over it was refused (next() of a generator); `a += 1.0` on an array traced an import."""
    ref = _fd(lambda z: mc.jacfwd(f)(z.copy()), X)
    _close(mc.jacfwd(mc.jacfwd(f))(X.copy()), ref)
    _close(mc.jacfwd(mc.jacrev(f))(X.copy()), ref)


def test_nested_max():
    """max/min's tangent helper was refused under reverse mode (`mask &= flat`) and at third order."""
    f = C.with_max
    _close(mc.hessian(f)(X.copy()), _fd(lambda z: mc.grad(f)(z.copy()), X))
    s = C.with_max_scalar
    gg = mc.grad(mc.grad(s))
    _close(mc.grad(mc.grad(mc.grad(s)))(0.7), (gg(0.7 + 1e-5) - gg(0.7 - 1e-5)) / 2e-5)


def test_third_order_through_dot():
    """np.dot's tangent `linear(np.dot, da, b)` differentiated again: b has a tangent too (a first twin of
    `linear` held its other arguments constant and gave wrong third derivatives; the family checker found it)."""
    f = C.dot_of_products
    gg = mc.grad(mc.grad(f))
    ref = (gg(0.7 + 1e-5) - gg(0.7 - 1e-5)) / 2e-5
    _close(mc.grad(mc.grad(mc.grad(f)))(0.7), ref)
    _close(mc.jvp(lambda t: mc.jvp(lambda s: mc.jvp(f, (s,), (1.0,))[1], (t,), (1.0,))[1], (0.7,), (1.0,))[1], ref)


# ---------------------------------------------------------------- state shared with the module


@pytest.mark.parametrize("f", [C.reads_module_list, C.module_object_accumulates])
def test_forward_over_forward_with_module_state(f):
    """Forward over forward code that keeps tangents of module-level state was a NestingError; each order keeps
    its own storage now (forward/state.py, module_tangent's level)."""
    H = _fd(lambda z: mc.grad(f)(z.copy()), X)
    _close(mc.jacfwd(mc.jacfwd(f))(X.copy()), H)
    _close(mc.jvp(lambda z: mc.jvp(f, (z,), (V,))[1], (X.copy(),), (V,))[1], V @ H @ V)
    _close(mc.hessian(f)(X.copy()), H)


def test_third_order_over_module_state():
    """A module-level list of numbers is a constant (no tangent storage: forward/activity.py), so every order
    works; state a method writes keeps storage, and a third order over it stays a NestingError (it crashed)."""
    f = C.reads_module_list
    H = lambda z: mc.hessian(f)(z.copy())  # noqa: E731
    T = _fd(H, X)
    _close(mc.jacfwd(mc.hessian(f))(X.copy()), T)
    jjj = mc.jvp(lambda p: mc.jvp(lambda q: mc.jvp(f, (q,), (V,))[1], (p,), (V,))[1], (X.copy(),), (V,))[1]
    _close(jjj, np.einsum("ijk,i,j,k->", T, V, V, V))
    with pytest.raises(mc.NestingError):
        mc.jacfwd(mc.hessian(C.module_object_accumulates))(X.copy())


def test_closure_made_at_module_level():
    """Reverse over forward code of a module-level closure that keeps no state (`scale = make_scale(2.0)`) was
    refused as 'made inside differentiated code'."""
    f = C.uses_module_closure
    H = _fd(lambda z: mc.grad(f)(z.copy()), X)
    _close(mc.hessian(f)(X.copy()), H)
    _close(mc.hvp(f, (X.copy(),), (V,)), H @ V)


def test_closure_keeping_state_still_refused():
    """A module-level closure that writes what it captures: its captures are not constants; still a NestingError."""
    with pytest.raises(mc.NestingError):
        mc.hessian(C.uses_stateful_closure)(X.copy())


def test_third_order_through_a_named_view():
    """A third derivative through an in-place write into a named view (`w = b[1:]; w *= t`) was wrong: forward code
    of nested_helpers.item_read gave the tangent of a view as a fresh array (found by scripts/random_nested.py,
    inplace seed 3000022; wrong before this branch too).  view_read keeps it a view at every order."""
    f = C.write_through_named_view
    gg = mc.grad(mc.grad(f))
    ref = (gg(0.7 + 1e-5) - gg(0.7 - 1e-5)) / 2e-5
    assert mc.grad(mc.grad(mc.grad(f)))(0.7) == pytest.approx(ref, rel=1e-5)
    j = mc.jvp(lambda s: mc.jvp(lambda r: mc.jvp(f, (r,), (1.0,))[1], (s,), (1.0,))[1], (0.7,), (1.0,))[1]
    assert j == pytest.approx(ref, rel=1e-5)


def test_third_forward_order_of_plain_code():
    """jvp(jvp(jvp(f))) of `math.sin(t * t) * 1.5` called the generated code with too few arguments (the tangent of
    the constant tuple `(1.0,)` given to the inner jvp was lost in a concatenation)."""
    f = C.plain_math
    gg = mc.grad(mc.grad(f))
    ref = (gg(0.7 + 1e-5) - gg(0.7 - 1e-5)) / 2e-5
    j = mc.jvp(lambda s: mc.jvp(lambda r: mc.jvp(f, (r,), (1.0,))[1], (s,), (1.0,))[1], (0.7,), (1.0,))[1]
    assert j == pytest.approx(ref, rel=1e-5)


def test_helper_with_default_arguments():
    """A module-level helper called without its defaults (`scaled_sin(t * t)`) was refused nested ('call it with all
    its parameters given positionally'); its defaults are constants, passed as extra primals."""
    f = C.calls_with_defaults
    g, gg = mc.grad(f), mc.grad(mc.grad(f))
    _close(gg(0.7), (g(0.7 + 1e-5) - g(0.7 - 1e-5)) / 2e-5)
    ref = (gg(0.7 + 1e-5) - gg(0.7 - 1e-5)) / 2e-5
    _close(mc.grad(mc.grad(mc.grad(f)))(0.7), ref)
    _close(mc.jvp(lambda s: mc.jvp(lambda r: mc.jvp(f, (r,), (1.0,))[1], (s,), (1.0,))[1], (0.7,), (1.0,))[1], ref)


def test_helper_with_keyword_arguments():
    """Keywords of a module-level helper, differentiated ones included (`shifted_sin(t * t, scale=t + 1.0)`), were
    refused nested; the call is planned as a positional one and the keywords' adjoints come back as a dict."""
    f = C.calls_with_keywords
    g, gg = mc.grad(f), mc.grad(mc.grad(f))
    want = (g(0.7 + 1e-5) - g(0.7 - 1e-5)) / 2e-5
    _close(gg(0.7), want)
    _close(mc.jvp(g, (0.7,), (1.0,))[1], want)
    _close(mc.grad(lambda t: mc.jvp(f, (t,), (1.0,))[1])(0.7), want)
    _close(mc.jvp(lambda t: mc.jvp(f, (t,), (1.0,))[1], (0.7,), (1.0,))[1], want)
    ref = (gg(0.7 + 1e-5) - gg(0.7 - 1e-5)) / 2e-5
    _close(mc.grad(mc.grad(mc.grad(f)))(0.7), ref)
    _close(mc.jvp(lambda s: mc.jvp(lambda r: mc.jvp(f, (r,), (1.0,))[1], (s,), (1.0,))[1], (0.7,), (1.0,))[1], ref)


def test_third_order_through_loops_over_items():
    """Loops over lists and arrays (`for e in xs`, enumerate) at the third order: the tangent of a loop's sequence had
    no forward rule of its own there (a NestingError), and an item's tangent read by index failed (`list +
    NoTangent`)."""
    f = C.loop_over_items
    gg = mc.grad(mc.grad(f))
    ref = (gg(0.7 + 1e-5) - gg(0.7 - 1e-5)) / 2e-5
    _close(mc.grad(mc.grad(mc.grad(f)))(0.7), ref)
    _close(mc.jvp(lambda s: mc.jvp(lambda r: mc.jvp(f, (r,), (1.0,))[1], (s,), (1.0,))[1], (0.7,), (1.0,))[1], ref)


def test_jacobian_of_jacobian_of_a_function_updating_its_argument():
    """jacfwd(jacfwd(f)) of an f that updates its argument in place took the inner Jacobian at the updated values
    (jacobian_forward ran J first, then differentiated at what J left)."""
    f = C.prefix_sum_inplace
    H = _fd(lambda z: mc.grad(f)(z.copy()), X)
    _close(mc.jacfwd(mc.jacfwd(f))(X.copy()), H)
    _close(mc.jacrev(mc.jacfwd(f))(X.copy()), H)
