"""LA25 §7 over the aggregation family (issue 24): the family's objectives and their Bayes
scorers, the family rows of both §7 studies (same splits, seeds and test rows as LA25's rows,
which they leave unchanged), the paired results table, the configs and ``--only``."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from bipartite.experiments.la25.figures.family import (
    FAMILY_COLUMNS,
    describe_objective,
    family_order,
    family_pivot,
    family_table,
)
from bipartite.experiments.la25.figures.section7 import verdict_table
from bipartite.experiments.la25.run import FAMILY_LEARNERS, section7_configs
from bipartite.experiments.la25.studies.section7 import (
    FAMILY_OBJECTIVES,
    FAMILY_RATIOS,
    family_bayes_scores,
    family_weights,
    la25_section7_data,
    la25_section7_synthetic,
)
from bipartite.labels import aggregate_labels
from bipartite.objectives import as_objective
from bipartite.population import FiniteProblem, enumerate_weak_orders, label_vectors

LABEL_ROWS = ["label_sum_0.25", "label_sum_0.5", "label_sum_2", "label_sum_4", "label_or",
              "label_and", "label_lex_12", "label_lex_21"]
LOSS_ROWS = ["loss_a_0.25", "loss_a_0.5", "loss_a_2", "loss_a_4"]


def test_family_rows_are_the_issue_grid():
    """Weighted sums and loss-aggregation weights at w₂/w₁ = a₂/a₁ ∈ {1/4, 1/2, 2, 4} (1 is LA25's
    own rows), summing to 2 as the ones do; OR, AND; lexicographic in both label orders: the
    four label vectors in lexicographic order (first label first) as levels, uniform costs."""
    assert list(FAMILY_OBJECTIVES) == LABEL_ROWS + LOSS_ROWS
    assert FAMILY_RATIOS == (0.25, 0.5, 1.0, 2.0, 4.0)
    for r in (0.25, 0.5, 2.0, 4.0):
        w = FAMILY_OBJECTIVES[f"label_sum_{r:g}"]["w"]
        a = FAMILY_OBJECTIVES[f"loss_a_{r:g}"]["a"]
        assert w == a and w[1] / w[0] == pytest.approx(r) and sum(w) == pytest.approx(2.0)
    assert family_weights(1.0) == [1.0, 1.0]
    with pytest.raises(ValueError, match="'ratio' parameter"):
        family_weights(0.0)
    V = label_vectors(2)
    for name, first in (("label_lex_12", 0), ("label_lex_21", 1)):
        spec = FAMILY_OBJECTIVES[name]
        assert spec["costs"] == "uniform"
        levels = aggregate_labels(V, "sum", spec["w"])
        lex = sorted(range(4), key=lambda m: (V[m, first], V[m, 1 - first]))
        assert np.argsort(levels).tolist() == lex and len(set(levels)) == 4
    for name in FAMILY_OBJECTIVES:
        as_objective(**FAMILY_OBJECTIVES[name])  # every row is a valid objective
    assert describe_objective("label_sum_4") == ("label", "weighted sum, w₂/w₁ = 4", 4.0)
    assert describe_objective("loss_a_0.5") == ("loss", "a₂/a₁ = 1/2", 0.5)
    assert describe_objective("label_and")[0] == "label"
    assert math.isnan(describe_objective("label_lex_21")[2])
    assert family_order()[0] == "label_aggregation" and family_order()[-1] == "max_min_plugin"


@pytest.mark.parametrize("seed", range(6))
def test_family_bayes_scorers_maximise_their_objective_by_enumeration(seed):
    """Each closed-form Bayes scorer of the family (weighted sums: w·η; OR / AND: a cell of the
    joint; loss aggregation: Σ α_k η_k) attains the largest population value of its objective
    over every weak order of a random 4-point problem (brute force, Objective.value)."""
    P = FiniteProblem.random(4, 2, seed=seed)
    scores = family_bayes_scores(P.eta, P.pi, P.label_probs)
    assert set(scores) == set(FAMILY_OBJECTIVES) - {"label_lex_12", "label_lex_21"}
    orders = list(enumerate_weak_orders(4))
    for name, s in scores.items():
        obj = as_objective(**FAMILY_OBJECTIVES[name])
        best = max(obj.value(P, np.asarray(o, dtype=float)) for o in orders)
        assert obj.value(P, s) == pytest.approx(best, abs=1e-12), name


def _non_family(rows):
    return pd.DataFrame([r for r in rows if r["objective"] not in FAMILY_OBJECTIVES])


def test_synthetic_family_rows_leave_the_other_rows_unchanged():
    """``family=True`` adds the Bayes family rows at every π₂ and each learner's family rows; the
    rows without it are unchanged (the family has its own seed stream)."""
    kw = dict(seed=2, regime="positive", pi2=0.1, n_test=500, n_train=400, learners=["xgb"],
              n_estimators=5, n_sweep=5)
    base = la25_section7_synthetic(**kw)
    fam = la25_section7_synthetic(**kw, family=True)
    pd.testing.assert_frame_equal(pd.DataFrame(base), _non_family(fam))
    got = {(r["learner"], r["objective"]) for r in fam if r["objective"] in FAMILY_OBJECTIVES}
    want = {("xgb", o) for o in FAMILY_OBJECTIVES} | {
        ("bayes", o) for o in FAMILY_OBJECTIVES if not o.startswith("label_lex")}
    assert got == want
    r = {x["objective"]: x for x in fam if x["learner"] == "bayes"}
    # more weight on the skewed label 2 moves the Bayes point toward it, on both routes
    assert r["label_sum_4"]["auc_2"] > r["label_aggregation"]["auc_2"] > r["label_sum_0.25"]["auc_2"]
    assert r["loss_a_4"]["auc_2"] > r["loss_aggregation"]["auc_2"] > r["loss_a_0.25"]["auc_2"]


def test_bank_marketing_family_rows(shared_data):
    """The family on one Bank Marketing split: every family row, same test rows, and LA25's rows
    unchanged by it; the family needs a learner (not the plug-in sweep)."""
    kw = dict(seed=0, dataset="bank_marketing", path=str(shared_data / "bank_marketing_full.csv"),
              split=1, learner="xgb", n_train=1000, n_estimators=5)
    base = la25_section7_data(**kw)
    fam = la25_section7_data(**kw, family=True)
    pd.testing.assert_frame_equal(pd.DataFrame(base), _non_family(fam))
    df = pd.DataFrame(fam)
    assert df["objective"].tolist()[4:] == list(FAMILY_OBJECTIVES)
    assert (df["n_test_rows"] == 13564).all() and df[["auc_1", "auc_2"]].stack().between(0.4, 0.9).all()
    with pytest.raises(ValueError, match="'family' option"):
        la25_section7_data(**{**kw, "learner": "xgb_plugin"}, family=True)


def _toy_results():
    """Two learners, three splits (one without the sum row), made-up AUCs."""
    rows = []
    aucs = {"loss_aggregation": [(0.66, 0.62), (0.68, 0.61), (0.70, 0.60)],
            "label_aggregation": [(0.70, 0.60), (0.72, 0.58), None],
            "label_and": [(0.64, 0.63), (0.65, 0.63), (0.69, 0.59)]}
    for learner, shift in (("linear", 0.0), ("xgb", 0.01)):
        for objective, per_split in aucs.items():
            for split, a in enumerate(per_split):
                if a is None:
                    continue
                a1, a2 = a[0] + shift, a[1]
                rows.append({"dataset": "bank_marketing", "learner": learner, "split": split,
                             "objective": objective, "auc_1": a1, "auc_2": a2,
                             "diff": abs(a1 - a2), "min": min(a1, a2), "label_1": "mortgage",
                             "label_2": "personal_loan"})
    return pd.DataFrame(rows)


def test_family_table_pairs_by_split():
    """ΔMin and ΔDiff against loss aggregation (a = 1) on the same split, mean ± s.e., counts of
    splits ahead / behind; a split without the row does not count; loss aggregation's own row
    holds its Min AUC; the sum row agrees with verdict_table."""
    t = family_table(_toy_results())
    assert list(t.columns) == list(FAMILY_COLUMNS)
    lin = t[t["learner"] == "linear"].set_index("objective")
    d_and = np.array([0.63 - 0.62, 0.63 - 0.61, 0.59 - 0.60])
    assert lin.loc["label_and", "d_min"] == pytest.approx(d_and.mean())
    assert lin.loc["label_and", "d_min_se"] == pytest.approx(d_and.std(ddof=1) / math.sqrt(3))
    assert (lin.loc["label_and", "ahead_min"], lin.loc["label_and", "behind_min"]) == (2, 1)
    diff_and = np.array([0.01 - 0.04, 0.02 - 0.07, 0.10 - 0.10])
    assert lin.loc["label_and", "d_diff"] == pytest.approx(diff_and.mean())
    assert lin.loc["label_and", "lower_diff"] == 2
    assert lin.loc["label_aggregation", "splits"] == 2
    assert lin.loc["label_aggregation", "d_min"] == pytest.approx(((0.60 - 0.62) + (0.58 - 0.61)) / 2)
    assert lin.loc["loss_aggregation", "min"] == pytest.approx((0.62 + 0.61 + 0.60) / 3)
    assert pd.isna(lin.loc["loss_aggregation", "d_min"])
    assert t["objective"].tolist()[:3] == ["loss_aggregation", "label_aggregation", "label_and"]
    v = verdict_table(_toy_results()).set_index("learner")
    assert v.loc["linear", "d_min"] == pytest.approx(lin.loc["label_aggregation", "d_min"])
    assert v.loc["linear", "label_higher_min"] == "0/2"
    pivot = family_pivot(t[t["dataset"] == "bank_marketing"]).set_index("row")
    assert pivot.loc["label_and", "linear"] == "+0.007 ± 0.009 (2/3)"
    assert pivot.loc["loss_aggregation", "linear"] == "Min 0.610"


def test_family_table_rejects_duplicated_tasks():
    df = _toy_results()
    with pytest.raises(ValueError, match="duplicated task"):
        family_table(pd.concat([df, df[df["objective"] == "loss_aggregation"]]))


def test_family_configs_by_size(shared_data):
    """Full size: the family on linear, MLP and XGBoost (not the hinge scorer or the plug-in
    sweep) on both real datasets, and in the synthetic study; the other sizes keep a stated
    subset (FAMILY_LEARNERS)."""
    for size in ("smoke", "quick", "full"):
        cfg = section7_configs(size, {"data": shared_data})
        assert cfg["section7_synthetic"]["params"]["family"] is True
        assert set(cfg["section7_synthetic"]["params"]["learners"]) <= set(FAMILY_LEARNERS[size])
        for name in ("section7_bank_marketing", "section7_letor"):
            cases = cfg[name]["cases"]
            fam = {c["learner"] for c in cases if c["family"]}
            assert fam == {c["learner"] for c in cases} & set(FAMILY_LEARNERS[size]) and fam
            assert "learner" not in cfg[name]["grid"]
    full = section7_configs("full", {"data": shared_data})["section7_bank_marketing"]["cases"]
    assert {c["learner"] for c in full if c["family"]} == {"linear", "mlp", "xgb"}
    assert len(full) == 5


def test_only_reruns_one_study_with_the_family_table(tmp_path):
    """``bipartite reproduce --paper la25 --smoke --only section7_synthetic`` runs that study
    alone, and its summary has the family section and tables."""
    from bipartite.cli import main

    out = tmp_path / "la25"
    assert main(["reproduce", "--paper", "la25", "--smoke", "--only", "section7_synthetic",
                 "--out", str(out), "--jobs", "1"]) in (0, None)
    record = json.loads((out / "reproduce.json").read_text())
    assert list(record["studies"]) == ["section7_synthetic"]
    assert "The aggregation family" in (out / "summary.md").read_text()
    table = pd.read_csv(out / "tables" / "la25_section7_family.csv")
    assert set(table["dataset"]) == {"synthetic"} and set(LABEL_ROWS) <= set(table["objective"])
    bayes = table[table["learner"] == "bayes"]
    assert not bayes["objective"].str.startswith("label_lex").any()
    assert (out / "tables" / "la25_section7_family_synthetic_bayes.md").is_file()



def test_family_row_undefined_when_its_aggregated_label_is_constant():
    """AND with no training row holding both labels has a constant aggregated label: the row is
    undefined (None, UndefinedMetricWarning; NaN AUCs in the study) and the family table pairs
    only the defined splits."""
    from bipartite._utils.validation import UndefinedMetricWarning
    from bipartite.experiments.la25.studies.section7 import _family_scores

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    Y = np.array([[1, 0], [0, 1], [0, 0]] * 20)
    with pytest.warns(UndefinedMetricWarning, match="'label_and' is undefined"):
        assert _family_scores("xgb", "label_and", 0, X, Y, X, epochs=1, n_estimators=2) is None
    assert _family_scores("xgb", "label_or", 0, X, Y, X, epochs=1, n_estimators=2).shape == (60,)
    df = _toy_results()
    df.loc[(df["objective"] == "label_and") & (df["split"] == 2) & (df["learner"] == "linear"),
           ["auc_1", "auc_2", "diff", "min"]] = np.nan
    row = family_table(df).set_index(["learner", "objective"]).loc[("linear", "label_and")]
    assert row["splits"] == 2 and row["d_min"] == pytest.approx((0.01 + 0.02) / 2)
