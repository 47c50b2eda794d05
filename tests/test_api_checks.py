"""What the public API accepts, as JAX does: argnums, tangent and cotangent structure/shape/dtype,
scalar results for grad, complex numbers refused at the reverse-mode boundary (issue 8 items 13, 15),
and the caller's objects as a plain call leaves them after a pullback (issue 16 item 3).

Every accepted input is checked against known derivatives; every refused one must be a MooncakeError
that says what to do, never a number."""
import dataclasses
import math

import numpy as np
import pytest

import mooncake_ast as mc


def fd_grad(f, args, i, h=1e-6):
    """Central finite differences of scalar f with respect to argument i (a float or an array)."""
    x = args[i]
    if isinstance(x, float):
        up = list(args); up[i] = x + h
        dn = list(args); dn[i] = x - h
        return (f(*up) - f(*dn)) / (2 * h)
    g = np.zeros_like(x)
    for k in np.ndindex(x.shape):
        up, dn = x.copy(), x.copy()
        up[k] += h
        dn[k] -= h
        g[k] = (f(*args[:i], up, *args[i + 1:]) - f(*args[:i], dn, *args[i + 1:])) / (2 * h)
    return g


def three(x, y, z):
    return np.sum(np.sin(x) * y) + z * z * np.sum(x)


X, Y, Z = np.array([0.3, -0.7]), np.array([1.5, 2.0]), 0.4


# ---------------------------------------------------------------- argnums


@pytest.mark.parametrize("argnums, expect", [(-1, 2), (-3, 0), ((0, -1), (0, 2)), ([2, 1], (2, 1)), ((-2,), (1,)),
                                             (np.int64(1), 1)])
def test_argnums_negative_and_sequences_count_as_jax_does(argnums, expect):
    g = mc.grad(three, argnums=argnums)(X, Y, Z)
    v, g2 = mc.value_and_grad(three, argnums=argnums)(X, Y, Z)
    assert v == three(X, Y, Z)
    want = tuple(fd_grad(three, (X, Y, Z), i) for i in expect) if isinstance(expect, tuple) else fd_grad(three, (X, Y, Z), expect)
    for got in (g, g2):
        if isinstance(expect, tuple):
            assert isinstance(got, tuple) and len(got) == len(expect)
            for a, b in zip(got, want):
                assert np.allclose(a, b, rtol=1e-6, atol=1e-8)
        else:
            assert np.allclose(got, want, rtol=1e-6, atol=1e-8)
    g3 = mc.differentiate(three).grad(X, Y, Z, argnums=argnums)
    for a, b in zip(g3 if isinstance(expect, tuple) else (g3,), g if isinstance(expect, tuple) else (g,)):
        assert np.allclose(a, b)


@pytest.mark.parametrize("argnums, what", [(3, "out of range"), (-4, "out of range"), ((0, 5), "out of range"),
                                           ((0, 0), "repeat"), ((2, -1), "repeat"), ((1, 1, 0), "repeat")])
def test_argnums_out_of_range_or_repeated_is_one_clear_error(argnums, what):
    for api in (mc.grad, mc.value_and_grad):
        with pytest.raises(mc.ArgnumsError, match=what) as e:
            api(three, argnums=argnums)(X, Y, Z)
        msg = str(e.value)
        assert "argnums" in msg and "3 positional arguments" in msg and "three" in msg
        assert isinstance(e.value, mc.MooncakeError)
    with pytest.raises(mc.ArgnumsError):
        mc.differentiate(three).grad(X, Y, Z, argnums=argnums)


@pytest.mark.parametrize("argnums", [1.0, "0", True, (0, 1.5), (0, None), None, {0: 1}])
def test_argnums_that_are_not_ints_are_refused_when_the_function_is_made(argnums):
    with pytest.raises(mc.ArgnumsError, match="argnums") as e:
        mc.grad(three, argnums=argnums)
    assert isinstance(e.value, (TypeError, ValueError))
    with pytest.raises(mc.ArgnumsError):
        mc.value_and_grad(three, argnums=argnums)


