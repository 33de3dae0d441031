"""Choosing a scorer (docs/theory.md §2.6, docs/coverage.md): every scorer's Min, Diff and
Macro AUC in one table (:func:`scorers_table`), the paired difference of Min AUC of every pair
of scorers with an interval that finds each scorer's minimum on its own labels
(:func:`paired_min_table`), and the recommendation that reads them (:func:`recommend`).

The paired interval is made where every interval is (:meth:`bipartite.diagnostics._context.Ctx.
interval`), from the same units as the rest of the report: with ``n_boot > 0`` the bootstrap
replicates of the two scorers' per-label AUCs come from the same resampled units (queries, or
rows), and each replicate's Min AUC is the minimum over that replicate's labels, so a label that
is the minimum in some replicates and not in others counts as it falls; with ``n_boot = 0`` the
delta method at each scorer's minimum, from the DeLong influence terms on the same units
(:func:`bipartite.diagnostics._inference.paired_min_delta`, with its tie rule)."""

from __future__ import annotations

import numpy as np

from bipartite.diagnostics._context import Ctx, Data, Estimates, join_notes, kind_label
from bipartite.diagnostics._inference import paired_min_delta
from bipartite.diagnostics._render import fmt_ci, fmt_num

__all__ = ["PAIRED_MIN_COLUMNS", "SCORER_COLUMNS", "paired_min_table", "recommend",
           "scorers_table"]

#: The columns of ``tables["scorers"]``.
SCORER_COLUMNS = ["scorer", "min_auc", "min_auc_label", "min_auc_ci_low", "min_auc_ci_high",
                  "diff_auc", "diff_auc_ci_low", "diff_auc_ci_high", "macro_auc",
                  "n_labels_defined", "note"]
#: The columns of ``tables["paired_min"]``.
PAIRED_MIN_COLUMNS = ["scorer_a", "scorer_b", "min_auc_a", "min_auc_b", "difference", "se",
                      "ci_low", "ci_high", "method", "note"]
#: How the recommendation's sentence writes an interval that does not exist.
NO_CI = "(no interval)"


def scorers_table(auc_rows: list[dict], summary_rows: list[dict]) -> list[dict]:
    """One row per scorer: Min AUC (and its label), Diff AUC and Macro AUC (the mean over the
    labels with both classes) of the per-label table ``auc_rows``, with the Min and Diff AUC
    intervals of the summary table ``summary_rows`` (the same numbers, one place)."""
    rows, nan = [], float("nan")
    for r in summary_rows:
        a = np.array([x["auc"] for x in auc_rows if x["scorer"] == r["scorer"]], dtype=float)
        ok = np.isfinite(a)
        lab = r["min_auc_label"]
        bad = [x["note"] for x in auc_rows if x["scorer"] == r["scorer"] and x["label"] == lab
               and x["auc"] in (0.0, 1.0)]  # a degenerate minimum: its note comes along
        rows.append({"scorer": r["scorer"], "min_auc": r["min_auc"], "min_auc_label": lab,
                     "min_auc_ci_low": r["min_ci_low"], "min_auc_ci_high": r["min_ci_high"],
                     "diff_auc": r["diff_auc"], "diff_auc_ci_low": r["diff_ci_low"],
                     "diff_auc_ci_high": r["diff_ci_high"],
                     "macro_auc": float(a[ok].mean()) if ok.any() else nan,
                     "n_labels_defined": int(ok.sum()),
                     "note": join_notes(None if ok.any() else "no label has both classes",
                                        *bad)})
    return rows


