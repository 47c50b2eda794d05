"""Iterators and views kept under a name and read later (frontend/lazy_values.py).  Python computes a generator
expression's items, map's, and what zip/enumerate/iter yield, when they are read, and a dict's `.values()` is a
live view; the derivatives take them where they are made.  With a change in between, both the value and the
derivative came out wrong in both modes (`g = (v * k for v in xs); k = x; sum(g)`: 3.0 for 4.2).  Those are
refused now, naming the lines; with nothing in between that can change what they read, they are differentiated."""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives


def name_rebound(x):
    k = 1.0
    g = (v * k for v in [x, 2.0 * x])
    k = x
    return sum(g)


def list_appended(x):
    xs = [x, 2.0]
    g = (v * v for v in xs)
    xs.append(x * 3.0)
    return sum(g)


def item_written(x):
    xs = [x, 2.0]
    g = (v * v for v in xs)
    xs[0] = 5.0 * x
    return sum(g)


def array_item_written(x):
    a = np.array([x, 2.0 * x])
    g = (v * 2.0 for v in a)
    a[0] = 7.0 * x
    return sum(g)


def dict_view(x):
    d = {"a": x, "b": 2.0}
    vals = d.values()
    d["a"] = x * x
    return sum(vals) * x


def map_then_write(x):
    xs = [x, 2.0 * x]
    m = map(lambda v: v * x, xs)
    xs[0] = 3.0
    return sum(m)


def iter_then_write(x):
    xs = [x, 2.0]
    it = iter(xs)
    xs[0] = 5.0 * x
    return sum(it)


def zip_then_write_through_an_alias(x):
    xs = [x, 2.0]
    ys = xs
    z = zip(xs, [1.0, 2.0])
    ys[0] = 5.0 * x
    return sum(a * b for a, b in z)


def loop_body_writes_what_the_generator_reads(x):
    xs = [x, 2.0, 3.0]
    t = 0.0
    for v in (w * 2.0 for w in xs):
        xs[-1] = xs[-1] * x
        t += v
    return t


REFUSED = [name_rebound, list_appended, item_written, array_item_written, dict_view, map_then_write, iter_then_write,
           zip_then_write_through_an_alias, loop_body_writes_what_the_generator_reads]


@pytest.mark.parametrize("fn", REFUSED, ids=lambda f: f.__name__)
def test_changed_before_read_is_refused(fn):
    with pytest.raises(mc.UnsupportedSyntaxError, match="may change what it reads"):
        mc.grad(fn)(0.7)
    with pytest.raises(mc.UnsupportedSyntaxError):
        mc.jvp(fn, (0.7,), (1.0,))


def nothing_in_between_changes_it(x):
    xs = [x, 2.0 * x]
    g = (v * v for v in xs)
    scale = len(xs) * 0.5
    out = np.zeros(2)
    out[0] = x
    total = sum(g) * scale
    return total + out.sum()


def loop_writes_elsewhere(x):
    xs = [x, 2.0 * x, 3.0]
    out = np.zeros(3)
    for i, v in enumerate(w * w for w in xs):
        out[i] = v * x
    return out.sum()


def view_read_at_once(x):
    d = {"a": x, "b": 2.0}
    vals = d.values()
    total = sum(vals)
    d["a"] = 0.0
    return total * x


def module_functions_in_between(x):
    xs = [x, 2.0]
    g = (t * np.max(np.array(xs)) for t in xs)
    out = np.zeros(2)  # (np.zeros is no method of what `np.max` reads: random family "oop", seed 56000000658)
    out[0] = x
    return sum(g) + out.sum()


ACCEPTED = [nothing_in_between_changes_it, loop_writes_elsewhere, view_read_at_once, module_functions_in_between]


@pytest.mark.parametrize("fn", ACCEPTED, ids=lambda f: f.__name__)
def test_nothing_in_between(fn):
    check_derivatives(fn, 0.7)


def itertools_chain_then_write(x):
    import itertools

    xs = [x, 2.0]
    c = itertools.chain(xs, [x])
    xs[1] = x * x
    return sum(c)


def test_itertools_iterator_changed_before_read_is_refused():
    with pytest.raises(mc.UnsupportedSyntaxError, match="may change what it reads"):
        mc.grad(itertools_chain_then_write)(0.7)


def loop_over_iter_writes_ahead(x):
    xs = [x, 2.0, 3.0]
    t = 0.0
    for v in iter(xs):  # (lowered as `for v in xs`: read item by item, as Python does)
        xs[-1] = xs[-1] * x
        t += v
    return t


def test_loop_over_iter_of_a_list_its_body_writes():
    check_derivatives(loop_over_iter_writes_ahead, 0.7)


def named_iterator_loop_writes_ahead(x):
    xs = [x, 2.0, 3.0]
    it = iter(xs)
    t = 0.0
    for v in it:
        xs[-1] = xs[-1] * x
        t += v
    return t


def test_loop_over_a_named_iterator_its_body_changes_is_refused():
    with pytest.raises(mc.UnsupportedSyntaxError, match="in the loop's body|before it is read"):
        mc.grad(named_iterator_loop_writes_ahead)(0.7)


from itertools import chain  # noqa: E402


def bare_chain_then_write(x):
    xs = [x, 2.0]
    c = chain(xs, [x])
    xs[1] = x * x
    return sum(c)


def test_itertools_function_imported_bare_is_lazy_too():
    with pytest.raises(mc.UnsupportedSyntaxError, match="may change what it reads"):
        mc.grad(bare_chain_then_write)(0.7)
