"""Write a seeded report data set as several Parquet files: two binary labels, a query id, two
scorers and a row weight (the input of ``bench_report_scale.py``; never committed).

Each file holds whole queries and is drawn from its own seeded stream (``SeedSequence(seed)
.spawn``), so memory stays O(rows per file) and a file's content does not depend on how many
files follow it. Columns:

* ``qid`` (int64): query sizes ``1 + Poisson(docs_per_query − 1)``, ids 0, 1, … across files;
* ``rel`` (int8): relevance, Bernoulli of a per-query rate drawn from Beta(2, 5);
* ``click`` (int8): clicks, Bernoulli(0.05 + 0.4 rel) — correlated with ``rel``;
* ``model_a`` (float64): ``rel + 0.5 click + N(0, 1)``, continuous (ties only by chance);
* ``model_b`` (float64): ``0.3 rel + 0.8 click + N(0, 1)`` rounded to 2 decimals: heavy ties
  (a few hundred distinct values);
* ``weight`` (float64): integers 1..3 (sums of integer weights are exact).

Usage::

    python benchmarks/make_report_data.py OUT_DIR --rows 1e7 [--rows-per-file 1e6] [--seed 0]
"""

from __future__ import annotations

import argparse
import os

import numpy as np

__all__ = ["make_report_data", "report_frame"]


def report_frame(rng: np.random.Generator, rows: int, first_qid: int = 0,
                 docs_per_query: float = 100.0):
    """One block of ``rows`` rows (whole queries, the last cut to fit) as a pandas DataFrame."""
    import pandas as pd

    sizes = 1 + rng.poisson(max(docs_per_query - 1, 0), size=rows // max(int(docs_per_query), 1) + 2)
    while sizes.sum() < rows:
        sizes = np.r_[sizes, 1 + rng.poisson(max(docs_per_query - 1, 0), size=len(sizes))]
    q = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)[:rows]
    rate = rng.beta(2.0, 5.0, size=len(sizes))[q]
    rel = (rng.random(rows) < rate).astype(np.int8)
    click = (rng.random(rows) < 0.05 + 0.4 * rel).astype(np.int8)
    a = rel + 0.5 * click + rng.standard_normal(rows)
    b = np.round(0.3 * rel + 0.8 * click + rng.standard_normal(rows), 2)
    w = rng.integers(1, 4, size=rows).astype(np.float64)
    return pd.DataFrame({"qid": q + first_qid, "rel": rel, "click": click, "model_a": a,
                         "model_b": b, "weight": w})


def make_report_data(out: str | os.PathLike, rows: int, *, rows_per_file: int = 1_000_000,
                     seed: int = 0, docs_per_query: float = 100.0,
                     row_group_rows: int = 250_000) -> list[str]:
    """Write ``rows`` rows as ``ceil(rows / rows_per_file)`` Parquet files ``part-00000.parquet``
    … (row groups of ``row_group_rows``) into the folder ``out`` (created); returns the file
    paths."""
    rows, rows_per_file = int(rows), int(rows_per_file)
    if rows < 2 or rows_per_file < 1:
        raise ValueError(f"rows must be >= 2 and rows_per_file >= 1, got {rows}, {rows_per_file}.")
    os.makedirs(out, exist_ok=True)
    n_files = -(-rows // rows_per_file)
    streams = np.random.SeedSequence(seed).spawn(n_files)
    paths, first = [], 0
    for f in range(n_files):
        n = min(rows_per_file, rows - f * rows_per_file)
        df = report_frame(np.random.default_rng(streams[f]), n, first, docs_per_query)
        first = int(df["qid"].iloc[-1]) + 1
        path = os.path.join(out, f"part-{f:05d}.parquet")
        df.to_parquet(path, index=False, row_group_size=row_group_rows)
        paths.append(path)
    return paths


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", help="output folder (created)")
    ap.add_argument("--rows", type=float, default=1e6, help="rows in all (1e6, 1e7, 1e8)")
    ap.add_argument("--rows-per-file", type=float, default=1e6)
    ap.add_argument("--docs-per-query", type=float, default=100.0)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    paths = make_report_data(a.out, int(a.rows), rows_per_file=int(a.rows_per_file),
                             seed=a.seed, docs_per_query=a.docs_per_query)
    print(f"wrote {int(a.rows):,} rows in {len(paths)} files to {a.out}")


if __name__ == "__main__":
    main()
