"""Second derivatives through containers that were refused by name at the second order (issue 10): getitem of a
collections.defaultdict, `dict.update(zip(keys, values))`."""
import collections
import math

import numpy as np
import pytest

import mooncake_ast as mc

from nested_lifted_kit import check_second, check_third

POINTS = [(0.37, np.array([0.3, -0.2, 0.5])), (-0.8, np.array([1.1, 0.4, -0.7]))]


def ddict_float(x, a):
    d = collections.defaultdict(float)
    d["a"] += x * x
    d["b"] = np.sum(a) * x
    return d["a"] * d["b"] + d["c"] + math.sin(d["a"])


def ddict_list(x, a):
    d = collections.defaultdict(list)
    for i in range(3):
        d["even" if i % 2 == 0 else "odd"].append(a[i] * x)
    return sum(v * v for v in d["even"]) * x + d["odd"][0] * np.sum(a)


def ddict_accumulate(x, a):
    d = collections.defaultdict(float)
    for i, key in enumerate(["u", "v", "u"]):
        d[key] = d[key] + np.sin(a[i] * x)
    total = 0.0
    for key in sorted(d):
        total = total + d[key] * d[key]
    return total + d["w"] * x


def ordered(x, a):
    d = collections.OrderedDict()
    d["p"] = x * a[0]
    d["q"] = np.tanh(a[1] + x)
    d["p"] = d["p"] * d["q"]
    return d["p"] + d["q"] * a[2]


@pytest.mark.parametrize("f", [ddict_float, ddict_list, ddict_accumulate])
@pytest.mark.parametrize("x,a", POINTS)
def test_defaultdict_items(f, x, a):
    """`d[k]` on a defaultdict was refused ('getitem on a defaultdict, str'): its tangent is a defaultdict whose
    factory makes zeros, so reading a missing key makes the default in both (nested_plans._user_object)."""
    check_second(f, x, a)


def ddict_third(x, a):
    d = collections.defaultdict(float)
    d["s"] += math.sin(x) * a[0]
    d["t"] += x * x * x
    return d["s"] * d["t"] + d["u"]


@pytest.mark.parametrize("f", [ddict_third, ddict_float, ddict_list])
def test_defaultdict_third_order(f):
    """The third order differentiates the forward code of python_collections.defaultdict_tangent (`out.update(...)` on
    a defaultdict: a dict's method plan)."""
    check_third(f, 0.37, POINTS[0][1])


def test_ordered_dict_stays_refused():
    """An OrderedDict's tangent routing failed at the third order (a KeyError in reverse/shadows): kept refused at
    every nested order, by name."""
    x, a = POINTS[0]
    mc.testing.check_derivatives(ordered, x, a.copy())
    with pytest.raises(mc.NestingError, match="OrderedDict"):
        mc.grad(mc.grad(ordered))(x, a.copy())


def update_zip(x, a):
    d = {}
    d.update(zip(["p", "q", "r"], [x * a[0], x * x, np.sin(a[1])]))
    return d["p"] * d["q"] + d["r"] * x


def update_zip_overwrites(x, a):
    d = {"p": x, "z": a[2] * 2.0}
    d.update(zip(["p", "q", "p"], [a * x, np.cos(x), a[1] * x * x]))
    return d["p"] * d["z"] + np.sum(d["q"] * a) + d["p"]


def update_zip_arrays(x, a):
    d = {"w": a}
    keys = ("u", "v")
    d.update(zip(keys, (np.exp(a * x), a * a)))
    return np.sum(d["u"] * d["v"]) + np.dot(d["w"], d["u"])


@pytest.mark.parametrize("f", [update_zip, update_zip_overwrites, update_zip_arrays])
@pytest.mark.parametrize("x,a", POINTS)
def test_dict_update_from_zip(f, x, a):
    """`d.update(zip(keys, values))` was refused ('the dict method .update() of a differentiated dict'): planned as
    plain Python taking the zip and the list of its pairs' tangents (nested_containers.dict_update_pairs_fwd)."""
    check_second(f, x, a)
