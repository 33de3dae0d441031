"""The default report at scale (issue 26 item 2): ``diagnose`` on n = 5·10⁶ rows with query ids,
two labels and two scorers, against one ``np.sort`` of the score column, timed in turn in one
process (medians of the interleaved repeats), with the load average before and after.

Target: the default report (analytic intervals, ``n_boot = 0``) takes at most 30 sorts (each
repeat's sort is the faster of one timed before and one after the reports). Also
timed, in the same run: the query bootstrap from the per-query placement sums (``n_boot =
1000``), and, with ``--before DIR`` (a checkout of the 0.5.0 code, e.g. main before this
change), the 0.5.0 report (its default, ``n_boot = 1000``) in a subprocess that imports that
checkout and times its own ``np.sort`` beside it, at ``--before-n`` rows (the 0.5.0 report
took 25 minutes to hours at 5·10⁶ rows), beside this version on the same rows.

The data: queries of 100 rows on average (sorted by query id, as a log is), labels with
priors 0.3 and 0.05, scores with a per-query offset; generated here, never stored.

With ``--against DIR`` (a checkout of another version, e.g. main before a change), that
version's default report runs on the same rows, interleaved with this one: each repeat times
this version (``np.sort``, then the report) in this process, then the other in a subprocess
that reads the same rows from a Parquet file and times its own ``np.sort`` beside its reports
(the default, and the bootstrap with ``--n-boot``).

    python benchmarks/bench_report.py [--n 5e6] [--repeats 3] [--before ../main --before-n 2e5]
    python benchmarks/bench_report.py --n 5e6 --repeats 3 --n-boot 0 --against /path/to/main

With ``--routes K`` (and ``--n-boot``), only the bootstrap step of the report is timed, side by
side in this process with K labels: the win rates' replicates from the pairs' placement sums of
the one walk (what the report does up to ten labels) against the same sums built again by the
whole-array route (``_pairs.pair_sums``, what it did before), interleaved repeats, medians.

    python benchmarks/bench_report.py --n 1e6 --repeats 5 --n-boot 200 --routes 4

With ``--cpu-targets``, issue 37 item 4's two cases in CPU time (``time.process_time``), side
by side in this process (interleaved repeats, medians): the default report on 2·10⁶ rows with
one scorer (target ≤ 4 × ``np.sort``) and on 5·10⁶ rows with three scorers (≤ 6 ×), each beside
``np.sort`` of one score column (the faster of one before and one after the report) and, for
scale, ``np.argsort`` of it (one argsort is the least a report that ranks rows can do).

    python benchmarks/bench_report.py --cpu-targets --repeats 3

With ``--cpu-targets --against DIR``, the same cases for this checkout and the checkout DIR
(e.g. main before a change), each in a subprocess of its own on the same rows, interleaved.

    python benchmarks/bench_report.py --cpu-targets --repeats 5 --against /work/main

With ``--cpu-targets --steps``, the first case (2·10⁶ rows, one scorer) only, with a CPU-time
timer around each step of the report (reading the columns, the masses, the scorer's sorted
rows, its walk, its near ties, the point estimates, the per-query table, the other tables; the
functions wrapped where ``_diagnose`` and ``_scan`` call them), medians over the repeats, beside
``np.sort``; the steps nest (``scorer_stats`` holds the sorted rows, the walk and the near ties),
and the rest is what no timer covers.

    python benchmarks/bench_report.py --cpu-targets --steps --repeats 11
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
import warnings

import numpy as np
import pandas as pd
from _workers import ask_in_turn, start

from bipartite.diagnostics import diagnose


def make_data(n: int, seed: int = 0) -> pd.DataFrame:
    """n rows, about n/100 queries, two labels, two scorers (float32 scores are cast once)."""
    rng = np.random.default_rng(seed)
    G = max(1, n // 100)
    q = np.sort(rng.integers(0, G, n))
    u = rng.normal(0, 0.5, G)[q]
    y1 = rng.random(n) < 0.3
    y2 = rng.random(n) < 0.05
    return pd.DataFrame({
        "qid": q, "rel": y1.astype(np.int8), "click": y2.astype(np.int8),
        "model": y1 + 1.5 * y2 + u + rng.normal(size=n),
        "bm25": y1 + 0.3 * y2 + u + rng.normal(size=n)})


KW = dict(scores=["model", "bm25"], labels=["rel", "click"], qid="qid")

_BEFORE = textwrap.dedent("""
    import json, sys, time, warnings
    import numpy as np, pandas as pd
    sys.path.insert(0, sys.argv[1])
    import bipartite
    from bipartite.diagnostics import diagnose
    warnings.simplefilter("ignore")
    df = pd.read_parquet(sys.argv[2])
    s = df["model"].to_numpy()
    out = {"file": bipartite.__file__, "n": len(df)}
    t = time.perf_counter(); np.sort(s); out["sort"] = time.perf_counter() - t
    t = time.perf_counter()
    diagnose(df, scores=["model", "bm25"], labels=["rel", "click"], qid="qid", n_boot=int(sys.argv[3]))
    out["report"] = time.perf_counter() - t
    t = time.perf_counter(); np.sort(s); out["sort"] = min(out["sort"], time.perf_counter() - t)
    print(json.dumps(out))
