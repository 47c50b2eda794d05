"""Reverse mode's statements: each call's reverse, from the module that owns the value's adjoint or its rule.

`rev_stmt` sends a statement to the module that keeps its operands' adjoints plain (typed lists and dicts,
adjoint buffers, written parameters, fields of the function's own objects, views), else to its rule's
reverse template, to a run-time helper that undoes a write (`_rev_special`, `_rev_ufunc_out`), or to the
pullback the run-time dispatcher returned (`_dispatch`).  A mixin of ReverseTransform (reverse/transform.py)."""
from __future__ import annotations

import builtins
import operator
from typing import Any

import numpy as np

from .. import ops
from ..errors import MooncakeError
from ..ir.nodes import Call, Const
from ..rules import builtin_rules, call_binding, registry
from . import adjoints as adj
from . import (buffers, constant_keys, dict_keys, kept_indexes, local_dicts, number_calls, object_fields, part_reads,
               shadows, typed_dicts, typed_lists, view_reads, written_params)
from ..lazy_imports import lazy_module
quiet_items = lazy_module(globals(), ".quiet_items")  # (imported when a function has quiet item reads)
from .cleanup import ZERO
from .prepare import hashable as _hashable
from .special import INPLACE, SAVE_ARGS, SPECIAL
from .templates import PH, TemplateBuilder


_SETS = {ops.set_of, builtins.set, builtins.frozenset, set.add}


class ReverseUnsupported(MooncakeError):
    """A construct reverse mode does not handle yet; raised with the source line."""


