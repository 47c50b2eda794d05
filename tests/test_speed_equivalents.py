"""The string tests and shortcuts that replaced patterns, literal_eval and dataclasses on the way to a
first derivative (issue 11) give what those gave."""
from __future__ import annotations

import ast
import re

import libcst as cst
import pytest

from mooncake_ast import cache, cache_evict
from mooncake_ast.emit.module import _reads_name
from mooncake_ast.emit.numbered import readings
from mooncake_ast.frontend.expressions import number_value
from mooncake_ast.frontend.scopes import _scope_names
from mooncake_ast.ir.regions import Edge, Seq

ENTRY_NAMES = ["a.forward.0123456789abcdef.py", "m.C.f.reverse.0123456789abcdef.py", ".forward.0123456789abcdef.py",
               "a.forward.0123456789abcdeF.py", "a.forward.0123456789abcde.py", "a.backward.0123456789abcdef.py",
               "a.forward.0123456789abcdef.pyc", "x.py", "a.reverse.0123456789abcdef.py.py", "..reverse.0123456789abcdef.py",
               ".code-0123456789abcdef01234567", ".tmp-12-ab.py"]


def test_entry_names_read_as_the_pattern_reads_them():
    for name in ENTRY_NAMES:
        m = cache.ENTRY_RE.match(name)
        assert cache.entry_parts(name) == (None if m is None else (m["function"], m["mode"], m["hash"])), name


def test_temporary_names_read_as_the_pattern_read_them():
    pattern = re.compile(r"^\.tmp-(?P<pid>\d+)-[0-9a-f]+\.py$")
    for name in [".tmp-123-abc.py", ".tmp-123-.py", ".tmp--ab.py", ".tmp-12-xyz.py", ".tmp-1-ab-c.py", "x.py", ".tmp-7-0f.pyc"]:
        m = pattern.match(name)
        assert cache_evict._tmp_pid(name) == (None if m is None else int(m["pid"])), name


def test_numbered_names_read_as_the_patterns_read_them():
    numbered, temp = re.compile(r"(.+)_([1-9][0-9]*)"), re.compile(r"t([1-9][0-9]*)")
    for name in ["x", "x_2", "x_1", "x_02", "x__3", "_3", "t1", "t0", "t01", "t12", "a_b_10", "x_", "t", "tt1", "t1_2",
                 "x_\u0663", "t\u0663", "__2"]:
        want = [(name, 1)]
        m = numbered.fullmatch(name)
        if m and int(m[2]) >= 2:
            want.append((m[1], int(m[2])))
        m = temp.fullmatch(name)
        if m:
            want.append((None, int(m[1])))
        assert readings(name) == want, name


def test_each_numbered_candidate_is_read_back_by_its_index():
    """emit/names.py finds the holders of `candidate(base, c)` by (base, c) among the readings of the names held:
    every candidate must be read back as its own (base, index)."""
    from mooncake_ast.emit.numbered import candidate

    for base in [None, "x", "x_2", "t", "_", "a__3", "y_stack", "t1", "\u00e9"]:
        for c in (1, 2, 3, 10, 101):
            assert (base, c) in readings(candidate(base, c)), (base, c)


@pytest.mark.parametrize("text", ["np.sin(x)", "2np + x", "xnp", "np_x", "a.np", "_mc.acc(np)", "\u00e9np", "1_np", "",
                                  "np", "x = 1\nnp2 = np"])
def test_the_names_a_body_reads_are_the_words_the_pattern_finds(text):
    words = set(re.findall(r"[A-Za-z_]\w*", text))
    for name in ("np", "_mc", "x"):
        assert _reads_name(text, name) == (name in words)


def test_number_literals_have_literal_evals_values():
    for text in ["0", "0x_ff", "0o17", "0b1_0", "1_000", "00", "1e-3", "1E+3_0", ".5", "5.", "1_0.0_1", "1e400",
                 "9007199254740993.0", "1j", "1_0J", "1.5e3j", "123456789012345678901234567890"]:
        node = cst.parse_expression(text)
        want, got = ast.literal_eval(text), number_value(node)
        assert type(got) is type(want) and repr(got) == repr(want), text


SCOPES = '''
def plain(x, *a, k=1, **kw):
    y = [z * 2 for z in a]
    f = lambda q: q + y
    for i, (u, v) in enumerate(a):
        w: float = u
        w += v
    with open(x) as (fh, gh):
        import os.path
        from math import sin as s
    class C:
        pass
    def g():
        nonlocal y
    global G
    return f
def walrus(x):
    if (n := len(x)) > 1:
        return [m := e for e in x]
    return (lambda: (r := 1))()
'''


def test_the_scope_walk_without_expressions_finds_the_same_names():
    module = cst.parse_module(SCOPES)
    for node in module.body:
        text = module.code_for_node(node)
        assert _scope_names(node, text) == _scope_names(node), node.name.value
    assert "n" in _scope_names(module.body[1], module.code_for_node(module.body[1]))[0]


def test_regions_compare_and_hash_as_their_dataclasses_did():
    a, b = Edge(1, 2, "next"), Edge(1, 2, "next")
    assert a == b and not a != b and a != Edge(1, 3, "next") and Seq([a]) == Seq([b]) and a != "next"
    assert repr(a) == "Edge(src=1, dst=2, kind='next')"
    with pytest.raises(TypeError):
        hash(a)
