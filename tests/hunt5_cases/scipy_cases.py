import numpy as np
import scipy.special as sp
import scipy.stats as st
import scipy.linalg as sl
import scipy.integrate as si
import scipy.optimize as so

X = np.array([0.7, -1.3, 2.1])
A = np.array([[0.5, -0.2, 0.1], [0.3, 0.8, -0.4], [1.1, 0.2, 0.6]])
P = np.array([0.7, 1.3, 2.1])

def lse_b(x):
    return sp.logsumexp(x, b=np.array([0.5, 2.0, 1.0]))

def lse_b_param(x):
    return sp.logsumexp(x[:2], b=x[1:] ** 2)

def lse_axis(A):
    return np.sum(sp.logsumexp(A, axis=1) * np.array([1.0, 2.0, 3.0])) + np.sum(sp.logsumexp(A, axis=0, keepdims=True))

def lse_return_sign(x):
    v, s = sp.logsumexp(x, b=np.array([1.0, -0.5, 0.2]), return_sign=True)
    return v * s

def xlogy_zero(x):
    z = np.array([0.0, x[0] ** 2, x[2]])
    return np.sum(sp.xlogy(z, np.abs(x) + 1.0)) + np.sum(sp.xlogy(np.array([0.0, 1.0, 2.0]), np.abs(x)))

def xlog1py_probe(x):
    return np.sum(sp.xlog1py(x ** 2, np.abs(x)))

def entr_probe(P):
    return np.sum(sp.entr(P / P.sum())) + np.sum(sp.rel_entr(P, P[::-1]))

def gammaln_probe(P):
    return np.sum(sp.gammaln(P * 2.0)) + np.sum(sp.digamma(P)) + np.sum(sp.betaln(P, P[::-1]))

def gamma_probe(P):
    return np.sum(sp.gamma(P)) + np.sum(sp.polygamma(1, P))

def erf_probe(x):
    return np.sum(sp.erf(x)) + np.sum(sp.erfc(x) ** 2) + np.sum(sp.ndtr(x)) + np.sum(sp.log_ndtr(x))

def expit_logit(x):
    return np.sum(sp.expit(x) * sp.logit(sp.expit(x ** 2)))

def softmax_axis(A):
    return np.sum(sp.softmax(A, axis=1) * A) + np.sum(sp.log_softmax(A, axis=0) ** 2)

def special_misc(P):
    return np.sum(sp.i0(P)) + np.sum(sp.i1(P)) + np.sum(sp.ive(0, P)) + np.sum(sp.kv(1.0, P)) + np.sum(sp.jv(0, P))

def special_log1p_expm1(x):
    return np.sum(sp.log1p(x ** 2)) + np.sum(sp.expm1(x)) + np.sum(sp.logsumexp([x, x ** 2], axis=0))

def norm_logpdf_kw(x):
    return np.sum(st.norm.logpdf(x, loc=x[0], scale=np.abs(x[1]) + 0.5))

def norm_pdf_cdf(x):
    return np.sum(st.norm.pdf(x, 0.5, 2.0)) + np.sum(st.norm.cdf(x, loc=0.1)) + np.sum(st.norm.logcdf(x, scale=x[2]))

def norm_frozen(x):
    d = st.norm(loc=x[0], scale=2.0)
    return np.sum(d.logpdf(x)) + d.mean() * d.std()

def t_logpdf(x):
    return np.sum(st.t.logpdf(x, df=3.0, loc=0.2, scale=x[2]))

def gamma_logpdf(P):
    return np.sum(st.gamma.logpdf(P, a=P[0] + 1.0, scale=2.0))

def beta_logpdf(P):
    q = P / 3.0
    return np.sum(st.beta.logpdf(q, 2.0, P[1]))

def mvn_logpdf(x):
    cov = np.array([[2.0, 0.3, 0.0], [0.3, 1.0, 0.1], [0.0, 0.1, 1.5]])
    return st.multivariate_normal.logpdf(x, mean=x ** 2, cov=cov)

def mvn_logpdf_cov(A):
    cov = A @ A.T + np.eye(3)
    return st.multivariate_normal.logpdf(np.array([0.1, 0.2, 0.3]), mean=np.zeros(3), cov=cov)

def poisson_logpmf(P):
    return np.sum(st.poisson.logpmf(np.array([1, 2, 3]), P))

def expon_laplace(P):
    return np.sum(st.expon.logpdf(P, scale=P[0])) + np.sum(st.laplace.logpdf(P, loc=1.0, scale=P[2]))

def cauchy_logistic(x):
    return np.sum(st.cauchy.logpdf(x, scale=2.0)) + np.sum(st.logistic.logpdf(x, loc=x[1]))

def lognorm_probe(P):
    return np.sum(st.lognorm.logpdf(P, s=0.5, scale=P[1]))

def dirichlet_logpdf(P):
    q = np.array([0.2, 0.3, 0.5])
    return st.dirichlet.logpdf(q, P)

def solve_probe(A):
    return np.sum(sl.solve(A, np.array([1.0, 2.0, 3.0])))

