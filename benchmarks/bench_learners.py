"""MSLR readiness of the learners: load time, peak memory and fit time on an MSLR-shaped file.

Makes an MSLR-WEB-shaped LETOR file (136 features, ~76 documents per query, graded relevance and
click features 134-136; 30 000 queries ≈ 2.27 M rows ≈ 3 GiB) with
:func:`bipartite.data.make_mslr_like`, then, each in a fresh subprocess (so that peak memory is
per run), loads it with :func:`bipartite.data.load_letor` (float32; Y = (1[rel ≥ 1], 1[f134 > 0]),
click features removed) and fits one learner. Peak memory is the subprocess's maximum resident
set size (``ru_maxrss``): load + one model, the quantity of the 15 min / 12 GB target.

Every learner is fitted on 90% of the queries and scored on the other 10% with the objective's
per-query criterion (:func:`bipartite.learners.ranking_criterion` with ``groups``: uniform mean
over queries of the per-label AUCs for loss aggregation, of the multipartite AUC of Ȳ for label
aggregation), so that a fast fit cannot be a fit truncated to nothing; a constant scorer gets 0.5.
MLP fits use early stopping on their own 10% validation split (``--epochs`` is the maximum,
``--n-iter-no-change`` the patience) and record the epoch count and seconds per epoch.

Threads. XGBoost uses ``--n-jobs`` threads (default 2). The MLPs use ``--mlp-threads`` torch
threads (default 1, the estimator's default): on a shared 2-core machine torch's OpenMP pool with 2
threads spins at every barrier while the second core is busy, which was measured 14-32x *slower*
per epoch than 1 thread (``--compare-rev ... --compare-threads``). The load average
(``os.getloadavg``) is printed next to every timing: the machine may be shared.

``--compare-rev REV`` (instead of the table) times MLPRanker epochs of the version of
``bipartite/learners.py`` at git revision REV against the working tree, side by side in one
process on the same data, and prints the ratio table.

**Against plain libraries** (``--vs-plain``, and what ``--quick`` runs): side by side in one
process on in-memory MSLR-shaped data (``--vs-queries`` queries of 20-100 documents, 136
features, K = 2 binary labels), interleaved repeats, median of the per-repeat ratios:

* ``MLPRanker(method="pairwise")`` (loss and label aggregation, linear costs) against a plain
  torch loop with the same network (:func:`bipartite.learners.nets.make_mlp`), the same epochs
  and the very same batches (recorded from the ranker's fit): standardise, then per batch score
  the rows, form the dense pair weights (``(pos · a/(n⁺n⁻)) @ negᵀ``, or
  ``relu(ȳ_i − ȳ_j) / Σ``), ``Σ w · softplus(−(s_i − s_j))`` over the groups, Adam step. The
  ranker runs without a validation split (the plain loop has none);
* ``XGBRanker(method="pairwise")`` (loss aggregation) against ``xgb.train`` with the same
  parameters on the same stacked data built directly in NumPy (one group per (query, label),
  weight a_k / n_q), DMatrix construction included on both sides, for K = 1 (the raw rows
  themselves) and K = 2.

``--device cuda`` trains the MLPs (and XGBoost) on the GPU; it is refused with a clear message
when CUDA is not available. The load average is printed with each table.

Run: ``python benchmarks/bench_learners.py --n-queries 30000 --workdir /tmp/mslr``;
``python benchmarks/bench_learners.py --quick`` (the plain-library ratios, under a minute).
"""

from __future__ import annotations

import argparse
import importlib.util
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
REPO = Path(__file__).resolve().parents[1]


def _peak_gb() -> float:
    # ru_maxrss is in KiB on Linux
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def _load1() -> float:
    return os.getloadavg()[0]


def _split_queries(qid, fraction: float, seed: int):
    """Boolean mask of the test rows: a random ``fraction`` of the queries."""
    import numpy as np

    queries = np.unique(qid)
    rng = np.random.default_rng(seed)
    test_q = rng.choice(queries, size=max(1, int(round(fraction * len(queries)))), replace=False)
    return np.isin(qid, test_q)


