"""The result of :func:`bipartite.diagnostics.diagnose`: tables, Markdown, strict JSON, a figure."""

from __future__ import annotations

import html
import itertools
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from bipartite._utils.files import OutputError, check_writable, explain_os_error, prepare_output_dir
from bipartite.diagnostics._tables import plain

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

__all__ = ["Diagnostics", "FIGURE_MAX_LABELS", "FIGURE_MAX_TICK_LABELS", "shown_pairs"]

#: Past this many labels the report's figure draws the win-rate matrix instead of one error bar
#: per label pair, and names only the scorers (:meth:`Diagnostics.figure`).
FIGURE_MAX_LABELS = 8
#: Past this many labels the per-label panel drops its tick names (they would overprint).
FIGURE_MAX_TICK_LABELS = 40


def _record(row: dict) -> dict:
    """A table row for JSON: NaN → null (the row's ``note`` says why), numpy → Python."""
    out = {k: (None if isinstance(v, float) and not math.isfinite(v) else plain(v))
           for k, v in row.items()}
    if out.get("note") is None and any(v is None for k, v in out.items() if k != "note"):
        out["note"] = "undefined"  # every null carries a reason
    return out


def _fmt(x: Any, digits: int) -> str:
    if isinstance(x, float | np.floating):
        t = f"{x:.{digits}f}" if np.isfinite(x) else "–"
        return t[1:] if t.startswith("-") and float(t) == 0 else t  # no "-0.000"
    return "–" if x is None else str(x)


def _p(p: Any, digits: int) -> str:
    return "–" if not np.isfinite(p) else (f"< {10.0 ** -digits:g}" if p < 10.0 ** -digits
                                           else f"{p:.{digits}f}")


def _ci(lo: Any, hi: Any, digits: int) -> str:
    return "–" if not (np.isfinite(lo) and np.isfinite(hi)) else \
        f"[{lo:.{digits}f}, {hi:.{digits}f}]"


def _markdown(blocks: list[tuple]) -> list[str]:
    lines: list[str] = []
    for b in blocks:
        if b[0] == "h":
            lines += ["#" * b[1] + " " + b[2], ""]
        elif b[0] == "p":
            lines += [b[1], ""]
        elif b[0] == "table":
            lines += ["| " + " | ".join(b[1]) + " |", "|" + "---|" * len(b[1])]
            lines += ["| " + " | ".join(_fmt(v, 3) for v in r) + " |" for r in b[2]] + [""]
        else:
            lines += [f"- {x}" for x in b[1]] + [""]
    return lines


def _inline(text: str) -> str:
    """Markdown's inline code spans as HTML, the rest escaped."""
    parts = html.escape(text).split("`")
    return "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts))


def _html(blocks: list[tuple]) -> str:
    out = ['<div class="bipartite-diagnostics">']
    for b in blocks:
        if b[0] == "h":
            out.append(f"<h{b[1] + 1}>{_inline(b[2])}</h{b[1] + 1}>")
        elif b[0] == "p":
            out.append(f"<p>{_inline(b[1])}</p>")
        elif b[0] == "table":
            head = "".join(f"<th>{_inline(str(h))}</th>" for h in b[1])
            body = "".join("<tr>" + "".join(f"<td>{_inline(_fmt(v, 3))}</td>" for v in r)
                           + "</tr>" for r in b[2])
            out.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
        else:
            out.append("<ul>" + "".join(f"<li>{_inline(x)}</li>" for x in b[1]) + "</ul>")
    return "\n".join(out + ["</div>"])


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


def _label_blocks(m: dict, t: dict, digits: int) -> list[tuple]:
    """The label table and the dictatorship section: theory (what loss aggregation with a = 1
    would favour) beside the observed win rates of each scorer."""
    out: list[tuple] = [("h", 2, "Labels"), ("table",
        ["label", "positives", "prior π", "α (a = 1)", "α share", "would dictate (theory)"],
        [[r.label, r.n_pos, _fmt(r.prior, digits), _fmt(r.alpha, digits),
          _fmt(r.alpha_share, digits), "yes" if r.dictator else ""]
         for r in t["labels"].itertuples()]), ("p", _theory_sentence(m))]
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
        row = [lab, _fmt(r0.theory_alpha_share, digits), "yes" if r0.theory_dictator else ""]
        for s in m["scores"]:
            r = dic[(dic.label == lab) & (dic.scorer == s)].iloc[0]
            row += [_fmt(r.observed_mean_win_rate, digits), _fmt(r.observed_min_win_rate, digits),
                    " / ".join(x for x, on in (("favoured", r.observed_favoured),
                                               ("dictates", r.observed_dictator)) if on)]
        rows.append(row)
    return out + [("table", header, rows)]


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


