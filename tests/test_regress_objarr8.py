"""Objects, object arrays, out= writes and keyword bounds (helper objarr8, Nov 28): families behind hunt5's
zero-derivative writes (`y //= 1`, `y.round(out=y)` seen through aliases), keyword clip bounds, and the rest.
Every case is checked against finite differences in both modes (or asserts the honest refusal)."""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives

X = np.array([0.7, -1.3, 2.1])
X4C = np.array([0.6, -1.3, 2.1, 0.4])


def _fd(f, x, h=1e-6):
    return np.array([(f(x + e * h) - f(x - e * h)) / (2 * h) for e in np.eye(x.size)])


def _both_modes(f, x):
    want = _fd(f, x)
    np.testing.assert_allclose(mc.grad(f)(x.copy()), want, rtol=1e-6, atol=1e-8)
    jv = np.array([mc.jvp(f, (x.copy(),), (e,))[1] for e in np.eye(x.size)])
    np.testing.assert_allclose(jv, want, rtol=1e-6, atol=1e-8)


# ------------------------------------------------------------------ zero-derivative writes seen through aliases
def ifloordiv_alias(x):
    y = x * 3.0
    z = y
    y //= 1.0
    return np.sum(z * x)


def ifloordiv_view_alias(x):
    y = x * 3.0
    v = y[1:]
    v //= 1.0  # writes y through the view
    return np.sum(y * x)


def ifloordiv_slice(x):
    y = x * 3.0
    y[:2] //= 1.0
    return np.sum(y * x)


def ifloordiv_dict_alias(x):
    y = x * 3.0
    d = {"y": y}
    y //= 2.0
    return np.sum(d["y"] * x) + np.sum(y)


def ifloordiv_number(x):
    n = x[0] * 7.0
    n //= 2.0  # a number: a new value
    return n * x[1] + x[2]


def ifloordiv_in_a_loop(x):
    y = x * 3.0
    z = y
    for _ in range(2):
        y //= 1.0
        y += x
    return np.sum(z * x)


def round_method_out_alias(x):
    y = x * 3.0
    z = y
    y.round(1, out=y)
    return np.sum(z * x)


def round_method_out_keyword(x):
    y = x * 3.0
    y.round(decimals=0, out=y)
    return np.sum(y * x)


def round_method_out_other(x):
    y = x * 3.0
    w = x * 5.0
    y.round(0, out=w)  # w takes round(y): w's derivative goes, y's stays
    return np.sum(w * x) + np.sum(y * x)


def floor_out_through_alias(x):
    y = x * 3.0
    z = y
    np.floor(z, out=y)
    return np.sum(z * x)


def floor_method_free_out_list(x):
    y = x * 3.0
    L = [y]
    np.rint(y, out=y)
    return np.sum(L[0] * x)


@pytest.mark.parametrize("f", [ifloordiv_alias, ifloordiv_view_alias, ifloordiv_slice, ifloordiv_dict_alias,
                               ifloordiv_number, ifloordiv_in_a_loop, round_method_out_alias,
                               round_method_out_keyword, round_method_out_other, floor_out_through_alias,
                               floor_method_free_out_list])
def test_zero_derivative_writes_through_aliases(f):
    _both_modes(f, X)


# ------------------------------------------------------------------ clip's bounds passed by keyword
def clip_method_min_max(x):
    return np.sum((x * 3.0).clip(min=x[1], max=x[2]) ** 2)


def clip_method_positional_min_keyword_max(x):
    return np.sum((x * 3.0).clip(x[1], max=x[2]) ** 2)


def clip_method_array_bounds(x):
    return np.sum((x * 3.0).clip(min=x - 1.0, max=x * 0.5 + 1.1) ** 2)


def np_clip_a_min_a_max(x):
    return np.sum(np.clip(x * 3.0, a_min=x[1], a_max=x[2]) ** 2)


def np_clip_min_only(x):
    return np.sum(np.clip(x * 3.0, min=x[3]) ** 2)


def np_clip_max_only(x):
    return np.sum(np.clip(x * 3.0, max=x[0] * 2.5) ** 2)


@pytest.mark.parametrize("f", [clip_method_min_max, clip_method_positional_min_keyword_max, clip_method_array_bounds,
                               np_clip_a_min_a_max, np_clip_min_only, np_clip_max_only])
