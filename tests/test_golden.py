"""Golden tests: the printed IR and the generated forward module of a few functions.

Run with UPDATE_GOLDEN=1 to rewrite the files after an intended change, and
review the diff like any other code change.
"""
import os

import pytest

import mooncake_ast as mc
from tests import golden_functions as g

HERE = os.path.join(os.path.dirname(__file__), "golden")
FUNCTIONS = [g.straight_line, g.branches, g.sine_sum, g.while_break, g.fill_array, g.unpack_and_call]


def _compare(name, text):
    path = os.path.join(HERE, name)
    if os.environ.get("UPDATE_GOLDEN"):
        with open(path, "w") as f:
            f.write(text)
    with open(path) as f:
        expected = f.read()
    assert text == expected, f"{name} changed; rerun with UPDATE_GOLDEN=1 if intended"


def _body(source):
    """The module without its first two lines (cache key and digest vary with versions)."""
    return source.split("\n", 2)[2]


@pytest.mark.parametrize("fn", FUNCTIONS, ids=[f.__name__ for f in FUNCTIONS])
def test_ir(fn):
    _compare(f"{fn.__name__}.ir.txt", mc.differentiate(fn).ir())


@pytest.mark.parametrize("fn", FUNCTIONS, ids=[f.__name__ for f in FUNCTIONS])
def test_forward_source(fn):
    _compare(f"{fn.__name__}.forward.py.txt", _body(mc.source(fn, "forward")))
