"""Lowering of expressions: every operation becomes a `Call` of a Python callable.

`x + y` -> `operator.add(x, y)`, `x.a` -> `getattr(x, 'a')`, `x[i]` ->
`operator.getitem(x, i)`, displays -> `ops.tuple_of(...)` etc.  Short-circuit
`and`/`or`, chained comparisons and ternaries become branches and a phi.
Comprehensions and generator expressions become loops that build a list (a
generator is materialised: its consumer sees the same items in order).
"""
from __future__ import annotations

import ast
import operator
import types
from typing import Any, Callable, Optional, Union

import libcst as cst

from .. import ops
from ..ir.nodes import Const, Global, Value

BINARY = {
    cst.Add: operator.add, cst.Subtract: operator.sub, cst.Multiply: operator.mul,
    cst.Divide: operator.truediv, cst.FloorDivide: operator.floordiv, cst.Modulo: operator.mod,
    cst.Power: operator.pow, cst.MatrixMultiply: operator.matmul, cst.LeftShift: operator.lshift,
    cst.RightShift: operator.rshift, cst.BitOr: operator.or_, cst.BitAnd: operator.and_,
    cst.BitXor: operator.xor,
}
AUGMENTED = {
    cst.AddAssign: operator.iadd, cst.SubtractAssign: operator.isub, cst.MultiplyAssign: operator.imul,
    cst.DivideAssign: operator.itruediv, cst.FloorDivideAssign: operator.ifloordiv,
    cst.ModuloAssign: operator.imod, cst.PowerAssign: operator.ipow,
    cst.MatrixMultiplyAssign: operator.imatmul, cst.LeftShiftAssign: operator.ilshift,
    cst.RightShiftAssign: operator.irshift, cst.BitOrAssign: operator.ior,
    cst.BitAndAssign: operator.iand, cst.BitXorAssign: operator.ixor,
}
UNARY = {cst.Minus: operator.neg, cst.Plus: operator.pos, cst.Not: operator.not_, cst.BitInvert: operator.invert}
COMPARE = {
    cst.Equal: operator.eq, cst.NotEqual: operator.ne, cst.LessThan: operator.lt,
    cst.LessThanEqual: operator.le, cst.GreaterThan: operator.gt, cst.GreaterThanEqual: operator.ge,
    cst.Is: operator.is_, cst.IsNot: operator.is_not,
}


