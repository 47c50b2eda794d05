"""Loop-carried adjoint buffers: float arrays a loop hands from one trip to the next.

A Jacobi sweep with a scratch array, `nxt[1:-1] = 0.5 * (cur[:-2] + cur[2:]); cur, nxt = nxt, cur`, or a
fresh array each trip, `nxt = np.empty_like(cur); nxt[...] = ...; cur = nxt`: the loop header's phis name
arrays written by index, as reverse/buffers.py's are, and passed round.  A person writes their adjoints
as plain arrays too, handed back the way the forward pass handed the arrays on:

    cur_bar, nxt_bar = nxt_bar, cur_bar      # undo `cur, nxt = nxt, cur`
    nxt[1:-1] = old                          # undo the write, as buffers.py does
    g = nxt_bar[1:-1].copy(); nxt_bar[1:-1] = 0.0
    cur_bar[:-2] += 0.5 * g; cur_bar[2:] += 0.5 * g

That is right only when no two names can hold one array at a time, so a *web* -- the header phis joined
through their incoming values, and the arrays they start from or take at the end of a trip -- is
admitted only when:

- every phi is a float array at the header of a loop of the function's top level (entered from a block
  every run passes once, left only by its test: no break or return inside), and its incoming values
  are phis of that header (on the trip's last edge) or arrays a NumPy call makes anew;
- each member reaches at most one phi, and a made array is used only in the block that makes it (the
  block before the loop, or the trip's last block): so each array has one live name at a time;
- every other use of a member is one reverse/buffers.py admits for its arrays (basic indexes, writes of
  floats, NumPy operations that make new arrays, returns).

The pullback then starts each phi's adjoint as a zero array (the arrays as the loop leaves them), moves
adjoints back along the phis' edges (no sum: the phi and its incoming value are one array), and where a
phi's adjoint was handed to an array the trip made, starts a zero array for the phi as the trip began
(reverse/control_reverse.py, at the trip's last block, whose record holds that array).
"""
from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any, Optional

import numpy as np

from .. import ops
from ..ir.builder import UNDEFINED
from ..ir.nodes import Call, Phi, Value
from ..ir.op_types import makes_new_array
from ..ir.regions import Edge, Loop, Stmts
from ..ir.types import is_float_array
from . import prepare
from .buffers import admitted_parts, scatter_ufunc

if TYPE_CHECKING:
    from .transform import ReverseTransform


class _Trip:
    """A top-level loop's edges: `enter` (preheader, a top block), `latch` (the block whose edge the header's
    phis take at the end of a trip) and `last` (the trip's last block of statements, reversed right after)."""

    def __init__(self, enter: Any, latch: Any, last: Any) -> None:
        self.enter, self.latch, self.last = enter, latch, last


def _trips(rt: "ReverseTransform") -> dict:
    """Header -> _Trip for the loops of the function's top level that end each trip with one plain edge."""
    out: dict = {}
    memo: dict = {}
    items = rt.regions.items
    for k, r in enumerate(items):
        if not isinstance(r, Loop) or k == 0:
            continue
        outer, inner = prepare.exit_kinds(r.body, memo)
        if outer & {"break", "return", "raise"} or inner & {"return", "raise"}:
            continue  # (left from inside: control_reverse.ReverseControl._leaves_early)
        before = items[k - 1]
        body = r.body.items
        if not (isinstance(before, Edge) and before.dst is r.header and before.src in rt.top and len(body) >= 2):
            continue
        end, last = body[-1], body[-2]
        if not (isinstance(end, Edge) and end.kind == "continue" and isinstance(last, Stmts) and
                last.block is end.src and end.dst is not None):
            continue
        latch = end.src
        if end.dst is not r.header:
            # (a for loop's latch block, then the header: it must only pass the trip on)
            if end.dst.loop is not None or end.dst.phis or list(end.dst.successors()) != [r.header]:
                continue  # (its statements, a for loop's counter, are checked to read no member: _admitted)
            latch = end.dst
        if set(p for phi in r.header.phis for p in phi.incoming) - {before.src, latch}:
            continue
        out[r.header] = _Trip(before.src, latch, last.block)
    return out


def find(rt: "ReverseTransform", uses: dict) -> dict:
    """Member -> its web (a frozenset) for every admitted web (see the module docstring)."""
    trips = _trips(rt)
    if not trips:
        return {}
    phis = [p for h in trips for p in h.phis if is_float_array(rt.type_of(p))]
    webs: dict = {}
    for p in phis:  # (joined through incoming phis of the same header)
        web = webs.get(p) or {p}
        for v in p.incoming.values():
            if isinstance(v, Phi) and v in webs and webs[v] is not web:
                web |= webs[v]
            elif isinstance(v, Phi):
                web.add(v)
        for m in web:
            webs[m] = web
    out: dict = {}
    seen: set = set()
    for web in webs.values():
        if id(web) in seen:
            continue
        seen.add(id(web))
        members = _admitted(rt, web, trips, uses)
        if members is not None:
            frozen = frozenset(members)
            out.update({m: frozen for m in frozen})
    return out


