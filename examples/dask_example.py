"""The gradient of a loss over data bigger than one worker's memory, on a Dask cluster (issue 15).

The loss is ordinary NumPy code (logistic regression, as in examples/bench.py). Called on Dask arrays,
`mc.value_and_grad` returns a lazy Dask graph: the generated derivative is the same NumPy code, which
Dask runs chunk by chunk through NumPy's dispatch. Nothing is computed until `dask.compute`, which here
runs on a `LocalCluster` of two worker processes, each with a memory limit smaller than the data: the
rows are made chunk by chunk on the workers (never as one array) and reduced as they go.

The same loss and gradient are then computed with NumPy on one machine, in memory, and compared.

    python examples/dask_example.py                 # 2.5 million rows x 16 (320 MB), 2 workers of 256 MiB
    python examples/dask_example.py --rows 200000   # smaller and quicker
    python examples/dask_example.py --threads       # the local threaded scheduler, no cluster
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import mooncake_ast as mc


def logistic_loss(w, X, y):
    z = X @ w
    p = 1.0 / (1.0 + np.exp(-z))
    return -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))


def data(da, rows: int, cols: int, chunk: int):
    """X and y as Dask arrays made chunk by chunk (by the workers, when computed): nothing is allocated here."""
    rs = da.random.RandomState(0)
    X = rs.normal(size=(rows, cols), chunks=(chunk, cols))
    w_true = np.linspace(-1.0, 1.0, cols)
    y = (X @ w_true + rs.normal(size=rows, chunks=chunk) > 0).astype(float)
    return X, y


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2_500_000)
    parser.add_argument("--cols", type=int, default=16)
    parser.add_argument("--chunk", type=int, default=100_000, help="rows per chunk")
    parser.add_argument("--memory-limit", default="256MiB", help="per worker")
    parser.add_argument("--threads", action="store_true", help="no cluster: Dask's local threaded scheduler")
    args = parser.parse_args()

    import dask
    import dask.array as da

    X, y = data(da, args.rows, args.cols, args.chunk)
    w = da.from_array(np.zeros(args.cols) + 0.1)  # one chunk: the parameters are small
    print(f"X: {args.rows} x {args.cols} float64 = {X.nbytes / 1e6:.0f} MB in {X.numblocks[0]} chunks "
          f"of {args.chunk * args.cols * 8 / 1e6:.0f} MB")

    t0 = time.perf_counter()
    loss, grad = mc.value_and_grad(logistic_loss)(w, X, y)  # lazy: builds the graph, computes nothing
    t_graph = time.perf_counter() - t0
    print(f"mc.value_and_grad returned {type(loss).__name__} and {type(grad).__name__} in {t_graph:.2f} s "
          f"(a graph of {len(dict(grad.__dask_graph__()))} tasks)")

    def run() -> tuple:
        t0 = time.perf_counter()
        dask.compute(X.sum(), y.sum())  # making the data alone, for comparison
        t_data = time.perf_counter() - t0
        t0 = time.perf_counter()
        out = dask.compute(loss, grad)  # makes the data again, chunk by chunk, and differentiates
        return out, t_data, time.perf_counter() - t0

    if args.threads:
        (loss_v, grad_v), t_data, t_dask = run()
        where = "Dask, local threads"
    else:
        from distributed import Client, LocalCluster

        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, memory_limit=args.memory_limit,
                          dashboard_address=None) as cluster, Client(cluster):
            (loss_v, grad_v), t_data, t_dask = run()
        where = f"Dask, LocalCluster of 2 worker processes with {args.memory_limit} each"
    print(f"{where}: loss {float(loss_v):.6f}; value and gradient computed in {t_dask:.2f} s "
          f"(making the data alone: {t_data:.2f} s)")

    # The same on one machine with NumPy: the data in memory, the same generated derivative.
    Xn, yn = dask.compute(X, y, scheduler="threads")
    t0 = time.perf_counter()
    loss_n, grad_n = mc.value_and_grad(logistic_loss)(np.asarray(w), Xn, yn)
    t_numpy = time.perf_counter() - t0
    print(f"NumPy, one machine, in memory: loss {loss_n:.6f}, computed in {t_numpy:.2f} s")
    same = np.allclose(grad_v, grad_n, rtol=1e-9, atol=1e-12) and np.isclose(float(loss_v), loss_n, rtol=1e-12)
    print("gradients agree" if same else f"MISMATCH: max |difference| {np.max(np.abs(grad_v - grad_n)):.3g}")
    if not same:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
