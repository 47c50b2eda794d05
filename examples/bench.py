"""Benchmark suite (issue 9): mooncake_ast gradients against hand-written ones.

Run with `make bench` (or `python examples/bench.py`).  A plain script that prints a
Markdown table, not a timed test: timings on a shared machine are noisy, so nothing
asserts on them.

Every workload is ordinary user code (loops, ifs, in-place updates as a person writes
them) with a careful hand-written NumPy gradient.  Before timing, each row checks

* the hand-written gradient against central finite differences (random directions and
  a few coordinates), and
* `mc.grad` against the hand-written gradient,

and prints "grad ok" or "MISMATCH <rel err>" (a mismatch is a bug to report, not to
hide).  If our reverse or forward mode raises, the row says "error: ..." and the suite
goes on.

Columns: the primal; the hand-written gradient; `mc.grad` (everything included:
dispatch, forward pass, pullback); their ratio; forward mode, one `mc.jvp` (for a
scalar input that is the whole derivative, for vector inputs one directional
derivative along a random direction) and its ratio to the primal.  Times are medians
of interleaved repeats in one process, after a warm-up call (so generating and caching
the derivative is excluded); `number` is chosen per function so that each measurement
lasts at least ~20 ms.  Optional columns for autograd / jax / torch / tangent appear only
when those packages are importable (they are not dependencies).

After the table: the number of run-time helper references (`_mc.` occurrences) per
statement in each generated reverse module, issue 9's readability metric.
"""
from __future__ import annotations

import ast
import importlib.util
import math
import os
import platform
import statistics
import sys
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import numpy as np

import mooncake_ast as mc

TARGET_S = 0.02  # each measurement lasts at least this long
REPEATS = 15  # interleaved repeats per workload (median taken)
CLOCK = time.perf_counter  # --clock cpu: time.thread_time, the CPU time of this thread (see parse_options)


# ====================================================================== workloads
# Each workload is written as a user would write it; `*_grad_by_hand` is what a careful
# person writes with NumPy: the forward pass, saving what the reverse pass needs, then
# the reverse pass.


# ---------------------------------------------------------------- 1. scalar math loop
def sine_loop(x):
    s = 0.0
    for i in range(1000):
        s = s + math.sin(x * i) * math.exp(-0.001 * i)
    return s


def sine_loop_grad_by_hand(x):
    s = 0.0
    saved = []
    for i in range(1000):
        t = x * i
        e = math.exp(-0.001 * i)
        saved.append((t, e, i))
        s = s + math.sin(t) * e
    x_bar = 0.0
    for t, e, i in reversed(saved):
        x_bar += math.cos(t) * e * i
    return x_bar


# ---------------------------------------------------------------- 2. logistic regression
def logistic_loss(w, X, y):
    z = X @ w
    p = 1.0 / (1.0 + np.exp(-z))
    return -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))


def logistic_loss_grad_by_hand(w, X, y):
    z = X @ w
    p = 1.0 / (1.0 + np.exp(-z))
    return X.T @ (p - y) / y.shape[0]


# ---------------------------------------------------------------- 3. tanh MLP 32 -> 64 -> 1
def mlp_loss(W1, b1, W2, b2, X, y):
    h = np.tanh(X @ W1 + b1)
    pred = h @ W2 + b2
    err = pred - y
    return np.mean(err ** 2)


def mlp_loss_grad_by_hand(W1, b1, W2, b2, X, y):
    h = np.tanh(X @ W1 + b1)
    pred = h @ W2 + b2
    err = pred - y
    pred_bar = 2.0 * err / err.size
    W2_bar = h.T @ pred_bar
    b2_bar = pred_bar.sum(axis=0)
    z_bar = (pred_bar @ W2.T) * (1.0 - h * h)
    W1_bar = X.T @ z_bar
    b1_bar = z_bar.sum(axis=0)
    return W1_bar, b1_bar, W2_bar, b2_bar


