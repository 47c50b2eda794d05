"""The rule tables of builtins and of the syntax helpers in `ops`: importing this registers them all.

One concept per module, each imported after those it builds on (every rule is registered at
import; rules/containers.py, imported after this, replaces some container methods' rules):

* builtin_keys: dict keys and set items that would lose a derivative (refused);
* builtin_iteration: iteration, unpacking, list()/tuple()/zip()/enumerate()/sorted()/next();
* builtin_displays: displays, cells, and the `ops` helpers without a derivative;
* builtin_numeric: abs, float, complex, sum, max, min, pow, round, divmod, and builtins without a
  derivative (len, range, isinstance, ...);
* builtin_methods: methods of lists and dicts, and dict();
* builtin_attributes: getattr, setattr, and making a function (defaults, closures);
* builtin_consumers: map(), filter() and dict(), whose rules run when the call runs.

The names imported below are what other modules import from here (reverse/transform.py,
emit/planning.py, rules/api_rules.py, rules/nested_*.py, and `iter_tangents`, which many rule
modules read); new code imports them from the module that defines them.
"""
from __future__ import annotations

from . import builtin_keys, builtin_iteration, builtin_displays, builtin_numeric  # noqa: F401  (in this order)
from . import builtin_methods, builtin_attributes, builtin_consumers  # noqa: F401
from .builtin_attributes import getattr_tangent  # noqa: F401
from .builtin_displays import cell_tangent_get, storage_of  # noqa: F401
from .builtin_iteration import iter_tangents, unpack_tangent  # noqa: F401
from .builtin_keys import check_dict_keys, check_set_item, check_set_items  # noqa: F401
