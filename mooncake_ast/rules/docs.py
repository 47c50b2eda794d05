"""Render docs/rules.md: every callable with a built-in rule and its modes, and how to write a rule.

    python -m mooncake_ast.rules.docs            # rewrite docs/rules.md
    python -m mooncake_ast.rules.docs --check    # exit 1 if docs/rules.md is stale

The tables come from `catalog()`.  SciPy's rules are listed from `scipy_rules.FUNCTIONS`, so the
page is the same whether or not SciPy is installed where it is generated.
"""
from __future__ import annotations

import os
import sys

from . import scipy_rules, scipy_stats
from .catalog import catalog

GROUPS = [
    ("Python operators (`operator`)", "_operator."),
    ("Builtins and their methods", ""),
    ("`math`", "math."),
    ("NumPy", "numpy."),
    ("Syntax helpers (`mooncake_ast.ops`)", "mooncake_ast.ops."),
]

# Callables whose reverse mode the reverse transform does itself (it undoes the mutation); their
# rules here are forward templates.  tests/test_rules.py checks them in both modes.
REVERSE_BY_TRANSFORM = {
    "_operator.setitem", "_operator.iadd", "_operator.isub", "_operator.imul", "_operator.itruediv",
    "_operator.ipow", "_operator.imod", "_operator.ifloordiv", "_operator.imatmul", "setattr", "set.add", "list.append",
    "list.extend", "list.insert", "list.pop", "numpy.ufunc.at", "mooncake_ast.ops.cell_get",
    "mooncake_ast.ops.cell_set",
}

# Why a callable has a forward rule only, and what reverse mode does with it.
REVERSE_ELSEWHERE = {
    "_operator.setitem": "reverse: undone by the pullback (reverse/transform.py)",
    "_operator.iadd": "reverse: undone by the pullback (reverse/transform.py)",
    "_operator.isub": "reverse: undone by the pullback (reverse/transform.py)",
    "_operator.imul": "reverse: undone by the pullback (reverse/transform.py)",
    "_operator.itruediv": "reverse: undone by the pullback (reverse/transform.py)",
    "_operator.ipow": "reverse: undone by the pullback (reverse/transform.py)",
    "_operator.imod": "reverse: undone by the pullback (reverse/transform.py)",
    "_operator.ifloordiv": "reverse: undone by the pullback (reverse/transform.py)",
    "_operator.imatmul": "reverse: undone by the pullback (reverse/transform.py)",
    "setattr": "reverse: undone by the pullback (reverse/transform.py)",
    "set.add": "reverse: undone by the pullback (reverse/transform.py)",
    "list.append": "reverse: undone by the pullback (reverse/transform.py, reverse/runtime.py)",
    "list.extend": "reverse: undone by the pullback (reverse/containers.py)",
    "list.insert": "reverse: undone by the pullback (reverse/containers.py)",
    "list.pop": "reverse: undone by the pullback (reverse/containers.py)",
    "list.sort": "reverse: undone by the pullback, slots follow their items (reverse/containers.py)",
    "list.remove": "reverse: undone by the pullback (reverse/containers.py)",
    "list.clear": "reverse: undone by the pullback (reverse/containers.py)",
    "dict.setdefault": "reverse: undone by the pullback (reverse/containers.py)",
    "dict.pop": "reverse: undone by the pullback (reverse/containers.py)",
    "dict.popitem": "reverse: undone by the pullback (reverse/containers.py)",
    "dict.clear": "reverse: undone by the pullback (reverse/containers.py)",
    "_operator.or_": "dicts: each key's value from the operand it came from; ints and sets: zero",
    "_operator.ior": "dicts: in place, undone by the pullback (reverse/shadows.py)",
    "numpy.ndarray.sort": "in place, ties in stable order; reverse: undone by the pullback (reverse/containers.py)",
    "numpy.ufunc.at": "`np.add.at`, `np.subtract.at` (reverse: undone by the pullback, reverse/runtime.py); the "
                      "`at` of the other float ufuncs: rules/numpy_ufunc_at.py, repeated indices in order",
    "mooncake_ast.ops.cell_get": "reverse: reverse/transform.py (closure cells)",
    "mooncake_ast.ops.cell_set": "reverse: undone by the pullback (reverse/transform.py)",
    "_operator.delitem": "in place; reverse: the removed items are put back (reverse/shadows.py)",
    "list.reverse": "reverse: undone by the pullback (reverse/containers.py)",
    "dict.update": "mappings, pairs and keywords; reverse: undone by the pullback (reverse/containers.py)",
    "numpy.ndarray.fill": "in place; reverse: undone by the pullback (reverse/containers.py)",
    "iter": "reverse mode not supported (an iterator's position is state)",
    "next": "advances its iterator; reverse mode not supported",
}

