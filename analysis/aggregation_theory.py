"""Does the §12 condition predict the winner of each aggregation on the LA25 §7 datasets?
(docs/theory.md §12.10; issue 24, item 2.)

Runs :mod:`bipartite.experiments.la25.studies.aggregation_theory` on UCI Bank Marketing, the
MQ2008 stand-in (both with the plug-in joint of a multinomial logistic regression and of
histogram gradient boosting, 5 splits) and the §7 synthetic regimes (exact populations), and
on random finite problems (400 per kind and size, n = 4 and 8; docs/theory.md §12.10), and
writes ``rows.csv``, ``problems.csv`` and ``summary.md`` to OUT (default ``aggregation_theory``). The data is found
through the data setting (``BIPARTITE_DATA``, then ``../shared/data``). Usage::

    python analysis/aggregation_theory.py [OUT] [--quick]

``--quick``: 1 split, the logistic model only, two regimes, 20 random problems per cell.
"""
import sys
import warnings
from pathlib import Path

import pandas as pd

from bipartite.data import data_dir
from bipartite.experiments.la25.studies.aggregation_theory import (
    bank_marketing_predictions,
    letor_predictions,
    random_problem_predictions,
    synthetic_predictions,
)
from bipartite.studies.report import markdown_table

args = [a for a in sys.argv[1:] if not a.startswith("--")]
quick = "--quick" in sys.argv
out = Path(args[0] if args else "aggregation_theory")
out.mkdir(parents=True, exist_ok=True)
splits, models = (1, ("logistic",)) if quick else (5, ("logistic", "hgb"))
warnings.simplefilter("ignore")

problems = pd.DataFrame([r for kind in ("random", "independent", "deterministic")
                         for n in (4, 8)
                         for r in random_problem_predictions(n, kind, seed=n,
                                                             n_problems=20 if quick else 400)])
problems.to_csv(out / "problems.csv", index=False)
proven_out = (problems.can_win == False) & problems.tilt_proven  # noqa: E712
p = problems.assign(label_wins=problems.min_winner == "label", ruled_out=proven_out,
                    proven_miss=proven_out & (problems.min_winner == "label"),
                    heuristic_miss=(problems.can_win == False) & ~problems.tilt_proven  # noqa: E712
                    & (problems.min_winner == "label"),
                    rule_right=((problems.moved_toward == problems.tilt)
                                | (problems.moved_toward == -1)).where(
                        problems.tilt.notna() & ~problems.tilt_proven))
# "ruled out": a proven tilt away from the under-served label (docs/theory.md §12.6);
# "rule_right": the typical-point rule names the label the scorer raises (unproven rows only)
ptable = p.groupby(["kind", "aggregation"], sort=False).agg(
    problems=("label_wins", "size"), chain_holds=("chain_holds", "mean"),
    label_higher_min=("label_wins", "mean"), tilt_proven=("tilt_proven", "mean"),
    ruled_out=("ruled_out", "mean"), wins_when_ruled_out=("proven_miss", "sum"),
    rule_right=("rule_right", "mean"), heuristic_misses=("heuristic_miss", "sum")).reset_index()

rows = []
for model in models:
    rows += bank_marketing_predictions(splits=splits, model=model)
    rows += letor_predictions(str(data_dir() / "letor"), splits=splits, model=model)
rows += synthetic_predictions(["independent", "balanced_harder"] if quick else None)
df = pd.DataFrame(rows)
df["dmin"] = df["min_label"] - df["min_loss"]
df.to_csv(out / "rows.csv", index=False)


def _count(s, value):
    return f"{int((s == value).sum())}/{len(s)}"


real = df[df.dataset != "synthetic"].copy()
real["emp_dmin"] = real["emp_min_label"] - real["emp_min_loss"]
g = real.groupby(["dataset", "model", "aggregation"], sort=False)
table = g.agg(pi_1=("pi_1", "mean"), pi_2=("pi_2", "mean"),
              underserved=("underserved", lambda s: s.mode().iloc[0] + 1),
              tilt=("tilt", lambda s: s.mode().iloc[0] + 1),
              proven=("tilt_proven", "all"), can_win=("can_win", lambda s: _count(s, True)),
              plugin_label_wins=("min_winner", lambda s: _count(s, "label")),
              plugin_dmin=("dmin", "mean"),
              emp_label_wins=("emp_min_winner", lambda s: _count(s, "label")),
              emp_dmin=("emp_dmin", "mean")).reset_index()
syn = df[df.dataset == "synthetic"]
stable = syn.pivot_table(index=["regime", "pi2"], columns="aggregation", values="min_winner",
                         aggfunc="first", sort=False)
ctable = syn.pivot_table(index=["regime", "pi2"], columns="aggregation", values="can_win",
                         aggfunc="first", sort=False)
checks = (f"chain_holds on every row: {bool(df.chain_holds.all())}; label aggregation wins on "
          f"Min AUC where the condition says it cannot: "
          f"{int(((df.can_win == False) & df.tilt_proven & (df.min_winner == 'label')).sum())} "  # noqa: E712
          f"proven rows, "
          f"{int(((df.can_win == False) & ~df.tilt_proven & (df.min_winner == 'label')).sum())} "  # noqa: E712
          f"heuristic rows (of {len(df)})")
text = ["# The §12 condition on the LA25 §7 datasets", "", checks, "",
        "## Random finite problems (n = 4 and 8)", "", markdown_table(ptable, digits=3), "",
        "## Real data (plug-in populations; label index 1-based)", "",
        real.groupby(["dataset", "model"]).size().to_string(), "",
        markdown_table(table), "",
        "## Synthetic regimes: exact Min-AUC winner of the Bayes scorers", "",
        markdown_table(stable.reset_index()), "", "## Synthetic regimes: can_win (closed-form tilt)", "",
        markdown_table(ctable.reset_index()), ""]
(out / "summary.md").write_text("\n".join(text))
print("\n".join(text))
