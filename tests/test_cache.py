"""The derivative cache across processes: never stale, never torn, never unsafe.

Every scenario runs in fresh interpreters (`subprocess.run([sys.executable, ...])`) against a
private cache directory (MOONCAKE_AST_CACHE_DIR), with user modules written to a temporary
directory: edits of callees, rules and of what `np` or a builtin name means; truncated,
garbage and hostile entries; unsafe files and directories; an unusable location; racing
processes; derivatives sent to spawned workers.
"""
import functools
import json
import math
import os
import stat
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from mooncake_ast import __version__, cache

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

USER = """\
import math
import numpy as np
import mooncake_ast as mc


def helper(x):
    return x * x


def f(x):
    return helper(x) + math.sin(x)


def g(w):
    return float(np.sum(np.tanh(w) ** 2))
"""

# Prints f's gradient and tangent at 0.5 and g's gradient at W, as JSON; then whether anything was
# generated in this process (the lowering modules are imported only to generate).
DRIVER = """\
import json, sys
import numpy as np
import mooncake_ast as mc
import {mod} as m
W = np.array([0.1, -0.4, 0.7])
out = {{
    "f_grad": mc.grad(m.f)(0.5),
    "f_jvp": mc.jvp(m.f, (0.5,), (1.0,))[1],
    "g_grad": mc.grad(m.g)(W).tolist(),
    "generated": "mooncake_ast.frontend.statements" in sys.modules,
    "miss_modules": [n for n in ("mooncake_ast.cache_write", "mooncake_ast.cache_admin", "mooncake_ast.cache_evict",
                                 "mooncake_ast.frontend.source") if n in sys.modules],
}}
print(json.dumps(out))
"""
W = np.array([0.1, -0.4, 0.7])


def expected(power=2):
    return {"f_grad": power * 0.5 ** (power - 1) + math.cos(0.5),
            "g_grad": (2 * np.tanh(W) * (1 - np.tanh(W) ** 2)).tolist()}


def _library_now():
    """The library part of every key, computed afresh (it changes when mooncake_ast's own code does)."""
    from mooncake_ast import library_scan

    saved = list(library_scan._LIBRARY)
    library_scan._LIBRARY.clear()
    try:
        return library_scan.library_fingerprint()
    finally:
        library_scan._LIBRARY[:] = saved


def across_processes(test):
    """Scenarios spanning several processes expect the same keys in each; if mooncake_ast's own code is
    edited meanwhile (keys change, as they must), the scenario is run again in a fresh directory."""

    @functools.wraps(test)
    def wrapper(*args, tmp_path, **kwargs):
        for attempt in range(3):
            before = _library_now()
            where = tmp_path / f"attempt{attempt}"
            where.mkdir()
            try:
                return test(*args, tmp_path=where, **kwargs)
            except AssertionError:
                if attempt == 2 or _library_now() == before:
                    raise

    return wrapper


def _env(cache_dir, tmp_path, **extra):
    env = dict(os.environ)
    env.update(MOONCAKE_AST_CACHE_DIR=str(cache_dir), PYTHONDONTWRITEBYTECODE="1",
               PYTHONPATH=os.pathsep.join([str(tmp_path), ROOT, env.get("PYTHONPATH", "")]))
    env.update(extra)
    return env


def run(code, cache_dir, tmp_path, expect_rc=0, **env):
    p = subprocess.run([sys.executable, "-c", code], env=_env(cache_dir, tmp_path, **env), capture_output=True,
                       text=True, timeout=120, cwd=str(tmp_path))
    assert p.returncode == expect_rc, f"exit {p.returncode}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}"
    return p


def write_module(tmp_path, name, text):
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    # A later edit in the same second must still be seen (sizes differ too; bytecode is not written).
    t = time.time() + (1 if os.path.exists(path) else 0)
    os.utime(path, (t, t))
    return path


def run_driver(cache_dir, tmp_path, mod, **env):
    p = run(DRIVER.format(mod=mod), cache_dir, tmp_path, **env)
    return json.loads(p.stdout.strip().splitlines()[-1]), p.stderr


def check(out, power=2):
    want = expected(power)
    assert out["f_grad"] == pytest.approx(want["f_grad"], rel=1e-12)
    assert out["f_jvp"] == pytest.approx(want["f_grad"], rel=1e-12)
    assert out["g_grad"] == pytest.approx(want["g_grad"], rel=1e-12)


def entries(cache_dir):
    return sorted(p for p in os.listdir(cache_dir) if cache.ENTRY_RE.match(p))


