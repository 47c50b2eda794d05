"""Forward mode over forward mode through closures (issue 10), and reverse mode over forward mode along a direction
that depends on the input.

Forward code of a function that makes a closure keeps what it captures in cells (`k_cell = _mc.new_cell()`,
`dk_cell.cell_contents = ...`, `_mc.FunctionTangent((dk_cell,), ...)`).  Differentiated forward again, those cells
get tangent cells of their own (forward/runtime.fcall, builtin_attributes.setattr_tangent), the closure's tangent reaches
the closure's forward code (api_rules._closure_forward_plan), and its reads of its tangent cells have tangents
(forward_code_rules: cell_tangent, cell_tangent_get).  All of it was refused ("setattr writes a value with a
derivative into a cell whose derivative is not tracked").

Lambdas whose defaults are made from the inputs (`fs.append(lambda t, c=c: t * c)`, called as `fs[0](y)`) were
refused at every second order; their calls are planned as positional ones now (rules/nested_defaults.py), the
defaults' adjoints given back to the function and its tangent.  A mutable default (state the function may write)
stays refused.

`tangent(x) = jvp(f, (x,), (v(x),))[1]` with a direction v that depends on x makes the second-order tangents of the
captured values nonzero; check_derivatives checks it forward (jvp∘jvp) and reverse (vjp∘jvp), against finite
differences.  Reverse mode lost the adjoint of the direction for functions with nested functions (mc.jvp's copy of
the tangent kept it in storage: api_rules._copy_adjoints), a silently wrong gradient, fixed here too.
"""
import math

import numpy as np
import pytest

import mooncake_ast as mc

from tests import nested_closure_cases as cases

X = 0.7
A = np.array([0.3, -0.7, 1.1])


def _scalar_tangent(f):
    def tangent(x):
        return mc.jvp(f, (x,), (math.sin(x) + 0.5,))[1]
    return tangent


def _array_tangent(f):
    def tangent(a):
        return mc.jvp(f, (a,), (np.sin(a) + 0.5,))[1]
    return tangent


@pytest.mark.parametrize("f", cases.SCALAR, ids=lambda f: f.__name__)
def test_forward_over_forward_of_scalar_closures(f):
    mc.testing.check_derivatives(f, X)
    mc.testing.check_derivatives(_scalar_tangent(f), X)
    h = 1e-5
    g = mc.grad(f)
    np.testing.assert_allclose(mc.jvp(g, (X,), (1.0,))[1], (g(X + h) - g(X - h)) / (2 * h), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("f", cases.ARRAY, ids=lambda f: f.__name__)
def test_forward_over_forward_of_array_closures(f):
    mc.testing.check_derivatives(f, A.copy())
    mc.testing.check_derivatives(_array_tangent(f), A.copy())
    g, h = mc.grad(f), 1e-5
    H = np.stack([(g(A + h * e) - g(A - h * e)) / (2 * h) for e in np.eye(3)], axis=-1)
    np.testing.assert_allclose(mc.jacfwd(mc.jacfwd(f))(A.copy()), H, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("f", cases.DEFAULTS, ids=lambda f: f.__name__)
def test_second_derivatives_through_lambdas_with_differentiated_defaults(f):
    x = A.copy() if f is cases.array_lambdas else X
    mc.testing.check_derivatives(f, x)

    def gradient(y):
        return mc.grad(f)(y)

    mc.testing.check_derivatives(gradient, x)  # jvp∘grad and vjp∘grad
    mc.testing.check_derivatives(_array_tangent(f) if f is cases.array_lambdas else _scalar_tangent(f), x)


def test_a_mutable_default_made_inside_stays_refused():
    # (an array default is passed as a read-only copy now: the write into it is what is refused, by name)
    with pytest.raises(mc.NestingError, match="writes into an array it takes as a default"):
        mc.hessian(cases.default_array_written)(A.copy())
