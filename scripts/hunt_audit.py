"""Run every check of tests/hunt_kit.py on every probe of one hunt's cases (tests/hunt<N>_cases.py) and print a
table of outcomes.

    PYTHONPATH=. python scripts/hunt_audit.py 13 [--all-second] [name ...]

N is 11, 12 or 13 (the hunts whose probes use tests/hunt_kit.py); second order runs on every k-th probe as the hunt's
test file samples it, or on all of them with --all-second.
"""
from __future__ import annotations

import importlib
import os
import sys
import time
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))
from hunt_kit import Kit  # noqa: E402

SECOND_EVERY = {"11": 3, "12": 2, "13": 4}


def main(hunt: str, names: set, all_second: bool) -> None:
    kit = Kit(importlib.import_module(f"hunt{hunt}_cases"), second_every=1 if all_second else SECOND_EVERY[hunt])
    counts: dict = {}
    t0 = time.time()
    for name, cname, x, extra in kit.all_params():
        if names and name not in names:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cls, detail = kit.classify(cname, name, x, extra)
        counts[cls] = counts.get(cls, 0) + 1
        if cls != "ok":
            print(f"{cls:8s} {name:32s} {cname:8s} {detail}", flush=True)
    print(counts, f"{time.time() - t0:.0f} s")


if __name__ == "__main__":
    args = sys.argv[1:]
    if not args or args[0] not in SECOND_EVERY:
        sys.exit(f"usage: {__doc__.strip().splitlines()[2].strip()}")
    hunt, rest = args[0], args[1:]
    all_second = "--all-second" in rest
    main(hunt, set(a for a in rest if a != "--all-second"), all_second)
