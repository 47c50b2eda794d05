"""Test inputs of rules/strong_zeros.py (strong_mul: z * d with an exact zero z a strong zero), merged into CASES
of tests/test_rules.py, which checks each in both modes against finite differences.  Away from z == 0 strong_mul
is the plain product, so its rules are checked there (finite differences cannot see a strong zero); the zeros
themselves are checked in tests/test_regress_nan_derivatives.py."""
import math

import numpy as np

from mooncake_ast.rules.smooth_squares import (as_numeric_array, defined_where, modulus_squared,
                                               modulus_squared_tangent, nan_where_moving, numeric_operand,
                                               operand_adjoint, operand_tangent, smooth_square)
from mooncake_ast.rules.strong_products import (strong_dot_adjoint, strong_matmul, strong_matmul_adjoint,
                                                strong_matmul_tangent_term)
from mooncake_ast.rules.strong_zeros import (arcsin_slope, cbrt_slope, over_partial, reciprocal, sqrt_slope, strong_mul,
                                             strong_product, unit_ratio)

X3 = np.array([0.3, -0.7, 1.1])


class Case:
    """As test_rules.Case: the function, its arguments, the modes (default: the rule's), check options."""

    def __init__(self, fn, *args, modes=None, xfail=None, **check):
        self.fn, self.args, self.modes, self.xfail, self.check = fn, args, modes, xfail, check


def strong_mul_numbers(z, d):
    return strong_mul(z * 2.0, np.sin(d))


def strong_mul_arrays(z, d):
    return np.sum(strong_mul(z * z, d + 1.0) * d)


def strong_mul_broadcast(z, d):
    return np.sum(strong_mul(z, d) ** 2)  # (a number d against an array z)


def strong_mul_twice(z):
    return np.sum(strong_mul(strong_mul(z, z + 2.0), np.cos(z)))


def strong_product_numbers(a, b):
    return strong_product(np.sin(a), b * b + 0.5)


def strong_product_arrays(a, b):
    return np.sum(strong_product(a * a + 0.1, np.cos(b)) * b)


def strong_product_broadcast(a, b):
    return np.sum(strong_product(b, a) ** 2)  # (a number b against an array a)


def strong_product_twice(a):
    return np.sum(strong_product(strong_product(a, a + 2.0), np.exp(a)))


def slope_of_sqrt(x):
    return np.sum(sqrt_slope(np.sqrt(x)) * x)


def slope_of_cbrt(x):
    return np.sum(cbrt_slope(np.cbrt(x)) ** 2)


def slope_of_arcsin(x):
    return np.sum(arcsin_slope(np.tanh(x)) * x)


M23 = np.array([[0.3, -0.7, 1.1], [0.5, 0.2, -0.4]])
M32 = np.array([[0.6, -0.1], [0.2, 0.9], [-0.5, 0.4]])


def strong_matmul_matrices(a, b):
    return np.sum(np.sin(strong_matmul(a, b * b)))


def strong_matmul_vector(a, v):
    return np.sum(strong_matmul(a, np.cos(v)) ** 2) + np.sum(strong_matmul(v, a.T) * 0.5)


def strong_matmul_adjoint_a(g, b):
    return np.sum(np.sin(strong_matmul_adjoint(g * g, np.zeros((2, 3)), b, 0)))


def strong_matmul_adjoint_b(a, g):
    return np.sum(np.cos(strong_matmul_adjoint(g, a * a, np.zeros((3, 2)), 1)))


def strong_dot_adjoints(a, g):
    return np.sum(strong_dot_adjoint(g, a, np.zeros(3), 1) ** 2) + np.sum(strong_dot_adjoint(g, np.zeros((2, 3)), a[0], 0))


def strong_tangent_terms(a, b):
    return np.sum(strong_matmul_tangent_term(np.dot, a, b) ** 2) + np.sum(strong_matmul_tangent_term(np.matmul, b, a))


