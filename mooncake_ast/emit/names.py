"""Python names for SSA values: the user's names where possible, never a clash.

Out of SSA: a phi and its incoming values share one name when their live
ranges do not overlap (then the copies on edges vanish); every value bound to
a source variable is named after it (`s`, or `s_2` if two versions of `s` are
live at once); temporaries are `t1`, `t2`, ....  Tangents and adjoints are
named from their primal by one convention (`TANGENT_PREFIX` + name,
`name` + `ADJOINT_SUFFIX`), and no generated name ever equals a name the user
function mentions (locals, globals, builtins it uses), so generated code can
never shadow what the user's code reads.
"""
from __future__ import annotations

from typing import Iterable, Optional

from ..ir.analysis import liveness, reverse_postorder, used_value
from ..ir.nodes import Function, Param, Phi, Value

TANGENT_PREFIX = "d"
ADJOINT_SUFFIX = "_bar"


def tangent_name(name: str, taken: set[str]) -> str:
    """`dx` for `x`; `d_x`, `d__x`, … if the user already uses that name."""
    prefix = TANGENT_PREFIX
    while prefix + name in taken:
        prefix += "_"
    return prefix + name


def fresh(base: str, taken: set[str]) -> str:
    """`base`, or `base_2`, `base_3`, … the first one not taken."""
    if base not in taken:
        return base
    i = 2
    while f"{base}_{i}" in taken:
        i += 1
    return f"{base}_{i}"


class _Groups:
    """Union-find over values that should share one name."""

    def __init__(self) -> None:
        self.parent: dict[Value, Value] = {}
        self.members: dict[Value, list[Value]] = {}

    def find(self, v: Value) -> Value:
        self.parent.setdefault(v, v)
        self.members.setdefault(v, [v])
        while self.parent[v] is not v:
            self.parent[v] = self.parent[self.parent[v]]
            v = self.parent[v]
        return v

    def union(self, a: Value, b: Value) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra is not rb:
            self.parent[rb] = ra
            self.members[ra] += self.members.pop(rb)


def interference(fn: Function, named: set[Value]) -> dict[Value, set[Value]]:
    """Which named values are live at the same time (live at the other's definition)."""
    live_in, live_out = liveness(fn)
    conflicts: dict[Value, set[Value]] = {v: set() for v in named}

    def clash(a: Value, live: Iterable[Value]) -> None:
        others = named.intersection(live)
        others.discard(a)
        conflicts[a] |= others
        for b in others:
            conflicts[b].add(a)

    for b in fn.blocks:
        live = set(live_out[b])
        for v in b.term.operands():  # type: ignore[union-attr]
            u = used_value(fn, v)
            if u is not None:
                live.add(u)
        for s in reversed(b.stmts):
            live.discard(s)
            if s in named:
                clash(s, live)
            for v in s.operands():
                u = used_value(fn, v)
                if u is not None:
                    live.add(u)
        # Phis are defined together at block entry, while everything live-in is live.
        for phi in b.phis:
            live.discard(phi)
        for phi in b.phis:
            if phi in named:
                clash(phi, live | set(b.phis))
    params = [p for p in fn.params if p in named]
    entry_live = set(live_in[fn.entry]) if params else set()
    for p in params:
        clash(p, entry_live | set(params))
    return conflicts


