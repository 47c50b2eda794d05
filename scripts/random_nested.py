#!/usr/bin/env python
"""Nested derivatives of random programs (issue 10): every nesting against finite differences of the
next-lower derivative (tests/randprog/nested.py), by family.

    python scripts/random_nested.py --n 200 --seed 0 [--families arith,control] [--nestings hessian,grad_grad]
                                    [--jobs 1] [--out DIR]
    python scripts/random_nested.py --corpus [--nestings ...]    # the functions of tests/corpus instead

Prints a table of classes per family, then the failure signatures (class, nesting, normalised message) with
how many programs show each and one example seed; results.jsonl in --out has one line per program.
Random programs: tests/randprog/gen.py (the same programs scripts/random_programs.py checks at first order).
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import signal
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

_STATE: dict = {}


def _init(cache_root: str, timeout: int) -> None:
    os.environ["MOONCAKE_AST_CACHE_DIR"] = os.path.join(cache_root, f"worker-{os.getpid()}")
    import warnings
    warnings.simplefilter("ignore")
    from tests.randprog.check import Timeout

    def on_alarm(signum, frame):
        raise Timeout()
    signal.signal(signal.SIGALRM, on_alarm)
    _STATE["dir"] = tempfile.mkdtemp(prefix=f"randnested-{os.getpid()}-")
    _STATE["timeout"] = timeout


def _run_case(task):
    index, nestings = task
    from tests.corpus import all_cases
    from tests.randprog.check import Result, Timeout
    from tests.randprog.nested import check_case_nested
    case = all_cases()[index]
    signal.alarm(_STATE["timeout"])
    try:
        r = check_case_nested(case, _STATE["dir"], nestings or None, index=index)
    except Timeout:
        r = Result("CRASH", [("CRASH", "all", "timeout", "")], case.name)
    finally:
        signal.alarm(0)
    return case.name.split(".")[0], index, r.cls, [(c, m, k, d[:300]) for c, m, k, d in r.problems]


def _run_one(task):
    family, seed, nestings = task
    from tests.randprog.check import Result, Timeout
    from tests.randprog.gen import generate
    from tests.randprog.nested import check_program_nested
    signal.alarm(_STATE["timeout"])
    try:
        r = check_program_nested(generate(seed, family), _STATE["dir"], nestings or None)
    except Timeout:
        r = Result("CRASH", [("CRASH", "all", "timeout", "")], family)
    finally:
        signal.alarm(0)
    return family, seed, r.cls, [(c, m, k, d[:300]) for c, m, k, d in r.problems]


def main(argv=None) -> int:
    from tests.randprog.gen import FAMILIES
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--families", default="arith,numpy,containers,rows,inplace,classes,closures,control,calls")
    ap.add_argument("--nestings", default="", help="comma-separated names from tests/randprog/nested.py NESTINGS")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--timeout", type=int, default=120, help="seconds per program")
    ap.add_argument("--out", default=None)
    ap.add_argument("--corpus", action="store_true", help="check the functions of tests/corpus (by module)")
    opts = ap.parse_args(argv)
    import multiprocessing as mp
    families = [f for f in opts.families.split(",") if f]
    for f in families:
        if f not in FAMILIES:
            ap.error(f"unknown family {f}")
    nestings = tuple(n for n in opts.nestings.split(",") if n)
    out = opts.out or tempfile.mkdtemp(prefix="random-nested-")
    os.makedirs(out, exist_ok=True)
    tasks = [(families[i % len(families)], opts.seed * 1_000_000 + i, nestings) for i in range(opts.n)]
    run = _run_one
    if opts.corpus:
        from tests.corpus import MODULES, all_cases
        families = list(MODULES)
        tasks = [(i, nestings) for i in range(len(all_cases()))]
        run = _run_case
        opts.n = len(tasks)
    classes = ["ok", "WRONG", "CRASH", "REFUSED", "NOISY", "INVALID"]
    counts = collections.Counter()
    sigs: dict = collections.defaultdict(list)
    start = time.monotonic()
    ctx = mp.get_context("fork")
    cache_root = tempfile.mkdtemp(prefix="mccache-nested-")
    with ctx.Pool(opts.jobs, initializer=_init, initargs=(cache_root, opts.timeout), maxtasksperchild=50) as pool, \
            open(os.path.join(out, "results.jsonl"), "w") as log:
        for k, (family, seed, cls, problems) in enumerate(pool.imap_unordered(run, tasks)):
            log.write(json.dumps({"family": family, "seed": seed, "class": cls, "problems": problems}) + "\n")
            log.flush()
            counts[(family, cls)] += 1
            seen = set()
            for c, m, kind, detail in problems:
                sig = f"{c} {m}: {kind}"
                if c in ("NOISY",) or sig in seen:
                    continue
                seen.add(sig)
                sigs[sig].append((family, seed, detail))
            if (k + 1) % 20 == 0:
                print(f"  {k + 1}/{opts.n} programs, {time.monotonic() - start:.0f} s", file=sys.stderr, flush=True)
    from scripts.random_programs import _table
    print(f"\n{opts.n} programs, seed {opts.seed}, {time.monotonic() - start:.0f} s on {opts.jobs} jobs\n")
    print(_table(counts, families, classes))
    order = sorted(sigs, key=lambda s: (classes.index(s.split()[0]), -len(sigs[s])))
    print(f"\n{len(order)} failure signatures (programs, first example):")
    for s in order:
        fam, seed, detail = sigs[s][0]
        print(f"  {len(sigs[s]):4d}  {s[:200]}\n        e.g. {fam} seed {seed}: {detail[:200]}")
    print(f"\nresults in {out}/results.jsonl")
    return 0


if __name__ == "__main__":
    sys.exit(main())
