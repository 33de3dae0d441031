"""Side-by-side timings of the AUC kernels against np.sort, np.argsort and scikit-learn.

Every case times its functions in one run, interleaved (A B C ... A B C ...), and reports the
median of each with its ratio to ``np.sort`` and ``np.argsort`` of the same scores and to
scikit-learn's ``roc_auc_score`` (K calls for K labels) where scikit-learn has the metric. Only
ratios are meaningful on a shared machine. ``--baseline`` adds the rows of another copy of
``bipartite/metrics.py`` (for example the version before a change) to the same interleaving.

    python benchmarks/bench_metrics.py                        # n = 1e7 (1e6 multipartite)
    python benchmarks/bench_metrics.py --quick                # n = 1e6 (1e5 multipartite)
    python benchmarks/bench_metrics.py --baseline /tmp/metrics_before.py
    python benchmarks/bench_metrics.py --rule                 # multilabel: coded sorts vs rank route
    python benchmarks/bench_metrics.py --part multipartite --before 89a4b51
    python benchmarks/bench_metrics.py --part multilabel --before 89a4b51

``--part multipartite`` (issue "Performance, round 3", item 1; round 4, item 5):
``multipartite_auc`` with linear and squared costs for L = 4, 64, 256, 1024 levels (and uniform
costs at L = 4, 64, 1024), no ties, and L = 64 with ties; the time as a ratio to ``np.sort`` of
the scores and the peak memory (tracemalloc, NumPy's allocations included) as a ratio to the
score array. Targets: <= 2.5x np.sort, peak <= 4x. ``--part multilabel`` (item 2):
``multilabel_auc`` at K = 20, 53, 174 (0/1 labels as int8), the time as a ratio to one
``np.sort`` of the scores plus one read of Y as integers (:func:`read_y_once`, as
benchmarks/bench_multilabel_k.py; until round 4 the read converted Y to float64, which alone
cost up to 40x ``np.sort`` and inflated this floor) and the peak memory as a ratio to the scores
plus Y; targets <= 2x both. ``--clock cpu`` times the process's CPU time instead of the wall
clock (on a loaded machine the wall clock also counts the time other processes hold the CPU).
Each table's first line gives the threads and the load average. ``--before REF`` adds, in the same
interleaving, the ``bipartite.metrics`` of the git commit REF (every module of its
``bipartite/metrics/``, loaded as a separate package); it is skipped (shown as "skip") where it would
need more than about 1 GB (its levels × tie-groups and labels × tie-groups tables). ``--n`` sets
the sizes (default 1e5 1e6).

Targets (issue "AUC kernels near the sort limit"): ``auc`` (ties, unweighted) <= 2.0x np.sort;
``multilabel_auc`` K = 5 <= 4x np.sort; ``multipartite_auc`` L = 4 at 1e6 <= 2.5x np.sort;
weighted ``auc`` <= 1.3x np.argsort.

``--part dominance``: the two compiled passes of squared costs (the O(n L) vector pass and the
O(n log L) Fenwick pass) on the same sorted keys for L = 4 to 1024, against ``np.sort``: the
basis of ``bipartite.metrics._polynomial.VECTOR_MAX_LEVELS``.

``--rule`` times, for the sizes ``--n`` and several K, the two strategies of ``multilabel_auc``
through its public interface: the coded sorts (one call per group of at most 6 labels: one sort
each) and the rank route (one sort order, one pass over the labels); the ratio is the basis of
``bipartite.metrics._kernels._MAX_CODED_LABELS``.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np
from sklearn.metrics import roc_auc_score

from bipartite import metrics
from bipartite.labels import cost_matrix


def read_y_once(Y: np.ndarray) -> np.ndarray:
    """The multilabel floor's read of Y: one pass over the 0/1 labels as integers (the column
    counts, int32 accumulators; no float copy)."""
    return Y.sum(axis=0, dtype=np.int32 if len(Y) < 2**31 else np.int64)


def threads_line() -> str:
    """The threads a table's timings ran with: the NumPy kernels are single-threaded; the BLAS
    pools (threadpoolctl, where loaded) and the torch pool are listed as they are."""
    try:
        from threadpoolctl import threadpool_info
        pools = ", ".join(f"{d['internal_api']} {d['num_threads']}" for d in threadpool_info())
    except ImportError:
        pools = "threadpoolctl not installed"
    return f"threads: NumPy kernels 1; BLAS pools: {pools or 'none loaded'}"


def interleaved(fns: dict, repeats: int, clock=time.perf_counter) -> dict:
    """Median wall time of each function, the functions called in turn ``repeats`` times
    (``clock=time.process_time``: the process's CPU time instead, blind to the time other
    processes of a loaded machine take from it)."""
    times: dict = {k: [] for k in fns}
    for _ in range(repeats):
        for k, f in fns.items():
            t0 = clock()
            f()
            times[k].append(clock() - t0)
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


#: Row names of the optional peers (checked to 1e-6: torchmetrics accumulates in float32).
PEER_PREFIXES = ("torchmetrics", "numba-mwu")


def peers(y, s, sample_weight=None) -> dict:
    """The optional peers (``pip install -e ".[bench]"``) that compute the same AUC, as
    zero-argument functions on data prepared outside the timing: torchmetrics' ``binary_auroc``
    (exact, with ``thresholds=None``) and numba-mwu's Mann-Whitney U (unweighted only; U / (n1 n0)
    is the AUC, ties ½). A peer that is not installed is left out; numba-mwu is compiled by one
    call before the timing."""
    out = {}
    try:
        import torch
        from torchmetrics.functional.classification import binary_auroc
    except ImportError:
        pass
    else:
        ts, ty = torch.as_tensor(s), torch.as_tensor(y)
        if sample_weight is None:
            out["torchmetrics binary_auroc"] = lambda: float(binary_auroc(ts, ty))
    if sample_weight is None:
        try:
            import numba_mwu
        except ImportError:
            pass
        else:
            pos, neg = s[y == 1], s[y == 0]
            scale = 1.0 / (len(pos) * len(neg))

            def mwu():
                return float(numba_mwu.mannwhitneyu(pos, neg).statistic) * scale

            mwu()
            out["numba-mwu mannwhitneyu"] = mwu
    return out


def peer_versions() -> str:
    """``name version`` of every peer and baseline, for the table's caption."""
    from importlib.metadata import PackageNotFoundError, version

    found = []
    for name in ("numpy", "scikit-learn", "torch", "torchmetrics", "numba-mwu"):
        try:
            found.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            found.append(f"{name} not installed")
    return ", ".join(found)


