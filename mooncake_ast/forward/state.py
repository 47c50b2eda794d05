"""Forward mode: the tangents of state that lives outside the function being differentiated.

A closure made at module level (`counter = make_counter()`), a memoizing decorator's cache, a mutable
default argument, a module-level object, a class attribute: the derivative cannot pass them in as
arguments, yet what the computation writes into them must keep its tangent from one call to the next
(reverse mode keeps its adjoints by identity for one gradient computation, reverse/shadows.py).  Their
tangents live here, by identity, for one outermost forward computation (a *session*): zero at first
(what they held before is a constant), shared by every closure, name and callee that reaches them.

The generated code's entry points (`module_tangent`, `untracked_store`) and the transform's questions
(`active_globals`, `module_state_level`) are here too.
"""
from __future__ import annotations

import sys
import threading
import types
from typing import Any

import numpy as np

from ..frames import inside, outermost
from ..ir.nodes import Call, Const, Function, Global
from ..tangents import FunctionTangent, MutableTangent, NoTangent, holds_no_data, is_mutable, zero_tangent


def refuse_untracked_store(target: Any, tangents: tuple) -> None:
    """A write into `target` (a user class: `type(self).total = v`; a float array, list, dict or object)
    whose tangent is not tracked where the write happens, of data with a nonzero tangent: refused."""
    if not any(_nonzero(d) for d in tangents):
        return
    if not (is_mutable(target) or (isinstance(target, type) and target.__flags__ & (1 << 9))):
        return  # (an int array, a tuple, ...: what is stored there carries no derivative)
    from ..errors import UnsupportedDerivativeError

    what = f"the class {target.__qualname__}" if isinstance(target, type) else f"a {type(target).__name__}"
    raise UnsupportedDerivativeError(
        f"forward mode: a value with a derivative is written into {what} whose derivative is not tracked here "
        "(state shared outside the function's own objects, such as a class attribute set through "
        "`type(self)`); its derivative would be lost. Keep the state in an instance attribute or pass it as "
        "an argument.")


def closure_tangent(f: types.FunctionType, df: Any) -> Any:
    """The tangent of closure f, with tangent cells: df's own, or, where df has none (a closure made outside
    the function being differentiated -- a module-level `counter = make_counter()` -- or made inside it by a
    factory called without differentiable inputs), those of this forward computation (`_session_cells`)."""
    if isinstance(df, FunctionTangent):
        if type(df.cells) is not tuple:
            df.cells = _session_cells(f)
        return df
    if (df is NoTangent or df is None) and (_keeps_state(f) or _SHARED_CELLS and _has_shared_cells(f) or
                                            _shares_with_writer(f)):
        return FunctionTangent(_session_cells(f))
    return df


def _shares_with_writer(f: types.FunctionType) -> bool:
    """Does f capture a closure that rebinds a variable f captures too (`def setc(v): nonlocal c; c = v` and
    `def a(x): setc(x[0]); return c * x[1]` from one factory)?  Then f reads c's tangent from the cells the writer
    writes, this computation's (_session_cells): from fresh cells of its own, the tangent written was lost (jvp 0)."""
    mine = {id(c) for c in f.__closure__}
    for c in f.__closure__:
        try:
            v = c.cell_contents
        except ValueError:
            continue
        if isinstance(v, types.FunctionType) and v is not f and v.__closure__ and \
                any(id(x) in mine for x in v.__closure__) and _keeps_state(v):
            return True
    return False


_SHARED_CELLS: list = []  # (non-empty once a forward computation has shared cells: share_cells)


def share_cells(pairs: list) -> None:
    """(cell, tangent cell) pairs of a differentiated function's variables that functions made outside forward
    code read: the methods of a class defined in it (rules/python_local_classes.py).  Kept in this forward
    computation's store, where _session_cells finds them for those functions' closures."""
    store = _session()
    for c, dc in pairs:
        store[id(c)] = (c, dc)
    if not _SHARED_CELLS:
        _SHARED_CELLS.append(True)


def _has_shared_cells(f: types.FunctionType) -> bool:
    store = _session()
    return any(store.get(id(c), (None,))[0] is c for c in f.__closure__)


def _keeps_state(f: types.FunctionType) -> bool:
    """Can what f's cells hold change between two reads in one computation (f writes it, or it is a mutable
    object someone else may write)?  Otherwise the zero tangent of a constant is right as it is."""
    from ..attribute_checks import writes_captured

    for c in f.__closure__:
        try:
            v = c.cell_contents
        except ValueError:
            continue
        if is_mutable(v):
            return True
    return writes_captured(f)


