"""The random family "dictarrays": dicts whose values are arrays (and lists of numbers), updated in loops the way
bookkeeping code does it -- `d[k] += ...` (in place on the array the dict holds, which another name may also
hold), `d.setdefault(k, np.zeros(3))` then a write into what it returned, `d.get(k, default)` where the default is
taken on some trips only, `collections.defaultdict(lambda: np.zeros(3))`, dict comprehensions, `d.items()` walked
while the values are written, `d.pop(k, default)`, `d | e` and `d |= e`, `sorted(d)` key order, dicts of lists
appended to.  Keys never depend on the inputs.
"""
from __future__ import annotations

from .gen import FAMILIES, S, V, s_assign

_KEYS = ["'u'", "'w'", "'z'"]


def s_accumulate_in_loop(g):
    v, d, k = g.fresh(), g.fresh("d"), g.fresh("k")
    n = g.rng.randint(2, 5)
    s = g.expr(S, maxdepth=1)
    keys = g.rng.sample(["u", "w", "z"], g.rng.randint(1, 3))
    form = g.rng.randrange(6)
    g.emit(f"{d} = {{}}", f"for {k} in range({n}):", f"    key = {keys!r}[{k} % {len(keys)}]")
    if form == 0:
        g.emit(f"    {d}.setdefault(key, np.zeros(3))", f"    {d}[key] += {g.leaf(V)} * ({s} + {k})")
    elif form == 1:
        g.emit(f"    acc = {d}.setdefault(key, np.zeros(3))", f"    acc += np.sin({g.leaf(V)} * {k} + {s})")
    elif form == 2:
        g.emit(f"    {d}[key] = {d}.get(key, {g.leaf(V)} * 0.5) * {g.bounded(S, maxdepth=1)} + {k}")
    elif form == 3:
        g.emit(f"    if key in {d}:", f"        {d}[key] *= 0.5 + 0.4 * math.tanh({s})", "    else:",
               f"        {d}[key] = {g.leaf(V)} + {k}")
    elif form == 4:
        g.emit(f"    {d}.setdefault(key, []).append({s} * ({k} + 1))")
    else:
        g.emit(f"    {d}[key] = {d}.get(key, 0.0) + {s} * {g.leaf(S)} ** ({k} % 3)")
    first = repr(keys[0])
    if form == 4:
        g.emit(f"{v} = sum(sum(vals) * (i + 1) for i, vals in enumerate({d}.values())) + {d}[{first}][0]")
    elif form == 5:
        g.emit(f"{v} = sum({d}.values()) * {d}[{first}]")
    else:
        g.emit(f"{v} = sum(float(np.sum(val * val)) for val in {d}.values()) + float(np.sum({d}[{first}]))")
    g.define(v, S)


def s_defaultdict(g):
    v, d = g.fresh(), g.fresh("d")
    g.helper("collections", "import collections")
    form = g.rng.randrange(3)
    if form == 0:
        g.emit(f"{d} = collections.defaultdict(lambda: np.zeros(3))")
        g.emit(f"for i in range({g.rng.randint(1, 4)}):", f"    {d}[i % 2] += {g.pick(V)} * {g.expr(S, maxdepth=1)} ** i")
        g.emit(f"{v} = float(np.sum({d}[0] * {d}[1])) + float(np.sum({d}[0]))")
    elif form == 1:
        g.emit(f"{d} = collections.defaultdict(list)")
        g.emit(f"for i, e in enumerate({g.pick(V)}):", f"    {d}['even' if i % 2 == 0 else 'odd'].append(e * {g.leaf(S)})")
        g.emit(f"{v} = sum({d}['even']) * 2.0 + sum({d}['odd'])")
    else:
        g.emit(f"{d} = collections.defaultdict(float)")
        g.emit(f"for i, e in enumerate({g.pick(V)}):", f"    {d}[i % 2] += e * {g.expr(S, maxdepth=1)}",
               f"    {d}[2] = max({d}[2], e)")
        g.emit(f"{v} = {d}[0] * {d}[1] + {d}[2]")
    g.define(v, S)


