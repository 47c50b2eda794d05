"""Audit against a peer's test suite: HIPS/autograd's derivative tests, each described again as a plain
NumPy/SciPy function and its inputs, checked by mooncake_ast.testing.check_derivatives in each mode.

    PYTHONPATH=. python scripts/autograd_suite_audit.py [-v] [substring ...]

Which tests: autograd's tests/test_numpy.py, test_systematic.py, test_linalg.py, test_scipy.py,
test_fft.py, test_scalar_ops.py, test_binary_ops.py, test_complex.py, test_truediv.py and
test_numpy_interp.py (the combination helpers of tests/numpy_utils.py expanded here by `combo`,
`unary`, `binary` and `stat`).  One autograd test is one line here; it passes in a mode when every
input combination it tries passes.  Only first derivatives are checked (autograd also checks the
gradient's own gradient); complex inputs are checked like real ones (check_derivatives perturbs
real and imaginary parts).  Tests of autograd's own machinery (the type of a gradient, an
autograd-only function or keyword, a value check) are listed as not applicable and counted apart.

Categories, per mode, as scripts/audit_issue12.py: "ok"; "missing" (no rule and no source to
trace); "refused" (an honest NotImplementedError); "wrong" (the derivative check failed); "error"
(anything else: a crash).  A test takes the worst category among its combinations.  Not a test.
The cases are in scripts/autograd_suite_cases.py.
"""
import collections
import copy
import itertools
import linecache
import sys
import traceback
import warnings

import mooncake_ast as mc  # noqa: F401
from mooncake_ast.testing import check_derivatives

from audit_issue12 import classify  # (this script's folder is on sys.path; the same categories)
from autograd_suite_cases import NAMES, NOT_APPLICABLE, SUITE

_COUNTER = itertools.count()


# ==================================================================== running
_RANK = {"ok": 0, "missing": 1, "refused": 2, "error": 3, "wrong": 4}


def compile_case(src, names):
    """A lambda from its text, with the text in linecache so the transform finds its source."""
    fname = f"<autograd audit {next(_COUNTER)}>"
    linecache.cache[fname] = (len(src) + 1, None, [src + "\n"], fname)
    return eval(compile(src + "\n", fname, "eval"), {**NAMES, **names})


def run_case(src, args, names, mode, verbose):
    fn = compile_case(src, names)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            check_derivatives(fn, *copy.deepcopy(args), modes=(mode,), rtol=1e-4, atol=1e-5)
        return "ok", ""
    except Exception as exc:  # noqa: BLE001
        if verbose:
            traceback.print_exc()
        return classify(exc)


def run_test(cases, verbose):
    """Per mode: (worst category, its message, the case's text)."""
    out = []
    for mode in ("forward", "reverse"):
        worst = ("ok", "", "")
        for src, args, names in cases:
            cat, msg = run_case(src, args, names, mode, verbose)
            if _RANK[cat] > _RANK[worst[0]]:
                worst = (cat, msg, src)
            if cat == "wrong":
                break
        out.append(worst)
    return out


def main(argv):
    verbose = "-v" in argv
    wanted = [a for a in argv if a != "-v"]
    counts = {m: collections.Counter() for m in ("forward", "reverse", "both")}
    for file, name, cases in SUITE:
        full = f"{file}::{name}"
        if wanted and not any(w in full for w in wanted):
            continue
        (fc, fm, fs), (rc, rm, rsrc) = run_test(cases, verbose)
        counts["forward"][fc] += 1
        counts["reverse"][rc] += 1
        counts["both"]["ok" if fc == rc == "ok" else "failed"] += 1
        line = f"{full:52s} fwd={fc:8s} rev={rc:8s}"
        if fm or rm:
            line += f"  [{(fs if fm else rsrc)[:90]}]  " + (fm or rm).splitlines()[0][:160]
        print(line, flush=True)
    shown = [n for n in NOT_APPLICABLE if not wanted or any(w in f"{n[0]}::{n[1]}" for w in wanted)]
    for file, name, why in shown:
        print(f"{file}::{name:40s} not applicable: {why}")
    total = sum(counts["forward"].values())
    print(f"\napplicable tests: {total}; not applicable: {len(shown)}")
    for mode in ("forward", "reverse"):
        c = counts[mode]
        print(f"{mode:8s}: " + ", ".join(f"{k} {c[k]}" for k in ("ok", "missing", "refused", "wrong", "error")))
    print(f"both modes ok: {counts['both']['ok']} of {total} ({100.0 * counts['both']['ok'] / max(total, 1):.1f}%)")


if __name__ == "__main__":
    main(sys.argv[1:])
