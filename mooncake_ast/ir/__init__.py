"""The basic-block SSA IR: nodes, builder, printer, verifier, analyses."""
from .nodes import Block, Branch, Call, Const, FreeVar, Function, Global, Goto, Loc, LoopInfo, Param, Phi, Raise, Return, Stmt, Value
from .printer import format_function
from .verifier import IRError, verify

__all__ = [
    "Block", "Branch", "Call", "Const", "FreeVar", "Function", "Global", "Goto", "Loc", "LoopInfo",
    "Param", "Phi", "Raise", "Return", "Stmt", "Value", "format_function", "verify", "IRError",
]
