"""Issue 9's readability metric over the corpus: run-time helper references (`_mc.` uses) per statement
of each generated pullback, by corpus file and in all.

    python scripts/helper_refs.py [--worst 10] [--by-helper 15] [--realistic]

`--realistic` measures scripts/realistic_cases.py (grouped by field) instead of the corpus.

`--by-helper N` also lists the N helpers referenced most over the corpus, with the cases that reference each
most: where making pullbacks plain pays most.
"""
from __future__ import annotations

import argparse
import ast
import collections
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import mooncake_ast as mc  # noqa: E402
from mooncake_ast.api import _vjp  # noqa: E402  (vjp with keyword arguments)
from tests.corpus import all_cases  # noqa: E402


# Run-time helpers that are elementwise primitives (rules/strong_zeros.py, reverse/specialise.pow_deriv): a product
# that is exactly 0 where a factor is, whatever the other one holds (inf, nan), and the slopes that may be infinite.
# They are the derivative a person writes, guarded; `z * d if z else 0.0` in their place gives the right value but
# the wrong derivative at z == 0 when the generated code is differentiated again (a Hessian).
_PRIMITIVES = frozenset({"strong_mul", "strong_product", "sqrt_slope", "cbrt_slope", "arcsin_slope", "pow_deriv"})


def pullback_counts(source: str, helpers: "collections.Counter | None" = None) -> tuple[int, int]:
    """(`_mc.` references, statements) in the module's `__pullback` functions; `helpers` counts each name."""
    refs = stmts = 0
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef) and node.name.endswith("__pullback"):
            for sub in ast.walk(node):
                if isinstance(sub, ast.stmt) and not isinstance(sub, ast.FunctionDef):
                    stmts += 1
                if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id == "_mc":
                    refs += 1
                    if helpers is not None:
                        helpers[sub.attr] += 1
    return refs, stmts


class _Realistic:
    """A realistic case (field, function, arguments) as the corpus's Case reads: fresh copies of the arguments."""

    def __init__(self, group: str, fn: object, args: tuple) -> None:
        self.group, self.fn, self._args = group, fn, args
        self.name = f"{group}.{fn.__name__}"

    def args(self) -> tuple:
        import copy
        return copy.deepcopy(self._args)

    def kwargs(self) -> dict:
        return {}


def _realistic_cases() -> list:
    sys.path.insert(0, os.path.dirname(__file__))
    import realistic_cases  # noqa: E402  (scripts/realistic_cases.py)
    return [_Realistic(group, fn, args) for group, fn, args in realistic_cases.CASES]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--worst", type=int, default=10)
    ap.add_argument("--by-helper", type=int, default=0)
    ap.add_argument("--realistic", action="store_true", help="scripts/realistic_cases.py instead of the corpus")
    opts = ap.parse_args()
    by_helper: dict = collections.defaultdict(collections.Counter)  # helper -> case -> references
    by_file: dict = collections.defaultdict(lambda: [0, 0])
    rows = []
    for case in (_realistic_cases() if opts.realistic else all_cases()):
        try:
            # with the keyword arguments its corpus entry gives (`kwargs_model(x, **coeffs)` measured on an empty
            # dict before): the module mc.source shows is the one specialised for the last call's arguments
            _vjp(case.fn, case.args(), case.kwargs())
            counts: collections.Counter = collections.Counter()
            refs, stmts = pullback_counts(mc.source(case.fn, "reverse"), counts)
        except Exception as e:  # noqa: BLE001 - a metric, not a test
            print(f"skip {case.name}: {type(e).__name__}: {e}"[:160])
            continue
        group = getattr(case, "group", None) or case.fn.__module__.rsplit(".", 1)[-1]
        by_file[group][0] += refs
        by_file[group][1] += stmts
        rows.append((refs / max(stmts, 1), refs, stmts, case.name))
        for name, k in counts.items():
            by_helper[name][case.name] += k
    print("| corpus file | `_mc.` refs | statements | refs / statement |\n|---|---:|---:|---:|")
    total = [0, 0]
    for group, (refs, stmts) in sorted(by_file.items()):
        total[0] += refs
        total[1] += stmts
        print(f"| {group} | {refs} | {stmts} | {refs / max(stmts, 1):.2f} |")
    print(f"| all | {total[0]} | {total[1]} | {total[0] / max(total[1], 1):.2f} |")
    primitives = sum(sum(by_helper[name].values()) for name in _PRIMITIVES if name in by_helper)
    print(f"\n(of the {total[0]} references, {primitives} are elementwise primitives with derivative rules of their own, "
          f"{', '.join(sorted(_PRIMITIVES))}: NaN-safe products and slopes, which plain arithmetic in their place would "
          f"differentiate wrongly at the zeros they guard; without them {(total[0] - primitives) / max(total[1], 1):.2f} "
          f"per statement)")
    print(f"\nworst {opts.worst}:")
    for ratio, refs, stmts, name in sorted(rows, reverse=True)[:opts.worst]:
        print(f"  {ratio:.2f}  {refs}/{stmts}  {name}")
    if opts.by_helper:
        print(f"\nhelpers referenced most ({opts.by_helper}):")
        for name, cases in sorted(by_helper.items(), key=lambda kv: -sum(kv[1].values()))[:opts.by_helper]:
            top = ", ".join(f"{c} {k}" for c, k in cases.most_common(3))
            print(f"  {sum(cases.values()):4d}  {name}  ({top})")


if __name__ == "__main__":
    main()
