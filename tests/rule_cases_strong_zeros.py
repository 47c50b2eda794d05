"""Test inputs of rules/strong_zeros.py (strong_mul: z * d with an exact zero z a strong zero), merged into CASES
of tests/test_rules.py, which checks each in both modes against finite differences.  Away from z == 0 strong_mul
is the plain product, so its rules are checked there (finite differences cannot see a strong zero); the zeros
themselves are checked in tests/test_regress_nan_derivatives.py."""
import numpy as np

from mooncake_ast.rules.strong_zeros import arcsin_slope, cbrt_slope, sqrt_slope, strong_mul, strong_product

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
}
