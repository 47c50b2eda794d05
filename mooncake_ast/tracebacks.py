"""Exceptions at the public API's edge, as the user should see them.

An exception raised while a derivative runs passes through the library's own frames and through
generated modules in the cache, whose file names are hashes.  None of that is the user's business:
at each public entry point (`grad`, `jvp`, `vjp`, `jacrev`, ...) the exception's traceback is
rewritten so that

* frames of the mooncake_ast package are left out (the entry point's own `raise` stays: Python adds it);
* a frame of a generated module becomes a frame at the user's file:line that the generated lines
  come from (each group of generated lines carries a `# file.py:12  text` comment, and the module's
  key header names the source file), so the traceback prints the user's line, and `pdb.pm()` lands
  in a frame that holds the generated frame's local variables;
* every other frame (the user's own, NumPy's) is kept.

The exception's type and message are unchanged, except for errors that are the library's own fault
(an AssertionError or RuntimeError raised inside the package, or a non-MooncakeError class of the
package): those become `InternalError`, a MooncakeError that names the user's line and says to
report it, with the original chained as its cause.

`MOONCAKE_AST_FULL_TRACEBACKS=1` turns the rewriting off (for work on mooncake_ast itself).
"""
from __future__ import annotations

import functools
import json
import linecache
import os
import re
import sys
import types
from typing import Any, Callable, Optional

from .errors import (CallArgumentsError, MissingRuleError, MooncakeError, NotCallableError, SourceUnavailableError,
                     generated_location, no_source_message)

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_COMMENT = re.compile(r"\s*# (?:grad of )?(\S+):(\d+)(?:\s|$)")  # (any file name: IPython's `<ipython-input-1-...>`)
_HEADER_DEF = re.compile(r"# .* of ([\w.<>]+) \((\S+):(\d+)\)")
_SUFFIX = re.compile(r"^(.+?)__(forward|pullback|jvp|vjp|batched)\w*$")
_MARK = "_mooncake_ast_user_error_"


class InternalError(MooncakeError):
    """A failure inside mooncake_ast that is not the user's doing (a bug): report it with the function.

    The original exception, with its full traceback, is chained as `__cause__`."""


def _full() -> bool:
    return os.environ.get("MOONCAKE_AST_FULL_TRACEBACKS", "") not in ("", "0")


def _is_library(filename: str) -> bool:
    return os.path.abspath(filename).startswith(_PACKAGE_DIR)


def _generated_source(filename: str) -> Optional[str]:
    """The user's source file a generated module was made from (from its key header), '' if the header
    does not say, None if `filename` is not a generated module."""
    first = linecache.getline(filename, 1)
    if not first.startswith("# mooncake_ast-key"):
        return None
    try:
        meta = json.loads(first.split(" ", 3)[3])
        src = meta.get("source") or ""
        return src.rsplit(":", 1)[0] if ":" in src else src
    except (IndexError, ValueError, AttributeError):
        return ""


def _user_line(filename: str, lineno: int, module_file: Optional[str] = None) -> Optional[tuple]:
    """(file, line) of the user's code that line `lineno` of generated module `filename` comes from.

    The comments name the file by its base name; the full path is the key header's source, else
    `module_file` (the `__file__` of the globals the generated code runs in: the user's module)."""
    src = _generated_source(filename) or module_file or ""
    header = None
    for n in range(1, 8):
        m = _HEADER_DEF.match(linecache.getline(filename, n))
        if m:
            header = (_resolve(m.group(2), src), int(m.group(3)))
            break
    for n in range(lineno, 0, -1):
        m = _COMMENT.match(linecache.getline(filename, n))
        if m:
            return _same_statement(filename, lineno, _resolve(m.group(1), src), int(m.group(2)), header)
    if header is not None:
        return _same_statement(filename, lineno, header[0], header[1], header)
    return None


_LITERAL = re.compile(r"""(['"])((?:\\.|(?!\1).)*)\1""")


