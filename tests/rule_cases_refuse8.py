"""Test inputs of the rules added by helper refuse8 (second orders of everyday code): np.amax / np.amin (np.max /
np.min's rules), numpy_fft.fft_tangent (the tangent helper forward code calls, differentiated at a second order),
ndarray.partition, random permutations and choices of arrays, zero-derivative calls (np.shares_memory,
np.may_share_memory, Poisson draws, random.Random's seeding and standard draws, the logging module's messages).  Merged into CASES /
ZERO_CASES of tests/test_rules.py by catalog name, so each is checked by check_derivatives in both modes."""
import logging
import random

import numpy as np

from mooncake_ast.rules import numpy_linalg, numpy_linalg_complex, numpy_linalg_complex_more, numpy_products
from mooncake_ast.rules.numpy_fft import fft_tangent
from rule_case_kit import kit

F, Case = kit("refuse8 rule case", globals())
C = Case

X3 = np.array([0.3, -0.7, 1.1])
D3 = np.array([0.5, 1.0, -0.3])
X23 = np.array([[0.3, -0.7, 1.1], [0.8, 0.2, -0.4]])
Z3 = np.array([0.3 + 0.2j, -0.7 + 0.5j, 1.1 - 0.1j])
DZ3 = np.array([0.1 - 0.4j, 0.6 + 0.2j, -0.3 + 0.9j])

_LOG = logging.getLogger("mooncake_ast.rule_cases_refuse8")
_LOG.addHandler(logging.NullHandler())
_LOG.propagate = False
_ADAPTER = logging.LoggerAdapter(_LOG, {"case": 1})

CASES = {
    "numpy.amax": [C("lambda x: np.amax(x)", X23), C("lambda x: np.amax(x, axis=1)", X23),
                   C("lambda x: np.amax(x, axis=0, keepdims=True)", X23), C("lambda x: np.amax(x, initial=0.95)", X23)],
    "numpy.amin": [C("lambda x: np.amin(x)", X23), C("lambda x: np.amin(x, axis=0)", X23),
                   C("lambda x: np.amin(x * x, axis=1, keepdims=True)", X23)],
    "mooncake_ast.rules.numpy_fft.fft_tangent": [
        C("lambda x, dx: fft_tangent(np.fft.fft, x, dx)", X3, D3),
        C("lambda x, dx: fft_tangent(np.fft.rfft, x, dx, 5)", X3, D3),
        C("lambda x, dx: fft_tangent(np.fft.ifft, x, dx, norm='ortho')", Z3, DZ3),
        C("lambda x, dx: fft_tangent(np.fft.fft, x, dx)", X3, np.array([0.7])),  # (a broadcast tangent)
    ],
    (np.ndarray, "partition"): [C("lambda x: (lambda y: (y.partition(1), y * np.arange(1.0, 4.0))[1])(x * 3.0)", X3),
                                C("lambda m: (lambda y: (y.partition(0, axis=0), y[0] * 2.0 + y[1])[1])(m * 1.5)", X23)],
    (np.random.Generator, "permutation"): [C("lambda x: np.random.default_rng(3).permutation(x) * np.arange(3.0)", X3),
                                           C("lambda m: np.random.default_rng(4).permutation(m)[0]", X23)],
    (np.random.RandomState, "permutation"): [C("lambda x: np.random.RandomState(0).permutation(x * x) * np.arange(3.0)",
                                               X3)],
    (np.random.Generator, "choice"): [C("lambda x: np.random.default_rng(1).choice(x, size=2, replace=False)", X3),
                                      C("lambda x: np.random.default_rng(2).choice(x, 5) * np.arange(5.0)", X3)],
    (np.random.RandomState, "choice"): [C("lambda x: np.random.RandomState(4).choice(x, 4, True, np.array([0.2, 0.5, 0.3]))",
                                          X3)],
}

_MESSAGES = ("debug", "info", "warning", "warn", "error", "exception", "critical", "fatal")


def _message_case(owner: str, name: str) -> Case:
    call = f"{owner}.log(10, 'value %s', x)" if name == "log" else f"{owner}.{name}('value %s', x)"
    return C(f"lambda x: ({call}, x * 2.0)[1]", X3)


ZERO = {
    "numpy.shares_memory": C("lambda x: x * (1.0 + np.shares_memory(x, x[::2]))", X3),
    "numpy.may_share_memory": C("lambda x: x * (1.0 + np.may_share_memory(x, x * 2.0))", X3),
    (np.random.Generator, "poisson"): C("lambda x: np.random.default_rng(0).poisson(np.abs(x) * 10.0) * x", X3),
    (np.random.RandomState, "poisson"): C("lambda x: np.random.RandomState(0).poisson(np.abs(x) * 10.0) * x", X3),
    (random.Random, "seed"): C("lambda x: (random.Random(1).seed(3), x * 2.0)[1]", X3),
    (random.Random, "getstate"): C("lambda x: x * (1.0 + len(random.Random(1).getstate()))", X3),
    (random.Random, "setstate"): C("lambda x: (random.Random(1).setstate(random.Random(2).getstate()), x * 2.0)[1]", X3),
    (random.Random, "random"): C("lambda x: x * random.Random(1).random()", X3),
    (random.Random, "getrandbits"): C("lambda x: x * random.Random(1).getrandbits(4)", X3),
    "mooncake_ast.rules.numpy_linalg_complex._complex": C(
        "lambda x: x * (1.0 + numpy_linalg_complex._complex(x, x * 1j))", X3),
    "mooncake_ast.rules.numpy_linalg_complex_more._complex": C(
        "lambda x: x * (1.0 + numpy_linalg_complex_more._complex(x, None))", X3),
    "mooncake_ast.rules.numpy_products._complex": C("lambda x: x * (1.0 + numpy_products._complex(x))", X3),
    "mooncake_ast.rules.numpy_linalg._real_only": C("lambda x: (numpy_linalg._real_only('inv', x), x * 2.0)[1]", X3),
    "logging.getLogger": C("lambda x: x * len(logging.getLogger('mooncake_ast.rule_cases_refuse8').name)", X3),
    **{(cls, name): _message_case(owner, name) for cls, owner in ((logging.Logger, "_LOG"),
                                                                 (logging.LoggerAdapter, "_ADAPTER"))
       for name in (*_MESSAGES, "log") if hasattr(cls, name)},
    **{(cls, "isEnabledFor"): C(f"lambda x: x * (1.0 + {owner}.isEnabledFor(10))", X3)
       for cls, owner in ((logging.Logger, "_LOG"), (logging.LoggerAdapter, "_ADAPTER"))},
    **{(cls, "getEffectiveLevel"): C(f"lambda x: x * (1.0 + {owner}.getEffectiveLevel())", X3)
       for cls, owner in ((logging.Logger, "_LOG"), (logging.LoggerAdapter, "_ADAPTER"))},
}


def _module_message_case(name: str) -> Case:
    call = "logging.log(5, 'value %s', x)" if name == "log" else f"logging.{name}('value %s', x)"
    return C(f"lambda x: ({call}, x * 2.0)[1]", X3)


ZERO.update({f"logging.{name}": _module_message_case(name) for name in (*_MESSAGES, "log") if hasattr(logging, name)})


def refuse8_cases(entries):
    names = {e.key: e.name for e in entries}
    return {(k if isinstance(k, str) else names[k]): v for k, v in CASES.items() if isinstance(k, str) or k in names}


def refuse8_zero_cases(entries):
    names = {e.key: e.name for e in entries}
    return {(k if isinstance(k, str) else names[k]): v for k, v in ZERO.items() if isinstance(k, str) or k in names}
