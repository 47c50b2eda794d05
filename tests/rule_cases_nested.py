"""Test inputs of the rules of nested derivatives' helpers (rules/nested_helpers.py, rules/nested_plans.py and the
twins of forward_code_rules.py), merged into CASES / ZERO_CASES of tests/test_rules.py, which checks each in the
rule's modes.  The functions are defs in this file, so their source is found."""
import operator

import types

import numpy as np

from mooncake_ast.forward.transform import item_storage
from mooncake_ast.rules import nested_helpers as nh
from mooncake_ast.rules.builtin_attributes import getattr_tangent
from mooncake_ast.rules.nested_plans import plan_args, plan_function, plan_tangents
from mooncake_ast.rules.operator_rules import index_tangent
from mooncake_ast.rules.registry import update
from mooncake_ast.tangents import NoTangent
import mooncake_ast as mc
from mooncake_ast.rules.numpy_reductions import _first_extremum
from mooncake_ast.rules.numpy_shapes import join_tangent

X3 = np.array([0.3, -0.7, 1.1])


class Case:
    """As test_rules.Case: the function, its arguments, the modes (default: the rule's), check options."""

    def __init__(self, fn, *args, modes=None, xfail=None, **check):
        self.fn, self.args, self.modes, self.xfail, self.check = fn, args, modes, xfail, check


class Box:
    def __init__(self):
        self.a = 2.0


def method_tangent_case(x, d):
    m, tm = nh.method_tangent_fwd(x, d, "copy", x.copy, x, d * 2.0, NoTangent, NoTangent)
    return np.sum(x * 3.0)  # (MethodTangents: their adjoints are MethodAdjoints, nothing flows back here)


def with_dense_tangent_case(y, d):
    a, b = nh.with_dense_tangent(y, d)
    return a * b + np.sin(b)


def new_objects_case(x):
    o = nh.new_object(Box)
    t = nh.new_tangent()
    return x * (1.0 if o.__class__ is Box and not t.fields else 2.0)


def new_cells_case(x):
    from mooncake_ast.rules import nested_closures_third as nct

    cell, tangent_cell = nct.new_cell_fwd()
    return x * (1.0 if isinstance(cell, types.CellType) and isinstance(tangent_cell, types.CellType) else 2.0)


def storage_case(x):
    s = nh.zero_storage(np.zeros(3))
    r = nh.result_storage(np.zeros(2))
    return x * (1.0 + float(np.sum(s)) + float(np.sum(r)))


def plan_args_case(x, d):
    call = plan_args(operator.mul, NoTangent, (x, 2.0), (d, 0.0), None)
    return call[0] * call[1] + call[2] * call[0]


def plan_tangents_case(x, d):
    t = plan_tangents(operator.mul, NoTangent, (x, 2.0), (d, 0.0), None, NoTangent, NoTangent, (x * 2.0, 0.0), (d, 0.0))
    return t[0] * x + t[2] * t[0]


def index_tangent_case(x):
    return x * (1.0 if index_tangent(x, 0, NoTangent) is NoTangent else 2.0)


def update_write_case(x, v):
    # (the tangent storage written in place: update's twin, update_write)
    t = x * 1.0
    return np.sum(update(t, v * t) * x)


def update_replace_case(x, v):
    return update(x, x * v) * v


def item_storage_of_view_case(x):
    c = x * 2.0
    d = item_storage(c, c, slice(1, None), c[1:])
    d[...] = d * x[1:]
    return np.sum(c * x)


def getattr_field_case(x):
    d = nh.new_tangent()  # (an object's tangent, made as forward code of a constructor makes it)
    d.fields["a"] = x * 2.0
    return np.sum(getattr_tangent(Box(), d, "a", 2.0) * x)


def view_read_case(x):
    return np.sum(nh.view_read(x * 2.0, slice(1, None)) ** 2)


def join_tangent_case(x, d):
    return np.sum(join_tangent(np.concatenate, (x, x * 2.0), (d, d * x), 0) ** 2)


def _cubic(v):
    return np.sum(v ** 3)


def _cubes(v):
    return v ** 3


def jacfwd_factory_case(x):
    return np.sum(mc.jacfwd(_cubes)(x) * x)


def jacrev_factory_case(x):
    return np.sum(mc.jacrev(_cubes)(x) * x)


def hessian_factory_case(x):
    return np.sum(mc.hessian(_cubic)(x) * x)


def hvp_inside_case(x):
    return np.sum(mc.hvp(_cubic, (x,), (x * 2.0,)) * x)


def first_extremum_case(x):
    return x * float(np.sum(_first_extremum(x, np.max(x), None, False)))


