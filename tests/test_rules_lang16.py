"""Refusals and guards of the rules of the lang helper's fifth pass on issue 12 (tests/rule_cases_lang16.py checks
their derivatives): what they cannot differentiate raises, naming it, instead of answering wrongly."""
import numpy as np
import pytest

import mooncake_ast as mc

sp = pytest.importorskip("scipy.special")
st = pytest.importorskip("scipy.stats")
si = pytest.importorskip("scipy.integrate")


@pytest.mark.parametrize("mode", ["forward", "reverse"])
def test_ellipj_in_m_is_refused(mode):
    f = lambda m: sp.ellipj(0.7, m)[0]  # noqa: E731
    with pytest.raises(NotImplementedError, match="ellipj"):
        (mc.jvp(f, (0.3,), (1.0,)) if mode == "forward" else mc.grad(f)(0.3))


@pytest.mark.parametrize("mode", ["forward", "reverse"])
def test_distribution_outside_its_support_is_refused(mode):
    """pareto's formula is not SciPy's value below 1 (SciPy writes -inf there): refused, not differentiated."""
    f = lambda x: np.sum(st.pareto.logpdf(x, 2.0))  # noqa: E731
    x = np.array([0.5, 2.0])
    with pytest.raises(NotImplementedError, match="pareto.logpdf"):
        (mc.jvp(f, (x,), (np.ones(2),)) if mode == "forward" else mc.grad(f)(x))


@pytest.mark.parametrize("mode", ["forward", "reverse"])
def test_discrete_parameter_and_point(mode):
    """k and loc of a discrete distribution: slope 0; the shape parameter through the formula."""
    f = lambda p, k: st.logser.logpmf(k, p)  # noqa: E731
    p, k = 0.4, 3.0
    if mode == "forward":
        _, dk = mc.jvp(lambda k: f(p, k), (k,), (1.0,))
        assert dk == 0.0
        _, dp = mc.jvp(lambda p: f(p, k), (p,), (1.0,))
    else:
        dp = mc.grad(lambda p: f(p, k))(p)
    h = 1e-6
    assert dp == pytest.approx((f(p + h, k) - f(p - h, k)) / (2 * h), rel=1e-6)


def test_generic_rule_does_not_shadow_a_distribution_rule():
    from mooncake_ast.rules.registry import lookup

    norm_rule, gumbel_rule = lookup(st.norm.logpdf), lookup(st.gumbel_r.logpdf)
    assert norm_rule is not None and gumbel_rule is not None and norm_rule is not gumbel_rule
    assert gumbel_rule.key == (st.rv_continuous, "logpdf")


@pytest.mark.parametrize("mode", ["forward", "reverse"])
@pytest.mark.parametrize("src", ["lambda c: np.sum((np.poly1d(c) + np.poly1d(c[1:]))(0.4))",
                                 "lambda c: (2.0 * np.poly1d(c))(0.4)", "lambda c: (-np.poly1d(c))(0.4)",
                                 "lambda c: (np.poly1d(c) * np.poly1d(c))(0.4)", "lambda c: (np.poly1d(c) ** 2)(0.4)"])
def test_poly1d_arithmetic_is_refused(mode, src):
    """poly1d objects combined by operators: refused by name in both modes (not a crash, not a wrong answer)."""
    import linecache

    name = f"<poly1d case {abs(hash(src))}>"
    linecache.cache[name] = (len(src) + 1, None, [src + "\n"], name)
    f = eval(compile(src + "\n", name, "eval"), {"np": np})
    c = np.array([0.5, -1.0, 2.0])
    with pytest.raises(NotImplementedError, match="poly1d"):
        (mc.jvp(f, (c,), (np.ones(3),)) if mode == "forward" else mc.grad(f)(c))


def _decay(t, y, k):
    return -k * y


def _half(t, y, k):
    return y[0] - 0.5


_half.terminal = True


def _osc(t, y, k):
    return np.array([y[1], -k * y[0]])


def _down(t, y, k):
    return y[0]


