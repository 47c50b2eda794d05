"""Modules of the library imported when first used, not when their importer is (issue 11).

A first gradient imports the ninety-odd modules of lowering, transformation and emission; a few of them
handle constructs most functions never have (`del`, `import` inside a function, reverse mode's quiet
reads of items), and importing them cost every first gradient their module bodies.  An importer writes

    del_stmt = lazy_module(globals(), ".del_stmt")

instead of `from . import del_stmt`, and uses it as before (`del_stmt.lower_del(...)`): the first attribute read
imports the module and puts it in the importer's namespace in place of the stand-in, so later reads are plain
module reads.  Only module objects are deferred, never names taken out of them (`from .m import f`): a
function handed to the IR or to generated code must be the function itself.  A module already imported is
returned as it is.
"""
from __future__ import annotations

import importlib
import sys
from typing import Any


class LazyModule:
    """Stands for the module `target` in the namespace `namespace` (under `binding`) until it is first read."""

    __slots__ = ("_target", "_namespace", "_binding")

    def __init__(self, target: str, namespace: dict, binding: str) -> None:
        self._target = target
        self._namespace = namespace
        self._binding = binding

    def __getattr__(self, attr: str) -> Any:
        module = importlib.import_module(self._target)
        if self._namespace.get(self._binding) is self:
            self._namespace[self._binding] = module
        return getattr(module, attr)

    def __repr__(self) -> str:
        return f"<module {self._target!r}, imported when first used>"


def lazy_module(namespace: dict, relative: str) -> Any:
    """The module `relative` (".name" or "..package.name", relative to the importer whose globals() is
    `namespace`), imported at its first use; bound by the caller to the module's last name."""
    package = namespace["__package__"]
    dots = len(relative) - len(relative.lstrip("."))
    base = package.rsplit(".", dots - 1)[0] if dots > 1 else package
    target = f"{base}.{relative[dots:]}"
    found = sys.modules.get(target)
    if found is not None:
        return found
    return LazyModule(target, namespace, target.rpartition(".")[2])
