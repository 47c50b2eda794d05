"""Audit of issue 13 as an outside tester runs it: fresh user files in a temporary directory, fresh
processes where the bullet is about a fresh process, and a table of PASS / FAIL per check.

    python scripts/audit_issue13.py [-k WORD] [-v]

Checks (each prints one row): tracebacks of user exceptions through every entry point; user-caused
mistakes as MooncakeErrors that say what to do; odd inputs never leaking library exceptions (and
agreeing with central differences where they succeed); help() of every public name; docs/api.md and
docs/how-it-works.md; the README (Python versions, REPL/notebook, every ```python block run as pasted
into a file); `mooncake-ast generate` modules that stand alone; descriptor / wrapper conveniences;
naming in generated code over user functions and the test corpus; a long derivation saying so on
stderr.  It does not use the repository's tests; it needs only the package and numpy (dask, IPython optional).

The checks live in audit13_errors.py, audit13_inputs.py and audit13_docs.py beside this file (each runs
as it is defined); audit13_kit.py is the harness, audit13_constructs.py the functions of many constructs.
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from audit13_kit import RESULTS, VERBOSE, WORK  # noqa: E402

import audit13_errors  # noqa: E402,F401  (each check runs as its module is imported)
import audit13_inputs  # noqa: E402,F401
import audit13_docs  # noqa: E402,F401


# ------------------------------------------------------------------------------------------ table


def main() -> int:
    width = max(len(n) for _, n, _, _ in RESULTS) if RESULTS else 10
    fails = 0
    group = None
    for g, name, ok, detail in RESULTS:
        if g != group:
            print(f"\n== {g}")
            group = g
        fails += ok is False
        print(f"  {'PASS' if ok else 'FAIL' if ok is False else 'INFO'}  {name:<{width}}" + ("" if ok and not VERBOSE else
                                                                  "  " + str(detail).replace("\n", "\n        ")))
    info = sum(ok is None for _, _, ok, _ in RESULTS)
    print(f"\n{len(RESULTS) - fails - info} / {len(RESULTS) - info} pass, {info} informational  (work dir {WORK})")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
