"""The random family "hierarchy": class hierarchies as simulation and model code writes them --

* a base class whose `step` updates array and number fields of self in place (`self.w -= lr * g`, `self.w[0] =`,
  `self.hist.append`), overridden in subclasses that call `super().step(...)` before or after their own update;
* properties computed from fields (read after the fields change), a property setter writing an array field in
  place (`self._w[:] = v`);
* template methods (the base calls `self.hook(...)`, which a subclass overrides), a mixin in a diamond
  (`super()` follows the MRO), class attributes overridden in a subclass;
* objects kept in a list and updated in a loop, an object handed to a helper that updates it, `copy.copy` of an
  object whose array field is then updated in place (shared with the original).
"""
from __future__ import annotations

from .gen import FAMILIES, S, V, s_assign

_MODEL = '''class Model{n}:
    rate = 0.1

    def __init__(self, w, b):
        self.w = w
        self.b = b
        self.hist = []

    @property
    def energy(self):
        return float(np.sum(self.w * self.w)) + self.b * self.b

    def hook(self, t):
        return t

    def grad(self):
        return self.hook(self.w) * 2.0

    def step(self, s):
        self.w -= self.rate * self.grad() * s
        self.b = self.b * (1.0 - self.rate)
        self.hist.append(self.energy)
        return self


class Damped{n}(Model{n}):
    rate = 0.2

    def __init__(self, w, b, k):
        super().__init__(w, b)
        self.k = k

    def hook(self, t):
        return super().hook(t) + self.k * np.sin(t)

    def step(self, s):
        self.w[0] = self.w[0] * (1.0 - self.k * 0.1)
        return super().step(s)


class Clamped{n}(Damped{n}):
    def step(self, s):
        super().step(s * 0.5)
        self.w *= 0.9
        self.b += self.k * s
        return self'''


def s_model_steps(g):
    v, n, o = g.fresh(), g.fresh(""), g.fresh("o")
    g.helper(f"Model{n}", _MODEL.format(n=n))
    cls = g.rng.choice([f"Model{n}", f"Damped{n}", f"Clamped{n}"])
    args = f"{g.pick(V)} * 1.0, {g.expr(S, maxdepth=1)}" + ("" if cls == f"Model{n}" else f", {g.leaf(S)}")
    g.emit(f"{o} = {cls}({args})")
    form = g.rng.randrange(4)
    s = g.leaf(S)
    if form == 0:
        g.emit(f"for _ in range({g.rng.randint(1, 3)}):", f"    {o}.step({s})")
    elif form == 1:
        g.emit(f"{o}.step({s}).step(0.5)")
    elif form == 2:
        w0 = g.fresh("w0")
        g.emit(f"{w0} = {o}.w", f"{o}.step({s})", f"{v}_0 = float(np.sum({w0}))")
    else:
        g.emit(f"{o}.rate = {g.rng.choice(['0.05', '0.3'])}", f"{o}.step({s})")
    extra = f" + {v}_0" if form == 2 else ""
    g.emit(f"{v} = {o}.energy + sum({o}.hist) * 0.5 + {o}.b{extra}")
    g.define(v, S)


_PROP = '''class Buf{n}:
    def __init__(self, w):
        self._w = w * 1.0

    @property
    def w(self):
        return self._w

    @w.setter
    def w(self, v):
        self._w[:] = v

    @property
    def norm(self):
        return float(np.sqrt(np.sum(self._w ** 2) + 0.1))'''


