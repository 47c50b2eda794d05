"""Physics, signal-processing and small ML snippets from TheAlgorithms/Python (MIT).

Copied as-is except that doctest docstrings, plotting and I/O code are dropped; edits
are noted per function.
"""
from __future__ import annotations

from math import cos, sin, sqrt, tau
from math import pi as _math_pi
from typing import List

import numpy as np
from numpy import exp, pi

from tests.external import Case


# Origin: TheAlgorithms/Python, physics/n_body_simulation.py, class Body (MIT)
class Body:
    def __init__(
        self: Body,
        position_x: float,
        position_y: float,
        velocity_x: float,
        velocity_y: float,
        mass: float = 1.0,
        size: float = 1.0,
        color: str = "blue",
    ) -> None:
        self.position_x = position_x
        self.position_y = position_y
        self.velocity_x = velocity_x
        self.velocity_y = velocity_y
        self.mass = mass
        self.size = size
        self.color = color

    def update_velocity(
        self: Body, force_x: float, force_y: float, delta_time: float
    ) -> None:
        self.velocity_x += force_x * delta_time
        self.velocity_y += force_y * delta_time

    def update_position(self: Body, delta_time: float) -> None:
        self.position_x += self.velocity_x * delta_time
        self.position_y += self.velocity_y * delta_time


# Origin: TheAlgorithms/Python, physics/n_body_simulation.py, class BodySystem (MIT)
class BodySystem:
    def __init__(
        self: BodySystem,
        bodies: list[Body],
        gravitation_constant: float = 1.0,
        time_factor: float = 1.0,
        softening_factor: float = 0.0,
    ) -> None:
        self.bodies = bodies
        self.gravitation_constant = gravitation_constant
        self.time_factor = time_factor
        self.softening_factor = softening_factor

    def update_system(self: BodySystem, delta_time: float) -> None:
        for body1 in self.bodies:
            force_x = 0.0
            force_y = 0.0
            for body2 in self.bodies:
                if body1 != body2:
                    dif_x = body2.position_x - body1.position_x
                    dif_y = body2.position_y - body1.position_y

                    # Calculation of the distance using Pythagoras's theorem
                    # Extra factor due to the softening technique
                    distance = (dif_x ** 2 + dif_y ** 2 + self.softening_factor) ** (
                        1 / 2
                    )

                    # Newton's law of universal gravitation.
                    force_x += (
                        self.gravitation_constant * body2.mass * dif_x / distance ** 3
                    )
                    force_y += (
                        self.gravitation_constant * body2.mass * dif_y / distance ** 3
                    )

            # Update the body's velocity once all the force components have been added
            body1.update_velocity(force_x, force_y, delta_time * self.time_factor)

        # Update the positions only after all the velocities have been updated
        for body in self.bodies:
            body.update_position(delta_time * self.time_factor)


# Origin: TheAlgorithms/Python, audio_filters/iir_filter.py, class IIRFilter (MIT)
class IIRFilter:
    def __init__(self, order: int):
        self.order = order

        # a_{0} ... a_{k}
        self.a_coeffs = [1.0] + [0.0] * order
        # b_{0} ... b_{k}
        self.b_coeffs = [1.0] + [0.0] * order

        # x[n-1] ... x[n-k]
        self.input_history = [0.0] * self.order
        # y[n-1] ... y[n-k]
        self.output_history = [0.0] * self.order

    def set_coefficients(self, a_coeffs: List[float], b_coeffs: List[float]):
        if len(a_coeffs) < self.order:
            a_coeffs = [1.0] + a_coeffs

        if len(a_coeffs) != self.order + 1:
            raise ValueError(f"Expected a_coeffs to have {self.order + 1} elements for {self.order}-order filter, got {len(a_coeffs)}")

        if len(b_coeffs) != self.order + 1:
            raise ValueError(f"Expected b_coeffs to have {self.order + 1} elements for {self.order}-order filter, got {len(a_coeffs)}")

        self.a_coeffs = a_coeffs
        self.b_coeffs = b_coeffs

    def process(self, sample: float) -> float:
        result = 0.0

        # Start at index 1 and do index 0 at the end.
        for i in range(1, self.order+1):
            result += (
                self.b_coeffs[i] * self.input_history[i-1] - self.a_coeffs[i] * self.output_history[i-1]
            )

        result = (result + self.b_coeffs[0] * sample) / self.a_coeffs[0]

        self.input_history[1:] = self.input_history[:-1]
        self.output_history[1:] = self.output_history[:-1]

        self.input_history[0] = sample
        self.output_history[0] = result

        return result


