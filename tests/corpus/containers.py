"""Lists, tuples and dicts of floats / arrays; comprehensions; unpacking."""
import math

import numpy as np

from tests.corpus import Case


def list_comprehension_sq(xs):
    """Sum of squares via a list comprehension with a filter."""
    squares = [x * x for x in xs if x > 0.0]
    return sum(squares) + len(squares)


def generator_dot(ws, xs):
    """Dot product written as a generator expression over zip."""
    return sum(w * x for w, x in zip(ws, xs))


def dict_params_model(params, x):
    """Linear-plus-quadratic model with parameters stored in a dict."""
    a = params["a"]
    b = params.get("b", 0.0)
    c = params["c"]
    return a * x ** 2 + b * x + c


def dict_comprehension_scaling(values, scale):
    """Build a dict via comprehension and reduce over its values."""
    scaled = {k: v * scale for k, v in values.items()}
    return sum(scaled.values()) + scaled["x"] * scaled["y"]


def set_comprehension_unique(x, ks):
    """Set comprehension over integer exponents, then a smooth sum."""
    exps = {k % 4 for k in ks}
    return sum(x ** e for e in sorted(exps))


def tuple_return_stats(xs):
    """Return (mean, variance) as a tuple computed from a list."""
    n = len(xs)
    mean = sum(xs) / n
    var = sum((x - mean) ** 2 for x in xs) / (n - 1)
    return mean, var


def use_tuple_stats(xs):
    """Call a helper returning a tuple and unpack it."""
    mean, var = tuple_return_stats(xs)
    return mean / math.sqrt(var)


def star_unpack_head_tail(xs):
    """Star-unpacking a list into head and rest."""
    first, *rest = xs
    *init, last = xs
    return first * sum(rest) + last * len(init) + rest[-1] * init[0]


def list_of_arrays_sum(arrays, weights):
    """Weighted sum of a list of arrays."""
    total = np.zeros_like(arrays[0])
    for a, w in zip(arrays, weights):
        total = total + w * a
    return np.sum(total ** 2)


def dict_of_arrays_mlp(params, x):
    """One-layer network whose weights live in a dict of arrays."""
    h = np.tanh(params["W"] @ x + params["b"])
    return float(params["v"] @ h)


def return_dict_of_values(x, y):
    """Return a dict of named derived quantities."""
    r = math.hypot(x, y)
    return {"r": r, "theta": math.atan2(y, x), "area": math.pi * r ** 2}


def consume_dict_result(x, y):
    """Use a dict returned by a helper function."""
    d = return_dict_of_values(x, y)
    return d["r"] * math.cos(d["theta"]) + 0.1 * d["area"]


def append_in_loop(x, n):
    """Build a list of powers with append, then reduce."""
    terms = []
    for k in range(n):
        terms.append(x ** k / math.factorial(k))
    return sum(terms)


def slicing_lists(xs):
    """Slicing a list with steps and negative indices."""
    evens = xs[::2]
    odds = xs[1::2]
    tail = xs[-3:]
    return sum(evens) * sum(odds) - sum(t * t for t in tail) + xs[-1] * xs[0]


def nested_list_matrix(rows, v):
    """Matrix-vector product with a list of lists."""
    out = [sum(a * b for a, b in zip(row, v)) for row in rows]
    return sum(o * o for o in out)


def tuple_of_arrays_input(pair, t):
    """Interpolate between two arrays given as a tuple."""
    a, b = pair
    mix = (1.0 - t) * a + t * b
    return np.sum(np.sin(mix))


def tuple_of_arrays_output(x):
    """Return a tuple of arrays (value and derivative of a sine series)."""
    k = np.arange(1, x.shape[0] + 1)
    return np.sin(k * x), k * np.cos(k * x)


def sorted_keys_lookup(coeffs, x):
    """Iterate over sorted dict keys (powers) and look up coefficients."""
    total = 0.0
    for p in sorted(coeffs):
        total += coeffs[p] * x ** p
    return total


def enumerate_list_of_tuples(points):
    """Sum weighted distances from a list of (x, y) tuples."""
    total = 0.0
    for i, (px, py) in enumerate(points):
        total += (i + 1) * math.sqrt(px * px + py * py)
    return total


def nested_comprehension_grid(xs, ys):
    """Double comprehension building a grid of products."""
    grid = [[x * y for y in ys] for x in xs]
    return sum(sum(row) ** 2 for row in grid)


def list_of_floats_to_array(xs):
    """Convert a list of floats to an array, compute and return a float."""
    a = np.array(xs)
    return float(np.sum(a ** 3) - np.prod(a))


def walrus_in_comprehension(xs):
    """Walrus inside a filtered list comprehension."""
    kept = [y for v in xs if (y := v * v - 0.2) > 0.0]
    return sum(kept) * len(kept)


def star_unpack_arrays(params, x):
    """Star-unpack a list of layer weight matrices into first, middle and last."""
    first, *middle, last = params
    h = np.tanh(first @ x)
    for W in middle:
        h = np.tanh(W @ h)
    return float(np.sum(last @ h))


def layer_activations(Ws, x):
    """Return the list of activations of a deep tanh network."""
    acts = [x]
    for W in Ws:
        acts.append(np.tanh(W @ acts[-1]))
    return acts