class StatementReverse:
    """The StatementReverse part of ReverseTransform (reverse/transform.py): its methods, moved here as they were."""

    def rev_stmt(self, s: Call) -> None:
        dict_keys.emit_key_checks(self, s)  # (a key that depends on the inputs, refused when the code runs)
        if s in self.dict_roles:
            local_dicts.reverse(self, s)
            return
        fn, rule = self.resolver.callee(s)
        if _hashable(fn) and fn in _SETS:
            self._rev_set(s, fn)
            return
        if typed_lists.handles(self, s, fn):
            typed_lists.reverse_read(self, s, fn)
            return
        if written_params.exempt(self, s):
            written_params.reverse(self, s, fn)
            return
        if s.args and s.args[0] in self.typed_dicts and typed_dicts.exempt(self, s, fn):
            typed_dicts.reverse_read(self, s)
            return
        if object_fields.exempt(self, s, fn):
            object_fields.reverse(self, s, fn)
            return
        if s in buffers.scatter_methods(self):
            return  # (`np.add.at` of a scatter into a buffer: NumPy's method, no derivative)
        if fn is ops.identity and s in self.buffer_webs and s.args and s.args[0] in self.buffer_webs:
            return  # (`cur = nxt` of a loop-carried buffer: one array, its adjoint moved along the phi)
        if fn is None and s.args and s.args[0] in self.buffers and buffers.scatter_ufunc(self, s) is not None:
            buffers.reverse_scatter(self, s)
            return
        if s.args and buffers.root_of(self, s.args[0]) is not None and fn in (operator.getitem, operator.setitem):
            (buffers.reverse_read if fn is operator.getitem else buffers.reverse_write)(self, s)
            return
        if fn is operator.getitem and view_reads.handles(self, s):
            view_reads.reverse_read(self, s)
            return
        if fn is operator.setitem and len(s.args) == 3 and constant_keys.key_varies(self, s.args[1]):
            check = self.b.call(builtin_rules.check_dict_keys, [self.primal(s.args[1])])  # (`d[x * 3.0] = v`)
            check.keep = True  # type: ignore[attr-defined]
        special = SPECIAL.get(fn) if _hashable(fn) else None
        if fn is getattr and len(s.args) == 3:  # (with a default: its adjoint too, when it was the value)
            special = (None, part_reads.getattr_default_reverse, (0, 2))
        if fn is operator.getitem and registry.is_index_builder(self.resolver.resolve(s.args[0])):
            special = None  # np.r_[x, y], np.c_[...]: the items are operands (the getitem rule's adjoint of the index)
        if fn in INPLACE and all(self.is_num(a) or isinstance(a, Const) and type(a.value) in (int, float, bool) for a in s.args):
            fn, rule = INPLACE[fn], registry.lookup(INPLACE[fn])  # numbers: `x += y` is `x = x + y`
        elif special is not None:
            self._rev_special(s, fn, *special)
            return
        elif rule is not None and rule.mutates and rule.user_rrule is None:  # (a run-time rule undoes its own write)
            raise ReverseUnsupported(
                f"{_where(s)}: reverse mode of {_name(fn)} (an in-place update) is not supported yet: "
                + ("take the items with a `for` loop over the iterator (and `break`), or index a list of them; "
                   if fn is next else "")
                + "use forward mode (mc.jvp, mc.jacfwd), or register a reverse rule (@mc.rrule) for a function of "
                  "yours that makes this call")
        if "out" in s.kwargs and s.kwargs.keys() == {"out"} and isinstance(fn, np.ufunc):
            self._rev_ufunc_out(s, fn)
            return
        if s in self.typed_dicts:  # (a user function's tuple of numbers, read item by item: its items' adjoints)
            g = typed_dicts.adjoint(self, s) if self.active(s) else None
        else:
            g = self.take_adj(s, keep_spread=True)  # (templates broadcast spreads; the dispatched path below does not)
        if rule is not None and rule.zero:
            return
        if rule is not None and rule.vjp is not None and rule.user_rrule is None and "out" not in s.kwargs:
            if g is None:
                return
            if self.is_num(s):
                self.dense_values.add(g)  # a number's adjoint is a number (its zero is 0.0)
            t = TemplateBuilder(self, self.is_num(s), self.types.get(s), stmt=s, stmt_fn=fn)
            t.refuse_complex_unless_safe(rule, fn, s)  # (cplx: real-only templates never see complex values)
            t.receive(g)
            t.keyword_adjoints = True  # type: ignore[attr-defined]  # adjoints of keyword operands come back as a KwAdj
            contribs = rule.vjp(t, g, PH(s), *[PH(a) for a in s.args], **{k: PH(v) for k, v in s.kwargs.items()})
            pos, named = call_binding.split_adjoints(contribs)
            quiet = self.quiet if s in self.returned_tuples else ()
            for k, (a, c) in enumerate(zip(s.args, pos)):
                if k not in quiet:
                    self.accumulate(a, c)
            for k, c in named.items():
                self.accumulate(s.kwargs[k], c)
            return
        # Dispatched when the code runs: the forward pass kept the call's pullback.
        rc = self._dispatch(s)
        g = self.spreads.materialize(g)
        pb = self.primal(rc)
        grads = self.b.call(adj.call_pullback, [pb, g if g is not None else ZERO])
        numbers = s in self.number_calls  # (f_bar and the numbers' adjoints as numbers: reverse/number_calls.py)
        grads.tuple_size = 1 + len(s.args) if numbers else 3  # type: ignore[attr-defined]  # (f_bar, args_bar, kwargs_bar)
        f_bar = self.b.call(operator.getitem, [grads, Const(0)])
        if numbers:
            self._method_or_callee_adjoint(s, f_bar)
            for i, a in enumerate(s.args):
                if self.active(a):
                    item = self.b.call(operator.getitem, [grads, Const(i + 1)])
                    self.dense_values.add(item)
                    self.accumulate(a, item)
            return
        args_bar = self.b.call(operator.getitem, [grads, Const(1)])
        kwargs_bar = self.b.call(operator.getitem, [grads, Const(2)])
        if s.callee() is ops.apply:
            f, args, kwargs = s.args
            for v, gv in ((f, f_bar), (args, args_bar), (kwargs, kwargs_bar)):
                if self.active(v):
                    self.accumulate(v, gv)
            return
        self._method_or_callee_adjoint(s, f_bar)
        for i, a in enumerate(s.args):
            if self.active(a):
                self.accumulate(a, self.b.call(adj.item_of, [args_bar, Const(i)]))
        for k, v in s.kwargs.items():
            if self.active(v):
                self.accumulate(v, self.b.call(adj.item_of, [kwargs_bar, Const(k)]))

    def _method_or_callee_adjoint(self, s: Call, f_bar: Any) -> None:
        """The adjoint of a dispatched call's callee (a closure's cells, a method's object), where it has one."""
        if s in self.field_method_calls:
            if self.active(self.field_method_calls[s]):
                object_fields.method_adjoint(self, s, f_bar)
        elif self.active(s.fn):
            self.accumulate(s.fn, f_bar)

    def _rev_set(self, s: Call, fn: Any) -> None:
        """Sets keep no adjoints of their items (equal items merge): refuse where one would be dropped, that is
        where the set gets an adjoint (`sum({x, 2 * x})`) or an item that needs one is added to it."""
        if fn is set.add:
            if len(s.args) == 2 and self.active(s.args[1]):
                check = self.b.call(builtin_rules.check_set_item, [self.primal(s.args[1])])
                check.keep = True  # type: ignore[attr-defined]
            return self._rev_special(s, fn, *SPECIAL[fn])
        if self.take_adj(s) is not None:  # (a set that depends on the inputs: checked when the pullback runs)
            check = self.b.call(builtin_rules.check_set_items, [self.primal(s)])
            check.keep = True  # type: ignore[attr-defined]

    def _rev_special(self, s: Call, fn: Any, save: Any, helper: Any, adjoint_args: tuple) -> None:
        """Reads of parts and writes: a run-time helper undoes the write and routes adjoints through storage.

        `adjoint_args` are the positions of the arguments whose (value) adjoints the helper updates and returns.
        """
        if fn is operator.getitem and s.args and isinstance(s.args[0], Call) and s.args[0].callee() is ops.tuple_of \
                and all(isinstance(a, Const) for a in s.args[0].args):
            self.take_adj(s)  # (an item of a display of constants, `m, v = 0.0, 0.0`: its adjoint goes nowhere)
            return
        if helper is shadows.append_reverse and len(s.args) == 2 and not s.kwargs:
            # (`lst.append(x)` returns None: no value of its own to record, no adjoint of its own to take)
            x = s.args[1]
            bar = self.read_adj(x) if self.active(x) else ZERO
            out = self.b.call(shadows.undo_append, [self.primal(s.args[0]), self.primal(x), bar])
            if self.active(x):
                self.write_adj(x, out)
            return
        writes = save is not None and helper is not shadows.inplace_reverse
        g = self.take_adj(s) if s in self.act.active and not writes else ZERO  # a write's own value is None
        old = []
        if save is not None:
            saved = self.saves.get(s)
            if saved is None:
                saved = self.saves[s] = Call(Const(save), [s.args[i] for i in SAVE_ARGS[save]], loc=s.loc)
                self.home[saved] = self.home[s]
            old = [self.primal(saved)]
        extra = [Const(INPLACE[fn])] if helper is shadows.inplace_reverse else []
        args = [self.primal(a) for a in s.args]
        if fn is operator.getitem and len(s.args) == 2 and not s.kwargs and buffers.array_index(self, s.args[1]):
            args[1] = kept_indexes.index_of_read(self, s)  # (an index array written later: its copy)
        # One value in two positions (`v -= v`): its adjoint goes in once, the parts come out added.
        firsts = [k for k, i in enumerate(adjoint_args) if s.args[i] not in [s.args[j] for j in adjoint_args[:k]]]
        bars = [self.read_adj(s.args[i]) if self.active(s.args[i]) and k in firsts else ZERO
                for k, i in enumerate(adjoint_args)]
        if writes and helper in shadows.UNDO:  # (a write returns None: no value of its own, no adjoint of its own)
            out = self.b.call(shadows.UNDO[helper], [*old, *extra, *args, *bars])
        else:
            y = Const(None) if writes else self.primal(s)
            out = self.b.call(helper, [g if g is not None else ZERO, y, *old, *extra, *args, *bars])
        if not adjoint_args:
            return
        if len(adjoint_args) == 1:
            if self.active(s.args[adjoint_args[0]]):
                self.write_adj(s.args[adjoint_args[0]], out)
            return
        out.tuple_size = len(adjoint_args)  # type: ignore[attr-defined]
        new: dict = {}
        for k, i in enumerate(adjoint_args):
            v = s.args[i]
            if not self.active(v):
                continue
            part = self.b.call(operator.getitem, [out, Const(k)])
            if v in new:
                part = self.b.call(operator.add if self.is_num(v) else adj.accumulate, [new[v], part])
            new[v] = part
        for v, value in new.items():
            self.write_adj(v, value)

    def _rev_ufunc_out(self, s: Call, fn: Any) -> None:
        """`fn(a, b, out=c)` writes c: save it, undo it, route c's adjoint to the inputs."""
        if fn is None or registry.lookup(fn) is None or registry.lookup(fn).vjp is None or s.kwargs.keys() != {"out"}:
            raise ReverseUnsupported(f"{_where(s)}: reverse mode of {_name(fn)} with out= is not supported: write "
                                     f"`y = {_name(fn)}(...)` without out=, or use forward mode (mc.jvp)")
        out_v = s.kwargs["out"]
        saved = self.saves.get(s)
        if saved is None:
            saved = self.saves[s] = Call(Const(shadows.save_ufunc_out), [out_v], loc=s.loc)
            self.home[saved] = self.home[s]
        self.take_adj(s)
        args = [self.primal(a) for a in s.args]
        bars = [self.read_adj(a) if self.active(a) else ZERO for a in s.args]
        out = self.b.call(shadows.ufunc_out_reverse, [ZERO, self.primal(s), self.primal(saved), Const(fn), self.primal(out_v),
                                                      self.b.call(ops.tuple_of, args), self.b.call(ops.tuple_of, bars)])
        out.tuple_size = len(s.args)  # type: ignore[attr-defined]
        for k, a in enumerate(s.args):
            if self.active(a):
                self.write_adj(a, self.b.call(operator.getitem, [out, Const(k)]))

    def _dispatch(self, s: Call) -> Call:
        """In the forward pass, `y = f(*args)` becomes `y, pb = rcall(f, args, kwargs)`."""
        rc = self.dispatched.get(s)
        if rc is None:
            rc = Call(Const(adj.rcall_marker), [], loc=s.loc)  # patched in the forward IR later
            rc.hint = None
            self.dispatched[s] = rc
            if number_calls.takes(self, s):
                self.number_calls.add(s)
            quiet = quiet_items.unread_numbers(self, s)
            if quiet:
                self.quiet_of[s] = quiet
            self.home[rc] = self.home[s]
        return rc


def _where(s: Call) -> str:
    return f"{s.loc.file}:{s.loc.line}: {s.loc.text}" if s.loc else "<unknown>"


def _name(fn: Any) -> str:
    from ..errors import qualified_name

    return qualified_name(fn)