def guarded_fcall_case(x, d):
    from mooncake_ast.rules.nested_guarded import guarded_fcall

    y, dy = guarded_fcall(operator.mul, NoTangent, (x, x), (d, d), {}, {})
    return y * dy + np.sin(y)


def guarded_fcall_raising_case(x, d):
    from mooncake_ast.frontend.try_ops import raised
    from mooncake_ast.rules.nested_guarded import guarded_fcall

    r = guarded_fcall(operator.truediv, NoTangent, (x, 0.0), (d, 0.0), {}, {})  # (ZeroDivisionError, caught)
    return x * d * (1.0 if raised(r) else 2.0)


def stop_fcall_case(x, d):
    from mooncake_ast.rules.nested_guarded import stop_fcall

    y, dy = stop_fcall(operator.mul, NoTangent, (x, 2.0), (d, 0.0))
    return y * dy


NESTED_CASES = {
    "mooncake_ast.rules.nested_guarded.guarded_fcall": [Case(guarded_fcall_case, 0.4, 1.3),
                                                         Case(guarded_fcall_raising_case, 0.4, 1.3)],
    "mooncake_ast.rules.nested_guarded.stop_fcall": [Case(stop_fcall_case, 0.4, 1.3)],
    "mooncake_ast.rules.nested_helpers.view_read": [Case(view_read_case, X3)],
    "mooncake_ast.rules.numpy_shapes.join_tangent": [Case(join_tangent_case, X3, X3 * 2.0)],
    # (mc.jacfwd / jacrev / hessian called inside differentiated code: their results' derivatives, as mc.grad's)
    "mooncake_ast.higher.jacfwd": [Case(jacfwd_factory_case, X3)],
    "mooncake_ast.higher.jacrev": [Case(jacrev_factory_case, X3)],
    "mooncake_ast.higher.hessian": [Case(hessian_factory_case, X3)],
    "mooncake_ast.higher.hvp": [Case(hvp_inside_case, X3)],
    "mooncake_ast.rules.nested_helpers.method_tangent_fwd": [Case(method_tangent_case, X3, X3 * 2.0)],
    "mooncake_ast.rules.nested_helpers.with_dense_tangent": [Case(with_dense_tangent_case, 0.4, 1.3)],
    "mooncake_ast.rules.nested_helpers.new_object": [Case(new_objects_case, 0.4)],
    "mooncake_ast.rules.nested_helpers.new_tangent": [Case(new_objects_case, 0.4)],
    "mooncake_ast.rules.nested_helpers.zero_storage": [Case(storage_case, 0.4)],
    "mooncake_ast.rules.nested_closures_third.new_cell_fwd": [Case(new_cells_case, 0.4)],
    "mooncake_ast.rules.nested_helpers.result_storage": [Case(storage_case, 0.4)],
    "mooncake_ast.rules.nested_plans.plan_args": [Case(plan_args_case, 0.4, 1.3)],
    "mooncake_ast.rules.nested_plans.plan_tangents": [Case(plan_tangents_case, 0.4, 1.3)],
    "mooncake_ast.rules.operator_rules.index_tangent": [Case(index_tangent_case, 0.4)],
    # (added to the cases of rule_cases_api.py: the twins of update, item_storage and getattr_tangent)
    "mooncake_ast.rules.registry.update": [Case(update_write_case, X3, 0.7), Case(update_replace_case, 0.4, 1.3)],
    "mooncake_ast.forward.transform.item_storage": [Case(item_storage_of_view_case, X3)],
    "mooncake_ast.rules.builtin_attributes.getattr_tangent": [Case(getattr_field_case, X3)],
}


def plan_function_case(x):
    return x * (1.0 if plan_function(operator.mul, NoTangent, (x, 2.0), (1.0, 0.0), None) is not None else 2.0)


def next_method_case(x):
    from mooncake_ast.rules.nested_iteration import next_method

    return x * (1.0 if next_method(iter([1.0])) is None else 2.0)


def drained_case(x):
    from mooncake_ast.rules.nested_iteration import mark_drained, refuse_if_drained

    it = iter([x])
    refuse_if_drained(it)
    mark_drained(it)
    return x * 2.0


NESTED_ZERO_CASES = {
    "mooncake_ast.rules.nested_iteration.next_method": Case(next_method_case, 0.4),
    "mooncake_ast.rules.nested_iteration.mark_drained": Case(drained_case, 0.4),
    "mooncake_ast.rules.nested_iteration.refuse_if_drained": Case(drained_case, 0.4),
    "mooncake_ast.rules.numpy_reductions._first_extremum": Case(first_extremum_case, X3),
    "mooncake_ast.rules.nested_plans.plan_function": Case(plan_function_case, 0.4),
}