def paired_min_table(d: Data, est: Estimates, boot: dict, ctx: Ctx) -> list[dict]:
    """Per pair of scorers (a before b in the order given): ``difference`` = Min AUC of a − Min
    AUC of b, each over its own labels with both classes, with its standard error and interval
    (module docstring) and the method."""
    rows, nan = [], float("nan")
    kind = kind_label(ctx.kind, ctx.clustered)
    over = f"{d.G} queries" if d.qid else f"{d.n} rows"
    for ia, sa in enumerate(d.score_names):
        for sb in d.score_names[ia + 1:]:
            A, B = est.aucs[sa], est.aucs[sb]
            oa, ob = np.isfinite(A), np.isfinite(B)
            row = {"scorer_a": sa, "scorer_b": sb, "min_auc_a": float(A[oa].min()) if oa.any()
                   else nan, "min_auc_b": float(B[ob].min()) if ob.any() else nan}
            diff = row["min_auc_a"] - row["min_auc_b"]
            if not np.isfinite(diff):
                rows.append({**row, "difference": nan, "se": nan, "ci_low": nan, "ci_high": nan,
                             "method": None, "note": "a scorer has no label with both classes"})
                continue
            tie = None
            if ctx.boot:
                ja, jb = ctx.jk(sa, "auc", oa), ctx.jk(sb, "auc", ob)
                se, lo, hi, note = ctx.interval(
                    diff, reps=boot[sa]["auc"][oa].min(axis=0) - boot[sb]["auc"][ob].min(axis=0),
                    lo=-1.0, jack=None if ja is None else ja.min(axis=0) - jb.min(axis=0))
                method = (f"paired bootstrap over {over} (B={ctx.n_boot}), the minimum over "
                          f"labels recomputed in each replicate, {kind}")
            else:
                var, tie = paired_min_delta(A[oa], est.terms[sa]["auc"][oa], B[ob],
                                            est.terms[sb]["auc"][ob])
                se, lo, hi, note = ctx.interval(diff, var=var, lo=-1.0)
                delong = "DeLong clustered by query" if ctx.clustered else "DeLong"
                method = f"delta method at each scorer's minimum ({delong} covariances), {kind}"
            rows.append({**row, "difference": diff, "se": se, "ci_low": lo, "ci_high": hi,
                         "method": method, "note": join_notes(tie, note)})
    return rows


def recommend(scorer_rows: list[dict], paired_rows: list[dict], level: float) -> dict:
    """The scorer with the highest Min AUC (its weakest label is the best served), and a
    sentence with the evidence: its Min AUC with interval, and the paired differences against
    the others — beyond noise when the paired interval excludes 0, else said to be within
    noise. ``{"scorer": name or None, "reason": sentence}``.

    >>> rows = [{"scorer": "a", "min_auc": 0.70, "min_auc_label": "click",
    ...          "min_auc_ci_low": 0.65, "min_auc_ci_high": 0.75},
    ...         {"scorer": "b", "min_auc": 0.68, "min_auc_label": "rel",
    ...          "min_auc_ci_low": 0.63, "min_auc_ci_high": 0.73}]
    >>> pairs = [{"scorer_a": "a", "scorer_b": "b", "difference": 0.02, "ci_low": -0.01,
    ...           "ci_high": 0.05}]
    >>> r = recommend(rows, pairs, 0.95)
    >>> r["scorer"], "within noise" in r["reason"]
    ('a', True)
    """
    pct = f"{100 * level:g}%"
    ok = [r for r in scorer_rows if np.isfinite(r["min_auc"])]
    if not ok:
        return {"scorer": None, "reason": "No scorer has a label with both classes: there is "
                                          "no Min AUC to choose by."}
    best = max(ok, key=lambda r: r["min_auc"])  # the first of equals, in the order given
    s = best["scorer"]
    head = (f"`{s}` has the highest Min AUC, {fmt_num(best['min_auc'])} ({pct} CI "
            f"{fmt_ci(best['min_auc_ci_low'], best['min_auc_ci_high'], missing=NO_CI)}; its "
            f"weakest label: `{best['min_auc_label']}`)")
    if len(scorer_rows) == 1:
        return {"scorer": s, "reason": head + "; it is the only scorer."}
    near, far, unknown = [], [], []
    for p in paired_rows:
        if s not in (p["scorer_a"], p["scorer_b"]):
            continue
        other, sign = ((p["scorer_b"], 1.0) if p["scorer_a"] == s else (p["scorer_a"], -1.0))
        d, lo, hi = sign * p["difference"], sign * p["ci_low"], sign * p["ci_high"]
        lo, hi = min(lo, hi), max(lo, hi)
        text = f"`{other}` ({d:+.3f} {fmt_ci(lo, hi, missing=NO_CI)})"
        if not (np.isfinite(lo) and np.isfinite(hi)):
            unknown.append(text if np.isfinite(d) else f"`{other}` (Min AUC undefined)")
        elif lo > 0:
            far.append(text)
        else:
            near.append(text)
    parts = [head]
    if far:
        parts.append(f"it beats {', '.join(far)} beyond noise (the paired {pct} interval of the "
                     "Min AUC difference excludes 0)")
    if near:
        parts.append(f"its lead over {', '.join(near)} is within noise (the paired {pct} "
                     "interval contains 0): on these data the choice between them is not "
                     "settled by Min AUC; compare their Diff and Macro AUC, or collect more "
                     "data")
    if unknown:
        parts.append(f"against {', '.join(unknown)} there is no paired interval")
    return {"scorer": s, "reason": "; ".join(parts) + "."}
