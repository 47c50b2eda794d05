"""Dict merges where a later entry overrides a key: the overridden value is not in the result and gets no adjoint.

`{**a, **b}` gave every part the adjoint of all its keys, so a value replaced by a later part's still got one
(grad [2.1, 0.7, 0.7] for [2.1, 0, 0.7]); each part now gets its keys that no later part overrides
(reverse/part_adjoints.merge_part_adjoint)."""
import numpy as np
import pytest

from mooncake_ast.testing import check_derivatives

X = np.array([0.7, -1.3, 2.1])


def display_merge(x):
    defaults = {"u": x[0], "v": x[1]}
    overrides = {"v": x[2]}
    cfg = {**defaults, **overrides}
    return cfg["u"] * cfg["v"]


def display_with_a_literal_key(x):
    params = {"u": x[0], "v": x[1]}
    params = {**params, "v": x[2] ** 2}
    return params["u"] * params["v"]


def three_parts(x):
    a = {"u": x[0], "v": x[1], "w": x[2]}
    b = {"v": x[0] * x[2]}
    c = {"w": np.sin(x[1]), "u": x[1] ** 2}
    m = {**a, **b, **c}
    return m["u"] * m["v"] + m["w"]


def keyword_call(x):
    def product(u, v):
        return u * v
    base = {"u": x[0], "v": x[1]}
    return product(**base) + product(**{**base, "v": x[2]})


def union_operator(x):
    a = {"u": x[0], "v": x[1]}
    b = {"v": x[2]}
    m = a | b
    return m["u"] * m["v"] + a["v"]


def arrays_as_values(x):
    a = {"w": x * 2.0, "b": x[0]}
    b = {"w": np.cos(x)}
    m = {**a, **b}
    return np.sum(m["w"] * x) + m["b"]


FAMILY = [display_merge, display_with_a_literal_key, three_parts, keyword_call, union_operator, arrays_as_values]


@pytest.mark.parametrize("f", FAMILY, ids=lambda f: f.__name__)
def test_overridden_keys(f):
    check_derivatives(f, X.copy())