def _same_statement(filename: str, lineno: int, user_file: str, user_line: int, header: Optional[tuple]) -> tuple:
    """A `raise` (also an `assert`, emitted as `raise _mc.assert_failed(...)`) is emitted without a comment of
    its own when it is the only statement of a branch: the nearest comment above then names another line
    (the branch's condition, or the other branch's last statement).  The user's line is then the line of
    that keyword in the function (`header`: the def's file and line) nearest after the comment's line
    (else before it), preferring one whose text holds the message."""
    text = linecache.getline(filename, lineno)
    word = text.split(None, 1)[:1]
    if not word or word[0] not in ("raise", "assert"):
        return user_file, user_line
    word = "assert" if "assert_failed(" in text else word[0]
    if linecache.getline(user_file, user_line).split(None, 1)[:1] == [word]:
        return user_file, user_line
    first = header[1] if header is not None and header[0] == user_file else max(1, user_line - 60)
    lines = [n for n in _function_lines(user_file, first, user_line + 60)
             if re.match(rf"\s*{word}\b", linecache.getline(user_file, n))]
    if not lines:
        return user_file, user_line
    messages = [m.group(2) for m in _LITERAL.finditer(text)]
    said = [n for n in lines if any(msg and msg in linecache.getline(user_file, n) for msg in messages)]
    pool = said or lines
    after = [n for n in pool if n > user_line]
    return user_file, (min(after) if after else max(pool))


def _function_lines(user_file: str, first: int, last: int) -> list:
    """Line numbers from `first` (a def line) while they stay inside that function's body (at most to `last`)."""
    head = linecache.getline(user_file, first)
    indent = len(head) - len(head.lstrip())
    out = []
    for n in range(first + 1, last + 1):
        t = linecache.getline(user_file, n)
        if not t:
            break
        if t.strip() and not t.lstrip().startswith("#") and len(t) - len(t.lstrip()) <= indent \
                and head.lstrip().startswith(("def ", "async def ")):
            break
        out.append(n)
    return out


def _resolve(shown: str, src: str) -> str:
    return src if src and os.path.basename(src) == os.path.basename(shown) else shown


def _user_name(code_name: str, filename: str = "") -> str:
    """The user's function name of generated function `code_name` (`f__forward` -> `f`; a lambda's, whose
    generated name is `lambda___forward`, from the module's header)."""
    m = _SUFFIX.match(code_name)
    name = m.group(1) if m else code_name
    if name == "lambda_" and filename:
        for n in range(1, 8):
            h = _HEADER_DEF.match(linecache.getline(filename, n))
            if h and h.group(1).endswith("<lambda>"):
                return "<lambda>"
    return name


def user_location(frames: list) -> Optional[str]:
    """`file.py:12  text` of the user's line that the innermost generated-code frame among `frames` (FrameSummary
    objects, innermost last: traceback.extract_tb / extract_stack) runs, mapped through generated code made from
    generated code (second derivatives); frames of derivatives of the library's own Python are passed over."""
    for fs in reversed(frames):
        src = _generated_source(fs.filename)
        if src is None or (src and _is_library(src)):
            continue
        where = _user_line(fs.filename, fs.lineno or 1)
        for _ in range(4):
            if where is None or _generated_source(where[0]) is None:
                break
            where = _user_line(*where)
        if where is None or _is_library(where[0]) or _generated_source(where[0]) is not None:
            return None
        text = linecache.getline(where[0], where[1]).strip() or _comment_text(fs.filename, fs.lineno or 1)
        return f"{os.path.basename(where[0])}:{where[1]}  {text}"
    return None


_VIA = re.compile(r"in (\S+), called at (\S+):(\d+)")


def _inline_chain(filename: str, lineno: Optional[int]) -> list:
    """[(callee, file, line of its call), ...], outermost call first, of the code put in line (reverse/inline.py)
    that line `lineno` of generated module `filename` runs: its comment ends `[in helper, called at f.py:12]`."""
    if lineno is None:
        return []
    for n in range(lineno, 0, -1):
        line = linecache.getline(filename, n)
        if _COMMENT.match(line):
            tail = line.rstrip()
            if not tail.endswith("]") or "  [in " not in tail:
                return []
            return [(m.group(1), m.group(2), int(m.group(3)))
                    for m in _VIA.finditer(tail[tail.rindex("  [in ") + 3:-1])]
    return []


