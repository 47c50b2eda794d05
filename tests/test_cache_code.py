"""An entry's compiled form (mooncake_ast/cache_write.py store_code, cache.py load_code): used on a warm hit instead of compiling,
never when it does not match the checked text, and kept or removed with its entry.

Driven through `cache.load_module` with a stand-in generator, in a private directory; `compile`
is counted by shadowing it in the cache module (what `_execute` calls)."""
import os

import pytest

from mooncake_ast import cache, cache_evict

BODY = "def double(x):\n    return 2 * x\n"


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    monkeypatch.setenv("MOONCAKE_AST_CACHE_DIR", str(d))
    monkeypatch.setattr(cache, "_memory", {})
    return d


@pytest.fixture
def compiles(monkeypatch):
    """How many times the cache compiled a module's text."""
    count = [0]

    def counting(*args, **kwargs):
        count[0] += 1
        return compile(*args, **kwargs)

    monkeypatch.setattr(cache, "compile", counting, raising=False)
    return count


def load(key="a" * 64, stem="user.double.forward", body=BODY):
    cache._memory.clear()  # as a new process: nothing in memory
    module, _ = cache.load_module(key, stem, lambda: (body, {"source": "user.py:1"}))
    return module


def code_file(cache_dir, key="a" * 64, stem="user.double.forward"):
    return cache_dir / cache.code_name(f"{stem}.{key[:16]}.py")


def test_a_warm_hit_compiles_nothing(cache_dir, compiles):
    assert load().double(3) == 6 and compiles[0] == 1  # generated: compiled once, compiled form kept
    assert code_file(cache_dir).exists()
    for _ in range(3):
        m = load()
        assert m.double(5) == 10 and m.double.__code__.co_filename == str(cache_dir / "user.double.forward.aaaaaaaaaaaaaaaa.py")
    assert compiles[0] == 1


@pytest.mark.parametrize("damage", ["garbage", "truncated", "other_text", "other_file", "empty"])
def test_a_compiled_form_that_does_not_match_is_ignored_and_replaced(cache_dir, compiles, damage):
    load()
    path = code_file(cache_dir)
    data = path.read_bytes()
    if damage == "garbage":
        path.write_bytes(os.urandom(len(data)))
    elif damage == "truncated":
        path.write_bytes(data[: len(data) - 7])
    elif damage == "empty":
        path.write_bytes(b"")
    elif damage == "other_text":
        # the compiled form of another entry (another body): its stamp is for another text
        load(key="b" * 64, body="def double(x):\n    return 3 * x\n")
        path.write_bytes(code_file(cache_dir, key="b" * 64).read_bytes())
    else:  # stamped for the same text at another path (a moved directory): tracebacks would lie
        entry = cache_dir / "user.double.forward.aaaaaaaaaaaaaaaa.py"
        text = entry.read_text()
        code = compile(cache.body_with_padding(cache.parse_text(text)[2]), "/elsewhere/x.py", "exec")
        import marshal

        path.write_bytes(cache.code_stamp("/elsewhere/x.py", text) + marshal.dumps(code))
    os.chmod(path, 0o600)
    before = compiles[0]
    assert load().double(4) == 8  # the right function, whatever the compiled form held
    assert compiles[0] == before + 1
    assert load().double(4) == 8 and compiles[0] == before + 1  # rewritten: the next hit uses it


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX permissions")
def test_an_unsafe_compiled_form_is_not_used(cache_dir, compiles, tmp_path):
    load()
    path = code_file(cache_dir)
    os.chmod(path, 0o664)  # writable by the group: never read
    assert load().double(1) == 2 and compiles[0] == 2
    target = tmp_path / "elsewhere"
    target.write_bytes(path.read_bytes())
    os.chmod(target, 0o600)
    path.unlink()
    os.symlink(target, path)  # a symlink: never followed
    assert load().double(1) == 2 and compiles[0] == 3


def test_compiled_forms_go_with_their_entries(cache_dir, monkeypatch):
    load()
    entry = "user.double.forward.aaaaaaaaaaaaaaaa.py"
    # An edit of the function's file supersedes the entry: its compiled form goes too.
    cache._memory.clear()
    cache.load_module("c" * 64, "user.double.forward", lambda: ("def double(x):\n    return x + x\n", {"source": "user.py:2"}))
    names = os.listdir(cache_dir)
    assert entry not in names and cache.code_name(entry) not in names
    assert cache.code_name("user.double.forward.cccccccccccccccc.py") in names
    # A compiled form whose entry was removed by hand is removed on the next upkeep.
    (cache_dir / "user.double.forward.cccccccccccccccc.py").unlink()
    d = cache.open_dir()
    try:
        assert cache_evict.prune(d) is not None
    finally:
        d.close()
    assert not [n for n in os.listdir(cache_dir) if cache.is_code_name(n)]
    # `cache clear` removes them and counts entries only.
    load(key="d" * 64)
    assert len([n for n in os.listdir(cache_dir) if n != cache_evict.CAP_STATE and not cache.is_record_name(n)]) == 2
    assert cache.clear_entries() == 1 and not cache_dir.exists()


def test_the_size_cap_counts_compiled_forms(cache_dir):
    for i in range(4):
        load(key=f"{i}" * 64, stem=f"user.f{i}.forward", body=BODY + "# " + "x" * 20_000 + "\n")
    d = cache.open_dir()
    try:
        names = d.names()
        entries = [n for n in names if cache.ENTRY_RE.match(n)]
        sizes = {n: os.path.getsize(cache_dir / n) + os.path.getsize(cache_dir / cache.code_name(n)) for n in entries}
        cap = sum(sizes.values()) - 1  # entries alone fit; with their compiled forms they do not
        assert sum(os.path.getsize(cache_dir / n) for n in entries) <= cap
        gone = cache_evict.enforce_cap(d, names, cap=cap)
    finally:
        d.close()
    assert gone  # something went, and its compiled form with it
    left = os.listdir(cache_dir)
    for n in gone:
        assert n not in left and cache.code_name(n) not in left
