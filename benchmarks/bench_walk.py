"""The report's compiled per-scorer passes (``bipartite/diagnostics/_walk.py``, docs/theory.md
§7.5) side by side with an earlier version of them (issue 37 item 4): ``sorted_rows`` (packed
keys, their sort, the gather), ``global_sums``, ``within_sums``, ``near_sums`` on the rows of
``bench_report.case(n, 1)`` (2·10⁶ rows by default: one scorer, two labels, a query id, 20 000
queries), in CPU time (``time.process_time``), interleaved repeats in one process, medians,
beside ``np.sort`` of the score column; the load average before and after. Every kernel's
output is checked against the earlier version's (bit for bit with equal weights, within 1e-13
relative with float weights). The first row, ``packed (NumPy → compiled)``, times the rows'
label codes and their count (``bipartite.diagnostics._packed.packed``) by its two routes of this
checkout, NumPy as "before" and the compiled pass (the report's from ``COMPILED_MIN_ROWS`` rows
on) as "now".

The earlier version: ``bipartite/diagnostics/_walk.py`` of the git revision ``--rev`` (default
3fdc8e5, before the rewrite) loaded as a module of its own, or that file of the checkout
``--before DIR``.

    python benchmarks/bench_walk.py [--n 2e6] [--repeats 7] [--rev 3fdc8e5 | --before DIR]
        [--weights const float rows] [--out benchmarks/results/walk_kernels.md]

Cases (``--weights``): ``const`` (no weight column: every row ½, the issue's case), ``float``
(uniform weights 0.2..3), ``rows`` (no query id: the rows are the units, equal weights).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_before(rev: str | None, before: str | None):
    """The earlier ``_walk`` module: the file of the checkout ``before``, else of the git
    revision ``rev`` of this checkout, imported under a name of its own."""
    if before is not None:
        text = open(os.path.join(before, "bipartite/diagnostics/_walk.py")).read()
    else:
        text = subprocess.run(["git", "-C", ROOT, "show", f"{rev}:bipartite/diagnostics/_walk.py"],
                              capture_output=True, text=True, check=True).stdout
    d = os.path.join(tempfile.gettempdir(), f"bench_walk_before_{os.getuid()}")
    os.makedirs(d, exist_ok=True)
    f = os.path.join(d, "_walk_before.py")
    if not os.path.exists(f) or open(f).read() != text:
        with open(f, "w") as fh:
            fh.write(text)
    spec = importlib.util.spec_from_file_location("_walk_before", f)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["_walk_before"] = mod  # numba's disk cache imports the module by name
    spec.loader.exec_module(mod)
    return mod


def inputs(n: int, weights: str):
    """``(s, ms, n_rows, G, Yt, codes)``: the scores, :class:`~bipartite.diagnostics._scan.Masses`,
    the queries' rows of the bench case (``G`` None: rows as units), the labels (K, n) and the
    query codes (None: rows as units)."""
    from bench_report import case

    import bipartite.diagnostics._diagnose as D
    import bipartite.diagnostics._scan as S
    from bipartite._utils.validation import pow2_normalise

    df, _ = case(n, 1)
    d = D._read(df, ["model"], ["rel", "click"], "qid", None, None, False)
    if weights == "float":
        ws = pow2_normalise(np.random.default_rng(3).uniform(0.2, 3.0, d.n))
    else:
        ws = np.full(d.n, 0.5)
    kj = np.asarray(d.pairs).reshape(-1, 2)
    codes, G = (None, None) if weights == "rows" else (d.g, d.G)
    ms = S.masses(d.Yt, ws, kj, codes, G)
    n_rows = np.bincount(d.g, minlength=d.G) if G is not None else None
    return np.ascontiguousarray(d.S["model"], dtype=np.float64), ms, n_rows, G, d.Yt, codes


def _flat(a) -> list:
    return [y for x in a for y in _flat(x)] if isinstance(a, tuple) else [a]


def same(a, b, exact: bool) -> bool:
    a, b = _flat(a), _flat(b)
    for x, y in zip(a, b, strict=True):
        if exact or x.dtype.kind != "f":
            if not np.array_equal(x, y):
                return False
        elif not np.allclose(x, y, rtol=1e-13, atol=0):
            return False
    return True


def run_case(old, new, n: int, weights: str, repeats: int) -> list[str]:
    from bipartite.diagnostics._packed import packed

    s, ms, n_rows, G, Yt, codes = inputs(n, weights)
    const, K, tol = ms.c is not None, ms.K, 1e-6

    def calls(W):
        rows = W.sorted_rows(s, ms.lab, ms.w, const)
        order, ss, vv, ww = rows
        c = {"packed (NumPy → compiled)": lambda: packed(Yt, codes, G, compiled=W is new),
             "sorted_rows": lambda: W.sorted_rows(s, ms.lab, ms.w, const),
             "global_sums": lambda: W.global_sums(ss, vv, ww, const, order, ms.tab, K, ms.P, G),
             "near_sums": lambda: W.near_sums(ss, vv, ww, const, ms.tab, K, tol)}
        if G is not None:
            c["within_sums"] = lambda: W.within_sums(ss, vv, ww, const, ms.tab, K, n_rows,
                                                     ms.ep, ms.en)
            # one pass for both where the version has it (walk_sums), else the two
            c["global + within"] = (
                (lambda: W.walk_sums(ss, vv, ww, const, order, ms.tab, K, ms.P, G, n_rows,
                                     ms.ep, ms.en)) if hasattr(W, "walk_sums") else
                (lambda: (*W.global_sums(ss, vv, ww, const, order, ms.tab, K, ms.P, G),
                          W.within_sums(ss, vv, ww, const, ms.tab, K, n_rows, ms.ep, ms.en))))
        return c

    cs = {"before": calls(old), "now": calls(new)}
    exact = weights != "float"
    ok = {k: same(cs["before"][k](), cs["now"][k](), exact) for k in cs["now"]}  # also warms
    cpu = time.process_time
    t = {(k, v): [] for k in cs["now"] for v in cs}
    t_sort = []
    load0 = os.getloadavg()[0]
    for r in range(repeats):
        t0 = cpu()
        np.sort(s)
        t_sort.append(cpu() - t0)
        for k in cs["now"]:
            for v in (("before", "now") if r % 2 == 0 else ("now", "before")):
                t0 = cpu()
                cs[v][k]()
                t[k, v].append(cpu() - t0)
    load1 = os.getloadavg()[0]
    srt = 1000 * np.median(t_sort)
    out = [f"\n**{weights}** ({'no query id, rows as units' if G is None else f'{G:,} queries'}"
           f", K = {K}, m = {len(ms.P)}, const = {const}): np.sort of the scores "
           f"{srt:.1f} ms; load average {load0:.2f} before, {load1:.2f} after\n",
           "| kernel | before (ms) | now (ms) | now / before | now / np.sort | same output |",
           "|---|---|---|---|---|---|"]
    for k in cs["now"]:
        b, a = 1000 * np.median(t[k, "before"]), 1000 * np.median(t[k, "now"])
        out.append(f"| {k} | {b:.1f} | {a:.1f} | {a / b:.2f} | {a / srt:.2f} | {ok[k]} |")
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=float, default=2e6)
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--rev", default="3fdc8e5")
    p.add_argument("--before", default=None)
    p.add_argument("--weights", nargs="+", default=["const", "float", "rows"],
                   choices=["const", "float", "rows"])
    p.add_argument("--out", default=None)
    a = p.parse_args()
    warnings.simplefilter("ignore")
    sys.path.insert(0, ROOT)
    import bipartite.diagnostics._walk as new

    old = load_before(a.rev, a.before)
    n = int(a.n)
    lines = ["# The report's compiled passes, side by side (issue 37 item 4)\n",
             f"`python benchmarks/bench_walk.py --n {a.n:g} --repeats {a.repeats} "
             f"--weights {' '.join(a.weights)} "
             f"{'--before ' + a.before if a.before else '--rev ' + a.rev}`; before: "
             f"{a.before or 'git ' + a.rev}; n = {n:,} rows (`bench_report.case(n, 1)`); CPU time "
             f"(`time.process_time`), medians of {a.repeats} interleaved repeats in one process; "
             f"numpy {np.__version__}; {os.cpu_count()} CPUs (shared)."]
    print("\n".join(lines), flush=True)
    for w in a.weights:
        res = run_case(old, new, n, w, a.repeats)
        print("\n".join(res), flush=True)
        lines += res
    if a.out:
        with open(a.out, "w") as fh:
            fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
