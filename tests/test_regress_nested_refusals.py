"""Nested derivatives (issue 10) that used to be refused, now computed: each is compared with central differences of
the next-lower derivative, which is itself checked (check_derivatives at first order; the second order against
differences of the first)."""
import math

import numpy as np
import pytest

import mooncake_ast as mc

X0 = 0.37
A0 = np.array([0.3, -0.2, 0.5])
T = np.array([0.4, 1.0, -0.6])
H = 1e-5


def _close(a, b):
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def _fd_x(d, x, a):
    """Central differences in x of d(x, a) (a first or second derivative)."""
    return (np.asarray(d(x + H, a.copy())) - np.asarray(d(x - H, a.copy()))) / (2 * H)


def _fd_a(d, x, a, v):
    """Central differences of d(x, a) in a along v."""
    return (np.asarray(d(x, a + H * v)) - np.asarray(d(x, a - H * v))) / (2 * H)


def _check_nested(f, fx=None, second=True):
    """f(x, a) -> float against differences: second derivatives in x (reverse over forward) and, with `second`, in a
    (the Hessian, forward over that); with fx (f at a = A0 as a function of x alone, defined at module level), third
    derivatives in x (reverse over forward over forward, and forward three times)."""
    mc.testing.check_derivatives(f, X0, A0.copy())
    g0, g1 = mc.grad(f), mc.grad(f, argnums=1)
    gg = mc.grad(mc.grad(f))
    _close(gg(X0, A0.copy()), _fd_x(g0, X0, A0))
    if second:
        H1 = mc.hessian(f, argnums=1)(X0, A0.copy())
        _close(H1 @ T, _fd_a(g1, X0, A0, T))
    if fx is None:
        return
    ref = _fd_x(gg, X0, A0)
    _close(mc.grad(mc.grad(mc.grad(f)))(X0, A0.copy()), ref)
    _close(mc.jvp(_second, (fx, X0), (None, 1.0))[1], ref)


def _first(fx, x):
    return mc.jvp(fx, (x,), (1.0,))[1]


def _second(fx, x):
    return mc.jvp(_first, (fx, x), (None, 1.0))[1]


# ---------------------------------------------------------------- NumPy ufuncs writing into out=


def ufunc_out_aliased(x, a):
    b = a * 1.0
    np.add(b, x * x, out=b)
    np.sin(b, out=b)
    np.multiply(b, a + x, out=b)
    return np.sum(b * b) + math.sin(x) * b[0]


def ufunc_out_aliased_x(x):
    return ufunc_out_aliased(x, np.array([0.3, -0.2, 0.5]))


def ufunc_out_fresh(x, a):
    b = np.tanh(a)
    c = np.zeros(3)
    np.add(b, x, out=c)
    np.exp(0.3 * c, out=b)
    return np.sum(b * c) + x * np.sum(c)


def ufunc_out_fresh_x(x):
    return ufunc_out_fresh(x, np.array([0.3, -0.2, 0.5]))


@pytest.mark.parametrize("f,fx", [(ufunc_out_aliased, ufunc_out_aliased_x), (ufunc_out_fresh, ufunc_out_fresh_x)])
def test_ufunc_writing_out(f, fx):
    """`np.add(b, s, out=b)` / `np.sin(b, out=b)` in differentiated code was refused at the second order ('keyword
    arguments are not supported nested'; randprog inplace): the call is planned as plain Python that writes out."""
    _check_nested(f, fx)


# ---------------------------------------------------------------- mc.jvp of a closure over differentiated values


def jvp_of_closure(x):
    k = 3.0 * x
    return mc.jvp(lambda s: math.sin(s * k), (x,), (1.0,))[1]


def jvp_of_closure_over_array(x):
    K = x * np.array([0.3, -0.2, 0.5])
    return mc.jvp(lambda s: np.sum(np.sin(s * K)), (x,), (1.0,))[1]


def jvp_of_inner_function(x):
    k = 3.0 * x

    def inner(s):
        return math.sin(s * k) + k * s

    return mc.jvp(inner, (x * x,), (x,))[1]


