"""Simple builtins' signatures read without inspect's parser (rules/text_signatures.py) equal inspect's."""
from __future__ import annotations

import builtins
import cmath
import inspect
import math
import operator
import types

import pytest

from mooncake_ast.rules.call_binding import _signature, bind_positional
from mooncake_ast.rules.text_signatures import read_simple_text, simple_text_signature

MODULES = [builtins, operator, math, cmath]
BUILTINS = sorted({(m.__name__, n) for m in MODULES for n, f in vars(m).items()
                   if type(f) is types.BuiltinFunctionType and getattr(f, "__text_signature__", None)})


@pytest.mark.parametrize("module, name", BUILTINS, ids=[f"{m}.{n}" for m, n in BUILTINS])
def test_the_signature_read_equals_inspects(module, name):
    fn = getattr(__import__(module), name)
    mine = simple_text_signature(fn)
    if mine is None:  # (defaults, *args, $self: inspect reads it)
        return
    assert mine == inspect.signature(fn)
    assert [p.kind for p in mine.parameters.values()] == [p.kind for p in inspect.signature(fn).parameters.values()]


def test_the_common_ones_are_read_here():
    read = [f for f in (operator.add, operator.mul, operator.sub, operator.truediv, operator.neg, operator.getitem,
                        math.sin, math.atan2, builtins.len, builtins.abs, builtins.divmod) if simple_text_signature(f)]
    assert len(read) == 11


@pytest.mark.parametrize("text, expected", [
    ("($module, a, b, /)", "(a, b, /)"), ("($module, x)", "(x)"), ("($module, /, x, *, y)", "(x, *, y)"),
    ("($module, a, /, b, *, c, d)", "(a, /, b, *, c, d)"), ("($module)", "()"),
    ("($module, a=1)", None), ("($module, *args)", None), ("($self, a)", None), ("($module, a, *)", None),
    ("($module, *, a, /)", None), ("($module, a, a b)", None), ("($module, class)", None), ("($module, a,)", None),
    ("($module, a, /, b, /)", None), (None, None), ("(a, b)", None),
])
def test_text_forms(text, expected):
    sig = read_simple_text(text)
    assert (None if sig is None else str(sig)) == expected


def test_binding_uses_it():
    assert _signature(operator.add) == inspect.signature(operator.add)
    assert bind_positional(operator.add, (1.0, 2.0), {}) == ((1.0, 2.0), {})
