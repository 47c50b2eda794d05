"""Generator of random, well-defined, smooth programs by family.

A program is the text of a module that defines `f(...)` over floats and small float arrays,
plus the arguments as Python expressions (so a repro file stands alone).  Shapes are
tracked while generating: S (a float), V (3,), W (2,), M (2, 3); every expression is built for
a known shape, so programs never fail on shapes.  Values stay bounded (tanh, sin, division by
1 + v*v, exponent of a tanh) and points near kinks or branch thresholds are left to the
checker, which sees finite differences disagree with themselves there and skips the case.
"""
from __future__ import annotations

import dataclasses
import random

S, V, W, M = (), (3,), (2,), (2, 3)
SHAPE_NAME = {S: "S", V: "V", W: "W", M: "M"}

HEADER = '''import math

import numpy as np

C3 = np.array([0.2, -0.4, 0.6])
C2 = np.array([0.5, -0.3])
C23 = np.arange(6.0).reshape(2, 3) / 5
M33 = np.array([[0.5, 0.1, -0.2], [0.0, 0.3, 0.4], [-0.1, 0.2, 0.6]])
'''

UNARY_S = ["math.sin({})", "math.cos({})", "math.tanh({})", "np.tanh({})", "math.exp(0.3 * math.tanh({}))",
           "({}) ** 2", "-({})", "math.sqrt(1.0 + ({}) ** 2)", "math.log(2.0 + math.sin({}))",
           "0.1 * (math.tanh({}) - 1.5) ** 3", "np.sin({})"]
UNARY_A = ["np.sin({})", "np.cos({})", "np.tanh({})", "np.exp(0.3 * np.tanh({}))", "({}) ** 2", "-({})",
           "np.sqrt(1.0 + ({}) ** 2)", "np.log(2.0 + np.sin({}))", "0.1 * (np.tanh({}) - 1.5) ** 3"]
BINARY = ["{} + {}", "{} - {}", "{} * {}", "{} / (1.0 + ({}) ** 2)", "{} * 0.5 + {}"]

# Leaves that reduce or reshape other variables: (template, placeholder shapes).
LEAVES = {
    S: [("np.sum({V})", [V]), ("np.mean({M})", [M]), ("{V}[1]", [V]), ("{M}[1, 2]", [M]), ("np.dot({V}, {V})", [V, V]),
        ("{V} @ C3", [V]), ("{M}.sum()", [M]), ("np.max({V})", [V]), ("{W}[0]", [W]), ("np.mean({W})", [W]),
        ("float(np.sum({V}))", [V]), ("{V}.mean()", [V])],
    V: [("C3 * {S}", [S]), ("np.ones(3) + {S}", [S]), ("{S} + C3", [S]), ("np.sum({M}, axis=0)", [M]),
        ("np.mean({M}, axis=0)", [M]), ("{M}[1]", [M]), ("np.max({M}, axis=0)", [M]), ("{W} @ {M}", [W, M]),
        ("{M}.T @ C2", [M]), ("{V} @ M33", [V]), ("np.linspace(0.1, 0.5, 3) * {S}", [S]), ("np.full(3, {S})", [S]),
        ("np.array([{S}, {S}, 0.5])", [S, S]), ("M33 @ {V}", [V])],
    W: [("{M} @ {V}", [M, V]), ("np.dot({M}, {V})", [M, V]), ("np.sum({M}, axis=1)", [M]), ("{M}[:, 0]", [M]),
        ("C2 * {S}", [S]), ("np.mean({M}, axis=1)", [M]), ("np.array([{S}, {S}])", [S, S]), ("{V}[:2]", [V])],
    M: [("C23 * {S}", [S]), ("np.ones((2, 3)) * {S}", [S]), ("{M} @ M33", [M]), ("np.outer(C2, {V})", [V]),
        ("np.stack([{V}, {V}])", [V, V]), ("{V} * C23", [V]), ("{W}[:, None] * {V}", [W, V]),
        ("np.outer({W}, {V})", [W, V]), ("{M}[::-1]", [M])],
}
CONST = {S: ["0.7", "1.3", "-0.4"], V: ["C3", "np.ones(3)", "(np.arange(3.0) / 4)"], W: ["C2", "np.ones(2)"],
         M: ["C23", "np.ones((2, 3))"]}


@dataclasses.dataclass
class Program:
    family: str
    source: str          # module text; defines f
    args: list           # Python expressions (strings) for the arguments of f, in order
    seed: int = 0

    @classmethod
    def from_script(cls, text: str, family: str = "", seed: int = 0) -> "Program":
        """The inverse of script(): split off the ARGS line."""
        import ast
        lines = text.rstrip("\n").split("\n")
        k = max(i for i, line in enumerate(lines) if line.startswith("ARGS = ("))
        tup = ast.parse(lines[k]).body[0].value
        args = [ast.get_source_segment(lines[k], e) for e in tup.elts]
        return cls(family, "\n".join(lines[:k]).rstrip("\n") + "\n", args, seed)

    def script(self) -> str:
        """A standalone repro: the module, then a plain call."""
        return self.source + "\n\nARGS = (" + ", ".join(self.args) + ",)\n"


class Gen:
    def __init__(self, rng: random.Random, family: str):
        self.rng = rng
        self.family = family
        self.env: dict = {}          # name -> shape
        self.lines: list = []
        self.pre: dict = {}          # module-level definitions by name (helpers, classes)
        self.ind = 1
        self.n = 0
        self.ret_kind = "scalar"
        self.mutated_return = None

    # ------------------------------------------------------------------ basics
    def fresh(self, p="v"):
        self.n += 1
        return f"{p}{self.n}"

    def emit(self, *lines):
        for line in lines:
            self.lines.append("    " * self.ind + line)

    def define(self, name, shape):
        self.env[name] = shape

    def pick(self, shape):
        names = [k for k, s in self.env.items() if s == shape]
        return self.rng.choice(names) if names else None

    def chance(self, p):
        return self.rng.random() < p

    def leaf(self, shape):
        r = self.rng.random()
        name = self.pick(shape)
        if name is not None and r < 0.55:
            return name
        options = [(t, ph) for t, ph in LEAVES[shape] if all(self.pick(s) is not None for s in ph)]
        if options and r < 0.92:
            t, ph = self.rng.choice(options)
            out = t
            for s in ph:
                out = out.replace("{" + SHAPE_NAME[s] + "}", self.pick(s), 1)
            return out if out.endswith(")") and out[0].isalpha() and "@" not in out and " " not in out.split("(")[0] \
                else "(" + out + ")"
        return name if name is not None and self.chance(0.5) else self.rng.choice(CONST[shape])

    def expr(self, shape=S, depth=0, maxdepth=2):
        r = self.rng.random()
        if depth >= maxdepth or r < 0.3:
            return self.leaf(shape)
        if r < 0.6:
            t = self.rng.choice(UNARY_S if shape == S else UNARY_A)
            return t.format(self.expr(shape, depth + 1, maxdepth))
        a = self.expr(shape, depth + 1, maxdepth)
        # Broadcasting: a scalar against an array, a row against a matrix.
        other = shape
        if shape != S and self.chance(0.3):
            other = S
        elif shape == M and self.chance(0.3):
            other = V
        b = self.expr(other, depth + 1, maxdepth)
        if self.chance(0.5):
            a, b = b, a
        t = self.rng.choice(BINARY)
        return "(" + t.format(a, b) + ")"

    def bounded(self, shape, maxdepth=2):
        e = self.expr(shape, maxdepth=maxdepth)
        if self.chance(0.6):
            return ("math.tanh({})" if shape == S and self.chance(0.5) else "np.tanh({})").format(e)
        return e

    def assign(self, shape=None, name=None):
        shape = shape if shape is not None else self.rng.choice([S, S, V, V, W, M] if self.pick(M) else [S, S, V, V])
        name = name or self.fresh()
        self.emit(f"{name} = {self.bounded(shape)}")
        self.define(name, shape)
        return name

    def helper(self, name, text):
        self.pre.setdefault(name, text)

    # ------------------------------------------------------------------ finishing
    def finish(self, params, args):
        terms = []
        for name, shape in self.env.items():
            if name in params and not self.chance(0.3):
                continue
            if shape == S:
                terms.append(name)
            else:
                terms.append(self.rng.choice([f"np.sum({name})", f"np.sum({name} * {name})",
                                              f"np.sum(np.sin({name}))"]))
        if not terms:
            terms = ["x"]
        kind = self.ret_kind
        arrays = [k for k, s in self.env.items() if s != S and k not in params]
        if self.mutated_return:
            arrays = [self.mutated_return]
            kind = self.rng.choice(["array", "tuple"])
        elif kind == "scalar" and arrays and self.chance(0.2):
            kind = self.rng.choice(["array", "tuple"])
        if kind == "array" and arrays:
            self.emit(f"return {arrays[0]} + 0.1 * ({' + '.join(terms[:2])})")
        elif kind == "tuple" and arrays:
            self.emit(f"return {' + '.join(terms)}, {arrays[-1]}")
        else:
            self.emit(f"return {' + '.join(terms)}")
        body = "\n".join(self.lines)
        pre = "\n\n\n".join(self.pre.values())
        src = HEADER + ("\n\n" + pre + "\n" if pre else "") + f"\n\ndef f({', '.join(params)}):\n" + body + "\n"
        return Program(self.family, src, args)


