"""Writes inside a `try` body (and inside `with` bodies, lowered alike) in both modes and at second order.

Inside a `try` body every call is lowered to `guarded_call(f, tuple_of(args), dict_of(kwargs))`
(frontend/try_stmt.py).  Activity analysis saw only guarded_call, which writes nothing, so a container of constants
written there (`a = np.zeros(2); try: a[0] = x[0] * x[1]`) kept no derivative storage: reverse mode dropped the write
(gradient 0, silently), forward mode refused.  forward/activity.Activity._unguarded now sees the guarded call itself.
hunt13 found it (tests/test_regress_hunt13.py's try family); these are the wider family: out= keywords, copyto,
`+=` items in loops, list.extend / insert, dict.update / setdefault, helpers, nested tries, objects, breaks.
"""
import contextlib

import numpy as np
import pytest

import mooncake_ast as mc

def w_with_errstate(x):
    a = np.zeros(3)
    with np.errstate(divide="ignore"):
        a[0] = x[0] * x[1]
        a[1:] = np.log(np.abs(x[1:3]))
    return a @ a

def w_out_kw(x):
    buf = np.empty(3)
    try:
        np.exp(x[:3], out=buf)
    except FloatingPointError:
        buf[:] = 0.0
    return buf.sum() * x[0]

def w_copyto(x):
    buf = np.zeros(3)
    try:
        np.copyto(buf, x[:3] ** 2)
    except ValueError:
        pass
    return np.prod(buf)

def w_iadd_item(x):
    a = np.zeros(3)
    try:
        for i in range(3):
            a[i] += x[i] * x[i + 1]
    except IndexError:
        pass
    return np.sum(a ** 2)

def w_extend_insert(x):
    L = []
    try:
        L.extend([x[0], x[1] ** 2])
        L.insert(0, x[2] * 3.0)
    except TypeError:
        pass
    return L[0] * L[2] + L[1]

def w_dict_update(x):
    d = {}
    try:
        d.update(a=x[0] ** 2, b=x[1])
        d.setdefault("c", x[2] * x[0])
    except KeyError:
        pass
    return d["a"] + d["b"] * d["c"]

def _helper_fill(buf, x):
    try:
        buf[0] = np.sin(x[0])
        buf[1] = x[1] * x[2]
    except IndexError:
        buf[:] = 0.0

def w_helper_try(x):
    buf = np.zeros(2)
    _helper_fill(buf, x)
    return buf[0] * buf[1] + buf[1]

def w_nested_try(x):
    out = [0.0, 0.0]
    try:
        try:
            out[0] = x[0] / x[1]
        except ZeroDivisionError:
            out[0] = 0.0
        out[1] = out[0] * x[2]
    finally:
        pass
    return out[0] + out[1] ** 2

def w_raise_caught(x):
    a = np.zeros(2)
    try:
        a[0] = x[0] ** 2
        if x[1] < 0:
            raise ValueError
        a[1] = 5.0
    except ValueError:
        a[1] = x[2] * a[0]
    return a[0] + a[1]

class Box:
    def __init__(self):
        self.v = np.zeros(2)
    def set(self, y):
        self.v[:] = y

def w_obj_item(x):
    b = Box()
    try:
        b.set(x[:2] * x[2])
        b.v[1] = b.v[1] ** 2
    except ValueError:
        pass
    return b.v.sum()

def w_try_loop_break(x):
    acc = np.zeros(1)
    for v in x:
        try:
            acc[0] = acc[0] + np.sqrt(v)
        except FloatingPointError:
            break
        if np.isnan(acc[0]):
            acc[0] = 0.0
    return acc[0]

@contextlib.contextmanager
def ctx():
    yield

def w_ctxmgr(x):
    a = [0.0]
    with ctx():
        a[0] = x[0] * x[1] * x[2]
    return a[0]



def _fill(buf, x):
    buf[0] = x[0] * x[1]
    buf[1] = np.sin(x[2])
def w_helper_called_in_try(x):
    buf = np.zeros(2)
    try:
        _fill(buf, x)
    except ValueError:
        buf[:] = 0.0
    return buf @ buf
class _Acc:
    def __init__(self): self.items = []
    def push(self, v): self.items.append(v)
def w_object_list_in_try(x):
    a = _Acc()
    try:
        for v in x:
            a.push(v * v)
    finally:
        pass
    return sum(a.items) * a.items[0]
def w_dict_update_in_try(x):
    out = {}
    try:
        out.update({"a": x[0] ** 2})
        out["b"] = np.exp(x[1])
    except KeyError:
        out = {"a": 0.0, "b": 0.0}
    return out["a"] * out["b"]


FUNCTIONS = [w_with_errstate, w_out_kw, w_copyto, w_iadd_item, w_extend_insert, w_dict_update, w_helper_try,
             w_nested_try, w_raise_caught, w_obj_item, w_try_loop_break, w_ctxmgr, w_helper_called_in_try,
             w_object_list_in_try, w_dict_update_in_try]
X = np.array([0.3, -0.7, 1.1, 0.5, -0.2, 0.9])


def _point(f):
    return np.abs(X) + 0.1 if f is w_try_loop_break else X.copy()


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_write_inside_try(f, mode):
    mc.testing.check_derivatives(f, _point(f), modes=(mode,))


def _fd_hessian(f, x, eps=1e-5):
    g = mc.grad(f)
    return np.array([(g(x + eps * e) - g(x - eps * e)) / (2 * eps) for e in np.eye(x.size)]).T


@pytest.mark.parametrize("f", [f for f in FUNCTIONS if f is not w_copyto], ids=lambda f: f.__name__)
def test_write_inside_try_hessian(f):
    x = _point(f)
    np.testing.assert_allclose(mc.hessian(f)(x.copy()), _fd_hessian(f, x), rtol=1e-4, atol=1e-5)


def test_copyto_inside_try_hessian_refused():
    """np.copyto's forward rule is hand-written: at second order it is refused, never a number."""
    with pytest.raises(mc.MooncakeError, match="copyto"):
        mc.hessian(w_copyto)(X.copy())