try:
    import scipy.linalg as sl
except ImportError:  # SciPy is optional
    sl = None
Q3 = np.linalg.qr(np.array([[1.0, 2.0, 0.0], [0.5, 1.0, 1.0], [0.0, 1.0, 3.0]]))[0]


def reciprocals(x):
    return np.sum(reciprocal(x * x + 0.5) * x) + reciprocal(x[0] + 3.0)


def unit_ratios(x, y):
    return np.sum(unit_ratio(x, np.hypot(x, y)) * y) + unit_ratio(x[0], 2.0 + x[1] ** 2)


def unit_ratio_numbers(a, b):
    return unit_ratio(a * b, math.hypot(a * b, b + 1.0)) * b


def over_partials(x, y):
    return np.sum(over_partial(x * y, y * y + 1.0) * x) + over_partial(x[0], y[1] + 2.0) * y[2]


def over_partial_numbers(a, b):
    return over_partial(np.sin(a), b * b + 0.5) * a


def smooth_squares_of(x, y):
    return np.sum(smooth_square(np.hypot(x, y) ** 2, x * x + y * y) * x) + smooth_square(x[0] ** 2, x[0] * x[0]) * y[1]


def defined_wheres(x, y):
    return np.sum(defined_where(x * y, np.sqrt(y * y + 1.0)) * x) + defined_where(x[0] ** 3, 2.0 + y[1])


def nan_where_moving_zero(x, y):
    return np.sum(nan_where_moving(x * y, y + 3.0) + x * y) + nan_where_moving(x[0], 1.5) * y[2]


def numeric_operands(x):
    return np.sum(numeric_operand(x * x) * x) + numeric_operand(x[0] * 2.0) * x[1]


def moduli_squared(x):
    return np.sum(modulus_squared(x) * np.arange(1.0, 1.0 + np.size(x))) + modulus_squared(np.sum(x) * 0.5)


def modulus_squared_real_number(a):
    return modulus_squared(a * 3.0) * a


def modulus_squared_tangents(x, d):
    return np.sum(modulus_squared_tangent(x, d * d) * np.cos(x).real) + modulus_squared_tangent(x[0], d[1])


def numeric_arrays(x):
    v = [x[0] * 2.0, x[1], x[2] ** 2]
    return np.sum(as_numeric_array(v) * x) + np.sum(as_numeric_array(x * x)) + as_numeric_array(x[0] * 3.0) * x[1]


def operand_tangents(x, d):
    v = [x[0], x[1] * x[2]]
    return np.sum(operand_tangent(v, [d[0], d[1] * 2.0]) * x[:2]) + np.sum(operand_tangent(x, d * d) * x)


def operand_adjoints(x, g):
    v = (x[0], x[1])
    a, b = operand_adjoint(v, g[:2] * x[2])
    return a * b + np.sum(operand_adjoint(x, g * g) * x)


def _weights(shape):
    return np.cos(np.arange(np.prod(shape), dtype=float)).reshape(shape)


def polar_right(a):
    u, p = sl.polar(a)
    return np.sum(u * _weights(u.shape)) + np.sum(np.sin(p))


def polar_left(a):
    u, p = sl.polar(a, "left")
    return np.sum(u * _weights(u.shape)) + np.sum(p * p * _weights(p.shape))


