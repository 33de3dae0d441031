"""Calibrate the out-of-core memory floor (:func:`bipartite.diagnostics._dask_wait.memory_floor`):
a worker's peak working set (resident memory over its idle memory) while
:func:`bipartite.diagnostics.placement_stats` runs, on data shapes that vary the rows of a piece,
the scorers, the labels (hence the weight pairs), the query ids, the row weights and the score
dtype (docs/out_of_core.md, "Memory, progress and stalls").

Each shape is written as ``--pieces`` Parquet files of one row group each (a file is one piece)
and run on a local cluster of ``--workers`` single-threaded worker processes with a generous
memory limit (no pressure), fresh as the CLI starts them; the driver polls every worker's
resident memory (psutil, every 10 ms). The working set is the largest peak over the workers
less the idle memory the floor counts for a fresh worker: the larger of its reported memory
(one heartbeat after start) and ``IDLE_BYTES`` (the modules the tasks load). The fit
(:func:`fit`): a fresh worker's peak ≈ IDLE + rows × BYTES_PER_CELL × (columns read +
PAIR_CELLS × weight pairs) + queries × BYTES_PER_QUERY_CELL × pairs × (scorers + 1), scaled so
that it covers every shape measured. ``--refit FILE`` fits the shapes of a saved result again.

Usage::

    PYTHONPATH=. python benchmarks/calibrate_ooc_memory.py --out benchmarks/results/ooc_memory_floor.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import threading
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # make_report_data

#: (rows of a piece, scorers, labels, qid, weight, score dtype, rows per query); dtype "report":
#: make_report_data.py's frame (two scorers, one with heavy ties; two labels; weights)
SHAPES = [
    (100_000, 2, 2, True, True, "float64", 100),
    (50_000, 2, 2, True, True, "float64", 100),
    (200_000, 2, 2, True, True, "float64", 100),
    (100_000, 1, 1, False, False, "float64", 100),
    (100_000, 1, 1, True, False, "float64", 100),
    (100_000, 4, 2, True, True, "float64", 100),
    (100_000, 2, 4, True, True, "float64", 100),
    (100_000, 2, 6, True, False, "float64", 100),
    (100_000, 2, 2, True, True, "float32", 100),
    (100_000, 1, 6, False, False, "float32", 100),
    (200_000, 4, 4, True, True, "float64", 100),
    (25_000, 2, 2, True, True, "float64", 100),
    (400_000, 1, 1, False, False, "float64", 100),
    (400_000, 2, 2, True, True, "float64", 100),
    (100_000, 2, 2, True, True, "float64", 4),
    (200_000, 2, 4, True, False, "float64", 4),
    (100_000, 2, 2, True, True, "report", 100),
    (200_000, 2, 2, True, True, "report", 100),
]


def write_shape(folder: str, rows: int, n_scores: int, n_labels: int, qid: bool, weight: bool,
                dtype: str, q_size: int, pieces: int, seed: int = 0) -> dict:
    """``pieces`` Parquet files of ``rows`` rows (one row group each, whole queries of
    ``q_size`` rows); returns the placement_stats keywords."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    if dtype == "report":
        from make_report_data import make_report_data

        make_report_data(folder, rows * pieces, rows_per_file=rows, seed=seed,
                         docs_per_query=q_size, row_group_rows=rows)
        return {"scores": ["model_a", "model_b"], "labels": ["rel", "click"], "qid": "qid",
                "weight": "weight"}
    for i in range(pieces):
        cols = {}
        if qid:
            cols["q"] = (np.arange(rows) // q_size + i * (rows // q_size + 1)).astype(np.int64)
        Y = rng.integers(0, 2, size=(rows, n_labels)).astype(np.int8)
        for k in range(n_labels):
            cols[f"y{k}"] = Y[:, k]
        for s in range(n_scores):
            cols[f"s{s}"] = (Y.sum(axis=1) * (s + 1) / n_labels
                             + rng.normal(size=rows)).astype(dtype)
        if weight:
            cols["w"] = rng.integers(1, 4, size=rows).astype(np.float64)
        pd.DataFrame(cols).to_parquet(os.path.join(folder, f"part-{i:03d}.parquet"),
                                      row_group_size=rows)
    return {"scores": [f"s{s}" for s in range(n_scores)],
            "labels": [f"y{k}" for k in range(n_labels)],
            "qid": "q" if qid else None, "weight": "w" if weight else None}


class Peak:
    """The largest resident memory of each process in ``pids`` while active (10 ms polls)."""

    def __init__(self, pids: list[int]):
        import psutil

        self.procs = [psutil.Process(p) for p in pids]
        self.peak = {p.pid: 0 for p in self.procs}
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._poll, daemon=True)

    def _poll(self) -> None:
        while not self._stop.is_set():
            for p in self.procs:
                try:
                    self.peak[p.pid] = max(self.peak[p.pid], p.memory_info().rss)
                except Exception:  # noqa: BLE001, S112 - a worker gone: kept as measured
                    continue
            time.sleep(0.01)

    def __enter__(self):
        self._t.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._t.join()
        return False