def _num(rng, lo=-0.9, hi=0.9):
    v = round(rng.uniform(lo, hi), 3)
    return v if abs(v) > 0.05 else v + 0.2


def _distinct(rng, n):
    """n numbers at least 0.01 apart: max/min/sort of an argument must not sit at a tie (a kink,
    where finite differences average the two sides and no derivative is right)."""
    out: list = []
    while len(out) < n:
        v = _num(rng)
        if all(abs(v - w) >= 0.01 for w in out):
            out.append(v)
    return out


def _arr(rng, shape):
    if len(shape) == 1:
        return "np.array([" + ", ".join(repr(v) for v in _distinct(rng, shape[0])) + "])"
    flat = _distinct(rng, shape[0] * shape[1])
    rows = [flat[i * shape[1]:(i + 1) * shape[1]] for i in range(shape[0])]
    return "np.array([" + ", ".join("[" + ", ".join(repr(v) for v in row) + "]" for row in rows) + "])"


# ====================================================================== snippets by family
# Each snippet appends statements to g and defines new variables; all are well-defined for
# any shapes present (x: S and a: V always exist).

def s_assign(g):
    g.assign()


def s_aug(g):
    v = g.assign(S)
    g.emit(f"{v} += {g.expr(S)}", f"{v} *= 0.5", f"{v} -= {g.expr(S, maxdepth=1)}")


def s_negpow(g):
    v = g.fresh()
    k = g.fresh("k")
    form = g.rng.randrange(4)
    s = g.expr(S, maxdepth=1)
    if form == 0:
        g.emit(f"{v} = (math.tanh({s}) - 1.5) ** 3")
    elif form == 1:
        g.emit(f"{k} = 3", f"{v} = (math.tanh({s}) - 2.0) ** {k}")
    elif form == 2:
        g.emit(f"{v} = (-1.2 - math.tanh({s})) ** 2 + (np.tanh({g.leaf(V)}) - 1.5) ** 3 @ C3")
    else:
        g.emit(f"{k} = 2", f"{v} = (math.sin({s}) - 1.5) ** {k} + (math.sin({s}) - 1.5) ** -1")
    g.define(v, S)


def s_unused_in_loop(g):
    t = g.fresh("t")
    u = g.fresh("u")
    g.emit(f"{t} = 0.0", f"for i in range({g.rng.randint(1, 3)}):")
    g.ind += 1
    g.emit(f"{u} = " + g.rng.choice([f"{g.pick(V)}[:2] @ np.ones((2, 3))", f"np.array({g.pick(V)})",
                                     f"np.sin({g.pick(V)}) * {g.expr(S, maxdepth=1)}", f"{g.expr(S)}",
                                     f"({g.pick(V)}, {g.pick(S)})", f"[{g.pick(S)}, {g.pick(V)}]"]))
    g.emit(f"{t} = {t} + {g.expr(S, maxdepth=1)} * i")
    g.ind -= 1
    g.define(t, S)


def s_helper_call(g):
    g.helper("helper", "def helper(p, scale=1.0):\n    return math.sin(p) * scale")
    v = g.fresh()
    g.emit(f"{v} = helper({g.expr(S)}, scale={g.leaf(S)})")
    g.define(v, S)


def s_np_assign(g):
    shape = g.rng.choice([V, V, W, M] if g.pick(M) else [V, V, W])
    if shape == W and not g.pick(W):
        shape = V
    g.assign(shape)


def s_const_broadcast(g):
    v = g.fresh()
    s = g.pick(S)
    shape = V
    t = g.rng.choice([f"np.ones(3) + {s}", f"C3 * {s}", f"{s} + C3", f"C3 + {g.pick(V)} * {s}",
                      f"np.arange(3.0) / 4 - {s}", f"np.zeros(3) + {g.expr(S, maxdepth=1)}"])
    if g.chance(0.35):
        shape = M
        t = g.rng.choice([f"np.ones((2, 3)) + {s} * C23", f"C23 * {s}", f"C23 + {g.pick(V)}",
                          f"np.full((2, 3), 0.5) * {g.pick(V)} + {s}"])
    g.emit(f"{v} = {t}")
    g.define(v, shape)
    if g.chance(0.5):
        r = g.fresh()
        g.emit(f"{r} = " + g.rng.choice([f"np.mean({v} * C3)", f"np.sum(C3 + {v})", f"{v}[1] * 2.0" if shape == V else f"{v}[1, 0] * 2.0",
                                         f"np.sum({v} @ np.ones((3, 2)))", f"np.linalg.norm(np.sin({v}))"]))
        g.define(r, S)


def s_reduce(g):
    v = g.fresh()
    if g.pick(M) and g.chance(0.6):
        m = g.pick(M)
        t, shape = g.rng.choice([(f"np.sum({m}, axis=0)", V), (f"np.mean({m}, axis=1)", W),
                                 (f"np.max({m}, axis=0)", V), (f"{m}.sum(axis=1)", W), (f"{m}.mean(axis=0)", V),
                                 (f"np.sum({m} * C23, axis=1)", W), (f"np.max({m}, axis=1)", W),
                                 (f"np.sum({m}, axis=1, keepdims=True)[:, 0]", W), (f"np.mean({m})", S)])
    else:
        a = g.pick(V)
        t, shape = g.rng.choice([(f"np.sum({a})", S), (f"np.mean({a} * C3)", S), (f"np.max({a})", S),
                                 (f"{a}.sum(axis=0)", S), (f"np.sum(np.tanh({a}), axis=0)", S)])
    g.emit(f"{v} = {t}")
    g.define(v, shape)


def s_matmul(g):
    v = g.fresh()
    a = g.pick(V)
    opts = [(f"{a} @ M33", V), (f"np.dot({a}, {g.pick(V)})", S), (f"M33 @ np.tanh({a})", V),
            (f"{a} @ {g.pick(V)}", S), (f"np.dot(M33, {a})", V)]
    m = g.pick(M)
    if m:
        opts += [(f"{m} @ {a}", W), (f"np.dot({m}, {a})", W), (f"{m}.T @ C2", V), (f"{m} @ M33", M),
                 (f"np.tanh({m} @ {a}) @ {m}", V), (f"{m} @ {m}.T", None)]
    t, shape = g.rng.choice(opts)
    if shape is None:
        t, shape = f"np.sum({t})", S
    g.emit(f"{v} = {t}")
    g.define(v, shape)


