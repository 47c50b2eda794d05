"""Test inputs of the rules in mooncake_ast/rules/api_rules.py (issue 10: the API entry points and the
run-time helpers of generated forward code), merged into CASES / ZERO_CASES of tests/test_rules.py,
which checks each in both modes.  The functions are defs in this file, so their source is found."""
import numpy as np

import mooncake_ast as mc
from mooncake_ast.forward.runtime import conform, fcall, fit
from mooncake_ast.forward.state import module_tangent, untracked_store
from mooncake_ast.forward.transform import cell_tangent, fresh_storage, item_storage
from mooncake_ast.rules import helpers as h
from mooncake_ast.rules.api_rules import forward_code
from mooncake_ast.rules.numpy_creation import array_tangent, asarray_tangent
from mooncake_ast.rules.registry import update
from mooncake_ast.rules.builtin_attributes import getattr_tangent
from mooncake_ast.rules.builtin_displays import cell_tangent_get, storage_of
from mooncake_ast.rules.builtin_iteration import concat_tangent
from mooncake_ast.tangents import NoTangent, storage, zero_tangent

X3 = np.array([0.3, -0.7, 1.1])


class Case:
    """As test_rules.Case: the function, its arguments, the modes (default: the rule's), check options."""

    def __init__(self, fn, *args, modes=None, xfail=None, **check):
        self.fn, self.args, self.modes, self.xfail, self.check = fn, args, modes, xfail, check


def g(t):
    return np.sin(t) * t ** 3


GRAD_G = mc.grad(g)
VG_G = mc.value_and_grad(g)


class Obj:
    def __init__(self):
        self.a = 2.0


def jvp_of_g(x):
    return mc.jvp(g, (x,), (1.0,))[1] + mc.jvp(g, (x,), (0.5,))[0]


def fcall_of_g(x):
    y, dy = fcall(g, NoTangent, (x,), (1.0,))
    return y + dy


def grad_call(x):
    return GRAD_G(x) * x


def value_and_grad_call(x):
    v, d = VG_G(x)
    return v + d


def grad_factory(x):
    return mc.grad(g)(x)


def value_and_grad_factory(x):
    return mc.value_and_grad(g)(x)[1]


def pow_deriv_case(b, p):
    return h.pow_deriv(b, p)


def log_for_pow_case(b):
    return h.log_for_pow(b)


def storage_case(x, d):
    return storage(x, d) * 2.0


def storage_of_case(x, d):
    return storage_of(x, d) * 2.0


def conform_case(y, x, d):
    return conform(y, x, d) * y


def getattr_tangent_case(x):
    t = getattr_tangent(Obj(), NoTangent, "a", 2.0)
    return x * (1.0 if t is NoTangent else 3.0)


def concat_tangent_case(a, b):
    t = concat_tangent(((1.0,), (a,)), ((2.0, 3.0), (b, a)))
    return t[0] * t[1] + t[2]


def fit_case(v, d):
    return fit(v, d * 2.0) * v + fit(v, np.sum(d))  # (the tangent of a sum of an array and a number)


def fresh_storage_case(v, d):
    return fresh_storage(v, d) * v


def item_storage_case(c, d):
    return item_storage(c, d, 1, c[1]) * c[1]


def array_tangent_case(x, d):
    return np.sum(array_tangent(np.zeros(3), x, d) * x) + array_tangent(np.zeros(2), [x[0], x[1]], [d[0], d[1]])[1]


def asarray_tangent_case(x, d):
    return asarray_tangent(np.zeros(3), x, d) * 2.0


def update_case(x):
    # (update of tangent storage nothing differentiates: it runs; differentiated ones in rule_cases_nested.py)
    return x * float(np.sum(update(np.zeros(2), np.ones(2))))


