"""The result of :func:`bipartite.diagnostics.diagnose`: tables, the choice of a scorer, Markdown,
strict JSON, a self-contained HTML page with its figures (:mod:`bipartite.diagnostics._render`,
:mod:`bipartite.diagnostics._figures`)."""

from __future__ import annotations

import base64
import io
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from bipartite._utils.files import OutputError, check_writable, explain_os_error, prepare_output_dir
from bipartite.diagnostics._figures import overview, report_figures
from bipartite.diagnostics._render import (
    fmt_ci,
    fmt_num,
    fmt_p,
    html_blocks,
    markdown_blocks,
    page,
)
from bipartite.diagnostics._score_table import plain

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

__all__ = ["Diagnostics", "shown_pairs"]


def _record(row: dict) -> dict:
    """A table row for JSON: NaN → null (the row's ``note`` says why), numpy → Python."""
    out = {k: (None if isinstance(v, float) and not math.isfinite(v) else plain(v))
           for k, v in row.items()}
    if out.get("note") is None and any(v is None for k, v in out.items() if k != "note"):
        out["note"] = "undefined"  # every null carries a reason
    return out


def _theory_sentence(m: dict) -> str:
    """What loss aggregation with a = 1 would do, true to the number of labels it can weigh."""
    if m.get("n_labels_defined", 2) < 2:
        return ("Fewer than two labels have both classes, so loss aggregation has nothing to weigh "
                "against: an α share of 1 here is trivial, and no label can dictate another.")
    if m["dictator"]:
        return (f"Theory: loss aggregation with a = 1 would make `{m['dictator']}` the dictator "
                "(α share > ½: with deterministic labels its Bayes scorer ranks every positive of "
                f"`{m['dictator']}` above every negative, docs/theory.md §7.1). This describes "
                "that hypothetical scorer, not yours: see the observed columns below.")
    return ("Theory: no label would dictate under loss aggregation with a = 1 (every α share "
            "≤ ½).")


def _choice_blocks(m: dict, t: dict, rec: dict | None, pct: str, digits: int) -> list[tuple]:
    """Choosing a scorer: Min, Diff and Macro AUC per scorer, the paired Min AUC differences and
    the recommendation (:mod:`bipartite.diagnostics._choice`)."""
    sc = t.get("scorers")
    if sc is None:
        return []
    out: list[tuple] = [("h", 2, "Choosing a scorer"), ("p",
        "Min AUC: a scorer's lowest per-label AUC (its weakest label); Diff AUC: highest minus "
        "lowest; Macro AUC: their mean."), ("table",
        ["scorer", "Min AUC", "weakest label", f"{pct} CI", "Diff AUC", f"{pct} CI", "Macro AUC"],
        [[r.scorer, fmt_num(r.min_auc, digits), r.min_auc_label,
          fmt_ci(r.min_auc_ci_low, r.min_auc_ci_high, digits), fmt_num(r.diff_auc, digits),
          fmt_ci(r.diff_auc_ci_low, r.diff_auc_ci_high, digits), fmt_num(r.macro_auc, digits)]
         for r in sc.itertuples()]), ("figure", "auc_plane")]
    pm = t.get("paired_min")
    if pm is not None and len(pm):
        out += [("h", 3, "Paired differences of Min AUC (a − b)"), ("p",
            "Each scorer's minimum is taken over its own labels, so the two minima may be "
            "different labels: the interval is the delta method at each scorer's minimum, or "
            "with the bootstrap (n_boot > 0) the minimum recomputed in every replicate "
            "(docs/theory.md §2.6; its measured coverage: docs/coverage.md)."),
            ("table", ["a", "b", "Min AUC a", "Min AUC b", "a − b", f"{pct} CI", "method"],
             [[r.scorer_a, r.scorer_b, fmt_num(r.min_auc_a, digits), fmt_num(r.min_auc_b, digits),
               fmt_num(r.difference, digits), fmt_ci(r.ci_low, r.ci_high, digits), r.method]
              for r in pm.itertuples()])]
    if rec is not None:
        out.append(("p", f"**Recommendation:** {rec['reason']}"))
    return out + [("figure", "auc_intervals")]