# Origin: TheAlgorithms/Python, audio_filters/butterworth_filter.py, class ButterworthFilter
# (MIT); only make_lowpass and make_peak kept.
class ButterworthFilter:
    @staticmethod
    def make_lowpass(frequency: int, samplerate: int, q_factor: float = 1 / sqrt(2)) -> IIRFilter:
        w0 = tau * frequency / samplerate
        _sin = sin(w0)
        _cos = cos(w0)
        alpha = _sin / (2 * q_factor)

        b0 = (1 - _cos) / 2
        b1 = 1 - _cos

        a0 = 1 + alpha
        a1 = -2 * _cos
        a2 = 1 - alpha

        filt = IIRFilter(2)
        filt.set_coefficients([a0, a1, a2], [b0, b1, b0])
        return filt

    @staticmethod
    def make_peak(frequency: int, samplerate: int, gain_db: float, q_factor: float = 1 / sqrt(2)) -> IIRFilter:
        w0 = tau * frequency / samplerate
        _sin = sin(w0)
        _cos = cos(w0)
        alpha = _sin / (2 * q_factor)
        big_a = 10 ** (gain_db / 40)

        b0 = 1 + alpha * big_a
        b1 = -2 * _cos
        b2 = 1 - alpha * big_a
        a0 = 1 + alpha / big_a
        a1 = -2 * _cos
        a2 = 1 - alpha / big_a

        filt = IIRFilter(2)
        filt.set_coefficients([a0, a1, a2], [b0, b1, b2])
        return filt


# Origin: TheAlgorithms/Python, physics/period_of_pendulum.py (MIT); edits: scipy.constants.g
# replaced by its value, math.pi imported as _math_pi (name clash with numpy's pi).
g = 9.80665


def period_of_pendulum(length: float) -> float:
    if length < 0:
        raise ValueError("The length should be non-negative")
    return (2 * _math_pi) * (length / g) ** 0.5


# Origin: TheAlgorithms/Python, maths/gaussian.py (MIT); edit: numpy's sqrt spelled np.sqrt
# (module also imports math.sqrt).
def gaussian(x, mu: float = 0.0, sigma: float = 1.0) -> int:
    return 1 / np.sqrt(2 * pi * sigma ** 2) * exp(-(x - mu) ** 2 / 2 * sigma ** 2)


# Origin: TheAlgorithms/Python, machine_learning/logistic_regression.py, sigmoid_function (MIT)
def sigmoid_function(z):
    return 1/(1+np.exp(-z))


# Origin: TheAlgorithms/Python, machine_learning/logistic_regression.py, cost_function (MIT)
def cost_function(h,y):
    return (-y*np.log(h)-(1-y)*np.log(1-h)).mean()


# Origin: TheAlgorithms/Python, machine_learning/logistic_regression.py, logistic_reg (MIT)
def logistic_reg(alpha,X,y,max_iterations=70000):
    converged=False
    iterations=0
    theta=np.zeros(X.shape[1])

    while not converged:
        z=np.dot(X,theta)
        h=sigmoid_function(z)
        gradient = np.dot(X.T,(h-y))/y.size
        theta=theta-(alpha)*gradient

        z=np.dot(X,theta)
        h=sigmoid_function(z)
        J=cost_function(h,y)

        iterations+=1   #update iterations

        if iterations== max_iterations:
            print("Maximum iterations exceeded!")
            print("Minimal cost function J=",J)
            converged=True

    return theta


# Origin: TheAlgorithms/Python, machine_learning/linear_regression.py, regression_statistics (MIT)
def regression_statistics(predicted_y: list, original_y: list, y_bar: float) -> float:
    ssr = 0
    sse = 0
    sst = 0
    for idx in range(len(predicted_y)):
        ssr += (predicted_y[idx] - y_bar)**2
        sse += (original_y[idx] - predicted_y[idx])**2
        sst += (original_y[idx] - y_bar)**2
    r2 = ssr/sst
    mae = sum(abs(y - predicted_y[i]) for i, y in enumerate(original_y))
    mae = mae / len(original_y)
    dft = len(original_y) - 1
    #For univariate case
    dfe = len(original_y) - 1 - 1
    #For univariate case
    msr = ssr/(dft-len(original_y)+1)
    mse = sse/dfe
    f = msr/mse
    #f-Statistic
    return ssr, sse, sst, r2, mae, msr, mse, f