def _scorer_blocks(m: dict, t: dict, s: str, pct: str, digits: int, max_rows: int,
                   max_pairs: int) -> list[tuple]:
    a = t["auc"][t["auc"].scorer == s]
    out: list[tuple] = [("h", 2, f"Scorer `{s}`"), ("h", 3, "Per-label AUC"), ("table",
        ["label", "AUC", f"{pct} CI", "gAUC", f"{pct} CI"],
        [[r.label, _fmt(r.auc, digits), _ci(r.auc_ci_low, r.auc_ci_high, digits),
          _fmt(r.gauc, digits), _ci(r.gauc_ci_low, r.gauc_ci_high, digits)]
         for r in a.itertuples()])]
    wr = t["win_rates"][t["win_rates"].scorer == s]
    if len(wr):
        shown, left = shown_pairs(wr, t["labels"], max_pairs)
        out += [("h", 3, "Cross-pair win rates (observed)")] + ([("p", left)] if left else [])
        out.append(("table", ["W", "value", f"{pct} CI", f"near ties (≤ {m['near_tie_tol']:g})",
                              "k only", "j only"],
                    [[f"W({r.label_k} > {r.label_j})", _fmt(r.win_rate, digits),
                      _ci(r.ci_low, r.ci_high, digits), _fmt(r.near_tie_rate, digits),
                      r.n_k_only, r.n_j_only] for r in shown.itertuples()]))
    r = t["summary"][t["summary"].scorer == s].iloc[0]
    out += [("h", 3, "Diff and Min AUC"), ("table",
        ["Min AUC", "label", f"{pct} CI", "Diff AUC", f"{pct} CI", "dictatorship index"],
        [[_fmt(r.min_auc, digits), r.min_auc_label, _ci(r.min_ci_low, r.min_ci_high, digits),
          _fmt(r.diff_auc, digits), _ci(r.diff_ci_low, r.diff_ci_high, digits),
          _fmt(r.dictatorship_index, digits)]])]
    pq = t["per_query"][t["per_query"].scorer == s]
    if len(pq):
        wide = pq.pivot_table(index="qid", columns="label", values="auc", sort=True,
                              dropna=False)[m["labels"]]
        n_q = pq.groupby("qid")["n"].first()
        out += [("h", 3, f"Per query (AUC per label; {min(max_rows, len(wide))} of {len(wide)} "
                         "queries; all in `tables['per_query']`)"),
                ("table", ["qid", "rows", *m["labels"]],
                 [[q, int(n_q[q]), *(_fmt(v, digits) for v in row)] for q, row in
                  zip(wide.index[:max_rows], wide.to_numpy()[:max_rows], strict=True)])]
    return out


