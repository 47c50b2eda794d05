"""Long if/elif chains (issue 14 item 4): derivatives right at many branches, in both modes, for
the shapes whose derivation was quadratic (the tape's stacks and the adjoints all live at once:
names, liveness, the SSA builder's reads).  Nothing here is timed: scripts/bench_elif.py
measures (time against the number of branches), tests/test_scale.py counts the lines run.

Functions are written to files (their source is what is differentiated) and imported."""
import importlib.util

import pytest

import mooncake_ast as mc
from mooncake_ast.emit.numbered import NumberedNames, candidate, readings
from mooncake_ast.testing import check_derivatives


def load(tmp_path, name, source):
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def thresholds(n, loop):
    """`if x < -1: y = x * 1.0 / elif x < 0: y = x * 2.0 / ... / else: y = x * x`, then `y * x`;
    with `loop`, the chain runs three times on a shifted x and the products add up."""
    pad = "        " if loop else "    "
    lines = ["def f(x):"]
    if loop:
        lines += ["    acc = 0.0", "    for j in range(3):", "        x = x + 0.25 * j"]
    for i in range(n):
        lines += [f"{pad}{'if' if i == 0 else 'elif'} x < {i - 1}:", f"{pad}    y = x * {i + 1}.0"]
    lines += [f"{pad}else:", f"{pad}    y = x * x"]
    lines += ["        acc = acc + y * x", "    return acc"] if loop else ["    return y * x"]
    return "\n".join(lines) + "\n"


def exact(x, n):
    """d/dx of y(x) * x: branch i (x < i - 1, the first such) has y = (i + 1) x."""
    for i in range(n):
        if x < i - 1:
            return 2.0 * (i + 1) * x
    return 3.0 * x * x


def test_threshold_chain_300_branches_both_modes(tmp_path):
    n = 300
    m = load(tmp_path, "thr300", thresholds(n, loop=False))
    for x in (-2.5, 3.3, 150.5, 297.7, 305.25):  # the first branch, three inside, the last, the else
        assert mc.grad(m.f)(x) == pytest.approx(exact(x, n), rel=1e-12)
        assert mc.jvp(m.f, (x,), (1.0,))[1] == pytest.approx(exact(x, n), rel=1e-12)
    check_derivatives(m.f, 150.5)


def test_threshold_chain_in_a_loop_both_modes(tmp_path):
    """Inside a loop the adjoints of the branches' values are carried around it: each call takes
    different branches in different iterations (57.6: the last branch twice, then the else)."""
    m = load(tmp_path, "thrloop", thresholds(60, loop=True))
    for x in (-3.1, 2.3, 30.6, 57.6):
        check_derivatives(m.f, x)


def test_numbered_names_read_back_and_skip_what_is_taken():
    assert ("y_stack", 6) in readings("y_stack_6") and ("y_stack_6", 1) in readings("y_stack_6")
    assert (None, 12) in readings("t12")
    assert all(b != "x" for b, _ in readings("x_02")) and all(b != "x" for b, _ in readings("x_1"))
    for base, i in [("stack", 1), ("stack", 7), (None, 3), ("a_2", 1)]:
        assert (base, i) in readings(candidate(base, i))
    taken = {"stack", "stack_2", "stack_3", "stack_5", "t1", "t2"}
    nn = NumberedNames(taken)
    assert nn.first_free("stack", 1, skip_given=False) == 4
    assert nn.first_free(None, 1, skip_given=False) == 3
    nn.give("stack", 4)
    assert nn.first_free("stack", 1, skip_given=True) == 6
    assert nn.first_free("stack", 1, skip_given=False) == 4  # given, but not to a clashing group
    nn.give("stack", 6)
    assert nn.first_free("stack", 2, skip_given=True) == 7
