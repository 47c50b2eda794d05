"""The library's modules that generation imports, served from compiled code kept in the cache
(mooncake_ast/cache_modules.py, issue 11): what a second process takes from the file is what the
import system would have made, and the file is used only for the library files it was made from.

Behaviour only; nothing here is timed (examples/bench_startup.py measures).  The scenarios that
depend on what a process has imported run in fresh interpreters against a private cache."""
import json
import marshal
import os
import subprocess
import sys
import textwrap
from importlib.util import MAGIC_NUMBER

import pytest

from mooncake_ast import cache, cache_admin, cache_modules

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

FIRST = """
    import inspect, json, sys
    import numpy as np
    import mooncake_ast as mc
    from mooncake_ast import cache_modules
    import user
    g = mc.grad(user.{name})(np.array([0.5, -1.0]))
    served = {{m: sys.modules[m] for m in ("mooncake_ast.reverse.transform", "mooncake_ast.frontend.statements")}}
    print(json.dumps({{"grad": g.tolist(), "stats": cache_modules.STATS,
                      "files": {{k: m.__file__ for k, m in served.items()}},
                      "origins": {{k: m.__spec__.origin for k, m in served.items()}},
                      "loaders": {{k: type(m.__loader__).__mro__[1].__name__ for k, m in served.items()}},
                      "source": inspect.getsource(served["mooncake_ast.frontend.statements"].lower_function)[:60],
                      "finder_left": any(type(f).__name__ == "_Finder" for f in sys.meta_path)}}))
    """

USER = """\
import numpy as np


def f(x):
    s = 0.0
    for i in range(len(x)):
        if x[i] > 0:
            s = s + np.sin(x[i]) * x[i]
        else:
            s = s + x[i] ** 3
    return s


def g(x):
    return np.sum(np.exp(x) * x)


def h(x):
    return np.sum(np.tanh(x))
"""


def python(code, cache_dir, tmp_path, **env):
    e = dict(os.environ, MOONCAKE_AST_CACHE_DIR=str(cache_dir),
             PYTHONPATH=os.pathsep.join([str(tmp_path), ROOT, os.environ.get("PYTHONPATH", "")]), **env)
    e.pop("PYTHONDONTWRITEBYTECODE", None)
    p = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=e,
                       timeout=120, cwd=str(tmp_path))
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


def exact_f(x):
    import math
    return [math.sin(v) + v * math.cos(v) if v > 0 else 3 * v * v for v in x]


def test_second_process_takes_the_modules_from_the_cache(tmp_path):
    (tmp_path / "user.py").write_text(USER)
    cache_dir = tmp_path / "cache"
    first = python(FIRST.format(name="f"), cache_dir, tmp_path)
    assert first["stats"]["recorded"] > 20 and first["stats"]["served"] == 0
    kept = cache_dir / cache_modules.file_name()
    assert kept.exists() and (kept.stat().st_mode & 0o777) == 0o600
    second = python(FIRST.format(name="g"), cache_dir, tmp_path)  # another function: generated anew
    assert second["stats"]["served"] > 20
    import math
    assert second["grad"] == pytest.approx([math.exp(v) * (1 + v) for v in (0.5, -1.0)], rel=1e-12)
    assert first["grad"] == pytest.approx(exact_f([0.5, -1.0]), rel=1e-12)
    # what the import system would have made: the files, the source, a SourceFileLoader; the finder gone
    for out in (first, second):
        for name, path in out["files"].items():
            assert path == os.path.join(ROOT, *name.split(".")) + ".py" == out["origins"][name]
        assert set(out["loaders"].values()) == {"SourceFileLoader"}
        assert out["source"].startswith("def lower_function(")
        assert not out["finder_left"]
    # a stale file (another library's files) is not used, and is made again
    data = kept.read_bytes()
    head = len(MAGIC_NUMBER)
    kept.write_bytes(data[:head] + bytes(32) + data[head + 32:])
    third = python(FIRST.format(name="h"), cache_dir, tmp_path)
    assert third["stats"]["served"] == 0 and third["stats"]["recorded"] > 20
    assert kept.read_bytes()[head:head + 32] == data[head:head + 32]


def _file(tmp_path, stamp, held):
    d = cache.open_dir()
    assert d is not None
    payload = marshal.dumps(held)
    (tmp_path / "cache" / cache_modules.file_name()).write_bytes(MAGIC_NUMBER + stamp + payload)
    os.chmod(tmp_path / "cache" / cache_modules.file_name(), 0o600)
    d.close()


@pytest.fixture
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("MOONCAKE_AST_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path


def test_the_file_is_used_only_with_its_stamp_and_its_shape(private_cache):
    tmp_path = private_cache
    stamp = cache_modules._stamp()
    row = ("/x/mooncake_ast/a.py", False, marshal.dumps(compile("x = 1\n", "/x/mooncake_ast/a.py", "exec")))
    _file(tmp_path, stamp, {"mooncake_ast.a": row})
    assert cache_modules._read(stamp) == {"mooncake_ast.a": row}
    assert cache_modules._read(bytes(32)) == {}  # another library's files (or another version of them)
    _file(tmp_path, stamp, {"numpy": row, "mooncake_ast.b": ("p", 1, b"")})  # not ours, or not a row
    assert cache_modules._read(stamp) == {}
    path = tmp_path / "cache" / cache_modules.file_name()
    path.write_bytes(MAGIC_NUMBER + stamp + b"\x00garbage")
    assert cache_modules._read(stamp) == {}
    path.write_bytes(b"\x00\x00\r\n" + stamp + marshal.dumps({"mooncake_ast.a": row}))  # another Python's
    assert cache_modules._read(stamp) == {}
    _file(tmp_path, stamp, {"mooncake_ast.a": row})
    os.chmod(path, 0o666)  # others may write it: refused
    assert cache_modules._read(stamp) == {}
    os.chmod(path, 0o600)
    os.rename(path, tmp_path / "elsewhere")
    os.symlink(tmp_path / "elsewhere", path)  # a symlink: refused
    assert cache_modules._read(stamp) == {}


def test_the_stamp_follows_the_library_fingerprint(monkeypatch):
    from mooncake_ast import cache_key

    before = cache_modules._stamp()
    monkeypatch.setattr(cache_key, "_LIBRARY", ["0.0:another"])
    assert cache_modules._stamp() != before


def test_cleared_counted_and_kept_out_of_a_small_cache(private_cache, monkeypatch):
    tmp_path = private_cache
    _file(tmp_path, b"s" * 32, {})
    assert cache_admin.clear_entries() == 0
    assert not (tmp_path / "cache").exists()
    # not written where it would take more than an eighth of the cap
    monkeypatch.setenv("MOONCAKE_AST_CACHE_MAX_MB", "0.001")
    kept = cache_modules._Kept()
    kept.held, kept.stamp = {}, b"s" * 32
    kept.recorded = {"mooncake_ast.a": ("/x/a.py", False, b"c" * 1000)}
    cache.open_dir().close()
    kept.write()
    assert not (tmp_path / "cache" / cache_modules.file_name()).exists()
    monkeypatch.setenv("MOONCAKE_AST_CACHE_MAX_MB", "1")
    kept.recorded = {"mooncake_ast.a": ("/x/a.py", False, b"c" * 1000)}
    kept.write()
    assert (tmp_path / "cache" / cache_modules.file_name()).exists()
