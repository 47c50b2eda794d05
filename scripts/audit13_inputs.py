"""Issue 13 audit, odd inputs and many constructs: only MooncakeErrors or the plain call's own error, and
numbers that agree with central differences (run by scripts/audit_issue13.py)."""
from __future__ import annotations

import contextlib
import importlib
import importlib.util
import io
import math
import os
import sys
import traceback

import numpy as np

from audit13_kit import VERBOSE, check, mc, write  # noqa: F401


# ------------------------------------------------------------------------------------------ odd inputs

ODD = write("u13odd.py", '''\
    import math
    import numpy as np


    def plain(x):
        return x * 2.0


    def total(x):
        return np.sum(x * x)


    def kwonly(x, *, scale=2.0):
        return x * scale


    def star(*xs):
        return sum(v * v for v in xs)


    def starstar(x, **kw):
        return x * kw.get("a", 1.0)


    def nested(t):
        (a, b), d = t
        return a * b + d["k"] ** 2


    def with_none(x, opt=None):
        if opt is None:
            return x * x
        return x * opt


    def gen_sum(x):
        return sum(x * i for i in range(3))


    def gen_fn(x):
        def g():
            for i in range(3):
                yield x * i
        return sum(g())


    def fact(x, n):
        if n == 0:
            return 1.0
        return x * fact(x, n - 1)


    def outer(x):
        def inner(y):
            return y * x
        return inner(x) + inner(2.0)


    def make_inner(k):
        def inner(y):
            return y * y * k
        return inner


    lam = lambda x: x ** 3


    def boolish(b):
        return 1.0 if b else 0.0


    def intish(n):
        return n * 2


    def zero_d(x):
        return x * x


    def empty_sum(x):
        return np.sum(x) + 1.0


    def mixed(x, n, s):
        return x * n + len(s)


    def returns_none(x):
        x * 2.0


    def returns_int(x):
        return 3


    class Scaler:
        def __init__(self, k):
            self.k = k

        def __call__(self, x):
            return self.k * x * x

        def apply(self, x):
            return self.k * math.sin(x)

        @staticmethod
        def sq(x):
            return x * x

        @classmethod
        def make_sq(cls, x):
            return cls(1.0)(x)


    def gen_only(x):
        yield x * 2.0


    def positive(x):
        return x > 0


    def as_dict(x):
        return {"a": x * 2.0}


    def chatty(x):
        s = f"{x:.2f}"
        print("x is", s)
        return x * len(s)


    def guarded(x):
        try:
            y = math.log(x)
        except ValueError:
            y = 0.0
        return y


    def tree_loss(p):
        return np.sum(p["w"] ** 2) * p["b"]["c"]


    COUNT = [0.0]


    def bump(x):
        COUNT[0] = COUNT[0] + 1.0
        return x * 2.0


    def with_default(x, a=2.0, b=(1.0, 2.0)):
        return x * a + b[1]


    def f32(x):
        return np.sum(x * x)


    def obj_loss(s):
        return s.k * s.k
''')
O = importlib.import_module("u13odd")


def fd_grad(f, x, h=1e-6):
    if isinstance(x, float):
        return (f(x + h) - f(x - h)) / (2 * h)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = h
        g[i] = (f(x + e) - f(x - e)) / (2 * h)
    return g


ALLOWED_PLAIN = (mc.MooncakeError,)