STRONG_CASES = {
    "mooncake_ast.rules.strong_zeros.sqrt_slope": [Case(slope_of_sqrt, X3 + 1.0), Case(slope_of_sqrt, 2.3)],
    "mooncake_ast.rules.strong_zeros.cbrt_slope": [Case(slope_of_cbrt, X3 + 1.0), Case(slope_of_cbrt, -0.8)],
    "mooncake_ast.rules.strong_zeros.arcsin_slope": [Case(slope_of_arcsin, X3), Case(slope_of_arcsin, 0.4)],
    "mooncake_ast.rules.strong_zeros.strong_mul": [
        Case(strong_mul_numbers, 0.7, 1.3), Case(strong_mul_arrays, X3, X3[::-1] * 2.0),
        Case(strong_mul_broadcast, X3 + 0.5, 1.7), Case(strong_mul_twice, X3)],
    "mooncake_ast.rules.strong_zeros.strong_product": [
        Case(strong_product_numbers, 0.7, 1.3), Case(strong_product_arrays, X3, X3[::-1] * 2.0),
        Case(strong_product_broadcast, X3 + 0.5, 1.7), Case(strong_product_twice, X3)],
    "mooncake_ast.rules.strong_zeros.reciprocal": [Case(reciprocals, X3)],
    "mooncake_ast.rules.strong_zeros.unit_ratio": [Case(unit_ratios, X3, X3[::-1] + 2.0), Case(unit_ratio_numbers, 0.7, -1.3)],
    "mooncake_ast.rules.strong_zeros.over_partial": [Case(over_partials, X3, X3[::-1] + 2.0),
                                                     Case(over_partial_numbers, 0.7, -1.3)],
    "mooncake_ast.rules.smooth_squares.smooth_square": [Case(smooth_squares_of, X3, X3[::-1] + 2.0)],
    "mooncake_ast.rules.smooth_squares.defined_where": [Case(defined_wheres, X3, X3[::-1] + 2.0)],
    "mooncake_ast.rules.smooth_squares.nan_where_moving": [Case(nan_where_moving_zero, X3, X3[::-1] + 2.0)],
    "mooncake_ast.rules.smooth_squares.numeric_operand": [Case(numeric_operands, X3), Case(numeric_operands, X3 - 0.5j)],
    "mooncake_ast.rules.smooth_squares.modulus_squared": [
        Case(moduli_squared, X3), Case(moduli_squared, X3 + 1j * X3[::-1]), Case(modulus_squared_real_number, -0.8)],
    "mooncake_ast.rules.smooth_squares.as_numeric_array": [Case(numeric_arrays, X3), Case(numeric_arrays, X3 - 0.5j)],
    "mooncake_ast.rules.smooth_squares.operand_tangent": [Case(operand_tangents, X3, X3[::-1] + 2.0)],
    "mooncake_ast.rules.smooth_squares.operand_adjoint": [Case(operand_adjoints, X3, X3[::-1] + 2.0)],
    "mooncake_ast.rules.smooth_squares.modulus_squared_tangent": [
        Case(modulus_squared_tangents, X3, X3[::-1] + 2.0),
        Case(modulus_squared_tangents, X3 + 0.5j, X3[::-1] - 1j * X3)],
    "mooncake_ast.rules.strong_products.strong_matmul": [
        Case(strong_matmul_matrices, M23, M32), Case(strong_matmul_vector, M23, np.array([0.4, -1.2, 0.8]))],
    "mooncake_ast.rules.strong_products.strong_matmul_adjoint": [
        Case(strong_matmul_adjoint_a, M23[:, :2], M32), Case(strong_matmul_adjoint_b, M23, M23[:, :2])],
    "mooncake_ast.rules.strong_products.strong_dot_adjoint": [Case(strong_dot_adjoints, M23, np.array([0.7, -0.3]))],
    "mooncake_ast.rules.strong_products.strong_matmul_tangent_term": [Case(strong_tangent_terms, M23, M32)],
}
if sl is not None:  # (rules/scipy_linalg_polar.py: sums of singular values, repeated ones included: Q3 * 2, D)
    STRONG_CASES["scipy.linalg._decomp_polar.polar"] = [
        Case(polar_right, M32 + np.eye(3, 2)), Case(polar_right, Q3 * 2.0), Case(polar_right, Q3 @ np.diag([2.0, 2.0, 5.0]) @ Q3.T),
        Case(polar_left, M23 + np.eye(2, 3)), Case(polar_left, Q3 @ np.diag([1.0, 3.0, 3.0]) @ Q3.T)]
