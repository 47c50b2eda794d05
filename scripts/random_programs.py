#!/usr/bin/env python
"""Run thousands of random programs through mooncake_ast and report what breaks.

    python scripts/random_programs.py --n 5000 --seed 1 [--families inplace,rows] [--jobs 2] [--out DIR]
    python scripts/random_programs.py --recheck DIR/some_repro.py

Each program (tests/randprog: generator by family and an independent finite-difference
checker) is written to a real module file and classified ok / WRONG / CRASH / REFUSED /
NOISY / INVALID.  Counts are printed per class and per family; for each distinct failure
signature (class, mode, kind or normalised exception) a few examples are shrunk by delta
debugging and written as standalone repro files to the output directory, with summary.md
and results.jsonl (one line per program).
Every run uses its own derivative cache (MOONCAKE_AST_CACHE_DIR), one per worker.
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

_STATE = {}


def _init(cache_root: str, timeout: int, verify: bool):
    """Worker setup, before mooncake_ast is imported in this process."""
    os.environ["MOONCAKE_AST_CACHE_DIR"] = os.path.join(cache_root, f"worker-{os.getpid()}")
    if verify:
        os.environ["MOONCAKE_AST_VERIFY"] = "1"
    import warnings
    warnings.simplefilter("ignore")
    from tests.randprog.check import Timeout

    def on_alarm(signum, frame):
        raise Timeout()
    signal.signal(signal.SIGALRM, on_alarm)
    _STATE["dir"] = tempfile.mkdtemp(prefix=f"randprog-{os.getpid()}-")
    _STATE["timeout"] = timeout


def _check(prog, modes=("reverse", "forward")):
    from tests.randprog.check import Result, Timeout, check_program
    signal.alarm(_STATE["timeout"])
    try:
        return check_program(prog, _STATE["dir"], modes=modes)
    except Timeout:
        return Result("CRASH", [("CRASH", "both", "timeout", "")], prog.family)
    finally:
        signal.alarm(0)


def _run_one(task):
    family, seed = task
    from tests.randprog.gen import generate
    prog = generate(seed, family)
    r = _check(prog)
    return family, seed, r.cls, r.signature, r.describe()


def _shrink_one(task):
    family, seed, signature, budget = task
    from tests.randprog.gen import generate
    from tests.randprog.shrink import shrink
    prog = generate(seed, family)
    mode = signature.split()[1].rstrip(":")
    modes = (mode,) if mode in ("reverse", "forward") else ("reverse", "forward")

    def still_fails(cand):
        return _check(cand, modes).signature == signature
    history = []
    shrink(prog, still_fails, budget_s=budget, history=history)
    # The library keeps state between programs in one process (caches of derived rules), so a
    # candidate can fail only because of what ran before it.  Keep the smallest program that
    # fails the same way in a fresh process (binary search over the accepted candidates).
    chain = [prog] + history
    lo, hi = -1, len(chain) - 1          # chain[lo] reproduces alone (-1: not known to), chain[hi+1:] do not
    if fresh_signature(chain[hi]) == signature:
        lo = hi
    else:
        hi -= 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if fresh_signature(chain[mid]) == signature:
                lo = mid
            else:
                hi = mid - 1
    alone = lo >= 0
    small = chain[max(lo, 0)]
    r = _check(small)
    note = "" if alone else "does not fail alone: only after other programs in the same process\n"
    return family, seed, signature, small.script(), note + r.describe()


def fresh_signature(prog) -> str:
    """The signature of prog checked in a new Python process with an empty cache."""
    import subprocess
    with tempfile.NamedTemporaryFile("w", suffix=".py", prefix="randprog_fresh_", delete=False) as fh:
        fh.write(prog.script())
    env = dict(os.environ, MOONCAKE_AST_CACHE_DIR=tempfile.mkdtemp(prefix="mccache-fresh-"), PYTHONPATH=ROOT)
    try:
        out = subprocess.run([sys.executable, os.path.abspath(__file__), "--recheck", fh.name], env=env,
                             capture_output=True, text=True, timeout=300).stdout
    except subprocess.TimeoutExpired:
        return "CRASH both: timeout"
    finally:
        os.unlink(fh.name)
    for line in out.splitlines():
        if line.startswith("signature: "):
            return line[len("signature: "):]
    return "?"


def _table(counts, families, classes):
    width = max(len(f) for f in families + ["family"])
    cw = [max(len(c), 5) for c in classes]
    rows = [[fam] + [counts[(fam, c)] for c in classes] for fam in families]
    rows.append(["all"] + [sum(counts[(f, c)] for f in families) for c in classes])
    out = ["| " + "family".ljust(width) + " | " + " | ".join(c.rjust(w) for c, w in zip(classes, cw)) + " | total |",
           "|" + "-" * (width + 2) + "|" + "|".join("-" * (w + 2) for w in cw) + "|-------|"]
    for name, *row in rows:
        out.append("| " + name.ljust(width) + " | " + " | ".join(str(n).rjust(w) for n, w in zip(row, cw))
                   + f" | {sum(row):5d} |")
    return "\n".join(out)


def recheck(path):
    from tests.randprog.gen import Program
    _init(tempfile.mkdtemp(prefix="mccache-recheck-"), 60, True)
    with open(path) as fh:
        prog = Program.from_script(fh.read(), family="repro")
    r = _check(prog)
    print("signature: " + r.signature)
    print(r.describe())
    return 0 if r.cls in ("ok", "REFUSED") else 1


def main(argv=None):
    from tests.randprog.gen import FAMILIES
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=1000, help="number of programs (spread over the families)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--families", default=",".join(FAMILIES), help="comma-separated, of: " + ", ".join(FAMILIES))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default=None, help="directory for shrunk repros and summary.md")
    ap.add_argument("--timeout", type=int, default=30, help="seconds per program")
    ap.add_argument("--examples", type=int, default=1, help="examples shrunk per failure signature and family")
    ap.add_argument("--shrink-budget", type=float, default=60.0, help="seconds of shrinking per example")
    ap.add_argument("--shrink-classes", default="WRONG,CRASH,REFUSED,INVALID",
                    help="classes whose failure signatures are shrunk (comma-separated)")
    ap.add_argument("--no-verify", action="store_true", help="do not verify every IR (faster)")
    ap.add_argument("--recheck", default=None, help="check one repro file written by an earlier run")
    opts = ap.parse_args(argv)
    if opts.recheck:
        return recheck(opts.recheck)

    import multiprocessing as mp
    families = [f.strip() for f in opts.families.split(",") if f.strip()]
    unknown = [f for f in families if f not in FAMILIES]
    if unknown:
        ap.error(f"unknown families {unknown}; known: {', '.join(FAMILIES)}")
    out = opts.out or tempfile.mkdtemp(prefix=f"random-programs-{opts.seed}-")
    os.makedirs(out, exist_ok=True)
    cache_root = tempfile.mkdtemp(prefix=f"mccache-random-{opts.seed}-")
    tasks = [(families[i % len(families)], opts.seed * 1_000_000 + i) for i in range(opts.n)]
    classes = ["ok", "WRONG", "CRASH", "REFUSED", "NOISY", "INVALID"]
    counts = collections.Counter()
    by_sig = collections.defaultdict(list)
    details = {}
    start = time.monotonic()
    ctx = mp.get_context("fork")
    with ctx.Pool(opts.jobs, initializer=_init, initargs=(cache_root, opts.timeout, not opts.no_verify),
                  maxtasksperchild=300) as pool:
        log = open(os.path.join(out, "results.jsonl"), "w")
        for k, (family, seed, cls, sig, desc) in enumerate(pool.imap_unordered(_run_one, tasks, chunksize=4)):
            log.write(json.dumps({"family": family, "seed": seed, "class": cls, "signature": sig, "details": desc}) + "\n")
            counts[(family, cls)] += 1
            if cls not in ("ok", "NOISY"):
                by_sig[sig].append((family, seed))
                details.setdefault((family, seed), desc)
            if (k + 1) % 250 == 0:
                print(f"  {k + 1}/{opts.n} programs, {time.monotonic() - start:.0f} s", file=sys.stderr, flush=True)
        log.close()
        run_s = time.monotonic() - start
        print(f"\n{opts.n} programs, seed {opts.seed}, {run_s:.0f} s\n")
        print(_table(counts, families, classes))

        # Shrink a few examples of each failure signature in each family where it occurs (REFUSED
        # included: a refusal may be a stopgap worth reading; INVALID is a generator bug).  One
        # signature ("gradient of an array") covers different bugs in different families.
        shrink_tasks = []
        for sig, examples in by_sig.items():
            if sig.split()[0] not in opts.shrink_classes.split(","):
                continue
            per_family = collections.defaultdict(list)
            for fam, seed in sorted(examples, key=lambda e: e[1]):
                if len(per_family[fam]) < opts.examples:
                    per_family[fam].append(seed)
            for fam, seeds in per_family.items():
                for seed in seeds:
                    shrink_tasks.append((fam, seed, sig, opts.shrink_budget))
        order = sorted(by_sig, key=lambda s: (classes.index(s.split()[0]) if s.split()[0] in classes else 9,
                                              -len(by_sig[s])))
        number = {sig: n + 1 for n, sig in enumerate(order)}
        shrunk = collections.defaultdict(list)
        print(f"\nshrinking {len(shrink_tasks)} examples of {len(by_sig)} failure signatures", file=sys.stderr, flush=True)
        for family, seed, sig, script, desc in pool.imap_unordered(_shrink_one, shrink_tasks):
            if all(script != s for _, _, s, _, _ in shrunk[sig]):
                # Written as soon as shrunk, so an interrupted run keeps what it found.
                fname = f"sig{number[sig]:02d}_{len(shrunk[sig])}_{family}_{seed}.py"
                with open(os.path.join(out, fname), "w") as fh:
                    fh.write(f"# {sig}\n# family {family}, seed {seed}; recheck: python scripts/random_programs.py --recheck {fname}\n")
                    fh.write("".join(f"# {line}\n" for line in desc.splitlines()))
                    fh.write(script)
                shrunk[sig].append((family, seed, script, desc, fname))

    lines = [f"# Random programs: {opts.n} programs, seed {opts.seed}, families {', '.join(families)}", "",
             f"{run_s:.0f} s on {opts.jobs} jobs.  Classes: ok; WRONG (a number disagrees with finite differences "
             "or a plain call); CRASH (an exception that is not a MooncakeError); REFUSED (a MooncakeError); "
             "NOISY (finite differences disagree with themselves: no verdict); INVALID (generator bug).", "",
             _table(counts, families, classes), "", "## Failure signatures", ""]
    for n, sig in enumerate(order):
        fams = collections.Counter(f for f, _ in by_sig[sig])
        lines += [f"### {n + 1}. `{sig}`", "",
                  f"{len(by_sig[sig])} programs: " + ", ".join(f"{f} {c}" for f, c in fams.most_common()), ""]
        for family, seed, script, desc, fname in sorted(shrunk.get(sig, []), key=lambda e: e[4]):
            lines += [f"`{fname}` (family {family}, seed {seed}):", "", "```python", _strip_header(script).rstrip(), "```",
                      "", "```", desc, "```", ""]
    with open(os.path.join(out, "summary.md"), "w") as fh:
        fh.write("\n".join(lines) + "\n")
    print(f"\n{len(by_sig)} failure signatures; repros and summary.md in {out}")
    for sig in order:
        print(f"  {len(by_sig[sig]):5d}  {sig}")
    return 0


def _strip_header(script: str) -> str:
    """The repro without the constants it does not use."""
    import ast
    tree = ast.parse(script)
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    keep = []
    for line in script.split("\n"):
        name = line.split(" = ")[0] if " = " in line and not line.startswith((" ", "ARGS")) else None
        if name and name.isidentifier() and name not in used:
            continue
        keep.append(line)
    return "\n".join(keep)


if __name__ == "__main__":
    sys.exit(main())
