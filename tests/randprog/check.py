"""An independent checker for generated programs: the truth comes from plain calls and
central finite differences, never from our own forward mode.

For a program f and its arguments it checks
  * jvp:  the primal against a plain call; the tangent against finite differences along the
          same direction; the arguments afterwards against a plain call;
  * vjp:  the primal against a plain call; the adjoint of every float argument against the
          finite-difference gradient of <w, f(args)> for a random w; the result and the
          arguments after the pullback against a plain call (DESIGN §2: the caller sees the
          plain call's effect, once).
and classifies the program:
  ok       every number agrees
  WRONG    a number disagrees (the worst outcome)
  CRASH    an exception that is not a MooncakeError, from the library or generated code
  REFUSED  a MooncakeError (a clear refusal: counted, not a failure)
  NOISY    finite differences disagree with themselves (a kink or a branch threshold near the
           point): no verdict on the numbers
  INVALID  the plain call fails or overflows: a generator bug, not a library bug
"""
from __future__ import annotations

import copy
import dataclasses
import importlib.util
import itertools
import os
import re
import sys
import traceback

import numpy as np

ORDER = ["WRONG", "CRASH", "REFUSED", "NOISY", "INVALID", "ok"]
RTOL, ATOL = 1e-4, 1e-6
_counter = itertools.count()


class FDError(Exception):
    """A perturbed plain call failed: no verdict (the generator made a fragile program)."""


class Timeout(BaseException):
    """Raised (by a SIGALRM handler the caller installs) when a program runs too long."""


@dataclasses.dataclass
class Result:
    cls: str                      # ok / WRONG / CRASH / REFUSED / NOISY / INVALID
    problems: list                # (cls, mode, kind, detail)
    family: str = ""

    @property
    def signature(self) -> str:
        """A short key grouping failures that are probably the same bug."""
        for c in ORDER:
            for cls, mode, kind, _ in self.problems:
                if cls == c:
                    return f"{cls} {mode}: {kind}"
        return "ok"

    def describe(self) -> str:
        return "\n".join(f"{cls} {mode}: {kind}: {detail}" for cls, mode, kind, detail in self.problems)


# ------------------------------------------------------------------ loading

def load_program(prog, directory: str, name: str | None = None, isolate: bool = True):
    """Write the program to a real module file, import it, return (f, args, path)."""
    k = next(_counter)
    name = name or f"randprog_{os.getpid()}_{k}"
    path = os.path.join(directory, name + ".py")
    with open(path, "w") as fh:
        # Leading blank lines, a different number for every program loaded in this process, keep
        # the code objects of two programs unequal (code equality ignores the file but not the
        # first line number): derived rules are cached per code object, and equal code in two
        # modules shares one rule today (see scripts/random_findings.md, "same code in two
        # modules"), which would make one program's verdict depend on the programs before it.
        fh.write("\n" * k if isolate else "")
        fh.write(prog.script())
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module.f, tuple(module.ARGS), path


# ------------------------------------------------------------------ values

def _is_float_leaf(x) -> bool:
    return isinstance(x, (float, np.floating)) or (isinstance(x, np.ndarray) and x.dtype.kind == "f")


def _is_float_list(x) -> bool:
    return type(x) is list and bool(x) and all(type(v) is float for v in x)


def flatten(y) -> np.ndarray:
    """Every float in y, in a fixed order (ints, bools, None and strings carry no derivative)."""
    out = []

    def walk(v):
        if isinstance(v, (tuple, list)):
            for e in v:
                walk(e)
        elif isinstance(v, dict):
            for k in v:
                walk(v[k])
        elif _is_float_leaf(v):
            out.append(np.asarray(v, dtype=float).ravel())
    walk(y)
    return np.concatenate(out) if out else np.zeros(0)


