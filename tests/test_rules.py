"""Every rule in the registry, checked at several points in the modes it has (issue 4).

The tests are parametrised from `catalog()`: a callable with a forward or reverse rule and no
entry in CASES fails the suite, and so does a CASES entry that names no rule.  Each case calls the
primitive from a small Python function (a lambda, or a def for statements), so the call goes
through generated code, and runs `check_derivatives`: forward tangents against finite differences,
reverse mode by the dot-product test against forward mode.  Zero-derivative callables are checked
the same way (finite differences are zero at the sample points) in ZERO_CASES.

The lambdas are written as strings and compiled by `F` into one-line pseudo-files (registered with
linecache): finding a lambda's source parses the file it is in, and parsing this whole file for
each of several hundred lambdas would take minutes.
"""
import copy
import math
import operator
import os

import numpy as np

from rule_case_kit import kit
import pytest

import mooncake_ast as mc
from mooncake_ast.rules import scipy_rules
from mooncake_ast.rules.catalog import catalog
from mooncake_ast.rules.docs import REVERSE_BY_TRANSFORM
from mooncake_ast.testing import DerivativeCheckError, check_derivatives

try:
    import scipy.special as sp
except ImportError:  # SciPy is optional
    sp = None

RNG = np.random.default_rng(20240604)
FWD, REV, BOTH = ("forward",), ("reverse",), ("forward", "reverse")


def U(*shape, lo=-0.9, hi=0.9):
    """Uniform numbers (distinct almost surely, so no ties at max/min/sort)."""
    if not shape:
        return float(RNG.uniform(lo, hi))
    return RNG.uniform(lo, hi, size=shape)


def P(*shape):
    """Positive numbers, away from 0."""
    return U(*shape, lo=0.5, hi=2.0)


