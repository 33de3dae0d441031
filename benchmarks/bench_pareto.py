"""Benchmark of the exact and ε-approximate Pareto frontiers (docs/theory.md §6).

Prints one table. Each row is one algorithm on one problem (``FiniteProblem.random(n, K,
seed)``): wall time, number of frontier points, MILP size and number of MILP solves (MILP rows),
and, measured side by side in the same run, the time of a baseline on the same problem with the
ratio baseline / row and whether both return the same point set:

* exact frontier: subset DP (``method="dp"``) and ε-constraint MILP (``method="milp"``, highspy;
  once with the cvxpy backend), baseline = brute-force enumeration of all weak orders where that
  is feasible (n ≤ 6, or n = 7 with ``--brute7``, ~80 s), otherwise the DP;
* ε-approximate frontier (ε = 0.01, K = 2): the MILP sweep seeded with the supported vertices,
  baseline = the same sweep without the seeding (``seed=False``, the previous algorithm), and
  the DP's exact frontier (is every point within ε?) where n ≤ 12.

A configuration that runs out of ``--time-limit`` prints ``>limit``.

Usage::

    python benchmarks/bench_pareto.py                  # default table
    python benchmarks/bench_pareto.py --brute7         # also enumerate n = 7
    python benchmarks/bench_pareto.py --seeds 0 1 2 --time-limit 60
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from bipartite.pareto import (
    _approx_points,
    _exact_points,
    auc_milp,
    exact_frontier,
    pareto_filter,
    unique_rows,
)
from bipartite.population import FiniteProblem, enumerate_weak_orders


def brute_frontier(P: FiniteProblem, tol: float = 1e-9) -> np.ndarray:
    V = np.array([P.auc(s) for s in enumerate_weak_orders(P.n)])
    F = V[pareto_filter(V)]
    return F[unique_rows(F, tol)]


def timed(fn):
    t0 = time.perf_counter()
    try:
        out = fn()
    except TimeoutError:
        out = None
    return time.perf_counter() - t0, out


def same(A, B, tol: float = 1e-8) -> str:
    if A is None or B is None:
        return ""
    if A.shape != B.shape:
        return "False"
    D = np.max(np.abs(A[:, None, :] - B[None, :, :]), axis=2)
    return str(bool(np.all(D.min(axis=1) <= tol) and np.all(D.min(axis=0) <= tol)))


def covers(A, F, eps: float) -> str:
    """Every point of F within eps of A, and every point of A on F."""
    if A is None or F is None:
        return ""
    DA = np.max(np.abs(F[:, None, :] - A[None, :, :]), axis=2)
    return str(bool(np.all(DA.min(axis=1) <= eps + 1e-12) and np.all(DA.min(axis=0) <= 1e-9)))


def milp_exact(P, limit, backend="highspy"):
    milp = auc_milp(P, backend, limit)
    pts = _exact_points(milp, P.K, 1e-9 if P.K == 2 else 1e-7)
    V = np.array([P.auc(milp.scores(z)) for _, z in pts])
    return V[unique_rows(V, 1e-9)], milp


def milp_eps(P, eps, limit, seeded=True):
    milp = auc_milp(P, "highspy", limit)
    if seeded:
        pts = _approx_points(P, milp, eps, 1e-9)
    else:
        pts = _unseeded_sweep(milp, eps, 1e-9)
    V = np.array([P.auc(s) for _, s in pts])
    return V[unique_rows(V, 1e-9)], milp


def _unseeded_sweep(milp, eps, tol):
    """The ε sweep without the supported vertices (the algorithm before seeding), as the
    baseline: every step is MILP solves."""
    out = []
    s = -np.inf
    while True:
        z = milp.lexmax((0, 1), np.array([-np.inf, s]), tol=tol)
        if z is None:
            break
        v = milp.values(z)
        out.append((v, milp.scores(z)))
        w = milp.values(milp.lexmax((1, 0), np.array([v[0] - eps, -np.inf]), tol=tol))
        s = w[1] + tol if w[1] <= v[1] + eps else v[1] + eps
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--time-limit", type=float, default=120.0)
    ap.add_argument("--brute7", action="store_true")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    args = ap.parse_args()
    L = args.time_limit

    head = (f"{'n':>3} {'K':>2} {'seed':>4} {'mode':>9} {'method':>12} {'vars':>5} {'cons':>6} "
            f"{'solves':>6} {'points':>6} {'time s':>8} {'baseline':>15} {'base s':>8} "
            f"{'base/row':>8} {'check':>6}")
    print(head)
    print("-" * len(head))

    def row(n, K, seed, mode, method, size, solves, pts, dt, base, bt, check):
        t = f"{dt:8.2f}" if pts is not None else f"{'>' + format(L, 'g'):>8}"
        b = f"{bt:8.2f}" if bt is not None else f"{'':>8}"
        r = f"{bt / dt:8.2f}" if (bt is not None and pts is not None and base) else f"{'':>8}"
        nv, nc = size if size else ("", "")
        print(f"{n:>3} {K:>2} {seed:>4} {mode:>9} {method:>12} {nv:>5} {nc:>6} {solves:>6} "
              f"{'-' if pts is None else len(pts):>6} {t} {base:>15} {b} {r} {check:>6}",
              flush=True)

    exact_cfg = [(6, 2), (7, 2), (8, 2), (10, 2), (12, 2), (5, 3), (6, 3), (8, 3)]
    for seed in args.seeds:
        for n, K in exact_cfg:
            P = FiniteProblem.random(n, K, seed=seed)
            brute = n <= 6 or (n == 7 and args.brute7)
            if brute:
                bt, B = timed(lambda P=P: brute_frontier(P))
                base = "enumeration"
            dt, D = timed(lambda P=P: exact_frontier(P, method="dp", time_limit=L))
            if not brute:
                bt, B, base = dt, D, "dp"
            row(n, K, seed, "exact", "dp", None, "", D, dt,
                "enumeration" if brute else "", bt if brute else None,
                same(D, B) if brute else "")
            if K == 2 and n > 10 or K == 3 and n > 6:
                continue  # the MILP needs far more than the time limit there
            mt, res = timed(lambda P=P: milp_exact(P, L))
            M, milp = (None, None) if res is None else res
            row(n, K, seed, "exact", "milp", None if milp is None else milp.size(),
                "" if milp is None else milp.n_solves, M, mt, base, bt, same(M, B))
            if n == 6 and K == 2:
                ct, res = timed(lambda P=P: milp_exact(P, L, backend="cvxpy"))
                C = None if res is None else res[0]
                row(n, K, seed, "exact", "milp-cvxpy", None, "", C, ct, base, bt, same(C, B))
        for n in (10, 15, 20, 30, 40):
            P = FiniteProblem.random(n, 2, seed=seed)
            eps = 0.01
            F = exact_frontier(P, method="dp") if n <= 12 else None
            ut, res = timed(lambda P=P: milp_eps(P, eps, L, seeded=False))
            U = None if res is None else res[0]
            st, res = timed(lambda P=P: milp_eps(P, eps, L, seeded=True))
            A, milp = (None, None) if res is None else res
            row(n, 2, seed, "eps=0.01", "milp-seeded", None if milp is None else milp.size(),
                "" if milp is None else milp.n_solves, A, st,
                "milp-unseeded" if U is not None else f"unseeded>{L:g}",
                ut if U is not None else None, covers(A, F, eps) if F is not None else "")


if __name__ == "__main__":
    main()
