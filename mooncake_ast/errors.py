"""Errors a user can act on: each names where, what, and what to do."""
from __future__ import annotations

from typing import Any, Optional


class MooncakeError(Exception):
    """Base class of every error mooncake_ast raises: `except mc.MooncakeError` catches them all.

    Each names the line of your code it is about (file:line) where there is one, and says what to do.
    Exceptions your own code raises while a derivative runs are not wrapped: they keep their type and
    message, and the traceback shows your lines.  A failure that is a bug of mooncake_ast itself is an
    InternalError (mooncake_ast.tracebacks), which asks you to report it.

    Besides the classes exported as mc.*, mooncake_ast.errors has NotCallableError (something that is not
    a function given to differentiate) and CallArgumentsError (a call whose arguments do not fit the
    function's signature); both are TypeErrors too, as the same mistakes without mooncake_ast are.

    Example:
        >>> def g(x):
        ...     return x * x
        >>> try:
        ...     mc.grad(g, argnums="x")(1.0)
        ... except mc.MooncakeError as e:       # every error of mooncake_ast
        ...     print(type(e).__name__)
        ArgnumsError
    """


class UnsupportedSyntaxError(MooncakeError):
    """Your function uses a construct mooncake_ast cannot differentiate (e.g. `yield from`, `async`,
    `try/except*`, an infinite generator): the message names file:line:column, shows the line with a
    caret under the construct, and says what to write instead.  Attributes: what, file, line, col, text.

    Example:
        >>> def gen_all(xs):
        ...     got = yield from xs   # (the value of `yield from`: what the sub-generator returns)
        ...     yield got
        >>> def total(x):
        ...     return sum(gen_all([x, 2.0 * x]))
        >>> try:
        ...     mc.grad(total)(1.0)
        ... except mc.UnsupportedSyntaxError as e:
        ...     print("yield from" in e.what, e.text.strip())
        True got = yield from xs   # (the value of `yield from`: what the sub-generator returns)
    """

    def __init__(self, what: str, file: str, line: int, col: int, text: str) -> None:
        self.what, self.file, self.line, self.col, self.text = what, file, line, col, text
        caret = " " * col + "^"
        advice = syntax_advice(what)
        self.advice = advice
        super().__init__(f"{file}:{line}:{col + 1}: unsupported syntax: {what}" + (f"; {advice}" if advice else "")
                         + f"\n    {text}\n    {caret}")


# What to write instead of each construct the frontend refuses (by the start of its description).
_SYNTAX_ADVICE = [
    ("try/except*", "exception groups are not differentiated: catch with a plain `except`, or check the "
                    "condition with an `if` before the operation that would fail"),
    ("try", "put the try/except around the call of mc.grad, or check the condition with an `if` before the "
            "operation that would fail"),
    ("yield", "yield each value as a statement (`for v in it: yield v`), or build and return a list of the values"),
    ("async", "differentiate a plain synchronous function: await the inputs first and pass them in"),
    ("await", "differentiate a plain synchronous function: await the inputs first and pass them in"),
    ("class definition", "define the class at module level and use it from the function"),
    ("del of a variable", "leave the name alone (it is freed when the function returns), or rebind it"),
    ("name ", "assign the variable on every path before it is read (e.g. `y = 0.0` before the `if`)"),
    ("assignment to", "compute the value into a variable, then store it with a plain assignment"),
    ("augmented assignment target", "write it as `target = target + value`"),
    ("relative or star import", "import at module level, by name"),
    ("starred subscript", "build the index as a tuple first: `idx = (*a, b)`, then `x[idx]`"),
    ("a generator returning a value", "yield the value as the last item, or return it from a plain function "
                                      "that builds a list of the items (`return items, value`)"),
    ("match pattern", "write the test as if/elif with isinstance() and comparisons"),
    ("or-pattern", "give each alternative its own `case`"),
    ("`**rest`", ""),
    ("expression", "write the expression with ordinary calls and operators"),
]


def syntax_advice(what: str) -> str:
    """What to write instead of an unsupported construct (described as the frontend describes it)."""
    for start, advice in _SYNTAX_ADVICE:
        if what.startswith(start):
            return advice
    return ""


class MissingRuleError(MooncakeError):
    """A callable with no rule and no Python source to differentiate (a C extension function, a NumPy
    function without a rule yet).  The message names the callable and how to register a rule:
    `@mc.frule(fn)` / `@mc.rrule(fn)`, or `mc.zero_derivative(fn)` if it is not differentiable.
    Attributes: fn, mode ("forward" / "reverse"), why.

    Example:
        >>> double = np.frompyfunc(lambda v: v * 2.0, 1, 1)   # a ufunc made at run time: its methods have no rule
        >>> def f(x):
        ...     return double.accumulate(x)[-1] + x[0]
        >>> try:
        ...     mc.grad(f)(np.ones(2))
        ... except mc.MissingRuleError as e:
        ...     print(type(e).__name__, e.fn.__name__)
        MissingRuleError accumulate
    """

    def __init__(self, fn: Any, mode: str = "forward", why: Optional[str] = None) -> None:
        name = qualified_name(fn)
        hint = (
            f"register one with @mooncake_ast.frule({name}) / @mooncake_ast.rrule({name}), "
            f"or mooncake_ast.zero_derivative({name}) if it is not differentiable"
        )
        msg = f"no {mode} rule for {name}" + (f" ({why})" if why else "") + f"; {hint}"
        super().__init__(msg)
        self.fn, self.mode, self.why = fn, mode, why


class UserRuleError(MooncakeError):
    """A rule registered with `mc.frule` / `mc.rrule` returned something of the wrong form (not a pair, or
    a pullback giving the wrong number of adjoints); names the rule's file:line and the form expected."""