def solve_assume_pos(A):
    S = A @ A.T + np.eye(3)
    return np.sum(sl.solve(S, A[0], assume_a="pos"))

def cho_solve_probe(A):
    S = A @ A.T + np.eye(3)
    c = sl.cho_factor(S)
    return np.sum(sl.cho_solve(c, np.array([1.0, -1.0, 0.5])))

def cho_solve_lower(A):
    S = A @ A.T + np.eye(3)
    c, low = sl.cho_factor(S, lower=True)
    return np.sum(sl.cho_solve((c, low), A[:, 0]))

def cholesky_solve_tri(A):
    S = A @ A.T + np.eye(3)
    L = sl.cholesky(S, lower=True)
    z = sl.solve_triangular(L, A[1], lower=True)
    return np.sum(z ** 2)

def lu_solve_probe(A):
    lu = sl.lu_factor(A)
    return np.sum(sl.lu_solve(lu, np.array([1.0, 2.0, 3.0])))

def expm_probe(A):
    return np.sum(sl.expm(A * 0.5))

def expm_frechet_like(x):
    M = np.array([[0.0, x[0]], [-x[0], x[1]]])
    return sl.expm(M)[0, 1]

def logm_sqrtm(A):
    S = A @ A.T + np.eye(3)
    return np.sum(sl.sqrtm(S).real)

def det_inv_sl(A):
    return sl.det(A) + np.sum(sl.inv(A))

def eigh_sl(A):
    w = sl.eigh(A + A.T, eigvals_only=True)
    return np.sum(w * np.array([1.0, 2.0, 3.0]))

def block_diag_probe(A):
    return np.sum(sl.block_diag(A, A[:2, :2]) ** 2)

def toeplitz_probe(x):
    return np.sum(sl.toeplitz(x) @ x)

def ode_rhs(t, y, k):
    return -k * y

def solve_ivp_probe(x):
    sol = si.solve_ivp(ode_rhs, (0.0, 1.0), x[:2], args=(x[2] ** 2,), rtol=1e-10, atol=1e-12)
    return np.sum(sol.y[:, -1])

def solve_ivp_teval(x):
    sol = si.solve_ivp(lambda t, y: np.array([y[1], -x[0] * y[0]]), (0.0, 2.0), np.array([1.0, x[1]]),
                       t_eval=np.linspace(0.0, 2.0, 5), rtol=1e-10, atol=1e-12)
    return np.sum(sol.y[0])

def odeint_probe(x):
    ys = si.odeint(lambda y, t: -x[0] ** 2 * y + np.sin(t), x[1:], np.linspace(0.0, 1.0, 4), rtol=1e-10, atol=1e-12)
    return np.sum(ys[-1])

def quad_probe(x):
    v, err = si.quad(lambda t: np.exp(-x[0] ** 2 * t) * t, 0.0, x[2])
    return v

def quad_args(x):
    v, _ = si.quad(lambda t, a, b: a * t ** 2 + b, 0.0, 1.0, args=(x[0], x[1]))
    return v

def trapezoid_si(x):
    t = np.linspace(0.0, 1.0, 11)
    return si.trapezoid(np.sin(x[0] * t) * x[1], t) + si.simpson(t ** 2 * x[2], x=t)

def cumtrapz_si(x):
    t = np.linspace(0.0, 1.0, 5)
    return np.sum(si.cumulative_trapezoid(np.exp(x[0] * t), t))

def minimize_value(x):
    res = so.minimize(lambda p: np.sum((p - x[:2]) ** 2) + p[0] ** 4, np.zeros(2), method="BFGS", tol=1e-12)
    return res.fun

def minimize_x(x):
    res = so.minimize(lambda p: np.sum((p - x[:2]) ** 2), np.zeros(2))
    return np.sum(res.x ** 2)

def brentq_probe(x):
    r = so.brentq(lambda t: t ** 3 - x[2], 0.0, 5.0, xtol=1e-14)
    return r * x[0]

def root_scalar_probe(x):
    r = so.root_scalar(lambda t: np.cos(t) - x[0] * t, bracket=(0.0, 2.0), xtol=1e-14).root
    return r

def fsolve_probe(x):
    r = so.fsolve(lambda p: p ** 3 + p - x[2], 1.0, xtol=1e-14)
    return r[0]

def curve_fit_probe(x):
    t = np.linspace(0.0, 1.0, 6)
    y = x[0] * t + x[1]
    popt, _ = so.curve_fit(lambda t, a, b: a * t + b, t, y)
    return popt[0] * 2.0 + popt[1]

def least_squares_probe(x):
    r = so.least_squares(lambda p: p - x[:2], np.zeros(2), xtol=1e-15, ftol=1e-15, gtol=1e-15)
    return np.sum(r.x ** 2)

PROBES = []
for f in list(globals().values()):
    if callable(f) and getattr(f, "__module__", None) == __name__ and not f.__name__.startswith("ode_"):
        v = f.__code__.co_varnames[:1]
        arg = {"A": A, "P": P}.get(v[0] if v else "x", X)
        PROBES.append((f.__name__, f, (arg,)))
