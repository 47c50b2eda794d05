"""The modules `mooncake-ast generate` writes: derivatives that stand alone.

A standalone module holds the generated derivative of the function named on the command line and of
every function of the same module that it calls, found in the generated code's run-time calls
(`_mc.fcall(helper, ...)` / `_mc.rcall(helper, ...)`) and followed transitively.  Those calls are
rewritten to call the derivatives written beside them (through a dict handed to each function as a
keyword parameter, `_mc_callees`), so importing and running the module derives nothing: no cache,
no libcst, no source files read but the user's module itself (whose globals the code runs in).

What cannot be listed ahead of time (a method called on an object, a function passed in as an
argument or made by a closure, a function of another module) is still derived when first called,
as mc.grad does it; the module's header names the functions of other modules it found.

Two halves: the generation (`standalone_parts`, used by cli.py) and the run-time adapters the written
module imports when it is loaded (`forward_callee`, `reverse_callee`), which take the place of the
derived rules `fcall` / `rcall` would have made.
"""
from __future__ import annotations

import ast
import builtins
import inspect
import re
import types
from typing import Any, Callable, Optional

CALLEES = "_mc_callees"  # the keyword parameter that hands the callees' derivatives to the generated functions
_DEF = re.compile(r"^def (\w+)\((.*)\):$", re.M)


# ---------------------------------------------------------------- generation


class Part:
    """One function's generated module, split: its header comments, its imports (alias -> line), its code."""

    def __init__(self, fn: types.FunctionType, text: str) -> None:
        self.fn = fn
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
        self.code = "\n".join(rest).strip("\n")
        self.names = [m.group(1) for m in _DEF.finditer(self.code)]
        self.calls: dict = {}  # the name a call uses -> the key of the part it calls (filled by standalone_parts)


def _import_alias(line: str) -> str:
    """The name an import line binds (`import a.b as c` -> c, `import operator` -> operator)."""
    words = line.split()
    if " as " in line:
        return words[-1]
    if words[0] == "import":
        return words[1].split(".")[0]
    return words[-1]


def _resolve(node: ast.expr, namespace: dict) -> Any:
    """The object a Name / dotted Attribute denotes in a module namespace (None if it cannot be told)."""
    if isinstance(node, ast.Name):
        if node.id in namespace:
            return namespace[node.id]
        return getattr(builtins, node.id, None)
    if isinstance(node, ast.Attribute):
        owner = _resolve(node.value, namespace)
        return getattr(owner, node.attr, None) if isinstance(owner, (types.ModuleType, type)) else None
    return None


