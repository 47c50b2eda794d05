"""np.linalg.lstsq of a constant rank-deficient matrix, differentiated in b only (found by hunt13).

x = a+ b is linear in b whatever a's rank, with a+ the map lstsq applies (its own singular-value cutoff): the
derivative is that map.  It was refused ("the solution jumps"), which is only true of the derivative with respect
to a.  That one stays refused in forward mode and is nan in reverse mode (no derivative exists: nan says so, and the
adjoints of the other inputs, which exist, stay usable).
"""
import numpy as np
import pytest

import mooncake_ast as mc

A = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0], [0.5, 1.0, 1.5]])  # rank 2
WIDE = np.array([[1.0, 2.0, 3.0, 4.0], [2.0, 4.0, 6.0, 8.0]])  # rank 1, 2 x 4
B = np.array([0.3, -0.7, 1.1, 0.5])


def squared_solution(b):
    return np.sum(np.linalg.lstsq(A, b, rcond=None)[0] ** 2)


def default_rcond(b):
    return np.sum(np.sin(np.linalg.lstsq(A, b)[0]))


def all_outputs_two_columns(b):
    x, res, rank, s = np.linalg.lstsq(A, np.stack([b, b ** 2], axis=1), rcond=1e-10)
    return np.sum(x * x) + s.sum() + rank


def complex_matrix(b):
    return np.linalg.lstsq(A + 0j, b * (1 + 1j), rcond=None)[0].real.sum()


def wide_matrix(b):
    return np.sum(np.linalg.lstsq(WIDE, b[:2] * b[2:], rcond=None)[0] ** 3)


FUNCTIONS = [squared_solution, default_rcond, all_outputs_two_columns, complex_matrix, wide_matrix]


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_constant_rank_deficient_matrix(f, mode):
    mc.testing.check_derivatives(f, B.copy(), modes=(mode,))


def test_hessian_is_twice_the_map_squared():
    P = np.linalg.lstsq(A, np.eye(4), rcond=None)[0]
    np.testing.assert_allclose(mc.hessian(squared_solution)(B.copy()), 2 * P.T @ P, atol=1e-10)


def _matrix_differentiated(b):
    return np.sum(np.linalg.lstsq(A * b[0], b, rcond=None)[0])


def test_differentiated_rank_deficient_matrix():
    with pytest.raises(mc.MooncakeError, match="rank-deficient"):
        mc.jvp(_matrix_differentiated, (B.copy(),), (np.ones(4),))
    g = mc.grad(_matrix_differentiated)(B.copy())
    assert np.isnan(g[0])  # (through the matrix: no derivative)
    P = np.linalg.lstsq(A * B[0], np.eye(4), rcond=None)[0]
    np.testing.assert_allclose(g[1:], (P.T @ np.ones(3))[1:], atol=1e-10)  # (through b only: exists)
