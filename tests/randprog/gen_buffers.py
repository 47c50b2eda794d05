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

from .gen import FAMILIES, M, S, V, s_assign

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


# ---------------------------------------------------------------- the family "layouts" (hunt11)
# Memory layout and `out=`: `A.T.copy()` is C-ordered (a reshape of it is a view), the value a ufunc given `out=`
# returns is the out array itself, and complex intermediates with a real result -- none emitted before hunt11, where
# the first two gave silent wrong values / gradients.

def s_transposed_copy_written_flat(g):
    """A C-ordered copy of a transposed matrix, written through a flat view, then read."""
    v, c, r = g.fresh(), g.fresh("c"), g.fresh("r")
    m = g.pick(M) or "C23 * 1.0"
    g.emit(f"{c} = ({m} * {g.leaf(S)}).T.copy()")
    form = g.rng.randrange(3)
    s = g.expr(S, maxdepth=1)
    if form == 0:
        g.emit(f"{r} = {c}.reshape(-1)", f"{r} += {s}")
    elif form == 1:
        g.emit(f"{c}.ravel()[{g.rng.randrange(6)}] = {s}")
    else:
        g.emit(f"{r} = {c}.reshape(2, 3)", f"{r}[1] = {r}[0] * {s}")
    g.emit(f"{v} = np.sum({c} * {c} * np.arange(1.0, 7.0).reshape(3, 2))")
    g.define(v, S)


def s_out_result_used(g):
    """The value returned by a ufunc (or matmul) given out=, read instead of the out array."""
    v, y, b = g.fresh(), g.fresh("y"), g.fresh("buf")
    a = g.pick(V)
    form = g.rng.randrange(4)
    g.emit(f"{b} = np.empty(3)")
    if form == 0:
        g.emit(f"{y} = np.exp(np.tanh({a}), out={b})")
    elif form == 1:
        g.emit(f"{y} = np.multiply({a}, {g.leaf(V)}, out={b})")
    elif form == 2:
        g.emit(f"{y} = np.sin({a} * {g.leaf(S)}, out=({b},))")
    else:
        g.emit(f"{y} = np.matmul(M33, {a}, out={b})")
    g.emit(f"{v} = np.sum({y} * C3) + np.sum({b}) * {g.leaf(S)}")
    g.define(v, S)


def s_complex_intermediate(g):
    """Complex numbers in the middle, a real result."""
    v, z = g.fresh(), g.fresh("z")
    a = g.pick(V)
    form = g.rng.randrange(3)
    if form == 0:
        g.emit(f"{z} = {a} + 1j * {g.leaf(V)}", f"{v} = np.sum(np.abs({z} * {z} + 0.5) ** 2)")
    elif form == 1:
        g.emit(f"{z} = np.exp(1j * {a} * {g.leaf(S)})", f"{v} = np.sum(np.real({z} * np.conj({z}) + {z} ** 2))")
    else:
        g.emit(f"{z} = complex({g.leaf(S)}, {g.expr(S, maxdepth=1)})", f"{v} = ({z} * {z}).real + abs({z})")
    g.define(v, S)


FAMILIES["layouts"] = [s_transposed_copy_written_flat, s_out_result_used, s_complex_intermediate,
                       s_transposed_copy_written_flat, s_assign]
