"""NumPy corners of the rules (issues 8 and 16), by family, in both modes.

Each function is checked with `check_derivatives` (forward against finite differences, reverse against
forward) and its gradient against central differences computed here, so a rule wrong the same way in
both modes still fails.

Families: reductions and cumulative functions writing into `out=`; rules that may return a view of
their argument, then read or written through it; keyword operands (every rule whose NumPy signature
names its operands, swept from the rule cases); `initial=`/`default=`/`start=` operands; NumPy scalar
methods; np.r_/np.c_; einsum's interleaved form; std/var where the spread is zero; products whose
result is unused (a scalar zero adjoint).

Reverse mode of `out=` and of keyword operands needs the reverse transform to read keyword adjoints
(call_binding.split_adjoints, eager.rcall_into_out); until it does, reverse mode refuses those calls
with an error (never a silent zero), and those checks are reported as xfail.
"""
import ast
import copy
import re
import warnings

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.reverse.transform import ReverseUnsupported
from mooncake_ast.rules import call_binding, registry
from mooncake_ast.testing import check_derivatives
from tests.test_rules import CASES, F, _modes

W3 = np.array([0.3, -1.2, 0.7])
W23 = np.array([[0.5, -0.4, 1.1], [0.9, 0.2, -0.6]])
A23 = np.array([[0.2, 1.3, -0.5], [0.8, -1.1, 0.6]])
A33 = np.array([[2.0, 0.3, -0.4], [0.1, 1.5, 0.2], [-0.3, 0.4, 1.8]])
A34 = np.arange(12.0).reshape(3, 4) / 7 + 0.1
V3 = np.array([0.4, -0.9, 1.7])


# ---------------------------------------------------------------- checking


def _fd_grads(f, args, h=1e-6):
    """Central-difference gradients of the scalar f with respect to each float (array) argument."""
    out = []
    for i, a in enumerate(args):
        if isinstance(a, float):
            up, dn = list(copy.deepcopy(args)), list(copy.deepcopy(args))
            up[i], dn[i] = a + h, a - h
            out.append((f(*up) - f(*dn)) / (2 * h))
        elif isinstance(a, np.ndarray) and a.dtype.kind == "f":
            g = np.zeros_like(a)
            for idx in np.ndindex(a.shape):
                up, dn = list(copy.deepcopy(args)), list(copy.deepcopy(args))
                up[i][idx] += h
                dn[i][idx] -= h
                g[idx] = (f(*up) - f(*dn)) / (2 * h)
            out.append(g)
        else:
            out.append(None)
    return out


_PENDING = (ReverseUnsupported, NotImplementedError)
_PENDING_TEXT = re.compile(r"out=|keyword")


def _pending(exc):
    """Reverse mode refusing out= or a keyword operand: the reverse transform does not read their adjoints yet."""
    return isinstance(exc, _PENDING) and _PENDING_TEXT.search(str(exc))