def test_argnums_counts_positional_arguments_only():
    def scaled(x, s=2.0):
        return s * x * x

    assert mc.grad(scaled)(1.5, s=3.0) == pytest.approx(9.0)
    with pytest.raises(mc.ArgnumsError, match="positionally"):
        mc.grad(scaled, argnums=1)(1.5, s=3.0)
    assert mc.grad(scaled, argnums=1)(1.5, 3.0) == pytest.approx(2.25)


# ---------------------------------------------------------------- scalar results for grad


def zero_d_array(x):
    return np.array(np.sum(x * x))


def zero_d_asarray(x):
    return np.asarray(np.dot(x, x))


def zero_d_einsum(x):
    return np.einsum("i,i->", x, x)


def zero_d_keepdims(x):
    return np.sum(x * x, keepdims=True).reshape(())


def zero_d_squeeze(x):
    return np.squeeze(np.sum(x * x, keepdims=True))


@pytest.mark.parametrize("f", [zero_d_array, zero_d_asarray, zero_d_einsum, zero_d_keepdims, zero_d_squeeze])
def test_a_0d_array_result_is_a_scalar_for_grad(f):
    x = np.array([1.0, -2.0, 0.5])
    assert np.allclose(mc.grad(f)(x), 2 * x)
    value, g = mc.value_and_grad(f)(x)
    assert float(value) == pytest.approx(5.25) and np.allclose(g, 2 * x)
    assert np.allclose(mc.vjp(f, x)[1](1.0)[0], 2 * x)
    assert np.allclose(mc.vjp(f, x)[1](np.array(3.0))[0], 6 * x)
    mc.testing.check_derivatives(f, x)


def float32_sum(x):
    return np.sum(x * x)


def test_float32_results_and_gradients_keep_their_dtype():
    x = np.array([1.0, 2.0], dtype=np.float32)
    g = mc.grad(float32_sum)(x)
    assert g.dtype == np.float32 and np.allclose(g, [2.0, 4.0])
    y, dy = mc.jvp(float32_sum, (x,), (np.ones(2),))
    assert dy == pytest.approx(6.0)


def vector_result(x):
    return np.sin(x)


def one_element(x):
    return np.sin(x)[:1]


def int_result(x):
    return len(x)


def test_grad_of_a_non_scalar_result_points_to_vjp():
    for f, x in ((vector_result, np.ones(3)), (one_element, np.ones(3)), (lambda x: [x, x], 1.0), (lambda x: "s", 1.0)):
        with pytest.raises(mc.NonScalarOutputError, match="vjp") as e:
            mc.grad(f)(x)
        assert isinstance(e.value, TypeError) and isinstance(e.value, mc.MooncakeError)
    with pytest.raises(mc.NonScalarOutputError, match="pair"):
        mc.grad(lambda x: x * 2.0, has_aux=True)(1.0)


def test_an_int_result_does_not_depend_on_the_arguments():
    assert np.all(mc.grad(int_result)(np.ones(3)) == 0.0)


def with_aux(x):
    y = np.sin(x)
    return np.sum(y), y


def test_has_aux_returns_the_aux_and_the_right_gradient():
    x = np.array([0.2, 0.9])
    g, aux = mc.grad(with_aux, has_aux=True)(x)
    assert np.allclose(g, np.cos(x)) and np.allclose(aux, np.sin(x))
    (v, aux2), g2 = mc.value_and_grad(with_aux, has_aux=True)(x)
    assert v == pytest.approx(np.sum(np.sin(x))) and np.allclose(g2, g)


# ---------------------------------------------------------------- cotangents (vjp)


def doubled(x):
    return x * 2.0


def pair(x):
    return x * 2.0, np.sum(x) * 3.0


def keyed(x):
    return {"u": x * 2.0, "v": x * 3.0}


@dataclasses.dataclass
class Out:
    a: float
    b: float


def as_object(x):
    return Out(x * 2.0, x * 3.0)


def counted(x):
    return x * 2.0, 3


def test_cotangent_shape_must_match_the_result():
    x = np.array([1.0, 2.0])
    _, pb = mc.vjp(doubled, x)
    for bad, what in ((np.ones(5), r"shape \(5,\)"), (1.0, r"shape \(\)"), (np.ones((2, 1)), r"shape \(2, 1\)"),
                      (np.ones(2, dtype=bool), "dtype bool"), (np.array(["a", "b"]), "dtype <U1"), ("ab", "array"),
                      ((1.0, 2.0, 3.0), r"shape \(3,\)")):
        with pytest.raises(mc.TangentError, match=what) as e:
            pb(bad)
        assert "cotangent" in str(e.value) and isinstance(e.value, mc.MooncakeError)
    # A refused cotangent leaves the pullback usable.
    assert np.allclose(pb(np.array([1.0, -1.0]))[0], [2.0, -2.0])


