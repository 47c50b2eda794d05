"""Hunt for wrong higher-order derivatives (issue 10), hunt6: crashes (a traceback from inside the library) and
refusals of everyday code found by the realistic probes, as strict xfails whose reason starts CRASH / REFUSED (the
smallest reproduction, the nesting, the message).  Wrong numbers are in tests/test_regress_hunt6.py."""
import logging
import math
import typing

import numpy as np
import pytest

import mooncake_ast as mc
from tests.test_regress_hunt6 import V3, X3, _close, _fd, _hessian_ref


# ================================================================ findings: refusals of everyday code


def amax_squared(x):
    return np.amax(x) ** 2 * x[0]


def astype_cube(x):
    return np.sum(x.astype(np.float64) ** 3)


def item_cube(x):
    return x.item(2) ** 3 * x[0]


def complex_modulus(x):
    z = x[0] + 1j * x[1]
    return np.abs(z * z) ** 2 * x[2]


def fft_power(x):
    return np.sum(np.abs(np.fft.fft(x)) ** 2 * np.arange(3.0))


def test_second_order_of_np_amax():
    _close(mc.hessian(amax_squared)(X3.copy()), _hessian_ref(amax_squared, X3))


def test_second_order_of_astype():
    _close(mc.hessian(astype_cube)(X3.copy()), _hessian_ref(astype_cube, X3))


def test_second_order_of_item():
    _close(mc.jvp(mc.grad(item_cube), (X3.copy(),), (V3,))[1], _hessian_ref(item_cube, X3) @ V3)


def test_second_order_through_complex_intermediate():
    _close(mc.hessian(complex_modulus)(X3.copy()), _hessian_ref(complex_modulus, X3))


def ode_end_value(p):
    import scipy.integrate as si

    sol = si.solve_ivp(lambda t, y: np.array([y[1], -p[0] * y[0] - p[1] * y[1]]), (0.0, 1.0), np.array([1.0, 0.0]),
                       rtol=1e-10, atol=1e-10)
    return sol.y[0, -1] + p[2] * 0.0


def quadrature(p):
    import scipy.integrate as si

    return si.quad(lambda t: np.sin(p[0] * t) * p[1], 0.0, 1.0)[0] + p[2] ** 2


_XF_SECOND_ORDER_INTEGRATORS = pytest.mark.xfail(strict=True, reason="REFUSED: second orders (hessian, jvp(grad)) of np.fft.fft, "
                   "scipy.integrate.solve_ivp, scipy.integrate.quad (and scipy.optimize.brentq): LibraryCodeError "
                   "'cannot differentiate inspect.Signature.bind (through inspect.Signature._bind) ... reverse mode of "
                   "next' (names the library's own machinery, not the user's call); mc.grad of each works")


@pytest.mark.parametrize("f", [fft_power, pytest.param(ode_end_value, marks=_XF_SECOND_ORDER_INTEGRATORS), pytest.param(quadrature, marks=_XF_SECOND_ORDER_INTEGRATORS)], ids=["fft", "solve_ivp", "quad"])
def test_second_order_through_fft_and_scipy_integrators(f):
    x = np.array([0.8, 0.3, 0.5])
    H = mc.hessian(f)(x.copy())
    _close(H, _hessian_ref(f, x), tol=1e-4)


# ================================================================ findings: crashes


def linspace_between(x):
    return np.sum(np.sin(np.linspace(x[0], x[1], 5)) * x[2])


def test_third_order_through_linspace():
    T = _fd(lambda z: mc.hessian(linspace_between)(z.copy()), X3, h=1e-5)
    _close(mc.jacfwd(mc.hessian(linspace_between))(X3.copy()), T, tol=1e-4)


# ================================================================ findings: library calls at the second order

_B32 = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])


def least_squares(x):
    return np.sum(np.linalg.lstsq(_B32, x, rcond=None)[0] ** 2)


def test_second_order_through_lstsq():
    _close(mc.hessian(least_squares)(X3.copy()), _hessian_ref(least_squares, X3))


def _tanh_energy(x, w):
    return np.sum(np.tanh(x * w) ** 2)


