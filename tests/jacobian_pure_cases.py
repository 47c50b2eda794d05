"""A module with no `global` statements (test_regress_jacobian_paths.py): its functions' forward code reads module
names plainly, which pure_forward.writes_nothing can judge."""
import numpy as np

W4 = np.array([0.5, -1.0, 2.0, 0.25])


def pure_numpy(x):
    return np.tanh(W4 * x) + np.sum(x ** 2) * np.sin(x)
