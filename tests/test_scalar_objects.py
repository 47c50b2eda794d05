"""Objects replaced by their fields in reverse mode (reverse/scalar_objects.py): right derivatives in both modes
for objects that are replaced and for ones that must not be, and plain pullbacks where they are."""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives

from tests import scalar_object_cases as cases


def _code(src):
    """The generated module without its machine header lines (`# mooncake_ast-key: ...`, whose library record names
    the library's files: `supercalls.py` holds "rcall")."""
    return "\n".join(line for line in src.splitlines() if not line.startswith("# mooncake_ast-"))

ARGS = {
    "oscillator": (0.7, -0.3, 2.0),
    "branch_objects": (0.4, 1.3),
    "keyword_construction": (0.8, -0.6),
    "while_state": (0.9, 0.6),
    "array_fields": (np.array([0.2, -0.4, 0.9]), np.array([0.5, 0.1, -0.3])),
    "escapes_to_call": (0.3, 1.1),
    "escapes_by_write": (0.3, 1.1),
    "escapes_by_return": (0.3, 1.1),
    "method_in_line": (0.6, 0.9),
    "identity_compared": (0.3, 1.1),
    "projectile": (0.3, 1.2, 0.8, 0.1),
    "subclass_reflected": (0.3, 1.1),
    "guarded_add": (0.3, 1.1),
    "inplace_method": (0.3, 1.1),
    "array_operand": (np.array([0.5, -1.0]), 0.7),
    "written_fields": ([0.5, -1.2, 0.8], 1.3),
    "written_in_branch_only": (0.4, 1.1),
    "built_in_loop": (0.4, 1.1),
    "written_then_escapes": (0.4, 1.1),
    "property_and_static": (0.6, -0.8, 1.5),
    "property_setter": (0.6, -0.8, 1.5),
}


@pytest.mark.parametrize("fn", cases.ALL, ids=lambda f: f.__name__)
def test_derivatives_both_modes(fn):
    check_derivatives(fn, *ARGS[fn.__name__])


def test_branch_objects_other_branch():
    check_derivatives(cases.branch_objects, -0.4, 1.3)
    check_derivatives(cases.written_in_branch_only, -0.4, 6.0)


@pytest.mark.parametrize("name", ["oscillator", "branch_objects", "keyword_construction", "while_state",
                                  "method_in_line", "projectile", "written_fields", "built_in_loop", "property_and_static"])
def test_pullback_is_plain(name):
    fn = getattr(cases, name)
    mc.grad(fn)(*ARGS[name])
    src = _code(mc.source(fn, "reverse"))
    pullback = src[src.index("def " + name + "__pullback("):src.index("__forward_tape(") if "__forward_tape(" in src else None]
    assert "_mc." not in pullback, pullback
    assert "rcall" not in src[:src.index("def " + name + "__pullback(")]


def test_rebinding_the_class_rederives():
    """The class's name is a binding: a new class under the name is a new derivative, not the old one."""
    fn = cases.oscillator
    before = mc.grad(fn)(*ARGS["oscillator"])
    old = cases.State

    class Doubled:
        def __init__(self, x, v):
            self.x = 2.0 * x
            self.v = v
    try:
        cases.State = Doubled
        check_derivatives(fn, *ARGS["oscillator"])
        assert not np.allclose(mc.grad(fn)(*ARGS["oscillator"]), before)
    finally:
        cases.State = old


@pytest.mark.parametrize("name", ["branch_objects", "while_state", "keyword_construction"])
def test_forward_code_is_plain_too(name):
    """Forward mode runs the same passes but the inlining (reverse/plainer.py): objects only read are fields."""
    fn = getattr(cases, name)
    args = ARGS[name]
    mc.jvp(fn, args, tuple(1.0 if isinstance(a, float) else None for a in args))
    src = _code(mc.source(fn, "forward"))
    code = "\n".join(line for line in src[src.index(f"def {name}__jvp("):].splitlines()
                     if not line.strip().startswith("#"))
    assert "fcall" not in code and "getattr_tangent" not in code and "setattr" not in code, code
