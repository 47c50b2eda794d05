"""The random family "oop": the object-oriented Python scientists write around their numbers and arrays, in the
forms the other families do not make:

* in-place operators of the user's classes (`__iadd__`, `__imul__` returning self) on objects reached by two
  names, with number or array fields (an array field updated in place, or rebound);
* containers of their own (`__getitem__`, `__setitem__`, `__len__`) read and written by index;
* class attributes read through the class and the instance, shadowed by an instance attribute;
* `@staticmethod` and `@classmethod` constructors, `super()` chains of two levels with overridden hooks;
* `@functools.cache` methods and helpers, dataclasses with `field(default_factory=...)` and `__post_init__`;
* methods that return self (chained), and a method that rebinds an array field while a name holds the old one;
* builtins consuming `reversed(xs)` / `iter(xs)`.
"""
from __future__ import annotations

from .gen import FAMILIES, S, V, s_assign

_ACC = """class Acc{n}:
    def __init__(self, a, w):
        self.a = a
        self.w = w

    def __iadd__(self, o):
        self.a = self.a + o.a
        self.w += o.w
        return self

    def __imul__(self, k):
        self.a = self.a * k
        self.w *= k
        return self"""


def s_inplace_operators(g):
    n, v, p, q = g.fresh(""), g.fresh(), g.fresh("p"), g.fresh("q")
    g.helper(f"Acc{n}", _ACC.format(n=n))
    g.emit(f"{p} = Acc{n}({g.expr(S, maxdepth=1)}, {g.leaf(V)} * 1.0)")
    if g.chance(0.5):
        g.emit(f"{q} = {p}")
    else:
        g.emit(f"{q} = Acc{n}({g.leaf(S)}, {g.leaf(V)} + 0.0)")
    form = g.rng.randrange(3)
    if form == 0:
        g.emit(f"{p} += Acc{n}({g.leaf(S)}, {g.leaf(V)} * 0.5)")
    elif form == 1:
        g.emit(f"{p} *= {g.bounded(S, maxdepth=1)}")
    else:
        g.emit("for _ in range(2):", f"    {p} += {q}", f"    {p} *= 0.5")
    g.emit(f"{v} = {p}.a * float(np.sum({p}.w)) + {q}.a + float(np.sum({q}.w * {q}.w))")
    g.define(v, S)


_SEQ = """class Seq{n}:
    def __init__(self, items):
        self.items = list(items)

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]

    def __setitem__(self, i, v):
        self.items[i] = v"""


def s_own_container(g):
    n, v, s = g.fresh(""), g.fresh(), g.fresh("s")
    g.helper(f"Seq{n}", _SEQ.format(n=n))
    g.emit(f"{s} = Seq{n}([{g.expr(S, maxdepth=1)}, {g.leaf(S)}, 0.5])")
    form = g.rng.randrange(3)
    if form == 0:
        g.emit(f"{s}[1] = {s}[0] * {s}[2] + {g.leaf(S)}")
    elif form == 1:
        g.emit(f"for i in range(len({s})):", f"    {s}[i] = {s}[i] * {g.leaf(S)} + i")
    else:
        g.emit(f"{s}[0], {s}[2] = {s}[2], {s}[0] * 2.0")
    g.emit(f"{v} = {s}[0] * {s}[1] + {s}[len({s}) - 1]")
    g.define(v, S)


_SCALED = """class Scaled{n}:
    gain = 1.5

    def __init__(self, x):
        self.x = x

    @staticmethod
    def squash(t):
        return math.tanh(t)

    @classmethod
    def of(cls, x):
        return cls(x * 2.0)

    def out(self):
        return self.squash(self.x) * self.gain"""


def s_class_level(g):
    n, v, o = g.fresh(""), g.fresh(), g.fresh("o")
    g.helper(f"Scaled{n}", _SCALED.format(n=n))
    g.emit(f"{o} = " + g.rng.choice([f"Scaled{n}.of({g.expr(S, maxdepth=1)})", f"Scaled{n}({g.expr(S, maxdepth=1)})"]))
    if g.chance(0.5):
        g.emit(f"{o}.gain = {g.leaf(S)} * 0.5")  # (an instance attribute shadows the class's)
    g.emit(f"{v} = {o}.out() + Scaled{n}.gain * Scaled{n}.squash({g.leaf(S)}) + {o}.gain")
    g.define(v, S)


_CHAIN = """class Root{n}:
    def __init__(self, k):
        self.k = k

    def hook(self, t):
        return t

    def run(self, t):
        return self.hook(t) * self.k


class Mid{n}(Root{n}):
    def __init__(self, k, c):
        super().__init__(k * 0.5)
        self.c = c

    def hook(self, t):
        return super().hook(t) + self.c * t


class Leaf{n}(Mid{n}):
    def hook(self, t):
        return super().hook(t) * math.cos(t)"""


def s_super_chain(g):
    n, v, o = g.fresh(""), g.fresh(), g.fresh("o")
    g.helper(f"Root{n}", _CHAIN.format(n=n))
    cls = g.rng.choice([f"Mid{n}", f"Leaf{n}"])
    g.emit(f"{o} = {cls}({g.expr(S, maxdepth=1)}, {g.leaf(S)})", f"{v} = {o}.run({g.leaf(S)}) + {o}.k * {o}.c")
    g.define(v, S)


