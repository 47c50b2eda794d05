"""Audit of imperative, realistic functions (scripts/imperative_cases.py), each checked by
mooncake_ast.testing.check_derivatives in each mode and classified as scripts/audit_issue12.py does.

    PYTHONPATH=. python scripts/imperative_audit.py [-v] [substring ...]
"""
import sys

from imperative_cases import CASES  # (this script's folder is on sys.path)
from realistic_audit import audit

if __name__ == "__main__":
    audit(CASES, sys.argv[1:])