def check(f, *args, reverse=True):
    """Both modes consistent, the forward tangent right (check_derivatives), and the gradient (reverse)
    equal to central differences."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check_derivatives(f, *copy.deepcopy(args), modes=("forward",))
        if not reverse:
            return
        try:
            check_derivatives(f, *copy.deepcopy(args), modes=("reverse",))
            argnums = tuple(i for i, a in enumerate(args) if isinstance(a, float) or (isinstance(a, np.ndarray) and a.dtype.kind == "f"))
            got = mc.grad(f, argnums=argnums)(*copy.deepcopy(args))
        except Exception as exc:  # noqa: BLE001
            if _pending(exc):
                pytest.xfail(f"reverse mode refuses (pending reverse-transform integration): {exc}")
            raise
        want = [g for g in _fd_grads(f, args) if g is not None]
        for i, (g, w) in enumerate(zip(got, want)):
            np.testing.assert_allclose(np.asarray(g, dtype=float), w, rtol=1e-5, atol=1e-6, err_msg=f"gradient {i}")


# ---------------------------------------------------------------- out=: the result written into a buffer


def out_sum(A):
    C = np.zeros(3)
    np.sum(A, axis=0, out=C)
    return np.sum(C * C * W3)


def out_sum_keepdims(A):
    C = np.zeros((1, 3))
    np.sum(A, axis=0, keepdims=True, out=C)
    return np.sum(np.sin(C))


def out_mean(A):
    C = np.zeros(2)
    np.mean(A, axis=1, out=C)
    return np.sum(C ** 3)


def out_method_sum(A):
    C = np.zeros(3)
    A.sum(axis=0, out=C)
    return np.sum(C * C * W3)


def out_method_mean(A):
    C = np.zeros(3)
    r = A.mean(0, out=C)
    return np.sum(C * r)


def out_cumsum(A):
    C = np.zeros_like(A)
    np.cumsum(A, axis=1, out=C)
    return np.sum(C * C * W23)


def out_cumprod(A):
    C = np.zeros_like(A)
    np.cumprod(A, axis=0, out=C)
    return np.sum(C * W23)


def out_clip(A):
    C = np.zeros_like(A)
    np.clip(A, -0.6, 0.9, out=C)
    return np.sum(C * C * W23)


def out_max(A):
    C = np.zeros(3)
    np.max(A, axis=0, out=C)
    return np.sum(C * C * W3)


def out_min(A):
    C = np.zeros(2)
    np.min(A, axis=1, out=C)
    return np.sum(np.exp(C))


def out_prod(A):
    C = np.zeros(3)
    np.prod(A, axis=0, out=C)
    return np.sum(C * W3)


def out_var_std(A):
    C = np.zeros(3)
    D = np.zeros(2)
    np.var(A, axis=0, out=C)
    np.std(A, axis=1, out=D)
    return np.sum(C * W3) + np.sum(D * D * D)


def out_into_input(A):
    B = A * 1.0
    np.cumsum(B, axis=0, out=B)  # the input is the buffer: its old value is what the adjoint needs
    return np.sum(B * B * W23)


def out_buffer_read_before(A):
    C = A[0] * 2.0
    before = np.sum(C * C)
    np.sum(A, axis=0, out=C)  # overwrites C: the pullback must restore what it held
    return before + np.sum(C * W3)


def out_ufunc_where(A):
    C = A * 0.5
    np.multiply(A, A, out=C, where=A > 0)
    return np.sum(C * W23)


def out_dot(A, v):
    C = np.zeros(2)
    np.dot(A, v, out=C)
    return np.sum(C * C)


OUT_FAMILY = [out_sum, out_sum_keepdims, out_mean, out_method_sum, out_method_mean, out_cumsum, out_cumprod, out_clip,
              out_max, out_min, out_prod, out_var_std, out_into_input, out_buffer_read_before, out_ufunc_where]


@pytest.mark.parametrize("f", OUT_FAMILY, ids=lambda f: f.__name__)
def test_out_buffer(f):
    check(f, A23.copy())


def r_concat_forward(x):
    return np.sum(np.r_[x, x * 2.0, 1.0, 0:2] * np.arange(9.0)) + np.sum(np.c_[x, x ** 2] * np.arange(6.0).reshape(3, 2))


def flat_read(A):
    return np.sum(A.flat[[1, 2]] ** 2) + A.flat[4] * 3.0


def flat_write(A):
    B = A * 1.0
    B.flat[[0, 3]] = B.flat[[1, 2]] ** 2
    return np.sum(B * A)


def broadcast_whole(A, b):
    return np.sum(np.broadcast_to(b, A.shape) * A)


def test_broadcast_to_whole_forward():
    check(broadcast_whole, A23.copy(), V3.copy(), reverse=False)


def test_broadcast_to_whole_reverse():
    check(broadcast_whole, A23.copy(), V3.copy())


@pytest.mark.parametrize("f", [flat_read, flat_write], ids=lambda f: f.__name__)
def test_flat_forward(f):
    check(f, A23.copy(), reverse=False)


def test_flat_reverse():
    check(flat_read, A23.copy())


def test_index_builders_forward():
    check(r_concat_forward, V3.copy(), reverse=False)
    _, t = mc.jvp(r_concat_forward, (V3.copy(),), (np.array([1.0, 0.0, 0.0]),))
    assert np.isclose(t, 0.0 + 2.0 * 3.0 + 0.0 + 2.0 * V3[0] * 1.0)


def test_out_dot():
    check(out_dot, A23.copy(), V3.copy())


def test_out_forward_leaves_the_primal_right():
    """The tangent must never be written into the user's buffer (forward mode used to)."""
    for f in OUT_FAMILY:
        y, _ = mc.jvp(f, (A23.copy(),), (np.ones_like(A23),))
        assert np.isclose(y, f(A23.copy())), f.__name__


