"""A checker of nested derivatives (issue 10): every nesting of the API against central finite
differences of the next-lower derivative.

The truth for a second derivative comes from our own first derivative (grad, or jacfwd for a
vector function), which check.py checks against finite differences of plain calls; here the
first derivatives are checked again ("base"), so a nested verdict never rests on an unchecked
one.  A third derivative is checked against finite differences of a second derivative that is
itself one of the nestings checked here.

For a function f and one differentiated argument (a float or a float array; the other arguments
are rebuilt fresh on every call, so in-place updates of them cannot leak between calls) a
module is written next to the program with

    _s(x)  = <W, floats of f(...)>     a scalar function (random weights W)
    _v(x)  = the float leaves of f(...) (a pytree)
    _sj(x) = mc.jvp(_s, (x,), (T,))[1] (T: 1.0, or a random direction for an array)

and each nesting below is a one-line function of it, so every function differentiated has
source.  Classes as in check.py (WRONG, CRASH, REFUSED, NOISY, ok); `mode` of a problem is the
nesting's name, so failure signatures group by nesting.
"""
from __future__ import annotations

import copy
import importlib.util
import itertools
import os
import sys

import numpy as np

from .check import (ORDER, FDError, Result, Timeout, _close, _exception_problem, _short, flatten, load_program,
                    same)

STEPS = (1e-5, 1e-3)
_counter = itertools.count()

# name: (expression of the nested derivative at x, expression of the reference derivative, how the reference
# is differenced, argument kinds it applies to ("S" float, "A" array)).  Reference kinds:
#   jac     the full Jacobian of the reference by finite differences (output dimensions, then x's)
#   dir     the reference differenced along T
#   dirdot  <T, the reference differenced along T>
NESTINGS = {
    # second derivatives of the scalar function
    "grad_grad": ("mc.grad(mc.grad(_s))(x)", "mc.grad(_s)(x)", "jac", "S"),
    "jvp_grad": ("mc.jvp(mc.grad(_s), (x,), (_T,))[1]", "mc.grad(_s)(x)", "dir", "SA"),
    "grad_jvp": ("mc.grad(_sj)(x)", "mc.grad(_s)(x)", "dir", "SA"),
    "jvp_jvp": ("mc.jvp(_sj, (x,), (_T,))[1]", "mc.grad(_s)(x)", "dirdot", "SA"),
    "vjp_grad": ("mc.vjp(mc.grad(_s), x)[1](_T)[0]", "mc.grad(_s)(x)", "dir", "SA"),
    "hvp": ("mc.hvp(_s, (x,), (_T,))", "mc.grad(_s)(x)", "dir", "SA"),
    "hessian": ("mc.hessian(_s)(x)", "mc.grad(_s)(x)", "jac", "SA"),
    "jacfwd_jacrev": ("mc.jacfwd(mc.jacrev(_s))(x)", "mc.grad(_s)(x)", "jac", "SA"),
    "jacrev_jacfwd": ("mc.jacrev(mc.jacfwd(_s))(x)", "mc.grad(_s)(x)", "jac", "SA"),
    "jacrev_jacrev": ("mc.jacrev(mc.jacrev(_s))(x)", "mc.grad(_s)(x)", "jac", "SA"),
    "jacfwd_jacfwd": ("mc.jacfwd(mc.jacfwd(_s))(x)", "mc.grad(_s)(x)", "jac", "SA"),
    # second derivatives of the vector function (pytree out)
    "v_jacfwd_jacfwd": ("mc.jacfwd(mc.jacfwd(_v))(x)", "mc.jacfwd(_v)(x)", "jac", "SA"),
    "v_jacrev_jacrev": ("mc.jacrev(mc.jacrev(_v))(x)", "mc.jacfwd(_v)(x)", "jac", "SA"),
    "v_jacrev_jacfwd": ("mc.jacrev(mc.jacfwd(_v))(x)", "mc.jacfwd(_v)(x)", "jac", "SA"),
    "v_jacfwd_jacrev": ("mc.jacfwd(mc.jacrev(_v))(x)", "mc.jacfwd(_v)(x)", "jac", "SA"),
    # third derivatives of the scalar function (references: second derivatives checked above)
    "grad_grad_grad": ("mc.grad(mc.grad(mc.grad(_s)))(x)", "mc.grad(mc.grad(_s))(x)", "jac", "S"),
    "jvp_grad_grad": ("mc.jvp(mc.grad(mc.grad(_s)), (x,), (_T,))[1]", "mc.grad(mc.grad(_s))(x)", "dir", "S"),
    "grad_jvp_grad": ("mc.grad(_jg)(x)", "mc.grad(mc.grad(_s))(x)", "jac", "S"),
    "jvp_jvp_jvp": ("mc.jvp(_sjj, (x,), (_T,))[1]", "mc.grad(mc.grad(_s))(x)", "jac", "S"),
    "jacfwd_hessian": ("mc.jacfwd(mc.hessian(_s))(x)", "mc.hessian(_s)(x)", "jac", "A"),
    "jacrev_hessian": ("mc.jacrev(mc.hessian(_s))(x)", "mc.hessian(_s)(x)", "jac", "A"),
}
BASES = {  # first derivatives, against finite differences of plain calls
    "base_grad": ("mc.grad(_s)(x)", "_s(x)", "jac", "SA"),
    "base_jacfwd": ("mc.jacfwd(_v)(x)", "_v(x)", "jac", "SA"),
}
THIRD = ("grad_grad_grad", "jvp_grad_grad", "grad_jvp_grad", "jvp_jvp_jvp", "jacfwd_hessian", "jacrev_hessian")

