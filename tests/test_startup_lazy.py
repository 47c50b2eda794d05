"""Start-up (issue 11), what is deferred or kept: the rule tables registered on first need (registry._LAZY_TABLES),
the digest that needs no `hashlib`, the library's dataclasses made from kept code at import (cache_classes),
the IR passes skipped where they find nothing (reverse/plainer.py).

Behaviour only, nothing timed (examples/bench_startup.py and scripts/startup_ab.py measure).  What depends on
what a process has imported runs in a fresh interpreter."""
import json
import os
import subprocess
import sys
import textwrap
import types

import numpy as np
import pytest

import golden_functions
from mooncake_ast.frontend.statements import lower_function
from mooncake_ast.ir.fold_dicts import fold_dict_reads
from mooncake_ast.ir.printer import format_function
from mooncake_ast.reverse import plainer, unroll

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

USER = """\
import statistics

import numpy as np


def draws(m, s):
    rng = np.random.default_rng(5)
    return np.sum(rng.normal(loc=m, scale=s, size=3))


def spectrum(x):
    return np.sum(np.abs(np.fft.rfft(x)) ** 2)


def masked(x):
    return np.ma.array(x, mask=[0, 1, 0]).sum()


def spread(a, b):
    values = [a, a * b, b * b, 1.5]
    return statistics.pstdev(values) + statistics.geometric_mean([a * a + 1.0, b * b + 2.0])
"""


def python(code, tmp_path):
    env = dict(os.environ, MOONCAKE_AST_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=os.pathsep.join([str(tmp_path), ROOT, os.environ.get("PYTHONPATH", "")]))
    p = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=env,
                       timeout=120, cwd=str(tmp_path))
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


def test_import_defers_numpy_random_and_hashlib_and_the_draws_rules_come_when_used(tmp_path):
    """`import mooncake_ast` imports none of numpy.random, numpy.ma, statistics, hashlib, SciPy, sysconfig; a draw
    and `statistics` functions the user's code calls later find their (built-in) rules, checked against finite
    differences, and numpy.ma's refusals are there once the user's code reaches numpy.ma (both modes refuse, cold
    and warm).  In a new process the cached derivatives (whose
    modules import the rules modules of the helpers they call) leave the rule tables as built in: no rule counts
    as the user's, so other derivatives' keys do not change."""
    (tmp_path / "lazy_user.py").write_text(USER)
    code = """
        import json, sys
        import numpy as np
        import mooncake_ast as mc
        from mooncake_ast.rules import registry
        heavy = ("numpy.random", "numpy.ma", "statistics", "hashlib", "_hashlib", "scipy", "sysconfig")
        at_import = [m for m in heavy if m in sys.modules]
        import lazy_user
        g_draws = mc.grad(lazy_user.draws, argnums=(0, 1))(0.3, 1.7)
        g_spectrum = mc.grad(lazy_user.spectrum)(np.array([0.3, -1.2, 2.0, 0.5]))
        refused = []
        for how in (lambda: mc.grad(lazy_user.masked)(np.ones(3)), lambda: mc.jvp(lazy_user.masked, (np.ones(3),), (np.ones(3),))):
            try:
                how()
            except mc.UnsupportedDerivativeError as e:
                refused.append("numpy.ma.array" in str(e))
        g_spread = mc.grad(lazy_user.spread, argnums=(0, 1))(0.7, -1.3)
        changed = len(registry.changed_rules())
        from mooncake_ast.testing import check_derivatives
        check_derivatives(lazy_user.draws, 0.3, 1.7)
        check_derivatives(lazy_user.spectrum, np.array([0.3, -1.2, 2.0, 0.5]))
        check_derivatives(lazy_user.spread, 0.7, -1.3)
        rng = np.random.default_rng(0)
        print(json.dumps({"at_import": at_import, "changed": changed, "refused": refused, "normal": registry.lookup(rng.normal) is not None,
                          "grads": [*g_draws, *g_spectrum.tolist(), *g_spread]}))
        """
    cold, warm = python(code, tmp_path), python(code, tmp_path)
    assert cold["at_import"] == warm["at_import"] == [] and cold["changed"] == warm["changed"] == 0
    assert cold["refused"] == warm["refused"] == [True, True]
    assert cold["normal"] and warm["normal"] and warm["grads"] == pytest.approx(cold["grads"])


