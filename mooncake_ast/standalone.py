"""The modules `mooncake-ast generate` writes: derivatives that stand alone.

A standalone module holds the generic derivative of the function named on the command line and of every
function its derivative may reach at run time (standalone_scan.py finds them: helpers, methods of objects,
closures and lambdas, callable objects, special methods of operators, functions passed as arguments where
the code names them).  On import, each is bound to the globals of the function it derives and installed
for the run-time dispatch (prebuilt.register), so running the module derives nothing: no cache, no libcst,
no source files read but the user's modules themselves.  Its generated code is left as written: a call
`_mc.fcall(helper, ...)` / `_mc.rcall(obj.method, ...)` finds the derivative written beside it.

This file is the generation (`collect`, `joined_code`, `table_code`, used by cli.py) and the text of the
module's entry points (`vjp_code`) and binding (`binding_code`); `user_adjoint` runs in the written module.
"""
from __future__ import annotations

import ast
import inspect
import keyword
import re
import types
from typing import Any, Callable, Optional

_DEF = re.compile(r"^def (\w+)\((.*)\):$", re.M)
_SUFFIXES = ("__forward_tape", "__forward", "__pullback", "__jvp")


# ---------------------------------------------------------------- generation


def derive(fn: types.FunctionType, mode: str) -> tuple:
    """(module text, takes_self, reads_closure, may_write) of fn's generic derivative in `mode`."""
    from .forward.generate import deriving

    with deriving(fn, mode):  # (progress on stderr past a second; a deep stack for deep syntax)
        if mode == "forward":
            from .forward.generate import forward_source_text

            text, takes_self, _ = forward_source_text(fn)
            return text, takes_self, False, True
        from .reverse.generate import reverse_source_text

        text, rt = reverse_source_text(fn, {})
    # (as reverse/generate.generate_reverse says it: a dispatched call of a function that writes nothing its
    # caller can reach is a fresh call)
    may_write = bool(rt.saves or any(s not in rt.fresh_calls for s in rt.dispatched) or rt.user_appends)
    return text, rt.uses_self, bool(rt.ir.freevars), may_write


class Part:
    """One unit's generated module, split: its header comments, its imports (alias -> line), its code; its
    generated functions renamed after the unit (`Spring_energy__jvp`) but for the first part's."""

    def __init__(self, unit: Any, text: str, takes_self: bool, reads_closure: bool, may_write: bool,
                 base: Optional[str], mode: str) -> None:
        self.unit, self.fn = unit, unit.fn
        self.takes_self, self.reads_closure, self.may_write = takes_self, reads_closure, may_write
        lines = text.splitlines()
        i = 0
        self.header: list[str] = []
        while i < len(lines) and lines[i].startswith("#"):
            self.header.append(lines[i])
            i += 1
        self.imports: dict[str, str] = {}
        rest = []
        for line in lines[i:]:
            if line.startswith(("import ", "from ")) and not line.startswith((" ", "\t")):
                self.imports[_import_alias(line)] = line
            else:
                rest.append(line)
        code = "\n".join(rest).strip("\n")
        if base is not None:
            code = _drop_function(code, "__forward_tape")  # (the dispatch runs __forward)
            for old in [m.group(1) for m in _DEF.finditer(code)]:
                suffix = next((x for x in _SUFFIXES if old.endswith(x)), None)
                if suffix is not None:
                    code = re.sub(rf"\b{re.escape(old)}\b", base + suffix, code)
        self.code = code
        self.names = [m.group(1) for m in re.finditer(r"^def (\w+)\(", code, re.M)]
        wanted = ("__jvp",) if mode == "forward" else ("__forward", "__pullback")
        self.entry_names = tuple(next(n for n in self.names if n.endswith(w) and not n.endswith("__forward_tape"))
                                 for w in wanted)


def _drop_function(code: str, suffix: str) -> str:
    lines = code.splitlines()
    for node in ast.parse(code).body:
        if isinstance(node, ast.FunctionDef) and node.name.endswith(suffix):
            first = node.lineno - 1 - len(node.decorator_list)
            return "\n".join(lines[:first] + lines[node.end_lineno:]).rstrip("\n")
    return code


