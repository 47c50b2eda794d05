"""The `mooncake-ast` command (see `mooncake-ast --help`)."""
from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    print("mooncake-ast: the command line is not built yet (see issue 5)", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