def _comment_text(filename: str, lineno: int) -> str:
    """The source text the nearest `# file.py:12  text` comment above `lineno` of a generated module quotes
    (for a user file linecache cannot read any more)."""
    for n in range(lineno, 0, -1):
        line = linecache.getline(filename, n)
        m = _COMMENT.match(line)
        if m:
            return line[m.end():].strip()
    return ""


def _fake_frame(filename: str, lineno: int, name: str, local_vars: dict) -> Optional[types.TracebackType]:
    """A traceback entry whose frame runs `name` at `filename:lineno` (compiled to raise there), so that
    tracebacks print the user's line; its locals are those of the generated frame it stands for."""
    text = linecache.getline(filename, lineno)
    stripped = text.strip()
    indent = len(text) - len(text.lstrip()) if stripped else 0
    mark = next(m for m in ("_mcE", "_mcE_", "_mcE__", _MARK) if m not in local_vars)
    body = f"raise ({mark})"
    if len(stripped) > len(body):  # span the whole line, so that no caret marks a part of it
        body = f"raise ({mark}{' ' * (len(stripped) - len(body))})"
    if indent and lineno > 1:
        code_text = "\n" * (lineno - 2) + "if 1:\n" + " " * indent + body
    else:
        code_text = "\n" * (lineno - 1) + body
    try:
        code = compile(code_text, filename, "exec")
        code = code.replace(co_name=name)
        if sys.version_info >= (3, 11):
            code = code.replace(co_qualname=name)
        marker = _Marker()
        local_vars = dict(local_vars)
        local_vars[mark] = marker
        exec(code, {"__name__": "__mooncake_ast_user_frame__"}, local_vars)
    except _Marker:
        tb = sys.exc_info()[2]
        return tb.tb_next if tb is not None else None
    except Exception:
        return None
    return None


class _Marker(Exception):
    pass


def _entries(tb: Optional[types.TracebackType]) -> list:
    """The traceback's entries for the user: (frame, lasti, lineno) kept, or a fake entry."""
    out: list = []
    while tb is not None:
        frame, filename = tb.tb_frame, tb.tb_frame.f_code.co_filename
        if _generated_source(filename) is not None:
            module_file = frame.f_globals.get("__file__")
            where = _user_line(filename, tb.tb_lineno, module_file if isinstance(module_file, str) else None)
            named_by, named_line = filename, tb.tb_lineno
            for _ in range(4):  # a derivative of generated code (hessian): map through to the user's line
                if where is None or _generated_source(where[0]) is None:
                    break
                named_by, named_line = where[0], where[1]
                where = _user_line(*where, module_file if isinstance(module_file, str) else None)
            if where is not None and not _is_library(where[0]):  # (not code of the library it derived itself)
                name = _user_name(frame.f_code.co_name, named_by)
                src = _generated_source(named_by) or (module_file if isinstance(module_file, str) else "") or ""
                for called, file, line in _inline_chain(named_by, named_line):
                    # (code put in line, reverse/inline.py: the caller's frame at the call, then the callee's)
                    fake = _fake_frame(_resolve(file, src), line, name, frame.f_locals)
                    if fake is not None:
                        out.append((fake.tb_frame, fake.tb_lasti, fake.tb_lineno))
                    name = called
                fake = _fake_frame(where[0], where[1], name, frame.f_locals)
                if fake is not None:
                    out.append((fake.tb_frame, fake.tb_lasti, fake.tb_lineno))
        elif not _is_library(filename):
            out.append((frame, tb.tb_lasti, tb.tb_lineno))
        tb = tb.tb_next
    return out


def _rebuilt(entries: list) -> Optional[types.TracebackType]:
    tb = None
    for frame, lasti, lineno in reversed(entries):
        tb = types.TracebackType(tb, frame, lasti, lineno)
    return tb


def _innermost_is_library(tb: Optional[types.TracebackType]) -> bool:
    last = None
    while tb is not None:
        last, tb = tb, tb.tb_next
    return last is not None and _is_library(last.tb_frame.f_code.co_filename) \
        and _generated_source(last.tb_frame.f_code.co_filename) is None


def _is_internal(e: BaseException) -> bool:
    if isinstance(e, MooncakeError) or not isinstance(e, Exception):
        return False
    if type(e).__module__.startswith("mooncake_ast"):
        return True  # the package's own non-user exception classes (IRError, ...)
    if isinstance(e, RecursionError):
        return False
    return isinstance(e, (AssertionError, RuntimeError)) and _innermost_is_library(e.__traceback__)