# ---------------------------------------------------------------- views returned by rules, read and written


def view_einsum(A):
    return np.sum(np.einsum("ij->ji", A)[1] * W3)


def view_einsum_diag(A):
    return np.sum(np.einsum("ii->i", A)[1:] ** 2)


def view_transpose(A):
    return np.sum(np.transpose(A)[1] * W3)


def view_T(A):
    return np.sum(A.T[1] * W3)


def view_swapaxes(A):
    return np.sum(np.swapaxes(A, 0, 1)[2] * W3)


def view_reshape(A):
    return np.sum(np.reshape(A, (3, 3))[1] ** 2)


def view_ravel(A):
    return np.sum(np.ravel(A)[2:5] ** 2)


def view_broadcast_to(A):
    return np.sum(np.broadcast_to(A[0], (2, 3))[1] * W3)


def view_diagonal(A):
    return np.sum(np.diagonal(A)[1:] ** 2)


def view_flip(A):
    return np.sum(np.flip(A, 0)[1] ** 2 * W3)


def view_method_reshape(A):
    return np.sum(A.reshape(9)[3:6] * W3)


def view_written_einsum(A):
    B = A * 1.0
    V = np.einsum("ij->ji", B)
    V[1] = V[1] * 3.0
    return np.sum(B * B)


def view_written_transpose(A):
    B = A * 1.0
    V = np.transpose(B)
    V[1] = V[1] ** 2
    return np.sum(B * A)


def view_written_reshape(A):
    B = A * 1.0
    V = B.reshape(9)
    V[2:4] = V[2:4] * V[5]
    return np.sum(B * A)


VIEW_FAMILY = [view_einsum, view_einsum_diag, view_transpose, view_T, view_swapaxes, view_reshape, view_ravel,
               view_broadcast_to, view_diagonal, view_flip, view_method_reshape, view_written_einsum,
               view_written_transpose, view_written_reshape]


@pytest.mark.parametrize("f", VIEW_FAMILY, ids=lambda f: f.__name__)
def test_view_returned_by_a_rule(f):
    check(f, A33.copy())


# ---------------------------------------------------------------- einsum forms, index builders, initial/default/start


def einsum_interleaved(A):
    return np.sum(np.einsum(A, [0, 1], [1, 0])[1] * W23[:, 0])


def einsum_interleaved_product(A, B):
    return np.sum(np.einsum(A, [0, 1], B, [1, 2]) ** 2)


def einsum_interleaved_implicit(A, B):
    return np.einsum(A, [0, 1], B, [0, 1])


def _reverse_reads_index_items():
    """Does the reverse transform give np.r_/np.c_ items their adjoints (registry.is_index_builder)?  Until
    it does, reverse mode of those gives zero gradients: a known bug outside the rule files."""
    import inspect

    from mooncake_ast.reverse import statement_reverse, transform  # (the statements' reverses live in the second)

    return any("is_index_builder" in inspect.getsource(m) for m in (transform, statement_reverse))