@pytest.mark.parametrize("f", [jvp_of_closure, jvp_of_closure_over_array, jvp_of_inner_function])
def test_forward_over_jvp_of_a_closure_sees_the_captured_tangents(f):
    """jvp(f) where f calls mc.jvp of a closure capturing k = 3x: the tangent of k (read by the closure's forward code
    as `fn.__closure__[0].cell_contents`, whose tangent comes from the closure's FunctionTangent) was dropped, a
    silently wrong -k^2 sin(xk) instead of d/dx [k cos(xk)].  Reverse mode over it, once refused, routes the adjoint of
    k into its cell (rules/nested_cells.owned_cells; the cell's value was added to it twice, reverse/shadows.take)."""
    want = (f(X0 + H) - f(X0 - H)) / (2 * H)
    _close(mc.jvp(f, (X0,), (1.0,))[1], want)
    _close(mc.grad(f)(X0), want)


# ---------------------------------------------------------------- a property with a setter, in a fresh cache


class Box:
    def __init__(self, k):
        self._k = k

    @property
    def k(self):
        return self._k * 2.0

    @k.setter
    def k(self, v):
        self._k = v * 0.5


def through_property(x, a):
    box = Box(np.dot(a, a) * x)
    box.k = box.k * 3.0 + x
    return box.k * x + np.sum(np.sin(a) * box.k)