def _admitted(rt: "ReverseTransform", web: set, trips: dict, uses: dict) -> Optional[set]:
    members = set(web)
    parts = 0
    writes = False
    for p in web:
        trip = trips.get(rt.home.get(p))
        if trip is None or not is_float_array(rt.type_of(p)) or p in rt.maybe_unbound:
            return None
        for src, v in p.incoming.items():
            if v is UNDEFINED or isinstance(v, Phi) and (v not in web or src is not trip.latch):
                return None
            if isinstance(v, Phi):
                continue
            if isinstance(v, Call) and v.callee() is ops.identity and len(v.args) == 1 and not v.kwargs and \
                    rt.home.get(v) is rt.home.get(v.args[0]):
                if not all(isinstance(s, Phi) for s, _ in uses.get(v, [])):
                    return None  # (the second name is only handed on: its adjoint is the first name's, moved there)
                members.add(v)  # (`cur = nxt`: a second name of the array made in the same block)
                v = v.args[0]
            if not (isinstance(v, Call) and makes_new_array(rt.resolver.callee(v)[0]) and
                    not {"out", "copy"} & set(v.kwargs) and is_float_array(rt.type_of(v))):
                return None
            home = rt.home.get(v)
            if not (src is trip.enter and home is trip.enter or src is trip.latch and home is trip.last):
                return None
            members.add(v)
    latches = {trips[rt.home[p]].latch for p in web} - {trips[rt.home[p]].last for p in web}
    for m in members:
        if any(rt.home.get(s) in latches for s, _ in uses.get(m, []) if not isinstance(s, Phi)):
            return None  # (a latch block is not undone statement by statement: it holds a counter only)
        into = {s for s, _ in uses.get(m, []) if isinstance(s, Phi)}
        hops = sum(1 for s in into for v in s.incoming.values() if v is m)
        if hops > 1 or any(s not in web for s in into):
            return None  # (two names for one array)
        if isinstance(m, Phi):
            if hops and not all(src is trips[rt.home[m]].latch and rt.home[s] is rt.home[m] for s in into
                                for src, v in s.incoming.items() if v is m):
                return None
        elif any(not isinstance(s, Call) or rt.home.get(s) is not rt.home[m] for s, _ in uses.get(m, [])
                 if not isinstance(s, Phi)):
            return None  # (read after the loop takes it on: two live names)
        own = dict(uses)
        own[m] = [(s, k) for s, k in uses.get(m, []) if not isinstance(s, Phi) and s not in members]
        n = admitted_parts(rt, m, own)
        if n < 0:
            return None
        parts += n
        writes = writes or any(isinstance(s, Call) and k == 0 and (rt.resolver.callee(s)[0] is operator.setitem or
                                                                  scatter_ufunc(rt, s) is not None) for s, k in own[m])
    # (arrays only read, `u = u + alpha * lap`, keep adjoints that are values: nothing to move in place)
    return members if parts and writes else None


def moved_in(rt: "ReverseTransform", v: Value) -> bool:
    """Does member v's adjoint arrive along a phi's edge (so it starts as no zero array of its own)?"""
    return v in rt.buffer_webs and not isinstance(v, Phi)


def start(rt: "ReverseTransform") -> None:
    """Each web phi's adjoint starts as a zero array shaped like the array the loop leaves it (in program
    order).  Read as the value at the returns, as for a top block's (the header dominates them)."""
    prev = rt.cur
    rt.cur = next(b for b in rt.ir.blocks if b in rt.top)
    try:
        for b in rt.ir.blocks:
            for p in b.phis:
                if p in rt.buffer_webs and rt.active(p):
                    buf = rt.b.call(np.zeros_like, [rt.primal(p)])
                    rt.dense_values.add(buf)
                    rt.write_adj(p, buf)
    finally:
        rt.cur = prev


def transfer(rt: "ReverseTransform", src: Any, dst: Any, taken: list) -> list:
    """The moves of a reversed edge into a web header: each incoming member takes its phi's adjoint (one
    array: no sum), and a phi no other phi's adjoint replaces gets a zero array where the trip's last block
    is undone (`pending`).  Returns the other moves, for the usual treatment."""
    rest, filled, moved = [], set(), []
    for v, g, crossed in taken:
        if crossed is None and v in rt.buffer_webs and g is not None:
            while isinstance(v, Call) and v.callee() is ops.identity and v.args[0] in rt.buffer_webs:
                v = v.args[0]  # (the array's first name: the copy of the name passes nothing, its adjoint is zero)
            rt.write_adj(v, g)
            filled.add(v)
            moved.append(v)
        else:
            rest.append((v, g, crossed))
    trip = _trips_of(rt).get(dst)
    if trip is not None and src is trip.latch:
        for phi in dst.phis:
            if phi in rt.buffer_webs and phi not in filled and rt.active(phi) and src in phi.incoming:
                rt.web_pending.setdefault(trip.last, []).append(phi)
    return rest


def _trips_of(rt: "ReverseTransform") -> dict:
    found = getattr(rt, "_web_trips", None)
    if found is None:
        found = rt._web_trips = _trips(rt)
    return found


def start_trip(rt: "ReverseTransform", blk: Any) -> None:
    """At the reverse of a trip's last block: zero arrays for the phis whose adjoints went to arrays the trip
    made (the block's record holds the phi's array of this trip)."""
    for phi in rt.web_pending.pop(blk, []):
        buf = rt.b.call(np.zeros_like, [rt.primal(phi)])
        buf.reads_layout = True  # type: ignore[attr-defined]  # (reverse/dead_restores.py: no restore needed for it)
        rt.dense_values.add(buf)
        rt.write_adj(phi, buf)
