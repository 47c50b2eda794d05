"""Golden pullbacks of loops that write rows and items of float arrays (issue 9): a Jacobi sweep swapping two
arrays each trip (reverse/buffer_webs.py) and a loop filling the rows of an output (reverse/buffers.py).  Their
pullbacks are plain NumPy: no run-time helper at all.

Run with UPDATE_GOLDEN=1 to rewrite the files after an intended change, and review the diff."""
import os

import numpy as np
import pytest

import mooncake_ast as mc
from tests import golden_loop_buffers as g

HERE = os.path.join(os.path.dirname(__file__), "golden")
R = np.random.default_rng(9)
CALLS = {g.jacobi_smoothing: ((R.normal(size=8), 6), 0), g.row_activations: ((R.normal(size=(4, 3)), R.normal(size=3)), (0, 1))}
FUNCTIONS = list(CALLS)


def _source(fn):
    args, argnums = CALLS[fn]
    mc.vjp(fn, *args) if fn is g.jacobi_smoothing else mc.grad(fn, argnums=argnums)(*args)
    # (without the header lines that name the cache key and digest, which vary with versions)
    return "\n".join(ln for ln in mc.source(fn, "reverse").splitlines() if not ln.startswith("# mooncake_ast-")) + "\n"


@pytest.mark.parametrize("fn", FUNCTIONS, ids=[f.__name__ for f in FUNCTIONS])
def test_golden_pullback(fn):
    text = _source(fn)
    path = os.path.join(HERE, f"{fn.__name__}.reverse.py.txt")
    if os.environ.get("UPDATE_GOLDEN"):
        with open(path, "w") as f:
            f.write(text)
    with open(path) as f:
        assert text == f.read(), f"{fn.__name__} changed; rerun with UPDATE_GOLDEN=1 if intended"


@pytest.mark.parametrize("fn", FUNCTIONS, ids=[f.__name__ for f in FUNCTIONS])
def test_pullback_has_no_helper(fn):
    text = _source(fn)
    start = text.index(f"def {fn.__name__}__pullback(")
    end = text.find("\ndef ", start + 1)
    pullback = text[start:] if end < 0 else text[start:end]
    assert "_mc." not in pullback, pullback


@pytest.mark.parametrize("fn", FUNCTIONS, ids=[f.__name__ for f in FUNCTIONS])
def test_derivatives(fn):
    args, _ = CALLS[fn]
    mc.testing.check_derivatives(fn, *args)
