"""Generated code whose names clash with the user's: parameters named like tangents.

`def g(a, b, da, db)` with b's tangent never read gave the forward module two parameters named `db` (a
SyntaxError): names are shared by values never live together, and an unread parameter is never live. Every
parameter now has a name of its own, in both modes."""
import numpy as np

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives


def tangent_named_parameters(a, b, da, db):
    k = int(b)
    return a ** k + da * db


def adjoint_named_parameters(x, x_bar, out_bar):
    return np.sum(x * x_bar) + out_bar * np.sum(x)


def test_parameters_named_like_tangents_both_modes():
    check_derivatives(tangent_named_parameters, 0.5, 2, 0.1, 0.2)
    _, dy = mc.jvp(tangent_named_parameters, (0.5, 2, 0.1, 0.2), (1.0, None, 1.0, 1.0))
    assert np.isclose(dy, 2 * 0.5 + 0.2 + 0.1)


def test_parameters_named_like_adjoints_both_modes():
    check_derivatives(adjoint_named_parameters, np.array([0.5, -1.0]), np.array([2.0, 0.3]), 0.7)


def test_tape_slots_have_one_name_in_both_passes():
    """Issue 13: the forward pass packs `tape = (xs, stack, stack_2, ...)` and the pullback unpacks the same names
    (it said `stack_3` for the forward's `stack_2` when a name in between was taken)."""
    import re

    from tests.corpus import all_cases

    checked = 0
    for case in all_cases():
        if not case.name.startswith(("control.", "scalar.")):
            continue
        mc.vjp(case.fn, *case.args())
        src = mc.source(case.fn, "reverse")
        packed = re.findall(r"^    tape = \((.*)\)$", src, re.M)
        unpacked = re.findall(r"^    (.*) = tape$", src, re.M)
        if packed and unpacked:
            checked += 1
            assert [x.strip() for x in packed[0].split(",") if x.strip()] == \
                [x.strip() for x in unpacked[0].split(",") if x.strip()], case.name
    assert checked > 20