@dataclass
class Diagnostics:
    """The result of :func:`diagnose`: ``meta`` (data, options, interval method) and ``tables``,
    pandas DataFrames whose ``note`` column explains every NaN of its row — ``labels`` (``n_pos``,
    ``prior``, ``alpha`` = 1/(π(1−π)), ``alpha_share``, ``dictator``); ``auc`` (per scorer ×
    label: ``auc``, ``gauc``, each with ``_se``, ``_ci_low``, ``_ci_high``); ``win_rates`` (per
    scorer × label pair k before j: ``win_rate`` = W_{k>j}, ``se``, ``ci_low/high``,
    ``near_tie_rate``, ``n_k_only``, ``n_j_only``); ``summary`` (per scorer: Min AUC and its
    label, Diff AUC, percentile intervals, dictatorship index ``max |2W − 1|``); ``per_query``
    (per scorer × query × label: ``n``, ``n_pos``, ``auc``); ``paired`` (per scorer pair ×
    label × metric: ``diff`` = a − b, ``se``, ``ci_low/high``, ``z``, ``p_value`` and
    ``p_holm``, Holm-adjusted over every scorer pair × label of the metric); ``dictatorship``
    (per scorer × label: ``theory_alpha_share`` and ``theory_dictator`` — what loss aggregation
    with a = 1 *would* favour — beside ``observed_mean_win_rate``, ``observed_min_win_rate``,
    ``observed_favoured`` and ``observed_dictator`` — what the scorer does favour, from its
    W_{k>j}). In a notebook the object shows itself as the report (``_repr_html_``,
    ``_repr_markdown_``)."""

    tables: dict[str, pd.DataFrame]
    meta: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """Plain Python (JSON-ready): ``{"format", "meta", <table>: [records]}``."""
        out: dict[str, Any] = {"format": "bipartite.diagnostics/1",
                               "meta": {k: plain(v) for k, v in self.meta.items()}}
        for name, df in self.tables.items():
            out[name] = [_record(r) for r in df.to_dict("records")]
        return out

    def to_json(self, *, indent: int | None = 2) -> str:
        """Strict JSON (RFC 8259): no NaN or Infinity literals — undefined values are ``null``
        and the record's ``note`` gives the reason."""
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False, ensure_ascii=False)

    def to_markdown(self, *, digits: int = 3, max_rows: int = 10, max_pairs: int = 30) -> str:
        """A Markdown report. The per-query table is cut to ``max_rows`` queries per scorer;
        the cross-pair win rates to the pairs :func:`shown_pairs` keeps when a scorer has more
        than ``max_pairs`` of them (the report says how many were left out; every pair is in
        ``tables["win_rates"]``)."""
        return "\n".join(_markdown(self._blocks(digits, max_rows, max_pairs)))

    def to_html(self, *, digits: int = 3, max_rows: int = 10, max_pairs: int = 30) -> str:
        """The report of :meth:`to_markdown` as an HTML fragment (the notebook display)."""
        return _html(self._blocks(digits, max_rows, max_pairs))

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def _repr_html_(self) -> str:
        return self.to_html()

    def _blocks(self, digits: int, max_rows: int, max_pairs: int) -> list[tuple]:
        """The report as blocks — ``("h", level, text)``, ``("p", text)``, ``("table", header,
        rows)``, ``("list", items)`` — rendered as Markdown or HTML."""
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
        out += _label_blocks(m, t, digits)
        for s in m["scores"]:
            out += _scorer_blocks(m, t, s, pct, digits, max_rows, max_pairs)
        if len(t["paired"]):
            out += [("h", 2, "Paired differences (a − b)"),
                    ("p", f"p: the test's own p-value; p (Holm): {m.get('multiple_testing')}.")]
            out.append(("table", ["a", "b", "label", "metric", "a − b", f"{pct} CI", "p",
                                  "p (Holm)", "method"],
                        [[r.scorer_a, r.scorer_b, r.label, r.metric, _fmt(r.diff, digits),
                          _ci(r.ci_low, r.ci_high, digits), _p(r.p_value, digits),
                          _p(r.p_holm, digits), r.method] for r in t["paired"].itertuples()]))
        notes = sorted({f"{name}: {n}" for name, df in t.items() if name != "per_query"
                        for n in df["note"].dropna()})
        if notes:
            out += [("h", 2, "Notes"), ("list", notes)]
        return out

    def figure(self) -> Figure:
        """A matplotlib Figure: per-label AUC (filled) and gAUC (open) with their intervals,
        the cross-pair win rates with theirs, and (with query ids) the ECDF of the per-query
        AUCs. Colour = scorer, line style and marker = label; error bars = the intervals.

        With more than :data:`FIGURE_MAX_LABELS` labels (CAL500: 174 labels, 15 051 pairs) the
        figure stays legible: markers and the legend name only the scorers, the win-rate panel
        is the K × K matrix W(k > j) of the first scorer (labels by prior, rarest first), and
        the ECDF pools each scorer's per-query AUCs over the labels."""
        from bipartite.plots import new_figure

        m, t = self.meta, self.tables
        S, L, has_q = m["scores"], m["labels"], m["qid"] is not None
        many = len(L) > FIGURE_MAX_LABELS
        styles, marks = ["-", "--", ":", "-."], ["o", "s", "^", "D", "v"]
        fig, axes = new_figure(1, 2 + has_q, figsize=(4.4 * (2 + has_q) + 2 * many, 3.6 + many),
                               layout="constrained")

        def bar(ax, x, val, lo, hi, i, k, fill=True):
            if np.isfinite(val):
                err = [[val - lo], [hi - val]] if np.isfinite(lo) else None
                eb = ax.errorbar(x + (i - (len(S) - 1) / 2) * 0.15, val, yerr=err,
                                 capsize=0 if many else 3, color=f"C{i % 10}",
                                 marker="o" if many else marks[k % 5], ms=3 if many else 6,
                                 lw=0.6 if many else 1.5, mfc=f"C{i % 10}" if fill else "white")
                if eb[-1] and not many:
                    eb[-1][0].set_linestyle(styles[k % 4])

        for i, s in enumerate(S):
            for k, r in enumerate(t["auc"][t["auc"].scorer == s].itertuples()):
                bar(axes[0], k, r.auc, r.auc_ci_low, r.auc_ci_high, i, k)
                bar(axes[0], k + 0.06, r.gauc, r.gauc_ci_low, r.gauc_ci_high, i, k, fill=False)
            if not many:
                for p, r in enumerate(t["win_rates"][t["win_rates"].scorer == s].itertuples()):
                    bar(axes[1], p, r.win_rate, r.ci_low, r.ci_high, i, L.index(r.label_k))
            axes[0].plot([], [], color=f"C{i % 10}", label=s)
        if not many:
            for k, lab in enumerate(L):
                axes[0].plot([], [], color="grey", ls=styles[k % 4], marker=marks[k % 5],
                             label=lab)
        axes[0].set(xticks=range(len(L)), xlim=(-0.5, len(L) - 0.5),
                    ylabel="AUC (filled) / gAUC (open)", title="Per-label AUC")
        if len(L) > FIGURE_MAX_TICK_LABELS:  # names would overprint: the order is the table's
            axes[0].set(xticks=[], xlabel=f"the {len(L)} labels, in the order of tables['auc']")
        else:
            axes[0].set_xticklabels(L, rotation=90 if many else 0, fontsize=6 if many else None)
        axes[0].axhline(0.5, color="grey", lw=0.8, ls=":")
        axes[0].legend(fontsize=7)
        if many:
            self._win_matrix(fig, axes[1])
        else:
            wr = t["win_rates"]
            pairs = list(dict.fromkeys(zip(wr.label_k, wr.label_j, strict=True)))
            axes[1].set(xticks=range(len(pairs)), xticklabels=[f"W({k}>{j})" for k, j in pairs],
                        xlim=(-0.5, max(len(pairs), 1) - 0.5), ylim=(-0.02, 1.02),
                        title="Cross-pair win rates (½ = even-handed)")
            axes[1].axhline(0.5, color="grey", lw=0.8, ls=":")
        if has_q:
            pq = t["per_query"]
            for (i, s), (k, lab) in itertools.product(enumerate(S), enumerate([None] if many
                                                                            else L)):
                sel = (pq.scorer == s) & ((pq.label == lab) if lab is not None else True)
                v = np.sort(pq[sel].auc.dropna().to_numpy())
                if len(v):
                    axes[2].step(v, np.arange(1, len(v) + 1) / len(v), where="post",
                                 color=f"C{i % 10}", ls=styles[k % 4],
                                 label=s if many else f"{s} · {lab}")
            axes[2].set(xlabel="per-query AUC" + (" (all labels)" if many else ""),
                        ylabel="share of queries", xlim=(-0.02, 1.02),
                        title="Per-query AUC (ECDF)")
            axes[2].legend(fontsize=7)
        return fig

    def _win_matrix(self, fig: Figure, ax) -> None:
        """The K × K matrix of W(k > j) of the first scorer, labels by prior (rarest first)."""
        m, t = self.meta, self.tables
        s0, L = m["scores"][0], m["labels"]
        order = t["labels"].sort_values("prior", kind="stable").label.tolist()
        at = {lab: i for i, lab in enumerate(order)}
        W = np.full((len(L), len(L)), np.nan)
        wr = t["win_rates"][t["win_rates"].scorer == s0]
        k = wr.label_k.map(at).to_numpy()
        j = wr.label_j.map(at).to_numpy()
        v = wr.win_rate.to_numpy(dtype=float)
        W[k, j], W[j, k] = v, 1 - v
        im = ax.imshow(W, vmin=0, vmax=1, cmap="RdBu_r", interpolation="nearest")
        fig.colorbar(im, ax=ax, shrink=0.8, label="W(k > j); ½ = even-handed")
        ax.set(title=f"Win rates W(k > j) of `{s0}`",
               xlabel="label j (by prior, rarest first)", ylabel="label k (same order)")
        if len(L) > FIGURE_MAX_TICK_LABELS:
            ax.set(xticks=[], yticks=[])
        else:
            ax.set_xticks(range(len(L)), order, rotation=90, fontsize=5)
            ax.set_yticks(range(len(L)), order, fontsize=5)

    def save(self, directory: str | os.PathLike, *, figure: bool = True) -> list[Path]:
        """Write ``report.md``, ``report.json``, one CSV per table and ``report.png`` and
        ``report.pdf`` (with ``figure``) into ``directory`` (created); return the paths.

        A folder that cannot be used (a part of its path is a file, a read-only file system, no
        permission, a full disk) raises :class:`bipartite._utils.files.OutputError` (an
        ``OSError``) naming the path and the cause, before the first file is written."""
        from bipartite.plots import save_figures

        out = prepare_output_dir(directory, what="the report folder")
        check_writable(out)
        paths = [out / "report.md", out / "report.json"] + [out / f"{t}.csv" for t in self.tables]
        try:
            paths[0].write_text(self.to_markdown() + "\n", encoding="utf-8")
            paths[1].write_text(self.to_json() + "\n", encoding="utf-8")
            for name, df in self.tables.items():
                df.to_csv(out / f"{name}.csv", index=False)
            if figure:
                paths += save_figures(self.figure(), out, "report")
        except OutputError:
            raise
        except OSError as exc:  # e.g. the disk filled up while writing
            raise OutputError(explain_os_error(exc, "writing", exc.filename or out),
                              path=exc.filename or out, errno=exc.errno, action="writing",
                              os_error=exc) from None
        return paths