def s_tuple_reads(g):
    t, p, q, v = g.fresh("t"), g.fresh("p"), g.fresh("q"), g.fresh()
    e1, e2 = g.pick(V) if g.chance(0.5) else g.expr(S), g.expr(S)
    sh1 = V if e1 in g.env and g.env[e1] == V else S
    g.emit(f"{t} = ({e1}, {e2})")
    form = g.rng.randrange(3)
    if form == 0:
        g.emit(f"{p} = {t}[0]", f"{q} = {t}[0]", f"{v} = np.sum({p} * 3.0) + np.sum({q}) + {t}[1]")
    elif form == 1:
        g.emit(f"{p}, {q} = {t}", f"{v} = np.sum({t}[0]) + np.sum({t}[0]) * {q}")
    else:
        g.emit(f"{p} = list({t})", f"{v} = np.sum({p}[0] * {p}[1]) + np.sum({t}[0])")
    g.define(v, S)


def s_params_loop(g):
    h, ps, v, pi = g.fresh("h"), g.fresh("params"), g.fresh(), g.fresh("p")
    a = g.pick(V)
    m = g.pick(M)
    if m and g.chance(0.5):
        g.emit(f"{ps} = [({m}, C2 * {g.pick(S)})]", f"{h} = {a}", f"for w, b in {ps}:")
        g.emit(f"    {h} = np.tanh(w @ {h} + b)")
        g.emit(f"{pi} = {ps}[0]", f"{v} = np.sum({h}) + np.sum({pi}[0]) + np.sum({pi}[0][0] * {pi}[1][0])")
    else:
        n = g.rng.randint(1, 3)
        items = ", ".join(f"({g.expr(S, maxdepth=1)}, {g.leaf(V)})" for _ in range(n))
        g.emit(f"{ps} = [{items}]", f"{h} = {a}", f"for w, b in {ps}:")
        g.emit(f"    {h} = np.tanh(w * {h} + b)")
        g.emit(f"{pi} = {ps}[-1]", f"{v} = np.sum({h}) + {pi}[0] * np.sum({pi}[1])")
    g.define(v, S)


def s_built_list(g):
    """A list built from empty by appending floats in a loop and read back (reverse/local_lists.py types it)."""
    xs, v, k, w = g.fresh("xs"), g.fresh(), g.fresh("k"), g.fresh("w")
    n = g.rng.randint(1, 4)
    g.emit(f"{xs} = []", f"for {k} in range({n}):",
           f"    {xs}.append({g.expr(S, maxdepth=1)} * ({k} + 1) + ({xs}[-1] * 0.5 if {k} > 0 else 0.0))")
    form = g.rng.randrange(3)
    if form == 0:
        g.emit(f"{v} = sum({xs}) + max({xs}) * {xs}[0] + len({xs})")
    elif form == 1:
        g.emit(f"{v} = 0.0", f"for {w} in {xs}:", f"    {v} = {v} + {w} * {w}")
    else:
        g.emit(f"{v} = float(np.sum(np.array({xs}) ** 2)) + min({xs})")
    g.define(v, S)


def s_list_ops(g):
    xs, v = g.fresh("xs"), g.fresh()
    n = 1
    g.emit(f"{xs} = [{g.expr(S)}]")
    for _ in range(g.rng.randint(2, 5)):
        op = g.rng.choice(["append", "extend", "iadd", "insert", "setitem", "augitem", "pop", "reverse", "popi"])
        if op == "append":
            g.emit(f"{xs}.append({g.expr(S, maxdepth=1)})"); n += 1
        elif op == "extend":
            g.emit(f"{xs}.extend([{g.leaf(S)}, {g.expr(S, maxdepth=1)}])"); n += 2
        elif op == "iadd":
            g.emit(f"{xs} += [{g.expr(S, maxdepth=1)}]"); n += 1
        elif op == "insert":
            g.emit(f"{xs}.insert({g.rng.randrange(n + 1)}, {g.expr(S, maxdepth=1)})"); n += 1
        elif op == "setitem":
            g.emit(f"{xs}[{g.rng.randrange(n)}] = {g.expr(S, maxdepth=1)}")
        elif op == "augitem":
            g.emit(f"{xs}[{g.rng.randrange(n)}] {g.rng.choice(['+=', '*=', '-='])} {g.expr(S, maxdepth=1)}")
        elif op == "reverse":
            g.emit(f"{xs}.reverse()")
        elif n > 1:
            z = g.fresh("z")
            if op == "pop":
                g.emit(f"{z} = {xs}.pop()")
            else:
                g.emit(f"{z} = {xs}.pop({g.rng.randrange(n)})")
            n -= 1
            g.define(z, S)
    terms = " + ".join(f"{c} * {xs}[{i}]" for i, c in zip(range(n), [1.0, 2.0, 3.0, 5.0, 7.0, 11.0, 13.0, 17.0, 19.0]))
    if g.chance(0.3):
        terms += f" + sum({xs})"
    g.emit(f"{v} = {terms}")
    g.define(v, S)


def s_dict_ops(g):
    d, v = g.fresh("d"), g.fresh()
    keys = ["a"]
    g.emit(f"{d} = {{'a': {g.expr(S)}}}")
    nk = 0
    for _ in range(g.rng.randint(2, 5)):
        op = g.rng.choice(["set", "update", "setdefault_new", "setdefault_old", "pop", "aug", "get"])
        nk += 1
        k = f"k{nk}"
        if op == "set":
            g.emit(f"{d}['{k}'] = {g.expr(S, maxdepth=1)}"); keys.append(k)
        elif op == "update":
            g.emit(f"{d}.update({{'{k}': {g.expr(S, maxdepth=1)}}})"); keys.append(k)
        elif op == "setdefault_new":
            z = g.fresh("z")
            g.emit(f"{z} = {d}.setdefault('{k}', {g.expr(S, maxdepth=1)})"); keys.append(k)
            g.define(z, S)
        elif op == "setdefault_old":
            z = g.fresh("z")
            g.emit(f"{z} = {d}.setdefault('{g.rng.choice(keys)}', {g.leaf(S)})")
            g.define(z, S)
        elif op == "pop" and len(keys) > 1:
            z = g.fresh("z")
            kk = g.rng.choice(keys)
            keys.remove(kk)
            g.emit(f"{z} = {d}.pop('{kk}')")
            g.define(z, S)
        elif op == "aug":
            g.emit(f"{d}['{g.rng.choice(keys)}'] += {g.expr(S, maxdepth=1)}")
        else:
            z = g.fresh("z")
            g.emit(f"{z} = {d}.get('{g.rng.choice(keys)}', 0.0) * 2.0 + {d}.get('missing', 0.5)")
            g.define(z, S)
    if g.chance(0.5):
        g.emit(f"{v} = 0.0", f"for key, val in {d}.items():", f"    {v} = {v} * 0.5 + val")
    else:
        g.emit(f"{v} = " + " + ".join(f"{c} * {d}['{k}']" for k, c in zip(keys, [1.0, 2.0, 3.0, 5.0, 7.0, 11.0])))
    g.define(v, S)


