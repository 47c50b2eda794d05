"""Code nobody here wrote (tests/external, with origins): forward mode must never be silently wrong,
and must differentiate at least 80% of it (a clear error is acceptable for the rest)."""
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import DerivativeCheckError
from tests.external import all_cases

CASES = all_cases()


def _run(case, modes):
    try:
        mc.testing.check_derivatives(case.fn, *case.args(), modes=modes, **case.kwargs())
        return "ok"
    except DerivativeCheckError as e:
        return f"WRONG: {e}"
    except mc.MooncakeError as e:
        return f"error: {type(e).__name__}: {str(e).splitlines()[0]}"
    except Exception as e:  # anything else is a crash inside the library: reported, and fails the test
        return f"CRASH: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"


@pytest.mark.parametrize("mode", ["forward", "reverse"])
def test_external_code(mode):
    results = {c.name + f"#{i}": _run(c, (mode,)) for i, c in enumerate(CASES)}
    wrong = {k: v for k, v in results.items() if v.startswith("WRONG")}
    assert not wrong, wrong
    crashed = {k: v for k, v in results.items() if v.startswith("CRASH")}
    assert not crashed, crashed
    passed = sum(v == "ok" for v in results.values())
    rate = passed / len(results)
    print(f"{mode}: {passed}/{len(results)} = {rate:.0%}")
    assert rate >= 0.8, {k: v for k, v in results.items() if v != "ok"}