def _mlp_params(args) -> dict:
    return dict(epochs=args.epochs, n_iter_no_change=args.n_iter_no_change,
                batch_size=args.batch_size, n_jobs=args.mlp_threads, random_state=0,
                device=args.device)


def worker(args) -> None:
    """One measurement in this (fresh) process; prints a JSON line."""
    import numpy as np
    import torch  # noqa: F401  (imported before timing: not part of load or fit)

    if LEARNERS.get(args.worker, ("",))[0] == "XGBRanker":
        import xgboost  # noqa: F401

    from bipartite import learners
    from bipartite.data import load_letor

    out = {"learner": args.worker}
    if args.worker == "baseline":
        out.update(load_s=0.0, fit_s=0.0, peak_gb=_peak_gb())
        print(json.dumps(out))
        return
    out["load1_start"] = _load1()
    t0 = time.perf_counter()
    data = load_letor(args.file, click="feature", dtype=np.float32)
    out["load_s"] = time.perf_counter() - t0
    out["n_rows"], out["n_features"] = data.X.shape
    out["fit_s"] = 0.0
    if args.worker != "load":
        cls_name, params = LEARNERS[args.worker]
        cls = getattr(learners, cls_name)
        if cls_name == "MLPRanker":
            params = dict(params, **_mlp_params(args))
        else:
            params = dict(params, n_estimators=args.n_estimators, n_jobs=args.n_jobs,
                          random_state=0,
                          **({"device": "cuda"} if args.device.startswith("cuda") else {}))
        est = cls(**params)
        test = _split_queries(data.qid, 0.1, args.seed)
        train = ~test
        X, Y, qid = data.X, data.Y, data.qid
        del data
        Xtr = X[train]  # the test rows are kept aside; the copy is part of the peak
        t0 = time.perf_counter()
        est.fit(Xtr, Y[train], qid=qid[train])
        out["fit_s"] = time.perf_counter() - t0
        del Xtr
        out["n_train_rows"] = int(train.sum())
        out["test_criterion"] = est.score(X[test], Y[test], qid=qid[test])
        if cls_name == "MLPRanker":
            h = est.history_
            out["epochs_run"] = est.n_epochs_
            out["best_epoch"] = est.best_epoch_
            out["val_criterion"] = est.best_score_
            out["s_per_epoch"] = float(np.mean([r["train_seconds"] for r in h]))
            out["val_s_per_epoch"] = float(np.mean([r.get("val_seconds", 0.0) for r in h]))
    out["load1_end"] = _load1()
    out["peak_gb"] = _peak_gb()
    print(json.dumps(out))


def _load_ref_module(rev: str):
    """The module ``bipartite/learners.py`` as of git revision ``rev`` (imported under another
    name; it uses the working tree's other bipartite modules)."""
    src = subprocess.run(["git", "show", f"{rev}:bipartite/learners.py"], cwd=REPO,
                         capture_output=True, text=True, check=True).stdout
    spec = importlib.util.spec_from_loader("bipartite_learners_ref", loader=None)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    exec(compile(src, f"{rev}:bipartite/learners.py", "exec"), mod.__dict__)
    return mod


