"""Regressions of helper refuse14 (issue 12, breadth of language): first-order refusals that were over-conservative.

* Constant float dict keys in reverse mode (reverse/constant_keys.py): a key that is an item of a constant list,
  tuple or array, or `float(i % 2)` of a loop counter, was refused as "a dict's key depends on the inputs" because
  activity's alias classes joined it to the dict.  Keys that really depend on the inputs stay refused.
* A constant scipy.sparse matrix used other than `A @ x` (forward/sparse_operands.py): `A.T @ x`, `A.dot(x)`,
  `x @ A`, `A.multiply(x)`, over csr / csc / coo / csr_array, 1-d and 2-d x, were refused in reverse mode
  ("reverse mode of a scipy.sparse conversion").

Every case is a check_derivatives against finite differences in both modes."""
from __future__ import annotations

import collections
import copy
import functools

import numpy as np
import pytest

import mooncake_ast as mc

sps = pytest.importorskip("scipy.sparse")

X = np.array([0.3, -0.7, 1.1, 0.5, -0.2, 0.9])
KEY_TUPLE = (1.0, 2.0, 1.0, 3.0, 2.0, 1.0)
KEY_LIST = [1.0, 2.0, 1.0]
KEY_REFUSAL = "a dict's key depends on the inputs"


# ---------------------------------------------------------------- constant float keys
def _k_zip_float_list(x):
    d = {}
    for k, v in zip([1.0, 2.0, 1.0, 2.0, 1.0, 2.0], x):
        d[k] = d.get(k, 0.0) + v
    return d[1.0] * d[2.0]


def _k_zip_tuple_display(x):
    d = {}
    for k, v in zip((0.5, 1.5, 0.5, 2.5), x[1:5]):
        d[k] = d.get(k, 0.0) + np.sin(v)
    return d[0.5] * d[1.5] + d[2.5] ** 2


def _k_float_of_index(x):
    d = {}
    for i, v in enumerate(x):
        key = float(i % 3)
        d[key] = d.get(key, 0.0) + v * v
    return d[0.0] * d[1.0] - d[2.0]


def _k_half_index(x):
    d = {}
    for i in range(6):
        d[i / 2.0] = x[i] ** 3
    return sum(d.values()) + d[0.5] * d[2.5]


def _k_array_items(x):
    d = {}
    for k, v in zip(np.array([1.0, 2.0, 1.0, 3.0]), x[:4]):
        d[k] = d.get(k, 0.0) + v * v
    return d[1] * d[2.0] + d[np.float64(3.0)]


def _k_module_tuple(x):
    d = {}
    for k, v in zip(KEY_TUPLE, x):
        d[k] = d.get(k, 0.0) + v * x[0]
    return d[1.0] * d[2.0] + d[3.0]


def _k_defaultdict_mixed(x):
    d = collections.defaultdict(float)
    for k, v in zip([1, True, 1.0, "a", 2.5, 0], x):
        d[k] += v * v
    return d[1] * d["a"] + d[0] * d[2.5]


def _k_indexed_list(x):
    ks = [0.25, 0.75, 0.25]
    d = {}
    for i in range(3):
        k = ks[i]
        d[k] = d.get(k, 1.0) * x[i + 2]
    return d[0.25] + d[0.75] ** 2


def _k_display_of_item(x):
    ks = [1.0, 2.0]
    out = 0.0
    for i in range(2):
        k = ks[i]
        d = {k: x[i + 1], 3.0: x[0]}
        out = out + d[k] * d[3.0]
    return out


def _k_update_setdefault(x):
    d = {}
    for k, v in zip([0.5, 1.5], x):
        d.update({k: v})
        d.setdefault(k + 1.0, v * 2.0)
    return d[0.5] * d[1.5] + d[2.5]


def _k_dict_of_zip(x):
    d = dict(zip([1.0, 2.0, 3.0], x[:3]))
    return d[1.0] * d[3.0] + d[2.0]


