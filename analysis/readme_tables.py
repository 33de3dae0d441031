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
  (:func:`bipartite.experiments.la25.figures.maxmin.max_min_verdict_table`).
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
    ``<folder>/studies/section7_<dataset>/results.csv`` of a reproduce run."""
    out = {}
    for dataset in DATASETS:
        path = (COMMITTED / f"section7_{dataset}.csv" if folder is None
                else Path(folder) / "studies" / f"section7_{dataset}" / "results.csv")
        if not path.is_file():
            raise FileNotFoundError(f"No §7 results for {dataset}: {path} does not exist.")
        out[dataset] = pd.read_csv(path)
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
    tables = {d: family_table(df) for d, df in results.items()}
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
    for dataset, df in results.items():
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


TABLES = {"section7_family": family_markdown, "section7_maxmin": maxmin_markdown}


def block_pattern(name: str) -> re.Pattern:
    return re.compile(rf"(<!-- table:{name}:start -->\n)(.*?)(<!-- table:{name}:end -->)",
                      flags=re.S)


def readme_blocks(text: str) -> dict[str, str]:
    """The text of each table block of the README (without its markers)."""
    out = {}
    for name in TABLES:
        m = block_pattern(name).search(text)
        if m is None:
            raise ValueError(f"README.md has no block <!-- table:{name}:start --> ... :end -->.")
        out[name] = m.group(2)
    return out


def tables(results: dict[str, pd.DataFrame]) -> dict[str, str]:
    """Each README table, as Markdown ending in a newline."""
    return {name: fn(results).rstrip("\n") + "\n" for name, fn in TABLES.items()}


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
    text = README.read_text(encoding="utf-8")
    stale = [n for n, old in readme_blocks(text).items() if old != new[n]]
    if args.check:
        for n in stale:
            print(f"README.md: table {n} differs from the results", file=sys.stderr)
        return 1 if stale else 0
    for name, body in new.items():
        text = block_pattern(name).sub(lambda m, b=body: m.group(1) + b + m.group(3), text)
    README.write_text(text, encoding="utf-8")
    print(f"README.md: {len(stale)} table(s) rewritten: {stale}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