def _label_blocks(m: dict, t: dict, digits: int) -> list[tuple]:
    """The label table and the dictatorship section: theory (what loss aggregation with a = 1
    would favour) beside the observed win rates of each scorer."""
    out: list[tuple] = [("h", 2, "Labels"), ("table",
        ["label", "positives", "prior π", "α (a = 1)", "α share", "would dictate (theory)"],
        [[r.label, r.n_pos, fmt_num(r.prior, digits), fmt_num(r.alpha, digits),
          fmt_num(r.alpha_share, digits), "yes" if r.dictator else ""]
         for r in t["labels"].itertuples()]), ("p", _theory_sentence(m)), ("figure", "weights")]
    dic = t.get("dictatorship")
    if dic is None or len(m["labels"]) < 2:
        return out
    out += [("h", 2, "Label dictatorship: theory against your scorers"), ("p",
        "Theory: the α share of loss aggregation with a = 1 and whether it would dictate (a "
        "property of the priors alone). Observed: each scorer's cross-pair win rates W(k > j) "
        "— the share of (k only, j only) row pairs it ranks k first, ½ even-handed — averaged "
        "and minimised over the other labels j; *favoured* marks the label with the highest "
        "mean, *dictates* a label whose every W(k > j) is 1.")]
    header = ["label", "α share (theory)", "would dictate (theory)"]
    for s in m["scores"]:
        header += [f"`{s}`: mean W(k > ·) (observed)", f"`{s}`: min W(k > ·)",
                   f"`{s}`: favoured / dictates (observed)"]
    rows = []
    for lab in m["labels"]:
        r0 = dic[(dic.label == lab)].iloc[0]
        row = [lab, fmt_num(r0.theory_alpha_share, digits), "yes" if r0.theory_dictator else ""]
        for s in m["scores"]:
            r = dic[(dic.label == lab) & (dic.scorer == s)].iloc[0]
            row += [fmt_num(r.observed_mean_win_rate, digits), fmt_num(r.observed_min_win_rate, digits),
                    " / ".join(x for x, on in (("favoured", r.observed_favoured),
                                               ("dictates", r.observed_dictator)) if on)]
        rows.append(row)
    return out + [("table", header, rows), ("figure", "win_rates")]


def shown_pairs(wr: pd.DataFrame, labels: pd.DataFrame, max_pairs: int) -> tuple[pd.DataFrame,
                                                                                  str | None]:
    """The cross-pair rows a report prints for one scorer, and a sentence on what was left out.

    All of them when there are at most ``max_pairs``. Otherwise (K(K − 1)/2 pairs: 15 051 at
    K = 174) the pairs among the 3 most and the 3 least skewed labels (by α = 1/(π(1 − π));
    the pairs where loss aggregation's theory speaks loudest and softest), then the most
    lopsided pairs (largest |2W − 1|) up to ``max_pairs`` rows in all, in table order."""
    if len(wr) <= max_pairs:
        return wr, None
    lab = labels[np.isfinite(labels.alpha.to_numpy(dtype=float))].sort_values("alpha")
    ends = set(lab.label.iloc[:3]) | set(lab.label.iloc[-3:])
    keep = wr.label_k.isin(ends).to_numpy() & wr.label_j.isin(ends).to_numpy()
    keep &= np.cumsum(keep) <= max_pairs
    lop = np.abs(2 * wr.win_rate.to_numpy(dtype=float) - 1)
    lop[keep | ~np.isfinite(lop)] = -1.0
    room = max_pairs - int(keep.sum())
    if room > 0:
        top = np.argsort(-lop, kind="stable")[:room]
        keep[top[lop[top] >= 0]] = True
    return wr[keep], (f"Showing {int(keep.sum())} of {len(wr)} label pairs: those among the 3 "
                      "most and 3 least skewed labels (by α), then the most lopsided (largest "
                      f"|2W − 1|); {len(wr) - int(keep.sum())} pairs left out here, all are in "
                      "tables['win_rates'] (win_rates.csv).")