def s_rows(g):
    t = g.fresh("t")
    m = g.pick(M)
    a = g.pick(V)
    g.emit(f"{t} = 0.0")
    opts = []
    if m:
        m2 = g.leaf(M)
        opts += [(f"for i, row in enumerate({m}):", f"{t} = {t} + row[0] * row[1] * (i + 1)"),
                 (f"for r, s in zip({m}, {m2}):", f"{t} = {t} + np.sum(r * np.tanh(s))"),
                 (f"for r in reversed({m}):", f"{t} = {t} * 0.5 + r[0] + np.sum(r)"),
                 (f"for r, s in zip({m}, {m}[::-1]):", f"{t} = {t} + np.sum(r * s)"),
                 (f"for r in {m}[::-1]:", f"{t} = {t} * 0.5 + np.tanh(r[2])"),
                 (f"for i in range(len({m})):", f"{t} = {t} + np.sum({m}[i] * C3) * i"),
                 (f"for r, c in zip({m}, [{g.pick(S)}, {g.expr(S, maxdepth=1)}, 0.5]):", f"{t} = {t} + np.sum(r) * c")]
    opts += [(f"for i, e in enumerate({a}):", f"{t} = {t} + e * (i + 1) * {g.leaf(S)}"),
             (f"for e, c in zip({a}, [{g.pick(S)}, {g.expr(S, maxdepth=1)}]):", f"{t} = {t} + e * c"),
             (f"for e in reversed({a}):", f"{t} = {t} * 0.5 + math.sin(e)"),
             (f"for e, c in zip({a}, C3[:2]):", f"{t} = {t} + e * c"),
             (f"for i, (e, c) in enumerate(zip({a}, {g.leaf(V)})):", f"{t} = {t} + e * c * i")]
    head, body = g.rng.choice(opts)
    g.emit(head, "    " + body)
    if g.chance(0.3):
        rows, v = g.fresh("rows"), g.fresh()
        src = m or a
        g.emit(f"{rows} = []", f"for r in {src}:", f"    {rows}.append(np.tanh(r) * {t})")
        g.emit(f"{v} = np.stack({rows})" if m else f"{v} = np.array({rows})")
        g.define(v, M if m else V)
    g.define(t, S)


def s_inplace(g):
    b, v = g.fresh("b"), g.fresh()
    a = g.pick(V)
    g.emit(f"{b} = " + g.rng.choice([f"{a}.copy()", f"np.array({a})", f"{a} * 1.0", f"np.copy({a})", f"np.tanh({a})"]))
    for _ in range(g.rng.randint(1, 4)):
        s = g.expr(S, maxdepth=1)
        form = g.rng.randrange(11)
        if form == 0:
            g.emit(f"{b}[1:] *= {s}")
        elif form == 1:
            g.emit(f"{b}[[0, 2]] += {g.leaf(V)}[:2]")
        elif form == 2:
            g.emit(f"{b}[0] = {s}")
        elif form == 3:
            w = g.fresh("w")
            g.emit(f"{w} = {b}[1:]", f"{w} *= 0.5 + 0.4 * math.tanh({s})", f"{w}[0] += {g.leaf(S)}")
        elif form == 4:
            c = g.fresh("c")
            g.emit(f"{c} = {b}", f"{c}[1] = {c}[0] * {s}")
        elif form == 5:
            g.emit(f"np.sin({b}, out={b})")
        elif form == 6:
            g.emit(f"{b} += C3 * {s}")
        elif form == 7:
            g.emit(f"{b}[::2] = np.tanh({b}[::2]) + {s}")
        elif form == 8:
            g.emit(f"{b}[{b} > 100.0] = 0.0", f"{b}[:] = {b} * 0.9")
        elif form == 9:
            g.emit(f"np.add({b}, {s}, out={b})")
        else:
            g.emit(f"{b}[-1] -= {b}[0] * 0.5")
    g.define(b, V)
    if g.pick(M) and g.chance(0.4):
        B = g.fresh("B")
        m = g.pick(M)
        g.emit(f"{B} = {m}.copy()", g.rng.choice([f"{B}[:, 1] += {g.leaf(W)}", f"{B}[0, :] = np.tanh({B}[1, :])",
                                                  f"{B}[1] *= {g.leaf(S)}", f"{B}[:, [0, 2]] -= 0.5 * {B}[:, 1:2]"]))
        g.define(B, M)
    if g.chance(0.25):
        # a write through an argument (the caller sees it; gradients are w.r.t. entry values)
        g.emit(f"{a}[{g.rng.randrange(3)}] *= 0.5 + 0.4 * math.tanh({g.expr(S, maxdepth=1)})")
    if g.chance(0.3):
        u = g.fresh("u")
        g.emit(f"{u} = np.tanh({g.pick(V)})", f"{u}[1] += 1.0")
        g.define(u, V)
        g.mutated_return = u
    if g.chance(0.3):
        z = g.fresh("z")
        g.emit(f"{z} = np.zeros(3)", f"{z}[1:] = {a}[:2] * {g.leaf(S)}", f"{z}[[0, 2]] += {g.leaf(V)}[:2]")
        g.define(z, V)


LAYER = '''class Layer:
    def __init__(self, w, b):
        self.w = w
        self.b = b

    def __call__(self, h):
        return np.tanh(self.w * h + self.b)

    def scaled(self, t):
        return self.w * t

    def bump(self, d):
        self.w = self.w + d'''

PROP = '''class Box:
    def __init__(self, k):
        self._k = k

    @property
    def k(self):
        return self._k * 2.0

    @k.setter
    def k(self, v):
        self._k = v * 0.5'''

VEC = '''class Vec:
    def __init__(self, v):
        self.v = v

    def __add__(self, o):
        return Vec(self.v + (o.v if isinstance(o, Vec) else o))

    def __mul__(self, o):
        return Vec(self.v * (o.v if isinstance(o, Vec) else o))

    def __rmul__(self, o):
        return Vec(self.v * o)

    def __neg__(self):
        return Vec(-self.v)

    def __sub__(self, o):
        return self + (-o)

    def __getitem__(self, i):
        return self.v[i]'''

BASE = '''class Base:
    def __init__(self, k):
        self.k = k

    def value(self, t):
        return self.k * t


class Derived(Base):
    def __init__(self, k):
        super().__init__(k)
        self.j = k * 2.0

    def value(self, t):
        return super().value(t) + self.j'''


BODY = '''class Body:
    def __init__(self, x, v, m=2.0):
        self.x = x
        self.v = v
        self.m = m
        self.steps = 0

    def energy(self, k):
        return 0.5 * self.m * self.v ** 2 + 0.5 * k * self.x ** 2

    def momentum(self):
        return self.m * self.v + 0.0 * self.energy(1.0)'''

STATE = '''class State:
    def __init__(self, w, s):
        self.w = w
        self.s = s

    def combined(self, t):
        return np.tanh(self.w * self.s) + t * self.w

    def norm2(self):
        return np.sum(self.w * self.w) * self.s'''


def s_local_object(g):
    """Objects made here and used by field and read-only method (reverse/local_objects.py types them)."""
    v = g.fresh()
    form = g.rng.randrange(3)
    s = g.expr(S, maxdepth=1)
    o = g.fresh("o")
    if form == 0:
        g.helper("Body", BODY)
        g.emit(f"{o} = Body({s}, {g.leaf(S)})", "for _ in range(3):",
               f"    {o}.v = {o}.v - 0.1 * {o}.x * {g.leaf(S)} / {o}.m",
               f"    {o}.x = {o}.x + 0.1 * {o}.v", f"    {o}.steps = {o}.steps + 1",
               f"{v} = {o}.energy({g.leaf(S)}) + {o}.momentum() * {o}.steps")
    elif form == 1:
        g.helper("State", STATE)
        g.emit(f"{o} = State({g.pick(V)}, {s})", f"{o}.w = {o}.w * {o}.s + {g.leaf(V)}",
               f"{v} = np.sum({o}.combined({g.leaf(S)})) + {o}.norm2()")
    else:
        g.helper("Body", BODY)
        g.emit(f"{o} = Body({s}, {g.leaf(S)}, m={g.leaf(S)})", f"{o}.x = {o}.x * {o}.x",
               f"{v} = {o}.energy({o}.x) * {o}.m")
    g.define(v, S)


