"""Regressions of helper breadth11 (issue 12, scipy.sparse): operations on sparse matrices whose stored values
depend on the inputs, both modes (check_derivatives), and second orders of `D @ x` through the plain-NumPy model
(scipy_sparse_models.py), compared with finite differences of mc.grad.  On the trunk these were refused (traced
into SciPy's compiled kernels or object arrays) or crashed (`list assignment index out of range` in forward mode
of sps.vstack; a TypeError / IndexError for a product of two sparse matrices)."""
import warnings

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives

sps = pytest.importorskip("scipy.sparse")
spla = pytest.importorskip("scipy.sparse.linalg")

X4 = np.array([0.3, 0.7, 1.1, 0.45])
X4B = np.array([-0.6, 0.2, 0.9, 1.4])
M = np.array([[1.0, 0, 2, 0], [0, 3.0, 0, 0], [1.0, 0, 0, 4.0], [0, 0.5, 0, 1.0]])


def _fixed(x):
    return sps.csr_matrix((x + 2.0, ([0, 1, 2, 3], [1, 2, 3, 0])), shape=(4, 4))


def diags_of_x(x):
    return np.sum((sps.diags(x) @ np.arange(1.0, 5.0)) ** 2)


def diags_offsets(x):
    return np.sum(np.sin(sps.diags([x, x[:3] * 2.0], [0, 1]) @ np.arange(4.0)))


def diags_csr_format(x):
    return np.sum(np.cos(sps.diags([x, x[1:]], [0, -1], format="csr") @ x))


def vstack_constant(x):
    return np.sum((sps.vstack([sps.eye(4), sps.csr_matrix(M)]) @ x) ** 2)


def vstack_of_x(x):
    return np.sum((sps.vstack([_fixed(x), sps.diags(x)]) @ x) ** 2)


def hstack_of_x(x):
    return np.sum(np.sin(sps.hstack([_fixed(x), sps.eye(4)]).tocsr() @ np.concatenate([x, x ** 2])))


def bmat_of_x(x):
    return np.sum((sps.bmat([[_fixed(x), None], [None, sps.diags(x)]]) @ np.concatenate([x, x])) ** 2)


def block_diag_of_x(x):
    return np.sum((sps.block_diag([_fixed(x), sps.diags(x[:2])]) @ np.arange(1.0, 7.0)) ** 2)


def kron_of_x(x):
    return np.sum((sps.kron(sps.diags(x[:2]), sps.eye(2)) @ x) ** 2)


def kron_dense_block(x):
    return np.sum(np.sin(sps.kron(_fixed(x), np.array([[1.0, 2.0], [0.5, 3.0]])) @ np.arange(8.0)))


def sparse_plus_sparse(x):
    return np.sum(((_fixed(x) + sps.diags(x * x)) @ x) ** 2)


def sparse_minus_sparse(x):
    return np.sum(np.cos((_fixed(x) - sps.eye(4)) @ x))


def sparse_times_sparse(x):
    return np.sum(((_fixed(x) @ _fixed(x[::-1])) @ x) ** 2)


def sparse_times_constant_sparse(x):
    return np.sum(((_fixed(x) @ _MT) @ x) ** 2)


def toarray_of_x(x):
    return np.sum(_fixed(x).toarray() * np.outer(x, x))


def todense_of_x(x):
    return np.sum(np.asarray(sps.diags(x).todense()) @ x)


def multiply_row(x):
    return np.sum(_fixed(x).multiply(x[None, :]) @ x)


def multiply_scalar_sum(x):
    return float(_fixed(x).multiply(x[0]).sum()) * x[1]


def sum_axes(x):
    A = _fixed(x)
    return np.sum(np.asarray(A.sum(axis=0)) ** 2) + A.sum() ** 2 + np.sum(np.asarray(A.sum(axis=1)).ravel() * x)


_A = sps.csc_matrix(np.array([[4.0, 1.0, 0.0, 0.0], [0.0, 3.0, -1.0, 0.0], [1.0, 0.0, 5.0, 0.5],
                              [0.0, 0.2, 0.0, 2.0]]))
_MT = sps.csr_matrix(M.T)


def spsolve_rhs(x):
    return np.sum(spla.spsolve(_A, x) ** 2)


def spsolve_values(x):
    A = (_fixed(x) + 5.0 * sps.eye(4)).tocsc()
    return np.sum(spla.spsolve(A, np.arange(1.0, 5.0)) ** 2)


def spsolve_matrix_rhs(x):
    A = (_fixed(x) + 5.0 * sps.eye(4)).tocsr()
    return np.sum(np.sin(spla.spsolve(A, np.stack([x, x ** 2], axis=1))))


