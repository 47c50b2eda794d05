"""Every repro listed in issue 8 (silently wrong derivatives and crashes in realistic code), as a user writes it."""
import functools
import math
import dataclasses

import numpy as np



# 1 callable objects
class Scale:
    def __init__(self, a):
        self.a = a

    def __call__(self, x):
        return self.a * x


def c1a(a, x):
    return Scale(a).a * x


def c1b(a, x):
    s = Scale(a)
    return s(x)


# 2 tuple read twice
def c2a(h):
    t = (h,)
    a = t[0]
    b = t[0]
    return np.sum(h * 3.0)


def c2b(h):
    t = (h,)
    return np.sum(t[0]) + np.sum(t[0])


def c2c(W, b, x):
    params = [(W, b)]
    out = x
    for Wi, bi in params:
        out = np.tanh(Wi @ out + bi)
    p = params[0]
    return np.sum(out) + np.sum(p[0]) + np.sum(p[0] * p[1][0])


# 3 rows with helpers
def c3a(A):
    t = 0.0
    for i, row in enumerate(A):
        t += row[0] * row[1]
    return t


def c3b(A, B):
    t = 0.0
    for a, b in zip(A, B):
        t += np.sum(a * b)
    return t


def c3c(A):
    t = 0.0
    for r in reversed(A):
        t = t * 0.5 + r[0]
    return t


def c3d(A):
    t = 0.0
    for r in sorted(A, key=lambda r: r[1]):
        t = t * 0.5 + r[0]
    return t


def c3e(A):
    d = dict(enumerate(A))
    return np.sum(d[0] * d[1])


def c3f(A):
    t = 0.0
    for a, b in zip(A, A[::-1]):
        t += np.sum(a * b)
    return t


# 4 container methods
def c4a(x, y):
    xs = [x]
    xs += [y]
    return xs[0] * xs[1]


def c4b(x, y):
    d = {"a": x}
    d.update({"b": y})
    return d["a"] * d["b"]


def c4c(x, y):
    d = {"a": x}
    d |= {"b": y}
    return d["a"] * d["b"]


def c4d(x, y):
    d = {"a": x}
    v = d.setdefault("b", y)
    w = d.setdefault("a", y)
    return v * w * 2.0


def c4e(x, y):
    d = {"a": x, "b": y}
    v = d.pop("a")
    return v * d["b"] + v


def c4f(x, y):
    xs = [x, y, 3.0]
    xs.remove(3.0)
    return xs[0] * xs[1] ** 2


def c4g(a, b):
    ys = [a, b]
    ys.sort()
    return ys[0] + 10 * ys[1]


def c4h(v):
    w = v * 1.0
    w.sort()
    return w[0] + 10 * w[1]


def c4i(x, y):
    xs = [x, y]
    xs.insert(0, y * 2.0)
    xs.extend([x])
    z = xs.pop()
    xs.reverse()
    return xs[0] + 3 * xs[1] + 5 * xs[2] + 7 * z


# 5 properties
class T:
    def __init__(self, k):
        self._k = k

    @property
    def k(self):
        return self._k

    @k.setter
    def k(self, v):
        self._k = v


def c5a(x):
    t = T(x)
    t.k = t.k * 3
    return t.k


class Seq:
    def __init__(self, xs):
        self.xs = xs

    def __getitem__(self, i):
        return self.xs[i]

    def __iter__(self):
        return iter(self.xs)


def c5b(x, y):
    s = Seq([x, y])
    return s[0] * s[1]


def c5c(x, y):
    s = Seq([x, y])
    t = 0.0
    for v in s:
        t = t * 2.0 + v
    return t


