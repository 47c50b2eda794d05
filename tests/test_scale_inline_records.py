"""Inlining helpers and recording the forward pass's path stay linear in the size of a function (issue 11), and
the shortcuts that make them so change nothing they make.

reverse/inline.py keeps an index per round (each statement's block, what reads it, a superset of the global
names read) instead of scanning the whole function for each call it puts in line, and lowers a callee it must
refuse whatever the call only once; reverse/record_edges.py updates only the predecessors a split edge changes
and answers every while loop's "which predecessors are back edges" from one dominator tree; reverse/record.py
puts the run-time dispatches of a block in place in one rebuild of its statements.  With the switches
off (`inline.INDEXED`, `record_edges.INCREMENTAL`) each does the whole-function work as before: the generated
modules must be the same text, character for character, both ways, and the derivatives right.  Nothing here is
timed (examples/bench_startup.py measures)."""
from __future__ import annotations

import importlib.util
import inspect
import os
import sys

import numpy as np
import pytest

from mooncake_ast.forward.generate import forward_source_text
from mooncake_ast.ir import analysis
from mooncake_ast.reverse import inline, record_edges
from mooncake_ast.reverse.argument_kinds import kinds_of
from mooncake_ast.reverse.generate import reverse_source_text
from mooncake_ast.testing import check_derivatives
from tests import test_inline

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples"))
import bench_startup  # noqa: E402  (the size benchmark's program generators)


def load(tmp_path, name, source):
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def helpers_and_objects(n: int) -> str:
    """`n` blocks calling module helpers, methods and a property of a plain class, a helper taking `*values`
    and `**options`, and a helper too long to put in line, with while loops (a counter each) between."""
    lines = ["import numpy as np", "", "",
             "class Layer:",
             "    def __init__(self, w, b):",
             "        self.w = w",
             "        self.b = b",
             "",
             "    def apply(self, x):",
             "        return np.tanh(self.w * x + self.b)",
             "",
             "    @property",
             "    def scale(self):",
             "        return self.w * self.w + 1.0",
             "", "",
             "def _total(*values, **options):",
             "    return sum(values) * options.get('k', 1.0)",
             "", "",
             "def _long(v):"]
    lines += [f"    v = v * 1.01 + {k / 100:.2f}" for k in range(70)]
    lines += ["    return v", "", "", "def f(x):", "    acc = 0.0"]
    for i in range(n):
        lines += [f"    layer{i} = Layer({0.3 + 0.1 * (i % 4):.1f}, {0.1 * (i % 3):.1f})",
                  f"    y{i} = layer{i}.apply(x) / layer{i}.scale",
                  f"    t{i} = _total(y{i}[0], y{i}[1], k={1 + i % 2}.0)",
                  f"    s{i} = np.sum(y{i} * y{i}) + t{i}",
                  f"    while s{i} > 0.5:",
                  f"        s{i} = s{i} * 0.5",
                  f"    acc = acc + s{i} + 0.001 * _long(s{i})"]
    lines += ["    return acc"]
    return "\n".join(lines) + "\n"


def _kinds(fn, args):
    names = list(inspect.signature(fn).parameters)
    return dict(zip(names, kinds_of(tuple(args))))


def _both_ways(monkeypatch, fn, kinds):
    made = reverse_source_text(fn, kinds)[0], forward_source_text(fn)[0]
    monkeypatch.setattr(inline, "INDEXED", False)
    monkeypatch.setattr(record_edges, "INCREMENTAL", False)
    plain = reverse_source_text(fn, kinds)[0], forward_source_text(fn)[0]
    monkeypatch.undo()
    return made, plain


SOURCES = {
    "helpers_and_objects": lambda: helpers_and_objects(40),
    "realistic": lambda: bench_startup.realistic_function_source(200),
    "if_blocks": lambda: bench_startup.if_blocks_source(40),
    "long": lambda: bench_startup.long_function_source(160),  # (one block, calls dispatched at run time)
}


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_long_functions_make_the_same_modules(tmp_path, monkeypatch, name):
    m = load(tmp_path, f"inline_records_{name}", SOURCES[name]())
    x = 0.3 if name in ("if_blocks", "long") else np.array([0.3, -0.2, 0.5])
    made, plain = _both_ways(monkeypatch, m.f, _kinds(m.f, (x,)))
    assert made[0] == plain[0]
    assert made[1] == plain[1]


@pytest.mark.parametrize("fn,args", test_inline.CASES, ids=[f.__name__ for f, _ in test_inline.CASES])
def test_inlined_helpers_make_the_same_modules(monkeypatch, fn, args):
    made, plain = _both_ways(monkeypatch, fn, _kinds(fn, args))
    assert made == plain


def test_a_refused_callee_is_lowered_once(tmp_path, monkeypatch):
    """(So the comparison above compares something: `_long` is too long for every call of it, and was lowered
    again for each of its calls.)"""
    from mooncake_ast.frontend import statements

    m = load(tmp_path, "inline_records_lowered", helpers_and_objects(6))
    lowered = []
    real = statements.lower_function

    def counted(fn, *a, **k):
        lowered.append(fn.__name__)
        return real(fn, *a, **k)

    def count_for(indexed):
        monkeypatch.setattr(inline, "INDEXED", indexed)
        lowered.clear()
        reverse_source_text(m.f, _kinds(m.f, (np.ones(3),)))
        return lowered.count("_long"), lowered.count("apply")

    monkeypatch.setattr(statements, "lower_function", counted)
    (long_indexed, apply_indexed), (long_scanned, apply_scanned) = count_for(True), count_for(False)
    assert long_scanned >= long_indexed + 5  # (once for its six calls and the rounds, not once for each)
    assert apply_indexed == apply_scanned == 6  # (each put in line: a callee of its own)


def test_one_dominator_tree_for_all_while_counters(tmp_path, monkeypatch):
    m = load(tmp_path, "inline_records_whiles", helpers_and_objects(8))
    built = []
    real = analysis.DominatorTree.__init__

    def counted(self, fn):
        built.append(fn)
        real(self, fn)

    def count_for(incremental):
        monkeypatch.setattr(record_edges, "INCREMENTAL", incremental)
        built.clear()
        reverse_source_text(m.f, _kinds(m.f, (np.ones(3),)))
        return len(built)

    monkeypatch.setattr(analysis.DominatorTree, "__init__", counted)
    assert count_for(True) + 8 <= count_for(False)  # (two per while loop before: one per predecessor)


@pytest.mark.parametrize("n", [3, 12])
def test_helpers_and_objects_derivatives(tmp_path, n):
    m = load(tmp_path, f"inline_records_right_{n}", helpers_and_objects(n))
    for x in (np.array([0.3, -0.2, 0.5]), np.array([1.1, 0.4, -0.9])):
        check_derivatives(m.f, x)
