"""Test inputs of the rules added by helper breadth10 (issue 12: itertools.count, rng.shuffle / np.random.shuffle,
rng.permuted, the zero-derivative helpers of itertools_models.py and numpy_random_permutations.py).  Merged into
CASES / ZERO_CASES of tests/test_rules.py by catalog name, so each is checked by check_derivatives in both modes
(itertools.count's reverse mode is refused by name: tests/test_regress_breadth10.py checks the refusal)."""
import itertools

import numpy as np

from rule_case_kit import kit

try:
    import scipy.sparse as sps
except ImportError:  # SciPy is optional
    sps = None

F, Case = kit("breadth10 rule case", globals())
C = Case

X = np.array([0.3, 0.5, -0.2, -1.1, 0.7, 1.6])
M = np.array([[0.3, 0.5, -0.2], [-1.1, 0.7, 1.6], [0.9, -0.4, 0.25], [1.2, 0.05, -0.6]])


def _count_numbered(x):
    s = 0.0
    for k, v in zip(itertools.count(1), x):
        s = s + k * v * v
    return s


def _count_floats(x):
    return sum(t * np.sin(v) for t, v in zip(itertools.count(0.5, 0.25), x))


def _generator_shuffle(x):
    y = x * 1.5
    np.random.default_rng(3).shuffle(y)
    return y * np.arange(1.0, len(x) + 1.0) + np.sin(y)


def _generator_shuffle_axis(a):
    b = a ** 2
    np.random.default_rng(11).shuffle(b, axis=1)
    return b * np.arange(b.size).reshape(b.shape)


def _generator_shuffle_ties(x):
    y = np.concatenate([x, x])  # (equal values: the permutation is drawn, never matched by value)
    np.random.default_rng(5).shuffle(y)
    return y * np.arange(len(y))


def _randomstate_shuffle(x):
    y = np.exp(x)
    np.random.RandomState(7).shuffle(y)
    return y * np.arange(len(y))


def _global_shuffle(a):
    np.random.seed(2)
    b = a.copy()
    np.random.shuffle(b)
    return np.sum(b * np.arange(b.size).reshape(b.shape), axis=1)


def _permuted(x, axis=None):
    return np.random.default_rng(4).permuted(x * x, axis=axis) * np.arange(np.size(x)).reshape(np.shape(x))


CASES = {
    itertools.count: [C(_count_numbered, X, modes=("forward",)), C(_count_floats, X, modes=("forward",))],
    (np.random.Generator, "shuffle"): [C(_generator_shuffle, X), C(_generator_shuffle_axis, M),
                                       C(_generator_shuffle_ties, X[:3])],
    (np.random.RandomState, "shuffle"): [C(_randomstate_shuffle, X), C(_global_shuffle, M)],
    (np.random.Generator, "permuted"): [C(_permuted, X), C("lambda a: _permuted(a, 0)", M),
                                        C("lambda a: _permuted(a, 1)", M), C(_permuted, M)],
}

ZERO = {
    "mooncake_ast.rules.itertools_models.make_slice": Case("lambda x: np.sum(x[slice(1, 5, 2)] ** 2)", X),
    "mooncake_ast.rules.itertools_models.make_slice1": Case("lambda x: np.sum(x[slice(3)] ** 2)", X),
    "mooncake_ast.rules.itertools_models.make_slice2": Case("lambda x: np.sum(x[slice(1, 3)] ** 2)", X),
    "mooncake_ast.rules.numpy_random_permutations.shuffle_order": Case(_generator_shuffle, X),
}


_COO = "(x[:4] * 2.0, ([0, 1, 1, 2], [1, 2, 2, 0]))"  # (a repeated position: summed by the conversion)
_TRIPLET = "(x[:3] * 1.0, np.array([1, 2, 0]), np.array([0, 1, 2, 3]))"
_P = "scipy.sparse."


def _sparse_cases():
    """Conversions and construction (rules/scipy_sparse_rules.py), with the stored values from x."""
    out = {}
    for mod, name in (("_csr", "csr_matrix"), ("_csr", "csr_array"), ("_csc", "csc_matrix"), ("_csc", "csc_array")):
        out[f"{_P}{mod}.{name}"] = [
            C(f"lambda x: sps.{name}(np.outer(x[:3], x[3:]) + 2.0) @ x[3:]", X),
            C(f"lambda x: sps.{name}({_COO}, shape=(3, 3)) @ x[3:]", X),
            C(f"lambda x: sps.{name}(sps.coo_matrix({_COO}, shape=(3, 3))) @ np.sin(x[3:])", X),
        ]
    out[f"{_P}_csr.csr_matrix"].append(C(f"lambda x: sps.csr_matrix({_TRIPLET}, shape=(3, 3)) @ x[3:]", X))
    out[f"{_P}_base._spbase.tocsr"] = [
        C(f"lambda x: sps.coo_matrix({_COO}, shape=(3, 3)).tocsr() @ x[3:]", X),
        C("lambda x: sps.diags([np.ones(5), np.arange(1.0, 7.0)], [-1, 0]).tocsr() @ np.sin(x)", X),
        C("lambda x: sps.diags(x[:4] * 0.0 + np.array([1.0, 2.0, 3.0, 4.0])).tocsr() @ x[2:]", X)]
    out[f"{_P}_base._spbase.tocsc"] = [
        C(f"lambda x: x[3:] @ sps.coo_matrix({_COO}, shape=(3, 3)).tocsc()", X),
        C(f"lambda x: sps.csr_matrix({_TRIPLET}, shape=(3, 3)).tocsc() @ x[3:]", X)]
    out[f"{_P}_base._spbase.tocoo"] = [
        C(f"lambda x: sps.csr_matrix({_TRIPLET}, shape=(3, 3)).tocoo() @ x[3:] ** 2", X),
        C(f"lambda x: sps.csc_matrix(np.outer(x[:3], x[3:]) + 2.0).tocoo() @ x[:3]", X)]
    return out


def breadth10_cases(entries):
    """The cases by catalog name (`entries`: catalog())."""
    names = {e.key: e.name for e in entries}
    cases = {(k if isinstance(k, str) else names[k]): v for k, v in CASES.items() if isinstance(k, str) or k in names}
    if sps is not None:
        cases.update(_sparse_cases())
    return cases


def breadth10_zero_cases(entries):
    return dict(ZERO)