def _k_update_zip_array(x):
    d = {}
    d.update(zip(np.array([0.5, 1.5]), x[1:3]))
    return d[0.5] * d[1.5]


def _k_ordered_zip_tuple(x):
    d = collections.OrderedDict(zip((0.5, 1.5), x[1:3]))
    return d[0.5] * d[1.5] ** 2


def _k_comprehension_zip(x):
    d = {k: v * v for k, v in zip([0.5, 1.5, 2.5], x)}
    return d[0.5] * d[2.5] + d[1.5]


def _k_linspace_keys(x):
    d = {}
    for k, v in zip(np.linspace(0.0, 1.0, 6), x):
        d[k] = v ** 2
    return sum(d.values()) * d[0.2]


def _k_unique_keys(x):
    d = {}
    for k in np.unique(np.array([0.5, 1.5, 0.5])):
        d[k] = x[0] * k + x[2] ** 2
    return d[0.5] * d[1.5]


def _k_arange_keys(x):
    d = {}
    for i, k in enumerate(np.arange(0.0, 1.5, 0.5)):
        d[k] = x[i] ** 3
    return d[0.5] * d[1.0] + d[0.0]


_KEY_CASES = [_k_linspace_keys, _k_unique_keys, _k_arange_keys, _k_dict_of_zip, _k_update_zip_array, _k_ordered_zip_tuple, _k_comprehension_zip, _k_zip_float_list, _k_zip_tuple_display, _k_float_of_index, _k_half_index, _k_array_items,
              _k_module_tuple, _k_defaultdict_mixed, _k_indexed_list, _k_display_of_item, _k_update_setdefault]


@pytest.mark.parametrize("mode", ["forward", "reverse"])
@pytest.mark.parametrize("f", _KEY_CASES, ids=lambda f: f.__name__)
def test_constant_float_keys(f, mode):
    mc.testing.check_derivatives(f, X.copy(), modes=(mode,))


@pytest.mark.parametrize("x", [X, X[::-1].copy(), np.linspace(-1.0, 1.0, 6)], ids=["x", "reversed", "linspace"])
@pytest.mark.parametrize("f", [_k_zip_float_list, _k_float_of_index, _k_array_items], ids=lambda f: f.__name__)
def test_constant_float_keys_points(f, x):
    mc.testing.check_derivatives(f, x.copy())


# (keys that do depend on the inputs, or may: refused in reverse mode)
def _n_input_keys(x):
    d = {}
    for k, v in zip(x[:3] * 1.0, x):
        d[k] = d.get(k, 0.0) + v * v
    return sum(d.values()) + sum(d)


def _n_appended(x):
    ks = [1.0, 2.0]
    ks.append(x[0])
    d = {}
    for k, v in zip(ks, x):
        d[k] = d.get(k, 0.0) + v * v
    return sum(d.values()) + sum(d)


def _n_item_written(x):
    ks = [1.0, 2.0, 3.0]
    ks[2] = x[0] * 2.0
    d = {}
    for k, v in zip(ks, x):
        d[k] = d.get(k, 0.0) + v * v
    return sum(d.values()) + sum(d)


def _n_array_view_written(x):
    a = np.array([1.0, 2.0, 3.0])
    b = a[1:]
    b[0] = x[0]
    d = {}
    for k, v in zip(a, x):
        d[k] = d.get(k, 0.0) + v * v
    return sum(d.values()) + sum(d)


def _n_phi_of_input(x):
    d = {}
    for i, v in enumerate(x):
        k = float(i) if i < 3 else x[0]
        d[k] = d.get(k, 0.0) + v
    return sum(d.values()) * sum(d)


def _fill(ks, x):
    ks[0] = x[1]


def _n_handed_to_helper(x):
    ks = [1.0, 2.0, 3.0]
    _fill(ks, x)
    d = {}
    for k, v in zip(ks, x):
        d[k] = d.get(k, 0.0) + v * v
    return sum(d.values()) + sum(d)


def _n_display_appended(x):
    ks = [1.0, 2.0]
    ks.append(x[0])
    out = 0.0
    for k in ks:
        d = {k: x[1]}
        out = out + d[k] * k
    return out


