"""Functions of tests/test_nested_inplace_views.py: a view of an array written in place by a constant (its
tangent's tangent stays zero) and then written again by something that depends on the input.  (In a module of
their own, so their source is read from a file.)"""
import numpy as np

C = np.array([0.5, -1.0, 2.0, 0.3])


def scale_view_then_item(a):
    b = np.array(a)
    w = b[1:]
    w *= 0.7
    w[0] += a[0] * a[0]
    return np.sum(b * C)


def strided_view_then_setitem(a):
    b = a * 1.0
    w = b[::2]
    w *= 0.5
    w[1] = a[1] ** 2 * a[0]
    return np.sum(np.sin(b))


def out_into_view_then_item(a):
    b = np.array(a)
    w = b[:3]
    np.multiply(w, 2.0, out=w)
    w[2] += a[3] * a[0]
    return np.sum(b ** 2)


def row_of_reshape(a):
    m = np.array(a).reshape(2, 2)
    r = m[0]
    r *= 3.0
    r[1] += a[0] * a[1]
    return np.sum(m * m)


def view_of_view(a):
    b = np.array(a)
    w = b[1:]
    v = w[1:]
    v -= 0.25
    v /= 2.0
    v[0] += np.sin(a[0]) * a[1]
    return np.sum(b ** 3)


def views_in_loop(a):
    b = np.array(a)
    for i in range(3):
        w = b[i:]
        w *= 0.9
        w[0] += a[i] ** 2
    return np.sum(np.tanh(b))


def constant_buffer_view(a):
    z = np.zeros(4)
    w = z[1:]
    w += 1.0
    w *= 0.5
    w[:2] += a[:2] * a[2]
    return np.sum(z * a)




def list_grown_in_place(a):
    xs = [-np.tanh(a[0])]
    xs += [a.mean()]
    xs.extend([-0.4, a[1] * a[2]])
    xs[3] = -a[0]
    return 1.0 * xs[0] + 2.0 * xs[1] + 3.0 * xs[2] + 5.0 * xs[3] * xs[1]


CASES = [scale_view_then_item, strided_view_then_setitem, out_into_view_then_item, row_of_reshape, view_of_view,
         views_in_loop, constant_buffer_view, list_grown_in_place]
