"""Predicates and checks that rules' helpers call, with no derivative: `_complex(*xs)` (is any operand complex?),
`_real_only(name, *arrays)` (refuse complex operands).

At first order they run inside a rule's helper as plain Python; a third derivative differentiates the helper's forward
code again (forward mode over the tangent code of slogdet, einsum, ...), where a call of a variadic function was
refused by name ("nested derivative of _complex: call it with all its parameters given positionally").  A bool (or a
check that returns None) has no derivative at any order.
"""
from __future__ import annotations

from . import numpy_linalg, numpy_linalg_complex, numpy_linalg_complex_more, numpy_products
from .registry import defzero

defzero(numpy_linalg_complex._complex, numpy_linalg_complex_more._complex, numpy_products._complex,
        numpy_linalg._real_only)
