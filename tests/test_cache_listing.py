"""The library scan of the cache key (cache_key._scan) lists a directory through the import system's own listing
where its finder holds a current one (issue 11: a warm hit listed each directory a second time): the names are
those `listdir` gives, and a listing the directory has changed since, or a recent one, is not used."""
import os
import sys
import time
from importlib.machinery import FileFinder

import pytest

from mooncake_ast import cache_key

pytestmark = pytest.mark.skipif(not cache_key._SCAN_DIR, reason="the scan lists by descriptor only where the OS can")


def _finder_for(folder):
    finder = FileFinder(str(folder))
    finder.find_spec("anything")  # (fills its listing, as an import from the folder does)
    return finder


def _listed(folder):
    fd = os.open(str(folder), os.O_RDONLY | os.O_DIRECTORY)
    try:
        return sorted(cache_key._listed(str(folder), fd))
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
    first = cache_key.library_fingerprint()
    monkeypatch.setattr(cache_key, "_LIBRARY", [])
    monkeypatch.setattr(cache_key, "_listed", lambda folder, fd: os.listdir(fd))
    assert cache_key.library_fingerprint() == first
