"""The random family "aliases": one object reached by several names or slots, and data entering containers by the
less travelled routes -- the places where reverse mode's identity-keyed storage and the static checks met silent
wrong derivatives (2026-11-27):

* one array in several slots of a list (`[a] * 3`, `2 * [a, b]`, `l + l`, a repeated list zipped or looped over);
* numbers written into an array from a list or a tuple (`buf[0:2] = [x, y]`, `A[:, 0] = (x, y)`, a row, one item
  broadcast over a slice) and a list slice written from an iterator;
* dicts filled by `zip`, `update`, `setdefault`, pairs and `defaultdict` (keys that do not depend on the inputs: a key
  that does is refused, and a refusal here would only be counted);
* a module-level array or list handed to a helper that writes it, then read by its global name.
"""
from __future__ import annotations

from .gen import FAMILIES, S, V, s_assign


def s_repeated_list(g):
    v, lst = g.fresh(), g.fresh("l")
    a = g.bounded(V, maxdepth=1)
    form = g.rng.randrange(4)
    if form == 0:
        g.emit(f"{lst} = [{a}] * {g.rng.randint(2, 3)}")
    elif form == 1:
        g.emit(f"{lst} = 2 * [{a}, {g.leaf(V)}]")
    elif form == 2:
        base = g.fresh("b")
        g.emit(f"{base} = [{a}]", f"{lst} = {base} + {base}" + (f" + [{g.leaf(V)}]" if g.chance(0.5) else ""))
    else:
        g.emit(f"{lst} = [{a}] * 2", f"{lst} += [{lst}[0] * {g.leaf(S)}]")
    if g.chance(0.3):
        g.emit(f"{lst}[0] = {lst}[0] + {g.leaf(S)}")
    read = g.rng.randrange(4)
    if read == 0:
        g.emit(f"{v} = np.sum({lst}[0] * {lst}[1]) + np.sum({lst}[-1])")
    elif read == 1:
        g.emit(f"{v} = float(np.sum(sum({lst})))")
    elif read == 2:
        other = g.fresh("m")
        g.emit(f"{other} = [{g.leaf(V)}] * len({lst})", f"{v} = 0.0", f"for p, q in zip({lst}, {other}):",
               f"    {v} = {v} + np.dot(p, q)")
    else:
        g.emit(f"{v} = 0.0", f"for p in {lst}:", f"    {v} = {v} + np.sum(np.tanh(p) * p)")
    g.define(v, S)


def s_items_into_array(g):
    v, buf = g.fresh(), g.fresh("buf")
    s1, s2 = g.expr(S, maxdepth=1), g.leaf(S)
    form = g.rng.randrange(5)
    if form == 0:
        g.emit(f"{buf} = np.zeros(3)", f"{buf}[0:2] = [{s1}, {s2}]")
    elif form == 1:
        g.emit(f"{buf} = np.ones((2, 3))", f"{buf}[:, {g.rng.randrange(3)}] = ({s1}, {s2})")
    elif form == 2:
        g.emit(f"{buf} = np.zeros((2, 3))", f"{buf}[{g.rng.randrange(2)}] = [{s1}, {s2}, 0.5]")
    elif form == 3:
        g.emit(f"{buf} = np.ones(3) * 0.5", f"{buf}[1:] = [{s1}]")
    else:
        g.emit(f"{buf} = np.zeros(4)", "for i in range(2):", f"    {buf}[2 * i:2 * i + 2] = [{s1} * i, {s2} + i]")
    g.emit(f"{v} = float(np.sum(np.tanh({buf}) * {buf}))")
    if g.chance(0.3):
        lst = g.fresh("lst")
        g.emit(f"{lst} = [{g.leaf(S)}, 0.5]", f"{lst}[1:1] = iter([{g.leaf(S)} * 2.0])",
               f"{v} = {v} + {lst}[0] * {lst}[1] + {lst}[2]")
    g.define(v, S)


