"""The cache key of a derivative, and the names its entry assumed: what a warm cache hit computes.

The key is computed *before* anything is generated, from what the generated text depends on
(`derivative_key`): the function's source and position, its name, the mode and options, what
the names it mentions denote in its module (`environment`), the rules the user registered or
changed (`rules_fingerprint`), the library's version and place (`library_identity`) and the
Python version.  The names the generated code resolved statically (builtins, modules: the
transform's `StaticResolver.bindings`) travel in the entry's header and are checked against the
function's module after loading (`bindings_hold`), and again on every call; so does what of the
library the generation ran and the state of its files (cache_write.library_record), checked by a hit
before the entry is used (`library_holds`).

This module is what a process whose derivatives are all cached loads besides the cache itself
and the run-time helpers: it imports nothing of lowering, transforms or emission, and is kept
small, since a new process pays for every module it loads (forward/generate.py and
reverse/generate.py re-export these names).
"""
from __future__ import annotations

import builtins
import inspect
import json
import linecache
import os
import struct
import sys
import types
import warnings
from typing import Any

from . import import_states
from .rules import fingerprints, registry
from .digests import hasher

_RULES_MEMO: list = [None, ""]


def _stable_name(obj: Any) -> str:
    """A name for `obj` that is the same in every process (no memory addresses)."""
    from .errors import qualified_name

    return fingerprints.strip_addresses(qualified_name(obj))


def rules_fingerprint() -> str:
    """A digest of the rule tables as far as the library's own files do not already say it.

    The built-in tables are a function of the library's code (in `library_fingerprint`), of
    NumPy's version (some rules exist only in some versions) and of Python's (in the key).  What
    the user registered or changed (`mc.frule`, `mc.rrule`, `zero_derivative`, a direct `defjvp`)
    is described rule by rule: name, modes and template fingerprints.  So a process pays for
    this in proportion to its own rules, not to the library's 400-odd."""
    changed = registry.changed_rules()
    rules = [(k, registry.lookup_exact(k)) for k in changed]
    sig = (registry.registry_version(), tuple(
        (id(k), id(r.fingerprint_of), r.zero, r.mutates, id(r.jvp), id(r.vjp), id(r.user_frule), id(r.user_rrule))
        for k, r in rules if r is not None))
    if _RULES_MEMO[0] == sig:
        return _RULES_MEMO[1]
    import numpy

    rows = [f"numpy {numpy.__version__}"]
    if rules:
        from .rules.catalog import entry_name

        for key, r in rules:
            if r is None:
                continue
            try:
                name = entry_name(key)
            except Exception:  # a key our names do not cover: its type is still stable
                name = type(key).__qualname__
            modes = "".join("1" if x else "0" for x in (r.jvp, r.vjp, r.user_frule, r.user_rrule))
            rows.append(f"{fingerprints.strip_addresses(name)}:{r.fingerprint}:{r.zero}:{r.mutates}:{modes}")
    h = hasher("\n".join(sorted(rows)).encode()).hexdigest()
    _RULES_MEMO[:] = [sig, h]
    return h


# source path -> (size, mtime in ns, inode) of each library file not imported that this process stat'ed (a hit's
# library check, library_holds, or the whole library's scan, library_scan.py): so that a module generation
# imports from code kept in the cache (cache_modules) is checked against the state the check found, without a
# stat of its own
SCANNED: dict[str, tuple] = {}


def _packed(states: list) -> bytes:
    """The states as bytes for the digest: 8 bytes a number (writing 900 large ints as text cost a warm hit
    a tenth of a millisecond), as text where one does not fit (an inode past 2**63)."""
    try:
        return struct.pack(f"<{len(states)}q", *states)  # (struct: loaded with NumPy already, unlike array)
    except struct.error:
        return " ".join(map(hex, states)).encode()


# ---------------------------------------------------------------- the library an entry was made with