def warnings_in(stderr):
    return [ln for ln in stderr.splitlines() if "RuntimeWarning: mooncake_ast:" in ln]


def all_valid(cache_dir):
    for name in entries(cache_dir):
        with open(os.path.join(cache_dir, name), encoding="utf-8") as fh:
            parsed = cache.parse_text(fh.read())
        assert parsed is not None and parsed[0].startswith(name.rsplit(".", 2)[-2]), name
        assert stat.S_IMODE(os.lstat(os.path.join(cache_dir, name)).st_mode) == 0o600, name
        record = os.path.join(cache_dir, cache.record_name(parsed[1]["library"]))  # (the library record it names)
        with open(record, "rb") as fh:
            assert cache.hasher(fh.read()).hexdigest() == parsed[1]["library"], name
        assert stat.S_IMODE(os.lstat(record).st_mode) == 0o600, name
    return True


# ---------------------------------------------------------------- never stale


@across_processes
def test_hit_in_a_new_process_generates_nothing_and_an_edited_callee_is_seen(tmp_path):
    cache_dir = tmp_path / "cache"
    write_module(tmp_path, "user_edit", USER)
    out, err = run_driver(cache_dir, tmp_path, "user_edit")
    check(out)
    assert out["generated"] and not warnings_in(err)
    first = entries(cache_dir)
    assert len(first) == 4  # f and helper: forward; f and g: reverse (reverse mode has helper in line)
    out, err = run_driver(cache_dir, tmp_path, "user_edit")
    check(out)
    assert not out["generated"], "a process whose derivatives are all cached must not lower or emit anything"
    assert out["miss_modules"] == [], "a warm hit loads neither what makes entries nor the cache commands"
    assert entries(cache_dir) == first
    # Edit the callee only: helper's entry is new, and so are f's (f's reverse mode has helper's code in line,
    # reverse/inline.py, so f's key names helper's code); g's stay.
    write_module(tmp_path, "user_edit", USER.replace("return x * x\n", "return x * x * x\n"))
    out, err = run_driver(cache_dir, tmp_path, "user_edit")
    check(out, power=3)
    now = entries(cache_dir)
    kept = {n for n in first if ".g." in n}
    assert kept < set(now) and not (set(first) - kept) & set(now), (first, now)
    assert len(now) == 4, now  # (the older versions are evicted: no key can reach them any more)
    assert not warnings_in(err)


def test_an_edited_function_or_library_file_is_a_new_entry(tmp_path):
    """Editing the function, or a file of the library its generation ran (here one a warm hit never imports),
    makes the entry made before stale: it is not served (the entry records the state of the library's files
    its generation ran, cache_key.library_record; tests/test_cache_library_record.py has more)."""
    import shutil

    lib = tmp_path / "lib"
    shutil.copytree(os.path.join(ROOT, "mooncake_ast"), lib / "mooncake_ast", ignore=shutil.ignore_patterns("__pycache__"))
    cache_dir = tmp_path / "cache"
    write_module(tmp_path, "user_lib", USER)
    env = {"PYTHONPATH": os.pathsep.join([str(tmp_path), str(lib)]), "PYTHONDONTWRITEBYTECODE": ""}  # (the copy's bytecode is kept)

    def run_once():
        out, err = run_driver(cache_dir, tmp_path, "user_lib", **env)
        assert not warnings_in(err)
        return out

    out = run_once()
    check(out)
    assert out["generated"] and not run_once()["generated"]
    write_module(tmp_path, "user_lib", USER.replace("float(np.sum(np.tanh(w) ** 2))", "float(np.sum(np.tanh(w) ** 3))"))
    out = run_once()
    assert out["generated"] and out["g_grad"] == pytest.approx((3 * np.tanh(W) ** 2 * (1 - np.tanh(W) ** 2)).tolist())
    assert not run_once()["generated"]
    render = lib / "mooncake_ast" / "emit" / "render.py"
    text = render.read_text()
    render.write_text(text + "\n# an edit\n")  # (same inode: written in place, as many editors do)
    t = time.time() + 2
    os.utime(render, (t, t))
    out = run_once()
    assert out["generated"] and out["g_grad"] == pytest.approx((3 * np.tanh(W) ** 2 * (1 - np.tanh(W) ** 2)).tolist())
    assert not run_once()["generated"]


