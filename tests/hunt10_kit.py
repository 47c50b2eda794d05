"""The checks of hunt10: one function per transformation, each comparing a nested derivative of a probe of
tests/hunt10_cases.py with central finite differences (step 1e-5) of a first derivative (itself checked against
finite differences of the function by the "grad1" / "jac1" checks).  A check raises AssertionError with the
numbers on a mismatch; classify() turns its outcome into ok / WRONG / CRASH / REFUSED for the audit script."""
from __future__ import annotations

import copy

import numpy as np

import mooncake_ast as mc
from mooncake_ast import errors as E
import hunt10_cases as C

STEP = 1e-5
RTOL = 1e-5
ATOL = 1e-6


# ---------------------------------------------------------------- pytrees of floats and float arrays
def leaves(t):
    if isinstance(t, dict):
        return [x for k in t for x in leaves(t[k])]
    if isinstance(t, (list, tuple)):
        return [x for v in t for x in leaves(v)]
    return [t]


def flat(t):
    return np.concatenate([np.ravel(np.asarray(v, dtype=float)) for v in leaves(t)]) if leaves(t) else np.zeros(0)


def unflat(vec, like):
    pos = [0]

    def build(t):
        if isinstance(t, dict):
            return {k: build(t[k]) for k in t}
        if isinstance(t, (list, tuple)):
            return type(t)(build(v) for v in t)
        if isinstance(t, np.ndarray):
            n = t.size
            out = vec[pos[0]:pos[0] + n].reshape(t.shape).copy()
            pos[0] += n
            return out
        out = float(vec[pos[0]])
        pos[0] += 1
        return out
    return build(like)


def tree_dot(a, b):
    return float(np.dot(flat(a), flat(b)))


def direction(like, seed=0):
    rng = np.random.default_rng(seed)
    return unflat(rng.standard_normal(flat(like).size), like)


# ---------------------------------------------------------------- comparisons
def close(name, got, ref, rtol=RTOL, atol=ATOL):
    got = np.asarray(got, dtype=float)
    ref = np.asarray(ref, dtype=float)
    assert got.shape == ref.shape, f"{name}: shape {got.shape}, expected {ref.shape}"
    scale = max(1.0, float(np.max(np.abs(ref))) if ref.size else 1.0)
    err = np.abs(got - ref)
    if not np.all(err <= atol * scale + rtol * np.abs(ref)) or not np.all(np.isfinite(got)):
        i = int(np.argmax(err)) if err.size else 0
        raise AssertionError(f"{name}: max |diff| {float(np.max(err)):.3g} at flat {i}; ours "
                             f"{np.round(got.ravel()[:6], 6).tolist()} fd {np.round(ref.ravel()[:6], 6).tolist()}")


def fd_dir(g, x, v, h=STEP):
    """Central difference of g (tree -> tree) at x along v, flat."""
    xp = unflat(flat(x) + h * flat(v), x)
    xm = unflat(flat(x) - h * flat(v), x)
    return (flat(g(xp)) - flat(g(xm))) / (2 * h)


def fd_jac_flat(g, x, h=STEP):
    """Columns: central differences of flat(g) along each flat coordinate of x."""
    n = flat(x).size
    cols = []
    for j in range(n):
        e = np.zeros(n)
        e[j] = 1.0
        cols.append(fd_dir(g, x, unflat(e, x), h))
    return np.stack(cols, axis=-1)


def fresh(args):
    return copy.deepcopy(args)


def fn(name):
    return getattr(C, name)


def with_rest(f, args, i=0):
    """f as a function of argument i alone, the others fixed (for the finite-difference references)."""
    def g(x):
        a = list(fresh(args))
        a[i] = x
        return f(*a)
    return g


# ---------------------------------------------------------------- checks for S (vector in, scalar out) and T (trees)
def check_grad1(name, args):
    f = fn(name)
    g = mc.grad(f)(*fresh(args))
    ref = fd_jac_flat(lambda x: np.array([with_rest(f, args)(x)]), args[0])[0]
    close("grad", flat(g), ref)