NOTES = {
    "abs": "slope 0 at 0",
    "_operator.abs": "slope 0 at 0",
    "max": "ties: the first argument",
    "min": "ties: the first argument",
    "dict": "a mapping or pairs, and keyword values",
    "divmod": "the quotient has zero derivative",
    "math.fabs": "slope 0 at 0",
    "math.sqrt": "infinite slope at 0",
    "math.prod": "a differentiated `start=` is refused in reverse mode",
    "numpy.absolute": "slope 0 at 0; complex inputs: Re(conj(x) dx)/abs(x)",
    "numpy.sqrt": "infinite slope at 0",
    "numpy.maximum": "ties: the first argument",
    "numpy.minimum": "ties: the first argument",
    "numpy.fmax": "ties: the first argument; NaN loses",
    "numpy.fmin": "ties: the first argument; NaN loses",
    "numpy.max": "the first position attaining the max",
    "numpy.min": "the first position attaining the min",
    "numpy.ndarray.max": "the first position attaining the max",
    "numpy.ndarray.min": "the first position attaining the min",
    "numpy.clip": "at a bound: the inside; bounds may be differentiated",
    "numpy.ndarray.clip": "at a bound: the inside; bounds may be differentiated",
    "numpy.sort": "ties keep their order",
    "numpy.einsum": "subscripts-string form; traces and diagonals (repeated indices), `...`",
    "numpy.cross": "2- or 3-vectors",
    "numpy.pad": "modes constant, edge, reflect, symmetric, wrap, linear_ramp, mean, maximum, minimum, median (empty refused)",
    "numpy.linalg.norm": "vector ords None/1/2/p/inf/-inf/0; matrix 'fro', 'nuc', 2, -2, 1, -1, inf, -inf",
    "numpy.linalg.cholesky": "reads one triangle, as NumPy does; positive definite",
    "numpy.linalg.eigh": "reads one triangle; distinct eigenvalues",
    "numpy.linalg.eigvalsh": "reads one triangle",
    "numpy.linalg.qr": "tall or square, full rank; modes reduced, r (complete if square)",
    "numpy.linalg.svd": "distinct nonzero singular values; full_matrices=False unless square",
    "numpy.linalg.lstsq": "full rank",
    "numpy.linalg.slogdet": "real matrices; the sign has zero derivative",
    "numpy.linalg.det": "a singular matrix raises in reverse mode",
    "numpy.linspace": "start/stop scalars or arrays, `retstep`, `axis`",
    "numpy.arange": "in start and step (stop only sets the length)",
    "numpy.sinc": "slope 0 at 0",
}