def activation_energy(Ws, x):
    """Consume a list of arrays returned from a helper."""
    acts = layer_activations(Ws, x)
    return sum(float(np.sum(a ** 2)) for a in acts[1:])


def set_of_indices_gather(x, pairs):
    """Set comprehension to de-duplicate indices, then gather from an array."""
    idx = sorted({i for pair in pairs for i in pair})
    return np.sum(x[idx] ** 2) + len(idx) * x[idx[0]]


CASES = [
    Case(list_comprehension_sq, lambda: ([0.5, -1.2, 1.3, 0.8],), tags=("container", "list", "comprehension")),
    Case(generator_dot, lambda: ([0.3, -0.2, 0.5], [1.0, 2.0, -0.7]), tags=("container", "generator", "zip")),
    Case(dict_params_model, lambda: ({"a": 0.5, "b": -1.2, "c": 0.3}, 1.4), tags=("container", "dict")),
    Case(dict_params_model, lambda: ({"a": 0.5, "c": 0.3}, 1.4), tags=("container", "dict", "dict_get")),
    Case(dict_comprehension_scaling, lambda: ({"x": 1.5, "y": -0.5, "z": 2.0}, 0.7), tags=("container", "dict", "comprehension")),
    Case(set_comprehension_unique, lambda: (1.3, [1, 5, 2, 6, 3]), tags=("container", "set", "comprehension")),
    Case(tuple_return_stats, lambda: ([1.0, 2.5, 0.3, 1.7],), tags=("container", "tuple", "returns_tuple", "generator")),
    Case(use_tuple_stats, lambda: ([1.0, 2.5, 0.3, 1.7],), tags=("container", "tuple_unpack", "helper")),
    Case(star_unpack_head_tail, lambda: ([0.4, 1.1, -0.6, 0.9, 1.3],), tags=("container", "star_unpack")),
    Case(list_of_arrays_sum, lambda: ([np.random.default_rng(i).normal(size=3) for i in range(3)], [0.5, -1.0, 2.0]),
         tags=("container", "list_of_arrays", "numpy")),
    Case(dict_of_arrays_mlp, lambda: ({"W": np.random.default_rng(30).normal(size=(4, 3)), "b": np.random.default_rng(31).normal(size=4),
                                       "v": np.random.default_rng(32).normal(size=4)}, np.random.default_rng(33).normal(size=3)),
         tags=("container", "dict_of_arrays", "numpy")),
    Case(return_dict_of_values, lambda: (1.2, 0.7), tags=("container", "dict", "returns_dict")),
    Case(consume_dict_result, lambda: (1.2, 0.7), tags=("container", "dict", "helper")),
    Case(append_in_loop, lambda: (0.9, 8), tags=("container", "list", "append", "loop")),
    Case(slicing_lists, lambda: ([0.4, 1.1, -0.6, 0.9, 1.3, 0.2],), tags=("container", "list", "slicing")),
    Case(nested_list_matrix, lambda: ([[1.0, 0.5], [-0.3, 2.0], [0.7, 0.1]], [0.4, -1.1]), tags=("container", "nested_list", "comprehension")),
    Case(tuple_of_arrays_input, lambda: ((np.random.default_rng(34).normal(size=4), np.random.default_rng(35).normal(size=4)), 0.3),
         tags=("container", "tuple_of_arrays", "numpy")),
    Case(tuple_of_arrays_output, lambda: (np.random.default_rng(36).normal(size=4),), tags=("container", "returns_tuple", "numpy")),
    Case(sorted_keys_lookup, lambda: ({0: 1.0, 2: -0.5, 1: 0.3, 3: 0.2}, 0.8), tags=("container", "dict", "sorted", "loop")),
    Case(enumerate_list_of_tuples, lambda: ([(1.0, 0.5), (-0.3, 0.8), (0.6, -1.2)],), tags=("container", "tuple", "enumerate", "loop")),
    Case(nested_comprehension_grid, lambda: ([0.5, 1.2, -0.7], [0.3, -0.4]), tags=("container", "comprehension", "nested")),
    Case(list_of_floats_to_array, lambda: ([0.5, 1.2, -0.7, 0.9],), tags=("container", "list", "numpy")),
    Case(walrus_in_comprehension, lambda: ([0.3, -0.9, 1.2, 0.1, 0.7],), tags=("container", "walrus", "comprehension")),
    Case(star_unpack_arrays, lambda: ([np.random.default_rng(70 + i).normal(size=(3, 3)) * 0.6 for i in range(4)], np.random.default_rng(75).normal(size=3)),
         tags=("container", "star_unpack", "list_of_arrays", "numpy")),
    Case(layer_activations, lambda: ([np.random.default_rng(80 + i).normal(size=(3, 3)) * 0.6 for i in range(3)], np.random.default_rng(85).normal(size=3)),
         tags=("container", "returns_list", "list_of_arrays", "append", "numpy")),
    Case(activation_energy, lambda: ([np.random.default_rng(80 + i).normal(size=(3, 3)) * 0.6 for i in range(3)], np.random.default_rng(85).normal(size=3)),
         tags=("container", "list_of_arrays", "helper", "generator", "numpy")),
    Case(set_of_indices_gather, lambda: (np.random.default_rng(86).normal(size=6), [(0, 2), (2, 5), (5, 0)]), tags=("container", "set", "comprehension", "fancy_indexing", "numpy")),
]
