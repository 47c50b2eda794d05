"""One array held in several slots of a list: `[a] * 3`, `l + l`, `[w] * 2` zipped with another list, `sum([a] * 3)`.
Reverse mode keeps a mutable object's adjoint by identity, and each slot of the list's adjoint holds that storage:
adding the slots up counted the object once per slot (`np.sum(l[0] * l[1])` with `l = [w * x] * 2` gave 3.5 for
1.75), and a parameter's storage was counted again at the end.  Now the same storage in several slots is one
adjoint, taken out as a value once (reverse/adjoints.StorageList)."""
import numpy as np
import pytest

from mooncake_ast.testing import check_derivatives

W = np.array([0.5, -1.0])


def repeated(x, w):
    l = [w * x] * 2
    return np.sum(l[0] * l[1])


def repeated_rebound(x, w):
    l = [w * x] * 3
    l[0] = l[0] + 1.0
    return np.sum(l[0] * l[1] + l[2])


def repeated_mixed(x, w):
    l = 2 * [w * x, w]
    return np.sum(l[0] * l[2] + l[3])


def repeated_parameter(x, w):
    m = [w] * 2
    l = [w * x] * 2
    return np.dot(l[0], m[0]) + np.dot(l[1], m[1])


def repeated_zipped(x, w):
    l = [w * x] * 2
    m = [w] * 2
    return sum(np.dot(a, b) for a, b in zip(l, m))


def repeated_summed(x, w):
    return np.sum(sum([w * x] * 3))


def concatenated(x, w):
    l = [w * x]
    l2 = l + l
    return np.sum(l2[0] * l2[1] + l2[0])


def concatenated_parameter(x, w):
    l = [w]
    l2 = l + l + [w * x]
    return np.sum(l2[0] * l2[1] * l2[2])


def concatenated_read_by_an_array_sum(x, w):
    v = ([w, w] * 2)[0]
    pieces = [w] + [w]
    return np.sum(np.tanh(v + sum([x]) + pieces))  # (an array plus a list of arrays: NumPy stacks the list)


def repeated_nested(x, w):
    grid = [[w * x] * 2] * 2
    return np.sum(grid[0][0] * grid[1][1])


def repeated_tuple(x, w):
    t = (w * x,) * 3
    return np.sum(t[0] * t[1] * t[2])


def repeated_loop(x, w):
    t = 0.0
    for a in [w * x, w] * 2:
        t += np.sum(a ** 2)
    return t


def repeated_numbers(x, w):
    l = [x] * 3
    return l[0] * l[1] + l[2] + np.sum(w)


CASES = [repeated, repeated_rebound, repeated_mixed, repeated_parameter, repeated_zipped, repeated_summed, concatenated,
         concatenated_parameter, concatenated_read_by_an_array_sum, repeated_nested, repeated_tuple, repeated_loop, repeated_numbers]


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_one_array_in_several_slots(fn):
    check_derivatives(fn, 0.7, W.copy())


# ---------------------------------------------------------------- written in place through one of the slots


def written_through_a_repeat(x, a):
    c = np.sin(a)
    l = [c] * 2
    l[1] += a
    return np.sum(c * x)


def written_through_a_concatenation(x, a):
    c, d = np.sin(a), np.cos(a)
    l = [c] + [d]
    l[0] += a * x
    return np.sum(c * x) + np.sum(d)


def written_after_an_extension(x, a):
    c = np.sin(a)
    l = [a * 0.5]
    l += [c]
    l[1] *= x
    return np.sum(c)


def written_through_a_repeated_tuple(x, a):
    c = np.sin(a)
    t = (c,) * 2
    t[1][0] = x * x
    return np.sum(c * a)


@pytest.mark.parametrize("fn", [written_through_a_repeat, written_through_a_concatenation, written_after_an_extension,
                                written_through_a_repeated_tuple], ids=lambda f: f.__name__)
def test_an_item_written_through_a_joined_list(fn):
    """`[c] * 2` and `l + [c]` hold c itself: a write through a slot is a write to c.  Activity analysis took their
    results for fresh values (as for numbers and arrays), so c kept a local adjoint the write's reverse never saw
    (1.06 for 2.49)."""
    check_derivatives(fn, 0.7, np.array([0.87, -0.349, 0.692]))
