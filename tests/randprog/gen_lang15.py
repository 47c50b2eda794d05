"""The random family "language15": the constructs the lang helper's fourth pass on issue 12 added, in the
programs they appear in --

* `with contextlib.suppress(...)` around code that may raise (a missing key, an index past the end, a
  `raise`), lowered as `try: ... except ...: pass`; `with contextlib.nullcontext(v) as t`;
* a generator helper delegating with `yield from` (to a list, a generator expression, another generator);
* a class defined inside the differentiated function (its methods read only their arguments and fields).
"""
from __future__ import annotations

from .gen import FAMILIES, S, V, s_assign


def s_suppress(g):
    t = g.fresh("t")
    s = g.expr(S, maxdepth=1)
    g.helper("contextlib", "import contextlib")
    form = g.rng.randrange(4)
    if form == 0:
        d = g.fresh("d")
        g.emit(f"{d} = {{'a': {s}, 'b': {g.leaf(S)}}}", f"{t} = {g.leaf(S)}", "with contextlib.suppress(KeyError):",
               f"    {t} = {t} * {d}[{g.rng.choice(['a', 'b', 'z'])!r}]", f"    {t} = {t} + {s}")
    elif form == 1:
        a = g.pick(V)
        g.emit(f"{t} = {s}", "with contextlib.suppress(IndexError, KeyError):",
               f"    {t} = {t} + {a}[{g.rng.choice([0, 2, 5])}] * {g.leaf(S)}")
    elif form == 2:
        g.emit(f"{t} = 0.0", f"for i in range({g.rng.randint(1, 4)}):", "    with contextlib.suppress(ValueError):",
               f"        if i == {g.rng.randint(0, 2)}:", "            raise ValueError",
               f"        {t} = {t} + {s} * (i + 1)")
    else:
        g.emit(f"with contextlib.nullcontext({g.expr(S, maxdepth=1)}) as {t}:", f"    {t} = {t} * {s}")
    g.define(t, S)


_DELEGATE = '''def parts_{n}(p, q):
    yield p * q
    yield from [math.sin(p), q * 0.5]
    yield from (p * k for k in range(2))
    yield from inner_{n}(q)


def inner_{n}(q):
    for k in range(2):
        yield q * (k + 1.0)'''


def s_yield_from(g):
    t, n = g.fresh("t"), g.fresh("")
    g.helper("math", "import math")
    g.helper(f"parts_{n}", _DELEGATE.format(n=n))
    s, r = g.expr(S, maxdepth=1), g.leaf(S)
    form = g.rng.randrange(3)
    if form == 0:
        g.emit(f"{t} = sum(parts_{n}({s}, {r}))")
    elif form == 1:
        g.emit(f"{t} = 0.0", f"for v in parts_{n}({s}, {r}):", f"    {t} = {t} + v * v")
    else:
        g.emit(f"{t} = list(parts_{n}({s}, {r}))[{g.rng.randrange(5)}] * {g.leaf(S)}")
    g.define(t, S)


def s_local_class(g):
    t, n, o = g.fresh("t"), g.fresh(""), g.fresh("o")
    form = g.rng.randrange(2)
    if form == 0:
        g.emit(f"class Lin{n}:", "    def __init__(self, w, b):", "        self.w = w", "        self.b = b",
               "    def __call__(self, u):", "        return np.tanh(self.w * u + self.b)",
               f"{o} = Lin{n}({g.expr(V, maxdepth=1)}, {g.leaf(S)})", f"{t} = float(np.sum({o}({g.leaf(V)})))")
    else:
        g.emit(f"class Acc{n}:", "    scale = 2.0", "    def __init__(self):", "        self.total = 0.0",
               "    def add(self, v):", "        self.total = self.total + v * self.scale", "        return self",
               f"{o} = Acc{n}()", f"{o}.add({g.expr(S, maxdepth=1)}).add({g.leaf(S)})", f"{t} = {o}.total")
    g.define(t, S)


FAMILIES["language15"] = [s_suppress, s_yield_from, s_local_class, s_suppress, s_assign]