def _grad0(name, args):
    f = fn(name)
    return lambda x: mc.grad(f)(x, *fresh(args[1:]))


def check_hessian(name, args):
    H = mc.hessian(fn(name))(*fresh(args))
    close("hessian", H, fd_jac_flat(_grad0(name, args), args[0]))


def check_jacfwd_grad(name, args):
    H = mc.jacfwd(mc.grad(fn(name)))(*fresh(args))
    close("jacfwd(grad)", H, fd_jac_flat(_grad0(name, args), args[0]))


def check_jacrev_grad(name, args):
    H = mc.jacrev(mc.grad(fn(name)))(*fresh(args))
    close("jacrev(grad)", H, fd_jac_flat(_grad0(name, args), args[0]))


def check_jvp_grad(name, args):
    v = direction(args[0], 1)
    rest = fresh(args[1:])
    g, hv = mc.jvp(mc.grad(fn(name)), (fresh(args[0]),) + tuple(rest), (v,) + (None,) * len(rest))
    close("jvp(grad) primal", flat(g), flat(mc.grad(fn(name))(*fresh(args))))
    close("jvp(grad) tangent", flat(hv), fd_dir(_grad0(name, args), args[0], v))


def check_grad_of_jvp(name, args):
    """grad of a function calling mc.jvp(f, ...) on f itself (the other arguments as primals with None tangents)."""
    f = fn(name)
    v = direction(args[0], 2)
    rest = tuple(fresh(args[1:]))

    def directional(x):
        return mc.jvp(f, (x,) + rest, (v,) + (None,) * len(rest))[1]
    hv = mc.grad(directional)(fresh(args[0]))
    close("grad(jvp)", flat(hv), fd_dir(_grad0(name, args), args[0], v))


def check_grad_of_jvp_wrapped(name, args):
    """The same through a lambda made inside the differentiated function, capturing f and the other arguments."""
    f = fn(name)
    v = direction(args[0], 2)
    rest = tuple(fresh(args[1:]))

    def directional(x):
        return mc.jvp(lambda y: f(y, *rest), (x,), (v,))[1]
    hv = mc.grad(directional)(fresh(args[0]))
    close("grad(jvp)", flat(hv), fd_dir(_grad0(name, args), args[0], v))


def check_hvp(name, args):
    v = direction(args[0], 3)
    rest = fresh(args[1:])
    hv = mc.hvp(fn(name), (fresh(args[0]),) + tuple(rest), (v,) + tuple(_zero_like(r) for r in rest))
    if len(args) > 1:
        hv = hv[0]
    close("hvp", flat(hv), fd_dir(_grad0(name, args), args[0], v))


def _zero_like(r):
    if isinstance(r, float):
        return 0.0
    if isinstance(r, np.ndarray) and r.dtype.kind == "f":
        return np.zeros_like(r)
    return None


def check_grad_of_grad_dot(name, args):
    """grad of a function calling mc.grad: d/dx <grad f(x), w> = H w."""
    f = fn(name)
    w = direction(args[0], 4)
    rest = tuple(fresh(args[1:]))

    def slope_along(x):
        return tree_dot_mc(mc.grad(f)(x, *rest), w)
    hw = mc.grad(slope_along)(fresh(args[0]))
    close("grad(grad.w)", flat(hw), fd_dir(_grad0(name, args), args[0], w))


def tree_dot_mc(g, w):
    """<g, w> written as plain code the differentiator sees (dicts, lists, arrays, floats)."""
    if isinstance(g, dict):
        s = 0.0
        for k in g:
            s = s + tree_dot_mc(g[k], w[k])
        return s
    if isinstance(g, (list, tuple)):
        s = 0.0
        for a, b in zip(g, w):
            s = s + tree_dot_mc(a, b)
        return s
    return np.sum(g * w)


