"""A generated module whose cache file is removed while the process still uses it (the size cap evicts it, a user
clears the cache, another process prunes it) keeps its source: differentiating it again (a higher order through
`mc.hvp` / `mc.grad` made inside differentiated code) read the file through linecache, which drops an entry whose
file is gone, and failed with SourceUnavailableError (seen in the full suite, where the shared test cache evicts)."""
from __future__ import annotations

import linecache
import os

import numpy as np

import mooncake_ast as mc


def _cubic(v):
    return np.sum(v ** 3)


def _hvp_inside(x):
    return np.sum(mc.hvp(_cubic, (x,), (x * 2.0,)) * x)


def _grad_inside(x):
    return np.sum(mc.grad(_cubic)(x) * np.sin(x))


def _remove_entries(folder):
    for root, _, names in os.walk(folder):
        for name in names:
            os.remove(os.path.join(root, name))
    linecache.checkcache()


def test_higher_order_after_the_cache_files_are_removed(tmp_path, monkeypatch):
    monkeypatch.setenv("MOONCAKE_AST_CACHE_DIR", str(tmp_path))
    x = np.array([0.3, -0.7, 1.1])
    first = mc.hvp(_cubic, (x,), (x * 2.0,))
    inner = mc.grad(_cubic)(x)
    _remove_entries(tmp_path)
    # the modules made above are still loaded; their functions are differentiated again now
    np.testing.assert_allclose(mc.grad(_hvp_inside)(x), 36.0 * x * x, rtol=1e-10)
    np.testing.assert_allclose(mc.grad(_grad_inside)(x), 6.0 * x * np.sin(x) + 3.0 * x * x * np.cos(x), rtol=1e-10)
    np.testing.assert_allclose(first, 6.0 * x * 2.0 * x)
    np.testing.assert_allclose(inner, 3.0 * x * x)
