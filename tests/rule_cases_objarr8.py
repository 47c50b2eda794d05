"""Test inputs of rules helper objarr8 added or changed (Nov 28): `a //= b` (a zero derivative that writes an array
in place: its aliases lose their derivative too), merged into CASES of tests/test_rules.py by catalog name."""
import operator

import numpy as np

from rule_case_kit import kit

F, Case = kit("objarr8 rule case", globals())
C = Case


def floordiv_in_place_seen_by_an_alias(a, b):
    y = a * 3.0
    z = y  # the same array: `y //= b` writes it
    y //= b
    return z * a + y


def floordiv_in_place_number(a, b):
    n = a * 3.0
    n //= b  # a number: a new value, zero derivative
    return n * a


OBJARR8_CASES = {
    "_operator.ifloordiv": [C(floordiv_in_place_seen_by_an_alias, np.array([0.7, -1.3, 2.1]), 0.8),
                            C(floordiv_in_place_number, 0.7, 0.9),
                            C("lambda a: operator.ifloordiv(a, 0.7) + a", 2.3)],
}


# ------------------------------------------------------------------ scipy.sparse matrix @ dense (rules/scipy_sparse_rules.py)
def _sparse():
    import scipy.sparse as sps

    return sps


_CSR = _sparse().csr_matrix(np.array([[2.0, 0.0, -1.0], [0.0, 3.0, 0.0], [1.0, 0.0, 0.5]]))  # (constants: made once)
_CSC = _sparse().csc_matrix(np.array([[1.0, 0.0], [0.5, -2.0], [0.0, 4.0]]))


def sparse_matmul_csr(x):
    return np.sum((_CSR @ x) ** 2)


def sparse_matmul_values_and_matrix(v, X):
    sps = _sparse()
    D = sps.coo_matrix((v * 2.0, ([0, 1, 2, 0], [2, 0, 1, 0])), shape=(3, 3))
    return np.sum((D @ X) ** 2)


def sparse_rmatmul_dia(x, v):
    sps = _sparse()
    D = sps.dia_matrix((np.array([v, v * 0.5]), [0, 1]), shape=(3, 3))
    return np.sum((x @ D) * x)


def sparse_dot_csc(x):
    return np.sum(np.tanh(_CSC.dot(x)))


def sparse_cases():
    v3 = np.array([0.6, -1.1, 1.7])
    return {
        "scipy.sparse._base._spbase.__matmul__": [C(sparse_matmul_csr, v3),
                                                  C(sparse_matmul_values_and_matrix, np.array([0.3, -0.8, 1.2, 0.5]),
                                                    np.arange(6.0).reshape(3, 2) * 0.3)],
        "scipy.sparse._base._spbase.__rmatmul__": [C(sparse_rmatmul_dia, v3, np.array([0.4, 1.3, -0.7]))],
        "scipy.sparse._base._spbase.dot": [C(sparse_dot_csc, np.array([0.4, -0.9]))],
    }


OBJARR8_CASES.update(sparse_cases())
