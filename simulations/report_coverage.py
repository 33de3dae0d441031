"""Coverage of the intervals of ``bipartite report`` / :func:`bipartite.diagnostics.diagnose`
(docs/coverage.md), by simulation from a model whose population values are known in closed form.

    python simulations/report_coverage.py                  # full size: the docs table (~40 min on 2 cores)
    python simulations/report_coverage.py --quick          # a minute: the tests' size

It writes ``coverage.json`` and ``coverage.md`` to ``--out`` (default ``results/coverage``) and
prints the table and the ``min_coverage`` lines behind
:data:`bipartite.diagnostics._intervals.MEASURED_COVERAGE`.

**The model** (docs/coverage.md). Query q has ``m_q`` documents (uniform on 8..16); each has two
independent labels ``rel ~ Bernoulli(0.3)`` and ``click ~ Bernoulli(0.2)``. Scorer ``a`` scores
``s = δ_q·rel + γ·click + ε`` with a query random effect ``δ_q ~ N(μ, σ²)`` (how well the
scorer separates the relevant documents of that query: documents of a query are not
independent) and ``ε ~ N(0, 1)``; scorer ``b = a + η``, ``η ~ N(0, τ²)`` (the same δ, more
noise: the paired differences are correlated). The population values, over infinitely many
queries, follow from ``P(δ + c + N(0, 2v) > 0) = Φ((μ + c)/√(2v + σ²))`` (:func:`truth`); the
tests check them against a 4 000-query sample. Without query ids the rows are independent (every
row its own δ) and the same values hold; the scenario ``clustered_no_qid`` runs the clustered
data without ``qid`` (what DeLong gives when the queries are ignored).

Only the public :func:`bipartite.diagnostics.diagnose` and its documented tables are used, so the
script measures whatever the report computes. Seeded: every replication's data and bootstrap seed
come from ``numpy.random.SeedSequence(seed).spawn``; joblib runs the replications.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from scipy.stats import norm

#: The model's parameters (module docstring).
PARAMS = {"pi_rel": 0.3, "pi_click": 0.2, "mu": 1.0, "sigma": 0.6, "gamma": 0.7, "tau": 0.7,
          "docs_min": 8, "docs_max": 16}
#: Numbers of queries simulated.
SIZES = (5, 12, 40, 200)
#: The configurations measured: ``"analytic/<method>"`` runs ``diagnose(n_boot=0,
#: interval=method)`` (DeLong, clustered by query with query ids, and the delta method: the
#: report's default), ``"bootstrap/<method>"`` ``diagnose(n_boot=B, interval=method)``.
METHODS = ("analytic/wald", "analytic/t", "bootstrap/wald", "bootstrap/t",
           "bootstrap/percentile", "bootstrap/bca")
#: Replications per number of queries: full size (the docs table) and --quick (the tests).
REPS_FULL = {5: 1500, 12: 1500, 40: 600, 200: 300}
REPS_QUICK = {5: 40, 12: 40, 40: 20, 200: 4}
LABELS = ("rel", "click")
SCORERS = ("a", "b")
#: The quantities with an interval, by scenario.
QUANTITIES = {
    "qid": ("AUC", "gAUC", "W", "Min AUC", "Diff AUC", "paired ΔAUC", "paired ΔgAUC"),
    "no_qid": ("AUC", "W", "Min AUC", "Diff AUC", "paired ΔAUC"),
    "clustered_no_qid": ("AUC", "W", "paired ΔAUC"),
}


def truth(p: dict = PARAMS) -> dict:
    """The population values (infinitely many queries) of every quantity the report gives an
    interval for: ``{"auc": {(scorer, label)}, "gauc": {...}, "win": {scorer}, "min": {scorer},
    "diff": {scorer}}``.

    With ``v`` the noise variance (1 for a, 1 + τ² for b) and ``F(c, e) = Φ(c/√(2v + e))``:

    * AUC(rel): a relevant document of query q against an irrelevant one (any query) differs by
      ``δ_q + γ(click_i − click_j) + N(0, 2v)``: ``Σ_d P(d) F(μ + γd, σ²)`` over ``d = click_i −
      click_j`` (±1 with probability π_c(1 − π_c) each);
    * AUC(click) pooled: ``γ + δ_q rel_i − δ_q' rel_j + N(0, 2v)``, with independent δ_q, δ_q'
      (almost every pooled pair joins two queries): by ``(rel_i, rel_j)``, ``F(γ, 0)``,
      ``F(γ + μ, σ²)``, ``F(γ − μ, σ²)``, ``F(γ, 2σ²)``;
    * the pair-weighted gAUC: within a query ``δ_q = δ_q'``, so gAUC(rel) = AUC(rel) and
      gAUC(click) has ``F(γ, 0)`` for ``(1, 1)``;
    * W_{rel>click}: a rel-only document against a click-only one: ``F(μ − γ, σ²)``.

    The pooled AUC(click) of Q queries includes the within-query pairs (a share ≈ 1/Q), whose
    (1, 1) term is ``F(γ, 0)``: a bias of about ``π_r² (F(γ, 0) − F(γ, 2σ²)) / Q`` (0.0004 at
    Q = 5 for a), negligible against the standard errors and measured in ``mean_bias``.
    """
    pr, pc, mu, sg, ga = p["pi_rel"], p["pi_click"], p["mu"], p["sigma"], p["gamma"]
    out: dict = {"auc": {}, "gauc": {}, "win": {}, "min": {}, "diff": {}}
    for s, v in (("a", 1.0), ("b", 1.0 + p["tau"] ** 2)):
        def F(c, e, v=v):
            return float(norm.cdf(c / math.sqrt(2 * v + e)))

        pd1 = pc * (1 - pc)
        a_rel = (1 - 2 * pd1) * F(mu, sg ** 2) + pd1 * (F(mu + ga, sg ** 2) + F(mu - ga, sg ** 2))
        w = ((1 - pr) ** 2, pr * (1 - pr), (1 - pr) * pr, pr ** 2)
        base = w[0] * F(ga, 0) + w[1] * F(ga + mu, sg ** 2) + w[2] * F(ga - mu, sg ** 2)
        out["auc"][s, "rel"], out["gauc"][s, "rel"] = a_rel, a_rel
        out["auc"][s, "click"] = base + w[3] * F(ga, 2 * sg ** 2)
        out["gauc"][s, "click"] = base + w[3] * F(ga, 0)
        out["win"][s] = F(mu - ga, sg ** 2)
        aucs = [out["auc"][s, lab] for lab in LABELS]
        out["min"][s], out["diff"][s] = min(aucs), max(aucs) - min(aucs)
    return out


def simulate(rng: np.random.Generator, Q: int, clustered: bool = True, p: dict = PARAMS) -> dict:
    """One data set of ``Q`` queries (columns a, b, rel, click, qid); ``clustered=False``: every
    row draws its own δ (independent rows, the DeLong setting)."""
    sizes = rng.integers(p["docs_min"], p["docs_max"] + 1, size=Q)
    g = np.repeat(np.arange(Q), sizes)
    n = len(g)
    rel = rng.random(n) < p["pi_rel"]
    click = rng.random(n) < p["pi_click"]
    delta = rng.normal(p["mu"], p["sigma"], Q)[g] if clustered else rng.normal(
        p["mu"], p["sigma"], n)
    a = delta * rel + p["gamma"] * click + rng.normal(size=n)
    b = a + rng.normal(scale=p["tau"], size=n)
    return {"a": a, "b": b, "rel": rel.astype(np.int8), "click": click.astype(np.int8),
            "qid": g}


def _hits(d, T: dict, scenario: str) -> dict[str, list[tuple[bool, float] | None]]:
    """Per quantity, one (covered, width) per interval of this report (None: undefined)."""
    t = d.tables

    def hit(lo, hi, true):
        return None if not (np.isfinite(lo) and np.isfinite(hi)) else (
            bool(lo <= true <= hi), float(hi - lo))

    out: dict[str, list] = {q: [] for q in QUANTITIES[scenario]}
    for r in t["auc"].itertuples():
        out["AUC"].append(hit(r.auc_ci_low, r.auc_ci_high, T["auc"][r.scorer, r.label]))
        if "gAUC" in out:
            out["gAUC"].append(hit(r.gauc_ci_low, r.gauc_ci_high, T["gauc"][r.scorer, r.label]))
    for r in t["win_rates"].itertuples():
        assert (r.label_k, r.label_j) == LABELS
        out["W"].append(hit(r.ci_low, r.ci_high, T["win"][r.scorer]))
    if "Min AUC" in out:
        for r in t["summary"].itertuples():
            out["Min AUC"].append(hit(r.min_ci_low, r.min_ci_high, T["min"][r.scorer]))
            out["Diff AUC"].append(hit(r.diff_ci_low, r.diff_ci_high, T["diff"][r.scorer]))
    for r in t["paired"].itertuples():
        key = "auc" if r.metric == "auc" else "gauc"
        true = T[key][r.scorer_a, r.label] - T[key][r.scorer_b, r.label]
        out["paired ΔAUC" if key == "auc" else "paired ΔgAUC"].append(
            hit(r.ci_low, r.ci_high, true))
    return out


def replicate(Q: int, seq: np.random.SeedSequence, n_boot: int, level: float = 0.95) -> dict:
    """One replication at ``Q`` queries: every configuration (:data:`METHODS`) with query ids,
    every one without them on independent rows, and the analytic ones (DeLong) on the clustered
    rows without query ids. Returns
    ``{(scenario, method): {quantity: [(covered, width) | None, ...]}}`` (as a list of items)
    and the estimates' errors (for the bias)."""
    from bipartite.diagnostics import diagnose

    T = truth()
    data_seq, boot_seq, iid_seq = seq.spawn(3)
    D = simulate(np.random.default_rng(data_seq), Q)
    I = simulate(np.random.default_rng(iid_seq), Q, clustered=False)
    seed = int(boot_seq.generate_state(1)[0])
    args = {"scores": list(SCORERS), "labels": list(LABELS), "level": level, "seed": seed}
    out, err = [], {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the few-queries warning, undefined-metric warnings
        for key in METHODS:
            config, m = key.split("/")
            kw = {**args, "interval": m, "n_boot": n_boot if config == "bootstrap" else 0}
            d = diagnose(D, qid="qid", **kw)
            out.append((("qid", key), _hits(d, T, "qid")))
            if key == METHODS[0]:
                err = {f"{r.scorer}/{r.label}": (r.auc - T["auc"][r.scorer, r.label],
                                                 r.gauc - T["gauc"][r.scorer, r.label])
                       for r in d.tables["auc"].itertuples()}
            out.append((("no_qid", key), _hits(diagnose(I, **kw), T, "no_qid")))
            if config == "analytic":
                out.append((("clustered_no_qid", key),
                            _hits(diagnose(D, **kw), T, "clustered_no_qid")))
    return {"cells": out, "err": err}


def summarise(results: dict[int, list[dict]], level: float = 0.95) -> list[dict]:
    """One row per scenario × method × queries × quantity: coverage (over the replications and
    the report's intervals of that quantity), its Monte-Carlo standard error (the spread of the
    per-replication coverages / √R: the intervals of one report are not independent), the mean
    width, the share of undefined intervals."""
    rows = []
    for Q, reps in results.items():
        cells: dict = {}
        for r in reps:
            for key, hits in r["cells"]:
                for qty, hs in hits.items():
                    cells.setdefault((*key, qty), []).append(hs)
        for (scen, method, qty), per_rep in cells.items():
            cov = [np.mean([h[0] for h in hs if h is not None]) for hs in per_rep
                   if any(h is not None for h in hs)]
            widths = [h[1] for hs in per_rep for h in hs if h is not None]
            n_all = sum(len(hs) for hs in per_rep)
            R = len(cov)
            rows.append({
                "scenario": scen, "method": method, "queries": Q, "quantity": qty,
                "coverage": float(np.mean(cov)) if R else math.nan,
                "mc_se": float(np.std(cov, ddof=1) / math.sqrt(R)) if R > 1 else math.nan,
                "mean_width": float(np.mean(widths)) if widths else math.nan,
                "undefined": 1 - len(widths) / n_all if n_all else math.nan,
                "replications": len(per_rep), "nominal": level})
    return rows


def min_coverage(rows: list[dict], exclude: tuple[str, ...] = ()) -> dict:
    """method → {queries: the lowest coverage with query ids over every quantity (but
    ``exclude``)}: the numbers of :data:`bipartite.diagnostics._intervals.MEASURED_COVERAGE`."""
    out: dict = {}
    for r in rows:
        if r["scenario"] == "qid" and r["quantity"] not in exclude:
            cur = out.setdefault(r["method"], {}).get(r["queries"], math.inf)
            out[r["method"]][r["queries"]] = min(cur, r["coverage"])
    return {m: dict(sorted(v.items())) for m, v in out.items()}


def markdown(rows: list[dict], command: str, n_boot: int = 1000) -> str:
    """The coverage tables (one per scenario: quantity × method rows, queries columns), as in
    docs/coverage.md."""
    lines = []
    sizes = sorted({r["queries"] for r in rows})
    titles = {"qid": "With query ids (`qid`): analytic (DeLong clustered by query, the delta "
                     "method) and the bootstrap over queries",
              "no_qid": "Without query ids, independent rows (n ≈ 12 × queries): analytic "
                        "(DeLong, the delta method) and the bootstrap over rows",
              "clustered_no_qid": "Clustered rows given without query ids: DeLong (what "
                                  "ignoring the queries gives)"}
    reps = {r["queries"]: r["replications"] for r in rows}
    for scen in QUANTITIES:
        sub = [r for r in rows if r["scenario"] == scen]
        if not sub:
            continue
        lines += [f"### {titles[scen]}", "",
                  "| quantity | method | " + " | ".join(f"{q} queries" for q in sizes) + " |",
                  "|---|---|" + "---|" * len(sizes)]
        methods = list(dict.fromkeys(r["method"] for r in sub))
        for qty in QUANTITIES[scen]:
            for m in methods:
                cells = []
                for q in sizes:
                    r = next((x for x in sub if x["method"] == m and x["quantity"] == qty
                              and x["queries"] == q), None)
                    cells.append("–" if r is None or not np.isfinite(r["coverage"]) else
                                 f"{100 * r['coverage']:.1f} ± {100 * r['mc_se']:.1f}")
                lines.append(f"| {qty} | {m} | " + " | ".join(cells) + " |")
        lines.append("")
    lines += ["Coverage in % of nominal-95% intervals ± its Monte-Carlo standard error; "
              "replications per size: " + ", ".join(f"{q} queries: {reps[q]}" for q in sizes)
              + f"; B = {n_boot} bootstrap replicates. Regenerate: `{command}`.", ""]
    return "\n".join(lines)


def run(reps: dict[int, int], n_boot: int, seed: int = 0, jobs: int = 1,
        sizes: tuple[int, ...] = SIZES, progress: bool = True, partial=None) -> dict:
    """All replications (joblib, ``jobs`` processes), size by size (``partial(rows)`` after each):
    ``{"rows": summarise(...), "min_coverage": ..., "mean_bias_auc_gauc": ..., ...}``."""
    from joblib import Parallel, delayed

    t0 = time.perf_counter()
    results: dict[int, list] = {}
    for Q in sizes:  # one size at a time: ``partial`` sees each as it ends
        seqs = np.random.SeedSequence([seed, Q]).spawn(reps[Q])
        results[Q] = Parallel(n_jobs=jobs, verbose=2 if progress else 0)(
            delayed(replicate)(Q, seq, n_boot) for seq in seqs)
        if partial is not None:
            partial(summarise(results))
    rows = summarise(results)
    bias = {Q: {k: [float(np.nanmean([r["err"][k][j] for r in rs])) for j in (0, 1)]
                for k in rs[0]["err"]} for Q, rs in results.items()}
    return {"rows": rows, "min_coverage": min_coverage(rows), "mean_bias_auc_gauc": bias,
            "truth": {k: {"/".join(x) if isinstance(x, tuple) else x: v for x, v in d.items()}
                      for k, d in truth().items()},
            "params": PARAMS, "reps": reps, "n_boot": n_boot, "seed": seed,
            "seconds": time.perf_counter() - t0}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="the tests' size (a minute)")
    ap.add_argument("--out", type=Path, default=Path("results/coverage"), metavar="DIR")
    ap.add_argument("--jobs", type=int, default=-1, help="joblib processes (default: all cores)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n-boot", type=int, default=None,
                    help="bootstrap replicates per report (default 500: the report's default "
                         "is 1000, half of it keeps the full size near an hour on 2 cores; "
                         "--quick 200)")
    a = ap.parse_args(argv)
    reps = REPS_QUICK if a.quick else REPS_FULL
    n_boot = a.n_boot if a.n_boot is not None else (200 if a.quick else 1000)
    a.out.mkdir(parents=True, exist_ok=True)
    res = run(reps, n_boot, a.seed, a.jobs, partial=lambda rows: (a.out / "partial.json")
              .write_text(json.dumps(rows, indent=1)))
    command = "python simulations/report_coverage.py" + (" --quick" if a.quick else "") + (
        f" --seed {a.seed}" if a.seed else "") + (f" --n-boot {a.n_boot}" if a.n_boot else "")
    md = markdown(res["rows"], command, n_boot)
    (a.out / "coverage.json").write_text(json.dumps(res, indent=1, default=str))
    (a.out / "coverage.md").write_text(md)
    print(md)
    for m, v in res["min_coverage"].items():
        print(f"min_coverage {m!r}: {{" + ", ".join(f"{q}: {c:.3f}" for q, c in v.items())
              + "},")
    print(f"{res['seconds']:.0f} s; wrote {a.out / 'coverage.json'}, {a.out / 'coverage.md'}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
