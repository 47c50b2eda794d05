"""Regressions found hunting silently wrong derivatives (second round): state that lives outside the function
(closures made at module level, class attributes, module-level objects written by callees), and more.

Each function resets the state it uses, so that plain calls (finite differences) and derivative calls agree."""
import numpy as np
import pytest
import scipy.linalg

import mooncake_ast as mc
from mooncake_ast.errors import UnsupportedDerivativeError
from mooncake_ast.testing import check_derivatives

X = np.array([1.2, -0.7, 2.1])


def _make_counter():
    s = [0.0]

    def inc(v):
        s[0] += v * v
        return s[0]

    def reset():
        s[0] = 0.0

    def get():
        return s[0]
    return inc, reset, get


INC, RESET, GET = _make_counter()


def closure_made_outside_called_twice(x):
    RESET()
    INC(x)
    return INC(x) * x + GET()


def test_closure_made_outside_keeps_its_tangent_between_calls():
    # forward mode gave each call (and each read) of the captured list fresh tangent storage: 2x*x + 2x^2 lost
    check_derivatives(closure_made_outside_called_twice, 1.3)


def memoize(fn):
    cache = {}

    def wrapper(n, x):
        if n not in cache:
            cache[n] = fn(n, x)
        return cache[n]
    wrapper.cache = cache
    return wrapper


@memoize
def _power(n, x):
    return x ** n


def memoized_helper(x):
    _power.cache.clear()
    return _power(2, x) + _power(2, x) * x  # the second call reads the cache


def test_memoizing_decorator():
    check_derivatives(memoized_helper, 1.3)  # forward mode: the cached value's tangent was lost (0)


def _make_adder(buf):
    def add(v):
        buf[0] += v * v
    return add


BUF = [0.0]
ADD = _make_adder(BUF)


def module_list_written_by_a_closure(x):
    BUF[0] = 0.0
    ADD(x[0])
    return BUF[0] * x[1]  # BUF read through its module-level name


def test_module_level_list_written_by_a_closure_made_outside():
    check_derivatives(module_list_written_by_a_closure, X.copy())  # both modes read BUF[0] as a constant


class Totals:
    total = 0.0  # class-level number, changed through type(self)

    def bump(self, v):
        type(self).total = type(self).total + v * v


def class_level_number(x):
    Totals.total = 0.0
    Totals().bump(x[0])
    return Totals.total * x[1]


def test_class_level_number_written_through_type_of_self():
    g = mc.grad(class_level_number)(X.copy())  # reverse mode read Totals.total as a constant: [0, x0^2, 0]
    np.testing.assert_allclose(g, [2 * X[0] * X[1], X[0] ** 2, 0.0], rtol=1e-12)
    with pytest.raises(UnsupportedDerivativeError):  # forward mode dropped the class attribute's tangent
        mc.jvp(class_level_number, (X.copy(),), (np.ones(3),))


class Meter:
    def __init__(self):
        self.total = 0.0
        self.log = []

    def add(self, v):
        self.total = self.total + v * v
        self.log.append(v)
        return self.total


METER = Meter()


def module_level_object_updated_by_its_method(x):
    METER.total = 0.0
    METER.log = []
    METER.add(x[0])
    return METER.add(x[1]) * x[2] + METER.log[0] * METER.total


def test_module_level_object_updated_by_its_method():
    check_derivatives(module_level_object_updated_by_its_method, X.copy())  # forward mode refused it


def test_second_order_forward_over_a_closure_that_keeps_state_is_refused():
    with pytest.raises(mc.NestingError):  # it gave 0
        mc.jacfwd(mc.jacfwd(closure_made_outside_called_twice))(1.3)


def _cached_square(v, key, cache={}):  # noqa: B006  (a mutable default kept between calls, on purpose)
    if key not in cache:
        cache[key] = v * v
    return cache[key]


def _collect(v, acc=[]):  # noqa: B006
    acc.append(v * 2.0)
    return acc


def mutable_defaults(a):
    _cached_square.__defaults__[0].clear()
    _collect.__defaults__[0].clear()
    _collect(a[0])
    out = _collect(a[1])
    return _cached_square(a[0], "k") + _cached_square(a[0], "k") * a[1] + out[0] * out[1]


