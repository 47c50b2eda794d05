"""Independent finite-difference checker for repro cases (truth does not come from forward mode)."""
import copy
import math
import traceback

import numpy as np

import mooncake_ast as mc


def _flat_float(x):
    return isinstance(x, float) or (isinstance(x, np.ndarray) and x.dtype.kind == "f") or \
        (isinstance(x, list) and len(x) > 0 and all(type(v) is float for v in x))


def _inner(w, y):
    if isinstance(y, (tuple, list)):
        return sum(_inner(a, b) for a, b in zip(w, y))
    if isinstance(y, dict):
        return sum(_inner(w[k], y[k]) for k in y)
    if isinstance(y, (float, np.floating)) or (isinstance(y, np.ndarray) and y.dtype.kind == "f"):
        return float(np.sum(np.asarray(w) * np.asarray(y)))
    return 0.0


def _weights(y, rng):
    if isinstance(y, tuple):
        return tuple(_weights(a, rng) for a in y)
    if isinstance(y, list):
        return [_weights(a, rng) for a in y]
    if isinstance(y, dict):
        return {k: _weights(v, rng) for k, v in y.items()}
    if isinstance(y, (float, np.floating)) and not isinstance(y, np.ndarray):
        return float(rng.normal())
    if isinstance(y, np.ndarray) and y.dtype.kind == "f":
        return rng.normal(size=y.shape)
    if isinstance(y, np.ndarray) and y.shape == ():
        return 0.0
    return mc.NoTangent() if hasattr(mc, "NoTangent") else None


def _perturb(args, i, idx, h):
    a = copy.deepcopy(args)
    if isinstance(a[i], float):
        a = a[:i] + (a[i] + h,) + a[i + 1:]
    else:
        a[i][idx] += h
    return a


def fd_grad(f, args, i, w, h=1e-6):
    x = args[i]
    if isinstance(x, float):
        fp = _inner(w, f(*_perturb(args, i, None, h)))
        fm = _inner(w, f(*_perturb(args, i, None, -h)))
        return (fp - fm) / (2 * h)
    if isinstance(x, list):
        g = np.zeros(len(x))
        for k in range(len(x)):
            fp = _inner(w, f(*_perturb(args, i, k, h)))
            fm = _inner(w, f(*_perturb(args, i, k, -h)))
            g[k] = (fp - fm) / (2 * h)
        return g
    g = np.zeros_like(x, dtype=float)
    for idx in np.ndindex(x.shape):
        fp = _inner(w, f(*_perturb(args, i, idx, h)))
        fm = _inner(w, f(*_perturb(args, i, idx, -h)))
        g[idx] = (fp - fm) / (2 * h)
    return g


def _close(a, b, tol=1e-4):
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.shape != b.shape:
        return False
    return bool(np.allclose(a, b, rtol=tol, atol=tol))


def _eq(a, b):
    try:
        if isinstance(a, (tuple, list)):
            return type(a) == type(b) and len(a) == len(b) and all(_eq(x, y) for x, y in zip(a, b))
        if isinstance(a, dict):
            return a.keys() == b.keys() and all(_eq(a[k], b[k]) for k in a)
        return bool(np.allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), equal_nan=True))
    except Exception:
        return a == b


def check(f, *args, modes=("forward", "reverse"), seed=0):
    """Return list of problems (strings). Empty = ok."""
    problems = []
    rng = np.random.default_rng(seed)
    y = f(*copy.deepcopy(args))
    w = _weights(y, rng)
    diff = [i for i, a in enumerate(args) if _flat_float(a)]
    fds = {i: fd_grad(f, args, i, w) for i in diff}
    if "reverse" in modes:
        try:
            a2 = copy.deepcopy(args)
            y2, pb = mc.vjp(f, *a2)
            if not _eq(y, y2):
                problems.append(f"reverse primal {y2!r} != {y!r}")
            grads = pb(w)
            for i in diff:
                g = grads[i]
                if isinstance(g, type(mc.NoTangent())):
                    g = np.zeros_like(np.asarray(args[i], dtype=float))
                if not _close(g, fds[i]):
                    problems.append(f"reverse arg{i}: got {g!r}, fd {fds[i]!r}")
            if not _eq(y, y2):
                problems.append(f"reverse: result changed by pullback {y2!r} != {y!r}")
        except Exception as e:  # noqa
            problems.append(f"reverse raised {type(e).__name__}: {e}".splitlines()[0][:300])
    scalar = isinstance(y, (float, np.floating)) or (isinstance(y, np.ndarray) and y.shape == ())
    if "reverse" in modes and scalar and len(diff) > 1:
        for i in diff:
            try:
                g = mc.grad(f, argnums=i)(*copy.deepcopy(args))
                expect = fds[i] / w if isinstance(w, float) and w != 0 else None
                if expect is not None and not _close(g, expect):
                    problems.append(f"grad argnums={i}: got {g!r}, fd {expect!r}")
            except Exception as e:  # noqa
                problems.append(f"grad argnums={i} raised {type(e).__name__}: {e}".splitlines()[0][:300])
    if "forward" in modes:
        try:
            a2 = copy.deepcopy(args)
            tans = []
            for i, a in enumerate(args):
                if i in diff:
                    tans.append(float(rng.normal()) if isinstance(a, float) else
                                [float(v) for v in rng.normal(size=len(a))] if isinstance(a, list) else rng.normal(size=a.shape))
                else:
                    tans.append(None)
            y2, dy = mc.jvp(f, a2, tuple(tans))
            if not _eq(y, y2):
                problems.append(f"forward primal {y2!r} != {y!r}")
            expect = sum(float(np.sum(fds[i] * np.asarray(tans[i]))) for i in diff)
            got = _inner(w, dy) if dy is not None else 0.0
            if not _close(got, expect):
                problems.append(f"forward: got {got!r}, fd {expect!r}")
        except Exception as e:  # noqa
            problems.append(f"forward raised {type(e).__name__}: {e}".splitlines()[0][:300])
    return problems


def run_module(mod, only=None):
    cases = getattr(mod, "CASES")
    bad = 0
    for name, f, args, *rest in cases:
        if only and only not in name:
            continue
        modes = rest[0] if rest else ("forward", "reverse")
        try:
            p = check(f, *args, modes=modes)
        except Exception as e:
            p = [f"reference raised {type(e).__name__}: {e}"]
        if p:
            bad += 1
            print(f"FAIL {name}:")
            for line in p:
                print("    " + line)
        else:
            print(f"ok   {name}")
    print(f"{bad} failing of {len(cases)}")
