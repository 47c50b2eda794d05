"""Test utilities: run emitted primal code, lower with verification."""
import types

from mooncake_ast.emit.primal import primal_source
from mooncake_ast.frontend.statements import lower_function
from mooncake_ast.ir import verify


def lower_verified(fn):
    ir = lower_function(fn)
    verify(ir)
    return ir


def run_primal_roundtrip(fn, *args, **kwargs):
    """Lower fn, emit its primal IR as Python, and call that instead of fn."""
    text = primal_source(fn)
    ns: dict = {}
    exec(compile(text, f"<primal {fn.__qualname__}>", "exec"), ns)
    raw = next(v for k, v in ns.items() if k.endswith("__primal"))
    g = types.FunctionType(raw.__code__, fn.__globals__, raw.__name__, raw.__defaults__, raw.__closure__)
    g.__kwdefaults__ = raw.__kwdefaults__
    from mooncake_ast.forward.runtime import bind
    from mooncake_ast.tangents import NoTangent

    primals, _ = bind(fn, NoTangent, args, (NoTangent,) * len(args), kwargs, {})
    return g(fn, *primals)


def fd_jac(f, x, eps=1e-6):
    """Central-difference Jacobian of f (array -> array or float) at array x: out dims then in dims."""
    import numpy as np

    x = np.asarray(x, dtype=float)
    y0 = np.asarray(f(x.copy()), dtype=float)
    J = np.zeros(y0.shape + x.shape)
    for idx in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[idx] = eps
        J[(...,) + idx] = (np.asarray(f(x + e), dtype=float) - np.asarray(f(x - e), dtype=float)) / (2 * eps)
    return J
