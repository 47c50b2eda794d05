"""Dict and object parameters typed by their items or fields as the call passed them, which the function then
rewrites with values of another type (a wrong gradient before: the reads were still typed as numbers)."""


class Box:
    def __init__(self, v):
        self.v = v

    def __mul__(self, other):
        return self.v * other * 2.0


class Holder:
    def __init__(self, a):
        self.a = a


def dict_item_replaced(params, x, y):
    params["a"] = Box(x)
    return params["a"] * y


def dict_item_replaced_and_restored(params, x):
    params["a"] = Box(x)
    r = params["a"] * x
    params["a"] = 0.5
    return r


def field_replaced(p, x, y):
    p.a = Box(x)
    return p.a * y


def field_rewritten_same_type(p, x, y):
    p.a = x * 3.0  # (a number again: the field stays typed)
    return p.a * y


def dict_only_read(params, x):
    return params["a"] * x + params.get("b", 2.0) * x * x


class Resettable:
    def __init__(self, a):
        self.a = a

    def reset(self, x):
        self.a = Box(x)


def field_replaced_by_a_method(p, x, y):
    p.reset(x)  # (a method writes the field: the object is "any" from here)
    return p.a * y


def _set_field(p, x):
    p.a = Box(x)


def field_replaced_by_a_helper(p, x, y):
    _set_field(p, x)
    return p.a * y