_ROOT = os.path.dirname(os.path.abspath(__file__))
_FOLDERS: dict[str, tuple] = {}  # folder path -> (mtime in ns, inode) as this process first saw it
_LISTINGS: dict[str, str] = {}  # folder path -> listing_digest, as this process first saw it
_HELD: dict[tuple, bool] = {}  # a record (digest, files) -> whether this process's library has the states it says


def library_identity() -> str:
    """The library's part of every key: its version and where it is.  The state of its files is not in the key:
    each entry records the files its generation ran (cache_write.library_record) and a hit checks those
    (`library_holds`)."""
    from . import __version__

    return f"{__version__}:{_ROOT}"


def folder_state(path: str) -> tuple:
    """(modification time in ns, inode) of a folder of the library, as this process first saw it."""
    known = _FOLDERS.get(path)
    if known is None:
        try:
            st = os.stat(path)
            known = (st.st_mtime_ns, st.st_ino)
        except OSError:
            known = (-1, -1)
        _FOLDERS[path] = known
    return known


def listing_digest(path: str) -> str:
    """A digest of a folder's names, less dot-named ones and `__pycache__` (which the first import that writes
    bytecode there makes, moving the folder's time), as this process first saw them."""
    found = _LISTINGS.get(path)
    if found is None:
        try:
            names = sorted(n for n in os.listdir(path) if not n.startswith(".") and n != "__pycache__")
        except OSError:
            names = ["?"]
        found = _LISTINGS[path] = hasher("\0".join(names).encode()).hexdigest()[:32]
    return found


def _folders_hold(folders: Any) -> bool:
    """Have the folders of a library record the names they had?  Where a folder's time and inode are those
    recorded, nothing was added, removed or renamed in it; where they are not, its names are compared."""
    if type(folders) is not dict:
        return False
    for folder, seen in folders.items():
        if type(folder) is not str or type(seen) is not list or len(seen) != 3:
            return False
        path = os.path.join(_ROOT, folder) if folder else _ROOT
        if list(folder_state(path)) != seen[:2] and listing_digest(path) != seen[2]:
            return False
    return True


def library_holds(record: Any) -> bool:
    """Do the library's files have the states an entry's library record (cache_write.library_record) says they
    had?  A file imported in this process is taken as it was imported, any other is stat'ed once per process
    (not all of the library's files: those of the modules the entry's generation loaded, most of them imported
    already)."""
    if type(record) is not dict:
        return False
    digest, files = record.get("digest"), record.get("files")
    if type(digest) is not str or type(files) is not dict:
        return False
    try:
        memo = (digest, tuple(files.items()))
        held = _HELD.get(memo)
    except TypeError:  # (a value that is not text)
        return False
    if held is None:
        held = _HELD[memo] = _library_digest(files) == digest
    return held and _folders_hold(record.get("folders"))


_RECORDS: dict[str, bool] = {}  # a record's digest -> whether it holds in this process (as library_holds says)


def record_holds(d: Any, reference: Any) -> bool:
    """Does the library record an entry names (`meta["library"]`: the digest of its text, in the file
    `cache.record_name(digest)` of the entry's directory `d`) hold?  The file is read with an entry's checks
    and used only if its text has that digest; a record missing, altered or not holding: False (the entry is made
    again, with its record).  Answers are kept by digest: a record's text is fixed by its digest, and what
    library_holds says of a record does not change in a process.  (An entry that still carries the record itself,
    as entries did before the record file, is checked as it stands.)"""
    if type(reference) is dict:
        return library_holds(reference)
    if type(reference) is not str or len(reference) != 64:
        return False
    held = _RECORDS.get(reference)
    if held is not None:
        return held
    from .cache import read_bytes, record_name

    status, info = read_bytes(d, record_name(reference))
    if status != "ok":
        return False
    data = info[0]  # type: ignore[index]
    if hasher(data).hexdigest() != reference:
        return False
    try:
        record = json.loads(data)
    except ValueError:  # (UnicodeDecodeError included)
        return False
    held = _RECORDS[reference] = library_holds(record)
    return held


