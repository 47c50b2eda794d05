"""Shared test setup: every test run uses a private, empty derivative cache."""
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
os.environ.setdefault("MOONCAKE_AST_CACHE_DIR", tempfile.mkdtemp(prefix="mooncake-ast-test-cache-"))
os.environ["MOONCAKE_AST_VERIFY"] = "1"  # verify every IR the tests build