_INDEX_ITEMS = pytest.mark.xfail(not _reverse_reads_index_items(), strict=True,
                                 reason="reverse/transform.py treats np.r_[...] as a plain getitem (see registry.is_index_builder)")


def r_concat(x):
    return np.sum(np.r_[x, x * 2.0, 1.0, 0:2] * np.arange(9.0))


def c_columns(x):
    return np.sum(np.c_[x, x ** 2] * np.arange(6.0).reshape(3, 2))


def r_directive(x):
    return np.sum(np.r_["0,2", x, x * 3.0] * W23)


def sum_initial(x, y):
    return np.sum(x, initial=y) ** 2


def sum_initial_axis(A, y):
    return np.sum(np.sum(A, axis=1, initial=y) ** 2)


def max_initial(x, y):
    return np.max(x, initial=y) * 3.0 + np.min(x, initial=y * 0.1)


def max_initial_axis(A, y):
    return np.sum(np.max(A, axis=0, initial=y) * W3)


def builtin_sum_start(x, z):
    xs = [x, x * 2.0]
    return sum(xs, start=z) * z + sum([x], z * 3.0)


def builtin_max_default(x):
    return max([], default=x) * 3.0 + min([], default=x * x) + max([x * 2.0], default=1.0)


def builtin_max_key_rows(A):
    r = max(A, key=lambda r: r[0])
    return r[0] * 2.0 + np.sum(r ** 2)


def builtin_min_key_rows_kept(A):
    r = min(A, key=lambda r: r[1])
    r2 = r * 2.0
    return np.sum(r2 * r) + A[0, 0]


def dict_update_keywords(x, y):
    d = {"a": 1.0}
    d.update(a=x, b=y * 2.0)
    d.update([("c", x * y)])
    d.update({"e": y})
    return d["a"] * 2.0 + d["b"] * d["c"] + d["e"]


def test_dict_update_keywords_forward():
    check(dict_update_keywords, 2.0, 3.0, reverse=False)


def test_dict_update_keywords_reverse():
    check(dict_update_keywords, 2.0, 3.0)


def std_one_entry(x):
    return np.std(x[:1]) + np.var(x[1:2]) + np.sum(x)


def std_equal_entries(x):
    y = x * 0.0 + x[0]
    return np.std(y) + np.std(y, axis=0) + np.sum(x)


CORNERS = [
    (einsum_interleaved, (A23,)), (einsum_interleaved_product, (A23, A34)), (einsum_interleaved_implicit, (A23, W23)),
    pytest.param(r_concat, (V3,), marks=_INDEX_ITEMS), pytest.param(c_columns, (V3,), marks=_INDEX_ITEMS),
    pytest.param(r_directive, (V3,), marks=_INDEX_ITEMS),
    (sum_initial, (V3, 0.5)), (sum_initial_axis, (A23, 0.5)), (max_initial, (V3, 0.5)), (max_initial, (V3, 5.0)),
    (max_initial_axis, (A23, 0.5)),
    (builtin_sum_start, (2.0, 3.0)), (builtin_max_default, (2.0,)), (builtin_max_key_rows, (A33,)),
    (builtin_min_key_rows_kept, (A33,)), (std_one_entry, (V3,)), (std_equal_entries, (V3,)),
]


def _corner_id(c):
    f = c.values[0] if hasattr(c, "values") else c[0]
    return f.__name__


@pytest.mark.parametrize("f, args", CORNERS, ids=[f"{_corner_id(c)}{i}" for i, c in enumerate(CORNERS)])
def test_numpy_corner(f, args):
    check(f, *copy.deepcopy(args))


# ---------------------------------------------------------------- NumPy scalar methods


def scalar_item(x):
    return np.sum(x).item() * 2.0


def scalar_squeeze(x):
    return np.sum(x * x).squeeze() * 2.0


def scalar_reshape(x):
    return np.sum(x).reshape(()) * np.sum(x).reshape(1, 1)[0, 0]


