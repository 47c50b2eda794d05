"""Issue 12, more of the language and library: SciPy's tuple-bunch results (scipy.stats.linregress and any class
made by SciPy's _make_tuple_bunch; rules/python_bunches.py, rules/scipy_stats_linregress.py), unpacking
iterators, dict views and `A.flat` in reverse mode (their adjoint was dropped), np.frompyfunc
(rules/numpy_vectorize.py) and object arrays holding numbers.  Each case through check_derivatives: forward
against finite differences, reverse against forward and finite differences."""
import numpy as np
import pytest

from mooncake_ast.testing import check_derivatives

RNG = np.random.default_rng(1227)
X, Y = RNG.normal(size=6), RNG.normal(size=6)


# ---------------------------------------------------------------- scipy.stats.linregress
@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_linregress_every_output(alternative):
    import scipy.stats

    def f(x, y):
        r = scipy.stats.linregress(x, y, alternative=alternative)
        return r.slope + 2.0 * r.intercept + 3.0 * r.rvalue + 5.0 * r.pvalue + 7.0 * r.stderr + 11.0 * r.intercept_stderr

    check_derivatives(f, X, Y)


def test_linregress_unpacked_from_lists_and_batched():
    import scipy.stats

    def unpacked(x, y):
        slope, intercept, r, p, se = scipy.stats.linregress(list(x), y=y)
        return slope * intercept + r * se

    def batched(x, y):
        res = scipy.stats.linregress(x, y, axis=1)
        return np.sum(res.slope * res.intercept_stderr + res[2])

    check_derivatives(unpacked, X, Y)
    check_derivatives(batched, RNG.normal(size=(2, 5)), RNG.normal(size=(2, 5)))


def test_tuple_bunch_made_in_the_function():
    from scipy._lib._bunch import _make_tuple_bunch

    Result = _make_tuple_bunch("Result", ["a", "b"], ["extra"])

    def f(x):
        res = Result(x[0] * 2.0, b=np.sin(x[1]), extra=x[2] * x[0])
        a, b = res
        return a * b + res.extra * 3.0 + res.b

    check_derivatives(f, X[:3])


# ---------------------------------------------------------------- unpacking what is not a list or a tuple
def test_unpacking_iterators_views_and_flat():
    def f(x):
        d = {"a": x[0] * 2.0, "b": x[1]}
        a, b = d.values()
        (_, c), (_, e) = d.items()
        p, q, r = iter([x[0], x[1] * 2.0, x[2]])
        s, t, u = reversed([x[2], x[1], x[0] * x[1]])
        (m, n), (o, w) = zip([x[0], x[1]], [x[2], 1.0])
        g, h, k = map(np.sin, [x[0], x[1], x[2]])
        f0, f1, *rest = np.outer(x, x).T.flat
        return a * b + c * e + p * q * r + s * t + u + m * n + o * w + g * h * k + f0 * f1 + rest[2]

    check_derivatives(f, X[:3])


# ---------------------------------------------------------------- np.frompyfunc, object arrays
SQUARE_SIN = np.frompyfunc(lambda t: t * t + np.sin(t), 1, 1)  # made outside: its function is found by the rule


def test_frompyfunc():
    def f(x, y):
        g = np.frompyfunc(lambda t, s: t * s + np.cos(t), 2, 1)
        out = g(x, y[:, None]).astype(float)  # broadcast: (3, 6)
        return np.sum(out ** 2) + np.sum(SQUARE_SIN(x)) + SQUARE_SIN(x[0]) * 2.0

    check_derivatives(f, X, Y[:3])


def test_object_array_of_numbers():
    def f(x):
        a = np.array([x[0], x[1] * 2.0, 3.0], dtype=object)
        return np.sum(a * a)  # (a Python float: the entries are objects)

    check_derivatives(f, X[:2])


