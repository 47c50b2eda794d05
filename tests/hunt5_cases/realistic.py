import numpy as np
import scipy.special as sp
import scipy.linalg as sl

rs = np.random.RandomState(0)
X = rs.randn(6, 3)
Y = rs.randn(6)
LAB = np.array([0, 2, 1, 1, 0, 2])

def _init(scale, sizes):
    r = np.random.RandomState(1)
    return [(scale * r.randn(m, n), scale * r.randn(n)) for m, n in zip(sizes[:-1], sizes[1:])]

PARAMS = _init(0.3, [3, 4, 3])

def mlp_predict(params, inputs):
    for W, b in params:
        outputs = np.dot(inputs, W) + b
        inputs = np.tanh(outputs)
    return outputs - sp.logsumexp(outputs, axis=1, keepdims=True)

def mlp_loss(params):
    lp = mlp_predict(params, X)
    onehot = np.eye(3)[LAB]
    l2 = sum(np.sum(W ** 2) for W, _ in params)
    return -np.sum(lp * onehot) + 0.01 * l2

def mlp_loss_relu(params):
    h = X
    for i, (W, b) in enumerate(params):
        h = h @ W + b
        if i < len(params) - 1:
            h = np.maximum(h, 0.0)
    return np.mean((h[:, 0] - Y) ** 2)

def rnn(params):
    Wx, Wh, b = params
    h = np.zeros(2)
    hs = []
    for t in range(X.shape[0]):
        h = np.tanh(X[t] @ Wx + h @ Wh + b)
        hs.append(h)
    H = np.stack(hs)
    return np.sum(H[:, 0] * Y) + np.sum(h ** 2)

RNNP = [0.4 * rs.randn(3, 2), 0.4 * rs.randn(2, 2), 0.1 * rs.randn(2)]

def lstm(params):
    W, U, b = params
    h = np.zeros(2); c = np.zeros(2)
    for t in range(4):
        z = X[t] @ W + h @ U + b
        i, f, o, g = np.split(z, 4)
        i, f, o = sp.expit(i), sp.expit(f), sp.expit(o)
        c = f * c + i * np.tanh(g)
        h = o * np.tanh(c)
    return np.sum(h)

LSTMP = [0.3 * rs.randn(3, 8), 0.3 * rs.randn(2, 8), 0.1 * rs.randn(8)]

def gmm_loglik(params):
    logw, mu, logs = params
    w = np.exp(logw - sp.logsumexp(logw))
    ll = 0.0
    for k in range(len(w)):
        ll_k = -0.5 * np.sum(((X - mu[k]) / np.exp(logs[k])) ** 2, axis=1) - 3 * logs[k]
        if k == 0:
            acc = np.log(w[k]) + ll_k
            acc = acc[:, None]
        else:
            acc = np.hstack([acc, (np.log(w[k]) + ll_k)[:, None]])
    return np.sum(sp.logsumexp(acc, axis=1))

GMMP = [np.array([0.1, -0.2]), rs.randn(2, 3), np.array([0.1, -0.1])]

def gp_mll(params):
    log_ell, log_sf, log_sn = params
    d = X[:, None, :] - X[None, :, :]
    K = np.exp(2 * log_sf) * np.exp(-0.5 * np.sum(d ** 2, axis=2) / np.exp(2 * log_ell))
    K = K + np.exp(2 * log_sn) * np.eye(6)
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, Y))
    return -0.5 * Y @ alpha - np.sum(np.log(np.diag(L)))

GPP = np.array([0.1, 0.2, -1.0])

def gp_mll_scipy(params):
    log_ell, log_sf, log_sn = params
    sq = np.sum(X ** 2, 1)
    D = sq[:, None] + sq[None, :] - 2 * X @ X.T
    K = np.exp(2 * log_sf - 0.5 * D / np.exp(2 * log_ell)) + np.exp(2 * log_sn) * np.eye(6)
    c = sl.cho_factor(K)
    a = sl.cho_solve(c, Y)
    return -0.5 * Y @ a - np.sum(np.log(np.diag(c[0])))

def logistic(w):
    z = X @ w[:3] + w[3]
    return np.sum(np.logaddexp(0.0, -np.sign(Y) * z)) + 0.1 * w @ w

W4 = np.array([0.3, -0.2, 0.5, 0.1])

def softmax_reg(W):
    logits = X @ W
    logits -= logits.max(axis=1, keepdims=True)
    lp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    return -lp[np.arange(6), LAB].mean()

W33 = 0.3 * rs.randn(3, 3)

