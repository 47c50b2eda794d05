"""docs/api.md, made from the public names' docstrings, so that the reference and `help(mc.grad)` say
the same thing.  Regenerate with `python -m mooncake_ast.apidoc > docs/api.md` (a test checks it is
up to date)."""
from __future__ import annotations

import inspect
from typing import Any

# The order of the reference: entry points first, then rules, tangent types, errors.
SECTIONS = [
    ("Derivatives", ["grad", "value_and_grad", "jvp", "vjp", "jacfwd", "jacrev", "hessian", "hvp"]),
    ("Wrapping a function, reading the generated code", ["differentiate", "Differentiable", "source"]),
    ("Hand-written rules", ["frule", "rrule", "zero_derivative"]),
    ("Tangent types", ["NoTangent", "Tangent", "MutableTangent", "FunctionTangent"]),
    ("Checking derivatives", ["testing"]),
    ("Errors", ["MooncakeError", "UnsupportedSyntaxError", "MissingRuleError", "SourceUnavailableError",
                "UnsupportedDerivativeError", "ArgnumsError", "TangentError", "NonScalarOutputError",
                "ComplexReverseError", "NestingError"]),
]

METHODS = {"Differentiable": ["grad", "value_and_grad", "jvp", "vjp", "source", "source_path", "ir"],
           "testing": ["check_derivatives"]}


def _signature(obj: Any) -> str:
    if inspect.ismodule(obj) or inspect.isclass(obj) and issubclass(obj, BaseException):
        return ""
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return ""
    empty = inspect.Parameter.empty
    sig = sig.replace(parameters=[p.replace(annotation=empty) for p in sig.parameters.values()],
                      return_annotation=inspect.Signature.empty)
    return str(sig).replace("'", '"')


def _entry(title: str, obj: Any, level: str = "###") -> list:
    doc = inspect.getdoc(obj) or "(no docstring)"
    return [f"{level} `{title}{_signature(obj)}`", "", "```text", doc, "```", ""]


def render() -> str:
    """The text of docs/api.md."""
    import mooncake_ast as mc

    out = ["# mooncake_ast API reference", "",
           "Generated from the docstrings (`python -m mooncake_ast.apidoc > docs/api.md`); `help(mc.NAME)` "
           "shows the same text.  `import mooncake_ast as mc`.", ""]
    listed = {n for _, names in SECTIONS for n in names}
    rest = [n for n in mc.__all__ if n not in listed]
    for heading, names in SECTIONS + ([("Other names", rest)] if rest else []):
        out += [f"## {heading}", ""]
        for name in names:
            obj = getattr(mc, name)
            out += _entry(f"mc.{name}", obj)
            for meth in METHODS.get(name, []):
                out += _entry(f"mc.{name}.{meth}" if name == "testing" else f"{name}.{meth}", getattr(obj, meth), "####")
    return "\n".join(out).rstrip("\n") + "\n"


if __name__ == "__main__":
    print(render(), end="")