def mlp_hvp_by_hand(W1, b1, W2, b2, X, y, dW1, db1, dW2, db2):
    """Hessian-vector product of mlp_loss w.r.t. (W1, b1, W2, b2): forward-over-reverse by hand."""
    h = np.tanh(X @ W1 + b1)
    dh = (1.0 - h * h) * (X @ dW1 + db1)
    pred = h @ W2 + b2
    dpred = dh @ W2 + h @ dW2 + db2
    n = pred.size
    pred_bar = 2.0 * (pred - y) / n
    dpred_bar = 2.0 * dpred / n
    dW2_bar = dh.T @ pred_bar + h.T @ dpred_bar
    db2_bar = dpred_bar.sum(axis=0)
    h_bar = pred_bar @ W2.T
    dh_bar = dpred_bar @ W2.T + pred_bar @ dW2.T
    s = 1.0 - h * h
    dz_bar = dh_bar * s - h_bar * 2.0 * h * dh
    dW1_bar = X.T @ dz_bar
    db1_bar = dz_bar.sum(axis=0)
    return dW1_bar, db1_bar, dW2_bar, db2_bar


# ---------------------------------------------------------------- 4. Lotka-Volterra, explicit Euler
def lotka_volterra_loss(A, r, x0, target, dt, steps):
    x = x0.copy()
    for t in range(steps):
        growth = r + A @ x
        x = x + dt * x * growth
    d = x - target
    return 0.5 * np.sum(d * d)


def lotka_volterra_grad_by_hand(A, r, x0, target, dt, steps):
    xs = []
    gs = []
    x = x0.copy()
    for t in range(steps):
        g = r + A @ x
        xs.append(x)
        gs.append(g)
        x = x + dt * x * g
    x_bar = x - target
    A_bar = np.zeros_like(A)
    r_bar = np.zeros_like(r)
    for t in range(steps - 1, -1, -1):
        x, g = xs[t], gs[t]
        u = dt * x * x_bar           # adjoint of `growth`
        r_bar += u
        A_bar += np.outer(u, x)
        x_bar = x_bar + dt * g * x_bar + A.T @ u
    return A_bar, r_bar


# ---------------------------------------------------------------- 5. Rosenbrock, n = 1e4
def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def rosenbrock_grad_by_hand(x):
    a = x[1:] - x[:-1] ** 2
    g = np.zeros_like(x)
    g[:-1] = -400.0 * a * x[:-1] - 2.0 * (1.0 - x[:-1])
    g[1:] += 200.0 * a
    return g


# ---------------------------------------------------------------- 6. data-dependent if/elif/while: Newton square roots
def newton_sqrt_sum(x):
    total = 0.0
    for i in range(x.shape[0]):
        a = x[i]
        if a < 1.0:
            r = 1.0
        elif a < 100.0:
            r = 0.5 * a
        else:
            r = 0.1 * a
        while abs(r * r - a) > 1e-12 * a:
            r = 0.5 * (r + a / r)
        total = total + r
    return total


def newton_sqrt_sum_grad_by_hand(x):
    # The reverse of the same iteration, as a person would write it for this algorithm: run each element's
    # Newton steps keeping the iterates, then walk them backwards. (The closed form 0.5 / sqrt(x) is another
    # algorithm: it skips the iteration a differentiator has to go through, so it is no baseline for one.)
    g = np.empty_like(x)
    for i in range(x.shape[0]):
        a = x[i]
        if a < 1.0:
            r, dr0 = 1.0, 0.0
        elif a < 100.0:
            r, dr0 = 0.5 * a, 0.5
        else:
            r, dr0 = 0.1 * a, 0.1
        iterates = []
        while abs(r * r - a) > 1e-12 * a:
            iterates.append(r)
            r = 0.5 * (r + a / r)
        r_bar, a_bar = 1.0, 0.0
        for r in reversed(iterates):
            a_bar += 0.5 / r * r_bar
            r_bar *= 0.5 * (1.0 - a / (r * r))
        g[i] = a_bar + dr0 * r_bar
    return g


# ---------------------------------------------------------------- 7. in-place recurrence
def inplace_recurrence(x):
    y = np.zeros_like(x)
    y[0] = np.tanh(x[0])
    for i in range(1, x.shape[0]):
        y[i] = 0.5 * y[i - 1] + np.tanh(x[i])
    return np.sum(y * y)


