"""Global-optimization test functions from SciPy's benchmark suite (BSD-3-Clause).

Classes are copied from scipy/scipy benchmarks/benchmarks/go_benchmark_functions/
(docstrings dropped; `Benchmark` trimmed to what `fun` uses).  Each is exercised via a
module-level wrapper `name(x) -> Class(...).fun(x)`.
"""
import numpy as np
from numpy import (abs, arange, arctan2, asarray, atleast_2d, cos, exp, log, pi,
                   prod, repeat, roll, sin, sqrt, sum, tan, tril)

from tests.external import Case

_SRC = "scipy/scipy, benchmarks/benchmarks/go_benchmark_functions"


# Origin: scipy/scipy, benchmarks/benchmarks/go_benchmark_functions/go_benchmark.py
# (BSD-3-Clause); trimmed to __init__ and the N property.
class Benchmark(object):
    def __init__(self, dimensions):
        self._dimensions = dimensions
        self.nfev = 0
        self.fglob = np.nan
        self.global_optimum = None
        self.change_dimensionality = False
        self.custom_bounds = None

    @property
    def N(self):
        return self._dimensions


# Origin: scipy/scipy, .../go_funcs_A.py, class Ackley01 (BSD-3-Clause)
class Ackley01(Benchmark):
    def __init__(self, dimensions=2):
        Benchmark.__init__(self, dimensions)
        self._bounds = list(zip([-35.0] * self.N, [35.0] * self.N))
        self.global_optimum = [[0 for _ in range(self.N)]]
        self.fglob = 0.0
        self.change_dimensionality = True

    def fun(self, x, *args):
        self.nfev += 1
        u = sum(x ** 2)
        v = sum(cos(2 * pi * x))
        return -20.0 * exp(-0.2 * sqrt(u / self.N)) - exp(v / self.N) + 20.0 + exp(1.0)


# Origin: scipy/scipy, .../go_funcs_A.py, class Ackley03 (BSD-3-Clause)
class Ackley03(Benchmark):
    def __init__(self, dimensions=2):
        Benchmark.__init__(self, dimensions)
        self._bounds = list(zip([-32.0] * self.N, [32.0] * self.N))
        self.global_optimum = [[-0.68255758, -0.36070859]]
        self.fglob = -195.62902825923879

    def fun(self, x, *args):
        self.nfev += 1
        a = -200 * exp(-0.02 * sqrt(x[0] ** 2 + x[1] ** 2))
        a += 5 * exp(cos(3 * x[0]) + sin(3 * x[1]))
        return a


# Origin: scipy/scipy, .../go_funcs_A.py, class Adjiman (BSD-3-Clause)
class Adjiman(Benchmark):
    def __init__(self, dimensions=2):
        Benchmark.__init__(self, dimensions)
        self._bounds = ([-1.0, 2.0], [-1.0, 1.0])
        self.global_optimum = [[2.0, 0.10578]]
        self.fglob = -2.02180678

    def fun(self, x, *args):
        self.nfev += 1
        return cos(x[0]) * sin(x[1]) - x[0] / (x[1] ** 2 + 1)


# Origin: scipy/scipy, .../go_funcs_A.py, class AMGM (BSD-3-Clause)
class AMGM(Benchmark):
    def __init__(self, dimensions=2):
        Benchmark.__init__(self, dimensions)
        self._bounds = list(zip([0.0] * self.N, [10.0] * self.N))
        self.global_optimum = [[1, 1]]
        self.fglob = 0.0
        self.change_dimensionality = True

    def fun(self, x, *args):
        self.nfev += 1

        f1 = sum(x)
        f2 = prod(x)
        f1 = f1 / self.N
        f2 = f2 ** (1.0 / self.N)
        f = (f1 - f2) ** 2

        return f


# Origin: scipy/scipy, .../go_funcs_B.py, class Beale (BSD-3-Clause)
class Beale(Benchmark):
    def __init__(self, dimensions=2):
        Benchmark.__init__(self, dimensions)
        self._bounds = list(zip([-4.5] * self.N, [4.5] * self.N))
        self.global_optimum = [[3.0, 0.5]]
        self.fglob = 0.0

    def fun(self, x, *args):
        self.nfev += 1

        return (
            (1.5 - x[0] + x[0] * x[1]) ** 2
            + (2.25 - x[0] + x[0] * x[1] ** 2) ** 2
            + (2.625 - x[0] + x[0] * x[1] ** 3) ** 2
        )