def spd(n, batch=()):
    a = RNG.normal(size=batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def well(n, batch=()):
    """A well-conditioned matrix."""
    return RNG.normal(size=batch + (n, n)) + 2.0 * n * np.eye(n)








# Known bugs outside the rule files go here as strict xfails (so a fix shows up); none at present.


F, Case = kit("rule case", globals())
C = Case

Z2 = np.array([1.0 + 2.0j, 0.5 - 1.0j])  # complex tangents must keep their imaginary parts (forward)
PROD_3D = np.array([[[0.5, 0.0], [1.1, 0.9]], [[2.0, 0.0], [0.8, 1.3]], [[1.2, 0.6], [0.7, 1.4]]])


class Box:
    """An object with one attribute (for getattr/setattr)."""

    def __init__(self, v):
        self.v = v


# ---------------------------------------------------------------- statements (defs: lambdas cannot assign)
def set_item(a, v):
    a = a.copy()
    a[1] = v
    return a * 2.0


def set_list_item(x, v):
    xs = [x, 2.0, 3.0]
    xs[0] = v * x
    return xs[0] + xs[1]


def del_item(x, y):
    xs = [x, y, 3.0]
    del xs[0]
    return xs[0] * xs[1]


def inplace(op, a, b):
    a = a * 1.0  # a new value (the argument itself stays as it was)
    if op == "add":
        a += b
    elif op == "sub":
        a -= b
    elif op == "mul":
        a *= b
    elif op == "div":
        a /= b
    elif op == "pow":
        a **= b
    elif op == "mod":
        a %= b
    else:
        a @= b
    return a


def inplace_after_add(a, b):
    a = a + 0.0  # the tangent of a + 0.0 is a's own tangent object ...
    a += b  # ... which this update then writes into (see XFAIL)
    return a


def list_append(x):
    out = []
    out.append(x)
    out.append(x * x)
    return out[0] + out[1]


def list_extend(x, ys):
    out = [x]
    out.extend(ys)
    return out[0] * out[1] + out[2]


def list_insert(x, y):
    out = [x, 2.0]
    out.insert(1, y)
    return out[0] * out[1] + out[2]


def list_pop(x, y):
    out = [x, y, 3.0]
    last = out.pop()
    first = out.pop(0)
    return first * last + out[0]


def list_reverse(x, y):
    out = [x, y]
    out.reverse()
    return out[0] * 3.0 + out[1]


def list_copy(x, y):
    out = [x, y]
    c = out.copy()
    return c[0] * c[1]


def list_sort(x, y):
    out = [y * 2.0, x, 0.5]
    out.sort()
    out.sort(key=lambda v: -v, reverse=False)
    return out[0] * 3.0 + out[1] * out[2]


def list_remove(x, y):
    out = [x, 9.0, y]
    out.remove(9.0)
    return out[0] * out[1]


def list_clear(x, y):
    out = [x, y]
    first = out[0] * y
    out.clear()
    out.append(x * 2.0)
    return out[0] + first


def dict_setdefault(x, y):
    d = {"a": x}
    u = d.setdefault("a", y)
    v = d.setdefault("b", y * 2.0)
    return u * v + d["b"]


def dict_pop(x, y):
    d = {"a": x, "b": y}
    u = d.pop("a")
    v = d.pop("c", y * 3.0)
    return u * v + d["b"]


def dict_popitem(x, y):
    d = {"a": x, "b": y}
    k, v = d.popitem()
    return v * d["a"]


def dict_clear(x, y):
    d = {"a": x}
    first = d["a"] * y
    d.clear()
    d["b"] = y
    return d["b"] * first


def dict_merge(x, y):
    d = {"a": x, "b": 1.0}
    e = d | {"b": y}
    d |= {"c": x * y}
    return e["a"] * e["b"] + d["c"]


def ndarray_sort(a):
    b = a * 1.0
    b.sort()
    return b * np.arange(1.0, b.size + 1)


def dict_update(x, y):
    d = {"a": x}
    d.update({"b": y})
    return d["a"] * d["b"]


def dict_copy(x, y):
    d = {"a": x, "b": y}
    c = d.copy()
    return c["a"] * c["b"]


def dict_get(x, y):
    d = {"a": x}
    return d.get("a", 0.0) * y + d.get("z", y)


def dict_get_unbound(x, y):
    d = {"a": x}
    return dict.get(d, "a") * y


def dict_items(x, y):
    d = {"a": x, "b": y}
    s = 0.0
    for k, v in d.items():
        s = s + v * v
    return s


def dict_values(x, y):
    d = {"a": x, "b": y}
    return sum(d.values()) * x


def dict_keys(x):
    d = {"a": x}
    return x * len(d.keys())


def set_add(x):
    s = set()
    s.add(1)
    return x * len(s)


def set_attr(x):
    b = Box(1.0)
    setattr(b, "v", x * x)
    return b.v * 2.0


def object_set_attr(x):
    b = Box(1.0)
    object.__setattr__(b, "v", x * x)
    return b.v * 2.0


def cell(x):
    y = x

    def bump():
        nonlocal y
        y = y * y
        return y

    return bump() + y


def closure(x):
    f = lambda t: t * x  # noqa: E731
    return f(2.0)


def star_unpack(xs):
    a, *rest = xs
    return a * rest[0] + rest[1]


def unpack(t):
    a, b = t
    return a * b


def loop(xs):
    s = 0.0
    for v in xs:
        s = s + v * v
    return s


def merge(x, y):
    d = {**{"a": x}, **{"b": y}}
    return d["a"] * d["b"]


def _kw_product(a, b):
    return a * b


def keywords(x, y):
    d = {"a": x}
    return _kw_product(**d, b=y * x) + d["a"]  # (d read twice: the call stays `_kw_product(**d, b=...)`)


def concat(x, y):
    t = (*(x, y), *(y,))
    return t[0] * t[1] + t[2]


def ufunc_at(a, b):
    a = a.copy()
    np.add.at(a, [0, 0, 2], b)
    return a


def ufunc_at_sub(a, b):
    a = a.copy()
    np.subtract.at(a, [1, 1], b)
    return a


def fill(a, v):
    a = a.copy()
    a.fill(v)
    return a * 2.0


def dyn(f, a):
    """Calls f when the code runs: its rule is dispatched at run time (the eager template path)."""
    return f(a)


def dyn2(f, a, b):
    return f(a, b)


def dyn3(f, a, b, c):
    return f(a, b, c)


def dyn_varargs(f, *args):
    return f(*args)


def map_square(xs):
    return list(map(lambda v: v * v, xs))


def filter_positive(xs):
    return list(filter(lambda v: v > 0.0, xs))


def diagonal_items(x):
    d = np.diagonal(x)  # a read-only view of x, read item by item: its adjoint lives in x's storage
    s = 0.0
    for i in range(2):
        s = s + d[i] * d[i]
    return s


def broadcast_rows(x):
    b = np.broadcast_to(x, (2, 3))
    return b[0] * b[1] + b[1]


def conj_items(x):
    c = x.conj()  # a real array's conj() is the array itself
    return c[0] * c[1] + c[2]


def identity(x):
    y = x
    return y * 2.0


# ---------------------------------------------------------------- sample points
x3, y3, x23, x34, y23, x2, x4 = U(3), U(3), U(2, 3), U(3, 4), U(2, 3), U(2), U(4)
x234 = U(2, 3, 4)
p3, p23 = P(3), P(2, 3)
s1, s2 = U(), U()
A3, B3 = well(3), RNG.normal(size=(3, 2))
S3 = spd(3)
mod_a = np.array([2.3, -1.7, 0.45])
near = np.array([0.2, -0.5, 0.3, 0.6])  # clip inside/outside, away from the bounds

CASES = {
    # -------------------------------------------------------------- operator
    "_operator.add": [C("lambda a, b: a + b", s1, s2),
                      C("lambda a, b: a + b", x23, x3),
                      C("lambda a, b: a + b", 1.5, x3)],
    "_operator.sub": [C("lambda a, b: a - b", s1, s2),
                      C("lambda a, b: a - b", x3, x23)],
    "_operator.mul": [C("lambda a, b: a * b", s1, s2),
                      C("lambda a, b: a * b", x23, x3),
                      C("lambda a, b: a * b", s1, x23)],
    "_operator.truediv": [C("lambda a, b: a / b", s1, 1.3),
                          C("lambda a, b: a / b", x23, p3),
                          C("lambda a, b: a / b", 2.0, p23)],
    "_operator.mod": [C("lambda a, b: a % b", 2.3, 0.7),
                      C("lambda a, b: a % b", mod_a, 0.7)],
    "_operator.pow": [C("lambda a, b: a ** b", 1.3, 2.5),
                      C("lambda a, b: a ** b", p23, 3.0),
                      C("lambda a, b: a ** b", 1.7, x3),
                      C("lambda a, b: a ** b", -1.5, 2)],
    "_operator.neg": [C("lambda a: -a", s1),
                      C("lambda a: -a", x23)],
    "_operator.pos": [C("lambda a: +a", s1),
                      C("lambda a: +a", x3)],
    "_operator.abs": [C("lambda a: abs(a)", x3)],
    "_operator.matmul": [C("lambda a, b: a @ b", x23, x34),
                         C("lambda a, b: a @ b", x3, x34),
                         C("lambda a, b: a @ b", x23, x3),
                         C("lambda a, b: a @ b", x234, U(4, 2))],
    "_operator.getitem": [C("lambda a: a[1] * a[2]", x3),
                          C("lambda a: a[1:, ::2]", x234),
                          C("lambda a: a[[0, 2, 0]]", x3),
                          C("lambda t: t[0] * t[1]", (s1, s2))],
    "_operator.setitem": [C(set_item, x3, 0.4), C(set_item, x23, x3), C(set_list_item, s1, s2)],
    "_operator.delitem": [C(del_item, s1, s2)],
    "_operator.iadd": [C('lambda a, b: inplace("add", a, b)', x23, x3),
                       C('lambda a, b: inplace("add", a, b)', s1, s2),
                       C(inplace_after_add, x23, x3, modes=BOTH)],
    "_operator.isub": [C('lambda a, b: inplace("sub", a, b)', x23, x3),
                       C('lambda a, b: inplace("sub", a, b)', s1, s2)],
    "_operator.imul": [C('lambda a, b: inplace("mul", a, b)', x23, x3),
                       C('lambda a, b: inplace("mul", a, b)', s1, s2)],
    "_operator.itruediv": [C('lambda a, b: inplace("div", a, b)', x23, p3),
                           C('lambda a, b: inplace("div", a, b)', s1, 1.4)],
    "_operator.ipow": [C('lambda a, b: inplace("pow", a, b)', p23, 2.5),
                       C('lambda a, b: inplace("pow", a, b)', 1.3, 1.7)],
    "_operator.imod": [C('lambda a, b: inplace("mod", a, b)', mod_a, 0.7),
                       C('lambda a, b: inplace("mod", a, b)', 2.3, 0.7)],
    "_operator.imatmul": [C('lambda a, b: inplace("matmul", a, b)', x23, U(3, 3))],
    # -------------------------------------------------------------- builtins
    "abs": [C("lambda a: abs(a) * a", s1),
            C("lambda a: abs(a)", x3)],
    "numpy.float64": [C("lambda a: np.float64(a * 2.0) * a", s1), C("lambda a: np.float64(np.sum(a)) * 3.0", x3)],
    "numpy.float32": [C("lambda a: float(np.float32(a)) * 2.0", 0.5, rtol=1e-3, atol=1e-4)],
    "float": [C("lambda a: float(a) * 2.0", s1),
              C("lambda a: float(a[1]) * a", x3)],
    "complex.conjugate": [C("lambda z: (z * z.conjugate()).real + z.conjugate()", 0.3 + 0.4j)],
    "float.conjugate": [C("lambda a: a.conjugate() * a", s1)],
    "complex": [C("lambda a, b: complex(a, b)", s1, s2),
                C("lambda z, b: complex(z, b)", 0.3 + 0.4j, 0.7),
                C("lambda z: complex(z)", 0.2 - 0.5j),
                C("lambda a, b: complex(a, b) * complex(b, a)", s1, s2, modes=FWD),
                C("lambda a: complex(a, 2.0).imag * a + complex(a).real", s1, modes=FWD)],
    "sum": [C("lambda xs: sum(xs)", [s1, s2, 0.3]),
            C("lambda a: sum(a)", x23),
            C("lambda xs, s: sum(xs, s)", (s1, s2), 0.5)],
    "max": [C("lambda a, b: max(a, b) * 2.0", 0.3, 0.7),
            C("lambda xs: max(xs)", [0.1, 0.9, 0.4]),
            C("lambda a, b, c: max(a, b, c)", 0.5, 0.2, 0.3)],
    "min": [C("lambda a, b: min(a, b) * 2.0", 0.3, 0.7),
            C("lambda xs: min(xs)", [0.1, 0.9, 0.4])],
    "pow": [C("lambda a, b: pow(a, b)", 1.3, 2.2),
            C("lambda a, b: pow(a, b)", 1.3, x3),
            C("lambda a, b: pow(a, b)", p23, 2.5),
            C("lambda a: pow(a, 3)", s1)],
    "round": [C("lambda a: round(a, 2) + a", 0.3141)],
    "list": [C("lambda t: list(t)[1] * 2.0", (s1, s2)),
             C("lambda a: list(a)[0]", x23)],
    "tuple": [C("lambda xs: tuple(xs)[0] * xs[1]", [s1, s2])],
    "dict": [C('lambda x, y: dict(zip(["a", "b"], [x, y]))["a"] * y', s1, s2),
             C('lambda x, y: dict([("a", x), ("b", y)])["b"] * x', s1, s2),
             C('lambda x, y: dict({"a": x})["a"] * y', s1, s2)],
    "zip": [C("lambda xs, ys: [a * b for a, b in zip(xs, ys)]", [s1, s2], [0.3, 0.4])],
    "enumerate": [C("lambda xs: [i * v for i, v in enumerate(xs)]", [s1, s2, 0.5])],
    "reversed": [C("lambda xs: [v * 2.0 for v in reversed(xs)]", [s1, s2])],
    "sorted": [C("lambda xs: sorted(xs)[0] * 3.0 + sorted(xs)[2]", [0.5, 0.1, 0.9])],
    # (sets keep no derivatives of their items: a set of numbers carrying one is refused where the derivative is
    # read, tests/test_regress_sets.py; a count of its items, or a set of ints, is fine)
    "set": [C("lambda a: len(set([a, a])) * a", s1), C("lambda a, ks: sum(sorted(set(ks))) * a", s1, [3, 1, 3])],
    "frozenset": [C("lambda a: len(frozenset([1, 2])) * a", s1), C("lambda a: len(frozenset([a, 2.0])) * a", s1)],
    "mooncake_ast.ops.set_of": [C("lambda a: len({a, 2.0 * a}) * a", s1)],
    "divmod": [C("lambda a, b: divmod(a, b)[1] * 2.0", 7.3, 2.1),
               C("lambda a, b: divmod(a, b)[0] + a", 7.3, 2.1)],
    "map": [C(map_square, [s1, s2])],
    "filter": [C(filter_positive, [0.5, -0.2, 0.3])],
    "getattr": [C('lambda x: getattr(Box(x), "v") * 2.0', s1),
                C('lambda z: getattr(z, "real") * 2.0', np.array([1.0 + 2.0j, 0.5 - 1j]), modes=FWD),
                C('lambda z: getattr(z, "real") * 2.0', np.array([1.0 + 2.0j, 0.5 - 1j]), modes=REV)],
    "setattr": [C(set_attr, s1)],
    "object.__setattr__": [C(object_set_attr, s1)],
    "iter": [C("lambda x, y: next(iter([x, y])) * 3.0", s1, s2, modes=FWD)],
    "next": [C("lambda x, y: next(iter([x, y])) + next(iter([y]))", s1, s2, modes=FWD),
             C("lambda x, y: next(iter([]), y) * x", s1, s2, modes=FWD)],
    "list.append": [C(list_append, s1)],
    "list.extend": [C(list_extend, s1, [s2, 0.3])],
    "list.insert": [C(list_insert, s1, s2)],
    "list.pop": [C(list_pop, s1, s2)],
    "list.reverse": [C(list_reverse, s1, s2)],
    "list.sort": [C(list_sort, s1, s2)],
    "list.remove": [C(list_remove, s1, s2)],
    "list.clear": [C(list_clear, s1, s2)],
    "dict.setdefault": [C(dict_setdefault, s1, s2)],
    "dict.pop": [C(dict_pop, s1, s2)],
    "dict.popitem": [C(dict_popitem, s1, s2)],
    "dict.clear": [C(dict_clear, s1, s2)],
    "_operator.or_": [C(dict_merge, s1, s2)],
    "_operator.ior": [C(dict_merge, s1, s2)],
    "numpy.ndarray.sort": [C(ndarray_sort, np.array([0.3, -0.2, 0.9]))],
    "list.copy": [C(list_copy, s1, s2)],
    "dict.update": [C(dict_update, s1, s2)],
    "dict.copy": [C(dict_copy, s1, s2)],
    "dict.get": [C(dict_get, s1, s2), C(dict_get_unbound, s1, s2)],
    "dict.items": [C(dict_items, s1, s2)],
    "dict.values": [C(dict_values, s1, s2)],
    "set.add": [C(set_add, s1)],
    # -------------------------------------------------------------- syntax helpers (ops)
    "mooncake_ast.ops.tuple_of": [C("lambda x, y: (x, y * x)", s1, s2)],
    "mooncake_ast.ops.list_of": [C("lambda x, y: [x, y * x]", s1, s2)],
    "mooncake_ast.ops.dict_of": [C('lambda x, y: {"a": x, "b": y * x}', s1, s2)],
    "mooncake_ast.ops.identity": [C(identity, s1), C(identity, x3)],
    "mooncake_ast.ops.sequence": [C(loop, [s1, s2]), C(loop, x3)],
    "mooncake_ast.ops.unpack": [C(unpack, (s1, s2)), C(unpack, x23)],
    "mooncake_ast.ops.unpack_star": [C(star_unpack, [s1, s2, 0.3])],
    "mooncake_ast.ops.concat_tuple": [C(concat, s1, s2)],
    "mooncake_ast.ops.merge_dicts": [C(merge, s1, s2)],
    "mooncake_ast.ops.merge_kwargs": [C(keywords, s1, s2)],
    "mooncake_ast.ops.cell_get": [C(cell, s1)],
    "mooncake_ast.ops.cell_set": [C(cell, s1)],
    "mooncake_ast.ops.make_function": [C(closure, s1)],
    # -------------------------------------------------------------- math
    "math.exp": [C("lambda x: math.exp(x)", s1)],
    "math.expm1": [C("lambda x: math.expm1(x)", s1)],
    "math.log": [C("lambda x: math.log(x)", 1.7),
                 C("lambda x, b: math.log(x, b)", 1.7, 3.0),
                 C("lambda x: math.log(x, 10.0)", 0.6)],
    "math.log1p": [C("lambda x: math.log1p(x)", s1)],
    "math.log2": [C("lambda x: math.log2(x)", 1.7)],
    "math.log10": [C("lambda x: math.log10(x)", 1.7)],
    "math.sqrt": [C("lambda x: math.sqrt(x)", 1.7)],
    "math.cbrt": [C("lambda x: math.cbrt(x)", 1.7),
                  C("lambda x: math.cbrt(x)", -0.6)],
    "math.exp2": [C("lambda x: math.exp2(x)", s1)],
    "math.sin": [C("lambda x: math.sin(x)", s1)],
    "math.cos": [C("lambda x: math.cos(x)", s1)],
    "math.tan": [C("lambda x: math.tan(x)", s1)],
    "math.asin": [C("lambda x: math.asin(x)", s1)],
    "math.acos": [C("lambda x: math.acos(x)", s1)],
    "math.atan": [C("lambda x: math.atan(x)", 2.5)],
    "math.sinh": [C("lambda x: math.sinh(x)", s1)],
    "math.cosh": [C("lambda x: math.cosh(x)", s1)],
    "math.tanh": [C("lambda x: math.tanh(x)", s1)],
    "math.asinh": [C("lambda x: math.asinh(x)", s1)],
    "math.acosh": [C("lambda x: math.acosh(x)", 1.7)],
    "math.atanh": [C("lambda x: math.atanh(x)", s1)],
    "math.erf": [C("lambda x: math.erf(x)", s1)],
    "math.erfc": [C("lambda x: math.erfc(x)", s1)],
    "math.fabs": [C("lambda x: math.fabs(x)", -0.7),
                  C("lambda x: math.fabs(x)", 0.4)],
    "math.degrees": [C("lambda x: math.degrees(x)", s1)],
    "math.radians": [C("lambda x: math.radians(x)", s1)],
    "math.lgamma": [C("lambda x: math.lgamma(x)", 2.7),
                    C("lambda x: math.lgamma(x)", 0.3),
                    C("lambda x: math.lgamma(x)", -1.4)],
    "math.gamma": [C("lambda x: math.gamma(x)", 2.7),
                   C("lambda x: math.gamma(x)", -0.4)],
    "math.pow": [C("lambda a, b: math.pow(a, b)", 1.3, 2.2),
                 C("lambda a: math.pow(a, 3.0)", -0.7)],
    "math.atan2": [C("lambda a, b: math.atan2(a, b)", s1, -0.8)],
    "math.hypot": [C("lambda a, b: math.hypot(a, b)", s1, s2),
                   C("lambda a, b, c: math.hypot(a, b, c)", 0.3, 0.4, 0.5)],
    "math.fmod": [C("lambda a, b: math.fmod(a, b)", 2.3, 0.7),
                  C("lambda a, b: math.fmod(a, b)", -1.7, 0.7)],
    "math.remainder": [C("lambda a, b: math.remainder(a, b)", 2.3, 0.7),
                       C("lambda a, b: math.remainder(a, b)", -1.9, 0.7)],
    "math.copysign": [C("lambda a, b: math.copysign(a, b)", 0.4, -1.0),
                      C("lambda a, b: math.copysign(a, b)", -0.4, 2.0)],
    "math.ldexp": [C("lambda a: math.ldexp(a, 3)", s1)],
    "math.fsum": [C("lambda xs: math.fsum(xs)", [s1, s2, 0.3]),
                  C("lambda a: math.fsum(a)", x3)],
    "math.prod": [C("lambda xs: math.prod(xs)", [s1, s2, 0.3]),
                  C("lambda xs: math.prod(xs)", [s1, 0.0, s2, 0.5]),
                  C("lambda xs: math.prod(xs, start=2.0)", [s1, 0.0]),
                  C("lambda x, s: math.prod([x, x], start=s)", 1.5, 0.7, modes=FWD)],
    "math.frexp": [C("lambda x: math.frexp(x)[0] * 2.0", 3.3, modes=FWD),
                   C("lambda x: dyn(math.frexp, x)[0]", 3.3),
                   C("lambda x: math.frexp(x)[0] * 2.0", 3.3, modes=REV)],
    "math.modf": [C("lambda x: math.modf(x)[0] * 2.0", 3.3, modes=FWD),
                  C("lambda x: dyn(math.modf, x)[0]", -2.6),
                  C("lambda x: math.modf(x)[0] * 2.0", 3.3, modes=REV)],
    "math.dist": [C("lambda p, q: math.dist(p, q)", [0.1, 0.7], [0.4, -0.3]),
                  C("lambda p, q: math.dist(p, q)", (0.1, 0.2, 0.3), (1.0, 0.5, -0.5))],
    # -------------------------------------------------------------- numpy: elementwise
    "numpy.sin": [C("lambda x: np.sin(x)", x23),
                  C("lambda x: np.sin(x)", s1)],
    "numpy.cos": [C("lambda x: np.cos(x)", x23)],
    "numpy.tan": [C("lambda x: np.tan(x)", x3)],
    "numpy.arcsin": [C("lambda x: np.arcsin(x)", x3)],
    "numpy.arccos": [C("lambda x: np.arccos(x)", x3)],
    "numpy.arctan": [C("lambda x: np.arctan(x)", x3 * 3.0)],
    "numpy.sinh": [C("lambda x: np.sinh(x)", x3)],
    "numpy.cosh": [C("lambda x: np.cosh(x)", x3)],
    "numpy.tanh": [C("lambda x: np.tanh(x)", x3)],
    "numpy.arcsinh": [C("lambda x: np.arcsinh(x)", x3)],
    "numpy.arccosh": [C("lambda x: np.arccosh(x)", p3 + 1.0)],
    "numpy.arctanh": [C("lambda x: np.arctanh(x)", x3)],
    "numpy.exp": [C("lambda x: np.exp(x)", x23)],
    "numpy.exp2": [C("lambda x: np.exp2(x)", x3)],
    "numpy.expm1": [C("lambda x: np.expm1(x)", x3)],
    "numpy.log": [C("lambda x: np.log(x)", p23)],
    "numpy.log2": [C("lambda x: np.log2(x)", p3)],
    "numpy.log10": [C("lambda x: np.log10(x)", p3)],
    "numpy.log1p": [C("lambda x: np.log1p(x)", x3)],
    "numpy.sqrt": [C("lambda x: np.sqrt(x)", p23)],
    "numpy.cbrt": [C("lambda x: np.cbrt(x)", x3)],
    "numpy.square": [C("lambda x: np.square(x)", x3)],
    "numpy.reciprocal": [C("lambda x: np.reciprocal(x)", p3)],
    "numpy.absolute": [C("lambda x: np.abs(x)", x23),
                       C("lambda z: np.abs(z)", np.array([0.3 + 0.4j, -1.0 + 0.2j]))],
    "numpy.fabs": [C("lambda x: np.fabs(x)", x3)],
    "numpy.negative": [C("lambda x: np.negative(x)", x3)],
    "numpy.positive": [C("lambda x: np.positive(x)", x3)],
    "numpy.conjugate": [C("lambda x: np.conjugate(x) * x", x3),
                        C("lambda z: np.conjugate(z)", np.array([0.3 + 0.4j, -1.0 + 0.2j]))],
    "numpy.real": [C("lambda x: np.real(x)", x3),
                   C("lambda z: np.real(z)", np.array([0.3 + 0.4j, -1.0 + 0.2j]))],
    "numpy.imag": [C("lambda z: np.imag(z)", np.array([0.3 + 0.4j, -1.0 + 0.2j])),
                   C("lambda x: np.imag(x) + x", x3)],
    "numpy.deg2rad": [C("lambda x: np.deg2rad(x)", x3)],
    "numpy.radians": [C("lambda x: np.radians(x)", x3)],
    "numpy.rad2deg": [C("lambda x: np.rad2deg(x)", x3)],
    "numpy.degrees": [C("lambda x: np.degrees(x)", x3)],
    "numpy.sinc": [C("lambda x: np.sinc(x)", np.array([0.0, 0.3, -1.4])),
                   C("lambda z: np.sinc(z)", Z2, modes=FWD)],
    "numpy.add": [C("lambda a, b: np.add(a, b)", x23, x3),
                  C("lambda a, b: np.add(a, b)", s1, x3)],
    "numpy.subtract": [C("lambda a, b: np.subtract(a, b)", x23, x3)],
    "numpy.multiply": [C("lambda a, b: np.multiply(a, b)", x23, x3),
                       C("lambda a, b: np.multiply(a, b)", x3, s1)],
    "numpy.divide": [C("lambda a, b: np.divide(a, b)", x23, p3)],
    "numpy.power": [C("lambda a, b: np.power(a, b)", p23, x3),
                    C("lambda a, b: np.power(a, b)", p3, 2.0)],
    "numpy.float_power": [C("lambda a, b: np.float_power(a, b)", p23, x3)],
    "numpy.maximum": [C("lambda a, b: np.maximum(a, b)", x23, y3),
                      C("lambda a: np.maximum(a, 0.0)", x3)],
    "numpy.minimum": [C("lambda a, b: np.minimum(a, b)", x23, y3)],
    "numpy.fmax": [C("lambda a, b: np.fmax(a, b)", x23, y3)],  # NaNs: test_fmax_fmin_skip_nans
    "numpy.fmin": [C("lambda a, b: np.fmin(a, b)", x23, y3)],
    "numpy.arctan2": [C("lambda a, b: np.arctan2(a, b)", x23, y3)],
    "numpy.hypot": [C("lambda a, b: np.hypot(a, b)", x23, y3)],
    "numpy.logaddexp": [C("lambda a, b: np.logaddexp(a, b)", x23, y3)],
    "numpy.logaddexp2": [C("lambda a, b: np.logaddexp2(a, b)", x23, y3)],
    "numpy.remainder": [C("lambda a, b: np.remainder(a, b)", mod_a, 0.7),
                        C("lambda a, b: np.mod(a, b)", mod_a, np.array([0.7, 0.9, 0.2]))],
    "numpy.fmod": [C("lambda a, b: np.fmod(a, b)", mod_a, 0.7)],
    "numpy.copysign": [C("lambda a, b: np.copysign(a, b)", x3, np.array([1.0, -1.0, -2.0]))],
    "numpy.where": [C("lambda a, b: np.where(a > 0, a, b)", x23, y3),
                    C("lambda a: np.where(a > 0, a, 0.0)", x3),
                    C("lambda a: np.where(a > 0)[0] * 1.0 + a[0]", x3)],
    "numpy.clip": [C("lambda x: np.clip(x, -0.4, 0.4)", near),
                   C("lambda x, lo, hi: np.clip(x, lo, hi)", near, -0.1, 0.4),
                   C("lambda x: np.clip(x, a_min=-0.4, a_max=None)", near),
                   C("lambda x, lo: np.clip(x, lo, 0.25)", near, np.array([0.1, 0.0, 0.4, 0.1]))],
    # -------------------------------------------------------------- numpy: reductions
    "numpy.sum": [C("lambda x: np.sum(x)", x23),
                  C("lambda x: np.sum(x, axis=0)", x23),
                  C("lambda x: np.sum(x, axis=(0, 2), keepdims=True)", x234),
                  C("lambda x: np.sum(x, where=x > 0)", x23)],
    "numpy.mean": [C("lambda x: np.mean(x)", x23),
                   C("lambda x: np.mean(x, axis=1)", x23),
                   C("lambda x: np.mean(x, axis=0, where=x > -0.5)", x23)],
    "numpy.cumsum": [C("lambda x: np.cumsum(x)", x23),
                     C("lambda x: np.cumsum(x, axis=1)", x23)],
    "numpy.cumprod": [C("lambda x: np.cumprod(x)", x23),
                      C("lambda x: np.cumprod(x, axis=0)", x23),
                      C("lambda x: np.cumprod(x)", np.array([0.5, 0.0, 2.0, 1.5]))],
    "numpy.max": [C("lambda x: np.max(x)", x23),
                  C("lambda x: np.max(x, axis=1)", x23),
                  C("lambda x: np.max(x, axis=0, keepdims=True)", x23),
                  C("lambda x: np.max(x, initial=0.95)", x23)],
    "numpy.min": [C("lambda x: np.min(x)", x23),
                  C("lambda x: np.min(x, axis=(0, 2))", x234)],
    "numpy.prod": [C("lambda x: np.prod(x)", x23),
                   C("lambda x: np.prod(x, axis=0)", np.array([[0.5, 0.0], [2.0, 1.5]])),
                   # groups with no, one and two zeros; negative and tuple axes; keepdims
                   C("lambda x: np.prod(x, axis=-1, keepdims=True)", np.array([[0.5, 0.0, 2.0], [1.5, -0.7, 1.2], [0.0, 0.3, 0.0]])),
                   C("lambda x: np.prod(x, axis=(0, 2))", PROD_3D),
                   C("lambda x: np.prod(x, axis=(2, 0), keepdims=True) * 2.0", PROD_3D),
                   C("lambda z: np.prod(z)", np.array([1.0 + 2.0j, 3.0 - 1.0j, 0.5 + 0.5j]), modes=FWD)],
    "numpy.var": [C("lambda x: np.var(x)", x23),
                  C("lambda x: np.var(x, axis=1, ddof=1)", x23)],
    "numpy.std": [C("lambda x: np.std(x)", x23),
                  C("lambda x: np.std(x, axis=0, keepdims=True)", x23)],
    # -------------------------------------------------------------- numpy: products
    "numpy.dot": [C("lambda a, b: np.dot(a, b)", x3, y3),
                  C("lambda a, b: np.dot(a, b)", x23, x34),
                  C("lambda a, b: np.dot(a, b)", x23, x3),
                  C("lambda a, b: np.dot(a, b)", x234, U(5, 4, 2)),
                  C("lambda a, b: np.dot(a, b)", x4, U(2, 4, 3))],
    "numpy.matmul": [C("lambda a, b: np.matmul(a, b)", x23, x34),
                     C("lambda a, b: np.matmul(a, b)", x3, U(2, 3, 4)),
                     C("lambda a, b: np.matmul(a, b)", U(2, 2, 3), x3)],
    "numpy.inner": [C("lambda a, b: np.inner(a, b)", x3, y3),
                    C("lambda a, b: np.inner(a, b)", x23, U(4, 3)),
                    C("lambda a, b: np.inner(a, b)", s1, x3)],
    "numpy.outer": [C("lambda a, b: np.outer(a, b)", x3, x2),
                    C("lambda a, b: np.outer(a, b)", x23, x2)],
    "numpy.vdot": [C("lambda a, b: np.vdot(a, b)", x23, y23),
                   C("lambda a, b: np.vdot(a, b)", np.array([0.3 + 0.4j, 1.0 - 0.5j]), np.array([0.2 - 0.1j, 0.7 + 0.3j]))],
    "numpy.tensordot": [C("lambda a, b: np.tensordot(a, b, axes=1)", x23, x34),
                        C("lambda a, b: np.tensordot(a, b)", x234, U(3, 4, 2)),
                        C("lambda a, b: np.tensordot(a, b, axes=([1, 0], [0, 1]))", x23, U(3, 2, 4))],
    "numpy.einsum": [C('lambda a, b: np.einsum("ij,jk->ik", a, b)', x23, x34),
                     C('lambda a: np.einsum("ii->", a)', U(3, 3)),
                     C('lambda a: np.einsum("ii->i", a)', U(3, 3)),
                     C('lambda a, b: np.einsum("ij,jk", a, b)', x23, x34),
                     C('lambda a, b: np.einsum("...ij,jk->...ik", a, b)', x234, U(4, 2)),
                     C('lambda a, b, c: np.einsum("i,ij,j->", a, b, c)', x2, x23, x3),
                     C('lambda a, b: np.einsum("ij,j->i", a, b)', x23, U(1)),
                     C('lambda a: np.einsum("iji->j", a)', U(3, 2, 3)),
                     C('lambda a, b: np.einsum("ij,k->ijk", a, b)', x23, x2)],
    "numpy.kron": [C("lambda a, b: np.kron(a, b)", U(2, 2), x23),
                   C("lambda a, b: np.kron(a, b)", x3, x23),
                   C("lambda a, b: np.kron(a, b)", x3, x2)],
    "numpy.cross": [C("lambda a, b: np.cross(a, b)", x3, y3),
                    C("lambda a, b: np.cross(a, b)", x23, y3)],
    "numpy.polyval": [C("lambda p, x: np.polyval(p, x)", x3, s1),
                      C("lambda p, x: np.polyval(p, x)", x4, x3)],
    # -------------------------------------------------------------- numpy: shapes and copies
    "numpy.reshape": [C("lambda x: np.reshape(x, (3, 2))", x23),
                      C("lambda x: np.reshape(x, -1)", x234)],
    "numpy.transpose": [C("lambda x: np.transpose(x)", x23),
                        C("lambda x: np.transpose(x, (2, 0, 1))", x234),
                        C("lambda x: np.transpose(x, (-1, 0, 1))", x234)],
    "numpy.ravel": [C("lambda x: np.ravel(x)", x23)],
    "numpy.squeeze": [C("lambda x: np.squeeze(x)", U(1, 3, 1))],
    "numpy.expand_dims": [C("lambda x: np.expand_dims(x, 1)", x23)],
    "numpy.swapaxes": [C("lambda x: np.swapaxes(x, 0, 2)", x234)],
    "numpy.moveaxis": [C("lambda x: np.moveaxis(x, 0, -1)", x234),
                       C("lambda x: np.moveaxis(x, (0, 1), (2, 0))", x234)],
    "numpy.broadcast_to": [C("lambda x: np.broadcast_to(x, (2, 3)) * 1.0", x3),
                           C("lambda x: np.broadcast_to(x, (4, 2, 3)) * 2.0", U(2, 1)),
                           C(broadcast_rows, x3)],
    "numpy.matrix_transpose": [C("lambda x: np.matrix_transpose(x)", x234)],
    "numpy.flip": [C("lambda x: np.flip(x)", x23),
                   C("lambda x: np.flip(x, axis=1)", x23)],
    "numpy.fliplr": [C("lambda x: np.fliplr(x)", x23)],
    "numpy.flipud": [C("lambda x: np.flipud(x)", x23)],
    "numpy.rot90": [C("lambda x: np.rot90(x)", x23),
                    C("lambda x: np.rot90(x, 3, axes=(1, 2))", x234)],
    "numpy.roll": [C("lambda x: np.roll(x, 1)", x23),
                   C("lambda x: np.roll(x, (1, -1), axis=(0, 1))", x23)],
    "numpy.tile": [C("lambda x: np.tile(x, 2)", x3),
                   C("lambda x: np.tile(x, (2, 1, 2))", x23)],
    "numpy.repeat": [C("lambda x: np.repeat(x, 2)", x23),
                     C("lambda x: np.repeat(x, [1, 2, 0], axis=1)", x23)],
    "numpy.diag": [C("lambda x: np.diag(x)", x3),
                   C("lambda x: np.diag(x, 1)", x3),
                   C("lambda x: np.diag(x) * 1.0", U(3, 3)),
                   C("lambda x: np.diag(x, -1) * 1.0", x34)],
    "numpy.diagonal": [C("lambda x: np.diagonal(x) * 1.0", x34),
                       C("lambda x: np.diagonal(x, 1, 2, 0) * 1.0", x234),
                       C(diagonal_items, x34)],
    "numpy.trace": [C("lambda x: np.trace(x)", U(3, 3)),
                    C("lambda x: np.trace(x)", x234),
                    C("lambda x: np.trace(x, -1, 1, 2)", x234)],
    "numpy.triu": [C("lambda x: np.triu(x)", x34),
                   C("lambda x: np.triu(x, -1)", x234)],
    "numpy.tril": [C("lambda x: np.tril(x, 1)", x34)],
    "numpy.diff": [C("lambda x: np.diff(x)", x4),
                   C("lambda z: np.diff(z, prepend=0.0)", Z2, modes=FWD),
                   C("lambda x: np.diff(x, 2, axis=0)", U(4, 2)),
                   C("lambda x: np.diff(x, prepend=0.0)", x4),
                   C("lambda x, p: np.diff(x, 1, -1, p)", x23, U(2, 1)),
                   C("lambda x, a: np.diff(x, append=a)", x4, 0.5, modes=FWD)],
    "numpy.take": [C("lambda x: np.take(x, [2, 0, 2])", x23),
                   C("lambda x: np.take(x, [1, 1], axis=1)", x23),
                   C('lambda x: np.take(x, [5, -1], mode="wrap")', x3),
                   C("lambda x: np.take(x, 1, axis=0)", x23)],
    "numpy.take_along_axis": [C("lambda x: np.take_along_axis(x, np.array([[0, 0], [2, 1]]), axis=1)", x23),
                              C("lambda x: np.take_along_axis(x, np.argsort(x, axis=0), axis=0)", x23)],
    "numpy.sort": [C("lambda x: np.sort(x)", x23),
                   C("lambda x: np.sort(x, axis=0)", x23),
                   C("lambda x: np.sort(x, axis=None)", x23)],
    "numpy.pad": [C("lambda x: np.pad(x, 1)", x23),
                  C("lambda z: np.pad(z, 1)", Z2, modes=FWD),
                  C('lambda x: np.pad(x, ((1, 0), (0, 2)), mode="reflect")', x23),
                  C('lambda x: np.pad(x, 2, mode="edge")', x3),
                  C('lambda x: np.pad(x, (1, 2), mode="wrap")', x3),
                  C('lambda x: np.pad(x, 1, mode="symmetric")', x23),
                  C("lambda x, c: np.pad(x, 1, constant_values=c)", x3, 0.5, modes=FWD)],
    "numpy.copy": [C("lambda x: np.copy(x)", x23)],
    "numpy.atleast_1d": [C("lambda x: np.atleast_1d(x)", s1),
                         C("lambda x: np.atleast_1d(x)", x3)],
    "numpy.atleast_2d": [C("lambda x: np.atleast_2d(x)", x3)],
    "numpy.array": [C("lambda x, y: np.array([x, y]) * 2.0", s1, s2),
                    C("lambda x: np.array(x) * 2.0", x23),
                    C("lambda x: np.array([x, x])", x3)],
    "numpy.asarray": [C("lambda x: np.asarray(x) * 2.0", x23),
                      C("lambda x, y: np.asarray([x, y])", s1, s2)],
    "numpy.asanyarray": [C("lambda x: np.asanyarray(x) * 2.0", x23)],
    "numpy.concatenate": [C("lambda a, b: np.concatenate([a, b])", x3, y3),
                          C("lambda a, b: np.concatenate((a, b), axis=1)", x23, y23),
                          C("lambda a, b: np.concatenate([a, b], axis=None)", x23, x3),
                          C("lambda z, b: np.concatenate([z, b])", Z2, x3, modes=FWD)],
    "numpy.stack": [C("lambda a, b: np.stack([a, b])", x3, y3),
                    C("lambda a, b: np.stack([a, b], axis=-1)", x23, y23)],
    "numpy.vstack": [C("lambda a, b: np.vstack([a, b])", x3, y3),
                     C("lambda z: np.vstack([z, z * 2.0])", Z2, modes=FWD)],
    "numpy.hstack": [C("lambda a, b: np.hstack([a, b])", x3, x2),
                     C("lambda a, b: np.hstack([a, b])", x23, y23)],
    "numpy.split": [C("lambda x: np.split(x, 2)[1] * 2.0", x4),
                    C("lambda x: np.split(x, [1], axis=1)[0]", x23)],
    "numpy.array_split": [C("lambda x: np.array_split(x, 2)[0] * 2.0", x3)],
    # -------------------------------------------------------------- numpy: creation
    "numpy.full": [C("lambda x: np.full((2, 3), x)", s1),
                   C("lambda x: np.full(3, x)", x3)],
    "numpy.full_like": [C("lambda a, x: np.full_like(a, x)", x23, s1),
                        C("lambda a, x: np.full_like(a, x) * a", x23, s1)],
    "numpy.arange": [C("lambda x: np.arange(x, 3.0, 0.5)", 0.3),
                     C("lambda x, s: np.arange(x, 3.0, s)", 0.3, 0.7),
                     C("lambda x: np.arange(4) * x", s1)],
    "numpy.linspace": [C("lambda a, b: np.linspace(a, b, 5)", s1, 1.5),
                       C("lambda a, b: np.linspace(a, b, 4, endpoint=False)", x2, y3[:2]),
                       C("lambda a, b: np.linspace(a, b, 3, axis=-1)", x2, 2.0),
                       C("lambda a, b: np.linspace(a, b, 4, retstep=True)", s1, 1.5)],
    # -------------------------------------------------------------- numpy: linear algebra
    "numpy.linalg.norm": [C("lambda x: np.linalg.norm(x)", x23),
                          C("lambda x: np.linalg.norm(x, axis=1)", x23),
                          C("lambda x: np.linalg.norm(x, 1)", x3),
                          C("lambda x: np.linalg.norm(x, np.inf)", x3),
                          C("lambda x: np.linalg.norm(x, 3, axis=0, keepdims=True)", x23),
                          C("lambda x: np.linalg.norm(x, 2)", x23),
                          C('lambda x: np.linalg.norm(x, "nuc")', x23),
                          C("lambda x: np.linalg.norm(x, -2)", x34),
                          C("lambda x: np.linalg.norm(x, 1)", x23),
                          C("lambda x: np.linalg.norm(x, np.inf, axis=(1, 2))", x234),
                          C("lambda x: np.linalg.norm(x, -np.inf)", x3)],
    "numpy.linalg.inv": [C("lambda a: np.linalg.inv(a)", A3),
                         C("lambda a: np.linalg.inv(a)", well(2, (2,)))],
    "numpy.linalg.solve": [C("lambda a, b: np.linalg.solve(a, b)", A3, x3),
                           C("lambda a, b: np.linalg.solve(a, b)", A3, B3),
                           C("lambda a, b: np.linalg.solve(a, b)", well(3, (2,)), x3)],
    "numpy.linalg.det": [C("lambda a: np.linalg.det(a)", A3),
                         C("lambda a: np.linalg.det(a)", well(3, (2,)))],
    "numpy.linalg.slogdet": [C("lambda a: np.linalg.slogdet(a)", A3),
                             C("lambda a: np.linalg.slogdet(a)[1]", -A3)],
    "numpy.linalg.cholesky": [C("lambda a: np.linalg.cholesky(a)", S3),
                              C("lambda a: np.linalg.cholesky(a, upper=True)", S3),
                              C("lambda a: np.linalg.cholesky(a)", spd(2, (2,)))],
    "numpy.linalg.eigh": [C("lambda a: np.linalg.eigh(a)", S3),
                          C('lambda a: np.linalg.eigh(a, UPLO="U")[1]', S3),
                          C("lambda a: np.linalg.eigh(a)[0]", spd(2, (2,)))],
    "numpy.linalg.eigvalsh": [C("lambda a: np.linalg.eigvalsh(a)", S3),
                              C('lambda a: np.linalg.eigvalsh(a, UPLO="U")', S3)],
    "numpy.linalg.qr": [C("lambda a: np.linalg.qr(a)", U(4, 3)),
                        C('lambda a: np.linalg.qr(a, mode="complete")', A3),
                        C('lambda a: np.linalg.qr(a, mode="r")', U(4, 2)),
                        C("lambda a: np.linalg.qr(a)[1]", U(2, 3, 2))],
    "numpy.linalg.svd": [C("lambda a: np.linalg.svd(a)", A3),
                         C("lambda a: np.linalg.svd(a, full_matrices=False)", U(4, 3)),
                         C("lambda a: np.linalg.svd(a, full_matrices=False)", x23),
                         C("lambda a: np.linalg.svd(a, compute_uv=False)", x34)],
    "numpy.linalg.svdvals": [C("lambda a: np.linalg.svdvals(a)", x34)],
    "numpy.linalg.lstsq": [C("lambda a, b: np.linalg.lstsq(a, b)[0]", U(5, 3), U(5)),
                           C("lambda a, b: np.linalg.lstsq(a, b)", U(5, 2), U(5, 2)),
                           C("lambda a, b: np.linalg.lstsq(a, b)[0]", x23, x2)],
    # -------------------------------------------------------------- numpy: in place
    "numpy.ufunc.at": [C(ufunc_at, x3, 0.5), C(ufunc_at, x3, y3), C(ufunc_at_sub, x3, x2)],
    # -------------------------------------------------------------- ndarray methods (dispatched when the code runs)
    "numpy.ndarray.sum": [C("lambda x: x.sum()", x23),
                          C("lambda x: x.sum(axis=0)", x23)],
    "numpy.ndarray.mean": [C("lambda x: x.mean()", x23),
                           C("lambda x: x.mean(1)", x23)],
    "numpy.ndarray.cumsum": [C("lambda x: x.cumsum(axis=1)", x23)],
    "numpy.ndarray.cumprod": [C("lambda x: x.cumprod()", x3),
                              C("lambda x: x.cumprod(axis=0)", x23)],
    "numpy.ndarray.dot": [C("lambda a, b: a.dot(b)", x23, x34)],
    "numpy.ndarray.reshape": [C("lambda x: x.reshape(3, 2)", x23),
                              C("lambda x: x.reshape((6,))", x23)],
    "numpy.ndarray.transpose": [C("lambda x: x.transpose()", x23),
                                C("lambda x: x.transpose(1, 2, 0)", x234)],
    "numpy.ndarray.copy": [C("lambda x: x.copy()", x23)],
    "numpy.ndarray.ravel": [C("lambda x: x.ravel()", x23)],
    "numpy.ndarray.flatten": [C("lambda x: x.flatten()", x23)],
    "numpy.ndarray.squeeze": [C("lambda x: x.squeeze()", U(3, 1))],
    "numpy.ndarray.max": [C("lambda x: x.max()", x23),
                          C("lambda x: x.max(axis=0)", x23)],
    "numpy.ndarray.min": [C("lambda x: x.min(axis=1)", x23)],
    "numpy.ndarray.prod": [C("lambda x: x.prod()", x3),
                           C("lambda x: x.prod(axis=1)", x23)],
    "numpy.ndarray.astype": [C("lambda x: x.astype(np.float32).astype(float) * 2.0", x3, rtol=1e-4, atol=1e-5),
                             C("lambda x: x.astype(int) * 1.0 + x", x3 * 3.0)],
    "numpy.ndarray.item": [C("lambda x: x.item(1) * 2.0", x3),
                           C("lambda x: x.item(4)", x23),
                           C("lambda x: x.item(1, 2)", x23)],
    "numpy.ndarray.tolist": [C("lambda x: x.tolist()[1] * 2.0", x3),
                             C("lambda x: x.tolist()[1][0]", x23)],
    "numpy.ndarray.clip": [C("lambda x: x.clip(-0.4, 0.4)", near),
                           C("lambda x, lo: x.clip(lo, 0.45)", near, 0.1)],
    "numpy.ndarray.fill": [C(fill, x3, 0.7), C(fill, Z2, 0.3 + 0.2j, modes=FWD)],
    "numpy.ndarray.var": [C("lambda x: x.var()", x23)],
    "numpy.ndarray.std": [C("lambda x: x.std(axis=0)", x23)],
    "numpy.ndarray.diagonal": [C("lambda x: x.diagonal() * 1.0", x34),
                               C("lambda x: x.diagonal(1) * 1.0", x34)],
    "numpy.ndarray.trace": [C("lambda x: x.trace()", x34)],
    "numpy.ndarray.swapaxes": [C("lambda x: x.swapaxes(0, 1)", x23)],
    "numpy.ndarray.conj": [C("lambda x: x.conj() * x", x3),
                           C(conj_items, x3),
                           C("lambda z: z.conj()", np.array([0.3 + 0.4j, -1.0 + 0.2j]))],
    "numpy.ndarray.conjugate": [C("lambda x: x.conjugate()", x3)],
    "numpy.ndarray.take": [C("lambda x: x.take([0, 2, 2])", x3),
                           C("lambda x: x.take([1], axis=1)", x23)],
    "numpy.ndarray.repeat": [C("lambda x: x.repeat(2)", x3),
                             C("lambda x: x.repeat(2, axis=0)", x23)],
    # -------------------------------------------------------------- methods of NumPy scalars (np.sum(x) is a np.float64)
    "numpy.generic.item": [C("lambda x: np.sum(x).item() * 2.0", x3)],
    "numpy.generic.tolist": [C("lambda x: np.sum(x).tolist() * 2.0", x3)],
    "numpy.generic.squeeze": [C("lambda x: np.sum(x).squeeze() * 2.0", x3)],
    "numpy.generic.reshape": [C("lambda x: np.sum(x).reshape(()) * 2.0", x3),
                              C("lambda x: np.sum(x).reshape(1, 1) * x", x3)],
    "numpy.generic.ravel": [C("lambda x: np.sum(x).ravel() * x", x3)],
    "numpy.generic.flatten": [C("lambda x: np.sum(x).flatten() * x", x3)],
    "numpy.generic.copy": [C("lambda x: np.sum(x).copy() * 2.0", x3)],
    "numpy.generic.astype": [C("lambda x: np.sum(x).astype(np.float32).astype(float) * 2.0", x3, rtol=1e-4, atol=1e-5)],
    "numpy.generic.transpose": [C("lambda x: np.sum(x).transpose() * 2.0", x3)],
    "numpy.generic.take": [C("lambda x: np.sum(x).take(0) * 2.0", x3)],
    "numpy.generic.repeat": [C("lambda x: np.sum(x).repeat(3) * x", x3)],
    "numpy.generic.sum": [C("lambda x: np.max(x).sum() * 2.0", x3)],
    "numpy.generic.mean": [C("lambda x: np.sum(x).mean() * 2.0", x3)],
    "numpy.generic.max": [C("lambda x: np.sum(x).max() * 2.0", x3)],
    "numpy.generic.min": [C("lambda x: np.sum(x).min() * 2.0", x3)],
    "numpy.generic.prod": [C("lambda x: np.sum(x).prod() * 2.0", x3)],
    "numpy.generic.var": [C("lambda x: np.sum(x).var() + np.sum(x)", x3)],
    "numpy.generic.std": [C("lambda x: np.sum(x).std() + np.sum(x)", x3)],
    "numpy.generic.cumsum": [C("lambda x: np.sum(x).cumsum() * x", x3)],
    "numpy.generic.cumprod": [C("lambda x: np.sum(x).cumprod() * x", x3)],
    "numpy.generic.clip": [C("lambda x: np.sum(x).clip(-5.0, 5.0) * 2.0", x3)],
    "numpy.generic.conj": [C("lambda x: np.sum(x).conj() * 2.0", x3)],
    "numpy.generic.conjugate": [C("lambda x: np.sum(x).conjugate() * 2.0", x3)],
}
from rule_cases_extra import EXTRA_CASES; CASES.update(EXTRA_CASES)  # noqa: E402,E702  (rules of numpy_extra.py)

if sp is not None:  # keyed by the function: the catalog names SciPy's ufuncs by their bare names
    _SCIPY_CASES = {
        sp.expit: [C("lambda x: sp.expit(x)", x23)],
        sp.logit: [C("lambda x: sp.logit(x)", np.array([0.2, 0.5, 0.7]))],
        sp.log_expit: [C("lambda x: sp.log_expit(x)", x3 * 3.0)],
        sp.softplus: [C("lambda x: sp.softplus(x)", x3 * 3.0)],
        sp.erf: [C("lambda x: sp.erf(x)", x3)],
        sp.erfc: [C("lambda x: sp.erfc(x)", x3)],
        sp.erfinv: [C("lambda x: sp.erfinv(x)", x3 * 0.9)],
        sp.erfcinv: [C("lambda x: sp.erfcinv(x)", np.array([0.3, 1.0, 1.6]))],
        sp.erfcx: [C("lambda x: sp.erfcx(x)", x3)],
        sp.ndtr: [C("lambda x: sp.ndtr(x)", x3)],
        sp.ndtri: [C("lambda x: sp.ndtri(x)", np.array([0.2, 0.5, 0.9]))],
        sp.log_ndtr: [C("lambda x: sp.log_ndtr(x)", np.array([-8.0, -0.3, 2.0]))],
        sp.gammaln: [C("lambda x: sp.gammaln(x)", np.array([0.3, 2.5, -1.5]))],
        sp.gamma: [C("lambda x: sp.gamma(x)", np.array([0.3, 2.5, -1.5]))],
        sp.digamma: [C("lambda x: sp.digamma(x)", p3)],
        sp.polygamma: [C("lambda x: sp.polygamma(1, x)", p3),
                      C("lambda x: sp.polygamma(0, x)", p3)],
        sp.entr: [C("lambda x: sp.entr(x)", p3)],
        sp.i0: [C("lambda x: sp.i0(x)", x3)],
        sp.i1: [C("lambda x: sp.i1(x)", np.array([0.0, 0.5, -1.2]))],
        sp.xlogy: [C("lambda a, b: sp.xlogy(a, b)", x23, p3),
                  C("lambda a, b: sp.xlogy(a, b)", np.array([0.0, 0.5]), np.array([0.3, 2.0]))],
        sp.xlog1py: [C("lambda a, b: sp.xlog1py(a, b)", x23, p3)],
        sp.betaln: [C("lambda a, b: sp.betaln(a, b)", p23, p3)],
        sp.beta: [C("lambda a, b: sp.beta(a, b)", p23, p3)],
        sp.logsumexp: [C("lambda x: sp.logsumexp(x)", x23),
                      C("lambda x: sp.logsumexp(x, axis=1)", x23),
                      C("lambda x: sp.logsumexp(x, axis=0, keepdims=True)", x23)],
        sp.softmax: [C("lambda x: sp.softmax(x)", x23),
                    C("lambda x: sp.softmax(x, axis=1)", x23)],
        sp.log_softmax: [C("lambda x: sp.log_softmax(x)", x3),
                        C("lambda x: sp.log_softmax(x, axis=0)", x23)],
    }
    _NAMES = {e.key: e.name for e in catalog()}
    CASES.update({_NAMES[fn]: cases for fn, cases in _SCIPY_CASES.items() if fn in _NAMES})
from rule_cases_sci import logsumexp_b_cases, python_lib_cases, sci_cases; CASES.update(sci_cases(catalog())); CASES.update(python_lib_cases(catalog())); CASES.get("scipy.special._logsumexp.logsumexp", []).extend(logsumexp_b_cases())  # noqa: E402,E702,E501  (issue 12)

# ---------------------------------------------------------------- zero-derivative callables
ZERO_CASES = {
    "_operator.floordiv": C("lambda a, b: a // b + a", 2.3, 0.7),
    "_operator.lt": C("lambda a, b: (a < b) + a", s1, s2),
    "_operator.le": C("lambda a, b: (a <= b) * a", s1, s2),
    "_operator.gt": C("lambda a, b: (a > b) * a", s1, s2),
    "_operator.ge": C("lambda a, b: (a >= b) * a", s1, s2),
    "_operator.eq": C("lambda a, b: (a == b) + a", s1, s2),
    "_operator.ne": C("lambda a, b: (a != b) * a", s1, s2),
    "_operator.not_": C("lambda a: (not a) + a", s1),
    "_operator.truth": C("lambda a: operator.truth(a) * a", s1),
    "_operator.is_": C("lambda a: (a is None) + a", s1),
    "_operator.is_not": C("lambda a: (a is not None) * a", s1),
    "_operator.contains": C("lambda a: (1.0 in [a]) + a", s1),
    "_operator.and_": C("lambda a: (3 & 1) * a", s1),
    "_operator.xor": C("lambda a: (3 ^ 1) * a", s1),
    "_operator.invert": C("lambda a: (~3) * a", s1),
    "_operator.lshift": C("lambda a: (1 << 2) * a", s1),
    "_operator.rshift": C("lambda a: (8 >> 2) * a", s1),
    "_operator.index": C("lambda a: operator.index(2) * a", s1),
    "_operator.countOf": C("lambda a: operator.countOf([a, 1.0], a) * a", s1),
    "_operator.indexOf": C("lambda a: operator.indexOf([1.0, a], a) * a", s1),
    "_operator.length_hint": C("lambda a: operator.length_hint([a, a]) * a", s1),
    "_operator.iand": C("lambda a: operator.iand(3, 1) * a", s1),
    "_operator.ixor": C("lambda a: operator.ixor(3, 1) * a", s1),
    "_operator.ilshift": C("lambda a: operator.ilshift(1, 2) * a", s1),
    "_operator.irshift": C("lambda a: operator.irshift(8, 2) * a", s1),
    "len": C("lambda xs: len(xs) * xs[0]", [s1, s2]),
    "range": C("lambda a: sum(range(3)) * a", s1),
    "isinstance": C("lambda a: isinstance(a, float) * a", s1),
    "issubclass": C("lambda a: issubclass(float, object) * a", s1),
    "int": C("lambda a: int(a) + a", 2.3),
    "bool": C("lambda a: bool(a) * a", s1),
    "str": C("lambda a: len(str(a)) * 0.0 + a", s1),
    "repr": C("lambda a: len(repr(a)) * 0.0 + a", s1),
    "type": C("lambda a: (type(a) is float) * a", s1),
    "id": C("lambda a: (id(a) > 0) * a", s1),
    "hash": C("lambda a: (hash(a) == hash(a)) * a", s1),
    "print": C('lambda a: (print(end="") is None) * a', s1),
    "callable": C("lambda a: callable(abs) * a", s1),
    "hasattr": C('lambda a: hasattr(a, "real") * a', s1),
    "all": C("lambda xs: all(xs) * xs[0]", [s1, s2]),
    "any": C("lambda xs: any(xs) * xs[0]", [s1, s2]),
    "format": C('lambda a: len(format(a, ".2f")) * a', s1),
    "ord": C('lambda a: ord("a") * a', s1),
    "chr": C("lambda a: len(chr(97)) * a", s1),
    "slice": C("lambda xs: xs[slice(1, None)]", x3),
    "bin": C("lambda a: len(bin(5)) * a", s1),
    "hex": C("lambda a: len(hex(5)) * a", s1),
    "oct": C("lambda a: len(oct(5)) * a", s1),
    "ascii": C('lambda a: len(ascii("x")) * a', s1),
    "dict.keys": C(dict_keys, s1),
    "dict.__len__": C('lambda a: {"a": a}.__len__() * a', s1),
    "dict.__contains__": C('lambda a: {"a": a}.__contains__("a") * a', s1),
    "list.index": C("lambda a: [1.0, a].index(a) * a", s1),
    "list.count": C("lambda a: [a, a].count(a) * a", s1),
    "list.__len__": C("lambda a: [a, a].__len__() * a", s1),
    "list.__contains__": C("lambda a: [a].__contains__(a) * a", s1),
    "str.format": C('lambda a: len("{}".format(a)) * a', s1),
    "str.join": C('lambda a: len(",".join(["x", "y"])) * a', s1),
    "str.split": C('lambda a: len("x y".split()) * a', s1),
    "str.strip": C('lambda a: len(" x ".strip()) * a', s1),
    "str.upper": C('lambda a: len("x".upper()) * a', s1),
    "str.lower": C('lambda a: len("X".lower()) * a', s1),
    "str.replace": C('lambda a: len("xy".replace("x", "")) * a', s1),
    "str.startswith": C('lambda a: "xy".startswith("x") * a', s1),
    "str.endswith": C('lambda a: "xy".endswith("y") * a', s1),
    "math.floor": C("lambda a: math.floor(a) + a", 2.3),
    "math.ceil": C("lambda a: math.ceil(a) + a", 2.3),
    "math.trunc": C("lambda a: math.trunc(a) + a", 2.3),
    "math.isfinite": C("lambda a: math.isfinite(a) * a", s1),
    "math.isinf": C("lambda a: math.isinf(a) + a", s1),
    "math.isnan": C("lambda a: math.isnan(a) + a", s1),
    "math.isclose": C("lambda a, b: math.isclose(a, b) + a", s1, s2),
    "math.factorial": C("lambda a: math.factorial(3) * a", s1),
    "math.comb": C("lambda a: math.comb(4, 2) * a", s1),
    "math.perm": C("lambda a: math.perm(4, 2) * a", s1),
    "math.gcd": C("lambda a: math.gcd(4, 6) * a", s1),
    "math.lcm": C("lambda a: math.lcm(4, 6) * a", s1),
    "math.isqrt": C("lambda a: math.isqrt(10) * a", s1),
    "math.ulp": C("lambda a: math.ulp(a) * 0.0 + a", s1),
    "numpy.zeros": C("lambda a: np.zeros(3) + a", s1),
    "numpy.ones": C("lambda a: np.ones(3) * a", s1),
    "numpy.empty": C("lambda a: np.empty(3).shape[0] * a", s1),
    "numpy.zeros_like": C("lambda a: np.zeros_like(a) + a", x3),
    "numpy.ones_like": C("lambda a: np.ones_like(a) * a", x3),
    "numpy.empty_like": C("lambda a: np.empty_like(a).shape[0] * a", x3),
    "numpy.eye": C("lambda a: np.eye(2) * a", s1),
    "numpy.identity": C("lambda a: np.identity(2) * a", s1),
    "numpy.tri": C("lambda a: np.tri(2) * a", s1),
    "numpy.indices": C("lambda a: np.indices((2,))[0] * a", s1),
    "numpy.diag_indices": C("lambda a: a[np.diag_indices(2)]", U(2, 2)),
    "numpy.tril_indices": C("lambda a: a[np.tril_indices(2)]", U(2, 2)),
    "numpy.triu_indices": C("lambda a: a[np.triu_indices(2)]", U(2, 2)),
    "numpy.shape": C("lambda a: np.shape(a)[0] * a", x3),
    "numpy.ndim": C("lambda a: np.ndim(a) * a", x3),
    "numpy.size": C("lambda a: np.size(a) * a", x3),
    "numpy.argmax": C("lambda a: a[np.argmax(a)]", x3),
    "numpy.argmin": C("lambda a: a[np.argmin(a)]", x3),
    "numpy.argsort": C("lambda a: a[np.argsort(a)]", x3),
    "numpy.argwhere": C("lambda a: np.argwhere(a > 0).shape[0] * a", x3),
    "numpy.flatnonzero": C("lambda a: a[np.flatnonzero(a > 0)]", x3),
    "numpy.nonzero": C("lambda a: a[np.nonzero(a > 0)]", x3),
    "numpy.count_nonzero": C("lambda a: np.count_nonzero(a > 0) * a", x3),
    "numpy.searchsorted": C("lambda a: np.searchsorted(np.sort(a), 0.0) * a", x3),
    "numpy.digitize": C("lambda a: np.digitize(a, [0.0]) * a", x3),
    "numpy.isin": C("lambda a: np.isin(a, [0.0]) * a", x3),
    "numpy.signbit": C("lambda a: np.signbit(a) * a", x3),
    "numpy.heaviside": C("lambda a: np.heaviside(a, 0.5) * a", x3),
    "numpy.floor": C("lambda a: np.floor(a * 3.0) + a", x3),
    "numpy.ceil": C("lambda a: np.ceil(a * 3.0) + a", x3),
    "numpy.round": C("lambda a: np.round(a * 3.0) + a", x3),
    "numpy.rint": C("lambda a: np.rint(a * 3.0) + a", x3),
    "numpy.trunc": C("lambda a: np.trunc(a * 3.0) + a", x3),
    "numpy.fix": C("lambda a: np.fix(a * 3.0) + a", x3),
    "numpy.floor_divide": C("lambda a: np.floor_divide(mod_a, 0.7) * a", x3),
    "numpy.isnan": C("lambda a: np.isnan(a) + a", x3),
    "numpy.isinf": C("lambda a: np.isinf(a) + a", x3),
    "numpy.isfinite": C("lambda a: np.isfinite(a) * a", x3),
    "numpy.isreal": C("lambda a: np.isreal(a) * a", x3),
    "numpy.iscomplex": C("lambda a: np.iscomplex(a) + a", x3),
    "numpy.greater": C("lambda a, b: np.greater(a, b) * a", x3, y3),
    "numpy.less": C("lambda a, b: np.less(a, b) * a", x3, y3),
    "numpy.equal": C("lambda a, b: np.equal(a, b) + a", x3, y3),
    "numpy.not_equal": C("lambda a, b: np.not_equal(a, b) * a", x3, y3),
    "numpy.greater_equal": C("lambda a, b: np.greater_equal(a, b) * a", x3, y3),
    "numpy.less_equal": C("lambda a, b: np.less_equal(a, b) * a", x3, y3),
    "numpy.logical_and": C("lambda a: np.logical_and(a > 0, a < 0.5) * a", x3),
    "numpy.logical_or": C("lambda a: np.logical_or(a > 0, a < -0.5) * a", x3),
    "numpy.logical_not": C("lambda a: np.logical_not(a > 0) * a", x3),
    "numpy.all": C("lambda a: np.all(a > -1.0) * a", x3),
    "numpy.any": C("lambda a: np.any(a > 0.0) * a", x3),
    "numpy.allclose": C("lambda a, b: np.allclose(a, b) + a", x3, y3),
    "numpy.isclose": C("lambda a, b: np.isclose(a, b) + a", x3, y3),
    "numpy.array_equal": C("lambda a, b: np.array_equal(a, b) + a", x3, y3),
    "numpy.ndarray.argmax": C("lambda a: a[a.argmax()]", x3),
    "numpy.ndarray.argmin": C("lambda a: a[a.argmin()]", x3),
    "numpy.ndarray.argsort": C("lambda a: a[a.argsort()]", x3),
    "numpy.ndarray.nonzero": C("lambda a: a[(a > 0).nonzero()]", x3),
    "numpy.ndarray.all": C("lambda a: (a > -1.0).all() * a", x3),
    "numpy.ndarray.any": C("lambda a: (a > 0.0).any() * a", x3),
    "numpy.ndarray.__len__": C("lambda a: a.__len__() * a", x3),
    "numpy.ndarray.round": C("lambda a: (a * 3.0).round() + a", x3),
    "numpy.generic.argmax": C("lambda a: np.sum(a).argmax() * a", x3),
    "numpy.generic.argmin": C("lambda a: np.sum(a).argmin() * a", x3),
    "numpy.generic.argsort": C("lambda a: np.sum(a).argsort() * a", x3),
    "numpy.generic.all": C("lambda a: np.sum(a).all() * a", x3),
    "numpy.generic.any": C("lambda a: np.sum(a).any() * a", x3),
    "numpy.generic.round": C("lambda a: np.sum(a).round() + a", x3),
}
from rule_cases_api import API_CASES, API_ZERO_CASES; CASES.update(API_CASES); ZERO_CASES.update(API_ZERO_CASES)  # noqa: E402,E702,E501  (issue 10)
from rule_cases_more import MORE_CASES, MORE_ZERO_CASES; CASES.update(MORE_CASES); ZERO_CASES.update(MORE_ZERO_CASES)  # noqa: E402,E702,E501  (numpy_fft.py, numpy_more*.py)
from rule_cases_python_more import MORE_PY_CASES, MORE_PY_ZERO_CASES; CASES.update(MORE_PY_CASES); ZERO_CASES.update(MORE_PY_ZERO_CASES)  # noqa: E402,E702,E501  (numpy_writes.py, python_copy.py, python_callables.py)
from rule_cases_issue12 import ISSUE12_CASES, ISSUE12_ZERO_CASES; [CASES.setdefault(_k, []).extend(_v) for _k, _v in ISSUE12_CASES.items()]; ZERO_CASES.update(ISSUE12_ZERO_CASES)  # noqa: E402,E702,E501  (rules/issue12_rules.py)
from rule_cases_nested import NESTED_CASES, NESTED_ZERO_CASES; [CASES.setdefault(k, []).extend(v) for k, v in NESTED_CASES.items()]; ZERO_CASES.update(NESTED_ZERO_CASES)  # noqa: E402,E702,E501  (nested_helpers.py, nested_plans.py)
from rule_cases_language import LANGUAGE_CASES, LANGUAGE_ZERO_CASES; CASES.update(LANGUAGE_CASES); ZERO_CASES.update(LANGUAGE_ZERO_CASES)  # noqa: E402,E702,E501  (frontend/try_ops.py, frontend/generator_ops.py)
from rule_cases_realistic import REAL_CASES, REAL_ZERO_CASES, scipy_real_cases; [CASES.setdefault(_k, []).extend(_v) for _k, _v in {**REAL_CASES, **scipy_real_cases(catalog())}.items()]; ZERO_CASES.update(REAL_ZERO_CASES)  # noqa: E402,E702,E501  (rules added for scripts/realistic_audit.py)
from rule_cases_engine12 import ENGINE12_CASES, ENGINE12_ZERO_CASES, engine12_scipy_cases; [CASES.setdefault(_k, []).extend(_v) for _k, _v in {**ENGINE12_CASES, **engine12_scipy_cases(catalog())}.items()]; ZERO_CASES.update(ENGINE12_ZERO_CASES)  # noqa: E402,E702,E501  (rules added by the issue-12 SciPy tracing: rule_cases_engine12.py)
from rule_cases_strong_zeros import STRONG_CASES; CASES.update(STRONG_CASES)  # noqa: E402,E702  (rules/strong_zeros.py)
from rule_cases_iteration import ITERATION_CASES, ITERATION_ZERO_CASES; [CASES.setdefault(_k, []).extend(_v) for _k, _v in ITERATION_CASES.items()]; ZERO_CASES.update(ITERATION_ZERO_CASES)  # noqa: E402,E702,E501  (lazy_iteration.py)
from rule_cases_lang12 import LANG12_ZERO_CASES; ZERO_CASES.update(LANG12_ZERO_CASES)  # noqa: E402,E702  (zero rules: rule_cases_lang12.py)
from rule_cases_lang12 import LANG12_CASES, lang12_scipy_cases; [CASES.setdefault(_k, []).extend(_v) for _k, _v in {**LANG12_CASES, **lang12_scipy_cases(catalog())}.items()]  # noqa: E402,E702,E501  (scipy.stats by NumPy models: rule_cases_lang12.py)
from rule_cases_lang13 import lang13_cases, lang13_zero_cases; [CASES.setdefault(_k, []).extend(_v) for _k, _v in lang13_cases(catalog()).items()]; ZERO_CASES.update(lang13_zero_cases(catalog()))  # noqa: E402,E702,E501  (issue 12, second pass: rule_cases_lang13.py)
from rule_cases_lang14 import lang14_cases; [CASES.setdefault(_k, []).extend(_v) for _k, _v in lang14_cases(catalog()).items()]  # noqa: E402,E702,E501  (issue 12, third pass: rule_cases_lang14.py)
from rule_cases_lead import LEAD_CASES; [CASES.setdefault(_k, []).extend(_v) for _k, _v in LEAD_CASES.items()]  # noqa: E402,E702,E501  (rules the lead added: rule_cases_lead.py)
from rule_cases_lang15 import LANG15_ZERO_CASES, lang15_cases; [CASES.setdefault(_k, []).extend(_v) for _k, _v in lang15_cases(catalog()).items()]; ZERO_CASES.update(LANG15_ZERO_CASES)  # noqa: E402,E702,E501  (issue 12, fourth pass: rule_cases_lang15.py)
from rule_cases_lang16 import lang16_cases; [CASES.setdefault(_k, []).extend(_v) for _k, _v in lang16_cases(catalog()).items()]  # noqa: E402,E702,E501  (issue 12, fifth pass: rule_cases_lang16.py)
from rule_cases_lang17 import lang17_cases, lang17_zero_cases; [CASES.setdefault(_k, []).extend(_v) for _k, _v in lang17_cases(catalog()).items()]; ZERO_CASES.update(lang17_zero_cases(catalog()))  # noqa: E402,E702,E501  (issue 12, sixth pass: rule_cases_lang17.py)
from rule_cases_objarr8 import OBJARR8_CASES; [CASES.setdefault(_k, []).extend(_v) for _k, _v in OBJARR8_CASES.items()]  # noqa: E402,E702,E501  (helper objarr8: rule_cases_objarr8.py)
from rule_cases_refuse8 import refuse8_cases, refuse8_zero_cases; [CASES.setdefault(_k, []).extend(_v) for _k, _v in refuse8_cases(catalog()).items()]; ZERO_CASES.update(refuse8_zero_cases(catalog()))  # noqa: E402,E702,E501  (second orders of everyday code: rule_cases_refuse8.py)
from rule_cases_breadth10 import breadth10_cases, breadth10_zero_cases; [CASES.setdefault(_k, []).extend(_v) for _k, _v in breadth10_cases(catalog()).items()]; ZERO_CASES.update(breadth10_zero_cases(catalog()))  # noqa: E402,E702,E501  (helper breadth10: rule_cases_breadth10.py)
from rule_cases_breadth11 import breadth11_cases, breadth11_zero_cases; [CASES.setdefault(_k, []).extend(_v) for _k, _v in breadth11_cases(catalog()).items()]; ZERO_CASES.update(breadth11_zero_cases(catalog()))  # noqa: E402,E702,E501  (helper breadth11: rule_cases_breadth11.py)
from rule_cases_order12 import ORDER12_CASES; [CASES.setdefault(_k, []).extend(_v) for _k, _v in ORDER12_CASES.items()]  # noqa: E402,E702,E501  (helper order12: rule_cases_order12.py)
from rule_cases_breadth14 import breadth14_cases, breadth14_zero_cases; [CASES.setdefault(_k, []).extend(_v) for _k, _v in breadth14_cases(catalog()).items()]; ZERO_CASES.update(breadth14_zero_cases(catalog()))  # noqa: E402,E702,E501  (helper breadth14: rule_cases_breadth14.py)
# Syntax helpers the frontend emits for f-strings, assert, for-range loops, imports and nested defs:
# every test using that syntax runs them; they take no differentiable operands of their own.
ZERO_EXEMPT = {
    "mooncake_ast.ops.not_contains", "mooncake_ast.ops.format_value", "mooncake_ast.ops.join_str",
    "mooncake_ast.ops.assert_failed", "mooncake_ast.ops.import_module",
    "mooncake_ast.ops.nested_code",
    # `with`, `global` and `raise ... from` helpers: run by tests/test_language_match_with.py
    *(f"mooncake_ast.frontend.stmt_ops.{n}" for n in ("enter_method", "exit_method", "opaque_enter", "opaque_exit",
                                                       "exit_raising", "raise_from", "store_global")),
    # `del name` helpers: run by tests/test_del_locals.py
    *(f"mooncake_ast.frontend.stmt_ops.{n}" for n in ("check_bound", "check_cell", "delete_cell", "delete_global")),
    "mooncake_ast.frontend.stmt_ops.zip_strict",  # (`for ... in zip(..., strict=True)`: tests/test_issue12_more.py)
}

# A few primitives called through a function value, so their templates run eagerly (run-time dispatch).
EAGER_CASES = [
    ("numpy.sin", np.sin, (x3,)),
    ("numpy.clip", np.clip, (near, -0.4, 0.4)),
    ("numpy.linalg.solve", np.linalg.solve, (A3, B3)),
    ("numpy.einsum", np.einsum, ("ij,jk->ik", x23, x34)),
    ("numpy.diff", np.diff, (x4,)),
    ("numpy.linalg.qr", np.linalg.qr, (U(4, 3),)),
    ("numpy.linalg.eigh", np.linalg.eigh, (S3,)),
    ("numpy.where", np.where, (x3 > 0, x3, y3)),
    ("numpy.linspace", np.linspace, (s1, 1.5, 4)),
    ("numpy.full", np.full, ((2,), s1)),
    ("numpy.take", np.take, (x23, [2, 0])),
    ("math.log", math.log, (1.7, 3.0)),
    ("math.prod", math.prod, ([s1, s2],)),
    ("divmod", divmod, (7.3, 2.1)),
    ("complex", complex, (s1, s2)),
    ("math.frexp", math.frexp, (3.3,)),
    ("numpy.linalg.svd", np.linalg.svd, (A3,)),
    ("numpy.tensordot", np.tensordot, (x23, x34, 1)),
]

# ---------------------------------------------------------------- the tests
ENTRIES = catalog()
MODES: dict = {}
for _e in ENTRIES:
    MODES.setdefault(_e.name, set()).update(_e.modes)
DIFFERENTIABLE = sorted(n for n, m in MODES.items() if m & {"forward", "reverse"})
ZERO = sorted(n for n, m in MODES.items() if m == {"zero"})


def _rule_cases():
    params = []
    for name in DIFFERENTIABLE:
        cases = CASES.get(name)
        if not cases:
            params.append(pytest.param(name, None, id=f"{name}[missing]"))
            continue
        for i, case in enumerate(cases):
            marks = [pytest.mark.xfail(strict=True, reason=case.xfail)] if case.xfail else []
            params.append(pytest.param(name, case, id=f"{name}[{i}]", marks=marks))
    return params


def _modes(name, case):
    if case.modes is not None:
        return case.modes
    if name in REVERSE_BY_TRANSFORM:
        return BOTH  # a forward template here, the reverse done by the reverse transform
    return tuple(m for m in BOTH if m in MODES[name])


@pytest.mark.parametrize("name, case", _rule_cases())
def test_rule(name, case):
    assert case is not None, f"{name} has a rule but no test inputs: add them to CASES in tests/test_rules.py"
    modes = _modes(name, case)
    if "reverse" in modes and any(_is_complex(a) for a in case.args):
        # Complex values in reverse mode: right (rules marked by registry.defcomplex), or refused by name.
        try:
            check_derivatives(case.fn, *copy.deepcopy(case.args), modes=("reverse",), **case.check)
        except DerivativeCheckError:
            raise
        except mc.MooncakeError as e:
            assert "complex" in str(e), e
        modes = tuple(m for m in modes if m != "reverse")
    if modes:
        check_derivatives(case.fn, *copy.deepcopy(case.args), modes=modes, **case.check)


def _is_complex(a):
    return isinstance(a, complex) or (isinstance(a, np.ndarray) and a.dtype.kind == "c")


def test_every_rule_has_test_inputs():
    missing = [n for n in DIFFERENTIABLE if not CASES.get(n)]
    assert not missing, f"rules without test inputs: {missing}"
    unknown = sorted(set(CASES) - set(DIFFERENTIABLE))
    assert not unknown, f"CASES entries that name no rule: {unknown}"


def test_every_mode_of_a_rule_is_exercised():
    """A rule's forward and reverse templates both run in some case (not only through other rules)."""
    gaps = []
    for name in DIFFERENTIABLE:
        tested = set().union(*[set(_modes(name, c)) for c in CASES.get(name, []) if not c.xfail])
        for mode in ("forward", "reverse"):
            if mode in MODES[name] and mode not in tested and (name, mode) not in REFUSED_MODES:
                gaps.append(f"{name} ({mode})")
    assert not gaps, f"modes never tested: {gaps}"


# Rules whose template refuses a mode by name (tested here, that they refuse and do not crash or answer wrongly).
REFUSED_MODES = {("mooncake_ast.api.vjp", "reverse"), ("itertools.count", "reverse"),
                 *(("mooncake_ast.rules.python_local_classes.share_tangent_cells", m) for m in ("forward", "reverse"))}


def test_reverse_over_vjp_is_refused():
    from rule_cases_api import vjp_inside

    with pytest.raises(mc.MooncakeError, match="mc.vjp"):
        mc.grad(vjp_inside)(x3)


@pytest.mark.parametrize("name", [pytest.param(n, marks=[pytest.mark.xfail(strict=True, reason=ZERO_CASES[n].xfail)])
                                  if n in ZERO_CASES and ZERO_CASES[n].xfail else n for n in ZERO])
def test_zero_derivative(name):
    if name in ZERO_EXEMPT:
        return
    case = ZERO_CASES.get(name)
    assert case is not None, f"{name} is declared zero-derivative but has no sample: add it to ZERO_CASES"
    check_derivatives(case.fn, *copy.deepcopy(case.args), modes=BOTH, **case.check)


def test_zero_cases_name_zero_rules():
    unknown = sorted(set(ZERO_CASES) - set(ZERO))
    assert not unknown, f"ZERO_CASES entries that are not zero-derivative rules: {unknown}"


@pytest.mark.parametrize("name, fn, args", EAGER_CASES, ids=[c[0] for c in EAGER_CASES])
def test_rule_dispatched_at_run_time(name, fn, args):
    assert name in MODES
    call = {1: dyn, 2: dyn2, 3: dyn3}[len(args)]
    check_derivatives(call, fn, *copy.deepcopy(args), modes=tuple(m for m in BOTH if m in MODES[name]))


def test_varargs_forwarding_in_reverse_mode():
    check_derivatives(dyn_varargs, np.sin, x3, modes=REV)


def test_fmax_fmin_skip_nans():
    a, b = np.array([0.5, np.nan, 0.1]), np.array([np.nan, 0.2, 0.3])
    da, db = np.array([1.0, 2.0, 3.0]), np.array([10.0, 20.0, 30.0])
    assert mc.jvp(F("lambda a, b: np.fmax(a, b)"), (a, b), (da, db))[1].tolist() == [1.0, 20.0, 30.0]
    assert mc.jvp(F("lambda a, b: np.fmin(a, b)"), (a, b), (da, db))[1].tolist() == [1.0, 20.0, 3.0]
    ga, gb = mc.vjp(F("lambda a, b: np.fmax(a, b)"), a, b)[1](np.ones(3))
    assert ga.tolist() == [1.0, 0.0, 0.0] and gb.tolist() == [0.0, 1.0, 1.0]


# ---------------------------------------------------------------- conventions at non-differentiable points
def test_documented_values_at_kinks():
    assert mc.jvp(F("lambda x: abs(x)"), (0.0,), (1.0,))[1] == 0.0
    assert mc.grad(F("lambda x: abs(x)"))(0.0) == 0.0
    assert np.all(mc.jvp(F("lambda x: np.abs(x)"), (np.zeros(2),), (np.ones(2),))[1] == 0.0)
    assert mc.jvp(F("lambda a, b: max(a, b)"), (1.0, 1.0), (2.0, 3.0))[1] == 2.0  # ties: the first argument
    assert mc.grad(F("lambda a, b: max(a, b)"), argnums=(0, 1))(1.0, 1.0) == (1.0, 0.0)
    assert mc.jvp(F("lambda a, b: np.maximum(a, b)"), (1.0, 1.0), (2.0, 3.0))[1] == 2.0
    ga = mc.grad(F("lambda x: np.max(x)"))(np.array([1.0, 3.0, 3.0]))
    assert ga.tolist() == [0.0, 1.0, 0.0]  # the first position attaining the max
    gs = mc.grad(F("lambda x: np.sort(x)[0]"))(np.array([2.0, 1.0, 1.0]))
    assert gs.tolist() == [0.0, 1.0, 0.0]  # ties keep their order
    assert mc.jvp(F("lambda x: np.clip(x, 0.0, 1.0)"), (0.0,), (1.0,))[1] == 1.0  # at a bound: inside
    with np.errstate(divide="ignore"):
        assert mc.jvp(F("lambda x: np.sqrt(x)"), (0.0,), (1.0,))[1] == np.inf


def test_dict_with_keyword_values_in_reverse_mode():
    assert mc.grad(F("lambda x, y: dict(a=x)['a'] * y"), argnums=(0, 1))(s1, s2) == (s2, s1)


def test_refused_instead_of_wrong():
    """Where a derivative is not defined or not supported, the rules raise rather than guess."""
    with pytest.raises(NotImplementedError):
        mc.jvp(F("lambda a: np.linalg.svd(a)[0]"), (U(3, 2),), (U(3, 2),))  # full_matrices=True, not square
    with pytest.raises(NotImplementedError):
        mc.jvp(F("lambda a: np.linalg.qr(a)[0]"), (U(2, 3),), (U(2, 3),))  # wide
    with pytest.raises(NotImplementedError):
        mc.jvp(F("lambda a: np.pad(a, 1, mode='empty')"), (x3,), (x3,))  # (mode='mean' has a rule: numpy_pad_modes.py)
    with pytest.raises(NotImplementedError):
        mc.grad(F("lambda x, c: np.sum(np.pad(x, 1, constant_values=c))"), argnums=(0, 1))(x3, 0.5)
    with pytest.raises(NotImplementedError):
        mc.jvp(F("lambda a: np.linalg.lstsq(a, np.ones(3))[0]"), (np.ones((3, 2)),), (U(3, 2),))  # rank 1


# ---------------------------------------------------------------- SciPy (optional) and the docs page
def test_scipy_rules_match_their_list():
    if sp is None:
        assert scipy_rules.REGISTERED == {}
        pytest.skip("SciPy is not installed: its rules are not registered")
    assert set(scipy_rules.REGISTERED.values()) <= set(scipy_rules.FUNCTIONS)
    for fn, name in scipy_rules.REGISTERED.items():
        assert fn is getattr(sp, name)
        assert {"forward", "reverse"} <= MODES[_catalog_name(fn)]


def _catalog_name(fn):
    return next(e.name for e in ENTRIES if e.key is fn)


def test_rule_counts():
    both = [n for n, m in MODES.items() if {"forward", "reverse"} <= m]
    assert len(both) >= 150


def test_docs_page_is_up_to_date():
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(root, "docs", "rules.md"), encoding="utf-8") as f:
        committed = f.read()
    # (rendered by a fresh process: this one's registry holds the rules other tests registered)
    fresh = subprocess.run([sys.executable, "-c", "import sys; from mooncake_ast.rules import docs; "
                            "sys.stdout.write(docs.render())"], capture_output=True, text=True, timeout=120,
                           env=dict(os.environ, PYTHONPATH=root), encoding="utf-8")
    assert fresh.returncode == 0, fresh.stderr
    assert committed == fresh.stdout, "docs/rules.md is stale: run python -m mooncake_ast.rules.docs"
