"""group_auc, average_precision and ndcg_at_k: 0.3.0, the packed-key sort and the current
code side by side in one process: time as a ratio to ``np.sort`` of the same scores, and peak
memory as a ratio to all the input arrays.

"0.3.0" is that release's implementation, copied below: ``group_auc`` on the grouped engine of
that release (the scores' sort order, a stable sort by query, gathers and tie-group arrays),
``average_precision`` as scikit-learn's ``average_precision_score`` (what it called), and
``ndcg_at_k`` with two lexsorts. "sort" is the packed-key sort of
``bipartite/metrics/_sorted_rows.py`` and the walk of its rows (``_cell_counts.sorted_label_stats``, the
DCG of each query's first k rows; kept for many distinct scores), forced by ``MAX_LEVELS = 0``
(``bipartite/metrics/_cell_counts.py``). "after" is the public function as it is: few distinct
scores take the table route (the exact ranks of ``_distinct.Ranks``, then a
(query, level, label or grade) table, or, when that table would have more cells than rows, one
sort of compact uint32 keys of those cells). "flt" is the page faults of one "after" call (on
a virtual machine each costs about 2 µs: 200 of them, one fresh array of 10⁵ float64, weigh
about as much as a sort of 10⁵ two-valued scores).
"checks" times the function's input validation alone (``_group_auc_input``, ``_ap_input``,
``_ndcg_input`` of ``bipartite/metrics/_per_query.py``: labels, scores, query ids), the part of the time that no
kernel removes. The functions are timed
interleaved (np.sort, 0.3.0, sort, checks, after, np.sort, ...), median of ``--repeats``, in
this process's CPU time (``--clock wall``: wall time, which on a machine shared by many
processes measures mostly their load); peak memory is tracemalloc's peak during one call. Only
ratios are meaningful on a shared machine. The order puts np.sort and "after" each right after a
call that read the same inputs ("after" of the previous round, "checks"): at 10⁵ rows a call
that follows the forced sort route (which sweeps the caches) runs up to 1.7 times slower than
one that follows a read of its inputs, so "after" behind "sort" (the order before) was timed
cold against a warm np.sort.

    python benchmarks/bench_ranking_metrics.py                   # n = 1e5, 1e6
    python benchmarks/bench_ranking_metrics.py --full            # and once n = 1e7 at the end
    python benchmarks/bench_ranking_metrics.py --n 1e5 1e6 --distinct 2 64 256 4096
    python benchmarks/bench_ranking_metrics.py --full --distinct 0 2 16 256   # issue 23's cells

Target (issue 23, item 3): each after <= 2x np.sort, peak <= 4x the input, at n = 1e5..1e7.
Data: ~100 rows per query (query ids in random order), 30 % positives, grades 0..4; scores
continuous (normal; ``--distinct 0``) or tied (``--distinct U``: U distinct values, default 16).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
from sklearn.metrics import average_precision_score

import bipartite.metrics._cell_counts as tables
from bipartite.metrics import average_precision, group_auc, ndcg_at_k
from bipartite.metrics._per_query import _ap_input, _group_auc_input, _ndcg_input

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_metrics import interleaved  # noqa: E402 - the one interleaved timer of benchmarks/


# -- before: the 0.3.0 code paths, condensed (same operations) ------------------------------------
def _sort_order(s):
    from bipartite.metrics._kernels import sort_order

    return sort_order(s)


def before_group_auc(y_true, y_score, qid):
    """0.3.0: check_binary's float copy, the scores' sort order, a stable radix sort by query,
    gathers, tie-group sums, below-sums restarted per query, gAUC with λ = P N."""
    from bipartite._utils.validation import check_binary, check_qid

    y = check_binary(y_true, "y_true")
    s = np.asarray(y_score, dtype=np.float64)
    codes = check_qid(qid, len(y), "qid", ref="y_true")
    G = int(codes.max()) + 1
    order, _ = _sort_order(s)
    narrow = np.uint8 if G <= 1 << 8 else np.uint16 if G <= 1 << 16 else np.int64
    order = order[np.argsort(codes[order].astype(narrow, copy=False), kind="stable")]
    ss, gs = s[order], codes[order]
    new = np.empty(len(s), dtype=bool)
    new[0] = True
    new[1:] = (ss[1:] != ss[:-1]) | (gs[1:] != gs[:-1])
    starts = np.flatnonzero(new)
    tq = gs[starts]
    qfirst = np.flatnonzero(np.r_[True, tq[1:] != tq[:-1]])
    Gp = np.add.reduceat(y[order], starts)
    Gn = np.add.reduceat(1.0 - y[order], starts)
    B = np.cumsum(Gn) - Gn
    B -= np.repeat(B[qfirst], np.diff(np.r_[qfirst, len(Gn)]))
    num = np.add.reduceat(Gp * (B + 0.5 * Gn), qfirst)
    P, N = np.add.reduceat(Gp, qfirst), np.add.reduceat(Gn, qfirst)
    ok = (P > 0) & (N > 0)
    lam = np.where(ok, P * N, 0.0)
    return float(np.sum(lam * np.where(ok, num / np.where(ok, P * N, 1.0), 0.0)) / lam.sum())


def before_average_precision(y_true, y_score):
    """0.3.0: input checks, then scikit-learn."""
    return float(average_precision_score(np.asarray(y_true, dtype=np.float64), y_score))


def before_ndcg(rel, s, g, k=10):
    """0.3.0 ndcg_at_k (exponential gain): two lexsorts by (query, -score) and (query, -gain)."""
    from bipartite._utils.validation import check_qid

    rel = np.asarray(rel, dtype=np.float64)
    g = check_qid(g, len(rel))
    gains = np.exp2(rel) - 1.0
    n, n_groups, kk = len(rel), int(g.max()) + 1, k

    def positions(order):
        gs = g[order]
        start = np.r_[0, np.flatnonzero(gs[1:] != gs[:-1]) + 1]
        return np.arange(n) - np.repeat(start, np.diff(np.r_[start, n]))

    def discount(pos):
        return np.where(pos < kk, 1.0 / np.log2(pos + 2.0), 0.0)

    order = np.lexsort((-s, g))
    disc = discount(positions(order))
    gs, ss = g[order], s[order]
    new = np.r_[True, (gs[1:] != gs[:-1]) | (ss[1:] != ss[:-1])]
    tid = np.cumsum(new) - 1
    t_gain, t_cnt, t_disc = np.bincount(tid, gains[order]), np.bincount(tid), np.bincount(tid, disc)
    dcg = np.bincount(gs[new], t_gain / t_cnt * t_disc, minlength=n_groups)
    iorder = np.lexsort((-gains, g))
    idcg = np.bincount(g[iorder], gains[iorder] * discount(positions(iorder)), minlength=n_groups)
    ok = idcg > 0
    return float(np.mean(dcg[ok] / idcg[ok]))


# -- measurement ----------------------------------------------------------------------------------
def peak_bytes(f) -> int:
    tracemalloc.start()
    tracemalloc.reset_peak()
    f()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def data(n: int, distinct: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    s = rng.integers(0, distinct, n) / max(1, distinct - 1) if distinct else rng.normal(size=n)
    return dict(s=s, y=(rng.uniform(size=n) < 0.3).astype(np.int64),
                q=rng.integers(0, max(1, n // 100), n), rel=rng.integers(0, 5, n))


def sort_route(f):
    """``f`` with the table route off: the packed-key sort and block scan."""
    def g():
        old, tables.MAX_LEVELS = tables.MAX_LEVELS, 0
        try:
            return f()
        finally:
            tables.MAX_LEVELS = old
    return g


def faults(f) -> int:
    """Minor page faults of one call of ``f``."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    f()
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before