WRAPPER = '''

# ---- nested-derivative wrappers (tests/randprog/nested.py)
import mooncake_ast as mc

_T = {T}
_W = {W}


def _s(x):
    _y = {call}
    return {dot}


def _v(x):
    _y = {call}
    return {leaves}


def _sj(x):
    return mc.jvp(_s, (x,), (_T,))[1]


def _jg(x):
    return mc.jvp(mc.grad(_s), (x,), (_T,))[1]


def _sjj(x):
    return mc.jvp(_sj, (x,), (_T,))[1]
'''


def _float_paths(y, path="_y"):
    """(expression, is_array) for every float leaf of y, in flatten's order."""
    if isinstance(y, (tuple, list)):
        return [p for k, e in enumerate(y) for p in _float_paths(e, f"{path}[{k}]")]
    if isinstance(y, dict):
        return [p for k in y for p in _float_paths(y[k], f"{path}[{k!r}]")]
    if isinstance(y, (float, np.floating)):
        return [(path, False)]
    if isinstance(y, np.ndarray) and y.dtype.kind == "f":
        return [(path, True)]
    return []


def wrapper_text(call: str, y_ref, x, rng) -> str:
    """The wrapper module's text for f's call `call` (an expression of x) whose plain result is y_ref."""
    paths = _float_paths(y_ref)
    weights, terms = [], []
    for k, (p, is_array) in enumerate(paths):
        value = eval(p, {"_y": y_ref})  # noqa: S307 - our own path expressions
        w = np.round(rng.normal(size=np.shape(value)), 3)
        weights.append(f"np.array({w.tolist()!r})" if is_array else repr(float(w)))
        terms.append(f"np.sum(_W[{k}] * {p})" if is_array else f"_W[{k}] * {p}")
    T = repr(1.0) if not isinstance(x, np.ndarray) else f"np.array({np.round(rng.normal(size=x.shape), 3).tolist()!r})"
    leaves = paths[0][0] if len(paths) == 1 else "(" + ", ".join(p for p, _ in paths) + ",)"
    return WRAPPER.format(T=T, W="[" + ", ".join(weights) + "]", call=call, dot=" + ".join(terms), leaves=leaves)


