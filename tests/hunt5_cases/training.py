import numpy as np

rs = np.random.RandomState(0)
XD = rs.randn(5, 3); YD = rs.randn(5)
X = np.array([0.7, -1.3, 2.1])

def _loss(p):
    return np.mean((XD @ p["w"] + p["b"] - YD) ** 2)

def _grad(p):
    r = XD @ p["w"] + p["b"] - YD
    return {"w": 2 * XD.T @ r / 5, "b": 2 * np.mean(r)}

def unrolled_dict(x):
    p = {"w": x.copy(), "b": x[0] * 0.5}
    for _ in range(3):
        g = _grad(p)
        for k in p:
            p[k] -= 0.1 * g[k]
    return _loss(p)

def unrolled_momentum(x):
    p = {"w": x.copy(), "b": 0.1}
    v = {k: np.zeros_like(val) if isinstance(val, np.ndarray) else 0.0 for k, val in p.items()}
    for _ in range(3):
        g = _grad(p)
        for k in p:
            v[k] = 0.9 * v[k] + g[k]
            p[k] = p[k] - 0.05 * v[k]
    return _loss(p)

def unrolled_inplace_no_copy(x):
    p = {"w": x * 1.0, "b": 0.1}
    w = p["w"]
    for _ in range(2):
        g = _grad(p)
        w -= 0.1 * g["w"]  # in place on p["w"]
    return _loss(p) + np.sum(w)

def unrolled_list(x):
    ps = [x.copy(), np.array([0.1])]
    for _ in range(3):
        r = XD @ ps[0] + ps[1][0] - YD
        gs = [2 * XD.T @ r / 5, np.array([2 * np.mean(r)])]
        for p, g in zip(ps, gs):
            p -= 0.1 * g
    return np.mean((XD @ ps[0] + ps[1][0] - YD) ** 2)

def unrolled_list_idx(x):
    ps = [x.copy(), np.array([0.1])]
    for _ in range(3):
        r = XD @ ps[0] + ps[1][0] - YD
        gs = [2 * XD.T @ r / 5, np.array([2 * np.mean(r)])]
        for i in range(2):
            ps[i] = ps[i] - 0.1 * gs[i]
    return np.mean((XD @ ps[0] + ps[1][0] - YD) ** 2)

def minibatch_loss(x):
    total = 0.0
    for i in range(0, 5, 2):
        xb, yb = XD[i:i + 2], YD[i:i + 2]
        total += np.sum((xb @ x - yb) ** 2)
    return total / 5

def minibatch_shuffle(x):
    idx = np.random.RandomState(1).permutation(5)
    total = 0.0
    for b in np.array_split(idx, 2):
        total = total + np.sum((XD[b] @ x - YD[b]) ** 2)
    return total

def early_stop(x):
    w = x.copy(); prev = np.inf
    for it in range(20):
        r = XD @ w - YD
        l = np.mean(r ** 2)
        if prev - l < 1e-3:
            break
        prev = l
        w = w - 0.05 * 2 * XD.T @ r / 5
    return l

def grad_clip(x):
    w = x.copy()
    for _ in range(3):
        g = 2 * XD.T @ (XD @ w - YD) / 5
        n = np.linalg.norm(g)
        if n > 1.0:
            g = g / n
        w -= 0.1 * g
    return np.sum(w ** 2)

def ema_params(x):
    w = x.copy(); ema = w.copy()
    for _ in range(3):
        w = w - 0.1 * (2 * XD.T @ (XD @ w - YD) / 5)
        ema *= 0.9
        ema += 0.1 * w
    return np.sum(ema ** 2)

def history_list(x):
    w = x.copy(); hist = []
    for _ in range(3):
        w = w - 0.1 * (2 * XD.T @ (XD @ w - YD) / 5)
        hist.append(np.mean((XD @ w - YD) ** 2))
    return min(hist) + hist[-1] + np.mean(hist)

def history_inplace_same(x):
    w = x.copy(); hist = []
    for _ in range(3):
        w -= 0.1 * (2 * XD.T @ (XD @ w - YD) / 5)
        hist.append(w)   # the same array three times
    return np.sum(hist[0] * hist[1])

def history_copies(x):
    w = x.copy(); hist = []
    for _ in range(3):
        w -= 0.1 * (2 * XD.T @ (XD @ w - YD) / 5)
        hist.append(w.copy())
    return np.sum(hist[0] * hist[2])

def best_params(x):
    w = x.copy(); best = None; best_l = np.inf
    for _ in range(4):
        l = np.mean((XD @ w - YD) ** 2)
        if l < best_l:
            best_l = l; best = w.copy()
        w = w - 0.3 * (2 * XD.T @ (XD @ w - YD) / 5)
    return np.sum(best ** 2) + best_l

def adam_dict(x):
    p = {"w": x.copy()}
    m = {"w": np.zeros(3)}; v = {"w": np.zeros(3)}
    for t in range(1, 4):
        g = 2 * XD.T @ (XD @ p["w"] - YD) / 5
        m["w"] = 0.9 * m["w"] + 0.1 * g
        v["w"] = 0.99 * v["w"] + 0.01 * g ** 2
        mh = m["w"] / (1 - 0.9 ** t); vh = v["w"] / (1 - 0.99 ** t)
        p["w"] -= 0.1 * mh / (np.sqrt(vh) + 1e-8)
    return np.sum(p["w"] ** 2)

PROBES = []
for f in list(globals().values()):
    if (callable(f) and getattr(f, "__module__", None) == __name__ and type(f).__name__ == "function"
            and not f.__name__.startswith("_")):
        PROBES.append((f.__name__, f, (X,)))