# Origin: TheAlgorithms/Python, neural_network/two_hidden_layers_neural_network.py,
# class TwoHiddenLayerNeuralNetwork (MIT); predict() dropped.
class TwoHiddenLayerNeuralNetwork:
    def __init__(self, input_array: np.ndarray, output_array: np.ndarray) -> None:
        self.input_array = input_array
        rng = np.random.default_rng()
        self.input_layer_and_first_hidden_layer_weights = rng.random(
            (self.input_array.shape[1], 4)
        )
        self.first_hidden_layer_and_second_hidden_layer_weights = rng.random((4, 3))
        self.second_hidden_layer_and_output_layer_weights = rng.random((3, 1))
        self.output_array = output_array
        self.predicted_output = np.zeros(output_array.shape)

    def feedforward(self) -> np.ndarray:
        self.layer_between_input_and_first_hidden_layer = sigmoid(
            np.dot(self.input_array, self.input_layer_and_first_hidden_layer_weights)
        )
        self.layer_between_first_hidden_layer_and_second_hidden_layer = sigmoid(
            np.dot(
                self.layer_between_input_and_first_hidden_layer,
                self.first_hidden_layer_and_second_hidden_layer_weights,
            )
        )
        self.layer_between_second_hidden_layer_and_output = sigmoid(
            np.dot(
                self.layer_between_first_hidden_layer_and_second_hidden_layer,
                self.second_hidden_layer_and_output_layer_weights,
            )
        )
        return self.layer_between_second_hidden_layer_and_output

    def back_propagation(self) -> None:
        updated_second_hidden_layer_and_output_layer_weights = np.dot(
            self.layer_between_first_hidden_layer_and_second_hidden_layer.T,
            2
            * (self.output_array - self.predicted_output)
            * sigmoid_derivative(self.predicted_output),
        )
        updated_first_hidden_layer_and_second_hidden_layer_weights = np.dot(
            self.layer_between_input_and_first_hidden_layer.T,
            np.dot(
                2
                * (self.output_array - self.predicted_output)
                * sigmoid_derivative(self.predicted_output),
                self.second_hidden_layer_and_output_layer_weights.T,
            )
            * sigmoid_derivative(
                self.layer_between_first_hidden_layer_and_second_hidden_layer
            ),
        )
        updated_input_layer_and_first_hidden_layer_weights = np.dot(
            self.input_array.T,
            np.dot(
                np.dot(
                    2
                    * (self.output_array - self.predicted_output)
                    * sigmoid_derivative(self.predicted_output),
                    self.second_hidden_layer_and_output_layer_weights.T,
                )
                * sigmoid_derivative(
                    self.layer_between_first_hidden_layer_and_second_hidden_layer
                ),
                self.first_hidden_layer_and_second_hidden_layer_weights.T,
            )
            * sigmoid_derivative(self.layer_between_input_and_first_hidden_layer),
        )

        self.input_layer_and_first_hidden_layer_weights += (
            updated_input_layer_and_first_hidden_layer_weights
        )
        self.first_hidden_layer_and_second_hidden_layer_weights += (
            updated_first_hidden_layer_and_second_hidden_layer_weights
        )
        self.second_hidden_layer_and_output_layer_weights += (
            updated_second_hidden_layer_and_output_layer_weights
        )

    def train(self, output: np.ndarray, iterations: int, give_loss: bool) -> None:
        for iteration in range(1, iterations + 1):
            self.output = self.feedforward()
            self.back_propagation()
            if give_loss:
                loss = np.mean(np.square(output - self.feedforward()))
                print(f"Iteration {iteration} Loss: {loss}")


# Origin: TheAlgorithms/Python, neural_network/two_hidden_layers_neural_network.py, sigmoid (MIT)
def sigmoid(value: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-value))


# Origin: TheAlgorithms/Python, neural_network/two_hidden_layers_neural_network.py, sigmoid_derivative (MIT)
def sigmoid_derivative(value: np.ndarray) -> np.ndarray:
    return (value) * (1 - (value))


# ---- wrappers (ours)
def nbody_figure8(position_x, position_y, velocity_x, velocity_y, steps=10):
    """Set up example_1 of n_body_simulation.py (figure-8) and integrate `steps` steps."""
    bodies1 = [
        Body(position_x, position_y, velocity_x, velocity_y, size=0.2, color="red"),
        Body(-position_x, -position_y, velocity_x, velocity_y, size=0.2, color="green"),
        Body(0, 0, -2 * velocity_x, -2 * velocity_y, size=0.2, color="blue"),
    ]
    body_system1 = BodySystem(bodies1, time_factor=3)
    for _ in range(steps):
        body_system1.update_system(0.02)
    return [(b.position_x, b.position_y) for b in body_system1.bodies]