def check_value_and_grad_nested(name, args):
    f = fn(name)
    w = direction(args[0], 5)
    rest = tuple(fresh(args[1:]))

    def slope_along(x):
        val, g = mc.value_and_grad(f)(x, *rest)
        return tree_dot_mc(g, w) + 0.0 * val
    val, hw = mc.value_and_grad(slope_along)(fresh(args[0]))
    close("value_and_grad(value_and_grad) value", val, tree_dot(mc.grad(f)(*fresh(args)), w))
    close("value_and_grad(value_and_grad) grad", flat(hw), fd_dir(_grad0(name, args), args[0], w))


# ---------------------------------------------------------------- R: scalar in, scalar out
def _d(f):
    return lambda t: (f(t + STEP) - f(t - STEP)) / (2 * STEP)


def check_r_grad1(name, args):
    f = fn(name)
    close("grad", mc.grad(f)(*args), _d(lambda t: f(t, *args[1:]))(args[0]))


def check_r_grad_grad(name, args):
    f = fn(name)
    gg = mc.grad(mc.grad(f))(*args)
    close("grad(grad)", gg, _d(lambda t: mc.grad(f)(t, *args[1:]))(args[0]))


def check_r_third(name, args):
    f = fn(name)
    ggg = mc.grad(mc.grad(mc.grad(f)))(*args)
    ref = _d(lambda t: mc.grad(mc.grad(f))(t, *args[1:]))(args[0])
    close("grad(grad(grad))", ggg, ref, rtol=1e-4, atol=1e-5)


def check_r_hessian(name, args):
    f = fn(name)
    close("hessian", mc.hessian(f)(*args), _d(lambda t: mc.grad(f)(t, *args[1:]))(args[0]))


def check_r_jvp_grad(name, args):
    f = fn(name)
    _, t2 = mc.jvp(mc.grad(f), tuple(args), (1.0,) + (None,) * (len(args) - 1))
    close("jvp(grad)", t2, _d(lambda t: mc.grad(f)(t, *args[1:]))(args[0]))


def check_r_grad_of_jvp(name, args):
    f = fn(name)
    rest = args[1:]
    g2 = mc.grad(lambda t: mc.jvp(f, (t,) + rest, (1.0,) + (None,) * len(rest))[1])(args[0])
    close("grad(jvp)", g2, _d(lambda t: mc.grad(f)(t, *rest))(args[0]))


def check_r_jacrev_grad(name, args):
    f = fn(name)
    close("jacrev(grad)", mc.jacrev(mc.grad(f))(*args), _d(lambda t: mc.grad(f)(t, *args[1:]))(args[0]))


# ---------------------------------------------------------------- V: vector valued
def check_jac1_fwd(name, args):
    f = fn(name)
    close("jacfwd", mc.jacfwd(f)(*fresh(args)), fd_jac_flat(with_rest(f, args), args[0]))


def check_jac1_rev(name, args):
    f = fn(name)
    close("jacrev", mc.jacrev(f)(*fresh(args)), fd_jac_flat(with_rest(f, args), args[0]))


def check_vec_hessian(name, args):
    f = fn(name)
    H = mc.hessian(f)(*fresh(args))
    ref = fd_jac_flat(lambda x: mc.jacrev(f)(x, *fresh(args[1:])), args[0])
    close("hessian (vector valued)", H, ref.reshape(H.shape) if ref.size == np.size(H) else ref)


def check_jacrev_jacfwd(name, args):
    f = fn(name)
    H = mc.jacrev(mc.jacfwd(f))(*fresh(args))
    ref = fd_jac_flat(lambda x: mc.jacfwd(f)(x, *fresh(args[1:])), args[0])
    close("jacrev(jacfwd)", H, ref.reshape(np.shape(H)) if ref.size == np.size(H) else ref)


