"""Side-by-side timings of the AUC kernels (issue: core metrics).

Every row times our function and its baseline in the same run, interleaved (A B A B ...), and
reports the ratio of medians; machines here are noisy, so only ratios are meaningful.

    python benchmarks/bench_metrics.py            # n up to 1e7 (about 2-3 minutes on 2 cores)
    python benchmarks/bench_metrics.py --quick    # n up to 1e6

Targets (n = 1e7 unless stated): auc <= 1.0x roc_auc_score and <= 2x argsort; multilabel_auc
(K = 5) <= 0.5x five roc_auc_score calls; multipartite_auc <= 3x argsort at n = 1e6.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.metrics import roc_auc_score

from bipartite.labels import cost_matrix
from bipartite.metrics import auc, multilabel_auc, multipartite_auc


def interleaved(fns: dict, repeats: int) -> dict:
    times = {k: [] for k in fns}
    for _ in range(repeats):
        for k, f in fns.items():
            t0 = time.perf_counter()
            f()
            times[k].append(time.perf_counter() - t0)
    return {k: float(np.median(v)) for k, v in times.items()}


def quadratic_multipartite(y, s, C, levels):
    """O(n^2) vectorised reference: all pairs at once."""
    idx = np.searchsorted(levels, y)
    cost = C[idx[:, None], idx[None, :]]
    win = (s[:, None] > s[None, :]) + 0.5 * (s[:, None] == s[None, :])
    return float((cost * win).sum() / cost.sum())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    sizes = [10**5, 10**6] if args.quick else [10**5, 10**6, 10**7]
    rows = []
    for n in sizes:
        y = rng.integers(0, 2, n)
        s = np.round(rng.normal(size=n), 3)  # realistic ties
        reps = args.repeats if n < 10**7 else 3
        t = interleaved(
            {
                "auc": lambda: auc(y, s),
                "sklearn": lambda: roc_auc_score(y, s),
                "argsort": lambda: np.argsort(s),
            },
            reps,
        )
        assert abs(auc(y, s) - roc_auc_score(y, s)) < 1e-12
        rows.append((f"auc n={n:.0e}", t["auc"], "roc_auc_score", t["auc"] / t["sklearn"]))
        rows.append((f"auc n={n:.0e}", t["auc"], "np.argsort", t["auc"] / t["argsort"]))
        Y = rng.integers(0, 2, (n, 5))
        t = interleaved(
            {
                "ml": lambda: multilabel_auc(Y, s),
                "sk5": lambda: [roc_auc_score(Y[:, k], s) for k in range(5)],
            },
            reps,
        )
        rows.append((f"multilabel_auc K=5 n={n:.0e}", t["ml"], "5x roc_auc_score",
                     t["ml"] / t["sk5"]))
        if n <= 10**6:
            yl = rng.integers(0, 4, n)
            t = interleaved(
                {"mp": lambda: multipartite_auc(yl, s), "argsort": lambda: np.argsort(s)}, reps
            )
            rows.append((f"multipartite_auc L=4 n={n:.0e}", t["mp"], "np.argsort",
                         t["mp"] / t["argsort"]))
    n = 2000
    yl = rng.integers(0, 4, n)
    s = np.round(rng.normal(size=n), 2)
    levels = np.unique(yl).astype(float)
    C = cost_matrix(levels, "linear")
    assert abs(multipartite_auc(yl, s) - quadratic_multipartite(yl, s, C, levels)) < 1e-12
    t = interleaved(
        {"mp": lambda: multipartite_auc(yl, s),
         "quad": lambda: quadratic_multipartite(yl, s, C, levels)},
        args.repeats,
    )
    rows.append((f"multipartite_auc L=4 n={n}", t["mp"], "O(n^2) numpy", t["mp"] / t["quad"]))

    print(f"{'case':34s} {'ours (s)':>10s}  {'baseline':18s} {'ratio':>7s}")
    for case, ours, base, ratio in rows:
        print(f"{case:34s} {ours:10.4f}  {base:18s} {ratio:7.3f}")


if __name__ == "__main__":
    main()