def _library_digest(files: dict) -> str:
    """A digest of the folders and names in `files` (as cache_write.library_record makes it) and of each file's
    size, modification time (ns) and inode (as imported, else as stat'ed: `SCANNED`); "" for a malformed record."""
    h = hasher()
    states: list = []
    imported = import_states.STATES.get
    scanned = SCANNED.get
    stat = os.stat
    for folder, names in sorted(files.items()):
        if type(folder) is not str or type(names) is not str:
            return ""
        path = os.path.join(_ROOT, folder) if folder else _ROOT
        h.update(f"{folder}\0{names}\0".encode())
        inside = path + os.sep
        for name in names.split(" "):
            file = inside + name
            known = imported(file) or scanned(file)  # (most of them: a warm hit imported them already)
            if known is None:
                try:
                    st = stat(file)
                    known = SCANNED[file] = (st.st_size, st.st_mtime_ns, st.st_ino)
                except OSError:
                    known = (-1, -1, -1)
            states.append(known)
    h.update(_packed([n for state in states for n in state]))
    return h.hexdigest()


_NAMES: dict = {}


def code_names(code: types.CodeType) -> frozenset:
    """Every name a code object (and the code nested in it) mentions."""
    found = _NAMES.get(code)
    if found is None:
        names = set(code.co_names) | set(code.co_varnames) | set(code.co_freevars) | set(code.co_cellvars)
        for c in code.co_consts:
            if isinstance(c, types.CodeType):
                names |= code_names(c)
        found = _NAMES[code] = frozenset(names)
    return found


def function_digest(fn: types.FunctionType, depth: int = 3) -> str:
    """A digest of fn's code and of the global functions it calls (to the depth reverse/call_types.py types
    calls to): what the types of calls of fn depend on, for cache keys.  Built from the code objects
    (bytecode, names, constants), so it is the same in every process of one Python version."""
    h = hasher()
    _code_into(h, fn.__code__)
    if depth > 1:
        g = fn.__globals__
        for name in sorted(_global_names(fn.__code__)):
            other = g.get(name)
            if type(other) is types.FunctionType and other is not fn:
                h.update(name.encode() + b"=" + function_digest(other, depth - 1).encode())
    return h.hexdigest()[:16]


def class_digest(cls: type) -> str:
    """A digest of a class's own functions (as `function_digest`) and of its other attributes' names and types:
    what the types of its instances made inside a function depend on (reverse/local_objects.py)."""
    h = hasher()
    for name, v in sorted(vars(cls).items(), key=lambda kv: kv[0]):
        if type(v) is types.FunctionType:
            h.update(f"{name}=function {function_digest(v)};".encode())
        elif name not in ("__dict__", "__weakref__", "__doc__", "__module__", "__qualname__"):
            h.update(f"{name}={type(v).__qualname__};".encode())
    fields = getattr(cls, "__dataclass_fields__", None)
    if isinstance(fields, dict):
        h.update(repr([(f.name, f.init, repr(f.default)[:80], f.default_factory is not None) for f in fields.values()]).encode())
    return h.hexdigest()[:16]


def _global_names(code: types.CodeType) -> set:
    names = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            names |= _global_names(c)
    return names


def _code_into(h: Any, code: types.CodeType) -> None:
    h.update(code.co_code)
    h.update(repr((code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars, code.co_argcount,
                   code.co_kwonlyargcount, code.co_flags)).encode())
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            _code_into(h, c)
        elif isinstance(c, frozenset):
            h.update(repr(sorted(map(repr, c))).encode())
        else:
            h.update(repr(c).encode())


def lineage_digest(fn: types.FunctionType) -> str:
    """What tells the versions of fn's derivative apart for eviction (cache_evict.lineage): fn's source and the
    code of the global functions it calls, whose edits also make a new derivative (their calls are typed
    from their code), so the older one is superseded rather than left behind."""
    h = hasher(source_digest(fn).encode())
    g = fn.__globals__
    for name in sorted(code_names(fn.__code__)):
        other = g.get(name)
        if type(other) is types.FunctionType:
            h.update(f"{name}={function_digest(other)}".encode())
    return h.hexdigest()


