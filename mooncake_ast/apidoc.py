"""docs/api.md, made from the public names' docstrings, so that the reference and `help(mc.grad)` say
the same thing.  Regenerate with `python -m mooncake_ast.apidoc > docs/api.md` (a test checks it is
up to date).

The outputs shown in docs/how-it-works.md (the IR, the forward and the reverse module of its example) are
made here too, so that the walk-through shows what the library does today:
`python -m mooncake_ast.apidoc how-it-works` rewrites them in place (a test checks them)."""
from __future__ import annotations

import inspect
import os
import re
import sys
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


# ---------------------------------------------------------------- docs/how-it-works.md

DEMO = "import math\n\n\ndef f(x, n):\n    s = 0.0\n    for i in range(n):\n        s = s + math.sin(x * i)\n    return s\n"
_FENCE = re.compile(r"^```[a-z]*\n(.*?)^```", re.M | re.S)


def how_it_works_outputs() -> list:
    """[the IR, the forward module after `mc.jvp(f, (0.3, 5), (1.0, None))`, the reverse module after
    `mc.grad(f)(0.3, 5)`] of DEMO, written to a file `demo.py` (without the cache's key lines)."""
    import importlib.util
    import sys
    import tempfile

    import mooncake_ast as mc

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "demo.py")
        with open(path, "w") as fh:
            fh.write(DEMO)
        spec = importlib.util.spec_from_file_location("demo", path)
        module = importlib.util.module_from_spec(spec)
        saved = sys.modules.get("demo")
        sys.modules["demo"] = module
        try:
            spec.loader.exec_module(module)
            f = module.f
            ir = mc.differentiate(f).ir()
            mc.jvp(f, (0.3, 5), (1.0, None))
            mc.grad(f)(0.3, 5)
            fwd, rev = mc.source(f, "forward"), mc.source(f, "reverse")
        finally:
            if saved is None:
                sys.modules.pop("demo", None)
            else:
                sys.modules["demo"] = saved
    strip = lambda text: "".join(ln for ln in text.splitlines(True) if not ln.startswith("# mooncake_ast-"))  # noqa: E731
    return [ir.rstrip("\n") + "\n", strip(fwd).rstrip("\n") + "\n", strip(rev).rstrip("\n") + "\n"]


def how_it_works_blocks(text: str) -> list:
    """The code blocks of docs/how-it-works.md: [DEMO, the pipeline, the IR, forward, reverse, ...]."""
    return _FENCE.findall(text)


def updated_how_it_works(text: str) -> str:
    """docs/how-it-works.md with its IR, forward and reverse blocks made again."""
    blocks = list(_FENCE.finditer(text))
    out, last = [], 0
    for m, new in zip(blocks[2:5], how_it_works_outputs()):
        out += [text[last:m.start(1)], new]
        last = m.end(1)
    return "".join(out) + text[last:]


if __name__ == "__main__":
    if sys.argv[1:] == ["how-it-works"]:
        doc = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "how-it-works.md")
        with open(doc) as fh:
            new_text = updated_how_it_works(fh.read())
        with open(doc, "w") as fh:
            fh.write(new_text)
    else:
        print(render(), end="")
