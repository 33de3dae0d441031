"""The report's tables, one function per table, from the checked table, the estimates, the
bootstrap replicates and the interval context of :mod:`bipartite.diagnostics._context`: per-label
AUC and gAUC (:func:`auc_table`), the cross-pair win rates (:func:`win_table`), Min and Diff AUC
(:func:`summary_table`), the per-query AUCs (:func:`per_query_table`) and the paired differences
(:func:`paired_table`)."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

import numpy as np

from bipartite.diagnostics._choice import PAIRED_MIN_COLUMNS, SCORER_COLUMNS
from bipartite.diagnostics._context import Ctx, Data, Estimates, join_notes, kind_label
from bipartite.diagnostics._dask_report import NEAR_TIE_NOTE
from bipartite.diagnostics._dictator import DICTATORSHIP_COLUMNS
from bipartite.diagnostics._inference import holm, paired_z
from bipartite.diagnostics._intervals import t_p_value
from bipartite.diagnostics._placement_sums import influence_var, query_notes
from bipartite.diagnostics._score_table import plain
from bipartite.dictatorship import dictatorship_index
from bipartite.metrics import partial_auc

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["auc_table", "degenerate_note", "frames", "queries_defined", "paired_table", "per_query_table",
           "summary_table", "win_table"]

def queries_defined(est: Estimates, s: str, k: int) -> int:
    """The queries that define label k's gAUC under scorer ``s`` (a defined AUC with weight
    λ_q > 0 under the report's weighting): the clusters of the gAUC's ratio, the same G' as its
    influence terms (:meth:`~bipartite.diagnostics._placement_sums.PlacementSums.gauc_terms`;
    its t interval has one degree of freedom fewer)."""
    return int(est.gauc_queries[s][k])


def degenerate_note(label: str, auc: float, gauc: float, n_pos: int,
                    n_neg: int | None) -> str | None:
    """Why an interval of label ``label`` is degenerate or unreliable (as pROC warns): an AUC or
    gAUC of exactly 0 or 1 (every pair ranked the same way: DeLong's variance and the bootstrap
    spread are 0, the interval a point) or a class with a single row (the AUC rests on it)."""
    notes = []
    for v in (0.0, 1.0):
        names = [n for n, x in (("AUC", auc), ("gAUC", gauc)) if x == v]
        if names:
            notes.append(f"{' and '.join(names)} of {label!r} {'is' if len(names) == 1 else 'are'}"
                         f" {v:g} (every positive ranked {'above' if v else 'below'} every "
                         "negative): the interval is degenerate (zero variance) and "
                         "understates the uncertainty")
    for cls, c in (("positive", n_pos), ("negative", n_neg)):
        if c == 1:
            notes.append(f"label {label!r} has a single {cls} row: its AUC rests on that row "
                         "and its interval is unreliable")
    return join_notes(*notes)


def auc_table(d: Data, est: Estimates, boot: dict, ctx: Ctx,
              max_fpr: float | None = None) -> list[dict]:
    """Per scorer × label: AUC and gAUC with intervals; a degenerate interval carries a note
    (:func:`degenerate_note`). With ``max_fpr`` also ``pauc``, the McClish-standardised partial
    AUC up to that false positive rate (:func:`bipartite.metrics.partial_auc`), pooled over the
    rows with their weights (in memory only: it needs the rows)."""
    rows, nan = [], float("nan")
    n_pos, n_neg = d.class_counts()
    for s in d.score_names:
        aucs, gaucs = est.aucs[s], est.gaucs[s]
        var = influence_var(est.terms[s]["auc"])
        gvar = influence_var(est.terms[s]["gauc"]) if d.qid else np.full(d.K, np.nan)
        for k, lab in enumerate(d.label_names):
            se, lo, hi, why = ctx.interval(aucs[k], var[k], boot[s]["auc"][k],
                                           jack=ctx.jk(s, "auc", k))
            nq = queries_defined(est, s, k) if d.qid else 0
            gse, glo, ghi, gwhy = ctx.interval(
                gaucs[k], gvar[k], boot[s]["gauc"][k], jack=ctx.jk(s, "gauc", k),
                df=nq - 1) if d.qid else (nan, nan, nan, "no query ids (qid): gAUC undefined")
            if d.qid and not np.isfinite(gaucs[k]):
                gwhy = (f"a query's AUC of {lab!r} underflows in float64 (weights too light): "
                        "gAUC undefined" if nq else
                        f"no query has both classes of {lab!r}: gAUC undefined")
            # the partial AUC: NaN where the AUC is (a single class), whose note says so
            part = {} if max_fpr is None else {"pauc": partial_auc(
                d.Y[:, k], d.S[s], max_fpr=max_fpr, sample_weight=d.w) if np.isfinite(aucs[k])
                else nan}
            rows.append({
                "scorer": s, "label": lab, "auc": aucs[k], "auc_se": se, "auc_ci_low": lo,
                "auc_ci_high": hi, "auc_method": ctx.method, "gauc": gaucs[k], "gauc_se": gse,
                "gauc_ci_low": glo, "gauc_ci_high": ghi,
                "n_queries_defined": nq,
                **part, "note": join_notes(None if np.isfinite(aucs[k]) else
                                   f"label {lab!r} has a single class (with positive weight)",
                                   degenerate_note(lab, aucs[k], gaucs[k], n_pos[k],
                                                   None if n_neg is None else n_neg[k]),
                                   why, gwhy)})
    return rows


def win_table(d: Data, est: Estimates, boot: dict, ctx: Ctx) -> list[dict]:
    """Per scorer × label pair: the cross-pair win rate W_{k>j} with its interval (DeLong from
    the pair statistics, clustered by query with query ids, or the query bootstrap)."""
    rows, L = [], d.label_names
    for s in d.score_names:
        ps = est.wins[s]
        for i, (k, j) in enumerate(d.pairs):
            Wv = float(ps.win[i])
            se, lo, hi, why = ctx.interval(Wv, float(ps.var[i]), boot[s]["win"][i],
                                           jack=ctx.jk(s, "win", i))
            empty = L[k] if ps.n_k_only[i] == 0 else L[j]
            rows.append({"scorer": s, "label_k": L[k], "label_j": L[j],
                         "win_rate": Wv, "se": se, "ci_low": lo, "ci_high": hi,
                         "near_tie_rate": float(ps.near_tie[i]),
                         "n_k_only": int(ps.n_k_only[i]), "n_j_only": int(ps.n_j_only[i]),
                         "method": ctx.method,
                         "note": join_notes(None if np.isfinite(Wv) else
                                       f"no row is positive for {empty!r} only: W undefined",
                                       why, NEAR_TIE_NOTE if np.isfinite(Wv) and not
                                       np.isfinite(ps.near_tie[i]) else None)})
    return rows


def summary_table(d: Data, est: Estimates, boot: dict, ctx: Ctx) -> list[dict]:
    """Per scorer: Diff and Min AUC with intervals (:meth:`Ctx.summary_interval`) and the
    dictatorship index."""
    rows, nan = [], float("nan")
    for s in d.score_names:
        aucs = est.aucs[s]
        ok = np.isfinite(aucs)
        row = {"scorer": s, "n_labels_defined": int(ok.sum()), "min_auc": nan,
               "min_auc_label": None, "min_ci_low": nan, "min_ci_high": nan, "diff_auc": nan,
               "diff_ci_low": nan, "diff_ci_high": nan}
        notes = [None if ok.all() else "labels with a single class are left out",
                 None if ok.any() else "no label has both classes"]
        if ok.any():
            mlo, mhi, dlo, dhi, more = ctx.summary_interval(aucs[ok], est.terms[s]["auc"][ok],
                                                            boot[s]["auc"][ok],
                                                            ctx.jk(s, "auc", ok))
            kmin = int(np.flatnonzero(ok)[np.argmin(aucs[ok])])
            row.update(min_auc=aucs[kmin], min_auc_label=d.label_names[kmin], min_ci_low=mlo,
                       min_ci_high=mhi, diff_auc=float(np.ptp(aucs[ok])), diff_ci_low=dlo,
                       diff_ci_high=dhi)
            notes += more
            if ctx.boot and not ctx.no_boot and not dlo <= row["diff_auc"] <= dhi:
                notes.append("Diff AUC (a max − min) is biased upward when the labels' AUCs are "
                             "close: its interval excludes the estimate; compare the labels' "
                             "AUC intervals instead")
            elif not ctx.boot and ok.sum() > 1 and dlo <= 0:
                notes.append("Diff AUC (a max − min) is biased upward when the labels' AUCs are "
                             "close, and its interval reaches 0: compare the labels' AUC "
                             "intervals instead")
        Wm = np.full((d.K, d.K), np.nan)  # W_{k>j} for k < j; the rest NaN (ignored)
        if d.pairs:
            Wm[tuple(np.asarray(d.pairs).T)] = est.wins[s].win
        row["dictatorship_index"] = dictatorship_index(Wm)[0]
        if not np.isfinite(row["dictatorship_index"]):
            notes.append("no cross-pair win rate is defined" if d.K > 1 else "one label: no "
                         "cross pairs")
        rows.append({**row, "note": join_notes(*notes)})
    return rows


def per_query_table(d: Data, est: Estimates) -> pd.DataFrame:
    """Per scorer × query × label: rows, positives and the query's AUC (the engine's), built
    column-wise (10⁵ queries and more): each column one array, the names by
    :func:`text_column`."""
    import pandas as pd

    cols = ["scorer", "qid", "label", "n", "n_pos", "auc", "note"]
    if d.qid is None:
        return pd.DataFrame(columns=cols)
    qv = (np.array([plain(v) for v in d.qvalues] + [None], dtype=object)[:-1]
          if d.qvalues.dtype == object else np.asarray(d.qvalues))  # no list of 10⁵ scalars
    npos_k = nneg_k = None  # out of core: d.q_npos
    if d.g is not None:  # the rows with positive weight in each class, per query
        rows, pos = d.query_class_counts()
        npos_k = list(pos.T)
        nneg_k = [rows - c for c in npos_k]
    parts: dict = {c: [] for c in cols[1:]}
    for s in d.score_names:
        n_q = est.stats[s].n
        for k, lab in enumerate(d.label_names):
            npos = npos_k[k] if d.g is not None else d.q_npos[:, k].astype(int)
            a_q = est.stats[s].auc[:, k]
            for c, v in zip(cols[1:], (qv, None, n_q, npos, a_q, query_notes(
                    a_q, npos, None if nneg_k is None else nneg_k[k], lab)), strict=True):
                parts[c].append(v)
    G, S, K = len(qv), len(d.score_names), d.K
    table = {"scorer": text_column(d.score_names, np.repeat(np.arange(S), K * G)),
             "qid": np.concatenate(parts["qid"]),
             "label": text_column(d.label_names, np.tile(np.repeat(np.arange(K), G), S))}
    table.update({c: np.concatenate(parts[c]) for c in cols[3:6]})
    table["note"] = pd.Series(np.concatenate(parts["note"]), dtype=object, copy=False)
    return pd.DataFrame(table, columns=cols)


def text_column(names: list[str], codes: np.ndarray):
    """The column ``names[codes]`` in the type pandas gives a column of strings (its ``str``
    type from pandas 3 on, stored by Arrow: built by one Arrow ``take``, where pandas' own
    conversion of the strings costs about 0.2 µs a row; else an object array)."""
    import pandas as pd

    dtype = pd.Series(["x"]).dtype
    if getattr(dtype, "storage", None) == "pyarrow":
        import pyarrow as pa

        arr = pa.array(names, type=pa.large_string()).take(pa.array(codes, type=pa.int64()))
        return pd.array(arr, dtype=dtype)
    return np.array(names, dtype=object)[codes]


def paired_table(d: Data, est: Estimates, boot: dict, ctx: Ctx) -> list[dict]:
    """Per scorer pair × label × metric: the difference a − b with its interval
    (:meth:`Ctx.interval`) and test: DeLong's paired variance (the difference of the two
    scorers' influence terms on the same units: rows, or queries; the delta method for the
    gAUC) or the paired bootstrap over the same resampled units. The test is the interval's:
    z, or t with the interval's degrees of freedom when ``interval`` is "t"."""
    rows = []
    kind = kind_label(ctx.kind, ctx.clustered)
    over = f"{d.G} queries" if d.qid else f"{d.n} rows"
    for ia, sa in enumerate(d.score_names):
        for sb, k, metric in itertools.product(d.score_names[ia + 1:], range(d.K),
                                               ["auc", "gauc"] if d.qid else ["auc"]):
            vals = est.aucs if metric == "auc" else est.gaucs
            va, vb = vals[sa][k], vals[sb][k]
            row = {"scorer_a": sa, "scorer_b": sb, "label": d.label_names[k], "metric": metric,
                   "value_a": va, "value_b": vb, "diff": va - vb}
            why = None if np.isfinite(va - vb) else f"{metric} of {d.label_names[k]!r} undefined"
            df = queries_defined(est, sa, k) - 1 if metric == "gauc" else ctx.U - 1
            if ctx.boot:
                ja, jb = ctx.jk(sa, metric, k), ctx.jk(sb, metric, k)
                se, lo, hi, note = ctx.interval(
                    va - vb, reps=boot[sa][metric][k] - boot[sb][metric][k], lo=-1.0,
                    jack=None if ja is None else ja - jb, df=df)
                method = f"paired bootstrap over {over} (B={ctx.n_boot}), {kind}"
            else:
                dt = est.terms[sa][metric][k] - est.terms[sb][metric][k]
                se, lo, hi, note = ctx.interval(va - vb, var=float(influence_var(dt)), lo=-1.0,
                                                df=df)
                method = (("DeLong paired" if metric == "auc" else "delta method paired")
                          + ("" if d.qid is None else f", clustered by {d.G} queries")
                          + f", {kind}")
            test = paired_z(va - vb, se * se, ctx.level)
            if ctx.kind == "t":  # the p-value that matches the t interval
                test["p_value"] = t_p_value(test["z"], df)
            row.update(test, ci_low=lo, ci_high=hi,
                       method=method + ("; t test" if ctx.kind == "t" else "; z test"))
            rows.append({**row, "note": join_notes(why, note)})
    for metric in ("auc", "gauc"):  # one family per metric: every scorer pair × label
        idx = [i for i, r in enumerate(rows) if r["metric"] == metric]
        for i, p in zip(idx, holm([rows[i]["p_value"] for i in idx]), strict=True):
            rows[i]["p_holm"] = p
    return rows