_CACHED = """class Poly{n}:
    def __init__(self, a, b):
        self.a = a
        self.b = b

    @functools.cache
    def at(self, k):
        return self.a * k + self.b * k * k


@functools.lru_cache(maxsize=None)
def phi{n}(t, k):
    return math.sin(k * t) / (1.0 + k)"""


def s_memoised(g):
    n, v, p = g.fresh(""), g.fresh(), g.fresh("p")
    g.helper("functools", "import functools")
    g.helper(f"Poly{n}", _CACHED.format(n=n))
    t = g.expr(S, maxdepth=1)
    g.emit(f"{p} = Poly{n}({t}, {g.leaf(S)})",
           f"{v} = {p}.at(2) + {p}.at(2) * {p}.at(3) + sum(phi{n}({g.leaf(S)}, k) for k in range(3)) + phi{n}({t}, 1)")
    g.define(v, S)


_DATA = """@dataclasses.dataclass
class Cfg{n}:
    w: np.ndarray
    scale: float = 1.0
    hist: list = dataclasses.field(default_factory=list)

    def __post_init__(self):
        self.norm = float(np.sum(self.w * self.w)) * self.scale

    def step(self, d):
        self.w = self.w - d * self.w
        self.hist.append(self.norm)
        return self"""


def s_dataclass_chain(g):
    n, v, c, old = g.fresh(""), g.fresh(), g.fresh("c"), g.fresh("old")
    g.helper("dataclasses", "import dataclasses")
    g.helper(f"Cfg{n}", _DATA.format(n=n))
    g.emit(f"{c} = Cfg{n}({g.leaf(V)} * 1.0, {g.expr(S, maxdepth=1)})", f"{old} = {c}.w")
    form = g.rng.randrange(2)
    if form == 0:
        g.emit(f"{c}.step({g.leaf(S)} * 0.1).step(0.2)")
    else:
        g.emit("for _ in range(2):", f"    {c}.step({g.bounded(S, maxdepth=1)} * 0.1)")
    g.emit(f"{v} = float(np.sum({c}.w * {old})) + sum({c}.hist) + {c}.norm")
    g.define(v, S)


def s_consumed_iterator(g):
    """A builtin consuming `reversed(xs)` / `iter(xs)` of a list, a tuple or an array (the pullback read the
    exhausted iterator again: 2026-11-27)."""
    v, xs = g.fresh(), g.fresh("xs")
    src = g.rng.choice([f"[{g.expr(S, maxdepth=1)}, {g.leaf(S)}, 0.5]", f"({g.leaf(S)}, {g.expr(S, maxdepth=1)})",
                        f"{g.leaf(V)} * 1.0"])
    g.emit(f"{xs} = {src}")
    it = g.rng.choice([f"reversed({xs})", f"iter({xs})"])
    form = g.rng.randrange(6)
    if form == 0:
        g.emit(f"{v} = sum({it}) * {g.leaf(S)}")
    elif form == 1:
        g.emit(f"{v} = sorted({it})[0] + max({it})")
    elif form == 2:
        g.emit(f"{v} = math.fsum({it})")
    elif form == 3:
        g.helper("statistics", "import statistics")
        g.emit(f"{v} = statistics.fmean({it}) * 2.0")
    elif form == 4:
        it_name = g.fresh("it")
        g.emit(f"{it_name} = {it}", f"{v} = sum({it_name}) + min({xs})")
    else:
        g.emit(f"{v} = sum(t * t for t in {it})")
    g.define(v, S)


def s_named_iterator(g):
    """An iterator or view kept under a name and read a few lines later, with code in between that does not change
    what it reads (frontend/lazy_values.py refuses the other kind; these must be differentiated, and right)."""
    v, it, xs, d = g.fresh(), g.fresh("it"), g.fresh("xs"), g.fresh("d")
    g.emit(f"{xs} = [{g.expr(S, maxdepth=1)}, {g.leaf(S)}, 0.5]")
    form = g.rng.randrange(4)
    if form == 0:
        g.emit(f"{it} = (t * {g.leaf(S)} for t in {xs})")
    elif form == 1:
        g.emit(f"{it} = map(math.sin, {xs})")
    elif form == 2:
        g.emit(f"{d} = {{'a': {xs}[0], 'b': {xs}[1]}}", f"{it} = {d}.values()")
    else:
        g.emit(f"{it} = zip({xs}, [1.0, 2.0, 3.0])")
    g.emit(f"{v}_s = len({xs}) * 0.5", f"{v}_o = np.zeros(2)", f"{v}_o[0] = {g.leaf(S)}")
    if form == 3:
        g.emit(f"{v} = sum(p * q for p, q in {it}) * {v}_s + {v}_o.sum()")
    else:
        g.emit(f"{v} = sum({it}) * {v}_s + {v}_o.sum()")
    g.define(v, S)


FAMILIES["oop"] = [s_inplace_operators, s_own_container, s_class_level, s_super_chain, s_memoised, s_dataclass_chain,
                   s_consumed_iterator, s_named_iterator, s_assign]  # (after "views")
