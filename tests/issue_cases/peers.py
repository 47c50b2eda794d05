"""Plain-NumPy versions of the kind of example programs a peer ships (neural net, RNN, LSTM, GAN).

Plain-NumPy versions of the kind of example programs autograd ships (neural net, RNN, LSTM, GAN)."""

import numpy as np



# ---------------------------------------------------------------- neural net
def init_random_params(scale, layer_sizes, rs):
    return [(scale * rs.randn(m, n), scale * rs.randn(n)) for m, n in zip(layer_sizes[:-1], layer_sizes[1:])]


def logsumexp(X, axis, keepdims=False):
    max_X = np.max(X, axis=axis, keepdims=True)
    return max_X + np.log(np.sum(np.exp(X - max_X), axis=axis, keepdims=True))


def neural_net_predict(params, inputs):
    for W, b in params:
        outputs = np.dot(inputs, W) + b
        inputs = np.tanh(outputs)
    return outputs - logsumexp(outputs, axis=1, keepdims=True)


def l2_norm(params):
    return sum(np.sum(W ** 2) + np.sum(b ** 2) for W, b in params)


def log_posterior(params, inputs, targets, L2_reg):
    log_prior = -L2_reg * l2_norm(params)
    log_lik = np.sum(neural_net_predict(params, inputs) * targets)
    return log_prior + log_lik


def nn_loss(W1, b1, W2, b2, inputs, targets):
    params = [(W1, b1), (W2, b2)]
    return -log_posterior(params, inputs, targets, 0.1)


# ---------------------------------------------------------------- RNN
def sigmoid(x):
    return 0.5 * (np.tanh(x) + 1.0)


def concat_and_multiply(weights, *args):
    cat_state = np.hstack(args + (np.ones((args[0].shape[0], 1)),))
    return np.dot(cat_state, weights)


def rnn_predict(params, inputs):
    def update_rnn(input, hiddens):
        return np.tanh(concat_and_multiply(params['change'], input, hiddens))

    def hiddens_to_output_probs(hiddens):
        output = concat_and_multiply(params['predict'], hiddens)
        return output - logsumexp(output, axis=1, keepdims=True)

    num_sequences = inputs.shape[1]
    hiddens = np.repeat(params['init hiddens'], num_sequences, axis=0)
    output = [hiddens_to_output_probs(hiddens)]
    for input in inputs:
        hiddens = update_rnn(input, hiddens)
        output.append(hiddens_to_output_probs(hiddens))
    return output


def rnn_log_likelihood(params, inputs, targets):
    logprobs = rnn_predict(params, inputs)
    loglik = 0.0
    num_time_steps, num_examples, _ = inputs.shape
    for t in range(num_time_steps):
        loglik += np.sum(logprobs[t] * targets[t])
    return loglik / (num_time_steps * num_examples)


def rnn_loss(change, predict, init, inputs, targets):
    params = {'change': change, 'predict': predict, 'init hiddens': init}
    return -rnn_log_likelihood(params, inputs, targets)


# ---------------------------------------------------------------- LSTM
def lstm_predict(params, inputs):
    def update_lstm(input, hiddens, cells):
        change = np.tanh(concat_and_multiply(params['change'], input, hiddens))
        forget = sigmoid(concat_and_multiply(params['forget'], input, hiddens))
        ingate = sigmoid(concat_and_multiply(params['ingate'], input, hiddens))
        outgate = sigmoid(concat_and_multiply(params['outgate'], input, hiddens))
        cells = cells * forget + ingate * change
        hiddens = outgate * np.tanh(cells)
        return hiddens, cells

    def hiddens_to_output_probs(hiddens):
        output = concat_and_multiply(params['predict'], hiddens)
        return output - logsumexp(output, axis=1, keepdims=True)

    num_sequences = inputs.shape[1]
    hiddens = np.repeat(params['init hiddens'], num_sequences, axis=0)
    cells = np.repeat(params['init cells'], num_sequences, axis=0)
    output = [hiddens_to_output_probs(hiddens)]
    for input in inputs:
        hiddens, cells = update_lstm(input, hiddens, cells)
        output.append(hiddens_to_output_probs(hiddens))
    return output