class ExpressionLowering:
    """Mixin of `Lowering` (statements.py): expression visitors."""

    # provided by the statement lowering
    b: "object"

    def expr(self, node: cst.BaseExpression) -> Value:
        method: Optional[Callable] = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            self.unsupported(node, f"expression {type(node).__name__}")
        return method(node)  # type: ignore[misc]

    # ------------------------------------------------------------ atoms
    def expr_Name(self, node: cst.Name) -> Value:
        if node.value in ("True", "False", "None"):
            return Const({"True": True, "False": False, "None": None}[node.value])
        return self.read_name(node.value, node)  # type: ignore[attr-defined]

    def expr_Integer(self, node: cst.Integer) -> Value:
        return Const(number_value(node))

    expr_Float = expr_Integer
    expr_Imaginary = expr_Integer

    def expr_SimpleString(self, node: cst.SimpleString) -> Value:
        return Const(node.evaluated_value)

    def expr_ConcatenatedString(self, node: cst.ConcatenatedString) -> Value:
        """`"a" f"{x}"`: libcst evaluates a concatenation only when no part is an f-string (None otherwise), so
        the parts are lowered one by one and joined as Python joins them."""
        if not any(isinstance(p, cst.FormattedString) for p in _string_parts(node)):
            return Const(node.evaluated_value)
        return self.b.call(ops.join_str, [self.expr(p) for p in _string_parts(node)])

    def expr_Ellipsis(self, node: cst.Ellipsis) -> Value:
        return Const(Ellipsis)

    def expr_FormattedString(self, node: cst.FormattedString) -> Value:
        return self._formatted(node.parts, node.prefix)

    def _formatted(self, nodes: Any, prefix: str) -> Value:
        """The parts of an f-string (or of a replacement field's format spec), joined; literal text is
        read as Python reads it under the string's prefix (escapes interpreted unless raw)."""
        parts: list[Value] = []
        for p in nodes:
            if isinstance(p, cst.FormattedStringText):
                parts.append(Const(literal_text(p.value, prefix)))
            else:
                value = self.expr(p.expression)
                spec = Const("")
                if p.format_spec:
                    spec = self._formatted(p.format_spec, prefix)
                conv = Const(p.conversion or "")
                parts.append(self.b.call(ops.format_value, [value, spec, conv]))
        return self.b.call(ops.join_str, parts)

    # ------------------------------------------------------------ operators
    def expr_BinaryOperation(self, node: cst.BinaryOperation) -> Value:
        left = self.expr(node.left)
        right = self.expr(node.right)
        return self.b.call(BINARY[type(node.operator)], [left, right])

    def expr_UnaryOperation(self, node: cst.UnaryOperation) -> Value:
        operand = self.expr(node.expression)
        return self.b.call(UNARY[type(node.operator)], [operand])

    def expr_BooleanOperation(self, node: cst.BooleanOperation) -> Value:
        left = self.expr(node.left)
        var = self.temp_var("bool")  # type: ignore[attr-defined]
        self.b.write(var, left)
        rhs, join = self.b.new_block(), self.b.new_block()
        if isinstance(node.operator, cst.And):
            self.b.branch(left, rhs, join)
        else:
            self.b.branch(left, join, rhs)
        self.b.seal(rhs)
        self.b.position_at(rhs)
        self._arm(lambda: self.b.write(var, self.expr(node.right)))
        self.b.goto(join)
        self.b.seal(join)
        self.b.position_at(join)
        return self.b.read(var)

    def expr_Comparison(self, node: cst.Comparison) -> Value:
        left = self.expr(node.left)
        if len(node.comparisons) == 1:
            comp = node.comparisons[0]
            return self._compare(comp.operator, left, self.expr(comp.comparator))
        var = self.temp_var("cmp")  # type: ignore[attr-defined]
        if self.b.guard is not None:  # inside a `try`: one join per comparison, each arm its own scope
            self._guarded_chain(var, left, list(node.comparisons))
            return self.b.read(var)
        join = self.b.new_block()
        last = len(node.comparisons) - 1
        for i, comp in enumerate(node.comparisons):
            right = self.expr(comp.comparator)
            result = self._compare(comp.operator, left, right)
            if i == last:
                self.b.write(var, result)
                self.b.goto(join)
            else:
                self.b.write(var, result)
                more = self.b.new_block()
                self.b.branch(result, more, join)
                self.b.seal(more)
                self.b.position_at(more)
                left = right
        self.b.seal(join)
        self.b.position_at(join)
        return self.b.read(var)

    def _guarded_chain(self, var: str, left: Value, comps: list) -> None:
        right = self.expr(comps[0].comparator)
        result = self._compare(comps[0].operator, left, right)
        self.b.write(var, result)
        if len(comps) == 1:
            return
        more, join = self.b.new_block(), self.b.new_block()
        self.b.branch(result, more, join)
        self.b.seal(more)
        self.b.position_at(more)
        self._arm(lambda: self._guarded_chain(var, right, comps[1:]))
        self.b.goto(join)
        self.b.seal(join)
        self.b.position_at(join)

    def _arm(self, lower: Callable[[], None]) -> None:
        """An arm of a branch inside an expression: inside a `try`, its failure paths meet at its end
        (frontend/try_stmt.py), so the CFG stays nested; the statement tests `failed` afterwards."""
        from .try_stmt import close_scope, open_scope

        open_scope(self)  # type: ignore[arg-type]
        lower()
        close_scope(self)  # type: ignore[arg-type]

    def _compare(self, op: cst.BaseCompOp, left: Value, right: Value) -> Value:
        if isinstance(op, cst.In):
            return self.b.call(operator.contains, [right, left])
        if isinstance(op, cst.NotIn):
            return self.b.call(ops.not_contains, [right, left])
        return self.b.call(COMPARE[type(op)], [left, right])

    def expr_IfExp(self, node: cst.IfExp) -> Value:
        cond = self.expr(node.test)
        var = self.temp_var("ifexp")  # type: ignore[attr-defined]
        then, orelse, join = self.b.new_block(), self.b.new_block(), self.b.new_block()
        self.b.branch(cond, then, orelse)
        for blk, expr in ((then, node.body), (orelse, node.orelse)):
            self.b.seal(blk)
            self.b.position_at(blk)
            self._arm(lambda: self.b.write(var, self.expr(expr)))
            self.b.goto(join)
        self.b.seal(join)
        self.b.position_at(join)
        return self.b.read(var)

    def expr_NamedExpr(self, node: cst.NamedExpr) -> Value:
        value = self.expr(node.value)
        assert isinstance(node.target, cst.Name)
        return self.assign_name(node.target.value, value, function_scope=True)  # type: ignore[attr-defined]

    # ------------------------------------------------------------ access
    def expr_Attribute(self, node: cst.Attribute) -> Value:
        found = self._super_method(node, getter=True)
        if found is not None:  # `super().name` read, not called (a parent's property): getter(obj)
            fn, lead = found
            return self.b.call(fn, lead)
        obj = self.expr(node.value)
        if isinstance(obj, Global) and isinstance(self.pyfn.__globals__.get(obj.name), types.ModuleType):  # type: ignore[attr-defined]
            from .global_writes import check_module_attribute

            check_module_attribute(self, obj, self.pyfn.__globals__[obj.name], node.attr.value)  # type: ignore[attr-defined]
        return self.b.call(getattr, [obj, Const(node.attr.value)])

    def expr_Subscript(self, node: cst.Subscript) -> Value:
        obj = self.expr(node.value)
        return self.b.call(operator.getitem, [obj, self.index(node)])

    def index(self, node: cst.Subscript) -> Value:
        items = [self._slice_item(e.slice) for e in node.slice]
        if len(items) == 1 and not isinstance(node.slice[0].comma, cst.Comma):
            return items[0]
        return self.b.call(ops.tuple_of, items)

    def _slice_item(self, s: cst.BaseSlice) -> Value:
        if isinstance(s, cst.Index):
            if s.star:
                self.unsupported(s, "starred subscript")
            return self.expr(s.value)
        assert isinstance(s, cst.Slice)
        parts = [self.expr(p) if p is not None else Const(None) for p in (s.lower, s.upper, s.step)]
        return self.b.call(slice, parts)

    # ------------------------------------------------------------ calls
    def expr_Call(self, node: cst.Call) -> Value:
        lead: list[Value] = []
        found = self._super_method(node.func)
        if found is not None:
            fn, lead = found
        else:
            if isinstance(node.func, cst.Name) and node.func.value in _SCOPE_READERS:
                self._refuse_scope_reader(node)
            fn = self.expr(node.func)
        if any(a.star for a in node.args):
            return self._star_call(fn, node, lead)
        args: list[Value] = list(lead)
        kwargs: dict[str, Value] = {}
        for a in node.args:
            if a.keyword is not None:
                kwargs[a.keyword.value] = self.expr(a.value)
            else:
                args.append(self.expr(a.value))
        return self.b.call(fn, args, kwargs)

    def _refuse_scope_reader(self, node: cst.Call) -> None:
        """`eval("x * 2")`, `exec(...)`, `locals()`, `vars()` (the builtins, not names of the user's): they read or run
        code against the function's own variables, which generated code holds under other names and with their
        derivatives beside them, so the derivative of what they compute would silently be lost."""
        name = node.func.value  # type: ignore[attr-defined]
        if not self._builtin_name(name):
            return
        if name == "vars" and node.args:
            return  # (vars(obj): the object's __dict__, checked where it is read)
        self.unsupported(node, f"`{name}(...)` inside the differentiated function: it reads or runs code against the "  # type: ignore[attr-defined]
                               "function's variables, which mooncake_ast cannot follow (the derivative would be lost); "
                               "write the expression out, or move the call into a function registered with "
                               "mc.zero_derivative if its result has no derivative")

    def _builtin_name(self, name: str) -> bool:
        """Does `name` here read the builtin (not a local, a closure's variable or a module global)?"""
        return not (self._var_key(name) is not None or name in self.freevars  # type: ignore[attr-defined]
                    or name in self.pyfn.__globals__)  # type: ignore[attr-defined]

    def _super_method(self, func: cst.BaseExpression, getter: bool = False) -> Optional[tuple[Value, list[Value]]]:
        """`super().name` / `super(C, obj).name` about to be called: (the function, [obj]).

        See supercalls.py: the function `super` would find is called with the instance as its
        first argument.  Zero-argument `super()` reads the method's `__class__` cell and its
        first parameter, as Python does.
        """
        if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Call)):
            return None
        call = func.value
        if not (isinstance(call.func, cst.Name) and call.func.value == "super"):
            return None
        if self._var_key("super") is not None or "super" in self.freevars:  # type: ignore[attr-defined]
            return None  # a local name `super`: not the builtin
        if any(a.star or a.keyword is not None for a in call.args):
            return None
        if not call.args:
            params = self.ir.params  # type: ignore[attr-defined]
            if "__class__" not in self.freevars or not params or params[0].kind not in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD"):  # type: ignore[attr-defined]
                return None
            cls = self.read_name("__class__", call)  # type: ignore[attr-defined]
            obj = self.read_name(params[0].name, call)  # type: ignore[attr-defined]
            if self._in_classmethod():  # (super(C, cls): classes, no derivative, handed as they are)
                from .supercalls import super_class_function, super_class_getter

                finder = super_class_getter if getter else super_class_function
                fn = self.b.call(finder, [cls, obj, Const(func.attr.value)],
                                 hint="super_" + func.attr.value.strip("_"))  # type: ignore[attr-defined]
                return fn, [obj]
        elif len(call.args) == 2:
            cls, obj = self.expr(call.args[0].value), self.expr(call.args[1].value)
        else:
            return None
        from .supercalls import super_function, super_getter

        typ = self.b.call(type, [obj])
        fn = self.b.call(super_getter if getter else super_function, [cls, typ, Const(func.attr.value)],
                         hint="super_" + func.attr.value.strip("_"))  # type: ignore[attr-defined]
        return fn, [obj]

    def _in_classmethod(self) -> bool:
        """Is the function lowered a classmethod of the class its `__class__` cell holds (so zero-argument super()
        is super(C, cls), cls a class)?"""
        fn = self.pyfn  # type: ignore[attr-defined]
        code = getattr(fn, "__code__", None)
        if code is None or "__class__" not in code.co_freevars or not fn.__closure__:
            return False
        try:
            owner = fn.__closure__[code.co_freevars.index("__class__")].cell_contents
        except ValueError:  # (an empty cell: the class statement has not finished)
            return False
        raw = vars(owner).get(fn.__name__) if isinstance(owner, type) else None
        return isinstance(raw, classmethod) and getattr(raw.__func__, "__code__", None) is code

    def _star_call(self, fn: Value, node: cst.Call, lead: Optional[list[Value]] = None) -> Value:
        pos_parts: list[Value] = []
        kw_parts: list[Value] = []
        pending_pos: list[Value] = list(lead or [])
        pending_kw: list[Value] = []
        for a in node.args:
            if a.star == "*":
                if pending_pos:
                    pos_parts.append(self.b.call(ops.tuple_of, pending_pos))
                    pending_pos = []
                pos_parts.append(self.expr(a.value))
            elif a.star == "**":
                if pending_kw:
                    kw_parts.append(self.b.call(ops.dict_of, pending_kw))
                    pending_kw = []
                kw_parts.append(self.expr(a.value))
            elif a.keyword is not None:
                pending_kw += [Const(a.keyword.value), self.expr(a.value)]
            else:
                pending_pos.append(self.expr(a.value))
        if pending_pos:
            pos_parts.append(self.b.call(ops.tuple_of, pending_pos))
        if pending_kw:
            kw_parts.append(self.b.call(ops.dict_of, pending_kw))
        args = self.b.call(ops.concat_tuple, pos_parts)
        kwargs = self.b.call(ops.merge_kwargs, kw_parts)
        return self.b.call(ops.apply, [fn, args, kwargs])

    # ------------------------------------------------------------ displays
    def _elements(self, elements) -> tuple[list[Value], bool]:
        """Lower display elements; starred ones become whole parts of a concatenation."""
        starred = any(isinstance(e, cst.StarredElement) for e in elements)
        if not starred:
            return [self.expr(e.value) for e in elements], False
        parts: list[Value] = []
        run: list[Value] = []
        for e in elements:
            if isinstance(e, cst.StarredElement):
                if run:
                    parts.append(self.b.call(ops.tuple_of, run))
                    run = []
                parts.append(self.expr(e.value))
            else:
                run.append(self.expr(e.value))
        if run:
            parts.append(self.b.call(ops.tuple_of, run))
        return [self.b.call(ops.concat_tuple, parts)], True

    def expr_Tuple(self, node: cst.Tuple) -> Value:
        items, starred = self._elements(node.elements)
        return items[0] if starred else self.b.call(ops.tuple_of, items)

    def expr_List(self, node: cst.List) -> Value:
        items, starred = self._elements(node.elements)
        return self.b.call(list, items) if starred else self.b.call(ops.list_of, items)

    def expr_Set(self, node: cst.Set) -> Value:
        items, starred = self._elements(node.elements)
        return self.b.call(set, items) if starred else self.b.call(ops.set_of, items)

    def expr_Dict(self, node: cst.Dict) -> Value:
        if any(isinstance(e, cst.StarredDictElement) for e in node.elements):
            parts: list[Value] = []
            run: list[Value] = []
            for e in node.elements:
                if isinstance(e, cst.StarredDictElement):
                    if run:
                        parts.append(self.b.call(ops.dict_of, run))
                        run = []
                    parts.append(self.expr(e.value))
                else:
                    run += [self.expr(e.key), self.expr(e.value)]
            if run:
                parts.append(self.b.call(ops.dict_of, run))
            return self.b.call(ops.merge_dicts, parts)
        flat: list[Value] = []
        for e in node.elements:
            flat += [self.expr(e.key), self.expr(e.value)]
        return self.b.call(ops.dict_of, flat)

    # ------------------------------------------------------------ comprehensions
    def expr_ListComp(self, node: cst.ListComp) -> Value:
        acc = self.b.call(ops.list_of, [])
        self.comprehension(node.for_in, lambda: self.b.call(list.append, [acc, self.expr(node.elt)]))  # type: ignore[attr-defined]
        return acc

    def expr_GeneratorExp(self, node: cst.GeneratorExp) -> Value:
        from . import lazy_values

        items = self.expr_ListComp(node)  # type: ignore[arg-type]
        if lazy_values.used_as_iterator(self, node):  # (kept, or given to next(): an iterator, as Python's is)
            return self.b.call(iter, [items])
        return items

    def expr_SetComp(self, node: cst.SetComp) -> Value:
        acc = self.b.call(ops.set_of, [])
        self.comprehension(node.for_in, lambda: self.b.call(set.add, [acc, self.expr(node.elt)]))  # type: ignore[attr-defined]
        return acc

    def expr_DictComp(self, node: cst.DictComp) -> Value:
        acc = self.b.call(ops.dict_of, [])

        def body() -> None:
            k = self.expr(node.key)
            v = self.expr(node.value)
            self.b.call(operator.setitem, [acc, k, v])

        self.comprehension(node.for_in, body)  # type: ignore[attr-defined]
        return acc

    def expr_Lambda(self, node: cst.Lambda) -> Value:
        return self.make_function(node, "<lambda>")  # type: ignore[attr-defined]

    # ------------------------------------------------------------ rejected
    def expr_Yield(self, node: cst.Yield) -> Value:
        if isinstance(node.value, cst.From):
            self.unsupported(node, "the value of `yield from` (what the sub-generator returns); use `yield from it` as "  # type: ignore[attr-defined]
                                   "a statement")  # type: ignore[attr-defined]
        # A `yield` statement is lowered by the statements (generator_ops.py); its value is what .send() passes in.
        self.unsupported(node, "yield used as a value (what .send() passes in); use `yield v` as a statement")  # type: ignore[attr-defined]
        raise AssertionError

    def expr_Await(self, node: cst.Await) -> Value:
        self.unsupported(node, "await")  # type: ignore[attr-defined]
        raise AssertionError