def describe(obj: Any) -> str:
    """What an object is, for keys and binding checks: modules by name, callables by qualified
    name and rule (a built-in rule by its presence: registry.key_fingerprint), other values by type."""
    if isinstance(obj, types.ModuleType):
        return f"module {obj.__name__}"
    if obj is _MISSING:
        return "missing"
    try:
        if callable(obj):
            rule = registry.lookup(obj)
            return f"{type(obj).__qualname__} {_stable_name(obj)}" + (
                f" rule {registry.key_fingerprint(rule)}" if rule is not None else "")
    except Exception:  # an object whose attributes cannot be read: its type is what we know
        pass
    return type(obj).__qualname__


_MISSING = object()


_BUILTIN_NAMES: list = []
_BUILTINS_DICT = vars(builtins)


def _builtin_names() -> frozenset:
    if not _BUILTIN_NAMES:
        _BUILTIN_NAMES.append(frozenset(dir(builtins)))
    return _BUILTIN_NAMES[0]


def environment(fn: types.FunctionType) -> list[str]:
    """What every name the function mentions denotes in its module, as far as generation can use it:
    a module (and, for names read from modules, what they denote there), a builtin, or a
    global of the user's (looked up when the code runs)."""
    names = code_names(fn.__code__)
    g = fn.__globals__
    out: list[str] = []
    modules: list[types.ModuleType] = []
    for n in sorted(names):
        if n in g:
            v = g[n]
            if isinstance(v, types.ModuleType):
                out.append(f"{n}=module {v.__name__}")
                modules.append(v)
            else:
                # Whether it may be a user object decides if operators on it are inlined (forward/object_flow.py).
                from .forward.object_flow import _plain_global

                if type(v) is types.FunctionType:  # (calls of it are typed from its code: reverse/call_types.py)
                    out.append(f"{n}=function {function_digest(v)}")
                elif type(v) is type and v.__mro__ == (v, object) and v.__module__ != "builtins":
                    # (its instances made here are typed from its code: reverse/local_objects.py)
                    out.append(f"{n}=class {class_digest(v)}")
                elif type(v) in (float, int, bool):  # (reverse mode types a module-level number: settle_types)
                    out.append(f"{n}=global {type(v).__name__}")
                else:
                    out.append(f"{n}=global" if _plain_global(v) else f"{n}=global object")
        elif n in _BUILTINS_DICT:  # (not hasattr: a miss costs it an AttributeError, 3 µs a name)
            out.append(f"{n}=builtin {describe(getattr(builtins, n))}")
    # Builtins the generated code may call although the function does not mention them (`len`,
    # `range`, ... in loops and pullbacks) are written `builtins.len` if the module shadows them.
    shadowed = sorted(n for n in g.keys() & _builtin_names() if not n.startswith("__"))
    out.append("shadowed builtins: " + ",".join(shadowed))
    seen: set = set()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        while modules:
            m = modules.pop()
            if id(m) in seen:
                continue
            seen.add(id(m))
            d = vars(m)
            for n in sorted(names):
                if n in d:  # only what the module defines: no lazy imports triggered
                    v = d[n]
                    out.append(f"{m.__name__}.{n}={describe(v)}")
                    if isinstance(v, types.ModuleType):
                        modules.append(v)
    return out


def _last_line(code: types.CodeType) -> int:
    """The last source line any instruction of `code` (or of code nested in it) spans."""
    last = code.co_firstlineno
    for _, end, _, _ in code.co_positions():
        if end is not None and end > last:
            last = end
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            last = max(last, _last_line(c))
    return last


