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

**Against plain torch** (``--vs-torch``, and what ``--quick`` runs): ``pairwise_loss``
(logistic, labels, mean) forward+backward against a plain torch expression of the same loss,
``-logsigmoid(s_i - s_j) * 1[y_i > y_j]`` summed over the dense n x n matrix and divided by the
number of pairs, at n = 256, 1024, 4096 items per query (``--vs-sizes``) with 2^22 / n^2 queries
per batch (at least one). The labels are binary, 25% positive (``--vs-grades 2``, the default), or
``G`` grades drawn uniformly (``--vs-grades G``): ``pairwise_loss`` sorts each list by grade and
visits only the blocks of pairs (n+ n- entries per list with binary labels, about the pairs with
graded ones), where the plain expression computes all n^2. Both run side by side in one process,
interleaved (ours, plain, ours, plain, ...); the table gives the median of the per-repeat ratios.
"Pairs" and "B/pair" count all n^2 ordered pairs of each list, for both. Peak memory of each, in bytes
per pair: on the CPU the increase of the peak RSS (VmHWM, reset through /proc/self/clear_refs)
over one forward+backward in a fresh subprocess, as above; on CUDA
``torch.cuda.max_memory_allocated`` after ``reset_peak_memory_stats``.

Threads. With 2 torch threads on a shared 2-core machine every operation big enough for torch's
OpenMP pool (above 32 768 elements) waits at a barrier for the second thread to be scheduled: a
sigmoid over 2^20 floats was measured at 16 ms median with 2 threads against 0.4 ms with 1 (load
average 5.7), so the 2-thread ratio counts such operations more than it counts work. This is why
0.5.0's chunked kernel (16 row chunks of ~13 pooled operations each at n = 4096, against ~13 for
the whole plain expression) lost there while it won with 1 thread; the label kernel visits only
the pairs, in one to three blocks at these sizes.

``--device cuda`` runs everything on the GPU (refused with a clear message when CUDA is not
available); the default is the CPU. The machine's load average is printed with every table.

Run from the repository root::

    python benchmarks/bench_surrogates.py --quick         # plain-torch ratios, under a minute
    python benchmarks/bench_surrogates.py                 # full table (a few minutes)
    python benchmarks/bench_surrogates.py --sizes 32 128  # smaller
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


def worker(name: str, n: int, repeats: int, threads: int = 2, device: str = "cpu") -> dict:
    """One configuration in this (fresh) process: times and peak-RSS increase."""
    import torch

    torch.set_num_threads(threads)
    gen = torch.Generator().manual_seed(0)
    loss_fn = _make_loss(name)
    y = (torch.rand(BATCH, n, generator=gen) < 0.25).to(torch.float32)
    y[:, 0] = 1.0
    base = torch.randn(BATCH, n, generator=gen)
    y, base = y.to(device), base.to(device)
    # warm-up on a tiny batch: loads kernels without raising the high-water mark
    small = base[:2, : min(n, 8)].clone().requires_grad_(True)
    loss_fn(small, y[:2, : min(n, 8)]).backward()
    s = base.clone().requires_grad_(True)
    if device.startswith("cuda"):
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        before, how = torch.cuda.memory_allocated(), "cuda.max_memory_allocated"
        loss_fn(s, y).backward()
        torch.cuda.synchronize()
        peak_bytes = torch.cuda.max_memory_allocated() - before
    else:
        before, how = _reset_peak()
        loss_fn(s, y).backward()
        peak_bytes = _peak(how) - before
    times = []
    for _ in range(repeats):
        s.grad = None
        _sync(device)
        t0 = time.perf_counter()
        loss_fn(s, y).backward()
        _sync(device)
        times.append(time.perf_counter() - t0)
    return {"median_s": statistics.median(times), "min_s": min(times),
            "peak_bytes": peak_bytes, "memory_probe": how}


def run_config(name: str, n: int, repeats: int, threads: int, device: str = "cpu") -> dict:
    cmd = [sys.executable, __file__, "--threads", str(threads), "--device", device, "--worker",
           name, str(n), str(repeats)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1] if out.stderr else "failed"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def _plain_pairwise(s, y):
    """Plain torch logistic pairwise loss: the dense n x n expression, mean over the pairs."""
    import torch

    d = s[..., :, None] - s[..., None, :]
    m = (y[..., :, None] > y[..., None, :]).to(s.dtype)
    return (-torch.nn.functional.logsigmoid(d) * m).sum() / m.sum()


