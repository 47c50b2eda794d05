"""Keeping the derivative cache small: what no key can reach, a size cap, dead writers' leftovers.

Entries are never wrong to delete (a miss regenerates them), so every rule here is about
what is *worth* keeping:

* **Superseded entries.**  An entry's header records the file and a digest of the source
  it was made from (`meta["source"]`).  When an entry is published for a function, the
  entries of the same function and mode (same file-name stem) made from another text of
  the same file are removed: no key computed from today's source can reach them.
  (Entries of the same source for other argument kinds stay: they are all reachable.
  Lambdas record nothing: several share one name.)
* **A size cap.**  `MOONCAKE_AST_CACHE_MAX_MB` (default 256; 0 or less: no cap) bounds the
  directory's entries; beyond it, the least recently used go first (a hit refreshes an
  entry's mtime), down to 90% of the cap, never the entry just written.  The sizes are
  measured again after a publish only when the entries have grown by an eighth since the last
  look, or near the cap (`CAP_STATE`): not two `stat`s per entry for every derivation.
* **Stale temporary files.**  A writer killed between creating `.tmp-<pid>-<rand>.py`
  and renaming it leaves the file behind; one is removed once its process is gone (and
  it is older than a few seconds), or once it is an hour old whatever its pid says (a
  pid of another machine or container sharing the directory).

* **Compiled forms** (`cache_write.store_code`) go with their entry, count with it towards the cap, and
  are removed once their entry is gone (found when the directory is looked at in full).  libcst's compiled dataclass code (`cache_classes`,
  one small file) counts towards the cap and is kept.
* **Library records** (`cache_write.publish_record`: what of the library a generation ran, one file shared by
  the entries made with it) are removed once no entry names them (`drop_unused_records`).

This runs after each publish (generation has just cost far more) and on
`mooncake-ast cache prune`; failures to delete are ignored: another process may be at work.
"""
from __future__ import annotations

import json
import os
import time
from typing import Any, Optional

from .cache import (CLASSES_PREFIX, KEY_LINE, MODULES_PREFIX, _Dir, code_name, entry_parts, is_code_name, is_record_name,
                    read_bytes, record_name)

DEFAULT_MAX_MB = 256
TMP_GRACE_S = 10.0  # a live writer needs milliseconds: older and its process gone, it is a leftover
TMP_MAX_AGE_S = 3600.0


def max_bytes() -> Optional[int]:
    """The size cap of the cache directory in bytes (None: no cap), from MOONCAKE_AST_CACHE_MAX_MB."""
    text = os.environ.get("MOONCAKE_AST_CACHE_MAX_MB", "").strip()
    try:
        mb = float(text) if text else float(DEFAULT_MAX_MB)
    except ValueError:
        mb = float(DEFAULT_MAX_MB)
    return None if mb <= 0 else int(mb * 1024 * 1024)


def lineage(fn: Any, digest: str) -> dict:
    """What an entry's header records so that its newer versions can supersede it: the source's
    digest and file.  Nothing for lambdas: several share one name in a module, and each would
    evict the others."""
    if "<lambda>" in fn.__qualname__ or _property_accessor(fn):
        return {}
    return {"source": f"{fn.__code__.co_filename}:{digest[:16]}"}


def _property_accessor(fn: Any) -> bool:
    """Is fn the getter, setter or deleter of a property of a module-level class?  They share one qualname
    (`Box.k`), so each would evict the others' entries as "another text of the same function" (the getter's
    module, still in use, lost its file: second derivatives, which read it, failed with SourceUnavailableError)."""
    owner, _, name = fn.__qualname__.rpartition(".")
    if not owner or "<locals>" in owner:
        return False
    obj: Any = getattr(fn, "__globals__", {})
    for part in owner.split("."):
        obj = obj.get(part) if isinstance(obj, dict) else getattr(obj, "__dict__", {}).get(part)
        if obj is None:
            return False
    prop = getattr(obj, "__dict__", {}).get(name)
    return isinstance(prop, property) and any(a is fn for a in (prop.fget, prop.fset, prop.fdel))


def source_of(d: _Dir, name: str) -> Optional[str]:
    """The source an entry records in its header (`lineage`), or None (unreadable, or not recorded)."""
    src = _header_meta(d, name).get("source")
    return src if isinstance(src, str) else None