# ------------------------------------------------------------------ finite differences of a derivative


def _at(x, h, direction):
    return x + h * direction if isinstance(x, np.ndarray) else float(x + h * direction)


def _reference(ref, x, kind, T):
    """The finite differences of ref at x, one array per step (in STEPS), laid out like the nested result."""
    out = []
    for h in STEPS:
        try:
            if kind == "jac":
                cols = []
                for k in range(np.size(x)):
                    if isinstance(x, np.ndarray):
                        e = np.zeros(x.shape)
                        e.reshape(-1)[k] = 1.0
                    else:
                        e = 1.0
                    cols.append((flatten(ref(_at(x, h, e))) - flatten(ref(_at(x, -h, e)))) / (2 * h))
                out.append(np.stack(cols, axis=-1).reshape(-1))
            else:
                d = (flatten(ref(_at(x, h, T))) - flatten(ref(_at(x, -h, T)))) / (2 * h)
                out.append(np.atleast_1d(np.dot(np.ravel(T), d)) if kind == "dirdot" else d)
        except (Exception, Timeout) as e:  # noqa: BLE001
            raise FDError(f"{type(e).__name__}: {e}") from e
    return out


def _copying(fn):
    return lambda x: fn(copy.deepcopy(x))


def check_one(mod, name, spec, x) -> tuple | None:
    """A problem (cls, mode, kind, detail) of one nesting at x, or None where it agrees."""
    expr, ref_expr, kind, _ = spec
    env = vars(mod)
    nested = _copying(eval("lambda x: " + expr, env))  # noqa: S307 - our own table
    ref = _copying(eval("lambda x: " + ref_expr, env))  # noqa: S307
    try:
        got = flatten(nested(x))
    except (Exception, Timeout) as e:  # noqa: BLE001
        return _exception_problem(name, e)
    try:
        fds = _reference(ref, x, kind, env["_T"])
    except FDError as e:
        return ("INVALID", name, "finite differences of the reference failed", str(e))
    scale = max([1.0] + [float(np.max(np.abs(d))) for d in fds if d.size])
    if any(_close(got, d, scale) for d in fds):
        return None
    what = "NOISY" if not _close(fds[0], fds[1], scale) else "WRONG"
    return (what, name, "derivative", f"{_short(got)}, finite differences {_short(fds[0])}")