def inplace_recurrence_grad_by_hand(x):
    n = x.shape[0]
    t = np.tanh(x)
    y = np.empty_like(x)
    y[0] = t[0]
    for i in range(1, n):
        y[i] = 0.5 * y[i - 1] + t[i]
    y_bar = 2.0 * y
    x_bar = np.empty_like(x)
    for i in range(n - 1, 0, -1):
        x_bar[i] = y_bar[i] * (1.0 - t[i] * t[i])
        y_bar[i - 1] += 0.5 * y_bar[i]
    x_bar[0] = y_bar[0] * (1.0 - t[0] * t[0])
    return x_bar


# ====================================================================== harness


@dataclass
class Workload:
    name: str
    f: Callable
    args: tuple
    argnums: tuple  # which arguments we differentiate with respect to
    hand: Callable  # hand(*args) -> gradient (a tuple when len(argnums) > 1)
    tol: float = 1e-8  # relative tolerance: mc.grad against the hand-written gradient
    fd_tol: float = 1e-5  # relative tolerance: hand-written gradient against finite differences
    notes: list = field(default_factory=list)


def _flat(g: Any) -> np.ndarray:
    if isinstance(g, (tuple, list)):
        return np.concatenate([_flat(a) for a in g]) if g else np.zeros(0)
    return np.atleast_1d(np.asarray(g, dtype=float)).ravel()


def _rel_err(a: Any, b: Any) -> float:
    a, b = _flat(a), _flat(b)
    if a.shape != b.shape:
        return float("inf")
    return float(np.max(np.abs(a - b)) / max(1e-300, np.max(np.abs(b)), 1e-12))


def _grads_tuple(w: Workload, g: Any) -> tuple:
    return tuple(g) if len(w.argnums) > 1 else (g,)


def _perturbed(w: Workload, direction: tuple, h: float) -> tuple:
    args = list(w.args)
    for k, d in zip(w.argnums, direction):
        a = args[k]
        args[k] = a + h * d if isinstance(a, np.ndarray) else float(a) + h * float(d)
    return tuple(args)


def _random_direction(w: Workload, rng: np.random.Generator) -> tuple:
    out = []
    for k in w.argnums:
        a = w.args[k]
        out.append(rng.normal(size=a.shape) if isinstance(a, np.ndarray) else float(rng.normal()))
    return tuple(out)


def _dot(g: tuple, d: tuple) -> float:
    return float(sum(np.sum(np.asarray(a) * np.asarray(b)) for a, b in zip(g, d)))


def check_by_fd(w: Workload, g_hand: tuple, rng: np.random.Generator) -> float:
    """Worst relative error of <g_hand, v> against central differences, over random directions
    and a few coordinate directions; the step is chosen per direction from a small ladder."""
    dirs = [_random_direction(w, rng) for _ in range(3)]
    for _ in range(3):  # a few coordinates
        j = int(rng.integers(len(w.argnums)))
        d = [np.zeros_like(w.args[k]) if isinstance(w.args[k], np.ndarray) else 0.0 for k in w.argnums]
        if isinstance(d[j], np.ndarray):
            d[j].ravel()[int(rng.integers(d[j].size))] = 1.0
        else:
            d[j] = 1.0
        dirs.append(tuple(d))
    worst = 0.0
    for d in dirs:
        exact = _dot(g_hand, d)
        best = float("inf")
        for h in (1e-4, 1e-5, 1e-6, 1e-3):
            fd = (w.f(*_perturbed(w, d, h)) - w.f(*_perturbed(w, d, -h))) / (2 * h)
            best = min(best, abs(fd - exact) / max(abs(exact), 1e-8 * (1.0 + abs(float(w.f(*w.args))))))
        worst = max(worst, best)
    return worst


