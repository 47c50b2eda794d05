"""Corpus of ordinary Python / NumPy functions used to test mooncake_ast.

Each corpus module defines module-level functions and a ``CASES`` list of
:class:`Case` objects pairing a function with a factory for fresh arguments.
"""
import dataclasses
import importlib
from typing import Any, Callable

MODULES = (
    "scalar",
    "control",
    "numpy_funcs",
    "containers",
    "mutation",
    "closures_classes",
)


@dataclasses.dataclass(frozen=True)
class Case:
    fn: Callable
    args: Callable[[], tuple]  # factory returning FRESH argument objects on each call
    kwargs: Callable[[], dict] = dict
    tags: tuple = ()

    @property
    def name(self):
        return f"{self.fn.__module__.rsplit('.', 1)[-1]}.{self.fn.__qualname__}"


def collect_cases(package: str, modules) -> list[Case]:
    """Import each module of package and concatenate their CASES lists."""
    cases: list[Case] = []
    for mod_name in modules:
        cases.extend(importlib.import_module(f"{package}.{mod_name}").CASES)
    return cases


def all_cases() -> list[Case]:
    return collect_cases(__name__, MODULES)