@check("no library exceptions leak")
def odd_inputs():
    out = []
    z0 = np.array(2.0)
    cases = [
        ("plain(int)", O.plain, (3,)), ("plain(bool)", O.plain, (True,)), ("plain(0-d)", O.plain, (z0,)),
        ("total(empty)", O.total, (np.zeros(0),)), ("total(0-d)", O.total, (z0,)),
        ("total(2x0)", O.total, (np.zeros((2, 0)),)), ("total(int array)", O.total, (np.arange(3),)),
        ("plain(None)", O.plain, (None,)), ("plain(str)", O.plain, ("ab",)),
        ("kwonly", O.kwonly, (1.5,)), ("star", O.star, (1.0, 2.0)), ("starstar", O.starstar, (1.5,)),
        ("nested tuples/dicts", O.nested, (((1.0, 2.0), {"k": 3.0}),)), ("with_none", O.with_none, (1.5,)),
        ("with_none(None, None)", O.with_none, (None,)),
        ("generator expression", O.gen_sum, (1.5,)), ("generator function", O.gen_fn, (1.5,)),
        ("recursion", O.fact, (1.5, 4)), ("inner function", O.outer, (1.5,)),
        ("made inside a function", O.make_inner(3.0), (1.5,)), ("module lambda", O.lam, (1.5,)),
        ("lambda here", lambda x: x * x * 2.0, (1.5,)),
        ("boolish(True)", O.boolish, (True,)), ("intish(3)", O.intish, (3,)), ("zero_d", O.zero_d, (z0,)),
        ("empty_sum", O.empty_sum, (np.zeros(0),)), ("mixed", O.mixed, (1.5, 2, "ab")),
        ("returns_none", O.returns_none, (1.5,)), ("returns_int", O.returns_int, (1.5,)),
        ("no args", lambda: 3.0, ()),
        ("float32 array", O.total, (np.ones(3, dtype=np.float32),)),
        ("list arg", lambda xs: xs[0] * xs[1], ([1.0, 2.0],)),
        ("numpy float", O.plain, (np.float64(1.5),)),
        ("np.float32", O.plain, (np.float32(1.5),)),
        ("complex", lambda z: (z * z).real, (1 + 2j,)),
        ("np.sin itself", np.sin, (0.5,)), ("math.sin itself", math.sin, (0.5,)), ("abs builtin", abs, (-1.5,)),
        ("functools.partial", __import__("functools").partial(O.kwonly, scale=3.0), (1.5,)),
        ("callable object", O.Scaler(2.0), (1.5,)), ("staticmethod", O.Scaler.sq, (1.5,)),
        ("classmethod", O.Scaler.make_sq, (1.5,)), ("bound method", O.Scaler(2.0).apply, (1.5,)),
        ("generator function itself", O.gen_only, (1.5,)), ("returns bool", O.positive, (1.5,)),
        ("returns dict", O.as_dict, (1.5,)), ("deep recursion", O.fact, (1.01, 60)),
        ("prints and formats", O.chatty, (1.5,)), ("try/except inside", O.guarded, (1.5,)),
        ("nested dict of arrays", O.tree_loss, ({"w": np.ones(2), "b": {"c": 1.0}},)),
        ("global write", O.bump, (1.5,)), ("defaults not passed", O.with_default, (1.5,)),
        ("np.float32 scalar result", O.f32, (np.ones(2, dtype=np.float32),)),
        ("object argument", O.obj_loss, (O.Scaler(2.0),)),
    ]
    apis = {
        "grad": lambda f, a: mc.grad(f)(*a),
        "value_and_grad": lambda f, a: mc.value_and_grad(f)(*a),
        "jvp": lambda f, a: mc.jvp(f, a, tuple(None for _ in a)),
        "jvp ones": lambda f, a: mc.jvp(f, a, tuple(np.ones_like(v) if isinstance(v, np.ndarray) else
                                                     1.0 if type(v) is float else None for v in a)),
        "vjp": lambda f, a: mc.vjp(f, *a)[1](1.0),
        "jacfwd": lambda f, a: mc.jacfwd(f)(*a),
        "jacrev": lambda f, a: mc.jacrev(f)(*a),
        "hessian": lambda f, a: mc.hessian(f)(*a),
        "grad kw": lambda f, a: mc.grad(f)(*a, scale=3.0) if f is O.kwonly else None,
        "check_derivatives": lambda f, a: mc.testing.check_derivatives(f, *a),
    }
    leaks, wrong, total = [], [], 0
    for cname, f, a in cases:
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                f(*a)
            plain_err = None
        except Exception as e:  # noqa: BLE001
            plain_err = type(e)
        for aname, call in apis.items():
            if not a and aname not in ("grad", "jvp"):
                continue
            total += 1
            try:
                with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
                    res = call(f, a)
            except Exception as e:  # noqa: BLE001
                if isinstance(e, ALLOWED_PLAIN) or (plain_err is not None and isinstance(e, plain_err)):
                    if VERBOSE:
                        print(f"   {cname} / {aname}: {type(e).__name__}: {str(e)[:150]}")
                    continue
                tb = traceback.extract_tb(e.__traceback__)
                leaks.append(f"{cname} / {aname}: {type(e).__name__}: {str(e)[:150]} @ "
                             f"{tb[-1].filename.rsplit('/', 2)[-1]}:{tb[-1].lineno}" if tb else "")
                continue
            # where it succeeded with a float / float-array argument: compare with central differences
            if aname == "grad" and len(a) >= 1 and (type(a[0]) is float or (isinstance(a[0], np.ndarray) and a[0].dtype
                                                                              == np.float64 and a[0].ndim == 1)):
                try:
                    ref = fd_grad(lambda v: f(v, *a[1:]), a[0])
                    if not np.allclose(res, ref, rtol=1e-5, atol=1e-6):
                        wrong.append(f"{cname}: grad {res} vs fd {ref}")
                except Exception:  # noqa: BLE001
                    pass
    out.append((f"{total} odd calls: only MooncakeErrors or the plain call's own error", not leaks,
                "\n".join(leaks) or "none leaked"))
    out.append(("successful grads agree with central differences", not wrong, "\n".join(wrong) or "all agree"))
    return out


