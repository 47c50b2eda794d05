"""mooncake_ast: automatic differentiation of ordinary Python and NumPy by source transformation.

    import mooncake_ast as mc
    y, dy = mc.jvp(f, (x,), (dx,))        # forward mode
    g = mc.grad(f)(x)                      # reverse mode (also value_and_grad, vjp)
    H = mc.hessian(f)(x)                   # jacfwd, jacrev, hessian, hvp; any nesting
    print(mc.source(f, "forward"))         # the generated derivative, as a readable module

Functions are differentiated from their source: define them in a .py file, in IPython or in a Jupyter
notebook (a function typed at the plain `python` prompt, given to `python -c` or made by exec() has
none: SourceUnavailableError).  Hand-written rules: mc.frule, mc.rrule, mc.zero_derivative.  Every error
of the library is an mc.MooncakeError that says what to do; an exception your function raises keeps its
type and message, and the traceback shows your lines.  `help(mc.grad)` and docs/api.md document every
public name; mc.testing.check_derivatives checks derivatives against finite differences.  The command line
`mooncake-ast generate FILE.py::FUNC` writes derivative modules that run on their own.
"""
__version__ = "0.1.0"

# The import runs with the cyclic collector paused (as a derivation does, cache_write._CollectorPaused):
# it makes ~15,000 objects that live as long as the process, which the collector's passes meanwhile
# would keep walking, and those passes (three of the middle generation, after numpy's import) made the oldest generation's
# full pass fall due right after `import mooncake_ast, libcst` (20-25 ms paid by the next few hundred
# allocations).  Only an enabled collector is paused, and it is enabled again however the import ends.
import gc as _gc

_collecting = _gc.isenabled()
if _collecting:
    _gc.disable()
try:
    from . import import_states as _import_states  # noqa: F401  (first: the state of every module imported after it is kept)

    # The library's own dataclasses (ir/types.py's and a few more) are made from code kept in the cache, as
    # libcst's are (cache_classes.py): compiling their methods was a tenth of this import.  (The cache module
    # loaded here is what a warm cache hit needs first anyway.)
    from .cache_classes import KeptCode as _KeptCode

    with _KeptCode(create=False):
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
finally:
    if _collecting:
        _gc.enable()
    del _collecting, _gc
del _KeptCode

__all__ = [
    "jvp", "vjp", "grad", "value_and_grad", "differentiate", "frule", "rrule", "zero_derivative", "source", "Differentiable", "NoTangent", "Tangent", "MutableTangent",
    "FunctionTangent", "testing", "UnsupportedSyntaxError", "MissingRuleError", "MooncakeError",
    "SourceUnavailableError", "UnsupportedDerivativeError", "ArgnumsError", "TangentError", "NonScalarOutputError",
    "ComplexReverseError", "jacfwd", "jacrev", "hessian", "hvp", "NestingError",
]
