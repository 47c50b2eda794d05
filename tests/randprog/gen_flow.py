"""The random family "flow": control flow of ordinary imperative code over arrays, in the shapes the other
families do not make --

* searches: `while` loops with `break`/`continue`, early returns from nested loops over arrays inside a helper,
  for/else, a flag set in the inner loop and tested in the outer;
* exceptions on the path that ran: try/except/else/finally where the exception is raised (by the user's code, a
  helper, a failed lookup or index) and caught, after a partial update of an array or a list; a `return` inside
  `try` with a `finally` that writes;
* generators (with `yield` in loops and branches, a generator reading an array that is written between its
  creation and its use is left out: that is refused) consumed by `sum`, `list`, `max`, `for`, `next`, `zip`;
  comprehensions with conditions and two `for` clauses;
* recursion over an index or a depth, on numbers and on arrays;
* closures with `nonlocal` state (a number, an array rebound or written in place) called in loops;
* module-level state (a constant table, a config dict, a list of basis arrays) read by helpers.  (A helper that
  writes a module-level cache with values that depend on the inputs is refused in reverse mode: left out.)
"""
from __future__ import annotations

from .gen import FAMILIES, S, V, s_assign

_SEARCH = '''def search_{n}(p, s):
    for i in range(len(p)):
        for j in range(len(p)):
            if j == i:
                continue
            if p[i] * p[j] {op} {thr}:
                return p[i] * s + p[j] * j
    return np.sum(p) * s'''

_FLAGGED = '''def flagged_{n}(p, s):
    total = 0.0
    for i in range(len(p)):
        found = False
        for j in range(i + 1, len(p)):
            if p[j] > p[i] + {thr}:
                found = True
                total = total + p[j] * s
                break
        if not found:
            total = total * 0.5 + p[i]
    return total'''


def s_search(g):
    v, n = g.fresh(), g.fresh("")
    form = g.rng.randrange(4)
    p = g.rng.choice([g.pick(V), f"np.tanh({g.pick(V)}) * 1.5", f"{g.pick(V)} + {g.leaf(S)} * C3"])
    s = g.expr(S, maxdepth=1)
    if form == 0:
        g.helper(f"search_{n}", _SEARCH.format(n=n, op=g.rng.choice(["<", ">"]), thr=g.rng.choice(["-0.6", "0.0", "0.2"])))
        g.emit(f"{v} = search_{n}({p}, {s})")
    elif form == 1:
        g.helper(f"flagged_{n}", _FLAGGED.format(n=n, thr=g.rng.choice(["0.05", "0.3", "-0.2"])))
        g.emit(f"{v} = flagged_{n}({p}, {s})")
    elif form == 2:
        i, b = g.fresh("i"), g.fresh("b")
        g.emit(f"{b} = {p} * 1.0", f"{v} = 0.0", f"{i} = 0", "while True:", f"    {i} += 1",
               f"    if {i} % 3 == 0:", "        continue", f"    {v} = {v} + {b}[{i} % 3] * {s}",
               f"    {b}[{i} % 3] *= 0.8", f"    if {i} >= {g.rng.randint(2, 7)}:", "        break")
    else:
        b = g.fresh("b")
        g.emit(f"{b} = {p} * 1.0", f"{v} = {s}", f"for e in {b}:", f"    if e > {g.rng.choice(['5.0', '-5.0'])}:",
               f"        {v} = {v} * e", "        break", f"    {v} = {v} + math.sin(e)", "else:",
               f"    {v} = {v} * 2.0")
    g.define(v, S)


_RAISER = '''def checked_{n}(t):
    if t > {thr}:
        raise ValueError("too big")
    return t * t'''