# Origin: scipy/scipy, .../go_funcs_B.py, class BiggsExp04 (BSD-3-Clause)
class BiggsExp04(Benchmark):
    def __init__(self, dimensions=4):
        Benchmark.__init__(self, dimensions)
        self._bounds = list(zip([0.0] * 4, [20.0] * 4))
        self.global_optimum = [[1.0, 10.0, 1.0, 5.0]]
        self.fglob = 0

    def fun(self, x, *args):
        self.nfev += 1

        t = arange(1, 11.0) * 0.1
        y = exp(-t) - 5 * exp(-10 * t)
        vec = (x[2] * exp(-t * x[0]) - x[3] * exp(-t * x[1]) - y) ** 2

        return sum(vec)


# Origin: scipy/scipy, .../go_funcs_B.py, class Bird (BSD-3-Clause)
class Bird(Benchmark):
    def __init__(self, dimensions=2):
        Benchmark.__init__(self, dimensions)
        self._bounds = list(zip([-2.0 * pi] * self.N, [2.0 * pi] * self.N))
        self.fglob = -106.7645367198034

    def fun(self, x, *args):
        self.nfev += 1

        return (
            sin(x[0]) * exp((1 - cos(x[1])) ** 2)
            + cos(x[1]) * exp((1 - sin(x[0])) ** 2)
            + (x[0] - x[1]) ** 2
        )


# Origin: scipy/scipy, .../go_funcs_B.py, class BoxBetts (BSD-3-Clause)
class BoxBetts(Benchmark):
    def __init__(self, dimensions=3):
        Benchmark.__init__(self, dimensions)
        self._bounds = ([0.9, 1.2], [9.0, 11.2], [0.9, 1.2])
        self.global_optimum = [[1.0, 10.0, 1.0]]
        self.fglob = 0.0

    def fun(self, x, *args):
        self.nfev += 1

        i = arange(1, 11)
        g = (
            exp(-0.1 * i * x[0])
            - exp(-0.1 * i * x[1])
            - (exp(-0.1 * i) - exp(-i)) * x[2]
        )
        return sum(g ** 2)


# Origin: scipy/scipy, .../go_funcs_B.py, class Branin01 (BSD-3-Clause)
class Branin01(Benchmark):
    def __init__(self, dimensions=2):
        Benchmark.__init__(self, dimensions)
        self._bounds = [(-5.0, 10.0), (0.0, 15.0)]
        self.global_optimum = [[-pi, 12.275], [pi, 2.275], [3 * pi, 2.475]]
        self.fglob = 0.39788735772973816

    def fun(self, x, *args):
        self.nfev += 1

        return (
            (x[1] - (5.1 / (4 * pi ** 2)) * x[0] ** 2 + 5 * x[0] / pi - 6) ** 2
            + 10 * (1 - 1 / (8 * pi)) * cos(x[0])
            + 10
        )


# Origin: scipy/scipy, .../go_funcs_G.py, class GoldsteinPrice (BSD-3-Clause)
class GoldsteinPrice(Benchmark):
    def __init__(self, dimensions=2):
        Benchmark.__init__(self, dimensions)
        self._bounds = zip([-2.0] * self.N, [2.0] * self.N)
        self.global_optimum = [[0., -1.]]
        self.fglob = 3.0

    def fun(self, x, *args):
        self.nfev += 1

        a = (1 + (x[0] + x[1] + 1) ** 2
             * (19 - 14 * x[0] + 3 * x[0] ** 2
             - 14 * x[1] + 6 * x[0] * x[1] + 3 * x[1] ** 2))
        b = (30 + (2 * x[0] - 3 * x[1]) ** 2
             * (18 - 32 * x[0] + 12 * x[0] ** 2
             + 48 * x[1] - 36 * x[0] * x[1] + 27 * x[1] ** 2))
        return a * b


# Origin: scipy/scipy, .../go_funcs_G.py, class Griewank (BSD-3-Clause)
class Griewank(Benchmark):
    def __init__(self, dimensions=2):
        Benchmark.__init__(self, dimensions)
        self._bounds = zip([-100.0] * self.N, [100.0] * self.N)
        self.custom_bounds = [(-50, 50), (-50, 50)]
        self.global_optimum = [[0 for _ in range(self.N)]]
        self.fglob = 0.0
        self.change_dimensionality = True

    def fun(self, x, *args):
        self.nfev += 1

        i = arange(1., np.size(x) + 1.)
        return sum(x ** 2 / 4000) - prod(cos(x / sqrt(i))) + 1