def run_case(rows, case, fns, check, repeats, sklearn_key=None):
    """Time ``fns`` (ours, baseline, np.sort, np.argsort, sklearn...) interleaved; one table row
    per non-reference function."""
    t = interleaved(fns, repeats)
    for name, fn in fns.items():
        if name in ("np.sort", "np.argsort", sklearn_key):
            continue
        if name.startswith(PEER_PREFIXES):  # torchmetrics sums in float32: 1e-6
            check(fn, atol=1e-6)
        else:
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

    def ok(want, got, atol=1e-12):
        assert np.allclose(got, want, rtol=0, atol=atol), (want, got)

    fns = {f"auc {name}": (lambda m=m: m.auc(y, s)) for name, m in impls}
    fns.update({"np.sort": lambda: np.sort(s), "np.argsort": lambda: np.argsort(s),
                "roc_auc_score": lambda: roc_auc_score(y, s), **peers(y, s)})
    run_case(rows, f"auc, ties, n={n:.0e}", fns, lambda f, **kw: ok(ref, f(), **kw), reps,
             "roc_auc_score")

    fns = {f"auc weighted {name}": (lambda m=m: m.auc(y, s, sample_weight=w)) for name, m in impls}
    fns.update({"np.sort": lambda: np.sort(s), "np.argsort": lambda: np.argsort(s),
                "roc_auc_score": lambda: roc_auc_score(y, s, sample_weight=w)})
    run_case(rows, f"auc, weighted, n={n:.0e}", fns, lambda f: ok(refw, f()), reps,
             "roc_auc_score")

    sc = rng.normal(size=n)  # no ties
    refc = roc_auc_score(y, sc)
    fns = {f"auc {name}": (lambda m=m: m.auc(y, sc)) for name, m in impls}
    fns.update({"np.sort": lambda: np.sort(sc), "np.argsort": lambda: np.argsort(sc),
                "roc_auc_score": lambda: roc_auc_score(y, sc), **peers(y, sc)})
    run_case(rows, f"auc, no ties, n={n:.0e}", fns, lambda f, **kw: ok(refc, f(), **kw), reps,
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
          f"{', '.join(f'{x:.2f}' for x in os.getloadavg())} (1, 5, 15 min); {threads_line()}; "
          f"median of {reps} interleaved repetitions; {peer_versions()}")
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