def test_second_order_of_functools_partial():
    import functools

    p = functools.partial(_tanh_energy, w=np.array([1.0, 2.0, -1.0]))
    _close(mc.hessian(p)(X3.copy()), _hessian_ref(p, X3))


def mvn_logpdf(x):
    import scipy.stats as st

    return st.multivariate_normal.logpdf(x, mean=np.zeros(3), cov=np.eye(3) * 2.0)


def test_second_order_of_multivariate_normal_logpdf():
    _close(mc.hessian(mvn_logpdf)(X3.copy()), -np.eye(3) / 2.0)


def _array_default(y, w=np.array([1.0, 2.0, 3.0])):
    return np.sum(np.sin(y) * w)


def _float_default(y, scale=1.5):
    return np.sum(np.sin(y)) * scale


def test_second_order_of_function_with_array_default():
    _close(mc.hessian(_array_default)(X3.copy()), np.diag(-np.sin(X3) * np.array([1.0, 2.0, 3.0])))


def test_hessian_called_with_keyword_argument():
    _close(mc.hessian(_float_default)(X3.copy(), scale=2.0), np.diag(-np.sin(X3) * 2.0))


# ================================================================ findings: loop-carried matrix products


def matrix_power_by_loop(t):
    A = np.array([[t, 1.0], [0.5, -t]])
    P = np.eye(2)
    for _ in range(2):
        P = P @ A
    return np.sum(P)


def outer_power_by_loop(x):
    A = np.outer(x, x)
    P = np.eye(2)
    for _ in range(2):
        P = P @ A
    return np.sum(P)


@pytest.mark.parametrize("case", ["grad_grad_scalar", "hessian_vector"])
def test_second_order_of_loop_carried_matmul(case):
    if case == "grad_grad_scalar":
        _close(mc.grad(mc.grad(matrix_power_by_loop))(0.7), 4.0)
    else:
        x = np.array([0.3, 0.8])
        _close(mc.hessian(outer_power_by_loop)(x.copy()), _hessian_ref(outer_power_by_loop, x))


def kalman_log_likelihood(x):
    q, r, a = math.exp(x[0]), math.exp(x[1]), x[2]
    m, P = np.zeros(2), np.eye(2)
    A = np.array([[1.0, 0.1], [0.0, 1.0]]) * (1 + 0.1 * a)
    H = np.array([1.0, 0.0])
    ll = 0.0
    for y in [0.5, 0.2, -0.3, 0.8]:
        m = A @ m
        P = A @ P @ A.T + q * np.eye(2)
        S = H @ P @ H + r
        K = P @ H / S
        v = y - H @ m
        ll = ll - 0.5 * (math.log(2 * math.pi * S) + v * v / S)
        m = m + K * v
        P = P - np.outer(K, H @ P)
    return ll


def power_iteration(x):
    A = np.outer(x, x) + np.diag([1.0, 2.0, 3.0])
    v = np.ones(3) / math.sqrt(3)
    for _ in range(30):
        v = A @ v
        v = v / np.linalg.norm(v)
    return v @ A @ v


def rotation_chain(x):
    v = np.array([1.0, 0.0])
    for th in x:
        R = np.array([[math.cos(th), -math.sin(th)], [math.sin(th), math.cos(th)]])
        v = R @ v
    return v[0] * 2 + v[1] ** 2


def affine_recurrence(x):
    A = np.outer(x, x) * 0.2 + np.eye(3) * 0.3
    y = np.ones(3)
    for _ in range(4):
        y = A @ y + x
    return np.sum(y ** 2)


@pytest.mark.parametrize("f", [kalman_log_likelihood, power_iteration, rotation_chain, affine_recurrence],
                         ids=lambda f: f.__name__)
def test_hessian_of_loops_carrying_matmul(f):
    _close(mc.hessian(f)(X3.copy()), _hessian_ref(f, X3), tol=1e-4)


@pytest.mark.parametrize("f", [kalman_log_likelihood, power_iteration, rotation_chain, affine_recurrence],
                         ids=lambda f: f.__name__)
def test_reverse_over_forward_of_loops_carrying_matmul(f):
    """The other order of the same Hessians works (kept so that a fix of the crash keeps it)."""
    _close(mc.jacrev(mc.jacfwd(f))(X3.copy()), _hessian_ref(f, X3), tol=1e-4)


