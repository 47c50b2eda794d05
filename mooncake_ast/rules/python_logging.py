"""The standard library's logging calls inside a differentiated function: no derivative, run as they are.

`log.debug("loss at %s", x.shape)` (or `logging.info(...)`) writes a message and returns None: nothing a derivative
follows comes out of it, and it changes none of its arguments.  Differentiated through its source, reverse mode
walked the logger's manager, handlers and locks (a RecursionError in mc.grad of any function that logs).  Registered
on first need, once the user's code has imported logging (registry._LAZY_TABLES).
"""
from __future__ import annotations

import logging

from .registry import defzero

_MESSAGES = ("debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log")


def register() -> None:
    for cls in (logging.Logger, logging.LoggerAdapter):
        for name in _MESSAGES:
            if hasattr(cls, name):
                defzero((cls, name))
        for name in ("isEnabledFor", "getEffectiveLevel"):
            defzero((cls, name))
    defzero(logging.getLogger, *(getattr(logging, name) for name in _MESSAGES if hasattr(logging, name)))
