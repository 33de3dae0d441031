"""Label against loss aggregation, K = 2 to 174 (issue 33): the §12 condition's plug-in
prediction against the learners' observed effect on Min AUC.

:func:`plot_label_vs_loss` draws ``la25_when_label_aggregation.png`` from one row per (dataset,
aggregation ψ, learner) (``analysis/readme_tables.py``'s ``label_vs_loss_rows``, computed from
the saved results): x the plug-in population's ΔMin = Min AUC(label) − Min AUC(loss, a = 1), mean
over splits; y the learner's paired ΔMin, mean ± s.e. Points in the upper-right and lower-left
quadrants are those where prediction and learner agree in sign.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from bipartite.plots import new_figure, save_figures

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["plot_label_vs_loss"]

_MARKERS = {"sum": "o", "or": "s", "and": "^"}
_COLOURS = {"linear": "tab:blue", "mlp": "tab:orange", "xgb": "tab:green"}


def plot_label_vs_loss(rows: pd.DataFrame, fig_dir: str | Path,
                       name: str = "la25_when_label_aggregation", *,
                       formats: tuple[str, ...] = ("png", "pdf")) -> list[Path]:
    """Scatter of the plug-in prediction ``pred_dmin`` (x) against the learners' ``effect ± se``
    (y) for every row (columns ``dataset, psi, learner, pred_dmin, effect, se``): a marker per
    ψ, a colour per learner, each point labelled with its dataset; stand-in datasets (the
    ``stand_in`` column, when present) drawn hollow. Saved in each of ``formats``; returns the
    paths."""
    missing = [c for c in ("dataset", "psi", "learner", "pred_dmin", "effect", "se")
               if c not in rows.columns]
    if missing:
        raise ValueError(f"The 'rows' parameter has no column(s) {missing}.")
    fig, ax = new_figure(figsize=(8.5, 6.5), layout="constrained")
    ax.axhline(0.0, color="0.6", lw=0.8)
    ax.axvline(0.0, color="0.6", lw=0.8)
    for r in rows.itertuples():
        hollow = bool(getattr(r, "stand_in", False))
        colour = _COLOURS.get(r.learner, "k")
        ax.errorbar(r.pred_dmin, r.effect, yerr=r.se, fmt=_MARKERS.get(r.psi, "x"),
                    color=colour, mfc="none" if hollow else colour, ms=6, lw=0.8, capsize=2)
        ax.annotate(r.dataset, (r.pred_dmin, r.effect), fontsize=6, alpha=0.7,
                    xytext=(3, 3), textcoords="offset points")
    for psi, marker in _MARKERS.items():
        if (rows["psi"] == psi).any():
            ax.plot([], [], marker, color="0.3", label=f"ψ = {psi}")
    for learner, colour in _COLOURS.items():
        if (rows["learner"] == learner).any():
            ax.plot([], [], "o", color=colour, label=learner)
    ax.plot([], [], "o", color="0.3", mfc="none", label="stand-in (MQ2008)")
    ax.legend(fontsize=8, loc="best")
    ax.set_xlabel("condition on the plug-in population: Min AUC(label) − Min AUC(loss, a = 1)")
    ax.set_ylabel("learners: Min AUC(label) − Min AUC(loss, a = 1), mean ± s.e. over splits")
    ax.set_title("When is label aggregation the more balanced objective? K = 2 to 174")
    return save_figures(fig, fig_dir, name, formats)
