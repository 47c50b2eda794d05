"""The random family "values": value classes with operators and state objects carried by loops and branches
(reverse/value_classes.py puts their methods in line, reverse/scalar_objects.py keeps their fields as numbers),
with the near misses that must stay objects: `__add__` that may return NotImplemented, a subclass whose reflected
method runs first, a mutating `__iadd__`, a field written after construction, an object handed to a builtin."""
from __future__ import annotations

from .gen import FAMILIES, S, s_assign


def _vec_class(g, n: str) -> dict:
    """Define a random 2-vector class; what it supports."""
    has = {"rmul": g.chance(0.6), "iter": g.chance(0.6), "guarded": g.chance(0.25), "iadd": g.chance(0.2),
           "sub": g.chance(0.3)}
    add = (f"    def __add__(self, o):\n        if isinstance(o, Vc{n}):\n            return Vc{n}(self.x + o.x, self.y + o.y)\n"
           f"        return NotImplemented\n\n    def __radd__(self, o):\n        return Vc{n}(self.x + o, self.y - o)\n"
           if has["guarded"] else
           f"    def __add__(self, o):\n        return Vc{n}(self.x + o.x, self.y + o.y)\n")
    text = (f"class Vc{n}:\n    def __init__(self, x, y=0.25):\n        self.x = x\n        self.y = y\n\n{add}\n"
            f"    def __sub__(self, o):\n        return Vc{n}(self.x - o.x, self.y - o.y)\n\n"
            f"    def __mul__(self, k):\n        return Vc{n}(self.x * k, self.y * k)\n\n"
            f"    def __neg__(self):\n        return Vc{n}(-self.x, -self.y)\n\n"
            f"    def __abs__(self):\n        return math.sqrt(self.x * self.x + self.y * self.y + 0.1)\n\n"
            f"    def __matmul__(self, o):\n        return self.x * o.x + self.y * o.y\n")
    if has["rmul"]:
        text += "\n    __rmul__ = __mul__\n"
    if has["iter"]:
        text += "\n    def __iter__(self):\n        return iter((self.x, self.y))\n"
    if has["iadd"]:
        text += "\n    def __iadd__(self, o):\n        self.x = self.x + o.x\n        self.y = self.y * 0.5 + o.y\n        return self\n"
    g.helper(f"Vc{n}", text)
    if has["sub"]:
        g.helper(f"Sb{n}", f"class Sb{n}(Vc{n}):\n    def __radd__(self, o):\n        return Sb{n}(2.0 * self.x + o.x, self.y)\n")
    return has


def s_value_ops(g):
    n, v, p, q = g.fresh(""), g.fresh(), g.fresh("p"), g.fresh("q")
    has = _vec_class(g, n)
    dt = g.leaf(S)
    g.emit(f"{p} = Vc{n}({g.expr(S, maxdepth=1)}, {g.leaf(S)})", f"{q} = Vc{n}({g.leaf(S)})",
           f"for _ in range({g.rng.randint(1, 4)}):")
    g.emit(f"    {q} = {q} + " + (f"0.1 * {p}" if has["rmul"] else f"{p} * 0.1"))
    if has["iadd"] or g.chance(0.5):
        g.emit(f"    {p} += {q} * 0.2")
    else:
        g.emit(f"    {p} = {p} - {q} * math.tanh({dt})")
    if has["guarded"] and g.chance(0.7):
        g.emit(f"{q} = 0.5 + {q}")
    if has["sub"] and g.chance(0.7):  # (after: Sb's `__radd__` takes vectors only)
        g.emit(f"{q} = {q} + Sb{n}({g.leaf(S)}, 0.3)")
    parts = [f"abs({p})", f"(-{q}).x", f"({p} @ {q}) * 0.3", f"{q}.y * {p}.x"]
    if has["iter"]:
        u, w = g.fresh("u"), g.fresh("w")
        g.emit(f"{u}, {w} = {p}")
        parts.append(f"{u} * {w}")
    g.emit(f"{v} = " + " + ".join(g.rng.sample(parts, g.rng.randint(2, len(parts)))))
    g.define(v, S)


