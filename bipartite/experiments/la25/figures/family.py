"""LA25 §7 over the aggregation family (issue 24): which objectives beat loss aggregation (a = 1)
on Min AUC, paired by split, from the tidy results of the §7 studies only.

* :func:`paired_differences` — every row of a §7 study minus loss aggregation (a = 1) on the
  same split (real data) or replicate (synthetic): the one home of the pairing, which
  :func:`~bipartite.experiments.la25.figures.section7.verdict_table` reads too;
* :func:`family_table` — the results table of the family: per dataset (and regime, π₂),
  learner and objective, Min and Diff AUC, their paired differences to loss aggregation
  (mean ± s.e.) and on how many splits the objective is ahead (``la25_section7_family.csv``);
* :func:`family_pivot` — one dataset's table for reading: an objective per row, a learner per
  column, ``ΔMin ± s.e. (k/n)``;
* :func:`family_summary_lines` — the ``summary.md`` section and its tables.

The rows (:data:`bipartite.experiments.la25.studies.family.FAMILY_OBJECTIVES` beside the four
rows of LA25's table and the max-min rows) are described by :func:`describe_objective`.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from bipartite.studies.report import markdown_table, standard_error, write_table

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["FAMILY_COLUMNS", "REFERENCE", "describe_objective", "family_order", "family_pivot",
           "family_summary_lines", "family_table", "paired_differences"]

#: The reference row every difference is taken against: loss aggregation with a = 1.
REFERENCE = "loss_aggregation"
#: Columns of :func:`family_table` (``la25_section7_family.csv``), in order.
FAMILY_COLUMNS = ("dataset", "regime", "pi2", "learner", "objective", "kind", "aggregation",
                  "ratio", "min", "min_se", "diff", "diff_se", "d_min", "d_min_se", "ahead_min",
                  "behind_min", "splits", "d_diff", "d_diff_se", "lower_diff")
_FRACTIONS = {0.25: "1/4", 0.5: "1/2", 2.0: "2", 4.0: "4", 1.0: "1"}


def _family_objectives() -> dict[str, dict]:
    from bipartite.experiments.la25.studies.family import FAMILY_OBJECTIVES

    return FAMILY_OBJECTIVES


def family_order() -> tuple[str, ...]:
    """The rows of the family tables, in order: label aggregation by sum, the family
    (:data:`~bipartite.experiments.la25.studies.family.FAMILY_OBJECTIVES`), each label alone,
    max-min. Loss aggregation (a = 1) is the reference, above them."""
    return ("label_aggregation", *_family_objectives(), "label_1", "label_2", "max_min",
            "max_min_plugin")


def describe_objective(name: str) -> tuple[str, str, float]:
    """``(kind, aggregation, ratio)`` of a §7 row name: kind ``"label"`` (label aggregation),
    ``"loss"`` (loss aggregation), ``"single"`` (one label alone) or ``"max_min"``; a readable
    aggregation; the weight ratio w₂/w₁ or a₂/a₁ of the row's spec (NaN where there is none).

    >>> describe_objective("label_sum_0.25")
    ('label', 'weighted sum, w₂/w₁ = 1/4', 0.25)
    >>> describe_objective("loss_aggregation")
    ('loss', 'a = 1', 1.0)
    """
    fixed = {"label_aggregation": ("label", "sum", 1.0),
             "loss_aggregation": ("loss", "a = 1", 1.0),
             "label_or": ("label", "OR", math.nan),
             "label_and": ("label", "AND (product)", math.nan),
             "label_lex_12": ("label", "lexicographic, label 1 first", math.nan),
             "label_lex_21": ("label", "lexicographic, label 2 first", math.nan),
             "label_1": ("single", "label 1 alone", math.nan),
             "label_2": ("single", "label 2 alone", math.nan),
             "max_min": ("max_min", "max-min (pairwise)", math.nan),
             "max_min_plugin": ("max_min", "max-min (plug-in)", math.nan)}
    if name in fixed:
        return fixed[name]
    spec = _family_objectives().get(name)
    weights = None if spec is None else spec.get("w", spec.get("a"))
    if weights is None:
        return ("other", name, math.nan)
    r = round(weights[1] / weights[0], 12)
    frac = _FRACTIONS.get(r, f"{r:g}")
    if spec["objective"] == "label_aggregation":
        return ("label", f"weighted sum, w₂/w₁ = {frac}", r)
    return ("loss", f"a₂/a₁ = {frac}", r)


def _order_key(name: str) -> tuple[int, str]:
    order = family_order()
    return (order.index(name) if name in order else len(order), name)


def paired_differences(df: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Every objective minus loss aggregation (a = 1), paired by split (``split`` column) or else
    replicate, within the groups ``by`` (e.g. dataset and learner).

    One row per group, objective and pairing unit that has both rows: ``by`` columns,
    ``objective``, ``unit``, ``min``, ``diff`` (the objective's) and ``d_min``, ``d_diff`` (its
    minus loss aggregation's). Only the rows of :func:`family_order` count (not the synthetic
    frontier or the plug-in sweep); the Bayes scorers' ``max_min`` rows (the best point of a
    weighting grid, not an objective) are left out.
    """
    import pandas as pd

    unit = "split" if "split" in df else "replicate"
    keys = [*by, unit]
    ref = df[df["objective"] == REFERENCE].set_index(keys)[["min", "diff"]]
    if ref.index.has_duplicates:
        raise ValueError(f"Two '{REFERENCE}' rows share one {'/'.join(keys)}: the results hold "
                         "a duplicated task.")
    keep = df["objective"].isin(family_order())
    if "learner" in df:
        keep &= ~((df["learner"] == "bayes") & df["objective"].str.startswith("max_min"))
    rows = df[keep].merge(ref.reset_index(), on=keys, how="inner", suffixes=("", "_ref"))
    out = rows[[*by, "objective", unit, "min", "diff"]].rename(columns={unit: "unit"})
    out = out.assign(d_min=(rows["min"] - rows["min_ref"]).to_numpy(),
                     d_diff=(rows["diff"] - rows["diff_ref"]).to_numpy())
    return pd.DataFrame(out).reset_index(drop=True)