def _pauc_header(m: dict) -> str:
    """The per-label table's partial AUC column, ``pAUC (FPR ≤ max_fpr)``."""
    return f"pAUC (FPR ≤ {m['max_fpr']:g})"


def _scorer_blocks(m: dict, t: dict, s: str, pct: str, digits: int, max_rows: int,
                   max_pairs: int) -> list[tuple]:
    a = t["auc"][t["auc"].scorer == s]
    part = m.get("max_fpr") is not None  # the partial AUC column (diagnose's max_fpr)
    out: list[tuple] = [("h", 2, f"Scorer `{s}`"), ("h", 3, "Per-label AUC"), ("table",
        ["label", "AUC", f"{pct} CI", "gAUC", f"{pct} CI"] + ([_pauc_header(m)] if part else []),
        [[r.label, fmt_num(r.auc, digits), fmt_ci(r.auc_ci_low, r.auc_ci_high, digits),
          fmt_num(r.gauc, digits), fmt_ci(r.gauc_ci_low, r.gauc_ci_high, digits)]
         + ([fmt_num(r.pauc, digits)] if part else []) for r in a.itertuples()])]
    wr = t["win_rates"][t["win_rates"].scorer == s]
    if len(wr):
        shown, left = shown_pairs(wr, t["labels"], max_pairs)
        out += [("h", 3, "Cross-pair win rates (observed)")] + ([("p", left)] if left else [])
        out.append(("table", ["W", "value", f"{pct} CI", f"near ties (≤ {m['near_tie_tol']:g})",
                              "k only", "j only"],
                    [[f"W({r.label_k} > {r.label_j})", fmt_num(r.win_rate, digits),
                      fmt_ci(r.ci_low, r.ci_high, digits), fmt_num(r.near_tie_rate, digits),
                      r.n_k_only, r.n_j_only] for r in shown.itertuples()]))
    r = t["summary"][t["summary"].scorer == s].iloc[0]
    out += [("h", 3, "Diff and Min AUC"), ("table",
        ["Min AUC", "label", f"{pct} CI", "Diff AUC", f"{pct} CI", "dictatorship index"],
        [[fmt_num(r.min_auc, digits), r.min_auc_label, fmt_ci(r.min_ci_low, r.min_ci_high, digits),
          fmt_num(r.diff_auc, digits), fmt_ci(r.diff_ci_low, r.diff_ci_high, digits),
          fmt_num(r.dictatorship_index, digits)]])]
    pq = t["per_query"][t["per_query"].scorer == s]
    if len(pq):
        wide = pq.pivot_table(index="qid", columns="label", values="auc", sort=True,
                              dropna=False)[m["labels"]]
        n_q = pq.groupby("qid")["n"].first()
        out += [("h", 3, f"Per query (AUC per label; {min(max_rows, len(wide))} of {len(wide)} "
                         "queries; all in `tables['per_query']`)"),
                ("table", ["qid", "rows", *m["labels"]],
                 [[q, int(n_q[q]), *(fmt_num(v, digits) for v in row)] for q, row in
                  zip(wide.index[:max_rows], wide.to_numpy()[:max_rows], strict=True)])]
    return out


def _data_uris(pngs: dict[str, tuple[bytes, str]]) -> dict[str, tuple[str, str]]:
    """PNG bytes as ``data:`` URIs (the page embeds its figures: no file beside it needed)."""
    return {k: ("data:image/png;base64," + base64.b64encode(png).decode("ascii"), cap)
            for k, (png, cap) in pngs.items()}


