"""Test inputs of the rules added by the lang helper's fourth pass on issue 12 (scipy.linalg.funm and signm,
scipy.special.sph_harm_y, huber/pseudo_huber in delta, logsumexp with return_sign=True, rvs of continuous
distributions in loc and scale, multivariate_normal.cdf with lower_limit=, np.interp's left=/right= by keyword in
reverse mode, solve_ivp with events that do not stop the solver) and the zero-derivative helpers of
the new constructs (`with suppress(...)`/`nullcontext(...)`, classes defined inside a function, managers made by
@contextlib.contextmanager): merged into CASES / ZERO_CASES of tests/test_rules.py by catalog name, so each is
checked by check_derivatives in both modes."""
import contextlib

import numpy as np

from rule_case_kit import kit

F, Case = kit("lang15 rule case", globals())
C = Case
try:
    import scipy.integrate as si
    import scipy.linalg as sl
    import scipy.special as sp
    import scipy.stats as st
except ImportError:  # SciPy is optional
    si = sl = sp = st = None

P = np.array([0.3, 0.6, 0.2, 0.8])
R = np.array([-2.0, -0.3, 0.1, 0.8])
N3 = np.array([[0.4, -0.9, 0.3], [0.8, 0.2, -0.5], [0.1, 0.6, -0.3]])  # (a pair of complex eigenvalues)
S3 = np.array([[1.0, 0.2, 0.1], [0.2, 0.8, -0.3], [0.1, -0.3, 0.6]])
C2 = np.array([[1.0, 0.3], [0.3, 2.0]])
X2 = np.array([0.5, 0.2])
L2 = np.array([-0.3, -1.0])
_IVP_TIGHT = "rtol=1e-10, atol=1e-12"


def _decay(t, y, k):
    return -k * y


def _half(t, y, k):
    return y[0] - 0.5


def _second(t, y, k):
    return y[1] - 0.8 * k


_MVN_TIGHT = "abseps=1e-12, releps=1e-12, maxpts=20000, rng=np.random.default_rng(0)"


# ------------------------------------------------------------------ the constructs' helpers (zero derivative)
def with_suppress(x, i):
    s = x[0] * 2.0
    with contextlib.suppress(IndexError):
        s = s * x[i]
    with contextlib.nullcontext(x * 3.0) as y:
        s = s + y[1]
    return s


def local_class(w, x):
    class Lin:
        def __init__(self, w):
            self.w = w

        def __call__(self, u):
            return np.tanh(self.w * u)

    return np.sum(Lin(w)(x))


@contextlib.contextmanager
def _quiet(state):
    state["quiet"] = True
    yield
    state["quiet"] = False


def with_generator_manager(x):
    state = {"quiet": False}
    with _quiet(state):
        y = np.sin(x) * (2.0 if state["quiet"] else 1.0)
    return y


def with_library_manager(x):
    with np.errstate(all="ignore"):
        y = x * x
    return y


_S = "mooncake_ast.frontend.stmt_ops."
LANG15_ZERO_CASES = {
    _S + "check_callee": Case(with_suppress, P, 7),
    # (build_class has a derivative since issue 12's sixth pass: its cases are in rule_cases_lang17.py)
    _S + "opaque_enter_unbound": Case(with_library_manager, P),
    "contextlib._GeneratorContextManager": Case(with_generator_manager, P),
}


XI = np.array([-0.5, 0.2, 0.7, 1.4])
NUMPY_CASES = {np.interp: [C("lambda x, l, r: np.interp(x, [0.0, 0.5, 1.0], P[:3], left=l, right=r * 2.0)", XI, 0.4, -0.3),
                           C("lambda x, fp: np.interp(x, [0.0, 0.5, 1.0], fp, left=0.0, right=fp[-1])", XI, P[1:])]}