def test_clip_keyword_bounds(f):
    _both_modes(f, X4C)


# ------------------------------------------------------------------ np.nan_to_num(y, copy=False) writes y
def _with_a_nan(x):
    y = x * 3.0
    with np.errstate(all="ignore"):
        y[1] = np.log(y[1])
    return y


def nan_to_num_copy_false(x):
    y = _with_a_nan(x)
    np.nan_to_num(y, copy=False)
    return np.sum(y * x)


def nan_to_num_copy_false_positional_alias(x):
    y = _with_a_nan(x)
    z = y
    np.nan_to_num(y, False)
    return np.sum(z * x)


def nan_to_num_copy_false_result(x):
    y = _with_a_nan(x)
    r = np.nan_to_num(y, copy=False, nan=0.5)
    return np.sum(r * x) + np.sum(y)


def nan_to_num_copy_false_inf(x):
    y = x * 3.0
    with np.errstate(all="ignore"):
        y[0] = np.inf
    np.nan_to_num(y, copy=False, posinf=1.0)
    return np.sum(y * x)


def nan_to_num_copy_false_summed(x):
    y = x * 1.0
    return np.sum(np.nan_to_num(y, copy=False))  # (was refused: test_regress_rules_extra's nan_to_num_inplace)


@pytest.mark.parametrize("f", [nan_to_num_copy_false, nan_to_num_copy_false_positional_alias,
                               nan_to_num_copy_false_result, nan_to_num_copy_false_inf, nan_to_num_copy_false_summed])
def test_nan_to_num_copy_false(f):
    with np.errstate(all="ignore"):
        _both_modes(f, X)


# ------------------------------------------------------------------ one object held twice by a plain call's result
def fromkeys_one_list(x):
    d = dict.fromkeys(["a", "b"], [])
    d["a"].append(x[0])
    return sum(d["b"]) * x[1]


def fromkeys_one_list_three_keys(x):
    d = dict.fromkeys("abc", [])
    d["c"].append(x[2] * 2.0)
    d["a"].append(x[0])
    return sum(d["b"]) * x[1]


def fromkeys_one_dict(x):
    d = dict.fromkeys(["p", "q"], {})
    d["p"]["w"] = x[0] * x[2]
    return d["q"]["w"] * x[1]


def fromkeys_given_list_kept(x):
    L = []
    d = dict.fromkeys(["a", "b"], L)
    L.append(x[1] ** 2)
    return d["a"][0] + d["b"][0] * x[0]


@pytest.mark.parametrize("f", [fromkeys_one_list, fromkeys_one_list_three_keys, fromkeys_one_dict,
                               fromkeys_given_list_kept])
def test_fromkeys_shares_one_value(f):
    _both_modes(f, X)


# ------------------------------------------------------------------ object arrays: forward follows the items, reverse refuses
class _Particle:
    def __init__(self, v):
        self.v = v


def object_array_floats_loop(x):
    a = np.empty(3, dtype=object)
    for i in range(3):
        a[i] = x[i] * 2.0
    return sum(a)


def object_array_floats_product(x):
    a = np.empty(2, dtype=object)
    a[0] = x[0] * x[1]
    a[1] = np.sin(x[2])
    return a[0] * a[1]


def object_array_of_particles(x):
    parts = np.array([_Particle(v) for v in x])
    return sum(p.v ** 3 for p in parts)


def object_array_particle_field_written(x):
    parts = np.array([_Particle(v) for v in x])
    parts[1].v = x[0] * x[2]  # a field of an item written after the array was made
    return sum(p.v * 2.0 for p in parts)


def object_array_ragged(x):
    a = np.empty(2, dtype=object)
    a[0] = x[:2] * x[2]
    a[1] = np.cos(x)
    return sum(np.sum(r ** 2) for r in a)


def object_array_method_sum(x):
    a = np.empty(2, dtype=object)
    a[0] = x
    a[1] = x ** 3
    return np.sum(a.sum())


FORWARD_OBJECT_ARRAYS = [object_array_floats_loop, object_array_floats_product, object_array_of_particles,
                         object_array_particle_field_written, object_array_ragged, object_array_method_sum]


