"""Issue 12: the NumPy writes (np.put, np.copyto, np.fill_diagonal; rules/numpy_writes.py) and the copies
(copy.copy, copy.deepcopy, list.copy / dict.copy unbound; rules/python_copy.py) in both modes.

check_derivatives compares forward mode with finite differences and reverse with forward, for the
result and for every argument the function writes (the destination's tangent / adjoint after the
call), so each case checks the written array too.  Families: shapes, index forms and modes, keyword
forms, masks, aliasing (a view of the destination written, the source read afterwards)."""
import copy

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives

RNG = np.random.default_rng(1212)


def R(*shape):
    return RNG.normal(size=shape)


# ---------------------------------------------------------------- np.put
@pytest.mark.parametrize("shape", [(6,), (3, 4), (2, 3, 2)])
@pytest.mark.parametrize("ind, mode", [([0, 2, 2, -1], "raise"), ([1, 7, 30], "wrap"), ([-5, 3, 99], "clip"),
                                       (np.array([[0, 1], [4, 1]]), "raise")])
@pytest.mark.parametrize("nv", [1, 2, 4])
def test_put_into_a_parameter(shape, ind, mode, nv):
    def f(a, v):
        np.put(a, ind, v * v, mode=mode)  # v shorter than ind repeats; repeated indices: the last write wins
        return a * 2.0

    check_derivatives(f, R(*shape), R(nv))


@pytest.mark.parametrize("form", ["positional", "keywords", "scalar value", "list value"])
def test_put_call_forms(form):
    def f(a, v):
        b = a * 1.0
        if form == "positional":
            np.put(b, [3, 0], v)
        elif form == "keywords":
            np.put(b, ind=[3, 0], v=v, mode="raise")
        elif form == "scalar value":
            np.put(b, [1, 2], v[0] * 3.0)
        else:
            np.put(b, [1, 2, 5], [v[1], 2.0, v[0]])
        return np.sin(b) * a

    check_derivatives(f, R(2, 3), R(2))


# ---------------------------------------------------------------- np.fill_diagonal
@pytest.mark.parametrize("shape, wrap", [((4, 4), False), ((3, 5), False), ((7, 3), False), ((7, 3), True), ((3, 3, 3), False)])
@pytest.mark.parametrize("val", ["scalar", "array", "short array"])
def test_fill_diagonal(shape, wrap, val):
    def f(a, v):
        s = v[0] if val == "scalar" else (v if val == "array" else v[:2])
        np.fill_diagonal(a, s * 1.5, wrap=wrap)
        return np.cos(a)

    check_derivatives(f, R(*shape), R(7))


def test_fill_diagonal_keywords_and_a_constant_value():
    def f(a, v):
        b = a * v[0]
        np.fill_diagonal(a=b, val=0.0)
        np.fill_diagonal(a, val=v)
        return b * a

    check_derivatives(f, R(3, 3), R(3))


# ---------------------------------------------------------------- np.copyto
@pytest.mark.parametrize("src_shape", [(3, 4), (4,), (3, 1), ()])
@pytest.mark.parametrize("where", ["all", "mask", "row mask"])
def test_copyto_broadcast_and_where(src_shape, where):
    def f(a, s):
        if where == "all":
            np.copyto(a, s * 2.0)
        elif where == "mask":
            np.copyto(a, s * 2.0, where=a > 0)
        else:
            np.copyto(dst=a, src=s * 2.0, where=np.array([True, False, True, True]))
        return a * a

    s = R(*src_shape) if src_shape else 0.3
    check_derivatives(f, R(3, 4), s)


def test_copyto_aliasing_the_source_is_read_afterwards():
    def f(x, v):
        a = x * 2.0
        b = v * 3.0
        np.copyto(a[1:3], b)  # a view of a is written; b stays b
        b[0] = b[0] * a[0, 0]
        return np.sum(a * a) + np.sum(b * v)

    check_derivatives(f, R(4, 3), R(3))


