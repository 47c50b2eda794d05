"""A view of an array (`v = a[:2]`, a row, a window `a[i:i + 2]`) read after the array is written through another
index sees the value written, in NumPy as in the derivative.  Reverse mode gave arrays that are read and written
element by element a plain adjoint buffer, and sent a view's adjoint to it where the view is taken, as if the view
were a copy: an adjoint of a read after the write went to the value overwritten (21.0 for 29.4 below).  A view
whose reads all come before any later write in its block still gets the plain buffer; the others go through
identity-keyed storage."""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives


def sum_before_and_after(x):
    a = np.array([x, x * 2.0, 3.0])
    v = a[:2]
    s = v.sum()
    a[0] = 5.0 * x
    return s * v.sum()


def copy_before_product_after(x):
    a = np.array([x, x * 2.0, 3.0])
    v = a[:2]
    s = v * 1.0
    a[0] = 5.0 * x
    return (s * v).sum()


def sliding_window(x):
    a = np.array([x, 2.0 * x, 3.0, x * x])
    t = 0.0
    for i in range(3):
        v = a[i:i + 2]
        a[i + 1] = v.sum() * 0.5
        t = t + (v * v).sum()
    return t


def read_in_a_later_block(x):
    a = np.array([x, 2.0 * x, 3.0])
    v = a[:2]
    a[0] = x * x
    if x > 0:
        r = v.sum()
    else:
        r = 0.0
    return r * x


def joined_after_the_write(x):
    a = np.array([x, 2.0 * x, 3.0])
    v = a[:2]
    a[1] = 4.0 * x
    b = np.concatenate([v, a[2:]])
    return (b * b).sum()


def rows_written_while_walked(x):
    a = np.array([[x, 2.0], [x * x, 1.0]])
    t = 0.0
    for row in a:
        s = row * 1.0
        a[0, 0] = 3.0 * x
        t = t + (s * row).sum()
    return t


def read_before_the_write_only(x):
    a = np.array([x, 2.0 * x, 3.0])
    v = a[:2]
    s = (v * v).sum()
    a[0] = 5.0 * x
    return s + a.sum()


CASES = [sum_before_and_after, copy_before_product_after, sliding_window, read_in_a_later_block,
         joined_after_the_write, rows_written_while_walked, read_before_the_write_only]


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_view_read_after_a_write(fn):
    check_derivatives(fn, 0.7)


def window_of_a_parameter(a):
    v = a[:2]
    a[0] = a[1] * 2.0
    return (v * v).sum()


def test_view_of_a_written_parameter():
    check_derivatives(window_of_a_parameter, np.array([0.7, 1.3, -0.4]))
    g = mc.grad(window_of_a_parameter)(np.array([0.7, 1.3, -0.4]))
    assert np.allclose(g, [0.0, 13.0, 0.0])  # (v = [2 a1, a1]: 5 a1 ** 2)


def test_reads_before_the_write_keep_the_plain_buffer():
    mc.grad(read_before_the_write_only)(0.7)
    src = mc.source(read_before_the_write_only, "reverse")
    assert "a_bar = np.zeros_like(a)" in src
