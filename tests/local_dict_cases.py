"""Functions for tests/test_local_containers.py: dicts of floats a function builds (or takes) and reads by key,
through its views and by `sum`, and the near misses that must stay on the generic path."""
import math

import numpy as np


# ---------------------------------------------------------------- built by a display, a comprehension, writes


def display_by_key(x, y):
    d = {"a": x * y, "b": math.sin(x)}
    return d["a"] * d["b"] + d["a"]


def display_values_sum(x, y):
    d = {"a": x * y, "b": y * y, "c": 2.0}
    return sum(d.values()) * x


def comprehension_items(values, scale):
    scaled = {k: v * scale for k, v in values.items()}
    return sum(scaled.values()) + scaled["x"] * scaled["y"]


def setitem_loop_values(x, n):
    d = {}
    for i in range(n):
        d[i] = x ** (i + 1) / (i + 1)
    total = 0.0
    for v in d.values():
        total = total + v * v
    return total


def setitem_loop_items(x, n):
    d = {}
    for i in range(n):
        d[i] = math.cos(x * i)
    total = 0.0
    for k, v in d.items():
        total += k * v
    return total


def keys_then_index(values, w):
    d = {k: v * w for k, v in values.items()}
    total = 0.0
    for k in d:
        total = total + d[k] * values[k]
    return total


def overwritten_key(x, y):
    d = {"a": x}
    first = d["a"] * 3.0
    d["a"] = y * x
    second = d["a"] ** 2
    d["a"] = 0.5
    return first + second + d["a"] * y


def duplicate_display_keys(x, y, k1, k2):
    d = {k1: x * 2.0, k2: y * 3.0}
    return sum(d.values()) + d[k1] * x


def pairs_by_index(values, s):
    out = 0.0
    for item in values.items():
        out = out + item[1] * s
    return out


def param_values_only(values, s):
    return sum(values.values()) * s + len(values)


# ---------------------------------------------------------------- near misses: the generic path keeps them right


def returned_dict(x):
    d = {"a": x * x}
    d["b"] = d["a"] + 1.0
    return d


def dict_in_loop(x):
    total = 0.0
    for i in range(3):
        d = {"v": x * i}
        total = total + d["v"] * x
    return total


def write_after_view(x):
    d = {"a": x}
    total = sum(d.values())
    d["b"] = x * x
    return total + sum(d.values())


def float_keys(x):
    d = {x: x * 2.0}
    total = 0.0
    for k, v in d.items():
        total = total + k * v
    return total


def handed_on(x):
    d = {"a": x}
    _scale(d)
    return d["a"] * x


def _scale(d):
    d["a"] = d["a"] * 2.0


def aliased(x):
    d = {"a": x}
    e = d
    e["a"] = x * 3.0
    return d["a"] * x


def array_values(x):
    d = {"a": np.sin(x), "b": x * 2.0}
    return float(np.sum(d["a"] * d["b"]))


def branch_made(x, flag):
    if flag:
        d = {"a": x}
    else:
        d = {"a": 2.0 * x}
    return d["a"] * x


def duplicate_constant_keys(x, y):
    d = {"a": x * 2.0, "b": y, "a": y * 3.0}  # noqa: F601 - the second "a" wins
    return sum(d.values()) + d["a"] * x


# ---------------------------------------------------------------- lists built where the code runs once


def list_after_loop(x, n):
    s = 0.0
    for i in range(n):
        s = s + x * i
    vals = [s * k for k in range(3)]
    return sum(vals) + vals[1] * x


def list_in_loop(x, n):
    total = 0.0
    for i in range(n):
        vals = [x * k for k in range(i + 1)]
        total = total + sum(vals)
    return total


def list_display(x, y):
    vals = [x * y, math.sin(x), 2.0]
    vals.append(y * y)
    total = 0.0
    for v in vals:
        total = total + v * x
    return total + vals[0] * vals[3] + sum(vals)


def list_display_repeated_item(x):
    vals = [x, x, x * x]
    return vals[0] * vals[1] + sum(vals)