def scalar_tolist(x):
    return np.sum(x).tolist() * 2.0


def scalar_sum_max(x):
    s = np.max(x)
    return s.sum() + s.max() * s.mean() + s.clip(-1.0, 1.0)


def scalar_astype(x):
    return np.sum(x).astype(np.float64) * 3.0


@pytest.mark.parametrize("f", [scalar_item, scalar_squeeze, scalar_reshape, scalar_tolist, scalar_sum_max, scalar_astype],
                         ids=lambda f: f.__name__)
def test_numpy_scalar_method(f):
    check(f, V3.copy())


def test_numpy_scalar_item_gradient_value():
    assert np.allclose(mc.grad(scalar_item)(V3.copy()), 2.0 * np.ones(3))
    _, t = mc.jvp(scalar_item, (V3.copy(),), (np.array([1.0, 0.0, 2.0]),))
    assert np.isclose(t, 6.0)


# ---------------------------------------------------------------- products with an unused result or 1-D/0-D operands


def unused_matmul_in_loop(a):
    t = 0.0
    for i in range(3):
        u = a[:2] @ np.ones((2, 3))  # noqa: F841  (its adjoint is a scalar zero)
        v = np.dot(a[:2], np.ones((2, 3)))  # noqa: F841
        t = t + a[0] * i
    return t


def products_mixed_ranks(A, b):
    return np.sum(np.dot(A, b) + A @ b) + np.dot(b, b) + np.sum(np.dot(2.0, b)) + np.sum(np.matmul(b, A.T))


def products_batched(A, B):
    return np.sum(np.matmul(A[None], B) ** 2) + np.sum(np.dot(A, B[0]))


@pytest.mark.parametrize("f, args", [(unused_matmul_in_loop, (V3,)), (products_mixed_ranks, (A23, V3)),
                                     (products_batched, (A33, np.stack([A33, A33 * 0.5])))],
                         ids=["unused_matmul_in_loop", "products_mixed_ranks", "products_batched"])
def test_products(f, args):
    check(f, *copy.deepcopy(args))


# ---------------------------------------------------------------- keyword operands, swept from the rule cases


