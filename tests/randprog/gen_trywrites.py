"""The random family "trywrites" (hunt13): containers, arrays and objects WRITTEN inside a `try` body.

The family "exceptions" rebinds numbers inside `try` (`t = t + s`), which both modes get right; hunt13 found that
an item or attribute write inside the body (`acc[0] = ...`, `acc.append(...)`, `b[1:] = ...`, `d["k"] = ...`,
`o.v = ...`) loses its derivative in reverse mode (and is refused in forward mode).  These programs write that
way, with and without a raise that the handler catches, in try/except and try/finally, once and in loops.
"""
from __future__ import annotations

from .gen import FAMILIES, S, V, s_assign


def s_try_container_write(g):
    t, c = g.fresh("t"), g.fresh("c")
    s = g.expr(S, maxdepth=1)
    form = g.rng.randrange(6)
    if form == 0:
        g.emit(f"{c} = [0.0, {g.leaf(S)}]", "try:", f"    {c}[0] = {s} * {g.leaf(S)}", "except ValueError:",
               f"    {c}[0] = 0.5", f"{t} = {c}[0] + {c}[1]")
    elif form == 1:
        g.emit(f"{c} = []", "try:", f"    {c}.append({s})", f"    {c}.append({g.expr(S, maxdepth=1)})", "finally:",
               f"    {c}.append(1.0)", f"{t} = {c}[0] * {c}[1] + {c}[-1]")
    elif form == 2:
        a = g.pick(V)
        g.emit(f"{c} = np.zeros_like({a})", "try:", f"    {c}[1:] = {a}[:-1] * {s}", f"    {c}[0] = {g.leaf(S)}",
               "except (ValueError, IndexError):", f"    {c}[:] = 0.0", f"{t} = float(np.sum({c} * {a}))")
    elif form == 3:
        g.emit(f"{c} = {{'a': {g.leaf(S)}}}", "try:", f"    {c}['b'] = {s} * {c}['a']",
               f"    {c}['a'] = {c}[{g.rng.choice(['a', 'z'])!r}] + 1.0", "except KeyError:", f"    {c}['a'] = {s}",
               f"{t} = {c}['a'] + {c}.get('b', 0.0)")
    elif form == 4:
        g.emit(f"{c} = [0.0]", f"for i in range({g.rng.randint(1, 4)}):", "    try:",
               f"        if i == {g.rng.randint(0, 2)}:", "            raise IndexError",
               f"        {c}[0] = {c}[0] + {s} * (i + 1)", "    except IndexError:", f"        {c}[0] = {c}[0] - {s}",
               f"{t} = {c}[0]")
    else:
        n = g.fresh("")
        g.emit(f"class Box{n}:", "    def __init__(self):", "        self.v = 0.0", f"{c} = Box{n}()", "try:",
               f"    {c}.v = {s} * {g.leaf(S)}", "finally:", f"    {c}.v = {c}.v + 0.1", f"{t} = {c}.v")
    g.define(t, S)


FAMILIES["trywrites"] = [s_try_container_write, s_try_container_write, s_assign]