def _import_alias(line: str) -> str:
    """The name an import line binds (`import a.b as c` -> c, `import operator` -> operator)."""
    words = line.split()
    if " as " in line:
        return words[-1]
    if words[0] == "import":
        return words[1].split(".")[0]
    return words[-1]


def _base_name(unit: Any, taken: set) -> str:
    """A readable, unique prefix for a unit's generated functions: `helper`, `Spring_energy`, `outer_g`."""
    parts = unit.fn.__qualname__.replace("<lambda>", "lambda").replace("<locals>", "").split(".")
    base = re.sub(r"\W", "_", "_".join(p.strip("_") for p in parts if p.strip("_"))) or "fn"
    if base[0].isdigit() or keyword.iskeyword(base):
        base = "f_" + base
    if base in taken:
        base = re.sub(r"\W", "_", f"{unit.fn.__module__}_{base}")
    k, found = 2, base
    while found in taken:
        found, k = f"{base}_{k}", k + 1
    taken.add(found)
    return found


class Collected:
    """What one standalone module holds: `parts` (the entry's first), the units whose derivatives could not
    be written (unit, reason), the calls no one can know ahead (messages), whether the entry takes itself."""

    def __init__(self) -> None:
        self.parts: list[Part] = []
        self.failed: list[tuple] = []
        self.unknown: list[str] = []
        self.takes_self = False


def collect(fn: types.FunctionType, user_module: types.ModuleType, mode: str, includes: tuple = (),
            derive_fn: Callable = derive, on_error: Callable = None) -> Collected:
    """Find what fn's derivative may reach (standalone_scan), derive each generically in `mode`.

    `includes`: (object, (module, steps)) that the command line names besides (`--include`).  fn's own
    derivative failing raises (`on_error(fn, mode, exception)` may say how); another's is recorded."""
    from .standalone_scan import Scan, passed_in_calls

    scan = Scan(user_module)
    scan.visit(fn, (None, ()), True)  # (its canonical place replaces the empty path)
    for obj, loc in includes:
        scan.visit(obj, loc, True)
    scan.close()
    out = Collected()
    entry = scan.by_code.get(fn.__code__)
    if entry is None:
        raise ValueError(f"{fn.__qualname__} is not a function whose derivative can be written")
    for line, name in passed_in_calls(fn):
        out.unknown.append(f"{fn.__code__.co_filename}:{line}: {fn.__qualname__} calls `{name}(...)`, a function or "
                           f"callable object its caller passes in: which one is known only when it runs")
    taken: set = set()
    aliases: dict = {}
    order = [entry] + [u for u in scan.units if u is not entry]
    done = set()
    while len(done) < len(scan.units):
        unit = next(u for u in order if u.code not in done)
        done.add(unit.code)
        try:
            text, takes_self, reads_closure, may_write = derive_fn(unit.fn, mode)
        except Exception as e:  # noqa: BLE001
            if unit is entry:
                if on_error is not None:
                    on_error(unit.fn, mode, e)
                raise
            out.failed.append((unit, _one_line(e)))
            continue
        before = len(scan.units)
        scan.generated(text)  # (mooncake_ast's helpers it hands to the dispatch)
        order += scan.units[before:]
        base = None if unit is entry else _base_name(unit, taken)
        part = Part(unit, text, takes_self, reads_closure, may_write, base, mode)
        if unit is entry:
            taken |= {n.rsplit("__", 1)[0] for n in part.names}
            out.takes_self = takes_self
        clash = [a for a, line in part.imports.items() if aliases.get(a, line) != line]
        if clash:
            out.failed.append((unit, f"its derivative imports {clash[0]} as another one here does not"))
            continue
        aliases.update(part.imports)
        out.parts.append(part)
    return out


def _one_line(e: BaseException) -> str:
    lines = [ln.strip() for ln in str(e).strip().splitlines() if ln.strip()]
    return f"{type(e).__name__}: {lines[0] if lines else ''}"


