"""The random family "buffers": arrays that start with no derivative and are filled later, and objects made by
alternative constructors -- two shapes of everyday code where hunt11 (2026-11-28) found silent wrong derivatives
the other families never emitted:

- a buffer made by a zero-derivative function of an input (`np.zeros_like(a)`, `np.full(a.shape, c)`,
  `np.floor(a)`, ...) or returned by a helper (`make(3)`), then filled with differentiated values through a view
  (a slice, `[::-1]`, a reshape, the rows of `for r in buf`, a helper writing into it): forward mode kept a zero
  tangent;
- an object made by a classmethod (`Series.from_array(a)`, `return cls(...)`), then read with its own __getitem__
  or combined with its own operators: reverse mode typed it as an array (a silent zero gradient) and forward mode
  raised TypeError.
"""
from __future__ import annotations

from .gen import FAMILIES, S, V, s_assign

MAKE = "def make_buffer(n):\n    return np.zeros(n)"
FILL = "def fill_tail(buf, vals):\n    w = buf[1:]\n    w[:] = vals[:2]"
SERIES = '''class Series:
    def __init__(self, v):
        self.v = v

    @classmethod
    def from_array(cls, a):
        return cls(np.asarray(a) * 1.0)

    def __getitem__(self, i):
        return self.v[i]

    def __mul__(self, other):
        return Series(self.v * other.v)

    def __add__(self, other):
        return Series(self.v + other.v)

    def total(self):
        return float(np.sum(self.v))'''

_STARTS = ["np.zeros_like({a})", "np.ones_like({a})", "np.full_like({a}, 0.5)", "np.zeros({a}.shape)",
           "np.ones({a}.size)", "np.full({a}.shape, -0.25)", "np.floor({a})", "np.sign({a}) * 0.5",
           "np.arange(len({a}), dtype=float)", "np.zeros(3)", "make_buffer(3)", "np.zeros_like({a}).copy()"]


def s_buffer_filled_through_view(g):
    """A buffer with no derivative yet, filled with differentiated values through a view, then read."""
    v, b, w = g.fresh(), g.fresh("buf"), g.fresh("w")
    a = g.pick(V)
    start = g.rng.choice(_STARTS)
    if "make_buffer" in start:
        g.helper("make_buffer", MAKE)
    g.emit(f"{b} = {start.format(a=a)}")
    form = g.rng.randrange(6)
    s = g.expr(S, maxdepth=1)
    if form == 0:
        g.emit(f"{w} = {b}[1:]", f"{w}[0] = {s}")
    elif form == 1:
        g.emit(f"{w} = {b}[::-1]", f"{w}[:2] = np.tanh({g.leaf(V)})[:2] * {s}")
    elif form == 2:
        g.emit(f"{w} = {b}.reshape(1, 3)", f"{w}[0] += {g.leaf(V)} * {s}")
    elif form == 3:
        r, k = g.fresh("row"), g.fresh("k")
        g.emit(f"for {k}, {r} in enumerate({b}.reshape(3, 1)):", f"    {r} += {g.leaf(V)}[{k}] * {s}")
    elif form == 4:
        g.helper("fill_tail", FILL)
        g.emit(f"fill_tail({b}, np.sin({g.leaf(V)}) * {s})")
    else:
        g.emit(f"{w} = [{b}]", f"{w}[0][2] = {s}")
    g.emit(f"{v} = np.sum({b} * {b}) + np.sum(np.sin({b}))")
    g.define(v, S)


def s_classmethod_object(g):
    """An object made by a classmethod, read with its own __getitem__ or combined with its own operators."""
    g.helper("Series", SERIES)
    v, o = g.fresh(), g.fresh("ser")
    g.emit(f"{o} = Series.from_array({g.expr(V, maxdepth=1)})")
    form = g.rng.randrange(4)
    if form == 0:
        g.emit(f"{v} = {o}[0] * {o}[2] + {o}[1]")
    elif form == 1:
        i = g.fresh("i")
        g.emit(f"{v} = sum({o}[{i}] ** 2 for {i} in range(3))")
    elif form == 2:
        g.emit(f"{v} = ({o} * {o} + Series({g.leaf(V)})).total()")
    else:
        g.emit(f"{v} = {o}.total() * {g.leaf(S)} + {o}[1]")
    g.define(v, S)


FAMILIES["buffers"] = [s_buffer_filled_through_view, s_classmethod_object, s_buffer_filled_through_view, s_assign]
