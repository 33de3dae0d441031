"""The README's LA25 §7 tables, from the saved results of a full LA25 run.

    python analysis/readme_tables.py                  # print them (from papers/la25/results/)
    python analysis/readme_tables.py RESULTS_FOLDER   # from a reproduce folder instead
    python analysis/readme_tables.py --write          # rewrite the README's blocks
    python analysis/readme_tables.py --check          # exit 1 if a README block differs

By default the tables come from the results committed in ``papers/la25/results/`` (written by
``python papers/collect.py`` from a full ``bipartite reproduce --paper la25`` run; their run is
recorded in ``provenance.json``); a ``RESULTS_FOLDER`` of a reproduce run is read from
``studies/<study>/results.csv``. Each table sits in README.md between ``<!-- table:NAME:start
-->`` and ``<!-- table:NAME:end -->``; ``tests/test_readme.py`` checks that every block equals
what this script computes from the committed results.

Tables:

* ``section7_family`` — every aggregation's Min AUC minus loss aggregation's (a = 1), paired by
  split, on UCI Bank Marketing and the MQ2008 stand-in, per learner (the cells of the
  reproduce run's ``tables/la25_section7_family_<dataset>.md``,
  :func:`bipartite.experiments.la25.figures.family.family_pivot`); a cell in bold where the
  rules of ``papers/README.md`` settle a direction (every split on one side, beyond 2 s.e.);
* ``section7_maxmin`` — each max-min route against the better of the two LA25 objectives per
  split, and what it costs in ΣAUC = AUC₁ + AUC₂ against loss aggregation
  (:func:`bipartite.experiments.la25.figures.maxmin.max_min_verdict_table`);
* ``when_label_aggregation`` — K = 2 to 174, a row per dataset: per aggregation ψ (sum, OR,
  AND), label minus loss aggregation (a = 1) on Min AUC per learner, with its verdict by the
  rules, and the §12 condition's plug-in prediction (issue 33);
* in ``papers/la25/README.md``, ``multilabel_predictions`` — the same per (Mulan set, ψ,
  learner), on Min AUC and macro-AUC, with the prediction's agreement with each split's sign;
* in ``docs/theory.md`` §12.10, ``theory_bank_marketing`` and ``theory_letor`` — the K = 2
  family's plug-in predictions beside the learners' effects.

The label-vs-loss tables read the committed ``multilabel.csv`` and the plug-in predictions
(``multilabel_predictions.csv``, ``section7_predictions.csv``, written by ``python
analysis/label_vs_loss.py``) from ``papers/la25/results/`` whatever folder is given.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from bipartite.experiments.la25.figures.family import describe_objective, family_table
from bipartite.experiments.la25.figures.maxmin import max_min_verdict_table, three_objective_table
from bipartite.studies.report import markdown_table

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
LA25_README = ROOT / "papers" / "la25" / "README.md"
THEORY = ROOT / "docs" / "theory.md"
COMMITTED = ROOT / "papers" / "la25" / "results"
DATASETS = {"bank_marketing": "Bank Marketing", "letor": "MQ2008"}
LEARNERS = {"linear": "linear", "mlp": "MLP", "xgb": "XGBoost"}
MAXMIN_LEARNERS = {"linear": "linear, logistic", "linear_hinge": "linear, hinge", "mlp": "MLP",
                   "xgb": "XGBoost"}
#: The family table's rows, in order: LA25's sum, the label-aggregation family, loss
#: aggregation's own weightings, max-min.
FAMILY_ROWS = ("label_aggregation", "label_and", "label_sum_2", "label_sum_4", "label_sum_0.5",
               "label_sum_0.25", "label_or", "label_lex_12", "label_lex_21", "loss_a_0.5",
               "loss_a_2", "loss_a_4", "max_min", "max_min_plugin")


def load_results(folder: Path | None = None) -> dict[str, pd.DataFrame]:
    """The §7 results of each real dataset: ``papers/la25/results/section7_<dataset>.csv``, or
    ``<folder>/studies/section7_<dataset>/results.csv`` of a reproduce run; and, always from
    ``papers/la25/results/``, ``multilabel`` and the plug-in predictions ``multilabel_predictions``
    and ``section7_predictions``."""
    out = {}
    for dataset in DATASETS:
        path = (COMMITTED / f"section7_{dataset}.csv" if folder is None
                else Path(folder) / "studies" / f"section7_{dataset}" / "results.csv")
        if not path.is_file():
            raise FileNotFoundError(f"No §7 results for {dataset}: {path} does not exist.")
        out[dataset] = pd.read_csv(path)
    for name in ("multilabel", "multilabel_predictions", "section7_predictions"):
        out[name] = pd.read_csv(COMMITTED / f"{name}.csv")
    return out


def settled(effect: float, se: float, ahead: int, behind: int, n: int) -> bool:
    """Whether the rules of ``papers/README.md`` state a direction: at least two splits, every
    split on one side (a zero difference counting as against), and ``|effect| > 2 se``."""
    return bool(n >= 2 and abs(effect) > 2 * se and (ahead == n or behind == n))


def _num(x: float, digits: int = 3, sign: bool = True) -> str:
    """A README number: ``+0.015`` / ``−0.006`` (a true minus sign; no signed zero)."""
    x = round(float(x), digits) + 0.0
    return (f"{x:+.{digits}f}" if sign else f"{x:.{digits}f}").replace("-", "−")


def _family_cell(row) -> str:
    if not np.isfinite(row.d_min):
        return "–"
    text = f"{_num(row.d_min)} ± {_num(row.d_min_se, sign=False)}"
    if settled(row.d_min, row.d_min_se, int(row.ahead_min), int(row.behind_min), int(row.splits)):
        text = f"**{text}**"
    return f"{text} ({int(row.ahead_min)}/{int(row.splits)})"


def family_markdown(results: dict[str, pd.DataFrame]) -> str:
    """The ``section7_family`` table: a row per objective of :data:`FAMILY_ROWS`, a column per
    (dataset, learner), each cell ``ΔMin ± s.e. (ahead on k/n splits)``; the first row gives
    loss aggregation's own Min AUC."""
    tables = {d: family_table(results[d]) for d in DATASETS}
    cols = [(d, lr) for d in DATASETS for lr in LEARNERS]
    header = ["Min AUC minus loss aggregation (a = 1)",
              *[f"{DATASETS[d]}: {LEARNERS[lr]}" for d, lr in cols]]
    rows = [["loss aggregation, a = 1: its Min AUC",
             *[_num(_pick(tables[d], lr, "loss_aggregation").min, sign=False) for d, lr in cols]]]
    for name in FAMILY_ROWS:
        label = ("sum (LA25's label aggregation)" if name == "label_aggregation"
                 else describe_objective(name)[1])
        if name.startswith("loss_a_"):
            label = f"loss aggregation, {label}"
        rows.append([label, *[_family_cell(_pick(tables[d], lr, name)) for d, lr in cols]])
    return markdown_table(pd.DataFrame(rows, columns=header))