_down.terminal, _down.direction = 2, -1
_TIGHT = dict(rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("f", [
    lambda k, y0: si.solve_ivp(_decay, (0.0, 5.0), y0, events=_half, args=(k,), **_TIGHT).y[:, -1],
    lambda k, y0: si.solve_ivp(_decay, (0.0, 5.0), y0, events=_half, args=(k,), **_TIGHT).t[-1] * y0[1],
    lambda k, y0: si.solve_ivp(_osc, (0.0, 20.0), y0, events=_down, args=(k,), **_TIGHT).y[:, -1],  # (the 2nd crossing)
    lambda k, y0: si.solve_ivp(_decay, (0.0, 5.0), y0, events=_half, args=(k,), t_eval=np.linspace(0.0, 5.0, 11),
                               **_TIGHT).y[:, -1],
    lambda k, y0: si.solve_ivp(_decay, (0.0, 0.2), y0, events=_half, args=(k,), **_TIGHT).y[:, -1],  # (never fires)
])
def test_solve_ivp_terminal_events(f):
    """A terminal event stops the solver at its time, which moves with the inputs: both modes follow it (the last
    output moves along the solution, dy += f dtau)."""
    from mooncake_ast.testing import check_derivatives

    check_derivatives(f, 0.8, np.array([1.0, 2.0]), rtol=1e-4, atol=1e-6)


def test_solve_ivp_terminal_event_states_forward():
    """The event's own time and state: forward mode (reverse refuses t_events/y_events adjoints by name)."""
    from mooncake_ast.testing import check_derivatives

    f = lambda k, y0: si.solve_ivp(_decay, (0.0, 5.0), y0, events=[_half], args=(k,),  # noqa: E731
                                   **_TIGHT).y_events[0][0] * 3.0
    check_derivatives(f, 0.8, np.array([1.0, 2.0]), modes=("forward",), rtol=1e-4, atol=1e-6)
    with pytest.raises(mc.UnsupportedDerivativeError, match="y_events"):
        mc.grad(lambda k: np.sum(f(k, np.array([1.0, 2.0]))))(0.8)


def test_solve_ivp_terminal_event_in_time_and_start():
    """t_span's end has no derivative once the event stops the solver; t_span's start moves the solution."""
    from mooncake_ast.testing import check_derivatives

    f = lambda k, t0, t1: si.solve_ivp(_decay, (t0, t1), np.array([1.0, 2.0]), events=_half, args=(k,),  # noqa: E731
                                       **_TIGHT).y[:, -1]
    check_derivatives(f, 0.8, 0.1, 5.0, rtol=1e-4, atol=1e-6)


def test_solve_ivp_terminal_event_reading_its_closure():
    """An event function reading a differentiated value from its closure: its share of the event time's derivative
    goes through the closure in both modes (reverse mode scales it by the event's own adjoint, -c)."""
    from mooncake_ast.testing import check_derivatives

    def g(k, level):
        def event(t, y, kk):
            return y[0] - level * k

        event.terminal = True
        return si.solve_ivp(_decay, (0.0, 5.0), np.array([1.0, 2.0]), events=event, args=(k,), **_TIGHT).y[:, -1]

    check_derivatives(g, 0.8, 0.6, rtol=1e-4, atol=1e-6)
    h = 1e-6
    fd = (g(0.8 + h, 0.6)[0] - g(0.8 - h, 0.6)[0]) / (2 * h)
    assert mc.grad(lambda k: g(k, 0.6)[0])(0.8) == pytest.approx(fd, rel=1e-5)


@pytest.mark.parametrize("mode", ["forward", "reverse"])
def test_counter_refusals(mode):
    import collections

    import linecache

    for src in ("lambda x: collections.Counter({'a': x}, a=2.0)['a']",  # (keywords added to the mapping's value)
                "lambda x: collections.Counter(['a', 'b'], a=x)['a']",
                # (update and subtract add to the counts: dict.update's rules would replace them)
                "lambda x: (lambda c: (c.update({'a': x}), c['a'])[1])(collections.Counter({'a': 1.5}))",
                "lambda x: (lambda c: (c.subtract({'a': 2.0}), c['a'] * c['a'])[1])(collections.Counter({'a': x}))"):
        name = f"<counter case {abs(hash(src))}>"
        linecache.cache[name] = (len(src) + 1, None, [src + "\n"], name)
        f = eval(compile(src + "\n", name, "eval"), {"collections": collections})
        with pytest.raises((NotImplementedError, mc.MooncakeError), match="Counter"):  # (reverse: no rule, by name)
            (mc.jvp(f, (0.5,), (1.0,)) if mode == "forward" else mc.grad(f)(0.5))
