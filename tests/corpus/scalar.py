"""Scalar arithmetic, math.* functions and builtins."""
import math

from tests.corpus import Case


def all_binary_ops(x, y):
    """Combine two floats with every arithmetic operator."""
    a = x + y
    b = x - y
    c = x * y
    d = x / y
    e = x ** 2 + y ** 3
    f = -x + (+y)
    return a + b * c - d + e + f


def floor_div_and_mod(x, y):
    """Mix floor division and modulo with smooth arithmetic."""
    q = x // y          # constant w.r.t. small perturbations
    r = x % y           # = x - q * y, smooth away from multiples of y
    return r * r + q * x + (x % 1.0) * y


def int_float_mix(x, n):
    """Mix integer and float operands."""
    return 3 * x + x / 2 + n * x ** 2 - 7 // 2 * x + 2 ** x + x ** n


def power_forms(x, y):
    """Powers with float exponents, pow() and math.pow."""
    return x ** 0.5 + pow(x, 1.5) + math.pow(y, 2.5) + x ** y + pow(y, 3)


def trig_identity_mix(theta):
    """Trigonometric expression from a pendulum energy."""
    g, l, m = 9.81, 1.3, 0.7
    kinetic = 0.5 * m * (l * math.cos(theta)) ** 2
    potential = m * g * l * (1.0 - math.cos(theta))
    return kinetic + potential + math.sin(2.0 * theta) * math.tan(theta / 3.0)


def log_exp_sqrt(x):
    """Composition of log, exp, sqrt and log1p/expm1."""
    return math.log(1.0 + math.exp(x)) + math.sqrt(x * x + 1.0) + math.log1p(x ** 2) - math.expm1(-x)


def tanh_sigmoid(x, w, b):
    """Single neuron with tanh and sigmoid activations."""
    z = w * x + b
    s = 1.0 / (1.0 + math.exp(-z))
    return math.tanh(z) * s


def polar_coords(x, y):
    """Convert to polar coordinates with atan2 and hypot and combine."""
    r = math.hypot(x, y)
    phi = math.atan2(y, x)
    return r * math.cos(phi / 2.0) + r ** 2 * math.sin(phi)


def arrhenius_rate(temp, a_factor, ea):
    """Arrhenius equation for a reaction rate."""
    r_gas = 8.314
    return a_factor * math.exp(-ea / (r_gas * temp))


def builtins_mix(x, y, z):
    """Use abs, min, max, round, float and sum on scalars."""
    lo = min(x, y, z)
    hi = max(x, y, z)
    s = sum([x, y, z])
    k = float(round(2.0))
    return abs(x - y) * hi + lo * s / k + abs(-z)


def unary_and_abs(x):
    """Unary minus chains with abs away from zero."""
    y = -x
    z = -(-y)
    return abs(z) ** 1.5 + -abs(y - 1.0) + (-x) ** 2


def softplus_stable(x):
    """Numerically stable softplus using max and abs."""
    return max(x, 0.0) + math.log1p(math.exp(-abs(x)))


def black_scholes_call(s, k, t, r, sigma):
    """Black-Scholes price of a European call option."""
    d1 = (math.log(s / k) + (r + 0.5 * sigma ** 2) * t) / (sigma * math.sqrt(t))
    d2 = d1 - sigma * math.sqrt(t)
    cdf1 = 0.5 * (1.0 + math.erf(d1 / math.sqrt(2.0)))
    cdf2 = 0.5 * (1.0 + math.erf(d2 / math.sqrt(2.0)))
    return s * cdf1 - k * math.exp(-r * t) * cdf2


def projectile_range(v0, angle, h0):
    """Horizontal range of a projectile launched from height h0."""
    g = 9.81
    vx = v0 * math.cos(angle)
    vy = v0 * math.sin(angle)
    t_flight = (vy + math.sqrt(vy ** 2 + 2 * g * h0)) / g
    return vx * t_flight


def gaussian_pdf(x, mu, sigma):
    """Univariate Gaussian density."""
    z = (x - mu) / sigma
    return math.exp(-0.5 * z * z) / (sigma * math.sqrt(2.0 * math.pi))


def augmented_scalar(x, y):
    """Chain of augmented assignments on scalars."""
    acc = x
    acc += y
    acc *= x
    acc -= 0.5 * y
    acc /= 1.0 + y * y
    acc **= 2
    return acc


def tuple_unpack_swap(x, y):
    """Tuple unpacking and swapping (Fibonacci-like mixing)."""
    a, b = x, y
    a, b = b, a + b
    a, b = b, a * b
    (c, d), e = (a, b), x - y
    return c + d * e


