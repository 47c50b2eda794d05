"""The random family "protocols": instances of the user's classes used through Python's protocols rather than by
field -- the places where silent wrong derivatives were found on 2026-11-27 (evening):

* an object with `__iter__` (returning an iterator, a generator method, or itself with `__next__`) consumed by a
  builtin (`sum`, `max`, `sorted`, `list`, `math.fsum`, `functools.reduce`, `map`, `filter`, `statistics.fmean`,
  `np.fromiter`) or a `for` loop;
* operators of a value class whose result is used at once (`(p + q).norm2()`), and `sum` of such objects (`0 + p`
  runs `__radd__`);
* one bound method or callable object called several times (`g = p.ev; g(x) + g(y)`, `map(p.ev, xs)`,
  `[p.ev] * 2`);
* fields read and written by name (`getattr`/`setattr` over names, `dataclasses.astuple`/`asdict`/`replace`).
"""
from __future__ import annotations

from .gen import FAMILIES, S, V, s_assign

_BAG = """class Bag{n}:
    def __init__(self, vals):
        self.vals = vals

    def __iter__(self):
        return iter(self.vals)"""

_GEN_BAG = """class Bag{n}:
    def __init__(self, vals):
        self.vals = vals

    def __iter__(self):
        for v in self.vals:
            yield v * 1.0"""

_ITER_BAG = """class Bag{n}:
    def __init__(self, vals):
        self.vals = vals
        self.i = 0

    def __iter__(self):
        return self

    def __next__(self):
        if self.i >= len(self.vals):
            raise StopIteration
        self.i += 1
        return self.vals[self.i - 1]"""


def s_iterable_object(g):
    n, v, b = g.fresh(""), g.fresh(), g.fresh("b")
    g.helper(f"Bag{n}", g.rng.choice([_BAG, _GEN_BAG, _ITER_BAG]).format(n=n))
    items = [g.expr(S, maxdepth=1), g.leaf(S), f"{g.leaf(S)} * 0.5"]
    g.emit(f"{b} = Bag{n}([{', '.join(items)}])")
    form = g.rng.randrange(10)
    if form == 0:
        g.emit(f"{v} = sum({b})")
    elif form == 1:
        g.emit(f"{v} = max({b}) + 0.5 * min(Bag{n}([{items[1]}, {items[0]}]))")
    elif form == 2:
        g.emit(f"{v} = sorted({b})[1]")
    elif form == 3:
        g.emit(f"{v} = list({b})[0] * 2.0")
    elif form == 4:
        g.helper("math", "import math")
        g.emit(f"{v} = math.fsum({b})")
    elif form == 5:
        g.helper("functools", "import functools")
        g.emit(f"{v} = functools.reduce(lambda p, q: p * 0.5 + q, {b})")
    elif form == 6:
        g.emit(f"{v} = sum(map(lambda t: t * t, {b}))")
    elif form == 7:
        g.helper("statistics", "import statistics")
        g.emit(f"{v} = statistics.fmean({b})")
    elif form == 8:
        g.emit(f"{v} = float(np.sum(np.fromiter({b}, float) ** 2))")
    else:
        g.emit(f"{v} = 0.0", f"for t in {b}:", f"    {v} = {v} + math.sin(t) * t")
        g.helper("math", "import math")
    g.define(v, S)


_VEC = """class Vec{n}:
    def __init__(self, a, b):
        self.a = a
        self.b = b

    def __add__(self, o):
        if isinstance(o, (int, float)):
            return Vec{n}(self.a + o, self.b + o)
        return Vec{n}(self.a + o.a, self.b + o.b)

    def __radd__(self, o):
        return self.__add__(o)

    def __sub__(self, o):
        return Vec{n}(self.a - o.a, self.b - o.b)

    def __mul__(self, s):
        return Vec{n}(self.a * s, self.b * s)

    __rmul__ = __mul__

    def dot(self, o):
        return self.a * o.a + self.b * o.b

    def norm2(self):
        return self.dot(self)"""