FIRST = [diags_of_x, diags_offsets, diags_csr_format, vstack_constant, vstack_of_x, hstack_of_x, bmat_of_x,
         block_diag_of_x, kron_of_x, kron_dense_block, sparse_plus_sparse, sparse_minus_sparse, sparse_times_sparse,
         sparse_times_constant_sparse, toarray_of_x, todense_of_x, multiply_row, multiply_scalar_sum, sum_axes,
         spsolve_rhs, spsolve_values, spsolve_matrix_rhs]


@pytest.mark.parametrize("x", [X4, X4B], ids=["x", "x_signs"])
@pytest.mark.parametrize("mode", ["forward", "reverse"])
@pytest.mark.parametrize("f", FIRST, ids=[f.__name__ for f in FIRST])
def test_sparse_operations(f, mode, x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_derivatives(f, x.copy(), modes=(mode,))


# ---------------------------------------------------------------- second order of D @ x (scipy_sparse_models.py)
def laplacian_quadratic(x):
    D = sps.diags([np.ones(4) * -2.0, np.ones(3), np.ones(3)], [0, 1, -1])
    return x @ (D @ x)


def diags_cubic(x):
    return np.sum((sps.diags(x) @ x) * x)


def fixed_pattern_sin(x):
    return np.sum(np.sin(_fixed(x) @ x))


def rmatmul_of_x(x):
    return np.sum(np.exp(x @ sps.diags(x, format="csc") * 0.3))


SECOND = [laplacian_quadratic, diags_cubic, fixed_pattern_sin, rmatmul_of_x]


def _fd_jacobian(g, x, eps=1e-5):
    return np.array([(g(x + eps * e) - g(x - eps * e)) / (2 * eps) for e in np.eye(len(x))])


@pytest.mark.parametrize("x", [X4, X4B], ids=["x", "x_signs"])
@pytest.mark.parametrize("f", SECOND, ids=[f.__name__ for f in SECOND])
def test_sparse_products_second_order(f, x):
    ours = mc.hessian(f)(x.copy())
    ref = _fd_jacobian(mc.grad(f), x.copy())
    np.testing.assert_allclose(ours, ref, rtol=1e-5, atol=1e-6 * (1.0 + np.max(np.abs(ref))))


def test_sparse_operation_second_order_refused_by_name():
    """Second orders through the other sparse rules are refused with the rule's name, never guessed."""
    with pytest.raises(Exception, match="hand-written rule|not supported nested"):
        mc.hessian(lambda x: np.sum(_fixed(x).toarray() ** 3))(X4.copy())


def test_lil_values_refused_by_name():
    def lil_values(x):
        L = sps.lil_matrix((4, 4))
        L[0, 1] = x[0]
        return np.sum(L.tocsr() @ x)

    with pytest.raises(Exception):
        mc.grad(lil_values)(X4.copy())


def made_inside_spsolve(x):
    A = sps.csc_matrix(np.array([[4.0, 1.0, 0.0, 0.0], [0.0, 3.0, -1.0, 0.0], [1.0, 0.0, 5.0, 0.5],
                                 [0.0, 0.2, 0.0, 2.0]]))
    return np.sum(spla.spsolve(A, x) ** 2)


def made_inside_matmul(x):
    m = sps.csr_matrix(np.array([[1.0, 0, 2, 0], [0, 3.0, 0, 0], [1.0, 0, 0, 4.0]]))
    return float(np.sum(np.sin(m @ x)))


def made_inside_from_global(x):
    return np.sum(np.cos((sps.csc_matrix(M + 4.0 * np.eye(4)) @ x) * x))


def made_inside_kron(x):
    K = sps.kron(sps.eye(2), sps.csr_matrix(np.array([[1.0, 2.0], [0.0, 3.0]])))
    return np.sum((K @ x) ** 2)


def made_inside_product(x):
    A = sps.csr_matrix(M) @ sps.csr_matrix(M.T)
    return np.sum((A @ x) ** 2)


def made_inside_added(x):
    A = sps.csr_matrix(np.array([[0.0, 1.0, 0.0, 0.0], [2.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 3.0],
                                 [0.0, 0.0, 1.0, 0.0]])) + sps.eye(4)
    return np.sum(np.tanh(A @ x))


INSIDE = [made_inside_spsolve, made_inside_matmul, made_inside_from_global, made_inside_kron, made_inside_product,
          made_inside_added]


@pytest.mark.parametrize("x", [X4, X4B], ids=["x", "x_signs"])
@pytest.mark.parametrize("mode", ["forward", "reverse"])
@pytest.mark.parametrize("f", INSIDE, ids=[f.__name__ for f in INSIDE])
def test_constant_sparse_matrix_made_inside(f, mode, x):
    """A sparse matrix made inside f from a dense constant with zeros: reverse mode refused it (activity analysis
    took `A @ x`, dispatched on A's class, to write A and so the array it was made from; activity._sparse_operator,
    and the sparse rules' results are fresh)."""
    check_derivatives(f, x.copy(), modes=(mode,))


# ---------------------------------------------------------------- found by scripts/audit_issue12b.py
import enum  # noqa: E402


def format_in_loop(x):
    s = "start"
    for v in x:
        s += "\n%4d %8.3f" % (3, v)  # (`%` of text: formatting, no derivative; str // tuple raised a TypeError)
    return np.sum(x) * len(s)


def format_variable_template(x):
    template = "%6.2f|%s"
    line = template % (x[0] * 2.0, "a")
    return x[0] * x[1] + len(line)


def remainder_both(x):
    return np.sum(np.sin((x + 3.1) % (x[0] + 1.37))) + (x[1] % 0.4) * x[2]  # (away from the jumps)


def einsum_with_planned_path(x):
    a = np.outer(x, x[::-1]) + np.eye(4)
    path = np.einsum_path("ij,jk,kl->il", a, a, a, optimize="greedy")[0]
    return np.sum(np.einsum("ij,jk,kl->il", a, a, a, optimize=path))


class _Color(enum.Enum):
    RED = 1
    BLUE = 2


def enum_keys_handed_to_a_function(x):
    return (lambda d: d[_Color.RED] * d[_Color.BLUE])({_Color.RED: x[0], _Color.BLUE: x[1]})


def enum_keys_in_helper(x):
    def weigh(table):
        return table[_Color.RED] ** 2 + 3.0 * table[_Color.BLUE]

    return weigh({_Color.RED: x[0] * x[2], _Color.BLUE: np.sin(x[1])})


class _Key:
    """A user object used as a dict key (equal by its int field): its tangent's fields are all zero."""

    def __init__(self, k):
        self.k = k

    def __eq__(self, other):
        return isinstance(other, _Key) and other.k == self.k

    def __hash__(self):
        return hash(self.k)


def object_keys_written(x):
    d = {_Key(1): x[0], _Key(2): x[1] ** 2}
    d[_Key(1)] = d[_Key(1)] * x[2]
    return d[_Key(1)] + np.sin(d[_Key(2)]) * x[3]


def simpson_of_x(x):
    import scipy.integrate as si

    return si.simpson(np.sin(x) * x, x=np.linspace(0.0, 1.0, 4)) + si.simpson(x ** 2, dx=0.25)


def float64_of_array(x):
    return np.sum(np.float64(np.diff(x)) ** 2) + float(np.float64(x[0] * 3.0))


def insort_in_loop(x):
    import bisect

    out = []
    for v in x:
        bisect.insort(out, np.sin(v))
    return sum(v * (i + 1) for i, v in enumerate(out))


AUDIT = [simpson_of_x, float64_of_array, insort_in_loop, object_keys_written, format_in_loop, format_variable_template, remainder_both, einsum_with_planned_path,
         enum_keys_handed_to_a_function, enum_keys_in_helper]


@pytest.mark.parametrize("x", [X4, X4B], ids=["x", "x_signs"])
@pytest.mark.parametrize("mode", ["forward", "reverse"])
@pytest.mark.parametrize("f", AUDIT, ids=[f.__name__ for f in AUDIT])
def test_audit_findings(f, mode, x):
    check_derivatives(f, x.copy(), modes=(mode,))


@pytest.mark.parametrize("x", [X4, X4B], ids=["x", "x_signs"])
@pytest.mark.parametrize("f", [remainder_both, format_variable_template, float64_of_array],
                         ids=["remainder", "format", "float64_of_array"])
def test_audit_findings_second_order(f, x):
    ours = mc.hessian(f)(x.copy())
    ref = _fd_jacobian(mc.grad(f), x.copy())
    np.testing.assert_allclose(ours, ref, rtol=1e-5, atol=1e-6 * (1.0 + np.max(np.abs(ref))))


def test_object_key_with_a_derivative_still_refused_in_forward_mode():
    """An object key whose field carries a derivative loses it in a dict: still refused (only all-zero field
    tangents pass builtin_keys._zero_tangent)."""
    def key_of_x(x):
        d = {_Key(x[0]): x[1]}
        return sum(k.k * v for k, v in d.items())

    with pytest.raises(mc.UnsupportedDerivativeError, match="dict's key depends on the inputs"):
        mc.jvp(key_of_x, (X4.copy(),), (np.ones(4),))
