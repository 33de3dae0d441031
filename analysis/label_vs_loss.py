"""The condition's prediction beside every label-vs-loss aggregation contrast (issue 33):
docs/theory.md §12 on plug-in populations, saved under ``papers/la25/results/``.

    python analysis/label_vs_loss.py                      # both files below
    python analysis/label_vs_loss.py --only multilabel    # or: --only section7
    python analysis/label_vs_loss.py --only multilabel --datasets enron --splits 5 6 7
    python analysis/label_vs_loss.py --figure             # redraw the README figure only

* ``multilabel_predictions.csv``: for each Mulan set and split of the multi-label study
  (``la25.multilabel``: the standard split -1 and re-splits 0..4 by default), each label
  aggregation the study runs there (sum; OR and AND where not constant) against loss aggregation
  (a = 1), through :func:`bipartite.pareto.balance_from_aucs` on the plug-in population of the
  test rows (per-label logistic η̂ fitted on the training rows, labels conditionally independent:
  :func:`bipartite.experiments.la25.studies.aggregation_theory.multilabel_predictions`);
* ``section7_predictions.csv``: the K = 2 family on UCI Bank Marketing and the MQ2008 stand-in
  (5 splits each, plug-in joint of a multinomial logistic model and of gradient boosting:
  :func:`~bipartite.experiments.la25.studies.aggregation_theory.bank_marketing_predictions`,
  :func:`~bipartite.experiments.la25.studies.aggregation_theory.letor_predictions`; their splits
  are their own, not the learners' rows).

``--figure`` redraws ``docs/figures/la25_when_label_aggregation.png`` (the condition's
prediction against the learners' effect, every (dataset, ψ, learner):
:func:`bipartite.experiments.la25.figures.label_vs_loss.plot_label_vs_loss`) from the saved
results, through ``analysis/readme_tables.py``'s ``label_vs_loss_rows``, and fits nothing.

Rows of a rerun with ``--datasets`` / ``--splits`` replace those (dataset, split) rows and keep
the others. Each file's run (command, time, version, row count, SHA-256 of the code that made it)
is recorded under ``analyses`` in ``papers/la25/results/provenance.json``. The data is found
through the data setting (``BIPARTITE_DATA``, then ``../shared/data``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import sys
import warnings
from pathlib import Path

import pandas as pd

import bipartite
from bipartite.data import data_dir
from bipartite.experiments.la25.studies import aggregation_theory as at
from bipartite.experiments.la25.studies.multilabel import MULTILABEL_DATASETS

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "papers" / "la25" / "results"
#: The code whose SHA-256 the provenance records.
SOURCES = ("analysis/label_vs_loss.py", "bipartite/experiments/la25/studies/aggregation_theory.py",
           "bipartite/experiments/la25/studies/multilabel.py", "bipartite/pareto/balance_k.py")


def _record(name: str, frame: pd.DataFrame, argv: list[str]) -> None:
    path = RESULTS / "provenance.json"
    prov = json.loads(path.read_text(encoding="utf-8"))
    prov.setdefault("analyses", {})[name] = {
        "command": " ".join(["python analysis/label_vs_loss.py", *argv]),
        "finished_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "bipartite_version": bipartite.__version__, "rows": int(len(frame)),
        "sha256": {s: hashlib.sha256((ROOT / s).read_bytes()).hexdigest() for s in SOURCES}}
    path.write_text(json.dumps(prov, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def _save(name: str, new: pd.DataFrame, keys: list[str], argv: list[str]) -> None:
    dest = RESULTS / f"{name}.csv"
    if dest.is_file():
        old = pd.read_csv(dest)
        done = set(map(tuple, new[keys].drop_duplicates().to_numpy().tolist()))
        old = old[[tuple(r) not in done for r in old[keys].to_numpy().tolist()]]
        new = pd.concat([old, new], ignore_index=True)
    new = new.sort_values([*keys, "aggregation"], kind="stable").reset_index(drop=True)
    new.to_csv(dest, index=False, float_format="%.8g")
    _record(name, new, argv)
    print(f"wrote {dest.relative_to(ROOT)} ({len(new)} rows)")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", choices=("multilabel", "section7"))
    ap.add_argument("--datasets", nargs="+", choices=MULTILABEL_DATASETS,
                    default=list(MULTILABEL_DATASETS))
    ap.add_argument("--splits", nargs="+", type=int, default=[-1, 0, 1, 2, 3, 4])
    ap.add_argument("--models", nargs="+", choices=at.PLUGIN_MODELS, default=list(at.PLUGIN_MODELS),
                    help="the plug-in models of the K = 2 predictions")
    ap.add_argument("--figure", action="store_true", help="only redraw the README figure")
    args = ap.parse_args(argv)
    if args.figure:
        from readme_tables import label_vs_loss_rows, load_results

        from bipartite.experiments.la25.figures.label_vs_loss import plot_label_vs_loss

        for path in plot_label_vs_loss(label_vs_loss_rows(load_results()),
                                       ROOT / "docs" / "figures", formats=("png",)):
            print(f"wrote {path.relative_to(ROOT)}")
        return 0
    warnings.simplefilter("ignore")
    if args.only in (None, "multilabel"):
        for dataset in args.datasets:  # saved per dataset: an interrupted run keeps its sets
            rows = []
            for split in args.splits:
                rows += at.multilabel_predictions(dataset, split)
                print(f"{dataset} split {split}", flush=True)
            _save("multilabel_predictions", pd.DataFrame(rows), ["dataset", "split"], argv)
    if args.only in (None, "section7"):
        rows = []
        for model in args.models:
            rows += at.bank_marketing_predictions(model=model)
            rows += at.letor_predictions(str(data_dir() / "letor"), model=model)
        _save("section7_predictions", pd.DataFrame(rows), ["dataset", "model", "split"], argv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