# Origin: scipy/scipy, .../go_funcs_H.py, class Hansen (BSD-3-Clause)
class Hansen(Benchmark):
    def __init__(self, dimensions=2):
        Benchmark.__init__(self, dimensions)
        self._bounds = zip([-10.0] * self.N, [10.0] * self.N)
        self.global_optimum = [[-7.58989583, -7.70831466]]
        self.fglob = -176.54179

    def fun(self, x, *args):
        self.nfev += 1

        i = arange(5.)
        a = (i + 1) * cos(i * x[0] + i + 1)
        b = (i + 1) * cos((i + 2) * x[1] + i + 1)

        return sum(a) * sum(b)


# Origin: scipy/scipy, .../go_funcs_H.py, class Hartmann3 (BSD-3-Clause)
class Hartmann3(Benchmark):
    def __init__(self, dimensions=3):
        Benchmark.__init__(self, dimensions)
        self._bounds = zip([0.0] * self.N, [1.0] * self.N)
        self.global_optimum = [[0.11461292, 0.55564907, 0.85254697]]
        self.fglob = -3.8627821478

        self.a = asarray([[3.0, 10., 30.],
                          [0.1, 10., 35.],
                          [3.0, 10., 30.],
                          [0.1, 10., 35.]])

        self.p = asarray([[0.3689, 0.1170, 0.2673],
                          [0.4699, 0.4387, 0.7470],
                          [0.1091, 0.8732, 0.5547],
                          [0.03815, 0.5743, 0.8828]])

        self.c = asarray([1., 1.2, 3., 3.2])

    def fun(self, x, *args):
        self.nfev += 1

        XX = np.atleast_2d(x)
        d = sum(self.a * (XX - self.p) ** 2, axis=1)
        return -sum(self.c * exp(-d))


# Origin: scipy/scipy, .../go_funcs_H.py, class HelicalValley (BSD-3-Clause)
class HelicalValley(Benchmark):
    def __init__(self, dimensions=3):
        Benchmark.__init__(self, dimensions)
        self._bounds = zip([-10.] * self.N, [10.] * self.N)
        self.global_optimum = [[1.0, 0.0, 0.0]]
        self.fglob = 0.0

    def fun(self, x, *args):
        self.nfev += 1

        r = sqrt(x[0] ** 2 + x[1] ** 2)
        theta = 1 / (2. * pi) * arctan2(x[1], x[0])

        return x[2] ** 2 + 100 * ((x[2] - 10 * theta) ** 2 + (r - 1) ** 2)


# Origin: scipy/scipy, .../go_funcs_H.py, class HimmelBlau (BSD-3-Clause)
class HimmelBlau(Benchmark):
    def __init__(self, dimensions=2):
        Benchmark.__init__(self, dimensions)
        self._bounds = zip([-5.] * self.N, [5.] * self.N)
        self.global_optimum = [[3.0, 2.0]]
        self.fglob = 0.0

    def fun(self, x, *args):
        self.nfev += 1

        return (x[0] ** 2 + x[1] - 11) ** 2 + (x[0] + x[1] ** 2 - 7) ** 2


# Origin: scipy/scipy, .../go_funcs_L.py, class Langermann (BSD-3-Clause)
class Langermann(Benchmark):
    def __init__(self, dimensions=2):
        Benchmark.__init__(self, dimensions)
        self._bounds = list(zip([0.0] * self.N, [10.0] * self.N))
        self.global_optimum = [[2.00299219, 1.006096]]
        self.fglob = -5.1621259

    def fun(self, x, *args):
        self.nfev += 1

        a = [3, 5, 2, 1, 7]
        b = [5, 2, 1, 4, 9]
        c = [1, 2, 5, 2, 3]

        return (-sum(c * exp(-(1 / pi) * ((x[0] - a) ** 2 +
                    (x[1] - b) ** 2)) * cos(pi * ((x[0] - a) ** 2
                                            + (x[1] - b) ** 2))))


