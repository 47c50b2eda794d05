"""The run-time adjoint helpers generated reverse code calls, in one namespace (`_mc.*`).

runtime.py builds `_mc` from this module's public names, and the reverse transform and the
rules refer to the helpers through it (`adj.item_of`, `t.call(adj.add_vjp, ...)`), so it gathers
the three modules that define them, each a concept of its own:

* adjoint_values.py: the adjoint containers (`AdjTuple`, `AdjList`, `AdjDict`, ...), `accumulate`,
  `unbroadcast`, the adjoints of functions and methods;
* part_adjoints.py: the adjoints of reading parts of a value (items, attributes, unpacking);
* builtin_adjoints.py: the adjoints of Python's builtins (iteration, sum, zip, sorted, dict reads,
  `+` and `*` of sequences).

Defined here: calling a pullback from generated code.
"""
from __future__ import annotations

import collections  # noqa: F401  (as before the split: _mc.collections)
from typing import Any

import numpy as np  # noqa: F401  (as before the split: _mc.np)

from ..arrays import add_at, is_array, is_other_array, library_of_type  # noqa: F401  (as _mc.*)
from ..errors import UnsupportedDerivativeError  # noqa: F401  (as _mc.*)
from ..tangents import MutableTangent, NoTangent, is_mutable  # noqa: F401  (as _mc.*)
from .adjoint_values import (AdjDict, AdjList, AdjTuple, FunctionAdjoint, MethodAdjoint, StorageList,  # noqa: F401
                             StorageTuple, accumulate, add_at_unless_zero, add_into_buffer, add_rows,
                             add_to_item_unless_zero, defaults_adjoint, number_adjoint, rows_to_array, unbroadcast)
from .builtin_adjoints import (ItemsIterator, add_vjp, default_adjoint, dict_get_adjoint, items_adjoint,  # noqa: F401
                               minmax_adjoint, mul_vjp, reversed_adjoint, sequence_adjoint, sorted_adjoint,
                               sum_items_adjoint, sum_start_adjoint, values_adjoint, zip_adjoint)
from .complex_values import conj, refuse_complex, refuse_complex_power, refuse_complex_rule  # noqa: F401  (as _mc.*)
from .part_adjoints import (attr_adjoint, concat_part_adjoint, item_adjoint, item_of, merge_part_adjoint,  # noqa: F401
                            real_adjoint, real_item, unpack_adjoint, unpack_star_adjoint)


def call_pullback(pb: Any, g: Any) -> Any:
    return pb(g)


def rcall_marker() -> Any:  # placeholder replaced by rcall in the forward pass
    raise AssertionError


def rcall(f: Any, args: tuple, kwargs: dict) -> tuple:
    from .runtime import rcall as real

    return real(f, args, kwargs)
