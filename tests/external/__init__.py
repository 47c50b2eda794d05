"""External corpus: differentiable functions written by other people.

Functions are copied from public, permissively licensed projects (BSD / MIT / PSF),
used as-is or with minimal mechanical edits (noted in each function's origin comment),
to measure how mooncake_ast fares on code it was not written for.  Same API as
``tests/corpus``: each module defines module-level functions and a ``CASES`` list.
"""
import importlib

from tests.corpus import Case  # noqa: F401  (the same case type as the corpus)

MODULES = (
    "scipy_benchmarks",
    "ml_losses",
    "numerics",
    "physics_ml",
    "picogpt",
    "numpy_polynomial",
    "cpython_stdlib",
)


def all_cases() -> list[Case]:
    """Import every external module and concatenate their CASES lists."""
    cases: list[Case] = []
    for mod_name in MODULES:
        mod = importlib.import_module(f"{__name__}.{mod_name}")
        cases.extend(mod.CASES)
    return cases