# ---------------------------------------------------------------- more small rules
def test_modf_and_normal_dist_inv_cdf():
    import statistics

    def f(x):
        frac, whole = np.modf(x * 3.0)
        return np.sum(frac * frac + whole) + np.modf(x[0] * 5.0)[0]

    def g(p, mu, sigma):
        return statistics.NormalDist(mu, sigma).inv_cdf(p) * 2.0

    check_derivatives(f, np.array([0.3, -1.2, 2.1]))
    check_derivatives(g, 0.3, 0.5, 1.7)


# ---------------------------------------------------------------- a callable without a rule inside installed code
def test_missing_rule_inside_installed_code_names_what_was_called(tmp_path, monkeypatch):
    """Installed code (a module under a folder counted as installed) calls a compiled callable without a rule: the
    error names the function the user's code called and the path to the callable, and is a MissingRuleError."""
    import importlib
    import sys

    import mooncake_ast as mc
    from mooncake_ast import library_errors

    (tmp_path / "lang12lib.py").write_text(
        "import numpy as np\n\n_TWICE = np.frompyfunc(lambda v: v * 2.0, 1, 1)\n\n\n"
        "def outer(x):\n    return inner(x) + 1.0\n\n\ndef inner(x):\n    return _TWICE.accumulate(x)[-1] * x[0]\n")
    monkeypatch.setattr(library_errors, "_INSTALLED", (*library_errors._INSTALLED, str(tmp_path) + "/"))
    monkeypatch.syspath_prepend(str(tmp_path))
    lib = importlib.import_module("lang12lib")
    try:
        def f(x):
            return lib.outer(x * 2.0)

        for mode, run in (("reverse", lambda: mc.grad(f)(np.ones(2))), ("forward", lambda: mc.jvp(f, (np.ones(2),), (np.ones(2),)))):
            with pytest.raises(mc.MissingRuleError) as info:
                run()
            text = str(info.value)
            assert text.startswith("cannot differentiate lang12lib.outer"), text  # (inner may be inlined into outer)
            assert f"no {mode} rule" in text and "accumulate" in text and "register a rule for lang12lib.outer" in text
            assert info.value.mode == mode and info.value.fn.__name__ == "accumulate"
    finally:
        sys.modules.pop("lang12lib", None)


# ---------------------------------------------------------------- collections.deque in reverse mode too
def test_deque_methods_move_adjoints_with_items():
    from collections import deque

    def f(a):
        d = deque([a[0], a[1]], maxlen=4)
        d.extend(a[i] * 2.0 for i in range(3))  # a generator; evicts from the left
        d.extendleft([a[3], 1.0])  # evicts from the right
        d.rotate(-2)
        d.reverse()
        x, y = d.pop(), d.popleft()
        d.insert(1, a[4] * 3.0)
        d.remove(d[2])
        d[0] = d[0] * a[1]
        del d[1]
        e = d.copy() + deque([a[2]])
        e.appendleft(5.0)
        return x * y + d[0] * d[-1] + sum(e) * e[1] + d.index(d[0]) + len(d)

    check_derivatives(f, np.array([0.3, 0.5, 0.9, 1.3, 0.7]))


def test_deque_sliding_window_queue_and_array_items():
    from collections import deque

    def window(x):
        w, out = deque(maxlen=3), 0.0
        for v in x:
            w.append(v * v)
            out = out + sum(w) / len(w)
        return out

    def queue(x):
        q, tot = deque([(0, x[0])]), 0.0
        while q:
            i, v = q.popleft()
            tot = tot + v * (i + 1)
            if 2 * i + 2 < len(x):
                q.extend([(2 * i + 1, v * x[2 * i + 1]), (2 * i + 2, x[2 * i + 2])])
        return tot

    def arrays(a):
        d = deque([a, a * 2.0])
        first = d.popleft()
        d[0][1] = first[0] * 3.0  # a write into an item the deque holds
        return np.sum(d[0] ** 2) + np.sum(first) + np.sum(np.array(deque(a, maxlen=2)))

    check_derivatives(window, np.array([0.3, 0.5, 0.9, 1.3]))
    check_derivatives(queue, np.array([0.3, 0.5, 0.9, 1.3, 0.7]))
    check_derivatives(arrays, np.array([0.3, 0.5, 0.9]))


