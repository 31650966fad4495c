#!/usr/bin/env python3
"""One steady-state DP-SGD step of the feature-DP E3 model in numpy.

The same step as `go test -bench DPSGDStepE3/DP ./mechanisms/`: an MLP
600→128→100 with tanh and softmax cross-entropy, a Poisson batch (q = 1/4 of
49,331 rows, about 12,300) of binary features (density 1/4), per-example
gradient norms by the ghost-norm identity, clipping to C, the clipped sum,
Gaussian noise and a momentum SGD update. Prints the median time of a step in
float64 and float32 (BLAS threads as numpy/OpenBLAS set them; set
OPENBLAS_NUM_THREADS to pin). Needs python3-numpy (Debian); run with
`make bench-numpy`. Results go beside the Go benchmark in BENCHMARKS.md.
"""
import sys
import time

try:
    import numpy as np
except ImportError:
    print("bench_numpy: numpy is not installed (Debian: apt-get install python3-numpy); skipping")
    sys.exit(0)

N, D, H, K, Q, C, Z = 49331, 600, 128, 100, 0.25, 0.01, 1.0


def make_data(dtype):
    rng = np.random.default_rng(7)
    x = (rng.random((N, D)) < 0.25).astype(dtype)
    y = rng.integers(0, K, N)
    return x, y


def step(theta, vel, x, y, rng, dtype):
    w1, b1, w2, b2 = theta
    idx = np.flatnonzero(rng.random(N) < Q)
    xb, yb = x[idx], y[idx]
    a = xb @ w1 + b1
    h = np.tanh(a)
    o = h @ w2 + b2
    o -= o.max(axis=1, keepdims=True)
    p = np.exp(o)
    p /= p.sum(axis=1, keepdims=True)
    p[np.arange(len(idx)), yb] -= 1  # δ2
    d1 = (p @ w2.T) * (1 - h * h)  # δ1
    # ghost norms: ‖∇‖² = (‖x‖²+1)‖δ1‖² + (‖h‖²+1)‖δ2‖²
    ss = (np.einsum("ij,ij->i", xb, xb) + 1) * np.einsum("ij,ij->i", d1, d1) + \
         (np.einsum("ij,ij->i", h, h) + 1) * np.einsum("ij,ij->i", p, p)
    wgt = np.minimum(1, C / np.maximum(np.sqrt(ss), 1e-300)).astype(dtype)
    d1 *= wgt[:, None]
    p *= wgt[:, None]
    m = Q * N
    grads = [xb.T @ d1, d1.sum(0), h.T @ p, p.sum(0)]
    for g, t, v in zip(grads, theta, vel):
        g = g / m + rng.normal(0, Z * C / m, g.shape).astype(dtype)
        v *= 0.9
        v += g
        t -= 0.1 * v
    return len(idx)


def bench(dtype, reps):
    x, y = make_data(dtype)
    rng = np.random.default_rng(1)
    theta = [(rng.normal(0, 1 / np.sqrt(D), (D, H))).astype(dtype), np.zeros(H, dtype),
             (rng.normal(0, 1 / np.sqrt(H), (H, K))).astype(dtype), np.zeros(K, dtype)]
    vel = [np.zeros_like(t) for t in theta]
    step(theta, vel, x, y, rng, dtype)  # warm-up
    times, rows = [], 0
    for _ in range(reps):
        t0 = time.perf_counter()
        rows += step(theta, vel, x, y, rng, dtype)
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[len(times) // 2], rows / reps


def main():
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    print(f"numpy {np.__version__}")
    for dtype in (np.float64, np.float32):
        med, rows = bench(dtype, reps)
        print(f"DPSGDStepE3/DP numpy {np.dtype(dtype).name}: {med * 1e3:.1f} ms/step (median of {reps}), {rows:.0f} rows/step")
    for dtype in (np.float64, np.float32):
        rng = np.random.default_rng(3)
        a = rng.normal(size=(12288, 600)).astype(dtype)
        b = rng.normal(size=(600, 128)).astype(dtype)
        a @ b
        ts = []
        for _ in range(reps):
            t0 = time.perf_counter()
            a @ b
            ts.append(time.perf_counter() - t0)
        ts.sort()
        med = ts[len(ts) // 2]
        print(f"GEMM 12288x600·600x128 numpy {np.dtype(dtype).name}: {med * 1e3:.1f} ms ({2 * 12288 * 600 * 128 / med / 1e9:.1f} GFLOP/s)")


if __name__ == "__main__":
    main()