def s_class(g):
    v = g.fresh()
    form = g.rng.randrange(6)
    s = g.expr(S, maxdepth=1)
    a = g.pick(V)
    if form == 0:
        g.helper("Layer", LAYER)
        L = g.fresh("layer")
        g.emit(f"{L} = Layer({s}, {g.leaf(V)})", f"{v} = np.sum({L}({a})) + {L}.scaled({g.leaf(S)})")
    elif form == 1:
        g.helper("Layer", LAYER)
        ls, h = g.fresh("layers"), g.fresh("h")
        g.emit(f"{ls} = [Layer({s}, C3), Layer({g.leaf(S)}, {g.leaf(V)})]", f"{h} = {a}", f"for layer in {ls}:",
               f"    {h} = layer({h})", f"{ls}[0].bump({g.leaf(S)})", f"{v} = np.sum({h}) + {ls}[0].w")
    elif form == 2:
        g.helper("Box", PROP)
        bx = g.fresh("box")
        g.emit(f"{bx} = Box({s})", f"{bx}.k = {bx}.k * 3.0 + {g.leaf(S)}", f"{v} = {bx}.k")
    elif form == 3:
        g.helper("Vec", VEC)
        c = g.fresh("c")
        g.emit(f"{c} = Vec({s}) * Vec({g.leaf(S)}) + 2.0 * Vec({g.leaf(S)}) - Vec(0.3)", f"{v} = {c}.v")
    elif form == 4:
        g.helper("Vec", VEC)
        c = g.fresh("c")
        g.emit(f"{c} = 0.5 * Vec({a}) + Vec({g.leaf(V)}) * {g.leaf(S)}", f"{v} = {c}[0] + {c}[2] * {c}[1]")
    else:
        g.helper("Base", BASE)
        o = g.fresh("obj")
        g.emit(f"{o} = Derived({s})", f"{v} = {o}.value({g.leaf(S)}) + {o}.k * {o}.j")
    g.define(v, S)


def s_closure(g):
    v = g.fresh()
    form = g.rng.randrange(7)
    s = g.expr(S, maxdepth=1)
    fn = g.fresh("g")
    if form == 0:
        k = g.fresh("k")
        g.emit(f"{k} = {s}", f"def {fn}(t):", f"    return t * {k} + math.sin({k})", f"{v} = {fn}({g.leaf(S)})")
    elif form == 1:
        k = g.fresh("k")
        g.emit(f"{k} = 0", f"while {k} < 2:", f"    {k} += 1", f"def {fn}(t):", f"    return t * {k}",
               f"{v} = {fn}({s})")
    elif form == 2:
        g.emit(f"{v} = 0.0", "for i in range(3):", f"    def {fn}(t):", f"        return t * i + {g.leaf(S)}",
               f"    {v} = {v} + {fn}({s})")
    elif form == 3:
        fs = g.fresh("fs")
        g.emit(f"{fs} = []", "for i in range(3):", f"    c = {s} * (i + 1)", f"    {fs}.append(lambda t, c=c: t * c)",
               f"{v} = {fs}[0]({g.leaf(S)}) + {fs}[2]({g.leaf(S)})")
    elif form == 4:
        sq = g.fresh("sq")
        g.emit(f"{sq} = lambda t: t * t + {g.leaf(S)}", f"{v} = {sq}({s}) + {sq}(0.5)")
    elif form == 5:
        g.emit(f"def {fn}(p):", "    def inner(t):", "        return p * t", "    return inner",
               f"{v} = {fn}({s})({g.leaf(S)})")
    else:
        acc = g.fresh("acc")
        g.emit(f"{acc} = [0.0]", f"def {fn}(t):", f"    {acc}[0] = {acc}[0] + t * {g.leaf(S)}")
        g.emit(f"for e in {g.pick(V)}:", f"    {fn}(e)", f"{v} = {acc}[0]")
    g.define(v, S)


def s_while(g):
    u, it = g.fresh("u"), g.fresh("it")
    g.emit(f"{u} = 0.5 + 0.4 * math.tanh({g.expr(S, maxdepth=1)})", f"{it} = 0")
    form = g.rng.randrange(5)
    if form == 0:
        g.emit(f"while {u} < 2.0 and {it} < 20:", f"    {u} = {u} * 1.3 + 0.1", f"    {it} += 1")
    elif form == 1:
        g.emit(f"while {it} < 2 or ({u} < 3.0 and {it} < 12):", f"    {u} = {u} * 1.2 + 0.05", f"    {it} += 1")
    elif form == 2:
        g.emit(f"while ({u} := {u} * 1.25 + 0.1) < 2.5 and {it} < 15:", f"    {it} += 1")
    elif form == 3:
        g.emit(f"while {it} < 8:", f"    {it} += 1", f"    if {u} > 1.5:", "        break",
               f"    {u} = {u} + 0.3 * math.sin({u}) + 0.2")
    else:
        g.emit(f"while not ({u} > 2.0 or {it} >= 10):", f"    {u} = {u} * 1.1 + {g.leaf(S)} * 0.01 + 0.1", f"    {it} += 1")
    g.define(u, S)


def s_branch_loop(g):
    t = g.fresh("t")
    s = g.expr(S, maxdepth=1)
    form = g.rng.randrange(5)
    g.emit(f"{t} = 0.0")
    if form == 0:
        xx = g.fresh("q")
        g.emit(f"{xx} = np.float64(1.5)", "for i in range(4):", "    if i == 1:", "        continue",
               f"    elif {xx} > 0:", f"        {xx} *= 0.9", "    else:", "        continue",
               f"    {t} = {t} + {xx} * {s}")
    elif form == 1:
        g.emit("for i in range(3):", "    for j in range(3):", "        if j == 1:", "            continue",
               f"        {t} = {t} + {s} * j", "    else:", "        continue", f"    {t} = {t} * 2.0")
    elif form == 2:
        g.emit("for i in range(5):", f"    if {s} > 5.0:", "        break", "    elif i % 2 == 0:",
               f"        {t} = {t} + math.sin({t} + {g.leaf(S)})", "    else:", f"        {t} = {t} * 0.8 + {s}")
    elif form == 3:
        g.emit("for i in range(4):", f"    {t} = {t} + {s} * (i + 1)", f"    if i >= {g.rng.randint(0, 3)}:", "        break",
               "else:", f"    {t} = {t} * 0.5")
    else:
        c = g.leaf(S)
        g.emit(f"if {c} > 0.0:", f"    {t} = {s} * 2.0", f"elif {c} > -0.3:", f"    {t} = math.sin({s})", "else:",
               f"    {t} = {s} + 1.0")
    g.define(t, S)


FORELSE = '''def forelse_{n}(p, q):
    for i in range({k}):
        if i > 5:
            break
    else:
        if np.sum(p) < 50.0:
            return p[1] * q + np.sum(p)
    return np.sum(p)'''


def s_forelse_return(g):
    n = g.fresh("")
    g.helper(f"forelse_{n}", FORELSE.format(n=n, k=g.rng.randint(0, 2)))
    v = g.fresh()
    g.emit(f"{v} = forelse_{n}({g.pick(V)}, {g.expr(S, maxdepth=1)})")
    g.define(v, S)


def s_cmp_branch(g):
    v = g.fresh()
    a, b = g.expr(S, maxdepth=1), g.expr(S, maxdepth=1)
    g.emit(f"if {a} > {b}:", f"    {v} = {g.expr(S)}", "else:", f"    {v} = {g.expr(S)}")
    g.define(v, S)