def test_mutable_default_arguments_keep_their_tangent_between_calls():
    # forward mode: the cached value's tangent was lost (a fresh tangent per call); the list was refused
    check_derivatives(mutable_defaults, X.copy())


class Registry:
    entries = {}  # class-level dict, filled through instances, read through the class

    def __init__(self, name):
        self.name = name

    def put(self, v):
        self.entries[self.name] = v * 2.0

    @classmethod
    def get(cls, name):
        return cls.entries[name]


def class_level_dict(x):
    Registry.entries = {}
    Registry("a").put(x[0])
    Registry("b").put(x[1] * x[2])
    return Registry.get("a") * Registry.get("b") + len(Registry.entries)


class Model:
    def __init__(self, w):
        self.w = w
        self.acts = []

    def forward(self, x):
        h = np.tanh(self.w * x)
        self.acts.append(h)
        return h


MODEL = Model(np.array([0.5, -0.3, 1.2]))


def module_level_model_keeps_activations(x):
    MODEL.acts = []
    z = MODEL.forward(MODEL.forward(x) * 2.0)
    return np.sum(z) + np.sum(MODEL.acts[0] ** 2)


def test_class_and_module_level_state_in_both_modes():
    check_derivatives(class_level_dict, X.copy())  # both were refused
    check_derivatives(module_level_model_keeps_activations, X.copy())  # both were refused


def test_second_order_through_module_level_state():
    f = module_level_model_keeps_activations
    g = mc.grad(f)
    fd = np.array([(g(X + 1e-6 * e) - g(X - 1e-6 * e)) / 2e-6 for e in np.eye(3)])
    np.testing.assert_allclose(mc.hessian(f)(X.copy()), fd, rtol=1e-5, atol=1e-6)
    # forward over forward (once refused: both orders kept their storage in one place) keeps one per order now
    np.testing.assert_allclose(mc.jacfwd(mc.jacfwd(f))(X.copy()), fd, rtol=1e-5, atol=1e-6)


def _make_store(weights):
    state = {"acc": np.zeros(2)}

    def add(v):
        state["acc"] = state["acc"] + weights * v

    def get():
        return state["acc"]

    def clear():
        state["acc"] = np.zeros(2)
    return add, get, clear


STORE_ADD, STORE_GET, STORE_CLEAR = _make_store(np.array([0.5, 2.0]))


class Tally:
    def __init__(self):
        self.items = []

    def add(self, v):
        self.items.append(v * v)

    def result(self):
        return sum(self.items)


TALLY = Tally()


def _report():
    return TALLY.result() * 2.0


def state_read_by_calls_without_inputs(x):
    STORE_CLEAR()
    STORE_ADD(x[0])
    TALLY.items = []
    TALLY.add(x[1])
    return np.sum(STORE_GET() ** 2) + _report() * x[2]  # get(), _report(): no input-dependent operand


def test_calls_without_inputs_that_read_state_written_from_them():
    # both modes took `STORE_GET()` and `_report()` for constants (no input-dependent operand): 0
    check_derivatives(state_read_by_calls_without_inputs, X.copy())


def _with_double(v):
    return v, v * 2.0  # the argument itself, returned in a tuple


def _in_list(v):
    return [v, v * 2.0]


def _in_dict(v):
    return {"v": v, "w": v * 2.0}


def _nested(v):
    return v * 2.0, [v]


def _twice(v):
    out = v * 2.0
    return out, out  # one array in two slots


def _twice_in_list(v):
    out = v * 2.0
    return [out, out]


def argument_returned_in_a_container(a):
    p, q = _with_double(a)
    lst = _in_list(a)
    d = _in_dict(a)
    t = _nested(a)
    return (np.sum(p ** 2) + np.sum(q) + np.sum(lst[0] ** 2) + np.sum(lst[1]) + np.sum(d["v"] ** 3)
            + np.sum(d["w"]) + np.sum(t[0]) + np.sum(t[1][0] ** 2))


