"""Start-up (issue 11): what a warm hit imports, libcst's dataclass code kept in the cache
(mooncake_ast/cache_classes.py), the collector paused while generating, the library's own late
rules counted as built-in, SciPy's helpers imported when generated code first asks for one.

Behaviour only; nothing here is timed (examples/bench_startup.py measures).  Scenarios that
depend on what a process has imported run in fresh interpreters against a private cache."""
import gc
import json
import marshal
import os
import subprocess
import sys
import textwrap
from importlib.util import MAGIC_NUMBER

import numpy as np
import pytest

from mooncake_ast import cache, cache_classes
from mooncake_ast.digests import bulk_digest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def python(code, cache_dir, tmp_path):
    env = dict(os.environ, MOONCAKE_AST_CACHE_DIR=str(cache_dir),
               PYTHONPATH=os.pathsep.join([str(tmp_path), ROOT, os.environ.get("PYTHONPATH", "")]))
    p = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=env,
                       timeout=120, cwd=str(tmp_path))
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------- libcst's dataclass code, kept

PARSE = """
    import dataclasses, json, sys
    from mooncake_ast import cache_classes
    cst = cache_classes.import_libcst()
    text = "@dec\\ndef f(x, *a, k=1, **kw):\\n    return [x + 1 for x in a if x] or {k: kw}\\n"
    m = cst.parse_module(text)
    name = cst.Name("x")
    try:
        name.value = "y"
        frozen = False
    except dataclasses.FrozenInstanceError:
        frozen = True
    print(json.dumps({"stats": cache_classes.STATS, "hook_left": "exec" in vars(dataclasses),
                      "roundtrip": m.code == text, "repr": repr(m), "frozen": frozen,
                      "replace": repr(name.with_changes(value="z")), "eq": name.deep_equals(cst.Name("x")),
                      "ne": name.deep_equals(cst.Name("y"))}))
    """


@pytest.fixture(scope="module")
def first_import(tmp_path_factory):
    """A first import of libcst through the hook, into an empty cache: (its output, the code file it wrote)."""
    tmp_path = tmp_path_factory.mktemp("first_import")
    out = python(PARSE, tmp_path / "cache", tmp_path)
    return out, (tmp_path / "cache" / cache_classes.code_file_name()).read_bytes()


def seeded(tmp_path, data):
    d = tmp_path / "cache"
    d.mkdir(mode=0o700)
    path = d / cache_classes.code_file_name()
    path.write_bytes(data)
    os.chmod(path, 0o600)
    return d, path


def test_libcst_in_a_new_process_compiles_nothing_the_cache_holds(tmp_path, first_import):
    first, data = first_import
    assert first["stats"]["compiled"] > 100
    cache_dir, _ = seeded(tmp_path, data)
    second = python(PARSE, cache_dir, tmp_path)
    assert second["stats"] == {"compiled": 0, "kept": first["stats"]["compiled"] + first["stats"]["kept"]}
    # the classes made from kept code behave as those made by compiling
    for out in (first, second):
        assert not out["hook_left"] and out["roundtrip"] and out["frozen"] and out["eq"] and not out["ne"]
        assert out["replace"] == "Name(\n    value='z',\n    lpar=[],\n    rpar=[],\n)"
    assert second["repr"] == first["repr"]


@pytest.mark.parametrize("damage", ["flipped", "group_writable"])
def test_a_damaged_or_unsafe_code_file_is_not_used_and_is_replaced(tmp_path, first_import, damage):
    cache_dir, kept = seeded(tmp_path, first_import[1])
    if damage == "flipped":
        data = kept.read_bytes()
        i = len(data) // 2
        kept.write_bytes(data[:i] + bytes([data[i] ^ 1]) + data[i + 1:])
    else:
        os.chmod(kept, 0o620)
    again = python(PARSE, cache_dir, tmp_path)
    assert again["stats"] == first_import[0]["stats"] and again["roundtrip"]  # compiled as in a first import
    assert texts(kept.read_bytes()) == texts(first_import[1]) and oct(kept.stat().st_mode & 0o777) == "0o600"  # rewritten, private


def texts(data):
    """The texts a code file holds code for."""
    head = len(MAGIC_NUMBER) + 32
    assert data[:len(MAGIC_NUMBER)] == MAGIC_NUMBER and bulk_digest(data[head:]) == data[len(MAGIC_NUMBER):head]
    return sorted(marshal.loads(data[head:]))


