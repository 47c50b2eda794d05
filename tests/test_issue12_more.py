"""Issue 12, the rest: relative imports inside functions of a package, SciPy statistics that trace into
NumPy models, collections.defaultdict/deque corners (both modes, checked against finite differences)."""
import importlib
import textwrap

import numpy as np
import pytest

from mooncake_ast.testing import check_derivatives


def test_relative_import_inside_a_function(tmp_path, monkeypatch):
    pkg = tmp_path / "mc_relpkg"
    (pkg / "inner").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "inner" / "__init__.py").write_text("")
    (pkg / "helpers.py").write_text("def square(x):\n    return x * x\n")
    (pkg / "inner" / "use.py").write_text(textwrap.dedent("""\
        import numpy as np

        def f(x):
            from ..helpers import square
            from .. import helpers as hp
            return np.sum(square(x) * hp.square(x[0]))
        """))
    monkeypatch.syspath_prepend(str(tmp_path))
    f = importlib.import_module("mc_relpkg.inner.use").f
    check_derivatives(f, np.array([0.5, 1.5, 2.0]))
