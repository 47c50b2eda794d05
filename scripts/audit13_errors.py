"""Issue 13 audit, errors: tracebacks of user exceptions, user-caused mistakes, functions without source,
IPython cells, unsupported constructs (run by scripts/audit_issue13.py)."""
from __future__ import annotations

import contextlib
import importlib
import importlib.util
import math
import os
import re
import subprocess
import sys
import traceback

import numpy as np

from audit13_kit import CACHE, ROOT, U, USER, WORK, check, is_mc, line_of, mc, raised, run_py, tb_report, write  # noqa: F401


@check("tracebacks")
def tracebacks():
    big = np.full(3, 1000.0)
    cases = [
        ("grad via helper", lambda: mc.grad(U.f)(100.0), ValueError, "y too large", "MARK-helper-raise"),
        ("grad: caller frame too", lambda: mc.grad(U.f)(100.0), ValueError, "y too large", "MARK-f-call"),
        ("value_and_grad", lambda: mc.value_and_grad(U.f)(50.0), ValueError, "y too large", "MARK-helper-raise"),
        ("jvp", lambda: mc.jvp(U.f, (50.0,), (1.0,)), ValueError, "y too large", "MARK-helper-raise"),
        ("vjp", lambda: mc.vjp(U.f, 50.0), ValueError, "y too large", "MARK-helper-raise"),
        ("jacfwd", lambda: mc.jacfwd(U.vec)(big), ValueError, "vec too large", "MARK-vec-raise"),
        ("jacrev", lambda: mc.jacrev(U.vec)(big), ValueError, "vec too large", "MARK-vec-raise"),
        ("hessian", lambda: mc.hessian(U.sc)(big * 100), ArithmeticError, "sc too large", "MARK-sc-raise"),
        ("grad(grad)", lambda: mc.grad(mc.grad(U.f))(50.0), ValueError, "y too large", "MARK-helper-raise"),
        ("jvp(grad)", lambda: mc.jvp(mc.grad(U.f), (50.0,), (1.0,)), ValueError, "y too large", "MARK-helper-raise"),
        ("grad of a bound method", lambda: mc.grad(U.Model(2.0).loss)(500.0), ValueError, "loss too large",
         "MARK-method-raise"),
        ("differentiate(...).grad", lambda: mc.differentiate(U.f).grad(50.0), ValueError, "y too large",
         "MARK-helper-raise"),
        ("user KeyError unchanged", lambda: mc.grad(U.own_key)(1.0), KeyError, "b", "MARK-own-key"),
        ("user IndexError unchanged", lambda: mc.grad(U.own_index)(1.0), IndexError, "out of range",
         "MARK-own-index"),
        ("user AssertionError unchanged", lambda: mc.grad(U.own_assert)(1.0), AssertionError, "x must be negative",
         "MARK-own-assert"),
        ("user RuntimeError unchanged", lambda: mc.jvp(U.own_runtime, (1.0,), (1.0,)), RuntimeError, "user runtime",
         "MARK-own-runtime"),
        ("list comprehension", lambda: mc.grad(U.in_comprehension)(60.0), ZeroDivisionError, "division",
         "MARK-comp"),
        ("lambda", lambda: mc.grad(U.in_lambda)(-1.0), ValueError, "math domain error", "MARK-lambda"),
        ("lambda (hessian)", lambda: mc.hessian(U.in_lambda)(-1.0), ValueError, "math domain error", "MARK-lambda"),
        ("closure", lambda: mc.grad(U.in_closure)(20.0), OverflowError, "inner overflow", "MARK-closure"),
        ("while loop (jvp)", lambda: mc.jvp(U.in_while, (50.0,), (1.0,)), ValueError, "while too large", "MARK-while"),
        ("while loop (grad)", lambda: mc.grad(U.in_while)(50.0), ValueError, "while too large", "MARK-while"),
        ("NumPy's own error", lambda: mc.grad(U.numpy_raises)(np.zeros((2, 2))), np.linalg.LinAlgError, "ingular",
         "MARK-numpy"),
        ("user rule's pullback", lambda: mc.grad(U.uses_myop2)(2.0), KeyError, "from the pullback", "MARK-rule-pb"),
        ("user rule's forward", lambda: mc.jvp(U.uses_myop2, (2.0,), (1.0,)), KeyError, "from the frule",
         "MARK-rule-f"),
    ]
    out = []
    for name, call, typ, msg, marker in cases:
        ok, detail = tb_report(raised(call), typ, msg, marker)
        out.append((name, ok, detail))
    # the same in a fresh process, printed by Python itself (what a user sees)
    p = run_py("import mooncake_ast as mc, u13user as u; mc.grad(u.f)(100.0)")
    line = line_of(USER, "MARK-helper-raise")
    ok = (f'u13user.py", line {line}' in p.stderr and "raise ValueError" in p.stderr and CACHE not in p.stderr
          and p.stderr.strip().splitlines()[-1].startswith("ValueError: y too large"))
    out.append(("uncaught, printed by Python", ok, p.stderr[-800:] if not ok else "ok"))
    return out


