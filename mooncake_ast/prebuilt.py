"""Derivatives written ahead of time by `mooncake-ast generate`, found by the run-time dispatch.

A module that `mooncake-ast generate` writes holds the generic derivative of its function and of every
function, method, closure, lambda and callable object that derivative may reach (standalone_scan.py finds
them).  When it is imported, `register` installs them here, keyed by the code object of the function each
is the derivative of.  The run-time dispatch (`fcall` / `rcall` -> forward/runtime.derived_forward,
reverse/runtime.derived_rule) asks `forward_rule` / `reverse_rule` before it derives anything: so a call of
a method on an object, a closure, a function passed as an argument runs the derivative written in the
module, and nothing is derived (no libcst, no cache).

Only while the written module's own entry points run (`entry`): elsewhere in the same process mc.grad and
friends keep deriving their specialised rules, as if no module had been imported.  Where the written
module runs into a function it does not hold (one it could not know of when it was generated: a function
or an object of a class passed in by its caller), `missing` says which, where, and what to do: an error
without libcst, a warning (once) with it, after which it is derived as mc.grad derives it.

This module is imported by the written modules and by the run-time dispatch: it imports nothing heavy.
"""
from __future__ import annotations

import contextvars
import functools
import importlib
import linecache
import os
import sys
import types
from typing import Any, Callable, Optional

FORWARD: dict = {}  # id(code) -> ForwardRule
REVERSE: dict = {}  # id(code) -> ReverseRule
_ACTIVE: contextvars.ContextVar = contextvars.ContextVar("mooncake_ast_standalone", default=None)
REASONS: dict = {}  # (id(code), mode) -> (code, why it holds no derivative of it, whether deriving it failed)
_WARNED: set = set()


# ---------------------------------------------------------------- what the dispatch asks


class ForwardRule:
    """A forward derivative written ahead, as forward/runtime.DerivedForward is used: `fn`, `takes_self`."""

    def __init__(self, code: types.CodeType, fn: Callable, takes_self: bool, owner: str) -> None:
        self.code, self.fn, self.takes_self, self.owner = code, fn, takes_self, owner
        self.globals = fn.__globals__  # (the same code run in other globals is another function)
        self.bindings: dict = {}

    def stale(self, fn: Any) -> bool:
        """Outside the written module's entry points a cached reference to this rule is not to be used."""
        return _ACTIVE.get() is None

    def call_bound(self, fn: Any, dfn: Any, primals: tuple, tangents: tuple) -> tuple:
        if self.takes_self:
            if fn.__closure__ is not None:
                from .forward.state import closure_tangent

                dfn = closure_tangent(fn, dfn)
            return self.fn(fn, dfn, *primals, *tangents)
        return self.fn(*primals, *tangents)


class ReverseRule:
    """A reverse derivative written ahead, as reverse/runtime.DerivedReverse is used: `gen.forward`, ..."""

    def __init__(self, code: types.CodeType, forward: Callable, pullback: Callable, takes_self: bool,
                 reads_closure: bool, may_write: bool, owner: str) -> None:
        self.code, self.owner, self.globals = code, owner, forward.__globals__
        self.gen = types.SimpleNamespace(forward=forward, pullback=pullback, takes_self=takes_self,
                                         reads_closure=reads_closure, may_write=may_write, forward_tape=None,
                                         bindings={}, module=None, key="")

    def stale(self, fn: Any) -> bool:
        return _ACTIVE.get() is None


def forward_rule(fn: types.FunctionType) -> Optional[ForwardRule]:
    """The forward derivative of fn that a written module holds, while one runs (else None: derive)."""
    return _written(FORWARD, fn, "forward")


def reverse_rule(fn: types.FunctionType) -> Optional[ReverseRule]:
    """The reverse derivative of fn that a written module holds, while one runs (else None: derive)."""
    return _written(REVERSE, fn, "reverse")


def _written(table: dict, fn: types.FunctionType, mode: str) -> Any:
    owner = _ACTIVE.get()
    if owner is None:
        return None
    rule = table.get(id(fn.__code__))
    if rule is not None and rule.code is fn.__code__ and rule.globals is fn.__globals__:
        return rule
    missing(fn, mode, owner)
    return None