def s_exceptions(g):
    v, n = g.fresh(), g.fresh("")
    s = g.expr(S, maxdepth=1)
    form = g.rng.randrange(6)
    if form == 0:
        b = g.fresh("b")
        g.emit(f"{b} = {g.pick(V)} * 1.0", "try:", f"    {b}[0] = {s}", f"    {b}[{g.rng.choice([1, 3])}] = {b}[0] * 2.0",
               "except IndexError:", f"    {b}[1] = {b}[1] * {s}", "else:", f"    {b}[2] += 1.0", "finally:",
               f"    {b} *= 0.9", f"{v} = float(np.sum({b} * {b}))")
    elif form == 1:
        g.helper(f"checked_{n}", _RAISER.format(n=n, thr=g.rng.choice(["0.3", "-0.2", "100.0"])))
        g.emit(f"{v} = 0.0", f"for e in {g.pick(V)}:", "    try:", f"        {v} = {v} + checked_{n}(e * {s})",
               "    except ValueError:", f"        {v} = {v} - e", "    else:", f"        {v} = {v} * 1.1")
    elif form == 2:
        xs = g.fresh("xs")
        g.emit(f"{xs} = [{s}, {g.leaf(S)}]", f"{v} = 0.0", f"for i in range({g.rng.randint(1, 4)}):", "    try:",
               f"        {v} = {v} + {xs}[i] * (i + 1)", "    except IndexError:", f"        {xs}.append({v} * 0.5)",
               "        continue", "    finally:", f"        {v} = {v} + 0.01", f"{v} = {v} + sum({xs})")
    elif form == 3:
        g.helper(f"guarded_{n}", f"def guarded_{n}(p, s):\n    out = p * 1.0\n    try:\n        out[0] = s\n"
                                 f"        return out * s\n    finally:\n        out[1] = s * 2.0")
        g.emit(f"{v} = float(np.sum(guarded_{n}({g.pick(V)}, {s})))")
    elif form == 4:
        d = g.fresh("d")
        g.emit(f"{d} = {{'a': {s}}}", f"for key in ('a', 'b', 'a'):", "    try:", f"        {d}[key] = {d}[key] * 1.5",
               "    except KeyError as err:", f"        {d}[key] = {s} + len(str(err))", f"{v} = {d}['a'] * {d}['b']")
    else:
        g.emit(f"{v} = 0.0", f"for i in range({g.rng.randint(1, 4)}):", "    try:", f"        {v} = {v} + float({s}) / (i - 1)",
               "    except ZeroDivisionError:", f"        {v} = {v} * 0.5 + {s}", "    else:", f"        {v} = {v} + 0.1")
    g.define(v, S)


_GEN = '''def pieces_{n}(p, s):
    for i, e in enumerate(p):
        if i % 2 == 0:
            yield e * s
        elif e > -10.0:
            yield math.sin(e) + s
    yield s * s'''


def s_generators(g):
    v, n = g.fresh(), g.fresh("")
    g.helper(f"pieces_{n}", _GEN.format(n=n))
    p, s = g.pick(V), g.expr(S, maxdepth=1)
    form = g.rng.randrange(8)
    if form == 0:
        g.emit(f"{v} = sum(pieces_{n}({p}, {s}))")
    elif form == 1:
        g.emit(f"{v} = list(pieces_{n}({p}, {s}))[{g.rng.randrange(4)}] * 2.0")
    elif form == 2:
        it = g.fresh("it")
        g.emit(f"{it} = pieces_{n}({p}, {s})", f"{v} = next({it}) * 3.0 + next({it})", f"for r in {it}:",
               f"    {v} = {v} + r * 0.5")
    elif form == 3:
        g.emit(f"{v} = sum(u * w for u, w in zip(pieces_{n}({p}, {s}), [1.0, 2.0, 3.0, 4.0]))")
    elif form == 4:
        g.emit(f"{v} = sum([e * {s} for e in {p} if e > 0.0] + [e * e for e in {p} if e <= 0.0])")
    elif form == 5:
        g.emit(f"{v} = sum(e * f for e in {p} for f in (1.0, {s}) if e != f)")
    elif form == 6:
        g.emit(f"{v} = float(np.sum(np.array([e * {s} if e > 0.0 else e ** 2 for e in {p}])))")
    else:
        g.emit(f"{v} = max(pieces_{n}({p}, {s}) , key=lambda t: t * 0.0 + 1.0) + min(list(pieces_{n}({p}, 0.5)))")
    g.define(v, S)


_REC_NUM = '''def rec_{n}(k, t, s):
    if k == 0:
        return t
    return rec_{n}(k - 1, math.sin(t) * s + 0.1 * k, s)'''

_REC_ARR = '''def rec_{n}(p, s, depth):
    if depth == 0 or len(p) == 1:
        return np.sum(p) * s
    half = len(p) // 2
    return rec_{n}(p[:half], s, depth - 1) * 0.5 + rec_{n}(p[half:] * s, s, depth - 1)'''

_REC_WRITE = '''def rec_{n}(p, i, s):
    if i >= len(p):
        return p
    p[i] = p[i] * s + (p[i - 1] if i > 0 else 0.0)
    return rec_{n}(p, i + 1, s)'''


