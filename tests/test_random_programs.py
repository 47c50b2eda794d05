"""Randomly generated programs (hypothesis): straight-line code, ifs, loops with break, calls.

Each program is written to a real module file (so its source can be read), then checked by
check_derivatives in both modes: finite differences for forward mode, the dot-product test
for reverse mode.  Expressions are built to stay smooth and bounded (tanh, sin, division by
1 + v*v), and points near kinks (max/min ties, branch thresholds) are skipped, so a
failure is a derivative bug, not numerical noise.
"""
import importlib.util
import itertools
import os
import tempfile

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import mooncake_ast as mc

UNARY = ["math.sin({})", "math.cos({})", "math.tanh({})", "math.exp(0.3 * {})", "({}) ** 2", "-({})",
         "math.sqrt(1.0 + ({}) ** 2)", "abs({}) + 1.0", "math.log(1.5 + math.sin({}))"]
BINARY = ["{} + {}", "{} - {}", "{} * {}", "{} / (1.0 + {} ** 2)", "max({}, {})", "min({}, {})"]
_counter = itertools.count()


@st.composite
def expressions(draw, names, depth=0):
    if depth >= 2 or draw(st.booleans()):
        leaf = draw(st.sampled_from(names + ["0.7", "1.3"]))
        return leaf
    if draw(st.booleans()):
        return draw(st.sampled_from(UNARY)).format(draw(expressions(names, depth + 1)))
    a, b = draw(expressions(names, depth + 1)), draw(expressions(names, depth + 1))
    return draw(st.sampled_from(BINARY)).format(a, b)


@st.composite
def programs(draw):
    names = ["x", "y"]
    lines = ["def f(x, y):"]
    for k in range(draw(st.integers(1, 5))):
        v = f"v{k}"
        kind = draw(st.sampled_from(["assign", "if", "for", "while", "helper"]))
        e = draw(expressions(names))
        if kind == "assign":
            lines.append(f"    {v} = {e}")
        elif kind == "if":
            c1, c2 = draw(st.sampled_from(["x", "y"])), draw(st.sampled_from(["x", "y"]))
            lines += [f"    if {c1} > {c2} + 0.05:", f"        {v} = {e}", "    else:",
                      f"        {v} = {draw(expressions(names))}"]
        elif kind == "for":
            n = draw(st.integers(0, 4))
            lines += [f"    {v} = 0.0", f"    for i in range({n}):", f"        {v} = {v} * 0.5 + math.sin(i * {e})"]
            if draw(st.booleans()):
                lines += [f"        if i >= {draw(st.integers(0, 3))}:", "            break"]
        elif kind == "while":
            lines += [f"    {v} = {e}", "    k = 0", "    while k < 3:", f"        {v} = math.tanh({v}) + 0.1 * {v}",
                      "        k += 1"]
        else:
            lines.append(f"    {v} = helper({e}, scale={draw(st.sampled_from(names))})")
        names.append(v)
    lines.append(f"    return {' + '.join(names[2:]) or 'x'} + 0.0 * y")
    return "\n".join(["import math", "", "", "def helper(a, scale=1.0):", "    return math.sin(a) * scale", "", ""] + lines) + "\n"


_dir = tempfile.mkdtemp(prefix="mooncake-ast-random-")


def _load(source):
    path = os.path.join(_dir, f"prog{next(_counter)}.py")
    with open(path, "w") as f:
        f.write(source)
    spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.f


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(), st.floats(0.3, 1.7), st.floats(0.3, 1.7))
def test_random_programs_in_both_modes(source, x, y):
    # Stay away from kinks: ties of max/min, and branch conditions x > y + 0.05 flipping.
    assume(abs(x - y) > 0.02 and abs(abs(x - y) - 0.05) > 0.02)
    f = _load(source)
    try:
        mc.testing.check_derivatives(f, x, y, modes=("forward", "reverse"), rtol=1e-4, atol=1e-6)
    except mc.testing.DerivativeCheckError as e:
        pytest.fail(f"{e}\n--- program ---\n{source}")