""")


def run_other(path: str, f: str, n_boot: int) -> dict:
    """One timing of the report of the checkout at ``path`` on the rows in the Parquet file
    ``f``, in a subprocess, beside its own ``np.sort`` (the faster of one before and one
    after)."""
    r = subprocess.run([sys.executable, "-c", _BEFORE, path, f, str(n_boot)],
                       capture_output=True, text=True, env={**os.environ, "PYTHONPATH": path})
    if r.returncode:
        raise RuntimeError(r.stderr[-2000:])
    return json.loads(r.stdout.strip().splitlines()[-1])


def before(path: str, df: pd.DataFrame, n_boot: int, timeout: float) -> dict | None:
    """The 0.5.0 report in a subprocess importing the checkout at ``path`` (None: timed out)."""
    with tempfile.TemporaryDirectory() as tmp:
        f = os.path.join(tmp, "scores.parquet")
        df.to_parquet(f)
        try:
            r = subprocess.run([sys.executable, "-c", _BEFORE, path, f, str(n_boot)],
                               capture_output=True, text=True, timeout=timeout,
                               env={**os.environ, "PYTHONPATH": path})
        except subprocess.TimeoutExpired:
            return None
    if r.returncode:
        raise RuntimeError(r.stderr[-2000:])
    return json.loads(r.stdout.strip().splitlines()[-1])


def routes(df: pd.DataFrame, K: int, n_boot: int, repeats: int) -> None:
    """The bootstrap step (``_diagnose._bootstrap``) with the pairs' sums of the one walk against
    the whole-array route's, on ``df`` with K labels (the two of :func:`make_data` and K − 2
    more), interleaved in this process."""
    import bipartite.diagnostics._diagnose as D
    from bipartite.diagnostics._progress import Progress

    rng, labels = np.random.default_rng(1), list(KW["labels"])
    for k in range(2, K):
        df[f"y{k}"] = (rng.random(len(df)) < 0.1 + 0.05 * k).astype(np.int8)
        labels.append(f"y{k}")
    d = D._read(df, KW["scores"], labels[:K], "qid", None, None, False)
    bar = Progress(False)
    est = D._estimates(d, 1e-6, "pairs", bar)
    walk = dict(est.pair_sums)
    if not any(walk.values()):
        raise SystemExit("the one walk's pair sums are not kept here (too large, or K > 10)")
    times: dict = {"one walk's pair sums": [], "whole-array pair_sums, again": []}
    load0 = os.getloadavg()
    for _ in range(repeats):
        for k in times:
            est.pair_sums = walk if k.startswith("one") else {}
            t0 = time.perf_counter()
            D._bootstrap(d, est, n_boot, np.random.default_rng(0), bar, "pairs")
            times[k].append(time.perf_counter() - t0)
    med = {k: float(np.median(v)) for k, v in times.items()}
    print(f"n = {len(df):,} rows, {d.G:,} queries, {K} labels ({len(d.pairs)} pairs), 2 scorers; "
          f"the report's bootstrap step, n_boot = {n_boot}; {repeats} interleaved repeats "
          f"(medians); load average {load0[0]:.2f} before, {os.getloadavg()[0]:.2f} after\n")
    print("| win rates' pair sums | bootstrap step (s) | × one walk |\n|---|---|---|")
    for k, v in med.items():
        print(f"| {k} | {v:.3g} | {v / next(iter(med.values())):.3g} |")


#: issue 37 item 4: (rows, scorers, target × np.sort, CPU time).
CPU_TARGETS = ((2_000_000, 1, 4.0), (5_000_000, 3, 6.0))


_CPU_WORKER = textwrap.dedent("""
    import json, sys, time, warnings
    sys.path.insert(0, sys.argv[1])
    sys.path.insert(1, sys.argv[2])
    import numpy as np
    import bipartite
    from bipartite.diagnostics import diagnose
    from bench_report import case
    warnings.simplefilter("ignore")
    assert bipartite.__file__.startswith(sys.argv[1]), bipartite.__file__
    df, kw = case(int(sys.argv[3]), int(sys.argv[4]))
    s = df["model"].to_numpy()
    diagnose(df, **kw)  # warm
    print(json.dumps({"file": bipartite.__file__}), flush=True)
    cpu = time.process_time
    for _ in sys.stdin:
        t0 = cpu(); np.sort(s); t1 = cpu(); np.argsort(s); t2 = cpu()
        diagnose(df, **kw); t3 = cpu(); np.sort(s); t4 = cpu()
        print(json.dumps({"sort": min(t1 - t0, t4 - t3), "argsort": t2 - t1,
                          "report": t3 - t2}), flush=True)
