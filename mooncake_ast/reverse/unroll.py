"""A `for` loop over a short display of tuples or objects, written out once per item.

`params = [(W1, b1), (W2, b2)]` then `for W, b in params: h = np.tanh(h @ W + b)`, or `layers = [Affine(W1, b1),
Affine(W2, b2)]` then `for layer in layers: x = layer(x)`: the loop walks a list whose items have different
values and, to the code generator, no type: each trip reads `params[i]`, unpacks it at run time, and the pullback
goes through identity-keyed storage for the list, its tuples and their arrays.  A person differentiating this by
hand writes the two layers out.  This pass does the same on the IR, before helpers are put in line (so that
`layer(x)` of the item `Affine(W1, b1)` is the class's `__call__` in line, and its object then its fields): the
body is copied once per item, the item read being the display's item and the trip counter a constant.

Only where that changes nothing a program could see:

* the loop walks a display made in the function (`[...]` that nothing else reads, so nothing changes it, or a
  tuple) of at most six items, at least one of them a tuple display or an instance of a class made there;
* the body is straight code and branches: no loop inside, no `break` or `return` out of it, nothing after the loop
  reads what the loop's header computes but the values it carries;
* the header computes only the trip test.
"""
from __future__ import annotations

from typing import Any, Optional

from .. import ops
from ..ir.analysis import uses
from ..ir.fold_tuples import fold_tuple_reads
from ..ir.nodes import Block, Branch, Call, Const, Function, Global, Goto, Phi, Raise, Return, Value

_MAX_ITEMS = 6


def unroll_display_loops(ir: Function) -> int:
    """Write out what qualifies (see the module docstring); the number of loops written out."""
    done = 0
    while True:
        count = uses(ir)
        plan = next((p for h in ir.blocks for p in [_plan(ir, h, count)] if p is not None), None)
        if plan is None:
            if done:
                fold_tuple_reads(ir)  # (`W, b = (W1, b1)` of the first copy: W is W1)
            return done
        _write_out(ir, *plan)
        done += 1


def _plan(ir: Function, h: Block, count: dict) -> Optional[tuple]:
    info = h.loop
    if info is None or info.kind != "for" or info.latch is None or not isinstance(h.term, Branch):
        return None
    seq = info.seq
    if not (isinstance(seq, Call) and seq.callee() is ops.sequence and len(seq.args) == 1):
        return None
    display = seq.args[0]
    if not (isinstance(display, Call) and display.callee() in (ops.list_of, ops.tuple_of) and not display.kwargs):
        return None
    if display.callee() is ops.list_of and count.get(display) != 1:
        return None  # (a list read otherwise could be changed before or during the loop)
    items = list(display.args)
    if not 1 <= len(items) <= _MAX_ITEMS or not any(_structured(v) for v in items):
        return None
    preheaders = [p for p in h.preds if p is not info.latch]
    if len(preheaders) != 1 or not isinstance(preheaders[0].term, Goto):
        return None
    body = _body(h)
    if body is None or info.latch not in body:
        return None
    header_values = set(h.stmts)
    for b in ir.blocks:  # (the header's statements serve its test alone)
        for x in [*b.phis, *b.stmts, b.term]:
            if b is not h and any(o in header_values for o in x.operands()):
                return None
    if any(o is seq for b in ir.blocks for x in [*b.phis, *b.stmts, b.term] for o in x.operands()
           if not (b is h or x is info.item)):
        return None  # (the walked sequence read otherwise)
    if info.item is None or not any(info.item in b.stmts for b in body):
        return None
    inside = {h, *body}
    if any(o is info.counter for b in ir.blocks if b not in inside for x in [*b.phis, *b.stmts, b.term]
           for o in x.operands()):
        return None  # (the trip counter read after the loop)
    return h, preheaders[0], body, items


def _structured(v: Any) -> bool:
    """A tuple display or `C(...)` of a class read by its global name (worth writing the loop out for)."""
    return isinstance(v, Call) and (v.callee() is ops.tuple_of or isinstance(v.fn, Global))


def _body(h: Block) -> Optional[list]:
    """The loop's blocks after its header, if the body is straight code and branches that come back to it."""
    then = h.term.then  # type: ignore[union-attr]
    seen: list = []
    todo = [then]
    while todo:
        b = todo.pop()
        if b is h or b in seen:
            continue
        if b.loop is not None or isinstance(b.term, (Return, Raise)) or b.term is None:
            return None
        seen.append(b)
        todo.extend(b.successors())
    for b in seen:
        if any(s is not h and s not in seen for s in b.successors()):
            return None  # (a break, or a jump out of the loop)
    return seen