def _pick(table: pd.DataFrame, learner: str, objective: str):
    hit = table[(table["learner"] == learner) & (table["objective"] == objective)]
    if len(hit) != 1:
        raise ValueError(f"{len(hit)} family rows for learner {learner!r}, objective "
                         f"{objective!r} (expected 1).")
    return next(hit.itertuples())


def maxmin_markdown(results: dict[str, pd.DataFrame]) -> str:
    """The ``section7_maxmin`` table: per dataset, learner and max-min route, its Min AUC minus
    the better of the two LA25 objectives on each split (mean ± s.e., at least as high on k/n
    splits), its Diff AUC beside loss and label aggregation's, and its ΣAUC minus loss
    aggregation's."""
    rows = []
    routes = {"max_min": "pairwise (group DRO)", "max_min_plugin": "plug-in"}
    for dataset in DATASETS:
        df = results[dataset]
        verdict = max_min_verdict_table(df).set_index(["learner", "route"])
        means = three_objective_table(df).set_index(["learner", "objective"])
        for learner, lname in MAXMIN_LEARNERS.items():
            for route, rname in routes.items():
                v = verdict.loc[(learner, route)]
                k, n = (int(x) for x in v["at_least_both"].split("/"))
                ahead = f"{_num(v['d_min_best'])} ± {_num(v['d_min_best_se'], sign=False)}"
                behind = n - k
                if settled(v["d_min_best"], v["d_min_best_se"], k, behind, n):
                    ahead = f"**{ahead}**"
                diffs = " / ".join(_num(means.loc[(learner, o), "diff"], sign=False)
                                   for o in (route, "loss_aggregation", "label_aggregation"))
                rows.append([DATASETS[dataset], lname, rname,
                             _num(means.loc[(learner, route), "min"], sign=False),
                             f"{ahead} ({k}/{n})", diffs,
                             f"{_num(v['d_sum_loss'])} ± {_num(v['d_sum_loss_se'], sign=False)}"])
    header = ["data", "learner", "max-min route", "Min AUC",
              "Min AUC − the better LA25 objective (≥ on k/n splits)",
              "Diff AUC: max-min / loss / label aggregation", "ΣAUC − loss aggregation's"]
    return markdown_table(pd.DataFrame(rows, columns=header))