@dataclass
class Diagnostics:
    """The result of :func:`diagnose`: ``meta`` (data, options, interval method) and ``tables``,
    pandas DataFrames whose ``note`` column explains every NaN of its row — ``labels`` (``n_pos``,
    ``prior``, ``alpha`` = 1/(π(1−π)), ``alpha_share``, ``dictator``); ``auc`` (per scorer ×
    label: ``auc``, ``gauc``, each with ``_se``, ``_ci_low``, ``_ci_high``; with ``max_fpr``
    also ``pauc``, the McClish-standardised partial AUC); ``win_rates`` (per
    scorer × label pair k before j: ``win_rate`` = W_{k>j}, ``se``, ``ci_low/high``,
    ``near_tie_rate``, ``n_k_only``, ``n_j_only``); ``summary`` (per scorer: Min AUC and its
    label, Diff AUC, percentile intervals, dictatorship index ``max |2W − 1|``); ``per_query``
    (per scorer × query × label: ``n``, ``n_pos``, ``auc``); ``paired`` (per scorer pair ×
    label × metric: ``diff`` = a − b, ``se``, ``ci_low/high``, ``z``, ``p_value`` and
    ``p_holm``, Holm-adjusted over every scorer pair × label of the metric); ``dictatorship``
    (per scorer × label: ``theory_alpha_share`` and ``theory_dictator`` — what loss aggregation
    with a = 1 *would* favour — beside ``observed_mean_win_rate``, ``observed_min_win_rate``,
    ``observed_favoured`` and ``observed_dictator`` — what the scorer does favour, from its
    W_{k>j}); ``scorers`` (per scorer: ``min_auc``, ``min_auc_label``, ``min_auc_ci_low/high``,
    ``diff_auc`` with its interval, ``macro_auc``); ``paired_min`` (per scorer pair:
    ``difference`` = Min AUC of a − Min AUC of b, ``se``, ``ci_low/high``, ``method``). And
    ``recommendation``: the scorer with the highest Min AUC and a sentence with the evidence,
    which says when its lead is within noise. :meth:`to_html` is the self-contained page with
    the figures (:meth:`figures`); :meth:`save` writes it with the JSON, the Markdown, the
    figures and the tables. In a notebook the object shows itself as the report
    (``_repr_html_``, ``_repr_markdown_``)."""

    tables: dict[str, pd.DataFrame]
    meta: dict[str, Any] = field(default_factory=dict)
    #: ``{"scorer", "reason"}``: the scorer with the highest Min AUC and the evidence
    #: (:func:`bipartite.diagnostics._choice.recommend`)
    recommendation: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain Python (JSON-ready): ``{"format", "meta", <table>: [records],
        "recommendation"}``."""
        out: dict[str, Any] = {"format": "bipartite.diagnostics/1",
                               "meta": {k: plain(v) for k, v in self.meta.items()}}
        for name, df in self.tables.items():
            out[name] = [_record(r) for r in df.to_dict("records")]
        out["recommendation"] = None if self.recommendation is None else {
            k: plain(v) for k, v in self.recommendation.items()}
        return out

    def to_json(self, *, indent: int | None = 2) -> str:
        """Strict JSON (RFC 8259): no NaN or Infinity literals — undefined values are ``null``
        and the record's ``note`` gives the reason."""
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False, ensure_ascii=False)

    def to_markdown(self, *, digits: int = 3, max_rows: int = 10, max_pairs: int = 30) -> str:
        """A Markdown report. The per-query table is cut to ``max_rows`` queries per scorer;
        the cross-pair win rates to the pairs :func:`shown_pairs` keeps when a scorer has more
        than ``max_pairs`` of them (the report says how many were left out; every pair is in
        ``tables["win_rates"]``). No figures (``save`` writes a ``report.md`` that links
        them)."""
        return self._markdown(digits, max_rows, max_pairs, None)

    def _markdown(self, digits, max_rows, max_pairs, figures) -> str:
        return "\n".join(markdown_blocks(self._blocks(digits, max_rows, max_pairs),
                                          lambda v: fmt_num(v, 3), figures))

    def to_html(self, *, digits: int = 3, max_rows: int = 10, max_pairs: int = 30,
                figures: bool = True) -> str:
        """The report as one self-contained HTML page, the ``report.html`` that ``save`` (and
        ``bipartite report --out``) writes: the text and tables of :meth:`to_markdown` with
        Markdown's marks rendered (never shown literally), every figure of :meth:`figures`
        inline as a PNG ``data:`` URI (without them with ``figures=False``), an inline style
        sheet, no script and no network access."""
        return self._page(digits, max_rows, max_pairs, _data_uris(self._pngs()) if figures
                          else None)

    def _page(self, digits, max_rows, max_pairs, imgs) -> str:
        return page(html_blocks(self._blocks(digits, max_rows, max_pairs),
                                lambda v: fmt_num(v, 3), imgs), "Ranking diagnostics")

    def _pngs(self) -> dict[str, tuple[bytes, str]]:
        """Every figure of :meth:`figures` as PNG bytes (110 dpi), with its caption."""
        out = {}
        for name, (fig, cap) in self.figures().items():
            buf = io.BytesIO()
            fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
            out[name] = (buf.getvalue(), cap)
        return out

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def _repr_html_(self) -> str:
        """The notebook display: the page's body without figures (fast; ``to_html()`` has
        them)."""
        return html_blocks(self._blocks(3, 10, 30), lambda v: fmt_num(v, 3))

    def _blocks(self, digits: int, max_rows: int, max_pairs: int) -> list[tuple]:
        """The report as blocks — ``("h", level, text)``, ``("p", text)``, ``("table", header,
        rows)``, ``("list", items)``, ``("figure", name)`` — rendered as Markdown or HTML
        (:mod:`bipartite.diagnostics._render`)."""
        m, t = self.meta, self.tables
        pct = f"{100 * m['level']:g}%"
        dropped = m.get("n_dropped") or 0
        out: list[tuple] = [("h", 1, "Ranking diagnostics"), ("p",
            f"{m['n_rows']} rows" + (f" ({dropped} with a missing value dropped)" if dropped
                                     else "")
            + (f", {m['n_queries']} queries (`{m['qid']}`)" if m["qid"] else " (no query ids)")
            + (f", weights `{m['weight']}`" if m["weight"] else "")
            + f"; scorers {', '.join(f'`{s}`' for s in m['scores'])}; labels "
            + ", ".join(f"`{x}`" for x in m["labels"])
            + (f" (positive: {m['positive_label']!r})" if m.get("positive_label") is not None
               else "")
            + f". {pct} intervals: " + m["interval_method"]
            + (f" (seed {m['seed']})" if m.get("n_boot") and m.get("seed") is not None else "")
            + ". Ties count ½.")]
        if m.get("interval_warning"):  # few queries for the chosen interval (docs/coverage.md)
            out.append(("p", f"**Warning: {m['interval_warning']}.**"))
        if m["qid"]:
            out.append(("p", f"gAUC = {m.get('gauc_definition') or m['gauc_weighting']}."))
        if m.get("max_fpr") is not None:
            out.append(("p", f"{_pauc_header(m)}: the partial AUC up to a false positive rate of "
                        f"{m['max_fpr']:g}, McClish-standardised (0.5 random, 1 perfect; "
                        "`bipartite.metrics.partial_auc`, scikit-learn's "
                        "`roc_auc_score(max_fpr=)`), pooled over all rows with their weights; "
                        "a point estimate, without interval."))
        out += _choice_blocks(m, t, self.recommendation, pct, digits)
        out += _label_blocks(m, t, digits)
        for s in m["scores"]:
            out += _scorer_blocks(m, t, s, pct, digits, max_rows, max_pairs)
        if m["qid"]:
            out.append(("figure", "per_query", "Per-query AUCs"))
        if len(t["paired"]):
            out += [("h", 2, "Paired differences (a − b)"),
                    ("p", f"p: the test's own p-value; p (Holm): {m.get('multiple_testing')}.")]
            out.append(("table", ["a", "b", "label", "metric", "a − b", f"{pct} CI", "p",
                                  "p (Holm)", "method"],
                        [[r.scorer_a, r.scorer_b, r.label, r.metric, fmt_num(r.diff, digits),
                          fmt_ci(r.ci_low, r.ci_high, digits), fmt_p(r.p_value, digits),
                          fmt_p(r.p_holm, digits), r.method] for r in t["paired"].itertuples()]))
        notes = sorted({f"{name}: {n}" for name, df in t.items() if name != "per_query"
                        for n in df["note"].dropna()})
        if notes:
            out += [("h", 2, "Notes"), ("list", notes)]
        return out

    def figure(self) -> Figure:
        """A matplotlib Figure summing the report up in one
        (:func:`bipartite.diagnostics._figures.overview`): per-label AUC (filled) and gAUC
        (open) with their intervals, the cross-pair win rates with theirs, and (with query ids)
        the ECDF of the per-query AUCs; legible at many labels (CAL500: 174 labels). The report's
        separate figures are :meth:`figures`."""
        return overview(self.tables, self.meta)

    def figures(self) -> dict[str, tuple[Figure, str]]:
        """The report's figures that apply, ``{name: (figure, caption)}``
        (:func:`bipartite.diagnostics._figures.report_figures`): ``auc_plane`` (K ≥ 2),
        ``auc_intervals``, ``weights``, ``win_rates`` (K ≥ 2) and ``per_query`` (with query
        ids)."""
        return report_figures(self.tables, self.meta)

    def save(self, directory: str | os.PathLike, *, figure: bool = True) -> list[Path]:
        """Write into ``directory`` (created) ``report.md``, ``report.json``, one CSV per table
        and, with ``figure``, ``report.html`` (the self-contained page of :meth:`to_html`), each
        of :meth:`figures` as ``figure_<name>.png`` (``report.md`` links them) and the
        one-figure summary :meth:`figure` as ``report.png`` and ``report.pdf``; return the
        paths.

        A folder that cannot be used (a part of its path is a file, a read-only file system, no
        permission, a full disk) raises :class:`bipartite._utils.files.OutputError` (an
        ``OSError``) naming the path and the cause, before the first file is written."""
        from bipartite.plots import save_figures

        out = prepare_output_dir(directory, what="the report folder")
        check_writable(out)
        pngs = self._pngs() if figure else {}
        paths = [out / "report.md", out / "report.json"] + [out / f"{t}.csv" for t in self.tables]
        try:
            paths[0].write_text(self._markdown(3, 10, 30, {
                k: (f"figure_{k}.png", cap) for k, (_, cap) in pngs.items()}) + "\n",
                encoding="utf-8")
            paths[1].write_text(self.to_json() + "\n", encoding="utf-8")
            for name, df in self.tables.items():
                df.to_csv(out / f"{name}.csv", index=False)
            if figure:
                for k, (png, _) in pngs.items():
                    paths.append(out / f"figure_{k}.png")
                    paths[-1].write_bytes(png)
                paths.append(out / "report.html")
                paths[-1].write_text(self._page(3, 10, 30, _data_uris(pngs)), encoding="utf-8")
                paths += save_figures(self.figure(), out, "report")
        except OutputError:
            raise
        except OSError as exc:  # e.g. the disk filled up while writing
            raise OutputError(explain_os_error(exc, "writing", exc.filename or out),
                              path=exc.filename or out, errno=exc.errno, action="writing",
                              os_error=exc) from None
        return paths
