"""Run every check of tests/hunt_kit.py on every probe of tests/hunt13_cases.py and print a table of outcomes.

    PYTHONPATH=. python scripts/hunt13_audit.py [--all-second] [name ...]
"""
from __future__ import annotations

import os
import sys
import time
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))
import hunt13_cases  # noqa: E402
from hunt_kit import Kit  # noqa: E402

K = Kit(hunt13_cases, second_every=4)


def main(names):
    counts = {}
    t0 = time.time()
    for name, cname, x, extra in K.all_params():
        if names and name not in names:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cls, detail = K.classify(cname, name, x, extra)
        counts[cls] = counts.get(cls, 0) + 1
        if cls != "ok":
            print(f"{cls:8s} {name:32s} {cname:8s} {detail}", flush=True)
    print(counts, f"{time.time() - t0:.0f} s")


if __name__ == "__main__":
    args = sys.argv[1:]
    if "--all-second" in args:
        args.remove("--all-second")
        K.SECOND_EVERY = 1
    main(set(args))
