"""The library's fingerprint (library_scan.py; a hit's check of an entry's library record, cache_key.library_holds,
likewise) takes the state of each imported module's file as it was imported (mooncake_ast/import_states.py), and
stats only the files not imported yet (issue 11).  What must hold: every edit of a library file, imported or not,
in place or not, gives new processes a new fingerprint; the states kept are the files' own; and a process
fingerprints the code it runs (a file edited after its module was imported does not change that process's
fingerprint, since the module in memory is the one imported).  Nothing here is timed (examples/bench_startup.py
measures)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

import mooncake_ast  # noqa: F401
from mooncake_ast import import_states, library_scan

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_the_states_kept_are_those_of_the_imported_files():
    package = os.path.dirname(os.path.abspath(mooncake_ast.__file__))
    kept = {p: s for p, s in import_states.STATES.items() if p.startswith(package + os.sep)}
    imported = [m for m in sys.modules.values() if (getattr(m, "__name__", "") or "").startswith("mooncake_ast.")
                and (getattr(m, "__file__", "") or "").endswith(".py")]
    assert len(kept) >= len(imported) // 2 > 20  # (the library's own finders load its modules)
    for path, state in kept.items():
        st = os.stat(path)
        assert state == (st.st_size, st.st_mtime_ns, st.st_ino), path


def test_the_fingerprint_is_the_same_as_with_every_file_stated(monkeypatch):
    """Where no file changed since it was imported, the kept states give the fingerprint a full scan gives."""
    first = library_scan.library_fingerprint()
    monkeypatch.setattr(library_scan, "_LIBRARY", [])
    monkeypatch.setattr(import_states, "STATES", {})
    assert library_scan.library_fingerprint() == first


@pytest.fixture()
def library_copy(tmp_path):
    copy = tmp_path / "lib"
    shutil.copytree(os.path.join(ROOT, "mooncake_ast"), copy / "mooncake_ast",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def _run(copy, code: str, cache: str = "") -> dict:
    env = dict(os.environ, PYTHONPATH=str(copy))
    if cache:
        env["MOONCAKE_AST_CACHE_DIR"] = cache
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=180,
                       cwd=str(copy.parent))
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


FINGERPRINT = ("import json, sys, mooncake_ast\nfrom mooncake_ast import import_states, library_scan\n"
               "print(json.dumps({'fp': library_scan.library_fingerprint(), 'kept': sorted(import_states.STATES),"
               " 'modules': sorted(m for m in sys.modules if m.startswith('mooncake_ast'))}))")


def _edit_in_place(path) -> None:
    """Same size, same inode, a later modification time: what an editor that rewrites in place leaves."""
    text = path.read_text()
    assert text.endswith("\n")
    ino = path.stat().st_ino
    with open(path, "r+") as fh:
        fh.write(text[:-1] + " ")  # (the last newline made a space: the same size, still Python)
    later = path.stat().st_mtime_ns + 2_000_000_000
    os.utime(path, ns=(later, later))
    assert path.stat().st_ino == ino


@pytest.mark.parametrize("rel, imported", [
    ("rules/math_rules.py", True),  # imported by `import mooncake_ast`
    ("api_fast.py", True),
    ("reverse/transform.py", False),  # imported only by a generation
    ("frontend/try_stmt.py", False),
])
def test_an_edit_of_any_library_file_gives_new_processes_a_new_fingerprint(library_copy, rel, imported):
    before = _run(library_copy, FINGERPRINT)
    module = "mooncake_ast." + rel[:-3].replace("/", ".")
    assert (module in before["modules"]) == imported
    kept = any(p.endswith(os.sep + rel.replace("/", os.sep)) for p in before["kept"])
    assert kept == imported  # (its state was kept as imported, or it is stat'ed)
    assert _run(library_copy, FINGERPRINT)["fp"] == before["fp"]
    _edit_in_place(library_copy / "mooncake_ast" / rel)
    assert _run(library_copy, FINGERPRINT)["fp"] != before["fp"]


def test_a_new_file_gives_a_new_fingerprint(library_copy):
    before = _run(library_copy, FINGERPRINT)["fp"]
    (library_copy / "mooncake_ast" / "reverse" / "new_pass.py").write_text("")
    assert _run(library_copy, FINGERPRINT)["fp"] != before


def test_a_process_fingerprints_the_code_it_imported(library_copy):
    """A module's file edited after the module was imported: this process's key is still that of the code it
    runs (what it generates is made by that code); a new process, which imports the edit, has a new key."""
    before = _run(library_copy, FINGERPRINT)["fp"]
    target = library_copy / "mooncake_ast" / "rules" / "math_rules.py"
    code = ("import json, os, mooncake_ast\nfrom mooncake_ast import library_scan\n"
            f"p = {str(target)!r}\nt = open(p).read()\nopen(p, 'w').write(t + '\\n# an edit\\n')\n"
            "print(json.dumps({'fp': library_scan.library_fingerprint()}))")
    assert _run(library_copy, code)["fp"] == before
    assert _run(library_copy, FINGERPRINT)["fp"] != before


def test_modules_served_from_the_kept_code_are_kept_too(library_copy, tmp_path):
    """A generation's modules come from the cache's kept code (cache_modules) after the first: their states are
    kept as well (so a later key in that process stats no more), and are their files' states."""
    cache = str(tmp_path / "cache")
    (tmp_path / "user_mod.py").write_text("def f(x):\n    return x * x + 1.0\n")
    code = ("import json, os, sys\nsys.path.insert(0, %r)\nimport mooncake_ast as mc, user_mod\n"
            "from mooncake_ast import cache_modules, import_states\n"
            "g = mc.grad(user_mod.f)(1.5)\nassert g == 3.0, g\n"
            "ok = all(os.stat(p)[6] == s[0] and os.stat(p).st_mtime_ns == s[1] for p, s in import_states.STATES.items())\n"
            "print(json.dumps({'served': cache_modules.STATS['served'], 'kept': sorted(import_states.STATES), 'ok': ok,"
            " 'modules': sorted(m for m in sys.modules if m.startswith('mooncake_ast'))}))") % str(tmp_path)
    _run(library_copy, code, cache)  # (records the generation's modules)
    (tmp_path / "user_mod.py").write_text("def f(x):\n    return x * x + 2.0\n")
    later = _run(library_copy, code, cache)
    assert later["served"] > 10 and later["ok"]
    transform = os.path.join("mooncake_ast", "reverse", "transform.py")
    assert "mooncake_ast.reverse.transform" in later["modules"]
    assert any(p.endswith(transform) for p in later["kept"])
