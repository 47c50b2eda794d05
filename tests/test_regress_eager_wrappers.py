"""Known silent wrongs (strict xfails, found 2026-11-28): a lazy wrapper over a shared *iterator*, read only in
part, then the iterator read again.

A generator function is lowered as one that runs to its end and collects what it yields (frontend/generators.py),
and the itertools models read their inputs whole (rules/itertools_models.py).  When the wrapper is read to its end
that is exactly Python's behaviour.  When the consumer reads only part of it (`next(t)` once) and then reads the
source iterator itself, Python's wrapper has consumed only what was asked, ours everything: the value and the
derivative are both wrong.  Reading the wrapper to its end (`list(islice(it, 2))`, a for loop without break) is
right and tested elsewhere (test_regress_breadth10.py, test_regress_iterators_in_parts.py).  The fix: wrappers over
iterators that pull as their consumer asks (as lazy_iteration.LazySequence does for loops), or a refusal when the
source is read after a wrapper that was not read to its end."""
import itertools

import numpy as np
import pytest

import mooncake_ast as mc

X = np.array([0.1, 0.2, 0.3, 0.4, 0.9])


def _upto_half(it):
    for v in it:
        if v < 0.5:
            yield v
        else:
            return


def user_generator_next_then_source(x):
    it = iter(x)
    a = next(_upto_half(it))
    return a * 2.0 + sum(v ** 2 for v in list(it))


def islice_next_then_source(x):
    it = iter(x)
    a = next(itertools.islice(it, 3))
    return a * 2.0 + sum(v ** 2 for v in list(it))


def takewhile_next_then_source(x):
    it = iter(x)
    a = next(itertools.takewhile(lambda v: v < 0.5, it))
    return a * 2.0 + sum(v ** 2 for v in list(it))


def dropwhile_next_then_source(x):
    it = iter(x)
    a = next(itertools.dropwhile(lambda v: v < 0.25, it))
    return a * 2.0 + sum(v ** 2 for v in list(it))


def pairwise_next_then_source(x):
    it = iter(x)
    a, b = next(itertools.pairwise(it))
    return a * b + sum(v ** 2 for v in list(it))


def chain_next_then_source(x):
    it = iter(x)
    a = next(itertools.chain(it, [1.0]))
    return a * 2.0 + sum(v ** 2 for v in list(it))


def accumulate_next_then_source(x):
    it = iter(x)
    t = itertools.accumulate(it)
    a = next(t)
    b = next(t)
    return a * b + sum(v ** 2 for v in list(it))


CASES = [user_generator_next_then_source, islice_next_then_source, takewhile_next_then_source,
         dropwhile_next_then_source, pairwise_next_then_source, chain_next_then_source, accumulate_next_then_source]
_WRONG = pytest.mark.xfail(strict=True, reason="WRONG (value and derivative, both modes): the wrapper over the "
                           "shared iterator is read whole; see the module docstring")


def _fd(f, x, h=1e-6):
    return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(len(x))])


@pytest.mark.parametrize("f", CASES[1:], ids=lambda f: f.__name__)
def test_reverse(f):
    value, grad = mc.value_and_grad(f)(X.copy())
    assert np.isclose(value, f(X.copy()))
    np.testing.assert_allclose(grad, _fd(f, X), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("f", CASES[1:], ids=lambda f: f.__name__)
def test_forward(f):
    t = np.linspace(0.5, 1.5, len(X))
    value, dot = mc.jvp(f, (X.copy(),), (t,))
    assert np.isclose(value, f(X.copy()))
    assert np.isclose(dot, _fd(f, X) @ t, rtol=1e-5, atol=1e-7)


def test_generator_read_in_part_is_refused():
    """The generator runs to its end when called (frontend/generators.py): refused, naming the line, rather than
    wrong (frontend/iterator_rereads.py); the itertools wrappers read the iterator as asked (rules/itertools_lazy.py)."""
    f = user_generator_next_then_source
    with pytest.raises(mc.errors.UnsupportedSyntaxError, match="read only in part"):
        mc.value_and_grad(f)(X.copy())
    with pytest.raises(mc.errors.UnsupportedSyntaxError, match="read only in part"):
        mc.jvp(f, (X.copy(),), (np.ones_like(X),))


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_plain_python_reads_the_source_lazily(f):
    """The reference the xfails compare with: Python's wrappers leave the rest of the source to the second reader."""
    assert f(X.copy()) > 1.0