# Origin: scipy/scipy, .../go_funcs_L.py, class LennardJones (BSD-3-Clause)
class LennardJones(Benchmark):
    def __init__(self, dimensions=6):
        Benchmark.__init__(self, dimensions)
        self._bounds = list(zip([-4.0] * self.N, [4.0] * self.N))
        self.global_optimum = [[]]
        minima = [
            -1.0, -3.0, -6.0, -9.103852, -12.712062, -
            16.505384, -19.821489, -24.113360, -28.422532,
            -32.765970, -37.967600, -44.326801, -
            47.845157, -52.322627, -56.815742, -61.317995,
            -66.530949, -72.659782, -77.1777043]
        k = int(dimensions / 3)
        self.fglob = minima[k - 2]
        self.change_dimensionality = True

    def fun(self, x, *args):
        self.nfev += 1

        k = int(self.N / 3)
        s = 0.0

        for i in range(k - 1):
            for j in range(i + 1, k):
                a = 3 * i
                b = 3 * j
                xd = x[a] - x[b]
                yd = x[a + 1] - x[b + 1]
                zd = x[a + 2] - x[b + 2]
                ed = xd * xd + yd * yd + zd * zd
                ud = ed * ed * ed
                if ed > 0.0:
                    s += (1.0 / ud - 2.0) / ud

        return s


# Origin: scipy/scipy, .../go_funcs_L.py, class Levy03 (BSD-3-Clause)
class Levy03(Benchmark):
    def __init__(self, dimensions=2):
        Benchmark.__init__(self, dimensions)
        self._bounds = list(zip([-10.0] * self.N, [10.0] * self.N))
        self.custom_bounds = [(-5, 5), (-5, 5)]
        self.global_optimum = [[1 for _ in range(self.N)]]
        self.fglob = 0.0

    def fun(self, x, *args):
        self.nfev += 1

        y = 1 + (x - 1) / 4
        v = sum((y[:-1] - 1) ** 2 * (1 + 10 * sin(pi * y[1:]) ** 2))
        z = (y[-1] - 1) ** 2
        return sin(pi * y[0]) ** 2 + v + z


# Origin: scipy/scipy, .../go_funcs_M.py, class Michalewicz (BSD-3-Clause)
class Michalewicz(Benchmark):
    def __init__(self, dimensions=2):
        Benchmark.__init__(self, dimensions)
        self._bounds = list(zip([0.0] * self.N, [pi] * self.N))
        self.global_optimum = [[2.20290555, 1.570796]]
        self.fglob = -1.8013

    def fun(self, x, *args):
        self.nfev += 1

        m = 10.0
        i = arange(1, self.N + 1)
        return -sum(sin(x) * sin(i * x ** 2 / pi) ** (2 * m))


# Origin: scipy/scipy, .../go_funcs_M.py, class MieleCantrell (BSD-3-Clause)
class MieleCantrell(Benchmark):
    def __init__(self, dimensions=4):
        Benchmark.__init__(self, dimensions)
        self._bounds = list(zip([-1.0] * self.N, [1.0] * self.N))
        self.global_optimum = [[0.0, 1.0, 1.0, 1.0]]
        self.fglob = 0.0

    def fun(self, x, *args):
        self.nfev += 1

        return ((exp(-x[0]) - x[1]) ** 4 + 100 * (x[1] - x[2]) ** 6
                + tan(x[2] - x[3]) ** 4 + x[0] ** 8)


# Origin: scipy/scipy, .../go_funcs_M.py, class Mishra01 (BSD-3-Clause)
class Mishra01(Benchmark):
    def __init__(self, dimensions=2):
        Benchmark.__init__(self, dimensions)
        self._bounds = list(zip([0.0] * self.N, [1.0 + 1e-9] * self.N))
        self.global_optimum = [[1.0 for _ in range(self.N)]]
        self.fglob = 2.0
        self.change_dimensionality = True

    def fun(self, x, *args):
        self.nfev += 1

        xn = self.N - sum(x[0:-1])
        return (1 + xn) ** xn


# Origin: scipy/scipy, .../go_funcs_R.py, class Rastrigin (BSD-3-Clause)
class Rastrigin(Benchmark):
    def __init__(self, dimensions=2):
        Benchmark.__init__(self, dimensions)
        self._bounds = list(zip([-5.12] * self.N, [5.12] * self.N))
        self.global_optimum = [[0 for _ in range(self.N)]]
        self.fglob = 0.0
        self.change_dimensionality = True

    def fun(self, x, *args):
        self.nfev += 1

        return 10.0 * self.N + sum(x ** 2.0 - 10.0 * cos(2.0 * pi * x))