# ------------------------------------------------------------------------------------------------
# Label vs loss aggregation, K = 2 to 174 (issue 33)
# ------------------------------------------------------------------------------------------------

#: The label aggregations ψ compared with loss aggregation (a = 1), by their name in the
#: multi-label study, with their §7 objective and their README name.
PSI = {"sum": ("label_aggregation", "sum"), "or": ("label_or", "OR"), "and": ("label_and", "AND")}
MULTILABEL_SETS = {"emotions": "emotions", "scene": "scene", "yeast": "yeast", "birds": "birds",
                   "medical": "medical", "enron": "enron", "cal500": "CAL500"}
#: §7 datasets that stand in for the paper's: their verdict is "not-reproduced" (papers/README.md).
STAND_INS = {"letor": "MQ2008 (stand-in for MSLR-WEB30K)"}
#: The §7 family of the plug-in predictions (aggregation_theory.AGGREGATIONS) and the objective
#: of the §7 study the learners ran for it; the lexicographic rows of the two differ in costs.
FAMILY = {"sum": "label_aggregation", "sum_w2/w1=0.25": "label_sum_0.25",
          "sum_w2/w1=0.5": "label_sum_0.5", "sum_w2/w1=2": "label_sum_2",
          "sum_w2/w1=4": "label_sum_4", "or": "label_or", "and": "label_and",
          "lex_1_first": "label_lex_12", "lex_2_first": "label_lex_21"}


def _registry():
    import importlib.util

    name = "_papers_registry_readme_tables"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "papers" / "registry.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def _verdict(c, setting: str, direction: str = "higher") -> str:
    return _registry().verdict_rule(c.effect, c.se, c.agree, c.units, direction=direction,
                                    setting=setting)


