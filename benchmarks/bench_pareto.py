"""Benchmark of the exact and ε-approximate Pareto frontiers (docs/theory.md §6).

Problems ``FiniteProblem.random(n, K, seed)``. Two tables:

* **Exact frontier.** ``exact_frontier(method="dp")`` end to end (the subset DP, then the exact
  AUC of every returned order), the subset DP alone, and, side by side in the same run, the subset
  DP of ``--baseline-dir`` (a folder holding a previous ``dp.py`` and ``dominance.py``, e.g. the
  versions with the quadratic K ≥ 3 filter), whether both return the same points, and the
  ε-constraint MILP (``method="milp"``, small n) and brute-force enumeration of all weak orders
  (n ≤ 6) as further baselines. ``--large`` adds n = 13, 14 for K = 2 (past ``DP_MAX_N``: run
  with ``exact_frontier(..., method="dp", dp_max_n=n)``).
* **ε-approximate frontier** (ε = 0.01, K = 2): the MILP sweep seeded with the supported vertices
  (``exact_frontier(eps=..., method="milp")``), baseline = the same sweep without the seeding
  (the previous algorithm, written here on the public ``auc_milp``), and whether every exact
  point (DP, n ≤ 12) is within ε of a returned one.

A run that exceeds ``--time-limit`` prints ``>limit``.

Usage::

    python benchmarks/bench_pareto.py --seeds 0 1 2 --time-limit 60
    python benchmarks/bench_pareto.py --seeds 0 1 2 --baseline-dir /tmp/pareto_before --skip-milp
    python benchmarks/bench_pareto.py --large --skip-milp --skip-eps
    python benchmarks/bench_pareto.py --targets            # the issue-16 targets, nothing else

``--targets`` runs exactly the targets of the issue "the K = 3 frontier past n = 8": the exact
frontier (``exact_frontier(method="dp")``, end to end) of ``FiniteProblem.random(9, 3, seed)`` for
seeds 0, 1, 2 and of ``FiniteProblem.random(14, 2, seed=0)`` (``dp_max_n=14``), each under a time
limit of 60 s, with the number of Pareto points and the largest stored frontier of a DP state.
With ``--baseline-dir`` it also times the previous DP at n = 8, K = 3 (seeds 0-2) side by side.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
from pathlib import Path

import numpy as np

from bipartite.pareto import DP_MAX_N, exact_frontier, milp_size, pareto_filter, subset_dp
from bipartite.pareto.dominance import unique_rows
from bipartite.pareto.milp import auc_milp
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
    D = np.max(np.abs(A[:, None, :] - B[None, :, :]), axis=2) if len(A) * len(B) < 4e7 else None
    if D is None:  # large sets: compare sorted rows
        A2, B2 = A[np.lexsort(A.T[::-1])], B[np.lexsort(B.T[::-1])]
        return str(bool(np.max(np.abs(A2 - B2)) <= tol))
    return str(bool(np.all(D.min(axis=1) <= tol) and np.all(D.min(axis=0) <= tol)))


def covers(A, F, eps: float) -> str:
    """Every point of F within eps of A, and every point of A on F."""
    if A is None or F is None:
        return ""
    DA = np.max(np.abs(F[:, None, :] - A[None, :, :]), axis=2)
    return str(bool(np.all(DA.min(axis=1) <= eps + 1e-12) and np.all(DA.min(axis=0) <= 1e-9)))


def load_baseline_dp(folder: str):
    """The previous subset DP with its own dominance filter (modules loaded from files)."""
    mods = {}
    for name in ("dominance", "dp"):
        spec = importlib.util.spec_from_file_location(f"baseline_{name}",
                                                      Path(folder) / f"{name}.py")
        mods[name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mods[name])
    mods["dp"].frontier_rows = mods["dominance"].frontier_rows
    return mods["dp"].subset_dp


def unseeded_sweep(milp, eps, tol):
    """The ε sweep without the supported vertices (the algorithm before seeding), as the
    baseline: every step is MILP solves."""
    out = []
    s = -np.inf
    while True:
        z = milp.lexmax((0, 1), np.array([-np.inf, s]), tol=tol)
        if z is None:
            break
        v = milp.values(z)
        out.append(v)
        w = milp.values(milp.lexmax((1, 0), np.array([v[0] - eps, -np.inf]), tol=tol))
        s = w[1] + tol if w[1] <= v[1] + eps else v[1] + eps
    V = np.array(out)
    return V[unique_rows(V, 1e-9)]


def fmt(t, ok, L):
    return f"{t:8.2f}" if ok else f"{'>' + format(L, 'g'):>8}"


def exact_table(args, baseline) -> None:
    L = args.time_limit
    head = (f"{'n':>3} {'K':>2} {'seed':>4} {'points':>7} {'frontier s':>10} {'dp s':>8} "
            f"{'before s':>8} {'before/dp':>9} {'same':>5} {'milp s':>8} {'vars':>5} "
            f"{'cons':>6} {'enum s':>7} {'same':>5}")
    print(head)
    print("-" * len(head))
    cfg = [(6, 2), (7, 2), (8, 2), (10, 2), (12, 2), (5, 3), (6, 3), (8, 3), (9, 3)]
    if args.large:
        cfg += [(13, 2), (14, 2)]
    for seed in args.seeds:
        for n, K in cfg:
            P = FiniteProblem.random(n, K, seed=seed)
            Ws = np.stack([P.pair_weights(k) for k in range(K)])
            ft, F = timed(lambda P=P, n=n: exact_frontier(P, method="dp", time_limit=L,
                                                          dp_max_n=max(n, DP_MAX_N)))
            dt, res = timed(lambda Ws=Ws: subset_dp(Ws, 1e-12, L))
            D = None if res is None else res[0]
            bt, ratio, bsame = "", "", ""
            if baseline is not None:
                t, r = timed(lambda Ws=Ws: baseline(Ws, 1e-12, L))
                bt = fmt(t, r is not None, L)
                if r is not None and D is not None:
                    ratio = f"{t / dt:9.1f}"
                    bsame = str(bool(r[0].shape == D.shape and np.array_equal(r[0], D)))
            mt, ms, size = "", "", ("", "")
            if not args.skip_milp and (K == 2 and n <= 8 or K == 3 and n <= 6):
                t, M = timed(lambda P=P: exact_frontier(P, method="milp", time_limit=L))
                mt, size = fmt(t, M is not None, L), milp_size(n, K)
                ms = same(M, F)
            et, es = "", ""
            if n <= 6:
                t, B = timed(lambda P=P: brute_frontier(P))
                et, es = f"{t:7.2f}", same(B, F)
            print(f"{n:>3} {K:>2} {seed:>4} {'-' if F is None else len(F):>7} "
                  f"{fmt(ft, F is not None, L):>10} {fmt(dt, D is not None, L)} {bt:>8} "
                  f"{ratio:>9} {bsame:>5} {mt:>8} {size[0]:>5} {size[1]:>6} {et:>7} "
                  f"{es or ms:>5}", flush=True)


def targets_table(args, baseline) -> None:
    """The issue-16 targets, each under 60 s: ``exact_frontier(method="dp")`` end to end on
    n = 9, K = 3 (seeds 0, 1, 2) and n = 14, K = 2 (seed 0, ``dp_max_n=14``); with a baseline,
    the previous subset DP on n = 8, K = 3 side by side (the same points: array_equal)."""
    limit = 60.0
    print("| problem | Pareto points | exact_frontier s | target | met |")
    print("|---|---|---|---|---|")
    for n, K, seed in [(9, 3, 0), (9, 3, 1), (9, 3, 2), (14, 2, 0)]:
        P = FiniteProblem.random(n, K, seed=seed)
        t, F = timed(lambda P=P, n=n: exact_frontier(P, method="dp", time_limit=limit,
                                                     dp_max_n=max(n, DP_MAX_N)))
        pts = "-" if F is None else f"{len(F):,}"
        print(f"| `FiniteProblem.random({n}, {K}, seed={seed})` | {pts} | "
              f"{fmt(t, F is not None, limit).strip()} | < 60 s | "
              f"{'yes' if F is not None and t < limit else 'no'} |", flush=True)
    if baseline is None:
        return
    print()
    print("| problem | DP s (now) | DP s (before) | before / now | same points |")
    print("|---|---|---|---|---|")
    for seed in (0, 1, 2):
        P = FiniteProblem.random(8, 3, seed=seed)
        Ws = np.stack([P.pair_weights(k) for k in range(3)])
        dt, res = timed(lambda Ws=Ws: subset_dp(Ws, 1e-12, 600.0))
        bt, ref = timed(lambda Ws=Ws: baseline(Ws, 1e-12, 600.0))
        same_pts = res is not None and ref is not None and np.array_equal(
            res[0][np.lexsort(res[0].T[::-1])], ref[0][np.lexsort(ref[0].T[::-1])])
        print(f"| `FiniteProblem.random(8, 3, seed={seed})` | {dt:.2f} | {bt:.2f} | "
              f"{bt / dt:.1f} | {same_pts} |", flush=True)


def eps_table(args) -> None:
    L = args.time_limit
    head = (f"{'n':>3} {'seed':>4} {'points':>6} {'seeded s':>8} {'unseeded s':>10} "
            f"{'unseeded/seeded':>15} {'covers exact':>12}")
    print(head)
    print("-" * len(head))
    eps = 0.01
    for seed in args.seeds:
        for n in (10, 15, 20, 30, 40):
            P = FiniteProblem.random(n, 2, seed=seed)
            F = exact_frontier(P, method="dp") if n <= 12 else None
            st, A = timed(lambda P=P: exact_frontier(P, eps=eps, method="milp", time_limit=L))
            ut, U = timed(lambda P=P: unseeded_sweep(auc_milp(P, "highspy", L), eps, 1e-9))
            r = f"{ut / st:15.2f}" if A is not None and U is not None else ""
            print(f"{n:>3} {seed:>4} {'-' if A is None else len(A):>6} "
                  f"{fmt(st, A is not None, L)} {fmt(ut, U is not None, L):>10} {r:>15} "
                  f"{covers(A, F, eps) if F is not None else '':>12}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--time-limit", type=float, default=120.0)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--baseline-dir", help="folder with a previous dp.py and dominance.py")
    ap.add_argument("--large", action="store_true", help="also n = 13, 14 (K = 2)")
    ap.add_argument("--skip-milp", action="store_true")
    ap.add_argument("--skip-eps", action="store_true")
    ap.add_argument("--targets", action="store_true",
                    help="only the issue-16 targets: n = 9, K = 3 (seeds 0-2) and n = 14, K = 2")
    args = ap.parse_args()
    baseline = load_baseline_dp(args.baseline_dir) if args.baseline_dir else None
    print(f"{sys.argv[0]} {' '.join(sys.argv[1:])}; {os.cpu_count()} cores, load average "
          f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.targets:
        targets_table(args, baseline)
        return
    exact_table(args, baseline)
    if not args.skip_eps:
        print()
        eps_table(args)


if __name__ == "__main__":
    main()
