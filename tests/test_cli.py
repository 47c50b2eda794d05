"""`mooncake-ast` / `python -m mooncake_ast`: every subcommand, its output and exit code, and bad input
(one line on stderr, exit code 2, nothing written)."""
import json
import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast import __version__, cache
from mooncake_ast.cli import main
from mooncake_ast.rules.catalog import format_catalog

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

USER = """\
import math
import numpy as np

SCALE = 2.0


def helper(x):
    return SCALE * x


def f(x, n):
    s = 0.0
    for i in range(n):
        s = s + math.sin(helper(x) * i)
    return s


def loss(w, x):
    return float(np.sum(np.tanh(w * x) ** 2))


class Model:
    def __init__(self, k):
        self.k = k

    def energy(self, x):
        return self.k * x * x

    @staticmethod
    def square(x):
        return x * x


if __name__ == "__main__":
    raise SystemExit("not when imported")
"""

BAD_SYNTAX = "def f(x):\n    return x +\n"
UNSUPPORTED = "def f(x):\n    y = x\n    try:\n        y = x * x\n    except* Exception:\n        y = 0.0\n    return y\n"


@pytest.fixture
def cli(capsys):
    """Run main(argv) in this process; (exit code, stdout, stderr).  Leaves sys.path/bytecode flags as found."""
    saved_path, saved_flag = list(sys.path), sys.dont_write_bytecode

    def run(*argv):
        code = main([str(a) for a in argv])
        out, err = capsys.readouterr()
        return code, out, err

    yield run
    sys.path[:] = saved_path
    sys.dont_write_bytecode = saved_flag


def write(tmp_path, name, text):
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def one_line_error(code, out, err, expect=2):
    assert code == expect, (code, out, err)
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith("mooncake-ast: ")
    return err.strip()


def test_version_and_help(cli):
    code, out, _ = cli("--version")
    assert code == 0 and out.strip() == f"mooncake-ast {__version__}"
    code, out, _ = cli("--help")
    assert code == 0
    for sub in ("generate", "show", "ir", "rules", "cache", "check"):
        assert sub in out
    code, out, _ = cli("generate", "--help")
    assert code == 0 and "--mode" in out and "-o DIR" in out


@pytest.mark.parametrize("argv", [[], ["bogus"], ["show"], ["show", "a.py::f", "--mode", "sideways"],
                                  ["cache", "empty"], ["check", "a.py::f"], ["show", "just_a_name"],
                                  ["show", "a.py::"], ["show", "not a module:f"]])
def test_usage_errors(cli, argv):
    one_line_error(*cli(*argv))


# ---------------------------------------------------------------- generate


