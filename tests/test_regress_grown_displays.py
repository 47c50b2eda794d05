"""A list display that grows before it is read whole (`traj = [y]; traj.append(...); np.array(traj)`).

The reverse template of `np.array(xs)` for a display `[a]` took the display's items as the list's, so the one item
took the whole adjoint and the appended ones none (grad [1, 0, 0] for [1, 2, 0]).  A list display read anywhere
else is no longer taken for its items (reverse/specialise._display)."""
import numpy as np
import pytest

from mooncake_ast.testing import check_derivatives

X = np.array([0.7, -1.3, 2.1])


def appended_in_a_loop(x):
    y = x[0]
    traj = [y]
    for _ in range(3):
        y = y * x[1] + 0.1
        traj.append(y)
    return np.array(traj) @ np.array([1.0, 2.0, 3.0, 4.0])


def extended(x):
    values = [x[0], x[1]]
    values.extend([x[2] ** 2, x[0] * x[1]])
    return np.sum(np.array(values) ** 2)


def inserted_and_item_written(x):
    values = [x[0]]
    values.insert(0, np.sin(x[1]))
    values[1] = values[1] * x[2]
    return np.sum(np.asarray(values) * np.array([1.0, 3.0]))


def grown_by_plus_equals(x):
    rows = [x * 1.0]
    rows += [x ** 2]
    return np.sum(np.stack(rows) * np.arange(6.0).reshape(2, 3))


def popped_then_concatenated(x):
    parts = [x[:1], x[1:], x * 2.0]
    parts.pop()
    return np.sum(np.concatenate(parts) ** 3)


def read_twice(x):
    values = [x[0], x[1] * 2.0]
    return np.sum(np.array(values)) * sum(values)


def vector_result(x):
    values = [x[0]]
    values.append(values[-1] * x[1])
    return np.array(values)


FAMILY = [appended_in_a_loop, extended, inserted_and_item_written, grown_by_plus_equals, popped_then_concatenated,
          read_twice, vector_result]


@pytest.mark.parametrize("f", FAMILY, ids=lambda f: f.__name__)
def test_grown_list_read_whole(f):
    check_derivatives(f, X.copy())