def number_value(node: Union[cst.Integer, cst.Float, cst.Imaginary]) -> Any:
    """The value of a number literal, as `ast.literal_eval(node.value)` gives it, read by `int(text, 0)`,
    `float` or `complex` (which take Python's literal syntax, underscores included, and round as the
    compiler does): literal_eval parses a text each time, ten times the cost."""
    text = node.value
    try:
        if type(node) is cst.Integer:
            return int(text, 0)
        if type(node) is cst.Float:
            return float(text)
        if type(node) is cst.Imaginary:
            return complex(text)
    except ValueError:
        pass
    return ast.literal_eval(text)


_SCOPE_READERS = frozenset({"eval", "exec", "locals", "vars"})


def _string_parts(node: cst.ConcatenatedString) -> list:
    """The strings of `"a" "b" f"c"`, left to right (libcst nests concatenations to the right)."""
    out = []
    for side in (node.left, node.right):
        out.extend(_string_parts(side) if isinstance(side, cst.ConcatenatedString) else [side])
    return out


def literal_text(source: str, prefix: str) -> str:
    """The characters a literal part of an f-string stands for: `{{`/`}}` are braces, and outside a raw
    string the backslash escapes (`\\n`, `\\t`, `\\x41`, `\\u00e9`, `\\N{...}`) are interpreted as
    Python does.  Characters outside Latin-1 are written as escapes first so the codec, which reads
    bytes, gives them back unchanged; an unknown escape (`\\d`) stays as written, as in Python."""
    text = source.replace("{{", "{").replace("}}", "}")
    if "r" in prefix.lower() or "\\" not in text:
        return text
    import codecs
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return codecs.decode(text.encode("latin-1", "backslashreplace"), "unicode_escape")