API_CASES = {
    "mooncake_ast.api.jvp": [Case(jvp_of_g, 0.7)],
    "mooncake_ast.forward.runtime.fcall": [Case(fcall_of_g, 0.7)],
    "mooncake_ast.api.Grad.__call__": [Case(grad_call, 0.7)],
    "mooncake_ast.api.ValueAndGrad.__call__": [Case(value_and_grad_call, 0.7)],
    "mooncake_ast.api.grad": [Case(grad_factory, 0.7)],
    "mooncake_ast.api.value_and_grad": [Case(value_and_grad_factory, 0.7)],
    "mooncake_ast.rules.helpers.pow_deriv": [Case(pow_deriv_case, 1.3, 2.5), Case(pow_deriv_case, X3 + 1.5, 3.0)],
    "mooncake_ast.rules.helpers.log_for_pow": [Case(log_for_pow_case, 1.3), Case(log_for_pow_case, X3 + 1.5)],
    "mooncake_ast.tangents.storage": [Case(storage_case, X3, X3 * 2.0)],
    "mooncake_ast.rules.builtin_displays.storage_of": [Case(storage_of_case, X3, X3 * 2.0)],
    "mooncake_ast.forward.runtime.conform": [Case(conform_case, X3, X3 * 3.0, X3 - 1.0)],
    "mooncake_ast.forward.runtime.fit": [Case(fit_case, X3, X3 * 2.0)],
    "mooncake_ast.rules.builtin_attributes.getattr_tangent": [Case(getattr_tangent_case, 0.4)],
    "mooncake_ast.rules.builtin_iteration.concat_tangent": [Case(concat_tangent_case, 0.4, -1.2)],
    "mooncake_ast.forward.transform.fresh_storage": [Case(fresh_storage_case, X3, X3 * 2.0)],
    "mooncake_ast.forward.transform.item_storage": [Case(item_storage_case, X3, X3 * 2.0)],
    "mooncake_ast.rules.numpy_creation.array_tangent": [Case(array_tangent_case, X3, X3 * 2.0)],
    "mooncake_ast.rules.numpy_creation.asarray_tangent": [Case(asarray_tangent_case, X3, X3 * 2.0)],
    "mooncake_ast.rules.registry.update": [Case(update_case, 0.7)],
}


def sign_case(x):
    return h.sign(x) * x


def zero_tangent_case(x):
    return x * (1.0 if zero_tangent(x) is NoTangent else 2.0)


def forward_code_case(x):
    return x * (1.0 + 0.0 * len(forward_code(g, (x,), (1.0,))))


def cell_tangent_case(x):
    c = cell_tangent(NoTangent, 0)
    return x * (1.0 if cell_tangent_get(c) is NoTangent else 2.0)


API_CASES["mooncake_ast.rules.builtin_displays.cell_tangent_get"] = [Case(cell_tangent_case, 0.4)]  # (a rule both ways now)
API_CASES["mooncake_ast.forward.transform.cell_tangent"] = [Case(cell_tangent_case, 0.4)]  # (forward over forward: cells)


def vjp_inside(x):
    y, pb = mc.vjp(lambda z: np.sin(z) * z, x)
    return np.sum(pb(np.ones_like(y))[0] * x) + np.sum(y * y)


# (reverse mode over mc.vjp is refused by name: test_rules.test_reverse_over_vjp_is_refused)
API_CASES["mooncake_ast.api.vjp"] = [Case(vjp_inside, X3, modes=("forward",))]


_MODULE_STATE = [0.5]


def module_tangent_case(x):
    untracked_store(_MODULE_STATE, NoTangent)  # (nothing with a derivative written: no refusal)
    return x * (1.0 + 0.0 * len(module_tangent(_MODULE_STATE)))


API_ZERO_CASES = {
    "mooncake_ast.forward.state.module_tangent": Case(module_tangent_case, 0.4),
    "mooncake_ast.forward.state.untracked_store": Case(module_tangent_case, 0.4),
    "mooncake_ast.rules.helpers.sign": Case(sign_case, X3),
    "mooncake_ast.tangents.zero_tangent": Case(zero_tangent_case, 0.4),
    "mooncake_ast.rules.api_rules.forward_code": Case(forward_code_case, 0.4),
}
