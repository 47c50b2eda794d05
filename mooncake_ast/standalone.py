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
    parts = unit.qualname.replace("<lambda>", "lambda").replace("<locals>", "").split(".")
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
    be written (unit, reason), the calls no one can know ahead, whether the entry takes itself."""

    def __init__(self) -> None:
        self.parts: list[Part] = []
        self.failed: list[tuple] = []
        self.unknown: list[tuple] = []  # (file, line, function, name) of calls of what its caller passes in
        self.takes_self = False


def collect(fn: types.FunctionType, steps: tuple, user_module: types.ModuleType, mode: str, includes: tuple = (),
            derive_fn: Callable = derive, on_error: Optional[Callable] = None) -> Collected:
    """Find what fn's derivative may reach (standalone_scan), derive each generically in `mode`.

    `steps`: from the user's module to fn (prebuilt.resolve's path).  `includes`: (object, (module, steps))
    that the command line names besides (`--include`).  fn's own derivative failing raises
    (`on_error(fn, mode, exception)` may say how); another's is recorded."""
    from .standalone_scan import Scan, passed_in_calls

    scan = Scan(user_module)
    scan.function(fn, (None, steps), True, entry=True)
    for obj, loc in includes:
        scan.visit(obj, loc, True)
    scan.close()
    out = Collected()
    entry = scan.by_code[fn.__code__]
    for line, name in passed_in_calls(fn):
        out.unknown.append((fn.__code__.co_filename, line, fn.__qualname__, name))
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