def source_digest(fn: types.FunctionType) -> str:
    """A digest of the text the generated module is made from, without parsing it.

    The text is the file's lines from the code's first line (its first decorator) to the last
    line any of its instructions spans: all of the definition that can change what it does.
    The lines are read as linecache gives them where it holds the file (checked against the
    file's size and time first, as `inspect` does) or where the file cannot be read from disk
    (a loader's source); otherwise as bytes straight from the file, which is the same text
    without linecache's decoding and caching (a warm hit reads no more of it).  Not
    `inspect.getsourcelines`, whose module search and tokenizer cost more than a warm gradient.
    """
    code = getattr(fn, "__code__", None)  # the function's own code: never the one __wrapped__ names
    if not isinstance(code, types.CodeType):
        from .frontend.source import function_source

        function_source(fn)  # raises the error that explains why there is no source
        raise TypeError(f"{fn!r} is not a Python function")
    file = code.co_filename
    lines: list = _file_lines(file, fn.__globals__)
    first, last = code.co_firstlineno, _last_line(code)
    if not lines or last > len(lines):  # not the lines the code was compiled from: as inspect finds them
        try:
            text, first = inspect.getsourcelines(code)
        except (OSError, TypeError):
            from .frontend.source import function_source

            function_source(fn)  # raises the error that explains why there is no source
            raise
        lines, last = text, -1
        h = hasher("".join(text).encode())
    else:
        h = hasher(_joined(lines[first - 1:last]))
        if type(lines[0]) is bytes and first > 1:
            # The bytes mean what an encoding declaration in the file's first two lines says (PEP 263):
            # a new declaration is a new text.
            for line in lines[:2]:
                if b"coding" in line:
                    h.update(b"\0" + line)
    if code.co_name == "<lambda>":
        # A lambda may be found by parsing the whole file, and several may share a line: the
        # positions of its code (line and column of every instruction) say which one it is.
        h.update(_joined(lines))
        h.update(repr(tuple(code.co_positions())).encode())
    h.update(f"\0{file}\0{first}\0{last}".encode())
    return h.hexdigest()


def _file_lines(file: str, module_globals: dict) -> list:
    """The lines of source file `file`: text from linecache where it holds the file or the file is not
    on disk, else bytes read from the file (split where a text read splits them: at \\n, \\r\\n and \\r)."""
    if file.startswith("<") and file.endswith(">"):
        return linecache.getlines(file, module_globals)
    if file not in linecache.cache:
        try:
            with open(file, "rb") as fh:
                return fh.read().splitlines(True)
        except OSError:
            pass  # (a loader's source, a file found on sys.path: as linecache finds them)
    linecache.checkcache(file)
    return linecache.getlines(file, module_globals)


def _joined(lines: list) -> bytes:
    return b"".join(lines) if lines and type(lines[0]) is bytes else "".join(lines).encode()


def derivative_key(fn: types.FunctionType, mode: str) -> str:
    """The cache key of fn's derivative module in `mode` ("forward", or "reverse:<argument kinds>")."""
    h = hasher()
    for part in (source_digest(fn), fn.__module__, fn.__qualname__, mode, library_identity(), sys.version,
                 rules_fingerprint(), "\n".join(environment(fn))):
        h.update(str(part).encode())
        h.update(b"\0")
    return h.hexdigest()


# ---------------------------------------------------------------- bindings in the entry's header


def binding_descriptions(bindings: dict) -> dict:
    return {name: describe(obj) for name, obj in sorted(bindings.items())}


def _current(fn: types.FunctionType, name: str) -> Any:
    g = fn.__globals__
    return g[name] if name in g else getattr(builtins, name, _MISSING)


def bindings_hold(fn: types.FunctionType, described: Any) -> bool:
    """Does every name the cached module resolved statically still denote the same thing?"""
    if not isinstance(described, dict):
        return False
    return all(describe(_current(fn, name)) == what for name, what in described.items())


def current_bindings(fn: types.FunctionType, described: dict) -> dict:
    return {name: _current(fn, name) for name in described}


def bind_to(raw: types.FunctionType, fn: types.FunctionType) -> types.FunctionType:
    """The generated function `raw`, running in the user function's module namespace."""
    bound = types.FunctionType(raw.__code__, fn.__globals__, raw.__name__, raw.__defaults__, raw.__closure__)
    bound.__kwdefaults__ = raw.__kwdefaults__
    return bound
