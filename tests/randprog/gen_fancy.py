"""The random family "fancy": the indexing and ufunc idioms of NumPy code that the other families do not make,
with the semantics that are easy to get wrong in a derivative:

* augmented assignment on fancy indices with *repeated* indices (`b[[0, 2, 0]] += v`: NumPy buffers, so only the
  last occurrence of an index counts) and `np.add.at` (unbuffered: every occurrence counts), `b[idx] = v` with
  repeats (the last wins), `*=` on repeated indices;
* gathers and scatters driven by `np.argsort` / `np.sort` / `np.flip` / boolean masks of values kept away from the
  threshold (no kink at the point);
* `np.where`, `np.clip`, `np.maximum`/`np.minimum` whose branches are chosen by values kept away from the kink;
* ufunc `out=` into stepped slices, in-place ops on stepped and overlapping slices (`b[1:] += b[:-1]`), an array
  written with itself (`b[::-1] = b`, `b[:] = b`; not `b[::2] = b[:3]`, where NumPy does not buffer: a known
  xfail), `np.cumsum(b, out=b)`, `b.sort()` with a view of b alive, `np.put`, `np.copyto(where=)`, `np.putmask`, `b.fill`;
* conversions that may return their argument itself (`b.astype(float, copy=False)`, `np.asarray`, `np.require`),
  and NumPy functions that return views (`np.flip`, `np.moveaxis`, `np.unstack`, `np.split`, ...), written through
  afterwards or read after a write to their base; the real and imaginary parts of a complex array, the same.
"""
from __future__ import annotations

from .gen import FAMILIES, M, S, V, s_assign


def _buffer(g, n=3):
    """A fresh float array of n entries that depends on the inputs (n = 3 or 6)."""
    b = g.fresh("b")
    if n == 3:
        src = g.rng.choice([f"{g.pick(V)} * 1.0", f"np.tanh({g.pick(V)})", f"{g.pick(V)} + {g.leaf(S)} * C3",
                            f"np.array([{g.leaf(S)}, {g.expr(S, maxdepth=1)}, 0.5])"])
    else:
        src = g.rng.choice([f"np.concatenate([{g.pick(V)}, {g.leaf(V)} * {g.leaf(S)}])",
                            f"np.tile({g.pick(V)}, 2) * np.linspace(0.5, 1.5, 6)",
                            f"np.sin(np.arange(6.0) * {g.leaf(S)}) + 0.1"])
    g.emit(f"{b} = {src}")
    return b


def _index_list(g, n, k):
    """k indices into n entries, with at least one repeated."""
    idx = [g.rng.randrange(n) for _ in range(k - 1)]
    idx.append(g.rng.choice(idx))
    g.rng.shuffle(idx)
    return idx


def s_repeated_indices(g):
    v = g.fresh()
    n = g.rng.choice([3, 6])
    b = _buffer(g, n)
    k = g.rng.randint(2, 5)
    idx = _index_list(g, n, k)
    as_array = g.chance(0.5)
    ix = f"np.array({idx})" if as_array else repr(idx)
    vals = "np.array([" + ", ".join(g.rng.choice([g.leaf(S), g.expr(S, maxdepth=1), "0.25", "-0.5"]) for _ in range(k)) + "])"
    form = g.rng.randrange(7)
    if form == 0:
        g.emit(f"{b}[{ix}] += {vals}")
    elif form == 1:
        g.emit(f"{b}[{ix}] = {vals}")
    elif form == 2:
        g.emit(f"{b}[{ix}] *= {g.bounded(S, maxdepth=1)}")
    elif form == 3:
        g.emit(f"np.add.at({b}, {ix}, {vals})")
    elif form == 4:
        g.emit(f"{b}[{ix}] -= {b}[{ix}[::-1]] * 0.5" if as_array else f"{b}[{ix}] -= {b}[{idx[::-1]!r}] * 0.5")
    elif form == 5:
        g.emit(f"np.multiply.at({b}, {ix}, 0.5 + 0.4 * np.tanh({vals}))")
    else:
        i = g.fresh("i")
        g.emit(f"for {i} in {idx!r}:", f"    {b}[{i}] += {g.leaf(S)} * ({i} + 1)")
    g.emit(f"{v} = float(np.sum({b} * {b})) + {b}[{idx[0]}]")
    g.define(v, S)


