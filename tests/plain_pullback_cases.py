"""Functions whose pullbacks issue 9 makes plainer (tests/test_plain_pullbacks.py); their source must be readable."""
import numpy as np


def tuple_items_in_loop(values, p):
    """A tuple of floats walked by a loop: each item a float, the generator's list a list of floats."""
    return sum(v ** p for v in values)


def tuple_display_in_loop(x, y, z):
    args = (x, y, z)
    total = 0.0
    for v in args:
        total = total + v * v * x
    return total


def mixed_tuple_in_loop(x, a):
    """Items of two types: read generically (each trip's item may be either)."""
    total = 0.0
    for v in (x, a):
        total = total + np.sum(v * v)
    return total


def appended_rows(rows, v):
    """Lists of unknown items built by appending (comprehensions, generators): `lst.append(x)` returns None."""
    out = [sum(a * b for a, b in zip(row, v)) for row in rows]
    return sum(o * o for o in out)


def appended_then_written(xs):
    """Appended items (an array among them) written in place afterwards: the slots follow the items."""
    acc = []
    for x in xs:
        acc.append(x * 2.0)
    acc[0] += acc[-1]
    return sum(np.sum(a * a) for a in acc)


def arrays_of_a_tuple_written(a, b):
    """Items of a tuple of float arrays (one type) written in place through the loop variable and a view of it."""
    for w in (a, b):
        w *= 2.0
        v = w[1:]
        v += w[0]
    return np.sum(a * b) + np.sum(a)


def horner_over_display(x, a, b):
    """`reversed()` of a list the function makes (a display) and only reads: walked by index."""
    coeffs = [a, b, 0.5, -0.2]
    acc = 0.0
    for c in reversed(coeffs):
        acc = acc * x + c
    return acc


def horner_over_slice(x, a, b):
    """`reversed()` of a slice of a comprehension's list (a derivative's coefficients)."""
    cs = [a, b, 0.5, -0.2]
    ds = [i * c for i, c in enumerate(cs)][1:]
    acc = 0.0
    for c in reversed(ds):
        acc = acc * x + c
    return acc + sum(cs) * x


def reversed_display_written(x, a):
    """A display written while reversed() walks it: kept as reversed() (the two forms could part ways)."""
    xs = [a, x, 0.5]
    acc = 0.0
    for v in reversed(xs):
        xs[0] = xs[0] * v
        acc = acc + xs[0] * v
    return acc


def reversed_display_written_before(x, a):
    """A display written before reversed() walks it: not only read, so kept as reversed()."""
    xs = [a, x, 0.5]
    xs[0] = xs[0] * x
    acc = 0.0
    for v in reversed(xs):
        acc = acc * x + v
    return acc


def writes_of_containers(x, y):
    """Item, attribute, cell and set writes: a write returns None, so its reverse takes none of it."""
    d = {"a": x, "b": y}
    d["a"] = d["a"] * y
    box = Box()
    box.v = x * x
    box.v = box.v + d["a"]
    seen = set()
    seen.add(2)
    total = x

    def bump(k):
        nonlocal total
        total = total * k + y

    bump(1.5)
    del d["b"]
    return d["a"] + box.v + total + len(seen)


class Box:
    pass


def gather_by_index_list(x, ks):
    """A list of ints (no derivative) picks items of a float array: the pullback is x's alone."""
    total = 0.0
    for k in ks:
        total = total + x[k] * x[k]
    return total


def exponents_from_pairs(x, pairs, opts):
    """Integer pairs and a dict of flags and names: data without a derivative, read in loops and branches."""
    total = 0.0
    for a, b in pairs:
        total = total + x ** (a + b)
    return total * 2.0 if opts["double"] else total


def constant_list_made_active(x, ks):
    """A list of ints that the function fills with floats: it has a derivative after all (activity)."""
    acc = list(ks)
    acc.append(x * x)
    ks.append(x * 3.0)
    return sum(v * x for v in acc) + ks[-1] * ks[0]


def _push(items, v):
    items.append(v)


def constant_list_written_by_a_helper(x, ks, js):
    """A helper writes a float into the list of ints: the write is through user code, so the list stays active."""
    _push(ks, x * 2.0)
    return ks[-1] * x + js[0] * x


def row_sums(rows, w):
    """Rows of a nested list read by index, whole (`sum(row)`), by `len` and in a loop: `rows_bar[i][j] += ...`."""
    total = 0.0
    for i in range(len(rows)):
        row = rows[i]
        total = total + w * sum(row) ** 2 + row[0] * row[len(row) - 1]
    for row in rows:
        for a in row:
            total = total + a * rows[0][1]
    return total


def row_written(rows, x):
    """A row written in place: the nested list keeps no type (storage keeps it right)."""
    rows[1][0] = x * rows[0][0]
    return sum(sum(r) * r[0] for r in rows)


def rows_to_array(rows, v):
    """A nested list handed to NumPy whole: no typed reads (the generic path)."""
    return float(np.sum(np.array(rows) @ np.array(v)) ** 2) + rows[0][0] * v[1]


def int_keyed_powers(coeffs, x):
    """A dict of floats keyed by powers, read in sorted key order, by items and by a constant key."""
    total = 0.0
    for p in sorted(coeffs):
        total += coeffs[p] * x ** p
    for p, c in coeffs.items():
        total = total + c * p
    return total + coeffs[2] * x


def int_keyed_written(coeffs, x):
    """A key added: the dict is written, so it keeps the generic path."""
    coeffs[5] = x * coeffs[0]
    return sum(c * x ** p for p, c in coeffs.items())


def sorted_free_powers(coeffs, x):
    """Keys of several types (an int, a string, a bool): the generic path."""
    return sum(c * x ** (k if type(k) is int else 1) for k, c in coeffs.items())


def closure_writing_its_list():
    """A closure appends to its own list, which the caller also passes in (as a list of floats, or a row)."""
    kept = [0.5, 1.5]

    def f(x, xs):
        kept.append(x)
        return xs[-1] * x

    def g(x, rows):
        kept.append(x)
        return rows[0][-1] * x

    return f, g, kept