FAMILIES = {
    "arith": [s_assign, s_aug, s_negpow, s_unused_in_loop, s_helper_call],
    "numpy": [s_np_assign, s_const_broadcast, s_reduce, s_matmul, s_assign],
    "containers": [s_tuple_reads, s_params_loop, s_list_ops, s_built_list, s_dict_ops, s_assign],
    "rows": [s_rows, s_unused_in_loop, s_assign],
    "inplace": [s_inplace, s_np_assign, s_const_broadcast],
    "classes": [s_class, s_local_object, s_assign],
    "closures": [s_closure, s_assign],
    "control": [s_while, s_branch_loop, s_forelse_return, s_cmp_branch, s_assign],
}
FAMILIES["mixed"] = sorted({s for snippets in list(FAMILIES.values()) for s in snippets}, key=lambda s: s.__name__)


def s_match(g):
    t = g.fresh("t")
    p, q = g.fresh("p"), g.fresh("q")
    s = g.expr(S, maxdepth=1)
    form = g.rng.randrange(4)
    if form == 0:
        g.emit(f"match ({s}, {g.leaf(S)}):", f"    case ({p}, 0.0):", f"        {t} = {p}",
               f"    case ({p}, {q}) if {p} > {q}:", f"        {t} = {p} * {q} + math.sin({p})",
               f"    case ({p}, {q}):", f"        {t} = {p} - 2.0 * {q}")
    elif form == 1:
        g.emit(f"{t} = 0.0", f"for i in range({g.rng.randint(2, 5)}):", "    match i:", "        case 0 | 2:",
               f"            {t} = {t} + {s} * (i + 1)", "        case 1:", "            continue", "        case 3:",
               "            break", "        case _:", f"            {t} = {t} * 0.5 + {s}")
    elif form == 2:
        g.emit(f"match {{'w': {s}, 'n': {g.rng.randint(1, 2)}}}:", f"    case {{'w': {p}, 'n': 1}}:",
               f"        {t} = {p} * 3.0", f"    case {{'w': {p}}}:", f"        {t} = math.cos({p})")
    else:
        a = g.pick(V)
        g.emit(f"match {a}:", f"    case [{p}, {q}]:", f"        {t} = 0.0", f"    case np.ndarray(ndim=1):",
               f"        {t} = np.sum({a}) * {s}", "    case _:", f"        {t} = {s}")
    g.define(t, S)


ERRSTATE = '''def scaled_{n}(p):
    with np.errstate(over="ignore", invalid="ignore"):
        return p * 2.0 + np.tanh(p)'''


def s_with(g):
    t = g.fresh("t")
    s = g.expr(S, maxdepth=1)
    form = g.rng.randrange(3)
    if form == 0:
        g.emit('with np.errstate(divide="ignore", invalid="ignore"):', f"    {t} = {g.expr(S)} + {s}")
    elif form == 1:
        g.emit(f"{t} = 0.0", f"for i in range({g.rng.randint(1, 4)}):", '    with np.errstate(all="ignore"):',
               f"        if i >= {g.rng.randint(1, 3)}:", "            break", f"        {t} = {t} + {s} * i")
    else:
        n = g.fresh("")
        g.helper(f"scaled_{n}", ERRSTATE.format(n=n))
        g.emit(f"{t} = scaled_{n}({s})")
    g.define(t, S)


FAMILIES["language"] = [s_match, s_with, s_cmp_branch, s_assign]  # (after "mixed", whose programs stay as they were)


# ---------------------------------------------------------------- the user's own helpers and lists of floats
# (reverse/call_types.py types calls of helpers from their code; reverse/typed_lists.py types a list of floats a
# function only reads: these programs check both, and the ways a list or a helper's result stops being plain.)

VHELPERS = [
    "def vh_{n}(p, s):\n    return np.tanh(p) * s + p ** 2",
    "def vh_{n}(p, s):\n    q = np.sin(p)\n    return q * q + s",
    "def vh_{n}(p, s):\n    return np.array([p[0] * s, p[1] + p[2], math.sin(s)])",
    "def vh_{n}(p, s):\n    return p[::-1] * s",
    "def vh_{n}(p, s):\n    out = np.zeros(3)\n    out[0] = s\n    out[1:] = p[:2] * 2.0\n    return out",
    "def vh_{n}(p, s):\n    p[0] = p[0] * s\n    return p * 1.0",
    "def vh_{n}(p, s):\n    return p",
]


def s_array_helper(g):
    n = g.fresh("")
    form = g.rng.randrange(len(VHELPERS))
    g.helper(f"vh_{n}", VHELPERS[form].format(n=n))
    v = g.fresh()
    arg = g.expr(V, maxdepth=1)
    if form == 5:  # (writes its argument: hand it a copy of the caller's own value)
        arg = f"({arg}) * 1.0"
    g.emit(f"{v} = vh_{n}({arg}, {g.expr(S, maxdepth=1)})")
    g.define(v, V)
    if g.rng.random() < 0.3:  # a write into the result
        g.emit(f"{v}[{g.rng.randrange(3)}] = {g.expr(S, maxdepth=1)}")


def s_scalar_helpers(g):
    n = g.fresh("")
    g.helper(f"sh_{n}", f"def sh_{n}(u, v):\n    return math.sin(u) * v + u * u / (1.0 + v * v)")
    g.helper(f"sh2_{n}", f"def sh2_{n}(u):\n    return sh_{n}(u, 0.5) + sh_{n}(0.3, u)")
    v = g.fresh()
    g.emit(f"{v} = sh2_{n}({g.expr(S, maxdepth=1)}) + sh_{n}({g.expr(S, maxdepth=1)}, {g.leaf(S)})")
    g.define(v, S)


def s_list_param(g):
    t = g.fresh("t")
    s = g.expr(S, maxdepth=1)
    form = g.rng.randrange(7)
    if form == 0:
        g.emit(f"{t} = 0.0", "for v in xs:", f"    {t} = {t} + v * math.sin(v + {s})")
    elif form == 1:
        g.emit(f"{t} = 0.0", "for k, v in enumerate(xs):", f"    {t} = {t} + (k + 1.0) * v * v")
    elif form == 2:
        g.emit(f"{t} = xs[0] * xs[-1] + xs[1] * {s}")
    elif form == 3:
        g.emit(f"{t} = sum(xs) * max(xs) + min(xs) * {s}")
    elif form == 4:
        g.emit(f"{t} = 0.0", f"for v, w in zip(xs, {g.pick(V) or 'C3'}):", f"    {t} = {t} + v * w")
    elif form == 5:
        g.emit(f"{t} = float(np.sum(np.array(xs) * {g.expr(V, maxdepth=1)}))")
    else:  # (the list is written: it stays generic)
        g.emit(f"xs[{g.rng.randrange(3)}] = xs[{g.rng.randrange(3)}] * {s}", f"{t} = sum(xs)")
    g.define(t, S)


FAMILIES["calls"] = [s_list_param, s_array_helper, s_scalar_helpers, s_list_param, s_assign]


def s_try(g):
    t = g.fresh("t")
    s = g.expr(S, maxdepth=1)
    form = g.rng.randrange(3)
    if form == 0:
        g.emit("try:", f"    if {s} > {_num(g.rng, -0.5, 0.5)!r}:", "        raise ValueError", f"    {t} = {g.expr(S)}",
               "except ValueError:", f"    {t} = {g.expr(S)} * 0.5")
    elif form == 1:
        d = g.fresh("d")
        g.emit(f"{d} = {{'a': {s}, 'b': {g.expr(S, maxdepth=1)}}}", "try:",
               f"    {t} = {d}[{g.rng.choice(['a', 'b', 'z'])!r}] * {g.leaf(S)}", "except KeyError:", f"    {t} = {s} * 0.5")
    else:
        g.emit(f"{t} = 0.0", f"for i in range({g.rng.randint(1, 4)}):", "    try:",
               f"        if i == {g.rng.randint(0, 2)}:", "            raise IndexError", f"        {t} = {t} + {s} * (i + 1)",
               "    except IndexError:", f"        {t} = {t} - {s}", "    finally:", f"        {t} = {t} * 0.9")
    g.define(t, S)