HOW_TO = '''\
## How to write a rule

### Built-in rules (this package)

A rule is a *template*: a function that builds the derivative from the operands through a small
builder `t`.  The same template runs twice: when a derivative module is generated (operands are IR
values, and the template's calls become lines of the generated code) and when a call is only
dispatched at run time (operands are real values).  So a template may only combine its operands
with the builder, and with helper functions defined at module level in the rule files (generated
code calls them as `_mc.<name>`).

```python
from mooncake_ast.rules.registry import defjvp, defvjp, defzero, defmethod, defvjp_method

# forward: t, the primal result y, then the call's arguments; return the tangent of y (None for zero)
defjvp(np.sinh, lambda t, y, x: t.mul(t.d(x), t.call(np.cosh, x)))
# reverse: t, the result's adjoint g, y, then the arguments; return one adjoint per positional argument
defvjp(np.sinh, lambda t, g, y, x: (t.mul(g, t.call(np.cosh, x)),))
# binary functions undo NumPy broadcasting with t.unb(adjoint, operand)
defvjp(np.hypot, lambda t, g, y, a, b: (t.unb(t.mul(g, t.div(a, y)), a), t.unb(t.mul(g, t.div(b, y)), b)))
# methods are keyed by (type, name); self is the first operand
defmethod(np.ndarray, "cumsum", lambda t, y, x, axis=None: t.lin(np.cumsum, t.d(x), axis=axis))
defvjp_method(np.ndarray, "cumsum", lambda t, g, y, x, axis=None: (t.call(cumsum_adjoint, x, g, axis),))
# no derivative at all
defzero(np.argmax)
```

The builder: `t.d(x)` is x's tangent, or None when it is known to be zero; `t.dz(x)` is the tangent or
the symbolic zero `NoTangent` (for building containers); `t.call(fn, ...)` calls `fn`;
`t.add/sub/mul/div/neg` do arithmetic in which None is zero; `t.lin(fn, dx, ...)` applies a
function linear in its first argument (nothing when `dx` is zero), `t.linr(fn, x, dy)` one linear
in its second; `t.unb(g, x)` sums an adjoint back to x's shape; `t.value(x)` is a constant
operand's value; `t.update(dx, new)` writes an in-place operation's tangent into storage (with
`defjvp(..., mutates=(0,))`, whose template runs before the call and does not see y).

Helpers receive tangents and adjoints that may be `NoTangent` (a zero of any shape, also when it is
known only as the code runs, e.g. a constant array a helper returned) or, for adjoints, a scalar 0
standing for an array's zero (`_no_adjoint` in numpy_common.py), so they test for it first.  Where a
function is not differentiable, a rule picks a documented value (the conventions below) or raises
`NotImplementedError` when it runs; it never guesses.

Templates see their call bound the way the function binds it: operands passed by the function's
parameter names (`np.dot(a=A, b=B)`, `np.sum(a=x)`, `np.stack(arrays=xs)`) arrive in their positional
slots (`call_binding.bind_positional`, from the function's signature; ufuncs and builtins without one are
left as called).  A reverse template returns one adjoint per positional argument, then optionally a
`KwAdj` of adjoints of keyword operands by name (`np.sum(x, initial=y)`, `max([], default=x)`).  A
caller that does not read keyword adjoints gets a refusal when such an operand is differentiated,
never a silent zero.  `out=` is handled once for every rule (`run_template` and `rcall_into_out` in
eager.py): the template computes the fresh result's derivative and never sees `out=`.  A rule whose
result may be a view of an operand (einsum "ij->ji", broadcast_to, diagonal) does not add an adjoint
that already sits in the operand's storage (`_in_storage`).

Every rule needs test inputs in `tests/test_rules.py` (the suite fails otherwise): they run
`mooncake_ast.testing.check_derivatives`, which compares forward mode with finite differences and
reverse mode with forward mode (the dot-product test).

### Rules for your own functions

A callable with a user rule is never traced into; registering a rule invalidates derivatives that
could have used the old one.

```python
import mooncake_ast as mc

@mc.frule(softplus)
def softplus_jvp(primals, tangents):            # one tangent per positional argument
    (x,), (dx,) = primals, tangents
    return softplus(x), dx / (1.0 + math.exp(-x))

@mc.rrule(softplus)
def softplus_vjp(x):                            # the same arguments as softplus
    y = softplus(x)
    return y, lambda y_bar: (y_bar / (1.0 + math.exp(-x)),)   # one adjoint per positional argument

mc.zero_derivative(rng_draw, bucket_of)         # results get zero tangents and adjoints
```

A function with an `frule` but no `rrule` works in forward mode only (and the other way round);
check both with `mc.testing.check_derivatives(f, *args)`.
'''

CONVENTIONS = '''\
## Conventions

- **Kinks**: `abs`, `fabs`, `copysign` and `sinc`-like points take slope 0 at 0; `max`/`min`,
  `np.maximum`/`np.minimum`/`np.fmax`/`np.fmin` and the reductions `np.max`/`np.min` follow the first
  argument (or the first position) attaining the result; `np.sort` keeps tied values in order;
  `np.clip` at a bound counts as inside.
- **Infinite slopes**: `sqrt` (and `cbrt`, `x ** p` with p < 1) at 0 give `inf`.
- **Jumps** (`%`, `fmod`, `remainder`, `divmod`, `modf`, `frexp`, `floor`, `round`, ...): differentiated
  between the jumps; the jumps themselves count as zero.
- **Linear algebra** assumes real matrices.  `eigh` needs distinct eigenvalues and `svd` distinct,
  nonzero singular values (otherwise the derivative is infinite); `cholesky` and `eigh` differentiate
  with respect to the triangle NumPy reads; `qr` needs a tall or square full-rank matrix; `lstsq` a
  full-rank one.  Unsupported cases raise `NotImplementedError`.
- **Zero spread**: `np.std` (and `ndarray.std`) where all the entries are equal (one entry, say) has
  derivative 0, the value of the kink.
- **NumPy scalars** (`np.float64`, ...) have the rules of the `ndarray` methods they share (`item`,
  `reshape`, `squeeze`, `tolist`, `sum`, ...).
- **Complex numbers**: the tangent of a complex value is complex; reverse mode follows the inner product
  Re(conj(a) b) (x_bar = conj(f'(z)) y_bar; a real loss's gradient is dL/dx + i dL/dy, JAX's conjugate).
  Only rules marked right for complex values (`registry.defcomplex`; README "Complex numbers" lists them)
  take them in reverse mode; the others refuse complex values with an error that names the rule.
'''


