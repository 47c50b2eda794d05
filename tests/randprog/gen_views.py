"""The random family "views": NumPy views (slices, rows, columns, windows, transposes, reshapes, diagonals) of an
array that is written while the view is alive, and read again after the write -- where a silent wrong derivative
was found on 2026-11-27 (late): reverse mode gave an array read and written element by element a plain adjoint
buffer and sent a view's adjoint to it where the view was taken, as if the view were a copy.

Each snippet makes a fresh array (or takes a parameter's copy), takes a view, may read it, writes the array (an
item, a slice, in place, or through the view itself), and reads the view again, in straight code, a loop or a
branch.
"""
from __future__ import annotations

from .gen import FAMILIES, M, S, V, s_assign

_VECTOR_VIEWS = ["{b}[:2]", "{b}[1:]", "{b}[::2]", "{b}[::-1]", "{b}[1:3]"]
_MATRIX_VIEWS = ["{b}[0]", "{b}[1]", "{b}[:, 1]", "{b}.T", "{b}[:, 1:]", "{b}.reshape(3, 2)", "{b}.ravel()",
                 "np.diagonal({b})", "{b}[::-1]", "np.reshape({b}, (3, 2))", "np.transpose({b})",
                 "np.swapaxes({b}, 0, 1)", "np.split({b}, 2)[1]", "np.expand_dims({b}, 0)[0]"]


def _fresh_array(g, shape):
    b = g.fresh("b")
    if shape == V:
        a = g.pick(V)
        src = g.rng.choice([f"{a}.copy()", f"{a} * 1.0", f"np.tanh({a})", f"np.array([{g.leaf(S)}, {g.leaf(S)}, 0.5])"])
    else:
        src = g.rng.choice([f"{g.pick(M)}.copy()" if g.pick(M) else "C23 * 1.0", f"C23 * {g.leaf(S)}",
                            f"np.outer(C2, {g.leaf(V)})"])
    g.emit(f"{b} = {src}")
    return b


def _write(g, b, view, shape, through=True):
    """A write to b (or through its view, named `view`, unless `through` is False: NumPy's diagonal is a read-only
    view) while the view is alive."""
    s = g.expr(S, maxdepth=1)
    form = g.rng.randrange(6)
    if shape == V:
        if form == 0:
            return [f"{b}[{g.rng.randrange(3)}] = {s}"]
        if form == 1:
            return [f"{b}[1:] = {b}[:-1] * 0.5 + {s}"]
        if form == 2:
            return [f"{b} += {s} * 0.3"]
        if form == 3:
            return [f"{b} *= 0.5 + 0.4 * math.tanh({s})"]
        if form == 4:
            return [f"{view}[0] = {s}"]
        return [f"{view} += {s}"]  # (vector views are all writable)
    if form == 0:
        return [f"{b}[{g.rng.randrange(2)}, {g.rng.randrange(3)}] = {s}"]
    if form == 1:
        return [f"{b}[1] = {b}[0] * 0.5 + {s}"]
    if form == 2:
        return [f"{b} += {s} * 0.3"]
    if form == 3:
        return [f"{b}[:, 0] = {s}"]
    if form == 4:
        return [f"{view}[0] = {s}" if through else f"{b}[0, 0] = {s}"]
    return [f"{view} *= 0.5 + 0.4 * math.tanh({s})" if through else f"{b} *= 0.9"]


def s_view_across_write(g):
    v, w = g.fresh(), g.fresh("w")
    shape = V if g.chance(0.6) else M
    b = _fresh_array(g, shape)
    view = g.rng.choice(_VECTOR_VIEWS if shape == V else _MATRIX_VIEWS).format(b=b)
    g.emit(f"{w} = {view}")
    before = g.chance(0.6)
    if before:
        g.emit(f"{v}_0 = " + g.rng.choice([f"np.sum({w} * {w})", f"{w} * 1.0", f"np.sum(np.sin({w}))"]))
    where = g.rng.randrange(3)
    writes = _write(g, b, w, shape, through=not view.startswith("np.diagonal"))
    reads = g.rng.choice([f"np.sum({w} * {w})", f"np.sum(np.tanh({w}) * {w})", f"float(np.sum({w})) * {g.leaf(S)}"])
    if where == 0:
        g.emit(*writes, f"{v} = {reads}")
    elif where == 1:
        g.emit(f"if {g.leaf(S)} > -0.5:", *("    " + line for line in writes), f"{v} = {reads}")
    else:
        g.emit(*writes, f"if {g.leaf(S)} > 0.0:", f"    {v} = {reads}", "else:", f"    {v} = np.sum({w}) * 0.5")
    if before:
        g.emit(f"{v} = {v} + np.sum({v}_0)")
    g.emit(f"{v} = {v} + np.sum({b} * {b}) * 0.1")
    g.define(v, S)


def s_window_loop(g):
    """A window `b[i:i + 2]` read, then the array written at or after the window, then the window read again."""
    v, w, k = g.fresh(), g.fresh("w"), g.fresh("k")
    b = _fresh_array(g, V)
    s = g.expr(S, maxdepth=1)
    g.emit(f"{v} = 0.0", f"for {k} in range(2):", f"    {w} = {b}[{k}:{k} + 2]")
    form = g.rng.randrange(4)
    if form == 0:
        g.emit(f"    {b}[{k} + 1] = np.sum({w}) * 0.5 + {s}")
    elif form == 1:
        g.emit(f"    {b}[{k}] = {w}[1] * math.tanh({s})")
    elif form == 2:
        g.emit(f"    {w} *= 0.5 + 0.2 * math.tanh({s})")
    else:
        g.emit(f"    if {k} % 2 == 0:", f"        {b}[{k} + 1] = {w}[0] * {s}")
    g.emit(f"    {v} = {v} + np.sum({w} * {w})", f"{v} = {v} + np.sum({b} ** 2)")
    g.define(v, S)


def s_rows_walked(g):
    """`for row in A`: each row is a view of A, written through A while walked."""
    v, r = g.fresh(), g.fresh("row")
    b = _fresh_array(g, M)
    s = g.expr(S, maxdepth=1)
    write = g.rng.choice([f"{b}[0, 0] = {s}", f"{b}[1] = {b}[1] * 0.5 + {s}", f"{r}[1] = {s}", f"{b} *= 0.9"])
    g.emit(f"{v} = 0.0", f"for {r} in {b}:", f"    {v}_0 = np.sum({r} * {r})", f"    {write}",
           f"    {v} = {v} + {v}_0 + np.sum(np.sin({r}))", f"{v} = {v} + np.sum({b})")
    g.define(v, S)


FAMILIES["views"] = [s_view_across_write, s_window_loop, s_rows_walked, s_assign]  # (after "protocols")