def attention(W):
    Q = X @ W; K = X @ W.T; V = X
    S = Q @ K.T / np.sqrt(3.0)
    S = S - S.max(axis=-1, keepdims=True)
    P = np.exp(S); P /= P.sum(axis=-1, keepdims=True)
    return np.sum((P @ V) ** 2)

def layernorm(W):
    h = X @ W
    mu = h.mean(axis=-1, keepdims=True)
    var = h.var(axis=-1, keepdims=True)
    return np.sum(((h - mu) / np.sqrt(var + 1e-5)) * np.arange(3.0))

class BatchNorm:
    def __init__(self, n):
        self.running_mean = np.zeros(n); self.running_var = np.ones(n); self.mom = 0.9
    def __call__(self, h, train=True):
        if train:
            m = h.mean(0); v = h.var(0)
            self.running_mean = self.mom * self.running_mean + (1 - self.mom) * m
            self.running_var = self.mom * self.running_var + (1 - self.mom) * v
        else:
            m, v = self.running_mean, self.running_var
        return (h - m) / np.sqrt(v + 1e-5)

def batchnorm_obj(W):
    bn = BatchNorm(3)
    h = bn(X @ W)
    h2 = bn(np.tanh(h) @ W)
    out = bn(X @ W, train=False)
    return np.sum(h2 * out) + np.sum(bn.running_mean)

def kalman(params):
    a, q, r = params
    m, P = 0.0, 1.0
    ll = 0.0
    for y in Y:
        m = a * m; P = a * a * P + q * q
        S = P + r * r
        ll = ll - 0.5 * (np.log(2 * np.pi * S) + (y - m) ** 2 / S)
        K = P / S
        m = m + K * (y - m); P = (1 - K) * P
    return ll

KP = np.array([0.8, 0.5, 0.3])

def heat_eq(u0):
    u = u0.copy()
    for _ in range(10):
        lap = np.roll(u, 1) - 2 * u + np.roll(u, -1)
        u = u + 0.1 * lap
    return np.sum(u ** 2 * np.arange(6.0))

U0 = rs.randn(6)

def heat_eq_inplace(u0):
    u = u0.copy()
    for _ in range(5):
        un = u.copy()
        u[1:-1] = un[1:-1] + 0.2 * (un[2:] - 2 * un[1:-1] + un[:-2])
        u[0] = u[-1] = 0.0
    return np.sum(u ** 2 * np.arange(6.0))

def wave_eq(u0):
    u = u0.copy(); up = u0.copy()
    for _ in range(8):
        un = 2 * u - up
        un[1:-1] += 0.3 * (u[2:] - 2 * u[1:-1] + u[:-2])
        up, u = u, un
    return np.sum(u * np.arange(6.0))

def nbody(pos):
    P = pos.reshape(3, 2).copy()
    V = np.zeros_like(P)
    for _ in range(4):
        F = np.zeros_like(P)
        for i in range(3):
            for j in range(3):
                if i != j:
                    d = P[j] - P[i]
                    F[i] += d / (np.sum(d ** 2) + 0.1) ** 1.5
        V += 0.01 * F
        P += 0.01 * V
    return np.sum(P ** 2)

def ising_like(s):
    E = 0.0
    n = len(s)
    for i in range(n):
        E -= s[i] * s[(i + 1) % n]
    return E + np.sum(np.log(np.cosh(s)))

def conv1d(w):
    sig = np.sin(np.arange(10.0))
    out = np.convolve(sig, w, mode="valid")
    return np.sum(out ** 2)

W3 = np.array([0.2, -0.5, 0.3])

def im2col_conv(w):
    img = np.arange(25.0).reshape(5, 5) / 10.0
    k = w.reshape(2, 2) if w.size == 4 else np.outer(w, w)[:2, :2]
    cols = []
    for i in range(4):
        for j in range(4):
            cols.append(img[i:i + 2, j:j + 2].ravel())
    C = np.array(cols)
    out = C @ k.ravel()
    return np.sum(np.maximum(out, 0.0) ** 2)

def bbvi(params):
    mean, log_std = params[:2], params[2:]
    eps = np.random.RandomState(0).randn(5, 2)
    samples = mean + np.exp(log_std) * eps
    logp = -0.5 * np.sum(samples ** 2, axis=1) - np.sum(np.sin(samples), axis=1)
    entropy = np.sum(log_std)
    return np.mean(logp) + entropy

BBP = np.array([0.1, -0.2, -0.5, 0.3])

def pca_recon(W):
    Xc = X - X.mean(0)
    U, S, Vt = np.linalg.svd(Xc @ W, full_matrices=False)
    return np.sum(S[:2])