def _cell(name, modes, mode):
    if "zero" in modes:
        return "zero"
    if mode in modes:
        return "yes"
    return "transform" if mode == "reverse" and name in REVERSE_BY_TRANSFORM else "-"


def _table(rows):
    out = ["| Callable | Forward | Reverse | Notes |", "|---|---|---|---|"]
    for name, modes in rows:
        note = NOTES.get(name) or REVERSE_ELSEWHERE.get(name, "")
        out.append(f"| `{name}` | {_cell(name, modes, 'forward')} | {_cell(name, modes, 'reverse')} | {note} |")
    return out


def _rows():
    """(name, modes) per callable (entries of the same name merged), SciPy's left out."""
    merged: dict = {}
    for e in catalog():
        if e.key in scipy_rules.REGISTERED or e.key in scipy_stats.REGISTERED:
            continue
        merged.setdefault(e.name, set()).update(e.modes)
    return sorted(merged.items())


def render() -> str:
    rows = _rows()
    both = sum(1 for _, m in rows if {"forward", "reverse"} <= m)
    forward_only = sum(1 for _, m in rows if m == {"forward"})
    zero = sum(1 for _, m in rows if m == {"zero"})
    lines = [
        "# Rules",
        "",
        "<!-- Generated by `python -m mooncake_ast.rules.docs` from the rule registry; do not edit. -->",
        "",
        f"mooncake_ast has built-in rules for {len(rows)} callables (and {len(scipy_rules.FUNCTIONS)} more "
        f"from `scipy.special` and {len(scipy_stats.FUNCTIONS)} from `scipy.stats` when SciPy is installed):",
        f"{both} with forward and reverse rules, {zero} declared zero-derivative, and {forward_only} with a "
        f"forward rule only: {len(REVERSE_BY_TRANSFORM)} whose reverse the reverse transform does itself "
        "(in-place updates it undoes, closure cells; \"transform\" below), and a few reverse mode does not "
        "support yet.",
        "Any other Python function is differentiated from its source; any other callable without source "
        "needs a rule (below).",
        "",
        CONVENTIONS,
    ]
    for title, prefix in GROUPS:
        if prefix:
            group = [(n, m) for n, m in rows if n.startswith(prefix)]
        else:
            group = [(n, m) for n, m in rows if not any(n.startswith(p) for _, p in GROUPS if p)]
        lines += [f"## {title}", ""] + _table(group) + [""]
    lines += ["## SciPy (`scipy.special`, when installed)", "",
              "Registered only when `import scipy.special` succeeds (mooncake_ast does not depend on SciPy).", ""]
    lines += _table([(f"scipy.special.{n}", {"forward", "reverse"}) for n in scipy_rules.FUNCTIONS]) + [""]
    lines += ["## SciPy (`scipy.stats`, when installed)", "",
              "Registered only once `scipy.stats` is imported.  Continuous distributions: x, loc and scale in every "
              "method, shape parameters in logpdf/pdf only (cdf-like methods refuse a differentiated shape "
              "parameter: no closed form); poisson in mu; multivariate_normal in x, mean and a 2-D cov (its lower "
              "triangle, which SciPy reads).  ppf/isf in q, loc and scale.  Frozen distributions "
              "(`norm(m, s).cdf(x)`, `multivariate_normal(mean, cov).logpdf(x)`) carry their parameters' "
              "derivatives.  Every other distribution (`rv_continuous.*`, `rv_discrete.*` below: gumbel_r, pareto, "
              "vonmises, truncnorm, betabinom, ...) is differentiated through its private formula (`_logpdf`, "
              "`_cdf`, `_ppf`, ...) in all its parameters, where that formula gives SciPy's value (refused where it "
              "does not: outside the support) and can itself be followed.", ""]
    lines += _table([(f"scipy.stats.{n}", {"forward", "reverse"}) for n in scipy_stats.FUNCTIONS]) + [""]
    lines += [HOW_TO]
    return "\n".join(lines).rstrip("\n") + "\n"


def docs_path() -> str:
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return os.path.join(root, "docs", "rules.md")


def main(argv: list | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    text = render()
    path = docs_path()
    if "--check" in argv:
        try:
            with open(path, encoding="utf-8") as f:
                current = f.read()
        except OSError:
            current = None
        if current != text:
            print(f"{path} is stale: run python -m mooncake_ast.rules.docs", file=sys.stderr)
            return 1
        return 0
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