def _plain_smooth_ap(s, y, tau=0.01):
    """Plain torch Smooth-AP (Brown et al. 2020, as their reference code): the sigmoid of every
    score difference once, the self pair masked, positive and all rankings by row sums, the loss
    1 − mean over the positives of rank⁺ / rank (= the mean of N / (1 + P + N))."""
    import torch

    n = s.shape[-1]
    G = torch.sigmoid((s[..., None, :] - s[..., :, None]) / tau)   # G[..., i, j]: j above i
    G = G * (1 - torch.eye(n, dtype=s.dtype, device=s.device))
    P = (G * y[..., None, :]).sum(-1)
    A = G.sum(-1)
    ap = ((1 + P) / (1 + A) * y).sum(-1) / y.sum(-1)
    return 1 - ap.mean()


#: The plain-torch comparisons: (ours, plain) for each loss.
VS = {"pairwise": ("pairwise_loss", "plain torch"), "smooth_ap": ("smooth_ap_loss",
                                                                 "plain smooth_ap")}


def _vs_fns():
    from bipartite import surrogates

    return {"pairwise_loss": lambda s, y: surrogates.pairwise_loss(s, y, kind="logistic"),
            "plain torch": _plain_pairwise,
            "smooth_ap_loss": lambda s, y: surrogates.smooth_ap_loss(s, y, tau=0.01),
            "plain smooth_ap": _plain_smooth_ap}


