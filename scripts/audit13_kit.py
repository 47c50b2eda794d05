"""The harness of scripts/audit_issue13.py: the temporary work directory and cache, `@check` (runs a check
when it is defined and records its rows), helpers, and the user's file every check module uses."""
from __future__ import annotations

import ast
import contextlib
import importlib
import importlib.util
import io
import math
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import traceback

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
WORK = tempfile.mkdtemp(prefix="audit13_")
CACHE = os.path.join(WORK, "cache")
os.environ["MOONCAKE_AST_CACHE_DIR"] = CACHE
os.environ.pop("MOONCAKE_AST_FULL_TRACEBACKS", None)

import mooncake_ast as mc  # noqa: E402

RESULTS: list = []  # (group, name, ok, detail)
VERBOSE = "-v" in sys.argv
ONLY = sys.argv[sys.argv.index("-k") + 1] if "-k" in sys.argv else None


def check(group: str):
    def deco(fn):
        if ONLY and ONLY not in fn.__name__ and ONLY not in group:
            return fn
        try:
            out = fn()
        except Exception as e:  # a check that itself crashed is a failure with the exception
            out = [(fn.__name__, False, "audit crashed: " + "".join(traceback.format_exception_only(e)).strip()[:300])]
        for name, ok, detail in out if isinstance(out, list) else [out]:
            RESULTS.append((group, name, ok, detail))
        return fn
    return deco


def write(name: str, text: str) -> str:
    path = os.path.join(WORK, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fh:
        fh.write(textwrap.dedent(text))
    return path


def line_of(path: str, marker: str) -> int:
    with open(path) as fh:
        for i, line in enumerate(fh, 1):
            if marker in line:
                return i
    raise LookupError(marker)


def run_py(code: str, *args: str, cwd: str = WORK, env: dict | None = None, timeout: int = 300) -> subprocess.CompletedProcess:
    e = dict(os.environ, PYTHONPATH=ROOT, **(env or {}))
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=cwd, env=e,
                          timeout=timeout)


def raised(call):
    try:
        call()
    except BaseException as e:  # noqa: BLE001
        return e
    return None


# ------------------------------------------------------------------------------------------ user code

USER = write("u13user.py", '''\
    import math

    import numpy as np

    import mooncake_ast as mc


    def helper(y):
        if y > 100.0:
            raise ValueError(f"y too large: {y}")  # MARK-helper-raise
        return y * 2.0


    def f(x):
        y = x * 3.0
        return helper(y)  # MARK-f-call


    def vec(x):
        if np.max(x) > 100.0:
            raise ValueError("vec too large")  # MARK-vec-raise
        return np.sin(x) * 2.0


    def sc(x):
        s = np.sum(x ** 2)
        if s > 1e4:
            raise ArithmeticError("sc too large")  # MARK-sc-raise
        return s


    def own_key(x):
        d = {"a": x}
        return d["b"]  # MARK-own-key


    def own_index(x):
        lst = [x]
        return lst[3]  # MARK-own-index


    def own_assert(x):
        assert x < 0.0, "x must be negative"  # MARK-own-assert
        return x


    def own_runtime(x):
        if x > 0.0:
            raise RuntimeError("user runtime")  # MARK-own-runtime
        return x


    class Model:
        def __init__(self, w):
            self.w = w

        def loss(self, x):
            if x > 100.0:
                raise ValueError("loss too large")  # MARK-method-raise
            return self.w * x * x

        @mc.differentiate
        def dloss(self, x):
            """The loss, decorated."""
            return self.w * x * x

        @mc.differentiate
        def aux_loss(self, x):
            return self.w * x * x, "aux"


    def in_comprehension(x):
        ys = [x * k for k in range(3)]
        return sum([1.0 / (y - y) if y > 100.0 else y for y in ys])  # MARK-comp


    def in_lambda(x):
        g = lambda v: math.log(v)  # MARK-lambda
        return g(x) * 2.0


    def in_closure(x):
        k = x * 2.0

        def inner(v):
            if v > 10.0:
                raise OverflowError("inner overflow")  # MARK-closure
            return v * k
        return inner(x)


    def in_while(x):
        i = 0
        while i < 5:
            x = x * 2.0
            i += 1
            if x > 1000.0:
                raise ValueError("while too large")  # MARK-while
        return x


    def numpy_raises(a):
        return np.sum(np.linalg.inv(a))  # MARK-numpy


    def myop2(x):
        return x * 2.0


    def uses_myop2(x):
        return myop2(x) * 3.0


    @mc.rrule(myop2)
    def myop2_rrule(x):
        def pullback(g):
            raise KeyError("from the pullback")  # MARK-rule-pb
        return x * 2.0, pullback


    @mc.frule(myop2)
    def myop2_frule(primals, tangents):
        raise KeyError("from the frule")  # MARK-rule-f


    def sine_sum(x, n):
        s = 0.0
        for i in range(n):
            t = x * i
            s = s + math.sin(t)
        return s


    def pair(x):
        return x * 2.0, x * 3.0


    def no_pair(x):
        return x * 2.0


    def vector_out(x):
        return np.array([x, x * 2.0])


    def list_out(x):
        return [x, x * 2.0]


    def two(x, y):
        return x * y


    def myop(x, y):
        return x * y


    def uses_myop(x, y):
        return myop(x, y) + 1.0
''')
sys.path.insert(0, WORK)
U = importlib.import_module("u13user")
LIB_DIR = os.path.join(ROOT, "mooncake_ast")


def tb_report(e: BaseException, expect_type: type, expect_msg: str, marker: str) -> tuple:
    """(ok, detail) for: e has the type and message, the traceback shows the marker's file:line and text,
    no frame of a cache file or of the library beyond the entry point's own line."""
    if e is None:
        return False, "nothing raised"
    if type(e) is not expect_type or expect_msg not in str(e):
        return False, f"got {type(e).__name__}: {str(e)[:160]}"
    text = "".join(traceback.format_exception(type(e), e, e.__traceback__))
    line = line_of(USER, marker)
    src = open(USER).read().splitlines()[line - 1].strip()
    where = f'File "{USER}", line {line}'
    if where not in text:
        return False, f"traceback lacks {os.path.basename(USER)}:{line}\n{text[-1500:]}"
    if src.split("  #")[0] not in text:
        return False, "traceback lacks the source line"
    cache_frames = text.count(CACHE)
    lib_frames = len(re.findall(re.escape(LIB_DIR) + r"\S*\", line", text))
    if cache_frames or lib_frames > 1:
        return False, f"{cache_frames} cache frames, {lib_frames} library frames\n{text[-1500:]}"
    return True, f"{len(traceback.extract_tb(e.__traceback__))} frames, {lib_frames} library frame(s)"


def is_mc(e, *words, cls=None) -> tuple:
    if e is None:
        return False, "nothing raised"
    cls = cls or mc.MooncakeError
    msg = str(e)
    missing = [w for w in words if w.lower() not in msg.lower()]
    ok = isinstance(e, cls) and not missing
    return ok, f"{type(e).__name__}: {msg[:220]}" + (f"  [missing {missing}]" if missing else "")