def _header_meta(d: _Dir, name: str) -> dict:
    """The meta an entry's first line holds ({} where it is unreadable or malformed)."""
    try:
        fd = d.open(name, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return {}
    try:
        head = os.read(fd, 1 << 16).decode("utf-8", "replace").split("\n", 1)[0]
    except OSError:
        return {}
    finally:
        os.close(fd)
    if not head.startswith(KEY_LINE):
        return {}
    try:
        meta = json.loads(head[len(KEY_LINE):].partition(" ")[2])
    except ValueError:
        return {}
    return meta if isinstance(meta, dict) else {}


def _stem(name: str) -> Optional[str]:
    parts = entry_parts(name)
    return None if parts is None else f"{parts[0]}.{parts[1]}"


def _remove(d: _Dir, name: str) -> bool:
    try:
        d.unlink(name)
    except OSError:
        return False
    if entry_parts(name) is not None:
        try:
            d.unlink(code_name(name))  # its compiled form (cache_write.store_code), if any
        except OSError:
            pass
    return True


def drop_orphan_code(d: _Dir, names: list[str]) -> list[str]:
    """Remove compiled forms whose entry is gone (removed by another process, or by hand)."""
    wanted = {code_name(n) for n in names if entry_parts(n) is not None}
    gone = []
    for name in names:
        if is_code_name(name) and name not in wanted:
            try:
                d.unlink(name)
                gone.append(name)
            except OSError:
                pass
    return gone


# Library records (cache_write.publish_record) are shared by entries, so none goes with an entry: when the directory
# is looked at in full and holds more than RECORDS_KEPT of them, those that no entry names and that were not
# written in the last RECORD_GRACE_S seconds (an entry naming it may be about to be published) are removed.
# (Removing one in use is never wrong: its entries are made again, with it.)
RECORDS_KEPT = 8
RECORD_GRACE_S = 60.0


def drop_unused_records(d: _Dir, names: list[str], kept: int = RECORDS_KEPT, now: Optional[float] = None) -> list[str]:
    """Remove the library records no entry of `names` names (read from the entries' first lines); returns them."""
    records = [n for n in names if is_record_name(n)]
    if len(records) <= kept:
        return []
    named = set()
    for name in names:
        if entry_parts(name) is not None:
            reference = _header_meta(d, name).get("library")
            if isinstance(reference, str):
                named.add(record_name(reference))
    now = time.time() if now is None else now
    gone = []
    for name in records:
        if name in named:
            continue
        try:
            if now - d.lstat(name).st_mtime < RECORD_GRACE_S:
                continue
            d.unlink(name)
            gone.append(name)
        except OSError:
            pass
    return gone


def drop_superseded(d: _Dir, names: list[str], published: str, source: Optional[str]) -> list[str]:
    """Remove the entries of `published`'s function and mode made from another source; returns them."""
    stem = _stem(published)
    if stem is None or source is None:
        return []
    gone = []
    prefix = stem.rpartition(".")[0] + "."  # (a cheap test first: most names are other functions')
    for name in names:
        if name != published and name.startswith(prefix) and _stem(name) == stem:
            other = source_of(d, name)
            # the same file, another text: an edited version (another file: another script's `f`)
            if other is not None and other != source and _same_file(other, source) and _remove(d, name):
                gone.append(name)
    return gone


def _same_file(a: str, b: str) -> bool:
    return a.rpartition(":")[0] == b.rpartition(":")[0]


def drop_stale_temporaries(d: _Dir, names: list[str], now: Optional[float] = None) -> list[str]:
    """Remove temporary files left by writers that were killed; returns them."""
    now = time.time() if now is None else now
    gone = []
    for name in [n for n in names if n.startswith(".tmp-")]:  # (a test in C first: a directory in use holds thousands)
        pid = _tmp_pid(name)
        if pid is None:
            continue
        try:
            age = now - d.lstat(name).st_mtime
        except OSError:
            continue
        if age > TMP_MAX_AGE_S or (age > TMP_GRACE_S and not _alive(pid)):
            if _remove(d, name):
                gone.append(name)
    return gone


def _tmp_pid(name: str) -> Optional[int]:
    """The writer's process id in a temporary file's name (`.tmp-<pid>-<hex>.py`, cache_write.write_atomic), else None."""
    if not (name.startswith(".tmp-") and name.endswith(".py")):
        return None
    pid, sep, tag = name[5:-3].partition("-")
    if not sep or not pid.isascii() or not pid.isdigit() or not tag or not _HEX_DIGITS.issuperset(tag):
        return None
    return int(pid)


_HEX_DIGITS = frozenset("0123456789abcdef")


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError, OverflowError):
        return True  # exists (another user's), or we cannot tell: keep it until it is old
    return True


def enforce_cap(d: _Dir, names: list[str], keep: Optional[str] = None, cap: Optional[int] = None) -> list[str]:
    """Remove least recently used entries while the entries' total size exceeds the cap; returns them."""
    return _enforce_cap(d, names, keep, cap)[0]


def _enforce_cap(d: _Dir, names: list[str], keep: Optional[str], cap: Optional[int]) -> tuple[list[str], int, int]:
    """enforce_cap's removals, and the number and total size of the entries left (-1, -1: no cap)."""
    cap = max_bytes() if cap is None else cap
    if cap is None:
        return [], -1, -1
    sized = []
    present = set(names)
    total = 0
    for name in names:
        if name.startswith(CLASSES_PREFIX):  # libcst's compiled dataclass code (cache_classes): counted, kept
            try:
                total += d.lstat(name).st_size
            except OSError:
                pass
        elif name.startswith(MODULES_PREFIX):  # the library's kept module code (cache_modules): counted, and
            try:  # removed as an entry would be (it is made again by the next derivation that imports modules)
                st = d.lstat(name)
            except OSError:
                continue
            sized.append((st.st_mtime, name, st.st_size))
            continue
        if entry_parts(name) is None:
            continue
        try:
            st = d.lstat(name)
        except OSError:
            continue
        size = st.st_size
        if code_name(name) in present:  # an entry's compiled form counts with it, and goes with it
            try:
                size += d.lstat(code_name(name)).st_size
            except OSError:
                pass
        sized.append((st.st_mtime, name, size))
    total += sum(s for _, _, s in sized)
    if total <= cap:
        return [], len(sized), total
    gone = []
    target = int(cap * 0.9)
    for _, name, size in sorted(sized):
        if total <= target:
            break
        if name != keep and _remove(d, name):
            gone.append(name)
            total -= size
    return gone, len(sized) - len(gone), total