# Origin: scipy/scipy, .../go_funcs_R.py, class Ratkowsky02 (BSD-3-Clause)
class Ratkowsky02(Benchmark):
    def __init__(self, dimensions=3):
        Benchmark.__init__(self, dimensions)
        self._bounds = list(zip([10, 0.5, 0.01], [200, 5., 0.5]))
        self.global_optimum = [[7.2462237576e1, 2.6180768402, 6.7359200066e-2]]
        self.fglob = 8.0565229338
        self.a = asarray([8.93, 10.8, 18.59, 22.33, 39.35, 56.11, 61.73, 64.62,
                          67.08])
        self.b = asarray([9., 14., 21., 28., 42., 57., 63., 70., 79.])

    def fun(self, x, *args):
        self.nfev += 1

        vec = x[0] / (1 + exp(x[1] - x[2] * self.b))
        return sum((self.a - vec) ** 2)


# Origin: scipy/scipy, .../go_funcs_S.py, class Sargan (BSD-3-Clause)
class Sargan(Benchmark):
    def __init__(self, dimensions=2):
        Benchmark.__init__(self, dimensions)
        self._bounds = list(zip([-100.0] * self.N, [100.0] * self.N))
        self.custom_bounds = [(-5, 5), (-5, 5)]
        self.global_optimum = [[0.0 for _ in range(self.N)]]
        self.fglob = 0.0
        self.change_dimensionality = True

    def fun(self, x, *args):
        self.nfev += 1

        x0 = x[:-1]
        x1 = roll(x, -1)[:-1]

        return sum(self.N * (x ** 2 + 0.4 * sum(x0 * x1)))


# Origin: scipy/scipy, .../go_funcs_S.py, class Schwefel02 (BSD-3-Clause)
class Schwefel02(Benchmark):
    def __init__(self, dimensions=2):
        Benchmark.__init__(self, dimensions)
        self._bounds = list(zip([-100.0] * self.N, [100.0] * self.N))
        self.custom_bounds = ([-4.0, 4.0], [-4.0, 4.0])
        self.global_optimum = [[0.0 for _ in range(self.N)]]
        self.fglob = 0.0
        self.change_dimensionality = True

    def fun(self, x, *args):
        self.nfev += 1

        mat = repeat(atleast_2d(x), self.N, axis=0)
        inner = sum(tril(mat), axis=1)
        return sum(inner ** 2)


# Origin: scipy/scipy, .../go_funcs_S.py, class Shekel05 (BSD-3-Clause)
class Shekel05(Benchmark):
    def __init__(self, dimensions=4):
        Benchmark.__init__(self, dimensions)
        self._bounds = list(zip([0.0] * self.N, [10.0] * self.N))
        self.fglob = -10.1531996791
        self.A = asarray([[4.0, 4.0, 4.0, 4.0],
                          [1.0, 1.0, 1.0, 1.0],
                          [8.0, 8.0, 8.0, 8.0],
                          [6.0, 6.0, 6.0, 6.0],
                          [3.0, 7.0, 3.0, 7.0]])

        self.C = asarray([0.1, 0.2, 0.2, 0.4, 0.4])

    def fun(self, x, *args):
        self.nfev += 1

        return -sum(1 / (sum((x - self.A) ** 2, axis=1) + self.C))


# Origin: scipy/scipy, .../go_funcs_S.py, class Shubert01 (BSD-3-Clause)
class Shubert01(Benchmark):
    def __init__(self, dimensions=2):
        Benchmark.__init__(self, dimensions)
        self._bounds = list(zip([-10.0] * self.N, [10.0] * self.N))
        self.global_optimum = [[-7.0835, 4.8580]]
        self.fglob = -186.7309
        self.change_dimensionality = True

    def fun(self, x, *args):
        self.nfev += 1

        j = atleast_2d(arange(1, 6)).T
        y = j * cos((j + 1) * x + j)
        return prod(sum(y, axis=0))


