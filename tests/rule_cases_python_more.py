"""Test inputs of the rules in mooncake_ast/rules/numpy_writes.py, python_copy.py and python_callables.py (issue 12),
merged into CASES (and ZERO_CASES) of tests/test_rules.py by catalog name."""
import collections
import copy  # noqa: F401  (the cases' sources use it)
import operator  # noqa: F401

import numpy as np

from rule_case_kit import kit

F, Case = kit("python more rule case", globals())
C = Case
v3 = np.array([0.4, -1.1, 0.75])
m34 = np.array([[0.3, -0.2, 1.1, 0.5], [0.9, 0.1, -0.7, 0.2], [-0.4, 0.8, 0.6, -1.3]])


def _put(a, v):
    a = a * 1.0
    np.put(a, [0, 5, 5, -1], v * v)
    return np.sin(a)


def _fill(a, v):
    a = a * 1.0
    np.fill_diagonal(a, v)
    return a * a


def _copyto(a, v):
    a = a * 1.0
    np.copyto(a, v[:, None] * 2.0, where=a > 0)
    return a * v[:, None]


def _deep(x, y):
    pair = copy.deepcopy([x, y * 1.0])
    pair[1][0] = 3.0
    return pair[0] * pair[1]


def _shallow(x, y):
    d = copy.copy({"x": x, "y": y * x})
    return d["x"] + np.sum(d["y"])


MORE_PY_CASES = {
    "numpy.put": [C(_put, m34, v3[:2])],
    "numpy.fill_diagonal": [C(_fill, m34, v3)],
    "numpy.copyto": [C(_copyto, m34, v3)],
    "copy.deepcopy": [C(_deep, 0.7, v3)],
    "copy.copy": [C(_shallow, 0.7, v3)],
}


def _partial(x, y):
    import functools

    return functools.partial(np.multiply, x)(y) + functools.partial(np.sin)(x)


def _methodcaller(x, y):
    import operator

    return operator.methodcaller("dot", y)(x)


MORE_PY_CASES.update({
    "functools.partial": [C(_partial, v3, v3 + 0.3)],
    "operator.methodcaller": [C(_methodcaller, v3, v3 - 0.2)],
})

Pair = collections.namedtuple("Pair", "a b")


def _defaultdict(x, y):
    d = collections.defaultdict(float, {"x": x}, y=y * 2.0)
    d["z"] += x * y
    return d["x"] * d["y"] + d["z"]


def _tuple_new(x, y):
    p = Pair._make([x, y * x])
    return p.a * p.b


MORE_PY_CASES.update({
    "collections.defaultdict": [C(_defaultdict, 0.7, v3)],
    "tuple.__new__": [C(_tuple_new, 0.7, v3)],
})

MORE_PY_ZERO_CASES = {
    "collections.namedtuple": C("lambda x: collections.namedtuple('P', 'a b')(x, 2.0 * x).b", v3),
    "operator.itemgetter": C("lambda x: operator.itemgetter(1)([x, 2.0 * x])", v3),
    "operator.attrgetter": C("lambda x: operator.attrgetter('real')(x * 2.0)", v3),
}