def s_sorted_gather(g):
    v, o = g.fresh(), g.fresh("o")
    b = _buffer(g, 3)
    form = g.rng.randrange(6)
    if form == 0:
        g.emit(f"{o} = np.argsort({b})", f"{v} = float(np.sum({b}[{o}] * np.array([1.0, 2.0, 3.0])))")
    elif form == 1:
        g.emit(f"{o} = np.argsort(-{b})", f"{b}[{o}] = {b} * np.array([1.0, 0.5, 0.25])", f"{v} = float(np.sum({b} ** 2))")
    elif form == 2:
        g.emit(f"{o} = np.sort({b})[::-1]", f"{v} = {o}[0] * 2.0 + {o}[2]")
    elif form == 3:
        s = g.fresh("s")
        g.emit(f"{s} = {b}[:2]", f"{b}.sort()", f"{v} = float(np.sum({s} * np.array([1.0, 3.0]))) + {b}[2]")
    elif form == 4:
        g.emit(f"{o} = {b} > {b}.mean()", f"{v} = float(np.sum({b}[{o}] ** 2)) + float(np.sum({b}[~{o}]))")
    else:
        g.emit(f"{o} = {b} > {b}.mean()", f"{b}[{o}] *= {g.bounded(S, maxdepth=1)}", f"{v} = float(np.sum({b} * C3))")
    g.define(v, S)


def s_kinks_away(g):
    """np.where / clip / maximum chosen by values kept at least 0.1 away from the threshold (a mask from a
    separate constant: the point never sits on a kink)."""
    v = g.fresh()
    b = _buffer(g, 3)
    form = g.rng.randrange(6)
    if form == 0:
        g.emit(f"{v} = float(np.sum(np.where(C3 > 0.0, {b} * {g.leaf(S)}, np.sin({b}))))")
    elif form == 1:
        g.emit(f"{v} = float(np.sum(np.clip({b} * 0.1, -5.0, 5.0) + np.clip(C3 * 3.0 + {b} * 0.01, -0.5, 0.5)))")
    elif form == 2:
        g.emit(f"{v} = float(np.sum(np.maximum({b} * 0.05, C3) + np.minimum(C3, {b} * 0.05 + 0.01)))")
    elif form == 3:
        g.emit(f"{v} = float(np.sum(np.where(np.abs({b}) < 10.0, {b} ** 2, 0.0)))")
    elif form == 4:
        g.emit(f"np.clip({b}, -10.0, 10.0, out={b})", f"{v} = float(np.sum({b} * {b}))")
    else:
        g.emit(f"np.maximum({b}, -10.0, out={b})", f"np.multiply({b}, {g.leaf(S)}, out={b}, where=C3 > 0.0)",
               f"{v} = float(np.sum({b} * {b}))")
    g.define(v, S)


def s_strided_writes(g):
    v = g.fresh()
    b = _buffer(g, 6)
    for _ in range(g.rng.randint(1, 3)):
        s = g.expr(S, maxdepth=1)
        form = g.rng.randrange(11)
        if form == 0:
            g.emit(f"np.multiply({b}[::2], {s}, out={b}[1::2])")
        elif form == 1:
            g.emit(f"np.sin({b}[::-2], out={b}[::-2])")
        elif form == 2:
            g.emit(f"{b}[::2] *= {s}")
        elif form == 3:
            g.emit(f"{b}[1::2] += {b}[::2]")
        elif form == 4:
            g.emit(f"{b}[1:] += {b}[:-1] * 0.5")
        elif form == 5:
            g.emit(f"np.add({b}[:-1], {b}[1:], out={b}[1:])")
        elif form == 6:
            g.emit(f"np.cumsum({b} * 0.3, out={b})")
        elif form == 7:
            g.emit(f"{b}[::-1] += {b} * 0.25")
        elif form == 8:
            g.emit(f"{b}.reshape(2, 3)[:, 1] = {s}")
        elif form == 9:
            g.emit(f"{b}[::-1] = {b}")  # (NumPy copies b first: reversed)
        else:
            g.emit(f"{b}[:] = {b}", f"{b}[1:4] = {b}[2:5]")
    g.emit(f"{v} = float(np.sum({b} * {b}))")
    g.define(v, S)


def s_put_and_fill(g):
    v = g.fresh()
    b = _buffer(g, 3)
    s = g.expr(S, maxdepth=1)
    form = g.rng.randrange(6)
    if form == 0:
        g.emit(f"{b}.put([0, 2], [{s}, {g.leaf(S)}])")
    elif form == 1:
        g.emit(f"np.put({b}, [1], {s} * 3.0)")
    elif form == 2:
        g.emit(f"np.copyto({b}, {g.leaf(V)} * {s}, where=np.array([True, False, True]))")
    elif form == 3:
        g.emit(f"np.putmask({b}, np.array([False, True, True]), {g.leaf(V)} * {s})")
    elif form == 4:
        c = g.fresh("c")
        g.emit(f"{c} = np.empty(3)", f"{c}.fill({s})", f"{b} = {b} * {c}")
    else:
        g.emit(f"{b}[...] = {g.leaf(V)} * {s}")
    g.emit(f"{v} = float(np.sum({b} * {b}))")
    g.define(v, S)