# Origin: scipy/scipy, .../go_funcs_S.py, class SixHumpCamel (BSD-3-Clause)
class SixHumpCamel(Benchmark):
    def __init__(self, dimensions=2):
        Benchmark.__init__(self, dimensions)
        self._bounds = list(zip([-5.0] * self.N, [5.0] * self.N))
        self.custom_bounds = [(-2, 2), (-1.5, 1.5)]
        self.fglob = -1.031628

    def fun(self, x, *args):
        self.nfev += 1
        return ((4 - 2.1 * x[0] ** 2 + x[0] ** 4 / 3) * x[0] ** 2 + x[0] * x[1]
                + (4 * x[1] ** 2 - 4) * x[1] ** 2)


# Origin: scipy/scipy, .../go_funcs_S.py, class StyblinskiTang (BSD-3-Clause)
class StyblinskiTang(Benchmark):
    def __init__(self, dimensions=2):
        Benchmark.__init__(self, dimensions)
        self._bounds = list(zip([-5.0] * self.N, [5.0] * self.N))
        self.global_optimum = [[-2.903534018185960 for _ in range(self.N)]]
        self.fglob = -39.16616570377142 * self.N
        self.change_dimensionality = True

    def fun(self, x, *args):
        self.nfev += 1

        return sum(x ** 4 - 16 * x ** 2 + 5 * x) / 2


# Origin: scipy/scipy, .../go_funcs_Z.py, class Zacharov (BSD-3-Clause)
class Zacharov(Benchmark):
    def __init__(self, dimensions=2):
        Benchmark.__init__(self, dimensions)
        self._bounds = list(zip([-5.0] * self.N, [10.0] * self.N))
        self.custom_bounds = ([-1, 1], [-1, 1])
        self.global_optimum = [[0 for _ in range(self.N)]]
        self.fglob = 0.0
        self.change_dimensionality = True

    def fun(self, x, *args):
        self.nfev += 1

        u = sum(x ** 2)
        v = sum(arange(1, self.N + 1) * x)
        return u + (0.5 * v) ** 2 + (0.5 * v) ** 4


# Origin: scipy/scipy, scipy/optimize/_optimize.py, def rosen (BSD-3-Clause); docstring dropped.
def rosen(x):
    x = asarray(x)
    r = np.sum(100.0 * (x[1:] - x[:-1]**2.0)**2.0 + (1 - x[:-1])**2.0,
                  axis=0)
    return r


# ---- module-level wrappers (ours): evaluate the benchmark's `fun` on a fresh instance
def ackley01(x):  # wraps Ackley01.fun above
    return Ackley01(dimensions=len(x)).fun(x)


def ackley03(x):  # wraps Ackley03.fun above
    return Ackley03().fun(x)


def adjiman(x):  # wraps Adjiman.fun above
    return Adjiman().fun(x)


def amgm(x):  # wraps AMGM.fun above
    return AMGM(dimensions=len(x)).fun(x)


def beale(x):  # wraps Beale.fun above
    return Beale().fun(x)


def biggs_exp04(x):  # wraps BiggsExp04.fun above
    return BiggsExp04().fun(x)


def bird(x):  # wraps Bird.fun above
    return Bird().fun(x)


def box_betts(x):  # wraps BoxBetts.fun above
    return BoxBetts().fun(x)


def branin01(x):  # wraps Branin01.fun above
    return Branin01().fun(x)


def goldstein_price(x):  # wraps GoldsteinPrice.fun above
    return GoldsteinPrice().fun(x)


def griewank(x):  # wraps Griewank.fun above
    return Griewank(dimensions=len(x)).fun(x)


def hansen(x):  # wraps Hansen.fun above
    return Hansen().fun(x)


def hartmann3(x):  # wraps Hartmann3.fun above
    return Hartmann3().fun(x)


def helical_valley(x):  # wraps HelicalValley.fun above
    return HelicalValley().fun(x)


def himmelblau(x):  # wraps HimmelBlau.fun above
    return HimmelBlau().fun(x)


def langermann(x):  # wraps Langermann.fun above
    return Langermann().fun(x)


def lennard_jones(x):  # wraps LennardJones.fun above
    return LennardJones(dimensions=len(x)).fun(x)


def levy03(x):  # wraps Levy03.fun above
    return Levy03(dimensions=len(x)).fun(x)


def michalewicz(x):  # wraps Michalewicz.fun above
    return Michalewicz().fun(x)


def miele_cantrell(x):  # wraps MieleCantrell.fun above
    return MieleCantrell().fun(x)


def mishra01(x):  # wraps Mishra01.fun above
    return Mishra01(dimensions=len(x)).fun(x)


