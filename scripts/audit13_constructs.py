"""Functions of many Python constructs for scripts/audit_issue13.py: each is differentiated by every entry point,
and must agree with central differences or be refused with a MooncakeError (never another exception)."""
import math
import functools
import numpy as np


def for_else(x):
    s = 0.0
    for i in range(4):
        s = s + x * i
        if s > 100.0:
            break
    else:
        s = s * 2.0
    return s


def try_finally_return(x):
    try:
        y = x * 2.0
        return y * y
    finally:
        z = 1


def nested_break_continue(x):
    s = 0.0
    for i in range(5):
        for j in range(5):
            if j == i:
                continue
            if j > 3:
                break
            s = s + math.sin(x * i * j)
    return s


def chained(x):
    if 0.0 < x < 10.0 <= 11.0:
        return x * x
    return -x


def star_unpack(x):
    a, *rest = [x, 2.0 * x, 3.0 * x]
    return a * sum(rest)


def aug_attr_sub(x):
    class_free = {"v": [x, x]}
    class_free["v"][1] *= x
    return class_free["v"][0] + class_free["v"][1]


def nonlocal_counter(x):
    acc = 0.0

    def add(v):
        nonlocal acc
        acc = acc + v
    add(x)
    add(x * x)
    return acc


def fstring_and_len(x):
    s = f"{x:.3f}"
    return x * len(s)


def walrus_comp(x):
    ys = [y for k in range(3) if (y := x * k) > 0.0]
    return sum(ys)


def with_stmt(x):
    import contextlib
    with contextlib.nullcontext(x) as v:
        y = v * 3.0
    return y


def match_guard(x):
    match (x, 2):
        case (v, 2) if v > 0:
            return v * v
        case _:
            return x


def dict_comp(x):
    d = {k: x ** k for k in range(1, 4)}
    return sum(d.values())


def set_ops(x):
    s = {1, 2, 3}
    return x * len(s | {4})


def ternary_nested(x):
    return x * x if x > 0 else (-x if x > -1 else x ** 3)


def while_complex(x):
    i = 0
    y = x
    while i < 10 and y < 50.0 or i == 0:
        y = y * 1.5
        i += 1
    return y


def recursive_closure(x):
    def go(v, n):
        return v if n == 0 else go(v * x, n - 1)
    return go(1.0, 3)


def partial_use(x):
    p = functools.partial(pow, x)
    return p(3)


def map_filter(x):
    return sum(map(lambda v: v * x, filter(lambda k: k % 2 == 0, range(6))))


def sorted_key(x):
    vals = sorted([x, 2.0 * x, -x], key=abs)
    return vals[0] * vals[-1]


def zip_enumerate(x):
    s = 0.0
    for i, (a, b) in enumerate(zip([x, x * 2], [1.0, 2.0])):
        s = s + a * b * i
    return s


def minmax(x):
    return max(x, 2.0 * x, 0.5) + min(x * x, 3.0)


def np_where_mask(x):
    a = np.array([x, -x, 2 * x])
    a[a < 0] = 0.0
    return np.sum(np.where(a > 1.0, a ** 2, a))


def np_inplace_slices(x):
    a = np.zeros(4)
    a[1:3] = x
    a[::2] += x * 2.0
    return np.sum(a * a)


def np_reshape_stack(x):
    a = np.stack([np.full(2, x), np.arange(2.0)])
    return float(np.sum(a.T.reshape(-1) ** 2))


def exception_flow(x):
    try:
        if x > 0.5:
            raise ValueError("x")
        y = x
    except ValueError:
        y = x * 10.0
    return y * y


def global_read(x):
    return x * CONST


CONST = 3.0


def lambda_default(x):
    g = lambda v, s=x: v * s
    return g(2.0)


def kwargs_call(x):
    def inner(a, *, b=1.0, **kw):
        return a * b + kw.get("c", 0.0)
    return inner(x, b=x, c=x * x)


def star_args_call(x):
    def inner(*vals):
        return sum(vals)
    args = (x, x * 2.0)
    return inner(*args, x)


def gen_expr_any(x):
    return x * 2.0 if any(v > 1.0 for v in [x, 0.5]) else x


def string_fmt_key(x):
    d = {"a1": x, "a2": 2.0 * x}
    return d["a" + str(1)] * d[f"a{2}"]


def tuple_swap(x):
    a, b = x, 2.0 * x
    for _ in range(3):
        a, b = b, a * b
    return a


def int_float_mix(x):
    n = int(x * 3)
    return x * n + float(n)


def divmod_use(x):
    q, r = divmod(x, 0.7)
    return q + r * x


def round_abs(x):
    return abs(x) * round(2.567, 1)


def complex_mix(x):
    z = complex(x, 2.0 * x)
    return abs(z * z)


def class_local_use(x):
    p = Point(x, 2.0)
    p.x = p.x * p.y
    return p.norm2()


class Point:
    def __init__(self, x, y):
        self.x = x
        self.y = y

    def norm2(self):
        return self.x ** 2 + self.y ** 2


def property_use(x):
    return Box(x).area


class Box:
    def __init__(self, s):
        self.s = s

    @property
    def area(self):
        return self.s * self.s


def dunder_ops(x):
    return (V(x) + V(2.0 * x)).v


class V:
    def __init__(self, v):
        self.v = v

    def __add__(self, o):
        return V(self.v * o.v)




def rot_while(x):
    a, b = x, 2.0 * x
    i = 0
    while i < 3:
        a, b = b, a * b
        i += 1
    return a


def rot_continue(x):
    a, b = x, 2.0 * x
    for i in range(4):
        if i == 1:
            a, b = b, a
            continue
        a, b = b, a * b * 0.5
    return a + b


def rot_nested(x):
    a, b = x, 2.0 * x
    for i in range(2):
        for j in range(2):
            a, b = b, a + b * x
        a, b = b, a
    return a * b


def rot_break(x):
    a, b = x, 2.0 * x
    for i in range(5):
        if a > 3.0:
            break
        a, b = b, a + b
    return a * b


def rot_list(x):
    a, b = [x, 1.0], [2.0 * x, 3.0]
    for _ in range(2):
        a, b = b, [a[0] * b[0], a[1] + b[1]]
    return a[0] + a[1] * b[0]


def rot_dict(x):
    a, b = {"v": x}, {"v": 2.0 * x}
    for _ in range(2):
        a, b = b, {"v": a["v"] * b["v"]}
    return a["v"]




CASES = [n for n, f in list(globals().items()) if callable(f) and getattr(f, "__module__", None) == __name__
         and not isinstance(f, type)]
