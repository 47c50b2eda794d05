"""Instances of library classes written in Python (collections.UserList, UserDict, OrderedDict) made inside the
function: their operators run their own methods, in both modes. (What has no source and no rule, such as
`UserDict.get` from the frozen `_collections_abc`, is refused by name; OrderedDict.move_to_end has rules now.)

Reverse mode used to give a silent zero for `collections.UserList([x, 3 * x])[0]`: a class from a library module
was taken for plain code, so `u[0]` got the rule for list items, which has no storage in an object (forward mode
crashed on the same). A class whose instances are objects now makes a value that may be an object, as a user's
class does, and its `__getitem__` is differentiated."""
import collections

import numpy as np
import pytest

from mooncake_ast.testing import check_derivatives


def user_list(x):
    u = collections.UserList([x, x * 3.0])
    u.append(x * x)
    return u[0] * u[1] + u[-1]


def user_list_of_arrays(a):
    u = collections.UserList([a, np.sin(a)])
    u[1] = u[1] * u[0]
    return np.sum(u[0] * u[1])


def user_dict(x):
    d = collections.UserDict()
    d["k"] = x * 3.0
    d["m"] = d["k"] * x
    return d["m"] + d["k"] * len(d)


def ordered_dict(x, a):
    d = collections.OrderedDict()
    d["a"] = x * 2.0
    d["b"] = np.sum(a * x)
    d["a"] = d["a"] * d["b"]
    return sum(v * v for v in d.values())


@pytest.mark.parametrize("f,args", [
    (user_list, (0.7,)),
    (user_list_of_arrays, (np.array([0.3, -0.5, 1.1]),)),
    (user_dict, (0.7,)),
    (ordered_dict, (0.7, np.array([0.3, -0.5]))),
], ids=lambda v: getattr(v, "__name__", ""))
def test_library_class_instances_both_modes(f, args):
    check_derivatives(f, *args)


def ndenumerate_loop(x):
    s = 0.0
    for idx, v in np.ndenumerate(x):
        s += v * (idx[0] + 1)
    return s


def test_iterating_an_object_whose_iteration_is_not_differentiated_is_refused():
    # (reverse mode gave a zero gradient: np.ndenumerate's items come from its own fields, read by code that is
    # not differentiated, and the adjoints of the materialised items were dropped)
    import mooncake_ast as mc
    from mooncake_ast.errors import UnsupportedDerivativeError

    x = np.array([0.3, -0.7, 1.1])
    with pytest.raises(UnsupportedDerivativeError, match="for loop over a numpy.ndenumerate"):
        mc.grad(ndenumerate_loop)(x)
    with pytest.raises(UnsupportedDerivativeError, match="for loop over a numpy.ndenumerate"):
        mc.jvp(ndenumerate_loop, (x,), (np.ones(3),))