def s_operator_object(g):
    n, v = g.fresh(""), g.fresh()
    g.helper(f"Vec{n}", _VEC.format(n=n))
    p, q = f"Vec{n}({g.expr(S, maxdepth=1)}, {g.leaf(S)})", f"Vec{n}({g.leaf(S)}, 0.5)"
    form = g.rng.randrange(4)
    if form == 0:
        g.emit(f"{v} = ({p} + {q}).norm2()")
    elif form == 1:
        h = g.fresh("p")
        g.emit(f"{h} = {p}", f"{v} = (2.0 * {h} - {h} * {g.leaf(S)}).dot({q})")
    elif form == 2:
        s = g.fresh("s")
        g.emit(f"{s} = sum([{p}, {q}])", f"{v} = {s}.a * {s}.b")
    else:
        h = g.fresh("p")
        g.emit(f"{h} = {p}", "for _ in range(2):", f"    {h} = {h} + {h} * 0.25", f"{v} = {h}.norm2()")
    g.define(v, S)


_POLY = """class Poly{n}:
    def __init__(self, c):
        self.c = c

    def __call__(self, t):
        return self.c[0] + self.c[1] * t + self.c[2] * t * t

    def ev(self, t):
        return self(t) * 2.0"""


def s_repeated_calls(g):
    n, v, p = g.fresh(""), g.fresh(), g.fresh("p")
    g.helper(f"Poly{n}", _POLY.format(n=n))
    coeffs = g.rng.choice([f"[0.5, {g.leaf(S)}, 0.25]", f"np.array([0.5, {g.leaf(S)}, 0.25])"])
    g.emit(f"{p} = Poly{n}({coeffs})")
    t1, t2 = g.expr(S, maxdepth=1), g.leaf(S)
    form = g.rng.randrange(5)
    if form == 0:
        h = g.fresh("f")
        g.emit(f"{h} = {p}.ev", f"{v} = {h}({t1}) + {h}({t2})")
    elif form == 1:
        g.emit(f"{v} = sum(map({p}.ev, [{t1}, {t2}]))")
    elif form == 2:
        g.emit(f"{v} = sum(map({p}, [{t1}, {t2}]))")
    elif form == 3:
        g.emit(f"{v} = sum(h({t1}) for h in [{p}.ev] * 2)")
    else:
        g.emit(f"{v} = 0.0", f"for t in [{t1}, {t2}]:", f"    {v} = {v} + {p}(t) + {p}.ev(t)")
    g.define(v, S)


_FIELDS = """@dataclasses.dataclass
class Fields{n}:
    w: float
    b: float"""


def s_fields_by_name(g):
    n, v, o = g.fresh(""), g.fresh(), g.fresh("o")
    g.helper("dataclasses", "import dataclasses")
    g.helper(f"Fields{n}", _FIELDS.format(n=n))
    g.emit(f"{o} = Fields{n}({g.expr(S, maxdepth=1)}, {g.leaf(S)})")
    form = g.rng.randrange(4)
    if form == 0:
        g.emit(f"{v} = sum(dataclasses.astuple({o})) * {g.leaf(S)}")
    elif form == 1:
        d = g.fresh("d")
        g.emit(f"{d} = dataclasses.asdict({o})", f"{v} = {d}['w'] * {d}['b']")
    elif form == 2:
        g.emit("for name in ('w', 'b'):", f"    setattr({o}, name, getattr({o}, name) * {g.leaf(S)})",
               f"{v} = {o}.w + {o}.b")
    else:
        q = g.fresh("q")
        g.emit(f"{q} = dataclasses.replace({o}, b={o}.w * 2.0)",
               f"{v} = sum(getattr({q}, f.name) for f in dataclasses.fields({q}))")
    g.define(v, S)


FAMILIES["protocols"] = [s_iterable_object, s_operator_object, s_repeated_calls, s_fields_by_name, s_assign]
