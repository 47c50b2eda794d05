"""Registers the rules added for issue 12 after the first round (one import per rule module, in order).

(python_statistics_more, statistics.geometric_mean/harmonic_mean/correlation/linear_regression, is registered
when the user's code imports `statistics`: registry._LAZY_TABLES.)"""
from . import numpy_ufunc_at  # noqa: F401  (np.multiply.at, np.maximum.at, np.negative.at, ...)
from . import numpy_linalg_complex  # noqa: F401  (forward mode of eigh/eigvalsh/svd/svdvals for complex matrices; after numpy_linalg)
from . import python_deque  # noqa: F401  (collections.deque, forward mode; reverse refused by name)
from . import numpy_misc_ops  # noqa: F401  (np.divmod, np.ldexp, np.around, np.resize, np.ediff1d, np.choose)
from . import numpy_functional  # noqa: F401  (np.piecewise, np.apply_along_axis: the user function through fcall/rcall)
from . import numpy_vectorize  # noqa: F401  (np.vectorize of a Python function, element by element)
from . import python_itertools  # noqa: F401  (itertools selections, accumulate, starmap; heapq.nlargest/nsmallest/merge; bisect)
from . import numpy_realistic  # noqa: F401  (np.histogram, np.fromiter, np.put_along_axis, np.lexsort, ...; after numpy_writes)
from . import python_cmath  # noqa: F401  (the cmath module, complex values in both modes)
from . import numpy_float_bits  # noqa: F401  (np.frexp, np.nextafter, np.spacing)
from . import numpy_linalg_complex_more  # noqa: F401  (np.linalg slogdet/cholesky/qr/lstsq of complex matrices; after numpy_linalg_complex)
from . import numpy_strided  # noqa: F401  (as_strided, sliding_window_view, broadcast_arrays; after numpy_shapes)
from . import numpy_products_more  # noqa: F401  (np.vecdot, np.matvec, np.vecmat, np.linalg.vecdot)
from . import numpy_ufunc_reduceat  # noqa: F401  (np.add.reduceat and the other arithmetic ufuncs' reduceat)
from . import numpy_planning  # noqa: F401  (np.einsum_path: zero-derivative)
from . import python_bisect  # noqa: F401  (bisect.insort into a list of differentiable numbers; after python_heapq)
