"""Side-by-side timings of the AUC kernels against np.sort, np.argsort and scikit-learn.

Every case times its functions in one run, interleaved (A B C ... A B C ...), and reports the
median of each with its ratio to ``np.sort`` and ``np.argsort`` of the same scores and to
scikit-learn's ``roc_auc_score`` (K calls for K labels) where scikit-learn has the metric. Only
ratios are meaningful on a shared machine. ``--baseline`` adds the rows of another copy of
``bipartite/metrics.py`` (for example the version before a change) to the same interleaving.

    python benchmarks/bench_metrics.py                        # n = 1e7 (1e6 multipartite)
    python benchmarks/bench_metrics.py --quick                # n = 1e6 (1e5 multipartite)
    python benchmarks/bench_metrics.py --baseline /tmp/metrics_before.py
    python benchmarks/bench_metrics.py --rule                 # multilabel: coded sorts vs argsort

Targets (issue "AUC kernels near the sort limit"): ``auc`` (ties, unweighted) <= 2.0x np.sort;
``multilabel_auc`` K = 5 <= 4x np.sort; ``multipartite_auc`` L = 4 at 1e6 <= 2.5x np.sort;
weighted ``auc`` <= 1.3x np.argsort.

``--rule`` times, for several n and K, the two strategies of ``multilabel_auc`` through its public
interface: the coded sorts (one call per group of at most 6 labels: one sort each) and the shared
argsort (unit sample weights, which take the weighted route); the ratio is the basis of
``bipartite.metrics._kernels._MAX_CODED_SORTS``.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import time

import numpy as np
from sklearn.metrics import roc_auc_score

from bipartite import metrics
from bipartite.labels import cost_matrix


def interleaved(fns: dict, repeats: int) -> dict:
    """Median wall time of each function, the functions called in turn ``repeats`` times."""
    times: dict = {k: [] for k in fns}
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


def load_baseline(path: str):
    spec = importlib.util.spec_from_file_location("metrics_baseline", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_case(rows, case, fns, check, repeats, sklearn_key=None):
    """Time ``fns`` (ours, baseline, np.sort, np.argsort, sklearn...) interleaved; one table row
    per non-reference function."""
    t = interleaved(fns, repeats)
    for name, fn in fns.items():
        if name in ("np.sort", "np.argsort", sklearn_key):
            continue
        check(fn)
        rows.append((case, name, t[name], t[name] / t["np.sort"], t[name] / t["np.argsort"],
                     t[name] / t[sklearn_key] if sklearn_key else float("nan")))
    rows.append((case, "(np.sort)", t["np.sort"], 1.0, t["np.sort"] / t["np.argsort"],
                 t["np.sort"] / t[sklearn_key] if sklearn_key else float("nan")))
    rows.append((case, "(np.argsort)", t["np.argsort"], t["np.argsort"] / t["np.sort"], 1.0,
                 t["np.argsort"] / t[sklearn_key] if sklearn_key else float("nan")))
    if sklearn_key:
        rows.append((case, f"({sklearn_key})", t[sklearn_key], t[sklearn_key] / t["np.sort"],
                     t[sklearn_key] / t["np.argsort"], 1.0))


def main_table(args) -> None:
    rng = np.random.default_rng(0)
    base = load_baseline(args.baseline) if args.baseline else None
    impls = [("ours", metrics)] + ([("before", base)] if base else [])
    n = 10**6 if args.quick else 10**7
    reps = args.repeats
    rows: list = []
    y = rng.integers(0, 2, n)
    s = np.round(rng.normal(size=n), 3)  # ties: about 8 000 distinct values
    w = rng.random(n)
    Y = rng.integers(0, 2, (n, 5))
    ref = roc_auc_score(y, s)
    refw = roc_auc_score(y, s, sample_weight=w)
    ref5 = np.array([roc_auc_score(Y[:, k], s) for k in range(5)])

    def ok(want, got):
        assert np.allclose(got, want, rtol=0, atol=1e-12), (want, got)

    fns = {f"auc {name}": (lambda m=m: m.auc(y, s)) for name, m in impls}
    fns.update({"np.sort": lambda: np.sort(s), "np.argsort": lambda: np.argsort(s),
                "roc_auc_score": lambda: roc_auc_score(y, s)})
    run_case(rows, f"auc, ties, n={n:.0e}", fns, lambda f: ok(ref, f()), reps, "roc_auc_score")

    fns = {f"auc weighted {name}": (lambda m=m: m.auc(y, s, sample_weight=w)) for name, m in impls}
    fns.update({"np.sort": lambda: np.sort(s), "np.argsort": lambda: np.argsort(s),
                "roc_auc_score": lambda: roc_auc_score(y, s, sample_weight=w)})
    run_case(rows, f"auc, weighted, n={n:.0e}", fns, lambda f: ok(refw, f()), reps,
             "roc_auc_score")

    sc = rng.normal(size=n)  # no ties
    refc = roc_auc_score(y, sc)
    fns = {f"auc {name}": (lambda m=m: m.auc(y, sc)) for name, m in impls}
    fns.update({"np.sort": lambda: np.sort(sc), "np.argsort": lambda: np.argsort(sc),
                "roc_auc_score": lambda: roc_auc_score(y, sc)})
    run_case(rows, f"auc, no ties, n={n:.0e}", fns, lambda f: ok(refc, f()), reps,
             "roc_auc_score")

    fns = {f"multilabel_auc {name}": (lambda m=m: m.multilabel_auc(Y, s)) for name, m in impls}
    fns.update({"np.sort": lambda: np.sort(s), "np.argsort": lambda: np.argsort(s),
                "5x roc_auc_score": lambda: [roc_auc_score(Y[:, k], s) for k in range(5)]})
    run_case(rows, f"multilabel_auc K=5, n={n:.0e}", fns, lambda f: ok(ref5, f()), reps,
             "5x roc_auc_score")

    nm = n // 10
    yl = rng.integers(0, 4, nm)
    sm = np.round(rng.normal(size=nm), 3)
    refm = metrics.multipartite_auc(yl, sm)
    fns = {f"multipartite_auc {name}": (lambda m=m: m.multipartite_auc(yl, sm))
           for name, m in impls}
    fns.update({"np.sort": lambda: np.sort(sm), "np.argsort": lambda: np.argsort(sm)})
    run_case(rows, f"multipartite_auc L=4, n={nm:.0e}", fns, lambda f: ok(refm, f()),
             max(reps, 9))

    n2 = 2000
    yq = rng.integers(0, 4, n2)
    sq = np.round(rng.normal(size=n2), 2)
    levels = np.unique(yq).astype(float)
    C = cost_matrix(levels, "linear")
    refq = quadratic_multipartite(yq, sq, C, levels)
    t = interleaved({"ours": lambda: metrics.multipartite_auc(yq, sq),
                     "quad": lambda: quadratic_multipartite(yq, sq, C, levels)}, max(reps, 9))
    ok(refq, metrics.multipartite_auc(yq, sq))

    print(f"machine: {os.cpu_count()} cores, load average "
          f"{', '.join(f'{x:.2f}' for x in os.getloadavg())} (1, 5, 15 min); "
          f"median of {reps} interleaved repetitions")
    head = (f"| {'case':31s} | {'function':28s} | {'median s':>9s} | {'x np.sort':>9s} | "
            f"{'x np.argsort':>12s} | {'x sklearn':>9s} |")
    print(head)
    print("|" + "|".join("-" * (len(c)) for c in head.split("|")[1:-1]) + "|")
    for case, name, sec, r_sort, r_arg, r_sk in rows:
        sk = "–" if np.isnan(r_sk) else f"{r_sk:.3f}"
        print(f"| {case:31s} | {name:28s} | {sec:9.4f} | {r_sort:9.2f} | {r_arg:12.3f} | "
              f"{sk:>9s} |")
    print(f"multipartite_auc L=4, n={n2}: {t['ours']:.5f} s, {t['ours'] / t['quad']:.4f}x the "
          f"O(n^2) vectorised NumPy reference ({t['quad']:.4f} s)")


def main_rule(args) -> None:
    """Coded sorts (groups of <= 6 labels, one sort each) vs one shared argsort, by n and K."""
    rng = np.random.default_rng(1)
    print(f"load average {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("| n | K | sorts | coded s | argsort s | coded / argsort |")
    print("|---|---|---|---|---|---|")
    for n in (10**4, 10**5, 10**6, 10**7):
        s = np.round(rng.normal(size=n), 3)
        for K in (1, 6, 12, 18, 24, 36):
            if n == 10**7 and K > 24:
                continue
            Y = rng.integers(0, 2, (n, K))
            ones = np.ones(n)
            groups = [slice(k0, min(K, k0 + 6)) for k0 in range(0, K, 6)]

            def coded(Y=Y, s=s, groups=groups):
                return [metrics.multilabel_auc(Y[:, g], s) for g in groups]

            t = interleaved({"coded": coded,
                             "argsort": lambda Y=Y, s=s: metrics.multilabel_auc(
                                 Y, s, sample_weight=ones)},
                            args.repeats if n >= 10**6 else 15)
            print(f"| {n:.0e} | {K} | {len(groups)} | {t['coded']:.4f} | {t['argsort']:.4f} | "
                  f"{t['coded'] / t['argsort']:.2f} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="n = 1e6 instead of 1e7")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--baseline", help="path of another metrics.py to time side by side")
    ap.add_argument("--rule", action="store_true",
                    help="multilabel_auc: coded sorts vs one argsort, by n and K")
    args = ap.parse_args()
    if args.rule:
        main_rule(args)
    else:
        main_table(args)


if __name__ == "__main__":
    main()