def case(n: int, distinct: int, repeats: int, clock) -> list[tuple]:
    d = data(n, distinct)
    s, y, q, rel = d["s"], d["y"], d["q"], d["rel"]
    pairs = {
        "group_auc": (lambda: before_group_auc(y, s, q), lambda: group_auc(y, s, q),
                      lambda: _group_auc_input(y, s, q, "qid", "pairs", None), (s, y, q)),
        "average_precision": (lambda: before_average_precision(y, s),
                              lambda: average_precision(y, s),
                              lambda: _ap_input(y, s, None), (s, y)),
        "ndcg_at_k": (lambda: before_ndcg(rel, s, q), lambda: ndcg_at_k(rel, s, qid=q),
                      lambda: _ndcg_input(rel, s, 10, q, None, "exponential"), (s, rel, q)),
    }
    out = []
    for name, (old, new, checks, inputs) in pairs.items():
        srt = sort_route(new)
        a, b, c = old(), new(), srt()
        assert abs(a - b) < 1e-9 and abs(c - b) < 1e-9, (name, a, b, c)  # the same value
        t = interleaved({"np.sort": lambda: np.sort(s), "0.3.0": old, "sort": srt,
                         "checks": checks, "after": new}, repeats, clock)
        inp = sum(x.nbytes for x in inputs)
        out.append((name, n, f"{distinct} levels" if distinct else "continuous",
                    *(t[k] / t["np.sort"] for k in ("0.3.0", "sort", "after", "checks")),
                    *(peak_bytes(f) / inp for f in (old, srt, new)), t["np.sort"],
                    faults(new)))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--full", action="store_true", help="also n = 1e7, once, at the end")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--n", type=float, nargs="+", help="sizes (default 1e5 1e6)")
    ap.add_argument("--distinct", type=int, nargs="+", default=[0, 16],
                    help="distinct scores of each case (0: continuous; default 0 16)")
    ap.add_argument("--clock", choices=["wall", "cpu"], default="cpu",
                    help="time.process_time (default): the CPU time of this process, which the "
                         "other processes of a loaded machine do not inflate (np.sort and every "
                         "kernel timed here run on one thread); or time.perf_counter")
    args = ap.parse_args()
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    print(f"load average {os.getloadavg()}; numpy {np.__version__}; {args.clock} clock")
    head = (f"{'metric':18} {'n':>9} {'scores':11} {'time / np.sort':>35} "
            f"{'peak / inputs':>22} {'np.sort':>9} {'flt':>6}")
    print(head + "\n" + f"{'':40} {'0.3.0':>8} {'sort':>8} {'after':>8} {'checks':>8} "
          f"{'0.3.0':>6} {'sort':>6} {'after':>6}")
    sizes = ([(int(n), args.repeats) for n in args.n] if args.n else
             [(10**5, args.repeats), (10**6, max(3, args.repeats // 2))])
    if args.full:
        sizes.append((10**7, 1))
    for n, rep in sizes:
        for distinct in args.distinct:
            for r in case(n, distinct, rep, clock):
                print(f"{r[0]:18} {r[1]:>9} {r[2]:11} {r[3]:8.2f} {r[4]:8.2f} {r[5]:8.2f} "
                      f"{r[6]:8.2f} {r[7]:6.1f} {r[8]:6.1f} {r[9]:6.1f} {r[10]:8.4f}s {r[11]:6d}",
                      flush=True)
    print(f"load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
