"""Test inputs of the rules added by helper breadth11 (issue 12: scipy.sparse operations of
rules/scipy_sparse_ops.py -- vstack, hstack, bmat, block_diag, diags, kron, sums and products of sparse
matrices, toarray/todense, multiply, sum(axis), spsolve -- and the second-order models of
rules/scipy_sparse_models.py).  Merged into CASES / ZERO_CASES of tests/test_rules.py by catalog name, so each
is checked by check_derivatives in both modes."""
import bisect

import numpy as np

from rule_case_kit import kit

try:
    import scipy.sparse as sps
    import scipy.sparse.linalg as spla
except ImportError:  # SciPy is optional
    sps = spla = None

F, Case = kit("breadth11 rule case", globals())
C = Case

X = np.array([0.3, 0.5, -0.2, -1.1, 0.7, 1.6])
V = np.array([0.4, -0.9, 1.3])
_P = "(x[:3] * 1.0 + 2.0, ([0, 1, 2], [1, 2, 0]))"  # (a fixed pattern: every stored value from x, none zero)


def _fixed(x):
    return sps.csr_matrix((x[:3] + 2.0, ([0, 1, 2], [1, 2, 0])), shape=(3, 3))


def _cases():
    return {
        sps.vstack: [C("lambda x: sps.vstack([_fixed(x), sps.eye(3)]) @ np.sin(x[3:])", X),
                     C("lambda x: sps.vstack((_fixed(x), _fixed(x * x)), format='csr') @ x[3:]", X)],
        sps.hstack: [C("lambda x: sps.hstack([_fixed(x), sps.diags(x[3:])]) @ x", X),
                     C("lambda x: sps.hstack([_fixed(x), _fixed(x[::-1])], format='csc') @ np.cos(x)", X)],
        sps.bmat: [C("lambda x: sps.bmat([[_fixed(x), None], [sps.eye(3), _fixed(x * 2.0)]]) @ x", X)],
        sps.block_array: [C("lambda x: sps.block_array([[_fixed(x)], [_fixed(x[::-1])]]) @ x[3:]", X)],
        sps.diags_array: [C("lambda x: sps.diags_array(x[:5], offsets=1) @ x", X)],
        sps.block_diag: [C("lambda x: sps.block_diag([_fixed(x), sps.diags(x[3:5])]) @ np.arange(1.0, 6.0)", X),
                         C("lambda x: sps.block_diag((_fixed(x), _fixed(x ** 2)), format='csr') @ x", X)],
        sps.diags: [C("lambda x: sps.diags(x) @ np.arange(1.0, 7.0)", X),
                    C("lambda x: sps.diags([x[:5], x[1:] * 2.0, x[:4]], [0, 1, -2]) @ np.sin(x[:5])", X),
                    C("lambda x: sps.diags([x[:3], x[3:5]], [0, 1], shape=(3, 3), format='csr') @ x[3:]", X),
                    C("lambda x: np.sum((sps.diags(x[:4]) @ x[2:]) ** 2)", X)],
        sps.kron: [C("lambda x: sps.kron(_fixed(x), sps.eye(2)) @ x", X),
                   C("lambda x: sps.kron(sps.diags(x[:2]), _fixed(x), format='csr') @ x", X),
                   C("lambda x: sps.kron(_fixed(x), np.array([[1.0, 2.0], [3.0, 4.0]])) @ x", X)],
        sps._base._spbase.__add__: [C("lambda x: (_fixed(x) + sps.eye(3)) @ x[3:]", X),
                                    C("lambda x: (_fixed(x) + _fixed(x[::-1] ** 2)) @ np.sin(x[:3])", X)],
        sps._base._spbase.__sub__: [C("lambda x: (_fixed(x) - sps.diags(x[3:])) @ x[3:]", X)],
        (sps._base._spbase, "toarray"): [C("lambda x: _fixed(x).toarray() * x[3:]", X),
                                         C("lambda x: sps.diags([x[:2], x[2:5]], [1, 0]).toarray() @ x[3:]", X)],
        (sps._base._spbase, "todense"): [C("lambda x: np.asarray(_fixed(x).todense()) @ x[3:]", X)],
        (sps._base._spbase, "multiply"): [C("lambda x: _fixed(x).multiply(x[3:]) @ x[:3]", X),
                                          C("lambda x: _fixed(x).multiply(x[3:, None] * 2.0).toarray()", X),
                                          C("lambda x: (_fixed(x).multiply(x[0]) @ x[3:])", X)],
        (sps._base._spbase, "sum"): [C("lambda x: _fixed(x).sum() * x[4]", X),
                                     C("lambda x: np.asarray(_fixed(x * x).sum(axis=0)).ravel() * x[3:]", X),
                                     C("lambda x: np.asarray(sps.diags(x[:4]).sum(axis=1)).ravel() ** 2", X)],
        sps._base._spbase.__matmul__: [C("lambda x: (_fixed(x) @ _fixed(x[::-1])) @ x[3:]", X),
                                       C("lambda x: (_fixed(x) @ sps.eye(3)).toarray()", X)],
        spla.spsolve: [C("lambda x: spla.spsolve(sps.csc_matrix(_fixed(x) + 4.0 * sps.eye(3)), x[3:])", X),
                       C("lambda x: spla.spsolve((_fixed(x) + 4.0 * sps.eye(3)).tocsr(), np.stack([x[3:], x[:3]], 1))",
                         X),
                       C("lambda b: spla.spsolve(_CONST, b)", V)],
    }


_CONST = None if sps is None else sps.csc_matrix(np.array([[4.0, 1.0, 0.0], [0.0, 3.0, -1.0], [1.0, 0.0, 5.0]]))


def _insorted(x):
    out = sorted([x[1], x[2] * 2.0, x[3]])
    bisect.insort(out, x[0] * 0.5)
    return sum(v * v * (i + 1) for i, v in enumerate(out))


def _insorted_left(x):
    out = []
    for v in x:
        bisect.insort_left(out, v * v, 0, len(out))
    return out[0] * 3.0 + out[-1] * out[1]


def _insorted_key(x):
    out = [x[1] + 5.0, x[0]]
    bisect.insort(out, x[2], key=lambda v: -v)
    return out[0] * 2.0 + out[1] * 3.0 + out[2] * 5.0


PY_CASES = {
    bisect.insort_right: [C(_insorted, X), C(_insorted_key, X)],
    bisect.insort_left: [C(_insorted_left, X), C(_insorted_left, -X)],
}


def breadth11_cases(entries):
    """The cases by catalog name (`entries`: catalog())."""
    names = {e.key: e.name for e in entries}
    out = {names[k]: v for k, v in PY_CASES.items() if k in names}
    if sps is None:
        return out
    for k, v in _cases().items():
        if k in names:
            out[names[k]] = v
    return out


A3 = np.array([[1.2, 0.3, -0.4], [0.1, 0.9, 0.5], [-0.2, 0.6, 1.1]])


def breadth11_zero_cases(entries):
    out = {"numpy.einsum_path": Case("lambda a, b: np.einsum('ij,jk->ik', a, b, "
                                     "optimize=np.einsum_path('ij,jk->ik', a, b)[0])", A3, A3.T)}
    if sps is not None:
        out["mooncake_ast.rules.scipy_sparse_models.stored_positions"] = Case(
            "lambda x: np.sum((sps.diags(x) @ np.ones(6)) ** 2)", X)
    return out