@pytest.mark.parametrize("f", FORWARD_OBJECT_ARRAYS)
def test_object_arrays_forward(f):
    jv = np.array([mc.jvp(f, (X.copy(),), (e,))[1] for e in np.eye(3)])
    np.testing.assert_allclose(jv, _fd(f, X), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f", [object_array_floats_loop, object_array_floats_product, object_array_ragged,
                               object_array_method_sum])
def test_object_array_writes_refused_in_reverse(f):
    with pytest.raises(mc.UnsupportedDerivativeError, match="object arrays are not differentiated in reverse mode"):
        mc.grad(f)(X.copy())


# ------------------------------------------------------------------ integrators called many times with a mutable args=
class _Params:
    def __init__(self, a, b):
        self.a = a
        self.b = b


def quad_args_list(x):
    import scipy.integrate as si
    p = [x[0], x[1] * x[2]]
    return si.quad(lambda t, p: p[0] * np.sin(t) + p[1] * t, 0.0, 2.0, args=(p,))[0]


def quad_args_object_and_float(x):
    import scipy.integrate as si
    p = _Params(x[0] ** 2, x[2])
    return si.quad(lambda t, p, c: p.a * t ** 3 + p.b * c, -1.0, 1.5, args=(p, x[1]))[0]


def _decay(t, y, p):
    return -p["k"] * y + p["s"]


def solve_ivp_dict_and_state(x):
    import scipy.integrate as si
    p = {"k": 1.0 + x[0] ** 2, "s": x[1]}
    sol = si.solve_ivp(_decay, (0.0, 1.5), np.array([x[2], 1.0]), args=(p,), rtol=1e-10, atol=1e-12)
    return sol.y[0, -1] + 2.0 * sol.y[1, -1]


def odeint_list_args(x):
    import scipy.integrate as si
    p = [1.0 + x[0] ** 2, x[1]]
    return si.odeint(lambda y, t, p: -p[0] * y + p[1], np.array([x[2]]), np.array([0.0, 0.5, 1.0]), args=(p,),
                     rtol=1e-10, atol=1e-12)[-1, 0]


@pytest.mark.parametrize("f", [quad_args_list, quad_args_object_and_float, solve_ivp_dict_and_state,
                               odeint_list_args])
def test_integrator_mutable_args(f):
    np.testing.assert_allclose(mc.grad(f)(X.copy()), _fd(f, X), rtol=1e-5, atol=1e-7)
    jv = np.array([mc.jvp(f, (X.copy(),), (e,))[1] for e in np.eye(3)])
    np.testing.assert_allclose(jv, _fd(f, X), rtol=1e-5, atol=1e-7)


# ------------------------------------------------------------------ structured arrays of float fields
_REC = [("a", float), ("b", float)]


def record_fields_product(x):
    rec = np.zeros(3, dtype=_REC)
    rec["a"] = x
    rec["b"] = np.sin(x)
    return np.sum(rec["a"] * rec["b"])


def record_field_in_place(x):
    rec = np.zeros(3, dtype=_REC)
    rec["a"] = x
    rec["a"] *= x
    return np.sum(rec["a"]) + rec["a"][1] * x[0]


def record_field_items_written(x):
    rec = np.zeros(3, dtype=_REC)
    rec["a"][1] = x[0] * x[2]
    rec["b"][:] = x
    return np.sum(rec["a"] + rec["b"] ** 2)


def record_field_view_sees_overwrite(x):
    rec = np.zeros(3, dtype=_REC)
    rec["a"] = x
    a = rec["a"]
    rec["a"] = x ** 2  # a is a view of the field: it sees the new values
    return np.sum(a * x)


def record_field_strided_read(x):
    rec = np.zeros(3, dtype=_REC)
    rec["b"] = x * 2.0
    return float(np.sum(rec["b"][::2] ** 2))


@pytest.mark.parametrize("f", [record_fields_product, record_field_in_place, record_field_items_written,
                               record_field_view_sees_overwrite, record_field_strided_read])
def test_structured_array_fields(f):
    _both_modes(f, X)


def one_record_read(x):
    rec = np.zeros(3, dtype=_REC)
    rec["a"] = x
    r = rec[1]
    return r["a"] * x[2]


def test_one_record_forward_and_refused_in_reverse():
    jv = np.array([mc.jvp(one_record_read, (X.copy(),), (e,))[1] for e in np.eye(3)])
    np.testing.assert_allclose(jv, _fd(one_record_read, X), rtol=1e-6, atol=1e-8)
    with pytest.raises(mc.UnsupportedDerivativeError, match="one record of a structured array"):
        mc.grad(one_record_read)(X.copy())