def _keyword_version(source):
    """`lambda a, b: np.f(a, b, ...)` with the leading operands passed by NumPy's parameter names
    (`np.f(a=a, b=b, ...)`), or None when the case does not have that shape or f names no parameters."""
    try:
        lam = ast.parse(source, mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(lam, ast.Lambda) or not isinstance(lam.body, ast.Call):
        return None
    call = lam.body
    try:
        fn = eval(compile(ast.Expression(call.func), "<fn>", "eval"), {"np": np})
    except Exception:  # noqa: BLE001
        return None
    sig = call_binding._signature(fn)
    if sig is None or registry.lookup(fn) is None:
        return None
    params = [p.arg for p in lam.args.args]
    lead = 0
    for a in call.args:
        if isinstance(a, ast.Name) and a.id in params:
            lead += 1
        else:
            break
    names = [p.name for p in list(sig.parameters.values())[:lead]
             if p.kind is p.POSITIONAL_OR_KEYWORD and p.default is p.empty]
    if not names or len(names) < lead or len(call.args) > lead and lead < len(names):
        return None
    if call.args[lead:]:
        return None  # later positional arguments would have to follow keywords
    call.keywords = [ast.keyword(arg=n, value=a) for n, a in zip(names, call.args[:lead])] + call.keywords
    call.args = []
    return ast.unparse(lam)


def _keyword_cases():
    seen = set()
    for name, cases in CASES.items():
        for i, case in enumerate(cases):
            src = getattr(case.fn, "__mc_source__", None) or _source_of(case.fn)
            if case.xfail or src is None:
                continue
            kw = _keyword_version(src)
            if kw is None or name in seen:
                continue
            seen.add(name)  # one case per rule keeps the sweep quick
            yield pytest.param(name, kw, case, id=f"{name}[{i}]")


def _source_of(fn):
    import inspect

    try:
        src = inspect.getsource(fn).strip()
    except (OSError, TypeError):
        return None
    return src if src.startswith("lambda") else None


KEYWORD_CASES = list(_keyword_cases())


def test_keyword_sweep_covers_the_operand_rules():
    names = {p.values[0] for p in KEYWORD_CASES}
    for must in ("numpy.dot", "numpy.sum", "numpy.linalg.solve", "numpy.linalg.norm", "numpy.linalg.inv", "numpy.max"):
        assert must in names, names


@pytest.mark.parametrize("name, source, case", KEYWORD_CASES)
def test_keyword_operands(name, source, case):
    """The rule gives the same derivative when its operands are passed by NumPy's parameter names."""
    f = F(source)
    modes = _modes(name, case)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        if "forward" in modes:
            check_derivatives(f, *copy.deepcopy(case.args), modes=("forward",), **case.check)
            dense = tuple(np.full_like(a, 0.3) if isinstance(a, np.ndarray) and a.dtype.kind == "f" else
                          (0.3 if isinstance(a, float) else None) for a in case.args)
            _, t_kw = mc.jvp(f, copy.deepcopy(case.args), dense)
            _, t_pos = mc.jvp(case.fn, copy.deepcopy(case.args), dense)
            np.testing.assert_allclose(_flat(t_kw), _flat(t_pos), rtol=1e-10, atol=1e-12)
        if "reverse" in modes and not any(isinstance(a, np.ndarray) and a.dtype.kind == "c" for a in case.args):
            try:
                check_derivatives(f, *copy.deepcopy(case.args), modes=("reverse",), **case.check)
            except Exception as exc:  # noqa: BLE001
                if _pending(exc):
                    pytest.xfail(f"reverse mode refuses (pending reverse-transform integration): {exc}")
                raise


def _flat(t):
    """A tangent (possibly a tuple of arrays of several shapes) as one complex vector."""
    if isinstance(t, (tuple, list)):
        parts = [_flat(v) for v in t]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=complex)
    if t is None or t is mc.NoTangent or type(t).__name__ == "NoTangentType":
        return np.zeros(0, dtype=complex)
    return np.ravel(np.asarray(t, dtype=complex))


def stack_arrays_kw(v):
    return np.sum(np.stack(arrays=[v, v * 2.0], axis=1) ** 2)


def sum_a_kw(v):
    return np.sum(a=v * v)


def solve_norm_dot_kw(A, b):
    x = np.linalg.solve(a=A, b=b)
    return np.linalg.norm(x=x) + np.dot(a=x, b=b) + np.sum(np.matmul(A, x))


@pytest.mark.parametrize("f, args", [(stack_arrays_kw, (V3,)), (sum_a_kw, (V3,)), (solve_norm_dot_kw, (A33, V3))],
                         ids=["stack_arrays_kw", "sum_a_kw", "solve_norm_dot_kw"])
def test_keyword_operand_calls(f, args):
    check(f, *copy.deepcopy(args))


def test_bind_positional():
    def f(a, b, c=1, *, d=2):
        return a

    assert call_binding.bind_positional(f, (), {"a": 1, "b": 2}) == ((1, 2), {})
    assert call_binding.bind_positional(f, (1,), {"b": 2, "c": 3}) == ((1, 2), {"c": 3})  # c has a default: stays
    assert call_binding.bind_positional(f, (), {"b": 2}) == ((), {"b": 2})  # a missing: nothing moves past it
    assert call_binding.bind_positional(np.add, (), {"x1": 1}) == ((), {"x1": 1})  # ufuncs: as given
    assert call_binding.bind_positional(np.linalg.solve, (), {"a": 1, "b": 2}) == ((1, 2), {})
    assert call_binding.bind_positional(np.stack, (), {"arrays": [1], "axis": 1}) == (([1],), {"axis": 1})