def test_cotangents_in_the_structure_of_the_result():
    x = np.array([1.0, 2.0])
    assert np.allclose(mc.vjp(pair, x)[1]((np.ones(2), 1.0))[0], 5.0)
    assert np.allclose(mc.vjp(pair, x)[1]([np.ones(2), 1.0])[0], 5.0)  # a list for a tuple
    assert np.allclose(mc.vjp(pair, x)[1]((None, 1.0))[0], 3.0)  # None: zero
    assert np.allclose(mc.vjp(pair, x)[1]((np.ones(2), mc.NoTangent()))[0], 2.0)
    assert np.allclose(mc.vjp(pair, x)[1](None)[0], 0.0)
    for bad, what in (((np.ones(2),), "length 2"), (np.ones(2), "list or tuple"), ((np.ones(3), 1.0), r"\[0\]"),
                      ((np.ones(2), np.ones(2)), r"result\[1\] must be a real number")):
        with pytest.raises(mc.TangentError, match=what):
            mc.vjp(pair, x)[1](bad)
    assert mc.vjp(keyed, 1.0)[1]({"u": 1.0, "v": 2.0}) == (8.0,)
    assert mc.vjp(keyed, 1.0)[1]({"v": 2.0}) == (6.0,)  # a missing key: zero
    with pytest.raises(mc.TangentError, match="'w'"):
        mc.vjp(keyed, 1.0)[1]({"u": 1.0, "w": 2.0})
    # An object result takes an mc.Tangent (it was silently zero).
    assert mc.vjp(as_object, 1.0)[1](mc.Tangent({"a": 1.0, "b": 2.0})) == (8.0,)
    assert mc.vjp(as_object, 1.0)[1]({"b": 2.0}) == (6.0,)
    with pytest.raises(mc.TangentError, match="'c'"):
        mc.vjp(as_object, 1.0)[1](mc.Tangent({"c": 1.0}))
    # The cotangent of an int is no number.
    assert mc.vjp(counted, 1.5)[1]((1.0, None)) == (2.0,)
    with pytest.raises(mc.TangentError, match="not differentiable"):
        mc.vjp(counted, 1.5)[1]((1.0, 1.0))


def test_the_cotangent_given_is_not_changed():
    x = np.array([1.0, 2.0])
    ct = np.array([1.0, 3.0])
    _, pb = mc.vjp(doubled, x)
    assert np.allclose(pb(ct)[0], [2.0, 6.0]) and np.all(ct == [1.0, 3.0])


# ---------------------------------------------------------------- tangents (jvp)


def mixed(x, n, d, xs):
    return np.sum(x) * n + d["w"] * xs[0] + xs[1]


def test_tangent_structure_shape_and_dtype_are_checked():
    args = (np.array([1.0, 2.0]), 3, {"w": 2.0}, [0.5, 1.5])
    y, dy = mc.jvp(mixed, args, (np.array([1.0, 1.0]), None, {"w": 1.0}, [1.0, None]))
    assert y == mixed(*args) and dy == pytest.approx(2 * 3 + 0.5 + 2.0)
    bad_cases = [
        ((np.ones(3), None, None, None), r"argument 0 has shape \(3,\)"),
        ((1.0, None, None, None), r"argument 0 has shape \(\)"),
        ((np.ones(2) * 1j, None, None, None), "dtype complex128"),
        ((None, 1.0, None, None), "argument 1 must be None or mc.NoTangent"),  # a float tangent for an int, as JAX
        ((None, 0, None, None), "argument 1 must be None"),
        ((None, None, {"w": 1.0, "b": 1.0}, None), "'b'"),
        ((None, None, 1.0, None), "argument 2 must be a dict"),
        ((None, None, None, [1.0]), "argument 3 must be a list or tuple of length 2"),
        ((None, None, None, [1.0, 2j]), r"argument 3\[1\] must be a real number"),
        ((None, None, None, [1.0, np.ones(1)]), r"argument 3\[1\] must be a real number"),
    ]
    for tangents, what in bad_cases:
        with pytest.raises(mc.TangentError, match=what) as e:
            mc.jvp(mixed, args, tangents)
        assert isinstance(e.value, mc.MooncakeError)
    with pytest.raises(mc.TangentError, match="tuples"):
        mc.jvp(mixed, list(args), (None,) * 4)
    with pytest.raises(mc.TangentError, match="4 primals but 3 tangents"):
        mc.jvp(mixed, args, (None,) * 3)