def test_copyto_from_a_view_of_the_destination():
    def f(x):
        a = x * 1.0
        np.copyto(a, a[::-1] * 2.0)
        np.copyto(a[:2], a[2:])
        return np.sin(a)

    check_derivatives(f, R(4))


def test_copyto_integer_destination_carries_no_derivative():
    def f(x):
        k = np.zeros(3, dtype=int)
        np.copyto(k, x, casting="unsafe")
        return x * k

    check_derivatives(f, np.array([1.3, 2.7, -0.4]))


def test_writes_refuse_complex_in_reverse_mode():
    def f(x):
        a = np.zeros(2, dtype=complex)
        np.put(a, [0], x * 1j)
        return np.real(a * np.conj(a))

    with pytest.raises(mc.MooncakeError, match="complex"):
        mc.grad(lambda x: np.sum(f(x)))(np.array([0.5]))


# ---------------------------------------------------------------- copies
def _copier(how):
    return {"copy.copy": copy.copy, "copy.deepcopy": copy.deepcopy, "method": lambda v: v.copy()}[how]


@pytest.mark.parametrize("how", ["copy.copy", "copy.deepcopy", "method"])
@pytest.mark.parametrize("kind", ["list", "dict"])
def test_copies_of_containers_then_writes(kind, how):
    cp = _copier(how)
    key, other = (0, 1) if kind == "list" else ("w", "s")

    def f(x):
        orig = [x * 1.0, x[0] * 2.0] if kind == "list" else {"w": x * 1.0, "s": x[0] * 2.0}
        c = cp(orig)
        c[key][0] = x[2] * 5.0  # shared with orig for a shallow copy, not for a deep one
        c[other] = c[other] * x[1]
        return np.sum(c[key] * orig[key]) + c[other] * orig[other]

    check_derivatives(f, R(3))


@pytest.mark.parametrize("how", ["copy.copy", "copy.deepcopy", "method"])
def test_copies_of_arrays_then_writes(how):
    cp = _copier(how)

    def f(x):
        orig = x * 1.0
        c = cp(orig)
        c[0] = x[2] * 5.0
        return np.sum(c * orig)

    check_derivatives(f, R(3))


@pytest.mark.parametrize("fn", [copy.copy, copy.deepcopy])
def test_copies_of_immutables(fn):
    def f(x):
        t = fn((x * 1.0, x[0] * 2.0))
        s = fn(x[1] * 3.0)
        return np.sum(t[0] * x) * t[1] * s

    check_derivatives(f, R(3))


def test_deepcopy_keeps_shared_items_shared():
    def f(x):
        a = x * 1.0
        orig = [a, a, (a, x[0])]
        c = copy.deepcopy(orig)
        c[0][1] = 7.0  # c[1] and c[2][0] are the same new array
        return np.sum(c[1] * x) + c[2][1] * np.sum(c[2][0]) + np.sum(a)

    check_derivatives(f, R(3))


def test_unbound_container_copies():
    def f(x):
        l2 = list.copy([x, x * 2.0, x[1]])
        d2 = dict.copy({"a": x * 1.0})
        d2["a"][0] = 2.0
        return np.sum(l2[0] * l2[1]) * l2[2] + np.sum(d2["a"] * x)

    check_derivatives(f, R(3))


class Box:
    def __init__(self, w):
        self.w = w


@pytest.mark.parametrize("fn", [copy.copy, copy.deepcopy])
def test_copies_of_plain_objects(fn):
    """Copies of the user's plain objects are followed field by field (they were refused; classes with copy hooks
    still are: tests/test_regress_object_copies.py)."""
    def f(x):
        return fn([Box(x)])[0].w * 2.0 if fn is copy.deepcopy else fn(Box(x)).w * 2.0

    check_derivatives(f, 0.5)


# ---------------------------------------------------------------- functools.partial, operator getters and methodcaller
def _user(a, b, c=1.0):
    return a * np.sin(b) + c * b