# ---------------------------------------------------------------- ufunc.reduceat
@pytest.mark.parametrize("u", [np.add, np.multiply, np.maximum, np.divide, np.logaddexp])
def test_reduceat(u):
    def f(a, v):
        return np.sum(u.reduceat(a, [1, 0, 3], axis=1) ** 2) + np.sum(u.reduceat(v, [0, 2, 2, 4]))

    check_derivatives(f, RNG.uniform(1.2, 1.9, size=(2, 5)), RNG.uniform(1.2, 1.9, size=6))


def test_reduceat_in_an_undocumented_order_is_refused():
    import mooncake_ast as mc

    v = RNG.uniform(1.2, 1.9, size=6)

    def f(v):
        return np.sum(np.power.reduceat(v, [0, 3]))

    if np.isclose(np.power.reduceat(v, [0, 3])[0], (v[0] ** v[1]) ** v[2]):
        check_derivatives(f, v)  # (a NumPy that folds np.power left to right)
    else:
        with pytest.raises(NotImplementedError, match="reduceat"):
            mc.grad(f)(v)


# ---------------------------------------------------------------- order= of ravel, flatten, reshape
def test_ravel_flatten_reshape_follow_their_order():
    w = np.arange(12.0)

    def f(x):
        return (np.sum(np.ravel(x, order="F") * w) + np.sum(x.flatten("F") * w) + np.sum(x.ravel(order="K") * w)
                + np.sum(x.T.ravel("A") * w) + np.sum(x.reshape(4, 3, order="F") * w.reshape(4, 3))
                + np.sum(np.reshape(x, (2, 6), order="F") ** 2 * w.reshape(2, 6)))

    check_derivatives(f, RNG.normal(size=(3, 4)))


# ---------------------------------------------------------------- ndarray methods that are functions
def test_array_methods_put_compress_choose_view():
    def f(x):
        y = x * 2.0
        y.put([0, 7], x[3:] * 3.0, mode="wrap")
        z = y.view()
        z[1] = x[0] * x[2]  # (a write through the view reaches y)
        c = np.outer(x, x).compress([True, False, True, True, False], axis=1)
        return (np.sum(y ** 2) + np.sum(c * np.arange(3)) + np.sum(np.array([0, 1, 0]).choose([x[:3], x[2:]]) ** 2)
                + x[np.sort(x).searchsorted(0.0) % 5] + np.sum(x[np.argpartition(x, 2)[:2]]))

    check_derivatives(f, np.array([0.3, -0.5, 0.9, 1.3, -0.7]))


def test_unique_with_its_integer_results():
    def f(x):
        v, idx, inv, cnt = np.unique(x * 2.0, return_index=True, return_inverse=True, return_counts=True)
        return np.sum(v ** 2 * cnt) + np.sum(v[inv] * x) + x[idx[0]]

    check_derivatives(f, np.array([0.3, -0.5, 0.9, 1.3, -0.7]))


# ---------------------------------------------------------------- scipy.linalg through NumPy models
def test_scipy_linalg_everyday_functions():
    import scipy.linalg as sl

    a = np.array([[4.0, 0.3, -0.5], [0.2, 3.0, 0.7], [-0.1, 0.4, 5.0]])
    s = a @ a.T

    def f(a, s, b):
        w, v = sl.eigh(s)
        u, sv, vh = sl.svd(a)
        return (np.sum(sl.solve(a, b)) + sl.det(a) + np.sum(sl.inv(a) ** 2) + np.sum(sl.solve(s, b, assume_a="pos"))
                + np.sum(w) + np.sum(v * v[0]) + np.sum(sv) + np.sum(u[:, 0] * vh[0]) + np.sum(sl.qr(a)[1] ** 2)
                + np.sum(sl.lstsq(a, b)[0]) + np.sum(sl.pinv(a)) + sl.norm(a))

    check_derivatives(f, a, s, np.array([0.3, -0.2, 0.9]))