def flatten_tangent(dy, y) -> np.ndarray:
    """The tangent dy laid out like flatten(y); a missing or NoTangent tangent counts as zeros."""
    out = []

    def walk(d, v):
        if isinstance(v, (tuple, list)):
            if not isinstance(d, (tuple, list)) or len(d) != len(v):
                for e in v:
                    walk(None, e)
                return
            for de, e in zip(d, v):
                walk(de, e)
        elif isinstance(v, dict):
            for k in v:
                walk(d.get(k) if isinstance(d, dict) else None, v[k])
        elif _is_float_leaf(v):
            size = np.asarray(v).size
            if d is None or not isinstance(d, (float, int, np.number, np.ndarray)) or isinstance(d, bool):
                out.append(np.zeros(size))
            else:
                arr = np.asarray(d, dtype=float)
                if arr.size != size:
                    raise ValueError(f"tangent of shape {arr.shape} for a value of shape {np.shape(v)}")
                out.append(arr.ravel())
    walk(dy, y)
    return np.concatenate(out) if out else np.zeros(0)


def same(a, b) -> bool:
    """Plain-call equality: same structure, same numbers (to rounding)."""
    if isinstance(a, (tuple, list)) or isinstance(b, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) or isinstance(b, dict):
        return isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    try:
        x, y = np.asarray(a), np.asarray(b)
        if x.shape != y.shape:
            return False
        return bool(np.allclose(x.astype(float), y.astype(float), rtol=1e-9, atol=1e-12, equal_nan=True))
    except Exception:
        return a == b


def _weights(y, rng):
    return rng.normal(size=flatten(y).size)


def _perturbed(args, i, idx, h):
    a = copy.deepcopy(args)
    if isinstance(a[i], (np.ndarray, list)):
        a[i][idx] += h
        return a
    return a[:i] + (a[i] + h,) + a[i + 1:]


def _along(args, tans, h):
    a = copy.deepcopy(args)
    return tuple(x + h * t if t is not None and not isinstance(x, list) else
                 [v + h * dv for v, dv in zip(x, t)] if t is not None else x for x, t in zip(a, tans))


def _call_flat(f, args):
    with np.errstate(all="ignore"):
        return flatten(f(*args))


def _close(ad, fd, scale) -> bool:
    ad, fd = np.asarray(ad, dtype=float), np.asarray(fd, dtype=float)
    if ad.shape != fd.shape:
        return False
    tol = ATOL * max(1.0, scale) + RTOL * np.maximum(np.abs(fd), np.abs(ad))
    return bool(np.all(np.abs(ad - fd) <= tol))


STEPS = (1e-6, 1e-4)


def fd_gradient(f, args, i, w, h):
    x = args[i]
    if isinstance(x, (np.ndarray, list)):
        g = np.zeros(np.shape(x))
        for idx in (np.ndindex(x.shape) if isinstance(x, np.ndarray) else range(len(x))):
            g[idx] = (w @ _call_flat(f, _perturbed(args, i, idx, h)) - w @ _call_flat(f, _perturbed(args, i, idx, -h))) / (2 * h)
        return g
    return float((w @ _call_flat(f, _perturbed(args, i, None, h)) - w @ _call_flat(f, _perturbed(args, i, None, -h))) / (2 * h))


# ------------------------------------------------------------------ the check

def _message(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}"[:300]


def normalise(msg: str) -> str:
    """An exception message with its particulars (paths, numbers, names' SSA suffixes) blurred."""
    msg = re.sub(r"(/[^\s:'\"]+)+\.py(:\d+)*(:\d+)?", "<file>", msg)
    msg = re.sub(r"0x[0-9a-f]+", "<addr>", msg)
    msg = _blur_module(msg)
    msg = re.sub(r"\bL\d+\b", "L", msg)                       # IR block labels
    msg = re.sub(r"\b([A-Za-z][A-Za-z0-9]*)_\d+(?=\b|_)", r"\1_N", msg)  # numbered helpers (forelse_3)
    msg = re.sub(r"\b\d+(\.\d+)?(e-?\d+)?\b", "N", msg)
    msg = re.sub(r"'([A-Za-z_]+?)_?\d*'", r"'\1'", msg)
    msg = re.sub(r"array\([^)]*\)", "array(..)", msg)
    return msg[:160]


def _blur_module(name: str) -> str:
    name = re.sub(r"randprog_\d+_\d+", "prog", name)
    return re.sub(r"\b[0-9a-f]{12,}\b", "H", name)


