"""MSLR readiness of the learners: load time, peak memory and fit time on an MSLR-shaped file.

Makes an MSLR-WEB10K-shaped LETOR file (136 features, ~120 documents per query, graded relevance
and click features 134-136) with :func:`bipartite.data.make_mslr_like`, then, each in a fresh
subprocess (so that peak memory is per run), loads it with :func:`bipartite.data.load_letor`
(Y = (1[rel ≥ 1], 1[f134 > 0]), click features removed) and fits one learner on 2 CPU threads.
Peak memory is the subprocess's maximum resident set size (``ru_maxrss``), i.e. load + one model,
the quantity of the 15 min / 12 GB target.

Printed table (all columns measured side by side in this run): load seconds, fit seconds, total,
peak GB, fit time relative to the fastest learner, and a linear extrapolation to
``--target-queries`` queries (default 10 000 ≈ MSLR-WEB10K): time × (target / n_queries);
memory = baseline + (peak − baseline) × (target / n_queries), with the baseline = the peak of a
worker that imports everything (numpy, torch, xgboost, bipartite) and loads nothing; imports are
outside the timings. MLP fits run ``--epochs`` epochs (early
stopping off) and are extrapolated to ``--full-epochs`` epochs as well.

Run: ``python benchmarks/bench_learners.py --n-queries 1000``
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LEARNERS = {
    "mlp-pairwise-LA": ("MLPRanker", dict(method="pairwise")),
    "mlp-pairwise-label": ("MLPRanker", dict(method="pairwise", objective="label_aggregation")),
    "mlp-plugin-LA": ("MLPRanker", dict(method="plugin")),
    "mlp-pointwise-label": ("MLPRanker", dict(method="pointwise",
                                              objective="label_aggregation")),
    "xgb-pairwise-LA": ("XGBRanker", dict(method="pairwise")),
    "xgb-pairwise-label": ("XGBRanker", dict(method="pairwise", objective="label_aggregation")),
    "xgb-plugin-LA": ("XGBRanker", dict(method="plugin")),
}


def _peak_gb() -> float:
    # ru_maxrss is in KiB on Linux
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def worker(args) -> None:
    """One measurement in this (fresh) process; prints a JSON line."""
    import numpy as np
    import torch  # noqa: F401  (imported before timing: not part of load or fit)
    import xgboost  # noqa: F401

    from bipartite import learners
    from bipartite.data import load_letor

    out = {"learner": args.worker}
    if args.worker == "baseline":
        out.update(load_s=0.0, fit_s=0.0, peak_gb=_peak_gb())
        print(json.dumps(out))
        return
    t0 = time.perf_counter()
    data = load_letor(args.file, click="feature", dtype=np.float32)
    out["load_s"] = time.perf_counter() - t0
    out["n_rows"], out["n_features"] = data.X.shape
    if args.worker != "load":
        cls_name, params = LEARNERS[args.worker]
        cls = getattr(learners, cls_name)
        if cls_name == "MLPRanker":
            params = dict(params, epochs=args.epochs, n_iter_no_change=args.epochs + 1,
                          n_jobs=args.n_jobs, random_state=0, device="cpu")
        else:
            params = dict(params, n_estimators=args.n_estimators, n_jobs=args.n_jobs,
                          random_state=0)
        est = cls(**params)
        t0 = time.perf_counter()
        est.fit(data.X, data.Y, groups=data.qid)
        out["fit_s"] = time.perf_counter() - t0
        out["epochs_run"] = getattr(est, "n_epochs_", None)
    else:
        out["fit_s"] = 0.0
    out["peak_gb"] = _peak_gb()
    print(json.dumps(out))


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n-queries", type=int, default=1000)
    p.add_argument("--target-queries", type=int, default=10000)
    p.add_argument("--learners", default=",".join(LEARNERS))
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--full-epochs", type=int, default=30)
    p.add_argument("--n-estimators", type=int, default=300)
    p.add_argument("--n-jobs", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workdir", type=Path, default=None)
    p.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    p.add_argument("--file", default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        worker(args)
        return

    from bipartite.data import make_mslr_like

    tmp = tempfile.TemporaryDirectory() if args.workdir is None else None
    workdir = Path(tmp.name) if tmp else args.workdir
    workdir.mkdir(parents=True, exist_ok=True)
    path = workdir / f"mslr_like_{args.n_queries}q.txt"
    t0 = time.perf_counter()
    make_mslr_like(path, n_queries=args.n_queries, seed=args.seed)
    make_s = time.perf_counter() - t0
    size_mb = path.stat().st_size / 2**20
    print(f"made {path.name}: {size_mb:.0f} MiB in {make_s:.1f} s", flush=True)

    env = dict(os.environ, OMP_NUM_THREADS=str(args.n_jobs))
    rows = []
    for name in ["baseline", "load", *args.learners.split(",")]:
        if name not in LEARNERS and name not in ("baseline", "load"):
            raise SystemExit(f"unknown learner {name!r}; choose from {sorted(LEARNERS)}")
        cmd = [sys.executable, __file__, "--worker", name, "--file", str(path),
               "--epochs", str(args.epochs), "--n-estimators", str(args.n_estimators),
               "--n-jobs", str(args.n_jobs)]
        res = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
        if res.returncode != 0:
            print(f"{name}: FAILED\n{res.stderr[-2000:]}", flush=True)
            continue
        row = json.loads(res.stdout.strip().splitlines()[-1])
        rows.append(row)
        print(json.dumps(row), flush=True)

    base = next(r["peak_gb"] for r in rows if r["learner"] == "baseline")
    fits = [r["fit_s"] for r in rows if r["learner"] in LEARNERS]
    fastest = min(fits) if fits else float("nan")
    scale = args.target_queries / args.n_queries
    print()
    print(f"n_queries={args.n_queries}  rows={rows[1].get('n_rows')}  file={size_mb:.0f} MiB  "
          f"threads={args.n_jobs}  extrapolated to {args.target_queries} queries (x{scale:.1f})")
    head = (f"{'learner':22s} {'load_s':>7s} {'fit_s':>8s} {'total_s':>8s} {'peak_GB':>8s} "
            f"{'fit/fastest':>11s} {'full_total_min':>14s} {'full_peak_GB':>12s}")
    print(head)
    print("-" * len(head))
    for r in rows:
        if r["learner"] == "baseline":
            continue
        fit = r["fit_s"]
        if r["learner"].startswith("mlp") and r.get("epochs_run"):
            fit_full = fit * args.full_epochs / r["epochs_run"]
        else:
            fit_full = fit
        total = r["load_s"] + r["fit_s"]
        full_total = (r["load_s"] + fit_full) * scale / 60
        full_peak = base + (r["peak_gb"] - base) * scale
        ratio = fit / fastest if r["learner"] in LEARNERS else float("nan")
        print(f"{r['learner']:22s} {r['load_s']:7.1f} {fit:8.1f} {total:8.1f} "
              f"{r['peak_gb']:8.2f} {ratio:11.2f} {full_total:14.1f} {full_peak:12.2f}")
    print(f"(baseline process peak: {base:.2f} GB; MLP rows extrapolated to "
          f"{args.full_epochs} epochs)")
    if tmp:
        tmp.cleanup()


if __name__ == "__main__":
    main()
