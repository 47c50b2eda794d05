"""Test inputs of the rules added by helper order12: numpy_quantiles.quantile_tangent / quantile_adjoint (the
first-order code of median, percentile and quantile, differentiated at a second order: linear in the tangent /
adjoint, piecewise constant in the array).  Merged into CASES of tests/test_rules.py by name, so each is checked by
check_derivatives in both modes."""
import numpy as np

from mooncake_ast.rules.numpy_quantiles import quantile_adjoint, quantile_tangent
from rule_case_kit import kit

F, Case = kit("order12 rule case", globals())
C = Case

X23 = np.array([[0.3, -0.7, 1.1], [0.8, 0.2, -0.4]])
D23 = np.array([[0.5, 1.0, -0.3], [-0.2, 0.6, 0.9]])
X6 = np.array([0.3, -0.7, 1.1, 0.45, -0.15, 0.85])
D6 = np.array([0.5, 1.0, -0.3, -0.2, 0.6, 0.9])

ORDER12_CASES = {
    "mooncake_ast.rules.numpy_quantiles.quantile_tangent": [
        C("lambda a, da: quantile_tangent('np.percentile', a, 0.3, np.percentile(a, 30, axis=1), da, axis=1)",
          X23, D23),
        C("lambda a, da: quantile_tangent('np.median', a, 0.5, np.median(a, axis=0), da, axis=0)", X23, D23),
        C("lambda a, da: quantile_tangent('np.nanquantile', a, 0.9, np.nanquantile(a, 0.9), da)", X6, D6),
        C("lambda a, da: quantile_tangent('np.quantile', a, 0.6, np.quantile(a, 0.6, method='nearest'), da, "
          "method='nearest')", X6, D6),
    ],
    "mooncake_ast.rules.numpy_quantiles.quantile_adjoint": [
        C("lambda a, g: quantile_adjoint('np.percentile', a, 0.3, np.percentile(a, 30, axis=1), g, axis=1)",
          X23, np.array([0.7, -1.2])),
        C("lambda a, g: quantile_adjoint('np.median', a, 0.5, np.median(a), g)", X6, 1.3),
        C("lambda a, g: quantile_adjoint('np.quantile', a, 0.2, np.quantile(a, 0.2, axis=0), g, axis=0)", X23,
          np.array([0.4, -0.8, 1.5])),
    ],
}
