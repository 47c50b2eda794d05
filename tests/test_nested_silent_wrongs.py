"""Nested derivatives that were silently wrong (issue 10), each against finite differences of the derivative
one order below (itself checked against finite differences of plain calls by the first-order suites)."""
import numpy as np

import mooncake_ast as mc

A0 = np.array([0.5, 1.2, -0.4])
C3 = np.array([0.2, -0.4, 0.6])


def _fd_jacobian(f, x, h=1e-6):
    cols = []
    for k in range(x.size):
        e = np.zeros_like(x)
        e[k] = h
        cols.append((np.asarray(f(x + e)) - np.asarray(f(x - e))) / (2 * h))
    return np.stack(cols, axis=-1)


# ---------------------------------------------------------------- module state a helper writes

BUF = np.zeros(3)


def _bump(buf, x):
    if x > 100.0:  # (an early return keeps the helper a call of its own rather than code in line)
        return
    buf[1] = buf[0] * x + x * x


def through_module_buffer(a):
    BUF.fill(0.25)
    _bump(BUF, a @ C3)
    return float(np.sum(BUF * BUF)) * a[1]


def test_hessian_through_module_state_a_helper_writes():
    """Reverse mode over forward code `f__jvp` that hands the module-level BUF and its tangent storage
    (`module_tangent(BUF)`) to the helper's forward code: both were read afterwards as constants (the dispatched
    call `fcall(helper, ...)` has a rule, so activity analysis never saw the helper write them), and the Hessian
    came out wrong and asymmetric (random nested family "aliases", seed 61000000012)."""
    f = through_module_buffer
    ref = _fd_jacobian(mc.grad(f), A0)
    np.testing.assert_allclose(mc.hessian(f)(A0.copy()), ref, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(mc.jacrev(mc.jacrev(f))(A0.copy()), ref, rtol=1e-6, atol=1e-7)


LST = [0.0, 0.0]


def _put(lst, v):
    if v > 100.0:
        return
    lst[0] = v * v


def through_module_list(a):
    LST[0] = 0.0
    _put(LST, a @ C3)
    return LST[0] * a[1]


def test_hessian_through_a_module_list_a_helper_writes():
    """The same with a module-level list: its Hessian was all zeros, and once the list's reads had adjoints, the list
    was packed for the helper as a copy (`(LST[:], v)`), so the helper's write missed it (half the Hessian)."""
    f = through_module_list
    ref = _fd_jacobian(mc.grad(f), A0)
    np.testing.assert_allclose(mc.hessian(f)(A0.copy()), ref, rtol=1e-6, atol=1e-7)


# ---------------------------------------------------------------- third order over a view of a copy


def slice_of_a_copy(x):
    b = np.zeros(3) + x
    b *= 1.0  # (written in place: its adjoint lives in storage)
    c = b.copy()
    return np.sum(c[1:2]) * x * x


def test_third_order_through_a_view_read():
    """Reverse mode over forward code of forward code reversed `view_read(tc, index)` (a view of tc) with getitem's
    template, adding the view's adjoint, already in tc's storage, to it a second time: grad(grad(grad(f))) was 8
    instead of 6 here, -233.6 instead of -14.5 on random nested family "arrays", seed 61000000054."""
    f, x = slice_of_a_copy, 0.447
    gg = mc.grad(mc.grad(f))
    ref = (gg(x + 1e-5) - gg(x - 1e-5)) / 2e-5
    assert abs(ref - 6.0) < 1e-5  # (x**3)''' = 6
    assert abs(mc.grad(gg)(x) - ref) < 1e-6
    assert abs(mc.jvp(gg, (x,), (1.0,))[1] - ref) < 1e-6


def view_of_a_copy(a):
    b = a.copy()
    b *= 0.5 + 0.4 * np.tanh(0.7 - np.sum(a))
    c = b.copy()
    head = c[:2]
    c *= 0.5 + 0.4 * np.tanh(a[0])
    return np.sum(c * c) + np.sum(head ** 2)


def test_jacobian_of_a_hessian_through_a_view_read():
    """The same double count at jacfwd(hessian) / jacrev(hessian) (0.96 off here; "arrays" seed 61000000018 was 4%
    off, the same at every finite-difference step: not noise).  Fourth-order central differences of the Hessian."""
    f, x, h = view_of_a_copy, np.array([-0.082, -0.402, 0.736]), 1e-3
    H = mc.hessian(f)
    ref = np.stack([(-H(x + 2 * h * e) + 8 * H(x + h * e) - 8 * H(x - h * e) + H(x - 2 * h * e)) / (12 * h)
                    for e in np.eye(3)], axis=-1)
    np.testing.assert_allclose(mc.jacfwd(H)(x.copy()), ref, rtol=1e-7, atol=1e-8)
    np.testing.assert_allclose(mc.jacrev(H)(x.copy()), ref, rtol=1e-7, atol=1e-8)


# ---------------------------------------------------------------- one array outside and inside the differentiated argument


def _cube(z):
    return z * z * z


def _g(f, x, xs):
    return np.sum(f(x) * xs[0] ** 2)


def _grad_of_aliased(x):
    return mc.grad(_g, argnums=2)(_cube, x, (x,))[0]


def test_derivatives_of_a_gradient_whose_arguments_share_an_array():
    """`mc.grad(g, argnums=2)(f, x, (x,))`: forward mode over it agrees with finite differences of the gradient (one
    object, one tangent: x moves in both places); reverse mode over it is refused by name (it was a TangentError
    about a jvp the user never called)."""
    x, v = np.array([0.3, -0.5, 0.9]), np.array([1.0, 0.5, -2.0])
    h = _grad_of_aliased
    ref = (h(x + 1e-6 * v) - h(x - 1e-6 * v)) / 2e-6
    np.testing.assert_allclose(mc.jvp(h, (x.copy(),), (v,))[1], ref, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(mc.jacfwd(h)(x.copy()) @ v, ref, rtol=1e-6, atol=1e-8)
    try:
        mc.jacrev(h)(x.copy())
    except mc.NestingError as e:
        assert "same object" in str(e)
    else:
        raise AssertionError("reverse mode over a gradient of aliased arguments was not refused")