def label_vs_loss_rows(results: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """One row per (dataset, ψ, learner) where ψ was run: label minus loss aggregation (a = 1)
    on Min AUC (``effect, se, agree, units``, ``verdict`` by the rules and ``reading``, the verdict
    in the claim's own setting) and, on the Mulan sets, on macro-AUC (``m_*``; claimed lower); the
    plug-in prediction: splits where label aggregation has the higher Min AUC on the plug-in
    population (``pred_ahead`` of ``pred_splits``), its mean ``pred_dmin``, splits the necessary
    condition leaves open (``pred_can_win``) and, where the plug-in splits are the learners'
    (Mulan), splits whose plug-in and learner differences have the same sign (``pred_agree``)."""
    from bipartite.studies.report import paired_contrast

    rows = []
    pred7 = results["section7_predictions"]
    pred7 = pred7[pred7["model"] == "logistic"]
    for dataset in DATASETS:
        df = results[dataset]
        setting = "stand-in" if dataset in STAND_INS else "own"
        for psi, (objective, _) in PSI.items():
            p = pred7[(pred7["dataset"] == dataset) & (pred7["aggregation"] == psi)]
            for learner in LEARNERS:
                c = paired_contrast(df, "min", objective, "loss_aggregation",
                                    where={"learner": learner})
                rows.append({"dataset": dataset, "K": "2", "psi": psi, "learner": learner,
                             "stand_in": dataset in STAND_INS,
                             "effect": c.effect, "se": c.se, "agree": c.agree, "units": c.units,
                             "verdict": _verdict(c, setting), "reading": _verdict(c, "own"),
                             "pred_ahead": int((p["min_winner"] == "label").sum()),
                             "pred_splits": len(p),
                             "pred_dmin": float((p["min_label"] - p["min_loss"]).mean()),
                             "pred_can_win": int(p["can_win"].sum()), "pred_agree": np.nan})
    ml, pm = results["multilabel"], results["multilabel_predictions"]
    for dataset in MULTILABEL_SETS:
        ran = ml[(ml["dataset"] == dataset) & ml["skipped"].isna()]
        kept = ran["n_kept"]
        k = f"{int(ran['n_labels'].iloc[0])} (kept {kept.min()}" + (
            f"–{kept.max()})" if kept.max() > kept.min() else ")")
        for psi in PSI:
            if not (ran["objective"] == psi).any():
                continue
            p = pm[(pm["dataset"] == dataset) & (pm["aggregation"] == psi)].set_index("split")
            for learner in LEARNERS:
                where = {"dataset": dataset, "learner": learner}
                c = paired_contrast(ml, "min_auc", psi, "macro", where=where)
                m = paired_contrast(ml, "macro_auc", psi, "macro", where=where, direction="lower")
                d = c.differences
                both = d.index.intersection(p.index)
                rows.append({"dataset": dataset, "K": k, "psi": psi, "learner": learner,
                             "stand_in": False,
                             "effect": c.effect, "se": c.se, "agree": c.agree, "units": c.units,
                             "verdict": _verdict(c, "own"), "reading": _verdict(c, "own"),
                             "m_effect": m.effect, "m_se": m.se, "m_agree": m.agree,
                             "m_units": m.units, "m_verdict": _verdict(m, "own", "lower"),
                             "pred_ahead": int((p["min_winner"] == "label").sum()),
                             "pred_splits": len(p), "pred_dmin": float(p["dmin"].mean()),
                             "pred_can_win": int(p["can_win"].sum()),
                             "pred_agree": int((np.sign(d[both])
                                                == np.sign(p.loc[both, "dmin"])).sum())})
    return pd.DataFrame(rows)


def _effect(effect: float, se: float, agree: int, units: int) -> str:
    return f"{_num(effect)} ± {_num(se, sign=False)} ({agree}/{units})"


def when_markdown(results: dict[str, pd.DataFrame]) -> str:
    """The ``when_label_aggregation`` table: a row per dataset (K = 2 to 174), a column per ψ;
    each cell gives, per learner, label minus loss aggregation's Min AUC (mean ± s.e., ahead on
    k/n splits) and its verdict, then the plug-in prediction (label ahead on k/n plug-in splits,
    mean plug-in ΔMin; on the Mulan sets, on how many splits its sign is each learner's)."""
    rows = label_vs_loss_rows(results)
    names = {**DATASETS, **STAND_INS, **MULTILABEL_SETS}
    out = []
    for dataset in dict.fromkeys(rows["dataset"]):
        sub = rows[rows["dataset"] == dataset]
        cells = []
        for psi in PSI:
            r = sub[sub["psi"] == psi]
            if r.empty:
                cells.append("constant (not run)")
                continue
            lines = [f"{LEARNERS[x.learner]}: {_effect(x.effect, x.se, x.agree, x.units)} "
                     f"*{x.verdict}*" for x in r.itertuples()]
            x = r.iloc[0]
            pred = (f"plug-in: ahead on {x.pred_ahead}/{x.pred_splits}, "
                    f"ΔMin {_num(x.pred_dmin)}")
            if np.isfinite(x.pred_agree):
                pred += ("; same sign as the learner on "
                         + " · ".join(f"{int(a)}" for a in r["pred_agree"]) + f" of {x.units}")
            cells.append("<br>".join([*lines, pred]))
        out.append([names[dataset], sub["K"].iloc[0], *cells])
    header = ["data", "K", *(f"{PSI[p][1]}: label − loss aggregation, Min AUC" for p in PSI)]
    return markdown_table(pd.DataFrame(out, columns=header))


def multilabel_predictions_markdown(results: dict[str, pd.DataFrame]) -> str:
    """The ``multilabel_predictions`` table of ``papers/la25/README.md``: per (Mulan set, ψ,
    learner), the Min AUC and macro-AUC contrasts with their verdicts, the plug-in prediction
    and how many splits it gets right; then the totals."""
    rows = label_vs_loss_rows(results)
    rows = rows[rows["dataset"].isin(list(MULTILABEL_SETS))]
    out = [[MULTILABEL_SETS[r.dataset], r.K, PSI[r.psi][1], LEARNERS[r.learner],
            _effect(r.effect, r.se, r.agree, r.units), r.verdict,
            _effect(r.m_effect, r.m_se, int(r.m_agree), int(r.m_units)), r.m_verdict,
            f"{r.pred_ahead}/{r.pred_splits}", _num(r.pred_dmin),
            f"{r.pred_can_win}/{r.pred_splits}", f"{int(r.pred_agree)}/{r.units}"]
           for r in rows.itertuples()]
    header = ["set", "K", "ψ", "learner", "Min AUC: label − loss (ahead k/n)", "verdict",
              "macro-AUC: label − loss (lower on k/n)", "verdict (claimed lower)",
              "plug-in: label ahead on Min", "plug-in ΔMin", "can_win",
              "plug-in sign = learner's sign"]
    settled = rows[rows["verdict"] != "inconclusive"]
    hit = settled[(settled["pred_dmin"] > 0) == (settled["verdict"] == "holds")]
    total = (f"\n\nPrediction and learner agree in sign on {int(rows['pred_agree'].sum())} of "
             f"{int(rows['units'].sum())} (set, ψ, learner, split) cells; the plug-in mean "
             f"ΔMin has the sign of the verdict in {len(hit)} of the {len(settled)} contrasts "
             "the rules settle.\n")
    return markdown_table(pd.DataFrame(out, columns=header)) + total


def theory_markdown(results: dict[str, pd.DataFrame], dataset: str) -> str:
    """A §12.10 table of ``docs/theory.md``: per aggregation of the K = 2 family, the plug-in
    predictions of each plug-in model ("logistic; HGB": tilt, splits ruled out by the necessary
    condition, splits where label aggregation wins on the plug-in population, mean ΔMin) beside
    the learners' ΔMin (linear / MLP / XGBoost, ahead on k of n splits). The lexicographic
    predictions use linear costs (= the weighted sums w₂/w₁ = ½ and 2), the learners' uniform
    costs: the row says so."""
    from bipartite.studies.report import paired_contrast

    pred = results["section7_predictions"]
    pred = pred[pred["dataset"] == dataset]
    labels = pred["label_names"].iloc[0].split("/")
    df = results[dataset]
    models = ("logistic", "hgb")
    out = []
    for agg, objective in FAMILY.items():
        p = pred[pred["aggregation"] == agg]
        per = {m: p[p["model"] == m] for m in models}
        tilts = p["tilt"].map(lambda t: labels[int(t)] if t in (0, 1) else "none").value_counts()
        tilt = " / ".join(f"{name} {n}/{len(p)}" if len(tilts) > 1 else name
                          for name, n in tilts.items())
        learners = []
        for learner in LEARNERS:
            c = paired_contrast(df, "min", objective, "loss_aggregation",
                                where={"learner": learner})
            learners.append(f"{_num(c.effect)} ({c.agree}/{c.units})")
        name = agg
        if agg.startswith("lex_"):
            ratio = "½" if agg == "lex_1_first" else "2"
            name = f"{agg} (linear costs: = w₂/w₁ = {ratio})"
            learners = ["uniform costs, another objective: " + " / ".join(learners)]
        out.append([name, tilt,
                    "; ".join(f"{int((~per[m]['can_win'].astype(bool)).sum())}/{len(per[m])}"
                              for m in models),
                    "; ".join(f"{int((per[m]['min_winner'] == 'label').sum())}/{len(per[m])}"
                              for m in models),
                    "; ".join(_num((per[m]["min_label"] - per[m]["min_loss"]).mean(), 4)
                              for m in models),
                    " / ".join(learners)])
    header = [f"{DATASETS[dataset]}{' stand-in' if dataset in STAND_INS else ''}", "tilt toward",
              "ruled out (splits)", "plug-in label wins", "plug-in ΔMin",
              "learners' ΔMin: linear / MLP / XGBoost (ahead k/n)"]
    return markdown_table(pd.DataFrame(out, columns=header))


#: Each table: the file that holds its block, and the function that computes it.
TABLES = {"section7_family": (README, family_markdown),
          "section7_maxmin": (README, maxmin_markdown),
          "when_label_aggregation": (README, when_markdown),
          "multilabel_predictions": (LA25_README, multilabel_predictions_markdown),
          "theory_bank_marketing": (THEORY, lambda r: theory_markdown(r, "bank_marketing")),
          "theory_letor": (THEORY, lambda r: theory_markdown(r, "letor"))}


def block_pattern(name: str) -> re.Pattern:
    return re.compile(rf"(<!-- table:{name}:start -->\n)(.*?)(<!-- table:{name}:end -->)",
                      flags=re.S)


def readme_blocks(text: str, path: Path = README) -> dict[str, str]:
    """The text of each table block of the file ``path`` (default README.md), whose content is
    ``text`` (without its markers)."""
    out = {}
    for name, (where, _) in TABLES.items():
        if where != path:
            continue
        m = block_pattern(name).search(text)
        if m is None:
            raise ValueError(f"{path.name} has no block <!-- table:{name}:start --> ... :end -->.")
        out[name] = m.group(2)
    return out


def tables(results: dict[str, pd.DataFrame], path: Path | None = None) -> dict[str, str]:
    """Each table (of the file ``path`` only, when given), as Markdown ending in a newline."""
    return {name: fn(results).rstrip("\n") + "\n" for name, (where, fn) in TABLES.items()
            if path is None or where == path}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", nargs="?", type=Path, help="a reproduce folder (default: the "
                    "committed papers/la25/results/)")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="rewrite README.md's blocks")
    mode.add_argument("--check", action="store_true", help="exit 1 if a block differs")
    args = ap.parse_args(argv)
    new = tables(load_results(args.results))
    if not (args.write or args.check):
        for name, text in new.items():
            print(f"<!-- table:{name} -->\n{text}")
        return 0
    stale_any = False
    for path in dict.fromkeys(where for where, _ in TABLES.values()):
        text = path.read_text(encoding="utf-8")
        stale = [n for n, old in readme_blocks(text, path).items() if old != new[n]]
        stale_any = stale_any or bool(stale)
        if args.check:
            for n in stale:
                print(f"{path.relative_to(ROOT)}: table {n} differs from the results",
                      file=sys.stderr)
            continue
        for name in readme_blocks(text, path):
            text = block_pattern(name).sub(lambda m, b=new[name]: m.group(1) + b + m.group(3),
                                           text)
        path.write_text(text, encoding="utf-8")
        print(f"{path.relative_to(ROOT)}: {len(stale)} table(s) rewritten: {stale}")
    return 1 if args.check and stale_any else 0


if __name__ == "__main__":
    sys.exit(main())