def check_vjp_of_jvp(name, args):
    """vjp of a function calling mc.jvp: u^T d(J v)/dx, against finite differences of J v."""
    f = fn(name)
    v = direction(args[0], 6)
    rest = tuple(fresh(args[1:]))

    def jv(x):
        return mc.jvp(f, (x,) + rest, (v,) + (None,) * len(rest))[1]
    out, pb = mc.vjp(jv, fresh(args[0]))
    u = np.random.default_rng(7).standard_normal(np.shape(out))
    (got,) = pb(u)
    ref = fd_jac_flat(jv, args[0])
    close("vjp(jvp)", got, u.ravel() @ ref.reshape(u.size, -1))


# ---------------------------------------------------------------- M: several arguments
def _grads01(f, args):
    return lambda a, b: mc.grad(f, argnums=(0, 1))(a, b, *fresh(args[2:]))


def check_m_grad1(name, args):
    f = fn(name)
    ga, gb = mc.grad(f, argnums=(0, 1))(*fresh(args))
    close("grad argnums 0", ga, fd_jac_flat(lambda x: np.array([with_rest(f, args, 0)(x)]), args[0])[0])
    close("grad argnums 1", gb, fd_jac_flat(lambda x: np.array([with_rest(f, args, 1)(x)]), args[1])[0])


def check_m_hessian(name, args):
    f = fn(name)
    H = mc.hessian(f, argnums=(0, 1))(*fresh(args))
    g = _grads01(f, args)
    for j in range(2):
        def gj(x, j=j):
            a = [fresh(args[0]), fresh(args[1])]
            a[j] = x
            return list(g(*a))
        ref = fd_jac_flat(gj, args[j])
        n0 = args[0].size
        close(f"hessian[0][{j}]", H[0][j], ref[:n0])
        close(f"hessian[1][{j}]", H[1][j], ref[n0:])


def check_m_cross(name, args):
    """jacrev(grad(f, argnums=1), argnums=0): the mixed block d/da (df/db)."""
    f = fn(name)
    B = mc.jacrev(mc.grad(f, argnums=1), argnums=0)(*fresh(args))
    ref = fd_jac_flat(lambda a: mc.grad(f, argnums=1)(a, *fresh(args[1:])), args[0])
    close("jacrev(grad argnums=1, argnums=0)", B, ref)


def check_m_jvp_grad(name, args):
    f = fn(name)
    va, vb = direction(args[0], 8), direction(args[1], 9)
    _, (ta, tb) = mc.jvp(mc.grad(f, argnums=(0, 1)), tuple(fresh(args)), (va, vb) + (None,) * (len(args) - 2))
    g = _grads01(f, args)
    h = STEP
    gp = g(args[0] + h * va, args[1] + h * vb)
    gm = g(args[0] - h * va, args[1] - h * vb)
    close("jvp(grad argnums) a", ta, (gp[0] - gm[0]) / (2 * h))
    close("jvp(grad argnums) b", tb, (gp[1] - gm[1]) / (2 * h))


def check_m_hvp(name, args):
    f = fn(name)
    va, vb = direction(args[0], 10), direction(args[1], 11)
    ha, hb = mc.hvp(f, tuple(fresh(args)), (va, vb))
    g = _grads01(f, args)
    h = STEP
    gp = g(args[0] + h * va, args[1] + h * vb)
    gm = g(args[0] - h * va, args[1] - h * vb)
    close("hvp a", ha, (gp[0] - gm[0]) / (2 * h))
    close("hvp b", hb, (gp[1] - gm[1]) / (2 * h))


# ---------------------------------------------------------------- A: has_aux
def same_aux(got, want):
    try:
        np.testing.assert_equal(got, want)
    except AssertionError as e:
        raise AssertionError(f"aux {got!r} != {want!r}: {e}") from None


def _aux_grad(name):
    f = fn(name)
    return lambda x: mc.grad(f, has_aux=True)(x)[0]


def check_a_grad1(name, args):
    f = fn(name)
    g, aux = mc.grad(f, has_aux=True)(*fresh(args))
    same_aux(aux, f(*fresh(args))[1])
    close("grad has_aux", g, fd_jac_flat(lambda x: np.array([f(x)[0]]), args[0])[0])