def rastrigin(x):  # wraps Rastrigin.fun above
    return Rastrigin(dimensions=len(x)).fun(x)


def ratkowsky02(x):  # wraps Ratkowsky02.fun above
    return Ratkowsky02().fun(x)


def sargan(x):  # wraps Sargan.fun above
    return Sargan(dimensions=len(x)).fun(x)


def schwefel02(x):  # wraps Schwefel02.fun above
    return Schwefel02(dimensions=len(x)).fun(x)


def shekel05(x):  # wraps Shekel05.fun above
    return Shekel05().fun(x)


def shubert01(x):  # wraps Shubert01.fun above
    return Shubert01(dimensions=len(x)).fun(x)


def six_hump_camel(x):  # wraps SixHumpCamel.fun above
    return SixHumpCamel().fun(x)


def styblinski_tang(x):  # wraps StyblinskiTang.fun above
    return StyblinskiTang(dimensions=len(x)).fun(x)


def zacharov(x):  # wraps Zacharov.fun above
    return Zacharov(dimensions=len(x)).fun(x)


def _u(seed, lo, hi, n):
    return lambda: (np.random.default_rng(seed).uniform(lo, hi, n),)


def _near(seed, center, scale):
    c, s = np.asarray(center, float), np.asarray(scale, float)
    return lambda: (c + s * np.random.default_rng(seed).uniform(-1, 1, c.shape),)


_T = ("scipy", "numpy", "benchmark")
CASES = [
    Case(ackley01, _u(1, -2, 2, 4), tags=_T),
    Case(ackley03, _u(2, -2, 2, 2), tags=_T),
    Case(adjiman, _near(3, [0.5, 0.0], [0.5, 0.8]), tags=_T),
    Case(amgm, _u(4, 0.5, 3, 3), tags=_T),
    Case(beale, _u(5, -2, 2, 2), tags=_T),
    Case(biggs_exp04, _near(6, [1.0, 10.0, 1.0, 5.0], [0.3, 2.0, 0.3, 1.0]), tags=_T),
    Case(bird, _u(7, -2, 2, 2), tags=_T),
    Case(box_betts, _near(8, [1.0, 10.0, 1.0], [0.1, 1.0, 0.1]), tags=_T),
    Case(branin01, _near(9, [2.5, 7.5], [2.0, 5.0]), tags=_T),
    Case(goldstein_price, _u(10, -1.0, 1.0, 2), tags=_T),
    Case(griewank, _u(11, -10, 10, 5), tags=_T),
    Case(hansen, _u(12, -3, 3, 2), tags=_T),
    Case(hartmann3, _u(13, 0, 1, 3), tags=_T),
    Case(helical_valley, _near(14, [1.0, 0.0, 0.0], [0.5, 0.9, 0.9]), tags=_T + ("arctan2",)),
    Case(himmelblau, _u(15, -4, 4, 2), tags=_T),
    Case(langermann, _u(16, 1, 4, 2), tags=_T + ("list_times_array",)),
    Case(lennard_jones, _near(17, [0, 0, 0, 1.1, 0, 0, 0.55, 0.95, 0], [0.05] * 9), tags=_T + ("loops", "branch")),
    Case(levy03, _u(18, -3, 3, 4), tags=_T),
    Case(michalewicz, _u(19, 1.0, 2.5, 2), tags=_T),
    Case(miele_cantrell, _u(20, -1, 1, 4), tags=_T),
    Case(mishra01, _u(21, 0.1, 0.9, 3), tags=_T),
    Case(rastrigin, _u(22, -3, 3, 5), tags=_T),
    Case(ratkowsky02, _near(23, [72.46, 2.618, 0.0674], [0.5, 0.05, 0.002]), tags=_T),
    Case(sargan, _u(24, -2, 2, 4), tags=_T + ("roll",)),
    Case(schwefel02, _u(25, -2, 2, 4), tags=_T + ("tril", "repeat")),
    Case(shekel05, _u(26, 2, 6, 4), tags=_T),
    Case(shubert01, _u(27, -2, 2, 2), tags=_T),
    Case(six_hump_camel, _u(28, -1.5, 1.5, 2), tags=_T),
    Case(styblinski_tang, _u(29, -4, 4, 4), tags=_T),
    Case(zacharov, _u(30, -1, 1, 4), tags=_T),
    Case(rosen, _u(31, -1.5, 1.5, 5), tags=_T),
]
