"""Refusals and guards of the rules of the lang helper's fifth pass on issue 12 (tests/rule_cases_lang16.py checks
their derivatives): what they cannot differentiate raises, naming it, instead of answering wrongly."""
import numpy as np
import pytest

import mooncake_ast as mc

sp = pytest.importorskip("scipy.special")
st = pytest.importorskip("scipy.stats")


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