# ================================================================ findings: everyday statements inside the function

_log = logging.getLogger("mooncake_ast_hunt6")


def logs_then_cubes(x):
    _log.debug("loss at %s", x.shape)
    return np.sum(x ** 3)


@pytest.mark.parametrize("api", ["grad", "hessian"])
def test_logging_call_inside_the_function(api):
    want = 3 * X3 ** 2 if api == "grad" else np.diag(6 * X3)
    _close(getattr(mc, api)(logs_then_cubes)(X3.copy()), want)


def guarded_log(x):
    try:
        y = np.log(x ** 2 + 1)
    except FloatingPointError:
        y = x
    return np.sum(y * x)


def test_second_order_of_try_body():
    _close(mc.hessian(guarded_log)(X3.copy()), _hessian_ref(guarded_log, X3))


def local_helper_with_keyword(x):
    def weighted(a, w):
        return np.sum(a * w)
    return weighted(x, w=np.sin(x)) ** 2


def test_second_order_of_local_helper_with_keyword():
    _close(mc.hessian(local_helper_with_keyword)(X3.copy()), _hessian_ref(local_helper_with_keyword, X3))


class _Params(typing.NamedTuple):
    w: np.ndarray
    b: float


def namedtuple_inside(x):
    p = _Params(x ** 2, x[1])
    return np.sum(np.exp(p.w * p.b)) + p.w[0]


def test_second_order_of_namedtuple_built_inside():
    _close(mc.hessian(namedtuple_inside)(X3.copy()), _hessian_ref(namedtuple_inside, X3))


# ================================================================ findings: API coverage against JAX's


def two_cubics(x):
    return np.array([np.sum(x ** 3), x[0] * x[1] * x[2]])


def test_hessian_of_vector_valued_function():
    want = mc.jacfwd(mc.jacrev(two_cubics))(X3.copy())
    _close(mc.hessian(two_cubics)(X3.copy()), want)


# ================================================================ findings: methods that keep an intermediate on self

_W23 = np.array([[0.5, -0.2, 0.1], [0.3, 0.4, -0.6]])


class _NetKeepingActivations:
    def __init__(self):
        self.W = _W23.copy()
        self.last = None

    def forward(self, x):
        h = np.tanh(self.W @ x)
        self.last = h  # kept for inspection, as hand-written networks do
        return h

    def loss(self, x):
        return np.sum(self.forward(x) ** 2)


def _net_loss_by_hand(x):
    return np.sum(np.tanh(_W23 @ x) ** 2)


@pytest.mark.xfail(strict=True, reason="REFUSED: a method that stores an activation on self (`self.last = h`) before "
                   "returning: mc.hessian, mc.hvp, jvp(grad), jacrev(grad) raise NestingError 'setting attribute "
                   "'last' of an object whose tangent is a NoTangentType is not supported at this order', and mc.jacfwd "
                   "(first order) UnsupportedDerivativeError 'setattr writes a value with a derivative into a Net whose "
                   "derivative is not tracked'; mc.grad and mc.jacrev work")
@pytest.mark.parametrize("api", ["jacfwd", "hessian", "hvp"])
def test_method_keeping_activation_on_self(api):
    net = _NetKeepingActivations()
    if api == "jacfwd":
        _close(mc.jacfwd(net.loss)(X3.copy()), mc.grad(_net_loss_by_hand)(X3.copy()))
    elif api == "hessian":
        _close(mc.hessian(net.loss)(X3.copy()), mc.hessian(_net_loss_by_hand)(X3.copy()))
    else:
        _close(mc.hvp(net.loss, (X3.copy(),), (V3,)), mc.hessian(_net_loss_by_hand)(X3.copy()) @ V3)
    _close(net.last, np.tanh(_W23 @ X3))


# ================================================================ findings: NumPy functions given Python lists


def square_of_list(x):
    return np.sum(np.square([x[0], x[1] * 2.0, x[2]]))


def power_of_list(x):
    return np.sum(np.power([x[0], x[1] * 2.0], 3))


def product_of_lists(x):
    return np.sum(np.multiply([x[0], x[1]], [x[2], 2.0]) ** 2)


