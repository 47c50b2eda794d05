"""Registers the rules added for issue 12 after the first round (one import per rule module, in order)."""
from . import numpy_ufunc_at  # noqa: F401  (np.multiply.at, np.maximum.at, np.negative.at, ...)
from . import python_statistics_more  # noqa: F401  (statistics.geometric_mean, harmonic_mean, correlation, linear_regression)
from . import numpy_linalg_complex  # noqa: F401  (forward mode of eigh/eigvalsh/svd/svdvals for complex matrices; after numpy_linalg)
from . import python_deque  # noqa: F401  (collections.deque, forward mode; reverse refused by name)
from . import numpy_misc_ops  # noqa: F401  (np.divmod, np.ldexp, np.around, np.resize, np.ediff1d, np.choose)
from . import numpy_functional  # noqa: F401  (np.piecewise, np.apply_along_axis: the user function through fcall/rcall)
from . import numpy_vectorize  # noqa: F401  (np.vectorize of a Python function, element by element)
from . import python_itertools  # noqa: F401  (itertools selections, accumulate, starmap; heapq.nlargest/nsmallest/merge; bisect)
