"""The `mooncake-ast` command (also `python -m mooncake_ast`); see `mooncake-ast --help`.

    mooncake-ast generate FILE.py::FUNC [--mode forward|reverse|both] [-o DIR] [--include TARGET ...]
    mooncake-ast show FILE.py::FUNC [--mode ...]
    mooncake-ast ir FILE.py::FUNC [--dot]
    mooncake-ast rules
    mooncake-ast cache path|list|prune|clear|verify
    mooncake-ast check FILE.py::FUNC --args '(1.0, np.ones(3))'

A target is `FILE.py::FUNC` or `module.path:FUNC`; FUNC may be `Class.method`.
Exit codes: 0 ok, 1 a check failed, 2 a usage or input error (one line on stderr).
"""
from __future__ import annotations

import argparse
import builtins
import copy
import importlib
import importlib.util
import os
import re
import sys
import types
from typing import Any, Optional

PROG = "mooncake-ast"


class InputError(Exception):
    """Bad usage or input: reported as one line on stderr, exit code 2."""


class CheckFailed(Exception):
    """A check ran and failed: one line on stderr, exit code 1."""


def _one_line(text: str) -> str:
    lines = [ln.strip() for ln in str(text).strip().splitlines() if ln.strip()]
    return lines[0] if lines else ""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise InputError(f"{message} (see {self.prog} --help)")


# ---------------------------------------------------------------- targets


class Target:
    """A function named on the command line, with where it came from."""

    def __init__(self, spec: str, fn: types.FunctionType, module: types.ModuleType, path: Optional[str]) -> None:
        self.spec, self.fn, self.module, self.path = spec, fn, module, path

    @property
    def module_name(self) -> str:
        return self.module.__name__


def _package_name(path: str) -> tuple[str, str]:
    """(dotted module name, directory to import it from) for a file, following __init__.py upwards."""
    directory, filename = os.path.split(os.path.abspath(path))
    parts = [os.path.splitext(filename)[0]]
    while os.path.isfile(os.path.join(directory, "__init__.py")):
        directory, pkg = os.path.split(directory)
        if not pkg.isidentifier():
            break
        parts.insert(0, pkg)
    return ".".join(parts), directory


def _same_file(a: Optional[str], b: str) -> bool:
    try:
        return a is not None and os.path.samefile(a, b)
    except OSError:
        return False


