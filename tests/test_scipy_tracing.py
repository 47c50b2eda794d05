"""Engine bugs found by tracing SciPy (issue 12), each with a plain-Python regression and the SciPy call
that found it, checked by check_derivatives (finite differences in forward mode, the dot-product test
for reverse mode).

* A loop's variable assigned in some iterations only, whose value crosses a join reverse mode records
  (SciPy's CubicSpline._validate_bc: `deriv_order, deriv_value = bc` inside a `try` in a loop): the
  forward pass read it unbound (UnboundLocalError).
* `x.astype(float, copy=False)` of a float array is x itself: its adjoint was counted twice (SciPy's
  array-API `xp.astype(y, dtype, copy=False)` in every spline's prepare_input).
* A nested `def`/`lambda` was active when the function defining it was (it takes it for its globals):
  a constant `minimize(lambda p: ..., x0)` was taken for a differentiated one.
* A SciPy solver's refusal of a derivative with respect to a closure over the inputs reached the
  closure's function object only, where it was dropped: a silent zero gradient in reverse mode.
* np.max/np.min along an axis of an array with another, empty, axis failed (reshape(-1) of size 0).
"""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives


# ---------------------------------------------------------------- a loop variable bound in some iterations
def parts(y, specs):
    out = []
    for s in specs:
        if isinstance(s, str):
            out.append(y)
        else:
            try:
                a, b = s
            except Exception as e:
                raise ValueError("bad") from e
            out.append(a * b)
    return out


def uses_parts(y, specs):
    out = parts(y, specs)
    return np.sum(out[0] * out[1])


def bound_late(x, kinds):
    acc = []
    for k in kinds:
        if k > 0:
            w = x * k  # w: unbound in the iterations before the first k > 0
        acc.append(x)
    return np.sum(acc[-1] * x) + (np.sum(w) if any(k > 0 for k in kinds) else 0.0)


@pytest.mark.parametrize("specs", [["n", (2.0, np.array([0.5, 1.5]))], [(2.0, np.array([1.0, -1.0])), "n"]],
                         ids=["unbound-first", "bound-first"])
def test_loop_variable_bound_on_some_paths(specs):
    check_derivatives(uses_parts, np.array([0.3, 0.7]), specs)


def test_loop_variable_bound_late():
    check_derivatives(bound_late, np.array([0.3, 0.7]), [-1.0, 2.0, -3.0])


# ---------------------------------------------------------------- astype(copy=False)
def astype_no_copy(y):
    z = y.astype(np.float64, copy=False)
    return z * 2.0 + y


def test_astype_without_copy_is_the_array_itself():
    check_derivatives(astype_no_copy, np.array([0.3, 0.5, 0.9]))


# ---------------------------------------------------------------- np.max with an empty axis kept
def max_over_rows_of_no_columns(x):
    a = np.ones((2, 0)) * x[0]  # (SciPy's _broadcast_shapes: np.max of a shape table after np.delete)
    return np.sum(np.max(a, axis=0)) + np.sum(np.min(np.ones((0, 3)) * x[1], axis=1)) + x[1] * x[0]


def test_extremum_over_an_axis_when_a_kept_axis_is_empty():
    check_derivatives(max_over_rows_of_no_columns, np.array([0.3, 0.7]))  # (ValueError: reshape(-1) of size 0)


# ---------------------------------------------------------------- SciPy
sl = pytest.importorskip("scipy.linalg")
si = pytest.importorskip("scipy.interpolate")
so = pytest.importorskip("scipy.optimize")
sint = pytest.importorskip("scipy.integrate")
XS = np.linspace(0.0, 1.0, 6)
Y = np.sin(3.0 * XS)


@pytest.mark.parametrize("bc", ["not-a-knot", "natural", ((1, 0.0), (2, 1.0))], ids=["not-a-knot", "natural", "clamped"])
def test_cubic_spline(bc):
    check_derivatives(lambda y: si.CubicSpline(XS, y, bc_type=bc)(np.array([0.37, 0.81])), Y)


def test_cubic_spline_in_knots_and_points():
    # (the points stay inside one interval each under the finite differences)
    check_derivatives(lambda x, y, t: si.CubicSpline(x, y)(t), XS, Y, np.array([0.33, 0.5, 0.91]))


