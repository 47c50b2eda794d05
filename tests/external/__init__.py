"""External corpus: differentiable functions written by other people.

Functions are copied from public, permissively licensed projects (BSD / MIT / PSF),
used as-is or with minimal mechanical edits (noted in each function's origin comment),
to measure how mooncake_ast fares on code it was not written for.  Same API as
``tests/corpus``: each module defines module-level functions and a ``CASES`` list.
"""
from tests.corpus import Case, collect_cases  # the same case type as the corpus

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
    return collect_cases(__name__, MODULES)