def _write_out(ir: Function, h: Block, pre: Block, body: list, items: list) -> None:
    info = h.loop
    exit_block = h.term.orelse  # type: ignore[union-attr]
    carried = [p for p in h.phis if p is not info.counter]
    current = {p: p.incoming[pre] for p in carried}
    order = [b for b in ir.blocks if b in body]  # (the function's order, so the copies read as the loop did)
    copies: list = []
    entry_of_next: list = []
    for k, item in enumerate(items):
        vmap: dict = {info.counter: Const(k), info.item: item, **current}
        bmap = {b: Block(-1) for b in order}
        for b in order:
            nb = bmap[b]
            nb.phis = [_new_phi(p) for p in b.phis]
            vmap.update(zip(b.phis, nb.phis))
            nb.stmts = [_new_call(s) for s in b.stmts if s is not info.item]
            vmap.update((s, n) for s, n in zip([s for s in b.stmts if s is not info.item], nb.stmts))
        for b in order:
            nb = bmap[b]
            for old, new in zip(b.phis, nb.phis):
                new.incoming = {bmap[p]: _mapped(v, vmap) for p, v in old.incoming.items()}
            for old, new in zip([s for s in b.stmts if s is not info.item], nb.stmts):
                new.fn = _mapped(old.fn, vmap)
                new.args = [_mapped(a, vmap) for a in old.args]
                new.kwargs = {n: _mapped(a, vmap) for n, a in old.kwargs.items()}
            for x in [*nb.phis, *nb.stmts]:
                x.block = nb
            nb.term = _new_term(b.term, bmap, vmap, h)
        current = {p: _mapped(p.incoming[info.latch], vmap) for p in carried}
        copies.append((bmap, order))
        entry_of_next.append(bmap[h.term.then])  # type: ignore[union-attr]
    # Chain the copies: the header's way in goes to the first, each copy's way back to the header to the next,
    # the last's to where the loop went on.
    pre.term = Goto(entry_of_next[0])
    for k, (bmap, _) in enumerate(copies):
        nxt = entry_of_next[k + 1] if k + 1 < len(copies) else exit_block
        for nb in bmap.values():
            if isinstance(nb.term, Goto) and nb.term.target is h:
                nb.term = Goto(nxt)
            elif isinstance(nb.term, Branch):
                nb.term.then = nxt if nb.term.then is h else nb.term.then
                nb.term.orelse = nxt if nb.term.orelse is h else nb.term.orelse
    last = copies[-1][0][info.latch]
    for phi in exit_block.phis:
        if h in phi.incoming:
            phi.incoming = {(last if p is h else p): v for p, v in phi.incoming.items()}
    final = {p: current[p] for p in carried}
    new_blocks = [nb for bmap, order in copies for nb in (bmap[b] for b in order)]
    at = ir.blocks.index(h)
    ir.blocks = [b for b in ir.blocks[:at] if b not in body] + new_blocks + \
        [b for b in ir.blocks[at + 1:] if b not in body]
    for i, b in enumerate(ir.blocks):
        b.id = i
    for b in ir.blocks:
        for x in [*b.phis, *b.stmts, b.term]:
            for o in list(x.operands()):
                if o in final:
                    x.replace_operand(o, _resolve(o, final))
    ir.recompute_preds()
    count = uses(ir)
    seq = info.seq
    for dead in (seq, seq.args[0]):  # (the walked sequence and its display, if nothing reads them now)
        if not count.get(dead):
            for b in ir.blocks:
                if dead in b.stmts:
                    b.stmts.remove(dead)
            count = uses(ir)


def _resolve(v: Value, final: dict) -> Value:
    while v in final:
        v = final[v]
    return v


def _mapped(v: Any, vmap: dict) -> Any:
    seen = 0
    while v in vmap and seen < 64:
        v = vmap[v]
        seen += 1
    return v


def _new_phi(p: Phi) -> Phi:
    q = Phi(hint=p.hint)
    q.loc = p.loc
    return q


def _new_call(s: Call) -> Call:
    c = Call(s.fn, list(s.args), dict(s.kwargs), hint=s.hint, loc=s.loc)
    c.__dict__.update((k, v) for k, v in s.__dict__.items() if k not in ("fn", "args", "kwargs", "block"))
    return c  # (with what the frontend records beside a call: a def's code, ...)


def _new_term(t: Any, bmap: dict, vmap: dict, h: Block) -> Any:
    if isinstance(t, Goto):
        return Goto(bmap.get(t.target, t.target))
    if isinstance(t, Branch):
        return Branch(_mapped(t.cond, vmap), bmap.get(t.then, t.then), bmap.get(t.orelse, t.orelse), loc=t.loc)
    raise AssertionError(f"unexpected terminator {t!r} in a loop written out")