def _n_module_list(x):  # (a module-level list may be changed by a callee: not taken as constant)
    d = {}
    for k, v in zip(KEY_LIST, x):
        d[k] = d.get(k, 0.0) + v * v
    return d[1.0] * d[2.0]


def _n_dict_of_zip_input(x):
    d = dict(zip(x[:2] * 1.0, x[2:4]))
    return sum(d.values()) + sum(d)


def _n_unique_written(x):
    u = np.unique(np.array([0.5, 1.5, 0.5]))
    u[0] = x[0]
    d = {}
    for k in u:
        d[k] = x[1] * k
    return sum(d.values()) + sum(d)


@pytest.mark.parametrize("f", [_n_unique_written, _n_dict_of_zip_input, _n_input_keys, _n_appended, _n_item_written, _n_array_view_written, _n_phi_of_input,
                               _n_handed_to_helper, _n_display_appended, _n_module_list], ids=lambda f: f.__name__)
def test_input_dependent_keys_still_refused(f):
    with pytest.raises(mc.MooncakeError, match=KEY_REFUSAL):
        mc.grad(f)(X.copy())


# ---------------------------------------------------------------- constant scipy.sparse operators
_BODIES = {
    "T_matvec": "np.sum((A.T @ x[:2]) ** 2)",
    "dot": "np.sum(A.dot(x[2:5]) ** 2)",
    "rmatmul": "np.sum((x[:2] @ A) ** 2)",
    "T_dot": "np.sum(np.sin(A.T.dot(x[1:3])))",
    "multiply": "A.multiply(x[:3].reshape(1, 3)).sum()",
    "matmat": "np.sum((A @ x.reshape(3, 2)) ** 3)",
    "T_matmat": "np.sum(np.cos(A.T @ x[:4].reshape(2, 2)))",
    "rmatmat_T": "np.sum((x.reshape(3, 2).T @ A.T) ** 2)",
    "transpose_method": "np.sum((A.transpose() @ x[:2]) ** 2)",
    "rmatmul_T": "np.sum((x[:3] @ A.T) ** 2)",
    "chain": "np.sum(np.tanh(A.T @ (A @ x[:3]))) + A.sum() * x[5]",
    "tocsr_dot": "np.sum(A.tocsr().dot(x[3:6]) * x[0])",
}
_KINDS = ["csr_matrix", "csc_matrix", "coo_matrix", "csr_array"]


def _sparse_case(kind: str, body: str):
    namespace = {"np": np, "sps": sps}
    src = (f"def f(x):\n    A = sps.{kind}(np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]]))\n"
           f"    return {_BODIES[body]}\n")
    import linecache

    filename = f"<refuse14_sparse_{kind}_{body}>"
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    exec(compile(src, filename, "exec"), namespace)
    return namespace["f"]


def _sp_lil_assembled(x):
    K = sps.lil_matrix((3, 3))
    for i in range(3):
        K[i, i] = 2.0
        if i > 0:
            K[i, i - 1] = -1.0
    K = K.tocsr()
    return 0.5 * x[:3] @ (K @ x[:3]) + np.sum(K.T.dot(x[3:]) ** 2)


def _sp_made_in_scope(x):
    import scipy.sparse as sp

    A = sp.csc_matrix(np.array([[0.0, 1.5], [2.0, 0.0], [0.0, -1.0]]))
    return np.sum((A.T @ x[:3]) ** 2) + np.sum(x[3:5] @ A.T)


@pytest.mark.parametrize("mode", ["forward", "reverse"])
@pytest.mark.parametrize("body", sorted(_BODIES))
@pytest.mark.parametrize("kind", _KINDS)
def test_constant_sparse_operator(kind, body, mode):
    f = _sparse_case(kind, body)
    mc.testing.check_derivatives(f, X.copy(), modes=(mode,))