def measure(shape: tuple, workers: int, pieces: int) -> dict:
    import psutil
    from distributed import Client

    from bipartite._utils.cluster import local_cluster
    from bipartite.diagnostics import placement_stats
    from bipartite.diagnostics._dask_wait import IDLE_BYTES

    rows, n_s, n_l, qid, weight, dtype, q_size = shape
    with tempfile.TemporaryDirectory() as big:
        kw = write_shape(big, rows, n_s, n_l, qid, weight, dtype, q_size, pieces)
        with local_cluster(workers, 4 * 2**30) as cluster, Client(cluster) as client:
            pids = list(client.run(os.getpid).values())
            time.sleep(1.5)  # a heartbeat: the memory the floor's check reads
            reported = max((w.get("metrics") or {}).get("memory") or 0
                           for w in client.scheduler_info()["workers"].values())
            start = max(psutil.Process(p).memory_info().rss for p in pids)
            t = time.perf_counter()
            with Peak(pids) as pk:
                placement_stats(big, scheduler=client, rows_per_partition=rows, **kw)
            wall = time.perf_counter() - t
    # a fresh worker (the CLI's local cluster): the floor counts max(reported, IDLE_BYTES) idle
    work = max(pk.peak.values()) - max(reported, IDLE_BYTES)
    n_cols = n_s + n_l + int(qid) + int(weight)
    n_pairs = n_l + n_l * (n_l - 1) // 2
    return {"rows_per_piece": rows, "pieces": pieces, "scorers": n_s, "labels": n_l,
            "qid": qid, "weight": weight, "score_dtype": dtype,
            "queries": -(-rows // q_size) * pieces if qid else 0, "columns": n_cols,
            "pairs": n_pairs, "reported_idle_bytes": int(reported), "start_rss_bytes": int(start),
            "peak_bytes": max(pk.peak.values()), "working_set_bytes": int(work),
            "bytes_per_row": work / rows, "wall_s": round(wall, 1)}


def fit(rows: list[dict]) -> dict:
    """A fresh worker's peak ≈ IDLE + rows × BYTES_PER_CELL × (columns + PAIR_CELLS × pairs) +
    queries × BYTES_PER_QUERY_CELL × pairs × (scorers + 1), by non-negative least squares over
    the shapes; then every constant scaled by the largest measured / fitted ratio (so the floor
    covers every shape measured). (A pair term per pair × scorer fits worse: the largest
    measured / fitted ratio was 1.23 against 1.04 on the first 16 shapes; a pass-3 task holds
    one scorer at a time.)"""
    from scipy.optimize import nnls

    peak = np.array([r["peak_bytes"] for r in rows], dtype=float)
    n = np.array([r["rows_per_piece"] for r in rows], dtype=float)
    G = np.array([r["queries"] for r in rows], dtype=float)
    cols = np.array([r["columns"] for r in rows], dtype=float)
    pairs = np.array([r["pairs"] for r in rows], dtype=float)
    sc = np.array([r["scorers"] for r in rows], dtype=float)
    A = np.c_[np.ones_like(n), n * cols, n * pairs, G * pairs * (sc + 1)]
    coef, _ = nnls(A, peak)
    scale = float(np.max(peak / (A @ coef)))
    i0, b0, b1, g0 = coef * scale
    floor = A @ (coef * scale)
    return {"idle_bytes": float(i0), "bytes_per_cell": float(b0),
            "pair_cells": float(b1 / b0) if b0 else float("nan"),
            "bytes_per_query_cell": float(g0), "nnls": [float(v) for v in coef], "scale": scale,
            "measured_over_floor": [round(float(v), 3) for v in peak / floor]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=None)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--pieces", type=int, default=4)
    ap.add_argument("--only", type=int, nargs="*", default=None, help="indices into SHAPES")
    ap.add_argument("--refit", default=None, help="a saved result: fit its shapes again")
    args = ap.parse_args()
    if args.refit:
        with open(args.refit) as fh:
            result = json.load(fh)
        result["fit"] = fit(result["shapes"])
        print(json.dumps(result["fit"], indent=1))
        with open(args.out or args.refit, "w") as fh:
            json.dump(result, fh, indent=1)
        return
    rows = []
    for i, shape in enumerate(SHAPES):
        if args.only is not None and i not in args.only:
            continue
        r = measure(shape, args.workers, args.pieces)
        rows.append(r)
        print(json.dumps(r), flush=True)
    result = {"command": "PYTHONPATH=. python benchmarks/calibrate_ooc_memory.py "
                         f"--workers {args.workers} --pieces {args.pieces}",
              "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                          "load_1min": os.getloadavg()[0]},
              "shapes": rows, "fit": fit(rows)}
    print(json.dumps(result["fit"], indent=1))
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(result, fh, indent=1)


if __name__ == "__main__":
    main()
