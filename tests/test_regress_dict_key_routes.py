"""Every way a key enters a dict: a key that depends on the inputs loses its derivative (a dict keeps none of its
keys), so each route must refuse it or get the derivative right, in both modes; never a silently wrong number.

Found on the trunk: `dict(zip([x, ...], ...))` (reverse), `d.setdefault(x * 2, v)` and `d.update([(x * 2, v)])`
(both modes), and `d[x] += v` on a `defaultdict` built from a local import (reverse: the operator is dispatched when
the code runs) all gave 0 for the key's part, silently."""
import collections
import math

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives

REFUSED = (mc.UnsupportedDerivativeError, mc.MissingRuleError)


def zipped(x):
    d = dict(zip([x, x * 2.0], [1.0, 2.0]))
    return sum(d.keys())


def zipped_values_read(x):
    d = dict(zip([x, x * 2.0], [x, 2.0]))
    t = 0.0
    for k in d:
        t += k * d[k]
    return t


def zipped_ordered(x):
    d = collections.OrderedDict(zip([x * 3.0, 1.0], [2.0, x]))
    return sum(k * v for k, v in d.items())


def pairs_display(x):
    d = dict([(x * 2.0, 1.0), ("b", x)])
    return sum(k * v for k, v in d.items() if not isinstance(k, str)) + d["b"]


def pairs_built(x):
    pairs = []
    for i in range(3):
        pairs.append((x * i + 0.5, float(i)))
    d = dict(pairs)
    return sum(k * v for k, v in d.items())


def setdefault_key(x):
    d = {}
    d.setdefault(x * 2.0, 3.0)
    return sum(d)


def setdefault_read(x):
    d = {"a": 1.0}
    v = d.setdefault(x + 1.0, x)
    return sum(k * d[k] for k in d if not isinstance(k, str)) + v


def update_pairs(x):
    d = {}
    d.update([(x * 2.0, 3.0)])
    return sum(d)


def update_zip(x):
    d = {"c": 1.0}
    d.update(zip([x * 2.0], [x]))
    return sum(k * v for k, v in d.items() if not isinstance(k, str))


def update_display(x):
    d = {}
    d.update({x * 2.0: 3.0})
    return sum(d)


def merged(x):
    d = {1.5: x} | {x * 2.0: 1.0}
    return sum(d)


def local_defaultdict(x):
    import collections as c

    d = c.defaultdict(float)
    d[x] += 1.0
    return sum(k * v for k, v in d.items())


def defaultdict_write(x):
    d = collections.defaultdict(float)
    d[x * 2.0] = x
    return sum(k * v for k, v in d.items())


def comprehension(x):
    d = {k: 1.0 for k in [x, 2 * x]}
    return sum(d)


def subscript_aug(x):
    d = {}
    d[x * 2.0] = 0.0
    d[x * 2.0] += x
    return sum(k * v for k, v in d.items())


ROUTES = [zipped, zipped_values_read, zipped_ordered, pairs_display, pairs_built, setdefault_key, setdefault_read,
          update_pairs, update_zip, update_display, merged, local_defaultdict, defaultdict_write, comprehension,
          subscript_aug]


def _fd(f, x, h=1e-6):
    return (f(x + h) - f(x - h)) / (2 * h)


@pytest.mark.parametrize("fn", ROUTES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_a_key_from_the_inputs_is_refused_or_right(fn, mode):
    x = 0.7
    try:
        got = mc.grad(fn)(x) if mode == "grad" else mc.jvp(fn, (x,), (1.0,))[1]
    except REFUSED:
        return
    assert math.isclose(got, _fd(fn, x), rel_tol=1e-5, abs_tol=1e-6), (fn.__name__, mode, got, _fd(fn, x))


# ---------------------------------------------------------------- keys that do not depend on the inputs still work


def const_zip(x):
    d = dict(zip([0.5, 1.5], [x, x * x]))
    return d[0.5] * d[1.5]


def const_names(x, w):
    d = dict(zip(["a", "b"], [x, w * x]))
    d.update(c=x * 3.0)
    d.update([("e", w)])
    d.setdefault("f", x)
    return d["a"] * np.sum(d["b"]) + d["c"] + np.sum(d["e"]) + d["f"]


def update_zip_names(x, w):
    d = {"a": x}
    d.update(zip(["b", "c"], [w * x, x * x]))
    return d["a"] * np.sum(d["b"]) + d["c"]


def const_float_setdefault(x):
    d = {}
    v = d.setdefault(2.5, x * 2.0)
    d.update({0.5: x})
    return v * d[0.5]


def enumerate_keys(x):
    d = dict(enumerate([x, x * 2.0]))
    return d[0] * d[1]


def string_defaultdict(x):
    d = collections.defaultdict(float)
    d["a"] += x
    d["b"] += x * x
    return d["a"] * d["b"]


@pytest.mark.parametrize("fn,args", [
    (const_zip, (0.7,)),
    (const_names, (0.7, np.array([0.5, -1.0]))),
    (update_zip_names, (0.7, np.array([0.5, -1.0]))),
    (const_float_setdefault, (0.7,)),
    (enumerate_keys, (0.7,)),
    (string_defaultdict, (0.7,)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_keys_that_do_not_depend_on_the_inputs_still_work(fn, args):
    check_derivatives(fn, *args)


# ---------------------------------------------------------------- the dict subclasses' methods in reverse mode


def defaultdict_update(x):
    d = collections.defaultdict(float)
    d.update(c=x)
    d["c"] += x * x
    return d["c"] * 2


def ordereddict_update(x, d):
    d2 = collections.OrderedDict(d)
    d2.update([("a", x)])
    d2.setdefault("z", x * 3.0)
    return d2["a"] * d2["b"] + d2.pop("z")


@pytest.mark.parametrize("fn,args", [(defaultdict_update, (0.7,)), (ordereddict_update, (0.7, {"a": 1.5, "b": 2.0}))],
                         ids=lambda v: getattr(v, "__name__", ""))
def test_dict_subclass_methods(fn, args):
    """`update`, `setdefault` and `pop` of a defaultdict or an OrderedDict are undone as a dict's are (they had no
    reverse rule: refused)."""
    check_derivatives(fn, *args)
