"""Audit of realistic functions: the functions of scripts/realistic_cases.py (physics, statistics, signal
processing, optimisation, ML losses, ODE integrators, Bayesian models, geometry, finance, standard-library
idioms), each checked by mooncake_ast.testing.check_derivatives in each mode, and classified as
scripts/audit_issue12.py does: ok / missing / refused / wrong / error.

    PYTHONPATH=. python scripts/realistic_audit.py [-v] [substring ...]

A substring selects cases by function name or group.  Not a test: a map of what is left.
"""
import collections
import sys
import warnings

import mooncake_ast as mc  # noqa: F401

from audit_issue12 import check_both  # (this script's folder is on sys.path; the same categories)
from realistic_cases import CASES


def run(fn, args, verbose):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return check_both(fn, args, verbose)


def main(argv):
    audit(CASES, argv)


def audit(cases, argv):
    """Check each (group, function, args) of `cases` in both modes and print a line each, then the counts."""
    verbose = "-v" in argv
    wanted = [a for a in argv if a != "-v"]
    counts = {"forward": collections.Counter(), "reverse": collections.Counter()}
    for group, fn, args in cases:
        name = f"{group}.{fn.__name__}"
        if wanted and not any(w in name for w in wanted):
            continue
        (fs, fm), (rs, rm) = run(fn, args, verbose)
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
