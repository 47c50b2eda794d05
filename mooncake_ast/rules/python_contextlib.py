"""Rules of `contextlib`: the manager `@contextlib.contextmanager` makes.

Calling a function decorated by `@contextmanager` runs contextlib's `helper`, which builds a
`_GeneratorContextManager` over the user's generator.  Traced, that generator would be lowered like
any generator in differentiated code, run to its end at once (frontend/generator_ops.py): its code
after `yield`, the manager's exit, would run before the `with` body.  So building the manager is a
call with no derivative: the generator stays Python's own, lazy, and the `with` statement enters and
leaves it as it does any library's manager (frontend/stmt_ops.opaque_enter), which checks what that
plain run cannot carry: a value with a derivative handed to `as`, and a change the generator makes
to the differentiable numbers its arguments and closure reach (both refused).  `with suppress(...)`
and `with nullcontext(...)` are lowered by the frontend (frontend/with_stmt.py).
"""
from __future__ import annotations

import contextlib

from .registry import defzero

defzero(contextlib._GeneratorContextManager)  # (contextlib's own class, the same in every Python we support)