def test_the_hook_execs_as_exec_does():
    kept = cache_classes._Kept()
    kept.known = {"_": {}}  # (texts run in namespaces of no module: the "_" package)
    ns: dict = {}
    text = "def f(x: NotDefinedAnywhere) -> int:\n    return x + 1\n"
    with pytest.raises(NameError):  # annotations evaluated: this module has no `from __future__ import annotations`
        kept.exec(text, {}, ns)
    future = compile("def call(kept, text, g, ns):\n    kept.exec(text, g, ns)\n", "<test>", "exec",
                     __import__("__future__").annotations.compiler_flag, True)
    g: dict = {}
    exec(future, g)
    g["call"](kept, text, {}, ns)  # the caller's future flags are passed on, as exec passes them
    assert ns["f"](1) == 2 and ns["f"].__code__.co_filename == "<string>"
    flag = __import__("__future__").annotations.compiler_flag
    assert kept.compiled == 2 and not kept.known["_"][text].co_flags & flag  # (only code compiled without flags is kept)
    # a kept text runs its kept code
    other = compile("def f(x):\n    return x - 1\n", "<string>", "exec", 0, True)
    kept = cache_classes._Kept()
    kept.known = {"_": {"def f(x):\n    return x + 1\n": other}, __name__.partition(".")[0]: {}}
    kept.exec("def f(x):\n    return x + 1\n", {}, ns)
    assert ns["f"](1) == 0 and kept.reused == 1 and kept.compiled == 0
    def nested():  # (a nested caller's code is flagged CO_NESTED, which exec does not pass on)
        kept.exec("def g():\n    return 7\n", {}, ns)

    nested()
    assert ns["g"]() == 7 and "def g():\n    return 7\n" in kept.known["_"]
    # exec(text) with no namespaces: the caller's (not the hook's)
    local_marker, seen = "here", []
    kept.exec("seen.append(local_marker)\n")
    assert seen == ["here"]


def test_clear_removes_the_code_file(tmp_path, monkeypatch):
    monkeypatch.setenv("MOONCAKE_AST_CACHE_DIR", str(tmp_path / "cache"))
    d = cache.open_dir()
    cache_classes._write(d, cache_classes.code_file_name("pkg"), {"x = 1\n": compile("x = 1\n", "<string>", "exec")})
    d.close()
    assert (tmp_path / "cache" / cache_classes.code_file_name("pkg")).exists()
    cache.clear_entries()
    assert not (tmp_path / "cache").exists()


# ---------------------------------------------------------------- the collector while generating


def _state():
    return gc.isenabled(), gc.get_freeze_count() > 0


