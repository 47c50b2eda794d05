"""Test inputs of the rules of the helpers that lowered `try` statements and generators call
(frontend/try_ops.py, frontend/generator_ops.py), merged into CASES / ZERO_CASES of tests/test_rules.py.
The functions are defs in this file, so their source is found; each runs the helper it is listed under."""
import numpy as np


class Case:
    """As test_rules.Case: the function, its arguments, the modes (default: the rule's), check options."""

    def __init__(self, fn, *args, modes=None, xfail=None, **check):
        self.fn, self.args, self.modes, self.xfail, self.check = fn, args, modes, xfail, check


def caught_key_error(x, k):
    d = {"a": x * 2.0}
    try:
        v = d[k] * x
    except (KeyError, IndexError):
        v = np.sin(x)
    return v


def _items(a):
    for v in a:
        yield v * v


def loop_over_generator(a):
    s = 0.0
    for v in _items(a):
        s = s + np.sin(v)
    return s


A = np.array([0.3, -0.7, 1.1])
_P = "mooncake_ast.frontend."
LANGUAGE_CASES = {
    _P + "try_ops.guarded_call": [Case(caught_key_error, 0.4, "a"), Case(caught_key_error, 0.4, "z")],
    _P + "generator_ops.finish": [Case(loop_over_generator, A)],
}
LANGUAGE_ZERO_CASES = {
    _P + "try_ops.raised": Case(caught_key_error, 0.4, "z"),
    _P + "try_ops.caught": Case(caught_key_error, 0.4, "z"),
    _P + "try_ops.exception_instance": Case(caught_key_error, 0.4, "z"),
    _P + "try_ops.exception_matches": Case(caught_key_error, 0.4, "z"),
    _P + "try_ops.reraise": Case(caught_key_error, 0.4, "z"),
    _P + "generator_ops.snapshot": Case(loop_over_generator, A),
    _P + "generator_ops.consumed": Case(loop_over_generator, A),
    _P + "generator_ops.exhausted": Case(loop_over_generator, A),
}
