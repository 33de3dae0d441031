"""The report's figures (matplotlib, no pyplot state: :func:`bipartite.plots.new_figure`), each
made to be read at a glance — a title, labelled axes, the legend outside the data — from the
tables of :class:`bipartite.diagnostics.Diagnostics`:

* :func:`auc_intervals` — per-label AUC with its interval, every scorer;
* :func:`auc_plane` — the scorers on the plane of the two labels' AUCs (K = 2), or the labels
  side by side, one line per scorer (K > 2);
* :func:`win_heatmap` — the cross-pair win rates W(k > j), one K × K panel per scorer;
* :func:`weights` — the effective weights' shares of loss aggregation (a = 1) and the dictator;
* :func:`per_query` — the distribution (ECDF) of the per-query AUCs (with query ids);

:func:`report_figures` gives those that apply, :func:`overview` the one-figure summary that
:meth:`bipartite.diagnostics.Diagnostics.figure` returns."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

import numpy as np

from bipartite.plots import new_figure

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["FIGURE_MAX_LABELS", "FIGURE_MAX_TICK_LABELS", "MAX_HEATMAPS", "auc_intervals",
           "auc_plane", "overview", "per_query", "report_figures", "weights", "win_heatmap"]

#: Past this many labels the overview draws the win-rate matrix instead of one error bar per
#: label pair, and names only the scorers.
FIGURE_MAX_LABELS = 8
#: Past this many labels the label axes drop their tick names (they would overprint).
FIGURE_MAX_TICK_LABELS = 40
#: The win-rate heatmap draws at most this many scorers' panels (the first ones).
MAX_HEATMAPS = 6

Tables = dict[str, "pd.DataFrame"]


def _colour(i: int) -> str:
    return f"C{i % 10}"


def _legend_right(ax: Axes, title: str | None = None, handles: list | None = None,
                  labels: list[str] | None = None) -> None:
    """The legend outside the axes, on the right (never over the data): of the labelled
    artists, or of ``handles`` named ``labels``."""
    if handles is None and not ax.get_legend_handles_labels()[0]:
        return
    extra = {} if handles is None else {"handles": handles, "labels": labels}
    ax.legend(**extra, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0,
              fontsize=8, title=title, title_fontsize=8, frameon=False)


def _ecdf(ax: Axes, pq: pd.DataFrame, scorer: str, of: str | None, **line: Any) -> None:
    """The ECDF of the per-query AUCs of ``scorer`` for the label ``of`` (None: every label
    pooled), queries with both classes, from 0 at AUC 0 to 1 at AUC 1, as a step line."""
    sel = (pq.scorer == scorer) & ((pq.label == of) if of is not None else True)
    v = np.sort(pq[sel].auc.dropna().to_numpy(dtype=float))
    if len(v):
        ax.step(np.r_[0, v, 1], np.r_[0, np.arange(1, len(v) + 1) / len(v), 1], where="post",
                **line)


def _label_ticks(ax: Axes, names: list[str], axis: str = "x") -> None:
    many = len(names) > FIGURE_MAX_LABELS
    if len(names) > FIGURE_MAX_TICK_LABELS:
        getattr(ax, f"set_{axis}ticks")([])
        return
    size = 9 if not many else 7 if len(names) <= 20 else 5
    getattr(ax, f"set_{axis}ticks")(range(len(names)), names, fontsize=size,
                                    rotation=90 if many and axis == "x" else 0)


def auc_intervals(t: Tables, m: dict) -> Figure:
    """Per-label AUC (dot) and its interval (bar) for every scorer: labels down the y axis,
    scorers side by side within a label, ½ (a random ranking) marked."""
    S, L = m["scores"], m["labels"]
    pct = f"{100 * m['level']:g}%"
    many = len(L) > FIGURE_MAX_TICK_LABELS
    fig, ax = new_figure(figsize=(7.5, max(2.4, 0.32 * len(L) * max(1, len(S)) ** 0.5 + 1.4)),
                         layout="constrained")
    step = 0.8 / max(len(S), 1)
    a = t["auc"]
    for i, s in enumerate(S):
        r = a[a.scorer == s]
        y = np.arange(len(L)) + (i - (len(S) - 1) / 2) * step
        v = r.auc.to_numpy(dtype=float)
        lo, hi = r.auc_ci_low.to_numpy(dtype=float), r.auc_ci_high.to_numpy(dtype=float)
        err = np.vstack([np.where(np.isfinite(lo), v - lo, 0), np.where(np.isfinite(hi), hi - v, 0)])
        ax.errorbar(v, y, xerr=err, fmt="o", ms=3 if many else 5, capsize=0 if many else 3,
                    color=_colour(i), lw=0.8 if many else 1.4, label=s)
    ax.axvline(0.5, color="grey", lw=0.8, ls=":")
    ax.set(xlabel=f"AUC (dot) with its {pct} interval (bar); ½ = random ranking",
           ylabel="label", title="Per-label AUC of every scorer", ylim=(len(L) - 0.5, -0.5))
    _label_ticks(ax, L, "y")
    _legend_right(ax, "scorer")
    return fig


def auc_plane(t: Tables, m: dict) -> Figure | None:
    """K = 2: each scorer a point (AUC of the first label, AUC of the second) with both
    intervals, the diagonal (equal AUCs) and the Min AUC contours. K > 2: the labels side by
    side on the x axis, one line per scorer. None with one label."""
    S, L = m["scores"], m["labels"]
    if len(L) < 2:
        return None
    a = t["auc"]
    if len(L) == 2:
        fig, ax = new_figure(figsize=(6.4, 4.8), layout="constrained")
        for i, s in enumerate(S):
            r = a[a.scorer == s].set_index("label")
            x, y = float(r.auc[L[0]]), float(r.auc[L[1]])
            if not (np.isfinite(x) and np.isfinite(y)):
                continue

            def err(v, lab, r=r):
                lo, hi = float(r.auc_ci_low[lab]), float(r.auc_ci_high[lab])
                return [[v - lo], [hi - v]] if np.isfinite(lo) and np.isfinite(hi) else None

            ax.errorbar(x, y, xerr=err(x, L[0]), yerr=err(y, L[1]), fmt="o", ms=7, capsize=3,
                        color=_colour(i), label=s)
            ax.annotate(s, (x, y), xytext=(6, 6), textcoords="offset points", fontsize=8,
                        color=_colour(i))
        lo = min(0.5, *(v for v in a.auc_ci_low.to_numpy(dtype=float) if np.isfinite(v)), 1.0)
        lim = (max(0.0, lo - 0.02), 1.01)
        grid = np.linspace(*lim, 5)
        for c in grid[1:-1]:  # Min AUC = c: the corner of an L
            ax.plot([c, c, lim[1]], [lim[1], c, c], color="0.85", lw=0.8, zorder=0)
        ax.plot(lim, lim, color="grey", lw=0.8, ls=":", label="equal AUCs")
        ax.set(xlim=lim, ylim=lim, aspect="equal", xlabel=f"AUC of {L[0]}",
               ylabel=f"AUC of {L[1]}",
               title="Scorers on the per-label AUC plane\n(grey corners: equal Min AUC)")
        _legend_right(ax, "scorer")
        return fig
    fig, ax = new_figure(figsize=(max(6.4, 0.45 * len(L) + 3), 4.2), layout="constrained")
    for i, s in enumerate(S):
        r = a[a.scorer == s]
        ax.plot(range(len(L)), r.auc.to_numpy(dtype=float), "-o", color=_colour(i), label=s,
                ms=3 if len(L) > FIGURE_MAX_LABELS else 5)
    ax.axhline(0.5, color="grey", lw=0.8, ls=":")
    ax.set(xlabel="label", ylabel="AUC", xlim=(-0.5, len(L) - 0.5),
           title="Scorers per label, side by side (the lowest point of a line is its Min AUC)")
    _label_ticks(ax, L)
    _legend_right(ax, "scorer")
    return fig


def _win_matrix(t: Tables, s: str, order: list[str]) -> np.ndarray:
    """W(k > j) of scorer ``s`` as a K × K matrix in ``order`` (W(j > k) = 1 − W(k > j))."""
    at = {lab: i for i, lab in enumerate(order)}
    W = np.full((len(order), len(order)), np.nan)
    wr = t["win_rates"][t["win_rates"].scorer == s]
    k, j = wr.label_k.map(at).to_numpy(), wr.label_j.map(at).to_numpy()
    v = wr.win_rate.to_numpy(dtype=float)
    W[k, j], W[j, k] = v, 1 - v
    return W


def win_heatmap(t: Tables, m: dict) -> Figure | None:
    """The cross-pair win rates W(k > j) — the share of (k only, j only) row pairs a scorer
    ranks k first; ½ even-handed — one K × K panel per scorer (the first :data:`MAX_HEATMAPS`),
    labels by prior (rarest first), values written in the cells up to 8 labels. None with one
    label."""
    S, L = m["scores"], m["labels"]
    if len(L) < 2:
        return None
    shown = S[:MAX_HEATMAPS]
    order = t["labels"].sort_values("prior", kind="stable").label.tolist()
    side = min(4.2, 1.6 + 0.45 * len(L))
    fig, axes = new_figure(1, len(shown), figsize=(side * len(shown) + 1.4, side + 0.9),
                           layout="constrained", squeeze=False)
    im = None
    for ax, s in zip(axes[0], shown, strict=True):
        W = _win_matrix(t, s, order)
        im = ax.imshow(W, vmin=0, vmax=1, cmap="RdBu_r", interpolation="nearest")
        if len(L) <= FIGURE_MAX_LABELS:
            for (k, j), v in np.ndenumerate(W):
                if np.isfinite(v):
                    ax.text(j, k, f"{v:.2f}", ha="center", va="center", fontsize=8,
                            color="white" if abs(v - 0.5) > 0.3 else "black")
        ax.set(title=f"{s}", xlabel="label j", ylabel="label k (rows win when red)")
        _label_ticks(ax, order)
        _label_ticks(ax, order, "y")
    fig.colorbar(im, ax=axes[0].tolist(), shrink=0.85, label="W(k > j); ½ = even-handed")
    more = f" (first {len(shown)} of {len(S)} scorers)" if len(S) > len(shown) else ""
    fig.suptitle("Cross-pair win rates W(k > j), labels by prior (rarest first)" + more)
    return fig


def weights(t: Tables, m: dict) -> Figure:
    """The effective weights' shares α_k/Σα of loss aggregation with a = 1 per label, the ½
    line above which a label dictates, the dictator in another colour and named."""
    lab = t["labels"]
    L = lab.label.tolist()
    share = lab.alpha_share.to_numpy(dtype=float)
    dic = lab.dictator.to_numpy(dtype=bool)
    fig, ax = new_figure(figsize=(max(6.0, 0.4 * len(L) + 3), 3.8), layout="constrained")
    from matplotlib.patches import Patch

    ax.bar(range(len(L)), np.nan_to_num(share), color=np.where(dic, "C3", "C0"))
    if len(L) <= FIGURE_MAX_LABELS:
        for k, v in enumerate(share):
            if np.isfinite(v):
                ax.annotate(f"{v:.3f}" + (" dictator" if dic[k] else ""), (k, v),
                            xytext=(0, 3), textcoords="offset points", ha="center", fontsize=8,
                            color="C3" if dic[k] else "black")
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    _legend_right(ax, handles=[Patch(color="C0"), Patch(color="C3"), ax.get_lines()[0]],
                  labels=["α share", "dictator (share > ½)", "½: dictates above"])
    ax.set(ylim=(0, 1.08), xlim=(-0.6, len(L) - 0.4), xlabel="label",
           ylabel="α share = α(k) / Σ α,  α = 1/(π(1 − π))",
           title="Effective weights of loss aggregation (a = 1): "
                 + (f"{m['dictator']} would dictate" if m.get("dictator") else "no dictator"))
    _label_ticks(ax, L)
    return fig


def per_query(t: Tables, m: dict) -> Figure | None:
    """The ECDF of the per-query AUCs (queries with both classes), one line per scorer, one
    panel per label (up to 4 labels; more: every label pooled). None without query ids."""
    pq = t["per_query"]
    if m.get("qid") is None or not len(pq):
        return None
    S, L = m["scores"], m["labels"]
    panels: list[Any] = L if len(L) <= 4 else [None]
    fig, axes = new_figure(1, len(panels), figsize=(3.4 * len(panels) + 1.6, 3.4),
                           layout="constrained", sharey=True, squeeze=False)
    for ax, lab in zip(axes[0], panels, strict=True):
        for i, s in enumerate(S):
            _ecdf(ax, pq, s, lab, color=_colour(i), label=s)
        ax.axvline(0.5, color="grey", lw=0.8, ls=":")
        ax.set(xlim=(-0.02, 1.02), xlabel="per-query AUC",
               title="all labels" if lab is None else f"label {lab}")
    axes[0][0].set_ylabel("share of queries with AUC ≤ x")
    _legend_right(axes[0][-1], "scorer")
    fig.suptitle(f"Per-query AUCs ({m.get('n_queries')} queries; those with both classes)")
    return fig


def report_figures(t: Tables, m: dict) -> dict[str, tuple[Figure, str]]:
    """The figures that apply, by name: ``{name: (figure, caption)}`` in the report's order."""
    pct = f"{100 * m['level']:g}%"
    out = {}
    for name, make, caption in (
            ("auc_plane", auc_plane, "The scorers against the labels' AUCs: the higher the "
                                     "lower-left corner of a point's L, the higher its Min AUC."),
            ("auc_intervals", auc_intervals, f"Per-label AUC with its {pct} interval, "
                                             "every scorer."),
            ("weights", weights, "Effective weights of loss aggregation with a = 1 (theory: a "
                                 "property of the priors) and the dictator they would make."),
            ("win_rates", win_heatmap, "Cross-pair win rates W(k > j) of each scorer "
                                       "(observed): red rows win, ½ is even-handed."),
            ("per_query", per_query, "Distribution of the per-query AUCs.")):
        fig = make(t, m)
        if fig is not None:
            out[name] = (fig, caption)
    return out