def check_a_hessian(name, args):
    f = fn(name)
    H, aux = mc.hessian(f, has_aux=True)(*fresh(args))
    same_aux(aux, f(*fresh(args))[1])
    close("hessian has_aux", H, fd_jac_flat(_aux_grad(name), args[0]))


def check_a_jacfwd_grad(name, args):
    f = fn(name)
    H, aux = mc.jacfwd(mc.grad(f, has_aux=True), has_aux=True)(*fresh(args))
    same_aux(aux, f(*fresh(args))[1])
    close("jacfwd(grad has_aux) has_aux", H, fd_jac_flat(_aux_grad(name), args[0]))


def check_a_grad_of_vg(name, args):
    f = fn(name)
    w = direction(args[0], 12)

    def slope(x):
        (val, aux), g = mc.value_and_grad(f, has_aux=True)(x)
        return np.sum(g * w), aux
    hw, aux = mc.grad(slope, has_aux=True)(fresh(args[0]))
    close("grad(value_and_grad has_aux) has_aux", hw, fd_dir(_aux_grad(name), args[0], w))


# ---------------------------------------------------------------- which checks apply to which kind
CHECKS = {
    "S": {"grad1": check_grad1, "hessian": check_hessian, "jacfwd_grad": check_jacfwd_grad,
          "jacrev_grad": check_jacrev_grad, "jvp_grad": check_jvp_grad, "grad_jvp": check_grad_of_jvp,
          "grad_jvp_lambda": check_grad_of_jvp_wrapped, "hvp": check_hvp, "grad_grad_dot": check_grad_of_grad_dot, "vg_nested": check_value_and_grad_nested},
    "T": {"grad1": check_grad1, "jvp_grad": check_jvp_grad, "grad_jvp": check_grad_of_jvp, "hvp": check_hvp,
          "grad_grad_dot": check_grad_of_grad_dot, "vg_nested": check_value_and_grad_nested},
    "R": {"grad1": check_r_grad1, "grad_grad": check_r_grad_grad, "grad3": check_r_third,
          "hessian": check_r_hessian, "jvp_grad": check_r_jvp_grad, "grad_jvp": check_r_grad_of_jvp,
          "jacrev_grad": check_r_jacrev_grad},
    "V": {"jacfwd": check_jac1_fwd, "jacrev": check_jac1_rev, "hessian": check_vec_hessian,
          "jacrev_jacfwd": check_jacrev_jacfwd, "vjp_jvp": check_vjp_of_jvp},
    "M": {"grad1": check_m_grad1, "hessian": check_m_hessian, "cross": check_m_cross,
          "jvp_grad": check_m_jvp_grad, "hvp": check_m_hvp},
    "A": {"grad1": check_a_grad1, "hessian": check_a_hessian, "jacfwd_grad": check_a_jacfwd_grad,
          "grad_vg": check_a_grad_of_vg},
}


def all_params():
    """(name, kind, check name, args) for every probe and every check of its kind."""
    return [(name, kind, cname, args) for name, kind, args in C.CASES for cname in CHECKS[kind]]


def classify(kind, cname, name, args):
    """('ok' | 'WRONG' | 'CRASH' | 'REFUSED', detail)."""
    try:
        CHECKS[kind][cname](name, args)
        return "ok", ""
    except AssertionError as e:
        return "WRONG", str(e)[:400]
    except mc.MooncakeError as e:
        crash = not isinstance(e, (E.UnsupportedSyntaxError, E.MissingRuleError, NotImplementedError,
                                   E.UnsupportedDerivativeError, E.ControlFlowError))
        return ("CRASH" if crash else "REFUSED"), f"{type(e).__name__}: {str(e).splitlines()[0][:300]}"
    except Exception as e:  # noqa: BLE001 -- the audit records every failure
        return "CRASH", f"{type(e).__name__}: {str(e).splitlines()[0][:300] if str(e) else ''}"