def _exception_problem(mode, e):
    from mooncake_ast.errors import MooncakeError
    if isinstance(e, Timeout):
        return ("CRASH", mode, "timeout", "ran too long")
    if isinstance(e, FDError):
        return ("INVALID", mode, "finite differences failed", str(e))
    cls = "REFUSED" if isinstance(e, MooncakeError) else "CRASH"
    where = ""
    if cls == "CRASH":
        tb = traceback.extract_tb(e.__traceback__)
        if tb:
            last = tb[-1]
            where = " [at " + normalise(f"{_blur_module(os.path.basename(last.filename))}:{last.name}") + "]"
    return (cls, mode, normalise(_message(e)) + where, _message(e))


def check_program(prog, directory: str, modes=("reverse", "forward"), seed: int = 0) -> Result:
    """Write prog to a module file in directory, import it and check f at its arguments."""
    try:
        f, args, _ = load_program(prog, directory)
    except Timeout:
        return Result("INVALID", [("INVALID", "plain", "timeout", "")], prog.family)
    except Exception as e:  # noqa: BLE001 - a generator bug is reported, not raised
        return Result("INVALID", [("INVALID", "plain", normalise(_message(e)), _message(e))], prog.family)
    return check_function(f, args, modes=modes, seed=seed + prog.seed, family=prog.family)


def check_function(f, args, modes=("reverse", "forward"), seed: int = 0, family: str = "") -> Result:
    """Check mc.vjp and mc.jvp of f at args against plain calls and finite differences."""
    import mooncake_ast as mc

    problems = []
    try:
        with np.errstate(over="raise", divide="raise", invalid="raise", under="ignore"):
            y_ref_args = copy.deepcopy(args)
            y_ref = f(*y_ref_args)
        flat_ref = flatten(y_ref)
        if flat_ref.size == 0 or not np.all(np.isfinite(flat_ref)) or np.max(np.abs(flat_ref)) > 1e6:
            return Result("INVALID", [("INVALID", "plain", "no finite float result", repr(y_ref)[:200])], family)
    except Timeout:
        return Result("INVALID", [("INVALID", "plain", "timeout", "")], family)
    except Exception as e:  # noqa: BLE001 - a generator bug is reported, not raised
        return Result("INVALID", [("INVALID", "plain", normalise(_message(e)), _message(e))], family)

    rng = np.random.default_rng(seed)
    scale = float(np.max(np.abs(flat_ref))) if flat_ref.size else 1.0
    w = _weights(y_ref, rng)
    diff = [i for i, a in enumerate(args) if _is_float_leaf(a) or _is_float_list(a)]
    # Finite differences: computed only when a mode got as far as numbers to compare.
    fd_cache = {}

    def gradients_fd():
        if not fd_cache:
            try:
                fd_cache["g"] = [{i: fd_gradient(f, args, i, w, h) for i in diff} for h in STEPS]
            except Exception as e:  # noqa: BLE001
                raise FDError(_message(e)) from e
        return fd_cache["g"]

    if "reverse" in modes:
        try:
            run = copy.deepcopy(args)
            y, pb = mc.vjp(f, *run)
            if not same(y, y_ref):
                problems.append(("WRONG", "reverse", "primal", f"{_short(y)} != plain {_short(y_ref)}"))
            else:
                wy = _unflatten_like(w, y)
                grads = pb(wy)
                grads_fd = gradients_fd()
                gscale = max([scale] + [float(np.max(np.abs(g))) for g in grads_fd[0].values()])
                for i in diff:
                    g = grads[i] if isinstance(grads, tuple) and i < len(grads) else None
                    try:
                        g = flatten_tangent(g, args[i]).reshape(np.shape(args[i]))
                    except ValueError as e:
                        problems.append(("WRONG", "reverse", "gradient shape", f"arg {i}: {e}"))
                        continue
                    ok = [_close(g, fd[i], gscale) for fd in grads_fd]
                    if not any(ok):
                        kind = "NOISY" if not _close(grads_fd[0][i], grads_fd[1][i], gscale) else "WRONG"
                        what = "gradient of a float" if not isinstance(args[i], np.ndarray) else "gradient of an array"
                        problems.append((kind, "reverse", what, f"arg {i}: {_short(g)}, finite differences {_short(grads_fd[0][i])}"))
                if not same(y, y_ref):
                    problems.append(("WRONG", "reverse", "result changed by the pullback", f"{_short(y)} != plain {_short(y_ref)}"))
                for i, (p, q) in enumerate(zip(run, y_ref_args)):
                    if not same(p, q):
                        problems.append(("WRONG", "reverse", "argument after the pullback", f"arg {i}: {_short(p)} != plain {_short(q)}"))
        except (Exception, Timeout) as e:  # noqa: BLE001
            problems.append(_exception_problem("reverse", e))

    if "forward" in modes:
        tans = tuple(_tangent(a, rng) if i in diff else None for i, a in enumerate(args))
        _check_forward(f, args, tans, y_ref, y_ref_args, scale, problems, "")
        if diff and not any(p[0] in ("WRONG", "CRASH") for p in problems):
            # Again with a tangent in one input only, the other inputs' tangents zero *storage* (arrays of
            # zeros, as check_derivatives and jacfwd's columns pass): a rule that shortcuts "all tangents
            # zero" must still keep a result that aliases such an input tied to its storage.
            for one in diff:
                tans = tuple(None if i not in diff else _tangent(a, rng) if i == one else _zero_tangent(a)
                             for i, a in enumerate(args))
                _check_forward(f, args, tans, y_ref, y_ref_args, scale, problems, " (a tangent in one input only)")
                if any(p[0] in ("WRONG", "CRASH") for p in problems):
                    break

    cls = next((c for c in ORDER if any(p[0] == c for p in problems)), "ok")
    return Result(cls, problems, family)