def compare_epochs(args, path: Path) -> None:
    """Epoch time of MLPRanker at ``--compare-rev`` vs the working tree, same process and data."""
    import numpy as np
    import torch

    from bipartite import learners
    from bipartite.data import load_letor

    torch.set_num_threads(1)
    ref = _load_ref_module(args.compare_rev)
    data = load_letor(path, click="feature", dtype=np.float32)
    E = args.compare_epochs
    print(f"\nMLPRanker fit of {E} epochs (validation split 10% of queries, early stopping off), "
          f"{data.X.shape[0]} rows, {len(np.unique(data.qid))} queries; "
          f"old = {args.compare_rev}:bipartite/learners.py, new = working tree")
    cases = [(name, dict(p)) for name, (cls, p) in LEARNERS.items() if cls == "MLPRanker"]
    settings = [("old", ref, 512, 1), ("new", learners, 512, 1),
                ("new", learners, args.batch_size, 1)]
    if args.compare_threads:
        settings += [("new", learners, args.batch_size, 2)]
    # warm-up (lazy torch imports inside the first Adam step, allocator) outside the timings
    small = slice(0, 3000)
    for mod in (ref, learners):
        mod.MLPRanker(epochs=1, n_jobs=1, random_state=0, device="cpu").fit(
            data.X[small], data.Y[small], qid=data.qid[small])
    head = (f"{'learner':20s} {'version':7s} {'batch':>5s} {'thr':>3s} {'fit_s':>7s} "
            f"{'s/epoch':>8s} {'old512/this':>11s} {'val_crit':>8s} {'load1':>5s}")
    print(head)
    print("-" * len(head))
    for name, params in cases:
        base = None
        for version, mod, bs, thr in settings:
            est = mod.MLPRanker(**params, epochs=E, n_iter_no_change=E + 1, batch_size=bs,
                                n_jobs=thr, random_state=0, device="cpu")
            t0 = time.perf_counter()
            est.fit(data.X, data.Y, qid=data.qid)
            fit = time.perf_counter() - t0
            if base is None:
                base = fit
            crit = est.history_[-1].get("val_criterion", float("nan"))
            print(f"{name:20s} {version:7s} {bs:5d} {thr:3d} {fit:7.2f} {fit / E:8.2f} "
                  f"{base / fit:11.2f} {crit:8.4f} {_load1():5.2f}", flush=True)


