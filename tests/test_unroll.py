"""Loops over short displays of tuples or objects written out (reverse/unroll.py): right derivatives in both
modes for loops written out and for near misses, and plain pullbacks where written out."""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives

from tests import unroll_cases as cases


def _code(src):
    """The generated module without its machine header lines (`# mooncake_ast-key: ...`, whose library record names
    the library's files: `supercalls.py` holds "rcall")."""
    return "\n".join(line for line in src.splitlines() if not line.startswith("# mooncake_ast-"))

R = np.random.default_rng(7)
ARGS = (R.normal(size=(3, 4)), R.normal(size=4), R.normal(size=(4, 4)), R.normal(size=4), R.normal(size=(2, 3)))


@pytest.mark.parametrize("fn", cases.ALL, ids=lambda f: f.__name__)
def test_derivatives_both_modes(fn):
    check_derivatives(fn, *ARGS)


@pytest.mark.parametrize("fn", [cases.tuples_of_arrays, cases.layer_objects, cases.branch_and_counter,
                                cases.mixed_items], ids=lambda f: f.__name__)
def test_written_out_pullback_is_plain(fn):
    mc.grad(fn, argnums=(0, 1, 2, 3))(*ARGS)
    src = _code(mc.source(fn, "reverse"))
    pullback = src[src.index(f"def {fn.__name__}__pullback("):src.index(f"def {fn.__name__}__forward_tape(")]
    assert "_mc.acc" not in pullback and "rcall" not in src and "getitem_reverse" not in pullback, pullback


@pytest.mark.parametrize("fn", [cases.list_changed, cases.loop_with_break, cases.nested_loop],
                         ids=lambda f: f.__name__)
def test_near_misses_stay_loops(fn):
    mc.grad(fn, argnums=(0, 1, 2, 3))(*ARGS)
    src = _code(mc.source(fn, "reverse"))
    forward = src[src.index(f"def {fn.__name__}__forward("):src.index(f"def {fn.__name__}__pullback(")]
    assert "for " in forward or "while " in forward, forward


def test_forward_code_is_written_out_too():
    fn = cases.tuples_of_arrays
    mc.jvp(fn, ARGS, tuple(np.ones_like(a) for a in ARGS))
    src = _code(mc.source(fn, "forward"))
    code = "\n".join(line for line in src[src.index("def tuples_of_arrays__jvp("):].splitlines()
                     if not line.strip().startswith("#"))
    assert "fcall" not in code and "for " not in code, code
