"""A user object's fields read and written by name rather than by attribute syntax.

`obj.__dict__["w"]` and `obj.__dict__.update(w=...)` went around the field tangents and adjoints: both modes gave
0 for 1.47 and 2.0 for 2.8, silently. Reading `__dict__` of an object holding numbers is now refused
(attribute_checks.check_attribute_read); the routes that work (dataclasses.astuple/asdict/replace/fields,
getattr and setattr by name) are checked here so that they stay right."""
import dataclasses

import numpy as np

import pytest

import mooncake_ast as mc
from mooncake_ast.errors import UnsupportedDerivativeError
from mooncake_ast.testing import check_derivatives


@dataclasses.dataclass
class Params:
    w: float
    b: float


class Plain:
    def __init__(self, w, b):
        self.w = w
        self.b = b


def astuple_sum(x):
    return sum(dataclasses.astuple(Params(x, 2.0 * x))) * x


def asdict_product(x):
    d = dataclasses.asdict(Params(x, 2.0 * x))
    return d["w"] * d["b"]


def getattr_by_name(x):
    p = Plain(x, x * x)
    return sum(getattr(p, n) for n in ("w", "b"))


def setattr_by_name(x):
    p = Plain(x, 1.0)
    for n in ("w", "b"):
        setattr(p, n, getattr(p, n) * x)
    return p.w + p.b


def fields_after_replace(x):
    q = dataclasses.replace(Params(x, 1.0), b=x * 2.0)
    return sum(getattr(q, f.name) for f in dataclasses.fields(q))


@pytest.mark.parametrize("fn", [astuple_sum, asdict_product, getattr_by_name, setattr_by_name, fields_after_replace],
                         ids=lambda f: f.__name__)
def test_fields_by_name(fn):
    check_derivatives(fn, 0.7)


def dict_read(x):
    p = Plain(x, x * x)
    return p.__dict__["w"] * p.__dict__["b"]


def dict_update(x):
    p = Plain(x, 2.0)
    p.__dict__.update(w=x * x)
    return p.w * p.b


class KwConfig:
    def __init__(self, **kw):
        self.__dict__.update(kw)  # an empty __dict__ when read: its items are written around the fields' tangents


class ItemConfig:
    def __init__(self, a, b):
        self.name = "config"
        self.__dict__["a"] = a
        self.__dict__["b"] = b


def dict_update_in_init(x):
    c = KwConfig(a=x, b=x * 3.0)
    return c.a * c.b


def dict_items_in_init(x):
    c = ItemConfig(x, 2.0)
    return c.a * c.b


@pytest.mark.parametrize("fn", [dict_read, dict_update, dict_update_in_init, dict_items_in_init],
                         ids=lambda f: f.__name__)
def test_instance_dict_refused(fn):
    with pytest.raises(UnsupportedDerivativeError, match="__dict__"):
        mc.grad(fn)(0.7)
    with pytest.raises(UnsupportedDerivativeError, match="__dict__"):
        mc.jvp(fn, (0.7,), (1.0,))


class SetattrConfig:
    def __init__(self, **kw):
        for k, v in kw.items():
            setattr(self, k, v)


def fields_set_by_name_in_init(x):
    c = SetattrConfig(a=x, b=x * 3.0, label="c")
    return c.a * c.b


def test_the_suggested_spelling_is_differentiated():
    check_derivatives(fields_set_by_name_in_init, 0.7)


def shape_set_in_place(x):
    a = np.arange(6.0) * x
    a.shape = (2, 3)
    a[:, 1] = a[:, 0] * a[:, 2]
    return np.sum(a)


def test_array_shape_set_in_place():
    """Forward mode kept the tangent's old shape (the next index failed); reverse mode crashed with a broadcasting
    ValueError: the pullback now reshapes the array and its adjoint storage back."""
    check_derivatives(shape_set_in_place, 0.7)


@dataclasses.dataclass(frozen=True)
class Frozen:
    a: float
    b: float = 0.0

    def __post_init__(self):
        object.__setattr__(self, "b", self.a * 2.0)


@dataclasses.dataclass(frozen=True)
class FrozenArray:
    w: np.ndarray
    n: float = 0.0

    def __post_init__(self):
        object.__setattr__(self, "n", float(np.sum(self.w ** 2)))
        object.__setattr__(self, "w", self.w / np.sqrt(self.n))


def frozen_scalar(x):
    f = Frozen(x)
    return f.a * f.b


def frozen_array(x):
    g = FrozenArray(np.array([x, 1.0, 2.0 * x]))
    return g.n * np.sum(g.w * np.arange(3.0))


def frozen_in_list(x):
    return sum(f.b * f.a for f in [Frozen(x * i) for i in range(1, 4)])


@pytest.mark.parametrize("fn", [frozen_scalar, frozen_array, frozen_in_list], ids=lambda f: f.__name__)
def test_frozen_dataclass_post_init(fn):
    """`object.__setattr__` in a frozen dataclass's `__post_init__` had no rule in either mode."""
    check_derivatives(fn, 0.7)