def family_table(df: pd.DataFrame) -> pd.DataFrame:
    """The family's results table (columns :data:`FAMILY_COLUMNS`) of one §7 study's results:
    per dataset (for the synthetic study: ``"synthetic"``, its ``regime`` and ``pi2``), learner
    and objective, the mean ± s.e. of its Min and Diff AUC and of their paired differences to
    loss aggregation (a = 1) (``d_min`` > 0 or ``d_diff`` < 0: ahead of loss aggregation),
    ``ahead_min`` / ``behind_min``: on how many of the ``splits`` (real data: splits;
    synthetic: replicates) its Min AUC is above / below loss aggregation's, ``lower_diff``: on how
    many its Diff AUC is lower. Loss aggregation's own row carries its Min and Diff AUC and no
    differences.
    """
    import pandas as pd

    synthetic = "regime" in df
    data = df if not synthetic else df.assign(dataset="synthetic")
    by = ["dataset", "regime", "pi2", "learner"] if synthetic else ["dataset", "learner"]
    pairs = paired_differences(data, by)
    ref = data[data["objective"] == REFERENCE]
    out = []
    for key, sub in ref.groupby(by, sort=False):
        rec = dict(zip(by, key, strict=True))
        out.append({**rec, "objective": REFERENCE, "min": float(sub["min"].mean()),
                    "min_se": standard_error(sub["min"]), "diff": float(sub["diff"].mean()),
                    "diff_se": standard_error(sub["diff"]), "splits": len(sub)})
    # a row undefined on a split (NaN AUCs: its aggregated label constant in the training rows)
    # does not count on that split
    pairs = pairs[pairs["d_min"].notna()]
    for key, sub in pairs.groupby([*by, "objective"], sort=False):
        rec = dict(zip([*by, "objective"], key, strict=True))
        dm, dd = sub["d_min"].to_numpy(), sub["d_diff"].to_numpy()
        out.append({**rec, "min": float(sub["min"].mean()), "min_se": standard_error(sub["min"]),
                    "diff": float(sub["diff"].mean()), "diff_se": standard_error(sub["diff"]),
                    "d_min": float(dm.mean()), "d_min_se": standard_error(dm),
                    "ahead_min": int((dm > 0).sum()), "behind_min": int((dm < 0).sum()),
                    "splits": len(sub), "d_diff": float(dd.mean()),
                    "d_diff_se": standard_error(dd), "lower_diff": int((dd < 0).sum())})
    table = pd.DataFrame(out)
    if table.empty:
        return pd.DataFrame(columns=list(FAMILY_COLUMNS))
    desc = table["objective"].map(describe_objective)
    table["kind"] = [d[0] for d in desc]
    table["aggregation"] = [d[1] for d in desc]
    table["ratio"] = [d[2] for d in desc]
    if not synthetic:
        table["regime"], table["pi2"] = "", np.nan
    for c in ("ahead_min", "behind_min", "lower_diff"):
        table[c] = table[c].astype("Int64")
    order = table["objective"].map(lambda v: -1 if v == REFERENCE else _order_key(v)[0])
    sort = ["dataset", "regime", "pi2", "learner"]
    table = table.assign(_o=order).sort_values([*sort, "_o", "objective"], kind="stable")
    return table.drop(columns="_o")[list(FAMILY_COLUMNS)].reset_index(drop=True)


def _cell(r) -> str:
    if r.objective == REFERENCE:
        return f"Min {r.min:.3f}"
    if not np.isfinite(r.d_min):
        return "–"
    return f"{r.d_min:+.3f} ± {r.d_min_se:.3f} ({int(r.ahead_min)}/{int(r.splits)})"


