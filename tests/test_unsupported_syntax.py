"""Every construct the frontend rejects gives UnsupportedSyntaxError naming file:line:column, with the line and a caret."""
import inspect

import pytest

import mooncake_ast as mc
from mooncake_ast.frontend.statements import lower_function


def uses_yield_from(x):
    # (`yield from` as a statement is lowered, and a class reading no variable: tests/test_lang15_constructs.py)
    v = yield from [x * 2]
    yield v


async def uses_async(x):
    return x


def uses_try_star(x):
    try:
        y = 1.0 / x
    except* ZeroDivisionError:
        y = 0.0
    return y


def uses_class(x):
    class Box:
        v = x
    return Box.v


def uses_await_in_lambda(x):
    return (lambda: (yield x))


# `global`, `with`, `match` and `raise ... from` are lowered now: tests/test_language_match_with.py;
# `try` and generators: tests/test_language_generators_try.py; `del name`: tests/test_del_locals.py.
CASES = [
    (uses_yield_from, "yield from", "v = yield from [x * 2]"),
    (uses_async, "async", "async def uses_async(x):"),
    (uses_try_star, "try/except*", "try:"),
]


@pytest.mark.parametrize("run", [lambda f: mc.grad(f)(1.5), lambda f: mc.jvp(f, (1.5,), (1.0,))],
                         ids=["reverse", "forward"])
def test_class_body_reading_a_derivative_is_refused_when_it_runs(run):
    """A local class is lowered now (tests/test_local_class_captures.py); its body reading a value that carries a
    derivative (a class attribute made from x) is refused by name when the code runs."""
    with pytest.raises(mc.errors.UnsupportedDerivativeError, match="class Box"):
        run(uses_class)


@pytest.mark.parametrize("fn,what,line_text", CASES, ids=[c[0].__name__ for c in CASES])
def test_rejected_with_location(fn, what, line_text):
    with pytest.raises(mc.UnsupportedSyntaxError) as info:
        lower_function(fn)
    err = info.value
    assert what.lower() in str(err).lower()
    assert err.file == __file__
    src, first = inspect.getsourcelines(fn)
    offset = next(i for i, l in enumerate(src) if line_text in l)
    assert err.line == first + offset
    assert err.text.strip() == line_text
    # file:line:column header, the line, and a caret under the column
    header, shown, caret = str(err).split("\n")
    assert header.startswith(f"{__file__}:{err.line}:{err.col + 1}: unsupported syntax")
    assert caret.index("^") - 4 == err.col
    assert shown[4:].strip() == line_text


def test_jvp_reports_unsupported_syntax_not_a_crash():
    with pytest.raises(mc.UnsupportedSyntaxError):
        mc.jvp(uses_try_star, (2.0,), (1.0,))


def test_missing_rule_names_the_callable_and_how_to_register():
    import numpy as np

    mul = np.frompyfunc(lambda a, b: a * b, 2, 1)

    def f(x):  # (a frompyfunc ufunc's accumulate: a callable without source that has no rule yet)
        return np.asarray(mul.accumulate(x), dtype=float).sum()

    with pytest.raises(mc.MissingRuleError) as info:
        mc.jvp(f, (np.ones(4),), (np.ones(4),))
    msg = str(info.value)
    assert "accumulate" in msg
    assert "mooncake_ast.frule" in msg and "zero_derivative" in msg
