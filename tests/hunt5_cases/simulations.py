import numpy as np

X = np.array([0.7, 1.3, 2.1])

def fem_ix_assembly(E):
    n = 4
    K = np.zeros((n, n))
    for e in range(3):
        dofs = [e, e + 1]
        ke = E[e] * np.array([[1.0, -1.0], [-1.0, 1.0]])
        K[np.ix_(dofs, dofs)] += ke
    K[0, 0] += 1.0
    f = np.array([0.0, 0.0, 0.0, 1.0])
    u = np.linalg.solve(K + np.eye(n) * 0.1, f)
    return u @ f

def fem_ix_assign(E):
    K = np.zeros((3, 3))
    idx = np.array([0, 2])
    K[np.ix_(idx, idx)] = np.outer(E[:2], E[1:])
    return np.sum(K ** 2)

def fem_add_at_2d(E):
    K = np.zeros((4, 4))
    rows = np.array([0, 0, 1, 1, 1, 1, 2, 2])
    cols = np.array([0, 1, 0, 1, 1, 2, 1, 2])
    vals = np.concatenate([E[0] * np.array([1.0, -1.0, -1.0, 1.0]), E[1] * np.array([1.0, -1.0, -1.0, 1.0])])
    np.add.at(K, (rows, cols), vals)
    return np.sum(K ** 2) + np.trace(K)

def fem_repeated_fancy_iadd(E):
    y = np.zeros(3)
    y[[0, 0, 1]] += E   # buffered: the repeated index adds once
    return np.sum(y * np.array([1.0, 2.0, 3.0]))

def fem_repeated_fancy_assign(E):
    y = np.zeros(3)
    y[[0, 0, 1]] = E    # last write wins
    return np.sum(y * np.array([1.0, 2.0, 3.0]))

def bincount_assembly(E):
    idx = np.array([0, 1, 1, 2, 2, 3])
    vals = np.repeat(E, 2) * np.array([1.0, -1.0, 1.0, -1.0, 1.0, -1.0])
    return np.sum(np.bincount(idx, weights=vals, minlength=4) ** 2)

def spring_chain_verlet(k):
    x = np.array([0.0, 1.1, 2.3]); v = np.zeros(3); dt = 0.05
    traj = []
    def force(x):
        f = np.zeros(3)
        for i in range(2):
            d = x[i + 1] - x[i] - 1.0
            f[i] += k[i] * d
            f[i + 1] -= k[i] * d
        return f
    a = force(x)
    for _ in range(10):
        x = x + v * dt + 0.5 * a * dt ** 2
        a_new = force(x)
        v = v + 0.5 * (a + a_new) * dt
        a = a_new
        traj.append(x.copy())
    T = np.array(traj)
    return np.sum(T[:, 2] ** 2) + 0.5 * np.sum(v ** 2)

def lennard_jones(pos):
    P = pos.reshape(3, 1) * np.array([[1.0, 0.3]]) + np.array([[0.0, 0.0], [1.1, 0.0], [0.0, 1.2]])
    E = 0.0
    for i in range(3):
        for j in range(i + 1, 3):
            r2 = np.sum((P[i] - P[j]) ** 2)
            inv6 = 1.0 / r2 ** 3
            E += 4.0 * (inv6 ** 2 - inv6)
    return E

def mesh_laplacian(u):
    n = 3
    L = np.diag(2.0 * np.ones(n)) - np.diag(np.ones(n - 1), 1) - np.diag(np.ones(n - 1), -1)
    return 0.5 * u @ L @ u + np.sum(u ** 4) / 4.0

def gauss_seidel(x):
    A = np.array([[4.0, 1.0, 0.0], [1.0, 4.0, 1.0], [0.0, 1.0, 4.0]]) * (1 + x[0] ** 2)
    b = x.copy()
    u = np.zeros(3)
    for _ in range(8):
        for i in range(3):
            s = b[i] - A[i, :i] @ u[:i] - A[i, i + 1:] @ u[i + 1:]
            u[i] = s / A[i, i]
    return np.sum(u ** 2)

def upwind_advection(u0):
    u = np.concatenate([u0, u0[::-1]])
    c = 0.4
    for _ in range(5):
        u[1:] = u[1:] - c * (u[1:] - u[:-1])
    return np.sum(u ** 2 * np.arange(6.0))

def lax_wendroff(u0):
    u = np.concatenate([u0, u0[::-1]])
    c = 0.4
    for _ in range(4):
        up = np.roll(u, -1); um = np.roll(u, 1)
        u = u - 0.5 * c * (up - um) + 0.5 * c * c * (up - 2 * u + um)
    return np.sum(u ** 3)

def semi_lagrangian(u0):
    u = np.concatenate([u0, u0 ** 2])
    n = 6
    xs = np.arange(n) - 0.37
    i0 = np.floor(xs).astype(int) % n
    i1 = (i0 + 1) % n
    w = xs - np.floor(xs)
    for _ in range(3):
        u = (1 - w) * u[i0] + w * u[i1]
    return np.sum(u * np.arange(6.0))

def fluid_like(u0):
    # autograd's fluidsim idiom: floor of displaced coordinates, fancy indexing, weights
    n = 3
    f = np.outer(u0, u0)
    vx = np.ones((n, n)) * 0.3; vy = np.ones((n, n)) * 0.2
    rows, cols = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    cx = (rows - vx) % n; cy = (cols - vy) % n
    x0 = np.floor(cx).astype(int); y0 = np.floor(cy).astype(int)
    x1 = (x0 + 1) % n; y1 = (y0 + 1) % n
    dx = cx - x0; dy = cy - y0
    out = (1 - dx) * ((1 - dy) * f[x0, y0] + dy * f[x0, y1]) + dx * ((1 - dy) * f[x1, y0] + dy * f[x1, y1])
    return np.sum(out ** 2)

def markov_chain_stationary(x):
    T = np.abs(np.outer(x, x[::-1])) + 0.1
    T = T / T.sum(axis=1, keepdims=True)
    pi = np.ones(3) / 3
    for _ in range(20):
        pi = pi @ T
    return pi @ np.array([1.0, 2.0, 3.0])

PROBES = []
for f in list(globals().values()):
    if (callable(f) and getattr(f, "__module__", None) == __name__ and type(f).__name__ == "function"
            and not f.__name__.startswith("_")):
        PROBES.append((f.__name__, f, (X,)))