class Holder:
    def __init__(self, w, s):
        self.w = w
        self.inner = Holder(s, None) if s is not None else None


@pytest.mark.parametrize("form", ["operator", "user positional", "user keyword", "nested", "call keyword", "ufunc", "map"])
def test_partial_bound_arguments_get_their_adjoints(form):
    import functools
    import operator

    def f(x):
        if form == "operator":
            return functools.partial(operator.mul, x[0] * 3.0)(x)
        if form == "user positional":
            return functools.partial(_user, x * 2.0)(x[1])
        if form == "user keyword":
            return functools.partial(_user, c=x[0])(x, x[2])
        if form == "nested":
            q = functools.partial(functools.partial(_user, x[2]), c=x[0])
            return q(x) * q(b=x[1])
        if form == "call keyword":
            return functools.partial(_user, x[1], c=2.0)(b=x, c=x[0])
        if form == "ufunc":
            return functools.partial(np.hypot, x)(2.5)
        return np.array(list(map(functools.partial(_user, c=x[0]), x, x * x)))

    check_derivatives(f, np.array([0.4, -1.1, 0.75]) + RNG.normal(size=3) * 0.1)


def test_partial_made_outside_and_passed_in():
    import functools

    def f(q, x):
        return q(x) * x

    q = functools.partial(_user, 0.7, c=1.3)
    check_derivatives(lambda x: f(q, x), R(3))


@pytest.mark.parametrize("keys", [(0,), (1, 0), (slice(0, 2),)])
def test_itemgetter(keys):
    import operator

    def f(x):
        xs = [x * 2.0, x[0] * x[1], 5.0]
        got = operator.itemgetter(*keys)(xs)
        return np.sum(got[0]) * np.sum(got[-1]) if len(keys) > 1 else np.sum(np.asarray(got[0] if keys[0] != 0 else got))

    check_derivatives(f, R(3))


def test_itemgetter_of_an_array_and_a_dict():
    import operator

    def f(x):
        d = {"a": x * 3.0, "b": x[1]}
        first, b = operator.itemgetter("a", "b")(d)
        return operator.itemgetter(1)(x) * first * b + operator.itemgetter(2)(x)

    check_derivatives(f, R(3))


def test_attrgetter_dotted_and_several():
    import operator

    def f(x):
        o = Holder(x * 2.0, x[1])
        w, s = operator.attrgetter("w", "inner.w")(o)
        return w * s * operator.attrgetter("inner.w")(o)

    check_derivatives(f, R(3))


@pytest.mark.parametrize("form", ["no args", "bound array", "keyword", "user method"])
def test_methodcaller(form):
    import operator

    def f(x):
        if form == "no args":
            return operator.methodcaller("sum")(x * x)
        if form == "bound array":
            return operator.methodcaller("dot", x * 2.0)(x)
        if form == "keyword":
            return operator.methodcaller("sum", axis=0)(np.outer(x, x))
        return operator.methodcaller("scaled", x[0])(Scaler(x))

    check_derivatives(f, R(3))


class Scaler:
    def __init__(self, w):
        self.w = w

    def scaled(self, k):
        return self.w * k


# ---------------------------------------------------------------- collections.defaultdict, namedtuple classes
@pytest.mark.parametrize("form", ["float +=", "list append", "mapping and keywords", "pairs, last wins", "array factory", "loop"])
def test_defaultdict(form):
    import collections

    def f(x):
        if form == "float +=":
            d = collections.defaultdict(float)
            d["a"] += x[0]
            d["a"] *= x[1]
            return d["a"] * 2.0 + d["b"]
        if form == "list append":
            d = collections.defaultdict(list)
            d["a"].append(x)
            d["b"].append(x * x)
            return d["a"][0] * d["b"][0]
        if form == "mapping and keywords":
            d = collections.defaultdict(float, {"a": x, "b": x[0]}, b=2.0 * x[1])
            d["c"] += x[2]
            return d["a"] * d["b"] + d["c"]
        if form == "pairs, last wins":
            d = collections.defaultdict(float, [("a", x), ("b", x[1]), ("a", x * 3.0)])
            return d["a"] * d["b"]
        if form == "array factory":
            d = collections.defaultdict(lambda: np.zeros(3))
            d["z"] += x
            d["z"][0] = x[1] * x[2]
            return d["z"] * np.sum(d["q"] + 1.0)
        d = collections.defaultdict(int)
        for i, v in enumerate(x):
            d[i % 2] += v * v
        return d[0] * d[1]

    check_derivatives(f, R(3))