def ridge_closed(lam):
    A = X.T @ X + lam[0] * np.eye(3)
    w = np.linalg.solve(A, X.T @ Y)
    return np.sum((X @ w - Y) ** 2) + lam[1] * np.sum(w ** 2)

LAM = np.array([0.5, 0.1])

def newton_iters(a):
    x = 1.0
    for _ in range(8):
        x = x - (x ** 3 - a[0]) / (3 * x ** 2)
    return x * a[1]

AN = np.array([2.0, 1.5])

def rk4(k):
    def f(y): return -k[0] * y + k[1] * np.sin(y)
    y = np.array([1.0, 0.5]); h = 0.1
    for _ in range(10):
        k1 = f(y); k2 = f(y + h / 2 * k1); k3 = f(y + h / 2 * k2); k4 = f(y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return np.sum(y)

KK = np.array([0.7, 0.3])

def hmm_forward(logT):
    T = np.exp(logT - sp.logsumexp(logT, axis=1, keepdims=True))
    E = np.array([[0.9, 0.1], [0.2, 0.8]])
    obs = [0, 1, 1, 0, 1]
    alpha = np.array([0.5, 0.5]) * E[:, obs[0]]
    for o in obs[1:]:
        alpha = (alpha @ T) * E[:, o]
        alpha = alpha / alpha.sum()
    return np.log(alpha.sum() + alpha[0])

LT = np.array([[0.2, -0.3], [0.1, 0.4]])

def viterbi_like(logT):
    scores = np.zeros(2)
    for t in range(4):
        cand = scores[:, None] + logT
        best = np.argmax(cand, axis=0)
        scores = cand[best, np.arange(2)] + 0.1 * t
    return np.max(scores)

def sinkhorn(C):
    K = np.exp(-C / 0.5)
    u = np.ones(3); v = np.ones(3)
    for _ in range(20):
        u = (1.0 / 3) / (K @ v)
        v = (1.0 / 3) / (K.T @ u)
    P = u[:, None] * K * v[None, :]
    return np.sum(P * C)

def power_iter(A):
    S = A @ A.T
    v = np.ones(3)
    for _ in range(30):
        v = S @ v
        v /= np.linalg.norm(v)
    return v @ S @ v

def cg_solve(A):
    S = A @ A.T + np.eye(3)
    b = np.array([1.0, 2.0, 3.0])
    x = np.zeros(3); r = b - S @ x; p = r.copy()
    for _ in range(3):
        Ap = S @ p
        al = (r @ r) / (p @ Ap)
        x = x + al * p
        rn = r - al * Ap
        p = rn + (rn @ rn) / (r @ r) * p
        r = rn
    return np.sum(x)

def jacobi_sweeps(A):
    S = A @ A.T + 3 * np.eye(3)
    b = np.array([1.0, 2.0, 3.0])
    x = np.zeros(3)
    for _ in range(10):
        for i in range(3):
            x[i] = (b[i] - S[i] @ x + S[i, i] * x[i]) / S[i, i]
    return np.sum(x ** 2)

PROBES = [
    ("mlp_loss", mlp_loss, (PARAMS,)), ("mlp_loss_relu", mlp_loss_relu, (PARAMS,)),
    ("rnn", rnn, (RNNP,)), ("lstm", lstm, (LSTMP,)), ("gmm_loglik", gmm_loglik, (GMMP,)),
    ("gp_mll", gp_mll, (GPP,)), ("gp_mll_scipy", gp_mll_scipy, (GPP,)), ("logistic", logistic, (W4,)),
    ("softmax_reg", softmax_reg, (W33,)), ("attention", attention, (W33,)), ("layernorm", layernorm, (W33,)),
    ("batchnorm_obj", batchnorm_obj, (W33,)), ("kalman", kalman, (KP,)), ("heat_eq", heat_eq, (U0,)),
    ("heat_eq_inplace", heat_eq_inplace, (U0,)), ("wave_eq", wave_eq, (U0,)), ("nbody", nbody, (U0,)),
    ("ising_like", ising_like, (U0,)), ("conv1d", conv1d, (W3,)), ("im2col_conv", im2col_conv, (W4,)),
    ("bbvi", bbvi, (BBP,)), ("pca_recon", pca_recon, (W33,)), ("ridge_closed", ridge_closed, (LAM,)),
    ("newton_iters", newton_iters, (AN,)), ("rk4", rk4, (KK,)), ("hmm_forward", hmm_forward, (LT,)),
    ("viterbi_like", viterbi_like, (LT,)), ("sinkhorn", sinkhorn, (W33 ** 2,)), ("power_iter", power_iter, (W33,)),
    ("cg_solve", cg_solve, (W33,)), ("jacobi_sweeps", jacobi_sweeps, (W33,)),
]