def family_pivot(table: pd.DataFrame, learners: list[str] | None = None) -> pd.DataFrame:
    """One dataset's (or regime's) rows of :func:`family_table` for reading: an objective per
    row, a learner per column, each cell ``ΔMin ± s.e. (k/n)`` (Min AUC minus loss aggregation's,
    paired; ahead on k of n splits); loss aggregation's own row gives its Min AUC."""
    import pandas as pd

    learners = list(dict.fromkeys(table["learner"])) if learners is None else learners
    names = sorted(set(table["objective"]), key=lambda v: (-1, v) if v == REFERENCE
                   else _order_key(v))
    rows = []
    for name in names:
        rec = {"objective": describe_objective(name)[1] if name != REFERENCE
               else "loss aggregation, a = 1 (reference)", "row": name}
        for learner in learners:
            hit = table[(table["objective"] == name) & (table["learner"] == learner)]
            rec[learner] = _cell(next(hit.itertuples())) if len(hit) else "–"
        rows.append(rec)
    return pd.DataFrame(rows)


_LEARNER_COLUMNS = {"bayes": "Bayes", "linear": "linear", "linear_hinge": "linear, hinge",
                    "mlp": "MLP", "xgb": "XGBoost"}


def family_summary_lines(results: dict[str, pd.DataFrame], table_dir: str | Path
                         ) -> list[str]:
    """The family section of ``summary.md`` from the §7 studies' results (folder name → results):
    writes ``la25_section7_family`` (every dataset, :data:`FAMILY_COLUMNS`) and one pivot per
    dataset, ``la25_section7_family_<dataset>`` (synthetic: the learners at their π₂, and the
    Bayes scorers at every π₂), and returns the Markdown."""
    import pandas as pd

    table_dir = Path(table_dir)
    parts = {name: family_table(df) for name, df in results.items()
             if df["objective"].isin(list(_family_objectives())).any()}
    if not parts:
        return []
    full = pd.concat(list(parts.values()), ignore_index=True)
    write_table(full, table_dir, "la25_section7_family",
                note="LA25 §7 over the aggregation family: every objective minus loss "
                     "aggregation (a = 1), paired by split (synthetic: by replicate).")
    lines = ["### The aggregation family: which objectives beat loss aggregation (a = 1)", "",
             "Each row of LA25's protocol (same splits, learners, seeds and test rows) beside "
             "label aggregation by weighted sums (w₂/w₁ on a grid), OR, AND and lexicographic "
             "order (four ordered levels, uniform costs, either label first), loss aggregation "
             "with a₂/a₁ on the same grid, each label alone and max-min. A cell is the Min AUC "
             "minus loss aggregation's (a = 1), paired by split: mean ± s.e. (ahead on k of n "
             "splits); > 0 is ahead. The full table, with Diff AUC, is "
             "`tables/la25_section7_family.csv`.", ""]
    titles = {"bank_marketing": "UCI Bank Marketing (mortgage, personal loan)",
              "letor": "MQ2008 stand-in (relevant, simulated click)"}
    for dataset, sub in full[full["dataset"] != "synthetic"].groupby("dataset", sort=False):
        pivot = family_pivot(sub)
        write_table(pivot, table_dir, f"la25_section7_family_{dataset}",
                    note=f"{titles.get(dataset, dataset)}: Min AUC minus loss aggregation "
                         "(a = 1), paired by split.")
        lines += [f"**{titles.get(dataset, dataset)}**", "",
                  markdown_table(pivot.drop(columns="row").rename(columns=_LEARNER_COLUMNS)), ""]
    syn = full[full["dataset"] == "synthetic"]
    if not syn.empty:
        learned = syn[syn["learner"] != "bayes"]
        if not learned.empty:
            pieces = []
            for (regime, pi2), sub in learned.groupby(["regime", "pi2"], sort=False):
                pieces.append(family_pivot(sub).assign(regime=regime, pi2=pi2))
            pivot = pd.concat(pieces, ignore_index=True)
            pivot = pivot[["regime", "pi2", *[c for c in pivot if c not in ("regime", "pi2")]]]
            write_table(pivot, table_dir, "la25_section7_family_synthetic",
                        note="Synthetic regimes, learners: Min AUC minus loss aggregation "
                             "(a = 1), paired by replicate.")
            lines += ["**Synthetic regimes, learners** (paired by replicate)", "",
                      markdown_table(pivot.drop(columns="row")
                                     .rename(columns=_LEARNER_COLUMNS)), ""]
        bayes = syn[(syn["learner"] == "bayes") & (syn["objective"] != REFERENCE)]
        if not bayes.empty:
            wide = bayes.pivot_table(index=["regime", "objective"], columns="pi2",
                                     values="d_min", sort=False).reset_index()
            wide.columns = [c if isinstance(c, str) else f"π₂ = {c:g}" for c in wide.columns]
            wide["objective"] = wide["objective"].map(lambda v: describe_objective(v)[1])
            write_table(wide, table_dir, "la25_section7_family_synthetic_bayes",
                        note="Synthetic regimes, Bayes scorers: Min AUC minus loss aggregation "
                             "(a = 1), exact population AUCs, mean over replicates.")
            lines += ["**Synthetic regimes, Bayes scorers**: Min AUC minus loss aggregation "
                      "(a = 1), exact, mean over replicates, in "
                      "`tables/la25_section7_family_synthetic_bayes.md` (the lexicographic "
                      "rows have no closed-form Bayes scorer).", ""]
    return lines