def walrus_and_ternary(x):
    """Walrus inside an expression plus conditional expressions."""
    if (y := x * x - 1.0) > 0:
        z = y if y < 10.0 else 10.0
    else:
        z = -y
    return z * (x if x > 0 else -x) + (w := math.sin(x)) * w


def chained_comparisons(x, y):
    """Use chained comparisons to pick a smooth formula."""
    if 0.0 < x < 1.0 <= y:
        return x * y ** 2
    elif -1.0 < x <= 0.0:
        return x ** 3
    return x + y


def and_or_values(x, y, scale=None):
    """Use `and` / `or` to select values (default handling)."""
    s = scale or 2.0
    offset = (x > 0 and y) or x
    return s * x + offset * y


def smooth_clip(x, lo=-1.0, hi=1.0):
    """Clip a value with min/max away from the boundaries, then square it."""
    c = min(max(x, lo), hi)
    return c * c + 0.1 * x


def int_conversion_mix(x, n):
    """Use len, range and float(int) alongside a float argument."""
    coeffs = [float(i) for i in range(n)]
    total = 0.0
    for i in range(len(coeffs)):
        total += coeffs[i] * x ** i
    return total / float(len(coeffs))


CASES = [
    Case(all_binary_ops, lambda: (1.3, 0.7), tags=("scalar", "operators")),
    Case(floor_div_and_mod, lambda: (5.3, 1.7), tags=("scalar", "operators", "floordiv", "mod")),
    Case(int_float_mix, lambda: (0.8, 3), tags=("scalar", "operators", "int")),
    Case(power_forms, lambda: (1.4, 0.9), tags=("scalar", "pow", "math")),
    Case(trig_identity_mix, lambda: (0.6,), tags=("scalar", "math")),
    Case(log_exp_sqrt, lambda: (0.4,), tags=("scalar", "math")),
    Case(tanh_sigmoid, lambda: (0.5, -1.2, 0.3), tags=("scalar", "math")),
    Case(polar_coords, lambda: (1.2, 0.8), tags=("scalar", "math", "atan2", "hypot")),
    Case(arrhenius_rate, lambda: (350.0, 2.0, 5000.0), tags=("scalar", "math")),
    Case(builtins_mix, lambda: (1.5, 0.4, -0.9), tags=("scalar", "builtins", "min", "max", "abs", "sum", "round", "float")),
    Case(unary_and_abs, lambda: (2.3,), tags=("scalar", "unary", "abs")),
    Case(softplus_stable, lambda: (-0.7,), tags=("scalar", "max", "abs", "math")),
    Case(black_scholes_call, lambda: (100.0, 95.0, 0.5, 0.03, 0.25), tags=("scalar", "math")),
    Case(projectile_range, lambda: (12.0, 0.6, 1.5), tags=("scalar", "math")),
    Case(gaussian_pdf, lambda: (0.3, 0.1, 0.8), tags=("scalar", "math")),
    Case(augmented_scalar, lambda: (0.9, 0.4), tags=("scalar", "augassign")),
    Case(tuple_unpack_swap, lambda: (1.1, 0.6), tags=("scalar", "tuple_unpack")),
    Case(walrus_and_ternary, lambda: (1.7,), tags=("scalar", "walrus", "ternary", "if")),
    Case(walrus_and_ternary, lambda: (0.5,), tags=("scalar", "walrus", "ternary", "if")),
    Case(chained_comparisons, lambda: (0.4, 1.5), tags=("scalar", "chained_compare", "if")),
    Case(chained_comparisons, lambda: (-0.4, 1.5), tags=("scalar", "chained_compare", "elif")),
    Case(chained_comparisons, lambda: (2.0, 0.5), tags=("scalar", "chained_compare", "if")),
    Case(and_or_values, lambda: (0.8, 1.3), tags=("scalar", "and_or", "defaults")),
    Case(and_or_values, lambda: (-0.8, 1.3), kwargs=lambda: {"scale": 0.5}, tags=("scalar", "and_or", "kwargs")),
    Case(smooth_clip, lambda: (0.35,), tags=("scalar", "min", "max", "defaults")),
    Case(smooth_clip, lambda: (1.6,), kwargs=lambda: {"hi": 2.0}, tags=("scalar", "min", "max", "kwargs")),
    Case(int_conversion_mix, lambda: (0.7, 5), tags=("scalar", "len", "range", "float", "loop", "comprehension")),
]