# 6 decorators
def scaled(k):
    def deco(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            return k * fn(*args, **kwargs)
        return wrapper
    return deco


@scaled(3.0)
def sq(x):
    return x * x


def c6a(x):
    return sq(x)


def passthrough(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper


@passthrough
def withdef(x, p=2.0):
    return x ** p


def c6b(x):
    return withdef(x) + withdef(x, p=3.0)


# 7 fancy duplicates
def c7a(v):
    w = np.zeros(2)
    w[[0, 0]] = v
    return w[0]


def c7b(v):
    w = np.zeros(2)
    w[[0, 0]] += v
    return w[0]


def c7c(A):
    w = np.zeros(3)
    w[[0, 1, 0]] = A
    return np.sum(w * np.array([1.0, 2.0, 3.0]))


# 8 reductions with out=
def c8a(A):
    C = np.zeros(3)
    np.sum(A, axis=0, out=C)
    return np.sum(C * C)


def c8b(A):
    C = np.zeros(3)
    np.mean(A, axis=0, out=C)
    return np.sum(C * C)


def c8c(A):
    C = np.zeros(3)
    A.sum(axis=0, out=C)
    return np.sum(C * C)


def c8d(A):
    C = np.zeros_like(A)
    np.cumsum(A, axis=0, out=C)
    return np.sum(C * C)


def c8e(A):
    C = np.zeros_like(A)
    np.clip(A, 0.2, 0.8, out=C)
    return np.sum(C * C)


def c8f(A):
    C = np.zeros(3)
    np.max(A, axis=0, out=C)
    return np.sum(C * C)


# 9 numpy corners
def c9a(A):
    return np.sum(np.einsum("ij->ji", A)[1])


def c9b(A):
    return np.sum(np.einsum(A, [0, 1], [1, 0])[1])


def c9c(A, b):
    return np.sum(np.broadcast_to(b, A.shape) * A)


def c9d(A):
    return np.sum(A.flat[[1, 2]])


def c9e(x):
    return np.sum(np.r_[x, x] * np.arange(6.0))


def c9f(x):
    return np.sum(np.c_[x, x] * np.arange(6.0).reshape(3, 2))


def c9g(x, y):
    return np.sum(x, initial=y)


def c9h(x):
    return np.std(x[:1]) + np.sum(x)


# 10 walrus in while
def c10(acc):
    while (acc := acc * 2.0) < 3.0:
        pass
    return acc


# 11 keyword operands
def c11a(xs0, z):
    xs = [xs0, xs0 * 2.0]
    return sum(xs, start=z)


def c11b(x):
    return max([], default=x)


def c11c(A, b):
    return np.sum(np.linalg.solve(a=A, b=b))


def c11d(a, b):
    return np.dot(a=a, b=b)


def c11e(x):
    return np.linalg.norm(x=x)


# 12 numpy scalar methods
def c12a(x):
    s = np.sum(x)
    return s.item() * 2.0


def c12b(x):
    s = np.sum(x)
    return s.squeeze() * 2.0


def c12c(x):
    s = np.sum(x)
    return s.reshape(()) * 2.0


def c12d(x):
    s = np.sum(x)
    return s.tolist() * 2.0


# 14 module-level arrays written
buf = np.zeros(3)


def c14(x):
    buf[:] = x
    return np.sum(buf ** 2)


# crashes
def cr1(a):
    y = a
    tol = 1e-10
    while abs(y * y - a) > tol:
        y = 0.5 * (y + a / y)
    return y


def cr2(y):
    it = 0
    while y < 10.0 and it < 100:
        y = y * 1.5
        it += 1
    return y


def cr2b(y):
    it = 0
    while y < 10.0 or it < 2:
        y = y * 1.5 + 0.1
        it += 1
    return y


class Base:
    def __init__(self, k):
        self.k = k


class Derived(Base):
    def __init__(self, k):
        super().__init__(k)
        self.j = k * 2.0


class Derived2(Base):
    def __init__(self, k):
        super(Derived2, self).__init__(k)


def cr3(x):
    return Derived(x).k * Derived(x).j


def cr3b(x):
    return Derived2(x).k * x


class V:
    def __init__(self, v):
        self.v = v

    def __mul__(self, o):
        return V(self.v * (o.v if isinstance(o, V) else o))

    def __rmul__(self, o):
        return V(self.v * o)

    def __add__(self, o):
        return V(self.v + o.v)

    def __neg__(self):
        return V(-self.v)

    def __matmul__(self, o):
        return V(self.v @ o.v)

    def __abs__(self):
        return V(abs(self.v))

    def __iadd__(self, o):
        self.v = self.v + o.v
        return self

    def __setitem__(self, i, val):
        self.v = self.v * 0.0 + val


def cr4a(x, y):
    a, b = V(x), V(y)
    c = a * b + (-a) + abs(b) * 2.0
    c += a
    return c.v


def cr4b(x):
    a = V(x)
    b = V(np.ones(3))
    return np.sum((a @ b).v)


def cr4c(x, y):
    a = V(x)
    a[0] = y
    return a.v * x


@dataclasses.dataclass
class DC:
    a: float
    xs: list = dataclasses.field(default_factory=list)


def cr5(x):
    d = DC(x)
    d.xs.append(x * 2.0)
    return d.a * d.xs[0]


def cr6(x):
    fs = [lambda t: t * k for k in range(3)]
    return fs[2](x) + fs[1](x)


def cr7(x):
    mk = lambda a: lambda t: a * t
    return mk(x)(x)


def cr8(x, y):
    xs = [x, y, x]
    xs[0:2] = [y]
    return xs[0] * xs[1]


def cr9(x):
    d = {}
    d.update(a=x)
    return d["a"] * 2.0


def cr10(v):
    return np.sum(a=v)


def cr11(v):
    return np.sum(np.stack(arrays=[v, v]))


def cr12(A):
    r = max(A, key=lambda r: r[0])
    return np.sum(r)


def cr13(x):
    return sum(map(lambda t: t * x, [1.0, 2.0]))


def cr14(x, y):
    xs = [x, y, 3.0]
    del xs[1]
    return xs[0] * xs[1]


def rp1(a, n):
    for i, e in enumerate(a):
        w = a[1:]
        w[n % 2] *= 0.5 + 0.4 * np.tanh(w[0] / (2 + np.tanh(e)))
    return np.sum(a)


W0 = np.array([.2, -.4, .6])


def rp2(x):
    return np.mean(x * W0)


def rp2b(x):
    return np.sum(W0 + x)


def rp3(m):
    return math.tanh(np.sum(np.sqrt(np.abs(m) + 1.0) * np.sqrt(np.abs(m) + 1.0)))


def rp4(x):
    d = dict(r=x * 2.0)
    return d["r"] * x


def rp5(A, b):
    return np.sum(np.dot(A, b) + A @ b)



def c9d2(A, v):
    B = A * 1.0
    B.flat[[0, 3]] = v
    return np.sum(B * B) + np.sum(A.T.flat[[1, 4]] * np.array([2.0, 3.0]))


CASES = [
    ("1a callable field", c1a, (2.0, 3.0)),
    ("1b callable call", c1b, (2.0, 3.0)),
    ("2a tuple read twice", c2a, (np.array([1.0, 2.0]),)),
    ("2b tuple read twice sum", c2b, (np.array([1.0, 2.0]),)),
    ("2c params list", c2c, (np.eye(2) * 0.5, np.array([0.1, 0.2]), np.array([0.3, -0.4]))),
    ("3a enumerate rows", c3a, (np.arange(6.0).reshape(3, 2),)),
    ("3b zip rows", c3b, (np.arange(6.0).reshape(3, 2), np.ones((3, 2)))),
    ("3c reversed rows", c3c, (np.arange(6.0).reshape(3, 2),)),
    ("3d sorted rows", c3d, (np.array([[1.0, 3.0], [2.0, 1.0], [0.5, 2.0]]),)),
    ("3e dict enumerate", c3e, (np.arange(6.0).reshape(3, 2),)),
    ("3f zip A A[::-1]", c3f, (np.arange(6.0).reshape(3, 2),)),
    ("4a list +=", c4a, (2.0, 3.0)),
    ("4b dict update", c4b, (2.0, 3.0)),
    ("4c dict |=", c4c, (2.0, 3.0)),
    ("4d setdefault", c4d, (2.0, 3.0)),
    ("4e dict pop", c4e, (2.0, 3.0)),
    ("4f list remove", c4f, (2.0, 4.0)),
    ("4g list sort", c4g, (2.0, 1.0)),
    ("4h ndarray sort", c4h, (np.array([2.0, 1.0]),)),
    ("4i list insert/extend/pop/reverse", c4i, (2.0, 3.0)),
    ("5a property setter", c5a, (2.0,)),
    ("5b __getitem__", c5b, (2.0, 3.0)),
    ("5c __iter__", c5c, (2.0, 3.0)),
    ("6a wraps decorator", c6a, (0.5,)),
    ("6b wraps defaults", c6b, (0.5,)),
    ("7a fancy dup set", c7a, (np.array([1.0, 2.0]),)),
    ("7b fancy dup iadd", c7b, (np.array([1.0, 2.0]),)),
    ("7c fancy dup set 3", c7c, (np.array([1.0, 2.0, 3.0]),)),
    ("8a sum out", c8a, (np.arange(6.0).reshape(2, 3),)),
    ("8b mean out", c8b, (np.arange(6.0).reshape(2, 3),)),
    ("8c .sum out", c8c, (np.arange(6.0).reshape(2, 3),)),
    ("8d cumsum out", c8d, (np.arange(6.0).reshape(2, 3) / 7,)),
    ("8e clip out", c8e, (np.arange(6.0).reshape(2, 3) / 7 + 0.01,)),
    ("8f max out", c8f, (np.array([[1.0, 5.0, 2.0], [3.0, 4.0, 6.0]]),)),
    ("9a einsum transpose", c9a, (np.arange(6.0).reshape(2, 3),)),
    ("9b einsum interleaved", c9b, (np.arange(6.0).reshape(2, 3),)),
    ("9c broadcast_to", c9c, (np.arange(6.0).reshape(2, 3), np.array([1.0, 2.0, 3.0]))),
    ("9d flat fancy", c9d, (np.arange(6.0).reshape(2, 3),)),
    ("9d2 flat writes, transposed", c9d2, (np.arange(6.0).reshape(2, 3) / 7, np.array([0.3, 0.4]))),
    ("9e r_", c9e, (np.array([1.0, 2.0, 3.0]),)),
    ("9f c_", c9f, (np.array([1.0, 2.0, 3.0]),)),
    ("9g sum initial", c9g, (np.array([1.0, 2.0, 3.0]), 0.5)),
    ("9h std one", c9h, (np.array([1.0, 2.0, 3.0]),)),
    ("10 walrus while", c10, (1.0,)),
    ("11a sum start", c11a, (2.0, 3.0)),
    ("11b max default", c11b, (2.0,)),
    ("11c solve kw", c11c, (np.array([[2.0, 1.0], [0.5, 3.0]]), np.array([1.0, 2.0]))),
    ("11d dot kw", c11d, (np.array([1.0, 2.0]), np.array([3.0, 4.0]))),
    ("11e norm kw", c11e, (np.array([1.0, 2.0]),)),
    ("12a item", c12a, (np.array([1.0, 2.0]),)),
    ("12b squeeze", c12b, (np.array([1.0, 2.0]),)),
    ("12c reshape", c12c, (np.array([1.0, 2.0]),)),
    ("12d tolist", c12d, (np.array([1.0, 2.0]),)),
    ("14 module buf", c14, (np.array([1.0, 2.0, 3.0]),)),
    ("cr1 newton while", cr1, (2.0,)),
    ("cr2 while and", cr2, (1.0,)),
    ("cr2b while or", cr2b, (1.0,)),
    ("cr3 super", cr3, (2.0,)),
    ("cr3b super(C,self)", cr3b, (2.0,)),
    ("cr4a special methods", cr4a, (2.0, 3.0)),
    ("cr4b matmul", cr4b, (np.array([1.0, 2.0, 3.0]),)),
    ("cr4c setitem", cr4c, (2.0, 3.0)),
    ("cr5 default_factory", cr5, (2.0,)),
    ("cr6 lambdas in comprehension", cr6, (2.0,)),
    ("cr7 lambda returns lambda", cr7, (2.0,)),
    ("cr8 slice assign len", cr8, (2.0, 3.0)),
    ("cr9 update kw", cr9, (2.0,)),
    ("cr10 np.sum(a=)", cr10, (np.array([1.0, 2.0]),)),
    ("cr11 stack(arrays=)", cr11, (np.array([1.0, 2.0]),)),
    ("cr12 max key 2d", cr12, (np.array([[1.0, 2.0], [3.0, 0.5]]),)),
    ("cr13 sum map lambda", cr13, (2.0,)),
    ("cr14 del xs[i]", cr14, (2.0, 3.0)),
    ("rp1 enumerate mutate", lambda a: rp1(a, 1), (np.array([0.3, 0.5, 0.7, 0.9]),)),
    ("rp2 module W0 mean", rp2, (-0.5,)),
    ("rp2b module W0 add", rp2b, (-0.5,)),
    ("rp3 repeated subexpr", rp3, (np.array([0.3, -0.5]),)),
    ("rp4 dict kw", rp4, (2.0,)),
    ("rp5 dot broadcast", rp5, (np.arange(6.0).reshape(2, 3), np.array([1.0, 2.0, 3.0]))),
]



def c3g(A):
    t = 0.0
    for i, row in enumerate(A):
        t += row[0] * row[1] + np.sum(A[i] * 0.5)
    return t


CASES += [
    ("3g fortran rows", c3g, (np.asfortranarray(np.arange(6.0).reshape(3, 2)),)),
    ("3h transposed rows", c3g, (np.arange(6.0).reshape(2, 3).T,)),
]




def cr14b(x, y):
    d = {"a": x, "b": y, "c": 1.0}
    del d["a"]
    d["a"] = y
    return sum(d.values()) * x


def cr14c(x, y):
    xs = [x, y, x * y, 2.0]
    del xs[1:3]
    del xs[-1]
    return xs[0] * y


CASES += [("cr14b del dict", cr14b, (2.0, 3.0)), ("cr14c del slice", cr14c, (2.0, 3.0))]

