"""Module-level state that callees write, returned as it is (`return LOG`), keeps its tangent in forward mode.

Forward mode keeps the tangent of module-level state in storage of its own (forward/state.module_tangent), found for
the operands of statements; a return's operand is no statement's, so `return LOG` of a list callees had appended to
gave a zero tangent, and so did everything read from it by a caller (`L = f(x); L[0] + 3 * L[1]`: 0 for 20).  `v =
LOG; return v` was right.  (Found by the plain helper.)  Reverse mode refuses module-level state written with
values that depend on the inputs (GlobalWriteError), as before.
"""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.forward.activity import GlobalWriteError

LOG = []
BUF = np.zeros(2)


def _note(L, v):
    L.append(v * 2.0)


def _fill(b, v):
    b[0] = v * v
    b[1] = 3.0 * v


def returned_list(x):
    LOG.clear()
    _note(LOG, x)
    _note(LOG, x * x)
    return LOG


def returned_array(x):
    _fill(BUF, x)
    return BUF


def caller_reads_it(x):
    L = returned_list(x)
    return L[0] + L[1] * 3.0


def caller_reads_the_array(x):
    b = returned_array(x)
    return b[0] * b[1]


@pytest.mark.parametrize("f, expected", [
    (returned_list, lambda x: [2.0, 4.0 * x]),
    (returned_array, lambda x: np.array([2.0 * x, 3.0])),
    (caller_reads_it, lambda x: 2.0 + 12.0 * x),
    (caller_reads_the_array, lambda x: 9.0 * x * x),
], ids=["returned_list", "returned_array", "caller_reads_it", "caller_reads_the_array"])
def test_forward_tangent_of_returned_module_state(f, expected):
    x = 1.5
    _, dy = mc.jvp(f, (x,), (1.0,))
    np.testing.assert_allclose(np.asarray(dy, dtype=float), np.asarray(expected(x), dtype=float))


def test_reverse_mode_still_refuses_module_state_written_with_derivatives():
    with pytest.raises(GlobalWriteError):
        mc.grad(caller_reads_it)(1.5)