def load_ref(ref: str):
    """``bipartite.metrics`` as of the git commit ``ref``, imported as the package
    ``metrics_before``: every module of its ``bipartite/metrics/`` (its own kernels, whatever
    their rooms were called then), the rest of the package current."""
    root = Path(tempfile.mkdtemp(prefix="metrics_before_"))
    (root / "metrics_before").mkdir()
    repo = Path(__file__).resolve().parents[1]
    names = subprocess.run(["git", "ls-tree", "--name-only", f"{ref}:bipartite/metrics"],
                           cwd=repo, check=True, capture_output=True, text=True).stdout.split()
    for name in names:
        if not name.endswith(".py"):
            continue
        text = subprocess.run(["git", "show", f"{ref}:bipartite/metrics/{name}"], cwd=repo,
                              check=True, capture_output=True, text=True).stdout
        text = text.replace("from bipartite.metrics import _", "from metrics_before import _")
        text = text.replace("bipartite.metrics._", "metrics_before._")
        text = text.replace("_obj.__module__ = __name__", "pass")  # leave the classes alone
        text = text.replace("globals()[_name].__module__ = __name__", "pass")
        (root / "metrics_before" / name).write_text(text)
    sys.path.insert(0, str(root))
    return importlib.import_module("metrics_before")


def peak_bytes(fn) -> int:
    """Peak traced allocation (bytes) while ``fn`` runs (NumPy's buffers included)."""
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


def _part_rows(cases, before, reps, clock=time.perf_counter):
    """Rows (label, baseline s, ours x, before x, ours peak x, before peak x) for cases
    (label, ours fn, before fn or None, baseline fn, reference bytes)."""
    rows = []
    for label, ours, old, base, ref_bytes in cases:
        fns = {"base": base, "ours": ours}
        if old is not None:
            fns["before"] = old
        t = interleaved(fns, reps, clock)
        if old is not None:
            a, b = ours(), old()
            assert np.allclose(a, b, rtol=0, atol=1e-12, equal_nan=True), (label, a, b)
        mem = {k: peak_bytes(f) / ref_bytes for k, f in fns.items() if k != "base"}
        rows.append((label, t["base"], t["ours"] / t["base"],
                     t["before"] / t["base"] if old else float("nan"),
                     mem["ours"], mem.get("before", float("nan"))))
        before_x = "skip" if old is None else f"{rows[-1][3]:.2f}x"
        print(f"  {label}: {rows[-1][2]:.2f}x, before {before_x}", file=sys.stderr, flush=True)
    return rows


def _print_part(title, base_name, ref_name, rows, before_ref, clock="wall"):
    print(f"machine: {os.cpu_count()} cores, load average "
          f"{', '.join(f'{x:.2f}' for x in os.getloadavg())} (1, 5, 15 min); {threads_line()}; "
          f"{'CPU' if clock == 'cpu' else 'wall'} time, median of the interleaved repetitions")
    b = f"before ({before_ref})" if before_ref else "before"
    print(f"| {title} | {base_name} s | ours x | {b} x | ours peak x {ref_name} | "
          f"before peak x |")
    print("|---|---|---|---|---|---|")
    for label, tb, r, rb, m, mb in rows:
        def f(v, p=2):
            return ("skip" if np.isnan(v) else f"{v:.{p}f}")
        print(f"| {label} | {tb:.4f} | {r:.2f} | {f(rb)} | {m:.2f} | {f(mb)} |")


