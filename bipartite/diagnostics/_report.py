"""The result of :func:`bipartite.diagnostics.diagnose`: tables, Markdown, strict JSON, a figure."""

from __future__ import annotations

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

__all__ = ["Diagnostics"]


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


def _md(header: list[str], rows: list[list[Any]], digits: int) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_fmt(v, digits) for v in r) + " |" for r in rows]
    return lines + [""]


def _p(p: Any, digits: int) -> str:
    return "–" if not np.isfinite(p) else (f"< {10.0 ** -digits:g}" if p < 10.0 ** -digits
                                           else f"{p:.{digits}f}")


def _ci(lo: Any, hi: Any, digits: int) -> str:
    return "–" if not (np.isfinite(lo) and np.isfinite(hi)) else \
        f"[{lo:.{digits}f}, {hi:.{digits}f}]"


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
    label × metric: ``diff`` = a − b, ``se``, ``ci_low/high``, ``z``, ``p_value``)."""

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

    def to_markdown(self, *, digits: int = 3, max_rows: int = 10) -> str:
        """A Markdown report; the per-query table is cut to ``max_rows`` rows per scorer."""
        m, t = self.meta, self.tables
        pct = f"{100 * m['level']:g}%"
        lines = ["# Ranking diagnostics", "",
                 f"{m['n_rows']} rows" + (f", {m['n_queries']} queries (`{m['qid']}`)"
                                          if m["qid"] else " (no query ids)")
                 + (f", weights `{m['weight']}`" if m["weight"] else "")
                 + f"; scorers {', '.join(f'`{s}`' for s in m['scores'])}; labels "
                 + ", ".join(f"`{x}`" for x in m["labels"]) + f". {pct} intervals: "
                 + m["interval_method"] + f" (seed {m['seed']}). Ties count ½.", "",
                 "## Labels", ""]
        lines += _md(["label", "positives", "prior π", "α (a = 1)", "α share", "dictator"],
                     [[r.label, r.n_pos, r.prior, r.alpha, r.alpha_share,
                       "yes" if r.dictator else ""] for r in t["labels"].itertuples()], digits)
        lines += [f"Loss aggregation with a = 1 would make `{m['dictator']}` the dictator (α share"
                  " > ½: with deterministic labels its Bayes scorer ranks every positive of "
                  f"`{m['dictator']}` above every negative, docs/theory.md §7.1)." if m["dictator"]
                  else "No label would dictate under loss aggregation with a = 1 (no α share > ½)."
                  , ""]
        for s in m["scores"]:
            lines += [f"## Scorer `{s}`", "", "### Per-label AUC", ""]
            a = t["auc"][t["auc"].scorer == s]
            lines += _md(["label", "AUC", f"{pct} CI", "gAUC", f"{pct} CI"],
                         [[r.label, r.auc, _ci(r.auc_ci_low, r.auc_ci_high, digits), r.gauc,
                           _ci(r.gauc_ci_low, r.gauc_ci_high, digits)] for r in a.itertuples()],
                         digits)
            wr = t["win_rates"][t["win_rates"].scorer == s]
            if len(wr):
                lines += ["### Cross-pair win rates", ""]
                lines += _md(["W", "value", f"{pct} CI", f"near ties (≤ {m['near_tie_tol']:g})",
                              "k only", "j only"],
                             [[f"W({r.label_k} > {r.label_j})", r.win_rate,
                               _ci(r.ci_low, r.ci_high, digits), r.near_tie_rate, r.n_k_only,
                               r.n_j_only] for r in wr.itertuples()], digits)
            r = t["summary"][t["summary"].scorer == s].iloc[0]
            lines += ["### Diff and Min AUC", ""]
            lines += _md(["Min AUC", "label", f"{pct} CI", "Diff AUC", f"{pct} CI",
                          "dictatorship index"],
                         [[r.min_auc, r.min_auc_label, _ci(r.min_ci_low, r.min_ci_high, digits),
                           r.diff_auc, _ci(r.diff_ci_low, r.diff_ci_high, digits),
                           r.dictatorship_index]], digits)
            pq = t["per_query"][t["per_query"].scorer == s]
            if len(pq):
                wide = pq.pivot_table(index="qid", columns="label", values="auc", sort=True,
                                      dropna=False)[m["labels"]]
                n_q = pq.groupby("qid")["n"].first()
                lines += [f"### Per query (AUC per label; {min(max_rows, len(wide))} of "
                          f"{len(wide)} queries; all in `tables['per_query']`)", ""]
                lines += _md(["qid", "rows", *m["labels"]],
                             [[q, int(n_q[q]), *row] for q, row in
                              zip(wide.index[:max_rows], wide.to_numpy()[:max_rows],
                                  strict=True)], digits)
        if len(t["paired"]):
            lines += ["## Paired differences (a − b)", ""]
            lines += _md(["a", "b", "label", "metric", "a − b", f"{pct} CI", "p", "method"],
                         [[r.scorer_a, r.scorer_b, r.label, r.metric, r.diff,
                           _ci(r.ci_low, r.ci_high, digits), _p(r.p_value, digits), r.method]
                          for r in t["paired"].itertuples()], digits)
        notes = sorted({f"{name}: {n}" for name, df in t.items() if name != "per_query"
                        for n in df["note"].dropna()})
        if notes:
            lines += ["## Notes", ""] + [f"- {n}" for n in notes] + [""]
        return "\n".join(lines)

    def figure(self) -> Figure:
        """A matplotlib Figure: per-label AUC (filled) and gAUC (open) with their intervals,
        the cross-pair win rates with theirs, and (with query ids) the ECDF of the per-query
        AUCs. Colour = scorer, line style and marker = label; error bars = the intervals."""
        from bipartite.plots import new_figure

        m, t = self.meta, self.tables
        S, L, has_q = m["scores"], m["labels"], m["qid"] is not None
        styles, marks = ["-", "--", ":", "-."], ["o", "s", "^", "D", "v"]
        fig, axes = new_figure(1, 2 + has_q, figsize=(4.4 * (2 + has_q), 3.6),
                               layout="constrained")

        def bar(ax, x, val, lo, hi, i, k, fill=True):
            if np.isfinite(val):
                err = [[val - lo], [hi - val]] if np.isfinite(lo) else None
                eb = ax.errorbar(x + (i - (len(S) - 1) / 2) * 0.15, val, yerr=err, capsize=3,
                                 color=f"C{i % 10}", marker=marks[k % 5],
                                 mfc=f"C{i % 10}" if fill else "white")
                if eb[-1]:
                    eb[-1][0].set_linestyle(styles[k % 4])

        for i, s in enumerate(S):
            for k, r in enumerate(t["auc"][t["auc"].scorer == s].itertuples()):
                bar(axes[0], k, r.auc, r.auc_ci_low, r.auc_ci_high, i, k)
                bar(axes[0], k + 0.06, r.gauc, r.gauc_ci_low, r.gauc_ci_high, i, k, fill=False)
            for p, r in enumerate(t["win_rates"][t["win_rates"].scorer == s].itertuples()):
                bar(axes[1], p, r.win_rate, r.ci_low, r.ci_high, i, L.index(r.label_k))
            axes[0].plot([], [], color=f"C{i % 10}", label=s)
        for k, lab in enumerate(L):
            axes[0].plot([], [], color="grey", ls=styles[k % 4], marker=marks[k % 5], label=lab)
        wr = t["win_rates"]
        pairs = list(dict.fromkeys(zip(wr.label_k, wr.label_j, strict=True)))
        axes[0].set(xticks=range(len(L)), xticklabels=L, xlim=(-0.5, len(L) - 0.5),
                    ylabel="AUC (filled) / gAUC (open)", title="Per-label AUC")
        axes[1].set(xticks=range(len(pairs)), xticklabels=[f"W({k}>{j})" for k, j in pairs],
                    xlim=(-0.5, max(len(pairs), 1) - 0.5), ylim=(-0.02, 1.02),
                    title="Cross-pair win rates (½ = even-handed)")
        for ax in axes[:2]:
            ax.axhline(0.5, color="grey", lw=0.8, ls=":")
        axes[0].legend(fontsize=7)
        if has_q:
            pq = t["per_query"]
            for (i, s), (k, lab) in itertools.product(enumerate(S), enumerate(L)):
                v = np.sort(pq[(pq.scorer == s) & (pq.label == lab)].auc.dropna().to_numpy())
                if len(v):
                    axes[2].step(v, np.arange(1, len(v) + 1) / len(v), where="post",
                                 color=f"C{i % 10}", ls=styles[k % 4], label=f"{s} · {lab}")
            axes[2].set(xlabel="per-query AUC", ylabel="share of queries", xlim=(-0.02, 1.02),
                        title="Per-query AUC (ECDF)")
            axes[2].legend(fontsize=7)
        return fig

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
