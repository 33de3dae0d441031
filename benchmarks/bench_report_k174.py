"""The report at K = 174 (CAL500: 502 rows, 15 051 label pairs), vectorised against per-pair
(issue 25 item 4, issue 26 item 4).

Scores: one ridge regression per label on the standardised features (in-sample, one closed-form
solve), summed into one ranking score, ``ridge_sum``. Timed in one process, side by side:

* the cross-pair statistics of every label pair — win rate, near-tie rate and DeLong variance —
  per pair through the public one-pair functions (:func:`bipartite.dictatorship.cross_pair_win_rate`,
  :func:`~bipartite.dictatorship.near_tie_rate`, :func:`bipartite.diagnostics.delong_auc_variance`
  on the pair's rows: the route the report took before) against the report's blocked kernel
  (``bipartite.diagnostics._pairs.pair_stats``, one sort);
* the bootstrap as the report makes it past ten labels (the whole-array route), B = 1000 row
  resamples: the labels' placement sums (``_stats.label_sums``, one pass) and their linearised
  replicates (``PlacementSums.boot_auc``, O(n) each), against the exact replicates per label
  through the grouped engine (the rows reweighted, one segment pass per label and replicate
  batch); the pairs' placement sums in blocks (``_pairs.pair_sums``) and their replicates;
* ``diagnose`` (n_boot = 1000; also with 50 synthetic query ids, whose bootstrap resamples
  queries) and ``bipartite report`` (Markdown to a buffer).

Each time is also given as a ratio to one ``np.sort`` of the score column, timed beside it.

    python benchmarks/bench_report_k174.py [--data /path/to/data] [--skip-reference]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import tempfile
import time
import warnings

import numpy as np
import pandas as pd

from bipartite._utils.validation import pow2_normalise
from bipartite.cli import main as cli_main
from bipartite.data import load_mulan
from bipartite.diagnostics import delong_auc_variance, diagnose
from bipartite.diagnostics._pairs import pair_blocks, pair_stats, pair_sums
from bipartite.diagnostics._placement_sums import label_sums
from bipartite.dictatorship import cross_pair_win_rate, near_tie_rate
from bipartite.metrics import QuerySegments


def timed(fn, min_time=0.2):
    t0 = time.perf_counter()
    fn()
    t = time.perf_counter() - t0
    if t >= min_time:
        return t
    reps = max(1, int(min_time / max(t, 1e-7)))
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
    return (time.perf_counter() - t0) / reps


def per_pair(Y, s, w, pairs, tol):
    for k, j in pairs:
        cross_pair_win_rate(Y, s, k, j, sample_weight=w)
        near_tie_rate(Y, s, k, j, tol=tol, sample_weight=w)
        sub = ((Y[:, k] == 1) & (Y[:, j] == 0)) | ((Y[:, j] == 1) & (Y[:, k] == 0))
        if np.any(Y[sub, k] == 1) and np.any(Y[sub, k] == 0):
            delong_auc_variance(Y[sub, k], s[sub], sample_weight=w[sub])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=None)
    ap.add_argument("--skip-reference", action="store_true",
                    help="skip the per-pair reference (about 20-60 s)")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    d = load_mulan("CAL500", data_home=args.data)
    X, Y = np.asarray(d.X, float), np.asarray(d.Y, float)
    A = (X - X.mean(0)) / np.where(X.std(0) > 0, X.std(0), 1)
    W = np.linalg.solve(A.T @ A + len(A) * np.eye(A.shape[1]), A.T @ (Y - Y.mean(0)))
    s = (A @ W + Y.mean(0)).sum(1)
    n, K = Y.shape
    w = np.ones(n)
    pairs = [(k, j) for k in range(K) for j in range(k + 1, K)]
    labels = [str(x) for x in d.label_names]
    frame = pd.DataFrame(Y.astype(int), columns=labels).assign(ridge_sum=s)
    seg = QuerySegments(s, check_input=False)
    M = np.random.default_rng(0).multinomial(n, np.full(n, 1 / n), size=1000).astype(float)
    R = M[:, seg.order]  # the row multiplicities in score order (the engine's reference)
    ws = pow2_normalise(w)
    kj = np.asarray(pairs, dtype=np.int64)
    rows = []
    base = timed(lambda: np.sort(s))
    if not args.skip_reference:
        rows.append(("pair statistics, per pair (reference)",
                     timed(lambda: per_pair(Y, s, w, pairs, 1e-6))))
    rows.append(("pair statistics, pair_stats (blocked)",
                 timed(lambda: pair_stats(s, Y, w, pairs, tol=1e-6, delong=True))))
    rows.append(("bootstrap AUCs, exact, per label through the engine (reference), B=1000",
                 timed(lambda: [seg.auc(R * (w * Y[:, k])[seg.order],
                                        R * (w * (1 - Y[:, k]))[seg.order], presorted=True)
                                for k in range(K)])))
    rows.append(("bootstrap AUCs, label_sums + PlacementSums.boot_auc (the report's), B=1000",
                 timed(lambda: label_sums(s, Y, ws, seg=seg, within=False).boot_auc(M))))
    rows.append(("bootstrap win rates, pair_sums + boot_auc in blocks (the report's), B=1000",
                 timed(lambda: [pair_sums(s, Y, ws, kj[sl], seg=seg).boot_auc(M)
                                for sl in pair_blocks(len(kj), n)])))
    rows.append(("diagnose, n_boot=1000",
                 timed(lambda: diagnose(frame, scores="ridge_sum", labels=labels, n_boot=1000))))
    q = frame.assign(q=np.random.default_rng(0).integers(0, 50, n))  # 50 synthetic queries
    rows.append(("diagnose, 50 queries (qid), n_boot=1000",
                 timed(lambda: diagnose(q, scores="ridge_sum", labels=labels, qid="q",
                                        n_boot=1000))))
    with tempfile.TemporaryDirectory() as tmp:
        csv = os.path.join(tmp, "cal500.csv")
        frame.to_csv(csv, index=False)
        argv = ["report", csv, "--score", "ridge_sum",
                *[a for c in labels for a in ("--label", c)], "--n-boot", "1000", "--no-progress"]

        def cli():
            with contextlib.redirect_stdout(io.StringIO()):
                cli_main(argv)

        rows.append(("bipartite report (Markdown), n_boot=1000", timed(cli)))
    base = float(np.median([base, timed(lambda: np.sort(s))]))
    print(f"CAL500: n = {n}, K = {K}, {len(pairs)} label pairs; np.sort baseline "
          f"{base * 1e6:.1f} us\n\n| call | time (s) | x np.sort |\n|---|---|---|")
    for name, t in rows:
        print(f"| {name} | {t:.3g} | {t / base:.3g} |")


if __name__ == "__main__":
    main()
