"""frontend/source.walk: libcst's visit for visitors that only read, without copying every node.

It must pass the visitor the nodes libcst's own walk passes (whitespace aside: libcst skips a few),
entering and leaving each once, skipping children where a visit method says False, whether the
visitor defines `visit_<Node>` methods or overrides `on_visit`.  Nothing here is timed."""
import textwrap

from mooncake_ast.frontend import scopes, source

cst = source.cst

TEXT = textwrap.dedent("""\
    import os.path as p, sys
    from math import (sin, cos as c)


    @decorate(lambda q: q + 1)
    def f(x, /, y=2, *args, k: int = 3, **kw):
        global G
        a, (b, *c) = x, (y, 1, 2)
        total: float = 0.0
        total += sum(v * v for v in args if v)
        with open(p.join("a", "b")) as (fh, other):
            pass
        for i, j in zip(args, args):
            if (n := i + j) > 2 and not j:
                continue
            else:
                total -= n
        match x:
            case {"a": [1, *rest]} | [rest] if rest:
                pass
            case Point(x=0, y=yy) as pt:
                pass
            case _:
                pass
        try:
            import json
        except (ValueError, KeyError) as err:
            raise RuntimeError("no") from err
        finally:
            del a

        def inner(z):
            nonlocal total
            return [w for w in z if (u := w)]

        class K:
            attr = 1
        return lambda t, *, s=1: t + total + s
    """)


class Record(cst.CSTVisitor):
    def __init__(self, stop=()):
        self.entered, self.left, self.stop = [], [], stop

    def on_visit(self, node):
        if not isinstance(node, cst.SimpleWhitespace):
            self.entered.append(node)
        return not isinstance(node, self.stop)

    def on_leave(self, original_node):
        if not isinstance(original_node, cst.SimpleWhitespace):
            self.left.append(original_node)


class Names(cst.CSTVisitor):
    """visit_/leave_ methods, as most visitors are written."""

    def __init__(self):
        self.seen, self.depth, self.max_depth = [], 0, 0

    def visit_Name(self, node):
        self.seen.append(node.value)

    def visit_FunctionDef(self, node):
        self.depth += 1
        self.max_depth = max(self.max_depth, self.depth)

    def leave_FunctionDef(self, original_node):
        self.depth -= 1

    def visit_Lambda(self, node):
        return False  # its names are not walked


def ids(nodes):
    return sorted(map(id, nodes))


def test_walk_passes_the_nodes_libcst_passes():
    module = cst.parse_module(TEXT)
    for stop in ((), (cst.Lambda, cst.ClassDef)):
        a, b = Record(stop), Record(stop)
        module.visit(a)
        source.walk(module, b)
        assert len(a.entered) > 300 and ids(a.entered) == ids(b.entered) and ids(a.left) == ids(b.left)
        assert len(set(map(id, b.entered))) == len(b.entered)  # each node once
    a, b = Names(), Names()
    module.visit(a)
    source.walk(module, b)
    assert sorted(a.seen) == sorted(b.seen) and "q" not in b.seen and "yy" in b.seen
    assert b.depth == 0 and b.max_depth == a.max_depth == 2


def test_scope_names_are_those_libcst_s_walk_finds():
    module = cst.parse_module(TEXT)
    node = module.body[2]
    v = scopes._LocalNames()
    v.depth = 1
    node.params.visit(v)
    node.body.visit(v)
    found = scopes._scope_names(node)
    assert found == (v.names, v.nonlocal_names, v.global_names)
    assert {"a", "b", "c", "n", "fh", "other", "rest", "yy", "pt", "json", "inner", "K", "x", "kw"} <= found[0]
    assert "w" not in found[0] and "u" not in found[0] and found[2] == {"G"}