# What the last full look at the directory found (`<entries> <bytes>`, -1 bytes where there is no cap):
# measuring every entry costs two `stat`s each and matching every compiled form to its entry a digest
# each, 40 ms per derivation in a directory of 2000 entries, so after a publish the directory is looked
# at in full (orphaned compiled forms, the size cap) only once it holds an eighth more entries than
# then, or the sizes then, grown by as many average entries, come near the cap.  (The cap bounds
# growth, loosely between two looks: at most an eighth more entries than a look found; `prune` looks
# in full.)
CAP_STATE = ".cap-state"


def _look_due(d: _Dir, names: list[str], cap: Optional[int]) -> bool:
    """Must the directory be looked at in full now: orphaned compiled forms, the sizes (see CAP_STATE)?"""
    status, info = read_bytes(d, CAP_STATE)
    if status != "ok":
        return True
    try:
        count, total = (int(x) for x in info[0].decode("ascii").split())  # type: ignore[index]
    except (UnicodeDecodeError, ValueError):
        return True
    grown = _entry_count(names) - count
    if count <= 0 or grown < 0 or grown > count // 8:
        return True
    return cap is not None and (total < 0 or total + grown * (total // count) > cap * 0.8)


def _entry_count(names: list[str]) -> int:
    """About how many entries `names` holds (`*.py` not dot-named: a growth measure, no pattern to match)."""
    return sum(1 for n in names if n.endswith(".py") and not n.startswith("."))


def _note_sizes(d: _Dir, names: list[str], gone: list[str], total: int) -> None:
    from .cache_write import write_atomic

    write_atomic(d, CAP_STATE, f"{_entry_count(names) - len(gone)} {total}\n".encode("ascii"))


# The upkeep lists the whole directory: ~1 ms per thousand names, paid by every derivation -- in a process deriving
# many functions into a big directory (a test suite: 10,000 entries) it became a fifth of the derivation time.  In a
# directory that held more than BIG_DIR names at the last upkeep, an upkeep waits UPKEEP_EVERY_S seconds after the
# last one in this process: an edited function's old entries, stale temporaries and the size cap are seen to then
# (or by `mooncake-ast cache prune`); none of it is needed for a right answer (keys are content hashes).
BIG_DIR = 512
UPKEEP_EVERY_S = 2.0
_LAST_UPKEEP: dict = {}  # directory path -> (monotonic time, number of names) of this process's last upkeep there


def after_publish(d: _Dir, published: str, source: Optional[str]) -> None:
    """The upkeep that follows writing an entry (never raises: the entry is already safe)."""
    last = _LAST_UPKEEP.get(d.path)
    now = time.monotonic()
    if last is not None and last[1] > BIG_DIR and now - last[0] < UPKEEP_EVERY_S:
        return
    try:
        names = d.names()
        _LAST_UPKEEP[d.path] = (now, len(names))
        gone = set(drop_superseded(d, names, published, source))
        gone |= set(drop_stale_temporaries(d, names))
        left = [n for n in names if n not in gone]
        cap = max_bytes()
        if _look_due(d, left, cap):
            drop_orphan_code(d, left)
            drop_unused_records(d, left)
            over, _, total = _enforce_cap(d, left, published, cap)
            _note_sizes(d, left, over, total)
    except OSError:
        pass


def prune(d: _Dir) -> dict[str, list[str]]:
    """`mooncake-ast cache prune`: every function's entries of other sources than its newest entry's,
    stale temporary files, and entries beyond the size cap."""
    names = d.names()
    newest: dict[str, tuple[float, str]] = {}
    for name in names:
        stem = _stem(name)
        if stem is None:
            continue
        try:
            mtime = d.lstat(name).st_mtime
        except OSError:
            continue
        if stem not in newest or mtime > newest[stem][0]:
            newest[stem] = (mtime, name)
    superseded: list[str] = []
    for _, name in newest.values():
        superseded += drop_superseded(d, names, name, source_of(d, name))
    temporaries = drop_stale_temporaries(d, names)
    left = [n for n in names if n not in set(superseded) | set(temporaries)]
    drop_orphan_code(d, left)
    over, _, total = _enforce_cap(d, left, None, None)
    _note_sizes(d, left, over, total)
    records = drop_unused_records(d, [n for n in left if n not in set(over)], kept=0)
    return {"superseded": superseded, "temporaries": temporaries, "over the size cap": over, "unused library records": records}
