"""Test inputs of the rules lazy iteration added (mooncake_ast/lazy_iteration.py): ops.all_items, ops.whole_sequence,
next() in reverse mode, reversed() as a counting iterator, and generator_ops.note_yield (zero), merged into CASES /
ZERO_CASES of tests/test_rules.py.  The functions are defs in this file, so their source is found."""
import numpy as np

from mooncake_ast import ops


class Case:
    """As test_rules.Case: the function, its arguments, the modes (default: the rule's), check options."""

    def __init__(self, fn, *args, modes=None, xfail=None, **check):
        self.fn, self.args, self.modes, self.xfail, self.check = fn, args, modes, xfail, check


class Bag:
    def __init__(self, vals):
        self.vals = vals

    def __iter__(self):
        return iter(self.vals)


def sum_of_a_bag(a):
    return sum(Bag([a[0] * a[1], np.sin(a[2]), a[1]])) * a[0]


def sorted_bag_of_a_map(a):
    return sorted(Bag(map(lambda v: v * v, a)))[1] + max(Bag([a[0], a[2] * 2.0]))


def whole_sequence_of_iterators(a):
    s = 0.0
    for v in ops.whole_sequence(iter([a[0], a[1] * a[2]])):
        s = s + v * v
    return s + sum(ops.whole_sequence(map(lambda v: v * 3.0, a)))


def next_in_turn(a):
    it = iter(a)
    return next(it) * 3.0 + next(it) * next(it)


def next_with_defaults(a):
    it = iter([a[0]])
    return next(it, a[1]) * next(it, a[2])


def reversed_read_in_parts(a):
    r = reversed(a * 1.5)
    first = next(r)
    return first * sum(r)


def _yields(a):
    for v in a:
        yield v * v


def generator_summed(a):
    return sum(_yields(a)) * a[0]


def pulled_tangents_read(a):
    from mooncake_ast.rules import builtin_iteration as bi

    s = 0.0
    for dv in bi.pulled_tangents([a[0] * a[2], a[1] * a[1]]):
        s = s + dv * dv * a[0]
    return s


def sequence_tangent_read(a):
    """The tangents of a list's items as reverse mode over forward code meets them (a list: read whole)."""
    from mooncake_ast.rules import builtin_iteration as bi

    xs = [a[0], a[1]]
    s = 0.0
    for dv in bi.sequence_tangent(xs, xs, [a[0] * a[2], a[1] * a[1]]):
        s = s + dv * dv * a[0]
    return s


def all_items_tangent_read(a):
    from mooncake_ast.rules import builtin_iteration as bi

    dseq = bi.all_items_tangent([a[0], a[1]], [a[2] * a[1], a[0] * a[0]])
    return dseq[0] * dseq[1] + a[2] * dseq[0]


A = np.array([0.3, -0.7, 1.1])
ITERATION_CASES = {
    "mooncake_ast.rules.builtin_iteration.sequence_tangent": [Case(sequence_tangent_read, A)],
    "mooncake_ast.rules.builtin_iteration.all_items_tangent": [Case(all_items_tangent_read, A)],
    "mooncake_ast.rules.builtin_iteration.pulled_tangents": [Case(pulled_tangents_read, A)],
    "mooncake_ast.ops.all_items": [Case(sum_of_a_bag, A), Case(sorted_bag_of_a_map, A)],
    "mooncake_ast.ops.whole_sequence": [Case(whole_sequence_of_iterators, A)],
    "next": [Case(next_in_turn, A), Case(next_with_defaults, A)],
    "reversed": [Case(reversed_read_in_parts, A)],
}
ITERATION_ZERO_CASES = {
    "mooncake_ast.frontend.generator_ops.note_yield": Case(generator_summed, A),
}
