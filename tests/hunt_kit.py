"""The checks the hunts of hunt11 onwards apply to their probes, one function per check, shared by every probe file.

A probe file (tests/hunt11_cases.py, hunt12_cases.py, hunt13_cases.py) lists CASES as (name, x, extra): f(x, *extra)
with x a float64 vector and extra non-float constants; VECTOR names the probes whose output is a 1-D array.
`Kit(cases_module, second_every)` binds the checks to one such file:

  value     the primal the transformations return equals plain Python's f(x), and x is left unchanged
  cd_fwd    mc.testing.check_derivatives in forward mode
  cd_rev    mc.testing.check_derivatives in reverse mode
  fd        grad (scalar out) or jacrev and jacfwd (vector out) against this file's own central differences
  agree     grad, value_and_grad, vjp and jacrev (and jacfwd) give the same numbers
  second    hessian and jvp(grad) against central differences of grad (every `second_every`-th probe by position,
            since second order is the slow check)

A check raises AssertionError with the numbers on a mismatch; classify() turns the outcome into ok / WRONG / CRASH /
REFUSED for the audit scripts (scripts/hunt_audit.py)."""
from __future__ import annotations

import numpy as np

import mooncake_ast as mc
from mooncake_ast import errors as E

STEP = 1e-6
RTOL = 1e-5
ATOL = 1e-6

CHECK_NAMES = ("value", "cd_fwd", "cd_rev", "fd", "agree", "second")


def close(name, got, ref, rtol=RTOL, atol=ATOL):
    got = np.asarray(got, dtype=float)
    ref = np.asarray(ref, dtype=float)
    assert got.shape == ref.shape, f"{name}: shape {got.shape}, expected {ref.shape}"
    scale = max(1.0, float(np.max(np.abs(ref))) if ref.size else 1.0)
    err = np.abs(got - ref)
    if not np.all(err <= atol * scale + rtol * np.abs(ref)) or not np.all(np.isfinite(got)):
        i = int(np.argmax(err)) if err.size else 0
        raise AssertionError(f"{name}: max |diff| {float(np.max(err)):.3g} at flat {i}; ours "
                             f"{np.round(got.ravel()[:6], 6).tolist()} ref {np.round(ref.ravel()[:6], 6).tolist()}")


def fd_jac(g, x, h=STEP):
    """Central differences: rows the flat outputs of g, columns the entries of x."""
    cols = []
    for j in range(x.size):
        e = np.zeros_like(x)
        e[j] = h
        cols.append((np.ravel(np.asarray(g(x + e), dtype=float)) - np.ravel(np.asarray(g(x - e), dtype=float))) / (2 * h))
    return np.stack(cols, axis=-1)


def classify_error(e):
    """'REFUSED' for the library's honest refusals, 'CRASH' for every other exception."""
    if isinstance(e, mc.MooncakeError) and isinstance(e, (E.UnsupportedSyntaxError, E.MissingRuleError,
                                                           NotImplementedError, E.UnsupportedDerivativeError,
                                                           E.ControlFlowError)):
        return "REFUSED"
    return "CRASH"