def _no_source(e: MissingRuleError) -> Optional[SourceUnavailableError]:
    why = getattr(e, "why", None) or ""
    if not why.startswith("no Python source"):
        return None
    fn = getattr(e, "fn", None)
    file = getattr(getattr(fn, "__code__", None), "co_filename", "?")
    err = SourceUnavailableError(no_source_message(fn, file), fn)
    return err


def _not_callable(e: MissingRuleError) -> Optional[NotCallableError]:
    """"no rule for 3" of a call of something that is not callable: what Python would say, as a MooncakeError."""
    fn = getattr(e, "fn", None)
    if callable(fn):
        return None
    shown = repr(fn)
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    return NotCallableError(f"{shown} (of type {type(fn).__name__}) is not callable: a function to differentiate, or one "
                            f"that your code calls, must be a function, not its value")


def _bad_arguments(e: TypeError) -> Optional[CallArgumentsError]:
    """A TypeError of binding a call's arguments to a function's signature inside the library (too few,
    too many, an unknown keyword): as a CallArgumentsError that names the function and its signature."""
    tb, binder = e.__traceback__, None
    while tb is not None:
        code = tb.tb_frame.f_code
        if _is_library(code.co_filename) and "fn" in tb.tb_frame.f_locals and code.co_name == "bind":
            binder = tb.tb_frame.f_locals["fn"]
        last, tb = tb, tb.tb_next
    if binder is None or not last.tb_frame.f_code.co_filename.endswith("inspect.py"):
        return None
    import inspect

    name = getattr(binder, "__qualname__", None) or repr(binder)
    try:
        sig = f"{name}{inspect.signature(binder)}"
    except (TypeError, ValueError):
        sig = name
    return CallArgumentsError(f"{name}() called with arguments that do not fit its signature {sig}: {e}")


def for_user(e: BaseException) -> BaseException:
    """The exception to raise in place of `e` at a public entry point: `e` itself with the user's
    traceback (see the module docstring), or an InternalError / SourceUnavailableError /
    NotCallableError / CallArgumentsError made from it."""
    if _full() or not isinstance(e, Exception):
        return e
    replaced: Optional[MooncakeError] = None
    if isinstance(e, MissingRuleError) and not isinstance(e, SourceUnavailableError):
        replaced = _not_callable(e)
    elif type(e) is TypeError:
        replaced = _bad_arguments(e)
    if replaced is not None:
        replaced.__cause__, replaced.__suppress_context__ = None, True
        entries = _entries(e.__traceback__)
        if isinstance(replaced, CallArgumentsError):  # (the binding's own frames are not the user's business)
            entries = [en for en in entries if not en[0].f_code.co_filename.endswith(os.sep + "inspect.py")]
        return replaced.with_traceback(_rebuilt(entries))
    if isinstance(e, MissingRuleError) and not isinstance(e, SourceUnavailableError):
        replaced = _no_source(e)
        if replaced is not None:
            replaced.__cause__, replaced.__suppress_context__ = None, True
            return replaced.with_traceback(_rebuilt(_entries(e.__traceback__)))
    if _is_internal(e):
        where = generated_location(e.__traceback__)
        err = InternalError(
            f"{'while differentiating ' + where + ': ' if where else ''}mooncake_ast failed inside "
            f"({type(e).__name__}: {e}). This is a bug in mooncake_ast, not in your code: please report it with "
            f"the function; the chained exception above has the full traceback. Writing the line differently, or "
            f"registering a rule for the function with @mc.frule / @mc.rrule, may avoid it")
        err.__cause__ = e
        return err.with_traceback(_rebuilt(_entries(e.__traceback__)))
    return e.with_traceback(_rebuilt(_entries(e.__traceback__)))


def user_errors(fn: Callable) -> Callable:
    """Decorator for public entry points that are not on a hot path: exceptions leave with `for_user`."""

    @functools.wraps(fn)
    def entry(*args: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True  # noqa: F841  (pytest)
        try:
            return fn(*args, **kwargs)
        except Exception as e:
            raise for_user(e)
    return entry
