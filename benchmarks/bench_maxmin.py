"""Benchmark and frequency study of the max-min AUC point (docs/theory.md §13).

Two tables.

**Frequency** (``--part freq``): on ``FiniteProblem.random(n, K, seed)`` for the given seeds, how
often the max-min point of all weak orders (:func:`max_min_point`, exact subset DP for n ≤ 12)
is *unsupported* — no loss-aggregation scorer ``f_a`` reaches its value
(:func:`max_min_supported`; gap > 1e-9) — and the mean gap ``max-min − best supported min``,
over all problems and over the unsupported ones; and the same when only generic weightings
(off every tie hyperplane) are allowed. Default: K = 2 at n = 6, 8, 10 and K = 3 at
n = 6, seeds 0–99.

**Performance** (``--part perf``): wall time of :func:`max_min_point` with ``method="milp"`` (one
max-min MILP plus the lexicographic second stage) at n = 20, 30, 40 (K = 2), and, side by side in
the same run where the subset DP can run (n ≤ 12), the exact-frontier route ``method="dp"``, with
whether both return the same value (within 1e-7). The time of :func:`max_min_supported` (the
sweep, used as the MILP's warm start) is shown too.

**Crossover** (``--part crossover``): :func:`max_min_point` with ``method="dp"`` and
``method="milp"`` side by side in one run on ``FiniteProblem.random(n, K, seed)`` for n = 4..14,
K = 2, 3, seeds 0-2 (the DP up to its limit ``dp_limit(K)``; each run under ``--time-limit``), the
ratio DP / MILP and whether both give the same value (within 1e-7). ``max_min_point(method="auto")``
takes its rule from this table.

**Scale** (``--part scale``): :func:`max_min_point` (``method="milp"``, the certified restriction
of docs/theory.md §13.1) on the targets of issue 37 item 2: ``FiniteProblem.random(300, 2, seed)``
for seeds 0-2, ``(1000, 2)`` seed 0 and ``(300, 3)`` seed 0; each in a fresh process (so that its
peak RSS is its own), with CPU seconds, wall seconds, peak RSS, the load average, the value and
the certificate (``UB − t*``, the loss budget θ, the free binaries). ``--out`` also writes the
table to a file (``benchmarks/results/maxmin_scale.md``); ``--cases N:K:SEED ...`` picks other
problems.

Usage::

    python benchmarks/bench_maxmin.py                       # both tables
    python benchmarks/bench_maxmin.py --part freq --seeds 0 1 2
    python benchmarks/bench_maxmin.py --part perf --sizes 8 10 30 --perf-seeds 0 1
    python benchmarks/bench_maxmin.py --part crossover --time-limit 60
    python benchmarks/bench_maxmin.py --part scale --out benchmarks/results/maxmin_scale.md
    python benchmarks/bench_maxmin.py --part scale --cases 300:3:1 300:3:2 --time-limit 900
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from bipartite.pareto import dp_limit, max_min_point, max_min_supported, reachable_orders
from bipartite.population import FiniteProblem


def frequency(configs: list[tuple[int, int]], seeds: list[int]) -> None:
    print("Unsupported max-min points on FiniteProblem.random(n, K, seed), "
          f"seeds {seeds[0]}..{seeds[-1]} ({len(seeds)} problems per row)")
    print(f"{'K':>2} {'n':>3} {'unsupported':>12} {'mean gap':>10} {'mean gap | >0':>14} "
          f"{'max gap':>9} {'tie best':>9} {'unsup. generic':>15} {'mean gap gen.':>14} "
          f"{'time s':>7}")
    for K, n in configs:
        gaps, gen_gaps, ties = [], [], 0
        t0 = time.perf_counter()
        for s in seeds:
            P = FiniteProblem.random(n, K, seed=s)
            top = max_min_point(P)
            sup = max_min_supported(P)
            gaps.append(max(top.value - sup.value, 0.0))
            ties += sup.tie
            # generic weightings only (the cells of the arrangement: no tie orders)
            _, S, dim = reachable_orders(P)
            gen = max(float(np.min(P.auc(s))) for s, d in zip(S, dim, strict=True) if d == K - 1)
            gen_gaps.append(max(top.value - gen, 0.0))
        g, gg = np.array(gaps), np.array(gen_gaps)
        pos = g > 1e-9
        cond = f"{g[pos].mean():.5f}" if pos.any() else "-"
        print(f"{K:>2} {n:>3} {int(pos.sum()):>5} / {len(g):<4} {g.mean():>10.5f} {cond:>14} "
              f"{g.max():>9.5f} {ties:>9} {int((gg > 1e-9).sum()):>9} / {len(gg):<3} "
              f"{gg.mean():>14.5f} {time.perf_counter() - t0:>7.1f}", flush=True)
    print("('tie best': problems whose best loss-aggregation scorer is a tie order, i.e. needs a "
          "weighting exactly on a breakpoint; 'generic': the same counts when only generic "
          "weightings, off every breakpoint, are allowed)\n")


def performance(sizes: list[int], seeds: list[int], time_limit: float) -> None:
    print(f"max_min_point, K = 2, FiniteProblem.random(n, 2, seed); time limit {time_limit:g} s")
    print(f"{'n':>3} {'seed':>4} {'milp s':>8} {'dp s':>8} {'same':>5} {'sweep s':>8} "
          f"{'max-min':>10} {'supported':>10} {'gap':>9}")
    for n in sizes:
        for s in seeds:
            P = FiniteProblem.random(n, 2, seed=s)
            t0 = time.perf_counter()
            sup = max_min_supported(P)
            t_sup = time.perf_counter() - t0
            t0 = time.perf_counter()
            try:
                top = max_min_point(P, method="milp", time_limit=time_limit)
                t_milp = f"{time.perf_counter() - t0:.2f}"
            except TimeoutError:
                top, t_milp = None, ">limit"
            t_dp, same = "", ""
            if n <= 12:
                t0 = time.perf_counter()
                ref = max_min_point(P, method="dp", time_limit=time_limit)
                t_dp = f"{time.perf_counter() - t0:.2f}"
                if top is not None:
                    same = str(abs(ref.value - top.value) <= 1e-7)
                top = top or ref
            val = f"{top.value:.6f}" if top is not None else "-"
            gap = f"{max(top.value - sup.value, 0):.2e}" if top is not None else "-"
            print(f"{n:>3} {s:>4} {t_milp:>8} {t_dp:>8} {same:>5} {t_sup:>8.3f} {val:>10} "
                  f"{sup.value:>10.6f} {gap:>9}", flush=True)


def _timed(fn, time_limit: float):
    t0 = time.perf_counter()
    try:
        out = fn()
    except TimeoutError:
        out = None
    return time.perf_counter() - t0, out


def crossover(sizes: list[int], Ks: list[int], seeds: list[int], time_limit: float) -> None:
    """Wall and CPU seconds (``time.process_time``: less sensitive to a shared machine) of both
    methods, side by side; the ratio is of CPU seconds."""
    print(f"max_min_point: method='dp' vs method='milp', FiniteProblem.random(n, K, seed); "
          f"time limit {time_limit:g} s per run; load average "
          f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'K':>2} {'n':>3} {'seed':>4} {'dp s':>8} {'milp s':>8} {'dp cpu':>8} "
          f"{'milp cpu':>8} {'dp/milp':>8} {'same':>5}")
    for K in Ks:
        for n in sizes:
            for s in seeds:
                P = FiniteProblem.random(n, K, seed=s)
                c0 = time.process_time()
                tm, M = _timed(lambda P=P: max_min_point(P, method="milp", time_limit=time_limit),
                               time_limit)
                cm, cd = time.process_time() - c0, 0.0
                td, D = ("", None)
                if n <= dp_limit(K):
                    c0 = time.process_time()
                    td, D = _timed(lambda P=P: max_min_point(P, method="dp",
                                                             time_limit=time_limit), time_limit)
                    cd = time.process_time() - c0
                both = D is not None and M is not None
                ratio = f"{cd / cm:8.2f}" if both else ""
                same = str(abs(D.value - M.value) <= 1e-7) if both else ""
                fd = "-" if td == "" else (f"{td:8.3f}" if D is not None else ">limit")
                fm = f"{tm:8.3f}" if M is not None else ">limit"
                fcd = "-" if td == "" else f"{cd:8.3f}"
                print(f"{K:>2} {n:>3} {s:>4} {fd:>8} {fm:>8} {fcd:>8} {cm:8.3f} {ratio:>8} "
                      f"{same:>5}", flush=True)


SCALE_CASES = [(300, 2, 0), (300, 2, 1), (300, 2, 2), (1000, 2, 0), (300, 3, 0)]


def _scale_one(n: int, K: int, seed: int, time_limit: float, queue) -> None:
    """One target in a fresh process: CPU and wall seconds, peak RSS (this process only)."""
    import resource

    P = FiniteProblem.random(n, K, seed=seed)
    load0 = os.getloadavg()[0]
    c0, w0 = time.process_time(), time.perf_counter()
    try:
        r = max_min_point(P, method="milp", time_limit=time_limit)
        out = {"value": r.value, "cert": r.certificate}
    except TimeoutError:
        out = {"value": None, "cert": None}
    out.update(cpu=time.process_time() - c0, wall=time.perf_counter() - w0,
               rss=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20,  # KiB -> GiB
               load=(load0, os.getloadavg()[0]))
    queue.put(out)


def scale(time_limit: float, out_path: str | None, cases=SCALE_CASES) -> None:
    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    lines = [f"max_min_point(FiniteProblem.random(n, K, seed), method='milp'), one fresh process "
             f"each; time limit {time_limit:g} s wall; {os.cpu_count()} cores",
             "",
             "| n | K | seed | CPU s | wall s | peak RSS GiB | load (start, end) | value | "
             "UB − t* | θ | free binaries |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    print("\n".join(lines), flush=True)
    for n, K, seed in cases:
        q = ctx.Queue()
        p = ctx.Process(target=_scale_one, args=(n, K, seed, time_limit, q))
        p.start()
        r = q.get()
        p.join()
        c = r["cert"]
        val = "timeout" if r["value"] is None else f"{r['value']:.13f}"
        cert = ("| - | - | -" if c is None else
                f"| {c.ub - c.t_best:.2e} | {c.theta:.2e} | {c.n_free}")
        line = (f"| {n} | {K} | {seed} | {r['cpu']:.1f} | {r['wall']:.1f} | {r['rss']:.2f} | "
                f"{r['load'][0]:.1f}, {r['load'][1]:.1f} | {val} {cert} |")
        lines.append(line)
        print(line, flush=True)
    if out_path:
        with open(out_path, "w") as fh:
            fh.write("# max_min_point at scale (issue 37 item 2)\n\n"
                     f"`python benchmarks/bench_maxmin.py --part scale --time-limit "
                     f"{time_limit:g} --out {out_path}`\n\n" + "\n".join(lines) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--part", choices=["freq", "perf", "both", "crossover", "scale"],
                    default="both")
    ap.add_argument("--out", default=None, help="--part scale: also write the table here")
    ap.add_argument("--cases", nargs="+", default=None, metavar="N:K:SEED",
                    help="--part scale: the problems (default: the issue-37 targets, "
                         "SCALE_CASES)")
    ap.add_argument("--seeds", type=int, nargs="+", default=list(range(100)),
                    help="seeds of the frequency table")
    ap.add_argument("--sizes", type=int, nargs="+", default=[8, 10, 12, 20, 30, 40],
                    help="n of the performance table")
    ap.add_argument("--perf-seeds", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--time-limit", type=float, default=None,
                    help="seconds per run (default 300; 600 for --part scale)")
    ap.add_argument("--crossover-sizes", type=int, nargs="+", default=list(range(4, 15)),
                    help="n of the crossover table (default 4..14)")
    args = ap.parse_args()
    limit = args.time_limit if args.time_limit is not None else 300.0
    if args.part in ("freq", "both"):
        frequency([(2, 6), (2, 8), (2, 10), (3, 6)], args.seeds)
    if args.part in ("perf", "both"):
        performance(args.sizes, args.perf_seeds, limit)
    if args.part == "scale":
        cases = (SCALE_CASES if args.cases is None else
                 [tuple(int(v) for v in c.split(":")) for c in args.cases])
        scale(args.time_limit if args.time_limit is not None else 600.0, args.out, cases)
    if args.part == "crossover":
        crossover(args.crossover_sizes, [2, 3], args.perf_seeds, limit)


if __name__ == "__main__":
    main()