def missing(fn: types.FunctionType, mode: str, owner: str) -> None:
    """A written module reached a function it holds no derivative of: without libcst, an error that says
    which and what to do; with it, a warning (once per function), and the caller derives it."""
    code = fn.__code__
    where = f"{code.co_filename}:{code.co_firstlineno}"
    name = f"{getattr(fn, '__module__', None) or '?'}.{getattr(code, 'co_qualname', None) or fn.__qualname__}"
    if "<locals>" in fn.__qualname__:
        include = f"{code.co_filename}::{fn.__qualname__.split('.<locals>.')[0]}"
        hint = f"it is defined inside {fn.__qualname__.split('.<locals>.')[0]}: pass `--include {include}`"
    elif "<lambda>" in fn.__qualname__:
        hint = f"define it with `def` at the top level of {os.path.basename(code.co_filename)} and pass its name with " \
               f"`--include {code.co_filename}::NAME`"
    else:
        owner_name = fn.__qualname__.rsplit(".", 1)[0] if "." in fn.__qualname__ else fn.__qualname__
        hint = f"pass `--include {code.co_filename}::{owner_name}`"
    reason = REASONS.get((id(code), mode))
    failed = reason is not None and reason[0] is code and reason[2]
    if reason is not None and reason[0] is code:
        text = f"{owner} holds no {mode}-mode derivative of {name} ({where}), which it called: {reason[1]}"
    else:
        text = (f"{owner} has no {mode}-mode derivative of {name} ({where}), which it called: it could not be "
                f"known when the module was written (a function, or an object of a class, handed in by the "
                f"caller?). Run the `mooncake-ast generate` command in its header again and {hint} to write it in")
    try:
        import libcst  # noqa: F401  (deriving it now needs the parser)
    except ImportError:
        from .errors import MooncakeError

        raise MooncakeError(text + ("." if failed else "; or install libcst, and it is derived when first called.")
                            ) from None
    if not failed and (code, mode) not in _WARNED:  # (a failed one: deriving it raises the error, with your line)
        _WARNED.add((code, mode))
        import warnings

        warnings.warn(text + "; it is derived now, as mc.grad does (that needs libcst and the cache).",
                      RuntimeWarning, stacklevel=2)


def entry(fn: Callable, owner: str) -> Callable:
    """fn (a written module's entry point) running with the module's derivatives in use."""

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        token = _ACTIVE.set(owner)
        try:
            return fn(*args, **kwargs)
        finally:
            _ACTIVE.reset(token)

    return run


