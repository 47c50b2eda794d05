"""The shortcuts that keep derivation linear in the size of a function (issue 11) change nothing it makes.

Each shortcut skips work whose answer is known another way: phi operands found by the ancestor masks
instead of a walk back to the entry (ir/builder.py `_operand`), the naming pass jumping over indices
that groups live at a definition hold (emit/names.py `_IndexOfBit`), `_temp_name` starting where it
stopped.  So the generated modules must be the same text, character for character, with the shortcuts
and without them, for functions long enough that they are taken (many loops reading adjoints set at the
pullback's entry; a forward pass with hundreds of temporaries live at once), and the derivatives right.
Nothing here is timed (examples/bench_startup.py measures)."""
from __future__ import annotations

import importlib.util
import os
import sys

import numpy as np
import pytest

from mooncake_ast.emit import names as naming
from mooncake_ast.forward.generate import forward_source_text
from mooncake_ast.ir import builder as ssa
from mooncake_ast.reverse.argument_kinds import kinds_of
from mooncake_ast.reverse.generate import reverse_source_text
from mooncake_ast.testing import check_derivatives

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples"))
import bench_startup  # noqa: E402  (the size benchmark's program generators)


def load(tmp_path, name, source):
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def loops_and_temporaries(n: int) -> str:
    """`n` blocks, each a loop over a vector with a branch and a while loop, values kept to the end (their
    temporaries are live at once across the forward pass)."""
    lines = ["import numpy as np", "", "", "def f(x):", "    acc = 0.0", "    keep = []"]
    for i in range(n):
        lines += [f"    h{i} = np.tanh(x * {0.1 * (i % 5) + 0.2:.2f}) + {i % 3}.0 * x",
                  f"    s{i} = 0.0",
                  f"    for j in range(3):",
                  f"        if h{i}[j] > 0.3:",
                  f"            s{i} = s{i} + h{i}[j] * h{i}[j]",
                  f"        else:",
                  f"            s{i} = s{i} - 0.5 * h{i}[j]",
                  f"    while s{i} > 2.0:",
                  f"        s{i} = s{i} * 0.5",
                  f"    keep.append(s{i} * x[0])",
                  f"    acc = acc + s{i} * np.sum(x * x) / {i + 1}"]
    lines += ["    total = acc", "    for k in keep:", "        total = total + 0.01 * k", "    return total"]
    return "\n".join(lines) + "\n"


def _plain_operand(self, var, pred, created):
    """ir/builder.py's phi operand as found before the shortcut: the value known there, else a walk."""
    v = self._defs.get(var, {}).get(pred)
    return v if v is not None else self._lookup(var, pred, created)


def _texts(fn, kinds):
    return reverse_source_text(fn, kinds)[0], forward_source_text(fn)[0]


SOURCES = {
    "loops": lambda: loops_and_temporaries(24),
    "realistic": lambda: bench_startup.realistic_function_source(150),
    "if_blocks": lambda: bench_startup.if_blocks_source(60),
    "long": lambda: bench_startup.long_function_source(160),
}


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_the_shortcuts_make_the_same_modules(tmp_path, monkeypatch, name):
    m = load(tmp_path, f"shortcut_{name}", SOURCES[name]())
    x = np.array([0.3, -0.2, 0.5]) if name in ("loops", "realistic") else 0.3
    kinds = {"x": kinds_of((x,))[0]}
    with_shortcuts = _texts(m.f, kinds)
    monkeypatch.setattr(ssa.Builder, "_operand", _plain_operand)
    monkeypatch.setattr(naming, "_TRIES_BEFORE_JUMPS", 10 ** 9)
    without = _texts(m.f, kinds)
    assert with_shortcuts[0] == without[0]
    assert with_shortcuts[1] == without[1]


def test_the_jumps_are_taken_where_temporaries_pile_up(tmp_path, monkeypatch):
    """(So the test above compares something: the naming pass does jump in the long function.)"""
    m = load(tmp_path, "shortcut_jumps", loops_and_temporaries(24))
    calls = []
    real = naming._IndexOfBit.free_indices

    def counted(self, mask):
        calls.append(mask)
        return real(self, mask)

    monkeypatch.setattr(naming._IndexOfBit, "free_indices", counted)
    reverse_source_text(m.f, {"x": kinds_of((np.ones(3),))[0]})
    assert calls


@pytest.mark.parametrize("n", [4, 24])
def test_long_functions_have_right_derivatives(tmp_path, n):
    m = load(tmp_path, f"shortcut_right_{n}", loops_and_temporaries(n))
    for x in (np.array([0.3, -0.2, 0.5]), np.array([1.1, 0.4, -0.9])):
        check_derivatives(m.f, x)


def test_realistic_function_derivative(tmp_path):
    m = load(tmp_path, "shortcut_realistic", bench_startup.realistic_function_source(80))
    check_derivatives(m.f, np.array([0.3, -0.2, 0.5]))