class ControlFlowError(MooncakeError):
    """Control flow that mooncake_ast cannot turn back into structured Python (an internal limit).

    Names the user's file:line when the IR knows it, so the loop or branch can be found.
    """

    def __init__(self, what: str, loc: Any = None) -> None:
        self.what = what
        self.file = getattr(loc, "file", None)
        self.line = getattr(loc, "line", None)
        where = f"{self.file}:{self.line}: " if self.file else ""
        text = getattr(loc, "text", "") or ""
        shown = f"\n    {text}" if text else ""
        super().__init__(
            f"{where}cannot structure this control flow ({what}){shown}\n"
            "This is a limit of mooncake_ast, not an error in your code: please report it with the function; "
            "rewriting the loop or branch (e.g. with a flag variable) usually avoids it.")


def block_loc(block: Any) -> Any:
    """The source location of an IR block (its terminator's, else its first statement's), or None."""
    term = getattr(block, "term", None)
    if term is not None and getattr(term, "loc", None) is not None:
        return term.loc
    for s in getattr(block, "stmts", []):
        if getattr(s, "loc", None) is not None:
            return s.loc
    return None


class UnsupportedDerivativeError(MooncakeError, NotImplementedError):
    """A rule refuses an option or operand whose derivative it does not implement (never a guess);
    the message names the line of the user's code that made the call, and what to do instead.

    Example:
        >>> import contextlib
        >>> @contextlib.contextmanager
        ... def doubled(x):
        ...     yield 2.0 * x   # (a manager's generator runs as plain Python: the float it hands on has no derivative)
        >>> def w(x):
        ...     with doubled(x) as v:
        ...         return v * 2.0
        >>> try:
        ...     mc.grad(w)(1.0)
        ... except mc.UnsupportedDerivativeError as e:
        ...     print("before the `with` statement" in str(e))
        True
    """


def generated_location(tb: Any) -> Optional[str]:
    """`file.py:12  text` of the user's line that the innermost generated-code frame of `tb` runs
    (generated modules say, in a comment above each group of lines, which source line it comes from)."""
    import traceback

    from .tracebacks import user_location  # (the layer above: it maps generated frames to the user's lines)

    return user_location(traceback.extract_tb(tb))


class SourceUnavailableError(MissingRuleError):
    """The source of a Python function cannot be found: it was typed at a plain Python prompt, given to
    `python -c` or made by exec().  mooncake_ast differentiates a function by reading its source, so
    define it in a .py file, an IPython session or a Jupyter notebook (all of which keep the source), or
    register a rule for it (a MissingRuleError: no rule and no source).

    Example:
        >>> namespace = {}
        >>> exec("def h(x):\\n    return x * 3.0", namespace)   # exec keeps no source
        >>> try:
        ...     mc.grad(namespace["h"])(1.0)
        ... except mc.SourceUnavailableError as e:
        ...     print("Jupyter" in str(e))
        True
    """

    def __init__(self, msg: str, fn: Any = None) -> None:
        MooncakeError.__init__(self, msg)
        self.fn, self.mode, self.why = fn, None, msg


def no_source_message(fn: Any, file: str) -> str:
    """The message of a SourceUnavailableError for function `fn` defined in `file` (`<string>`, `<stdin>`...)."""
    name = getattr(fn, "__qualname__", None) or repr(fn)
    return (f"cannot differentiate {name}: its source code is not available ({file}); mooncake_ast differentiates "
            f"a function by reading its source, and a function typed at a plain Python prompt, given to `python -c` "
            f"or made by exec() has none: define it in a .py file, in IPython or in a Jupyter notebook (they keep "
            f"the source), or register one with @mc.frule / @mc.rrule (mc.zero_derivative if it is not "
            f"differentiable)")


def qualified_name(fn: Any) -> str:
    """`module.qualname` of a callable, or its repr if it has none."""
    import types

    self = getattr(fn, "__self__", None)
    if self is not None and not isinstance(self, (type, types.ModuleType)) and getattr(fn, "__name__", None):
        return f"{type(self).__module__}.{type(self).__qualname__}.{fn.__name__}"
    mod = getattr(fn, "__module__", None)
    qn = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None)
    if qn is None:
        return repr(fn)
    if mod in (None, "builtins"):
        return qn
    if mod == "numpy" or (isinstance(mod, str) and mod.startswith("numpy.")) and hasattr(fn, "nin"):
        return f"numpy.{qn}"
    return f"{mod}.{qn}"


class UnsupportedInputError(MooncakeError, TypeError):
    """An argument, tangent, cotangent or result of a type the rules do not model (a NumPy subclass such as
    np.matrix or a masked array, another library's array, a Fraction): refused, never differentiated wrongly;
    the message names the type, the place and the conversion to make."""


class NotCallableError(MooncakeError, TypeError):
    """What was given to differentiate is not callable (`mc.grad(f(x))` instead of `mc.grad(f)`, a rule
    registered for a number...): the message names what was given and what is expected."""


class CallArgumentsError(MooncakeError, TypeError):
    """A function was called, while a derivative ran, with arguments that do not fit its signature
    (too few, too many, an unknown keyword): the message names the function and its signature, as
    calling it directly would.  It is a TypeError, as that call's error is."""


def refuse_not_callable(f: Any, api: str, what: str = "a function to differentiate", hint: str = "") -> None:
    """A NotCallableError when `f` is not callable: `api` is the entry point (`mc.grad`), `what` the role
    of `f` there, `hint` what to do (default: pass the function, not its value)."""
    if callable(f):
        return
    shown = repr(f)
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    hint = hint or f"pass the function itself, e.g. {api}(f), not its value f(x)"
    raise NotCallableError(f"{api} needs {what}, got {shown} (of type {type(f).__name__}), which is not callable; {hint}")