GENERATOR = '''def gen_{n}(p, m):
    for i in range(m):
        if i % 2:
            yield p * (i + 1)
        else:
            yield math.sin(p * i) + p'''


def s_generator(g):
    t = g.fresh("t")
    n = g.fresh("")
    g.helper(f"gen_{n}", GENERATOR.format(n=n))
    s, m = g.expr(S, maxdepth=1), g.rng.randint(1, 4)
    form = g.rng.randrange(3)
    if form == 0:
        g.emit(f"{t} = sum(gen_{n}({s}, {m}))")
    elif form == 1:
        g.emit(f"{t} = 0.0", f"for v in gen_{n}({s}, {m}):", f"    {t} = {t} + v * v")
    else:
        g.emit(f"{t} = list(gen_{n}({s}, {m}))[-1] * {g.leaf(S)}")
    g.define(t, S)


FAMILIES["exceptions"] = [s_try, s_generator, s_assign]  # (try/except/finally and generators; a family of its own)


ROTATE_HELPER = '''def stats_{n}(p, q):
    m = (p + q) * 0.5
    d = p - q
    return m, d * d, float(m) * 1e300 * 1e10'''


def s_loops(g):
    """Loops as scientists write them: rotating tuples, `+=` on numbers, items of arrays, ranges inside ranges,
    closures over numbers, min/max of two numbers, a helper's tuple of numbers with an item left unused (its third
    item overflows to inf: an unused infinite must not reach the gradient as 0.0 * inf)."""
    t = g.fresh("t")
    s = g.expr(S, maxdepth=1)
    form = g.rng.randrange(8)
    if form == 0:
        p, q = g.fresh("p"), g.fresh("q")
        g.emit(f"{p}, {q} = {s}, 0.5", f"for i in range({g.rng.randint(1, 5)}):", f"    {p}, {q} = {q}, {p} * {q} + 0.1",
               f"{t} = {p} + 2.0 * {q}")
    elif form == 1:
        p, q, r = g.fresh("p"), g.fresh("q"), g.fresh("r")
        g.emit(f"{p}, {q}, {r} = {s}, 0.3, {g.leaf(S)}", f"for i in range({g.rng.randint(1, 4)}):",
               f"    {p}, {q}, {r} = {q}, {r}, {p} * 0.5 + math.sin({r})", f"{t} = {p} * {q} + {r}")
    elif form == 2:
        g.emit(f"{t} = 0.0", f"for v in {g.pick(V)}:", f"    {t} += v * v * {s}", f"    {t} -= 0.1 * v")
    elif form == 3:
        g.emit(f"{t} = 0.0", f"for i in range({g.rng.randint(0, 4)}):", "    for j in range(i):",
               f"        {t} += math.sin({s} * (i - j)) / (1 + j)")
    elif form == 4:
        c, f = g.fresh("c"), g.fresh("f")
        g.emit(f"{c} = {s}", f"{f} = lambda z: z * z - {c}", f"{t} = 0.0", f"for i in range({g.rng.randint(1, 4)}):",
               f"    {t} = {t} + {f}({t} + 0.1 * i)")
    elif form == 5:
        g.emit(f"{t} = -1.0", f"for i in range({g.rng.randint(1, 5)}):",
               f"    {t} = max({t}, math.sin({s} * (i + 1))) + min(0.2113 * i, {g.leaf(S)})")  # (no ties: kinks)
    elif form == 6:
        n = g.fresh("")
        g.helper(f"stats_{n}", ROTATE_HELPER.format(n=n))
        m, v, w = g.fresh("m"), g.fresh("v"), g.fresh("w")
        g.emit(f"{m}, {v}, {w} = stats_{n}({s}, {g.leaf(S)})", f"{t} = {m} * {v}")
    else:
        g.emit(f"{t} = 0.0", f"for k, v in enumerate({g.pick(V)}):", f"    {t} += v * (k + 1) * {s}")
    g.define(t, S)


FAMILIES["loops"] = [s_loops, s_loops, s_assign]  # (last: the families above keep their programs)


# ---------------------------------------------------------------- arrays updated in place by a loop, lists of arrays
# (reverse/carried_inplace.py makes `b += ...` on the array a loop carries plain, reverse/view_reads.py slices of
# arrays nothing writes, buffers.py arrays filled within one trip, typed_lists.py a list of arrays only read: these
# programs check them and the ways in place and out of place differ: the array of one trip kept or viewed past
# the update, an alias taken before the loop, an update in a branch.)


def s_carried(g):
    b, k, v = g.fresh("b"), g.fresh("k"), g.fresh()
    a = g.pick(V)
    g.emit(f"{b} = " + g.rng.choice([f"{a}.copy()", f"{a} * 1.0", f"np.tanh({a})", f"np.zeros(3) + {g.leaf(S)}"]))
    alias = g.chance(0.15)
    if alias:
        g.emit(f"{b}_0 = {b}")
    form = g.rng.randrange(6)
    kept = g.fresh("hist") if form == 5 else g.fresh("head") if form == 3 else None
    if form == 5:
        g.emit(f"{kept} = []")
    g.emit(f"for {k} in range({g.rng.randint(1, 4)}):")
    s = g.expr(S, maxdepth=1)
    body = []
    if form == 0:
        body += [f"lap = np.zeros_like({b})", f"lap[1:-1] = {b}[2:] - 2 * {b}[1:-1] + {b}[:-2]",
                 f"{b} += 0.3 * math.tanh({s}) * lap"]
    elif form == 1:
        body += [f"{b} += {s} * ({b}[::-1] - {b}) * 0.2"]
    elif form == 2:
        body += [f"{b} -= 0.1 * ({b} ** 3 - {b} * {s})"]
    elif form == 3:
        body += [f"{kept} = {b}[:2]", f"{b} *= 0.5 + 0.4 * math.tanh({s})"]
    elif form == 4:
        body += [f"if {k} % 2 == 0:", f"    {b} += {s} * np.sin({b})"]
    else:
        body += [f"{b} += 0.2 * np.cos({b} + {s})", f"{kept}.append({b})"]
    if form == 3:
        body.append(f"{v}_acc = np.sum({kept} ** 2)")
    g.emit(*("    " + line for line in body))
    total = f"np.sum({b} * {b})"
    if form == 3:
        total += f" + {v}_acc"
    elif form == 5:
        total += f" + sum(np.sum(h * h) for h in {kept})"
    if alias:
        total += f" + np.sum({b}_0)"
    g.emit(f"{v} = {total}")
    g.define(v, S)
    g.define(b, V)


def s_array_list(g):
    t = g.fresh("t")
    s = g.expr(S, maxdepth=1)
    h = g.pick(V)
    form = g.rng.randrange(6)
    if form == 0:
        g.emit(f"{t} = {h}", "for w in vs:", f"    {t} = np.tanh(w * {t} + {s})")
        g.emit(f"{t} = np.sum({t})")
    elif form == 1:
        g.emit(f"{t} = 0.0", "for i in range(len(vs)):", f"    {t} = {t} + np.dot(vs[i], {h}) * (i + 1.0)")
    elif form == 2:
        g.emit(f"{t} = np.sum(vs[0] * vs[-1]) + np.sum(vs[1].T * {s})")
    elif form == 3:
        g.emit(f"{t} = 0.0", f"for w in reversed(vs):", f"    {t} = {t} * 0.5 + np.sum(np.sin(w))")
    elif form == 4:  # (an item written: the list stays generic)
        g.emit(f"vs[0][1] = vs[0][1] * {s}", f"{t} = np.sum(vs[0]) + np.sum(vs[1])")
    else:  # (the whole list reduced: generic too)
        g.emit(f"{t} = np.sum(sum(vs) * {h})")
    g.define(t, S)


