"""The definitions and lambdas of a parsed text (frontend/source.py `_Parsed`) and `cst_queries.nodes_of` are
found without libcst's visit (which rebuilds every node it passes); they must be the same nodes, in the same
order, as a visit finds them."""
import libcst as cst
import pytest

from mooncake_ast.frontend import source
from mooncake_ast.frontend.cst_queries import nodes_of

TEXTS = [
    "def f(x):\n    return x\n",
    "@deco(lambda a: a)\ndef f(x):\n    g = lambda y: (lambda z: z + y)(x)\n    def h(q):\n        return lambda: q\n    return g\n",
    "class C:\n    @staticmethod\n    def m(a, k=lambda: 0):\n        return sorted(a, key=lambda t: -t), [lambda u: u for _ in a]\n\n"
    "def outer():\n    def inner():\n        def innermost():\n            return 1\n        return innermost\n    return inner\n",
    "f = lambda x: x if x else (lambda: lambda: x)\nasync def a():\n    return [lambda: 1, lambda: 2]\n",
    "import numpy as np\n\ndef loss(w, xs):\n    total = sum(np.tanh(w @ x) for x in xs if x is not None)\n"
    "    return total + {k: v for k, v in zip('ab', xs)}.get('a', 0.0)\n",
]


def _visited(module: cst.Module, positions) -> tuple:
    defs, lambdas, every = [], {}, []

    class Finder(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            every.append(node)
            if type(node) is cst.FunctionDef:
                defs.append(node)
            elif type(node) is cst.Lambda:
                lambdas.setdefault(positions[node].start.line, []).append(node)
            return True

    module.visit(Finder())
    return defs, lambdas, every


@pytest.mark.parametrize("text", TEXTS)
def test_defs_and_lambdas_in_visiting_order(text: str) -> None:
    module = cst.parse_module(text)
    parsed = source._Parsed(module, source.positions_of(module))
    defs, lambdas, _ = _visited(module, parsed.positions)
    assert [row[3] for row in parsed.defs] == defs
    assert all(a is b for a, b in zip([row[3] for row in parsed.defs], defs))
    assert parsed.lambdas.keys() == lambdas.keys()
    for line, found in lambdas.items():
        assert len(parsed.lambdas[line]) == len(found) and all(a is b for a, b in zip(parsed.lambdas[line], found))


@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("kind", [cst.Name, cst.Lambda, cst.CSTNode, (cst.Call, cst.Attribute), cst.FunctionDef])
def test_nodes_of_in_visiting_order_when_asked_again(text: str, kind) -> None:
    module = cst.parse_module(text)
    _, _, every = _visited(module, source.positions_of(module))
    expected = [n for n in every if isinstance(n, kind)]
    for _ in range(2):  # (the second answer comes from the nodes kept)
        found = nodes_of(module, kind)
        assert len(found) == len(expected) and all(a is b for a, b in zip(found, expected))
        for stmt in module.body:
            inner = [n for n in nodes_of(stmt, cst.CSTNode) if isinstance(n, kind)]
            assert inner == nodes_of(stmt, kind)