def butterworth_lowpass_response(frequency, q_factor, signal):  # wraps ButterworthFilter/IIRFilter
    filt = ButterworthFilter.make_lowpass(frequency, 8, q_factor)
    return [filt.process(sample) for sample in signal]


def butterworth_peak_response(frequency, gain_db, signal):  # wraps ButterworthFilter/IIRFilter
    filt = ButterworthFilter.make_peak(frequency, 8, gain_db)
    return [filt.process(sample) for sample in signal]


def regression_fit_stats(predicted_y, original_y, y_bar):  # wraps regression_statistics
    ssr, sse, sst, r2, mae, msr, mse, f = regression_statistics(predicted_y, original_y, y_bar)
    return ssr, sse, sst, r2, mae, mse


def two_layer_nn_forward(x, w1, w2, w3):  # wraps TwoHiddenLayerNeuralNetwork.feedforward
    nn = TwoHiddenLayerNeuralNetwork(input_array=x, output_array=np.zeros((x.shape[0], 1)))
    nn.input_layer_and_first_hidden_layer_weights = w1
    nn.first_hidden_layer_and_second_hidden_layer_weights = w2
    nn.second_hidden_layer_and_output_layer_weights = w3
    return nn.feedforward()


def two_layer_nn_train(x, y, w1, w2, w3):  # wraps TwoHiddenLayerNeuralNetwork.train (in-place +=)
    nn = TwoHiddenLayerNeuralNetwork(input_array=x, output_array=y)
    nn.input_layer_and_first_hidden_layer_weights = w1
    nn.first_hidden_layer_and_second_hidden_layer_weights = w2
    nn.second_hidden_layer_and_output_layer_weights = w3
    nn.train(output=y, iterations=3, give_loss=False)
    return nn.feedforward()


def _signal(seed, n=12):
    return [float(v) for v in np.sin(np.arange(n) * 0.9) + 0.1 * np.random.default_rng(seed).normal(size=n)]


def _nn_args(seed, train=False):
    def make():
        r = np.random.default_rng(seed)
        x = r.uniform(-1, 1, (5, 3))
        ws = (r.normal(0, 0.5, (3, 4)), r.normal(0, 0.5, (4, 3)), r.normal(0, 0.5, (3, 1)))
        if train:
            return (x, r.uniform(0, 1, (5, 1))) + ws
        return (x,) + ws
    return make


def _logreg_args():
    r = np.random.default_rng(82)
    x = r.normal(size=(8, 2))
    return 0.1, x, (x[:, 0] + 0.5 * x[:, 1] > 0).astype(int)


def _regression_args():
    r = np.random.default_rng(83)
    y = r.uniform(1, 3, 6)
    p = y + r.choice([-1, 1], 6) * r.uniform(0.1, 0.4, 6)
    return p, y, 2.0


_T = ("thealgorithms",)
CASES = [
    Case(nbody_figure8, lambda: (0.9700436, -0.24308753, 0.466203685, 0.43236573),
         tags=_T + ("class", "attribute_mutation", "identity_compare", "loops")),
    Case(butterworth_lowpass_response, lambda: (1.3, 0.8, _signal(80)),
         tags=_T + ("class", "staticmethod", "list_slice_assign", "iir")),
    Case(butterworth_peak_response, lambda: (0.9, 3.0, _signal(81)),
         tags=_T + ("class", "staticmethod", "list_slice_assign", "iir")),
    Case(period_of_pendulum, lambda: (1.23,), tags=_T + ("math",)),
    Case(gaussian, lambda: (0.7,), kwargs=lambda: {"mu": 0.2, "sigma": 0.9}, tags=_T + ("numpy_scalar", "kwargs")),
    Case(cost_function, lambda: (np.array([0.2, 0.7, 0.6, 0.9]), np.array([0, 1, 0, 1])), tags=_T + ("loss",)),
    Case(logistic_reg, _logreg_args, kwargs=lambda: {"max_iterations": 20}, tags=_T + ("while", "print", "training")),
    Case(regression_fit_stats, _regression_args, tags=_T + ("loops", "generator", "tuple_return", "div_by_zero_inside")),
    Case(two_layer_nn_forward, _nn_args(84), tags=_T + ("class", "mlp")),
    Case(two_layer_nn_train, _nn_args(85, train=True), tags=_T + ("class", "mlp", "inplace_iadd_on_args")),
]