def one_array_in_two_slots(a):
    p, q = _twice(a)
    q[0] = 7.0
    u, w = _twice_in_list(a * 3.0)
    w[1] = 5.0
    return np.sum(p * a) + np.sum(u * a)


def test_reverse_mode_of_an_array_returned_twice_or_with_the_argument():
    # reverse mode counted the storage of `v` (or `out`) once per slot: the caller's adjoint of the argument
    # came back from the callee as a value holding that storage and was added into it again
    check_derivatives(argument_returned_in_a_container, X.copy())
    check_derivatives(one_array_in_two_slots, X.copy())


def _layer(x, W):
    h = np.tanh(W @ x)
    return h, (x, W, h)  # a cache of the arguments, as hand-written backprop code keeps one


def layer_with_cache(W):
    x = np.array([0.5, -1.0, 2.0])
    h, cache = _layer(x, W)
    h2, cache2 = _layer(h, W)
    return np.sum(h2 ** 2) + np.sum(cache[2] * cache2[0]) + np.sum(cache2[1] * W)


def test_layer_returning_a_cache_of_its_arguments():
    check_derivatives(layer_with_cache, np.array([[0.3, -0.2, 0.5], [0.1, 0.4, -0.6], [-0.3, 0.2, 0.1]]))


def _make_momentum(beta, lr):
    state = {}

    def step(name, p, g):
        v = state.get(name)
        if v is None:
            v = np.zeros_like(p)
        v = beta * v + g
        state[name] = v
        return p - lr * v

    def reset():
        state.clear()
    return step, reset


MOMENTUM_STEP, MOMENTUM_RESET = _make_momentum(0.9, 0.1)


class _Adam:
    def __init__(self, lr):
        self.lr = lr
        self.m = None
        self.t = 0

    def update(self, p, g):
        self.t += 1
        if self.m is None:
            self.m = np.zeros_like(p)
        self.m = 0.8 * self.m + 0.2 * g
        return p - self.lr * self.m / (1 - 0.8 ** self.t)


OPTIMIZER = _Adam(0.05)


def unrolled_training(w):
    MOMENTUM_RESET()
    OPTIMIZER.m, OPTIMIZER.t = None, 0
    for _ in range(3):
        w = MOMENTUM_STEP("w", w, 2.0 * w + np.sin(w))
        w = OPTIMIZER.update(w, w ** 3 - w)
    return np.sum(w ** 2)


def test_unrolled_training_with_optimizers_made_at_module_level():
    check_derivatives(unrolled_training, X.copy())  # forward mode lost the optimizers' state (wrong)


def _make_appender(buf):
    def add(v):
        buf.append(v * v)
    return add


SQUARES = []
ADD_SQUARE = _make_appender(SQUARES)


def module_list_read_by_its_bare_name(a):
    SQUARES.clear()
    ADD_SQUARE(a[0])
    ADD_SQUARE(a[1])
    return sum(SQUARES) * a[2]


def test_module_level_list_read_by_its_bare_name_in_reverse_mode():
    check_derivatives(module_list_read_by_its_bare_name, X.copy())


# --- Hunt, round 4 (helper hunt2): probes of NumPy/SciPy idioms and language corners not probed before ---

def nansum_of_a_product_with_a_nan_factor(v, w):
    return np.nansum(w * v)


@pytest.mark.xfail(strict=True, reason="reverse mode: the pullback of w * v multiplies the zero adjoint nansum gives "
                   "a NaN slot by w's NaN (0 * nan = nan); forward mode and finite differences give 0 there")
@pytest.mark.parametrize("w", [np.array([1.0, np.nan, 2.0]), np.array([np.nan, np.nan, -0.5])])
def test_nansum_of_a_product_with_a_nan_factor(w):
    check_derivatives(nansum_of_a_product_with_a_nan_factor, X.copy(), w)


M3 = np.array([[2.0, 0.3, 0.1], [0.2, 1.5, -0.4], [0.1, 0.5, 3.0]])


def determinant_alone(a):
    return np.linalg.det(a)


def expm_summed(a):
    return np.sum(scipy.linalg.expm(a))   # scipy.linalg imported inside the function: right


def batched_determinants_weighted(b):
    return np.sum(np.linalg.det(b) * np.array([1.0, -2.0]))


