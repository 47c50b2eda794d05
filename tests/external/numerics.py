"""Numerical-analysis routines from TheAlgorithms/Python (MIT).

Copied as-is except that doctest docstrings are dropped; ODE solvers and quadrature
take a user callback, supplied by small module-level wrappers (ours).
"""
import math
from collections.abc import Callable, Sequence
from math import exp, sqrt

import numpy as np

from tests.external import Case


# Origin: TheAlgorithms/Python, maths/numerical_analysis/runge_kutta.py (MIT)
def runge_kutta(f, y0, x0, h, x_end):
    n = int(np.ceil((x_end - x0) / h))
    y = np.zeros((n + 1,))
    y[0] = y0
    x = x0

    for k in range(n):
        k1 = f(x, y[k])
        k2 = f(x + 0.5 * h, y[k] + 0.5 * h * k1)
        k3 = f(x + 0.5 * h, y[k] + 0.5 * h * k2)
        k4 = f(x + h, y[k] + h * k3)
        y[k + 1] = y[k] + (1 / 6) * h * (k1 + 2 * k2 + 2 * k3 + k4)
        x += h

    return y


# Origin: TheAlgorithms/Python, maths/numerical_analysis/runge_kutta_gills.py (MIT)
def runge_kutta_gills(
    func: Callable[[float, float], float],
    x_initial: float,
    y_initial: float,
    step_size: float,
    x_final: float,
) -> np.ndarray:
    if x_initial >= x_final:
        raise ValueError(
            "The final value of x must be greater than initial value of x."
        )

    if step_size <= 0:
        raise ValueError("Step size must be positive.")

    n = int((x_final - x_initial) / step_size)
    y = np.zeros(n + 1)
    y[0] = y_initial
    for i in range(n):
        k1 = step_size * func(x_initial, y[i])
        k2 = step_size * func(x_initial + step_size / 2, y[i] + k1 / 2)
        k3 = step_size * func(
            x_initial + step_size / 2,
            y[i] + (-0.5 + 1 / sqrt(2)) * k1 + (1 - 1 / sqrt(2)) * k2,
        )
        k4 = step_size * func(
            x_initial + step_size, y[i] - (1 / sqrt(2)) * k2 + (1 + 1 / sqrt(2)) * k3
        )

        y[i + 1] = y[i] + (k1 + (2 - sqrt(2)) * k2 + (2 + sqrt(2)) * k3 + k4) / 6
        x_initial += step_size
    return y


# Origin: TheAlgorithms/Python, maths/numerical_analysis/runge_kutta_fehlberg_45.py (MIT)
def runge_kutta_fehlberg_45(
    func: Callable,
    x_initial: float,
    y_initial: float,
    step_size: float,
    x_final: float,
) -> np.ndarray:
    if x_initial >= x_final:
        raise ValueError(
            "The final value of x must be greater than initial value of x."
        )

    if step_size <= 0:
        raise ValueError("Step size must be positive.")

    n = int((x_final - x_initial) / step_size)
    y = np.zeros(
        (n + 1),
    )
    x = np.zeros(n + 1)
    y[0] = y_initial
    x[0] = x_initial
    for i in range(n):
        k1 = step_size * func(x[i], y[i])
        k2 = step_size * func(x[i] + step_size / 4, y[i] + k1 / 4)
        k3 = step_size * func(
            x[i] + (3 / 8) * step_size, y[i] + (3 / 32) * k1 + (9 / 32) * k2
        )
        k4 = step_size * func(
            x[i] + (12 / 13) * step_size,
            y[i] + (1932 / 2197) * k1 - (7200 / 2197) * k2 + (7296 / 2197) * k3,
        )
        k5 = step_size * func(
            x[i] + step_size,
            y[i] + (439 / 216) * k1 - 8 * k2 + (3680 / 513) * k3 - (845 / 4104) * k4,
        )
        k6 = step_size * func(
            x[i] + step_size / 2,
            y[i]
            - (8 / 27) * k1
            + 2 * k2
            - (3544 / 2565) * k3
            + (1859 / 4104) * k4
            - (11 / 40) * k5,
        )
        y[i + 1] = (
            y[i]
            + (16 / 135) * k1
            + (6656 / 12825) * k3
            + (28561 / 56430) * k4
            - (9 / 50) * k5
            + (2 / 55) * k6
        )
        x[i + 1] = step_size + x[i]
    return y