@pytest.mark.parametrize("before", ["enabled", "frozen_by_user", "disabled_by_user"])
def test_the_collector_is_paused_while_generating_and_given_back(tmp_path, monkeypatch, before):
    monkeypatch.setenv("MOONCAKE_AST_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(cache, "_memory", {})
    was = _state()
    seen = []

    def generate(fail=False):
        seen.append(_state())
        if fail:
            raise RuntimeError("generation failed")
        return "def f(x):\n    return x\n", {}

    if before == "frozen_by_user":
        gc.freeze()
    elif before == "disabled_by_user":
        gc.disable()
    try:
        start = _state()
        frozen = gc.get_freeze_count()
        cache.load_module("a" * 64, "user.f.forward", generate)
        with pytest.raises(RuntimeError):
            cache.load_module("b" * 64, "user.g.forward", lambda: generate(fail=True))
        # Given back as it was, after a failure too.  (A frozen object freed while generating, such as a cached
        # value the generation replaced, leaves the permanent generation: the count may fall, never rise, since
        # nothing of ours is frozen.)
        assert _state() == start and gc.get_freeze_count() <= frozen
        if before == "frozen_by_user":
            assert seen == [(False, True)] * 2  # not collecting; the user's frozen objects stay theirs
        else:
            assert seen == [(False, False)] * 2  # not collecting while generating
    finally:
        gc.unfreeze() if before == "frozen_by_user" else gc.enable()
    assert _state() == was


@pytest.mark.parametrize("user_disabled", [False, True])
def test_importing_runs_no_collection_and_gives_the_collector_back(tmp_path, user_disabled):
    """`import mooncake_ast` pauses an enabled collector (no pass runs while it imports: at most one young one
    once it is enabled again, over what the import made) and enables it again; a collector the user
    disabled stays disabled.  (Unpaused, this import ran about 70 passes, five of the middle generation.)"""
    out = python(f"""
        import gc, json
        {"gc.disable()" if user_disabled else ""}
        started = []
        gc.callbacks.append(lambda phase, info: started.append(info["generation"]) if phase == "start" else None)
        gc.collect()  # (from no debt: what finding and loading the package's first module allocates falls due nowhere)
        started.clear()
        import mooncake_ast
        during = list(started)
        print(json.dumps({{"during": during, "enabled": gc.isenabled(), "names": [n for n in ("_gc", "_collecting")
                                                                              if hasattr(mooncake_ast, n)]}}))
        """, tmp_path / "cache", tmp_path)
    assert out["during"] in ([], [0]) and out["enabled"] is not user_disabled and out["names"] == []


# ---------------------------------------------------------------- a warm hit, and what it keys on

USER = """\
import numpy as np


def model(w):
    total = 0.0
    for i in range(3):
        if w[i] > 0:
            total = total + np.sin(w[i]) * w[i]
    return total


def other(w):
    return np.sum(np.tanh(w) * w)
"""

WARM = """
    import json, sys
    import numpy as np
    import mooncake_ast as mc
    from mooncake_ast.rules import registry
    import warm_user
    from mooncake_ast import cache_classes
    changed = registry.changed_rules()
    g = mc.grad(warm_user.{fn})(np.array([0.3, -0.2, 1.1]))
    lowering = ("libcst", "mooncake_ast.frontend.source", "mooncake_ast.emit.module", "mooncake_ast.reverse.transform",
                "mooncake_ast.cache_evict", "mooncake_ast.rules.catalog", "mooncake_ast.rules.scipy_rules")
    print(json.dumps({{"grad": g.tolist(), "changed": len(changed), "imported": [m for m in lowering if m in sys.modules],
                      "stats": cache_classes.STATS}}))
    """


def test_a_warm_hit_imports_neither_libcst_nor_the_lowering_layers_and_a_new_function_compiles_no_dataclass(tmp_path):
    (tmp_path / "warm_user.py").write_text(USER)
    cache_dir = tmp_path / "cache"
    cold = python(WARM.format(fn="model"), cache_dir, tmp_path)
    warm = python(WARM.format(fn="model"), cache_dir, tmp_path)
    w = np.array([0.3, -0.2, 1.1])
    want = [(np.cos(x) * x + np.sin(x)) if x > 0 else 0.0 for x in w]
    assert cold["grad"] == pytest.approx(want) and warm["grad"] == pytest.approx(want)
    assert "libcst" in cold["imported"] and cold["stats"]["compiled"] > 100
    assert warm["imported"] == [] and warm["changed"] == 0
    # another function's first derivation: libcst's and the lowering modules' dataclasses from kept code
    new = python(WARM.format(fn="other"), cache_dir, tmp_path)
    assert new["grad"] == pytest.approx(np.tanh(w) + w * (1 - np.tanh(w) ** 2))
    assert new["stats"]["compiled"] == 0 and new["stats"]["kept"] > 100


def test_scipy_helpers_come_from_the_runtime_namespace_when_asked_for():
    from mooncake_ast import runtime
    from mooncake_ast.rules import scipy_rules

    assert runtime.expit_deriv is scipy_rules.expit_deriv and runtime.FUNCTIONS is scipy_rules.FUNCTIONS
    assert getattr(runtime, "no_such_helper", None) is None and getattr(runtime, "_special", None) is None


def test_positions_are_those_the_metadata_wrapper_gives():
    from libcst.metadata import MetadataWrapper, PositionProvider

    from mooncake_ast.frontend.source import cst, positions_of

    text = textwrap.dedent("""\
        @decorate(1)
        def f(x, *, k=lambda y: y + 1):
            def g(z):
                return [z for z in range(3)], {"a": (lambda: 2)()}
            if x:  # a comment
                return g(x)[0]
            return k(x) ** 2
        """)
    module = cst.parse_module(text)
    want = dict(MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider))
    assert dict(positions_of(module)) == want and len(want) > 50