def expm_of_scaled_times_vector(a):
    return np.sum(scipy.linalg.expm(0.3 * a) @ np.array([0.4, -1.1, 0.7]))


B3 = np.random.default_rng(0).normal(size=(2, 3, 3)) + 3.0 * np.eye(3)


def _grad_by_finite_differences(f, a, eps=1e-5):
    g = mc.grad(f)
    out = np.zeros(a.shape + a.shape)
    for k in np.ndindex(a.shape):
        ap, am = a.copy(), a.copy()
        ap[k] += eps
        am[k] -= eps
        out[(Ellipsis,) + k] = (g(ap) - g(am)) / (2 * eps)
    return out


# jacrev's one-hot cotangents were made with np.zeros_like(output): for an output in F order (det's and expm's
# adjoints are transposes; any f returning a.T) reshape(-1) was a copy, the 1.0 was lost, and the Jacobian's rows
# came out zero.  Fixed in higher.jacrev (the basis is made in C order).
@pytest.mark.parametrize("f, a", [(determinant_alone, M3), (expm_summed, M3), (batched_determinants_weighted, B3),
                                  (expm_of_scaled_times_vector, M3)])
def test_reverse_over_grad_of_a_single_matrix_function(f, a):
    want = _grad_by_finite_differences(f, a)
    np.testing.assert_allclose(mc.hessian(f)(a), want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(mc.jacrev(mc.grad(f))(a), want, rtol=1e-4, atol=1e-5)


def _transposed(a):
    return (a * 2.0).T


def _fortran_ordered(a):
    return np.asfortranarray(np.sin(a))


def _swapped_3d(a):
    return np.swapaxes(np.stack([a, a * a]), 0, 2)


def _pair_with_a_transposed_leaf(a):
    return np.sum(a), np.exp(a).T


@pytest.mark.parametrize("f", [_transposed, _fortran_ordered, _swapped_3d, _pair_with_a_transposed_leaf])
def test_jacrev_of_an_output_not_in_c_order(f):
    want = mc.jacfwd(f)(M3)
    got = mc.jacrev(f)(M3)
    for w, g in zip(want if isinstance(want, tuple) else (want,), got if isinstance(got, tuple) else (got,)):
        assert np.abs(w).max() > 0
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


# jacfwd's one-direction-at-a-time fallback made its one-hot tangents with np.zeros_like(input): an input in F order
# (np.asfortranarray(a), a.T passed on) lost the 1.0 the same way; hessian(det) at such a point was wrong.
@pytest.mark.parametrize("f", [determinant_alone, expm_summed, expm_of_scaled_times_vector])
@pytest.mark.parametrize("layout", [np.asfortranarray, lambda a: np.ascontiguousarray(a.T).T])
def test_hessian_at_an_input_not_in_c_order(f, layout):
    want = mc.hessian(f)(M3.copy())
    np.testing.assert_allclose(mc.hessian(f)(layout(M3)), want, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(mc.jacrev(mc.grad(f))(layout(M3)), want, rtol=1e-8, atol=1e-8)


_WEIGHTS9 = np.arange(9.0)


def _ravel_in_memory_order(a):
    return np.sum(a.ravel(order="K") * _WEIGHTS9)


def _ravel_a_of_a_product(a):
    return np.sum(np.ravel(a * 2.0, "A") * _WEIGHTS9)


def _flatten_k_of_a_copy(a):
    b = np.zeros_like(a)
    b += a
    return np.sum(b.flatten("K") * _WEIGHTS9)


# check_derivatives' finite differences shifted an F-ordered input into a C-ordered array (x + h*dx with a C-ordered
# dx), so a function reading memory order disagreed with the (right) derivatives: a false "WRONG" report.  Fixed in
# testing_values._perturb (the shifted input is laid out as the input).
@pytest.mark.parametrize("f", [_ravel_in_memory_order, _ravel_a_of_a_product, _flatten_k_of_a_copy])
def test_check_derivatives_keeps_an_inputs_memory_order(f):
    check_derivatives(f, np.asfortranarray(M3))
    check_derivatives(f, M3.copy())
