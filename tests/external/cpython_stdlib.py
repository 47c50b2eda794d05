"""Functions from the CPython 3.11 standard library (python/cpython, PSF-2.0):
Lib/statistics.py (NormalDist, _normal_dist_inv_cdf, covariance) and Lib/colorsys.py.

Copied as-is from the installed Python 3.11.7 sources; docstrings dropped, and only the
NormalDist methods used here are kept.
"""
from math import erf, exp, fabs, fsum, log, sqrt, tau

from tests.external import Case

# Origin: python/cpython, Lib/statistics.py, module constant and exception (PSF-2.0)
_SQRT2 = sqrt(2.0)


class StatisticsError(ValueError):
    pass


# Origin: python/cpython, Lib/statistics.py, covariance (PSF-2.0)
def covariance(x, y, /):
    n = len(x)
    if len(y) != n:
        raise StatisticsError('covariance requires that both inputs have same number of data points')
    if n < 2:
        raise StatisticsError('covariance requires at least two data points')
    xbar = fsum(x) / n
    ybar = fsum(y) / n
    sxy = fsum((xi - xbar) * (yi - ybar) for xi, yi in zip(x, y))
    return sxy / (n - 1)


# Origin: python/cpython, Lib/statistics.py, _normal_dist_inv_cdf (PSF-2.0); pure-Python
# version (the module would otherwise import the C accelerator from _statistics).
def _normal_dist_inv_cdf(p, mu, sigma):
    # There is no closed-form solution to the inverse CDF for the normal
    # distribution, so we use a rational approximation instead:
    # Wichura, M.J. (1988). "Algorithm AS241: The Percentage Points of the
    # Normal Distribution".  Applied Statistics. Blackwell Publishing. 37
    # (3): 477–484. doi:10.2307/2347330. JSTOR 2347330.
    q = p - 0.5
    if fabs(q) <= 0.425:
        r = 0.180625 - q * q
        # Hash sum: 55.88319_28806_14901_4439
        num = (((((((2.50908_09287_30122_6727e+3 * r +
                     3.34305_75583_58812_8105e+4) * r +
                     6.72657_70927_00870_0853e+4) * r +
                     4.59219_53931_54987_1457e+4) * r +
                     1.37316_93765_50946_1125e+4) * r +
                     1.97159_09503_06551_4427e+3) * r +
                     1.33141_66789_17843_7745e+2) * r +
                     3.38713_28727_96366_6080e+0) * q
        den = (((((((5.22649_52788_52854_5610e+3 * r +
                     2.87290_85735_72194_2674e+4) * r +
                     3.93078_95800_09271_0610e+4) * r +
                     2.12137_94301_58659_5867e+4) * r +
                     5.39419_60214_24751_1077e+3) * r +
                     6.87187_00749_20579_0830e+2) * r +
                     4.23133_30701_60091_1252e+1) * r +
                     1.0)
        x = num / den
        return mu + (x * sigma)
    r = p if q <= 0.0 else 1.0 - p
    r = sqrt(-log(r))
    if r <= 5.0:
        r = r - 1.6
        # Hash sum: 49.33206_50330_16102_89036
        num = (((((((7.74545_01427_83414_07640e-4 * r +
                     2.27238_44989_26918_45833e-2) * r +
                     2.41780_72517_74506_11770e-1) * r +
                     1.27045_82524_52368_38258e+0) * r +
                     3.64784_83247_63204_60504e+0) * r +
                     5.76949_72214_60691_40550e+0) * r +
                     4.63033_78461_56545_29590e+0) * r +
                     1.42343_71107_49683_57734e+0)
        den = (((((((1.05075_00716_44416_84324e-9 * r +
                     5.47593_80849_95344_94600e-4) * r +
                     1.51986_66563_61645_71966e-2) * r +
                     1.48103_97642_74800_74590e-1) * r +
                     6.89767_33498_51000_04550e-1) * r +
                     1.67638_48301_83803_84940e+0) * r +
                     2.05319_16266_37758_82187e+0) * r +
                     1.0)
    else:
        r = r - 5.0
        # Hash sum: 47.52583_31754_92896_71629
        num = (((((((2.01033_43992_92288_13265e-7 * r +
                     2.71155_55687_43487_57815e-5) * r +
                     1.24266_09473_88078_43860e-3) * r +
                     2.65321_89526_57612_30930e-2) * r +
                     2.96560_57182_85048_91230e-1) * r +
                     1.78482_65399_17291_33580e+0) * r +
                     5.46378_49111_64114_36990e+0) * r +
                     6.65790_46435_01103_77720e+0)
        den = (((((((2.04426_31033_89939_78564e-15 * r +
                     1.42151_17583_16445_88870e-7) * r +
                     1.84631_83175_10054_68180e-5) * r +
                     7.86869_13114_56132_59100e-4) * r +
                     1.48753_61290_85061_48525e-2) * r +
                     1.36929_88092_27358_05310e-1) * r +
                     5.99832_20655_58879_37690e-1) * r +
                     1.0)
    x = num / den
    if q < 0.0:
        x = -x
    return mu + (x * sigma)


