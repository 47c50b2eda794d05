"""Control flow: branches, loops, break/continue, else clauses, recursion."""
import math

import numpy as np

from tests.corpus import Case


def piecewise_energy(x):
    """Piecewise potential with if / elif / else."""
    if x < -1.0:
        return 0.5 * (x + 1.0) ** 2
    elif x < 1.0:
        return 0.25 * x ** 4 - 0.5 * x ** 2 + 0.25
    else:
        return math.exp(x - 1.0) - x


def newton_sqrt(a, iters=20):
    """Newton iteration for the square root with a fixed number of steps."""
    x = a
    for _ in range(iters):
        x = 0.5 * (x + a / x)
    return x


def fixed_point_cos(x0, c):
    """Damped fixed-point iteration with a while loop and break on convergence."""
    x = x0
    k = 0
    while k < 200:
        x_new = 0.5 * x + 0.5 * c * math.cos(x)
        k += 1
        if k >= 50:
            break
        x = x_new
    return x_new


def euler_decay(y0, rate, dt=0.01, steps=100):
    """Explicit Euler integration of exponential decay."""
    y = y0
    t = 0.0
    while t < steps * dt - 1e-12:
        y = y + dt * (-rate * y)
        t += dt
    return y


def sum_positive_terms(xs):
    """Sum squares of positive entries using continue (list input)."""
    total = 0.0
    for v in xs:
        if v <= 0:
            continue
        total += v * v
    return total


def first_exceed_then_scale(xs, threshold):
    """Return a scaled value at the first element exceeding a threshold (early return)."""
    for i, v in enumerate(xs):
        if v > threshold:
            return v * (i + 1) + threshold
    return sum(xs)


def search_with_for_else(xs, target):
    """for-else: use a fallback formula if no element is close to target."""
    for v in xs:
        if abs(v - target) < 0.1:
            result = v * target
            break
    else:
        result = sum(v * v for v in xs) - target
    return result


def while_else_accumulate(x, n):
    """while-else: accumulate a geometric series; else clause runs on normal exit."""
    i = 0
    acc = 0.0
    term = 1.0
    while i < n:
        acc += term
        term *= x
        i += 1
    else:
        acc += 0.5 * term
    return acc


def nested_loop_pairwise(xs):
    """Nested loops over pairs computing a soft pairwise interaction energy."""
    n = len(xs)
    energy = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            d = xs[i] - xs[j]
            energy += 1.0 / (1.0 + d * d)
    return energy


def reversed_horner(coeffs, x):
    """Horner's rule iterating over reversed coefficients."""
    acc = 0.0
    for c in reversed(coeffs):
        acc = acc * x + c
    return acc


def zip_weighted_sum(ws, xs, bias):
    """Weighted sum over zipped lists with a bias."""
    total = bias
    for w, x in zip(ws, xs):
        total += w * x
    return math.tanh(total)


def array_loop_with_assert(x):
    """Loop directly over a numpy array; assert a precondition."""
    assert x.ndim == 1, "expected a vector"
    total = 0.0
    for v in x:
        total += math.sin(v) * v
    return total


def pass_and_branches(x, mode):
    """Branch on a string mode, with a pass placeholder branch."""
    y = x * 2.0
    if mode == "square":
        y = y * y
    elif mode == "noop":
        pass
    else:
        y = math.exp(-y)
    return y + x