@check("constructs: agree with differences or refuse")
def constructs():
    """Each function of scripts/audit13_constructs.py at two points, by grad, jvp, vjp, jacrev (against central
    differences) and hessian (against differences of differences, loosely): a MooncakeError is an honest
    refusal; any other exception, or a number that disagrees, is a failure."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import audit13_constructs as C

    def fd(f, x, h=1e-6):
        return (f(x + h) - f(x - h)) / (2 * h)

    leaks, wrong, refused, done = [], [], 0, 0
    for name in C.CASES:
        f = getattr(C, name)
        for x in (0.3, 1.7):
            ref = fd(f, x)
            for api, call in (("grad", lambda: mc.grad(f)(x)), ("jvp", lambda: mc.jvp(f, (x,), (1.0,))[1]),
                              ("vjp", lambda: mc.vjp(f, x)[1](1.0)[0]), ("jacrev", lambda: mc.jacrev(f)(x)),
                              ("hessian", lambda: mc.hessian(f)(x))):
                done += 1
                try:
                    with contextlib.redirect_stdout(io.StringIO()):
                        r = call()
                except mc.MooncakeError:
                    refused += 1
                    continue
                except Exception as e:  # noqa: BLE001
                    leaks.append(f"{name}/{api}: {type(e).__name__}: {str(e)[:150]}")
                    continue
                if api == "hessian":
                    h2 = (fd(f, x + 1e-4) - fd(f, x - 1e-4)) / 2e-4
                    if not np.allclose(r, h2, rtol=1e-3, atol=1e-3):
                        wrong.append(f"{name}/{api} at {x}: {r} vs {h2}")
                elif not np.allclose(r, ref, rtol=1e-5, atol=1e-6):
                    wrong.append(f"{name}/{api} at {x}: {r} vs {ref}")
    return [(f"{done} calls over {len(C.CASES)} functions ({refused} refused): no other exception", not leaks,
             "\n".join(leaks) or "none"),
            ("every number agrees with differences", not wrong, "\n".join(wrong) or "all agree")]