FAMILIES["arrays"] = [s_carried, s_array_list, s_carried, s_assign]  # (after "loops": the families above keep theirs)


# ---------------------------------------------------------------- helpers put in line (reverse/inline.py)
# (factories of closures, callable objects, keyword-only defaults that fold a branch, helpers of helpers, a helper
# that writes its argument, and the near misses that stay calls: early returns, *args)


def s_factory(g):
    n, v = g.fresh(""), g.fresh()
    g.helper(f"mk_{n}", f"def mk_{n}(c):\n    def inner(t):\n        return c * t + math.sin(t)\n    return inner")
    f = g.fresh("f")
    g.emit(f"{f} = mk_{n}({g.expr(S, maxdepth=1)})", f"{v} = {f}({g.leaf(S)}) + {f}({f}({g.expr(S, maxdepth=1)}))")
    g.define(v, S)


def s_callable_object(g):
    n, v, o = g.fresh(""), g.fresh(), g.fresh("o")
    g.helper(f"Aff{n}", f"class Aff{n}:\n    def __init__(self, w, b):\n        self.w = w\n        self.b = b\n\n"
                        f"    def __call__(self, x):\n        return np.tanh(self.w * x + self.b)\n\n"
                        f"    def scale(self, k):\n        return self.w * k")
    a = g.pick(V)
    g.emit(f"{o} = Aff{n}({g.expr(V, maxdepth=1)}, {g.expr(S, maxdepth=1)})",
           f"{v} = np.sum({o}({o}({a}))) + np.sum({o}.scale({g.leaf(S)}))")
    g.define(v, S)


def s_kw_helper(g):
    n, v = g.fresh(""), g.fresh()
    form = g.rng.randrange(4)
    if form == 0:
        g.helper(f"kw_{n}", f"def kw_{n}(x, s=1.0, *, squash=True):\n    y = s * x\n    return math.tanh(y) if squash else y")
    elif form == 1:
        g.helper(f"kw_{n}", f"def kw_{n}(x, s=1.0, *, squash=True):\n    if squash:\n        out = math.tanh(s * x)\n"
                            f"    else:\n        out = x - s\n    return out")
    elif form == 2:  # (an early return: stays a call)
        g.helper(f"kw_{n}", f"def kw_{n}(x, s=1.0, *, squash=True):\n    if squash:\n        return math.tanh(s * x)\n"
                            f"    return x - s")
    else:  # (a helper of a helper)
        g.helper(f"kin_{n}", f"def kin_{n}(u):\n    return u * u + 0.5")
        g.helper(f"kw_{n}", f"def kw_{n}(x, s=1.0, *, squash=True):\n    return kin_{n}(x) * s if squash else kin_{n}(s)")
    x = g.expr(S, maxdepth=1)
    g.emit(f"{v} = kw_{n}({x}) + kw_{n}({g.leaf(S)}, s={g.expr(S, maxdepth=1)}, squash=False) * kw_{n}({x}, 0.5)")
    g.define(v, S)


def s_writing_helper(g):
    n, v, b = g.fresh(""), g.fresh(), g.fresh("b")
    g.helper(f"wr_{n}", f"def wr_{n}(p, s):\n    p[0] = p[0] * s\n    return p * 2.0")
    g.emit(f"{b} = {g.pick(V)} * 1.0", f"{v} = np.sum(wr_{n}({b}, {g.expr(S, maxdepth=1)}) * {b})")
    g.define(v, S)


FAMILIES["inline"] = [s_factory, s_callable_object, s_kw_helper, s_writing_helper, s_assign]  # (after "arrays")


# ---------------------------------------------------------------- branches whose bodies begin with a loop
# (`if c:` then `while ...:` at once: the loop's header is entered from the branch; ir/regions.merge_points)


def s_branch_leading_loop(g):
    k, v = g.fresh("k"), g.fresh()
    s = g.pick(S)
    cond = g.rng.choice([f"{s} > 0.1", f"{s} is not None", f"abs({s}) < 5.0"])
    g.emit(f"{v} = {g.expr(S, maxdepth=1)}", f"{k} = {g.rng.randint(1, 5)}", f"if {cond}:")
    form = g.rng.randrange(4)
    if form == 0:
        g.emit(f"    while {k} > 0:", f"        {k} = {k} - 1", f"        {v} = {v} * 0.9 + math.sin({v})")
    elif form == 1:
        g.emit("    while True:", f"        if {k} > 2:", f"            {k} = {k} - 1",
               f"            {v} = math.tanh({v}) + 0.5 * {v}", "            continue", "        break")
    elif form == 2:
        g.emit(f"    for j in range({k}):", f"        {v} = {v} * 1.1", f"        if {v} > 3.0:", "            break")
    else:
        g.emit(f"    while {k} > 0:", f"        {k} = {k} - 1", f"        if {v} > 2.0:", "            break",
               f"        {v} = {v} + 0.3 * {g.leaf(S)}")
    if g.chance(0.6):
        g.emit(f"    {v} = {v} * 2.0")
    if g.chance(0.4):
        g.emit("else:", f"    {v} = -{v}")
    g.define(v, S)


FAMILIES["shapes"] = [s_branch_leading_loop, s_branch_leading_loop, s_assign]  # (after "inline")


def generate(seed: int, family: str) -> Program:
    """The program of this seed in this family (deterministic)."""
    rng = random.Random(f"{family}:{seed}")
    g = Gen(rng, family)
    params = ["x", "a"]
    shapes = {"x": S, "a": V}
    if rng.random() < 0.6:
        params.insert(1, "y")
        shapes["y"] = S
    if rng.random() < 0.6 or family in ("rows",):
        params.append("A")
        shapes["A"] = M
    for p in params:
        g.define(p, shapes[p])
    args = [repr(_num(rng)) if shapes[p] == S else _arr(rng, shapes[p]) for p in params]
    if family == "calls":  # (a list of floats too: reverse/typed_lists.py)
        params.append("xs")
        args.append(repr([_num(rng) for _ in range(3)]))
    if family == "arrays":  # (a list of float arrays too: reverse/typed_lists.py)
        params.append("vs")
        args.append("[" + ", ".join(_arr(rng, (3,)) for _ in range(3)) + "]")
    snippets = FAMILIES[family]
    main = snippets[0]
    for i in range(rng.randint(2, 5)):
        (main if i == 0 else rng.choice(snippets))(g)
    return dataclasses.replace(g.finish(params, args), seed=seed)


from . import gen_values  # noqa: E402,F401  (registers the family "values")
from . import gen_aliases  # noqa: E402,F401  (registers the family "aliases")
from . import gen_protocols  # noqa: E402,F401  (registers the family "protocols")
from . import gen_views  # noqa: E402,F401  (registers the family "views")
from . import gen_oop  # noqa: E402,F401  (registers the family "oop")
from . import gen_lang15  # noqa: E402,F401  (registers the family "language15")
from . import gen_fancy  # noqa: E402,F401  (registers the family "fancy")
from . import gen_dictarrays  # noqa: E402,F401  (registers the family "dictarrays")
from . import gen_flow  # noqa: E402,F401  (registers the family "flow")
from . import gen_hierarchy  # noqa: E402,F401  (registers the family "hierarchy")
from . import gen_buffers  # noqa: E402,F401  (registers the family "buffers"; hunt11)
from . import gen_trywrites  # noqa: E402,F401  (registers the family "trywrites"; hunt13)