@pytest.mark.xfail(strict=True, reason="CRASH: NumPy functions given a Python list of differentiated numbers: "
                   "np.square([x[0], 2 x[1], x[2]]) and np.power([...], 3) fail in mc.grad, mc.jacfwd and every "
                   "nesting (TypeError \"can't multiply sequence by non-int of type 'float'\", \"unsupported operand "
                   "type(s) for ** or pow(): 'list' and 'int'\": the rules compute with the list as if an array); "
                   "np.multiply(list, list) works at first order and fails the same way at the second (np.exp, "
                   "np.sqrt, np.linalg.norm of lists work)")
@pytest.mark.parametrize("f, api", [(square_of_list, "grad"), (power_of_list, "grad"), (square_of_list, "hessian"),
                                    (product_of_lists, "hessian")],
                         ids=["square-grad", "power-grad", "square-hessian", "multiply-hessian"])
def test_numpy_functions_of_python_lists(f, api):
    x0, x1, x2 = X3
    want = {("square", "grad"): np.array([2 * x0, 8 * x1, 2 * x2]),
            ("power", "grad"): np.array([3 * x0 ** 2, 24 * x1 ** 2, 0.0]),
            ("square", "hessian"): np.diag([2.0, 8.0, 2.0]),
            ("product", "hessian"): np.array([[2 * x2 ** 2, 0, 4 * x0 * x2], [0, 8, 0], [4 * x0 * x2, 0, 2 * x0 ** 2]])}
    _close(getattr(mc, api)(f)(X3.copy()), want[f.__name__.split("_")[0], api])


def loop_lambdas_with_default(x):
    fs = [lambda y, i=i: y * x[i] for i in range(3)]
    return sum(f(x[0]) for f in fs) ** 2


def test_second_order_of_loop_lambdas_with_default():
    f = loop_lambdas_with_default
    _close(mc.hessian(f)(X3.copy()), _hessian_ref(f, X3))


# ================================================================ findings: a Newton step with mc.hessian inside


@pytest.mark.xfail(strict=True, reason="REFUSED: every second derivative (hessian, hvp, jvp(grad), grad(jvp), "
                   "jacrev(jacfwd)) of a Newton step taken inside (`g = mc.grad(loss)(w, 0.01); H = "
                   "mc.hessian(loss)(w, 0.01); loss(w - solve(H + I, g), 0.01)`, a fourth order through the inner "
                   "Hessian): NestingError 'nested derivative of loss: call it with all its parameters given "
                   "positionally (defaults, *args and keywords are not supported nested)', though every call is "
                   "positional (the message names the wrong construct); mc.grad of it works")
@pytest.mark.parametrize("nesting", ["hessian", "hvp"])
def test_second_order_of_newton_step_inside(nesting):
    from tests.hunt6_cases import newton_step_inside as f

    H = _hessian_ref(f, X3)
    if nesting == "hessian":
        _close(mc.hessian(f)(X3.copy()), H)
    else:
        _close(mc.hvp(f, (X3.copy(),), (V3,)), H @ V3)


# ================================================================ findings: third orders through linear algebra


_XF_THIRD_ORDER_EINSUM = pytest.mark.xfail(strict=True, reason="REFUSED: third order (jacfwd(hessian), jacrev(hessian), jvp of hvp) through "
                   "np.linalg.slogdet / cholesky / eigh / qr / svd, scipy.linalg.cho_solve / expm, np.einsum, np.cross, "
                   "scipy.special.logsumexp and scipy.stats logpdf with keywords: NestingError naming the library's own "
                   "helpers ('nested derivative of _complex' / '_real' / 'einsum_tangent' / 'cross_tangent': 'call it "
                   "with all its parameters given positionally'), not the user's call; the Hessians are right")


@pytest.mark.parametrize("case", ["slogdet", pytest.param("einsum", marks=_XF_THIRD_ORDER_EINSUM)])
def test_third_order_through_linear_algebra(case):
    from tests import hunt6_cases as C

    f = C.solve_and_slogdet if case == "slogdet" else C.einsum_and_where
    T = _fd(lambda z: mc.hessian(f)(z.copy()), X3, h=1e-5)
    _close(mc.jacfwd(mc.hessian(f))(X3.copy()), T, tol=1e-3)