""")


def case(n: int, k: int) -> tuple[pd.DataFrame, dict]:
    """The rows and ``diagnose`` arguments of a :data:`CPU_TARGETS` case: :func:`make_data`
    with ``k`` scorers (a third, when asked, from the first plus noise)."""
    df = make_data(n)
    if k > 2:
        df["third"] = df["model"] + np.random.default_rng(5).normal(size=n)
    return df, dict(KW, scores=["model", "bm25", "third"][:k])


def cpu_against(repeats: int, other: str) -> None:
    """:func:`cpu_targets` of this checkout and of the checkout ``other``, each in a subprocess
    of its own (the same rows, made by this file's :func:`make_data`), timed in turn: every
    repeat asks each for ``np.sort``, ``np.argsort`` and the report (the order alternating
    between repeats); medians."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    bench = os.path.dirname(os.path.abspath(__file__))
    trees = {"this": here, "other": os.path.abspath(other)}
    print(f"CPU time (time.process_time), {repeats} interleaved repeats (medians); numpy "
          f"{np.__version__}; this: {here}, other: {trees['other']}; load average "
          f"{os.getloadavg()[0]:.2f} before\n")
    print("| rows | scorers | version | np.sort (s) | np.argsort (s) | report (s) | × np.sort | "
          "× np.argsort | target × np.sort |\n|---|---|---|---|---|---|---|---|---|")
    for n, k, target in CPU_TARGETS:
        t = ask_in_turn(start(_CPU_WORKER, trees, bench, str(n), str(k)), repeats)
        for name in t:
            m = {key: float(np.median([x[key] for x in t[name]]))
                 for key in ("sort", "argsort", "report")}
            r = m["report"] / m["sort"]
            print(f"| {n:,} | {k} | {name} | {m['sort']:.3g} | {m['argsort']:.3g} | "
                  f"{m['report']:.3g} | {r:.1f} | {m['report'] / m['argsort']:.1f} | ≤ "
                  f"{target:g}: {'met' if r <= target else 'NOT met'} |")
    print(f"\n(load average {os.getloadavg()[0]:.2f} after; {os.cpu_count()} CPUs)")


def _cpu_rounds(s: np.ndarray, report, repeats: int) -> dict:
    """Medians (CPU s) over ``repeats`` rounds of ``np.sort(s)``, ``np.argsort(s)`` and
    ``report()`` in turn, then ``np.sort(s)`` again (the faster of the two sorts counts)."""
    cpu = time.process_time
    t: dict = {"sort": [], "argsort": [], "report": []}
    for _ in range(repeats):
        t0 = cpu()
        np.sort(s)
        t1 = cpu()
        np.argsort(s)
        t2 = cpu()
        report()
        t3 = cpu()
        np.sort(s)
        t4 = cpu()
        t["sort"].append(min(t1 - t0, t4 - t3))
        t["argsort"].append(t2 - t1)
        t["report"].append(t3 - t2)
    return {key: float(np.median(v)) for key, v in t.items()}


def cpu_targets(repeats: int) -> None:
    """The report's CPU time against ``np.sort`` (and ``np.argsort``) of one score column in
    the cases of :data:`CPU_TARGETS`, interleaved in this process."""
    print(f"CPU time (time.process_time), {repeats} interleaved repeats (medians); "
          f"numpy {np.__version__}; load average {os.getloadavg()[0]:.2f} before\n")
    print("| rows | scorers | np.sort (s) | np.argsort (s) | report (s) | × np.sort | "
          "× np.argsort | target × np.sort |\n|---|---|---|---|---|---|---|---|")
    for n, k, target in CPU_TARGETS:
        df, kw = case(n, k)
        s = df["model"].to_numpy()
        diagnose(df, **kw)  # warm
        m = _cpu_rounds(s, lambda: diagnose(df, **kw), repeats)
        r = m["report"] / m["sort"]
        print(f"| {n:,} | {k} | {m['sort']:.3g} | {m['argsort']:.3g} | {m['report']:.3g} | "
              f"{r:.1f} | {m['report'] / m['argsort']:.1f} | ≤ {target:g}: "
              f"{'met' if r <= target else 'NOT met'} |")
    print(f"\n(load average {os.getloadavg()[0]:.2f} after; {os.cpu_count()} CPUs)")


#: The report's steps timed by ``--steps``: (module, function) where the report calls them.
STEPS = [("_diagnose", "_read"), ("_diagnose", "masses"), ("_diagnose", "scorer_stats"),
         ("_scan", "sorted_rows"), ("_scan", "walk_sums"), ("_scan", "near_sums"),
         ("_scan", "within_result"), ("_diagnose", "_point_estimates"),
         ("_diagnose", "per_query_table"), ("_diagnose", "frames")]


def cpu_steps(repeats: int) -> None:
    """The report's CPU time per step (:data:`STEPS`, each wrapped by a timer where the report
    calls it) on the first :data:`CPU_TARGETS` case, beside ``np.sort`` (and ``np.argsort``
    between reports, as :func:`cpu_targets` does); medians."""
    import importlib

    cpu = time.process_time
    n, k, _ = CPU_TARGETS[0]
    df, kw = case(n, k)
    s = df["model"].to_numpy()
    spent: dict = {f: [] for _, f in STEPS}

    def timer(name, fn):
        def timed(*a, **kwa):
            t0 = cpu()
            out = fn(*a, **kwa)
            spent[name].append(cpu() - t0)
            return out
        return timed

    for mod, f in STEPS:
        m = importlib.import_module(f"bipartite.diagnostics.{mod}")
        setattr(m, f, timer(f, getattr(m, f)))
    diagnose(df, **kw)  # warm
    for v in spent.values():
        v.clear()
    t = _cpu_rounds(s, lambda: diagnose(df, **kw), repeats)
    med = {key: 1000 * v for key, v in t.items()}
    med.update({key: 1000 * float(np.median(v)) for key, v in spent.items()})
    print(f"CPU ms (time.process_time), {n:,} rows, {k} scorer, medians of {repeats}; numpy "
          f"{np.__version__}; load average {os.getloadavg()[0]:.2f}\n")
    print("| step | ms | × np.sort |\n|---|---|---|")
    for key in ["sort", "report"] + [f for _, f in STEPS]:
        name = {"sort": "np.sort (the floor)", "report": "the whole report"}.get(key, key)
        print(f"| {name} | {med[key]:.1f} | {med[key] / med['sort']:.2f} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=float, default=5e6)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--n-boot", type=int, default=1000,
                    help="replicates of the bootstrap row (0: skip it)")
    ap.add_argument("--before", default=None, metavar="DIR",
                    help="a checkout of the 0.5.0 code to time beside (subprocess)")
    ap.add_argument("--before-n", type=float, default=2e5)
    ap.add_argument("--before-timeout", type=float, default=300)
    ap.add_argument("--against", default=None, metavar="DIR",
                    help="a checkout whose default report runs on the same rows, interleaved")
    ap.add_argument("--routes", type=int, default=None, metavar="K",
                    help="time only the bootstrap step, one walk's pair sums against the "
                         "whole-array route's, with K labels (2..10)")
    ap.add_argument("--cpu-targets", action="store_true",
                    help="issue 37 item 4's two cases in CPU time, against np.sort")
    ap.add_argument("--steps", action="store_true",
                    help="with --cpu-targets: the first case's CPU time per step of the report")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    if args.cpu_targets and args.steps:
        return cpu_steps(args.repeats)
    if args.cpu_targets:
        return (cpu_against(args.repeats, args.against) if args.against else
                cpu_targets(args.repeats))
    n = int(args.n)
    df = make_data(n)
    if args.routes:
        return routes(df, args.routes, args.n_boot, args.repeats)
    s = df["model"].to_numpy()
    load0 = os.getloadavg()
    fns = {"np.sort(score)": lambda: np.sort(s),
           "diagnose, default (analytic, n_boot=0)": lambda: diagnose(df, **KW)}
    if args.n_boot:
        fns[f"diagnose, query bootstrap (n_boot={args.n_boot})"] = lambda: diagnose(
            df, n_boot=args.n_boot, **KW)
    times: dict = {k: [] for k in fns}
    other: list = []
    with tempfile.TemporaryDirectory() as tmp:
        if args.against:
            f_rows = os.path.join(tmp, "scores.parquet")
            df.to_parquet(f_rows)
        for _ in range(args.repeats):
            for k, f in fns.items():
                t0 = time.perf_counter()
                f()
                times[k].append(time.perf_counter() - t0)
            t0 = time.perf_counter()  # the sort again, after the reports: the faster counts,
            np.sort(s)                # as in the --against subprocess
            times["np.sort(score)"][-1] = min(times["np.sort(score)"][-1],
                                              time.perf_counter() - t0)
            if args.against:  # the same reports (default, and bootstrap) of the other version
                other.append({nb: run_other(args.against, f_rows, nb)
                              for nb in dict.fromkeys([0, args.n_boot])})
    med = {k: float(np.median(v)) for k, v in times.items()}
    old = None
    if args.before:
        nb = int(args.before_n)
        small = make_data(nb)
        old = {"n": nb, "n_boot=1000": before(args.before, small, 1000, args.before_timeout),
               "n_boot=0": before(args.before, small, 0, args.before_timeout)}
        ss = small["model"].to_numpy()
        now = {"np.sort": lambda: np.sort(ss), "n_boot=0": lambda: diagnose(small, **KW),
               "n_boot=1000": lambda: diagnose(small, n_boot=1000, **KW)}
        new = {k: [] for k in now}
        for _ in range(args.repeats):
            for k, f in now.items():
                t0 = time.perf_counter()
                f()
                new[k].append(time.perf_counter() - t0)
        old["now"] = {k: float(np.median(v)) for k, v in new.items()}
    load1 = os.getloadavg()
    base = med["np.sort(score)"]
    G = df["qid"].nunique()
    print(f"n = {n:,} rows, {G:,} queries, 2 labels, 2 scorers; {args.repeats} interleaved "
          f"repeats (medians); load average {load0[0]:.2f} before, {load1[0]:.2f} after "
          f"({os.cpu_count()} CPUs)\n")
    print("| call | time (s) | × np.sort |\n|---|---|---|")
    for k, t in med.items():
        print(f"| {k} | {t:.3g} | {t / base:.3g} |")
    if other:
        srt = float(np.median([r["sort"] for o in other for r in o.values()]))
        print(f"| {args.against}: np.sort(score), in its process | {srt:.3g} | 1 |")
        for nb in other[0]:
            rep = float(np.median([o[nb]["report"] for o in other]))
            what = "default (analytic, n_boot=0)" if nb == 0 else f"query bootstrap (n_boot={nb})"
            print(f"| {args.against}: diagnose, {what} | {rep:.3g} | {rep / srt:.3g} |")
        print(f"\n(each repeat: this version, then {args.against} in a subprocess, its reports "
              f"in the same order; {other[0][0]['file']})")
    target = med["diagnose, default (analytic, n_boot=0)"] / base
    print(f"\ntarget: default report ≤ 30 × np.sort: {target:.1f} × "
          f"({'met' if target <= 30 else 'NOT met'})")
    if old is not None:
        print(f"\n0.5.0 report ({args.before}), n = {old['n']:,} rows "
              f"({old['n'] // 100:,} queries), in a subprocess with its own np.sort:\n")
        print("| call | time (s) | × np.sort |\n|---|---|---|")
        for k in ("n_boot=1000", "n_boot=0"):
            r = old[k]
            print(f"| 0.5.0 diagnose, {k}{' (its default)' if k == 'n_boot=1000' else ''} | "
                  + (f"{r['report']:.3g} | {r['report'] / r['sort']:.3g} |" if r else
                     f"> {args.before_timeout:g} (stopped) | – |"))
        now = old["now"]
        for k in ("n_boot=0", "n_boot=1000"):
            print(f"| this version, {k}{' (its default)' if k == 'n_boot=0' else ''}, same "
                  f"rows, this process | {now[k]:.3g} | {now[k] / now['np.sort']:.3g} |")


if __name__ == "__main__":
    main()
