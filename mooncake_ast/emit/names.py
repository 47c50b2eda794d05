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

from typing import Optional

from ..ir.analysis import reverse_postorder
from ..ir.nodes import Call, Function, Param, Phi, Value
from .interference import LiveAfter
from .numbered import NumberedNames, candidate, readings
from .render import INPLACE_SYNTAX

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

    Clashes are bit masks (see interference.py): per group of values sharing a name, `members`
    (its values' bits) and `live` (the values live just after one of its values is defined); two
    groups clash when one's members meet the other's live mask.  No list of pairs is made, so a
    function where thousands of values are live at once costs a few mask operations per value.
    """
    adjoint_of = adjoint_of or {}
    external = external or {}
    program = [v for v in _program_order(fn) if v in named and not isinstance(v, Param)]
    params = sorted((v for v in named if isinstance(v, Param)), key=lambda p: p.index)
    seen = set(program) | set(params)
    # Bits in program order: a mask's size is its highest bit, and what is live after a definition
    # was mostly defined before it.
    live = LiveAfter(fn, params + program + [v for v in named if v not in seen])
    groups = _Groups()
    g_members: dict[Value, int] = {}
    g_live: dict[Value, int] = {}
    g_preferred: dict[Value, bool] = {}
    # Parameters are all bound at entry, read or not: each clashes with every other (`def f(a, b, da, db)`
    # has an unread tangent parameter for b, whose name `db` is the user's parameter's).
    all_params = 0
    for p in params:
        all_params |= live.bit[p]
    for v in named:
        groups.find(v)
        g_members[v] = live.bit[v]
        g_live[v] = live.after.get(v, 0) | (all_params if isinstance(v, Param) else 0)
        g_preferred[v] = v in preferred

    def group_conflicts(ra: Value, rb: Value) -> bool:
        return bool(g_live[ra] & g_members[rb] or g_live[rb] & g_members[ra])

    def union(ra: Value, rb: Value) -> None:
        groups.union(ra, rb)
        root, other = (ra, rb) if groups.find(ra) is ra else (rb, ra)
        g_members[root] |= g_members.pop(other)
        g_live[root] |= g_live.pop(other)
        g_preferred[root] = g_preferred[root] or g_preferred.pop(other)

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
                    if g_preferred[ra] and g_preferred[rb]:
                        continue
                    if not group_conflicts(ra, rb):
                        union(ra, rb)
    # An in-place update takes its target's name where the target is read no more (`x_bar += g`, not
    # `x_bar = operator.iadd(x_bar_2, g)` when a parameter holds the name the target would take).
    for v in program:
        if isinstance(v, Call) and v.callee() in INPLACE_SYNTAX and len(v.args) == 2 and not v.kwargs and \
                v.args[0] in named and not isinstance(v.args[0], Param):
            ra, rb = groups.find(v), groups.find(v.args[0])
            if ra is not rb and _kind(ra, tangent_of, adjoint_of) == _kind(rb, tangent_of, adjoint_of) and \
                    not (g_preferred[ra] and g_preferred[rb]) and not group_conflicts(ra, rb):
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

    def user_owned(root: Value) -> set:
        """The user's names a group may take although they are reserved: its own."""
        members = groups.members[root]
        return {preferred.get(m) for m in members} | {m.hint for m in members if m not in tangent_of and m not in adjoint_of}

    # Per name given: the members and live masks of the groups holding it, so "does a group
    # clashing with root hold this name" is two mask tests.  Per base: the members of the groups
    # named from it.  When every group named from root's base clashes with root (stacks made one
    # after another, all live at once), every index given is blocked and the search skips them,
    # as it skips the names in use: flags, flags_2, ..., flags_500 would otherwise cost 500 tries.
    # (`held`: name -> [members, live]; `held_at`: base -> index -> the same list, for every (base, index)
    # whose candidate is the name -- numbered.readings -- so that trying index c of a base is a look-up of c.)
    held: dict[str, list] = {}
    held_at: dict[Optional[str], dict[int, list]] = {}
    base_members: dict[Optional[str], int] = {}
    numbered = NumberedNames(taken_user)
    index_of = _IndexOfBit(len(live.bit))

    def choose(base: Optional[str], root: Value) -> tuple[str, int]:
        """The first of base, base_2, base_3, ... (t1, t2, ... for a temporary, base None) that
        no clashing group holds and the user's names leave free (but for the group's own), with
        its index."""
        live, members = g_live[root], g_members[root]
        all_clash = not base_members.get(base, 0) & ~live
        given = numbered.given.get(base, ())
        own: list[int] = []  # indices of names in use that the group may take: its own
        if numbered.has_taken(base):
            own = sorted({i for o in user_owned(root) if o in taken_user for b, i in readings(o)
                          if b == base and not (all_clash and i in given)})
        # (the tests written out, not calls: a long function tries some 50 names per group.  Name
        # `candidate(base, c)` is blocked when a group holding it clashes with root; its holders are found by
        # index where readings() reads every such name, by name otherwise.)
        skip = numbered.skipper(base, all_clash)
        skipped = skip.members
        at = held_at.get(base, {}) if base is None or (base and "\n" not in base) else None
        i, k = 1, 0
        tries = 0
        free = None  # (after some tries: the indices no group live here holds, see _live_indices)
        while True:
            j = skip.first(i) if i in skipped else i
            if own:
                while k < len(own) and own[k] < i:
                    k += 1
                c = min(j, own[k]) if k < len(own) else j
            else:
                c = j
            if free is not None and c < len(free) and not free[c]:
                i = c + int(free[c:].argmax())  # (every index on the way is held by a group live here)
                continue
            cell = at.get(c) if at is not None else held.get(candidate(base, c))
            if cell is None or not (cell[0] & live or cell[1] & members):
                return candidate(base, c), c
            i = c + 1
            tries += 1
            if tries == _TRIES_BEFORE_JUMPS and at is not None:
                free = index_of.free_indices(live & base_members.get(base, 0))

    # Primal values first (in program order), then derivatives, so derivative
    # names can follow their primal's name.
    order = params + program
    order.sort(key=lambda v: 0 if _kind(v, tangent_of, adjoint_of) == "primal" else 1)
    for v in order:
        root = groups.find(v)
        if v in names:
            continue
        if root in names:
            names[v] = names[root]
            continue
        base = base_of(root)
        name, i = choose(base, root)
        cell = held.get(name)
        if cell is None:
            cell = held[name] = [0, 0]
            for b, k in readings(name):
                held_at.setdefault(b, {})[k] = cell
        cell[0] |= g_members[root]
        cell[1] |= g_live[root]
        base_members[base] = base_members.get(base, 0) | g_members[root]
        numbered.give(base, i)
        for m in groups.members[root]:
            names[m] = name
            index_of.set(live.bit[m], i)
        names[root] = name
    return names


# A group that has tried this many indices of its base in vain finds the indices held by the groups named from
# the base that are live where it is defined (which surely clash) in one pass, and jumps over runs of them.
_TRIES_BEFORE_JUMPS = 16


class _IndexOfBit:
    """Per value's bit (interference.LiveAfter's), the index of the name its group was given.

    What makes naming linear where a thousand temporaries are live at once (a forward pass whose tape
    is built at its end): a group tried t1, t2, ... one by one, each held by a group live at its
    definition, a thousand tries per group.  From the mask of the groups named from its base that are
    live there, the indices they hold are found by NumPy in one pass (`free_indices`), and the search
    jumps over them, trying only the others as before: the same name is chosen, found sooner."""

    def __init__(self, nbits: int) -> None:
        import numpy as np

        self.np = np
        self.index = np.zeros(max(nbits, 1), dtype=np.int64)

    def set(self, bit: int, i: int) -> None:
        self.index[bit.bit_length() - 1] = i

    def free_indices(self, mask: int) -> Optional["object"]:
        """A boolean array, True at the indices that no value of `mask` holds (True past its end, with one True
        at the end to stop a search), or None where `mask` holds none."""
        if not mask:
            return None
        np = self.np
        raw = np.frombuffer(mask.to_bytes((mask.bit_length() + 7) // 8, "little"), dtype=np.uint8)
        held = self.index[np.flatnonzero(np.unpackbits(raw, bitorder="little"))]
        free = np.ones(int(held.max()) + 2, dtype=bool)
        free[held] = False
        return free


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