def lang15_cases(entries):
    """The cases by catalog name (`entries`: catalog())."""
    names = {e.key: e.name for e in entries}
    if sp is None:
        return {names[k]: v for k, v in NUMPY_CASES.items() if k in names}
    mvn = type(st.multivariate_normal)
    frozen = st._multivariate.multivariate_normal_frozen
    cases = {
        sl.funm: [C("lambda a: sl.funm(a, np.exp)", S3 * 0.5), C("lambda a: sl.funm(a, lambda z: np.sin(z) + z * z)", N3),
                  C("lambda a: sl.funm(a, np.exp)", N3 + 0.4j * S3)],
        sl.signm: [C("lambda a: sl.signm(a)", N3), C("lambda a: sl.signm(a - 0.7 * np.eye(3))", S3),
                   C("lambda a: sl.signm(a)", N3 + 0.4j * S3)],  # (complex: both modes, defcomplex)
        sp.sph_harm_y: [C("lambda t, p: sp.sph_harm_y(3, -2, t, p)", P + 0.5, P * 3.0),
                        C("lambda t: np.real(sp.sph_harm_y(np.array([[1], [2]]), 1, t, 0.4))", 0.7)],
        sp.huber: [C("lambda d, r: sp.huber(d, r)", 0.7, R), C("lambda d: sp.huber(d, R)", P + 0.5)],
        sp.pseudo_huber: [C("lambda d, r: sp.pseudo_huber(d, r)", 0.7, R), C("lambda d: sp.pseudo_huber(d, R)", P + 0.5)],
        sp.logsumexp: [C("lambda a, b: sp.logsumexp(a, axis=0, b=b, return_sign=True)[0]", R.reshape(2, 2), np.array([1.0, -2.0])),
                       C("lambda a: sp.logsumexp(a, return_sign=True)", R)],
        (st.rv_continuous, "rvs"): [C("lambda s: st.expon.rvs(scale=s, size=3, random_state=0)", 1.3),
                                    C("lambda m, s: st.norm.rvs(m, s, size=(2, 4), random_state=1)", P, 0.7),
                                    C("lambda m, s: st.gamma.rvs(2.0, m, s, random_state=np.random.default_rng(3))", 0.5, 1.5)],
        (mvn, "cdf"): [C("lambda x, l: st.multivariate_normal.cdf(x, np.zeros(2), C2, lower_limit=l)", X2, L2),
                       C("lambda x, m, c: st.multivariate_normal.cdf(x, m, c, lower_limit=np.array([-np.inf, -1.0]))",
                         X2, np.array([0.1, -0.2]), C2),
                       C(f"lambda l: st.multivariate_normal.cdf(np.array([0.5, 0.2, 0.9]), np.zeros(3), S3, lower_limit=l, "
                         f"{_MVN_TIGHT})", np.array([-0.3, -1.0, 0.1]), rtol=1e-4)],
        (mvn, "logcdf"): [C("lambda x, m: st.multivariate_normal.logcdf(x, m, C2, lower_limit=L2)",
                            np.array([[0.5, 0.2], [0.1, 0.9]]), np.array([0.1, -0.2]))],
        (frozen, "cdf"): [C("lambda l: st.multivariate_normal(np.zeros(2), C2).cdf(X2, lower_limit=l)", L2)],
        si.solve_ivp: [C(f"lambda k, y0: si.solve_ivp(_decay, (0.0, 2.0), y0, events=_half, args=(k,), {_IVP_TIGHT}).y[:, -1]",
                         0.8, np.array([1.0, 2.0])),  # (events that do not stop the solver: y as without them)
                       C(f"lambda k, y0: (lambda r: r.t_events[0] * 2.0 + r.y_events[1][0] ** 2)(si.solve_ivp(_decay, "
                         f"(0.0, 2.0), y0, events=[_half, _second], args=(k,), {_IVP_TIGHT}))", 0.8, np.array([1.0, 2.0]),
                         modes=("forward",))],  # (their times and states: forward mode; reverse refuses: test_rules_lang15.py)
    }
    cases.update(NUMPY_CASES)
    return {names[k]: v for k, v in cases.items() if k in names}