def int_array_arg(x, idx):
    return np.sum(x[idx] ** 2)


def test_int_arrays_take_no_tangent_and_float32_tangents_stay_float32():
    x, idx = np.array([1.0, 2.0, 3.0]), np.array([0, 2])
    assert mc.jvp(int_array_arg, (x, idx), (np.ones(3), None))[1] == pytest.approx(8.0)
    with pytest.raises(mc.TangentError, match="argument 1 must be None or mc.NoTangent"):
        mc.jvp(int_array_arg, (x, idx), (np.ones(3), np.ones(2)))
    x32 = x.astype(np.float32)
    y, dy = mc.jvp(int_array_arg, (x32, idx), (np.ones(3), None))
    assert y == pytest.approx(10.0) and dy == pytest.approx(8.0)


@dataclasses.dataclass
class Params:
    w: float
    b: float


def affine(p, x):
    return p.w * x + p.b


def test_object_tangents_as_mc_tangent_or_dict():
    p = Params(2.0, 1.0)
    assert mc.jvp(affine, (p, 3.0), (mc.Tangent({"w": 1.0, "b": 0.0}), None))[1] == pytest.approx(3.0)
    assert mc.jvp(affine, (p, 3.0), ({"b": 1.0}, 1.0))[1] == pytest.approx(3.0)
    with pytest.raises(mc.TangentError, match="'c'"):
        mc.jvp(affine, (p, 3.0), ({"c": 1.0}, None))
    with pytest.raises(mc.TangentError, match="mc.Tangent"):
        mc.jvp(affine, (p, 3.0), (1.0, None))


def inner_product(a, b):
    return np.sum(a * b)


def test_an_object_passed_twice_has_one_tangent():
    a = np.array([1.0, 2.0])
    t = np.array([0.5, -1.0])
    assert mc.jvp(inner_product, (a, a), (t, t))[1] == pytest.approx(2 * np.dot(a, t))
    assert mc.jvp(inner_product, (a, a), (t, t.copy()))[1] == pytest.approx(2 * np.dot(a, t))
    with pytest.raises(mc.TangentError, match="same object"):
        mc.jvp(inner_product, (a, a), (t, np.ones(2)))
    g = mc.grad(inner_product, argnums=(0, 1))(a, a)
    assert np.allclose(g[0], 2 * a) and np.allclose(g[1], 2 * a)  # the one object's gradient, at both places


# ---------------------------------------------------------------- complex numbers: both modes (README "Complex numbers")

Z2 = np.array([1.0 + 2.0j, -0.5 + 3.0j])


def complex_in_list(xs):
    return np.sum(np.abs(xs[1]))


def complex_inside(p):
    return abs(p.w)


def complex_out(x):
    return x * (1.0 + 2.0j)


@pytest.mark.parametrize("f, args", [(np.sum, (Z2,)), (np.imag, (Z2,)), (np.abs, (Z2,)), (np.real, (Z2,)),
                                     (abs, (1.0 + 2.0j,)), (complex_in_list, ([1.0, Z2],)),
                                     (complex_inside, (Params(1j + 0.5, 0.0),)), (complex_out, (2.0,)),
                                     (np.sum, (np.complex64(1j),))])
def test_reverse_mode_takes_complex_values_passed_to_the_api(f, args):
    out, pb = mc.vjp(f, *args)
    grads = pb(np.ones(np.shape(out), dtype=np.result_type(out)) if np.ndim(out) else type(out)(1))
    assert len(grads) == len(args)
    real_f = lambda *a: np.real(np.sum(f(*a)))  # noqa: E731
    mc.testing.check_derivatives(real_f, *args, modes=("reverse",))
    if np.iscomplexobj(out):
        with pytest.raises(mc.ComplexReverseError, match="mc.vjp"):  # grad needs a real result
            mc.grad(lambda *a: np.sum(f(*a)))(*args)


