"""Numbered names: `base`, `base_2`, `base_3`, ... (`t1`, `t2`, ... for a temporary, base None).

The naming pass gives a group the first of these that no clashing group holds and that the
names already in use (the user's, the other generated function's) leave free.  Trying them one
by one costs the k-th of k stacks live at once k tries, and a pullback whose forward function
already took `stack` ... `stack_1000` a thousand tries per stack: quadratic in a long function.
This module keeps, per base, the indices out of reach (taken by a name in use, or given to a
group that, in the case at hand, clashes) and jumps over runs of them ("the next index not in a
set that only grows": pointers with path compression).
"""
from __future__ import annotations

from typing import Optional


def candidate(base: Optional[str], i: int) -> str:
    return f"t{i}" if base is None else base if i == 1 else f"{base}_{i}"


def readings(name: str) -> list[tuple[Optional[str], int]]:
    """Every (base, i) whose candidate is `name`."""
    out: list[tuple[Optional[str], int]] = [(name, 1)]
    base, sep, digits = name.rpartition("_")
    if sep and base and "\n" not in base and _index(digits) >= 2:
        out.append((base, int(digits)))
    if name[:1] == "t" and _index(name[1:]):
        out.append((None, int(name[1:])))
    return out


def _index(digits: str) -> int:
    """The number `digits` spells if it is one in `[1-9][0-9]*` (ASCII), else 0.  (Plain string tests: a pattern
    costs its compilation in every process that derives something.)"""
    if digits[:1] in ("", "0") or not (digits.isascii() and digits.isdigit()):
        return 0
    return int(digits)


class _Skip:
    """The smallest index >= i not in a growing set of indices."""

    def __init__(self, members: set[int]) -> None:
        self.members = members
        self.next: dict[int, int] = {}

    def first(self, i: int) -> int:
        path = []
        while i in self.members:
            path.append(i)
            i = self.next.get(i, i + 1)
        for p in path:
            self.next[p] = i
        return i


class NumberedNames:
    """Per base: the indices whose candidate is a name in use (`taken`, fixed) and the indices
    given so far."""

    def __init__(self, taken: set[str]) -> None:
        self.taken = taken
        self.taken_idx: dict[Optional[str], set[int]] = {}
        for name in taken:
            for base, i in readings(name):
                self.taken_idx.setdefault(base, set()).add(i)
        self.given: dict[Optional[str], set[int]] = {}
        self._skip_taken: dict[Optional[str], _Skip] = {}
        self._skip_both: dict[Optional[str], _Skip] = {}

    def has_taken(self, base: Optional[str]) -> bool:
        return bool(self.taken_idx.get(base))

    def first_free(self, base: Optional[str], i: int, skip_given: bool) -> int:
        """The smallest index >= i whose candidate is not taken (nor given, if `skip_given`)."""
        return self.skipper(base, skip_given).first(i)

    def skipper(self, base: Optional[str], skip_given: bool) -> _Skip:
        """What first_free asks (`.first(i)`), for a caller that asks it many times (`.members`: the indices
        it skips; an index not in it is its own answer)."""
        table = self._skip_both if skip_given else self._skip_taken
        skip = table.get(base)
        if skip is None:
            taken = self.taken_idx.get(base, set())
            members = taken | self.given.get(base, set()) if skip_given else taken
            skip = table[base] = _Skip(members)
        return skip

    def give(self, base: Optional[str], i: int) -> None:
        self.given.setdefault(base, set()).add(i)
        both = self._skip_both.get(base)
        if both is not None:
            both.members.add(i)
