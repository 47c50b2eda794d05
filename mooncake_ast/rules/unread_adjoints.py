"""Adjoints that are exactly 0 because a path did not read the value: the `if` / ternary analogue of np.where.

`e = np.exp(x); return e if x < 50 else x` at x = 1000: the path taken never reads e, so the pullback joins e's
adjoint from the two paths, `e_bar = r_bar` on one and `e_bar = 0.0` on the other (a phi of the pullback with a
zero operand), and exp's plain `x_bar += e_bar * e` was 0 * inf = nan where the true derivative (the branch not
taken contributes nothing) is 1.  np.where's unselected side has the same zero, and rules multiply it as a strong
zero in functions that call a selector (strong_zeros.adjoints_meet_overflow).  Branches are everywhere, so rather
than every product in every function with an `if`, the rules ask about the adjoint itself: is g, in the pullback
being built, a join with a zero from some path, or a linear function of one (`2.0 * e_bar`, `e_bar + a_bar`)?  Only
then does the product become a strong one.  A function without such a join (the bench workloads' pullbacks, whose
loops carry their adjoints round a header that is not sealed yet when the body is built) keeps the plain products
the reverse emitter fuses.

A loop's header joins are sealed only after its body is built: there the adjoint of a value the body computes
anew counts as 0 (each reversed run starts it at 0), and so does that of a loop-carried value no run reads
(`for v in xs: last = np.exp(v)`, overwritten each time); an accumulated one (`s = s + t`) does not.
"""
from __future__ import annotations

import operator
from typing import Any

import numpy as np

from ..ir.nodes import Call, Const, Phi
from ..tangents import NoTangent
from .strong_zeros import strong_mul, strong_product

# Pullback operations through which an exact zero adjoint stays possible (linear in the adjoint): scaling, sums,
# the parts of a pair of adjoints.
# A product or quotient is 0 where its adjoint factor is; a sum only where every term is (`0.0 + s_bar`, the
# accumulation into an adjoint a loop's run starts at 0, is no zero of an unread path).
_SCALING = frozenset([operator.mul, operator.neg, operator.pos, operator.truediv, operator.imul, np.multiply,
                      np.negative, np.divide, np.true_divide, np.conj, np.conjugate, strong_mul, strong_product])
_SUMS = frozenset([operator.add, operator.sub, operator.iadd, operator.isub, np.add, np.subtract])
_DEPTH = 12


def may_be_unread(t: Any, g: Any) -> bool:
    """May the adjoint g (a value of the pullback being built by t) be exactly 0 because some path did not read
    the value it belongs to?  False outside a pullback being built (at run time the values say)."""
    rt = getattr(t, "rt", None)
    b = getattr(rt, "b", None)
    if b is None or not hasattr(b, "resolve"):
        return False
    return _walk(rt, b, g, {}, _DEPTH)  # (asked afresh: a join sealed since may say more)


def _walk(rt: Any, b: Any, v: Any, known: dict, depth: int) -> bool:
    v = b.resolve(v)
    if isinstance(v, Const):
        return _is_zero(v.value)
    if not isinstance(v, (Phi, Call)) or depth <= 0:
        return False
    if v in known:
        return known[v]
    known[v] = False  # (a cycle through a loop's join: no zero found along it)
    if isinstance(v, Phi):
        sealed = getattr(b, "_sealed", None)
        if sealed is not None and getattr(v, "block", None) not in sealed:
            found = _renewed_each_run(rt, b, v)
        else:
            found = any(_walk(rt, b, op, known, depth - 1) for op in list(v.incoming.values()))
    else:
        fn = v.callee()
        try:
            scaling, summing = fn in _SCALING, fn in _SUMS
        except TypeError:  # (an unhashable callee)
            scaling = summing = False
        if fn is operator.getitem and v.args:
            # (one of a pair of adjoints a helper returned: the pair's own origin; an entry of an adjoint buffer,
            # `a_bar[i]`, is not followed: the buffer's zero says nothing about the entry's)
            found = isinstance(b.resolve(v.args[0]), Call) and _walk(rt, b, v.args[0], known, depth - 1)
        elif summing:
            found = bool(v.args) and not v.kwargs and all(_walk(rt, b, a, known, depth - 1) for a in v.args)
        else:
            found = scaling and any(_walk(rt, b, a, known, depth - 1) for a in v.args)
    known[v] = found
    return found


def _renewed_each_run(rt: Any, b: Any, phi: Phi) -> bool:
    """A join at the head of a reversed loop, whose operands are not known yet (its body is being built): is it
    the adjoint of a value the loop body computes anew in each run?  That adjoint is 0 where each reversed run
    starts (reverse/control_reverse._rev_body: consumed where its definition was undone), so a path of the body
    that does not add to it (`s += e if v < 50 else v`) leaves it 0.  A loop-carried value's adjoint (a phi of the
    function) comes round from the run before: not a zero of an unread path."""
    primal = getattr(rt, "adj_vars", {}).get(b.var_of.get(phi, ""))
    if isinstance(primal, Call):
        return _in_a_loop(rt, getattr(primal, "block", None))  # (a value made before the loop is carried through it)
    if isinstance(primal, Phi) and getattr(getattr(primal, "block", None), "loop", None) is not None:
        # A loop-carried value that no run of the loop reads (`for v in xs: last = np.exp(v)`, overwritten each
        # run): its adjoint, passed to the value the run makes, is 0 in every reversed run but the first.
        return not _read_in_its_loop(rt, primal)
    return False


def _read_in_its_loop(rt: Any, phi: Phi) -> bool:
    """Does a statement, phi or branch of phi's loop (its header and the blocks that reach the header's latch
    without passing through the header) read phi?  Remembered per transform."""
    memo = rt.__dict__.setdefault("_mc_loop_reads", {})
    known = memo.get(phi)
    if known is None:
        header = phi.block
        body, todo = {header}, [p for p in header.preds if _reaches(header, p)]
        while todo:
            blk = todo.pop()
            if blk not in body:
                body.add(blk)
                todo.extend(blk.preds)
        known = any(phi in user.operands() for blk in body
                    for user in (*blk.phis, *blk.stmts, *((blk.term,) if blk.term is not None else ()))
                    if user is not phi)
        memo[phi] = known
    return known


def _in_a_loop(rt: Any, blk: Any) -> bool:
    """Is blk on a cycle of the function's blocks (inside some loop's body)?  Remembered per transform."""
    if blk is None:
        return False
    memo = rt.__dict__.setdefault("_mc_loop_blocks", {})
    known = memo.get(blk)
    if known is None:
        seen, todo, known = set(), list(blk.successors()), False
        while todo:
            b = todo.pop()
            if b is blk:
                known = True
                break
            if b not in seen:
                seen.add(b)
                todo.extend(b.successors())
        memo[blk] = known
    return known


def _reaches(header: Any, blk: Any) -> bool:
    """Is blk inside the loop headed by header (a back edge's source): can header reach it?"""
    seen, todo = set(), [header]
    while todo:
        b = todo.pop()
        if b is blk:
            return True
        if b in seen:
            continue
        seen.add(b)
        loop = getattr(header, "loop", None)
        todo.extend(s for s in b.successors() if s is not getattr(loop, "exit", None))
    return False


def _is_zero(x: Any) -> bool:
    if x is NoTangent:
        return True
    if isinstance(x, (int, float, complex, np.number)) and not isinstance(x, bool):
        return x == 0
    return False
