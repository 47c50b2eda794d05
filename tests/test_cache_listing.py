"""The library scan (library_scan._scan, the fingerprint of all of the library's files) lists a directory through the import system's own listing
where its finder holds a current one (issue 11: a warm hit listed each directory a second time): the names are
those `listdir` gives, and a listing the directory has changed since, or a recent one, is not used."""
import os
import sys
import time
from importlib.machinery import FileFinder

import pytest

from mooncake_ast import cache_key, library_scan

pytestmark = pytest.mark.skipif(not library_scan._SCAN_DIR, reason="the scan lists by descriptor only where the OS can")


def _finder_for(folder):
    finder = FileFinder(str(folder))
    finder.find_spec("anything")  # (fills its listing, as an import from the folder does)
    return finder


def _listed(folder):
    fd = os.open(str(folder), os.O_RDONLY | os.O_DIRECTORY)
    try:
        return sorted(library_scan._listed(str(folder), fd))
    finally:
        os.close(fd)


@pytest.fixture
def folder(tmp_path, monkeypatch):
    d = tmp_path / "pkg"
    d.mkdir()
    for name in ("a.py", "b.py", "sub"):
        (d / name).mkdir() if name == "sub" else (d / name).write_text("x = 1\n")
    old = time.time() - 60
    os.utime(d, (old, old))
    monkeypatch.setitem(sys.path_importer_cache, str(d), _finder_for(d))
    return d


def test_a_current_listing_of_the_finder_is_used(folder, monkeypatch):
    real = os.listdir
    calls = []
    monkeypatch.setattr(os, "listdir", lambda *a: calls.append(a) or real(*a))
    assert _listed(folder) == sorted(real(folder)) and not calls


@pytest.mark.parametrize("change", ["add", "remove", "rename"])
def test_a_changed_folder_is_listed_again(folder, change):
    if change == "add":
        (folder / "new_pass.py").write_text("")
    elif change == "remove":
        (folder / "a.py").unlink()
    else:
        (folder / "b.py").rename(folder / "c.py")
    assert _listed(folder) == sorted(os.listdir(folder))


def test_a_recent_listing_is_not_trusted(folder, monkeypatch):
    now = time.time()
    os.utime(folder, (now, now))
    monkeypatch.setitem(sys.path_importer_cache, str(folder), _finder_for(folder))
    (folder / "same_tick.py").write_text("")
    os.utime(folder, (now, now))  # (a change within the same tick of a coarse clock: the time did not move)
    assert "same_tick.py" in _listed(folder)


def test_the_fingerprint_is_the_one_plain_listing_gives(monkeypatch):
    first = library_scan.library_fingerprint()
    monkeypatch.setattr(library_scan, "_LIBRARY", [])
    monkeypatch.setattr(library_scan, "_listed", lambda folder, fd: os.listdir(fd))
    assert library_scan.library_fingerprint() == first


def test_served_modules_are_checked_against_the_state_the_key_was_made_with(tmp_path):
    """A generation's modules served from kept code (cache_modules) are checked against the states this process
    found already (cache_key.SCANNED: here the library scan's), not stat'ed a second time."""
    import json
    import subprocess
    import textwrap

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    code = textwrap.dedent("""\
        import json, os, sys
        import numpy as np
        import mooncake_ast as mc
        from mooncake_ast import cache_key, cache_modules, library_scan
        import user_mod
        package = os.path.dirname(mc.__file__)
        real, stats = os.stat, []
        def counting(path, *a, **k):
            if isinstance(path, str) and path.startswith(package) and path.endswith(".py"):
                stats.append(path)
            return real(path, *a, **k)
        library_scan.library_fingerprint()  # (the scan first: the states it found are kept)
        os.stat = counting
        g = mc.grad(user_mod.f)(np.array([0.5, -1.0]))
        os.stat = real
        print(json.dumps({"grad": g.tolist(), "served": cache_modules.STATS["served"], "stats": stats,
                          "scanned": len(cache_key.SCANNED)}))
        """)
    env = dict(os.environ, MOONCAKE_AST_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=os.pathsep.join([str(tmp_path), root, os.environ.get("PYTHONPATH", "")]))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    outs = []
    for i in range(2):
        (tmp_path / "user_mod.py").write_text(  # (a new function in each process: a derivation)
            f"import numpy as np\n\n\ndef f(x):\n    return np.sum(np.sin(x) * x) + {i}.0\n")
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=180,
                           cwd=str(tmp_path))
        assert p.returncode == 0, p.stderr[-3000:]
        outs.append(json.loads(p.stdout.strip().splitlines()[-1]))
    assert outs[0]["grad"] == outs[1]["grad"]
    assert outs[1]["served"] > 20 and outs[1]["scanned"] > 50
    # (every module served was checked against its scanned state: what is stat'ed is what the import system
    # imports itself, outside the generation, as reverse/generate.py and cache_write.py)
    assert len(outs[1]["stats"]) <= 4 < outs[1]["served"]
