"""A long function (1000 lines of loops, branches, array code and helper calls) is derived in both modes, and
its derivatives are right (issue 11).

The walks over a function's control flow (ir/regions.py, emit/structure.py) went one call deeper for every
`if` or loop in sequence: as deep as the function was long.  They now go as deep as the syntax nests, so
these functions are derived under a recursion limit well below their length, not only under the limit
mooncake_ast raises while deriving (forward/generate.py DEEP_STACK)."""
from __future__ import annotations

import importlib.util
import sys

import numpy as np
import mooncake_ast as mc
from mooncake_ast.forward import generate

HEAD = '''\
import numpy as np

W = np.linspace(-1.0, 1.0, 36).reshape(4, 3, 3)


def _step(h, s):
    return h * s / (1.0 + s * s)


def _norm2(v):
    total = 0.0
    for k in range(len(v)):
        total = total + v[k] * v[k]
    return total


def f(x):
    acc = 0.0
    b = 0.5
'''


def _block(i: int, kind: str) -> list[str]:
    """One block of the long function: each kind a different mix of the constructs people write."""
    c = round(0.1 * (i % 5) + 0.1, 2)
    if kind == "layer":
        return [f"    h{i} = np.tanh(W[{i % 4}] @ x + b * {c})",
                f"    s{i} = 0.0",
                "    for j in range(3):",
                f"        if h{i}[j] > 0.0:",
                f"            s{i} = s{i} + h{i}[j] * h{i}[j]",
                "        else:",
                f"            s{i} = s{i} - 0.5 * h{i}[j]",
                f"    x = x + 0.1 * _step(h{i}, s{i})",
                f"    while s{i} > 1.0:",
                f"        s{i} = s{i} * 0.5",
                f"    acc = acc + s{i} + 0.01 * _norm2(x) / {i + 1}"]
    if kind == "chain":
        return [f"    t{i} = np.sum(x) * {c}",
                f"    if t{i} < -0.5:",
                f"        acc = acc + 0.01 * t{i}",
                f"    elif t{i} < 0.0:",
                f"        acc = acc - 0.02 * t{i} * t{i}",
                f"    elif t{i} < 0.5:",
                f"        acc = acc + np.sin(t{i}) * 0.01",
                "    else:",
                f"        acc = acc + 0.001 * np.exp(-t{i})"]
    if kind == "search":
        return ["    for k in range(3):",
                f"        if x[k] > {c + 5.0}:",
                "            break",
                "        acc = acc + 0.001 * x[k] * x[k]",
                "    else:",
                "        acc = acc * 0.999"]
    return [f"    x = 0.99 * x + 0.001 * np.cos(x * {c})",  # straight-line array code
            f"    acc = acc + 0.001 * np.dot(x, x) * {c}"]


def long_function_source(n_lines: int) -> str:
    lines = HEAD.splitlines()
    start, i = len(lines), 0
    kinds = ["layer", "chain", "search", "straight"]
    while len(lines) - start < n_lines - 1:
        lines.append(f"    # block {i}")
        lines += _block(i, kinds[i % len(kinds)])
        i += 1
    lines.append("    return acc")
    return "\n".join(lines) + "\n"


def _module(tmp_path, name: str, text: str):
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def test_the_generated_function_is_as_long_as_asked():
    text = long_function_source(1000)
    body = text.split("def f(x):\n", 1)[1]
    assert 1000 <= len(body.splitlines()) <= 1015
    for construct in ("for j in range(3):", "elif", "while", "break", "_step(", "_norm2(", "@"):
        assert construct in body, construct


def test_a_1000_line_function_is_derived_in_both_modes_under_a_shallow_stack(tmp_path, monkeypatch):
    """check_derivatives compares forward mode and reverse mode with finite differences, at two points (the
    branches taken differ); the recursion limit while deriving is 400, well below the function's length (its
    syntax nests 4 deep)."""
    monkeypatch.setattr(generate, "DEEP_STACK", 400)
    m = _module(tmp_path, "long_fn_1000", long_function_source(1000))
    limit = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(400)
        reports = [mc.testing.check_derivatives(m.f, point)
                   for point in (np.array([0.3, -0.2, 0.5]), np.array([-0.7, 0.1, 0.05]))]
    finally:
        sys.setrecursionlimit(limit)
    for report in reports:
        assert any(c.startswith("forward ok") for c in report.checks), report
        assert any(c.startswith("reverse ok") for c in report.checks), report


def test_the_long_functions_gradient_matches_finite_differences_of_its_value(tmp_path):
    """An independent check of the gradient's value: central differences of f itself."""
    m = _module(tmp_path, "long_fn_values", long_function_source(600))
    x = np.array([0.2, 0.4, -0.3])
    g = mc.grad(m.f)(x)
    h = 1e-6
    fd = np.array([(m.f(x + h * e) - m.f(x - h * e)) / (2 * h) for e in np.eye(3)])
    assert np.allclose(g, fd, rtol=1e-5, atol=1e-8)
    _, t = mc.jvp(m.f, (x,), (np.array([1.0, -2.0, 0.5]),))
    assert np.isclose(t, fd @ np.array([1.0, -2.0, 0.5]), rtol=1e-5, atol=1e-8)


def _cycle_blocks_by_search(ir) -> set:
    """The blocks on a cycle, found as they were before (a search from every block): the reference."""
    out = set()
    for b in ir.blocks:
        seen, work = set(), list(b.successors())
        while work:
            c = work.pop()
            if c is b:
                out.add(b)
                break
            if c not in seen:
                seen.add(c)
                work.extend(c.successors())
    return out


LOOP_SHAPES = {
    "straight": "def f(x):\n    return x * 2.0\n",
    "nested": "def f(x):\n    s = 0.0\n    for i in range(3):\n        j = 0\n        while j < i:\n"
              "            s = s + x * j\n            j = j + 1\n    return s\n",
    "while_true_break": "def f(x):\n    while True:\n        x = x * 0.5\n        if x < 1.0:\n            break\n    return x\n",
    "for_else_continue": "def f(x):\n    s = 0.0\n    for i in range(4):\n        if i == 1:\n            continue\n"
                         "        if i == 3:\n            break\n        s = s + x\n    else:\n        s = s * 2.0\n    return s\n",
    "loops_in_branches": "def f(x):\n    if x > 0:\n        for i in range(2):\n            x = x + 1.0\n    else:\n"
                         "        while x < 0:\n            x = x + 2.0\n    for k in range(2):\n        x = x * 1.5\n    return x\n",
    "try_in_loop": "def f(x):\n    s = 0.0\n    for i in range(3):\n        try:\n            s = s + x / (i - 1)\n"
                   "        except ZeroDivisionError:\n            s = s + 1.0\n    return s\n",
}


def test_the_blocks_on_cycles_are_those_a_search_from_every_block_finds(tmp_path):
    """forward/finishing._blocks_in_loops (strongly connected components, linear) against the quadratic search it
    replaced, on loop shapes and on the long function."""
    from mooncake_ast.forward.finishing import _blocks_in_loops
    from mooncake_ast.frontend.source import function_source
    from mooncake_ast.frontend.statements import lower_function

    shapes = dict(LOOP_SHAPES, long=long_function_source(200))
    for name, text in shapes.items():
        m = _module(tmp_path, f"cycles_{name}", text)
        ir = lower_function(m.f, function_source(m.f))
        found = _blocks_in_loops(ir)
        assert found == _cycle_blocks_by_search(ir), name
        assert bool(found) == (name != "straight"), name