def import_file(path: str) -> types.ModuleType:
    if not os.path.exists(path):
        raise InputError(f"no such file: {path}")
    if not os.path.isfile(path):
        raise InputError(f"not a file: {path}")
    try:
        with open(path, "rb") as f:
            source = f.read()
        compile(source, path, "exec", dont_inherit=True)
    except SyntaxError as e:
        raise InputError(f"{path}:{e.lineno}:{e.offset or 0}: syntax error: {e.msg}") from None
    except (OSError, ValueError) as e:
        raise InputError(f"cannot read {path}: {e}") from None
    name, root = _package_name(path)
    try:
        if root not in sys.path:
            sys.path.insert(0, root)
        existing = sys.modules.get(name)
        if existing is not None and _same_file(getattr(existing, "__file__", None), path):
            return existing
        if "." in name:
            module = importlib.import_module(name)
            if _same_file(getattr(module, "__file__", None), path):
                return module
        if name in sys.modules:  # another module has this name (e.g. the standard library's): load privately
            name = "_mooncake_ast_user_" + re.sub(r"\W", "_", name)
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise InputError(f"cannot import {path}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            sys.modules.pop(name, None)
            raise
        return module
    except InputError:
        raise
    except SystemExit as e:
        raise InputError(f"importing {path} called sys.exit({e.code!r})") from None
    except Exception as e:
        raise InputError(f"importing {path} failed: {type(e).__name__}: {_one_line(e)}") from None


def load_target(spec: str) -> Target:
    if "::" in spec:
        file, _, qualname = spec.partition("::")
        module = import_file(file)
        path: Optional[str] = os.path.abspath(file)
        where = file
    else:
        modname, sep, qualname = spec.rpartition(":")
        if not sep or not all(p.isidentifier() for p in modname.split(".")):
            raise InputError(f"{spec}: expected FILE.py::FUNC or module.path:FUNC")
        if "" not in sys.path and os.getcwd() not in sys.path:
            sys.path.insert(0, os.getcwd())
        try:
            module = importlib.import_module(modname)
        except ImportError as e:
            hint = ""
            if modname.endswith(".py") or os.path.isfile(modname):
                hint = f"; for a file, write {modname}::{qualname} (FILE.py::FUNC, with two colons)"
            raise InputError(f"cannot import module {modname}: {_one_line(e)}{hint}") from None
        except SyntaxError as e:
            raise InputError(f"{e.filename}:{e.lineno}:{e.offset or 0}: syntax error: {e.msg}") from None
        except SystemExit as e:
            raise InputError(f"importing {modname} called sys.exit({e.code!r})") from None
        except Exception as e:
            raise InputError(f"importing {modname} failed: {type(e).__name__}: {_one_line(e)}") from None
        path = getattr(module, "__file__", None)
        where = f"module {modname}"
    if not qualname or not all(p.isidentifier() for p in qualname.split(".")):
        raise InputError(f"{spec}: expected a function name after '{'::' if '::' in spec else ':'}'")
    obj: Any = module
    for part in qualname.split("."):
        if isinstance(obj, type):
            raw = next((vars(k)[part] for k in obj.__mro__ if part in vars(k)), None)
            obj = raw.__func__ if isinstance(raw, (staticmethod, classmethod)) else getattr(obj, part, None)
        else:
            obj = getattr(obj, part, None)
        if obj is None:
            raise InputError(f"no function {qualname} in {where}")
    from .api import Differentiable

    if isinstance(obj, Differentiable):
        obj = obj.__wrapped_fn__
    if isinstance(obj, property) and obj.fget is not None:
        obj = obj.fget
    if isinstance(obj, types.MethodType):
        obj = obj.__func__
    if not isinstance(obj, types.FunctionType):
        raise InputError(f"{qualname} in {where} is not a Python function ({type(obj).__name__})")
    return Target(spec, obj, module, path)


# ---------------------------------------------------------------- generated text


def _generate(fn: types.FunctionType, mode: str) -> tuple[str, bool]:
    """(module text, whether the functions take the function itself first) for one mode."""
    from .errors import MooncakeError

    try:
        if mode == "forward":
            from .forward.generate import forward_source_text

            text, takes_self, _ = forward_source_text(fn)
            return text, takes_self
        from .reverse.generate import reverse_source_text

        text, rt = reverse_source_text(fn, {})
        return text, rt.uses_self
    except MooncakeError as e:
        raise InputError(_one_line(e)) from None
    except Exception as e:  # an internal limitation: still an input we cannot handle
        raise InputError(f"cannot differentiate {fn.__qualname__} in {mode} mode: {type(e).__name__}: {_one_line(e)}") from None


def _identifier(text: str) -> str:
    return re.sub(r"\W", "_", text)


def output_name(target: Target, mode: str) -> str:
    """`<module>_<qualname>_<mode>`: the standalone module's (importable) name."""
    return _identifier(f"{target.module_name.rsplit('.', 1)[-1]}_{target.fn.__qualname__}_{mode}")


def _location(module: types.ModuleType, qualname: str) -> tuple:
    """(object, steps from the module to it) for `Class.method` / `func`, unwrapped as load_target unwraps
    (prebuilt.resolve follows the steps when the written module is imported)."""
    from .api import Differentiable
    from .prebuilt import _attr

    obj: Any = module
    steps: list = []
    for part in qualname.split("."):
        try:
            obj = _attr(obj, part) if isinstance(obj, (type, types.ModuleType)) else getattr(obj, part)
        except AttributeError:
            return None, ()
        steps.append(("attr", part))
    for _ in range(4):
        if isinstance(obj, Differentiable):
            obj, step = obj.__wrapped_fn__, ("get", "__wrapped_fn__")
        elif isinstance(obj, (staticmethod, classmethod, types.MethodType)):
            obj, step = obj.__func__, ("get", "__func__")
        elif isinstance(obj, property) and obj.fget is not None:
            obj, step = obj.fget, ("get", "fget")
        else:
            break
        steps.append(step)
    return obj, tuple(steps)


def load_include(spec: str, target: Target) -> tuple:
    """An `--include` TARGET: (the function or class, (module, steps)); module None for the target's own."""
    if "::" in spec:
        file, _, qualname = spec.partition("::")
        module = import_file(file)
    else:
        modname, sep, qualname = spec.rpartition(":")
        if not sep or not all(p.isidentifier() for p in modname.split(".")):
            raise InputError(f"--include {spec}: expected FILE.py::NAME or module.path:NAME")
        try:
            module = importlib.import_module(modname)
        except Exception as e:
            raise InputError(f"--include {spec}: cannot import module {modname}: {_one_line(e)}") from None
    if not qualname or not all(p.isidentifier() for p in qualname.split(".")):
        raise InputError(f"--include {spec}: expected a function or class name after '{'::' if '::' in spec else ':'}'")
    obj, steps = _location(module, qualname)
    if obj is None or not isinstance(obj, (types.FunctionType, type)):
        raise InputError(f"--include {spec}: no function or class {qualname} in {module.__name__}")
    return obj, (None if module is target.module else module.__name__, steps)


def _command(target: Target, mode: str, includes: tuple) -> str:
    return " ".join([PROG, "generate", target.spec, "--mode", mode] + [f"--include {i}" for i in includes])


def standalone_text(target: Target, mode: str, out_dir: str, includes: tuple = ()) -> tuple[str, list]:
    """(a derivative module to commit, warnings to print): standalone.module_text of what `collect` finds."""
    from .standalone import collect, module_text

    fn = target.fn
    _, steps = _location(target.module, fn.__qualname__)

    def refuse(f: Any, m: str, e: BaseException) -> None:
        from .errors import MooncakeError

        if isinstance(e, MooncakeError):
            raise InputError(_one_line(e)) from None
        raise InputError(f"cannot differentiate {f.__qualname__} in {m} mode: {type(e).__name__}: {_one_line(e)}") from None

    collected = collect(fn, steps, target.module, mode, tuple(load_include(i, target) for i in includes),
                        on_error=refuse)
    if target.path is not None:
        rel = os.path.relpath(target.path, os.path.abspath(out_dir)) if _same_drive(target.path, out_dir) else target.path
        rel = rel.replace(os.sep, "/")
    else:
        rel = None
    where = f"{target.spec.partition('::')[0]}::" if "::" in target.spec else f"{target.module_name}:"
    return module_text(collected, mode, target.module_name, rel, _command(target, mode, includes),
                       output_name(target, mode), where, bool(includes))


def _same_drive(a: str, b: str) -> bool:
    return os.path.splitdrive(os.path.abspath(a))[0] == os.path.splitdrive(os.path.abspath(b))[0]


# ---------------------------------------------------------------- commands


def _modes(mode: str) -> list[str]:
    return ["forward", "reverse"] if mode == "both" else [mode]


def cmd_generate(args: argparse.Namespace) -> int:
    target = load_target(args.target)
    out_dir = args.output
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        raise InputError(f"-o {out_dir}: not a directory")
    texts = []
    warned: list = []
    for m in _modes(args.mode):
        text, warnings = standalone_text(target, m, out_dir, tuple(args.include))
        texts.append((output_name(target, m) + ".py", text))
        warned += [w for w in warnings if w not in warned]
    for w in warned:
        print(f"{PROG}: warning: {w}", file=sys.stderr)
    for name, text in texts:  # never write a file that does not compile
        try:
            compile(text, name, "exec", dont_inherit=True)
        except SyntaxError as e:
            raise InputError(f"cannot write {name}: the generated module does not compile ({e.msg}, line {e.lineno}); "
                             "please report this") from None
    try:
        os.makedirs(out_dir, exist_ok=True)
        for name, text in texts:
            path = os.path.join(out_dir, name)
            tmp = os.path.join(out_dir, f".{name}.{os.getpid()}.tmp")
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(tmp, path)
            print(path)
    except OSError as e:
        raise InputError(f"cannot write to {out_dir}: {e.strerror or e}") from None
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    target = load_target(args.target)
    texts = [_generate(target.fn, m)[0] for m in _modes(args.mode)]
    sys.stdout.write("\n\n".join(t.rstrip("\n") + "\n" for t in texts))
    return 0


def cmd_ir(args: argparse.Namespace) -> int:
    from .errors import MooncakeError
    from .frontend.statements import lower_function
    from .ir import format_function

    target = load_target(args.target)
    try:
        ir = lower_function(target.fn)
    except MooncakeError as e:
        raise InputError(_one_line(e)) from None
    text = format_function(ir)
    sys.stdout.write(to_dot(ir, text) if args.dot else text)
    return 0


def to_dot(ir: Any, text: str) -> str:
    """The CFG in Graphviz dot: one box per block (its printed IR), edges labelled for branches."""
    from .ir.nodes import Branch

    chunks: list[list[str]] = []
    for line in text.splitlines()[1:]:
        if line and not line.startswith(" "):
            chunks.append([])
        if chunks:
            chunks[-1].append(line)

    def esc(s: str) -> str:
        return s.replace("\\", "\\\\").replace('"', '\\"')

    out = [f'digraph "{esc(ir.name)}" {{', '    node [shape=box, fontname="monospace"];']
    for b, lines in zip(ir.blocks, chunks):
        label = "".join(esc(ln) + "\\l" for ln in lines)
        out.append(f'    L{b.id} [label="{label}"];')
    for b in ir.blocks:
        t = b.term
        if isinstance(t, Branch):
            out.append(f'    L{b.id} -> L{t.then.id} [label="true"];')
            out.append(f'    L{b.id} -> L{t.orelse.id} [label="false"];')
        else:
            for s in b.successors():
                out.append(f"    L{b.id} -> L{s.id};")
    out.append("}")
    return "\n".join(out) + "\n"


def cmd_rules(args: argparse.Namespace) -> int:
    from .rules.catalog import format_catalog

    sys.stdout.write(format_catalog())
    return 0


def cmd_cache(args: argparse.Namespace) -> int:
    from . import cache

    try:
        root = cache.cache_root()
    except cache.NoCacheDirectory as e:
        raise InputError(f"no cache directory: {e}") from None
    if args.action == "path":
        print(root)
        return 0
    if args.action == "list":
        entries = cache.list_entries()
        if entries:
            width = max(len(e.function) for e in entries)
            print(f"{'FUNCTION':<{width}}  MODE     {'SIZE':>8}  AGE")
            for e in entries:
                print(f"{e.function:<{width}}  {e.mode:<7}  {e.size:>8}  {e.age}")
        print(f"{len(entries)} entries in {root}")
        return 0
    if args.action == "prune":
        removed = cache.prune_entries()
        for why, names in removed.items():
            for name in names:
                print(f"removed {name} ({why})")
        print(f"removed {sum(len(v) for v in removed.values())} files from {root}")
        return 0
    if args.action == "clear":
        n = cache.clear_entries()
        print(f"removed {n} entries from {root}")
        return 0
    count, problems = cache.verify_entries()
    for p in problems:
        print(p)
    if problems:
        raise CheckFailed(f"{len(problems)} problem(s) in {root} ({count} entries)")
    print(f"{count} entries ok in {root}")
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    import numpy as np

    from .errors import MooncakeError
    from .testing import DerivativeCheckError, check_derivatives

    target = load_target(args.target)
    try:
        values = eval(args.args, {"__builtins__": builtins, "np": np, "numpy": np})  # noqa: S307 (the user's own input)
    except Exception as e:
        raise InputError(f"--args {args.args!r}: {type(e).__name__}: {_one_line(e)}") from None
    call_args = values if isinstance(values, tuple) else (values,)
    try:
        report = check_derivatives(target.fn, *call_args, modes=tuple(_modes(args.mode)), rtol=args.rtol, atol=args.atol)
    except DerivativeCheckError as e:
        raise CheckFailed(_one_line(e)) from None
    except MooncakeError as e:
        raise InputError(_one_line(e)) from None
    except Exception as e:
        try:
            target.fn(*copy.deepcopy(call_args))
        except Exception as plain:  # the function itself refuses these arguments: an input error, not a check
            raise InputError(f"{target.fn.__qualname__}{args.args if isinstance(values, tuple) else f'({args.args})'} "
                             f"raises {type(plain).__name__} without any derivative: {_one_line(plain)}; give "
                             f"--args that the function accepts") from None
        raise CheckFailed(f"{target.fn.__qualname__} raised {type(e).__name__}: {_one_line(e)}") from None
    print(f"ok: {report}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    from . import __version__

    p = _Parser(prog=PROG, description="Differentiate Python/NumPy functions into readable derivative modules.",
                epilog="A TARGET is FILE.py::FUNC or module.path:FUNC (FUNC may be Class.method). "
                       "Exit codes: 0 ok, 1 a check failed, 2 usage or input error.")
    p.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    def mode_arg(q: argparse.ArgumentParser, default: str) -> None:
        q.add_argument("--mode", choices=("forward", "reverse", "both"), default=default,
                       help=f"which derivative (default: {default})")

    g = sub.add_parser("generate", help="write standalone derivative modules to commit and import")
    g.add_argument("target", metavar="TARGET")
    mode_arg(g, "forward")
    g.add_argument("-o", "--output", metavar="DIR", default=".", help="directory to write to (default: .)")
    g.add_argument("--include", action="append", default=[], metavar="TARGET",
                   help="also write the derivatives of this function or class (all its methods), FILE.py::NAME or "
                        "module.path:NAME: one the function is handed by its caller, which cannot be known ahead "
                        "(repeat for several)")
    g.set_defaults(run=cmd_generate)

    s = sub.add_parser("show", help="print the generated derivative module")
    s.add_argument("target", metavar="TARGET")
    mode_arg(s, "forward")
    s.set_defaults(run=cmd_show)

    i = sub.add_parser("ir", help="print the function's IR (or its control-flow graph in Graphviz dot)")
    i.add_argument("target", metavar="TARGET")
    i.add_argument("--dot", action="store_true", help="print the control-flow graph in Graphviz dot")
    i.set_defaults(run=cmd_ir)

    r = sub.add_parser("rules", help="list the registered rules, one line each")
    r.set_defaults(run=cmd_rules)

    c = sub.add_parser("cache", help="the derivative cache: where it is, what is in it, prune, clear, verify")
    c.add_argument("action", choices=("path", "list", "prune", "clear", "verify"))
    c.set_defaults(run=cmd_cache)

    k = sub.add_parser("check", help="check a function's derivatives at a point (finite differences, dot-product test)")
    k.add_argument("target", metavar="TARGET")
    k.add_argument("--args", required=True, metavar="EXPR",
                   help="the arguments: a Python expression (numpy is np), a tuple for several, e.g. '(0.3, np.ones(3))'")
    mode_arg(k, "both")
    k.add_argument("--rtol", type=float, default=1e-5)
    k.add_argument("--atol", type=float, default=1e-6)
    k.set_defaults(run=cmd_check)
    return p


def main(argv: Optional[list[str]] = None) -> int:
    sys.dont_write_bytecode = True  # importing the user's file must not litter its directory
    try:
        args = build_parser().parse_args(argv)
        return args.run(args)
    except InputError as e:
        print(f"{PROG}: error: {_one_line(e)}", file=sys.stderr)
        return 2
    except CheckFailed as e:
        print(f"{PROG}: check failed: {_one_line(e)}", file=sys.stderr)
        return 1
    except SystemExit as e:  # --help, --version
        return e.code if isinstance(e.code, int) else 0
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