def _local_names(tree: ast.AST) -> set:
    """Parameters and assigned names of the generated functions (a callee's name used for a local is not a
    call of the module-level function)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.arg):
            out.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            out.add(node.id)
    return out


def _called(part: Part) -> tuple[list, list]:
    """(`(name, function)` of the user functions `part`'s code calls through fcall/rcall by a global name,
    in order; Python functions it calls otherwise, which are derived at run time)."""
    tree = ast.parse(part.code)
    local = _local_names(tree)
    namespace = part.fn.__globals__
    found, other = [], []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("fcall", "rcall") and node.args):
            continue
        target = node.args[0]
        obj = _resolve(target, namespace)
        if not isinstance(obj, types.FunctionType) or _is_library(obj) or _is_installed(obj):
            continue
        if isinstance(target, ast.Name) and target.id not in local and includable(obj):
            if (target.id, obj) not in found:
                found.append((target.id, obj))
        elif obj not in other:
            other.append(obj)
    return found, other


def key_of(fn: types.FunctionType) -> str:
    return f"{fn.__module__}.{fn.__name__}"


def _is_installed(fn: types.FunctionType) -> bool:
    """A function of the standard library or of an installed package (not the user's code)."""
    import os
    import sysconfig

    file = os.path.abspath(fn.__code__.co_filename)
    roots = {sysconfig.get_paths()[k] for k in ("stdlib", "purelib", "platlib") if k in sysconfig.get_paths()}
    return any(file.startswith(os.path.abspath(r) + os.sep) for r in roots)


def _is_library(fn: types.FunctionType) -> bool:
    import os

    return os.path.abspath(fn.__code__.co_filename).startswith(os.path.dirname(os.path.abspath(__file__)) + os.sep)


def includable(fn: types.FunctionType) -> bool:
    """Can fn's derivative be written into a standalone module: a module-level function of an imported
    module (found there by its name), without a closure or a rule of its own."""
    import sys

    from .rules import registry

    module = sys.modules.get(fn.__module__)
    return (module is not None and getattr(module, fn.__name__, None) is fn and fn.__qualname__ == fn.__name__
            and fn.__closure__ is None and registry.lookup(fn) is None)


def standalone_parts(fn: types.FunctionType, mode: str, generate: Callable[[types.FunctionType, str], tuple]
                     ) -> tuple[list, list, bool]:
    """(the parts: fn's first, then the functions it calls, transitively; Python functions of other modules
    it calls; whether fn's functions take fn itself first).  `generate(fn, mode) -> (text, takes_self)`."""
    text, takes_self = generate(fn, mode)
    parts = [Part(fn, text)]
    others: list = []
    seen = {fn}
    aliases = dict(parts[0].imports)
    taken = set(parts[0].names)
    i = 0
    while i < len(parts):
        found, other = _called(parts[i])
        others += [o for o in other if o not in others]
        parts[i].calls = {name: key_of(callee) for name, callee in found}
        for _, callee in found:
            if callee in seen:
                continue
            seen.add(callee)
            try:
                ctext, ctakes_self = generate(callee, mode)
            except Exception:
                others.append(callee)  # (derived at run time, where its error, if any, names the user's line)
                continue
            part = Part(callee, ctext)
            clash = any(aliases.get(a, line) != line for a, line in part.imports.items()) or (taken & set(part.names))
            if ctakes_self or clash:
                others.append(callee)
                continue
            aliases.update(part.imports)
            taken |= set(part.names)
            parts.append(part)
        i += 1
    included = [p.fn for p in parts]
    return parts, [o for o in others if o not in included], takes_self


def entry_names(part: Part, mode: str) -> tuple:
    """The generated functions of one part the run-time adapters call: (jvp,) or (forward, pullback)."""
    if mode == "forward":
        return (next(n for n in part.names if n.endswith("__jvp")),)
    return (next(n for n in part.names if n.endswith("__forward")), next(n for n in part.names if n.endswith("__pullback")))


def joined_code(parts: list) -> tuple[str, str]:
    """(the import lines, the code) of all parts, their calls of each other's functions rewritten to go
    through `_mc_callees`."""
    keys = {key_of(p.fn) for p in parts if includable(p.fn)}
    imports: dict = {}
    for p in parts:
        imports.update(p.imports)
    chunks = []
    for k, p in enumerate(parts):
        calls = {name: key for name, key in p.calls.items() if key in keys}
        code = p.code
        if calls:
            call = re.compile(r"\b\w+\.(fcall|rcall)\((" + "|".join(sorted(map(re.escape, calls))) + r"), ")
            code = call.sub(lambda m: f"{CALLEES}[{calls[m.group(2)]!r}](", code)
            code = _DEF.sub(lambda m: _with_callees_param(m) if f"{CALLEES}[" in _body_of(code, m) else m.group(0), code)
        if k:
            where = f"{p.fn.__code__.co_filename.replace(chr(92), '/').rsplit('/', 1)[-1]}:{p.fn.__code__.co_firstlineno}"
            code = f"# The derivative of {p.fn.__module__}.{p.fn.__name__} ({where}), called by the code above.\n\n\n" + code
        chunks.append(code)
    return "\n".join(imports.values()), "\n\n\n".join(chunks)


def _body_of(code: str, m: re.Match) -> str:
    """The text of the function whose def line `m` matched (up to the next top-level def)."""
    nxt = _DEF.search(code, m.end())
    return code[m.end():nxt.start() if nxt else len(code)]


def _with_callees_param(m: re.Match) -> str:
    params = m.group(2)
    extra = f"{CALLEES}={CALLEES}"
    params = f"{params}, {extra}" if "*" in [p.strip() for p in params.split(",")] else \
        (f"{params}, *, {extra}" if params.strip() else f"*, {extra}")
    return f"def {m.group(1)}({params}):"


def callees_code(parts: list, mode: str) -> str:
    """The lines, at the end of the module, that bind the functions of other modules to their modules'
    namespaces and fill `_mc_callees` with run-time adapters of all the functions written above."""
    main = parts[0].fn.__module__
    elsewhere: dict = {}
    for p in parts:
        if p.fn.__module__ != main:
            elsewhere.setdefault(p.fn.__module__, []).extend(p.names)
    entries = {key_of(p.fn): (p.fn.__module__, p.fn.__name__, entry_names(p, mode)) for p in parts
               if includable(p.fn)}  # (a method named on the command line is not called by name)
    adapter = "forward_callee" if mode == "forward" else "reverse_callee"
    return f'''

def _use_callees(callees={entries!r}, elsewhere={elsewhere!r}):
    """Calls of the functions above from each other's code run their derivatives written here: nothing is
    derived when this module runs.  (Those of other modules run in their modules' namespaces.)"""
    import importlib
    import sys
    import types

    from mooncake_ast.standalone import {adapter}

    for module_name, names in elsewhere.items():
        module = sys.modules.get(module_name) or importlib.import_module(module_name)
        for name in names:
            raw = globals()[name]
            bound = types.FunctionType(raw.__code__, vars(module), raw.__name__, raw.__defaults__, raw.__closure__)
            bound.__kwdefaults__ = raw.__kwdefaults__
            globals()[name] = bound
    for key, (module_name, name, generated) in callees.items():
        module = sys.modules.get(module_name) or importlib.import_module(module_name)
        {CALLEES}[key] = {adapter}(getattr(module, name), *(globals()[g] for g in generated))


_use_callees()
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


def binding_code(names: list[str], modname: str, rel: Optional[str]) -> str:
    return f'''

def _bind_to_user_module(names={tuple(names)!r}, module_name={modname!r}, relative_path={rel!r}):
    """Run the functions above in the namespace of the user's module (its globals, helpers, imports)."""
    import importlib
    import importlib.util
    import os
    import sys
    import types

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
    for name in names:
        raw = globals()[name]
        bound = types.FunctionType(raw.__code__, vars(module), raw.__name__, raw.__defaults__, raw.__closure__)
        bound.__kwdefaults__ = raw.__kwdefaults__
        bound.__doc__ = raw.__doc__
        globals()[name] = bound
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


def forward_callee(fn: types.FunctionType, jvp: Callable) -> Callable:
    """`fcall(fn, ...)` for a function whose generic forward derivative `jvp` is written in the module:
    the arguments bound to fn's parameters (defaults, *args, keywords) as fcall binds them."""
    from .forward.runtime import bind

    def call(dfn: Any, args: tuple, dargs: tuple, kwargs: Optional[dict] = None, dkwargs: Optional[dict] = None) -> tuple:
        primals, tangents = bind(fn, dfn, tuple(args), tuple(dargs), kwargs or {}, dkwargs or {})
        return jvp(*primals, *tangents)

    return call


def reverse_callee(fn: types.FunctionType, forward: Callable, pullback: Callable) -> Callable:
    """`rcall(fn, ...)` for a function whose generic reverse derivative (`forward`, `pullback`) is written in
    the module: `(value, pullback)` with the adjoints mapped back to the call's arguments, as rcall does."""
    from .forward.runtime import bind
    from .reverse.runtime import _with_pullback
    from .tangents import NoTangent

    params = list(inspect.signature(fn, follow_wrapped=False).parameters.values())
    gen = types.SimpleNamespace(pullback=pullback, may_write=True)

    def call(args: tuple, kwargs: Optional[dict] = None, wrt: Any = None) -> tuple:
        kwargs = kwargs or {}
        primals, _ = bind(fn, NoTangent, tuple(args), (NoTangent,) * len(args), kwargs, {})
        return _with_pullback(fn, gen, forward(*primals), params, tuple(args), kwargs)

    return call