def test_generate_writes_standalone_modules_that_import_and_run_elsewhere(cli, tmp_path):
    src = write(tmp_path / "project", "user_gen.py", USER)
    out_dir = tmp_path / "derivatives"
    code, out, err = cli("generate", f"{src}::f", "--mode", "both", "-o", out_dir)
    assert code == 0, err
    files = sorted(os.listdir(out_dir))
    assert files == ["user_gen_f_forward.py", "user_gen_f_reverse.py"]
    assert out.split() == [str(out_dir / n) for n in files]
    fwd_text = (out_dir / files[0]).read_text()
    assert "from user_gen_f_forward import f__jvp" in fwd_text
    assert "value, tangent = f__jvp(x, n, dx, dn)" in fwd_text
    assert "mooncake-ast generate" in fwd_text and "namespace of your module `user_gen`" in fwd_text
    for name in files:  # module-level imports: only numpy, the standard library and mooncake_ast.runtime
        text = (out_dir / name).read_text()
        tops = [ln for ln in text.splitlines() if ln.startswith(("import ", "from "))]
        assert tops and all(ln.split()[1] in ("math", "operator", "numpy", "builtins", "mooncake_ast.runtime")
                            for ln in tops), tops
    assert not (tmp_path / "project" / "__pycache__").exists()
    # In a new process, from another directory, with only the output directory on the path.
    # No libcst and an empty cache: nothing may be derived (f's callee `helper` is in the module too).
    assert "def helper__jvp(" in fwd_text and "(('attr', 'helper'),)" in fwd_text
    script = textwrap.dedent("""
        import json, sys
        sys.modules["libcst"] = None
        import numpy as np
        sys.path.insert(0, sys.argv[1])
        from user_gen_f_forward import f__jvp
        from user_gen_f_reverse import f__vjp
        y, dy = f__jvp(0.3, 5, 1.0, None)
        value, pullback = f__vjp(0.3, 5)
        x_bar, n_bar = pullback(1.0)
        import user_gen
        user_gen.SCALE = 3.0   # the derivative runs in the user's module: it sees the new global
        print(json.dumps([y, dy, value, x_bar, f__jvp(0.3, 5, 1.0, None)[1], user_gen.__file__]))
        """)
    env = dict(os.environ, PYTHONPATH=ROOT, PYTHONDONTWRITEBYTECODE="1", MOONCAKE_AST_CACHE_DIR=str(tmp_path / "cache"))
    p = subprocess.run([sys.executable, "-c", script, str(out_dir)], capture_output=True, text=True, env=env,
                       cwd=str(tmp_path), timeout=120)
    assert p.returncode == 0, p.stderr
    cache_dir = tmp_path / "cache"
    assert not cache_dir.exists() or not [f for _, _, fs in os.walk(cache_dir) for f in fs if f.endswith(".py")]
    y, dy, value, x_bar, dy3, user_file = json.loads(p.stdout)

    def f(x, n, scale=2.0):
        return sum(np.sin(scale * x * i) for i in range(n))

    def df(x, n, scale=2.0):
        return sum(scale * i * np.cos(scale * x * i) for i in range(n))

    assert y == pytest.approx(f(0.3, 5)) and value == pytest.approx(f(0.3, 5))
    assert dy == pytest.approx(df(0.3, 5)) and x_bar == pytest.approx(df(0.3, 5))
    assert dy3 == pytest.approx(df(0.3, 5, 3.0))
    assert os.path.samefile(user_file, src)


OTHER = """\
def scale(v, k=2.0):
    return v * k
"""

ENERGY = """\
import numpy as np
from energy_other import scale as sc


def pair(d, eps=0.1):
    return 1.0 / (d * d + eps)


def fill(a, x):
    for i in range(len(a)):
        a[i] = x[i] * 2.0
    return a


def power(x, n):
    if n == 0:
        return 1.0
    return x * power(x, n - 1)


def total_energy(pos, eps=0.1):
    e = 0.0
    for i in range(len(pos)):
        for j in range(i + 1, len(pos)):
            e = e + pair(pos[i] - pos[j], eps=eps)
    acc = []
    acc.append(np.sum(pos * pos))
    b = fill(np.zeros(len(pos)), pos)
    return e + acc[0] + np.sum(b) + power(pos[0], 3) + np.sum(sc(pos))


class Springs:
    def __init__(self, k):
        self.k = k

    def energy(self, pos):
        return self.k * total_energy(pos)
"""