class Kit:
    """The checks bound to one probe module; `second_every` may be set to 1 (audit --all-second)."""

    def __init__(self, cases, second_every=2):
        self.C = cases
        self.SECOND_EVERY = second_every
        self.CHECKS = {c: getattr(self, "check_" + c) for c in CHECK_NAMES}

    def fn(self, name):
        return getattr(self.C, name)

    def is_vector(self, name):
        return name in self.C.VECTOR

    def check_value(self, name, x, extra):
        f = self.fn(name)
        x0 = x.copy()
        want = f(x.copy(), *extra)
        if self.is_vector(name):
            got, _ = mc.jvp(f, (x, *extra), (np.ones_like(x),) + (None,) * len(extra))
        else:
            got, _ = mc.value_and_grad(f)(x, *extra)
        np.testing.assert_array_equal(x, x0, err_msg="the input was changed")
        close("primal", got, want, rtol=1e-12, atol=1e-12)

    def check_cd_fwd(self, name, x, extra):
        mc.testing.check_derivatives(self.fn(name), x.copy(), *extra, modes=("forward",))

    def check_cd_rev(self, name, x, extra):
        mc.testing.check_derivatives(self.fn(name), x.copy(), *extra, modes=("reverse",))

    def check_fd(self, name, x, extra):
        f = self.fn(name)
        ref = fd_jac(lambda v: f(v, *extra), x)
        if self.is_vector(name):
            close("jacrev", mc.jacrev(f)(x.copy(), *extra), ref.reshape(-1, x.size))
            close("jacfwd", mc.jacfwd(f)(x.copy(), *extra), ref.reshape(-1, x.size))
        else:
            close("grad", mc.grad(f)(x.copy(), *extra), ref[0])

    def check_agree(self, name, x, extra):
        f = self.fn(name)
        if self.is_vector(name):
            J = mc.jacrev(f)(x.copy(), *extra)
            close("jacfwd vs jacrev", mc.jacfwd(f)(x.copy(), *extra), J, rtol=1e-9, atol=1e-10)
            out, pb = mc.vjp(f, x.copy(), *extra)
            u = np.linspace(-1.0, 1.0, np.size(out))
            close("vjp vs jacrev", pb(u)[0], u @ J, rtol=1e-9, atol=1e-10)
            return
        g = mc.grad(f)(x.copy(), *extra)
        _, g2 = mc.value_and_grad(f)(x.copy(), *extra)
        _, pb = mc.vjp(f, x.copy(), *extra)
        g3 = pb(1.0)[0]
        g4 = mc.jacrev(f)(x.copy(), *extra)
        g5 = mc.jacfwd(f)(x.copy(), *extra)
        for label, other in (("value_and_grad", g2), ("vjp", g3), ("jacrev", g4), ("jacfwd", g5)):
            close(f"{label} vs grad", other, g, rtol=1e-9, atol=1e-10)

    def check_second(self, name, x, extra):
        f = self.fn(name)
        if self.is_vector(name):
            H = mc.jacrev(mc.jacfwd(f))(x.copy(), *extra)
            ref = fd_jac(lambda v: mc.jacfwd(f)(v, *extra), x, h=1e-5)
            close("jacrev(jacfwd)", H, ref.reshape(np.shape(H)), rtol=1e-4, atol=1e-5)
            return
        H = mc.hessian(f)(x.copy(), *extra)
        ref = fd_jac(lambda v: mc.grad(f)(v, *extra), x, h=1e-5)
        close("hessian", H, ref, rtol=1e-4, atol=1e-5)
        v = np.linspace(-1.0, 1.0, x.size)
        _, hv = mc.jvp(mc.grad(f), (x.copy(), *extra), (v,) + (None,) * len(extra))
        close("jvp(grad)", hv, ref @ v, rtol=1e-4, atol=1e-5)

    def sampled_for_second(self, name):
        names = [n for n, _, _ in self.C.CASES]
        return names.index(name) % self.SECOND_EVERY == 0

    def all_params(self):
        out = []
        for name, x, extra in self.C.CASES:
            for cname in self.CHECKS:
                if cname == "second" and not self.sampled_for_second(name):
                    continue
                out.append((name, cname, x, extra))
        return out

    def classify(self, cname, name, x, extra):
        """('ok' | 'WRONG' | 'CRASH' | 'REFUSED', detail)."""
        try:
            self.CHECKS[cname](name, x, extra)
            return "ok", ""
        except AssertionError as e:
            return "WRONG", str(e)[:400]
        except mc.testing.DerivativeCheckError as e:
            return "WRONG", f"DerivativeCheckError: {str(e)[:400]}"
        except Exception as e:  # noqa: BLE001 -- the audit records every failure
            text = str(e).splitlines()[0][:300] if str(e) else ""
            return classify_error(e), f"{type(e).__name__}: {text}"
