"""Each cache entry records what of the library its generation ran, and a hit checks only that (issue 11).

The key no longer holds the state of all of the library's files (a warm hit stat'ed every file not imported
yet, 170 of them, and listed every folder): an entry's header names the library's modules that were loaded
when its generation ended and a digest of their files' states and of their folders' (cache_write.library_record),
and a hit checks those states (cache_key.library_holds: the modules imported already as they were imported,
the others with one stat each).  What must hold: an edit of any file the generation ran, imported by
`import mooncake_ast` or only by a generation, in place or not, and a file added beside them, make the entry
stale, and it is made again silently; an edit of a file the generation never loaded leaves it in use; an entry
whose record is missing, malformed or does not hold is never used.  Nothing here is timed
(examples/bench_startup.py and scripts/startup_ab.py measure).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

import mooncake_ast as mc
from mooncake_ast import cache, cache_key

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

USER = "import numpy as np\n\n\ndef f(w):\n    s = 0.0\n    for i in range(len(w)):\n        s = s + np.sin(w[i]) * w[i]\n    return s\n"

DRIVER = """\
import json, sys
import numpy as np
import mooncake_ast as mc
import user_lib as m
g = mc.grad(m.f)(np.array([0.5, -1.0, 2.0]))
print(json.dumps({"grad": g.tolist(), "generated": "mooncake_ast.frontend.statements" in sys.modules}))
"""


def _expected():
    import numpy as np

    w = np.array([0.5, -1.0, 2.0])
    return (np.cos(w) * w + np.sin(w)).tolist()


@pytest.fixture(params=["no bytecode"])
def scenario(tmp_path, request):
    """A copy of the library, a user module, a cache directory, and a runner of the driver in a new process
    (which writes no bytecode, or writes it into the library's folders, making their `__pycache__`)."""
    lib = tmp_path / "lib"
    shutil.copytree(os.path.join(ROOT, "mooncake_ast"), lib / "mooncake_ast", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "user_lib.py").write_text(USER)
    env = dict(os.environ, MOONCAKE_AST_CACHE_DIR=str(tmp_path / "cache"), PYTHONDONTWRITEBYTECODE="1",
               PYTHONPATH=os.pathsep.join([str(tmp_path), str(lib)]))
    if request.param == "bytecode":
        env.pop("PYTHONDONTWRITEBYTECODE")

    def run() -> dict:
        p = subprocess.run([sys.executable, "-c", DRIVER], capture_output=True, text=True, env=env, timeout=300,
                           cwd=str(tmp_path))
        assert p.returncode == 0, p.stderr[-3000:]
        assert "Warning" not in p.stderr, p.stderr  # (a stale entry is replaced silently)
        out = json.loads(p.stdout.strip().splitlines()[-1])
        assert out["grad"] == pytest.approx(_expected(), rel=1e-12)
        return out

    return lib / "mooncake_ast", run


def _edit_in_place(path) -> None:
    """Same size, same inode, a later modification time: what an editor that rewrites in place leaves."""
    text = path.read_text()
    assert text.endswith("\n")
    ino = path.stat().st_ino
    with open(path, "r+") as fh:
        fh.write(text[:-1] + " ")
    later = path.stat().st_mtime_ns + 2_000_000_000
    os.utime(path, ns=(later, later))
    assert path.stat().st_ino == ino


@pytest.mark.parametrize("rel, stale", [
    ("reverse/transform.py", True),  # loaded only by a generation: stat'ed by a hit
    ("rules/math_rules.py", True),  # imported by `import mooncake_ast`: checked as imported
    ("frontend/with_stmt.py", False),  # lowers `with` statements: this generation never loaded it
])
def test_an_edit_makes_an_entry_stale_only_where_its_generation_ran_the_file(scenario, rel, stale):
    package, run = scenario
    assert run()["generated"] and not run()["generated"]
    _edit_in_place(package / rel)
    assert run()["generated"] == stale
    assert not run()["generated"]  # (made again once, then used)


@pytest.mark.parametrize("scenario", ["bytecode"], indirect=True)
def test_bytecode_written_into_the_library_leaves_the_entry_in_use(scenario):
    """The first process makes the folders' `__pycache__` (moving their times, during the generation and after
    it, as modules are first imported): their names are compared then, and the entry stays in use."""
    package, run = scenario
    assert run()["generated"]
    assert (package / "reverse" / "__pycache__").is_dir()
    assert not run()["generated"] and not run()["generated"]


def test_a_file_added_beside_the_modules_that_ran_makes_the_entry_stale(scenario):
    """A new name in a folder of a module that ran (here a package that would shadow a module of the same
    name) changes the folder's time, which the record's digest includes."""
    package, run = scenario
    assert run()["generated"] and not run()["generated"]
    before = os.stat(package / "reverse").st_mtime_ns
    (package / "reverse" / "new_pass.py").write_text("")
    os.utime(package / "reverse", ns=(before + 2_000_000_000, before + 2_000_000_000))  # (a coarse clock's next tick)
    assert run()["generated"]
    assert not run()["generated"]


def test_a_rewritten_file_is_a_new_state(scenario):
    """Replaced by a new file (a new inode) of the same size and time: stale too."""
    package, run = scenario
    assert run()["generated"]
    target = package / "emit" / "render.py"
    st = target.stat()
    text = target.read_text()
    target.unlink()
    (package / "emit" / "placeholder").write_text("x")  # (keeps the old inode from being reused at once)
    target.write_text(text)
    (package / "emit" / "placeholder").unlink()  # (the folder's names as before: only the file's inode is new)
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert target.stat().st_ino != st.st_ino and target.stat().st_size == st.st_size
    assert run()["generated"]


@pytest.fixture()
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("MOONCAKE_AST_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(cache, "_memory", {})
    return tmp_path / "cache"


def test_an_entry_records_the_modules_its_generation_loaded(private_cache, tmp_path):
    (tmp_path / "user_record.py").write_text(USER)
    sys.path.insert(0, str(tmp_path))
    try:
        import user_record
    finally:
        sys.path.remove(str(tmp_path))
    import numpy as np

    def loaded():
        return {os.path.normpath(m.__file__) for n, m in list(sys.modules.items()) if n.startswith("mooncake_ast")
                and (getattr(m, "__file__", None) or "").endswith(".py")}

    before = loaded()
    mc.grad(user_record.f)(np.array([0.5, -1.0, 2.0]))
    [name] = [n for n in os.listdir(private_cache) if n.startswith("user_record.f.reverse.")]
    meta = json.loads((private_cache / name).read_text().split("\n", 1)[0].split(" ", 3)[3])
    record = _record(private_cache, meta["library"])
    files = {folder: names.split(" ") for folder, names in record["files"].items()}
    assert "transform.py" in files["reverse"] and "api.py" in files[""] and "__init__.py" in files[""]
    recorded = {os.path.normpath(os.path.join(cache_key._ROOT, folder, name)) for folder, names in files.items()
                for name in names}
    assert before <= recorded <= loaded()  # (what was loaded when the generation ended: running it may load more)
    assert cache_key.library_holds(record)
    assert not cache_key.library_holds({**record, "digest": "0" * 64})
    assert not cache_key.library_holds({**record, "files": {**record["files"], "reverse": "transform.py"}})
    names = record["folders"]["reverse"][2]
    for seen, holds in (([0, 0, names], True), ([0, 0, "0" * 32], False)):  # (a folder whose time moved: its names)
        assert cache_key.library_holds({**record, "folders": {**record["folders"], "reverse": seen}}) == holds
    for malformed in (None, [], {}, {"digest": record["digest"]}, {"digest": 1, "files": record["files"]},
                      {"digest": record["digest"], "files": {"reverse": 3}}, {**record, "folders": None},
                      {**record, "folders": {"reverse": [1, 2]}}, {**record, "folders": {"reverse": (1, 2, "x")}}):
        assert not cache_key.library_holds(malformed)


def _record(cache_dir, reference):
    """The library record an entry names (`meta["library"]`, the digest of the record file's text)."""
    assert isinstance(reference, str) and len(reference) == 64, reference
    data = (cache_dir / cache.record_name(reference)).read_bytes()
    assert cache.hasher(data).hexdigest() == reference
    return json.loads(data)


def _holds(reference) -> bool:
    """cache_key.record_holds in the cache directory in use, its answers kept so far forgotten."""
    cache_key._RECORDS.clear()
    d = cache.open_dir()
    try:
        return cache_key.record_holds(d, reference)
    finally:
        d.close()


BAD_RECORDS = ["missing", "wrong digest", "malformed", "the record itself, not holding", "record file removed",
               "record file altered", "record file of another digest"]


@pytest.mark.parametrize("library", BAD_RECORDS)
def test_an_entry_whose_record_does_not_hold_is_made_again(private_cache, library):
    """Through cache.load_module with a stand-in generator: the entry is rewritten with a header whose library
    record is missing or does not hold (or its record file is gone or altered); the next load (a new process's,
    `_memory` emptied, the records' answers forgotten) generates again, and writes the record again."""
    calls = []

    def generate():
        calls.append(1)
        return f"VALUE = {len(calls)}\n", {"source": "user.py:1"}

    key, stem = "c" * 64, "user.f.forward"
    module, meta = cache.load_module(key, stem, generate)
    reference = meta["library"]
    record = _record(private_cache, reference)
    assert module.VALUE == 1 and _holds(reference) and cache_key.library_holds(record)
    cache._memory.clear()
    cache_key._RECORDS.clear()
    assert cache.load_module(key, stem, generate)[0].VALUE == 1 and len(calls) == 1  # (a hit)
    path = private_cache / f"{stem}.{key[:16]}.py"
    record_path = private_cache / cache.record_name(reference)
    other = {**record, "digest": "1" * 64}
    bad = {"missing": None, "wrong digest": "1" * 64, "malformed": "library",
           "the record itself, not holding": other}.get(library, reference)
    header = {"source": "user.py:1"} if bad is None else {"source": "user.py:1", "library": bad}
    path.write_text(cache.with_header(key, header, "VALUE = 99\n"))
    if library == "record file removed":
        record_path.unlink()
    elif library == "record file altered":
        record_path.write_bytes(record_path.read_bytes().replace(b'"digest":"', b'"digest":"0', 1))
    elif library == "record file of another digest":  # (a record that does not hold, under the name of one that does)
        record_path.write_text(json.dumps(other, sort_keys=True, separators=(",", ":")))
    cache._memory.clear()
    cache_key._RECORDS.clear()
    module, meta = cache.load_module(key, stem, generate)
    assert module.VALUE == 2 and len(calls) == 2 and _holds(meta["library"])
    assert meta["library"] == reference and _record(private_cache, reference) == record  # (written again)
    cache._memory.clear()
    cache_key._RECORDS.clear()
    assert cache.load_module(key, stem, generate)[0].VALUE == 2 and len(calls) == 2  # (a hit again)


def test_an_entry_that_carries_its_record_itself_is_still_used(private_cache):
    """Entries written before the record had its own file held it in their first line: one that holds is used."""
    calls = []

    def generate():
        calls.append(1)
        return f"VALUE = {len(calls)}\n", {"source": "user.py:1"}

    key, stem = "d" * 64, "user.g.forward"
    meta = cache.load_module(key, stem, generate)[1]
    record = _record(private_cache, meta["library"])
    (private_cache / f"{stem}.{key[:16]}.py").write_text(
        cache.with_header(key, {"source": "user.py:1", "library": record}, "VALUE = 7\n"))
    cache._memory.clear()
    assert cache.load_module(key, stem, generate)[0].VALUE == 7 and len(calls) == 1
