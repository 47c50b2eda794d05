"""Constructs of the lang helper's sixth pass on issue 12, each checked by check_derivatives in both modes:

* f-strings: their literal parts read as Python reads them (escapes interpreted unless raw), and a
  concatenation of plain strings and f-strings (`"a" f"{x}"`, which libcst does not evaluate);
* loops over np.ndindex (forward mode refused them);
* OrderedDict.move_to_end on a dict the caller passes: its order after the call is the plain call's;
* @functools.total_ordering / @dataclasses.dataclass(order=True) of a local class in reverse mode (traced,
  total_ordering's own module tables were refused as a module-level write);
* scipy.interpolate.CubicSpline, traced: differentiated in its values (x constant) and where it is read.
"""
import collections
import dataclasses
import functools

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives

from rule_cases_lang17 import EXTRA_ZERO


# ------------------------------------------------------------------ f-strings
def fs_newline(x):
    s = f"{x:.3f}\n"
    return x * len(s), s


def fs_mixed(x):
    s = "ab\t" f"{x:.2f}\n" rf"\n{x:.1f}" f"é€\x41\u00e9\N{EM DASH}{{}}\d" f"{x:>{8}.2f}" F"""q"{x:.1e}"\n"""
    return x * len(s), s


def fs_concat_only(x):
    label = "value: " f"{x:.3f}" " units"
    return x * len(label) + len(f"\t{x:>10.2f}\\"), label


def fs_in_loop(x):
    parts = []
    for i in range(3):
        parts.append(f"row {i}:\t{x[i]:.1f}\r\n")
    text = "".join(parts)
    return x * text.count("\t") + len(text), text


def fs_format_spec_escape(x):
    s = f"{x:\x2a^12.3f}|"  # (a fill character written as an escape inside the spec)
    return x * s.count("*"), s


@pytest.mark.parametrize("fn, arg", [(fs_newline, 1.5), (fs_newline, -0.25), (fs_mixed, 1.5), (fs_concat_only, 2.25),
                                     (fs_in_loop, np.array([0.5, 1.25, -2.0])), (fs_format_spec_escape, 0.375)])
def test_fstring_literals_as_python_reads_them(fn, arg):
    plain = fn(arg)
    # (the formats are fixed-width: finite differences must not change the string's length)
    for mode_value in (mc.jvp(lambda x: fn(x)[1], (arg,), (np.ones_like(arg),))[0], mc.differentiate(fn)(arg)[1]):
        assert mode_value == plain[1]
    y, _ = mc.value_and_grad(lambda x: np.sum(fn(x)[0]))(arg)
    assert y == np.sum(plain[0])
    check_derivatives(lambda x: fn(x)[0], arg)


def test_fstring_text_in_generated_source_round_trips():
    src = mc.source(fs_newline, mode="reverse")
    assert "'\\n'" in src and "'\\\\n'" not in src


# ------------------------------------------------------------------ np.ndindex
@pytest.mark.parametrize("case", EXTRA_ZERO, ids=lambda c: getattr(c.fn, "__name__", "lambda"))
def test_ndindex_loops(case):
    check_derivatives(case.fn, *case.args)


# ------------------------------------------------------------------ OrderedDict.move_to_end
def _reorder_and_scale(d, x):
    d.move_to_end("a")
    d["a"] = d["a"] * x
    d.move_to_end("c", last=False)
    return sum(v * (i + 1) for i, v in enumerate(d.values()))


def _fresh():
    return collections.OrderedDict(a=1.0, b=2.0, c=3.0)


@pytest.mark.parametrize("x", [1.5, -0.75])
def test_move_to_end_of_a_caller_dict(x):
    plain = _fresh()
    _reorder_and_scale(plain, x)
    fd = (_reorder_and_scale(_fresh(), x + 1e-6) - _reorder_and_scale(_fresh(), x - 1e-6)) / 2e-6
    d = _fresh()
    g = mc.grad(_reorder_and_scale, argnums=1)(d, x)
    assert list(d.items()) == list(plain.items())
    d = _fresh()
    _, dy = mc.jvp(lambda v: _reorder_and_scale(d, v), (x,), (1.0,))
    assert list(d.items()) == list(plain.items())
    assert abs(g - fd) < 1e-6 and abs(dy - fd) < 1e-6


# ------------------------------------------------------------------ library decorators of a local class, reverse mode
def ordered_pair(x):
    @functools.total_ordering
    class P:
        def __init__(self, v):
            self.v = v

        def __lt__(self, o):
            return self.v < o.v

        def __eq__(self, o):
            return self.v == o.v

    a, b = P(x), P(x * 2)
    c = max(a, b) if a <= b else a
    return c.v * 3 + (b >= a) + sorted([b, a, P(0.5)])[0].v


def ordered_by_product(x):
    @functools.total_ordering
    class Q:
        def __init__(self, v, w):
            self.v, self.w = v, w

        def __gt__(self, o):
            return self.v * self.w > o.v * o.w

        def __eq__(self, o):
            return self.v * self.w == o.v * o.w

    items = [Q(x[i], x[i] ** 2) for i in range(len(x))]
    best = max(items)
    return best.v + min(items).w + sum(q.v for q in items if q <= best)


def ordered_dataclass(x):
    @dataclasses.dataclass(order=True)
    class D:
        a: float
        b: float = 1.0

    ds = [D(x * 2, 3.0), D(x, x * x)]
    return sorted(ds)[0].a + max(ds).b


@pytest.mark.parametrize("fn, arg", [(ordered_pair, 1.5), (ordered_pair, -0.6), (ordered_by_product, np.array([0.3, -1.2, 0.8])),
                                     (ordered_by_product, np.array([1.1, 0.4])), (ordered_dataclass, 0.7),
                                     (ordered_dataclass, -0.4)])