def test_second_derivative_through_a_property_setter_in_a_fresh_cache(tmp_path, monkeypatch):
    """A property's getter and setter share one qualname (`Box.k`): publishing the setter's forward module evicted the
    getter's as "another text of the same function", and a second derivative, which reads the getter's generated
    module, failed with SourceUnavailableError (randprog classes)."""
    from mooncake_ast import cache

    monkeypatch.setenv("MOONCAKE_AST_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(cache, "_memory", {})
    mc.jvp(through_property, (X0, A0.copy()), (1.0, T.copy()))  # (both accessors' forward modules)
    _check_nested(through_property)


# ---------------------------------------------------------------- list methods on a differentiated list


def list_methods(x, a):
    xs = [x * x]
    xs.extend([np.sum(a), math.sin(x)])
    z = xs.pop(1)
    xs.insert(1, z * x + a[0])
    xs.reverse()
    xs.extend((np.dot(a, a), x))
    return 1.0 * xs[0] + 2.0 * xs[1] + 3.0 * xs[2] + 5.0 * xs[3] + sum(xs) * z


def list_methods_x(x):
    return list_methods(x, np.array([0.3, -0.2, 0.5]))


def test_list_methods_of_a_differentiated_list():
    """xs.pop(i), xs.insert(i, v), xs.extend(ys) and xs.reverse() on a list with tangents, in generated code differentiated
    again, were refused ('the list method .pop() of a differentiated list inside generated code'; randprog
    containers): each is planned as plain Python doing the method to the list and to its tangent list."""
    _check_nested(list_methods, list_methods_x)


def dict_methods(x, a):
    d = {"a": x * np.sum(a)}
    z = d.get("a", 0.0) * 2.0 + d.get("missing", 0.5) + d.get("a") * x
    w = d.setdefault("a", 1.3) + d.setdefault("k", math.sin(x) * z)
    d.update({"m": w * a[1], "a": x * x})
    v = d.pop("k") + d.pop("gone", 0.25 * x)
    total = 0.0
    for key, val in d.items():
        total = total * 0.5 + val
    return total + v * z


def dict_methods_x(x):
    return dict_methods(x, np.array([0.3, -0.2, 0.5]))


def test_dict_methods_of_a_differentiated_dict():
    """d.get(k[, v]), d.setdefault(k, v), d.update(other) and d.pop(k[, v]) on a dict with tangents, in generated code
    differentiated again, were refused ('the tangent of attribute 'get' of a differentiated object'; randprog
    containers): planned as plain Python doing the method to the dict and to its tangent dict."""
    _check_nested(dict_methods, dict_methods_x)


# ---------------------------------------------------------------- zip at the third order


def zipped_rows(x, a):
    v = np.tanh(np.array([x, x * x, 0.5]) - a)
    t = 0.0
    for i, (e, c) in enumerate(zip(v, a * x)):
        t = t + e * c * (i + 1)
    return t


def zipped_rows_x(x):
    return zipped_rows(x, np.array([0.3, -0.2, 0.5]))


def test_third_order_through_zip():
    """`for i, (e, c) in enumerate(zip(v, w))` at the third order: the forward code of builtin_iteration.zip_tangent calls
    zip(*cols), whose forward derivative came from a hand-written rule (refused; randprog rows); planned as zip_fwd."""
    _check_nested(zipped_rows, zipped_rows_x, second=False)


# ---------------------------------------------------------------- an array method with keywords, third order


def method_with_axis(x, a):
    M = a[:, None] * np.array([x, x * x])
    return np.sum(np.sin(M.sum(axis=0)) * M.mean(axis=1)[:2]) + x * M.sum(axis=1)[0]


def method_with_axis_x(x):
    return method_with_axis(x, np.array([0.3, -0.2, 0.5]))


def test_third_order_of_an_array_method_with_keywords():
    """`M.sum(axis=0)` at the third order: fcall of fcall with the method's keywords was refused ('keyword arguments
    are not supported nested'; randprog numpy); the keywords, never differentiated, go to the method's plan."""
    _check_nested(method_with_axis, method_with_axis_x, second=False)


# ---------------------------------------------------------------- zero tangent storage, third order


def _forelse(p, q):
    for i in range(0):
        if i > 5:
            break
    else:
        if np.sum(p) < 50.0:
            return p[1] * q + np.sum(p)
    return np.sum(p)


def loop_then_helper(x, a):
    y = 0.338
    A = np.array([[-0.217, -0.573, 0.676], [-0.367, -0.839, 0.773]])
    u1 = 0.5 + 0.4 * math.tanh(y)
    it2 = 0
    while u1 < 2.0 and it2 < 20:
        u1 = u1 * 1.3 + 0.1
        it2 += 1
    v4 = _forelse(a, u1)
    if v4 > (A.sum() / (1.0 + (y) ** 2)):
        v5 = np.tanh(a.mean())
    else:
        v5 = A.sum()
    if u1 > (A.sum() * v4):
        v6 = float(np.sum(a))
    else:
        v6 = ((np.dot(a, a) + (a[1])) + np.sum(a))
    v7 = (np.log(2.0 + np.sin(A)) + (A - y))
    return x + u1 + v4 + v5 + v6 + np.sum(v7 * v7) + x * x * np.sum(a)


def loop_then_helper_x(x):
    return loop_then_helper(x, np.array([0.817, -0.273, 0.769]))


def test_third_order_through_new_tangent_storage():
    """Second-order forward code makes zero tangent storage for results (nested_helpers.result_storage / zero_storage),
    which a third order refused ('a new object's tangent storage, differentiated'; randprog control seed 7700000052,
    whose f this is): planned as fresh storage whose tangent is fresh storage too."""
    _check_nested(loop_then_helper, loop_then_helper_x, second=False)


# ---------------------------------------------------------------- mc.hvp inside differentiated code


def _cubic(x, a):
    return np.sum(np.sin(x) * x * a) + np.sum(x) ** 3


def hvp_inside(x, a):
    hv = mc.hvp(lambda u: np.sum(np.sin(u) * u * u), (a * x,), (np.ones(3),))
    h1, h2 = mc.hvp(_cubic, (a * x, a), (a, np.ones(3)))
    return np.sum(hv * a) + np.sum(h1 * h2) * x


def test_hvp_called_inside_differentiated_code():
    """mc.hvp inside a differentiated function was traced (its body's relative import refused); it has rules now:
    those of jvp(grad(f, argnums=all)) (higher.hvp_plain), with one and with two primals (third derivatives of the
    functions given to it)."""
    mc.testing.check_derivatives(hvp_inside, X0, A0.copy())
    _close(mc.grad(hvp_inside)(X0, A0.copy()), _fd_x(hvp_inside, X0, A0))
    _close(mc.jvp(hvp_inside, (X0, A0.copy()), (0.0, T.copy()))[1], _fd_a(hvp_inside, X0, A0, T))


def _wiggle(x):
    return math.sin(x) * x * x


def grad_inside(x):
    return mc.grad(_wiggle)(x) * x + mc.grad(_wiggle, argnums=0)(x * x)


def grad_of_closure_inside(x):
    k = 3.0 * x
    return mc.grad(lambda s: math.sin(s * k))(x)


def test_grad_made_inside_code_differentiated_twice():
    """mc.grad(g) (positionally or with argnums=) inside a function differentiated twice: forward code calling the
    factory had no plan ('the forward derivative of grad comes from a hand-written rule'); the gradient function is a
    constant made through the factory's rules.  A closure over differentiated values stays refused."""
    g1 = mc.grad(grad_inside)
    want = (g1(X0 + H) - g1(X0 - H)) / (2 * H)
    _close(mc.grad(mc.grad(grad_inside))(X0), want)
    _close(mc.jvp(g1, (X0,), (1.0,))[1], want)
    _close(mc.jvp(lambda s: mc.jvp(grad_inside, (s,), (1.0,))[1], (X0,), (1.0,))[1], want)
    with pytest.raises(mc.MooncakeError):
        mc.grad(mc.grad(grad_of_closure_inside))(X0)