def main_multipartite(args) -> None:
    """Item 1: multipartite_auc by number of levels and costs, against np.sort."""
    before = load_ref(args.before) if args.before else None
    rng = np.random.default_rng(0)
    cases = []
    for n in args.n:
        s = rng.normal(size=n)
        st = np.round(s, 3)
        for L, costs, sc, tag in [(4, "linear", s, ""), (64, "linear", s, ""),
                                  (256, "linear", s, ""), (1024, "linear", s, ""),
                                  (64, "linear", st, ", ties"), (4, "uniform", s, ""),
                                  (64, "uniform", s, ""), (1024, "uniform", s, ""),
                                  (4, "squared", s, ""), (64, "squared", s, ""),
                                  (256, "squared", s, ""), (1024, "squared", s, ""),
                                  (64, "squared", st, ", ties")]:
            y = rng.integers(0, L, n)
            old = None
            if before is not None and n * L <= 7 * 10**7:
                def old(y=y, sc=sc, c=costs):
                    return (before.multipartite_auc(y, sc, costs=c))
            cases.append((f"n={n:.0e} L={L} {costs}{tag}",
                          lambda y=y, sc=sc, c=costs: metrics.multipartite_auc(y, sc, costs=c),
                          old, lambda sc=sc: np.sort(sc), sc.nbytes))
    rows = _part_rows(cases, before, args.repeats, CLOCKS[args.clock])
    _print_part("multipartite_auc", "np.sort", "scores", rows, args.before, args.clock)


def main_multilabel(args) -> None:
    """Item 2: multilabel_auc by number of labels, against one sort plus one read of Y."""
    before = load_ref(args.before) if args.before else None
    rng = np.random.default_rng(1)
    cases = []
    for n in args.n:
        s = rng.normal(size=n)
        for K in (20, 53, 174):
            Y = rng.integers(0, 2, (n, K), dtype=np.int8)
            old = None
            if before is not None and n * K <= 2 * 10**7:
                def old(Y=Y, s=s):
                    return (before.multilabel_auc(Y, s))
            cases.append((f"n={n:.0e} K={K}", lambda Y=Y, s=s: metrics.multilabel_auc(Y, s), old,
                          lambda Y=Y, s=s: (np.sort(s), read_y_once(Y)),
                          s.nbytes + Y.nbytes))
            w = rng.random(n)
            if K == 53:
                old = None
                if before is not None and n * K <= 2 * 10**7:
                    def old(Y=Y, s=s, w=w):
                        return (before.multilabel_auc(Y, s, sample_weight=w))
                cases.append((f"n={n:.0e} K={K} weighted",
                              lambda Y=Y, s=s, w=w: metrics.multilabel_auc(Y, s, sample_weight=w),
                              old, lambda Y=Y, s=s: (np.sort(s), read_y_once(Y)),
                              s.nbytes + Y.nbytes))
    rows = _part_rows(cases, before, args.repeats, CLOCKS[args.clock])
    _print_part("multilabel_auc", "sort + int read of Y", "scores + Y", rows, args.before,
                args.clock)