def assign_names(
    fn: Function,
    named: set[Value],
    reserved: set[str],
    preferred: dict[Value, str],
    tangent_of: dict[Value, Value],
    adjoint_of: Optional[dict[Value, Value]] = None,
    external: Optional[dict[Value, str]] = None,
) -> dict[Value, str]:
    """Choose a name for every value in `named`.

    `preferred` gives fixed names (parameters); `tangent_of`/`adjoint_of` map
    a derivative value to its primal so it is named after it.
    """
    adjoint_of = adjoint_of or {}
    external = external or {}
    conflicts = interference(fn, named)
    groups = _Groups()
    for v in named:
        groups.find(v)

    # Per group root: every value some member of the group conflicts with (merged on union, the
    # smaller set into the larger), so a test of two groups costs the smaller group's size.
    group_conf: dict[Value, set[Value]] = {v: set(conflicts[v]) for v in named}

    def group_conflicts(ra: Value, rb: Value) -> bool:
        if len(groups.members[ra]) > len(groups.members[rb]):
            ra, rb = rb, ra
        other = group_conf[rb]
        return any(m in other for m in groups.members[ra])

    def union(ra: Value, rb: Value) -> None:
        a, b = group_conf.pop(ra), group_conf.pop(rb)
        if len(a) < len(b):
            a, b = b, a
        a |= b
        groups.union(ra, rb)
        group_conf[groups.find(ra)] = a

    # Coalesce phis with their incoming values (and derivative phis likewise).
    for b in reverse_postorder(fn):
        for phi in b.phis:
            if phi not in named:
                continue
            for v in phi.incoming.values():
                if v in named and not isinstance(v, Param) or (isinstance(v, Param) and v in named):
                    ra, rb = groups.find(phi), groups.find(v)
                    if ra is rb:
                        continue
                    if _kind(ra, tangent_of, adjoint_of) != _kind(rb, tangent_of, adjoint_of):
                        continue
                    if any(m in preferred for m in groups.members[ra]) and any(m in preferred for m in groups.members[rb]):
                        continue
                    if not group_conflicts(ra, rb):
                        union(ra, rb)

    names: dict[Value, str] = {}
    taken_user = set(reserved)

    def base_of(root: Value) -> Optional[str]:
        members = groups.members[root]
        for m in members:
            if m in preferred:
                return preferred[m]
        for m in members:
            if m in tangent_of and tangent_of[m] in names:
                return tangent_name(names[tangent_of[m]], taken_user)
            if m in adjoint_of:
                p = adjoint_of[m]
                pname = names.get(p) or external.get(p) or (p.hint if p.hint and not p.hint.startswith("%") else None)
                if pname:
                    return _adjoint_name(pname, taken_user)
        for m in members:
            if isinstance(m, Phi) and m.hint and not m.hint.startswith("%"):
                return m.hint
        for m in members:
            if m.hint and not m.hint.startswith("%"):
                return m.hint
        return None  # a temporary: t1, t2, ...

    def blocked_names(root: Value) -> set[str]:
        """The names already given to groups that conflict with root's (groups are final here)."""
        out = set(map(names.get, group_conf[root]))
        out.discard(None)
        return out  # type: ignore[return-value]

    def user_owned(root: Value) -> set:
        """The user's names a group may take although they are reserved: its own."""
        members = groups.members[root]
        return {preferred.get(m) for m in members} | {m.hint for m in members if m not in tangent_of and m not in adjoint_of}

    # name -> (base, i) for every name given as `base` (i = 1) or `base_i` (`ti`, base None): the candidates a group
    # cannot take are read off its blocked names, not tried one by one (flags, flags_2, ...,
    # flags_500 all live at once would otherwise cost 500 tries for the last one).
    numbered: dict[str, tuple] = {}

    def choose(base: Optional[str], root: Value, blocked: set[str]) -> str:
        """The first of base, base_2, base_3, ... (t1, t2, ... for a temporary, base None) that
        no conflicting group holds and the user's names leave free."""
        temp = base is None
        used = {numbered[n][1] for n in blocked if n in numbered and numbered[n][0] == base}
        own = None
        i = 1
        while True:
            if i not in used:
                name = f"t{i}" if temp else base if i == 1 else f"{base}_{i}"
                if name not in blocked:
                    if name not in taken_user:
                        return name
                    if own is None:
                        own = user_owned(root)
                    if name in own:
                        return name
            i += 1

    # Primal values first (in program order), then derivatives, so derivative
    # names can follow their primal's name.
    order = [v for v in named if isinstance(v, Param)]
    order.sort(key=lambda p: p.index)
    order += [v for v in _program_order(fn) if v in named and not isinstance(v, Param)]
    order.sort(key=lambda v: 0 if _kind(v, tangent_of, adjoint_of) == "primal" else 1)
    for v in order:
        root = groups.find(v)
        if v in names:
            continue
        if root in names:
            names[v] = names[root]
            continue
        base = base_of(root)
        blocked = blocked_names(root)
        name = choose(base, root, blocked)
        if name not in numbered:
            if base is None:
                numbered[name] = (None, int(name[1:]))
            elif name == base:
                numbered[name] = (base, 1)
            else:
                numbered[name] = (base, int(name[len(base) + 1:]))
        for m in groups.members[root]:
            names[m] = name
        names[root] = name
    return names


def _adjoint_name(name: str, taken: set[str]) -> str:
    suffix = ADJOINT_SUFFIX
    while name + suffix in taken:
        suffix += "_"
    return name + suffix


def _kind(v: Value, tangent_of: dict, adjoint_of: dict) -> str:
    return "tangent" if v in tangent_of else "adjoint" if v in adjoint_of else "primal"


def _program_order(fn: Function) -> list[Value]:
    out: list[Value] = list(fn.params)
    extra = getattr(fn, "extra_params", [])
    out += list(extra)
    for b in reverse_postorder(fn):
        out += b.phis
        out += b.stmts
    return out