def test_generate_writes_the_callees_of_other_modules_keeps_defaults_and_derives_nothing(cli, tmp_path):
    """Callees in the same module and in another (imported under another name), recursion, a keyword
    argument, an in-place write, `__vjp` without the defaulted argument: equal to mc.grad / mc.jvp."""
    write(tmp_path / "src", "energy_other.py", OTHER)
    src = write(tmp_path / "src", "energy_model.py", ENERGY)
    out_dir = tmp_path / "out"
    code, _, err = cli("generate", f"{src}::total_energy", "--mode", "both", "-o", out_dir)
    assert code == 0, err
    code, _, err = cli("generate", f"{src}::Springs.energy", "--mode", "reverse", "-o", out_dir)  # a method
    assert code == 0, err
    text = (out_dir / "energy_model_total_energy_reverse.py").read_text()
    for name in ("pair", "fill", "power", "scale"):
        assert f"def {name}__forward(" in text
    assert "('energy_other', (('attr', 'scale'),)" in text and "Not written here" not in text
    script = textwrap.dedent("""
        import json, sys
        sys.modules["libcst"] = None
        import numpy as np
        sys.path[:0] = sys.argv[1:3]
        from energy_model_total_energy_reverse import total_energy__vjp
        from energy_model_total_energy_forward import total_energy__jvp
        pos = np.array([0.3, 1.1, 2.0])
        value, pullback = total_energy__vjp(pos)
        pos_bar, eps_bar = pullback(1.0)
        dys = [float(total_energy__jvp(pos, 0.2, e, 1.0)[1]) for e in np.eye(3)]
        import energy_model
        from energy_model_Springs_energy_reverse import energy__vjp
        _, springs_pullback = energy__vjp(energy_model.Springs(3.0), pos)
        springs_bar = list(springs_pullback(1.0)[1])
        print(json.dumps([float(value), list(pos_bar), float(eps_bar), dys, springs_bar]))
        """)
    env = dict(os.environ, PYTHONPATH=ROOT, PYTHONDONTWRITEBYTECODE="1", MOONCAKE_AST_CACHE_DIR=str(tmp_path / "cache"))
    p = subprocess.run([sys.executable, "-c", script, str(out_dir), str(tmp_path / "src")], capture_output=True,
                       text=True, env=env, cwd=str(tmp_path), timeout=120)
    assert p.returncode == 0, p.stderr
    assert not (tmp_path / "cache").exists() or not [f for _, _, fs in os.walk(tmp_path / "cache") for f in fs]
    value, pos_bar, eps_bar, dys, springs_bar = json.loads(p.stdout)
    sys.path.insert(0, str(tmp_path / "src"))
    try:
        import energy_model

        pos = np.array([0.3, 1.1, 2.0])
        v, (g_pos, g_eps) = mc.value_and_grad(energy_model.total_energy, argnums=(0, 1))(pos, 0.1)
        assert value == pytest.approx(v) and pos_bar == pytest.approx(g_pos) and eps_bar == pytest.approx(g_eps)
        assert springs_bar == pytest.approx(3.0 * g_pos)
        for e, dy in zip(np.eye(3), dys):  # (with eps's tangent 1.0 and eps=0.2)
            assert dy == pytest.approx(mc.jvp(energy_model.total_energy, (pos, 0.2), (e, 1.0))[1])
        mc.testing.check_derivatives(energy_model.total_energy, pos, 0.1)
    finally:
        sys.path.remove(str(tmp_path / "src"))
        for name in ("energy_model", "energy_other"):
            sys.modules.pop(name, None)


def test_generate_reverse_for_arrays_and_module_path_targets(cli, tmp_path, monkeypatch):
    write(tmp_path, "clipkg/__init__.py", "")
    write(tmp_path, "clipkg/models.py", USER)
    monkeypatch.chdir(tmp_path)
    out_dir = tmp_path / "out"
    code, out, err = cli("generate", "clipkg.models:loss", "--mode", "reverse", "-o", out_dir)
    assert code == 0, err
    code, out, err = cli("generate", "clipkg.models:Model.energy", "-o", out_dir)
    assert code == 0, err
    assert sorted(os.listdir(out_dir)) == ["models_Model_energy_forward.py", "models_loss_reverse.py"]
    sys.path.insert(0, str(out_dir))
    try:
        import models_loss_reverse as r
        import models_Model_energy_forward as e

        w, x = np.array([0.1, 0.2, -0.3]), np.array([1.0, 2.0, 0.5])
        value, pullback = r.loss__vjp(w, x)
        w_bar, x_bar = pullback(1.0)
        t = np.tanh(w * x)
        assert value == pytest.approx(float(np.sum(t ** 2)))
        assert w_bar == pytest.approx(2 * t * (1 - t ** 2) * x) and x_bar == pytest.approx(2 * t * (1 - t ** 2) * w)
        import clipkg.models as models

        m = models.Model(3.0)
        y, dy = e.energy__jvp(m, 2.0, mc.Tangent({"k": 0.0}), 1.0)
        assert (y, dy) == pytest.approx((12.0, 12.0))
    finally:
        sys.path.remove(str(out_dir))
        for name in ("models_loss_reverse", "models_Model_energy_forward", "clipkg.models", "clipkg"):
            sys.modules.pop(name, None)


# ---------------------------------------------------------------- show, ir, rules