# ------------------------------------------------------------------ the arg-max / arg-min of a dict
def dict_argmax_get(x):
    d = {"a": x[0], "b": x[1], "c": x[2]}
    return d[max(d, key=d.get)] * 2.0


def dict_argmin_lambda(x):
    d = {"a": x[0] * x[1], "b": x[1], "c": x[2] ** 2}
    k = min(d, key=lambda k: d[k])
    return d[k] * x[2]


def dict_argmax_then_value_sum(x):
    d = {i: v * 3.0 for i, v in enumerate(x)}
    k = max(d, key=d.get)
    return d[k] + sum(d.values())


def dict_items_max_by_value(x):
    d = {"a": x[0], "b": x[1], "c": x[2]}
    k, v = max(d.items(), key=lambda kv: kv[1])
    return v * x[0]


def dict_values_max(x):
    d = {"a": x[0] * 2.0, "b": x[1], "c": x[2]}
    return max(d.values()) * x[1]


def dict_keys_max_plain(x):
    d = {1.5: x[0], 0.5: x[1]}
    return d[max(d)] * x[2]


@pytest.mark.parametrize("f", [dict_argmax_get, dict_argmin_lambda, dict_argmax_then_value_sum,
                               dict_items_max_by_value, dict_values_max, dict_keys_max_plain])
def test_dict_argmax(f):
    _both_modes(f, X)


# ------------------------------------------------------------------ NumPy's __array__ protocol on a user class
class _ArrayLike:
    def __init__(self, v):
        self.v = v

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.v)


class _Pair:
    def __init__(self, a, b):
        self.a = a
        self.b = b

    def __array__(self, dtype=None, copy=None):
        return np.array([self.a, self.b * self.a])


def array_protocol_asarray(x):
    return np.sum(np.asarray(_ArrayLike(x * 2.0)) ** 2)


def array_protocol_array(x):
    return np.sum(np.array(_ArrayLike(np.sin(x))) * x)


def array_protocol_computed(x):
    p = _Pair(x[0], x[1] * x[2])
    return np.sum(np.asarray(p) ** 3)


def array_protocol_field_rebound(x):
    o = _ArrayLike(x)
    o.v = x ** 2  # the array is read when np.asarray runs
    return np.sum(np.asarray(o) * x[0])


@pytest.mark.parametrize("f", [array_protocol_asarray, array_protocol_array, array_protocol_field_rebound])
def test_array_protocol(f):
    _both_modes(f, X)


def test_array_protocol_computed_forward_and_refused_in_reverse():
    jv = np.array([mc.jvp(array_protocol_computed, (X.copy(),), (e,))[1] for e in np.eye(3)])
    np.testing.assert_allclose(jv, _fd(array_protocol_computed, X), rtol=1e-6, atol=1e-8)
    with pytest.raises(mc.UnsupportedDerivativeError, match="read by code that is not differentiated"):
        mc.grad(array_protocol_computed)(X.copy())


# ------------------------------------------------------------------ a metaclass's __call__
class _Stamping(type):
    def __call__(cls, *a):
        obj = super().__call__(*a)
        obj.created = True
        return obj


class _WithMeta(metaclass=_Stamping):
    def __init__(self, v):
        self.v = v * 2.0


class _WithMetaChild(_WithMeta):
    def __init__(self, v, w):
        super().__init__(v)
        self.w = w * v


class _Scaling(type):
    def __call__(cls, v, scale=3.0):
        obj = type.__call__(cls, v * scale)  # the plain construction, called by name
        obj.scale = scale * v
        return obj


class _Scaled(metaclass=_Scaling):
    def __init__(self, v):
        self.v = v


import abc  # noqa: E402


class _Abstract(abc.ABC):  # a metaclass (ABCMeta) with no __call__ of its own: constructed the plain way
    def __init__(self, v):
        self.v = v ** 2


def metaclass_stamps(x):
    o = _WithMeta(x[0])
    return o.v * x[1] if o.created else 0.0


def metaclass_inherited(x):
    o = _WithMetaChild(x[0], x[2])
    return o.v * o.w + x[1]


def metaclass_changes_arguments(x):
    o = _Scaled(x[0], scale=x[1])
    return o.v * o.scale + x[2]


