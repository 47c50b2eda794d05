"""Emit the primal IR of a function back as Python (the round-trip check of the pipeline)."""
from __future__ import annotations

import types

from ..frontend.statements import lower_function
from .module import ModuleWriter, emit_function


def user_names(fn: types.FunctionType, ir) -> set[str]:
    """Every name the user function mentions: generated names must avoid them all."""
    code_names: set[str] = set()

    def walk(code: types.CodeType) -> None:
        code_names.update(code.co_varnames, code.co_names, code.co_freevars, code.co_cellvars)
        for c in code.co_consts:
            if isinstance(c, types.CodeType):
                walk(c)

    walk(fn.__code__)
    return code_names | set(ir.local_names) | set(ir.globals_read) | {p.name for p in ir.params}


def primal_source(fn: types.FunctionType) -> str:
    ir = lower_function(fn)
    writer = ModuleWriter(user_names(fn, ir), fn.__globals__, ir.local_names)
    params = [ir.self_ref] + list(ir.params)
    writer.add_function(emit_function(ir, writer, f"{ir.name}__primal", params))
    return writer.render()