def recursive_power(x, n):
    """Compute x**n by recursive exponentiation by squaring."""
    if n == 0:
        return 1.0
    if n % 2 == 0:
        half = recursive_power(x, n // 2)
        return half * half
    return x * recursive_power(x, n - 1)


def horner_recursive(coeffs, x):
    """Horner's rule written recursively over a list of coefficients."""
    if len(coeffs) == 1:
        return coeffs[0]
    return coeffs[0] + x * horner_recursive(coeffs[1:], x)


def _even_series(x, n):
    """Mutually recursive helper: even step."""
    if n == 0:
        return 1.0
    return 1.0 + x * _odd_series(x, n - 1)


def _odd_series(x, n):
    """Mutually recursive helper: odd step."""
    if n == 0:
        return x
    return 1.0 - 0.5 * x * _even_series(x, n - 1)


def mutual_recursion(x, n):
    """Entry point for a mutually recursive series."""
    return _even_series(x, n) + _odd_series(x, n)


def bisection_then_smooth(a, b):
    """Bisection with a fixed iteration count; the branch pattern is locally constant."""
    lo, hi = 0.0, 3.0
    for _ in range(30):
        mid = 0.5 * (lo + hi)
        if mid * mid - 2.0 > 0:
            hi = mid
        else:
            lo = mid
    return a * lo + b * hi ** 2


def gradient_descent_quadratic(x0, lr, steps):
    """Run gradient descent on a 1-D quartic, returning the final iterate."""
    x = x0
    for step in range(steps):
        grad = 4.0 * x ** 3 - 2.0 * x
        x -= lr * grad
        if step > 1000:
            break
    return x


def collatz_like_scaling(x, n):
    """Integer-driven control flow (n) scaling a float in nested branches."""
    y = x
    while n != 1:
        if n % 2 == 0:
            n //= 2
            y = y * 0.9 + 0.1
        else:
            n = 3 * n + 1
            y = y * y * 0.5 + 0.2
    return y


def early_return_in_while(x):
    """Early return from inside a while loop once a counter hits a limit."""
    k = 0
    y = x
    while True:
        y = math.sin(y) + 0.5 * x
        k += 1
        if k == 8:
            return y * k


def continue_skip_indices(x):
    """Loop over array indices, skipping every third one with continue."""
    total = 0.0
    for i in range(x.shape[0]):
        if i % 3 == 2:
            continue
        total += x[i] ** 2 * (i + 1)
    return total


def break_when_budget_spent(costs, budget):
    """Accumulate costs until a budget is spent (break), returning the leftover."""
    spent = 0.0
    count = 0
    for c in costs:
        if spent + c > budget:
            break
        spent += c
        count += 1
    return budget - spent + 0.1 * count * costs[0]


def for_else_capped_series(x, cap):
    """for-else: sum a series until it exceeds a cap, else add a tail correction."""
    total = 0.0
    for k in range(1, 12):
        total += x ** k / k
        if total > cap:
            total = cap + math.log1p(total - cap)
            break
    else:
        total += x ** 12 / (12 * (1.0 - x))
    return total


def while_else_first_crossing(x, limit):
    """while-else: find the first multiple of x that crosses a limit."""
    k = 1
    while k < 10:
        if k * x > limit:
            value = k * x - limit
            break
        k += 1
    else:
        value = -x
    return value * x + k


def _ping(x, n):
    """Mutual recursion: ping applies sin then delegates to pong."""
    if n <= 0:
        return x
    return _pong(math.sin(x) + 0.3, n - 1)


def _pong(x, n):
    """Mutual recursion: pong applies cos then delegates to ping."""
    if n <= 0:
        return x
    return _ping(x * math.cos(x), n - 1)


def ping_pong(x, n=5):
    """Entry point for ping/pong mutual recursion."""
    return _ping(x, n) * x


def nested_loops_with_break(A):
    """Nested loops over a matrix with an inner break on a negative entry."""
    total = 0.0
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            if A[i, j] < 0.0:
                break
            total += A[i, j] ** 2 * (i + 1)
    return total


CASES = [
    Case(piecewise_energy, lambda: (-1.7,), tags=("if", "elif", "else")),
    Case(piecewise_energy, lambda: (0.3,), tags=("if", "elif", "else")),
    Case(piecewise_energy, lambda: (1.8,), tags=("if", "elif", "else")),
    Case(newton_sqrt, lambda: (2.5,), tags=("loop", "range", "defaults")),
    Case(fixed_point_cos, lambda: (0.1, 1.3), tags=("while", "break", "augassign")),
    Case(euler_decay, lambda: (2.0, 0.8), tags=("while", "defaults", "ode")),
    Case(sum_positive_terms, lambda: ([0.5, -1.2, 1.3, 0.8, -0.4],), tags=("loop", "continue", "container", "list")),
    Case(first_exceed_then_scale, lambda: ([0.2, 0.5, 1.4, 0.3], 1.0), tags=("loop", "enumerate", "early_return", "list")),
    Case(first_exceed_then_scale, lambda: ([0.2, 0.5, 0.4, 0.3], 1.0), tags=("loop", "enumerate", "list")),
    Case(search_with_for_else, lambda: ([0.3, 1.05, 2.0], 1.0), tags=("loop", "for_else", "break", "list")),
    Case(search_with_for_else, lambda: ([0.3, 1.5, 2.0], 1.0), tags=("loop", "for_else", "generator", "list")),
    Case(while_else_accumulate, lambda: (0.6, 7), tags=("while", "while_else", "augassign")),
    Case(nested_loop_pairwise, lambda: ([0.1, 0.7, -0.4, 1.2],), tags=("loop", "nested_loop", "list")),
    Case(reversed_horner, lambda: ([1.0, -0.5, 0.25, 0.3], 0.9), tags=("loop", "reversed", "list")),
    Case(zip_weighted_sum, lambda: ([0.3, -0.2, 0.5], [1.0, 2.0, -0.7], 0.1), tags=("loop", "zip", "list")),
    Case(array_loop_with_assert, lambda: (np.random.default_rng(0).normal(size=5),), tags=("loop", "numpy", "assert")),
    Case(pass_and_branches, lambda: (0.7, "square"), tags=("if", "pass", "str_arg")),
    Case(pass_and_branches, lambda: (0.7, "noop"), tags=("if", "pass", "str_arg")),
    Case(pass_and_branches, lambda: (0.7, "exp"), tags=("if", "pass", "str_arg")),
    Case(recursive_power, lambda: (1.1, 11), tags=("recursion",)),
    Case(horner_recursive, lambda: ([0.5, -1.0, 0.3, 0.2], 1.3), tags=("recursion", "slicing", "list")),
    Case(mutual_recursion, lambda: (0.4, 6), tags=("recursion", "mutual_recursion")),
    Case(bisection_then_smooth, lambda: (0.5, 1.5), tags=("loop", "if", "tuple_unpack")),
    Case(gradient_descent_quadratic, lambda: (1.2, 0.05, 30), tags=("loop", "augassign", "break")),
    Case(collatz_like_scaling, lambda: (0.6, 6), tags=("while", "if", "int")),
    Case(early_return_in_while, lambda: (0.4,), tags=("while", "early_return")),
    Case(continue_skip_indices, lambda: (np.random.default_rng(1).normal(size=7),), tags=("loop", "continue", "numpy", "indexing")),
    Case(break_when_budget_spent, lambda: ([0.4, 0.7, 0.5, 0.9], 1.5), tags=("loop", "break", "list")),
    Case(for_else_capped_series, lambda: (0.5, 0.6), tags=("loop", "for_else", "break")),
    Case(for_else_capped_series, lambda: (0.5, 2.0), tags=("loop", "for_else")),
    Case(while_else_first_crossing, lambda: (0.7, 2.5), tags=("while", "while_else", "break")),
    Case(while_else_first_crossing, lambda: (0.2, 2.5), tags=("while", "while_else")),
    Case(ping_pong, lambda: (0.6,), tags=("recursion", "mutual_recursion", "defaults")),
    Case(ping_pong, lambda: (0.6, 4), tags=("recursion", "mutual_recursion")),
    Case(nested_loops_with_break, lambda: (np.array([[0.5, 1.2, -0.3, 0.8], [0.9, 0.4, 0.7, 1.1], [-0.6, 0.5, 0.2, 0.3]]),),
         tags=("loop", "nested_loop", "break", "numpy", "indexing")),
]
