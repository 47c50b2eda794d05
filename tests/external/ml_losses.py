"""Loss and activation functions from TheAlgorithms/Python (MIT).

Copied as-is except that doctest docstrings are dropped.
"""
import numpy as np

from tests.external import Case


# Origin: TheAlgorithms/Python, machine_learning/loss_functions.py, binary_cross_entropy (MIT)
def binary_cross_entropy(
    y_true: np.ndarray, y_pred: np.ndarray, epsilon: float = 1e-15
) -> float:
    if len(y_true) != len(y_pred):
        raise ValueError("Input arrays must have the same length.")

    y_pred = np.clip(y_pred, epsilon, 1 - epsilon)  # Clip predictions to avoid log(0)
    bce_loss = -(y_true * np.log(y_pred) + (1 - y_true) * np.log(1 - y_pred))
    return np.mean(bce_loss)


# Origin: TheAlgorithms/Python, machine_learning/loss_functions.py, binary_focal_cross_entropy (MIT)
def binary_focal_cross_entropy(
    y_true: np.ndarray,
    y_pred: np.ndarray,
    gamma: float = 2.0,
    alpha: float = 0.25,
    epsilon: float = 1e-15,
) -> float:
    if len(y_true) != len(y_pred):
        raise ValueError("Input arrays must have the same length.")
    # Clip predicted probabilities to avoid log(0)
    y_pred = np.clip(y_pred, epsilon, 1 - epsilon)

    bcfe_loss = -(
        alpha * (1 - y_pred) ** gamma * y_true * np.log(y_pred)
        + (1 - alpha) * y_pred**gamma * (1 - y_true) * np.log(1 - y_pred)
    )

    return np.mean(bcfe_loss)


