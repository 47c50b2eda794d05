"""Every repro of issues 8 and 16, and realistic programs, checked against finite differences.

Each case (tests/issue_cases/*.py: CASES lists of (name, function, args)) goes through
`regress_cases.check_case`: check_derivatives in both modes, and, independently of the
library, every argument's reverse gradient and the forward tangent against central finite
differences, the primal value, and the state of arguments and result after the pullback.

A case that must be refused (a construct outside the documented language) is listed in
REFUSED with the error it must raise: a clear MooncakeError, never a number.
"""
import copy

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.forward.activity import GlobalWriteError

from issue_cases import closures, issue8, issue16, numpy_calls, objects, peers, realistic, storage
from regress_cases import check_case

MODULES = [issue8, issue16, peers, realistic, storage, objects, closures, numpy_calls]

# name -> the MooncakeError subclass the case must raise in both modes
REFUSED = {
    "14 module buf": GlobalWriteError,
}

# name -> why it still fails (strict: the test fails once it passes, so the list stays true)
KNOWN = {}


def _params():
    out = []
    for module in MODULES:
        for name, fn, args, *rest in module.CASES:
            if name in REFUSED:
                continue
            marks = [pytest.mark.xfail(strict=True, reason=KNOWN[name])] if name in KNOWN else []
            out.append(pytest.param(fn, args, id=f"{module.__name__.split('.')[-1]}: {name}", marks=marks))
    return out


@pytest.mark.parametrize("fn,args", _params())
def test_case_against_finite_differences(fn, args):
    check_case(fn, copy.deepcopy(args))


def _refused():
    for module in MODULES:
        for name, fn, args, *rest in module.CASES:
            if name in REFUSED:
                yield pytest.param(fn, args, REFUSED[name], id=name)


@pytest.mark.parametrize("fn,args,error", list(_refused()))
@pytest.mark.parametrize("mode", ["forward", "reverse"])
def test_case_refused_with_a_clear_error(fn, args, error, mode):
    with pytest.raises(error) as info:
        if mode == "forward":
            mc.jvp(fn, copy.deepcopy(args), tuple(np.ones_like(a) if isinstance(a, np.ndarray) else 1.0 for a in args))
        else:
            _, pullback = mc.vjp(fn, *copy.deepcopy(args))
            pullback(1.0)
    assert isinstance(info.value, mc.MooncakeError)
    assert f"{fn.__code__.co_filename}:" in str(info.value)  # names the user's file and line