def jvp_entry(fn: Callable, owner: str, takes_self: bool) -> Callable:
    """A written forward module's `f__jvp(<primals>, <tangents>)` as mc.jvp takes them: each tangent checked
    against its primal and given in the form the generated code takes (an mc.Tangent or dict of an object's
    fields, None for zero, an array copied to fresh storage), the result's tangent with dense zeros."""
    import inspect

    sig = inspect.signature(fn)
    params = [p.name for p in sig.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    skip = 2 if takes_self else 0
    n = (len(params) - skip) // 2
    names = params[skip:skip + n]

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        from .api_checks import _Converter
        from .tangents import NoTangent, materialize

        try:
            bound = sig.bind(*args, **kwargs).arguments
        except TypeError as e:  # (as Python words it for the function itself)
            raise TypeError(f"{fn.__name__}(): {e}" + ("; it takes the function itself and its tangent (None) first"
                                                       if takes_self else "")) from None
        values = [bound[p] for p in params]
        head, primals, tangents = values[:skip], values[skip:skip + n], values[skip + n:]
        if takes_self and head[1] is None:
            head[1] = NoTangent
        conv = _Converter("tangent", f"{owner}.{fn.__name__}", symbolic_top=True)
        tangents = [conv(t, p, f"argument {name!r}", top=True) for name, p, t in zip(names, primals, tangents)]
        token = _ACTIVE.set(owner)
        try:
            y, dy = fn(*head, *primals, *tangents)
        finally:
            _ACTIVE.reset(token)
        return y, materialize(dy, y)

    return run


# ---------------------------------------------------------------- what the written modules call on import


def source_digest(code: types.CodeType, namespace: Optional[dict] = None) -> Optional[str]:
    """A digest of the source lines of `code` (its first line through its last instruction's), or None where
    they cannot be read: a written derivative is refused once the function it derives has been edited."""
    if not code.co_filename.startswith("<"):
        linecache.checkcache(code.co_filename)  # (a file edited since it was read is read again)
    lines = linecache.getlines(code.co_filename, namespace)
    if not lines:
        return None
    last = code.co_firstlineno
    stack = [code]
    while stack:
        c = stack.pop()
        for end in _last_lines(c):
            if end is not None and end > last:
                last = end
        stack += [k for k in c.co_consts if isinstance(k, types.CodeType)]
    if last > len(lines):
        return None
    text = "".join(lines[code.co_firstlineno - 1:last])
    from .digests import hasher  # (here: a module fewer for `import mooncake_ast`)

    return hasher(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _last_lines(code: types.CodeType) -> Any:
    if hasattr(code, "co_positions"):  # 3.11: the last line of each instruction
        return (end for _, end, _, _ in code.co_positions())
    return (line for _, _, line in code.co_lines())


def resolve(module: types.ModuleType, steps: tuple) -> tuple:
    """(the function or code object at the end of `steps` from `module`, the globals of its code)."""
    obj: Any = module
    namespace = vars(module)
    for step in steps:
        kind = step[0]
        if kind == "attr":
            obj = _attr(obj, step[1])
        elif kind == "get":
            obj = getattr(obj, step[1])
        elif kind == "item":
            obj = obj[step[1]]
        elif kind == "cell":
            obj = obj.__closure__[obj.__code__.co_freevars.index(step[1])].cell_contents
        elif kind == "type":
            obj = type(obj)
        elif kind == "code":
            code = obj if isinstance(obj, types.CodeType) else obj.__code__
            found = [c for c in nested_codes(code) if c.co_name == step[1] and c.co_firstlineno == step[2]]
            obj = found[step[3]]
        else:
            raise ValueError(f"unknown step {step!r}")
        if isinstance(obj, types.FunctionType):
            namespace = obj.__globals__
    return obj, namespace


def _attr(obj: Any, name: str) -> Any:
    """obj's attribute `name`; of a class, as written in the class body (a staticmethod, a property)."""
    if isinstance(obj, type):
        for k in obj.__mro__:
            if name in vars(k):
                return vars(k)[name]
        raise AttributeError(name)
    return getattr(obj, name)


def nested_codes(code: types.CodeType) -> list:
    """The code objects of the functions defined directly in `code` (through comprehensions), in order."""
    out = []
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            if c.co_name.startswith("<") and c.co_name != "<lambda>":
                out += nested_codes(c)  # (a comprehension's body is the enclosing function's)
            else:
                out.append(c)
    return out


def register(namespace: dict, user_module: types.ModuleType, table: tuple, mode: str, owner: str,
             entries: tuple, command: str, not_written: tuple = ()) -> None:
    """Bind the derivatives a written module holds to the globals of the functions they derive, install them
    for the dispatch, and make `entries` (the names a user calls) run with them in use.

    `table`: per function, (module name or None for the user's module, steps to it, its name, its first
    line, its source digest, the generated functions' names, takes_self, reads_closure, may_write).
    `not_written`: per function it may reach whose derivative could not be written, (module, steps, name,
    why): what `missing` says if it is reached."""
    from .errors import MooncakeError

    bound: dict = {}
    rules: list = []
    for k, (module_name, steps, name, line, digest, generated, takes_self, reads_closure, may_write) in enumerate(table):
        # The first row is the module's own function: it must be there as it was.  Another that is gone or
        # edited is left out (its derivative is stale), and what reaches it hears why (`missing`).
        where = f"{module_name or user_module.__name__}.{name}"
        try:
            module = user_module if module_name is None else (sys.modules.get(module_name)
                                                              or importlib.import_module(module_name))
            obj, globs = resolve(module, steps)
            code = obj if isinstance(obj, types.CodeType) else obj.__code__
        except Exception as e:  # noqa: BLE001  (the user's code no longer has it)
            if k == 0:
                raise MooncakeError(f"{owner}: cannot find {where} (line {line}), whose derivative it is "
                                    f"({type(e).__name__}: {e}): the code changed since the module was written; run "
                                    f"`{command}` again") from None
            continue
        where = f"{globs.get('__name__', where)}.{getattr(code, 'co_qualname', name)}"
        if code.co_name != name.rsplit(".", 1)[-1] or (digest is not None and source_digest(code, globs) not in
                                                       (digest, None)):
            if k == 0:
                raise MooncakeError(f"{owner}: {where} ({code.co_filename}:{code.co_firstlineno}) changed since the "
                                    f"module was written, so its derivative there is stale; run `{command}` again")
            REASONS[(id(code), mode)] = (code, f"it changed since the module was written; run `{command}` again", False)
            continue
        fns = []
        for g in generated:
            raw = namespace[g]
            fresh = types.FunctionType(raw.__code__, globs, raw.__name__, raw.__defaults__, raw.__closure__)
            fresh.__kwdefaults__ = raw.__kwdefaults__
            fresh.__doc__ = raw.__doc__
            bound[g] = fresh
            fns.append(fresh)
        if mode == "forward":
            rules.append((FORWARD, ForwardRule(code, fns[0], takes_self, owner)))
        else:
            rules.append((REVERSE, ReverseRule(code, fns[0], fns[1], takes_self, reads_closure, may_write, owner)))
    for module_name, steps, name, why in not_written:
        try:
            module = user_module if module_name is None else sys.modules[module_name]
            obj, _ = resolve(module, steps)
            code = obj if isinstance(obj, types.CodeType) else obj.__code__
        except Exception:  # noqa: BLE001  (then it is missing without a reason)
            continue
        REASONS[(id(code), mode)] = (code, f"its derivative could not be written ahead ({why})", True)
    namespace.update(bound)
    for name in entries:
        namespace[name] = jvp_entry(namespace[name], owner, table[0][6]) if mode == "forward" else \
            entry(namespace[name], owner)
    for table_of, rule in rules:
        table_of[id(rule.code)] = rule
