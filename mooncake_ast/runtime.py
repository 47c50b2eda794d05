"""The one namespace generated modules import (as `_mc`): syntax helpers and AD runtime."""
from .ops import *  # noqa: F401,F403
from .ops import make_function, nested_code, new_cell  # noqa: F401
from .tangents import FunctionTangent, MethodTangent, MutableTangent, NoTangent, Tangent, zero_tangent  # noqa: F401
from .rules.registry import update  # noqa: F401
from .rules.helpers import *  # noqa: F401,F403
from .rules.builtin_rules import *  # noqa: F401,F403
from .rules.numpy_common import *  # noqa: F401,F403
from .rules.numpy_elementwise import *  # noqa: F401,F403
from .rules.numpy_reductions import *  # noqa: F401,F403
from .rules.numpy_products import *  # noqa: F401,F403
from .rules.numpy_shapes import *  # noqa: F401,F403
from .rules.numpy_creation import *  # noqa: F401,F403
from .rules.numpy_linalg import *  # noqa: F401,F403
from .rules.numpy_methods import *  # noqa: F401,F403
from .rules.math_rules import (add1, digamma, dist_adjoint, dist_tangent, frexp_adjoint, frexp_tangent, fsum_tangent,  # noqa: F401
    mathprod_adjoint, mathprod_tangent, modf_adjoint, modf_tangent, remainder_quotient)
from .forward.runtime import fcall  # noqa: F401
from .forward.transform import cell_tangent, fresh_storage, item_storage  # noqa: F401
from .forward.state import module_tangent, untracked_store  # noqa: F401
from .tangents import storage  # noqa: F401
from .reverse.adjoints import *  # noqa: F401,F403
from .reverse.runtime import rcall  # noqa: F401  (the dispatcher itself: one frame less per call)
from .reverse.list_adjoints import add_layer_adjoint, add_list_adjoint, zero_layers  # noqa: F401
from .reverse.field_adjoints import method_self_adjoints  # noqa: F401
from .reverse.shadows import (acc, append_reverse, cell_get_reverse, cell_set_reverse, getattr_reverse,  # noqa: F401
    getattr_default_reverse,
    getitem_reverse, inplace_reverse, save_attr, save_cell, save_inplace, save_item, setattr_reverse, setitem_reverse, take, transfer,
    save_membership, set_add_reverse, ufunc_out_reverse)


def __getattr__(name: str) -> object:
    """SciPy's derivative helpers (rules/scipy_rules), as `from .rules.scipy_rules import *` would give them,
    imported when first asked for: importing them would cost a warm cache hit a tenth of its time."""
    if not name.startswith("_"):
        from .rules import scipy_rules

        found = vars(scipy_rules)
        if name in found:
            globals()[name] = found[name]
            return found[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