def load_wrapper(text: str, directory: str, base_name: str):
    name = f"{base_name}_nested_{next(_counter)}"
    path = os.path.join(directory, name + ".py")
    with open(path, "w") as fh:
        fh.write(text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def check_nested_module(mod, x, nestings=None, family="") -> Result:
    """Check the bases, then every nesting that applies to x's kind (skipping those whose reference failed)."""
    kind = "A" if isinstance(x, np.ndarray) else "S"
    problems = []
    failed = set()
    for name, spec in BASES.items():
        p = check_one(mod, name, spec, x)
        if p is not None:
            problems.append(p)
            failed.add(spec[0])
    second_failed = set()
    for name, spec in NESTINGS.items():
        if kind not in spec[3] or (nestings and name not in nestings):
            continue
        if spec[1] in failed or spec[1] in second_failed:
            continue
        p = check_one(mod, name, spec, x)
        if p is not None:
            problems.append(p)
            if name in ("grad_grad", "hessian"):
                second_failed.add(spec[0])
    cls = next((c for c in ORDER if any(p[0] == c for p in problems)), "ok")
    return Result(cls, problems, family)


def check_program_nested(prog, directory: str, nestings=None, seed: int = 0) -> Result:
    """Write prog, find its float argument x and array argument a, and check nestings in each."""
    try:
        f, args, path = load_program(prog, directory)
        with np.errstate(over="raise", divide="raise", invalid="raise", under="ignore"):
            y_ref = f(*copy.deepcopy(args))
        flat = flatten(y_ref)
        if flat.size == 0 or not np.all(np.isfinite(flat)) or np.max(np.abs(flat)) > 1e6:
            return Result("INVALID", [("INVALID", "plain", "no finite float result", "")], prog.family)
    except Timeout:
        return Result("INVALID", [("INVALID", "plain", "timeout", "")], prog.family)
    except Exception as e:  # noqa: BLE001
        return Result("INVALID", [("INVALID", "plain", type(e).__name__, str(e)[:200])], prog.family)
    rng = np.random.default_rng(seed + prog.seed)
    problems = []
    positions = [i for i, a in enumerate(args) if isinstance(a, float)][:1] + \
                [i for i, a in enumerate(args) if isinstance(a, np.ndarray) and a.ndim == 1][:1]
    base = os.path.splitext(os.path.basename(path))[0]
    for i in positions:
        call = "f(" + ", ".join("x" if k == i else e for k, e in enumerate(prog.args)) + ")"
        text = prog.script() + wrapper_text(call, y_ref, args[i], rng)
        try:
            mod = load_wrapper(text, directory, base)
        except Exception as e:  # noqa: BLE001
            problems.append(("INVALID", "plain", "wrapper", f"{type(e).__name__}: {e}"))
            continue
        problems += check_nested_module(mod, copy.deepcopy(args[i]), nestings, prog.family).problems
    cls = next((c for c in ORDER if any(p[0] == c for p in problems)), "ok")
    return Result(cls, problems, prog.family)


# ------------------------------------------------------------------ functions of the corpus (tests/corpus)


def check_case_nested(case, directory: str, nestings=None, seed: int = 0, index=None) -> Result:
    """The nestings of a corpus case (tests/corpus Case: fn and a factory of fresh arguments) in its first float
    argument and its first 1-d float-array argument, the other arguments made fresh by the factory on each call.
    `index`: the case's position in all_cases() (two cases may share a name: ping_pong with and without its default
    argument), else it is found by name."""
    name = case.name
    try:
        if case.kwargs():
            return Result("INVALID", [("INVALID", "plain", "keyword arguments", "")], name)
        args = case.args()
        with np.errstate(over="raise", divide="raise", invalid="raise", under="ignore"):
            y_ref = case.fn(*copy.deepcopy(args))
        flat = flatten(y_ref)
        if flat.size == 0 or not np.all(np.isfinite(flat)):
            return Result("INVALID", [("INVALID", "plain", "no finite float result", "")], name)
    except Exception as e:  # noqa: BLE001
        return Result("INVALID", [("INVALID", "plain", type(e).__name__, str(e)[:200])], name)
    rng = np.random.default_rng(seed)
    positions = [i for i, a in enumerate(args) if type(a) is float][:1] + \
                [i for i, a in enumerate(args) if isinstance(a, np.ndarray) and a.ndim == 1 and a.dtype.kind == "f"][:1]
    problems = []
    for i in positions:
        call = "_FN(" + ", ".join("x" if k == i else f"_a[{k}]" for k in range(len(args))) + ")"
        head = (f"import numpy as np\nfrom tests.corpus import all_cases\n\n"
                + (f"_CASE = all_cases()[{index}]\n" if index is not None else
                   f"_CASE = [c for c in all_cases() if c.name == {name!r}][0]\n")
                + "_FN = _CASE.fn\n_ARGS = _CASE.args\n")
        body = wrapper_text(call, y_ref, args[i], rng)
        try:
            mod = load_wrapper(head + body.replace("    _y = " + call, "    _a = _ARGS()\n    _y = " + call),
                               directory, "corpus")
        except Exception as e:  # noqa: BLE001
            problems.append(("INVALID", "plain", "wrapper", f"{type(e).__name__}: {e}"))
            continue
        problems += check_nested_module(mod, copy.deepcopy(args[i]), nestings, name).problems
    cls = next((c for c in ORDER if any(p[0] == c for p in problems)), "ok")
    return Result(cls, problems, name)
