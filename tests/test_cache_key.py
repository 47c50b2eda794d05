"""What a warm cache hit computes and loads: the key's description of rules (mooncake_ast/cache_key.py,
rules/registry.key_fingerprint) and the run-time namespace generated modules import (mooncake_ast/runtime.py).

In-process and quick; the scenarios across processes (edits of functions, callees and library files) are in
test_cache.py.  Nothing here is timed (examples/bench_startup.py measures)."""
import importlib.util
import math
import os
import sys
import time

import numpy as np

import mooncake_ast as mc
from mooncake_ast import cache_key, library_scan, runtime
from mooncake_ast.rules import registry


def _module(tmp_path, name, text):
    """A module of `text` from a file of its own (the key reads the function's source)."""
    path = tmp_path / f"{name}_{abs(hash(text))}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def test_a_built_in_rule_is_described_by_presence_and_a_user_rule_by_its_fingerprint():
    # Built-in rules are functions of the library's files (the key's library part): no digest of their templates.
    assert cache_key.describe(np.sin).endswith(" rule builtin")
    assert cache_key.describe(len).endswith(" rule zero")  # (a zero rule's fingerprint is a plain word)
    assert " rule " not in cache_key.describe(lambda x: x)  # no rule at all

    def cubed(x):
        return x ** 3

    before = cache_key.describe(cubed)
    assert " rule " not in before

    @mc.frule(cubed)
    def _(primals, tangents):
        (x,), (dx,) = primals, tangents
        return x ** 3, 3.0 * x * x * dx

    first = cache_key.describe(cubed)
    rule = registry.lookup(cubed)
    assert first.endswith(f" rule {rule.fingerprint}") and rule.fingerprint not in ("builtin", "")

    @mc.frule(cubed)
    def _(primals, tangents):
        (x,), (dx,) = primals, tangents
        return x ** 3, 30.0 * x * x * dx  # another rule: another description, so another key

    assert cache_key.describe(cubed) != first


def test_a_user_rule_for_a_builtin_callable_changes_the_key(tmp_path):
    m = _module(tmp_path, "key_user_rule", "import math\n\ndef f(x):\n    return math.erf(x) * 2.0\n")
    before = cache_key.derivative_key(m.f, "forward")
    assert cache_key.describe(math.erf).endswith(" rule builtin")
    saved = registry.lookup_exact(math.erf)
    fields = {k: getattr(saved, k) for k in ("jvp", "zero", "mutates", "user_frule", "user_rrule", "vjp", "fingerprint_of",
                                           "jvp_template")}
    changed = dict(registry._CHANGED)
    try:
        @mc.frule(math.erf)
        def _(primals, tangents):
            (x,), (dx,) = primals, tangents
            return math.erf(x), 2.0 / math.sqrt(math.pi) * math.exp(-x * x) * dx

        assert not cache_key.describe(math.erf).endswith(" rule builtin")
        assert cache_key.derivative_key(m.f, "forward") != before
    finally:  # (the built-in rule back, for the tests that follow)
        for k, v in fields.items():
            setattr(saved, k, v)
        registry._CHANGED.clear()
        registry._CHANGED.update(changed)
        registry._VERSION[0] += 1
    assert cache_key.derivative_key(m.f, "forward") == before


def test_the_key_follows_the_functions_text_and_callees_code(tmp_path):
    text = "def helper(x):\n    return x * x\n\ndef f(x):\n    return helper(x) + 1.0\n"
    a = _module(tmp_path, "key_text", text)
    key = cache_key.derivative_key(a.f, "forward")
    assert cache_key.derivative_key(a.f, "forward") == key
    assert cache_key.derivative_key(a.f, "reverse:[('x', 'num')]") != key
    callee = _module(tmp_path, "key_text", text.replace("x * x", "x * x * x"))
    assert cache_key.derivative_key(callee.f, "forward") != key
    # the function edited in place in its file: the key follows the text (read through linecache, checked
    # against the file's size and time)
    with open(a.__file__, "w") as fh:
        fh.write(text.replace("+ 1.0", "+ 2.0"))
    t = time.time() + 2
    os.utime(a.__file__, (t, t))
    spec = importlib.util.spec_from_file_location("key_text", a.__file__)
    edited = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(edited)
    assert cache_key.derivative_key(edited.f, "forward") != key