def test_constant_minimize_is_a_constant():
    def f(x):
        p = so.minimize(lambda p: np.sum((p - 1.5) ** 2), np.zeros(2))["x"]
        return np.sum(np.sin(x) * p)

    x = np.array([1.0, 2.0])
    g = mc.grad(f)(x)
    p = so.minimize(lambda p: np.sum((p - 1.5) ** 2), np.zeros(2))["x"]
    assert np.allclose(g, np.cos(x) * p)
    assert np.allclose(mc.jvp(f, (x,), (np.ones(2),))[1], np.sum(np.cos(x) * p))


def test_constant_minimize_attribute():
    # (the lambda was active with the function defining it: forward mode failed on its zero tangent, reverse
    # mode refused the attribute read)
    def f(x):
        p = so.minimize(lambda p: np.sum((p - 1.5) ** 2), np.zeros(2)).x
        return np.sum(np.sin(x)) * float(np.sum(p))

    check_derivatives(f, np.array([1.0, 2.0]))


def test_constant_solver_results_read_as_attributes():
    # (res.x, sol.y: SciPy's result objects hand their items out as attributes; reverse mode refused them)
    def f(x):
        p = so.minimize(lambda p: np.sum((p - 1.5) ** 2), np.zeros(2)).x
        sol = sint.solve_ivp(lambda t, u: -0.5 * u, (0.0, 1.0), np.array([1.0]), rtol=1e-10, atol=1e-12)
        return np.sum(x * p) * sol.y[0, -1]

    x = np.array([1.0, 2.0])
    p = so.minimize(lambda p: np.sum((p - 1.5) ** 2), np.zeros(2)).x
    assert np.allclose(mc.grad(f)(x), p * np.exp(-0.5), rtol=1e-6)
    check_derivatives(f, x)


def test_constant_minimize_over_captured_constants():
    def f(x):
        d = np.array([0.5, 1.0]) * 2.0  # a constant the objective captures
        p = so.minimize(lambda p: np.sum((p - d) ** 2), np.zeros(2))["x"]
        return np.sum(p * x)

    x = np.array([1.0, 2.0])
    assert np.allclose(mc.grad(f)(x), [1.0, 2.0], atol=1e-6)


@pytest.mark.parametrize("how", ["closure", "default", "attribute"])
def test_minimize_over_the_inputs_is_refused(how):
    def by_closure(x):
        return np.sum(so.minimize(lambda p: np.sum((p - x) ** 2), np.zeros(2))["x"])

    def by_default(x):
        return np.sum(so.minimize(lambda p, x=x: np.sum((p - x) ** 2), np.zeros(2))["x"])

    def by_attribute(x):
        return np.sum(so.minimize(lambda p: np.sum((p - x) ** 2), np.zeros(2)).x * x)

    f = {"closure": by_closure, "default": by_default, "attribute": by_attribute}[how]
    for mode in ("forward", "reverse"):
        with pytest.raises(Exception, match="scipy.optimize.minimize"):
            if mode == "reverse":
                mc.grad(f)(np.array([1.0, 2.0]))  # (it was a silent zero)
            else:
                mc.jvp(f, (np.array([1.0, 2.0]),), (np.ones(2),))


# ---------------------------------------------------------------- scipy.stats behind _axis_nan_policy
st = pytest.importorskip("scipy.stats")


def test_stats_wrapper_options():
    x = np.array([0.2, 0.5, 0.3, 0.7])
    check_derivatives(lambda x: st.skew(x, nan_policy="omit") * st.entropy(x, x[::-1] + 0.1), x)  # (no NaN: as 'propagate')
    y = np.array([0.2, np.nan, 0.3, 0.7])
    for mode in ("forward", "reverse"):
        with pytest.raises(Exception, match="nan_policy='omit'"):
            if mode == "reverse":
                mc.grad(lambda y: st.kurtosis(y, nan_policy="omit"))(y)
            else:
                mc.jvp(lambda y: st.kurtosis(y, nan_policy="omit"), (y,), (np.ones(4),))
