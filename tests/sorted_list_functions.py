"""Functions that sort lists of floats (tests/test_typed_sorted.py): `sorted(xs)` of a list of floats is a list the
function makes (reverse/local_lists.py), its adjoint a plain list handed back slot by slot (list_adjoints.add_sorted)."""
import math


def weighted_order(xs, s):
    ys = [v * s for v in xs]
    zs = sorted(ys)
    return sum(w * z for w, z in zip([3.0, 2.0, 1.0, 0.5], zs)) * s


def keyed_lambda(xs, s):
    zs = sorted(xs, key=lambda v: -v)
    return sum(w * z * s for w, z in zip([3.0, 2.0, 1.0, 0.5], zs))


def keyed_closure(xs, c):
    zs = sorted(xs, key=lambda v: (v - c) ** 2)
    return zs[0] * c + math.sin(zs[1]) - zs[-1] ** 2


def keyed_builtin_reversed(xs, s):
    zs = sorted(xs, key=abs, reverse=True)
    return zs[0] * s + zs[1] ** 2 + sum(zs) * 0.1


def median_of_odd(xs, s):
    zs = sorted([v * v * s for v in xs])
    return zs[len(zs) // 2] + 0.5 * zs[0]


def sorted_then_appended(xs, s):
    ys = [v * s for v in xs]
    zs = sorted(ys)
    ys.append(zs[0] * 3.0)
    ys.append(s)
    return sum(ys) + zs[-1] * zs[0]


def sorted_in_loop(xs, s, n):
    total = 0.0
    for k in range(n):
        zs = sorted([v * (s + k) for v in xs], reverse=(k % 2 == 1))
        total = total + zs[0] * (k + 1.0) - zs[-1]
    return total


def sorted_with_ties(s):
    xs = [s, 2.0 * s, s, 0.5]
    zs = sorted(xs)
    return zs[0] * 1.0 + zs[1] * 2.0 + zs[2] * 3.0 + zs[3] * 4.0


def trimmed_mean(xs, s):
    zs = sorted([math.exp(v * s) for v in xs])
    kept = zs[1:-1]
    return sum(kept) / len(kept)


def written_after_sort(xs, s):
    zs = sorted(xs)
    xs[0] = zs[-1] * s
    xs[2] = zs[0] + s
    return zs[0] * xs[0] + sum(xs) * zs[1]