def s_dict_routes(g):
    v, d = g.fresh(), g.fresh("d")
    form = g.rng.randrange(5)
    if form == 0:
        g.emit(f"{d} = dict(zip(['a', 'b'], [{g.expr(S, maxdepth=1)}, {g.leaf(V)}]))")
    elif form == 1:
        g.emit(f"{d} = {{'a': {g.leaf(S)}}}", f"{d}.update(zip(['b'], [{g.leaf(V)}]))")
    elif form == 2:
        g.emit(f"{d} = {{}}", f"{d}.update([('a', {g.expr(S, maxdepth=1)}), ('b', {g.leaf(V)})])")
    elif form == 3:
        g.emit(f"{d} = {{'b': {g.leaf(V)}}}", f"{d}.setdefault('a', {g.expr(S, maxdepth=1)})",
               f"{d}.setdefault('b', np.zeros(3))")
    else:
        g.helper("collections", "import collections")
        g.emit(f"{d} = collections.defaultdict(float)", f"{d}['a'] += {g.leaf(S)}", f"{d}['a'] += {g.leaf(S)} * 0.5",
               f"{d}['b'] = {d}['b'] + {g.leaf(V)}")
    extra = ""
    if g.chance(0.3):
        g.emit(f"{d}.update(c={g.leaf(S)})")
        extra = f" + {d}['c']"
    g.emit(f"{v} = {d}['a'] * float(np.sum({d}['b'])){extra}")
    g.define(v, S)


def s_module_buffer(g):
    n, v = g.fresh(""), g.fresh()
    if g.chance(0.5):
        g.helper(f"BUF{n}", f"BUF{n} = np.zeros(3)")
        g.helper(f"bump{n}", f"def bump{n}(buf, x):\n    if x > 100.0:\n        return\n"
                             f"    buf[{g.rng.randrange(3)}] = buf[0] * x + x * x")
        g.emit(f"BUF{n}.fill(0.25)", f"bump{n}(BUF{n}, {g.expr(S, maxdepth=1)})",
               f"{v} = float(np.sum(BUF{n} * BUF{n})) * {g.leaf(S)}")
    else:
        g.helper(f"LOG{n}", f"LOG{n} = []")
        g.helper(f"note{n}", f"def note{n}(log, x):\n    if x > 100.0:\n        return\n    log.append(math.sin(x) * x)")
        g.emit(f"LOG{n}.clear()", f"note{n}(LOG{n}, {g.expr(S, maxdepth=1)})", f"note{n}(LOG{n}, {g.leaf(S)})",
               f"{v} = sum(LOG{n}) * {g.leaf(S)}")
    g.define(v, S)


def s_shared_inplace(g):
    """One fresh array under two names, written in place through one of them and read through the other."""
    n, v, c = g.fresh(""), g.fresh(), g.fresh("c")
    g.emit(f"{c} = {g.bounded(V, maxdepth=1)} + 0.0")
    form = g.rng.randrange(4)
    if form == 0:
        h = g.fresh("l")
        g.emit(f"{h} = [{c}] * 2", f"{h}[0] *= {g.leaf(S)}", f"{h}[1] += {g.leaf(V)}", f"{v} = np.sum({h}[1] * {c})")
    elif form == 1:
        h = g.fresh("t")
        g.emit(f"{h} = ({c}, {c}, {g.leaf(V)})", f"{h}[0][1] = {g.leaf(S)} * 2.0", f"{v} = np.sum({h}[1] ** 2) + np.sum({h}[2])")
    elif form == 2:
        g.helper(f"Pr{n}", f"class Pr{n}:\n    def __init__(self, a, b):\n        self.a = a\n        self.b = b")
        h = g.fresh("p")
        g.emit(f"{h} = Pr{n}({c}, {c})", f"{h}.a *= {g.leaf(S)}", f"{v} = np.sum({h}.b * {h}.a)")
    else:
        h = g.fresh("d")
        g.emit(f"{h} = {{'u': {c}, 'w': {c}}}", f"{h}['u'] -= {g.leaf(V)} * 0.5", f"{v} = np.sum({h}['w'] * {c})")
    g.define(v, S)


FAMILIES["aliases"] = [s_repeated_list, s_items_into_array, s_dict_routes, s_module_buffer, s_shared_inplace,
                       s_assign]  # (after "values")