@pytest.mark.parametrize("mode", ["forward", "reverse"])
@pytest.mark.parametrize("f", [_sp_lil_assembled, _sp_made_in_scope], ids=lambda f: f.__name__)
def test_constant_sparse_made_otherwise(f, mode):
    mc.testing.check_derivatives(f, X.copy(), modes=(mode,))


# (a matrix whose values come from the inputs keeps its derivative; one written through a view stays refused)
def _sp_diags_of_input(x):
    A = sps.diags(np.exp(x[:3]))
    return np.sum(A.T.dot(x[3:6]) ** 2) + np.sum(x[:3] @ A)


def _sp_view_written(x):
    A = sps.csr_matrix(np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]]))
    B = A.tocsr()
    B.data[0] = x[3]
    return np.sum(A.dot(x[:3]) ** 2)


def test_sparse_of_inputs_differentiated():
    mc.testing.check_derivatives(_sp_diags_of_input, X.copy())


def test_sparse_written_through_view_refused():
    with pytest.raises(mc.MooncakeError, match="reverse mode of a scipy.sparse conversion"):
        mc.grad(_sp_view_written)(X.copy())
    mc.testing.check_derivatives(_sp_view_written, X.copy(), modes=("forward",))


# ---------------------------------------------------------------- a generator, then NumPy's functions that write nothing
def _gx_dot_into_other(x):
    a = x[:3] * 1.0
    g = (a.mean() for t in [1, 2])
    o = np.zeros(2)
    o[0] = np.dot(a, a)
    return sum(g) * o[0]


def _gx_many_readers(x):
    a = x[:4] * 2.0
    g = (np.sum(a * t) for t in (1.0, 2.0))
    b = np.exp(a)
    c = np.outer(a, a)
    n = np.linalg.norm(a)
    e = np.add(a, a)
    return sum(g) * n + b.sum() + c.sum() + e[1]


def _gx_map_then_reduction(x):
    a = x[1:4]
    m = map(lambda t: t * a[0], [1.0, 2.0])
    s = np.sum(np.sin(a), 0)
    return sum(m) * s


def _gx_values_then_array(x):
    d = {"a": x[0], "b": x[1]}
    vals = d.values()
    w = np.cumsum(np.array([d["a"], d["b"]]))
    return sum(vals) * w[1]


@pytest.mark.parametrize("mode", ["forward", "reverse"])
@pytest.mark.parametrize("f", [_gx_dot_into_other, _gx_many_readers, _gx_map_then_reduction, _gx_values_then_array],
                         ids=lambda f: f.__name__)
def test_generator_then_numpy_reader(f, mode):
    mc.testing.check_derivatives(f, X.copy(), modes=(mode,))


# (NumPy's calls that do write what the generator reads, or may: still refused)
def _gx_ufunc_positional_out(x):
    a = x[:3] * 1.0
    g = (a.mean() for t in [1, 2])
    np.add(a, 1.0, a)
    return sum(g)


def _gx_unary_positional_out(x):
    a = x[:3] * 1.0
    g = (a.sum() * t for t in [1, 2])
    np.exp(a, a)
    return sum(g)


def _gx_reduction_positional_out(x):
    a = x[:3] * 1.0
    g = (a.sum() * t for t in [1, 2])
    np.cumsum(a, 0, None, a)
    return sum(g)


def _gx_asarray_written(x):
    a = x[:3] * 1.0
    g = (a.sum() * t for t in [1, 2])
    b = np.asarray(a)
    b[0] = x[5]
    return sum(g)


def _gx_copyto(x):
    a = x[:3] * 1.0
    g = (a.sum() * t for t in [1, 2])
    np.copyto(a, x[3:])
    return sum(g)


@pytest.mark.parametrize("mode", ["forward", "reverse"])
@pytest.mark.parametrize("f", [_gx_ufunc_positional_out, _gx_unary_positional_out, _gx_reduction_positional_out,
                               _gx_asarray_written, _gx_copyto], ids=lambda f: f.__name__)
