"""Issue 12: what tracing into installed code meets is named by what the user's code called (library_errors.py):
an unsupported construct inside SciPy or the standard library is reported as `cannot differentiate
scipy.stats.linregress (through ...)`, with the construct, its file:line, and how to register a rule; calls of the
standard library's introspection (`inspect.signature(fn)` in SciPy's decorators) given nothing differentiable run
as they are instead of being traced."""
import inspect
import types

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.errors import ControlFlowError, UnsupportedSyntaxError
from mooncake_ast.ir.nodes import Loc
from mooncake_ast.library_errors import LibraryCodeError, in_library, public_name, runs_plainly


def test_a_construct_in_installed_code_names_the_callable_and_the_path():
    inner = ControlFlowError("L27 has several merge points", Loc(inspect.__file__, 259, 0, "if unwrap is not None:"))
    e = in_library(inspect.get_annotations, inner)
    assert isinstance(e, LibraryCodeError) and isinstance(e, mc.MooncakeError) and isinstance(e, NotImplementedError)
    outer = in_library(inspect.signature, e)
    text = str(outer)
    assert text.startswith("cannot differentiate inspect.signature (through inspect.get_annotations): ")
    assert f"{inspect.__file__}:259" in text and "several merge points" in text and "if unwrap is not None:" in text
    assert "@mc.rrule" in text and "@mc.frule" in text and "report it" not in text
    syntax = UnsupportedSyntaxError("`yield from`", inspect.__file__, 10, 4, "yield from xs")
    assert "cannot differentiate inspect.getmembers" in str(in_library(inspect.getmembers, syntax))


def test_errors_of_the_users_own_code_pass_unchanged():
    def mine(x):
        return x

    inner = ControlFlowError("L3 has several merge points")
    assert in_library(mine, inner) is None
    assert in_library(inspect.signature, ValueError("not ours")) is None
    assert not runs_plainly(mine) and runs_plainly(inspect.signature) and not runs_plainly(np.linspace)


def test_public_names():
    assert public_name(inspect.signature) == "inspect.signature"
    st = pytest.importorskip("scipy.stats")
    assert public_name(st.linregress.__wrapped__ if hasattr(st.linregress, "__wrapped__") else st.linregress) \
        .startswith("scipy.stats")


def test_scipy_decorators_introspection_is_not_traced():
    st = pytest.importorskip("scipy.stats")
    x = np.array([0.1, 0.5, 0.9, 1.3])
    y = np.array([0.2, 0.4, 1.1, 1.2])
    for run in (lambda: mc.grad(lambda y: st.linregress(x, y).slope)(y),
                lambda: mc.jvp(lambda y: st.linregress(x, y).slope, (y,), (y,))):
        try:
            run()
        except mc.MooncakeError as e:  # (the result class has no rule: said by its name, not inspect.py's line)
            assert "inspect.py" not in str(e) and "LinregressResult" in str(e), str(e)