def test_reload_in_one_process_sees_an_edited_callee_and_rule(tmp_path):
    cache_dir = tmp_path / "cache"
    rule_v1 = USER + textwrap.dedent("""

        def cube(x):
            return x ** 3


        @mc.rrule(cube)
        def cube_rule(x):
            return cube(x), lambda y_bar: (3.0 * x * x * y_bar,)


        def h(x):
            return cube(x) + helper(x)
        """)
    write_module(tmp_path, "user_reload", rule_v1)
    code = textwrap.dedent("""
        import importlib, json, os, time
        import mooncake_ast as mc
        import user_reload as m
        before = (mc.grad(m.f)(0.5), mc.jvp(m.f, (0.5,), (1.0,))[1], mc.grad(m.h)(2.0))
        text = open(m.__file__).read()
        text = text.replace("return x * x\\n", "return x * x * x\\n").replace("3.0 * x * x * y_bar", "30.0 * x * x * y_bar")
        with open(m.__file__, "w") as fh:
            fh.write(text)
        t = time.time() + 2
        os.utime(m.__file__, (t, t))
        importlib.reload(m)
        after = (mc.grad(m.f)(0.5), mc.jvp(m.f, (0.5,), (1.0,))[1], mc.grad(m.h)(2.0))
        print(json.dumps([before, after]))
        """)
    before, after = json.loads(run(code, cache_dir, tmp_path).stdout)
    c = math.cos(0.5)
    assert before == pytest.approx([1.0 + c, 1.0 + c, 12.0 + 4.0])
    assert after == pytest.approx([0.75 + c, 0.75 + c, 120.0 + 12.0])


def test_what_np_or_a_builtin_name_means_is_part_of_the_key(tmp_path):
    cache_dir = tmp_path / "cache"
    (tmp_path / "fake_np.py").write_text("def sin(x):\n    return x * x * x\n")
    v1 = "import numpy as np\n\n\ndef f(x):\n    return np.sin(x) + abs(x)\n"
    write_module(tmp_path, "user_names", v1)
    code = "import mooncake_ast as mc, user_names as m; print(mc.grad(m.f)(-0.5), mc.jvp(m.f, (-0.5,), (1.0,))[1])"
    got = [float(v) for v in run(code, cache_dir, tmp_path).stdout.split()]
    assert got == pytest.approx([math.cos(-0.5) - 1.0] * 2)
    # Same function text, same lines: `np` is another module and `abs` a global of the module.
    v2 = v1.replace("import numpy as np", "import fake_np as np") + "\n\ndef abs(x):\n    return x * x\n"
    write_module(tmp_path, "user_names", v2)
    got = [float(v) for v in run(code, cache_dir, tmp_path).stdout.split()]
    assert got == pytest.approx([3 * 0.25 - 1.0] * 2)


@across_processes
def test_lambdas_sharing_a_line_have_their_own_entries(tmp_path):
    cache_dir = tmp_path / "cache"
    write_module(tmp_path, "user_lambdas", "pair = (lambda x: x * x, lambda x: x * x * x)\n")
    code = ("import mooncake_ast as mc, user_lambdas as m; a, b = m.pair; "
            "print(mc.jvp(a, (2.0,), (1.0,))[1], mc.jvp(b, (2.0,), (1.0,))[1], mc.grad(a)(2.0), mc.grad(b)(2.0))")
    for _ in range(2):  # generated, then from the cache
        assert [float(v) for v in run(code, cache_dir, tmp_path).stdout.split()] == [4.0, 12.0, 4.0, 12.0]
    assert len(entries(cache_dir)) == 4


# ---------------------------------------------------------------- never torn, never executed


def _fill(tmp_path, name="user_fill"):
    cache_dir = tmp_path / "cache"
    write_module(tmp_path, name, USER)
    check(run_driver(cache_dir, tmp_path, name)[0])
    names = entries(cache_dir)
    assert len(names) == 4
    return cache_dir, names