def _vs_inputs(n: int, device: str, grades: int = 2):
    """Scores and labels of one batch: binary labels (25% positive) when ``grades`` is 2, else
    grades drawn uniformly from 0..grades-1."""
    import torch

    gen = torch.Generator().manual_seed(0)
    batch = max(1, (1 << 22) // (n * n))
    if grades == 2:
        y = (torch.rand(batch, n, generator=gen) < 0.25).to(torch.float32)
    else:
        y = torch.randint(0, grades, (batch, n), generator=gen).to(torch.float32)
    y[:, 0] = grades - 1.0
    s = torch.randn(batch, n, generator=gen)
    return s.to(device).requires_grad_(True), y.to(device), batch


def _sync(device: str) -> None:
    import torch

    if device.startswith("cuda"):
        torch.cuda.synchronize()


def vs_worker(name: str, n: int, device: str, threads: int, grades: int = 2) -> dict:
    """Peak memory of one forward+backward of ``name`` at ``n`` (fresh process)."""
    import torch

    torch.set_num_threads(threads)
    fn = _vs_fns()[name]
    s, y, batch = _vs_inputs(n, device, grades)
    small, ys = s.detach()[:1, :8].clone().requires_grad_(True), y[:1, :8]
    fn(small, ys).backward()  # warm-up: kernels loaded outside the measurement
    if device.startswith("cuda"):
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        before = torch.cuda.memory_allocated()
        fn(s, y).backward()
        torch.cuda.synchronize()
        peak, how = torch.cuda.max_memory_allocated() - before, "cuda.max_memory_allocated"
    else:
        before, how = _reset_peak()
        fn(s, y).backward()
        peak = _peak(how) - before
    return {"peak_bytes": peak, "pairs": batch * n * n, "memory_probe": how}


def vs_torch(sizes: list[int], repeats: int, device: str, threads: int, grades: int = 2,
             loss: str = "pairwise") -> None:
    """``loss`` (pairwise_loss or smooth_ap_loss) against plain torch, side by side in this
    process; memory in subprocesses."""
    import torch

    torch.set_num_threads(threads)
    fns = {k: _vs_fns()[k] for k in VS[loss]}
    ours, plain = VS[loss]
    if loss == "smooth_ap":
        torch.testing.assert_close(*(f(*_vs_inputs(64, device, grades)[:2]) for f in fns.values()))
    labels = "binary labels (25% positive)" if grades == 2 else f"{grades} grades (uniform)"
    title = "pairwise_loss (logistic)" if loss == "pairwise" else "smooth_ap_loss (tau 0.01)"
    print(f"# {title} vs plain torch, forward+backward, float32, {device}, "
          f"torch {torch.__version__}, {threads} thread(s), {repeats} interleaved repeats, "
          f"{labels}; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print("| n | queries | pairs | ours ms | plain ms | ratio (median) | ours B/pair "
          "| plain B/pair |")
    print("|" + "---|" * 8)
    for n in sizes:
        s, y, batch = _vs_inputs(n, device, grades)
        for fn in fns.values():  # warm-up
            fn(s, y).backward()
        times: dict[str, list[float]] = {k: [] for k in fns}
        for _ in range(repeats):
            for k, fn in fns.items():
                s.grad = None
                _sync(device)
                t0 = time.perf_counter()
                fn(s, y).backward()
                _sync(device)
                times[k].append(time.perf_counter() - t0)
        ratio = statistics.median(a / b for a, b in zip(times[ours], times[plain], strict=True))
        mem = {}
        for k in fns:
            cmd = [sys.executable, __file__, "--threads", str(threads), "--device", device,
                   "--vs-grades", str(grades), "--vs-worker", k, str(n)]
            out = subprocess.run(cmd, capture_output=True, text=True, check=False)
            if out.returncode != 0:
                mem[k] = math.nan
                continue
            r = json.loads(out.stdout.strip().splitlines()[-1])
            mem[k] = r["peak_bytes"] / r["pairs"]
        print(f"| {n} | {batch} | {batch * n * n} | "
              f"{1e3 * statistics.median(times[ours]):.1f} | "
              f"{1e3 * statistics.median(times[plain]):.1f} | {ratio:.2f} | "
              f"{mem[ours]:.1f} | {mem[plain]:.1f} |", flush=True)
    print(f"(load average after: {os.getloadavg()[0]:.1f}; target ratio <= 1.3, "
          "<= 16 bytes per pair)")


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
    p.add_argument("--device", default="cpu",
                   help="torch device: cpu (default) or cuda[:i] (refused when unavailable)")
    p.add_argument("--quick", action="store_true",
                   help="only the plain-torch comparison (--vs-torch), 5 repeats: under a minute")
    p.add_argument("--vs-torch", action="store_true",
                   help="pairwise_loss against plain torch at --vs-sizes, then the full table")
    p.add_argument("--vs-sizes", type=int, nargs="+", default=[256, 1024, 4096])
    p.add_argument("--vs-grades", type=int, default=2,
                   help="labels of the plain-torch comparison: 2 (default) binary, 25%% "
                        "positive; G > 2: grades drawn uniformly from 0..G-1")
    p.add_argument("--vs-losses", nargs="+", choices=tuple(VS), default=["pairwise"],
                   help="losses of the plain-torch comparison (default pairwise; smooth_ap: "
                        "smooth_ap_loss against a direct torch Smooth-AP)")
    p.add_argument("--worker", nargs=3, metavar=("LOSS", "N", "REPEATS"), help=argparse.SUPPRESS)
    p.add_argument("--vs-worker", nargs=2, metavar=("FN", "N"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    _check_device(p, args.device)
    if args.vs_grades < 2:
        p.error(f"--vs-grades {args.vs_grades}: at least 2 grades (2 = binary labels).")
    if args.vs_worker:
        print(json.dumps(vs_worker(args.vs_worker[0], int(args.vs_worker[1]), args.device,
                                   args.threads, args.vs_grades)))
        return 0
    if args.quick or args.vs_torch:
        for loss in args.vs_losses:
            vs_torch(args.vs_sizes, 5 if args.quick else args.repeats, args.device, args.threads,
                     args.vs_grades, loss)
        if args.quick:
            return 0
    if args.worker:
        name, n, repeats = args.worker[0], int(args.worker[1]), int(args.worker[2])
        print(json.dumps(worker(name, n, repeats, args.threads, args.device)))
        return 0

    import torch

    print(f"# bench_surrogates: batch {BATCH} queries, float32, {args.device}, torch {torch.__version__}, "
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
                           args.threads, args.device)
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