def s_aliased_values(g):
    """One array held by a dict and a name (or by two keys), written in place through one of them."""
    v, d, h = g.fresh(), g.fresh("d"), g.fresh("h")
    g.emit(f"{h} = {g.pick(V)} * {g.leaf(S)}")
    form = g.rng.randrange(5)
    if form == 0:
        g.emit(f"{d} = {{'p': {h}, 'q': {h}}}", f"{d}['p'] += {g.leaf(V)}", f"{v} = float(np.sum({d}['q'] * {h}))")
    elif form == 1:
        g.emit(f"{d} = {{'p': {h}}}", f"{d}['p'][1] = {g.expr(S, maxdepth=1)}", f"{v} = float(np.sum({h} ** 2))")
    elif form == 2:
        g.emit(f"{d} = dict(p={h}, q={h} * 1.0)", "for key in sorted(" + d + "):", f"    {d}[key] *= {g.bounded(S, maxdepth=1)}",
               f"{v} = float(np.sum({h})) + float(np.sum({d}['q']))")
    elif form == 3:
        g.emit(f"{d} = {{key: {h}[i:i + 2] for i, key in enumerate(['p', 'q'])}}", f"{d}['q'] *= {g.leaf(S)}",
               f"{v} = float(np.sum({h} * {h})) + float(np.sum({d}['p']))")
    else:
        g.emit(f"{d} = {{'p': {h}}}", f"for key, val in {d}.items():", f"    val -= 0.1 * np.tanh(val) * {g.leaf(S)}",
               f"{v} = float(np.sum({h} * C3)) + float(np.sum({d}['p']))")
    g.define(v, S)


def s_dict_methods(g):
    v, d, e = g.fresh(), g.fresh("d"), g.fresh("e")
    s = g.expr(S, maxdepth=1)
    g.emit(f"{d} = {{'u': {s}, 'w': {g.leaf(V)} * 1.0}}")
    form = g.rng.randrange(6)
    if form == 0:
        g.emit(f"{e} = {d} | {{'u': {g.leaf(S)} * 2.0}}", f"{d} |= {{'z': {d}['u'] * 3.0}}",
               f"{v} = {e}['u'] * {d}['u'] + {d}['z'] + float(np.sum({e}['w']))")
    elif form == 1:
        g.emit(f"{e} = {d}.pop('u', 0.0) + {d}.pop('missing', {s} * 2.0)", f"{v} = {e} * float(np.sum({d}['w']))")
    elif form == 2:
        g.emit(f"{e} = {{key: val * 2.0 for key, val in {d}.items() if key != 'u'}}",
               f"{v} = float(np.sum({e}['w'])) * {d}['u']")
    elif form == 3:
        g.emit(f"{e} = dict({d})", f"{e}['w'] += {s}", f"{v} = float(np.sum({d}['w'] * {e}['w']))")
    elif form == 4:
        g.emit(f"{e} = {d}.copy()", f"{e}['u'] = {e}['u'] * {g.leaf(S)}", f"{e}['w'][0] = {s}",
               f"{v} = {d}['u'] + {e}['u'] + float(np.sum({d}['w']))")
    else:
        g.emit(f"{e} = {d}['w']", f"{e}[{g.rng.randrange(3)}] += {s}",
               f"{v} = {d}.get('u') * {d}.get('w')[{g.rng.randrange(3)}] + len({d}) * {d}.get('z', {s})")
    g.define(v, S)


def s_nested(g):
    """A dict of dicts / of lists of arrays (a small parameter tree), updated by a loop."""
    v, p = g.fresh(), g.fresh("params")
    g.emit(f"{p} = {{'l1': {{'w': {g.pick(V)} * 1.0, 'b': {g.leaf(S)}}}, 'l2': {{'w': {g.leaf(V)} * 0.5, 'b': 0.1}}}}")
    h = g.fresh("h")
    g.emit(f"{h} = {g.expr(S, maxdepth=1)}", f"for name in ('l1', 'l2'):",
           f"    {h} = math.tanh(float(np.sum({p}[name]['w'])) * {h} + {p}[name]['b'])")
    form = g.rng.randrange(3)
    if form == 0:
        g.emit(f"for layer in {p}.values():", f"    layer['w'] -= 0.1 * layer['w'] * {h}", f"    layer['b'] += {h}")
    elif form == 1:
        g.emit(f"{p}['l1']['w'][0] = {h}")
    else:
        g.emit(f"{p}['l2'] = {{**{p}['l2'], 'b': {h} * 2.0}}")
    g.emit(f"{v} = {h} + sum(float(np.sum(layer['w'] ** 2)) + layer['b'] for layer in {p}.values())")
    g.define(v, S)


FAMILIES["dictarrays"] = [s_accumulate_in_loop, s_defaultdict, s_aliased_values, s_dict_methods, s_nested,
                          s_assign]  # (after "fancy")