# ---------------------------------------------------------------- np.interp in the sample positions too
def test_interp_with_respect_to_the_sample_positions():
    import scipy.interpolate as si

    xq = np.array([-0.5, 0.3, 1.7, 2.5, 3.9, 5.0])

    def f(xp, fp):
        return (np.sum(np.interp(xq, xp, fp) ** 2) + np.sum(np.interp(xq, np.sort(xp), np.sin(fp), left=0.1, right=2.0))
                + np.sum(si.interp1d(xp, fp)(np.array([0.5, 2.0]))))

    xp = np.array([0.0, 1.0, 2.2, 3.1, 4.5])
    check_derivatives(f, xp, np.cos(xp))


def test_lfilter():
    import scipy.signal as ss

    def f(b, a, x):
        return np.sum(ss.lfilter(b, a, x) ** 2) + np.sum(ss.lfilter([1.0, 0.5], a, x=np.outer(x[:2], x), axis=0))

    check_derivatives(f, np.array([0.5, 0.2, 0.1]), np.array([1.2, -0.3, 0.1]), np.random.default_rng(3).normal(size=7))


def test_cov_with_constant_weights():
    def f(x, y):
        aw, fw = np.array([1.0, 2.0, 0.5, 1.5, 1.0]), np.array([1, 2, 1, 3, 1])
        return (np.cov(x, aweights=aw) + np.cov(x, fweights=fw, aweights=aw, ddof=0)
                + np.sum(np.cov(x[0], y, fweights=fw)) + np.cov(x.T, rowvar=False, aweights=aw, bias=True))

    check_derivatives(f, RNG.normal(size=(2, 5)), RNG.normal(size=5))


def test_average_returned():
    def f(x, w):
        avg, total = np.average(x, axis=1, weights=w, returned=True)
        mean, count = np.average(x, axis=0, returned=True)
        return np.sum(avg * total) + np.sum(mean) * count[0]

    check_derivatives(f, RNG.normal(size=(3, 4)), RNG.uniform(0.5, 1.5, size=4))


def test_nan_reductions_and_nearest_quantiles():
    mask = np.array([[0, 1, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 0, 0]], bool)

    def f(x):
        y = np.where(mask, np.nan, x)
        return (np.nanprod(y) + np.sum(np.nanprod(y, axis=1)) + np.sum(np.nanquantile(y, [0.3, 0.7], axis=1))
                + np.nanpercentile(y, 40) + np.sum(np.quantile(x, [0.1, 0.875], axis=1, method="nearest")))

    check_derivatives(f, RNG.normal(size=(3, 5)))


def test_putmask():
    def f(a, v):
        z = np.zeros(5)
        np.putmask(z, np.array([1, 0, 1, 1, 0], bool), v * v)  # (values repeated over the flat positions)
        np.putmask(a, a > 0, v)
        return a * 2.0 + z

    check_derivatives(f, np.array([0.3, -0.5, 0.9, 1.3, -0.7]), np.array([1.5, 2.5]))


def test_distribution_moments_in_loc_and_scale():
    import mooncake_ast as mc
    import scipy.stats as st

    def f(loc, scale):
        return (st.norm.mean(loc=loc, scale=scale) + st.gamma.std(2.0, loc, scale) + st.t.entropy(3.0, scale=scale)
                + st.beta(2.0, 3.0, loc=loc, scale=scale).var() + st.gamma.median(2.0, loc, scale))

    check_derivatives(f, 0.3, 1.5)
    with pytest.raises(NotImplementedError, match="shape parameter"):
        mc.grad(lambda a: st.gamma.mean(a, scale=2.0))(2.0)
