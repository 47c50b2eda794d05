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


def kept_file(rows):
    """The bytes of a kept file holding `rows` (name -> (origin, is a package, state, marshalled code))."""
    index, blobs, offset = {}, [], 0
    for name, (origin, is_package, state, code) in rows.items():
        index[name] = (origin, is_package, state, offset, len(code))
        blobs.append(code)
        offset += len(code)
    head = marshal.dumps(index)
    return MAGIC_NUMBER + len(head).to_bytes(8, "little") + head + b"".join(blobs)


def read_kept(path):
    """The rows of a kept file, as `kept_file` takes them."""
    data = path.read_bytes()
    n = int.from_bytes(data[len(MAGIC_NUMBER):len(MAGIC_NUMBER) + 8], "little")
    base = len(MAGIC_NUMBER) + 8 + n
    index = marshal.loads(data[len(MAGIC_NUMBER) + 8:base])
    return {k: (o, p, s, data[base + off:base + off + ln]) for k, (o, p, s, off, ln) in index.items()}


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
    for package in ("mooncake_ast", "libcst"):
        kept = cache_dir / cache_modules.file_name(package)
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
    # an edited source: that module's kept code is not used (the others' is), and it is recorded again
    path = cache_dir / cache_modules.file_name("mooncake_ast")
    rows = read_kept(path)
    origin, is_package, (size, mtime, ino), code = rows["mooncake_ast.frontend.statements"]
    rows["mooncake_ast.frontend.statements"] = (origin, is_package, (size, mtime - 1, ino), code)
    path.write_bytes(kept_file(rows))
    third = python(FIRST.format(name="h"), cache_dir, tmp_path)
    assert third["stats"]["recorded"] >= 1 and third["stats"]["served"] > 20
    assert read_kept(path)["mooncake_ast.frontend.statements"][2][1] == mtime


@pytest.fixture
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("MOONCAKE_AST_CACHE_DIR", str(tmp_path / "cache"))
    cache.open_dir().close()
    monkeypatch.setattr(cache_modules, "_KEPT", cache_modules._Kept())
    return tmp_path


def test_a_module_is_served_only_from_the_source_it_was_made_from(private_cache, monkeypatch):
    tmp_path = private_cache
    pkg = tmp_path / "mcfake_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "mod.py").write_text("X = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(cache_modules, "PACKAGES", cache_modules.PACKAGES + ("mcfake_pkg",))
    import mcfake_pkg  # noqa: F401  (the package itself is imported as usual: sys.path decides where it is)

    def fresh_import():
        sys.modules.pop("mcfake_pkg.mod", None)
        cache_modules._KEPT.close()  # (read the file again, as a new process would)
        with cache_modules.KeptModules():
            import mcfake_pkg.mod
        return mcfake_pkg.mod, dict(cache_modules.STATS)

    try:
        mod, stats = fresh_import()
        assert stats == {"served": 0, "recorded": 1} and mod.X == 1
        assert (tmp_path / "cache" / cache_modules.file_name("mcfake_pkg")).exists()
        mod, stats = fresh_import()
        assert stats == {"served": 1, "recorded": 0} and mod.X == 1
        assert mod.__file__ == str(pkg / "mod.py") == mod.__spec__.origin
        (pkg / "mod.py").write_text("X = 22\n")  # an edited source: its kept code is not used
        mod, stats = fresh_import()
        assert stats == {"served": 0, "recorded": 1} and mod.X == 22
        mod, stats = fresh_import()
        assert stats == {"served": 1, "recorded": 0} and mod.X == 22
        with cache_modules.KeptModules():
            assert cache_modules._FINDER.find_spec("mcfake_pkg.mod", ["/elsewhere"]) is None  # another parent path
            assert cache_modules._FINDER.find_spec("mcfake_pkg", None) is None  # top level: sys.path decides
        assert cache_modules._FINDER not in sys.meta_path
    finally:
        for name in ("mcfake_pkg.mod", "mcfake_pkg"):
            sys.modules.pop(name, None)


def test_the_file_is_used_only_where_it_is_safe_and_well_formed(private_cache):
    tmp_path = private_cache
    path = tmp_path / "cache" / cache_modules.file_name("mooncake_ast")
    row = ("/x/mooncake_ast/a.py", False, (1, 2, 3), marshal.dumps(compile("x = 1\n", "/x/mooncake_ast/a.py", "exec")))

    def write(data):
        if path.is_symlink() or path.exists():
            path.unlink()
        path.write_bytes(data)
        os.chmod(path, 0o600)

    def index():
        f = cache_modules._open("mooncake_ast")
        try:
            return {k: (v[:3], f.code(v)) for k, v in f.index.items()}
        finally:
            f.close()

    write(kept_file({"mooncake_ast.a": row}))
    assert index() == {"mooncake_ast.a": (row[:3], row[3])}
    write(kept_file({"numpy.a": row, "mooncake_ast.a": row}))  # another package's name: left out
    assert set(index()) == {"mooncake_ast.a"}
    data = kept_file({"mooncake_ast.a": row})
    write(data[:-1])  # the code cut short: its row points past the end
    assert index() == {}
    write(MAGIC_NUMBER + (5).to_bytes(8, "little") + b"\x00garbage")
    assert index() == {}
    write(MAGIC_NUMBER + (1 << 40).to_bytes(8, "little"))
    assert index() == {}
    write(b"\x00\x00\r\n" + data[len(MAGIC_NUMBER):])  # another Python's
    assert index() == {}
    write(data)
    os.chmod(path, 0o666)  # others may write it: refused
    assert index() == {}
    os.chmod(path, 0o600)
    os.rename(path, tmp_path / "elsewhere")
    os.symlink(tmp_path / "elsewhere", path)  # a symlink: refused
    assert index() == {}


def test_cleared_and_kept_out_of_a_small_cache(private_cache, monkeypatch):
    tmp_path = private_cache
    path = tmp_path / "cache" / cache_modules.file_name("mooncake_ast")
    kept = cache_modules._Kept()
    kept.files["mooncake_ast"] = cache_modules._File(None, 0, {})
    monkeypatch.setenv("MOONCAKE_AST_CACHE_MAX_MB", "0.001")  # more than an eighth of the cap: not written
    kept.recorded = {"mooncake_ast": {"mooncake_ast.a": ("/x/a.py", False, (1, 2, 3), b"c" * 1000)}}
    kept.write()
    assert not path.exists()
    monkeypatch.setenv("MOONCAKE_AST_CACHE_MAX_MB", "1")
    gone = (str(tmp_path / "gone.py"), False, (1, 2, 3), 0, 1)
    kept.files["mooncake_ast"] = cache_modules._File(None, 0, {"mooncake_ast.gone": gone})
    kept.recorded = {"mooncake_ast": {"mooncake_ast.a": ("/x/a.py", False, (1, 2, 3), b"c" * 1000)}}
    kept.write()
    assert read_kept(path) == {"mooncake_ast.a": ("/x/a.py", False, (1, 2, 3), b"c" * 1000)}  # a removed source's row dropped
    assert cache_admin.clear_entries() == 0
    assert not (tmp_path / "cache").exists()