def test_generator_then_numpy_writer_refused(f, mode):
    with pytest.raises(mc.MooncakeError, match="may change what it reads"):
        (mc.jacfwd(f) if mode == "forward" else mc.grad(f))(X.copy())


# ---------------------------------------------------------------- super() inside a classmethod
class _Vec:
    scale = 2.0

    def __init__(self, v):
        self.v = v

    @classmethod
    def make(cls, v):
        return cls(v * cls.scale)

    @staticmethod
    def shift(v):
        return v + 0.5

    def energy(self):
        return np.sum(np.sin(self.v) * self.v)


class _Scaled(_Vec):
    scale = 3.0

    @classmethod
    def make(cls, v):
        obj = super().make(v ** 2)
        obj.v = obj.v + 1.0
        return obj


class _Shifted(_Scaled):
    @classmethod
    def make(cls, v):
        return super().make(super().shift(v) * v[0])


class _Unbound(_Vec):
    @classmethod
    def make(cls, v):
        return cls(np.exp(v)) if super().energy is None else super().make(np.exp(v))


class _TwoArg(_Vec):
    @classmethod
    def make(cls, v):
        return super(_TwoArg, cls).make(v)


def _super_two_levels(x):
    return _Scaled.make(x[:3]).energy()


def _super_three_levels(x):
    s = _Shifted.make(x[1:5])
    return s.energy() + s.v[0] * x[5]


def _super_on_instance(x):
    a = _Scaled(x[:2])
    b = a.make(x[2:5])
    return b.energy() * np.sum(a.v)


def _super_plain_function_lookup(x):
    return _Unbound.make(x[:4]).energy()


@pytest.mark.parametrize("mode", ["forward", "reverse"])
@pytest.mark.parametrize("f", [_super_two_levels, _super_three_levels, _super_on_instance,
                               _super_plain_function_lookup], ids=lambda f: f.__name__)
def test_super_inside_classmethod(f, mode):
    mc.testing.check_derivatives(f, X.copy(), modes=(mode,))
    assert type(_Shifted.make(X[1:5].copy())) is _Shifted


def _super_two_argument(x):
    return _TwoArg.make(x[:3]).energy()


def test_two_argument_super_in_classmethod_refused():
    with pytest.raises(mc.MooncakeError, match=r"two-argument super\(C, cls\)"):
        mc.grad(_super_two_argument)(X.copy())


# ---------------------------------------------------------------- functools.cached_property: forward mode follows it
class _Cached:
    def __init__(self, v):
        self.v = v * 1.0

    @functools.cached_property
    def norm2(self):
        return np.sum(self.v ** 2)

    @functools.cached_property
    def shifted(self):
        return self.v + self.norm2


def _cached_read_twice(x):
    c = _Cached(x)
    return c.norm2 * c.norm2 + c.norm2


def _cached_then_fields_change(x):  # (the cache keeps the first value: so does its tangent)
    c = _Cached(x[:3])
    a = c.norm2
    c.v = c.v * x[4]
    return a * c.norm2 + np.sum(c.v)


def _cached_of_cached(x):
    c = _Cached(x[1:4])
    return np.sum(c.shifted ** 2) + c.norm2


def _cached_invalidated_by_del(x):
    c = _Cached(x[:3])
    a = c.norm2
    c.v = c.v * x[4]
    del c.norm2
    return a * c.norm2


@pytest.mark.parametrize("f", [_cached_read_twice, _cached_then_fields_change, _cached_of_cached,
                               _cached_invalidated_by_del], ids=lambda f: f.__name__)
def test_cached_property_forward(f):
    mc.testing.check_derivatives(f, X.copy(), modes=("forward",))


@pytest.mark.parametrize("f", [_cached_read_twice, _cached_then_fields_change], ids=lambda f: f.__name__)
def test_cached_property_reverse_refused(f):
    with pytest.raises(mc.MooncakeError, match=r"cached_property.*forward mode \(mc.jvp, mc.jacfwd\)"):
        mc.grad(f)(X.copy())


