"""Delta debugging of a failing program: drop statements, unwrap compound statements and
simplify expressions while the failure keeps its signature.

Each step is tried on a fresh parse of the current best source; a step is kept when the
checker still reports the same signature.  Greedy, restarting after every success, bounded
by a number of checks and a time budget.
"""
from __future__ import annotations

import ast
import dataclasses
import time

_PROTECTED = {"f"}


def _bodies(tree):
    """Every statement list in walk order, as (owner, field)."""
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            seq = getattr(node, field, None)
            if isinstance(seq, list) and seq and isinstance(seq[0], ast.stmt):
                yield node, field


def _stmt_slots(tree):
    for owner, field in _bodies(tree):
        for i, stmt in enumerate(getattr(owner, field)):
            if isinstance(owner, ast.Module) and (isinstance(stmt, (ast.Import, ast.ImportFrom)) or
                                                  getattr(stmt, "name", None) in _PROTECTED):
                continue
            yield owner, field, i


def _expr_slots(tree):
    for node in ast.walk(tree):
        for field, value in ast.iter_fields(node):
            if isinstance(value, ast.expr):
                yield node, field, None, value
            elif isinstance(value, list):
                for i, v in enumerate(value):
                    if isinstance(v, ast.expr):
                        yield node, field, i, v


def _simpler(e):
    """Smaller expressions that could stand for e."""
    if isinstance(e, ast.BinOp):
        return [e.left, e.right]
    if isinstance(e, ast.UnaryOp):
        return [e.operand]
    if isinstance(e, ast.Call) and len(e.args) == 1 and not e.keywords:
        return [e.args[0]]
    return []


def _edits(source):
    """Count of the candidate edits of each kind, in the order tried."""
    tree = ast.parse(source)
    n_stmt = sum(1 for _ in _stmt_slots(tree))
    n_unwrap = sum(1 for o, fl, i in _stmt_slots(tree)
                   if isinstance(getattr(o, fl)[i], (ast.For, ast.While, ast.If, ast.With)))
    n_expr = sum(len(_simpler(v)) for *_, v in _expr_slots(tree))
    return [("drop", k) for k in range(n_stmt)] + [("unwrap", k) for k in range(n_unwrap)] + \
        [("simplify", k) for k in range(n_expr)]


def _apply(source, edit):
    kind, k = edit
    tree = ast.parse(source)
    if kind == "drop":
        owner, field, i = list(_stmt_slots(tree))[k]
        seq = getattr(owner, field)
        del seq[i]
        if not seq and field == "body":
            seq.append(ast.Pass())
    elif kind == "unwrap":
        slots = [(o, fl, i) for o, fl, i in _stmt_slots(tree)
                 if isinstance(getattr(o, fl)[i], (ast.For, ast.While, ast.If, ast.With))]
        owner, field, i = slots[k]
        seq = getattr(owner, field)
        stmt = seq[i]
        inner = [s for s in stmt.body if not isinstance(s, (ast.Break, ast.Continue))] or [ast.Pass()]
        if isinstance(stmt, ast.For):
            inner = [ast.Assign(targets=[stmt.target], value=ast.Subscript(
                value=ast.Call(func=ast.Name("list", ast.Load()), args=[stmt.iter], keywords=[]),
                slice=ast.Constant(0), ctx=ast.Load()), lineno=0)] + inner
        seq[i:i + 1] = inner
    else:
        flat = []
        for node, field, idx, value in _expr_slots(tree):
            for s in _simpler(value):
                flat.append((node, field, idx, s))
        node, field, idx, s = flat[k]
        if idx is None:
            setattr(node, field, s)
        else:
            getattr(node, field)[idx] = s
    ast.fix_missing_locations(tree)
    return ast.unparse(tree) + "\n"


def shrink(prog, still_fails, max_checks: int = 400, budget_s: float = 90.0, history: list | None = None):
    """The smallest program found for which still_fails(program) is true.  history, if given,
    receives every accepted program in order (each smaller than the one before)."""
    best = dataclasses.replace(prog, source=ast.unparse(ast.parse(prog.source)) + "\n")
    if not still_fails(best):
        best = prog
    start = time.monotonic()
    checks = 0
    k = 0
    progress = False
    while checks < max_checks and time.monotonic() - start < budget_s:
        edits = _edits(best.source)
        if k >= len(edits):
            if not progress:
                break
            k, progress = 0, False
            continue
        try:
            text = _apply(best.source, edits[k])
            compile(text, "<shrink>", "exec")
        except (SyntaxError, ValueError, IndexError):
            k += 1
            continue
        if text == best.source:
            k += 1
            continue
        cand = dataclasses.replace(prog, source=text)
        checks += 1
        if still_fails(cand):
            best, progress = cand, True
            if history is not None:
                history.append(cand)
        else:
            k += 1
    return best
