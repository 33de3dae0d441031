"""Benchmark of the exact and ε-approximate Pareto frontiers (docs/theory.md §6).

Problems ``FiniteProblem.random(n, K, seed)``. Two tables:

* **Exact frontier.** ``exact_frontier(method="dp")`` end to end (the subset DP with the values
  it computed for its orders), the subset DP alone, and, side by side in the same run, the subset
  DP of ``--baseline-dir`` (a folder holding a previous ``dp.py`` and ``dominance.py``, e.g. the
  versions with the quadratic K ≥ 3 filter), whether both return the same points, and the
  ε-constraint MILP (``method="milp"``, small n) and brute-force enumeration of all weak orders
  (n ≤ 6; vectorised: every order's AUCs in one pass) as further baselines. ``--large`` adds
  n = 13, 14 for K = 2 (past ``DP_MAX_N``: run with ``exact_frontier(..., method="dp",
  dp_max_n=n)``); ``--configs`` picks the (n, K) rows.
* **ε-approximate frontier** (ε = 0.01, K = 2): the MILP sweep seeded with the supported vertices
  (``exact_frontier(eps=..., method="milp")``), baseline = the same sweep without the seeding
  (the previous algorithm, written here on the public ``auc_milp``), and whether every exact
  point (DP, n ≤ 12) is within ε of a returned one.

A run that exceeds ``--time-limit`` prints ``>limit``.

Usage::

    python benchmarks/bench_pareto.py --seeds 0 1 2 --time-limit 60
    python benchmarks/bench_pareto.py --seeds 0 1 2 --baseline-dir /tmp/pareto_before --skip-milp
    python benchmarks/bench_pareto.py --large --skip-milp --skip-eps
    python benchmarks/bench_pareto.py --configs 6:2 6:3 --seeds 0 1 2 --skip-eps  # enum / DP
    python benchmarks/bench_pareto.py --targets --time-limit 60 --seeds 0 1 2 [--before]

``--exact-scale`` (issue 37 item 3) times ``exact_frontier`` of ``random(12, 3)``,
``random(13, 3)``, ``random(16, 2)``, ``random(17, 2)`` and ``random(18, 2)`` (or ``--configs``),
before (``--baseline-rev``) and now, each in a fresh process under ``--time-limit`` CPU seconds,
with points per CPU second and whether both return the same points::

    python benchmarks/bench_pareto.py --exact-scale --time-limit 300 --seeds 0

``--targets`` runs exactly the targets of issue 23 ("Performance, round 3"), each problem in a
fresh process (its own peak RSS) under ``--time-limit`` (60 s) and 4 GB: ``exact_frontier``
(subset DP, end to end) of ``FiniteProblem.random(16, 2, seed)`` and ``random(10, 3, seed)``, and
``max_min_point`` of ``random(100, K, seed)`` for K = 2, 3, with the time per Pareto point
(``--before``: first the same frontiers by the DP over every tied block without the bound, the
route before the useful-block reduction, each under the same limit); then
the DP route before issue 23 (every returned order re-evaluated through ``P.auc``,
:func:`old_exact_frontier`) against ``exact_frontier`` now, side by side on n = 9, K = 3
(seeds 0-2) and n = 12, K = 2; then the issue-37 table of the supported routines
(``--supported`` alone: :func:`supported_table`).
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
from bipartite.pareto.dp import order_values, pair_weight_stack
from bipartite.pareto.milp import auc_milp
from bipartite.population import FiniteProblem, enumerate_weak_orders


def brute_frontier(P: FiniteProblem, tol: float = 1e-9) -> np.ndarray:
    """Brute force, vectorised: the AUCs of every weak order in one pass (``order_values``),
    then the Pareto filter."""
    S = np.array(list(enumerate_weak_orders(P.n)), dtype=np.float64)
    V = order_values(pair_weight_stack(P), S)
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
    if args.configs:
        cfg = [tuple(int(x) for x in c.split(":")) for c in args.configs]
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


def old_exact_frontier(P: FiniteProblem) -> np.ndarray:
    """The DP route before issue 23 (the baseline): the subset DP over every tied block, then
    every returned order re-evaluated one at a time through the validated ``P.auc``, then
    ``unique_rows``."""
    Ws = np.stack([P.pair_weights(k) for k in range(P.K)])
    _, S = subset_dp(Ws, 1e-12, blocks="all")
    V = np.array([P.auc(s) for s in S])
    return V[unique_rows(V, 1e-12)]


def main_exact_frontier(P: FiniteProblem, time_limit: float | None = None) -> np.ndarray:
    """``exact_frontier(method="dp")`` before the useful-block reduction and the bound: the
    subset DP over every tied block, the values it computed, ``unique_rows``."""
    V, _ = subset_dp(pair_weight_stack(P), 1e-12, time_limit, blocks="all")
    return V[unique_rows(V, 1e-12)]


def _target_child(kind: str, n: int, K: int, seed: int, limit: float, conn) -> None:
    """One target in a fresh process (so that its peak RSS is its own)."""
    import resource

    from bipartite.pareto import max_min_point

    P = FiniteProblem.random(n, K, seed=seed)
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        if kind == "frontier":
            out = len(exact_frontier(P, method="dp", time_limit=limit, dp_max_n=max(n, DP_MAX_N)))
        elif kind == "before":  # exact_frontier(method="dp") before: every block, no bound
            out = len(main_exact_frontier(P, limit))
        else:
            r = max_min_point(P, time_limit=limit)
            out = f"{r.value:.6f} ({r.method})"
    except TimeoutError:
        out = None
    t = time.perf_counter() - t0
    conn.send((t, out, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
               time.process_time() - c0))
    conn.close()


def targets_table(args, baseline) -> None:
    """The issue-23 targets, each in a fresh process under 60 s and 4 GB: ``exact_frontier``
    (the subset DP, end to end) of ``FiniteProblem.random(16, 2, seed)`` and
    ``random(10, 3, seed)``, and ``max_min_point`` (``method="auto"``) of ``random(100, K, seed)``
    for K = 2, 3; seeds ``--seeds``. Then the DP route before and after issue 23 side by side
    (the same points)."""
    import multiprocessing as mp

    limit = args.time_limit
    ctx = mp.get_context("spawn")
    print(f"| problem | call | route | result | time s | CPU s | peak RSS MB | "
          f"s per Pareto point | < {limit:g} s and 4 GB |")
    print("|---|---|---|---|---|---|---|---|---|")
    jobs = [("frontier", 16, 2), ("frontier", 10, 3), ("maxmin", 100, 2), ("maxmin", 100, 3)]
    if args.before:
        jobs = [("before", 16, 2), ("before", 10, 3)] + jobs
    for kind, n, K in jobs:
        for seed in args.seeds:
            a, b = ctx.Pipe(False)
            proc = ctx.Process(target=_target_child, args=(kind, n, K, seed, limit, b))
            proc.start()
            got = a.recv() if a.poll(limit + 120) else None
            proc.join(5)
            if proc.is_alive():
                proc.kill()
            t, out, rss, cpu = (got if got is not None
                                else (float("inf"), None, float("nan"), float("nan")))
            ok = out is not None and t < limit and rss < 4096
            frontier = kind in ("frontier", "before")
            per = f"{t / out:.2e}" if frontier and out else "-"
            res = "-" if out is None else (f"{out:,} points" if frontier else out)
            call = "exact_frontier" if frontier else "max_min_point"
            route = {"before": "before: every block, no bound", "frontier": "now: useful blocks, "
                     "bound"}.get(kind, "auto")
            print(f"| `FiniteProblem.random({n}, {K}, seed={seed})` | {call} | {route} | {res} | "
                  f"{fmt(t, out is not None, limit).strip()} | {cpu:.1f} | {rss:.0f} | {per} | "
                  f"{'yes' if ok else 'no'} |", flush=True)
    print()
    print("CPU seconds (time.process_time: less sensitive than wall time to a shared machine), "
          f"one process, the routes interleaved, median of {args.repeats}; load average "
          f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("| problem | points | 0.6.0 before round 3 s (every block, per-order P.auc) | "
          "main s (every block) | now s (useful blocks, bound) | main / now | s per point now | "
          "same points |")
    print("|---|---|---|---|---|---|---|---|")
    cases = [(9, 3, 0), (9, 3, 1), (9, 3, 2), (12, 2, 0)] + [(14, 2, s) for s in args.seeds] + [
        (10, 3, s) for s in args.seeds]
    for n, K, seed in cases:
        P = FiniteProblem.random(n, K, seed=seed)
        tb, tm, tn = [], [], []
        for _ in range(args.repeats):
            t0 = time.process_time()
            B = old_exact_frontier(P) if n <= 9 or n == 12 else None
            t1 = time.process_time()
            M = main_exact_frontier(P)
            t2 = time.process_time()
            F = exact_frontier(P, method="dp", dp_max_n=max(n, DP_MAX_N))
            t3 = time.process_time()
            tb.append(t1 - t0)
            tm.append(t2 - t1)
            tn.append(t3 - t2)
        bt, mt, nt = (float(np.median(x)) for x in (tb, tm, tn))
        same_pts = all(X is None or (X.shape == F.shape and bool(np.max(np.abs(X - F)) <= 4e-15))
                       for X in (B, M))
        print(f"| `FiniteProblem.random({n}, {K}, seed={seed})` | {len(F):,} | "
              f"{f'{bt:.2f}' if B is not None else '-'} | {mt:.2f} | {nt:.2f} | {mt / nt:.2f} | "
              f"{nt / len(F):.2e} | {same_pts} |", flush=True)


def _cpu(fn):
    """(CPU seconds, result) of one call (time.process_time: this process only)."""
    c0 = time.process_time()
    out = fn()
    return time.process_time() - c0, out


def merged_copies_frontier(P: FiniteProblem, tol: float = 1e-9) -> np.ndarray:
    """``supported_frontier`` for K = 3 before issue 37's second round: every copy of every
    cell that the walk meets (one per edge side), merged on a grid of ``tol`` every 2**21 rows,
    then within ``tol`` (the route that did not finish at n = 100)."""
    from bipartite.pareto.arrangement import walk_faces

    def distinct(V):
        Q = np.round(V / tol).astype(np.int64)
        o = np.lexsort(Q.T[::-1])
        return V[o[np.concatenate([[True], np.any(np.diff(Q[o], axis=0) != 0, axis=1)])]]

    parts, rows = [], 0
    for lf in walk_faces(P):
        parts.append(lf.V[lf.dim == 2])
        rows += len(parts[-1])
        if rows > 1 << 21:
            parts = [distinct(np.vstack(parts))]
            rows = len(parts[0])
    V = distinct(np.vstack(parts))
    return V[unique_rows(V, tol)]


def supported_table(args) -> None:
    """The issue-37 targets of the supported routines, CPU seconds side by side in one process:
    ``supported_frontier`` (K = 3) by the arrangement walk (now) against the exact frontier it
    used before (``method="frontier"``) and ``exact_frontier``; ``max_min_supported`` by the
    walk against the recursion over faces (``method="faces"``) and ``max_min_point``; the walk
    that takes each cell once against the walk that merged every copy
    (:func:`merged_copies_frontier`) at n = 30, 60, and alone at n = 100; for K = 4, 5 the cells
    of the recursion over flats against the frontier route; and ``frontier_table`` of n = 2
    points with K = 12 labels (issue 35)."""
    from bipartite.pareto import (
        frontier_table,
        max_min_point,
        max_min_supported,
        supported_frontier,
    )

    print(f"Issue 37 (supported routines, K = 3-5) and issue 35 (K = 12): CPU seconds "
          f"(time.process_time), one process, seeds {' '.join(map(str, args.seeds))}; load "
          f"average {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("| problem | call | now (walk) CPU s | before CPU s | exact counterpart CPU s | "
          "now / exact | result | same as before |")
    print("|---|---|---|---|---|---|---|---|")
    for seed in args.seeds:
        P = FiniteProblem.random(8, 3, seed=seed)
        tn, V = _cpu(lambda P=P: supported_frontier(P))
        tb, B = _cpu(lambda P=P: supported_frontier(P, method="frontier"))
        te, F = _cpu(lambda P=P: exact_frontier(P))
        print(f"| `FiniteProblem.random(8, 3, seed={seed})` | supported_frontier | {tn:.3f} | "
              f"{tb:.3f} | {te:.3f} (exact_frontier) | {tn / te:.2f} | {len(V):,} of {len(F):,} "
              f"frontier points | {same(V, B, 1e-9)} |", flush=True)
    for seed in args.seeds:
        P = FiniteProblem.random(30, 3, seed=seed)
        tn, r = _cpu(lambda P=P: max_min_supported(P))
        tb, b = (_cpu(lambda P=P: max_min_supported(P, method="faces")) if not args.skip_milp
                 else (float("nan"), None))
        te, e = _cpu(lambda P=P: max_min_point(P))
        ok = "-" if b is None else str(abs(r.value - b.value) <= 1e-12
                                       and bool(np.allclose(r.auc, b.auc, atol=1e-12)))
        print(f"| `FiniteProblem.random(30, 3, seed={seed})` | max_min_supported | {tn:.3f} | "
              f"{tb:.3f} | {te:.3f} (max_min_point) | {tn / te:.2f} | {r.value:.6f} (max-min "
              f"{e.value:.6f}) | {ok} |", flush=True)
    for n in (30, 60):
        for seed in args.seeds:
            P = FiniteProblem.random(n, 3, seed=seed)
            tn, V = _cpu(lambda P=P: supported_frontier(P))
            tb, B = _cpu(lambda P=P: merged_copies_frontier(P))
            print(f"| `FiniteProblem.random({n}, 3, seed={seed})` | supported_frontier | {tn:.2f} | "
                  f"{tb:.2f} (walk, copies merged) | - | - | {len(V):,} points | "
                  f"{same(V, B, 1e-9)} |", flush=True)
    for seed in args.seeds:
        P = FiniteProblem.random(100, 3, seed=seed)
        tn, V = _cpu(lambda P=P: supported_frontier(P))
        print(f"| `FiniteProblem.random(100, 3, seed={seed})` | supported_frontier | {tn:.1f} | "
              f"over 160 (issue 37 note) | - | - | {len(V):,} points | - |", flush=True)
        tn, r = _cpu(lambda P=P: max_min_supported(P))
        print(f"| `FiniteProblem.random(100, 3, seed={seed})` | max_min_supported | {tn:.1f} | - "
              f"| - | - | {r.value:.6f} | - |", flush=True)
    for n, K in ((5, 4), (6, 4), (7, 4), (5, 5)):
        for seed in args.seeds:
            P = FiniteProblem.random(n, K, seed=seed)
            tn, V = _cpu(lambda P=P: supported_frontier(P))
            tb, B = _cpu(lambda P=P: supported_frontier(P, method="frontier"))
            print(f"| `FiniteProblem.random({n}, {K}, seed={seed})` | supported_frontier | "
                  f"{tn:.2f} (cells of the recursion) | {tb:.2f} (frontier + LP) | - | - | "
                  f"{len(V):,} points | {same(V, B, 1e-9)} |", flush=True)
    P = FiniteProblem.random(2, 12, seed=0)
    tn, T = _cpu(lambda: frontier_table(P))
    print(f"| `FiniteProblem.random(2, 12, seed=0)` | frontier_table (`bipartite frontier`) | "
          f"{tn:.2f} | 32 (issue 35) | - | - | {len(T)} rows | - |", flush=True)


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


def baseline_from_git(rev: str) -> str:
    """A temporary folder holding ``dp.py`` and ``dominance.py`` of git revision ``rev`` (the
    route before a change, for :func:`load_baseline_dp`)."""
    import subprocess
    import tempfile

    folder = tempfile.mkdtemp(prefix="bench_pareto_")
    root = Path(__file__).resolve().parents[1]
    for name in ("dp", "dominance"):
        text = subprocess.run(["git", "-C", str(root), "show", f"{rev}:bipartite/pareto/{name}.py"],
                              check=True, capture_output=True, text=True).stdout
        (Path(folder) / f"{name}.py").write_text(text)
    return folder


def _scale_child(route: str, n: int, K: int, seed: int, limit: float, folder: str | None,
                 out: str, conn) -> None:
    """One exact frontier in a fresh process under ``limit`` CPU seconds (RLIMIT_CPU: the
    process is killed past it): ``route`` "before" (the subset DP of ``folder`` with the bound,
    as exact_frontier ran it) or "now" (``exact_frontier(method="dp")``)."""
    import resource

    from bipartite.pareto.sweep import seed_values

    resource.setrlimit(resource.RLIMIT_CPU, (int(limit), int(limit) + 5))
    P = FiniteProblem.random(n, K, seed=seed)
    c0 = time.process_time()
    if route == "before":
        V, _ = load_baseline_dp(folder)(pair_weight_stack(P), 1e-12, lower=seed_values(P))
        F = V[unique_rows(V, 1e-12)]
    else:
        F = exact_frontier(P, method="dp", dp_max_n=n)
    cpu = time.process_time() - c0
    np.save(out, F)
    conn.send((cpu, len(F), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))
    conn.close()


def exact_scale_table(args) -> None:
    """Issue 37 item 3: ``exact_frontier`` (subset DP) at the sizes past the documented limits,
    the route before (``--baseline-rev``, default the commit before the change) and now, each
    problem in a fresh process under ``--time-limit`` CPU seconds; CPU seconds, points, points
    per CPU second, peak RSS, and whether both routes return the same points (1e-9)."""
    import multiprocessing as mp
    import tempfile

    folder = baseline_from_git(args.baseline_rev) if args.baseline_rev != "none" else None
    limit = args.time_limit
    ctx = mp.get_context("spawn")
    cfg = [(12, 3), (13, 3), (16, 2), (17, 2), (18, 2)]
    if args.configs:
        cfg = [tuple(int(x) for x in c.split(":")) for c in args.configs]
    tmp = tempfile.mkdtemp(prefix="bench_scale_")
    print(f"CPU limit {limit:g} s per run (RLIMIT_CPU), each run in a fresh process; before = "
          f"bipartite/pareto/{{dp,dominance}}.py at {args.baseline_rev}")
    print()
    print("| problem | route | points | CPU s | points per CPU s | peak RSS MB | same points | "
          "load average (1 min) |")
    print("|---|---|---|---|---|---|---|---|")
    for seed in args.seeds:
        for n, K in cfg:
            res = {}
            for route in (["before"] if folder else []) + ["now"]:
                out = f"{tmp}/{route}_{n}_{K}_{seed}.npy"
                a, b = ctx.Pipe(False)
                proc = ctx.Process(target=_scale_child,
                                   args=(route, n, K, seed, limit, folder, out, b))
                proc.start()
                proc.join(4 * limit + 120)
                if proc.is_alive():
                    proc.kill()
                    proc.join()
                got = a.recv() if a.poll(0) else None
                res[route] = None if got is None else np.load(out)
                load = os.getloadavg()[0]
                cmp = ""
                if route == "now" and res.get("before") is not None and got is not None:
                    A, B = res["before"], res["now"]
                    cmp = str(bool(A.shape == B.shape and np.max(np.abs(A - B), initial=0.0)
                                   <= 1e-9))
                if got is None:
                    row = f"- | >{limit:g} | - | - |"
                else:
                    cpu, pts, rss = got
                    row = f"{pts:,} | {cpu:.1f} | {pts / cpu:,.0f} | {rss:.0f} |"
                print(f"| `FiniteProblem.random({n}, {K}, seed={seed})` | {route} | {row} {cmp} | "
                      f"{load:.2f} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--time-limit", type=float, default=120.0)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--baseline-dir", help="folder with a previous dp.py and dominance.py")
    ap.add_argument("--large", action="store_true", help="also n = 13, 14 (K = 2)")
    ap.add_argument("--configs", nargs="+", metavar="N:K",
                    help="the (n, K) rows of the exact table (default: 6:2 7:2 8:2 10:2 12:2 "
                         "5:3 6:3 8:3 9:3)")
    ap.add_argument("--skip-milp", action="store_true")
    ap.add_argument("--skip-eps", action="store_true")
    ap.add_argument("--repeats", type=int, default=1,
                    help="repeats of the interleaved CPU-time table of --targets (median)")
    ap.add_argument("--before", action="store_true",
                    help="with --targets: also the frontier targets by the DP before issue 23's "
                         "round 3 (every tied block, no bound), each under --time-limit")
    ap.add_argument("--targets", action="store_true",
                    help="only the issue-23 targets (frontier K = 2, n = 16; K = 3, n = 10; "
                         "max_min_point n = 100), with --time-limit 60 --seeds 0 1 2")
    ap.add_argument("--supported", action="store_true",
                    help="only the issue-37 table of the supported routines (K = 3; part of "
                         "--targets); --skip-milp skips the slow max_min_supported(method="
                         "'faces') column")
    ap.add_argument("--exact-scale", action="store_true",
                    help="only the issue-37 table of exact_frontier past the documented limits "
                         "(12:3 13:3 16:2 17:2 18:2 unless --configs), before and now, "
                         "--time-limit CPU seconds per run")
    ap.add_argument("--baseline-rev", default="f05f233",
                    help="with --exact-scale: the git revision of the route before ('none': "
                         "only now)")
    args = ap.parse_args()
    baseline = load_baseline_dp(args.baseline_dir) if args.baseline_dir else None
    print(f"{sys.argv[0]} {' '.join(sys.argv[1:])}; {os.cpu_count()} cores, load average "
          f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.exact_scale:
        exact_scale_table(args)
        return
    if args.supported:
        supported_table(args)
        return
    if args.targets:
        targets_table(args, baseline)
        print()
        supported_table(args)
        return
    exact_table(args, baseline)
    if not args.skip_eps:
        print()
        eps_table(args)


if __name__ == "__main__":
    main()