def test_the_source_digest_reads_the_lines_python_compiled_and_their_encoding(tmp_path):
    """A file linecache does not hold is read as bytes (cache_key._file_lines): split where a text read
    splits lines, and a new encoding declaration is a new text even where the function's bytes stay."""
    mixed = tmp_path / "mixed.py"
    mixed.write_bytes(b"a = 1\r\nb = 2\rc = 3\n# form feed \x0c and \x1c stay inside a line\n")
    lines = cache_key._file_lines(str(mixed), {})
    with open(mixed, newline=None) as fh:  # (universal newlines, as linecache and the compiler read it)
        assert [line.rstrip(b"\r\n").decode() for line in lines] == [line.rstrip("\n") for line in fh.readlines()]
    assert len(lines) == 4 and b"".join(lines) == mixed.read_bytes()
    body = b"\n\ndef f(x):\n    s = '\x80'\n    return x * x\n"
    path = tmp_path / "declared.py"
    digests = []
    for declared in (b"latin-1", b"cp1252"):  # (b'\x80' is '\x80' in one, the euro sign in the other)
        path.write_bytes(b"# -*- coding: " + declared + b" -*-" + body)
        spec = importlib.util.spec_from_file_location("declared", path)
        m = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(m)
        assert str(path) not in __import__("linecache").cache
        digests.append(cache_key.source_digest(m.f))
    assert digests[0] != digests[1]


def test_the_library_scan_sees_each_python_file(tmp_path, monkeypatch):
    """The library's fingerprint (library_scan.library_fingerprint) reads every .py file's state: an edit
    in place (same size, same inode), a new file in a subpackage; not bytecode or dot-named folders."""
    (tmp_path / "sub" / "__pycache__").mkdir(parents=True)
    (tmp_path / ".hidden").mkdir()
    for rel in ("a.py", "sub/b.py", "sub/__pycache__/b.cpython-311.pyc", ".hidden/c.py", "data.txt"):
        (tmp_path / rel).write_text("x = 1\n")

    def scan():
        names: list = []
        states: list = []
        library_scan._scan(str(tmp_path), "", names, states)
        return names, states

    names, states = scan()
    assert names == ["a.py", "sub/b.py"] and len(states) == 6 and -1 not in states
    (tmp_path / "sub" / "__pycache__" / "b.cpython-311.pyc").write_text("y = 22\n")
    (tmp_path / ".hidden" / "c.py").write_text("y = 22\n")
    assert scan() == (names, states)
    b = tmp_path / "sub" / "b.py"
    ino = b.stat().st_ino
    with open(b, "r+") as fh:
        fh.write("x = 2\n")  # (in place: same size, same inode)
    later = b.stat().st_mtime_ns + 2_000_000_000
    os.utime(b, ns=(later, later))
    assert b.stat().st_ino == ino and scan()[0] == names and scan()[1] != states
    (tmp_path / "sub" / "new.py").write_text("")
    assert scan()[0] == ["a.py", "sub/b.py", "sub/new.py"]
    found = scan()
    monkeypatch.setattr(library_scan, "_SCAN_DIR", not library_scan._SCAN_DIR)  # (by paths where there is no dir_fd)
    assert scan() == found


def test_the_run_time_namespace_binds_what_its_star_imports_would():
    """runtime.py finds helpers when first asked for; what it finds is what `from <source> import *`, in
    _SOURCES' order, would have bound (a later source wins)."""
    import importlib

    expected: dict = {}
    for modname, names in runtime._SOURCES:
        module = importlib.import_module(modname, "mooncake_ast")
        if names is None:
            public = getattr(module, "__all__", None)
            names = public if public is not None else [n for n in vars(module) if not n.startswith("_")]
        for n in names:
            expected[n] = getattr(module, n)
    assert len(expected) > 200
    wrong = [n for n, v in expected.items() if getattr(runtime, n) is not v]
    assert wrong == []
    assert runtime.acc is sys.modules["mooncake_ast.reverse.shadows"].acc and "acc" in vars(runtime)  # kept once found
    assert getattr(runtime, "no_such_helper", None) is None and getattr(runtime, "_private", None) is None
