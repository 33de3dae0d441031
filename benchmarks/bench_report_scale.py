"""The report's statistics out of core on dask, at scale (issue 27 item 4).

Data: ``make_report_data.py`` (two labels ``rel`` and ``click``, a ``qid``, two scorers
``model_a`` (continuous) and ``model_b`` (2 decimals: heavy ties), integer weights), written
as Parquet files of 10⁶ rows into a scratch folder (never committed; reused when present).

For each size, on a ``LocalCluster`` of 2 worker processes (1 thread each) whose memory limits
total ``--memory`` (2 GB; :func:`bipartite._utils.cluster.local_cluster`, which caps the
p2p shuffle's buffers to the limit), timed side by side in one process (interleaved repeats,
medians):

* **ours**: the whole report out of core, :func:`bipartite.diagnostics.diagnose` on the folder
  with the cluster's client (``n_boot=0``): every table — AUC, gAUC, W_{k>j}, Min/Diff AUC,
  labels and dictator, DeLong (clustered by query), paired tests, per-query AUCs — from the
  exact per-query placement sums of :func:`bipartite.diagnostics.placement_stats` (both
  scorers, both labels and the cross pair);
* **sort_values**: dask's own ``sort_values`` of the ``model_a`` column of the same columns
  (read from the same files, every partition computed; the row count checked). When it fails
  or does not finish within ``--baseline-timeout`` seconds (at 10⁸ rows in 2 GB its workers
  may be restarted at 95 % memory again and again: it did so in one run of two) it is
  cancelled, the workers restarted, and the table says so with the reason: ours is still
  timed.

The ratio ours / sort_values is the target (≤ 3×); ours range-partitions each of the two
scorers (a shuffle each; the rows of tied scores stay in place) and shuffles by ``qid`` only the
rows of queries split across partitions (here: the queries at row-group boundaries). Peak memory: the largest total
resident memory of the worker processes (sampled every 50 ms), and the driver's own peak.

Equality: at ``--check-rows`` (default 10⁶) the out-of-core report (a local cluster) is
compared with the in-memory report of the same rows (:func:`bipartite.diagnostics.diagnose` on
the pandas frame), analytic (``n_boot=0``) and with the query bootstrap (``n_boot=200``,
percentile): the largest relative difference of every number of every table is written.

    python benchmarks/bench_report_scale.py [--rows 1e6 1e7] [--rows 1e8] [--data DIR]
        [--repeats 3] [--memory 2GB] [--out benchmarks/results/quick/report_scale.md]

10⁸ rows is opt-in (``--rows 1e8``: about 4 GB of Parquet; the report takes about 10 minutes
on the shared 2-core machine, docs/out_of_core.md).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from make_report_data import make_report_data  # noqa: E402

SCORES, LABELS, QID, WEIGHT = ["model_a", "model_b"], ["rel", "click"], "qid", "weight"


class PeakRSS:
    """Samples, every ``interval`` s, the total resident memory of the given processes."""

    def __init__(self, pids, interval=0.05):
        import psutil

        self.procs = [psutil.Process(p) for p in pids]
        self.interval, self.peak, self._stop = interval, 0, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set():
            total = 0
            for p in self.procs:
                try:
                    total += p.memory_info().rss
                except Exception:  # a worker restarting: skip it this round
                    pass
            self.peak = max(self.peak, total)
            self._stop.wait(self.interval)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def data_folder(root: str, rows: int) -> str:
    out = os.path.join(root, f"report_{rows:.0e}".replace("+", ""))
    if not os.path.isdir(out) or not os.listdir(out):
        t0 = time.perf_counter()
        make_report_data(out, rows, rows_per_file=1_000_000, seed=0)
        print(f"  generated {rows:,} rows in {time.perf_counter() - t0:.1f} s -> {out}",
              flush=True)
    return out


def equality(folder: str) -> dict:
    """Largest relative difference, per table, between the out-of-core report and the
    in-memory report of the same rows (every float column; NaN where NaN, near-tie rates
    aside: not computed out of core)."""
    import pandas as pd
    from distributed import Client, LocalCluster

    from bipartite.diagnostics import diagnose

    df = pd.read_parquet(folder)
    out = {"rows": len(df)}
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=":0") as cluster, \
            Client(cluster) as client, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for kw in ({"n_boot": 0}, {"n_boot": 200, "interval": "percentile"}):
            mem = diagnose(df, SCORES, LABELS, qid=QID, weight=WEIGHT, **kw)
            ooc = diagnose(folder, SCORES, LABELS, qid=QID, weight=WEIGHT, scheduler=client,
                           **kw)
            for name, A in mem.tables.items():
                B = ooc.tables[name]
                worst = 0.0
                for c in A.columns:
                    if c == "near_tie_rate" or not pd.api.types.is_float_dtype(A[c]):
                        continue
                    a, b = A[c].to_numpy(float), B[c].to_numpy(float)
                    assert np.array_equal(np.isfinite(a), np.isfinite(b)), f"NaN in {name}.{c}"
                    ok = np.isfinite(a)
                    worst = max(worst, float(np.max(np.abs(b[ok] - a[ok]) / np.maximum(
                        np.abs(a[ok]), 1e-300), initial=0.0)))
                key = f"{name} ({'bootstrap B=200' if kw['n_boot'] else 'analytic'})"
                out[key] = worst
    return out


def bench_size(folder: str, rows: int, repeats: int, memory: str,
               baseline_timeout: float) -> dict:
    import dask.dataframe as dd
    from distributed import Client, TimeoutError, wait

    from bipartite._utils.cluster import local_cluster
    from bipartite.diagnostics import diagnose

    with local_cluster(2, _bytes(memory) // 2, dashboard_address=":0") as cluster, \
            Client(cluster) as client:
        files = sorted(os.path.join(folder, f) for f in os.listdir(folder))

        def ours():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return diagnose(folder, SCORES, LABELS, qid=QID, weight=WEIGHT, n_boot=0,
                                scheduler=client)

        def sort_values():
            """dask's own sort_values, or None when it did not finish in baseline_timeout s or
            failed (at 10⁸ rows in 2 GB: workers restarted at 95 % memory, p2p shuffles lost);
            the workers are then restarted, so that ours starts on a clean cluster."""
            ddf = dd.read_parquet(files, columns=SCORES + LABELS + [QID, WEIGHT])
            fut = client.compute(ddf.sort_values("model_a").map_partitions(len))
            try:
                wait(fut, timeout=baseline_timeout)
                lengths = fut.result()
                if int(lengths.sum()) != rows:
                    raise RuntimeError(f"sort_values returned {int(lengths.sum())} rows, not "
                                       f"{rows}")
                return lengths
            except Exception as e:  # recorded in the table, not hidden
                why = ("timed out" if isinstance(e, TimeoutError) else
                       f"failed: {type(e).__name__}: {str(e)[:200]}")
                print(f"  sort_values {why}", flush=True)
                failures.append(why)
                client.cancel(fut)
                client.restart()
                return None

        failures: list[str] = []
        times = {"ours": [], "sort_values": []}
        peaks = {"ours": [], "sort_values": []}
        driver = {"ours": [], "sort_values": []}
        for _ in range(repeats):
            for name, fn in (("sort_values", sort_values), ("ours", ours)):
                pids = list(client.run(os.getpid).values())
                base = _rss()
                with PeakRSS(pids) as wk, PeakRSS([os.getpid()]) as dr:
                    t0 = time.perf_counter()
                    done = fn() is not None
                    dt = time.perf_counter() - t0
                times[name].append(dt if done else np.nan)
                peaks[name].append(wk.peak)
                driver[name].append(max(dr.peak - base, 0))
                print(f"  {rows:.0e} {name}: {dt:.1f} s{'' if done else ' (DID NOT FINISH)'}, "
                      f"workers' peak {wk.peak / 2**20:.0f} MiB, driver's growth "
                      f"{driver[name][-1] / 2**20:.0f} MiB, load {os.getloadavg()[0]:.1f}",
                      flush=True)
    med = {k: float(np.median(v)) for k, v in times.items()}
    return {"rows": rows, "files": len(files), "ours": med["ours"],
            "sort_values": med["sort_values"], "ratio": med["ours"] / med["sort_values"],
            "peak_ours": max(peaks["ours"]), "peak_sort": max(peaks["sort_values"]),
            "driver_ours": max(driver["ours"]), "timeout": baseline_timeout,
            "baseline_failures": failures}


def _rss() -> int:
    import psutil

    return psutil.Process().memory_info().rss


def _bytes(text: str) -> int:
    from dask.utils import parse_bytes

    return int(parse_bytes(text))


def write(out: str, argv: list[str], results: list[dict], eq: dict | None, load: tuple,
          memory: str, repeats: int) -> None:
    lines = [f"<!-- python benchmarks/bench_report_scale.py {' '.join(argv)} -->", "",
             f"# Exact report statistics out of core (dask {_v('dask')}, distributed "
             f"{_v('distributed')}, pyarrow {_v('pyarrow')}); LocalCluster of 2 workers × 1 "
             f"thread, {memory} of worker memory in total; {repeats} interleaved repeat(s), "
             f"medians; load average {load[0]:.1f} on {os.cpu_count()} CPUs", "",
             "ours = the whole report out of core, `diagnose(folder, ..., scheduler=client)` "
             "(2 scorers × 2 labels + 1 cross pair; every table); sort_values = dask's "
             "`sort_values('model_a')` of the same 6 columns. Ours range-partitions both "
             "scorers (2 shuffles) and shuffles by qid only the rows of queries split across "
             "partitions.", "",
             "| rows | files | ours s | sort_values s | ratio | target | "
             "workers' peak MiB (ours) | workers' peak MiB (sort_values) | driver's growth MiB "
             "(ours) |", "|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        base = (f"{r['sort_values']:.1f}" if np.isfinite(r["sort_values"]) else
                f"did not finish ({'; '.join(r['baseline_failures'])}; limit "
                f"{r['timeout']:.0f} s)")
        ratio = f"{r['ratio']:.2f}" if np.isfinite(r["ratio"]) else "—"
        lines.append(f"| {r['rows']:.0e} | {r['files']} | {r['ours']:.1f} | "
                     f"{base} | {ratio} | 3 | "
                     f"{r['peak_ours'] / 2**20:.0f} | {r['peak_sort'] / 2**20:.0f} | "
                     f"{r['driver_ours'] / 2**20:.0f} |")
    if eq:
        lines += ["", f"Equality of the out-of-core report to the in-memory report at "
                      f"{eq['rows']:,} rows: largest relative difference of every number of "
                      "each table (near-tie rates aside: not computed out of core)", "",
                  "| table | max relative difference | target |", "|---|---|---|"]
        lines += [f"| {k} | {v:.1e} | 1e-12 |" for k, v in eq.items() if k != "rows"]
    lines += ["", f"(load average after: {os.getloadavg()[0]:.1f})", ""]
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    with open(out, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines))
    print("\n".join(lines))


def _v(mod: str) -> str:
    import importlib

    return importlib.import_module(mod).__version__


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=float, nargs="+", default=[1e6, 1e7])
    ap.add_argument("--data", default=os.path.join(tempfile.gettempdir(), "bipartite_scale"),
                    help="scratch folder for the generated Parquet files")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--memory", default="2GB", help="worker memory in total (2 workers)")
    ap.add_argument("--baseline-timeout", type=float, default=1800.0,
                    help="seconds after which dask's sort_values is recorded as not finished")
    ap.add_argument("--check-rows", type=float, default=1e6,
                    help="rows of the equality check against the in-memory report (0: none)")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                  "results", "quick", "report_scale.md"))
    a = ap.parse_args(argv)
    load = os.getloadavg()
    eq = None
    if a.check_rows:
        eq = equality(data_folder(a.data, int(a.check_rows)))
        print("equality:", eq, flush=True)
    results = [bench_size(data_folder(a.data, int(n)), int(n), a.repeats, a.memory,
                          a.baseline_timeout) for n in a.rows]
    write(a.out, argv, results, eq, load, a.memory, a.repeats)


if __name__ == "__main__":
    main()