def module_text(collected: Collected, mode: str, modname: str, rel: Optional[str], command: str, out_mod: str,
                include_hint: str, included: bool) -> tuple[str, list]:
    """(the module's text, warnings for the command to print): a header saying how to call it and what it
    holds, the generated code, `__vjp` (reverse mode), the lines that find the user's module and install the
    derivatives on import.  `rel`: the user's file from the output directory; `include_hint`: `FILE.py::`
    or `module:` of the function's own module, for the warnings; `included`: --include was given."""
    import os
    import textwrap

    from . import __version__
    from .standalone_templates import binding_code, defaulted, vjp_code, vjp_signature

    fn = collected.parts[0].fn
    parts = collected.parts
    imports, code = joined_code(parts)
    body = "\n".join(parts[0].header) + "\n" + imports + "\n\n\n" + code + "\n"
    names = parts[0].names
    takes_self = collected.takes_self
    self_note = ([f"#     # it takes {fn.__qualname__} itself and mooncake_ast.NoTangent() first (it reads its own closure)"]
                 if takes_self else [])
    head = [
        f"# Standalone {mode}-mode derivative of {modname}.{fn.__qualname__}, written by mooncake_ast {__version__}:",
        f"#     {command}",
        "# Do not edit; run the command again after changing the function.  Needs numpy and mooncake_ast",
        "# (the generated code imports mooncake_ast.runtime).  On import, its functions are bound to the",
        f"# namespace of your module `{modname}`" + (f" ({rel})" if rel else "") + ": the module of that name if it is",
        "# already imported, else loaded from that file; so they see your globals and helpers, as",
        f"# {fn.__qualname__} does.",
    ]

    def para(text: str) -> list:
        return textwrap.wrap(text, 96, initial_indent="# ", subsequent_indent="# ", break_on_hyphens=False)

    if len(parts) > 1:
        held = ", ".join(f"{p.unit.label}" for p in parts[1:])
        head += para(f"It holds the derivatives of what {fn.__qualname__} may call too ({held}): running it derives "
                     "nothing (no cache, no libcst).  Each is checked against your source on import; one edited since "
                     "is not used (run the command again).")
    warnings = []
    for unit, why in collected.failed:
        if unit.named:
            warnings.append(f"{unit.code.co_filename}:{unit.code.co_firstlineno}: the derivative of {unit.label} "
                            f"cannot be written ahead ({why}); if it is called, it is derived when the module runs "
                            "(that needs libcst)")
    if collected.failed:
        head += para("Not written here (their derivatives failed; if reached, they are derived when run, which needs "
                     "libcst): " + "; ".join(f"{u.label} ({why})" for u, why in collected.failed) + ".")
    for file, line, qual, name in collected.unknown if not included else ():  # (--include: named, we trust)
        warnings.append(f"{file}:{line}: {qual} calls `{name}(...)`, a function or callable object its caller passes "
                        "in, known only when it runs: its derivative is derived then, which needs libcst and the "
                        f"cache. To write it in, name each one it may be: --include {include_hint}NAME (a function, or a "
                        "class for all its methods)")
    if collected.unknown:
        head += para("Calls it cannot know ahead (of what its caller passes in), derived when they run unless named "
                     "with --include: " + ", ".join(f"`{name}(...)` ({os.path.basename(file)}:{line})"
                                                    for file, line, _, name in collected.unknown) + ".")
    head += ["# Usage:", "#"]
    defs = _defs(body)
    if mode == "forward":
        fwd = names[0]
        params = defs[fwd]
        head += [
            f"#     from {out_mod} import {fwd}",
            f"#     value, tangent = {fwd}({', '.join(params)})",
            "#     # tangents (the d... arguments) as mc.jvp takes them: of the arguments' structure, None",
            "#     # for zero, a mooncake_ast.Tangent (or dict) of the fields of an object",
        ] + self_note
        entries: tuple = (fwd,)
    else:
        fwd = next(n for n in names if n.endswith("__forward"))
        pb = next(n for n in names if n.endswith("__pullback"))
        base = fwd[: -len("__forward")]
        primals = defs[fwd][1:] if takes_self else defs[fwd]
        bars = ", ".join(p + "_bar" for p in primals) + ("," if len(primals) == 1 else "")
        head += [
            f"#     from {out_mod} import {base}__vjp",
            f"#     value, pullback = {base}__vjp({vjp_signature(primals, defaulted(fn))[1]})",
            f"#     {bars} = pullback(1.0)   # the adjoints of the arguments (call it once)",
            "#",
            f"# {base}__vjp runs {fwd} (the function, recording a tape) and {pb} (back through the tape)",
            "# inside one mooncake_ast.reverse.shadows.Context, which holds the adjoints of arrays, lists and",
            "# objects; arguments are left as a plain call leaves them.  The code is generic in the argument",
            "# kinds (mc.grad specialises it, e.g. for floats).",
        ]
        if takes_self:
            head.append(f"# ({fwd} takes {fn.__qualname__} itself first: it reads its own closure.)")
        entries = tuple(n for n in names if n.endswith(("__forward", "__pullback", "__forward_tape")))
    tail = binding_code(modname, rel)
    if mode == "reverse":
        tail = vjp_code(base, fwd, pb, primals, fn.__qualname__ if takes_self else None, defaulted(fn)) + tail
    tail += table_code(collected, mode, entries, command)
    return "\n".join(head) + "\n#\n" + body.rstrip("\n") + "\n" + tail, warnings


def _defs(text: str) -> dict[str, list[str]]:
    """The top-level functions of a generated module and their parameters (without our keyword-only helpers)."""
    out = {}
    for m in _DEF.finditer(text):
        params = [p.strip() for p in m.group(2).split(",") if p.strip()]
        if "*" in params:
            params = params[:params.index("*")]
        out[m.group(1)] = params
    return out


# ---------------------------------------------------------------- run time (imported by the written modules)


def user_adjoint(primal: Any, adjoint: Any) -> Any:
    """An argument's adjoint as mc.vjp gives it: of the argument's structure (a plain tuple for `*args`,
    mc.Tangent for an object, mc.NoTangent() for an int), with what the adjoint storage holds for it."""
    from .api import _to_user
    from .reverse import shadows

    return _to_user(shadows.full_adjoint(primal, adjoint), primal)