def joined_code(parts: list) -> tuple[str, str]:
    """(the import lines, the code) of all parts: the entry's, then each other's under a comment naming it."""
    imports: dict = {}
    for p in parts:
        imports.update(p.imports)
    chunks = []
    for k, p in enumerate(parts):
        code = p.code
        if k:
            why = "" if p.unit.named else " (a method of a class it reaches)"
            code = f"# The derivative of {p.unit.label} ({p.unit.where}){why}.\n" + code
        chunks.append(code)
    return "\n".join(imports.values()), "\n\n\n".join(chunks)


def table_code(collected: Collected, mode: str, entries: tuple, command: str) -> str:
    """The lines, at the end of the module, that install its derivatives for the run-time dispatch."""
    from .prebuilt import source_digest

    rows = []
    for p in collected.parts:
        u = p.unit
        digest = source_digest(u.code, u.fn.__globals__)
        rows.append(f"    ({u.module!r}, {u.steps!r}, {u.code.co_name!r}, {u.code.co_firstlineno}, {digest!r}, "
                    f"{p.entry_names!r}, {p.takes_self}, {p.reads_closure}, {p.may_write}),")
    failed = [f"    ({u.module!r}, {u.steps!r}, {u.code.co_name!r}, {reason!r})," for u, reason in collected.failed]
    failed_text = ""
    if failed:
        failed_text = ("\n\n# What it may reach whose derivative could not be written (if reached, it is derived when "
                       "run, with libcst):\n_NOT_WRITTEN = (\n" + "\n".join(failed) + "\n)")
    return f'''

# Each derivative above, with where its function is found again in your code (checked against the source
# it was derived from): the run-time dispatch runs these instead of deriving anything.
# (module (None: yours), path, name, first line, source digest, generated functions, takes the function
# itself first, reads its closure, may write to what its caller can reach)
_DERIVATIVES = (
{chr(10).join(rows)}
){failed_text}

__import__("mooncake_ast.prebuilt").prebuilt.register(
    globals(), _user_module, _DERIVATIVES, {mode!r}, __name__, {entries!r}, {command!r}{", _NOT_WRITTEN" if failed else ""})
'''


# ---------------------------------------------------------------- the module's own entry point and binding


def defaulted(fn: Any) -> tuple:
    """(qualified name, names of parameters with defaults, {name: kind of parameter}) of a function reachable
    from its module by name, so that `__vjp` takes its arguments as the function does: the same defaults (read
    from the function when called: any value works), `*args`, keyword-only parameters and `**kwargs`."""

    if "<locals>" in getattr(fn, "__qualname__", "<locals>"):
        return ("", (), {})
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return ("", (), {})
    return (fn.__qualname__, tuple(p.name for p in params if p.default is not inspect.Parameter.empty),
            {p.name: p.kind.name for p in params})


def vjp_signature(params: list[str], defaulted: tuple = ("", (), {})) -> tuple:
    """(the parameters of `__vjp`, a call of it, the parameters whose default is read from the function) for
    the forward function's parameters `params` (positional, then `*args`, keyword-only, `**kwargs` ones, each
    by its name, as the function has them)."""
    qual, with_default, kinds = (tuple(defaulted) + ({},))[:3]
    sig: list = []
    call: list = []
    fill: list = []
    star = after_default = False
    for n in (p.lstrip("*") for p in params):
        kind = kinds.get(n, "POSITIONAL_OR_KEYWORD")
        if kind == "VAR_POSITIONAL":
            sig.append("*" + n)
            call.append("*" + n)
            star = True
        elif kind == "VAR_KEYWORD":
            sig.append("**" + n)
            call.append("**" + n)
        elif kind == "KEYWORD_ONLY":
            if not star:
                sig.append("*")
                star = True
            sig.append(f"{n}=_DEFAULT" if qual and n in with_default else n)
            fill += [n] if qual and n in with_default else []
            call.append(f"{n}={n}")
        else:
            # A parameter after the first defaulted one gets the sentinel too (Python needs trailing defaults).
            after_default = after_default or bool(qual and n in with_default)
            sig.append(f"{n}=_DEFAULT" if after_default else n)
            fill += [n] if after_default else []
            call.append(n)
    return ", ".join(sig), ", ".join(call), fill