def s_state_loop(g):
    n, v, s = g.fresh(""), g.fresh(), g.fresh("s")
    g.helper(f"St{n}", f"class St{n}:\n    def __init__(self, x, v, k=0.5):\n        self.x = x\n        self.v = v\n"
                       f"        self.k = k\n        self.m = 2.0\n\n    def energy(self):\n"
                       f"        return 0.5 * self.m * self.v * self.v + 0.5 * self.k * self.x * self.x")
    g.emit(f"{s} = St{n}({g.expr(S, maxdepth=1)}, {g.leaf(S)}, k={g.rng.choice(['0.5', '1.5'])})")
    form = g.rng.randrange(3)
    if form == 0:
        g.emit(f"for _ in range({g.rng.randint(1, 5)}):",
               f"    {s} = St{n}({s}.x + 0.1 * {s}.v, {s}.v - 0.1 * {s}.k * {s}.x, {s}.k)")
    elif form == 1:
        c = g.fresh("c")
        g.emit(f"{c} = 0", f"while abs({s}.x) > 0.05 and {c} < 6:", f"    {c} = {c} + 1",
               f"    {s} = St{n}({s}.x * 0.7, {s}.v + math.sin({s}.x), {s}.k)")
    else:
        g.emit(f"if {g.leaf(S)} > 0.0:", f"    {s} = St{n}({s}.v, {s}.x * 1.5)", "else:",
               f"    {s} = St{n}({s}.x - {s}.v, 0.3)")
    if g.chance(0.25):  # (a field written: stays an object)
        g.emit(f"{s}.v = {s}.v * 0.5 + {g.leaf(S)}")
    if g.chance(0.2):  # (kept in a list: stays an object)
        g.emit(f"{s} = [{s}, {s}][1]")
    g.emit(f"{v} = {s}.energy() + {s}.x * {g.leaf(S)}")
    g.define(v, S)


def s_accumulator(g):
    n, v, acc = g.fresh(""), g.fresh(), g.fresh("acc")
    g.helper(f"Ac{n}", f"class Ac{n}:\n    def __init__(self, scale=1.0):\n        self.total = 0.0\n        self.count = 0\n"
                       f"        self.scale = scale")
    g.helper(f"feed{n}", f"def feed{n}(acc, value):\n    acc.total += acc.scale * value\n    acc.count += 1")
    g.emit(f"{acc} = Ac{n}({g.leaf(S)})", f"for _j in range({g.rng.randint(1, 4)}):")
    if g.chance(0.5):
        g.emit(f"    feed{n}({acc}, {g.expr(S, maxdepth=1)})")
    else:
        g.emit(f"    {acc}.total = {acc}.total * 0.8 + math.sin({g.leaf(S)} + _j)", f"    {acc}.count += 1")
    if g.chance(0.5):
        g.emit(f"    if {acc}.total > 0.2:", f"        {acc}.scale = {acc}.scale * 0.5")
    if g.chance(0.3):  # (a field only one path writes, read on that path only: the object stays)
        g.emit(f"if {g.leaf(S)} > 0.0:", f"    {acc}.peak = {acc}.total * 2.0")
        g.emit(f"    {v} = {acc}.peak + {acc}.total / {acc}.count", "else:", f"    {v} = {acc}.scale")
    else:
        g.emit(f"{acc}.mean = {acc}.total / {acc}.count", f"{v} = {acc}.mean * {acc}.scale + {acc}.total")
    g.define(v, S)


def s_layers(g):
    n, v, h = g.fresh(""), g.fresh(), g.fresh("h")
    g.helper(f"Ly{n}", f"class Ly{n}:\n    def __init__(self, w, b=0.1):\n        self.w = w\n        self.b = b\n\n"
                       f"    def __call__(self, x):\n        return math.tanh(self.w * x + self.b)")
    k = g.rng.randint(1, 3)
    form = g.rng.randrange(3)
    if form == 0:  # (objects)
        items = ", ".join(f"Ly{n}({g.leaf(S)}, {g.rng.choice(['0.1', '-0.2'])})" for _ in range(k))
        head = f"for lay in [{items}]:" if g.chance(0.5) else f"for lay in ({items},):"
        step = f"    {h} = lay({h})"
    elif form == 1:  # (tuples, the trip number read)
        items = ", ".join(f"({g.leaf(S)}, {g.expr(S, maxdepth=1)})" for _ in range(k))
        head = f"for i, (wt, bs) in enumerate([{items}]):"
        step = f"    {h} = math.tanh(wt * {h} + bs) + 0.1 * i"
    else:  # (a near miss: the list changed first, or a break)
        items = ", ".join(f"({g.leaf(S)}, {g.expr(S, maxdepth=1)})" for _ in range(k))
        g.emit(f"pl{n} = [{items}]", f"pl{n}.append((0.5, 0.25))")
        head = f"for wt, bs in pl{n}:"
        step = f"    {h} = math.tanh(wt * {h} + bs)"
    g.emit(f"{h} = {g.expr(S, maxdepth=1)}", head, step)
    if g.chance(0.3):
        g.emit(f"    if {h} > 0.5:", f"        {h} = {h} * 0.5")
    elif g.chance(0.2):
        g.emit(f"    if {h} > 2.0:", "        break")
    g.emit(f"{v} = {h}")
    g.define(v, S)


FAMILIES["values"] = [s_value_ops, s_state_loop, s_accumulator, s_layers, s_assign]  # (after "shapes": the families above keep theirs)