def overview(t: Tables, m: dict) -> Figure:
    """A one-figure summary: per-label AUC (filled) and gAUC (open) with their intervals, the
    cross-pair win rates with theirs, and (with query ids) the ECDF of the per-query AUCs. Colour
    = scorer, line style and marker = label; error bars = the intervals. With more than
    :data:`FIGURE_MAX_LABELS` labels markers and the legend name only the scorers, the win-rate
    panel is the K × K matrix W(k > j) of the first scorer (labels by prior, rarest first), and
    the ECDF pools each scorer's per-query AUCs over the labels."""
    S, L, has_q = m["scores"], m["labels"], m["qid"] is not None
    many = len(L) > FIGURE_MAX_LABELS
    styles, marks = ["-", "--", ":", "-."], ["o", "s", "^", "D", "v"]
    fig, axes = new_figure(1, 2 + has_q, figsize=(4.4 * (2 + has_q) + 2 * many, 3.6 + many),
                           layout="constrained")

    def bar(ax, x, val, lo, hi, i, k, fill=True):
        if np.isfinite(val):
            err = [[val - lo], [hi - val]] if np.isfinite(lo) else None
            eb = ax.errorbar(x + (i - (len(S) - 1) / 2) * 0.15, val, yerr=err,
                             capsize=0 if many else 3, color=_colour(i),
                             marker="o" if many else marks[k % 5], ms=3 if many else 6,
                             lw=0.6 if many else 1.5, mfc=_colour(i) if fill else "white")
            if eb[-1] and not many:
                eb[-1][0].set_linestyle(styles[k % 4])

    for i, s in enumerate(S):
        for k, r in enumerate(t["auc"][t["auc"].scorer == s].itertuples()):
            bar(axes[0], k, r.auc, r.auc_ci_low, r.auc_ci_high, i, k)
            bar(axes[0], k + 0.06, r.gauc, r.gauc_ci_low, r.gauc_ci_high, i, k, fill=False)
        if not many:
            for p, r in enumerate(t["win_rates"][t["win_rates"].scorer == s].itertuples()):
                bar(axes[1], p, r.win_rate, r.ci_low, r.ci_high, i, L.index(r.label_k))
        axes[0].plot([], [], color=_colour(i), label=s)
    if not many:
        for k, lab in enumerate(L):
            axes[0].plot([], [], color="grey", ls=styles[k % 4], marker=marks[k % 5], label=lab)
    axes[0].set(xlim=(-0.5, len(L) - 0.5), ylabel="AUC (filled) / gAUC (open)",
                title="Per-label AUC")
    _label_ticks(axes[0], L)
    if len(L) > FIGURE_MAX_TICK_LABELS:
        axes[0].set(xlabel=f"the {len(L)} labels, in the order of tables['auc']")
    axes[0].axhline(0.5, color="grey", lw=0.8, ls=":")
    axes[0].legend(fontsize=7)
    if many:
        order = t["labels"].sort_values("prior", kind="stable").label.tolist()
        im = axes[1].imshow(_win_matrix(t, S[0], order), vmin=0, vmax=1, cmap="RdBu_r",
                            interpolation="nearest")
        fig.colorbar(im, ax=axes[1], shrink=0.8, label="W(k > j); ½ = even-handed")
        axes[1].set(title=f"Win rates W(k > j) of {S[0]}",
                    xlabel="label j (by prior, rarest first)", ylabel="label k (same order)")
        _label_ticks(axes[1], order)
        _label_ticks(axes[1], order, "y")
    else:
        wr = t["win_rates"]
        pairs = list(dict.fromkeys(zip(wr.label_k, wr.label_j, strict=True)))
        axes[1].set(xticks=range(len(pairs)), xticklabels=[f"W({k}>{j})" for k, j in pairs],
                    xlim=(-0.5, max(len(pairs), 1) - 0.5), ylim=(-0.02, 1.02),
                    title="Cross-pair win rates (½ = even-handed)")
        axes[1].axhline(0.5, color="grey", lw=0.8, ls=":")
    if has_q:
        pq = t["per_query"]
        for (i, s), (k, lab) in itertools.product(enumerate(S), enumerate([None] if many else L)):
            _ecdf(axes[2], pq, s, lab, color=_colour(i), ls=styles[k % 4],
                  label=s if many else f"{s} · {lab}")
        axes[2].set(xlabel="per-query AUC" + (" (all labels)" if many else ""),
                    ylabel="share of queries", xlim=(-0.02, 1.02), title="Per-query AUC (ECDF)")
        axes[2].legend(fontsize=7)
    return fig