def s_identity_conversions(g):
    """A conversion that returns its argument itself (or a view), written through afterwards: the argument must
    see the write (in the tangent and in the adjoint too)."""
    v, c = g.fresh(), g.fresh("c")
    b = _buffer(g, 3)
    conv = g.rng.choice([f"{b}.astype(float, copy=False)", f"np.asarray({b})", f"np.asarray({b}, dtype=float)",
                         f"np.require({b}, requirements='C')", f"np.array({b}, copy=False)", f"np.asanyarray({b})",
                         f"np.ascontiguousarray({b})", f"np.atleast_1d({b})", f"{b}.view()", f"{b}[...]",
                         f"np.astype({b}, np.float64, copy=False)", f"np.trim_zeros({b})", f"np.reshape({b}, (3,))",
                         f"{b}.astype(float)", f"np.array({b})", f"{b}.copy()", f"np.flip({b})"])
    g.emit(f"{c} = {conv}")
    form = g.rng.randrange(3)
    if form == 0:
        g.emit(f"{c}[{g.rng.randrange(3)}] = {g.expr(S, maxdepth=1)}")
    elif form == 1:
        g.emit(f"{c} *= {g.bounded(S, maxdepth=1)}")
    else:
        g.emit(f"{c}[1:] += {g.leaf(S)}")
    g.emit(f"{v} = float(np.sum({b} * {b})) + float(np.sum({c})) * 0.5")
    g.define(v, S)


_FUNCTION_VIEWS = ["np.flip({b})", "np.moveaxis({b}[None], 0, 1)[:, 0]", "np.squeeze({b}[None])", "np.atleast_2d({b})[0]",
                   "np.unstack({b}[None])[0]", "np.require({b})", "{b}.astype(float, copy=False)", "np.asarray({b})",
                   "np.split({b}, 3)[1]", "np.array_split({b}, 2)[0]", "np.expand_dims({b}, 0)[0]",
                   "np.swapaxes({b}[None], 0, 1)[:, 0]", "np.real({b})", "np.atleast_1d({b})", "{b}.view()",
                   "np.reshape({b}, (3, 1))[:, 0]", "np.ravel({b})", "{b}[None].squeeze()"]


def s_function_views(g):
    """A view (or the array itself) returned by a NumPy function, written through, or read after a write to its base,
    in straight code or a loop; and the real or imaginary part of a complex array, written or read the same way."""
    v, c = g.fresh(), g.fresh("c")
    b = _buffer(g, 3)
    s = g.expr(S, maxdepth=1)
    if g.chance(0.2):
        z = g.fresh("z")
        g.emit(f"{z} = {b} * (1.0 + 0.5j)")
        part = g.rng.choice(["real", "imag"])
        form = g.rng.randrange(3)
        if form == 0:
            g.emit(f"{z}.{part}[{g.rng.randrange(3)}] = {s}")
        elif form == 1:
            g.emit(f"{c} = {z}.{part}", f"{z}[{g.rng.randrange(3)}] = {s} * (1.0 - 1.0j)", f"{v}_0 = float(np.sum({c} * {c}))")
        else:
            g.emit(f"np.multiply({b}, {s}, out={z}.{part})")
        extra = f" + {v}_0" if form == 1 else ""
        g.emit(f"{v} = float(np.sum(np.abs({z}) ** 2)){extra}")
        g.define(v, S)
        return
    g.emit(f"{c} = " + g.rng.choice(_FUNCTION_VIEWS).format(b=b))
    form = g.rng.randrange(4)
    if form == 0:
        g.emit(f"{c}[0] = {s}")
    elif form == 1:
        g.emit(f"{c} *= {g.bounded(S, maxdepth=1)}")
    elif form == 2:
        g.emit(f"{b}[{g.rng.randrange(3)}] = {s}", f"{b} *= 0.9")
    else:
        g.emit(f"for k in range({g.rng.randint(1, 3)}):", f"    {c}[k % len({c})] += {s} * {b}[2]")
    g.emit(f"{v} = float(np.sum({b} * {b})) + float(np.sum({c} * {c})) * 0.5")
    g.define(v, S)


FAMILIES["fancy"] = [s_repeated_indices, s_sorted_gather, s_kinks_away, s_strided_writes, s_put_and_fill,
                     s_identity_conversions, s_function_views, s_assign]  # (after "language15")
