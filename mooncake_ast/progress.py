"""Progress on stderr for derivations that take long: "mooncake_ast: deriving m.f (m.py:3), reverse mode ...".

Why a single watcher thread: a thread per derivation (the first design) costs two hand-overs of the GIL per
derivation -- the new thread must be scheduled to start waiting, and again when it is woken at the end.  On a
machine whose cores are busy (a test suite on two workers, a user's pool of processes) each hand-over waits for
the scheduler: about 10 ms per derivation, as much as the derivation of a small function.  One watcher that
polls a few times a second while derivations are in progress, and lingers a little after the last one before it
blocks, costs nothing per derivation: starting one is a dict insertion, ending one a deletion.
"""
from __future__ import annotations

import _thread
import itertools
import os
import sys
import time
from typing import Optional

POLL_S = 0.2  # the watcher's granularity: a message comes at most this late
LINGER_S = 2.0  # polling goes on this long after the last derivation ended (a burst of derivations wakes it once)

_LOCK = _thread.allocate_lock()  # guards the fields below
_ACTIVE: dict[int, list] = {}  # token -> [deadline, message]; the message is None once printed
_TOKENS = itertools.count()
_WAKE = _thread.allocate_lock()  # held but while start() wakes the watcher early (released once, re-taken by it)
_WAKE.acquire()
_NEVER = float("inf")
_STATE = {"running": False, "next_wake": _NEVER, "signalled": False, "last_end": 0.0}


def start(message: str, after_s: float) -> int:
    """Announce `message` on stderr if the derivation is still running `after_s` seconds from now.

    The watcher is woken only when this deadline comes before its own next wake-up (a short deadline, or a
    watcher blocked since the last burst of derivations): usually this is a dict insertion."""
    token = next(_TOKENS)
    with _LOCK:
        deadline = time.monotonic() + after_s
        _ACTIVE[token] = [deadline, message]
        if not _STATE["running"]:
            _STATE["running"] = True
            _thread.start_new_thread(_watch, ())
        elif deadline < _STATE["next_wake"] and not _STATE["signalled"]:
            _STATE["signalled"] = True
            _WAKE.release()
    return token


def end(token: int) -> None:
    with _LOCK:
        _ACTIVE.pop(token, None)
        _STATE["last_end"] = time.monotonic()


def _watch() -> None:
    while True:
        wait: Optional[float] = POLL_S
        due = []
        with _LOCK:
            now = time.monotonic()
            for entry in _ACTIVE.values():
                if entry[1] is not None:
                    if entry[0] <= now:
                        due.append(entry[1])
                        entry[1] = None
                    else:
                        wait = min(wait, entry[0] - now)
            if not _ACTIVE and now - _STATE["last_end"] > LINGER_S:
                wait = None
            _STATE["next_wake"] = _NEVER if wait is None else now + wait
        for message in due:
            try:
                print(message, file=sys.stderr, flush=True)
            except Exception:  # a closed or replaced stderr: progress is a courtesy
                pass
        woken = _WAKE.acquire() if wait is None else _WAKE.acquire(timeout=max(wait, 0.001))
        if woken:  # (start() released it: re-taken now, so the next signal may release it again)
            with _LOCK:
                _STATE["signalled"] = False


def _after_fork_in_child() -> None:
    """The watcher thread does not survive fork: the child starts its own on its first derivation."""
    global _LOCK, _WAKE
    _LOCK = _thread.allocate_lock()
    _WAKE = _thread.allocate_lock()
    _WAKE.acquire()
    _STATE.update(running=False, next_wake=_NEVER, signalled=False)
    _ACTIVE.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