def test_total_ordering_and_dataclass_order_of_a_local_class(fn, arg):
    check_derivatives(fn, arg)


# ------------------------------------------------------------------ scipy.interpolate.CubicSpline (traced)
XS = np.array([0.0, 0.7, 1.5, 2.2, 3.0])
YS = np.array([1.0, 2.0, 0.5, 3.0, 2.5])


@pytest.mark.parametrize("bc", ["not-a-knot", "natural", "clamped", ((1, 0.5), (2, -1.0))])
@pytest.mark.parametrize("nu", [0, 1, 2])
def test_cubic_spline_in_its_values(bc, nu):
    interpolate = pytest.importorskip("scipy.interpolate")
    check_derivatives(lambda y: interpolate.CubicSpline(XS, y, bc_type=bc)(np.array([0.3, 1.2, 2.9]), nu), YS)


@pytest.mark.parametrize("extrapolate", [True, False])
def test_cubic_spline_in_where_it_is_read(extrapolate):
    interpolate = pytest.importorskip("scipy.interpolate")
    check_derivatives(lambda x: interpolate.CubicSpline(XS, YS, extrapolate=extrapolate)(x), np.array([0.3, 1.2, 2.9]))
    check_derivatives(lambda x: interpolate.CubicSpline(XS, YS)(x) * x, 1.7)


def test_cubic_spline_in_both_and_of_vector_values():
    interpolate = pytest.importorskip("scipy.interpolate")
    y2 = np.stack([YS, np.cos(YS)], axis=1)
    check_derivatives(lambda y, x: np.sum(interpolate.CubicSpline(XS, y, axis=0)(x) ** 2), y2, np.array([0.2, 2.5]))
    check_derivatives(lambda y: interpolate.CubicSpline(XS, y).derivative()(np.array([0.4, 1.9])), YS)


# ------------------------------------------------------------------ loops over strings and tuples of strings, forward mode
def keys_from_a_string(x):
    d = collections.OrderedDict((k, x[i] * (i + 1)) for i, k in enumerate("pqrs"))
    d.move_to_end("q")
    return np.dot(np.array(list(d.values())), np.arange(1.0, 5.0))


def pops_by_constant_keys(x):
    d = {k: x[i] * (i + 1) for i, k in enumerate(["p", "q", "r", "s"])}
    for k in ("q", "p"):
        d.pop(k)
    return list(d.values())[0] + d["s"] * 2.0


def labels_into_a_list(x):
    rows = []
    for ch in "ab":
        rows.append((ch, x[0] * 2.0 if ch == "a" else x[1]))
    return sum(v for _, v in rows)


@pytest.mark.parametrize("fn", [keys_from_a_string, pops_by_constant_keys, labels_into_a_list])
def test_loops_over_strings_whose_items_are_stored_with_derivatives(fn):
    check_derivatives(fn, np.array([0.3, 0.5, -0.2, 1.1]))


# ------------------------------------------------------------------ library functions taking a class are not decorators
def typing_cast(x):
    import typing

    return typing.cast(float, x[0]) * 2.0 + typing.cast("np.ndarray", x) @ x


def isinstance_like_calls(x):
    import abc
    import functools

    class Base(abc.ABC):
        pass

    return functools.reduce(lambda a, b: a * b, x) + float(issubclass(Base, abc.ABC)) * x[1]


@pytest.mark.parametrize("fn", [typing_cast, isinstance_like_calls])
def test_library_calls_taking_a_class_keep_the_derivative(fn):
    # (typing.cast(float, v) was run plainly as a class decorator in forward mode: a zero derivative)
    check_derivatives(fn, np.array([0.3, 0.5, -0.2, 1.1]))


# ------------------------------------------------------------------ enum members' attributes (constants)
def enum_members(x):
    import enum

    class Mode(enum.Enum):
        A = 1
        B = 2.5

    out = 0.0
    for m in Mode:
        out = out + x[0] * m.value + (x[1] if m is Mode.A else x[2] * len(m.name))
    return out


class Flavour:
    import enum as _enum

    Kind = _enum.IntEnum("Kind", "LOW HIGH")


def int_enum_at_module_level(x):
    k = Flavour.Kind.HIGH
    return x[0] * k.value + x[1] * int(k) + x[2] ** k


@pytest.mark.parametrize("fn", [enum_members, int_enum_at_module_level])
def test_enum_members_are_constants(fn):
    # (`.value` was refused: enum's descriptor has Python __get__ code that is not differentiated)
    check_derivatives(fn, np.array([0.3, 0.5, -0.2, 1.1]))


# ------------------------------------------------------------------ structured arrays of float fields, forward mode
def record_fields(x):
    out = np.empty(4, dtype=[("a", float), ("b", float)])
    out["a"] = x
    out["b"] = x * 2
    return np.sum(out["a"] * out["b"]) + out[1]["a"] * 3.0


def record_rows(x):
    rec = np.zeros(2, dtype=[("pos", float, (2,)), ("w", float)])
    rec["pos"][0] = x[:2]
    rec["pos"][1] = x[2:] ** 2
    rec["w"] = np.array([x[0], 1.0])
    return rec["pos"] * rec["w"][:, None]


@pytest.mark.parametrize("fn", [record_fields, record_rows])
def test_structured_arrays_of_floats_forward(fn):
    # (their tangent was the symbolic zero, which silently dropped `out["a"] = x`: a zero derivative)
    check_derivatives(fn, np.array([0.3, 0.5, -0.2, 1.1]), modes=("forward",))