def vjp_code(base: str, fwd: str, pb: str, params: list[str], self_expr: Optional[str],
              defaulted: tuple = ("", (), {})) -> str:
    names = [p.lstrip("*") for p in params]
    args = ", ".join(names)
    qual = defaulted[0]
    sig, _, filled = vjp_signature(params, defaulted)
    fill = "".join(f"\n    if {n} is _DEFAULT:\n        {n} = _defaults['{n}']" for n in filled)
    if fill:
        fill = ("\n    _defaults = {_k: _p.default for _k, _p in __import__('inspect').signature("
                f"_user_module.{qual}).parameters.items()}}" + fill)
    tup = f"({args},)" if len(names) == 1 else f"({args})"
    fwd_args = f"_user_module.{self_expr}, {args}" if self_expr else args
    sentinel = "\n\n_DEFAULT = object()  # a parameter not given: its default is the function's own\n" if fill else ""
    return f'''{sentinel}

def {base}__vjp({sig}):
    """(value, pullback); pullback(value_bar) returns one adjoint per argument."""
    from mooncake_ast.reverse import shadows as _shadows
    from mooncake_ast.standalone import user_adjoint as _user_adjoint
{fill}

    _ctx = _shadows.Context()
    with _ctx:
        _value, _tape = {fwd}({fwd_args})
    _after = _shadows.snapshot(({args}, _value))
    _used = []

    def _pullback(_value_bar):
        if _used:
            from mooncake_ast.errors import MooncakeError
            raise MooncakeError("this pullback was called before: its tape is consumed; call {base}__vjp again")
        _used.append(True)
        try:
            with _ctx:
                _adjoints = {pb}(_value_bar, _tape)
                _adjoints = tuple(_user_adjoint(_a, _g) for _a, _g in zip({tup}, _adjoints))
        finally:
            _shadows.reapply(_after)  # also when interrupted half way back (Ctrl-C)
        return _adjoints

    return _value, _pullback
'''


def binding_code(modname: str, rel: Optional[str]) -> str:
    return f'''

def _bind_to_user_module(module_name={modname!r}, relative_path={rel!r}):
    """Your module: the functions above run in its namespace (its globals, helpers, imports), and in those of
    the other modules whose functions they derive."""
    import importlib
    import importlib.util
    import os
    import sys

    def same(module, path):
        try:
            return os.path.samefile(getattr(module, "__file__", None) or "", path)
        except OSError:
            return False

    def same_dir(entry, folder):
        try:
            return os.path.samefile(entry or ".", folder)
        except OSError:
            return False

    path = None
    if relative_path is not None:
        path = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), relative_path))
    module = sys.modules.get(module_name)
    if module is None and path is not None and same(sys.modules.get("__main__"), path):
        module = sys.modules["__main__"]  # the user's module is the running script
    if module is None and path is not None and os.path.isfile(path) and "." not in module_name:
        folder = os.path.dirname(path)
        if not any(same_dir(p, folder) for p in sys.path):
            sys.path.append(folder)  # its own imports of modules beside it work, as when it runs as a script
        spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[module_name]
            raise
    if module is None and path is not None and os.path.isfile(path) and "." in module_name:
        root = os.path.dirname(path)
        for _ in range(module_name.count(".")):
            root = os.path.dirname(root)
        if not any(same_dir(p, root) for p in sys.path):
            sys.path.append(root)  # the folder that holds the package, so that the import below finds it
    if module is None:
        module = importlib.import_module(module_name)
    return module


_user_module = _bind_to_user_module()
'''


# ---------------------------------------------------------------- run time (imported by the written modules)


def user_adjoint(primal: Any, adjoint: Any) -> Any:
    """An argument's adjoint as mc.vjp gives it: of the argument's structure (a plain tuple for `*args`,
    mc.Tangent for an object, mc.NoTangent() for an int), with what the adjoint storage holds for it."""
    from .api import _to_user
    from .reverse import shadows

    return _to_user(shadows.full_adjoint(primal, adjoint), primal)
