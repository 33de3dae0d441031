"""Benchmark: forward+backward time and peak memory of the surrogate losses (docs/theory.md §8).

Batches of 64 queries x n_items for n in {32, 128, 512, 2048}, float32 on the CPU with
``torch.set_num_threads(2)`` (``--threads``). Losses: ``quadlinear_ap_loss``, ``smooth_ap_loss``,
``pairwise_loss(kind="logistic")`` and, as the baseline, the pointwise
``binary_cross_entropy_with_logits`` on the same batch; the ratio columns compare with the baseline
and with ``pairwise_loss``, all measured in the same run.

What is measured:

* time — wall time of ``loss(scores).backward()`` over ``--repeats`` calls after one warm-up
  call; median and min are printed, and the ratio columns use the min, the most robust statistic
  on a shared, loaded machine (other processes only ever add time);
* memory — each (loss, n) runs in a fresh subprocess; peak memory is the increase of the process's
  peak resident set size over one forward+backward, after imports, input creation and a small
  warm-up of the same loss: the peak counter VmHWM is reset through /proc/self/clear_refs and read
  from /proc/self/status (Linux); elsewhere ``ru_maxrss`` is used (a lower bound). It counts the
  loss's own tensors: the O(n²) pair matrices and what autograd saves. RSS is what the OS really
  gave the process; torch's CPU allocator returns large blocks to the OS, so the high-water mark
  is the loss's peak.

The AP and pairwise losses hold [64, n, n] pair matrices: memory is O(n²) per query. The script
reports the measured bytes per pair at the largest n that ran and the n at which a 64-query batch
would exceed ``--budget-gb`` (default 8 GB). A configuration whose projected peak (from the
bytes/pair of the previous n) exceeds ``--max-gb`` is skipped and reported as such.

Run from the repository root::

    python benchmarks/bench_surrogates.py                 # full table (a few minutes)
    python benchmarks/bench_surrogates.py --sizes 32 128  # quick
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import statistics
import subprocess
import sys
import time

BATCH = 64
LOSSES = ("quadlinear_ap", "smooth_ap", "pairwise_logistic", "bce_pointwise")


def _make_loss(name: str):
    import torch

    from bipartite import surrogates

    if name == "quadlinear_ap":
        return lambda s, y: surrogates.quadlinear_ap_loss(s, y, delta=0.05, rho=1.0)
    if name == "smooth_ap":
        return lambda s, y: surrogates.smooth_ap_loss(s, y, tau=0.01)
    if name == "pairwise_logistic":
        return lambda s, y: surrogates.pairwise_loss(s, y, kind="logistic")
    return lambda s, y: torch.nn.functional.binary_cross_entropy_with_logits(s, y)


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise OSError(f"{field} not in /proc/self/status")


def _reset_peak() -> tuple[int, str]:
    """Reset the peak-RSS counter if the kernel allows it; return (baseline bytes, probe name).

    Linux: writing "5" to /proc/self/clear_refs resets VmHWM (peak RSS) to the current RSS, so
    VmHWM - VmRSS afterwards is the peak *increase*. Otherwise fall back to ru_maxrss, whose
    baseline is the earlier lifetime peak (a lower bound of the increase).
    """
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return _status_kib("VmRSS") * 1024, "VmHWM"
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, "ru_maxrss"


def _peak(how: str) -> int:
    if how == "VmHWM":
        return _status_kib("VmHWM") * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def worker(name: str, n: int, repeats: int, threads: int = 2) -> dict:
    """One configuration in this (fresh) process: times and peak-RSS increase."""
    import torch

    torch.set_num_threads(threads)
    gen = torch.Generator().manual_seed(0)
    loss_fn = _make_loss(name)
    y = (torch.rand(BATCH, n, generator=gen) < 0.25).to(torch.float32)
    y[:, 0] = 1.0
    base = torch.randn(BATCH, n, generator=gen)
    # warm-up on a tiny batch: loads kernels without raising the high-water mark
    small = base[:2, : min(n, 8)].clone().requires_grad_(True)
    loss_fn(small, y[:2, : min(n, 8)]).backward()
    s = base.clone().requires_grad_(True)
    before, how = _reset_peak()
    loss_fn(s, y).backward()
    peak_bytes = _peak(how) - before
    times = []
    for _ in range(repeats):
        s.grad = None
        t0 = time.perf_counter()
        loss_fn(s, y).backward()
        times.append(time.perf_counter() - t0)
    return {"median_s": statistics.median(times), "min_s": min(times),
            "peak_bytes": peak_bytes, "memory_probe": how}


def run_config(name: str, n: int, repeats: int, threads: int) -> dict:
    cmd = [sys.executable, __file__, "--threads", str(threads), "--worker", name, str(n),
           str(repeats)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1] if out.stderr else "failed"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[32, 128, 512, 2048])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--budget-gb", type=float, default=8.0)
    p.add_argument("--max-gb", type=float, default=6.0,
                   help="skip a configuration whose projected peak memory exceeds this")
    p.add_argument("--max-seconds", type=float, default=20.0,
                   help="skip a configuration whose projected time per call exceeds this")
    p.add_argument("--losses", nargs="+", default=list(LOSSES), choices=LOSSES)
    p.add_argument("--threads", type=int, default=2,
                   help="torch.set_num_threads in each worker (default 2). On a loaded machine "
                        "2 threads can wait on OpenMP barriers; compare with --threads 1")
    p.add_argument("--worker", nargs=3, metavar=("LOSS", "N", "REPEATS"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        name, n, repeats = args.worker[0], int(args.worker[1]), int(args.worker[2])
        print(json.dumps(worker(name, n, repeats, args.threads)))
        return 0

    import torch

    print(f"# bench_surrogates: batch {BATCH} queries, float32, CPU, torch {torch.__version__}, "
          f"{args.threads} thread(s), {args.repeats} repeats; load average before: "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    results: dict[tuple[str, int], dict] = {}
    bytes_per_pair: dict[str, float] = {}
    seconds_per_pair: dict[str, float] = {}
    for n in sorted(args.sizes):
        for name in args.losses:
            pairs = BATCH * n * n
            if name in bytes_per_pair and bytes_per_pair[name] * pairs > args.max_gb * 1e9:
                gb = bytes_per_pair[name] * pairs / 1e9
                results[(name, n)] = {"skipped": f"projected peak {gb:.1f} GB > --max-gb"}
                continue
            if name in seconds_per_pair and seconds_per_pair[name] * pairs > args.max_seconds:
                sec = seconds_per_pair[name] * pairs
                results[(name, n)] = {"skipped": f"projected {sec:.0f} s per call > --max-seconds"}
                continue
            r = run_config(name, n, args.repeats if n < 2048 else max(1, args.repeats // 2),
                           args.threads)
            results[(name, n)] = r
            if "peak_bytes" in r and name != "bce_pointwise":
                if r["peak_bytes"] > 0:
                    bytes_per_pair[name] = r["peak_bytes"] / pairs
                seconds_per_pair[name] = r["median_s"] / pairs

    header = ("| loss | n | fwd+bwd ms (median) | min ms | x BCE (min) | x pairwise (min) "
              "| peak MB | bytes/pair |")
    print(header)
    print("|" + "---|" * 8)
    for n in sorted(args.sizes):
        ref = results.get(("bce_pointwise", n), {})
        pw = results.get(("pairwise_logistic", n), {})
        for name in args.losses:
            r = results[(name, n)]
            if "median_s" not in r:
                why = r.get("skipped") or r.get("error")
                print(f"| {name} | {n} | skipped: {why} | | | | | |")
                continue
            x_bce = r["min_s"] / ref["min_s"] if "min_s" in ref else math.nan
            x_pw = r["min_s"] / pw["min_s"] if "min_s" in pw else math.nan
            bpp = r["peak_bytes"] / (BATCH * n * n)
            print(f"| {name} | {n} | {1e3 * r['median_s']:.2f} | {1e3 * r['min_s']:.2f} | "
                  f"{x_bce:.1f} | {x_pw:.2f} | {r['peak_bytes'] / 1e6:.1f} | {bpp:.1f} |")
    print()
    print(f"Peak memory is O(n^2) per query. Measured bytes/pair at the largest n that ran, "
          f"and the n at which one {BATCH}-query batch exceeds {args.budget_gb:g} GB:")
    for name in args.losses:
        if name in bytes_per_pair:
            bpp = bytes_per_pair[name]
            n_max = math.sqrt(args.budget_gb * 1e9 / (BATCH * bpp))
            print(f"- {name}: {bpp:.1f} bytes/pair -> n ≈ {n_max:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