class _LazyProperty:
    def __init__(self, v):
        self.v = v
        self._c = None

    @property
    def norm2(self):
        if self._c is None:
            self._c = np.sum(self.v ** 2)
        return self._c


def _lazy_property(x):
    return _LazyProperty(x).norm2 * x[0]


@pytest.mark.parametrize("mode", ["forward", "reverse"])
def test_lazily_caching_property_refused(mode):
    with pytest.raises(mc.MooncakeError, match="writes to the object in its getter"):
        (mc.jacfwd(_lazy_property) if mode == "forward" else mc.grad(_lazy_property))(X.copy())


# ---------------------------------------------------------------- item-4 probes found right at first order (guards)
class _LazyMethod:
    def __init__(self, v):
        self.v = v
        self._c = None

    def norm2(self):
        if self._c is None:
            self._c = np.sum(self.v ** 2)
        return self._c


class _Series:
    def __init__(self, v):
        self.v = v * 2.0

    def __getitem__(self, i):
        return self.v[i]


class _Holder:
    def __init__(self, a, w):
        self.a = a
        self.w = w


def _new_then_init(x):
    s = _Series.__new__(_Series)
    s.__init__(x)
    return s[1] * s[2] + np.sum(s.v ** 2)


def _lazy_method(x):
    c = _LazyMethod(x)
    return c.norm2() * c.norm2() + np.sum(c.v)


def _deepcopy_object(x):
    h = _Holder(x[:3] * 1.0, 2.0)
    h2 = copy.deepcopy(h)
    h2.a[0] = h2.a[0] * 3.0
    return np.sum(h.a ** 2) + np.sum(h2.a ** 3) * h2.w


def _put_values(x):
    a = np.zeros(6)
    a.put([1, 3, 5], x[:3] ** 2)
    np.put(a, [0, 2], x[3:5] * 3.0)
    return np.sum(np.sin(a) * x)


def _reduce_accumulate_axis(x):
    A = x.reshape(2, 3)
    return (np.sum(np.add.reduce(A, axis=0) ** 2) + np.sum(np.multiply.accumulate(A, axis=1))
            + np.sum(np.maximum.reduce(A, axis=1) ** 2) + np.sum(np.minimum.accumulate(A, axis=0)))


@pytest.mark.parametrize("mode", ["forward", "reverse"])
@pytest.mark.parametrize("f", [_new_then_init, _lazy_method, _deepcopy_object, _put_values, _reduce_accumulate_axis],
                         ids=lambda f: f.__name__)
def test_first_order_object_and_array_probes(f, mode):
    mc.testing.check_derivatives(f, X.copy(), modes=(mode,))


# ---------------------------------------------------------------- found, not fixed here
def _sp_written_through_transpose(x):
    A = sps.csr_matrix(np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]]))
    B = A.T
    B.data[1] = x[4] * x[4]
    return np.sum((x[:2] @ A) ** 2)


def _sp_active_written_through_transpose(x):
    A = sps.csr_matrix(np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]]) * x[0])
    B = A.T
    B.data[1] = x[4] * x[4]
    return np.sum((x[:2] @ A) ** 2) + np.sum(B @ x[:2])


def _sp_written_through_csc_of_data(x):
    A = sps.csr_matrix(np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]]))
    B = sps.csc_matrix((A.data, A.indices, A.indptr), shape=(3, 2))
    B.data[2] = np.sin(x[1])
    return np.sum((x[:2] @ A) ** 2)


@pytest.mark.parametrize("f", [_sp_written_through_transpose, _sp_active_written_through_transpose,
                               _sp_written_through_csc_of_data], ids=lambda f: f.__name__)
def test_sparse_written_through_transpose_forward(f):
    """A write into the values of a sparse matrix that shares another's (`A.T`, a csc of A's data) reaches the other's
    tangent (converted_tangent gives the shared values the operand's own tangent array; it made a copy: WRONG, also on
    trunk b48fe51).  Reverse mode refuses it (the conversion's pullback)."""
    mc.testing.check_derivatives(f, X.copy(), modes=("forward",))
