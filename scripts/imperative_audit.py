"""Audit of imperative, realistic functions (scripts/imperative_cases.py), each checked by
mooncake_ast.testing.check_derivatives in each mode and classified as scripts/audit_issue12.py does.

    PYTHONPATH=. python scripts/imperative_audit.py [-v] [substring ...]
"""
import collections
import sys
import warnings

import mooncake_ast as mc  # noqa: F401

from audit_issue12 import check_both  # (this script's folder is on sys.path)
from imperative_cases import CASES


def main(argv):
    verbose = "-v" in argv
    wanted = [a for a in argv if a != "-v"]
    counts = {"forward": collections.Counter(), "reverse": collections.Counter()}
    for group, fn, args in CASES:
        name = f"{group}.{fn.__name__}"
        if wanted and not any(w in name for w in wanted):
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            (fs, fm), (rs, rm) = check_both(fn, args, verbose)
        counts["forward"][fs] += 1
        counts["reverse"][rs] += 1
        line = f"{name:40s} fwd={fs:8s} rev={rs:8s}"
        if fm:
            line += "  F: " + fm.splitlines()[0][:160]
        if rm and rm != fm:
            line += "  R: " + rm.splitlines()[0][:160]
        print(line, flush=True)
    for mode, c in counts.items():
        print(mode, dict(sorted(c.items())))


if __name__ == "__main__":
    main(sys.argv[1:])