def running_update(x, n):
    d = {"s": 1.0, "t": x}
    for i in range(n):
        d["s"] = d["s"] * x + d["t"]
        d["t"] += 0.5 * d["s"]
    return d["s"] + d["t"]


def view_in_loop_with_writes(x, n):
    d = {0: x}
    total = 0.0
    for i in range(n):
        total = total + sum(d.values())
        d[i + 1] = total * x
    return total


def int_value_written(x):
    d = {"a": x}
    d["b"] = 3
    return d["a"] * d["b"]


def captured(x):
    d = {"a": x}

    def get():
        return d["a"]

    return get() * x


def contains_check(x):
    d = {"a": x * 2.0}
    return d["a"] * x if "a" in d else x


def values_in_branch(x, flag):
    d = {"a": x, "b": x * x}
    if flag:
        total = sum(d.values())
    else:
        d["c"] = 3.0 * x
        total = d["c"] + d["a"]
    return total * x


def list_slices(xs, s):
    head = xs[:2]
    back = xs[::-1]
    built = [s * v for v in xs]
    built.append(s)
    part = built[1:-1:2]
    built.append(s * s)
    return sum(head) * back[0] + sum(p * p for p in part) + built[-1] * sum(back[1:])


def slices_in_loop(xs, s):
    total = 0.0
    for i in range(len(xs)):
        window = xs[i:i + 2]
        total = total + sum(window) * s + window[0] ** 2
    return total


def star_middle(xs, s):
    a, *mid, b = xs
    built = [v * s for v in mid]
    first, *others = built
    return a * b + sum(mid) * s + first * sum(others)


def star_too_short(xs):
    a, *mid, b = xs
    return a * b + sum(mid)


def star_arrays(params, x):
    first, *middle, last = params
    h = np.tanh(first @ x)
    for W in middle:
        h = np.tanh(W @ h)
    return float(np.sum(last @ h))


def star_array_viewed(params, x):
    first, *rest = params
    row = first[0]
    return float(np.sum(row * x) + sum(np.sum(W) for W in rest))


def star_array_written(params, x):
    first, *rest = params
    first *= 2.0
    return float(np.sum(first @ x) + np.sum(rest[0]))


def array_list_built(x, n):
    hs = [x]
    for i in range(n):
        hs.append(np.tanh(hs[-1] * 0.5 + x))
    return float(np.sum(hs[-1] * hs[1]))


def array_list_item_written(x, n):
    hs = [x * 1.0]
    for i in range(n):
        h = np.tanh(hs[-1] * 0.5 + x)
        hs.append(h)
        h *= 2.0
    return float(np.sum(hs[-1] * hs[1]))


def array_list_param_appended(x, y):
    hs = [x, y]
    hs.append(x * y)
    return float(np.sum(hs[0] * hs[2] + hs[1]))


def dict_per_iteration_views(x, n):
    total = 0.0
    for i in range(n):
        d = {}
        d["a"] = x * i
        d["b"] = x * x
        for k, v in d.items():
            total = total + v * d["a"]
    return total


def dict_per_iteration_written_after_view(x, n):
    total = 0.0
    for i in range(n):
        d = {}
        d["a"] = x * i
        total = total + sum(d.values())
        d["b"] = total * x
        total = total + d["b"]
    return total


def array_list_sliced(Ws, x):
    acts = [x]
    for W in Ws:
        acts.append(np.tanh(W @ acts[-1]))
    return sum(float(np.sum(a ** 2)) for a in acts[1:]) + float(np.sum(acts[0] * acts[-1]))


def array_list_returned(x):
    hs = [x * 2.0]
    hs.append(np.sin(hs[0]))
    return hs


def sum_loop_name_clash(x, n):
    total = 0.0
    for k in range(n):
        vals = [x * j for j in range(3)]
        d = {j: x * j for j in range(2)}
        total = total + sum(vals) * k + sum(d.values()) * k * x
    return total
