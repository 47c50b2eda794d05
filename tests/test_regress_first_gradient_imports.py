"""A first gradient imports only what it uses (issue 11: a first gradient in milliseconds).

Lowering `del` and function-level imports (frontend/del_stmt.py, imports.py) and reverse mode's quiet item reads
(reverse/quiet_items.py) are imported when a function has them (lazy_imports.lazy_module), and a first forward
derivative no longer imports SciPy's helpers to ask whether a library function is one of the runtime's names
(runtime.holds).  Checked in new processes (what a process has imported is the point), both modes, and the
deferred constructs still differentiate right (finite differences, both modes).  Nothing here is timed.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast import runtime
from mooncake_ast.lazy_imports import LazyModule, lazy_module

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFERRED = ["mooncake_ast.frontend.del_stmt", "mooncake_ast.frontend.imports", "mooncake_ast.reverse.quiet_items"]

PLAIN = '''\
import math
import numpy as np


def scalar(x):
    y = x
    for i in range(3):
        if y > 0.1:
            y = y * math.sin(x) + 1.0
        else:
            y = y - x * x
    return y


def arrays(w):
    x = np.linspace(0.0, 1.0, 4)
    return np.sum(np.tanh(w[0] + w[1] * x) ** 2) + np.exp(-w[2])
'''

USES = '''\
import math


def with_del(x):
    y = x * x
    z = y + x
    del y
    return z * math.cos(x)


def with_import(x):
    import math as m
    from math import sin
    return m.exp(x) * sin(x)
'''

DRIVER = """\
import json, sys
import numpy as np
import mooncake_ast as mc
import {module} as m
for name, arg in {calls}:
    fn = getattr(m, name)
    if {mode!r} == "forward":
        mc.jvp(fn, (arg,), (np.ones_like(arg) if isinstance(arg, np.ndarray) else 1.0,))
    else:
        mc.grad(fn)(arg)
print(json.dumps(sorted(n for n in sys.modules if n.startswith("mooncake_ast") or n == "scipy")))
"""


def _loaded(tmp_path, module, text, calls, mode):
    (tmp_path / f"{module}.py").write_text(text)
    env = dict(os.environ, MOONCAKE_AST_CACHE_DIR=str(tmp_path / f"cache_{mode}"),
               PYTHONPATH=os.pathsep.join([str(tmp_path), ROOT]))
    code = DRIVER.format(module=module, calls=calls, mode=mode)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300,
                       cwd=str(tmp_path))
    assert p.returncode == 0, p.stderr[-3000:]
    return set(json.loads(p.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize("mode", ["forward", "reverse"])
@pytest.mark.parametrize("calls", ['[("scalar", 0.4)]', '[("arrays", np.array([0.3, -0.2, 0.5]))]',
                                   '[("scalar", -0.4), ("arrays", np.array([0.1, 0.2, 0.3]))]'])
def test_a_plain_function_imports_none_of_the_deferred_modules(tmp_path, mode, calls):
    loaded = _loaded(tmp_path, "user_plain_imports", PLAIN, calls, mode)
    assert "mooncake_ast.frontend.statements" in loaded  # (a derivation ran)
    assert not set(DEFERRED) & loaded
    if "scipy" not in loaded:  # (SciPy's helpers stay out while the user's code has not imported SciPy)
        assert "mooncake_ast.rules.scipy_rules" not in loaded


@pytest.mark.parametrize("mode", ["forward", "reverse"])
@pytest.mark.parametrize("name, deferred", [("with_del", "mooncake_ast.frontend.del_stmt"),
                                            ("with_import", "mooncake_ast.frontend.imports")])
def test_a_function_that_needs_one_imports_it(tmp_path, mode, name, deferred):
    assert deferred in _loaded(tmp_path, "user_uses_imports", USES, f'[("{name}", 0.7)]', mode)


def _with_del(x):
    y = x * x
    z = y + x
    del y
    return z * np.cos(x)


def _with_import(x):
    import math as m
    from math import sin
    return m.exp(x) * sin(x)


def _del_in_loop(x):
    acc = 0.0
    for k in range(3):
        t = x * (k + 1)
        acc = acc + np.sin(t)
        del t
    return acc


@pytest.mark.parametrize("fn", [_with_del, _with_import, _del_in_loop])
@pytest.mark.parametrize("x", [0.3, -1.1, 2.0])
def test_the_deferred_constructs_differentiate_right(fn, x):
    mc.testing.check_derivatives(fn, x)


def test_lazy_module_stands_in_until_first_read_then_is_replaced():
    already = lazy_module({"__package__": "mooncake_ast.reverse"}, "..api")  # (imported already: the module itself)
    assert already is sys.modules["mooncake_ast.api"]
    sys.modules.pop("mooncake_ast.frontend.lazy_test_target", None)
    stand_in = lazy_module({"__package__": "mooncake_ast.reverse"}, "..frontend.lazy_test_target")
    assert isinstance(stand_in, LazyModule) and "mooncake_ast.frontend.lazy_test_target" in repr(stand_in)
    namespace = {"__package__": "mooncake_ast.frontend"}
    namespace["del_stmt"] = LazyModule("mooncake_ast.frontend.del_stmt", namespace, "del_stmt")
    lower = namespace["del_stmt"].lower_del
    assert namespace["del_stmt"] is sys.modules["mooncake_ast.frontend.del_stmt"]
    assert lower is sys.modules["mooncake_ast.frontend.del_stmt"].lower_del


def test_runtime_holds_answers_as_getattr_does():
    names = ["acc", "rcall", "fcall", "array_storage", "give_back", "add_sorted", "rcall_numbers", "take", "update"]
    for name in names:
        fn = getattr(runtime, name)
        assert runtime.holds(fn)
    assert not runtime.holds(np.sin) and not runtime.holds(len) and not runtime.holds(lambda x: x)
    from mooncake_ast.reverse import shadows

    assert runtime.holds(shadows.acc) and not runtime.holds(object())
