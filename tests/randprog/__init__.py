"""Random well-defined, smooth programs over floats and small float arrays, and an
independent checker (finite differences, plain calls) that classifies each one.

    from tests.randprog import FAMILIES, generate, check_program
    prog = generate(seed=7, family="inplace")        # a Program: family, source, args
    result = check_program(prog, directory)           # a Result: cls in ok/WRONG/CRASH/REFUSED/...

Used by tests/test_random_programs.py (a small fixed sample) and scripts/random_programs.py
(thousands, with shrinking of failures).
"""
from .gen import FAMILIES, Program, generate
from .check import Result, check_function, check_program, load_program
from .shrink import shrink

__all__ = ["FAMILIES", "Program", "generate", "Result", "check_function", "check_program", "load_program", "shrink"]
