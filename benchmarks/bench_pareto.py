"""Benchmark of the exact and ε-approximate Pareto frontiers (THEORY §6).

Prints one table: for each configuration the wall time, number of frontier points, MILP size
(variables, constraints), number of MILP solves, and, where feasible, the time of brute-force
enumeration of all weak orders (with the ratio brute / MILP measured in the same run) and whether
both give the same frontier. Also compares the highspy backend (model built once, bounds changed
between solves, warm-started lexicographic stage) with the cvxpy backend (Parameter thresholds,
``warm_start=True``) on the same problem.

Usage::

    python benchmarks/bench_pareto.py                 # default table
    python benchmarks/bench_pareto.py --brute7        # also enumerate n = 7 (~1-2 min)
    python benchmarks/bench_pareto.py --time-limit 120
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from bipartite.pareto import _approx_points, _auc_milp, _exact_points, pareto_filter
from bipartite.population import FiniteProblem, enumerate_weak_orders


def brute_frontier(P: FiniteProblem, tol: float = 1e-9) -> np.ndarray:
    V = np.array([P.auc(s) for s in enumerate_weak_orders(P.n)])
    F = V[pareto_filter(V)]
    F = F[np.lexsort(F.T[::-1])]
    out: list[np.ndarray] = []
    for f in F:
        if not out or np.max(np.abs(f - out[-1])) > tol:
            out.append(f)
    return np.array(out)


def run_milp(P: FiniteProblem, eps: float | None, backend: str, time_limit: float):
    t0 = time.perf_counter()
    milp = _auc_milp(P, backend, time_limit)
    try:
        pts = _exact_points(milp, P.K, 1e-9) if eps is None else _approx_points(milp, eps, 1e-9)
        status = "ok"
    except TimeoutError:
        pts, status = None, "timeout"
    dt = time.perf_counter() - t0
    F = None if pts is None else np.array(sorted(tuple(v) for v, _ in pts))
    return dt, F, milp.size(), milp.n_solves, status


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--time-limit", type=float, default=120.0)
    ap.add_argument("--brute7", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    configs = [
        # (n, K, eps, backend, brute)
        (6, 2, None, "highspy", True),
        (6, 2, None, "cvxpy", False),
        (7, 2, None, "highspy", args.brute7),
        (8, 2, None, "highspy", False),
        (10, 2, None, "highspy", False),
        (12, 2, None, "highspy", False),
        (5, 3, None, "highspy", True),
        (6, 3, None, "highspy", True),
        (6, 2, 0.01, "highspy", False),
        (10, 2, 0.01, "highspy", False),
        (15, 2, 0.01, "highspy", False),
        (20, 2, 0.01, "highspy", False),
        (30, 2, 0.01, "highspy", False),
        (40, 2, 0.01, "highspy", False),
    ]
    head = (f"{'n':>3} {'K':>2} {'mode':>10} {'backend':>8} {'vars':>6} {'cons':>7} "
            f"{'solves':>7} {'points':>7} {'time s':>8} {'brute s':>8} {'brute/milp':>10} "
            f"{'same':>5}")
    print(head)
    print("-" * len(head))
    for n, K, eps, backend, brute in configs:
        P = FiniteProblem.random(n, K, seed=args.seed)
        dt, F, (nv, nc), ns, status = run_milp(P, eps, backend, args.time_limit)
        bt, same = float("nan"), ""
        if brute:
            t0 = time.perf_counter()
            B = brute_frontier(P)
            bt = time.perf_counter() - t0
            same = str(F is not None and F.shape == B.shape and np.allclose(F, B, atol=1e-8))
        mode = "exact" if eps is None else f"eps={eps:g}"
        pts = "-" if F is None else str(len(F))
        tstr = f"{dt:8.2f}" if status == "ok" else f"{'>' + format(args.time_limit, 'g'):>8}"
        ratio = f"{bt / dt:10.2f}" if brute and status == "ok" else f"{'':>10}"
        print(f"{n:>3} {K:>2} {mode:>10} {backend:>8} {nv:>6} {nc:>7} {ns:>7} {pts:>7} "
              f"{tstr} {bt:8.2f} {ratio} {same:>5}", flush=True)


if __name__ == "__main__":
    main()
