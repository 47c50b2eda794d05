"""Shared test setup: every test run uses a private, empty derivative cache."""
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
os.environ.setdefault("MOONCAKE_AST_CACHE_DIR", tempfile.mkdtemp(prefix="mooncake-ast-test-cache-"))
os.environ["MOONCAKE_AST_VERIFY"] = "1"  # verify every IR the tests build


# ---------------------------------------------------------------- the everyday suite and the whole one
#
# A few families are long parametrised sweeps of the same machinery (random programs by family and seed, third
# orders and lifted nestings over many functions).  `make test` (and CI) runs a fixed share of their cases, chosen
# by the case's name, so the same ones run every time; MOONCAKE_AST_ALL_PROBES=1 (`make test-all`) runs them all.
# Regression families of fixed bugs and the rule cases are never sampled.
import fnmatch  # noqa: E402
import zlib  # noqa: E402

SAMPLED = {  # file pattern -> (test name or "*", keep one case in n)
    "test_random_programs.py": ("test_generated_program", 3),
    "test_nested_families.py": ("*", 2),
    "test_nested_*_third.py": ("*", 2),
    "test_nested_lifted_*.py": ("*", 2),
    "test_nested_keywords.py": ("*", 2),
    "test_nested_memoised.py": ("*", 2),
    "test_regress_hunt10.py": ("test_second_orders_against_finite_differences", 3),  # a probe sweep
}


def pytest_collection_modifyitems(config, items):
    if os.environ.get("MOONCAKE_AST_ALL_PROBES") == "1":
        return
    kept, dropped = [], []
    for item in items:
        share = _share(item)
        if share and zlib.crc32(item.nodeid.encode()) % share:
            dropped.append(item)
        else:
            kept.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


def _share(item) -> int:
    """One case in n of a sampled family runs (0: not sampled, or a test that is not parametrised)."""
    if getattr(item, "callspec", None) is None:
        return 0
    base = os.path.basename(str(item.fspath))
    for pattern, (name, n) in SAMPLED.items():
        if fnmatch.fnmatch(base, pattern) and (name == "*" or item.originalname == name):
            return n
    return 0