CALL_CODES: set = set()  # the code of the run-time entries into forward code (filled below)
_session_local = threading.local()


def _session() -> dict:
    """The tangent storage of state that lives outside the function being differentiated, for one outermost
    forward computation (the outermost generated forward function, or run-time entry, on this thread's
    stack), as reverse mode's shadows live for one gradient computation.  What such state held before the
    computation is a constant (a zero tangent); what the computation writes into it keeps its tangent from
    call to call within it -- and no longer: the next computation starts from zeros again."""
    return _session_at(sys._getframe(2))


def _session_at(frame: Any) -> dict:
    last = getattr(_session_local, "last", None)
    if last is not None and last[0] is not None and inside(frame, last[0]):
        return last[1]
    outer = outermost(frame, lambda f: f.f_code in CALL_CODES or f.f_code.co_name.endswith("__forward"))
    store: dict = {}
    _session_local.last = (outer, store)  # (holding the frame keeps its identity unique while we compare it)
    return store


def _session_cells(f: types.FunctionType) -> tuple:
    """Tangent cells for f's closure cells in this forward computation: one per primal cell (closures
    sharing a cell, `inc` and `get` from one factory, share it), a mutable value in a cell getting zero
    storage (one per object: two cells holding one list share it), so writes through it persist from call
    to call.  (Before, a closure made outside had no tangent cells: a write into the list it captured got
    new storage at each read and its tangent was dropped, silently.)"""
    store = _session()
    cells = []
    for c in f.__closure__:
        known = store.get(id(c))
        if known is not None and known[0] is c:
            cells.append(known[1])
            continue
        dc = types.CellType()
        try:
            v = c.cell_contents
        except ValueError:
            v = None
        if v is not None and is_mutable(v):
            dc.cell_contents = _session_storage(store, v)
        store[id(c)] = (c, dc)
        cells.append(dc)
    return tuple(cells)


class ClassTangent(MutableTangent):
    """The tangent of a user class (its class attributes are state): number attributes as fields; mutable
    ones (lists, arrays, ...) kept by identity in the session, as when read through an instance."""

    __mc_class__ = True

    def __init__(self, fields: dict) -> None:
        object.__setattr__(self, "fields", _ClassFields(fields))


class _ClassFields(dict):
    """A class's attribute tangents: an attribute never set from the inputs (a method, a constant) has none."""

    def __missing__(self, name: str) -> Any:
        return NoTangent


def module_tangent(obj: Any, level: int = 0) -> Any:
    """The tangent of module-level state `obj` (a list a closure made at module level also holds, a class
    whose attributes its methods change, ...) read by generated forward code: the storage this forward
    computation keeps for it, zero storage at first.  `level` > 0: forward code of forward code
    (module_state_level), whose storage is kept apart from that of the code it differentiates; there obj may
    be storage of a lower level itself."""
    if isinstance(obj, type):
        if not obj.__flags__ & (1 << 9) or not _class_keeps_state(obj):
            return NoTangent  # (a class of methods and constants: its attributes are constants)
        if level and _methods_write_class_attributes(obj):
            _refuse_nested_class_state(obj.__qualname__)
        store = _level_store(level)
        known = store.get(id(obj))
        if known is None or known[0] is not obj:
            d = ClassTangent({})
            object.__setattr__(d, "written_by_methods", _methods_write_class_attributes(obj))
            known = store[id(obj)] = (obj, d)
        return known[1]
    if level and isinstance(obj, ClassTangent) and getattr(obj, "written_by_methods", True):
        _refuse_nested_class_state("a class")  # (the storage first-order code keeps for a class it made)
    if not is_mutable(obj) or holds_no_data(obj):  # (a logger: tangents.holds_no_data)
        return NoTangent
    return _session_storage(_level_store(level), obj)


def _methods_write_class_attributes(cls: type) -> bool:
    """Does a method of cls (or of a user base) assign a class attribute (`cls.total = ...`, `type(self).n = ...`)?
    (attribute_checks.class_keeps_state also counts mutable class attributes, `__dataclass_fields__` among them,
    whose storage by identity nested forward code follows.)"""
    from ..attribute_checks import _assigns_class_attribute

    users = [k for k in cls.__mro__ if k is not object and k.__flags__ & (1 << 9)]
    names = {k.__name__ for k in users}
    for k in users:
        for v in list(vars(k).values()):
            fn = v.__func__ if isinstance(v, (staticmethod, classmethod)) else v.fget if isinstance(v, property) else v
            if isinstance(fn, types.FunctionType) and not _made_by_dataclass(fn) and _assigns_class_attribute(fn, names):
                return True
    return False


