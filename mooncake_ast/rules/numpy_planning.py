"""NumPy functions that plan a computation and return no value with a derivative: np.einsum_path (the contraction
order, a list of index tuples, and a printed report), registered as zero-derivative rules.

Without a rule, np.einsum_path of differentiated operands was traced: its report is built with
`"%4d %24s" % (scale, ...)`, whose derivative asked for str // tuple (a TypeError in both modes, fixed in
operator_rules), and tracing NumPy's planner cost a derivation of three of its functions for a constant."""
from __future__ import annotations

import numpy as np

from .registry import defzero

defzero(np.einsum_path)