def lstm_loss(change, forget, ingate, outgate, predict, inputs, targets):
    H = change.shape[1]
    params = {'init cells': np.zeros((1, H)) + 0.1, 'init hiddens': np.zeros((1, H)) - 0.1,
              'change': change, 'forget': forget, 'ingate': ingate, 'outgate': outgate, 'predict': predict}
    logprobs = lstm_predict(params, inputs)
    loglik = 0.0
    for t in range(inputs.shape[0]):
        loglik += np.sum(logprobs[t] * targets[t])
    return -loglik


# ---------------------------------------------------------------- GAN
def relu(x):
    return np.maximum(0, x)


def leaky_relu(x):
    return np.maximum(0, x) + np.minimum(0, x) * 0.01


def neural_net_predict_gan(params, inputs):
    inpW, inpb = params[0]
    inputs = leaky_relu(np.dot(inputs, inpW) + inpb)
    for W, b in params[1:-1]:
        outputs = batch_normalize(np.dot(inputs, W) + b)
        inputs = leaky_relu(outputs)
    outW, outb = params[-1]
    outputs = np.dot(inputs, outW) + outb
    return outputs


def batch_normalize(activations):
    mbmean = np.mean(activations, axis=0, keepdims=True)
    return (activations - mbmean) / (np.std(activations, axis=0, keepdims=True) + 1)


def generate_from_noise(gen_params, num_samples, noise_dim, rs):
    noise = rs.randn(num_samples, noise_dim)
    samples = neural_net_predict_gan(gen_params, noise)
    return sigmoid(samples)


def gan_objective(gen_params, dsc_params, real_data, num_samples, noise_dim, rs):
    fake_data = generate_from_noise(gen_params, num_samples, noise_dim, rs)
    logprobs_fake = logsigmoid(neural_net_predict_gan(dsc_params, fake_data))
    logprobs_real = logsigmoid(neural_net_predict_gan(dsc_params, real_data))
    return np.mean(logprobs_real) - np.mean(logprobs_fake)


def logsigmoid(x):
    return x - np.logaddexp(0, x)


def gan_loss(G0, g0, G1, g1, G2, g2, D0, d0, D1, d1, real):
    gen = [(G0, g0), (G1, g1), (G2, g2)]
    dsc = [(D0, d0), (D1, d1)]
    rs = np.random.RandomState(0)
    return gan_objective(gen, dsc, real, 4, 2, rs)


# ---------------------------------------------------------------- cases
rs = np.random.RandomState(1)
X = rs.randn(5, 3)
T = np.eye(2)[rs.randint(0, 2, 5)]
seq_in = rs.randn(4, 2, 3)
seq_t = np.eye(3)[rs.randint(0, 3, (4, 2))]

CASES = [
    ("nn", nn_loss, (rs.randn(3, 4) * 0.5, rs.randn(4) * 0.1, rs.randn(4, 2) * 0.5, rs.randn(2) * 0.1, X, T)),
    ("rnn", rnn_loss, (rs.randn(3 + 4 + 1, 4) * 0.3, rs.randn(4 + 1, 3) * 0.3, rs.randn(1, 4) * 0.2, seq_in, seq_t)),
    ("lstm", lstm_loss, tuple(rs.randn(3 + 4 + 1, 4) * 0.3 for _ in range(4)) + (rs.randn(4 + 1, 3) * 0.3, seq_in, seq_t)),
    ("gan", gan_loss, (rs.randn(2, 3) * 0.5, rs.randn(3) * 0.1, rs.randn(3, 3) * 0.5, rs.randn(3) * 0.1,
                       rs.randn(3, 3) * 0.5, rs.randn(3) * 0.1, rs.randn(3, 4) * 0.5, rs.randn(4) * 0.1,
                       rs.randn(4, 1) * 0.5, rs.randn(1) * 0.1, rs.rand(4, 3))),
]
