"""Issue 9: small helpers of the function's own module and methods of objects it makes are differentiated in line
(reverse/inline.py), so their pullbacks are plain; the near misses stay calls, and every derivative is right."""
import importlib
import sys
import textwrap

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives
from tests import inline_cases as c


def _code(src):
    """The generated module without its machine header lines (`# mooncake_ast-key: ...`, whose library record names
    the library's files: `supercalls.py` holds "rcall")."""
    return "\n".join(line for line in src.splitlines() if not line.startswith("# mooncake_ast-"))

R = np.random.default_rng(41)
W, B, X = R.normal(size=(3, 3)) / 2, R.normal(size=3), R.normal(size=3)

CASES = [
    (c.two_layers, (W, B, W.T.copy(), X)),
    (c.defaults_and_keywords, (0.7, -0.4)),
    (c.euler, (X, 0.8)),
    (c.branch_in_helper, (0.4, 0.3)),
    (c.early_return, (1.3,)),
    (c.recursive, (0.9,)),
    (c.reads_global, (0.6,)),
    (c.helper_writes_argument, (X, 1.7)),
    (c.tuple_result, (X,)),
    (c.returns_parameter, (X,)),
    (c.helper_of_helper, (X,)),
    (c.other_module, (X,)),
    (c.call_in_loop_test, (0.9,)),
    (c.layer_method, (W, B, X)),
    (c.body_steps, (1.0, 0.2, 2.0)),
    (c.array_field_written, (X, B)),
    (c.array_field_aliased, (X, 0.3)),
    (c.lambdas_and_math, (0.7, 0.3)),
    (c.closure_writes, (0.8,)),
    (c.two_lambdas_one_line, (0.6,)),
    (c.factory, (0.6, 1.1)),
    (c.keyword_only, (0.6, -0.3)),
    (c.constant_flags, (0.6,)),
    (c.callable_object, (W, B, X)),
    (c.callable_object_kept, (W, B, X)),
    (c.field_shadows_method, (0.7,)),
    (c.method_replaced, (0.7,)),
    (c.rebinds_helper, (0.7,)),
    (c.particle_loop, (1.5, X)),
    (c.field_overwritten_unread, (0.6, X)),
    (c.field_resized, (0.6, X)),
    (c.object_per_trip, (0.6, X)),
    (c.param_named_like_a_global, (3.0,)),  # (a helper's global read would be the caller's variable: stays a call)
    (c.param_named_np, (0.5,)),
    (c.global_named_like_a_helpers_local, (0.5,)),
    (c.star_calls, (0.6, -0.4, 1.2)),
    (c.star_call_of_mutated_dict, (0.6, -0.4)),
    (c.star_call_repeated_keyword, (0.6,)),
    (c.keyword_options, (0.6, -0.4)),
    (c.dict_changed_or_missing, (0.6, -0.4)),
    (c.repeated_keys, (0.6, -0.4)),
]


@pytest.mark.parametrize("fn,args", CASES, ids=[f.__name__ for f, _ in CASES])
def test_inlined_calls(fn, args):
    check_derivatives(fn, *args)


@pytest.mark.parametrize("fn,args", [(c.two_layers, (W, B, W.T.copy(), X)), (c.layer_method, (W, B, X)),
                                     (c.euler, (X, 0.8)), (c.tuple_result, (X,)), (c.lambdas_and_math, (0.7, 0.3)),
                                     (c.factory, (0.6, 1.1)), (c.keyword_only, (0.6, -0.3)), (c.constant_flags, (0.6,)),
                                     (c.callable_object, (W, B, X)), (c.keyword_options, (0.6, -0.4)),
                                     (c.repeated_keys, (0.6, -0.4))])
def test_inlined_pullbacks_are_plain(fn, args):
    mc.vjp(fn, *args)
    src = _code(mc.source(fn, "reverse"))
    assert "rcall" not in src and "_mc.acc(" not in src and "getattr_reverse" not in src, src


def test_star_calls_are_put_in_line():
    mc.vjp(c.star_calls, 0.6, -0.4, 1.2)
    src = _code(mc.source(c.star_calls, "reverse"))
    assert "rcall" not in src and "apply" not in src, src


@pytest.mark.parametrize("fn,args", [(c.early_return, (1.3,)), (c.recursive, (0.9,)), (c.other_module, (X,)),
                                     (c.star_call_of_mutated_dict, (0.6, -0.4))])
def test_near_misses_stay_calls(fn, args):
    mc.vjp(fn, *args)
    assert "rcall" in _code(mc.source(fn, "reverse"))


def test_rebinding_or_editing_a_helper_rederives(tmp_path, monkeypatch):
    """The derivative depends on the inlined helper: a new binding of its name, or new code, is seen."""
    src = textwrap.dedent("""
        def helper(x):
            return x * x

        def f(x):
            return helper(x) + 1.0
    """)
    (tmp_path / "inl_mod.py").write_text(src)
    monkeypatch.syspath_prepend(str(tmp_path))
    mod = importlib.import_module("inl_mod")
    assert mc.grad(mod.f)(3.0) == pytest.approx(6.0)
    mod.helper = lambda x: x * x * x
    assert mc.grad(mod.f)(3.0) == pytest.approx(27.0)
    (tmp_path / "inl_mod.py").write_text(src.replace("return x * x", "return 5.0 * x"))
    sys.modules.pop("inl_mod")
    importlib.invalidate_caches()
    mod = importlib.import_module("inl_mod")
    assert mc.grad(mod.f)(3.0) == pytest.approx(5.0)


def test_an_error_in_code_put_in_line_shows_every_frame():
    """math.log of a negative number two helpers down: the traceback shows the caller's call, the first helper's
    call and the second helper's line, each under its own function's name (Loc.via, tracebacks._inline_chain)."""
    import inspect
    import traceback

    with pytest.raises(ValueError, match="math domain error") as info:
        mc.grad(c.error_in_helper)(-1.0)
    frames = [(f.name, f.lineno) for f in traceback.extract_tb(info.value.__traceback__) if f.filename == c.__file__]
    lines, start = inspect.getsourcelines(c)
    where = {text.strip(): n + 1 for n, text in enumerate(lines)}
    assert frames[-3:] == [("error_in_helper", where["return _outer_logged(y)"]),
                           ("_outer_logged", where["return _logged(v + 1.0) + v"]),
                           ("_logged", where["return math.log(v) * 2.0"])], frames
    mc.vjp(c.error_in_helper, 2.0)
    assert "  [in _outer_logged, called at inline_cases.py:" in _code(mc.source(c.error_in_helper, "reverse"))


def test_array_fields_in_a_loop_are_plain():
    """A particle whose `step` writes its array fields in a loop: each field's adjoint is an array from the
    pullback's entry on (object_fields.start_dense), so what reads it is plain NumPy, not `_mc.add_vjp`."""
    mc.vjp(c.particle_loop, 1.5, X)
    src = _code(mc.source(c.particle_loop, "reverse"))
    pullback = src[src.index("def particle_loop__pullback"):]
    assert "_mc." not in pullback.split("def particle_loop__forward_tape")[0], pullback