def measure(fns: dict, args_of: dict, repeats: int = REPEATS, target: float = TARGET_S) -> dict:
    """Median seconds per call of each function, interleaving the functions in every repeat.

    `number` (calls per measurement) is chosen per function so that one measurement lasts
    at least `target` seconds.  A warm-up call precedes everything (generation and caching
    of derivatives are excluded)."""
    numbers = {}
    for name, fn in fns.items():
        args = args_of[name]
        fn(*args)  # warm-up
        t0 = CLOCK()
        fn(*args)
        one = max(CLOCK() - t0, 1e-7)
        numbers[name] = max(1, math.ceil(target / one))
    times: dict = {k: [] for k in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            args, number = args_of[name], numbers[name]
            t0 = CLOCK()
            for _ in range(number):
                fn(*args)
            times[name].append((CLOCK() - t0) / number)
    return {k: statistics.median(v) for k, v in times.items()}


def _err(e: BaseException) -> str:
    msg = str(e).strip().splitlines()
    first = msg[0] if msg else ""
    if len(first) > 160:
        first = first[:157] + "..."
    return f"{type(e).__name__}: {first}".replace("|", "\\|")


def fmt_t(t: Optional[float]) -> str:
    if t is None:
        return "-"
    if t >= 1e-1:
        return f"{t * 1e3:.0f} ms"
    if t >= 1e-3:
        return f"{t * 1e3:.2f} ms"
    return f"{t * 1e6:.1f} us"


def helper_refs(f: Callable) -> tuple[int, int]:
    """(`_mc.` occurrences, statements) in the generated reverse module of f (after a grad call)."""
    src = mc.source(f, "reverse")
    tree = ast.parse(src)
    stmts = sum(1 for node in ast.walk(tree)
                if isinstance(node, ast.stmt) and not isinstance(node, (ast.FunctionDef, ast.Import, ast.ImportFrom)))
    return src.count("_mc."), stmts


# ---------------------------------------------------------------- optional other tools
OPTIONAL = [name for name in ("autograd", "jax", "torch", "tangent") if importlib.util.find_spec(name) is not None]


def optional_grads(w: Workload) -> dict:
    """Gradients by the optional tools, where a workload can be expressed with them (only
    the NumPy-traceable ones through autograd; others left out)."""
    out = {}
    if "autograd" in OPTIONAL and w.f in (logistic_loss, rosenbrock, mlp_loss):
        try:
            import autograd

            out["autograd"] = autograd.grad(w.f, w.argnums if len(w.argnums) > 1 else w.argnums[0])
        except Exception:  # pragma: no cover - optional
            pass
    if "tangent" in OPTIONAL and w.f in (logistic_loss, rosenbrock, sine_loop):
        try:
            import tangent

            out["tangent"] = tangent.grad(w.f, wrt=w.argnums)
        except Exception:  # pragma: no cover - optional
            pass
    return out


# ---------------------------------------------------------------- one row


def run_workload(w: Workload, rng: np.random.Generator) -> dict:
    row: dict = {"name": w.name, "notes": []}
    # --- correctness
    g_hand = _grads_tuple(w, w.hand(*w.args))
    fd_err = check_by_fd(w, g_hand, rng)
    checks = []
    if fd_err > w.fd_tol:
        checks.append(f"HAND-WRITTEN vs FD MISMATCH {fd_err:.1e}")
    argnums = w.argnums if len(w.argnums) > 1 else w.argnums[0]
    g_ours = mc.grad(w.f, argnums=argnums)
    ours_ok = True
    try:
        got = _grads_tuple(w, g_ours(*w.args))
        rel = _rel_err(got, g_hand)
        checks.append("grad ok" if rel <= w.tol else f"MISMATCH {rel:.1e}")
        row["grad_rel"] = rel
        try:
            row["refs"] = helper_refs(w.f)
        except Exception as e:
            row["refs_err"] = _err(e)
    except Exception as e:
        ours_ok = False
        checks.append(f"reverse error: {_err(e)}")
        row["notes"].append(("reverse", traceback.format_exc()))
    # forward mode: one jvp along a random direction (the whole derivative for a scalar input)
    direction = _random_direction(w, rng)
    tangents = [None] * len(w.args)
    for k, d in zip(w.argnums, direction):
        tangents[k] = d
    tangents = tuple(tangents)
    fwd_ok = True
    try:
        _, dy = mc.jvp(w.f, w.args, tangents)
        expect = _dot(g_hand, direction)
        rel = abs(float(dy) - expect) / max(abs(expect), 1e-12)
        if rel > max(w.tol, 1e-8):
            checks.append(f"jvp MISMATCH {rel:.1e}")
        else:
            checks.append("jvp ok")
    except Exception as e:
        fwd_ok = False
        checks.append(f"forward error: {_err(e)}")
        row["notes"].append(("forward", traceback.format_exc()))
    row["check"] = "; ".join(checks)

    # --- timing
    fns = {"primal": w.f, "hand": w.hand}
    args_of = {"primal": w.args, "hand": w.args}
    if ours_ok:
        fns["ours"] = g_ours
        args_of["ours"] = w.args
    if fwd_ok:
        fns["fwd"] = lambda *a: mc.jvp(w.f, a[0], a[1])
        args_of["fwd"] = (w.args, tangents)
    for tool, g in optional_grads(w).items():
        fns[tool] = g
        args_of[tool] = w.args
    t = measure(fns, args_of)
    row["t"] = t
    return row


def run_hvp(W1, b1, W2, b2, X, y, rng: np.random.Generator) -> dict:
    """Hessian-vector product of the MLP loss as JAX spells it, `mc.jvp(mc.grad(f))` (its tangent), against the
    gradient of the same loss (issue 10's target: at most 4x) and a hand-written HVP."""
    row: dict = {"name": "MLP loss Hessian-vector product (mc.jvp(mc.grad(f)))", "notes": []}
    params = (W1, b1, W2, b2)
    v = tuple(rng.normal(size=p.shape) for p in params)
    hvp_hand = lambda: mlp_hvp_by_hand(W1, b1, W2, b2, X, y, *v)  # noqa: E731
    h_hand = hvp_hand()
    # hand-written HVP against central differences of the hand-written gradient
    fd_worst = float("inf")
    for h in (1e-4, 1e-5, 1e-6):
        gp = mlp_loss_grad_by_hand(*(p + h * d for p, d in zip(params, v)), X, y)
        gm = mlp_loss_grad_by_hand(*(p - h * d for p, d in zip(params, v)), X, y)
        fd = tuple((a - b) / (2 * h) for a, b in zip(gp, gm))
        fd_worst = min(fd_worst, _rel_err(h_hand, fd))
    checks = [] if fd_worst <= 1e-5 else [f"HAND-WRITTEN vs FD MISMATCH {fd_worst:.1e}"]
    g = mc.grad(mlp_loss, argnums=(0, 1, 2, 3))
    ours = lambda: mc.jvp(g, (W1, b1, W2, b2, X, y), (*v, None, None))[1]  # noqa: E731
    ok = True
    try:
        got = ours()
        rel = _rel_err(got, h_hand)
        checks.append("hvp ok" if rel <= 1e-8 else f"MISMATCH {rel:.1e}")
    except Exception as e:
        ok = False
        row["na"] = f"n/a ({type(e).__name__})"
        checks.append(f"error: {_err(e)}")
        row["notes"].append(("hvp", traceback.format_exc()))
    fns = {"primal": lambda: mlp_loss(W1, b1, W2, b2, X, y), "hand": hvp_hand, "grad": lambda: g(W1, b1, W2, b2, X, y)}
    if ok:
        fns["ours"] = ours
    row["t"] = measure(fns, {k: () for k in fns})
    if ok:
        checks.append(f"HVP / mc.grad = {row['t']['ours'] / row['t']['grad']:.2f} (target <= 4)")
    row["check"] = "; ".join(checks)
    return row


def jac8(x):
    """An 8 -> 8 function for the jacfwd row: a matrix product, elementwise maps and a reduction."""
    h = np.tanh(JAC8_A @ x)
    return h * x + np.sin(x) * np.sum(x ** 2) / 8.0


def jac8_by_hand(x):
    h = np.tanh(JAC8_A @ x)
    s = np.sum(x ** 2) / 8.0
    return (np.diag(h + np.cos(x) * s) + (x * (1.0 - h ** 2))[:, None] * JAC8_A
            + np.outer(np.sin(x), x) / 4.0)


JAC8_A = np.random.default_rng(8).normal(size=(8, 8)) / 3.0


def run_jacfwd(rng: np.random.Generator) -> dict:
    """`mc.jacfwd` of an 8 -> 8 function against one `mc.jvp` of it (issue 10's target: at most 3x)."""
    row: dict = {"name": "jacfwd, 8 -> 8 (vs one mc.jvp)", "notes": []}
    x, dx = rng.normal(size=8), rng.normal(size=8)
    J = mc.jacfwd(jac8)
    checks = []
    ok = True
    try:
        got = J(x)
        fd = np.stack([(jac8(x + 1e-6 * e) - jac8(x - 1e-6 * e)) / 2e-6 for e in np.eye(8)], axis=1)
        if _rel_err(jac8_by_hand(x), fd) > 1e-6:
            checks.append("HAND-WRITTEN vs FD MISMATCH")
        rel = _rel_err(got, jac8_by_hand(x))
        checks.append("jacfwd ok" if rel <= 1e-10 else f"MISMATCH {rel:.1e}")
        from mooncake_ast import higher  # did the one batched pass carry all 8 directions (or one pass each)?
        checks.append("one batched pass" if (jac8.__code__, ((8,),)) not in higher._NO_BATCH else "8 passes (no batch)")
    except Exception as e:
        ok = False
        row["na"] = f"n/a ({type(e).__name__})"
        checks.append(f"error: {_err(e)}")
        row["notes"].append(("jacfwd", traceback.format_exc()))
    fns = {"primal": lambda: jac8(x), "hand": lambda: jac8_by_hand(x), "fwd": lambda: mc.jvp(jac8, (x,), (dx,))}
    if ok:
        fns["ours"] = lambda: J(x)
    row["t"] = measure(fns, {k: () for k in fns})
    if ok:
        checks.append(f"jacfwd / jvp = {row['t']['ours'] / row['t']['fwd']:.2f} (target <= 3)")
    row["check"] = "; ".join(checks)
    return row


# ---------------------------------------------------------------- table


def print_table(rows: list) -> None:
    head = ["workload", "primal", "hand-written grad", "mc.grad", "ratio (mc/hand)", "fwd (1 jvp)",
            "fwd/primal"] + [f"{tool} grad" for tool in OPTIONAL] + ["check"]
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join(["---"] + ["---:"] * (len(head) - 2) + ["---"]) + "|")
    for r in rows:
        t = r["t"]
        ours = t.get("ours")
        fwd = t.get("fwd")
        na = r.get("na", "error")
        cells = [
            r["name"],
            fmt_t(t["primal"]),
            fmt_t(t["hand"]),
            fmt_t(ours) if ours is not None else na,
            f"{ours / t['hand']:.2f}" if ours is not None else "-",
            fmt_t(fwd) if fwd is not None else ("-" if "hvp" in r["name"].lower() or "Hessian" in r["name"] else "error"),
            f"{fwd / t['primal']:.2f}" if fwd is not None else "-",
        ]
        for tool in OPTIONAL:
            cells.append(fmt_t(t[tool]) if tool in t else "-")
        cells.append(r["check"])
        print("| " + " | ".join(cells) + " |")