def test_show(cli, tmp_path):
    src = write(tmp_path, "user_show.py", USER)
    code, out, err = cli("show", f"{src}::f")
    assert code == 0, err
    assert "def f__jvp(x, n, dx, dn" in out and "__pullback" not in out
    code, out, _ = cli("show", f"{src}::f", "--mode", "reverse")
    assert code == 0 and "def f__pullback(" in out
    code, out, _ = cli("show", f"{src}::Model.square", "--mode", "both")
    assert code == 0 and "def square__jvp(" in out and "def square__forward(" in out and "def square__pullback(" in out


def test_ir_and_dot(cli, tmp_path):
    src = write(tmp_path, "user_ir.py", USER)
    code, out, err = cli("ir", f"{src}::f")
    assert code == 0, err
    assert out.startswith("def f(x, n):") and "L0:" in out and "φ(" in out
    code, dot, _ = cli("ir", f"{src}::f", "--dot")
    assert code == 0 and dot.startswith('digraph "f" {') and dot.rstrip().endswith("}")
    blocks = [ln for ln in out.splitlines() if ln.startswith("L")]
    assert dot.count("[label=\"L") == len(blocks)
    assert '[label="true"]' in dot and '[label="false"]' in dot


def test_rules(cli):
    code, out, _ = cli("rules")
    assert code == 0 and out == format_catalog()
    assert any(ln.startswith("math.sin") and "forward" in ln for ln in out.splitlines())


# ---------------------------------------------------------------- check


def test_check(cli, tmp_path):
    # A step: the derivative is 1 almost everywhere, finite differences across the step are not.
    src = write(tmp_path, "user_check.py", USER + "\n\ndef stepped(x):\n    return math.floor(x) + x\n")
    code, out, err = cli("check", f"{src}::f", "--args", "(0.3, 4)")
    assert code == 0, err
    assert out.startswith("ok: f: forward ok") and "reverse ok" in out
    code, out, err = cli("check", f"{src}::loss", "--args", "(np.array([0.1, 0.2]), np.ones(2))", "--mode", "reverse")
    assert code == 0 and "reverse ok" in out and "forward" not in out.replace("forward mode", "")
    code, out, err = cli("check", f"{src}::stepped", "--args", "1.0", "--mode", "forward")
    assert "forward tangent disagrees" in one_line_error(code, out, err, expect=1)
    code, out, err = cli("check", f"{src}::f", "--args", "(0.3,")
    assert "--args" in one_line_error(code, out, err)


# ---------------------------------------------------------------- bad input: one line, exit 2, nothing written


TARGET_COMMANDS = [["generate", "{t}", "--mode", "both", "-o", "{out}"], ["show", "{t}", "--mode", "both"], ["ir", "{t}"],
                   ["ir", "{t}", "--dot"], ["check", "{t}", "--args", "1.0"]]


@pytest.mark.parametrize("command", TARGET_COMMANDS, ids=lambda c: "-".join(c[:1] + [a for a in c[2:] if a.startswith("--")]))
@pytest.mark.parametrize("problem", ["missing_file", "no_such_function", "syntax_error", "unsupported", "not_a_function",
                                     "no_such_module", "raises_on_import"])
def test_bad_input(cli, tmp_path, command, problem):
    out_dir = tmp_path / "out"
    name = f"user_bad_{problem}"
    if problem == "missing_file":
        target, expect = f"{tmp_path / 'nope.py'}::f", "no such file"
    elif problem == "no_such_function":
        target, expect = f"{write(tmp_path, name + '.py', USER)}::g", "no function g"
    elif problem == "syntax_error":
        target, expect = f"{write(tmp_path, name + '.py', BAD_SYNTAX)}::f", ":2:"
    elif problem == "unsupported":
        target, expect = f"{write(tmp_path, name + '.py', UNSUPPORTED)}::f", "unsupported syntax: try"
    elif problem == "not_a_function":
        target, expect = f"{write(tmp_path, name + '.py', USER)}::SCALE", "not a Python function"
    elif problem == "no_such_module":
        target, expect = "no_such_package_xyz.mod:f", "cannot import module"
    else:
        target, expect = f"{write(tmp_path, name + '.py', 'import no_such_module_xyz' + chr(10))}::f", "ModuleNotFoundError"
    if problem == "unsupported" and command[0] == "ir":
        expect = "unsupported syntax: try"
    argv = [a.format(t=target, out=out_dir) for a in command]
    before = sorted(os.listdir(tmp_path))
    err = one_line_error(*cli(*argv))
    assert expect in err, err
    assert sorted(os.listdir(tmp_path)) == before  # nothing written: no output, no __pycache__


