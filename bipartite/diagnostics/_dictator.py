"""The report's dictatorship table: what loss aggregation with a = 1 **would** favour (theory,
docs/theory.md §7.1: the effective-weight shares α_k / Σ α and the dictator, a share > ½) beside
what the user's own scorer **does** favour (observed: its cross-pair win rates W_{k>j},
docs/theory.md §7.5), per scorer and label."""

from __future__ import annotations

import numpy as np

__all__ = ["DICTATORSHIP_COLUMNS", "dictatorship_rows"]

#: Columns of ``tables["dictatorship"]``: ``theory_*`` describe the Bayes scorer of loss
#: aggregation with a = 1 (a hypothetical scorer: it depends only on the priors);
#: ``observed_*`` describe the user's scorer on these rows.
DICTATORSHIP_COLUMNS = [
    "scorer", "label", "prior", "theory_alpha_share", "theory_dictator",
    "observed_mean_win_rate", "observed_min_win_rate", "observed_n_pairs", "observed_favoured",
    "observed_dictator", "note"]


def dictatorship_rows(label_rows: list[dict], win_rows: list[dict], scorers: list[str]
                      ) -> list[dict]:
    """Per scorer × label k: the theory columns (from the label table) and the observed ones:
    the mean and the minimum over the other labels j of W_{k>j} (``W_{j>k} = 1 − W_{k>j}``;
    undefined pairs left out), ``observed_favoured`` for the label with the highest mean (the
    one the scorer ranks first when labels disagree) and ``observed_dictator`` where every
    defined W_{k>j} is 1 (each k-only row above each j-only row, for every other label j)."""
    labels = [r["label"] for r in label_rows]
    K, at = len(labels), {lab: i for i, lab in enumerate(labels)}
    rows = []
    for s in scorers:
        W = np.full((K, K), np.nan)
        for r in win_rows:
            if r["scorer"] == s:
                k, j = at[r["label_k"]], at[r["label_j"]]
                W[k, j], W[j, k] = r["win_rate"], 1.0 - r["win_rate"]
        n_def = np.isfinite(W).sum(axis=1)
        with np.errstate(invalid="ignore"):
            mean = np.where(n_def > 0, np.nansum(W, axis=1) / np.maximum(n_def, 1), np.nan)
            low = np.where(n_def > 0, np.nanmin(np.where(np.isfinite(W), W, np.inf), axis=1),
                           np.nan)
        best = int(np.nanargmax(mean)) if np.isfinite(mean).any() else None
        for k, lr in enumerate(label_rows):
            note = None
            if K < 2:
                note = "one label: no cross pairs, nothing to favour"
            elif n_def[k] == 0:
                note = f"no cross-pair win rate of {labels[k]!r} is defined"
            rows.append({
                "scorer": s, "label": labels[k], "prior": lr["prior"],
                "theory_alpha_share": lr["alpha_share"], "theory_dictator": bool(lr["dictator"]),
                "observed_mean_win_rate": float(mean[k]), "observed_min_win_rate": float(low[k]),
                "observed_n_pairs": int(n_def[k]), "observed_favoured": best == k,
                "observed_dictator": bool(n_def[k] > 0 and low[k] == 1.0), "note": note})
    return rows
