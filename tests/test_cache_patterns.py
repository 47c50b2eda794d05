"""Regular expressions compiled during generation and the library's import are made from programs kept in the
cache (mooncake_ast/cache_patterns.py, issue 11): the pattern made from a kept program is the pattern `re` makes
(equal: same program, flags, groups), and anything unusable is a silent miss.  Behaviour only, nothing timed."""
import json
import os
import re
import subprocess
import sys
import textwrap

import pytest

from mooncake_ast import cache, cache_classes, cache_patterns

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PATTERNS = [
    (r"\bdef\s+(\w+)", 0),
    (r"(?P<name>[A-Za-z_]\w*)\s*=\s*(?P<value>\d+(?:\.\d*)?)", 0),
    (r"^[ \t]*global[ \t]+([A-Za-z_][\w \t,]*)", re.M),
    (r"caf[eé]|ÉTÉ", re.I),
    (rb"[\x80-\xff]+", 0),
    (r"(a)(?:b)(?P<c>c)?\1", re.S | re.X),
]


@pytest.fixture
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("MOONCAKE_AST_CACHE_DIR", str(tmp_path / "cache"))
    cache.open_dir().close()
    monkeypatch.setattr(cache_patterns, "_KEPT", cache_patterns._Kept())
    return tmp_path


def _fresh(pattern, flags):
    """A pattern object made by `re`'s own compiler, bypassing re's per-process cache."""
    return cache_patterns._ORIGINAL(pattern, flags)


@pytest.mark.parametrize("pattern, flags", PATTERNS)
def test_a_kept_program_makes_the_pattern_re_makes(private_cache, pattern, flags):
    re.purge()
    with cache_classes.KeptCode():
        first = re.compile(pattern, flags)
    assert cache_patterns.STATS["compiled"] >= 1
    cache_patterns._KEPT.known = None  # (as a new process: read from the file)
    re.purge()
    with cache_classes.KeptCode():
        again = re.compile(pattern, flags)
    assert cache_patterns.STATS == {"compiled": 0, "kept": 1}
    want = _fresh(pattern, flags)
    assert again == want == first and again.groupindex == want.groupindex and again.flags == want.flags
    subject = "x = 12.5 def f aba abca café ÉTÉ global a, b" if isinstance(pattern, str) else b"ab\x90\x91c"
    assert [m.span() for m in again.finditer(subject)] == [m.span() for m in want.finditer(subject)]


def test_outside_a_period_re_is_untouched(private_cache):
    re.purge()
    assert re._compiler.compile is cache_patterns._ORIGINAL
    with cache_classes.KeptCode():
        assert re._compiler.compile is cache_patterns._compile
        with cache_classes.KeptCode():  # (nested: one period)
            pass
        assert re._compiler.compile is cache_patterns._compile
    assert re._compiler.compile is cache_patterns._ORIGINAL


def test_a_bad_pattern_raises_as_before_and_is_not_kept(private_cache):
    re.purge()
    with cache_classes.KeptCode():
        with pytest.raises(re.error):
            re.compile(r"(unclosed")
    assert not any(k[0] == r"(unclosed" for k in cache_patterns._KEPT.programs() if isinstance(k, tuple))


def test_unusable_programs_are_a_silent_miss(private_cache):
    """A kept program _sre refuses, a file of another interpreter or a torn one: the pattern is compiled by `re`."""
    pattern = r"\b(map|filter|sorted)\s*\("
    re.purge()
    with cache_classes.KeptCode():
        re.compile(pattern)
    known = cache_patterns._KEPT.programs()
    flags, code, groups, gi, ig = known[(pattern, 0)]
    known[(pattern, 0)] = (flags, [999999] + code[1:], groups, gi, ig)  # (garbage: refused by _sre's check)
    re.purge()
    with cache_classes.KeptCode():
        made = re.compile(pattern)
    assert made == _fresh(pattern, 0) and cache_patterns.STATS["compiled"] == 1
    path = os.path.join(str(cache.cache_root()), cache_patterns.file_name())
    data = open(path, "rb").read()
    for bad in (data[: len(data) // 2], b"\0" * 4 + data[4:], data[:-1] + bytes([data[-1] ^ 1])):
        with open(path, "wb") as fh:
            fh.write(bad)
        cache_patterns._KEPT.known = None
        re.purge()
        with cache_classes.KeptCode():
            made = re.compile(pattern)
        assert made == _fresh(pattern, 0) and cache_patterns.STATS == {"compiled": 1, "kept": 0}


def test_a_second_process_makes_generation_s_patterns_from_the_file(tmp_path):
    (tmp_path / "user_mod.py").write_text("import numpy as np\n\n\ndef f(x):\n    return np.sum(np.sin(x) * x) + 1.5\n")
    code = textwrap.dedent("""\
        import json, sys
        import numpy as np
        import mooncake_ast as mc
        from mooncake_ast import cache_patterns
        import user_mod
        g = mc.grad(user_mod.f)(np.array([0.5, -1.0]))
        print(json.dumps({"grad": g.tolist(), "stats": cache_patterns.STATS}))
        """)
    env = dict(os.environ, MOONCAKE_AST_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=os.pathsep.join([str(tmp_path), ROOT, os.environ.get("PYTHONPATH", "")]))
    outs = []
    for _ in range(2):
        (tmp_path / "user_mod.py").write_text((tmp_path / "user_mod.py").read_text() + "\n")  # (a new derivation)
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=180,
                           cwd=str(tmp_path))
        assert p.returncode == 0, p.stderr[-3000:]
        outs.append(json.loads(p.stdout.strip().splitlines()[-1]))
    assert outs[0]["grad"] == outs[1]["grad"]
    assert outs[1]["stats"]["compiled"] == 0 and outs[1]["stats"]["kept"] > 3