# ---------------------------------------------------------------- cache


def test_cache_path_list_verify_clear(cli, tmp_path, monkeypatch):
    cache_dir = tmp_path / "cache"
    monkeypatch.setenv("MOONCAKE_AST_CACHE_DIR", str(cache_dir))
    code, out, _ = cli("cache", "path")
    assert code == 0 and out.strip() == str(cache_dir)
    code, out, _ = cli("cache", "list")
    assert code == 0 and out.strip() == f"0 entries in {cache_dir}"
    src = write(tmp_path, "user_cache_cli.py", USER)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), ROOT]), PYTHONDONTWRITEBYTECODE="1")
    subprocess.run([sys.executable, "-c", "import mooncake_ast as mc, user_cache_cli as m; mc.grad(m.f)(0.3, 3); "
                    "mc.jvp(m.f, (0.3, 3), (1.0, None))"], env=env, check=True, timeout=120, cwd=str(tmp_path))
    assert src.exists()
    code, out, _ = cli("cache", "list")
    lines = out.strip().splitlines()
    # (reverse mode has the helper in line, reverse/inline.py: no entry of its own)
    assert code == 0 and lines[0].split() == ["FUNCTION", "MODE", "SIZE", "AGE"] and lines[-1] == f"3 entries in {cache_dir}"
    rows = [ln.split() for ln in lines[1:-1]]
    assert sorted((r[0], r[1]) for r in rows) == [("user_cache_cli.f", "forward"), ("user_cache_cli.f", "reverse"),
                                                  ("user_cache_cli.helper", "forward")]
    assert all(int(r[2]) > 100 and r[3].endswith("s") for r in rows)
    code, out, _ = cli("cache", "verify")
    assert code == 0 and out.strip() == f"3 entries ok in {cache_dir}"
    names = sorted(n for n in os.listdir(cache_dir) if cache.ENTRY_RE.match(n))
    with open(cache_dir / names[0], "a") as fh:
        fh.write("# tampered\n")
    os.chmod(cache_dir / names[1], 0o664)
    code, out, err = cli("cache", "verify")
    assert "2 problem(s)" in one_line_error(code, out, err, expect=1)
    assert f"{names[0]}: bad header or digest" in out and f"{names[1]}: refused: " in out and "writable by group" in out
    (cache_dir / "notes.txt").write_text("not ours\n")
    code, out, _ = cli("cache", "clear")
    assert code == 0 and out.strip() == f"removed 3 entries from {cache_dir}"
    assert os.listdir(cache_dir) == ["notes.txt"]  # only our files are removed
    code, out, _ = cli("cache", "list")
    assert out.strip() == f"0 entries in {cache_dir}"


# ---------------------------------------------------------------- the real entry points


def test_entry_points_in_subprocesses(tmp_path):
    env = dict(os.environ, PYTHONPATH=ROOT, PYTHONDONTWRITEBYTECODE="1", MOONCAKE_AST_CACHE_DIR=str(tmp_path / "cache"))
    p = subprocess.run([sys.executable, "-m", "mooncake_ast", "--version"], capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0 and p.stdout.strip() == f"mooncake-ast {__version__}"
    src = write(tmp_path, "user_entry.py", UNSUPPORTED)
    p = subprocess.run([sys.executable, "-m", "mooncake_ast", "generate", f"{src}::f", "-o", str(tmp_path / "out")],
                       capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and "unsupported syntax" in p.stderr
    assert not (tmp_path / "out").exists()
    script = shutil.which("mooncake-ast")
    if script is None:
        pytest.skip("the mooncake-ast console script is not installed")
    p = subprocess.run([script, "rules"], capture_output=True, text=True, env=env, timeout=120)
    # (the catalog of a fresh process: this one's registry holds what other tests registered)
    fresh = subprocess.run([sys.executable, "-c", "import sys; from mooncake_ast.rules.catalog import format_catalog; "
                            "sys.stdout.write(format_catalog())"], capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0 and fresh.returncode == 0 and p.stdout == fresh.stdout