def _check_forward(f, args, tans, y_ref, y_ref_args, scale, problems, note):
    import mooncake_ast as mc

    try:
        run = copy.deepcopy(args)
        y, dy = mc.jvp(f, run, copy.deepcopy(tans))
        dirs = []
        try:
            for h in STEPS:
                dirs.append((_call_flat(f, _along(args, tans, h)) - _call_flat(f, _along(args, tans, -h))) / (2 * h))
        except Exception as e:  # noqa: BLE001
            raise FDError(_message(e)) from e
        if not same(y, y_ref):
            problems.append(("WRONG", "forward", "primal", f"{_short(y)} != plain {_short(y_ref)}"))
        else:
            try:
                t = flatten_tangent(dy, y)
            except ValueError as e:
                problems.append(("WRONG", "forward", "tangent shape", str(e)))
            else:
                dscale = max(scale, float(np.max(np.abs(dirs[0]))) if dirs[0].size else 0.0)
                if not any(_close(t, d, dscale) for d in dirs):
                    kind = "NOISY" if not _close(dirs[0], dirs[1], dscale) else "WRONG"
                    problems.append((kind, "forward", "tangent" + note, f"{_short(t)}, finite differences {_short(dirs[0])}"))
        for i, (p, q) in enumerate(zip(run, y_ref_args)):
            if not same(p, q):
                problems.append(("WRONG", "forward", "argument after jvp", f"arg {i}: {_short(p)} != plain {_short(q)}"))
    except (Exception, Timeout) as e:  # noqa: BLE001
        problems.append(_exception_problem("forward", e))


def _zero_tangent(a):
    if isinstance(a, np.ndarray):
        return np.zeros(a.shape)
    if isinstance(a, list):
        return [0.0] * len(a)
    return 0.0


def _tangent(a, rng):
    if isinstance(a, np.ndarray):
        return rng.normal(size=a.shape)
    if isinstance(a, list):
        return [float(v) for v in rng.normal(size=len(a))]
    return float(rng.normal())


def _unflatten_like(w, y):
    """The cotangent with y's structure, from the flat weights."""
    pos = [0]

    def build(v):
        if isinstance(v, (tuple, list)):
            return type(v)(build(e) for e in v)
        if isinstance(v, dict):
            return {k: build(e) for k, e in v.items()}
        if _is_float_leaf(v):
            n = np.asarray(v).size
            chunk = w[pos[0]:pos[0] + n]
            pos[0] += n
            return chunk.reshape(np.shape(v)) if isinstance(v, np.ndarray) else float(chunk[0])
        return None
    return build(y)


def _short(v) -> str:
    with np.printoptions(precision=6, threshold=12):
        return repr(v)[:200]