def _vs_data(n_queries: int, seed: int = 0):
    """MSLR-shaped arrays in memory: queries of 20-100 rows, 136 float32 features, K = 2 labels
    with both classes in every query (so every stacked group holds pairs)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    sizes = rng.integers(20, 101, size=n_queries)
    qid = np.repeat(np.arange(n_queries), sizes)
    X = rng.normal(size=(len(qid), 136)).astype(np.float32)
    Y = (X[:, :2] + rng.normal(size=(len(qid), 2)) > 0.5).astype(np.int64)
    first = np.r_[0, np.cumsum(sizes)[:-1]]
    Y[first] = 1
    Y[first + 1] = 0
    return X, Y, qid


def _plain_torch_fit(X, Y, batches, objective, hidden, epochs, lr, weight_decay, device, seed):
    """The plain torch loop: same net, epochs and batches as the ranker, dense pair weights."""
    import numpy as np
    import torch

    from bipartite.learners.nets import make_mlp

    mean, sd = X.mean(axis=0, dtype=np.float64), X.std(axis=0, dtype=np.float64)
    Xt = torch.as_tensor(((X - mean) / np.where(sd > 0, sd, 1.0)).astype(np.float32),
                         device=device)
    Yt = torch.as_tensor(Y, dtype=torch.float32, device=device)
    ybar = Yt.sum(1)
    net = make_mlp(X.shape[1], hidden, 1, seed=seed).to(device)
    opt = torch.optim.Adam(net.parameters(), lr=lr, weight_decay=weight_decay)
    for epoch in range(epochs):
        per_batch = sum(b.shape[0] for b in batches[epoch]) / len(batches[epoch])
        for idx_np in batches[epoch]:
            idx = torch.as_tensor(idx_np, device=device)
            where = idx >= 0
            safe = idx.clamp(min=0)
            out = net(Xt[idx[where]])
            s = torch.zeros(idx.shape, device=device).masked_scatter(where, out[:, 0])
            v = where.to(torch.float32)
            if objective == "loss_aggregation":
                pos = Yt[safe] * v[..., None]
                neg = (1 - Yt[safe]) * v[..., None]
                npairs = pos.sum(1) * neg.sum(1)
                coef = torch.where(npairs > 0, 1 / npairs.clamp(min=1), 0.0)
                W = (pos * coef[:, None, :]) @ neg.transpose(1, 2)
            else:
                yb = ybar[safe]
                W = torch.relu(yb[:, :, None] - yb[:, None, :]) * v[:, :, None] * v[:, None, :]
                W = W / W.sum((1, 2), keepdim=True).clamp(min=1e-30)
            d = s[:, :, None] - s[:, None, :]
            loss = (W * torch.nn.functional.softplus(-d)).sum() / per_batch
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
    return net


def _stack_plain(X, Y, qid, K):
    """One XGBoost group per (query, label): rows sorted by query (qid is sorted here)."""
    import numpy as np

    sizes = np.bincount(qid)
    starts = np.r_[0, np.cumsum(sizes)[:-1]]
    gq = np.repeat(np.arange(len(sizes)), K)
    lengths = sizes[gq]
    rows = np.repeat(starts[gq], lengths) + np.arange(lengths.sum()) \
        - np.repeat(np.cumsum(lengths) - lengths, lengths)
    ks = np.repeat(np.tile(np.arange(K), len(sizes)), lengths)
    return rows, Y[rows, ks].astype(np.float32), np.repeat(np.arange(len(gq)), lengths), \
        1.0 / sizes[gq]


def vs_plain(args) -> None:
    """MLPRanker and XGBRanker against plain torch / xgb.train, side by side, interleaved."""
    import statistics

    import numpy as np
    import torch

    from bipartite import learners
    from bipartite.learners import mlp as mlp_module

    try:
        import xgboost as xgb
    except ImportError as exc:  # the GPU machine's image has no xgboost: say so, run the MLPs
        xgb, no_xgb = None, f"XGBRanker rows not run: xgboost cannot be imported ({exc})"

    torch.set_num_threads(args.mlp_threads)
    X, Y, qid = _vs_data(args.vs_queries)
    dev, R = args.device, args.vs_repeats
    print(f"\n# vs plain libraries: {len(qid)} rows, {args.vs_queries} queries, 136 features, "
          f"K = 2; device {dev}; torch {torch.__version__} ({args.mlp_threads} thread(s)), "
          f"xgboost {xgb.__version__ if xgb else 'absent'} ({args.n_jobs} thread(s)); "
          f"{R} interleaved repeats; "
          f"load average {_load1():.1f} on {os.cpu_count()} CPUs")
    print("| learner | ours s (median) | plain s (median) | ratio (median) | target |")
    print("|---|---|---|---|---|")
    E, hidden = args.vs_epochs, (64, 64)
    for objective in ("loss_aggregation", "label_aggregation"):
        est = learners.MLPRanker(method="pairwise", objective=objective, hidden=hidden,
                                 epochs=E, batch_size=args.batch_size, validation_fraction=0.0,
                                 n_jobs=args.mlp_threads, random_state=0, device=dev)
        recorded: list = []
        original = mlp_module.MLPRanker._epoch_batches

        def recording(self, tr, groups, rng, _orig=original):
            out = _orig(self, tr, groups, rng)
            recorded.append(out)
            return out

        mlp_module.MLPRanker._epoch_batches = recording
        try:
            est.fit(X, Y, qid=qid)  # warm-up, and the batches of every epoch
        finally:
            mlp_module.MLPRanker._epoch_batches = original
        batches = recorded[:E]
        _plain_torch_fit(X, Y, batches, objective, hidden, 1, 1e-3, 1e-5, dev, 0)  # warm-up
        ours, plain = [], []
        for _ in range(R):
            t0 = time.perf_counter()
            est.fit(X, Y, qid=qid)
            ours.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            _plain_torch_fit(X, Y, batches, objective, hidden, E, est.lr, est.weight_decay,
                             dev, 0)
            plain.append(time.perf_counter() - t0)
        ratio = statistics.median(a / b for a, b in zip(ours, plain, strict=True))
        print(f"| MLPRanker pairwise {objective} ({E} epochs, batch {args.batch_size}) | "
              f"{statistics.median(ours):.2f} | {statistics.median(plain):.2f} | "
              f"{ratio:.2f} | 1.3 |", flush=True)
    if xgb is None:
        print(no_xgb)
        print(f"(load average after: {_load1():.1f})")
        return
    extra = {"device": "cuda"} if dev.startswith("cuda") else {}
    T = args.vs_estimators
    for K in (1, 2):
        Yk = Y[:, :K]
        est = learners.XGBRanker(method="pairwise", n_estimators=T, n_jobs=args.n_jobs,
                                 random_state=0, **extra)
        params = {"booster": "gbtree", "tree_method": "hist", "eta": est.learning_rate,
                  "max_depth": est.max_depth, "seed": 0, "verbosity": 0, "nthread": args.n_jobs,
                  "objective": "rank:pairwise", "lambdarank_pair_method": "mean",
                  "lambdarank_num_pair_per_sample": est.num_pair_per_sample,
                  "lambdarank_score_normalization": False, **extra}

        def plain_xgb():
            rows, label, q, w = _stack_plain(X, Yk, qid, K)
            Xs = X if K == 1 else X[rows]
            d = xgb.DMatrix(Xs, label=label, qid=q.astype(np.uint32),
                            weight=w.astype(np.float32))
            return xgb.train(params, d, num_boost_round=T)

        est.fit(X, Yk, qid=qid)  # warm-up
        ours, plain = [], []
        for _ in range(R):
            t0 = time.perf_counter()
            est.fit(X, Yk, qid=qid)
            ours.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            plain_xgb()
            plain.append(time.perf_counter() - t0)
        ratio = statistics.median(a / b for a, b in zip(ours, plain, strict=True))
        print(f"| XGBRanker pairwise loss_aggregation K={K} ({T} rounds) vs xgb.train | "
              f"{statistics.median(ours):.2f} | {statistics.median(plain):.2f} | "
              f"{ratio:.2f} | 1.1 |", flush=True)
    print(f"(load average after: {_load1():.1f})")


def _check_device(parser, device: str) -> None:
    """Refuse a device torch cannot use here, naming it (the package's one resolver), before any
    work: ``--device cuda`` without CUDA is a clear error, not a crash halfway."""
    from bipartite._utils.device import resolve_device

    try:
        dev = resolve_device(device, "--device")
    except ValueError as exc:
        parser.error(str(exc))
    if dev.type not in ("cpu", "cuda"):
        parser.error(f"--device {device!r}: only cpu and cuda are benchmarked.")


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n-queries", type=int, default=1000)
    p.add_argument("--learners", default=",".join(LEARNERS))
    p.add_argument("--epochs", type=int, default=30, help="MLP maximum epochs")
    p.add_argument("--n-iter-no-change", type=int, default=3, help="MLP early-stopping patience")
    p.add_argument("--batch-size", type=int, default=2048, help="MLP batch size (rows)")
    p.add_argument("--mlp-threads", type=int, default=1)
    p.add_argument("--n-estimators", type=int, default=300)
    p.add_argument("--n-jobs", type=int, default=2, help="XGBoost threads")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workdir", type=Path, default=None,
                   help="where the generated file goes (default: a temporary directory)")
    p.add_argument("--keep-file", action="store_true", help="do not delete the generated file")
    p.add_argument("--skip-load-only", action="store_true",
                   help="no load-only worker (every learner row reports its own load time)")
    p.add_argument("--compare-rev", default=None,
                   help="git revision of bipartite/learners.py to time MLP epochs against")
    p.add_argument("--compare-epochs", type=int, default=3)
    p.add_argument("--compare-threads", action="store_true",
                   help="with --compare-rev, also time 2 torch threads")
    p.add_argument("--device", default="cpu",
                   help="cpu (default) or cuda[:i] for the MLPs and XGBoost (refused when CUDA "
                        "is not available)")
    p.add_argument("--quick", action="store_true",
                   help="only the plain-library comparison (--vs-plain) on a small problem")
    p.add_argument("--vs-plain", action="store_true",
                   help="MLPRanker / XGBRanker against plain torch / xgb.train, then exit")
    p.add_argument("--vs-queries", type=int, default=1000)
    p.add_argument("--vs-epochs", type=int, default=3)
    p.add_argument("--vs-estimators", type=int, default=50)
    p.add_argument("--vs-repeats", type=int, default=5)
    p.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    p.add_argument("--file", default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    _check_device(p, args.device)
    if args.worker:
        worker(args)
        return
    if args.quick:
        args.vs_queries, args.vs_epochs, args.vs_estimators, args.vs_repeats = 150, 2, 20, 3
        args.batch_size = 1024
    if args.quick or args.vs_plain:
        vs_plain(args)
        return

    from bipartite.data import make_mslr_like

    tmp = tempfile.TemporaryDirectory() if args.workdir is None else None
    workdir = Path(tmp.name) if tmp else args.workdir
    workdir.mkdir(parents=True, exist_ok=True)
    path = workdir / f"mslr_like_{args.n_queries}q_seed{args.seed}.txt"
    t0 = time.perf_counter()
    make_mslr_like(path, n_queries=args.n_queries, seed=args.seed)
    make_s = time.perf_counter() - t0
    size_mb = path.stat().st_size / 2**20
    print(f"made {path}: {size_mb:.0f} MiB in {make_s:.1f} s", flush=True)
    try:
        if args.compare_rev:
            compare_epochs(args, path)
        else:
            run_table(args, path, size_mb)
    finally:
        if not args.keep_file:
            path.unlink(missing_ok=True)
        if tmp:
            tmp.cleanup()


def run_table(args, path: Path, size_mb: float) -> None:
    env = dict(os.environ, OMP_NUM_THREADS=str(args.n_jobs))
    rows = []
    first = ["baseline"] if args.skip_load_only else ["baseline", "load"]
    for name in [*first, *args.learners.split(",")]:
        if name not in LEARNERS and name not in ("baseline", "load"):
            raise SystemExit(f"unknown learner {name!r}; choose from {sorted(LEARNERS)}")
        cmd = [sys.executable, __file__, "--worker", name, "--file", str(path),
               "--device", args.device,
               "--epochs", str(args.epochs), "--n-iter-no-change", str(args.n_iter_no_change),
               "--batch-size", str(args.batch_size), "--mlp-threads", str(args.mlp_threads),
               "--n-estimators", str(args.n_estimators), "--n-jobs", str(args.n_jobs),
               "--seed", str(args.seed)]
        res = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
        if res.returncode != 0:
            print(f"{name}: FAILED\n{res.stderr[-2000:]}", flush=True)
            continue
        row = json.loads(res.stdout.strip().splitlines()[-1])
        rows.append(row)
        print(json.dumps(row), flush=True)

    base = next((r["peak_gb"] for r in rows if r["learner"] == "baseline"), float("nan"))
    n_rows = next((r.get("n_rows") for r in rows if "n_rows" in r), None)
    print()
    print(f"device={args.device}  n_queries={args.n_queries}  rows={n_rows}  "
          f"file={size_mb:.0f} MiB  "
          f"xgb threads={args.n_jobs} ({args.n_estimators} rounds)  mlp threads={args.mlp_threads}"
          f" (batch {args.batch_size}, <= {args.epochs} epochs, patience "
          f"{args.n_iter_no_change})  target: load + fit < 15 min and < 12 GB")
    head = (f"{'learner':20s} {'load_s':>6s} {'fit_s':>7s} {'total_min':>9s} {'peak_GB':>7s} "
            f"{'ok':>3s} {'epochs':>6s} {'s/epoch':>7s} {'val_crit':>8s} {'test_crit':>9s} "
            f"{'load1':>11s}")
    print(head)
    print("-" * len(head))
    for r in rows:
        if r["learner"] == "baseline":
            continue
        total = (r["load_s"] + r["fit_s"]) / 60
        ok = "yes" if total < 15 and r["peak_gb"] < 12 else "NO"
        ep = f"{r['epochs_run']}/{r['best_epoch']}" if "epochs_run" in r else "-"
        spe = f"{r['s_per_epoch']:.1f}" if "s_per_epoch" in r else "-"
        vc = f"{r['val_criterion']:.4f}" if "val_criterion" in r else "-"
        tc = f"{r['test_criterion']:.4f}" if "test_criterion" in r else "-"
        ld = f"{r['load1_start']:.1f}->{r['load1_end']:.1f}"
        print(f"{r['learner']:20s} {r['load_s']:6.0f} {r['fit_s']:7.0f} {total:9.1f} "
              f"{r['peak_gb']:7.2f} {ok:>3s} {ep:>6s} {spe:>7s} {vc:>8s} {tc:>9s} {ld:>11s}")
    print(f"(baseline process peak after imports: {base:.2f} GB; epochs = run/best; "
          "val_crit = MLP early-stopping criterion on its validation queries; test_crit = "
          "criterion on the 10% held-out queries; load1 = 1-min load average at start -> end)")


if __name__ == "__main__":
    main()