def _made_by_dataclass(fn: types.FunctionType) -> bool:
    """Is fn a method @dataclass made (`__init__`, `__eq__` from a string; `__repr__` wrapped in dataclasses.py)?
    Their source cannot be read, and they write no class attribute."""
    import dataclasses

    filename = fn.__code__.co_filename
    return filename.startswith("<") or filename == dataclasses.__file__


def _refuse_nested_class_state(what: str) -> None:
    """Forward code of forward code over class attributes that methods write: the tangents of the class's storage
    are not followed at the second order (a KeyError, or silently 0): refused by name."""
    from ..rules.forward_code_rules import NestingError

    raise NestingError(
        f"nested derivative: the class attributes of {what}, written by its methods with a derivative "
        "(`cls.total = ...`), are not followed at higher order in forward mode; keep the state in an instance "
        "attribute (or pass it as an argument) to take higher derivatives")


def _level_store(level: int) -> dict:
    """The storage of this forward computation (its session) for tangents of module-level state of one level."""
    store = _session_at(sys._getframe(2))
    return store.setdefault(("level", level), {}) if level else store


def inherited_attribute_tangent(obj: Any, name: str) -> Any:
    """The tangent of `obj.name` where obj (an instance, or a class) does not hold `name` itself and a class on
    its MRO does (`c.scale` of an instance whose class's classmethod set `cls.scale = 3 * v`; `Q.w` of a subclass
    Q where P.w was written): the tangent this forward computation keeps for that class's attribute, or None
    where it keeps none (the attribute is a constant).  Before, such reads had a zero tangent, silently."""
    owner_mro = obj.__mro__ if isinstance(obj, type) else type(obj).__mro__
    owner = next((k for k in owner_mro if name in vars(k)), None)
    if owner is None or not owner.__flags__ & (1 << 9) or hasattr(type(vars(owner)[name]), "__get__"):
        return None  # (a slot's member descriptor, a property, a method: not a value kept in the class)
    store = _session_at(sys._getframe(1))
    known = store.get(id(owner))
    if known is None or known[0] is not owner:
        return None
    d = known[1].fields.get(name, NoTangent)
    if d is NoTangent:
        return None
    if any(type(k) is tuple and k[:1] == ("level",) for k in store):
        # forward code of forward code keeps storage per level (module_tangent(obj, level)); which level this read
        # belongs to is not known here: refused rather than mixing the tangents of two orders
        from ..errors import UnsupportedDerivativeError

        raise UnsupportedDerivativeError(
            f"nested forward mode: the class attribute {owner.__qualname__}.{name}, written with a derivative and "
            "read through an instance or a subclass, is not supported at higher order; pass the value as an "
            "argument or keep it in an instance attribute")
    return d


def set_shared_tangent(obj: Any, d: Any) -> None:
    """`Cls.items = v`: v's tangent storage d is the one every later read of v in this computation sees."""
    _session()[id(obj)] = (obj, d)


def _session_storage(store: dict, obj: Any) -> Any:
    """obj's tangent storage in this computation: zero at first, made part by part so that an object reached
    two ways (`TRAINER.model` and `MODEL`, a list in two cells) has one storage."""
    known = store.get(id(obj))
    if known is not None and known[0] is obj:
        return known[1]
    if isinstance(obj, list):
        d: Any = []
        store[id(obj)] = (obj, d)
        d.extend(_session_storage(store, v) if is_mutable(v) else NoTangent for v in obj)
    elif isinstance(obj, dict):
        d = {}
        store[id(obj)] = (obj, d)
        d.update((k, _session_storage(store, v) if is_mutable(v) else NoTangent) for k, v in obj.items())
    elif is_mutable(obj) and hasattr(obj, "__dict__") and not isinstance(obj, np.ndarray):
        d = MutableTangent({})
        store[id(obj)] = (obj, d)
        for k, v in vars(obj).items():
            d.fields[k] = _session_storage(store, v) if is_mutable(v) else zero_tangent(v)
    else:
        d = zero_tangent(obj)
        store[id(obj)] = (obj, d)
    return d



def _nonzero(d: Any) -> bool:
    return _nonzero_tangent(d)