# ------------------------------------------------------------------------------------------ user errors


@check("user errors")
def user_errors():
    out = []
    x3 = np.ones(3)
    for api in ("grad", "value_and_grad", "jacfwd", "jacrev", "hessian"):
        fn = getattr(mc, api)
        target = U.sc if api in ("grad", "value_and_grad", "hessian") else U.vec
        out.append((f"{api}: argnums out of range", *is_mc(raised(lambda: fn(target, argnums=3)(x3)), "argnums",
                                                             "range", cls=mc.ArgnumsError)))
        for bad in ("0", 1.5, None, [0, "a"]):
            out.append((f"{api}: argnums={bad!r}", *is_mc(raised(lambda: fn(target, argnums=bad)(x3)), "argnums",
                                                          "int", cls=mc.ArgnumsError)))
    out.append(("grad: argnums repeated", *is_mc(raised(lambda: mc.grad(U.two, argnums=(0, 0))(1.0, 2.0)), "argnums",
                                                 cls=mc.ArgnumsError)))
    out.append(("grad: argnums=True", *is_mc(raised(lambda: mc.grad(U.two, argnums=True)(1.0, 2.0)), "argnums",
                                             cls=mc.ArgnumsError)))
    for api in ("grad", "value_and_grad", "jacfwd", "jacrev"):
        fn = getattr(mc, api)
        out.append((f"{api}: has_aux without a pair", *is_mc(raised(lambda: fn(U.no_pair, has_aux=True)(1.0)),
                                                             "has_aux", "pair")))
    out.append(("differentiate.grad(has_aux=) works",
                U.Model(2.0).aux_loss.grad(3.0, has_aux=True) == (12.0, "aux"), "m.aux_loss.grad(3.0, has_aux=True)"))

    # user rules that return the wrong number of adjoints / the wrong form
    def myop_rrule(x, y):
        def pb(g):
            return (g * y,)  # one adjoint for two arguments
        return x * y, pb
    mc.rrule(U.myop)(myop_rrule)
    e = raised(lambda: mc.grad(U.uses_myop)(2.0, 3.0))
    out.append(("rrule pullback: too few adjoints", *is_mc(e, "myop", "adjoint", "2")))

    def myop_rrule3(x, y):
        def pb(g):
            return (g * y, g * x, 1.0)
        return x * y, pb
    mc.rrule(U.myop)(myop_rrule3)
    e = raised(lambda: mc.grad(U.uses_myop)(2.0, 3.0))
    out.append(("rrule pullback: too many adjoints", *is_mc(e, "myop", "adjoint")))

    def myop_rrule_nopair(x, y):
        return x * y
    mc.rrule(U.myop)(myop_rrule_nopair)
    e = raised(lambda: mc.grad(U.uses_myop)(2.0, 3.0))
    out.append(("rrule returning no pair", *is_mc(e, "myop", "pair")))

    def myop_frule_bad(args, dargs):
        return args[0] * args[1]
    try:
        mc.frule(U.myop)(myop_frule_bad)
        e = raised(lambda: mc.jvp(U.uses_myop, (2.0, 3.0), (1.0, 0.0)))
        out.append(("frule returning no pair", *is_mc(e, "myop")))
    except Exception as err:  # a signature the library wants differently: as reported
        out.append(("frule returning no pair", isinstance(err, mc.MooncakeError), repr(err)[:200]))

    # tangents and cotangents of the wrong structure, shape, dtype
    tcases = [
        ("tangent shape", lambda: mc.jvp(U.vec, (x3,), (np.ones(4),)), ("shape",)),
        ("tangent dtype int: accepted (a direction, converted)", lambda: mc.jvp(U.vec, (x3,), (np.ones(3, dtype=int),)),
         None),
        ("tangent dtype bool", lambda: mc.jvp(U.vec, (x3,), (np.ones(3, dtype=bool),)), ("dtype",)),
        ("tangent dtype str", lambda: mc.jvp(U.vec, (x3,), (np.array(["a", "b", "c"]),)), ("dtype",)),
        ("tangent of an int argument", lambda: mc.jvp(U.two, (2, 1.0), (1.0, 0.0)), ("NoTangent",)),
        ("tangent complex for real", lambda: mc.jvp(U.vec, (x3,), (np.ones(3, dtype=complex),)), ("complex",)),
        ("tangent structure tuple", lambda: mc.jvp(U.two, ((1.0, 2.0), 1.0), ((1.0,), 0.0)), ("tuple",)),
        ("tangent string", lambda: mc.jvp(U.f, (1.0,), ("a",)), ("tangent",)),
        ("tangent count", lambda: mc.jvp(U.two, (1.0, 2.0), (1.0,)), ("tangent",)),
        ("tangents not a tuple", lambda: mc.jvp(U.f, (1.0,), 1.0), ("tuple",)),
        ("primals not a tuple", lambda: mc.jvp(U.f, 1.0, (1.0,)), ("tuple",)),
        ("tangent dict keys", lambda: mc.jvp(U.sc, ({"a": 1.0},), ({"b": 1.0},)), ("key", "'a'")),
    ]
    for name, call, words in tcases:
        e = raised(call)
        out.append((name, e is None, repr(e)) if words is None else (name, *is_mc(e, *words, cls=mc.TangentError)))
    _, pb = mc.vjp(U.vec, x3)
    _, pbp = mc.vjp(U.pair, 1.0)
    ccases = [
        ("cotangent shape", lambda: pb(np.ones(4)), ("shape",)),
        ("cotangent dtype int: accepted (converted)", lambda: pb(np.ones(3, dtype=int)), None),
        ("cotangent dtype complex", lambda: pb(np.ones(3, dtype=complex)), ("dtype",)),
        ("cotangent string", lambda: pb("a"), ("cotangent",)),
        ("cotangent structure", lambda: pbp((1.0, 2.0, 3.0)), ("cotangent",)),
        ("cotangent scalar for tuple", lambda: pbp(1.0), ("cotangent",)),
    ]
    for name, call, words in ccases:
        e = raised(call)
        out.append((name, e is None, repr(e)) if words is None else (name, *is_mc(e, *words, cls=mc.TangentError)))
    for name, fn in (("vector", U.vector_out), ("list", U.list_out), ("tuple", U.pair)):
        out.append((f"grad of a {name} result", *is_mc(raised(lambda: mc.grad(fn)(1.0)), "vjp", "jacrev",
                                                        cls=mc.NonScalarOutputError)))
        out.append((f"value_and_grad of a {name} result", *is_mc(raised(lambda: mc.value_and_grad(fn)(1.0)), "vjp",
                                                                 cls=mc.NonScalarOutputError)))
    out.append(("grad of a complex result", *is_mc(raised(lambda: mc.grad(lambda z: z * z)(1j)), "vjp")))
    out.append(("grad of a string result", *is_mc(raised(lambda: mc.grad(lambda x: "s")(1.0)), "scalar")))
    return out


