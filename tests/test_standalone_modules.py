"""`mooncake-ast generate` writes modules that stand alone, tested as an outside user would: user modules
with helpers calling helpers, a class with methods and a property, a closure, a lambda, a callable object,
operators of a user class, a decorated function, recursion, defaults and keyword-only parameters, an object
and a function handed in by the caller.  The written modules are imported in a fresh process where libcst
cannot be imported and the cache directory is empty, and their derivatives are compared with central
differences of the user's functions (computed here).  One subprocess checks them all."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from mooncake_ast.cli import main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SHAPES = """\
class Vec:
    def __init__(self, x, y):
        self.x = x
        self.y = y

    def __add__(self, other):
        return Vec(self.x + other.x, self.y + other.y)

    def __mul__(self, s):
        return Vec(self.x * s, self.y * s)

    def norm2(self):
        return self.x * self.x + self.y * self.y
"""

USER = """\
import functools
import math

import numpy as np

from sa_shapes import Vec

RATE = 1.5


def logged(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper


@logged
def softplus(x):
    return math.log1p(math.exp(x))


def square(v):
    return v * v


def helper(x):
    return RATE * square(x)


def power(x, n):
    if n == 0:
        return 1.0
    return x * power(x, n - 1)


def apply(fn, x):
    return fn(x) * 2.0


class Scaled:
    def __init__(self, a):
        self.a = a

    def __call__(self, x):
        return self.a * math.sin(x)


class Model:
    def __init__(self, w):
        self.w = w

    def energy(self, x):
        return np.sum(self.w * x ** 2)

    @property
    def scale(self):
        return 2.0 * self.w[0]


def total(x, k=2.0, *, scale=0.5):
    c = 1.5

    def g(y):
        return c * y * x

    h = lambda t: t * t * k
    obj = Scaled(3.0)
    v = Vec(x, 2.0 * x) + Vec(1.0, x) * 3.0
    return (helper(x) + g(2.0) + h(x) + obj(x) + apply(square, x) + softplus(x) + power(x, 3)
            + v.norm2()) * scale


def with_model(model, x):
    return model.energy(x) * model.scale


def takes_fn(fn, x):
    return fn(x) + 1.0


def cube(x):
    return x * x * x
"""

RUN = r"""
import importlib.abc, json, os, sys

class NoLibcst(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "libcst" or name.startswith("libcst."):
            raise ImportError("libcst is not installed here")
        return None

sys.meta_path.insert(0, NoLibcst())
import numpy as np
out_dir, src_dir = sys.argv[1:3]
sys.path.insert(0, out_dir)
from sa_user_total_forward import total__jvp
from sa_user_total_reverse import total__vjp
from sa_user_with_model_forward import with_model__jvp
from sa_user_with_model_reverse import with_model__vjp
import sa_user_takes_fn_reverse as takes
r = {}
sa_user = sys.modules["sa_user"]
total = sa_user.total   # (its closure `g` reads its cells: total__jvp takes total and its tangent first)
r["total_jvp"] = [float(total__jvp(total, None, 0.4, 2.0, 0.5, 1.0, 0.0, 0.0)[1]),
                  float(total__jvp(total, None, 0.4, 2.0, 0.5, 0.0, 1.0, 1.0)[1])]
value, pullback = total__vjp(0.4, scale=0.7)        # k keeps its default, scale is given by keyword
r["total_vjp"] = [float(value)] + [float(b) for b in pullback(1.0)]
w, x = np.array([0.3, -0.2, 0.5]), np.array([1.0, 2.0, -1.0])
model = sa_user.Model(w)
value, pullback = with_model__vjp(model, x)
model_bar, x_bar = pullback(1.0)
r["model_vjp"] = [float(value), list(np.asarray(x_bar)), list(np.asarray(model_bar.w))]
import mooncake_ast as mc
r["model_jvp"] = [float(with_model__jvp(model, x, mc.Tangent({"w": e}), np.zeros(3))[1]) for e in np.eye(3)]
try:
    takes.takes_fn__vjp(sa_user.cube, 0.3)      # nothing names cube: not written in
    r["takes_fn"] = "no error"
except mc.MooncakeError as e:
    r["takes_fn"] = str(e)
import sa_user_takes_fn_included_reverse as included   # written with --include sa_user.py::cube
value, pullback = included.takes_fn__vjp(sa_user.cube, 0.3)
r["included"] = float(pullback(1.0)[1])
# The user edits `helper` after the modules were written: a written module loads (its own function is as it
# was) but refuses to run the stale derivative, saying what to do.
user_file = os.path.join(src_dir, "sa_user.py")
original = open(user_file).read()
open(user_file, "w").write(original.replace("return RATE * square(x)", "return RATE * square(x) + 0.0"))
for name in [m for m in sys.modules if m.startswith("sa_user")]:
    del sys.modules[name]
try:
    import sa_user_total_forward
    sa_user_total_forward.total__jvp(sys.modules["sa_user"].total, None, 0.4, 2.0, 0.5, 1.0, 0.0, 0.0)
    r["stale"] = "no error"
except mc.MooncakeError as e:
    r["stale"] = str(e)
finally:
    open(user_file, "w").write(original)
cache = os.environ["MOONCAKE_AST_CACHE_DIR"]
r["libcst"] = "libcst" in sys.modules and sys.modules["libcst"] is not None
r["derived"] = [m for m in ("mooncake_ast.frontend.statements", "mooncake_ast.emit.module") if m in sys.modules]
r["cache"] = sorted(os.listdir(cache)) if os.path.isdir(cache) else []
print(json.dumps(r))
"""


def central(f, x, h=1e-6):
    return (f(x + h) - f(x - h)) / (2 * h)


@pytest.fixture
def cli(capsys):
    saved_path, saved_flag = list(sys.path), sys.dont_write_bytecode

    def run(*argv):
        code = main([str(a) for a in argv])
        out, err = capsys.readouterr()
        return code, out, err

    yield run
    sys.path[:] = saved_path
    sys.dont_write_bytecode = saved_flag
    for name in ("sa_user", "sa_shapes"):
        sys.modules.pop(name, None)


def test_written_modules_run_without_libcst_or_cache_and_agree_with_differences(cli, tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "sa_shapes.py").write_text(SHAPES)
    (src / "sa_user.py").write_text(USER)
    user = src / "sa_user.py"
    for name in ("total", "with_model"):
        code, _, err = cli("generate", f"{user}::{name}", "--mode", "both", "-o", out)
        assert code == 0 and not err, err
    text = (out / "sa_user_total_reverse.py").read_text()
    for held in ("sa_user.helper", "sa_user.square", "sa_user.total.<locals>.g", "sa_user.total.<locals>.<lambda>",
                 "sa_user.Scaled.__call__", "sa_shapes.Vec.__add__", "sa_shapes.Vec.__mul__", "sa_shapes.Vec.norm2",
                 "sa_user.logged.<locals>.wrapper", "sa_user.softplus", "sa_user.power", "sa_user.apply"):
        assert f"# The derivative of {held} (" in text, held
    assert "Model.energy" in (out / "sa_user_with_model_reverse.py").read_text()  # found by its method's name
    # A function handed in by the caller cannot be known ahead: generate says where, and what to do.
    code, _, err = cli("generate", f"{user}::takes_fn", "--mode", "reverse", "-o", out)
    assert code == 0 and "warning" in err and "sa_user.py:" in err and "takes_fn calls `fn(...)`" in err \
        and "--include" in err, err
    code, _, err = cli("generate", f"{user}::takes_fn", "--mode", "reverse", "-o", tmp_path / "included",
                       "--include", f"{user}::cube")
    assert code == 0 and not err, err
    os.replace(tmp_path / "included" / "sa_user_takes_fn_reverse.py", out / "sa_user_takes_fn_included_reverse.py")

    env = dict(os.environ, PYTHONPATH=ROOT, PYTHONDONTWRITEBYTECODE="1",
               MOONCAKE_AST_CACHE_DIR=str(tmp_path / "empty_cache"))
    p = subprocess.run([sys.executable, "-c", RUN, str(out), str(src)], capture_output=True, text=True, env=env,
                       cwd=str(tmp_path), timeout=300)
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout.strip().splitlines()[-1])
    assert r["libcst"] is False and r["cache"] == [] and r["derived"] == []

    sys.path.insert(0, str(src))
    import sa_user

    dx_total = central(lambda t: sa_user.total(t), 0.4)
    dk_scale = central(lambda t: sa_user.total(0.4, 2.0 + t, scale=0.5 + t), 0.0)
    assert r["total_jvp"] == pytest.approx([dx_total, dk_scale], rel=1e-6)
    assert r["total_vjp"][0] == pytest.approx(sa_user.total(0.4, scale=0.7))
    assert r["total_vjp"][1:] == pytest.approx([central(lambda t: sa_user.total(t, scale=0.7), 0.4),
                                                central(lambda t: sa_user.total(0.4, 2.0 + t, scale=0.7), 0.0),
                                                central(lambda t: sa_user.total(0.4, scale=0.7 + t), 0.0)], rel=1e-6)
    w, x = np.array([0.3, -0.2, 0.5]), np.array([1.0, 2.0, -1.0])
    m = sa_user.Model(w)
    assert r["model_vjp"][0] == pytest.approx(sa_user.with_model(m, x))
    e = np.eye(3)
    fd_x = [central(lambda t: sa_user.with_model(m, x + t * e[i]), 0.0) for i in range(3)]
    fd_w = [central(lambda t: sa_user.with_model(sa_user.Model(w + t * e[i]), x), 0.0) for i in range(3)]
    assert r["model_vjp"][1] == pytest.approx(fd_x, rel=1e-6) and r["model_vjp"][2] == pytest.approx(fd_w, rel=1e-6)
    assert r["model_jvp"] == pytest.approx(fd_w, rel=1e-6)
    assert "sa_user.cube (" in r["takes_fn"] and f"--include {user}::cube" in r["takes_fn"] and "libcst" in r["takes_fn"]
    assert r["included"] == pytest.approx(3 * 0.3 ** 2, rel=1e-12)
    assert "sa_user.helper (" in r["stale"] and "changed since the module was written" in r["stale"] and \
        "mooncake-ast generate" in r["stale"], r["stale"]
    assert r["included"] == pytest.approx(central(lambda t: sa_user.takes_fn(sa_user.cube, t), 0.3), rel=1e-6)
