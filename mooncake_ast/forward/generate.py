"""Build the forward-mode module of a function: key, cache lookup, and (on a miss) lower, transform, emit.

The cache key is computed *before* anything is generated (`cache_key.derivative_key`, from what
the generated text depends on); a hit costs a source lookup and a few hashes, then the checked
module is executed; nothing is lowered or emitted.  The names the generated code resolved
statically travel in the entry's header and are checked against the function's module after
loading, and again on every call (`stale`).  The key's functions live in cache_key.py (what a
warm hit loads) and are re-exported here.
"""
from __future__ import annotations

import _thread
import contextlib
import os
import sys
import threading
import types
from typing import Any, Iterator, Optional

from .. import cache
from ..cache_key import (_LIBRARY, _RULES_MEMO, bind_to, binding_descriptions, bindings_hold, class_digest,  # noqa: F401  (re-exported)
                         code_names, current_bindings, derivative_key, describe, environment, function_digest,
                         library_fingerprint, lineage_digest, rules_fingerprint, source_digest)

# Lowering and emission (and libcst, the parser) are imported when a module is generated:
# a process whose derivatives are all in the cache never loads them.


class Generated:
    """A forward derivative, ready to call (a plain class: a dataclass costs a warm hit its creation)."""

    def __init__(self, function: types.FunctionType, takes_self: bool, bindings: dict, module: types.ModuleType,
                 key: str, name: str) -> None:
        self.function, self.takes_self, self.bindings = function, takes_self, bindings
        self.module, self.key, self.name = module, key, name


# ---------------------------------------------------------------- generation

PROGRESS_AFTER_S = 1.0  # a derivation running longer than this says so on stderr
DEEP_STACK = 20000  # recursion limit while generating (long elif chains, deep expressions)
_STACK_LOCK = threading.Lock()
_STACK_USERS = [0, 0]  # derivations in progress, the limit before the first of them


@contextlib.contextmanager
def deriving(fn: types.FunctionType, mode: str) -> Iterator[None]:
    """Around the generation of one derivative module.

    * Says on stderr, once, which function is being derived if that takes more than
      `PROGRESS_AFTER_S` (a long function takes seconds: progress, not silence).
    * Raises the recursion limit while generating: the parser and the transforms walk nested
      syntax recursively, and valid Python (a 1000-branch elif chain) nests that deep.
      Restored when the last derivation in progress ends.
    """
    from ..frontend import source  # noqa: F401  (libcst's import is not the derivation: before the clock)

    code = getattr(fn, "__code__", None)
    where = f"{os.path.basename(code.co_filename)}:{code.co_firstlineno}" if code is not None else "?"
    message = f"mooncake_ast: deriving {fn.__module__}.{fn.__qualname__} ({where}), {mode.split(':')[0]} mode ..."
    done = _thread.allocate_lock()
    done.acquire()
    with _STACK_LOCK:
        if _STACK_USERS[0] == 0:
            _STACK_USERS[1] = sys.getrecursionlimit()
            sys.setrecursionlimit(max(_STACK_USERS[1], DEEP_STACK))
        _STACK_USERS[0] += 1
    # The watcher is a bare thread waiting on `done` (threading.Timer's start waits until the new thread
    # runs: milliseconds on a busy machine, for every derivation).
    _thread.start_new_thread(_progress, (done, PROGRESS_AFTER_S, message))
    try:
        yield
    finally:
        done.release()
        with _STACK_LOCK:
            _STACK_USERS[0] -= 1
            if _STACK_USERS[0] == 0:
                sys.setrecursionlimit(_STACK_USERS[1])


def _progress(done: Any, after: float, message: str) -> None:
    """Print `message` on stderr unless `done` is released within `after` seconds."""
    if not done.acquire(timeout=after):
        try:
            print(message, file=sys.stderr, flush=True)
        except Exception:  # a closed or replaced stderr: progress is a courtesy
            pass


def forward_source_text(fn: types.FunctionType, kinds: Optional[dict] = None) -> tuple[str, bool, dict]:
    """The module text of fn's forward derivative, whether it takes (fn, dfn), and the bindings it assumed."""
    from ..emit.module import ModuleWriter, emit_function
    from ..emit.primal import user_names
    from ..frontend.source import function_source
    from ..frontend.statements import lower_function
    from .transform import ForwardTransform

    src = function_source(fn)
    ir = lower_function(fn, src)
    t = ForwardTransform(ir, fn.__globals__, kinds or {})
    if fn.__closure__ is not None:
        from ..attribute_checks import writes_captured

        t.writes_captured = fn.__qualname__ if writes_captured(fn) else None
    fwd, params = t.run()
    writer = ModuleWriter(user_names(fn, ir), fn.__globals__, ir.local_names)
    name = f"{ir.name if ir.name.isidentifier() else 'lambda_'}__jvp"
    from .. import __version__

    primal_params = ", ".join(p.name for p in ir.params)
    writer.header = [
        f"# Generated by mooncake_ast {__version__} - do not edit.",
        f"# Forward-mode derivative of {fn.__qualname__} ({os.path.basename(src.file)}:{ir.loc.line}).",
        f"# {name}(<primals>, <tangents>) returns (value, tangent) of {ir.name}({primal_params}).",
    ] + ([f"# Specialised for arguments ({', '.join(f'{k}: {v}' for k, v in kinds.items())})."
          .replace(":inactive", ", zero tangent")] if kinds else [])
    text = emit_function(fwd, writer, name, params, tangent_of=t.tangent_of)
    writer.add_function(text)
    return writer.render(), t.uses_self, t.resolver.bindings


def generate_forward(fn: types.FunctionType, kinds: Optional[dict] = None) -> Generated:
    mode = "forward" if not kinds else "forward:" + repr(sorted(kinds.items()))
    key = derivative_key(fn, mode)

    def build() -> tuple[str, dict]:
        from ..cache_evict import lineage  # (eviction's module: only when an entry is made)

        with deriving(fn, mode):
            text, takes_self, bindings = forward_source_text(fn, kinds)
        return text, {"takes_self": takes_self, "bindings": binding_descriptions(bindings),
                      **lineage(fn, lineage_digest(fn))}  # older versions are evicted

    module, meta = cache.load_module(key, cache.entry_stem(fn.__module__, fn.__qualname__, "forward"), build,
                                     accept=lambda meta: bindings_hold(fn, meta.get("bindings")))
    name = next(n for n in vars(module) if n.endswith("__jvp"))
    bound = bind_to(getattr(module, name), fn)
    return Generated(bound, bool(meta.get("takes_self")), current_bindings(fn, meta.get("bindings", {})), module, key, name)