# Origin: TheAlgorithms/Python, maths/numerical_analysis/adams_bashforth.py, class
# AdamsBashforth (MIT); only __init__ and step_2 kept.
class AdamsBashforth:
    def __init__(self, func: Callable[[float, float], float], x_initials: list[float], y_initials: list[float], step_size: float, x_final: float):

        if x_initials[-1] >= x_final:
            raise ValueError("The final value of x must be greater than the initial values of x.")

        if step_size <= 0:
            raise ValueError("Step size must be positive.")

        if not all(x1 - x0 == step_size for x0, x1 in zip(x_initials, x_initials[1:])):
            raise ValueError("x-values must be equally spaced according to step size.")

        self.func = func
        self.x_initials = x_initials
        self.y_initials = y_initials
        self.step_size = step_size
        self.x_final = x_final

    def step_2(self) -> np.ndarray:
        if len(self.x_initials) != 2 or len(self.y_initials) != 2:
            raise ValueError("Insufficient nodal points values information.")

        x_0, x_1 = self.x_initials[:2]
        y_0, y_1 = self.y_initials[:2]

        n = int((self.x_final - x_1) / self.step_size)
        y = np.zeros(n + 2)
        y[0] = y_0
        y[1] = y_1

        for i in range(n):
            y[i+2] = y[i+1] + (self.step_size/2)*(3*self.func(x_1, y[i+1]) - self.func(x_0, y[i]))
            x_0 = x_1
            x_1 = x_1 + self.step_size

        return y


# Origin: TheAlgorithms/Python, maths/numerical_analysis/secant_method.py, f (MIT)
def f(x: float) -> float:
    return 8 * x - 2 * exp(-x)


# Origin: TheAlgorithms/Python, maths/numerical_analysis/secant_method.py (MIT)
def secant_method(lower_bound: float, upper_bound: float, repeats: int) -> float:
    x0 = lower_bound
    x1 = upper_bound
    for _ in range(repeats):
        x0, x1 = x1, x1 - (f(x1) * (x1 - x0)) / (f(x1) - f(x0))
    return x1


# Origin: TheAlgorithms/Python, maths/numerical_analysis/square_root.py, fx (MIT)
def fx(x: float, a: float) -> float:
    return math.pow(x, 2) - a


# Origin: TheAlgorithms/Python, maths/numerical_analysis/square_root.py, fx_derivative (MIT)
def fx_derivative(x: float) -> float:
    return 2 * x


# Origin: TheAlgorithms/Python, maths/numerical_analysis/square_root.py, get_initial_point (MIT)
def get_initial_point(a: float) -> float:
    start = 2.0

    while start <= a:
        start = math.pow(start, 2)

    return start


# Origin: TheAlgorithms/Python, maths/numerical_analysis/square_root.py (MIT)
def square_root_iterative(
    a: float, max_iter: int = 9999, tolerance: float = 1e-14
) -> float:
    if a < 0:
        raise ValueError("math domain error")

    value = get_initial_point(a)

    for _ in range(max_iter):
        prev_value = value
        value = value - fx(value, a) / fx_derivative(value)
        if abs(prev_value - value) < tolerance:
            return value

    return value


# Origin: TheAlgorithms/Python, maths/numerical_analysis/numerical_integration.py (MIT)
def trapezoidal_area(
    fnc: Callable[[float], float],
    x_start: float,
    x_end: float,
    steps: int = 100,
) -> float:
    x1 = x_start
    fx1 = fnc(x_start)
    area = 0.0

    for _ in range(steps):
        # Approximates small segments of curve as linear and solve
        # for trapezoidal area
        x2 = (x_end - x_start) / steps + x1
        fx2 = fnc(x2)
        area += abs(fx2 + fx1) * (x2 - x1) / 2

        # Increment step
        x1 = x2
        fx1 = fx2
    return area


# Origin: TheAlgorithms/Python, maths/numerical_analysis/nevilles_method.py (MIT)
def neville_interpolate(x_points: list, y_points: list, x0: int) -> list:
    n = len(x_points)
    q = [[0] * n for i in range(n)]
    for i in range(n):
        q[i][1] = y_points[i]

    for i in range(2, n):
        for j in range(i, n):
            q[j][i] = (
                (x0 - x_points[j - i + 1]) * q[j][i - 1]
                - (x0 - x_points[j]) * q[j - 1][i - 1]
            ) / (x_points[j] - x_points[j - i + 1])

    return [q[n - 1][n - 1], q]


# Origin: TheAlgorithms/Python, maths/polynomial_evaluation.py, evaluate_poly (MIT)
def evaluate_poly(poly: Sequence[float], x: float) -> float:
    return sum(c * (x**i) for i, c in enumerate(poly))


# Origin: TheAlgorithms/Python, maths/polynomial_evaluation.py, horner (MIT)
def horner(poly: Sequence[float], x: float) -> float:
    result = 0.0
    for coeff in reversed(poly):
        result = result * x + coeff
    return result


