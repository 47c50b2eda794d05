"""Activity analysis of generated forward code differentiated again (issue 10): the facts forward/activity.py needs
about what forward code calls, so that reverse mode over `f__jvp` follows module-level state a helper writes.

* `fcall(helper, df, args, dargs)` runs the helper's own forward code, which may write what it is handed
  (`helper(BUF, x)`), as a call without a rule would: dispatched_callee names the helper, and activity analysis
  treats the call as a call of it (a module-level array handed to it and read again is shared state whose reads
  get adjoints, instead of constants with a silently zero derivative).
* `module_tangent(G)` is the tangent storage of module-level state G, read once per use: one object (one alias
  class), and looked up by G's identity, as is `getattr_tangent(G, dG, "fill", G.fill)`: G stays bare there
  (read_shared_through_items gives other reads of G a view `G[...]`, which would find other storage).
"""
from __future__ import annotations

from typing import Any, Callable


def dispatched_callee(s: Any, fn: Any, rule: Any, user_globals: Any) -> Any:
    """The callable forward code hands to `fcall(f, df, args, dargs)` in s (None: known only when it runs), or
    activity's _NO_VALUE where s is another call (fn, rule: s's resolved callee and rule)."""
    from ..ir.nodes import Const
    from . import activity
    from .runtime import fcall

    if rule is None or fn is not fcall or not s.args or user_globals is None:
        return activity._NO_VALUE
    f = s.args[0]
    if isinstance(f, Const):
        return f.value
    obj = activity._evaluate_path(f, user_globals)
    return None if obj is activity._NO_VALUE else obj


def is_module_tangent(s: Any) -> bool:
    """Is s generated forward code's `_mc.module_tangent(G[, level])` (forward/state.py)?"""
    from .state import _module_tangent_level

    return _module_tangent_level(s, lambda st: st.callee()) is not None


def reads_identity(s: Any, static_rule: Callable) -> bool:
    """Does s look its first argument up by identity (`module_tangent(G)`, `getattr_tangent(G, dG, name, value)`)?"""
    if is_module_tangent(s):
        return True
    from ..rules.builtin_attributes import getattr_tangent

    return static_rule(s)[0] is getattr_tangent