def _refuse_untracked_write(f: Any, target: Any, dtarget: Any, dothers: Any) -> None:
    """A value with a derivative written in place into a container or array that has no tangent storage: one
    reached through state the derivative does not follow (a mutable class attribute read through an instance,
    `self.items.append(v)` with `items = []` on the class). Its tangent would be dropped: refused."""
    if dtarget is not NoTangent or not (isinstance(target, (list, dict, set, np.ndarray)) or is_mutable(target)
                                        or (isinstance(target, type) and target.__flags__ & (1 << 9))):
        return
    if not any(_nonzero_tangent(d) for d in dothers):
        return
    from ..errors import UnsupportedDerivativeError

    what = f"the class {target.__qualname__}" if isinstance(target, type) else f"a {type(target).__name__}"
    raise UnsupportedDerivativeError(
        f"{getattr(f, '__qualname__', f)} writes a value with a derivative into {what} whose "
        "derivative is not tracked: state outside the function's own objects, such as a mutable class attribute "
        "shared by all instances (`items = []` in the class body, changed through `self.items`). Create it in "
        "__init__ (an instance attribute) or inside the function, or pass it as an argument.")


def _nonzero_tangent(d: Any) -> bool:
    if d is NoTangent or d is None:
        return False
    if isinstance(d, np.ndarray):
        return bool(d.any())
    if isinstance(d, (float, int, complex)):
        return d != 0
    if isinstance(d, (list, tuple)):
        return any(_nonzero_tangent(v) for v in d)
    return True


# ---------------------------------------------------------------- the transform's side


def _class_keeps_state(cls: type) -> bool:
    from ..attribute_checks import class_keeps_state

    return class_keeps_state(cls)


def active_globals(ir: Function, active: set, user_globals: dict) -> list:
    """The module-level names read here that hold state with a derivative: active, and (as the module holds
    them now) a user class or a mutable object -- not functions, modules, numbers."""
    found: dict = {}
    for b in ir.blocks:
        for st in b.stmts:
            for v in st.operands():
                if isinstance(v, Global) and v in active and v not in found:
                    obj = user_globals.get(v.name)
                    # (a class only called, `Point(...)`, is not read: its instances' own tangents do; nor is a
                    # class of methods and constants, `C.combine(u, v)`, whose attributes never change: a constant,
                    # over which every order of nesting works)
                    if is_mutable(obj) or (isinstance(obj, type) and obj.__flags__ & (1 << 9) and v is not st.fn
                                           and _class_keeps_state(obj)):
                        found[v] = None
    return list(found)


def _module_tangent_level(st: Call, raw_callee: Any) -> Any:
    """The level of a `module_tangent(obj[, level])` statement (0: written by first-order forward code), or None
    where st is another call."""
    callee = st.fn
    by_name = isinstance(callee, Call) and callee.callee() is getattr and len(callee.args) == 2 and \
        isinstance(callee.args[1], Const) and callee.args[1].value == "module_tangent"  # (`_mc.module_tangent`)
    if not (by_name or raw_callee(st) is module_tangent):
        return None
    if len(st.args) > 1 and isinstance(st.args[1], Const) and type(st.args[1].value) is int:
        return st.args[1].value
    return 0


def module_state_level(ir: Function, raw_callee: Any) -> int:
    """The level of the tangent storage of module-level state that forward code made from `ir` keeps: 0 for a
    user function; for generated forward code that keeps such storage itself (its `module_tangent(obj, k)`
    statements), one more than the highest level it uses.  Each level has storage of its own in a computation
    (`module_tangent(obj, level)`), so the tangents of two orders never mix, and what the code differentiated
    keeps at level k (an object: storage) gets its own tangent storage at the new level (module_tangent_of)."""
    level = 0
    for b in ir.blocks:
        for st in b.stmts:
            k = _module_tangent_level(st, raw_callee)
            if k is not None:
                level = max(level, k + 1)
    if level > 2 or (level and not ir.name.endswith("__jvp")):
        # Supported: forward code of first- and second-order forward code (`f__jvp`, `f__jvp__jvp`: a third order of
        # forward mode, each level with storage of its own; checked against differences of the second order with
        # state read and state a method writes, tests/test_nested_lifted_module_state.py).  A fourth order, and
        # forward mode over reverse code that keeps such storage (mc.jacfwd(mc.hessian(f))), crashed when the state
        # was written (lists of storage out of step with the lists they shadow, tests/test_nested_families.py):
        # refused.
        from ..rules.forward_code_rules import NestingError

        raise NestingError("nested derivative: a fourth order of forward mode (or forward mode over reverse mode) "
                           "over code that keeps the derivative of module-level state (a module-level object, or a "
                           "class attribute, that a method or closure changes) is not supported; pass that object as "
                           "an argument")
    return level


def untracked_store(target: Any, *tangents: Any) -> None:
    """Generated code: refuse a write of data with a nonzero tangent into an object whose tangent is not
    tracked here (refuse_untracked_store)."""
    refuse_untracked_store(target, tangents)


def _register() -> None:
    from ..rules.registry import defzero

    defzero(module_tangent, untracked_store)  # (forward code differentiated again: the storage itself is a constant there)


_register()