# Origin: python/cpython, Lib/statistics.py, class NormalDist (PSF-2.0); kept: __slots__,
# __init__, pdf, cdf, inv_cdf, quantiles, zscore.
class NormalDist:
    "Normal distribution of a random variable"
    # https://en.wikipedia.org/wiki/Normal_distribution
    # https://en.wikipedia.org/wiki/Variance#Properties

    __slots__ = {
        '_mu': 'Arithmetic mean of a normal distribution',
        '_sigma': 'Standard deviation of a normal distribution',
    }

    def __init__(self, mu=0.0, sigma=1.0):
        "NormalDist where mu is the mean and sigma is the standard deviation."
        if sigma < 0.0:
            raise StatisticsError('sigma must be non-negative')
        self._mu = float(mu)
        self._sigma = float(sigma)

    def pdf(self, x):
        "Probability density function.  P(x <= X < x+dx) / dx"
        variance = self._sigma * self._sigma
        if not variance:
            raise StatisticsError('pdf() not defined when sigma is zero')
        diff = x - self._mu
        return exp(diff * diff / (-2.0 * variance)) / sqrt(tau * variance)

    def cdf(self, x):
        "Cumulative distribution function.  P(X <= x)"
        if not self._sigma:
            raise StatisticsError('cdf() not defined when sigma is zero')
        return 0.5 * (1.0 + erf((x - self._mu) / (self._sigma * _SQRT2)))

    def inv_cdf(self, p):
        if p <= 0.0 or p >= 1.0:
            raise StatisticsError('p must be in the range 0.0 < p < 1.0')
        if self._sigma <= 0.0:
            raise StatisticsError('cdf() not defined when sigma at or below zero')
        return _normal_dist_inv_cdf(p, self._mu, self._sigma)

    def quantiles(self, n=4):
        return [self.inv_cdf(i / n) for i in range(1, n)]

    def zscore(self, x):
        # https://www.statisticshowto.com/probability-and-statistics/z-score/
        if not self._sigma:
            raise StatisticsError('zscore() not defined when sigma is zero')
        return (x - self._mu) / self._sigma


# Origin: python/cpython, Lib/colorsys.py, constants (PSF-2.0)
ONE_THIRD = 1.0/3.0
ONE_SIXTH = 1.0/6.0
TWO_THIRD = 2.0/3.0


# Origin: python/cpython, Lib/colorsys.py, rgb_to_yiq (PSF-2.0)
def rgb_to_yiq(r, g, b):
    y = 0.30*r + 0.59*g + 0.11*b
    i = 0.74*(r-y) - 0.27*(b-y)
    q = 0.48*(r-y) + 0.41*(b-y)
    return (y, i, q)


# Origin: python/cpython, Lib/colorsys.py, rgb_to_hls (PSF-2.0)
def rgb_to_hls(r, g, b):
    maxc = max(r, g, b)
    minc = min(r, g, b)
    sumc = (maxc+minc)
    rangec = (maxc-minc)
    l = sumc/2.0
    if minc == maxc:
        return 0.0, l, 0.0
    if l <= 0.5:
        s = rangec / sumc
    else:
        s = rangec / (2.0-maxc-minc)  # Not always 2.0-sumc: gh-106498.
    rc = (maxc-r) / rangec
    gc = (maxc-g) / rangec
    bc = (maxc-b) / rangec
    if r == maxc:
        h = bc-gc
    elif g == maxc:
        h = 2.0+rc-bc
    else:
        h = 4.0+gc-rc
    h = (h/6.0) % 1.0
    return h, l, s


# Origin: python/cpython, Lib/colorsys.py, hls_to_rgb (PSF-2.0)
def hls_to_rgb(h, l, s):
    if s == 0.0:
        return l, l, l
    if l <= 0.5:
        m2 = l * (1.0+s)
    else:
        m2 = l+s-(l*s)
    m1 = 2.0*l - m2
    return (_v(m1, m2, h+ONE_THIRD), _v(m1, m2, h), _v(m1, m2, h-ONE_THIRD))


