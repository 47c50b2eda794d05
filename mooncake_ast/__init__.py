"""mooncake_ast: automatic differentiation of ordinary Python and NumPy by source transformation.

    import mooncake_ast as mc
    y, dy = mc.jvp(f, (x,), (dx,))
    print(mc.source(f, "forward"))   # the generated derivative, as a readable module
"""
__version__ = "0.1.0"

from . import rules as _rules  # noqa: F401  (registers the built-in rules)
from .rules.registry import builtin_phase as _builtin_phase

with _builtin_phase():  # the rules the library's own modules register below are built-in too (the key's library part covers them)
    from .api import Differentiable, differentiate, grad, jvp, source, value_and_grad, vjp
    from .higher import hessian, hvp, jacfwd, jacrev
    from .rules import api_rules as _api_rules  # noqa: F401  (rules of the entry points: derivatives nest)
    from .rules.api_rules import NestingError
    from .api import ArgnumsError, ComplexReverseError, NonScalarOutputError, TangentError
    from .user_rules import frule, rrule, zero_derivative
    from .errors import MissingRuleError, MooncakeError, SourceUnavailableError, UnsupportedDerivativeError, UnsupportedSyntaxError
    from .tangents import FunctionTangent, MutableTangent, Tangent
    from .tangents import NoTangentType as NoTangent  # NoTangent() is the (singleton) tangent of ints, bools, str, None

    from . import testing  # noqa: E402

__all__ = [
    "jvp", "vjp", "grad", "value_and_grad", "differentiate", "frule", "rrule", "zero_derivative", "source", "Differentiable", "NoTangent", "Tangent", "MutableTangent",
    "FunctionTangent", "testing", "UnsupportedSyntaxError", "MissingRuleError", "MooncakeError",
    "SourceUnavailableError", "UnsupportedDerivativeError", "ArgnumsError", "TangentError", "NonScalarOutputError",
    "ComplexReverseError", "jacfwd", "jacrev", "hessian", "hvp", "NestingError",
]
