"""`python -m mooncake_ast ...`: the same command as `mooncake-ast` (see mooncake_ast/cli.py)."""
import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
