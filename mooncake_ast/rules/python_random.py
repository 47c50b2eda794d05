"""The standard library's `random`: seeding and the standard draw have no derivative.

`random.seed(0)` (and `rng.seed(0)` of a `random.Random`) resets the generator's state, and `rng.random()` draws a
standard uniform from it: nothing a derivative follows comes out of them.  Through its source, reverse mode met
`super().seed(a)` (C code without a rule) and refused the whole function, though the draws after it
(`random.gauss(mu, sigma)`, `rng.uniform(a, b)`, differentiated from random.py's source) are fine in both modes.
Registered on first need, once the user's code has imported random (registry._LAZY_TABLES).
"""
from __future__ import annotations

import random

from .registry import defzero


def register() -> None:
    defzero((random.Random, "seed"), (random.Random, "getstate"), (random.Random, "setstate"),
            (random.Random, "random"), (random.Random, "getrandbits"))  # (the standard draws: state, no inputs)