NO_SOURCE = '''
import sys, numpy as np, mooncake_ast as mc
def f(x):
    return x * x
def g(x):
    return f(x) + 1.0
results = []
for name, call in [("grad", lambda: mc.grad(f)(2.0)), ("jvp", lambda: mc.jvp(f, (2.0,), (1.0,))),
                   ("vjp", lambda: mc.vjp(f, 2.0)), ("jacfwd", lambda: mc.jacfwd(f)(2.0)),
                   ("jacrev", lambda: mc.jacrev(f)(2.0)), ("hessian", lambda: mc.hessian(f)(2.0)),
                   ("source", lambda: mc.source(f, "reverse")), ("callee", lambda: mc.grad(g)(2.0)),
                   ("lambda", lambda: mc.grad(lambda x: x * x)(2.0)),
                   ("check_derivatives", lambda: mc.testing.check_derivatives(f, 2.0))]:
    try:
        call()
        results.append(f"{name}: no error")
    except mc.SourceUnavailableError as e:
        m = str(e)
        ok = all(w in m for w in ("IPython", "Jupyter")) and ".py" in m and "register one" not in m.split(";")[0]
        results.append(f"{name}: {'OK' if ok else 'BAD MESSAGE'}: {m[:200]}")
    except Exception as e:
        results.append(f"{name}: {type(e).__name__}: {str(e)[:200]}")
print("\\n".join(results))
'''