# Origin: python/cpython, Lib/colorsys.py, _v (PSF-2.0)
def _v(m1, m2, hue):
    hue = hue % 1.0
    if hue < ONE_SIXTH:
        return m1 + (m2-m1)*hue*6.0
    if hue < 0.5:
        return m2
    if hue < TWO_THIRD:
        return m1 + (m2-m1)*(TWO_THIRD-hue)*6.0
    return m1


# Origin: python/cpython, Lib/colorsys.py, rgb_to_hsv (PSF-2.0)
def rgb_to_hsv(r, g, b):
    maxc = max(r, g, b)
    minc = min(r, g, b)
    rangec = (maxc-minc)
    v = maxc
    if minc == maxc:
        return 0.0, 0.0, v
    s = rangec / maxc
    rc = (maxc-r) / rangec
    gc = (maxc-g) / rangec
    bc = (maxc-b) / rangec
    if r == maxc:
        h = bc-gc
    elif g == maxc:
        h = 2.0+rc-bc
    else:
        h = 4.0+gc-rc
    h = (h/6.0) % 1.0
    return h, s, v


# Origin: python/cpython, Lib/colorsys.py, hsv_to_rgb (PSF-2.0)
def hsv_to_rgb(h, s, v):
    if s == 0.0:
        return v, v, v
    i = int(h*6.0) # XXX assume int() truncates!
    f = (h*6.0) - i
    p = v*(1.0 - s)
    q = v*(1.0 - s*f)
    t = v*(1.0 - s*(1.0-f))
    i = i%6
    if i == 0:
        return v, t, p
    if i == 1:
        return q, v, p
    if i == 2:
        return p, v, t
    if i == 3:
        return p, q, v
    if i == 4:
        return t, p, v
    if i == 5:
        return v, p, q
    # Cannot get here


# ---- wrappers (ours) around NormalDist methods
def normal_pdf(x, mu, sigma):  # wraps NormalDist.pdf
    return NormalDist(mu, sigma).pdf(x)


def normal_cdf(x, mu, sigma):  # wraps NormalDist.cdf
    return NormalDist(mu, sigma).cdf(x)


def normal_inv_cdf(p, mu, sigma):  # wraps NormalDist.inv_cdf
    return NormalDist(mu, sigma).inv_cdf(p)


def normal_quantiles(mu, sigma, n=4):  # wraps NormalDist.quantiles
    return NormalDist(mu, sigma).quantiles(n=n)


def normal_zscore(x, mu, sigma):  # wraps NormalDist.zscore
    return NormalDist(mu=mu, sigma=sigma).zscore(x)


_T = ("cpython", "stdlib", "math")
CASES = [
    Case(covariance, lambda: ([1.2, 2.5, 3.1, 4.8, 5.0], [2.0, 1.7, 3.9, 4.1, 6.3]), tags=_T + ("fsum", "generator", "zip")),
    Case(_normal_dist_inv_cdf, lambda: (0.3, 1.0, 2.0), tags=_T + ("rational_poly", "branch")),
    Case(_normal_dist_inv_cdf, lambda: (0.02, -0.5, 0.7), tags=_T + ("rational_poly", "branch", "tail")),
    Case(normal_pdf, lambda: (0.4, 0.1, 1.3), tags=_T + ("class", "slots", "float_cast")),
    Case(normal_cdf, lambda: (0.4, 0.1, 1.3), tags=_T + ("class", "slots", "erf")),
    Case(normal_inv_cdf, lambda: (0.8, 0.1, 1.3), tags=_T + ("class", "slots", "float_cast")),
    Case(normal_quantiles, lambda: (0.5, 2.0), kwargs=lambda: {"n": 5}, tags=_T + ("class", "comprehension", "kwargs")),
    Case(normal_zscore, lambda: (1.7, 0.5, 2.0), tags=_T + ("class", "kwargs_call")),
    Case(rgb_to_yiq, lambda: (0.2, 0.5, 0.7), tags=_T + ("colorsys", "tuple_return")),
    Case(rgb_to_hls, lambda: (0.2, 0.5, 0.7), tags=_T + ("colorsys", "min", "max", "mod", "branch")),
    Case(hls_to_rgb, lambda: (0.3, 0.4, 0.6), tags=_T + ("colorsys", "mod", "helper", "branch")),
    Case(rgb_to_hsv, lambda: (0.6, 0.3, 0.2), tags=_T + ("colorsys", "min", "max", "mod")),
    Case(hsv_to_rgb, lambda: (0.45, 0.5, 0.8), tags=_T + ("colorsys", "int_trunc", "branch")),
]
