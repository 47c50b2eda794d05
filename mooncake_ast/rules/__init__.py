"""Rule tables; importing this package registers every built-in rule."""
from . import builtin_rules, math_rules, numpy_rules, operator_rules  # noqa: F401
from . import containers  # noqa: F401  (after builtin_rules: its container methods replace theirs)
from .registry import Rule, all_rules, defjvp, defmethod, defzero, lookup  # noqa: F401
from . import numpy_extra, numpy_statistics, numpy_calculus  # noqa: F401  (the rest of NumPy; after numpy_rules)

try:  # SciPy is optional: scipy_rules registers nothing without it
    from . import scipy_rules  # noqa: F401
except ImportError:  # pragma: no cover
    pass
