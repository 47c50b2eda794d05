"""Cache growth (issue 14, item 7): superseded entries, the size cap, dead writers' temporaries.

Each scenario runs in fresh interpreters against a private cache directory, with the user's
module written to a temporary directory and edited between runs, as a user editing a file
and re-running a script does.
"""
import os
import subprocess
import sys
import textwrap
import time

import pytest

from mooncake_ast import cache, cache_evict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

RUN = """\
import sys, math
sys.path.insert(0, {tmp!r})
import mooncake_ast as mc
import user
g = mc.grad(user.f)(0.5)
want = user.df(0.5)
assert abs(g - want) < 1e-9, (g, want)
y, t = mc.jvp(user.f, (0.5,), (1.0,))
assert abs(t - want) < 1e-9, (t, want)
print("ok")
"""


def _user(tmp, k):
    with open(os.path.join(tmp, "user.py"), "w") as fh:
        fh.write(textwrap.dedent(f"""\
            import math


            def f(x):
                return math.sin(x) * {k}.0 + x * x


            def df(x):
                return math.cos(x) * {k}.0 + 2 * x
            """))


def _run(tmp, cache_dir, **env):
    e = dict(os.environ, MOONCAKE_AST_CACHE_DIR=cache_dir, PYTHONPATH=ROOT, PYTHONDONTWRITEBYTECODE="1", **env)
    out = subprocess.run([sys.executable, "-c", RUN.format(tmp=tmp)], env=e, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


def _entries(cache_dir, fn="user.f"):
    return sorted(n for n in os.listdir(cache_dir) if n.startswith(fn + "."))


def test_edits_do_not_pile_up(tmp_path, monkeypatch):
    tmp, cache_dir = str(tmp_path), str(tmp_path / "cache")
    for k in range(1, 6):
        _user(tmp, k)
        _run(tmp, cache_dir)
        names = _entries(cache_dir)
        # one forward and one reverse entry of today's source; earlier versions are gone
        assert len([n for n in names if ".forward." in n]) == 1, names
        assert len([n for n in names if ".reverse." in n]) == 1, names
    _run(tmp, cache_dir)  # and today's entries are hits, still valid
    monkeypatch.setenv("MOONCAKE_AST_CACHE_DIR", cache_dir)
    assert cache.verify_entries() == (2, [])


def test_other_argument_kinds_of_the_same_source_stay(tmp_path):
    tmp, cache_dir = str(tmp_path), str(tmp_path / "cache")
    with open(os.path.join(tmp, "user.py"), "w") as fh:
        fh.write("import numpy as np\n\n\ndef f(x):\n    return np.sum(x * x)\n\n\ndef df(x):\n    return 2 * x\n")
    code = f"""\
import sys
sys.path.insert(0, {tmp!r})
import numpy as np
import mooncake_ast as mc
import user
assert abs(mc.grad(user.f)(0.5) - 1.0) < 1e-12
assert np.allclose(mc.grad(user.f)(np.array([1.0, 2.0])), [2.0, 4.0])
"""
    e = dict(os.environ, MOONCAKE_AST_CACHE_DIR=cache_dir, PYTHONPATH=ROOT)
    assert subprocess.run([sys.executable, "-c", code], env=e, timeout=120).returncode == 0
    assert len([n for n in _entries(cache_dir) if ".reverse." in n]) == 2


def test_size_cap(tmp_path):
    tmp, cache_dir = str(tmp_path), str(tmp_path / "cache")
    _user(tmp, 1)
    _run(tmp, cache_dir)
    os.makedirs(cache_dir, exist_ok=True)
    # old, large entries of other functions: the cap removes them, least recently used first
    for i in range(6):
        path = os.path.join(cache_dir, f"other.g{i}.forward.{i:016x}.py")
        with open(path, "w") as fh:
            fh.write("#" * 300_000)
        os.chmod(path, 0o600)
        t = time.time() - 1000 + i
        os.utime(path, (t, t))
    _user(tmp, 2)
    _run(tmp, cache_dir, MOONCAKE_AST_CACHE_MAX_MB="1")
    total = sum(os.path.getsize(os.path.join(cache_dir, n)) for n in os.listdir(cache_dir))
    assert total <= 1024 * 1024
    left = sorted(n for n in os.listdir(cache_dir) if n.startswith("other."))
    assert left == [f"other.g{i}.forward.{i:016x}.py" for i in range(6 - len(left), 6)]  # the newest stayed
    assert len(_entries(cache_dir)) == 2  # what this run wrote is never evicted


def test_no_cap(monkeypatch):
    monkeypatch.setenv("MOONCAKE_AST_CACHE_MAX_MB", "0")
    assert cache_evict.max_bytes() is None
    monkeypatch.setenv("MOONCAKE_AST_CACHE_MAX_MB", "2")
    assert cache_evict.max_bytes() == 2 * 1024 * 1024
    monkeypatch.setenv("MOONCAKE_AST_CACHE_MAX_MB", "lots")
    assert cache_evict.max_bytes() == cache_evict.DEFAULT_MAX_MB * 1024 * 1024


def _dead_pid():
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_stale_temporaries_are_removed(tmp_path):
    tmp, cache_dir = str(tmp_path), str(tmp_path / "cache")
    _user(tmp, 1)
    _run(tmp, cache_dir)
    dead = _dead_pid()
    old = time.time() - 60
    names = {
        f".tmp-{dead}-aaaaaaaaaaaa.py": old,  # its writer is gone: removed
        f".tmp-{dead}-bbbbbbbbbbbb.py": time.time(),  # just written: a writer could still be at work
        f".tmp-{os.getpid()}-cccccccccccc.py": old,  # a live writer: kept
        f".tmp-{os.getpid()}-dddddddddddd.py": time.time() - 2 * 3600,  # an hour old: removed anyway
    }
    for name, t in names.items():
        path = os.path.join(cache_dir, name)
        with open(path, "w") as fh:
            fh.write("partial")
        os.utime(path, (t, t))
    _user(tmp, 2)
    _run(tmp, cache_dir)
    left = sorted(n for n in os.listdir(cache_dir) if n.startswith(".tmp-"))
    assert left == sorted([f".tmp-{dead}-bbbbbbbbbbbb.py", f".tmp-{os.getpid()}-cccccccccccc.py"])


def test_cli_prune(tmp_path):
    tmp, cache_dir = str(tmp_path), str(tmp_path / "cache")
    _user(tmp, 1)
    _run(tmp, cache_dir)
    first = _entries(cache_dir)
    _user(tmp, 2)
    _run(tmp, cache_dir)
    # put an older version back (as a second process on an older checkout would have written it)
    with open(os.path.join(cache_dir, "user.f.reverse.0123456789abcdef.py"), "w") as fh:
        fh.write(cache.with_header("0123456789abcdef" + "0" * 48, {"source": os.path.join(tmp, "user.py") + ":" + "0" * 16}, "x = 1\n"))
    old = time.time() - 100
    os.utime(os.path.join(cache_dir, "user.f.reverse.0123456789abcdef.py"), (old, old))
    e = dict(os.environ, MOONCAKE_AST_CACHE_DIR=cache_dir, PYTHONPATH=ROOT)
    out = subprocess.run([sys.executable, "-m", "mooncake_ast", "cache", "prune"], env=e, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "user.f.reverse.0123456789abcdef.py (superseded)" in out.stdout
    assert "user.f.reverse.0123456789abcdef.py" not in os.listdir(cache_dir)
    assert len(_entries(cache_dir)) == 2 and not set(first) & set(_entries(cache_dir))
    _run(tmp, cache_dir)


@pytest.mark.parametrize("value", ["", "0.5"])
def test_cap_parsing_accepts_fractions(monkeypatch, value):
    monkeypatch.setenv("MOONCAKE_AST_CACHE_MAX_MB", value)
    assert cache_evict.max_bytes() > 0


def test_after_a_publish_the_directory_is_looked_at_in_full_only_as_it_grows(tmp_path, monkeypatch):
    """Measuring every entry (two stats each) and matching compiled forms to entries would cost every
    derivation time in proportion to the cache's size: after a publish it is done again once the entries
    have grown by an eighth since the last full look, or near the cap (cache_evict.CAP_STATE)."""
    monkeypatch.setenv("MOONCAKE_AST_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(cache, "_memory", {})
    looks = []
    real = cache_evict._enforce_cap
    monkeypatch.setattr(cache_evict, "_enforce_cap", lambda *a: looks.append(a) or real(*a))

    def publish(i, body="def f(x):\n    return x\n"):
        cache.load_module(f"{i:064x}", f"user.f{i}.forward", lambda: (body, {"source": f"user.py:{i}"}))

    for i in range(40):
        publish(i)
    # a full look at each publish while the directory is small, then once per eighth of growth
    assert 5 <= len(looks) < 30
    state = (tmp_path / "cache" / cache_evict.CAP_STATE).read_text().split()
    assert int(state[0]) >= 32 and int(state[1]) > 0
    n = len(looks)
    publish(40)
    assert len(looks) == n  # one more entry in forty: no full look
    # near the cap: every publish looks, and the cap holds
    total = int(state[1])
    monkeypatch.setenv("MOONCAKE_AST_CACHE_MAX_MB", str(total * 0.7 / 1024 / 1024))
    publish(41)
    assert len(looks) == n + 1
    names = os.listdir(tmp_path / "cache")
    size = sum(os.path.getsize(tmp_path / "cache" / m) for m in names if cache.ENTRY_RE.match(m) or cache.is_code_name(m))
    assert size <= total * 0.7