def s_recursion(g):
    v, n = g.fresh(), g.fresh("")
    s = g.expr(S, maxdepth=1)
    form = g.rng.randrange(3)
    if form == 0:
        g.helper(f"rec_{n}", _REC_NUM.format(n=n))
        g.emit(f"{v} = rec_{n}({g.rng.randint(0, 4)}, {g.leaf(S)}, {s})")
    elif form == 1:
        g.helper(f"rec_{n}", _REC_ARR.format(n=n))
        g.emit(f"{v} = rec_{n}({g.pick(V)} * 1.0, {s}, {g.rng.randint(0, 3)})")
    else:
        g.helper(f"rec_{n}", _REC_WRITE.format(n=n))
        b = g.fresh("b")
        g.emit(f"{b} = {g.pick(V)} * 1.0", f"rec_{n}({b}, 0, {s})", f"{v} = float(np.sum({b} * {b}))")
    g.define(v, S)


def s_nonlocal(g):
    v, mk, n = g.fresh(), g.fresh("mk"), g.fresh("")
    s = g.expr(S, maxdepth=1)
    form = g.rng.randrange(4)
    if form == 0:
        g.emit(f"total_{n} = 0.0", f"def add_{n}(t):", f"    nonlocal total_{n}", f"    total_{n} += t * {g.leaf(S)}",
               f"    return total_{n}", f"for e in {g.pick(V)}:", f"    add_{n}(e)", f"{v} = total_{n} + add_{n}({s})")
    elif form == 1:
        g.emit(f"acc_{n} = np.zeros(3)", f"def add_{n}(t):", f"    nonlocal acc_{n}", f"    acc_{n} = acc_{n} * 0.5 + t",
               f"for i in range({g.rng.randint(1, 4)}):", f"    add_{n}({g.pick(V)} * ({s} + i))",
               f"{v} = float(np.sum(acc_{n} ** 2))")
    elif form == 2:
        g.emit(f"acc_{n} = {g.pick(V)} * 1.0", f"def bump_{n}(t):", f"    acc_{n}[1:] += t",
               f"    return acc_{n}[0] * t", f"{v} = bump_{n}({s}) + bump_{n}({g.leaf(S)})",
               f"{v} = {v} + float(np.sum(acc_{n} * acc_{n}))")
    else:
        g.helper(f"{mk}", f"def {mk}(k):\n    count = 0\n    state = k\n\n    def step(t):\n        nonlocal count, state\n"
                          f"        count += 1\n        state = state * 0.5 + t * count\n        return state\n    return step")
        st = g.fresh("st")
        g.emit(f"{st} = {mk}({s})", f"{v} = 0.0", f"for e in {g.pick(V)}:", f"    {v} = {v} + {st}(e)")
    g.define(v, S)


def s_module_state(g):
    v, n = g.fresh(), g.fresh("")
    form = g.rng.randrange(3)
    s = g.expr(S, maxdepth=1)
    if form == 0:
        g.helper(f"TABLE_{n}", f"TABLE_{n} = np.array([0.5, -1.0, 2.0])\nCONFIG_{n} = {{'gain': 1.5, 'order': 2}}")
        g.helper(f"use_{n}", f"def use_{n}(p):\n    return np.sum(TABLE_{n} * p) * CONFIG_{n}['gain'] + np.sum(p ** CONFIG_{n}['order'])")
        g.emit(f"{v} = use_{n}({g.pick(V)} * {s})")
    elif form == 1:
        g.helper(f"BASIS_{n}", f"BASIS_{n} = [np.array([1.0, 0.0, 0.5]), np.array([0.0, 2.0, -1.0])]")
        g.helper(f"project_{n}", f"def project_{n}(p):\n    return [float(np.dot(b, p)) for b in BASIS_{n}]")
        g.emit(f"{v} = sum(c * c for c in project_{n}({g.pick(V)} * {s}))")
    else:
        g.helper(f"SCALE_{n}", f"SCALE_{n} = [1.0]")
        g.helper(f"scaled_{n}", f"def scaled_{n}(t):\n    return t * SCALE_{n}[0]")
        g.emit(f"SCALE_{n}[0] = 1.0", f"{v} = scaled_{n}({s}) + scaled_{n}({g.leaf(S)} * 2.0)")
    g.define(v, S)


FAMILIES["flow"] = [s_search, s_exceptions, s_generators, s_recursion, s_nonlocal, s_module_state,
                    s_assign]  # (after "dictarrays")