def machine_line() -> str:
    proc = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    proc = f"{proc} ({line.split(':', 1)[1].strip()})"
                    break
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (f"Machine: {proc}, {cores} cores, {platform.system()} {platform.release()}, "
            f"Python {platform.python_version()}, NumPy {np.__version__}, mooncake_ast {mc.__version__}")


def parse_options(argv: Optional[list] = None) -> Any:
    import argparse

    ap = argparse.ArgumentParser(description="mooncake_ast benchmark table (issue 9)")
    ap.add_argument("--only", default="", help="comma-separated substrings: run only the workloads whose name "
                    "contains one of them, case-insensitive (e.g. --only logistic,in-place); extra rows "
                    "(Hessian-vector product, jacfwd) only when named (hessian, jacfwd)")
    ap.add_argument("--repeats", type=int, default=REPEATS, help="interleaved repeats per workload (median taken)")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="wall: elapsed time (the default); cpu: this thread's CPU time (time.thread_time), steadier on "
                    "a machine other processes load (it leaves out the time spent waiting for a core; BLAS threads "
                    "other than this one are not counted, so matrix products look cheaper than they are)")
    return ap.parse_args(argv)


def _wanted(name: str, only: list) -> bool:
    return not only or any(o in name.lower() for o in only)


def main() -> None:
    global REPEATS, CLOCK
    opts = parse_options()
    REPEATS = opts.repeats
    CLOCK = time.thread_time if opts.clock == "cpu" else time.perf_counter
    measure.__defaults__ = (REPEATS, TARGET_S)
    only = [o.strip().lower() for o in opts.only.split(",") if o.strip()]
    t_start = time.perf_counter()
    rng = np.random.default_rng(0)

    X = rng.normal(size=(1000, 100))
    y = (rng.random(1000) < 0.5).astype(float)
    w = rng.normal(size=100) * 0.1

    Xm = rng.normal(size=(64, 32))
    ym = rng.normal(size=(64, 1))
    W1 = rng.normal(size=(32, 64)) / math.sqrt(32)
    b1 = rng.normal(size=64) * 0.1
    W2 = rng.normal(size=(64, 1)) / 8.0
    b2 = rng.normal(size=1) * 0.1

    d = 10
    A = -0.5 * np.eye(d) + 0.05 * rng.normal(size=(d, d))
    r = 0.5 + 0.1 * rng.random(d)
    x0 = 0.5 + rng.random(d)
    target = np.ones(d)

    workloads = [
        Workload("scalar `math` loop, 1000 iterations", sine_loop, (0.3,), (0,), sine_loop_grad_by_hand),
        Workload("logistic regression, X 1000x100", logistic_loss, (w, X, y), (0,), logistic_loss_grad_by_hand),
        Workload("tanh MLP 32-64-1, batch 64", mlp_loss, (W1, b1, W2, b2, Xm, ym), (0, 1, 2, 3),
                 mlp_loss_grad_by_hand),
        Workload("Lotka-Volterra d=10, Euler 200 steps", lotka_volterra_loss, (A, r, x0, target, 0.01, 200), (0, 1),
                 lotka_volterra_grad_by_hand),
        Workload("Rosenbrock n=1e4", rosenbrock, (rng.normal(size=10_000) * 0.5 + 1.0,), (0,), rosenbrock_grad_by_hand,
                 fd_tol=1e-4),
        Workload("Newton sqrt, if/elif/while, 100 elements", newton_sqrt_sum, (rng.uniform(0.1, 400.0, size=100),),
                 (0,), newton_sqrt_sum_grad_by_hand, tol=1e-6),
        Workload("in-place `y[i] = 0.5*y[i-1] + tanh(x[i])`, 200", inplace_recurrence, (rng.normal(size=200),), (0,),
                 inplace_recurrence_grad_by_hand),
    ]

    rows = []
    for wl in workloads:
        if not _wanted(wl.name, only):
            continue
        print(f"... {wl.name}", file=sys.stderr, flush=True)
        rows.append(run_workload(wl, rng))
    if _wanted("mlp loss hessian-vector product", only):
        print("... MLP Hessian-vector product", file=sys.stderr, flush=True)
        rows.append(run_hvp(W1, b1, W2, b2, Xm, ym, rng))
    if _wanted("jacfwd 8 -> 8", only):
        print("... jacfwd 8 -> 8", file=sys.stderr, flush=True)
        rows.append(run_jacfwd(rng))

    print()
    print_table(rows)
    print()
    print(machine_line())
    print(f"Times ({'CPU time of the thread' if opts.clock == 'cpu' else 'wall clock'}): medians of {REPEATS} "
          f"interleaved repeats, each >= {TARGET_S * 1e3:.0f} ms, after a warm-up call. "
          "mc.grad includes dispatch, forward pass and pullback; fwd (1 jvp) is one mc.jvp along a random direction "
          "(the whole derivative for the scalar loop).")
    if not OPTIONAL:
        print("Optional columns (autograd, jax, torch, tangent): none installed.")

    print()
    print("Readability (issue 9): run-time helper references in the generated reverse module")
    print()
    print("| workload | `_mc.` refs | statements | refs / statement |")
    print("|---|---:|---:|---:|")
    for r_ in rows:
        if "refs" in r_:
            n, s = r_["refs"]
            print(f"| {r_['name']} | {n} | {s} | {n / max(s, 1):.2f} |")
        elif "refs_err" in r_:
            print(f"| {r_['name']} | error: {r_['refs_err']} | | |")
    notes = [(r_["name"], kind, tb) for r_ in rows for kind, tb in r_["notes"]]
    if notes:
        print()
        print("Errors (tracebacks):")
        for name, kind, tb in notes:
            print(f"\n[{name}] {kind}:\n{tb}")
    print(f"\n(total {time.perf_counter() - t_start:.0f} s)")


if __name__ == "__main__":
    main()