Pt = __import__("collections").namedtuple("Pt", "a b c", defaults=[1.0])


class Vec(__import__("collections").namedtuple("Vec", "w s")):
    def energy(self):
        return np.sum(self.w ** 2) * self.s


@pytest.mark.parametrize("form", ["positional", "keywords and default", "_replace", "_make and _asdict", "subclass", "unpack"])
def test_namedtuple_classes(form):
    def f(x):
        if form == "positional":
            p = Pt(x, 2.0 * x, x[0])
            return p.a * p.b * p.c
        if form == "keywords and default":
            p = Pt(b=x[1], a=x)
            return p.a * p.b + p.c
        if form == "_replace":
            q = Pt(a=x, b=3.0)._replace(b=x * x, c=x[0])
            return q.a + q.b * q.c + q[0]
        if form == "_make and _asdict":
            p = Pt._make([x, x * 2, x[1]])
            d = p._asdict()
            return d["a"] * d["b"] + p.c
        if form == "subclass":
            return Vec(x * 2.0, s=x[2]).energy()
        a, b, c = Pt(x, x[0], c=x[1] * 2.0)
        return a * b * c

    check_derivatives(f, R(3))


def test_deque_in_both_modes():
    import collections

    def f(x):
        return collections.deque([x, 2.0 * x])[0]

    assert mc.grad(f)(0.5) == 1.0 and mc.jvp(f, (0.5,), (1.0,)) == (0.5, 1.0)  # (rules/python_deque*.py)


def _named(a, func=1.0, y=2.0, t=0.0):
    return a * func * y + t


def test_keyword_names_that_rule_templates_use_internally():
    """Keywords named like a template's own parameters (y, t, func, factory) reach the right operand."""
    import collections
    import functools

    def f(x):
        p = functools.partial(_named, func=x[0], y=x[1], t=x[2])(x)
        d = collections.defaultdict(float, y=x[0], t=x[1], factory=x[2])
        return p * d["y"] * d["t"] * d["factory"]

    check_derivatives(f, R(3))


def test_write_through_a_copy_with_a_method_copy_on_another_branch():
    kind, how = "list", "copy.copy"

    def f(x):
        if kind == "list":
            orig = [x * 1.0, x[0] * 2.0]
        elif kind == "dict":
            orig = {"w": x * 1.0, "s": x[0] * 2.0}
        elif kind == "array":
            orig = x * 1.0
        elif kind == "tuple":
            orig = (x * 1.0, x[0] * 2.0)
        else:
            orig = x[1] * 3.0
        if how == "copy.copy":
            c = list(orig)
        elif kind in ("list", "dict", "array"):
            c = orig.copy()
        else:
            c = orig
        if kind in ("list", "dict"):
            key = 0 if kind == "list" else "w"
            other = 1 if kind == "list" else "s"
            c[key][0] = x[2] * 5.0
            c[other] = c[other] * x[1]
            return np.sum(c[key] * orig[key]) + c[other] * orig[other]
        if kind == "array":
            c[0] = x[2] * 5.0
            return np.sum(c * orig)
        if kind == "tuple":
            return np.sum(c[0] * orig[0]) * c[1]
        return c * orig

    check_derivatives(f, np.array([0.3, -1.2, 0.8]), modes=("forward",))