def abc_metaclass_plain(x):
    return _Abstract(x[1]).v * x[0]


@pytest.mark.parametrize("f", [metaclass_stamps, metaclass_inherited, metaclass_changes_arguments,
                               abc_metaclass_plain])
def test_metaclass_call(f):
    _both_modes(f, X)


# ------------------------------------------------------------------ a closure's cell read through __closure__
def cell_contents_of_a_def(x):
    k = x[0] * 2.0

    def f(v):
        return v * k
    return f.__closure__[0].cell_contents * x[1]


def cell_contents_of_a_lambda(x):
    a = np.sin(x[2])
    g = lambda t: t + a  # noqa: E731
    return g.__closure__[0].cell_contents * x[0] + g(x[1])


@pytest.mark.parametrize("f", [cell_contents_of_a_def, cell_contents_of_a_lambda])
def test_closure_cell_contents(f):
    jv = np.array([mc.jvp(f, (X.copy(),), (e,))[1] for e in np.eye(3)])
    np.testing.assert_allclose(jv, _fd(f, X), rtol=1e-6, atol=1e-8)
    with pytest.raises(mc.UnsupportedDerivativeError, match="cell_contents"):
        mc.grad(f)(X.copy())


# ------------------------------------------------------------------ scipy.sparse matrix @ dense
import scipy.sparse as sps  # noqa: E402

_LAP = sps.diags([np.ones(3) * -2.0, np.ones(2), np.ones(2)], [0, 1, -1])
_LAP_CSR, _LAP_CSC, _LAP_COO, _LAP_ARRAY = _LAP.tocsr(), _LAP.tocsc(), _LAP.tocoo(), sps.csr_array(_LAP)
_M32 = np.arange(6.0).reshape(3, 2)


def sparse_quadratic_form_csc(x):
    return x @ (_LAP_CSC @ x)


def sparse_coo_squared(x):
    return np.sum((_LAP_COO @ x) ** 2)


def sparse_array_from_the_left(x):
    return np.sum(x @ _LAP_ARRAY * x)


def sparse_dot_method(x):
    return np.sum(_LAP_CSR.dot(np.sin(x)))


def sparse_times_dense_matrix(x):
    return np.sum((_LAP_CSR @ np.outer(x, x)) * _M32[:, :1])


def sparse_chain(x):
    return np.sum((x * 2.0) @ _LAP @ x)


def sparse_transposed(x):
    return float(np.sum(_LAP_CSR.T @ x * x))


def sparse_diffusion_steps(x):
    u = x.copy()
    for _ in range(3):
        u = u + 0.1 * (_LAP_CSR @ u)
    return np.sum(u ** 2)


def sparse_made_inside(x):
    D = sps.diags([np.ones(3) * -2.0, np.ones(2), np.ones(2)], [0, 1, -1])
    return x @ (D @ x)


def sparse_coo_values_from_x(x):
    D = sps.coo_matrix((x * 2.0, ([0, 1, 2], [2, 0, 1])), shape=(3, 3))
    return np.sum(D @ np.array([1.0, 2.0, 3.0]) * x)


def sparse_csr_values_from_x(x):
    D = sps.csr_matrix((x ** 2, [2, 0, 1], [0, 1, 2, 3]), shape=(3, 3))
    return np.sum(x @ D)


@pytest.mark.parametrize("f", [sparse_quadratic_form_csc, sparse_coo_squared, sparse_array_from_the_left,
                               sparse_dot_method, sparse_times_dense_matrix, sparse_chain, sparse_transposed,
                               sparse_diffusion_steps, sparse_made_inside, sparse_coo_values_from_x,
                               sparse_csr_values_from_x])
def test_sparse_matrix_products(f):
    _both_modes(f, X)


def sparse_diags_of_x(x):
    D = sps.diags(x)
    return np.sum((D @ x) ** 2)


def test_sparse_diags_of_x():
    """Both modes follow the stored values of sps.diags(x) (forward mode: sps.diags's rule, scipy_sparse_ops.py)."""
    np.testing.assert_allclose(mc.grad(sparse_diags_of_x)(X.copy()), _fd(sparse_diags_of_x, X), rtol=1e-6, atol=1e-8)
    check_derivatives(sparse_diags_of_x, X.copy(), modes=("forward",))