def test_reverse_mode_refuses_a_complex_cotangent():
    _, pb = mc.vjp(doubled, 1.5)
    with pytest.raises(mc.TangentError, match="real number"):
        pb(1.0 + 1.0j)
    with pytest.raises(mc.TangentError, match="dtype complex128"):
        mc.vjp(doubled, np.ones(2))[1](np.ones(2) * 1j)


def test_forward_mode_keeps_complex_support():
    dz = np.array([1.0 + 0.0j, 0.5 - 1.0j])
    assert np.allclose(mc.jvp(np.sum, (Z2,), (dz,))[1], np.sum(dz))
    assert np.allclose(mc.jvp(np.imag, (Z2,), (dz,))[1], np.imag(dz))
    assert np.allclose(mc.jvp(np.abs, (Z2,), (dz,))[1], np.real(np.conj(Z2) * dz) / np.abs(Z2))
    assert mc.jvp(abs, (3.0 + 4.0j,), (1.0,))[1] == pytest.approx(0.6)
    y, dy = mc.jvp(complex_out, (2.0,), (1.0,))
    assert y == 2.0 + 4.0j and dy == 1.0 + 2.0j
    with pytest.raises(mc.TangentError, match="real number"):
        mc.jvp(doubled, (1.0,), (1j,))  # a complex tangent for a real argument


# ---------------------------------------------------------------- caller-visible state after the pullback


def returns_updated_copy(a):
    u = a.copy()
    u[1] += 1.0
    return 0.0, u


def fills_list_item(xs, x):
    xs[0][1] = x
    return np.sum(xs[0] * xs[0])


def scales_in_place(a, s):
    a *= s
    return np.sum(a), a


def test_the_result_and_arguments_are_as_a_plain_call_leaves_them():
    a = np.array([0.3, 0.3, 0.1])
    y, pb = mc.vjp(returns_updated_copy, a)
    (g,) = pb((0.0, np.array([1.0, 2.0, 3.0])))
    assert np.allclose(g, [1.0, 2.0, 3.0])
    assert np.allclose(y[1], [0.3, 1.3, 0.1]) and np.allclose(a, [0.3, 0.3, 0.1])  # issue 16 item 3
    inner = np.array([1.0, 2.0, 3.0])
    xs = [inner]
    g_xs, g_x = mc.grad(fills_list_item, argnums=(0, 1))(xs, 0.5)
    assert xs[0] is inner and np.allclose(inner, [1.0, 0.5, 3.0])  # the same object, in its post-call state
    assert np.allclose(g_xs[0], [2.0, 0.0, 6.0]) and g_x == pytest.approx(1.0)
    b = np.array([1.0, 2.0])
    y, pb = mc.vjp(scales_in_place, b, 3.0)
    gb, gs = pb((1.0, np.array([1.0, 0.0])))
    assert y[1] is b and np.allclose(b, [3.0, 6.0]) and np.allclose(y[1], [3.0, 6.0])
    assert np.allclose(gb, [6.0, 3.0]) and gs == pytest.approx(1.0 + 2.0 + 1.0)


def svd_of_a_tall_matrix(a):
    u, s, vt = np.linalg.svd(a)  # full_matrices=True: the extra singular vectors are not unique
    return np.sum(s) + np.sum(u)


@pytest.mark.parametrize("mode", ["jvp", "vjp", "grad"])
def test_a_rule_refusal_names_the_users_line(mode):
    a = np.ones((3, 2))
    with pytest.raises(mc.UnsupportedDerivativeError) as info:
        if mode == "jvp":
            mc.jvp(svd_of_a_tall_matrix, (a,), (a,))
        elif mode == "vjp":
            mc.vjp(svd_of_a_tall_matrix, a)[1](1.0)
        else:
            mc.grad(svd_of_a_tall_matrix)(a)
    assert isinstance(info.value, mc.MooncakeError) and isinstance(info.value, NotImplementedError)
    line = svd_of_a_tall_matrix.__code__.co_firstlineno + 1
    assert f"test_api_checks.py:{line}" in str(info.value) and "full_matrices" in str(info.value)