@across_processes
def test_truncated_entries_are_regenerated(tmp_path):
    cache_dir, names = _fill(tmp_path)
    for i, name in enumerate(names):
        path = cache_dir / name
        data = path.read_bytes()
        path.write_bytes(data[: [0, 10, 80, len(data) // 2, len(data) - 1][i]])
    out, err = run_driver(cache_dir, tmp_path, "user_fill")
    check(out)
    assert len(warnings_in(err)) == 1 and "invalid" in warnings_in(err)[0]
    assert entries(cache_dir) == names and all_valid(cache_dir)


@pytest.mark.parametrize("kind", ["forged_header", "garbage", "foreign"])
@across_processes
def test_hostile_or_foreign_entries_are_never_executed(tmp_path, kind):
    cache_dir, names = _fill(tmp_path)
    for name in names:
        path = cache_dir / name
        header = path.read_text().split("\n", 2)[:2]
        if kind == "forged_header":  # a genuine header on another body
            path.write_text("\n".join(header) + "\nimport os; os._exit(3)\n")
        elif kind == "garbage":
            path.write_bytes(os.urandom(300) + b"\nimport os; os._exit(3)\n")
        else:  # an intact entry, but made for another key
            path.write_text(cache.with_header("0" * 64, {}, "import os; os._exit(3)\n"))
    out, err = run_driver(cache_dir, tmp_path, "user_fill")
    check(out)
    assert len(warnings_in(err)) == 1
    assert entries(cache_dir) == names and all_valid(cache_dir)


def _hostile_but_intact(path):
    """Rewrite an entry as one that passes every content check but would kill the process."""
    key = path.read_text().split("\n", 1)[0][len(cache.KEY_LINE):].split(" ", 1)[0]
    return cache.with_header(key, {}, "import os; os._exit(3)\n")


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX permissions")
@pytest.mark.parametrize("kind", ["group_writable", "symlink", "other_owner"])
@across_processes
def test_unsafe_entries_are_refused(tmp_path, kind):
    if kind == "other_owner" and os.getuid() != 0:
        pytest.skip("giving a file to another user needs root")
    cache_dir, names = _fill(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for name in names:
        path = cache_dir / name
        text = _hostile_but_intact(path)
        if kind == "group_writable":
            path.write_text(text)
            os.chmod(path, 0o660)
        elif kind == "other_owner":
            path.write_text(text)
            os.chown(path, 12345, -1)
        else:
            target = elsewhere / name
            target.write_text(text)
            os.chmod(target, 0o600)
            path.unlink()
            os.symlink(target, path)
    out, err = run_driver(cache_dir, tmp_path, "user_fill")
    check(out)
    w = warnings_in(err)
    assert len(w) == 1 and "refusing" in w[0], err
    # Refused entries are left alone (regenerated in memory), and reported by `cache verify`.
    for name in names:
        assert os.path.islink(cache_dir / name) == (kind == "symlink")


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX permissions")
@pytest.mark.parametrize("kind", ["group_writable", "symlink", "other_owner"])
def test_unsafe_directories_are_refused(tmp_path, kind):
    cache_dir, names = _fill(tmp_path)
    for name in names:
        path = cache_dir / name
        path.write_text(_hostile_but_intact(path))
    if kind == "group_writable":
        os.chmod(cache_dir, 0o770)
        used = cache_dir
    elif kind == "symlink":
        used = tmp_path / "link"
        os.symlink(cache_dir, used)
    else:
        if os.getuid() != 0:
            pytest.skip("changing a directory's owner needs root")
        os.chown(cache_dir, 12345, -1)
        used = cache_dir
    out, err = run_driver(used, tmp_path, "user_fill")
    check(out)
    w = warnings_in(err)
    assert len(w) == 1 and "refusing" in w[0] and "memory" in w[0], err


def test_a_cache_path_under_a_regular_file_falls_back_to_memory_with_one_warning(tmp_path):
    (tmp_path / "afile").write_text("not a directory\n")
    write_module(tmp_path, "user_nofs", USER)
    out, err = run_driver(tmp_path / "afile" / "cache", tmp_path, "user_nofs")
    check(out)
    w = warnings_in(err)
    assert len(w) == 1 and "memory" in w[0], err


def test_no_home_directory_falls_back_to_memory_with_one_warning(tmp_path):
    write_module(tmp_path, "user_nohome", USER)
    code = DRIVER.format(mod="user_nohome") + "print(mc.source(m.f, 'forward').count('def f__jvp'))\n"
    env = _env("", tmp_path, HOME="", XDG_CACHE_HOME="")
    env.pop("MOONCAKE_AST_CACHE_DIR")
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120, cwd=str(tmp_path))
    assert p.returncode == 0, p.stderr
    check(json.loads(p.stdout.splitlines()[0]))
    assert p.stdout.splitlines()[1] == "1"
    w = warnings_in(p.stderr)
    assert len(w) == 1 and "home" in w[0], p.stderr


# ---------------------------------------------------------------- racing writers


RACE_MODULE = "\n\n".join(
    f"def r{i}(x):\n    y = x\n    for k in range({i % 3 + 1}):\n        y = y * x + {i}.0\n    return y" for i in range(12)) + "\n"

RACER = """\
import json, random, sys, time
import mooncake_ast as mc
import user_race as m
start = float(sys.argv[1])
while time.time() < start:
    time.sleep(0.001)
names = [f"r{i}" for i in range(12)]
random.Random(int(sys.argv[2])).shuffle(names)
out = {}
for n in names:
    f = getattr(m, n)
    out[n] = [mc.jvp(f, (0.7,), (1.0,))[1], mc.grad(f)(0.7)]
print(json.dumps(out))
"""


def _race_expected(i):
    x, h = 0.7, 1e-6

    def r(x):
        y = x
        for _ in range(i % 3 + 1):
            y = y * x + i
        return y

    return (r(x + h) - r(x - h)) / (2 * h)


@across_processes
def test_six_processes_racing_to_fill_the_same_entries(tmp_path):
    cache_dir = tmp_path / "cache"
    write_module(tmp_path, "user_race", RACE_MODULE)
    start = time.time() + 2.0
    procs = [subprocess.Popen([sys.executable, "-c", RACER, str(start), str(k)], env=_env(cache_dir, tmp_path),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=str(tmp_path))
             for k in range(6)]
    results = [p.communicate(timeout=120) for p in procs]
    for p, (out, err) in zip(procs, results):
        assert p.returncode == 0, err
        assert not warnings_in(err), err
        got = json.loads(out)
        for i in range(12):
            assert got[f"r{i}"] == pytest.approx([_race_expected(i)] * 2, rel=1e-6)
    assert len(entries(cache_dir)) == 24 and all_valid(cache_dir)
    assert not [n for n in os.listdir(cache_dir) if n.startswith(".tmp-")]


# ---------------------------------------------------------------- layout, pickling


def test_layout_private_directories_and_readable_names(tmp_path):
    cache_dir = tmp_path / "a" / "b" / "cache"
    write_module(tmp_path, "user_layout", USER)
    check(run_driver(cache_dir, tmp_path, "user_layout")[0])
    for d in (tmp_path / "a", tmp_path / "a" / "b", cache_dir):
        assert stat.S_IMODE(os.stat(d).st_mode) == 0o700
    assert entries(cache_dir)[0].startswith("user_layout.f.forward.")
    assert all_valid(cache_dir)


def test_default_location_is_per_user_and_per_version(monkeypatch, tmp_path):
    monkeypatch.delenv("MOONCAKE_AST_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache.cache_root() == tmp_path / "mooncake_ast" / __version__
    monkeypatch.setenv("MOONCAKE_AST_CACHE_DIR", str(tmp_path / "x"))
    assert cache.cache_root() == tmp_path / "x"


def test_derivatives_work_in_spawned_workers(tmp_path):
    cache_dir = tmp_path / "cache"
    write_module(tmp_path, "user_spawn", USER + "\n\n@mc.differentiate\ndef k(x):\n    return 3.0 * x * x\n")
    code = textwrap.dedent("""
        import json, pickle
        import multiprocessing as mp
        import mooncake_ast as mc
        import user_spawn as m

        def main():
            d = mc.differentiate(m.f)
            for obj in (mc.grad(m.f), mc.value_and_grad(m.f), d, m.k, mc.grad(m.k)):
                pickle.loads(pickle.dumps(obj))
            with mp.get_context("spawn").Pool(1) as pool:
                grads = pool.map(mc.grad(m.f), [0.5, 1.0])
                vg = pool.apply(mc.value_and_grad(m.f), (0.5,))
                via_d = pool.apply(d.grad, (0.5,))
                via_k = pool.apply(m.k.grad, (2.0,))
            print(json.dumps([grads, list(vg), via_d, via_k]))

        if __name__ == "__main__":
            main()
        """)
    script = tmp_path / "spawner.py"
    script.write_text(code)
    p = subprocess.run([sys.executable, str(script)], env=_env(cache_dir, tmp_path), capture_output=True, text=True,
                       timeout=120, cwd=str(tmp_path))
    assert p.returncode == 0, p.stderr
    grads, vg, via_d, via_k = json.loads(p.stdout)
    df = lambda x: 2 * x + math.cos(x)  # noqa: E731
    assert grads == pytest.approx([df(0.5), df(1.0)])
    assert vg == pytest.approx([0.25 + math.sin(0.5), df(0.5)])
    assert via_d == pytest.approx(df(0.5)) and via_k == pytest.approx(12.0)