REPL = """import mooncake_ast as mc
def f(x):
    return x * x

def g(x):
    return f(x) + 1.0

def tryit(call):
    try:
        call()
        return "no error"
    except mc.SourceUnavailableError as e:
        return ("OK " if "Jupyter" in str(e) else "BAD ") + str(e)[:200]
    except Exception as e:
        return type(e).__name__ + " " + str(e)[:200]

print("R1", tryit(lambda: mc.grad(f)(2.0)))
print("R2", tryit(lambda: mc.grad(g)(2.0)))
print("R3", tryit(lambda: mc.jvp(f, (2.0,), (1.0,))))
"""


@check("no source")
def no_source():
    out = []
    p = run_py(NO_SOURCE)
    for line in (p.stdout.strip().splitlines() or [p.stderr[-300:]]):
        out.append(("python -c " + line.split(":")[0], ": OK:" in line, line[:240]))
    exec_code = ("import mooncake_ast as mc\nns = {}\nexec('def h(x):\\n    return x * 3.0', ns)\n"
                 "try:\n    mc.grad(ns['h'])(2.0)\nexcept mc.SourceUnavailableError as e:\n    print('OK', e)\n"
                 "except Exception as e:\n    print('BAD', type(e).__name__, e)\n")
    path = write("u13exec.py", exec_code)
    p = subprocess.run([sys.executable, path], capture_output=True, text=True, cwd=WORK,
                       env=dict(os.environ, PYTHONPATH=ROOT))
    out.append(("exec() in a file", p.stdout.startswith("OK") and "Jupyter" in p.stdout, (p.stdout + p.stderr)[:240]))
    # the plain interactive prompt: stdin fed to `python -i`
    p = subprocess.run([sys.executable, "-i", "-q"], input=REPL, capture_output=True, text=True, cwd=WORK,
                       env=dict(os.environ, PYTHONPATH=ROOT))
    for tag in ("R1", "R2", "R3"):
        line = next((x for x in p.stdout.splitlines() if x.startswith(tag)), p.stderr[-300:])
        out.append((f"plain REPL (python -i) {tag}", line.startswith(tag + " OK"), line[:240]))
    return out



IPYTHON = """
import traceback
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
cells = ["import numpy as np\\nimport mooncake_ast as mc", "def f(x):\\n    return np.sin(3.0 * x) * x",
         "def g(x):\\n    return f(x) + x ** 2",
         "def bad(x):\\n    if x > 1.0:\\n        raise ValueError('too big')\\n    return x",
         "print('RESULT', mc.grad(g)(0.5), mc.hessian(g)(0.5))",
         "import traceback\\ntry:\\n    mc.grad(bad)(2.0)\\nexcept ValueError as e:\\n    print('LINE', traceback.extract_tb(e.__traceback__)[-1].line)"]
for cell in cells:
    r = shell.run_cell(cell)
    if not r.success:
        print('FAILED', cell, r.error_in_exec or r.error_before_exec)
"""


@check("IPython / Jupyter (cells run by InteractiveShell.run_cell, as a kernel runs them)")
def ipython_cells():
    if importlib.util.find_spec("IPython") is None:
        return [("IPython cells", None, "IPython not installed")]
    p = run_py(IPYTHON)
    x = 0.5
    g = 3 * x * math.cos(3 * x) + math.sin(3 * x) + 2 * x
    res = next((ln.split()[1:] for ln in p.stdout.splitlines() if ln.startswith("RESULT")), None)
    ok = res is not None and abs(float(res[0]) - g) < 1e-9 and "FAILED" not in p.stdout
    line_ok = "LINE raise ValueError('too big')" in p.stdout
    return [("a cell's functions and callees: grad, hessian", ok, (p.stdout + p.stderr)[-400:]),
            ("a cell's exception: the traceback shows the cell's line", line_ok, (p.stdout + p.stderr)[-400:])]


