"""Coverage of the report's Min AUC intervals and of the paired difference of Min AUC between two
scorers (``tables["scorers"]``, ``tables["paired_min"]``; docs/coverage.md, "Choosing a
scorer"), by simulation from the model of ``simulations/report_coverage.py`` whose population
values are known in closed form.

    python simulations/paired_min_coverage.py            # the docs table (about 10 CPU minutes)
    python simulations/paired_min_coverage.py --quick    # seconds: a smoke run

Two settings of the model (scorer ``b`` = ``a`` + noise, two labels):

* ``separated`` — the model's parameters: AUC(rel) = 0.736 and AUC(click) = 0.668 for ``a``, so
  each scorer's minimum is click, far (about one standard error at 40 queries) from rel;
* ``tied`` — γ solved so that ``a``'s two population AUCs are equal (0.730; ``b``'s are 0.700
  and 0.699): which label is each scorer's minimum changes from sample to sample, the case the
  paired interval must account for.

In each, with query ids (clustered rows) and without (independent rows, every row its own δ),
at 12, 40 and 200 queries, the configurations ``analytic/t`` (the default: the delta method at
each scorer's minimum, DeLong clustered by query), ``analytic/wald``, ``bootstrap/t`` and
``bootstrap/percentile`` (B bootstrap replicates over queries or rows, each replicate's minimum
recomputed over its labels). Coverage: the share of intervals holding the true value (Min AUC:
both scorers' intervals; paired: the one pair's), with its Monte-Carlo standard error.
Seeded (``numpy.random.SeedSequence``); one process.
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
import report_coverage as rc  # noqa: E402  (the model and its closed-form truth)

SIZES = (12, 40, 200)
METHODS = ("analytic/t", "analytic/wald", "bootstrap/t", "bootstrap/percentile")
REPS_FULL = {12: 400, 40: 400, 200: 250}
REPS_QUICK = {12: 10, 40: 10, 200: 4}


def tied_params() -> dict:
    """The model's parameters with γ such that scorer a's AUC(rel) = AUC(click)."""
    from scipy.optimize import brentq

    def gap(g):
        T = rc.truth({**rc.PARAMS, "gamma": g})
        return T["auc"]["a", "rel"] - T["auc"]["a", "click"]

    return {**rc.PARAMS, "gamma": float(brentq(gap, 0.1, 3.0, xtol=1e-14))}


SETTINGS = {"separated": rc.PARAMS, "tied": tied_params()}


def replicate(Q: int, seq: np.random.SeedSequence, n_boot: int) -> list[tuple]:
    """One replication at ``Q`` queries: ``[(setting, qid?, method, quantity, covered, width)]``
    (quantity "Min AUC" per scorer, "paired Min AUC" for the pair)."""
    from bipartite.diagnostics import diagnose

    out = []
    for (name, p), s in zip(SETTINGS.items(), seq.spawn(len(SETTINGS)), strict=True):
        T = rc.truth(p)
        true_min = {x: min(T["auc"][x, lab] for lab in rc.LABELS) for x in rc.SCORERS}
        d_seq, i_seq, b_seq = s.spawn(3)
        data = {"qid": rc.simulate(np.random.default_rng(d_seq), Q, p=p),
                "no_qid": rc.simulate(np.random.default_rng(i_seq), Q, clustered=False, p=p)}
        seed = int(b_seq.generate_state(1)[0])
        for scen, D in data.items():
            for key in METHODS:
                config, m = key.split("/")
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # few queries, undefined replicates
                    d = diagnose(D, scores=list(rc.SCORERS), labels=list(rc.LABELS),
                                 qid="qid" if scen == "qid" else None, interval=m, seed=seed,
                                 n_boot=n_boot if config == "bootstrap" else 0)
                for r in d.tables["scorers"].itertuples():
                    out.append(_hit(name, scen, key, "Min AUC", r.min_auc_ci_low,
                                    r.min_auc_ci_high, true_min[r.scorer]))
                for r in d.tables["paired_min"].itertuples():
                    out.append(_hit(name, scen, key, "paired Min AUC", r.ci_low, r.ci_high,
                                    true_min[r.scorer_a] - true_min[r.scorer_b]))
    return out


def _hit(name, scen, key, qty, lo, hi, true):
    ok = bool(np.isfinite(lo) and np.isfinite(hi))
    return (name, scen, key, qty, ok and bool(lo <= true <= hi), float(hi - lo) if ok else None)


def summarise(results: dict[int, list[list[tuple]]]) -> list[dict]:
    """Per setting × scenario × method × quantity × queries: coverage over replications, its
    Monte-Carlo standard error (spread of per-replication shares / √R), mean width."""
    rows = []
    for Q, reps in results.items():
        cells: dict = {}
        for rep in reps:
            per: dict = {}
            for name, scen, key, qty, cov, width in rep:
                if width is not None:
                    per.setdefault((name, scen, key, qty), []).append((cov, width))
            for k, v in per.items():
                cells.setdefault(k, []).append(v)
        for (name, scen, key, qty), per_rep in cells.items():
            shares = [np.mean([c for c, _ in v]) for v in per_rep]
            R = len(shares)
            rows.append({"setting": name, "scenario": scen, "method": key, "quantity": qty,
                         "queries": Q, "coverage": float(np.mean(shares)),
                         "mc_se": float(np.std(shares, ddof=1) / math.sqrt(R)) if R > 1 else
                         math.nan,
                         "mean_width": float(np.mean([w for v in per_rep for _, w in v])),
                         "replications": R})
    return rows


def markdown(rows: list[dict], command: str, n_boot: int) -> str:
    sizes = sorted({r["queries"] for r in rows})
    lines = ["| setting | rows | quantity | method | "
             + " | ".join(f"{q} queries" for q in sizes) + " |",
             "|---|---|---|---|" + "---|" * len(sizes)]
    keys = list(dict.fromkeys((r["setting"], r["scenario"], r["quantity"], r["method"])
                              for r in rows))
    for name, scen, qty, key in sorted(keys, key=lambda k: (k[0], k[1], k[2] != "Min AUC")):
        cells = []
        for q in sizes:
            r = next((x for x in rows if (x["setting"], x["scenario"], x["quantity"],
                                          x["method"], x["queries"]) == (name, scen, qty, key,
                                                                         q)), None)
            cells.append("–" if r is None else f"{100 * r['coverage']:.1f} ± "
                                                f"{100 * r['mc_se']:.1f}")
        rows_kind = "queries (`qid`)" if scen == "qid" else "independent rows"
        lines.append(f"| {name} | {rows_kind} | {qty} | {key} | " + " | ".join(cells) + " |")
    reps = {r["queries"]: r["replications"] for r in rows}
    lines += ["", "Coverage in % of nominal-95% intervals ± its Monte-Carlo standard error; "
              "replications: " + ", ".join(f"{q} queries: {reps[q]}" for q in sizes)
              + f"; B = {n_boot}. Regenerate: `{command}`."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="a smoke run (seconds)")
    ap.add_argument("--out", type=Path, default=Path("results/paired_min_coverage"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n-boot", type=int, default=None, help="default 1000 (--quick 100)")
    a = ap.parse_args(argv)
    reps = REPS_QUICK if a.quick else REPS_FULL
    n_boot = a.n_boot or (100 if a.quick else 1000)
    t0 = time.perf_counter()
    a.out.mkdir(parents=True, exist_ok=True)
    command = "python simulations/paired_min_coverage.py" + (" --quick" if a.quick else "")
    results: dict[int, list] = {}
    for Q in SIZES:  # one size at a time, the table so far written after each
        results[Q] = [replicate(Q, s, n_boot) for s in
                      np.random.SeedSequence([a.seed, Q]).spawn(reps[Q])]
        (a.out / "partial.md").write_text(markdown(summarise(results), command, n_boot) + "\n")
        print(f"{Q} queries done, {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    rows = summarise(results)
    md = markdown(rows, command, n_boot)
    (a.out / "coverage.json").write_text(json.dumps(
        {"rows": rows, "settings": SETTINGS, "n_boot": n_boot, "reps": reps, "seed": a.seed,
         "seconds": time.perf_counter() - t0}, indent=1))
    (a.out / "coverage.md").write_text(md + "\n")
    print(md)
    print(f"{time.perf_counter() - t0:.0f} s; wrote {a.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
