"""Classes with their own `__setattr__` / `__delattr__` (both modes, and second order).

`obj.name = v` runs the class's `__setattr__`, which may store something else than v (a scaled or clipped value)
or file v in a registry as well (a PyTorch-style Module's parameters).  The derivative took the store as plain:
the derivative of v where 2v was stored, and registries filled by the method were missing in forward mode
(KeyError).  The method is now differentiated as the call it is (forward/objects._own_attribute_method)."""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives

X = np.array([0.7, -1.3, 2.1])


class Doubling:
    def __setattr__(self, name, value):
        object.__setattr__(self, name, value * 2.0)


class DoublingInit(Doubling):  # inherited, and used from __init__
    def __init__(self, w):
        self.w = w


class Clipped:
    def __setattr__(self, name, value):
        super().__setattr__(name, np.clip(value, -1.5, 1.5) * 2.0)


class Logged:
    """Keeps every value it was given, by name (a history of assignments)."""

    def __init__(self):
        object.__setattr__(self, "history", {})

    def __setattr__(self, name, value):
        self.history.setdefault(name, []).append(value)
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        self.history.pop(name)
        object.__delattr__(self, name)


class Parameter:
    def __init__(self, data):
        self.data = data


class Module:
    def __init__(self):
        object.__setattr__(self, "_params", {})
        object.__setattr__(self, "_modules", {})

    def __setattr__(self, name, value):
        if isinstance(value, Parameter):
            self._params[name] = value
        elif isinstance(value, Module):
            self._modules[name] = value
        object.__setattr__(self, name, value)

    def parameters(self):
        for p in self._params.values():
            yield p
        for m in self._modules.values():
            yield from m.parameters()


class Linear(Module):
    def __init__(self, W, b):
        super().__init__()
        self.W = Parameter(W)
        self.b = Parameter(b)

    def __call__(self, h):
        return self.W.data @ h + self.b.data


class Net(Module):
    def __init__(self, x):
        super().__init__()
        self.l1 = Linear(np.outer(x, x) * 0.2, x)
        self.l2 = Linear(np.outer(x, x[::-1]) * 0.1, x[::-1])

    def __call__(self, h):
        return self.l2(np.tanh(self.l1(h)))


def scaled_store(x):
    v = Doubling()
    v.w = x[0]
    v.w = v.w * x[1]  # read back (2 x0), stored doubled again
    return v.w + x[2]


def inherited_in_init(x):
    return DoublingInit(x[0]).w * x[1] + DoublingInit(x).w @ x


def clipped_array(x):
    c = Clipped()
    c.w = x
    c.w = c.w * x
    return np.sum(c.w)


def history_kept(x):
    o = Logged()
    o.a = x[0]
    o.a = o.a * x[1]
    o.b = np.sin(x)
    return sum(o.history["a"]) + np.sum(o.history["b"][0] * x) + o.a


def parameters_of_a_net(x):
    net = Net(x)
    reg = sum(np.sum(p.data ** 2) for p in net.parameters())
    return np.sum(net(x)) + 0.01 * reg


def parameter_by_name(x):
    lin = Linear(np.outer(x, x), x)
    return np.sum(lin._params["W"].data ** 2) + lin._params["b"].data @ x


def state_dict_loaded(x):
    lin = Linear(np.outer(x, x), x)
    state = {k: p.data for k, p in lin._params.items()}
    other = Linear(np.zeros((3, 3)), np.zeros(3))
    for k, v in state.items():
        other._params[k].data = v
    return np.sum(other(x) ** 2)


FAMILY = [scaled_store, inherited_in_init, clipped_array, history_kept, parameters_of_a_net, parameter_by_name,
          state_dict_loaded]


@pytest.mark.parametrize("f", FAMILY, ids=lambda f: f.__name__)
def test_own_setattr_both_modes(f):
    check_derivatives(f, X.copy())


def test_scaled_store_is_exact():
    # v.w = 2 x0; v.w = 2 * (2 x0) * x1 = 4 x0 x1; result 4 x0 x1 + x2
    np.testing.assert_allclose(mc.grad(scaled_store)(X.copy()), [4 * X[1], 4 * X[0], 1.0], rtol=1e-14)


def deleted_through_own_delattr(x):
    o = Logged()
    o.b = np.sin(x)
    s = np.sum(o.b)
    del o.b
    return s


@pytest.mark.parametrize("grad", [mc.grad, lambda f: (lambda x: mc.jvp(f, (x,), (x,)))], ids=["reverse", "forward"])
def test_own_delattr_is_refused_by_name(grad):
    with pytest.raises(mc.errors.UnsupportedDerivativeError, match="own __delattr__"):
        grad(deleted_through_own_delattr)(X.copy())


@pytest.mark.parametrize("f", [scaled_store, clipped_array, parameter_by_name], ids=lambda f: f.__name__)
def test_own_setattr_second_order(f):
    H = mc.hessian(f)(X.copy())
    g = mc.grad(f)
    h = 1e-5
    fd = np.array([(g(X + h * e) - g(X - h * e)) / (2 * h) for e in np.eye(3)])
    np.testing.assert_allclose(H, fd, rtol=1e-5, atol=1e-6)