UNSUPPORTED = {
    "try/except": "def u(x):\n    try:\n        return x * 2.0\n    except ValueError:\n        return 0.0\n",
    "generator": "def u(x):\n    yield x * 2.0\n",
    "yield from": "def u(x):\n    yield from [x]\n    return x\n",
    "async": "async def u(x):\n    return x * 2.0\n",
    "class in function": "def u(x):\n    class C:\n        pass\n    return x * 2.0\n",
    "del": "def u(x):\n    y = x * 2.0\n    del y\n    return x\n",
    "global": "G = 1.0\ndef u(x):\n    global G\n    G = x\n    return x * G\n",
    "with": "import contextlib\ndef u(x):\n    with contextlib.nullcontext():\n        y = x * 2.0\n    return y\n",
    "match": "def u(x):\n    match 1:\n        case 1:\n            return x * 2.0\n    return x\n",
    "walrus": "def u(x):\n    if (y := x * 2.0) > 0:\n        return y\n    return x\n",
    "import in the function": "def u(x):\n    import math\n    return math.sin(x)\n",
    "nonlocal": "def u(x):\n    k = x\n    def inner():\n        nonlocal k\n        k = k * 2.0\n    inner()\n    return k\n",
    "lambda default": "def u(x):\n    g = lambda y, s=x: y * s\n    return g(x)\n",
    "set comprehension": "def u(x):\n    return sum({x * 2.0})\n",
    "while/else": "def u(x):\n    i = 0\n    while i < 3:\n        x = x * 1.5\n        i += 1\n    else:\n        x = x + 1.0\n    return x\n",
    "yield as a value": "def gen(x):\n    v = yield x\n    yield v\ndef u(x):\n    return sum(gen(x))\n",
    "yield in a lambda": "def u(x):\n    g = lambda: (yield x)\n    return x * 2.0\n",
    "generator returning a value": "def gen(x):\n    yield x\n    return 3.0\ndef u(x):\n    return sum(gen(x))\n",
    "infinite generator": "def gen(x):\n    while True:\n        yield x\ndef u(x):\n    g = gen(x)\n    return next(g)\n",
    "bare except not last": "def u(x):\n    try:\n        y = x * 2.0\n    except:\n        y = 0.0\n    return y\n",
    "except as attribute": "class B:\n    e = None\ndef u(x):\n    try:\n        y = x * 2.0\n    except ValueError as e:\n        y = 0.0\n    return y\n",
    "maybe unassigned": "def u(x):\n    if x > 0:\n        y = x\n    return y * 2.0\n",
    "or-pattern names": "def u(x):\n    match (x, 1.0):\n        case (a, 1.0) | (1.0, a):\n            return a * 2.0\n    return x\n",
    "class pattern positional": "class P:\n    __match_args__ = ('v',)\n    def __init__(s, v):\n        s.v = v\ndef u(x):\n    match P(x):\n        case P(v):\n            return v * 2.0\n    return x\n",
    "match in try": "def u(x):\n    try:\n        match 1:\n            case 1:\n                y = x * 2.0\n    except ValueError:\n        y = 0.0\n    return y\n",
    "mapping **rest": "def u(x):\n    match {'a': x}:\n        case {'a': v, **rest}:\n            return v * 2.0\n    return x\n",
    "try/except*": "def u(x):\n    try:\n        y = x * 2.0\n    except* ValueError:\n        y = 0.0\n    return y\n",
    "try/finally": "def u(x):\n    try:\n        y = x * 2.0\n    finally:\n        pass\n    return y\n",
}


@check("unsupported constructs")
def unsupported():
    out = []
    for name, src in UNSUPPORTED.items():
        mod = "u13uns_" + re.sub(r"\W", "_", name)
        write(mod + ".py", "import numpy as np\n" + src)
        m = importlib.import_module(mod)
        for api, call in (("grad", lambda: mc.grad(m.u)(1.5)), ("jvp", lambda: mc.jvp(m.u, (1.5,), (1.0,)))):
            if name == "async":
                e = raised(call)
                out.append((f"{name} ({api})", *is_mc(e, "async")))
                continue
            if name in ("generator", "yield from"):
                e = raised(lambda: mc.grad(lambda x: sum(m.u(x)))(1.5) if api == "grad"
                           else mc.jvp(lambda x: sum(m.u(x)), (1.5,), (1.0,)))
            else:
                e = raised(call)
            if e is None:
                out.append((f"{name} ({api})", True, "supported"))
            else:
                ok = isinstance(e, mc.MooncakeError) and bool(getattr(e, "advice", "") or re.search(
                    r"\b(instead|write|use|define|put|pass|leave|rebind|assign|give|import|call|move|read|catch"
                    r"|check|loop|test)\b", str(e)))  # (UnsupportedSyntaxError keeps its advice apart)
                out.append((f"{name} ({api})", ok, f"{type(e).__name__}: {str(e)[:220]}"))
    return out