# Origin: TheAlgorithms/Python, linear_algebra/src/power_iteration.py (MIT)
def power_iteration(
    input_matrix: np.array, vector: np.array, error_tol=1e-12, max_iterations=100
) -> [float, np.array]:
    # Ensure matrix is square.
    assert np.shape(input_matrix)[0] == np.shape(input_matrix)[1]
    # Ensure proper dimensionality.
    assert np.shape(input_matrix)[0] == np.shape(vector)[0]

    convergence = False
    lamda_previous = 0
    iterations = 0
    error = 1e12

    while convergence is False:

        # Multiple matrix by the vector.
        w = np.dot(input_matrix, vector)
        # Normalize the resulting output vector.
        vector = w / np.linalg.norm(w)
        # Find rayleigh quotient
        # (faster than usual b/c we know vector is normalized already)
        lamda = np.dot(vector.T, np.dot(input_matrix, vector))

        # Check convergence.
        error = np.abs(lamda - lamda_previous) / lamda
        iterations += 1

        if error <= error_tol or iterations >= max_iterations:
            convergence = True

        lamda_previous = lamda

    return lamda, vector


# Origin: TheAlgorithms/Python, financial/simple_moving_average.py (MIT)
def simple_moving_average(
    data: Sequence[float], window_size: int
) -> list[float | None]:
    if window_size < 1:
        raise ValueError("Window size must be a positive integer")

    if window_size > len(data):
        raise ValueError("Window size must be smaller than the total length of the time series")

    sma: list[float | None] = []

    for i in range(len(data)):
        if i < window_size - 1:
            sma.append(None)  # SMA not available for early data points
        else:
            window = data[i - window_size + 1 : i + 1]
            sma_value = sum(window) / window_size
            sma.append(sma_value)
    return sma


# ---- wrappers (ours): supply the ODE right-hand side / integrand
def rk4_forced_decay(y0, k):  # wraps runge_kutta above
    return runge_kutta(lambda x, y: -k * y + x, y0, 0.0, 0.1, 1.0)


def rk_gills_logistic(y0, k):  # wraps runge_kutta_gills above
    return runge_kutta_gills(lambda x, y: k * y * (1 - y), 0.0, y0, 0.2, 1.0)


def rkf45_riccati(y0, k):  # wraps runge_kutta_fehlberg_45 above
    return runge_kutta_fehlberg_45(lambda x, y: 1 + k * y**2, 0.0, y0, 0.2, 1.0)


def adams_bashforth_2(y0, y1, k):  # wraps AdamsBashforth.step_2 above
    return AdamsBashforth(lambda x, y: (x - k * y) / 2, [0, 0.2], [y0, y1], 0.2, 1).step_2()


def trapezoid_damped(x_end, w):  # wraps trapezoidal_area above
    return trapezoidal_area(lambda x: math.exp(-w * x) * (1 + x * x), 0.0, x_end, steps=50)


def _sym_matrix():
    r = np.random.default_rng(70)
    q, _ = np.linalg.qr(r.normal(size=(4, 4)))
    return q @ np.diag([5.0, 1.5, 0.7, 0.2]) @ q.T, r.uniform(0.5, 1.5, 4)


_T = ("thealgorithms", "numerics")
CASES = [
    Case(rk4_forced_decay, lambda: (1.3, 0.8), tags=_T + ("ode", "inplace_setitem", "lambda")),
    Case(rk_gills_logistic, lambda: (0.3, 1.2), tags=_T + ("ode", "inplace_setitem", "lambda")),
    Case(rkf45_riccati, lambda: (0.1, 0.5), tags=_T + ("ode", "inplace_setitem", "lambda")),
    Case(adams_bashforth_2, lambda: (0.4, 0.45, 0.7), tags=_T + ("ode", "class", "inplace_setitem")),
    Case(secant_method, lambda: (1.0, 3.0, 2), tags=_T + ("root", "tuple_assign")),
    Case(square_root_iterative, lambda: (3.2,), tags=_T + ("newton", "early_return", "while")),
    Case(trapezoid_damped, lambda: (2.0, 0.6), tags=_T + ("quadrature", "abs")),
    Case(neville_interpolate, lambda: ([1.0, 2.0, 3.0, 4.0, 6.0], [0.6, 0.7, 0.85, 0.9, 1.1], 5.0),
         tags=_T + ("interpolation", "nested_lists")),
    Case(evaluate_poly, lambda: ((0.5, -1.0, 5.0, 9.3, 7.0), 0.7), tags=_T + ("polynomial", "generator")),
    Case(horner, lambda: ((0.5, -1.0, 5.0, 9.3, 7.0), 0.7), tags=_T + ("polynomial", "reversed")),
    Case(power_iteration, _sym_matrix, kwargs=lambda: {"error_tol": -1.0, "max_iterations": 60},
         tags=_T + ("linalg", "while", "tuple_return")),
    Case(simple_moving_average, lambda: (list(np.random.default_rng(71).uniform(10, 20, 8)), 3),
         tags=_T + ("list", "none_in_output")),
]
