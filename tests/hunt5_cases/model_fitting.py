import numpy as np
import scipy.special as sp

rs = np.random.RandomState(0)
XD = rs.randn(5, 2); YD = (rs.rand(5) > 0.5).astype(float)

class WeightsParser:
    def __init__(self):
        self.idxs_and_shapes = {}
        self.num_weights = 0
    def add_shape(self, name, shape):
        start = self.num_weights
        self.num_weights += int(np.prod(shape))
        self.idxs_and_shapes[name] = (slice(start, self.num_weights), shape)
    def get(self, vect, name):
        idxs, shape = self.idxs_and_shapes[name]
        return np.reshape(vect[idxs], shape)

PARSER = WeightsParser()
PARSER.add_shape("W1", (2, 3)); PARSER.add_shape("b1", (3,)); PARSER.add_shape("W2", (3,)); PARSER.add_shape("b2", ())
NW = PARSER.num_weights
W0 = 0.3 * rs.randn(NW)

def parser_net(w):
    W1 = PARSER.get(w, "W1"); b1 = PARSER.get(w, "b1"); W2 = PARSER.get(w, "W2"); b2 = PARSER.get(w, "b2")
    h = np.tanh(XD @ W1 + b1)
    logits = h @ W2 + b2
    return -np.sum(YD * logits - np.logaddexp(0.0, logits))

def _unpack_layers(weights, shapes):
    num = 0
    for m, n in shapes:
        yield weights[num:num + m * n].reshape((m, n)), weights[num + m * n:num + m * n + n]
        num += (m + 1) * n

SHAPES = [(2, 3), (3, 1)]
W1D = 0.3 * rs.randn(sum((m + 1) * n for m, n in SHAPES))

def bnn_unpack(w):
    h = XD
    for W, b in _unpack_layers(w, SHAPES):
        h = np.tanh(h @ W + b)
    return np.sum((h[:, 0] - YD) ** 2)

def bnn_batched_weights(w):
    ws = np.stack([w, w * 0.5])
    out = 0.0
    for k in range(2):
        h = XD
        for W, b in _unpack_layers(ws[k], SHAPES):
            h = np.tanh(h @ W + b)
        out = out + np.sum(h ** 2)
    return out

def negbin_loglik(params):
    r, p = np.exp(params[0]), sp.expit(params[1])
    data = np.array([0, 2, 3, 1, 5])
    return np.sum(sp.gammaln(r + data) - sp.gammaln(r) - sp.gammaln(data + 1) + r * np.log(1 - p) + sp.xlogy(data, p))

NB = np.array([0.3, -0.2])

def ica_loglik(W):
    W = W.reshape(2, 2)
    S = XD @ W.T
    return np.sum(-np.logaddexp(S, -S)) + 5 * np.linalg.slogdet(W)[1]

WICA = np.array([1.0, 0.3, -0.2, 0.8])

def vae_like(params):
    mu, log_sigma = params[:2], params[2:]
    eps = np.random.RandomState(1).randn(4, 2)
    z = mu + np.exp(log_sigma) * eps
    recon = np.tanh(z @ np.array([[1.0, 0.5], [-0.3, 0.8]]))
    kl = -0.5 * np.sum(1 + 2 * log_sigma - mu ** 2 - np.exp(2 * log_sigma))
    return np.sum((recon - XD[:4]) ** 2) + kl

VP = np.array([0.1, -0.2, -0.5, 0.3])

def mixture_vi(params):
    logw = params[:2]
    means = params[2:].reshape(2, 2)
    logq = sp.logsumexp(np.stack([logw[k] - 0.5 * np.sum((XD - means[k]) ** 2, axis=1) for k in range(2)]), axis=0)
    return -np.sum(logq - sp.logsumexp(logw))

MV = np.array([0.1, -0.1, 0.5, 0.2, -0.3, 0.4])

def hmm_em_like(logpi):
    pi = np.exp(logpi - sp.logsumexp(logpi))
    A = np.array([[0.9, 0.1], [0.2, 0.8]])
    B = np.array([[0.7, 0.3], [0.1, 0.9]])
    obs = [0, 1, 1, 0]
    alpha = pi * B[:, obs[0]]
    ll = np.log(alpha.sum()); alpha /= alpha.sum()
    for o in obs[1:]:
        alpha = alpha @ A * B[:, o]
        c = alpha.sum(); ll += np.log(c); alpha /= c
    return ll

def rkhs_like(alphas):
    xs = np.array([0.0, 0.5, 1.0])
    def kernel(a, b): return np.exp(-(a - b) ** 2)
    f = lambda t: sum(alphas[i] * kernel(t, xs[i]) for i in range(3))
    return sum((f(t) - np.sin(t)) ** 2 for t in np.linspace(0, 1, 4))

AL = np.array([0.3, -0.2, 0.5])

def natural_grad_like(theta):
    p = sp.expit(theta)
    fisher = np.diag(p * (1 - p))
    g = p - np.array([0.3, 0.6])
    step = np.linalg.solve(fisher + 1e-3 * np.eye(2), g)
    return np.sum((theta - 0.1 * step) ** 2)

TH = np.array([0.2, -0.4])

def sinusoid_fit(params):
    t = np.linspace(0, 2 * np.pi, 6)
    amp, freq, phase = params
    pred = amp * np.sin(freq * t + phase)
    return np.mean((pred - np.cos(t)) ** 2)

SP = np.array([1.1, 0.9, 0.3])

def gan_like(params):
    g_w, d_w = params[:2], params[2:]
    z = np.random.RandomState(2).randn(4)
    fake = g_w[0] * z + g_w[1]
    def disc(v): return sp.expit(d_w[0] * v + d_w[1])
    return np.mean(np.log(disc(XD[:4, 0]) + 1e-8) + np.log(1 - disc(fake) + 1e-8))

GP4 = np.array([0.5, -0.1, 0.3, 0.2])

PROBES = [("parser_net", parser_net, (W0,)), ("bnn_unpack", bnn_unpack, (W1D,)),
          ("bnn_batched_weights", bnn_batched_weights, (W1D,)), ("negbin_loglik", negbin_loglik, (NB,)),
          ("ica_loglik", ica_loglik, (WICA,)), ("vae_like", vae_like, (VP,)), ("mixture_vi", mixture_vi, (MV,)),
          ("hmm_em_like", hmm_em_like, (np.array([0.1, -0.3]),)), ("rkhs_like", rkhs_like, (AL,)),
          ("natural_grad_like", natural_grad_like, (TH,)), ("sinusoid_fit", sinusoid_fit, (SP,)),
          ("gan_like", gan_like, (GP4,))]