# Origin: TheAlgorithms/Python, machine_learning/loss_functions.py, hinge_loss (MIT)
def hinge_loss(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    if len(y_true) != len(y_pred):
        raise ValueError("Length of predicted and actual array must be same.")

    if np.any((y_true != -1) & (y_true != 1)):
        raise ValueError("y_true can have values -1 or 1 only.")

    hinge_losses = np.maximum(0, 1.0 - (y_true * y_pred))
    return np.mean(hinge_losses)


# Origin: TheAlgorithms/Python, machine_learning/loss_functions.py, huber_loss (MIT)
def huber_loss(y_true: np.ndarray, y_pred: np.ndarray, delta: float) -> float:
    if len(y_true) != len(y_pred):
        raise ValueError("Input arrays must have the same length.")

    huber_mse = 0.5 * (y_true - y_pred) ** 2
    huber_mae = delta * (np.abs(y_true - y_pred) - 0.5 * delta)
    return np.where(np.abs(y_true - y_pred) <= delta, huber_mse, huber_mae).mean()


# Origin: TheAlgorithms/Python, machine_learning/loss_functions.py, mean_squared_error (MIT)
def mean_squared_error(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    if len(y_true) != len(y_pred):
        raise ValueError("Input arrays must have the same length.")

    squared_errors = (y_true - y_pred) ** 2
    return np.mean(squared_errors)


# Origin: TheAlgorithms/Python, machine_learning/loss_functions.py, mean_absolute_error (MIT)
def mean_absolute_error(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    if len(y_true) != len(y_pred):
        raise ValueError("Input arrays must have the same length.")

    return np.mean(abs(y_true - y_pred))


# Origin: TheAlgorithms/Python, machine_learning/loss_functions.py, mean_squared_logarithmic_error (MIT)
def mean_squared_logarithmic_error(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    if len(y_true) != len(y_pred):
        raise ValueError("Input arrays must have the same length.")

    squared_logarithmic_errors = (np.log1p(y_true) - np.log1p(y_pred)) ** 2
    return np.mean(squared_logarithmic_errors)


# Origin: TheAlgorithms/Python, machine_learning/loss_functions.py, mean_absolute_percentage_error (MIT)
def mean_absolute_percentage_error(
    y_true: np.ndarray, y_pred: np.ndarray, epsilon: float = 1e-15
) -> float:
    if len(y_true) != len(y_pred):
        raise ValueError("The length of the two arrays should be the same.")

    y_true = np.where(y_true == 0, epsilon, y_true)
    absolute_percentage_diff = np.abs((y_true - y_pred) / y_true)

    return np.mean(absolute_percentage_diff)


# Origin: TheAlgorithms/Python, machine_learning/loss_functions.py, perplexity_loss (MIT)
def perplexity_loss(
    y_true: np.ndarray, y_pred: np.ndarray, epsilon: float = 1e-7
) -> float:
    vocab_size = y_pred.shape[2]

    if y_true.shape[0] != y_pred.shape[0]:
        raise ValueError("Batch size of y_true and y_pred must be equal.")
    if y_true.shape[1] != y_pred.shape[1]:
        raise ValueError("Sentence length of y_true and y_pred must be equal.")
    if np.max(y_true) > vocab_size:
        raise ValueError("Label value must not be greater than vocabulary size.")

    # Matrix to select prediction value only for true class
    filter_matrix = np.array(
        [[list(np.eye(vocab_size)[word]) for word in sentence] for sentence in y_true]
    )

    # Getting the matrix containing prediction for only true class
    true_class_pred = np.sum(y_pred * filter_matrix, axis=2).clip(epsilon, 1)

    # Calculating perplexity for each sentence
    perp_losses = np.exp(np.negative(np.mean(np.log(true_class_pred), axis=1)))

    return np.mean(perp_losses)


# Origin: TheAlgorithms/Python, machine_learning/loss_functions.py, smooth_l1_loss (MIT)
def smooth_l1_loss(y_true: np.ndarray, y_pred: np.ndarray, beta: float = 1.0) -> float:
    if len(y_true) != len(y_pred):
        raise ValueError("The length of the two arrays should be the same.")

    diff = np.abs(y_true - y_pred)
    loss = np.where(diff < beta, 0.5 * diff**2 / beta, diff - 0.5 * beta)
    return np.mean(loss)


# Origin: TheAlgorithms/Python, machine_learning/loss_functions.py, kullback_leibler_divergence (MIT)
def kullback_leibler_divergence(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    if len(y_true) != len(y_pred):
        raise ValueError("Input arrays must have the same length.")

    kl_loss = y_true * np.log(y_true / y_pred)
    return np.sum(kl_loss)


# Origin: TheAlgorithms/Python, machine_learning/loss_functions.py, root_mean_squared_error (MIT)
def root_mean_squared_error(y_true, y_pred):
    y_true, y_pred = np.array(y_true), np.array(y_pred)

    rmse = np.sqrt(np.mean((y_pred - y_true) ** 2))

    return rmse


# Origin: TheAlgorithms/Python, neural_network/activation_functions/gaussian_error_linear_unit.py (MIT)
def gelu(vector: np.ndarray) -> np.ndarray:
    return (
        0.5
        * vector
        * (1 + np.tanh(np.sqrt(2 / np.pi) * (vector + 0.044715 * vector**3)))
    )


# Origin: TheAlgorithms/Python, neural_network/activation_functions/mish.py (MIT)
def mish(vector: np.ndarray) -> np.ndarray:
    return vector * np.tanh(np.log(1 + np.exp(vector)))


# Origin: TheAlgorithms/Python, neural_network/activation_functions/scaled_exponential_linear_unit.py (MIT)
def scaled_exponential_linear_unit(
    vector: np.ndarray, alpha: float = 1.6732, _lambda: float = 1.0507
) -> np.ndarray:
    return _lambda * np.where(vector > 0, vector, alpha * (np.exp(vector) - 1))


# Origin: TheAlgorithms/Python, neural_network/activation_functions/exponential_linear_unit.py (MIT)
def exponential_linear_unit(vector: np.ndarray, alpha: float) -> np.ndarray:
    return np.where(vector > 0, vector, (alpha * (np.exp(vector) - 1)))


# Origin: TheAlgorithms/Python, neural_network/activation_functions/squareplus.py (MIT)
def squareplus(vector: np.ndarray) -> np.ndarray:
    return np.where(vector > 0, vector**2, 0)


# Origin: TheAlgorithms/Python, neural_network/activation_functions/softplus.py (MIT)
def softplus(vector: np.ndarray) -> np.ndarray:
    return np.log(1 + np.exp(vector))


# Origin: TheAlgorithms/Python, neural_network/activation_functions/soboleva_modified_hyperbolic_tangent.py (MIT)
def soboleva_modified_hyperbolic_tangent(
    vector: np.ndarray, a_value: float, b_value: float, c_value: float, d_value: float
) -> np.ndarray:
    # Separate the numerator and denominator for simplicity
    # Calculate the numerator and denominator element-wise
    numerator = np.exp(a_value * vector) - np.exp(-b_value * vector)
    denominator = np.exp(c_value * vector) + np.exp(-d_value * vector)

    # Calculate and return the final result element-wise
    return numerator / denominator


# Origin: TheAlgorithms/Python, neural_network/activation_functions/soft_exponential.py (MIT)
def soft_exponential(vector: np.ndarray, alpha: float) -> np.ndarray:
    if alpha > 0:
        return alpha * (np.exp(alpha * vector) - 1)
    elif alpha < 0:
        return -np.log(1 - alpha * (vector + alpha))
    else:
        return vector


# Origin: TheAlgorithms/Python, neural_network/activation_functions/sigmoid_like.py, _base_activation (MIT)
def _base_activation(vector: np.ndarray, alpha: float, beta: float) -> np.ndarray:
    return np.power(vector, alpha) / (1 + np.exp(-beta * vector))


# Origin: TheAlgorithms/Python, neural_network/activation_functions/sigmoid_like.py, sigmoid (MIT)
def sigmoid(vector: np.ndarray) -> np.ndarray:
    return _base_activation(vector, 0, 1)


# Origin: TheAlgorithms/Python, neural_network/activation_functions/sigmoid_like.py, swish (MIT)
def swish(vector: np.ndarray, beta: float) -> np.ndarray:
    return _base_activation(vector, 1, beta)


# Origin: TheAlgorithms/Python, neural_network/activation_functions/sigmoid_like.py, sigmoid_linear_unit (MIT)
def sigmoid_linear_unit(vector: np.ndarray) -> np.ndarray:
    return swish(vector, 1)


def _rng(seed):
    return np.random.default_rng(seed)


def _labels_probs(seed, n=6):
    def make():
        r = _rng(seed)
        return r.integers(0, 2, n), r.uniform(0.1, 0.9, n)
    return make


def _reg(seed, n=6, lo=-2.0, hi=2.0):
    def make():
        r = _rng(seed)
        y = r.uniform(lo, hi, n)
        return y, y + r.choice([-1, 1], n) * r.uniform(0.2, 0.6, n)
    return make


def _vec(seed, n=5, lo=-2.0, hi=2.0):
    return lambda: (_rng(seed).uniform(lo, hi, n),)


def _perplexity_args():
    r = _rng(40)
    p = r.uniform(0.1, 1.0, (2, 3, 5))
    return r.integers(0, 5, (2, 3)), p / p.sum(axis=2, keepdims=True)


def _kl_args():
    r = _rng(41)
    p, q = r.uniform(0.2, 1.0, 4), r.uniform(0.2, 1.0, 4)
    return p / p.sum(), q / q.sum()


def _away_from_zero(seed, n=6):
    def make():
        r = _rng(seed)
        return (r.choice([-1.0, 1.0], n) * r.uniform(0.3, 2.0, n),)
    return make


_L = ("thealgorithms", "numpy", "loss")
_A = ("thealgorithms", "numpy", "activation")
CASES = [
    Case(binary_cross_entropy, _labels_probs(30), tags=_L + ("clip",)),
    Case(binary_focal_cross_entropy, _labels_probs(31), kwargs=lambda: {"gamma": 2.0, "alpha": 0.3}, tags=_L + ("clip", "kwargs")),
    Case(hinge_loss, lambda: (np.array([1, -1, 1, -1, 1]), np.array([0.3, -0.5, 2.0, 0.4, -0.2])), tags=_L + ("maximum",)),
    Case(huber_loss, _reg(32), kwargs=lambda: {"delta": 0.4}, tags=_L + ("where",)),
    Case(mean_squared_error, _reg(33), tags=_L),
    Case(mean_absolute_error, _reg(34), tags=_L + ("abs",)),
    Case(mean_squared_logarithmic_error, _reg(35, lo=0.8, hi=3.0), tags=_L),
    Case(mean_absolute_percentage_error, _reg(36, lo=1.0, hi=3.0), tags=_L + ("where",)),
    Case(perplexity_loss, _perplexity_args, tags=_L + ("comprehension", "int_index")),
    Case(smooth_l1_loss, _reg(37), kwargs=lambda: {"beta": 0.4}, tags=_L + ("where",)),
    Case(kullback_leibler_divergence, _kl_args, tags=_L),
    Case(root_mean_squared_error, _reg(38), tags=_L + ("np.array",)),
    Case(gelu, _vec(50), tags=_A),
    Case(mish, _vec(51), tags=_A),
    Case(scaled_exponential_linear_unit, _away_from_zero(52), kwargs=lambda: {"alpha": 1.6732}, tags=_A + ("where",)),
    Case(exponential_linear_unit, lambda: (_away_from_zero(53)()[0], 0.3), tags=_A + ("where",)),
    Case(squareplus, _away_from_zero(54), tags=_A + ("where",)),
    Case(softplus, _vec(55), tags=_A),
    Case(soboleva_modified_hyperbolic_tangent, lambda: (_vec(56)()[0], 0.2, 0.4, 0.6, 0.8), tags=_A),
    Case(soft_exponential, lambda: (_vec(57)()[0], -0.05), tags=_A + ("branch",)),
    Case(sigmoid, _vec(58), tags=_A + ("power",)),
    Case(swish, lambda: (_vec(59, lo=0.2, hi=2.0)()[0], 0.7), tags=_A + ("power",)),
    Case(sigmoid_linear_unit, _vec(60, lo=0.2, hi=2.0), tags=_A + ("power",)),
]
