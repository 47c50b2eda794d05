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


def _builder_lines(fn, arg):
    """Lines run in the SSA builder and the pullback's phi clean-up while `fn`'s reverse derivative is made."""
    import os
    import sys

    watched = [os.path.join("mooncake_ast", "ir", "builder.py"), os.path.join("mooncake_ast", "reverse", "cleanup.py")]
    count = [0]

    def local(frame, event, arg):
        if event == "line":
            count[0] += 1
        return local

    def tracer(frame, event, arg):
        return local if frame.f_code.co_filename.endswith(tuple(watched)) else None

    old = sys.gettrace()
    sys.settrace(tracer)
    try:
        mc.grad(fn)(arg)
    finally:
        sys.settrace(old)
    return count[0]


def test_chain_in_a_loop_builds_its_pullback_in_linear_work(tmp_path):
    """The pullback of an elif chain inside a loop: twice the branches, about twice the lines run in the
    SSA builder and the phi clean-up.  (The adjoint of each branch's value was carried around the
    reversed loop, and sealing its header placed a phi per variable at every join of the chain: N^2
    phis, all redundant; reverse/transform.py `_rev_body` now says they are zero at the reversed latch,
    and a first read of a variable assigned in the entry only jumps up the chain: ir/builder.py
    `_chain_top`.)  Counted, not timed; the derivative is checked too."""
    small = load(tmp_path, "loopchain25", thresholds(25, loop=True))
    large = load(tmp_path, "loopchain50", thresholds(50, loop=True))
    a = _builder_lines(small.f, 3.3)
    b = _builder_lines(large.f, 3.3)
    assert b / a < 2.4, (a, b)
    check_derivatives(large.f, 20.6)
