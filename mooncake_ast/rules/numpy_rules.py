"""Rules of NumPy, both modes; importing this module registers all of them.

The rules live in one module per concept (this one only imports them, in a fixed order):

    numpy_common       helpers the rule modules share (registers nothing)
    numpy_elementwise  ufuncs and elementwise functions: one and two arguments, complex parts, clip, where, polyval
    numpy_reductions   sum, mean, max/min, prod, var/std, cumsum/cumprod, sort
    numpy_products     dot, matmul, inner, outer, tensordot, einsum, kron, vdot, cross
    numpy_shapes       reshape, transpose, joins and splits, repeat/tile, diagonal/trace, take, diff, pad
    numpy_creation     array/asarray, full, arange, linspace; the callables with no derivative
    numpy_linalg       np.linalg
    numpy_methods      np.ndarray methods

Their names are re-exported here, so `from .numpy_rules import <name>` keeps working.

Forward mode needs no unbroadcasting: tangents broadcast like their primals.
Linear functions applied to a tangent go through `t.lin`, so a zero tangent
costs nothing.  Reverse templates return one adjoint per positional argument
and undo broadcasting (`t.unb`); adjoints `g` reaching a helper may be the
symbolic zero `NoTangent`.

Conventions at non-differentiable points (documented in docs/rules.md): `abs`
and `sign`-like kinks take 0; `maximum`/`max`/`sort`/`clip` ties go to the first
argument (or the first position, or the inside of the interval); `sqrt` at 0
gives an infinite derivative.  Linear algebra rules assume real matrices;
`eigh`/`svd` need distinct eigen-/singular values, `cholesky` a positive
definite matrix, `qr` a tall (or square) full-rank matrix, `lstsq` a full-rank one.
"""
from __future__ import annotations

from .numpy_common import *  # noqa: F401,F403
from .numpy_common import _refuse_keywords  # noqa: F401  (math_rules.py)
from .numpy_elementwise import *  # noqa: F401,F403
from .numpy_reductions import *  # noqa: F401,F403
from .numpy_products import *  # noqa: F401,F403
from .numpy_shapes import *  # noqa: F401,F403
from .numpy_creation import *  # noqa: F401,F403
from .numpy_linalg import *  # noqa: F401,F403
from .numpy_methods import *  # noqa: F401,F403
from .numpy_methods import _scalar_methods

_scalar_methods()  # last: NumPy scalars get every ndarray method rule registered above
