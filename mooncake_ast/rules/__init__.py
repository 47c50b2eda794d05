"""Rule tables; importing this package registers every built-in rule.

SciPy's rules, those of numpy.random's draws and numpy.ma's refusals are registered later, by `registry.lookup`, once the
user's code has imported their module (registry._LAZY_TABLES): importing SciPy would cost more than
everything here, and numpy.random (10 ms) and numpy.ma (8 ms) are not imported by `import numpy`.
"""
from . import builtin_rules, math_rules, numpy_rules, operator_rules  # noqa: F401
from . import containers  # noqa: F401  (after builtin_rules: its container methods replace theirs)
from .registry import Rule, all_rules, defjvp, defmethod, defzero, lookup  # noqa: F401
from . import numpy_extra, numpy_statistics, numpy_quantiles, numpy_calculus, numpy_fft, numpy_more  # noqa: F401  (the rest of NumPy; after numpy_rules)
from . import python_lib  # noqa: F401  (functools.reduce, statistics)
from . import numpy_writes  # noqa: F401  (np.put, np.copyto, np.fill_diagonal)
from . import python_copy  # noqa: F401  (copy.copy, copy.deepcopy, list.copy, dict.copy)
from . import python_callables  # noqa: F401  (functools.partial, operator.itemgetter/attrgetter/methodcaller)
from . import python_caches  # noqa: F401  (functions memoised with functools.lru_cache / cache)
from . import python_collections  # noqa: F401  (collections.defaultdict, namedtuple classes, tuple.__new__)
from . import issue12_rules  # noqa: F401  (issue 12: ufunc.at of the other ufuncs, more statistics, ...)
from . import python_contextlib  # noqa: F401  (the managers @contextlib.contextmanager makes: built plainly)
from . import numpy_poly1d  # noqa: F401  (np.poly1d: making one, reading its coefficients)
from . import python_groupby  # noqa: F401  (itertools.groupby)
from . import python_local_classes  # noqa: F401  (a class statement in the differentiated function)
from . import python_wrappers  # noqa: F401  (functools.update_wrapper, functools.wraps)
from . import python_heapq  # noqa: F401  (heapq.heappush, heappop, heapify, heapreplace, heappushpop)
from . import rule_helper_predicates  # noqa: F401  (rules' helpers' `_complex(*xs)`: no derivative, at any order)
from . import smooth_squares  # noqa: F401  (norm(x) ** 2 and kin, differentiated as sums of squares)
from ..frontend import try_ops as _try_ops, generator_ops as _generator_ops
_try_ops.register_rules()  # (guarded_call and the helpers lowered `try` statements call; frontend/try_ops.py)
_generator_ops.register_rules()  # (what a generator function's derivative returns; frontend/generator_ops.py)
from .registry import end_builtin_phase

end_builtin_phase()  # what is registered from here on is the user's (described one by one in cache keys)
