"""The fixed parts of a module `mooncake-ast generate` writes: its `__vjp` entry point (the function's own
signature and defaults) and the lines that find the user's module when it is imported."""
from __future__ import annotations

import inspect
from typing import Any, Optional


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
