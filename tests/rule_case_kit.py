"""What the rule-case tables share (tests/test_rules.py and the rule_cases_*.py it merges): a case is a
function calling the primitive, written as a lambda's source so that tracebacks show it, with its
arguments, the modes to check (default: the rule's), check_derivatives options and `xfail` (a known bug
outside the rule tables, strict)."""
import itertools
import linecache

_COUNTER = itertools.count()


def kit(label: str, namespace: dict) -> tuple:
    """(F, Case) for a table module: F(source) evaluates a lambda in `namespace` (the module's globals,
    whose imports the sources use), with its source in a one-line pseudo-file named after `label`."""

    def F(source):
        name = f"<{label} {next(_COUNTER)}>"
        text = source + "\n"
        linecache.cache[name] = (len(text), None, [text], name)
        return eval(compile(text, name, "eval"), namespace)

    class Case:
        def __init__(self, fn, *args, modes=None, xfail=None, **check):
            self.fn = F(fn) if isinstance(fn, str) else fn
            self.args, self.modes, self.xfail, self.check = args, modes, xfail, check

    return F, Case