def test_a_user_rule_is_not_replaced_by_a_table_registered_later(tmp_path):
    """A rule the user registers for a callable of a deferred table stays theirs when the table is registered: the
    gradient uses it, and the rule (which cache keys describe by its fingerprint) is the user's, not the table's."""
    pytest.importorskip("scipy.special")
    (tmp_path / "sp_user.py").write_text("from scipy import special\n\n\ndef f(x):\n    return special.expit(x)\n")
    out = python("""
        import json
        import mooncake_ast as mc
        from mooncake_ast.rules import fingerprints, registry
        from scipy import special
        import sp_user

        @mc.rrule(special.expit)
        def expit_doubled(x):  # (a deliberately different pullback: the one a gradient must show)
            return special.expit(x), lambda g: (2.0 * g,)

        registry.lookup(special.erf)  # (the table is due: registered at the latest now)
        g = mc.grad(sp_user.f)(0.3)
        r = registry.lookup(special.expit)
        print(json.dumps({"grad": g, "user": r.user_rrule is not None and r.vjp is None,
                          "fingerprint": r.fingerprint == str(fingerprints._fingerprint(None, expit_doubled))}))
        """, tmp_path)
    assert out == {"grad": pytest.approx(2.0), "user": True, "fingerprint": True}


def test_import_makes_the_library_dataclasses_from_kept_code_and_creates_no_cache_directory(tmp_path):
    """`import mooncake_ast` makes its own dataclasses from code kept in the cache (cache_classes): none is kept
    while the directory does not exist (and the import does not create it), then the next imports compile nothing;
    the classes made from kept code behave as compiled ones."""
    code = """
        import dataclasses, json
        import mooncake_ast
        from mooncake_ast import cache_classes
        from mooncake_ast.ir.types import Arr, Num
        try:
            Num("float").kind = "int"
            frozen = False
        except dataclasses.FrozenInstanceError:
            frozen = True
        print(json.dumps({"stats": cache_classes.STATS, "eq": Num("float") == Num("float") != Num("int"),
                          "hash": hash(Arr("f", ("n",))) == hash(Arr("f", ("n",))), "repr": repr(Num("int")),
                          "frozen": frozen}))
        """
    runs = [python(code, tmp_path)]
    created = (tmp_path / "cache").exists()
    (tmp_path / "cache").mkdir(mode=0o700)
    runs += [python(code, tmp_path), python(code, tmp_path)]
    assert not created and runs[0]["stats"]["compiled"] > 0 and runs[1]["stats"]["compiled"] > 0
    assert runs[2]["stats"]["compiled"] == 0 and runs[2]["stats"]["kept"] > 10
    assert all(r["eq"] and r["hash"] and r["frozen"] and r["repr"] == "Num(kind='int')" for r in runs)


# ---------------------------------------------------------------- passes skipped where they find nothing


def with_loops_and_dicts(x, n):
    opts = {"a": 2.0, "b": 0.5}
    total = 0.0
    for w in (x, 2.0 * x):
        total = total + opts["a"] * w
    i = 0
    while i < n:
        total = total * opts["b"]
        i = i + 1
    return total


def while_only(x, n):
    i = 0
    while i < n:
        x = x * 0.5
        i = i + 1
    return [x, 2.0 * x][1]


FUNCTIONS = [f for f in vars(golden_functions).values()
             if isinstance(f, types.FunctionType) and f.__module__ == "golden_functions"]


@pytest.mark.parametrize("fn", FUNCTIONS + [with_loops_and_dicts, while_only], ids=lambda f: f.__name__)
def test_a_pass_the_scan_skips_would_change_nothing(fn):
    """Where has_for_loop / has_dict_display say no, the pass they guard leaves the IR exactly as it is."""
    checked = 0
    for guard, run in ((plainer.has_for_loop, unroll.unroll_display_loops),
                       (plainer.has_dict_display, lambda ir: fold_dict_reads(ir, fn.__globals__))):
        ir = lower_function(fn)
        if guard(ir):
            continue
        before = format_function(ir)
        assert run(ir) == 0 and format_function(ir) == before
        checked += 1
    assert checked or fn is with_loops_and_dicts
