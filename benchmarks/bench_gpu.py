"""Benchmark: the package on a CUDA GPU against the same code on the CPU of the same machine.

Three tables, each timed side by side in one process (the README's GPU section):

1. **``auc`` on 10⁸ scores** (``--auc-n``): :func:`bipartite.metrics.auc` of a float64 score
   tensor on the GPU (``torch.sort`` there, ``bipartite/metrics/_tensor_auc.py``) against the CPU
   kernel on the same values in a NumPy array, with ``torch.sort`` on the GPU and ``np.sort`` on
   the CPU as the floors; the two AUCs must be equal (the script fails otherwise). Median of
   ``--repeats`` calls after one warm-up; the host-to-device copy of the scores is timed apart.
2. **Time per epoch and peak GPU memory** of :class:`bipartite.learners.MLPRanker`
   (``method="pairwise"``, loss and label aggregation) on MSLR-shaped data in memory
   (``--queries`` queries of 20-100 rows, 136 features, K = 2; batches of ``--batch-sizes``
   rows), the same estimator on the CPU
   (``n_jobs=--cpu-threads`` torch threads) and on CUDA, ``--epochs`` epochs, no validation
   split. Seconds per epoch are the median of ``history_[i]["train_seconds"]`` over the epochs
   after the first; peak GPU memory is ``torch.cuda.max_memory_allocated`` over the fit.
3. **The largest batch at n = 2048** items per query (``--items``) of each O(n²) surrogate loss
   (``pairwise_loss(kind="logistic")``, ``smooth_ap_loss``, ``quadlinear_ap_loss``), float32,
   forward + backward: the bytes per pair are measured at a small batch, the largest batch is
   predicted from the free GPU memory, then found by bisection between real runs (a batch that
   raises ``torch.cuda.OutOfMemoryError`` does not fit). The table gives the largest batch that
   ran, its time per forward+backward and its peak memory.

Refused with a clear message when CUDA is not available (``--device cpu`` runs the same code on
the CPU at toy sizes: the script's own smoke test). The machine (GPU name, memory, torch
version, CPU count, load average) is printed with the tables.

Run from the repository root::

    python benchmarks/bench_gpu.py                 # on a CUDA machine, about 2-3 minutes
    python benchmarks/bench_gpu.py --json out.json # also write the numbers as JSON
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import sys
import time

import numpy as np


def _sync(dev) -> None:
    import torch

    if dev.type == "cuda":
        torch.cuda.synchronize(dev)


def _timed(fn, dev, repeats: int, warm_up: bool = True) -> tuple[float, object]:
    """Median wall time of ``fn()`` over ``repeats`` calls (after one warm-up call, which GPU
    kernels need and a 10-second CPU sort does not), and its result."""
    out = None
    if warm_up:
        out = fn()
        _sync(dev)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        _sync(dev)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def auc_table(n: int, repeats: int, dev, seed: int = 0) -> dict:
    import torch

    from bipartite.metrics import auc

    rng = np.random.default_rng(seed)
    s = rng.normal(size=n)
    y = (s + rng.normal(size=n) > 1.0).astype(np.int8)
    t0 = time.perf_counter()
    s_dev = torch.from_numpy(s).to(dev)
    y_dev = torch.from_numpy(y).to(dev)
    _sync(dev)
    copy_s = time.perf_counter() - t0
    cpu = torch.device("cpu")
    cpu_auc_s, a_cpu = _timed(lambda: auc(y, s), cpu, repeats, warm_up=False)
    cpu_sort_s, _ = _timed(lambda: np.sort(s), cpu, repeats, warm_up=False)
    gpu_auc_s, a_gpu = _timed(lambda: auc(y_dev, s_dev), dev, repeats)
    gpu_sort_s, _ = _timed(lambda: torch.sort(s_dev), dev, repeats)
    if dev.type == "cuda":
        if a_gpu != a_cpu:
            raise SystemExit(f"auc on the GPU {a_gpu!r} != the CPU kernel's {a_cpu!r}")
    row = dict(n=n, auc=a_cpu, auc_gpu=a_gpu, copy_s=copy_s, cpu_auc_s=cpu_auc_s,
               cpu_sort_s=cpu_sort_s, gpu_auc_s=gpu_auc_s, gpu_sort_s=gpu_sort_s)
    print(f"\n## auc on {n:.3g} float64 scores (median of {repeats}; GPU after a warm-up)")
    print("| kernel | seconds | x its sort | CPU auc / this |")
    print("|---|---|---|---|")
    print(f"| CPU `auc` (NumPy kernel) | {cpu_auc_s:.3f} | {cpu_auc_s / cpu_sort_s:.2f} x np.sort "
          f"| 1 |")
    print(f"| GPU `auc` (torch.sort on {dev}) | {gpu_auc_s:.4f} | "
          f"{gpu_auc_s / gpu_sort_s:.2f} x torch.sort | {cpu_auc_s / gpu_auc_s:.0f} |")
    print(f"| np.sort / torch.sort | {cpu_sort_s:.3f} / {gpu_sort_s:.4f} | | "
          f"{cpu_sort_s / gpu_sort_s:.0f} (sorts) |")
    print(f"(host-to-device copy of the scores and labels: {copy_s:.3f} s; AUC {a_cpu!r} on both)",
          flush=True)
    return row


def mlp_table(queries: int, epochs: int, batch_sizes: list[int], cpu_threads: int, dev
              ) -> list[dict]:
    import torch

    from bipartite.learners import MLPRanker

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from bench_learners import _vs_data

    X, Y, qid = _vs_data(queries)
    rows = []
    print(f"\n## MLPRanker pairwise fit: {len(qid)} rows, {queries} queries, 136 features, K = 2, "
          f"{epochs} epochs, hidden (64, 64)")
    print("| objective | batch rows | device | s / epoch (median) | CPU / this | "
          "peak GPU memory MB |")
    print("|---|---|---|---|---|---|")
    for objective, batch_size in itertools.product(("loss_aggregation", "label_aggregation"),
                                                   batch_sizes):
        per = {}
        for where in ("cpu", str(dev)):
            d = torch.device(where)
            est = MLPRanker(method="pairwise", objective=objective, epochs=epochs,
                            batch_size=batch_size, validation_fraction=0.0,
                            n_jobs=cpu_threads, random_state=0, device=where)
            if d.type == "cuda":
                torch.cuda.synchronize(d)
                torch.cuda.reset_peak_memory_stats(d)
            est.fit(X, Y, qid=qid)
            peak = torch.cuda.max_memory_allocated(d) / 1e6 if d.type == "cuda" else float("nan")
            secs = [h["train_seconds"] for h in est.history_]
            spe = statistics.median(secs[1:] if len(secs) > 1 else secs)
            per[where] = spe
            rows.append(dict(objective=objective, batch_size=batch_size, device=where,
                             s_per_epoch=spe, peak_mb=peak))
            label = f"{where} ({cpu_threads} threads)" if d.type == "cpu" else where
            print(f"| {objective} | {batch_size} | {label} "
                  f"| {spe:.3f} | {per['cpu'] / spe:.1f} | "
                  f"{'-' if d.type == 'cpu' else f'{peak:.0f}'} |", flush=True)
    return rows


def _loss_fns():
    from bipartite import surrogates

    return {
        "pairwise_logistic": lambda s, y: surrogates.pairwise_loss(s, y, kind="logistic"),
        "smooth_ap": lambda s, y: surrogates.smooth_ap_loss(s, y, tau=0.01),
        "quadlinear_ap": lambda s, y: surrogates.quadlinear_ap_loss(s, y, delta=0.05, rho=1.0),
    }


def _try_batch(fn, B: int, n: int, dev) -> tuple[float, int] | None:
    """(seconds, peak bytes) of one forward+backward at batch B, or None when it runs out of
    memory."""
    import torch

    g = torch.Generator(device="cpu").manual_seed(B)
    try:
        y = (torch.rand(B, n, generator=g) < 0.25).float().to(dev)
        s = torch.randn(B, n, generator=g).to(dev).requires_grad_(True)
        if dev.type == "cuda":
            torch.cuda.synchronize(dev)
            torch.cuda.reset_peak_memory_stats(dev)
        before = torch.cuda.memory_allocated(dev) if dev.type == "cuda" else 0
        t0 = time.perf_counter()
        fn(s, y).backward()
        _sync(dev)
        secs = time.perf_counter() - t0
        peak = torch.cuda.max_memory_allocated(dev) - before if dev.type == "cuda" else 0
        return secs, peak
    except torch.cuda.OutOfMemoryError:
        return None
    finally:
        s = y = None
        if dev.type == "cuda":
            torch.cuda.empty_cache()


def batch_table(n: int, dev, max_batch: int, steps: int) -> list[dict]:
    import torch

    rows = []
    free = torch.cuda.mem_get_info(dev)[0] if dev.type == "cuda" else 2**30
    print(f"\n## Largest batch of {n}-item queries, forward+backward, float32 "
          f"({free / 2**30:.1f} GiB free on {dev} at the start)")
    print("| loss | bytes / pair | largest batch that ran | first that did not | s per fwd+bwd "
          "at the largest | peak GB |")
    print("|---|---|---|---|---|---|")
    for name, fn in _loss_fns().items():
        probe = 4
        _try_batch(fn, probe, n, dev)  # warm-up
        got = _try_batch(fn, probe, n, dev)
        if got is None:
            print(f"| {name} | out of memory at batch {probe} | | | | |")
            continue
        bpp = max(got[1], 1) / (probe * n * n)
        guess = int(min(max_batch, max(probe, 0.95 * free / (bpp * n * n))))
        lo, hi, best = probe, None, got  # lo ran; hi (if any) did not
        B = guess
        for _ in range(steps):
            r = _try_batch(fn, B, n, dev)
            if r is None:
                hi = B
            else:
                lo, best = B, r
            if hi is None:
                if B >= max_batch:
                    break
                B = min(max_batch, int(B * 1.25) + 1)
            elif hi - lo <= max(1, lo // 50):
                break
            elif lo < 0.8 * hi:
                B = int(0.9 * hi)  # the prediction was close: step down from it, not halve
            else:
                B = (lo + hi) // 2
        rows.append(dict(loss=name, bytes_per_pair=bpp, largest=lo, failed=hi,
                         seconds=best[0], peak_gb=best[1] / 1e9))
        print(f"| {name} | {bpp:.1f} | {lo} | {hi if hi is not None else f'> (cap {max_batch})'} "
              f"| {best[0]:.3f} | {best[1] / 1e9:.1f} |", flush=True)
    return rows


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", default="cuda", help="cuda (default) or cpu (a smoke test)")
    p.add_argument("--auc-n", type=float, default=1e8)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--queries", type=int, default=3000)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--batch-sizes", type=int, nargs="+", default=[2048, 16384])
    p.add_argument("--cpu-threads", type=int, default=None,
                   help="torch threads of the CPU fit (default: all cores)")
    p.add_argument("--items", type=int, default=2048)
    p.add_argument("--max-batch", type=int, default=100_000)
    p.add_argument("--steps", type=int, default=12, help="most real runs per loss in the search")
    p.add_argument("--only", nargs="+", choices=["auc", "mlp", "batch"],
                   default=["auc", "mlp", "batch"])
    p.add_argument("--json", default=None, help="also write the numbers to this JSON file")
    args = p.parse_args(argv)

    import torch

    from bipartite._utils.device import resolve_device

    try:
        dev = resolve_device(args.device, "--device")
    except ValueError as exc:
        p.error(str(exc))
    if dev.type == "cuda" and dev.index is None:
        dev = torch.device("cuda", torch.cuda.current_device())
    threads = args.cpu_threads or os.cpu_count() or 1
    gpu = (f"{torch.cuda.get_device_name(dev)}, "
           f"{torch.cuda.get_device_properties(dev).total_memory / 2**30:.0f} GiB"
           if dev.type == "cuda" else "no GPU (smoke test on the CPU)")
    print(f"# bench_gpu: {gpu}; torch {torch.__version__} (CUDA {torch.version.cuda}); numpy "
          f"{np.__version__}; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}",
          flush=True)
    out = {"device": gpu, "torch": torch.__version__, "cpus": os.cpu_count()}
    if "auc" in args.only:
        out["auc"] = auc_table(int(args.auc_n), args.repeats, dev)
    if "mlp" in args.only:
        out["mlp"] = mlp_table(args.queries, args.epochs, args.batch_sizes, threads, dev)
    if "batch" in args.only:
        out["batch"] = batch_table(args.items, dev, args.max_batch, args.steps)
    print(f"(load average at the end: {os.getloadavg()[0]:.1f})")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
