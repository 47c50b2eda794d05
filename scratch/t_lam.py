def f1(x):
    g = lambda t, c=x: c * t
    return g(2.0)

def f2(x):
    fs = [lambda t, c=x: c * t]
    return fs[0](2.0)

def f3(x):
    fs = []
    fs.append(lambda t, c=x: c * t)
    return fs[0](2.0)

def f4(x):
    k = x * 3.0
    fs = []
    fs.append(lambda t: k * t)
    return fs[0](2.0)

def f5(x, a):
    def inner(t, *, c=x, w=a):
        return c * t + w[0] * c
    return inner(2.0) + inner(1.0, c=3.0)

def f6(x):
    fs = [lambda t, i=i: t * i * x for i in range(3)]
    gs = [lambda t, c=x * i: t * c for i in range(3)]
    return sum(f(x) for f in fs) + gs[2](1.5)