def main_dominance(args) -> None:
    """The two compiled passes of squared costs side by side, by number of levels: the vector
    pass (O(n L)) and the Fenwick pass (O(n log L)) on the same sorted coded keys, each against
    ``np.sort`` of the scores: the basis of ``_polynomial.VECTOR_MAX_LEVELS``."""
    from bipartite.metrics import _polynomial
    from bipartite.metrics._dominance import dominance_sums, level_pair_sum

    rng = np.random.default_rng(2)
    clock = CLOCKS[args.clock]
    print(f"load average {', '.join(f'{x:.2f}' for x in os.getloadavg())}; {args.clock} time, "
          f"median of {args.repeats} interleaved repeats; VECTOR_MAX_LEVELS = "
          f"{_polynomial.VECTOR_MAX_LEVELS}")
    print("| n | L | np.sort s | vector x | Fenwick x | vector / Fenwick | same A |")
    print("|---|---|---|---|---|---|---|")
    for n in args.n:
        s = rng.normal(size=n)
        for L in (4, 16, 64, 128, 256, 512, 1024):
            bits = max(1, (L - 1).bit_length())
            keys = np.sort((np.argsort(np.argsort(s)).astype(np.int64) << bits)
                           | rng.integers(0, L, n))
            lev = (keys & ((1 << bits) - 1)).astype(np.uint8 if L <= 256 else np.uint16)
            v = np.arange(L, dtype=np.int64)
            d = v[:, None] - v[None, :]
            K = np.sign(d) * d * d
            beta = {(0, 2): 1, (1, 1): -2, (2, 0): 1}

            def vec(lev=lev, keys=keys, bits=bits, K=K):
                return level_pair_sum(lev, keys, (1 << bits) - 1, None, K)

            def fen(lev=lev, keys=keys, bits=bits, v=v):
                p, m = dominance_sums(lev, keys, (1 << bits) - 1, None, v, beta, bits)
                return p - m
            same = vec() == fen()
            t = interleaved({"sort": lambda s=s: np.sort(s), "vector": vec, "fenwick": fen},
                            args.repeats, clock)
            print(f"| {n:.0e} | {L} | {t['sort']:.4f} | {t['vector'] / t['sort']:.2f} | "
                  f"{t['fenwick'] / t['sort']:.2f} | {t['vector'] / t['fenwick']:.2f} | {same} |",
                  flush=True)


def main_rule(args) -> None:
    """Coded sorts (groups of <= 6 labels, one sort each) vs the rank route (one sort order, one
    pass over the labels), by n and K: the basis of ``_kernels._MAX_CODED_LABELS``."""
    from bipartite.metrics import _kernels

    rng = np.random.default_rng(1)
    print(f"load average {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("| n | K | sorts | coded s | rank s | coded / rank |")
    print("|---|---|---|---|---|---|")
    rule = _kernels._MAX_CODED_LABELS
    for n in args.n:
        s = np.round(rng.normal(size=n), 3)
        for K in (1, 2, 6, 7, 12, 18, 24):
            Y = rng.integers(0, 2, (n, K), dtype=np.int8)
            groups = [slice(k0, min(K, k0 + 6)) for k0 in range(0, K, 6)]

            def coded(Y=Y, s=s, groups=groups):
                _kernels._MAX_CODED_LABELS = ((None, 6),)
                return [metrics.multilabel_auc(Y[:, g], s) for g in groups]

            def rank(Y=Y, s=s):
                _kernels._MAX_CODED_LABELS = ((None, 0),)
                return metrics.multilabel_auc(Y, s)

            try:
                t = interleaved({"coded": coded, "rank": rank}, args.repeats)
            finally:
                _kernels._MAX_CODED_LABELS = rule
            print(f"| {n:.0e} | {K} | {len(groups)} | {t['coded']:.4f} | {t['rank']:.4f} | "
                  f"{t['coded'] / t['rank']:.2f} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="n = 1e6 instead of 1e7")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--baseline", help="path of another metrics.py to time side by side")
    ap.add_argument("--rule", action="store_true",
                    help="multilabel_auc: coded sorts vs the rank route, by n and K")
    ap.add_argument("--part", choices=("multipartite", "multilabel", "dominance"),
                    help="one table of issue 'Performance, round 3' (items 1, 2)")
    ap.add_argument("--before", help="git commit whose bipartite.metrics is timed beside ours")
    ap.add_argument("--clock", choices=tuple(CLOCKS), default="wall",
                    help="--part: wall-clock or CPU time (default wall)")
    ap.add_argument("--n", type=lambda v: int(float(v)), nargs="+", default=[10**5, 10**6],
                    help="sizes for --part (default 1e5 1e6)")
    args = ap.parse_args()
    if args.part == "multipartite":
        main_multipartite(args)
    elif args.part == "multilabel":
        main_multilabel(args)
    elif args.part == "dominance":
        main_dominance(args)
    elif args.rule:
        main_rule(args)
    else:
        main_table(args)


if __name__ == "__main__":
    main()