def s_property_writes(g):
    v, n, o = g.fresh(), g.fresh(""), g.fresh("o")
    g.helper(f"Buf{n}", _PROP.format(n=n))
    g.emit(f"{o} = Buf{n}({g.pick(V)})")
    form = g.rng.randrange(4)
    s = g.expr(S, maxdepth=1)
    if form == 0:
        g.emit(f"{o}.w = {o}.w * {s}")
    elif form == 1:
        h = g.fresh("h")
        g.emit(f"{h} = {o}.w", f"{o}.w = {g.leaf(V)} * {s}", f"{v}_0 = float(np.sum({h} * C3))")
    elif form == 2:
        g.emit(f"{o}.w[1] = {s}", f"{o}.w += {o}.norm * 0.1")
    else:
        g.emit(f"for i in range({g.rng.randint(1, 3)}):", f"    {o}.w = {o}.w / {o}.norm + {s} * i")
    extra = f" + {v}_0" if form == 1 else ""
    g.emit(f"{v} = {o}.norm * {g.leaf(S)} + float(np.sum({o}.w)){extra}")
    g.define(v, S)


_DIAMOND = '''class Base{n}:
    scale = 1.0

    def value(self, t):
        return t * self.scale


class Left{n}(Base{n}):
    def value(self, t):
        return super().value(t) + math.sin(t)


class Right{n}(Base{n}):
    scale = 2.0

    def value(self, t):
        return super().value(t * 0.5) * 1.5


class Both{n}(Left{n}, Right{n}):
    def __init__(self, k):
        self.k = k

    def value(self, t):
        return super().value(t) * self.k'''


def s_diamond(g):
    v, n = g.fresh(), g.fresh("")
    g.helper(f"Base{n}", _DIAMOND.format(n=n))
    cls = g.rng.choice([f"Both{n}({g.expr(S, maxdepth=1)})", f"Left{n}()", f"Right{n}()"])
    o = g.fresh("o")
    g.emit(f"{o} = {cls}", f"{v} = {o}.value({g.expr(S, maxdepth=1)}) + {o}.value({g.leaf(S)}) * {o}.scale")
    g.define(v, S)


_PARTICLE = '''class Particle{n}:
    def __init__(self, x, v):
        self.x = x
        self.v = v

    def push(self, f, dt):
        self.v += f * dt
        self.x += self.v * dt


def kick_{n}(p, f):
    p.v = p.v * 0.9 + f
    return p'''


def s_objects_in_list(g):
    v, n, ps = g.fresh(), g.fresh(""), g.fresh("ps")
    g.helper(f"Particle{n}", _PARTICLE.format(n=n))
    arr = g.chance(0.5)
    if arr:
        g.emit(f"{ps} = [Particle{n}({g.pick(V)} * 1.0, np.zeros(3)), Particle{n}({g.leaf(V)} * {g.leaf(S)}, C3 * 1.0)]")
    else:
        g.emit(f"{ps} = [Particle{n}({g.expr(S, maxdepth=1)}, 0.0), Particle{n}({g.leaf(S)}, 0.5)]")
    s = g.expr(S, maxdepth=1)
    form = g.rng.randrange(4)
    if form == 0:
        g.emit(f"for _ in range({g.rng.randint(1, 3)}):", f"    for p in {ps}:", f"        p.push({s}, 0.1)")
    elif form == 1:
        g.emit(f"for i, p in enumerate({ps}):", f"    kick_{n}(p, {s} * i)", f"    p.push(-p.x, 0.2)")
    elif form == 2:
        g.helper("copy", "import copy")
        q = g.fresh("q")
        g.emit(f"{q} = copy.copy({ps}[0])", f"{q}.push({s}, 0.5)", f"{ps}.append({q})")
    else:
        g.emit(f"{ps}[1] = kick_{n}({ps}[0], {s})", f"{ps}[1].push({g.leaf(S)}, 0.3)")
    if arr:
        g.emit(f"{v} = sum(float(np.sum(p.x * p.x + p.v)) for p in {ps})")
    else:
        g.emit(f"{v} = sum(p.x * p.x + p.v for p in {ps})")
    g.define(v, S)


FAMILIES["hierarchy"] = [s_model_steps, s_property_writes, s_diamond, s_objects_in_list, s_assign]  # (after "flow")
