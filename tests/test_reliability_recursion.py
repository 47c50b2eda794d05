"""Deep recursion under grad and jvp (issue 14, item 5).

Each level of the user's recursion costs two Python frames in the generated forward pass,
in the pullback and in forward mode (the generated function and the run-time dispatcher:
`rcall` runs the derived forward itself, `fcall` the derived tangent function, and a
pullback calls its callee's pullback directly).  So a recursion that runs at depth N
plainly is differentiable to about N / 2.
"""
import math
import sys

import pytest

import mooncake_ast as mc

_DEPTHS: list = []


def probe(x):
    return x


def _probe_rule(x):
    _DEPTHS.append(("forward", _stack_depth()))

    def pullback(g):
        _DEPTHS.append(("pullback", _stack_depth()))
        return (g,)

    return x, pullback


def _probe_frule(primals, tangents):
    _DEPTHS.append(("tangent", _stack_depth()))
    return primals[0], tangents[0]


@pytest.fixture(scope="module", autouse=True)
def _registered():
    """Registered while these tests run only (later tests print the rule list and compare it)."""
    mc.rrule(probe)(_probe_rule)
    mc.frule(probe)(_probe_frule)
    yield
    from mooncake_ast.rules import registry

    registry._RULES.pop(probe, None)  # later tests list the registry (`mooncake-ast rules`, docs/rules.md)
    registry.bump_version()


def _stack_depth():
    f, n = sys._getframe(), 0
    while f is not None:
        f, n = f.f_back, n + 1
    return n


def chain(x, n):
    if n == 0:
        return probe(x)
    return math.sin(chain(x, n - 1)) + 0.1 * x


def _chain_derivative(x, n, h=1e-6):
    return (chain(x + h, n) - chain(x - h, n)) / (2 * h)


def _frames_per_level(run, kind):
    per = []
    for n in (10, 30):
        _DEPTHS.clear()
        run(n)
        per.append(max(d for k, d in _DEPTHS if k == kind))
    return (per[1] - per[0]) / 20


def test_two_frames_per_level():
    assert _frames_per_level(lambda n: mc.grad(chain)(0.3, n), "forward") <= 2
    assert _frames_per_level(lambda n: mc.grad(chain)(0.3, n), "pullback") <= 2
    assert _frames_per_level(lambda n: mc.jvp(chain, (0.3, n), (1.0, None)), "tangent") <= 2


@pytest.mark.parametrize("limit", [1000, 3000])
def test_depth_of_a_third_of_the_limit(limit):
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(limit)
    try:
        depth = limit // 3
        want = _chain_derivative(0.3, depth)
        g = mc.grad(chain)(0.3, depth)
        _, t = mc.jvp(chain, (0.3, depth), (1.0, None))
    finally:
        sys.setrecursionlimit(old)
    assert g == pytest.approx(want, rel=1e-6, abs=1e-9)
    assert t == pytest.approx(want, rel=1e-6, abs=1e-9)