def frames(label_rows, auc_rows, win_rows, summary_rows, pq_rows, paired_rows, dic_rows,
           scorer_rows, paired_min_rows) -> dict[str, pd.DataFrame]:
    """The tables as DataFrames, in the report's order."""
    import pandas as pd

    return {
        "labels": pd.DataFrame(label_rows),
        "auc": pd.DataFrame(auc_rows),
        "win_rates": pd.DataFrame(win_rows, columns=[
            "scorer", "label_k", "label_j", "win_rate", "se", "ci_low", "ci_high",
            "near_tie_rate", "n_k_only", "n_j_only", "method", "note"]),
        "summary": pd.DataFrame(summary_rows),
        "per_query": pq_rows,
        "paired": pd.DataFrame(paired_rows, columns=[
            "scorer_a", "scorer_b", "label", "metric", "value_a", "value_b", "diff", "se",
            "ci_low", "ci_high", "z", "p_value", "p_holm", "method", "note"]),
        "dictatorship": pd.DataFrame(dic_rows, columns=DICTATORSHIP_COLUMNS),
        "scorers": pd.DataFrame(scorer_rows, columns=SCORER_COLUMNS),
        "paired_min": pd.DataFrame(paired_min_rows, columns=PAIRED_MIN_COLUMNS),
    }
