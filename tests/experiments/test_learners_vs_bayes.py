"""The study ``la25.learners_vs_bayes`` (learners vs the Bayes scorers on data): rows and columns,
Bayes rows against a brute-force computation, and a run through the runner with its figure."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import bipartite.experiments.la25.figures.learners_vs_bayes as lvbf
import bipartite.experiments.la25.studies.learners_vs_bayes as lvb
from bipartite.data import make_synthetic
from bipartite.studies import STUDIES, read_results, run_study, study_figures

TINY = dict(n_train=300, n_test=300, epochs=2, n_estimators=10)
METRICS = ["auc_1", "auc_2", "crit_loss_agg", "crit_label_agg", "win_21", "near_tie_21"]
CONTRASTS = [f"{kind}_{c}" for c in lvb.CONTRAST_COLUMNS for kind in ("gap", "shift")]


def brute_auc(y, s) -> float:
    """Share of (positive, negative) pairs ranked right, ties ½: O(n²)."""
    pos, neg = s[y == 1], s[y == 0]
    diff = pos[:, None] - neg[None, :]
    return float(((diff > 0) + 0.5 * (diff == 0)).mean())


def brute_mp_auc(levels, s) -> float:
    """Multipartite AUC, linear costs (docs/theory.md §3.2): pairs with ȳ_i > ȳ_j weigh
    ȳ_i − ȳ_j; O(n²)."""
    gap = (levels[:, None] - levels[None, :]).astype(float)
    w = np.where(gap > 0, gap, 0.0)
    diff = s[:, None] - s[None, :]
    return float((w * ((diff > 0) + 0.5 * (diff == 0))).sum() / w.sum())


def test_rows_and_columns_at_a_tiny_size():
    rows = lvb.la25_learners_vs_bayes(seed=3, dataset="synthetic", **TINY)
    df = pd.DataFrame(rows)
    expected = {("bayes", "loss_aggregation"), ("bayes", "label_aggregation")}
    expected |= {(r, o) for r in lvb.ROUTES for o in lvb.OBJECTIVES
                 if (r, o) != ("mlp-pointwise", "loss_aggregation")}
    assert len(df) == 11 and set(zip(df["route"], df["objective"], strict=True)) == expected
    columns = ["route", "learner", "method", "objective", "fit_s", *METRICS, *CONTRASTS,
               "train_size", "test_size", "beta"]
    assert set(df.columns) == set(columns)
    assert (df["train_size"] == 300).all() and (df["test_size"] == 300).all()
    assert (df["beta"] == 8.0).all()
    assert set(df["learner"]) == {"bayes", "mlp", "xgb"}
    assert set(df["method"]) == {"exact", "pairwise", "plugin", "pointwise"}
    for col in ["auc_1", "auc_2", "crit_loss_agg", "crit_label_agg", "win_21"]:
        assert df[col].between(0, 1).all(), col
    # contrasts: gaps to the Bayes row of the same objective; shifts on label-aggregation rows
    bayes = df[df["route"] == "bayes"].set_index("objective")
    for _, r in df.iterrows():
        assert r["gap_auc_1"] == pytest.approx(r["auc_1"] - bayes.loc[r["objective"], "auc_1"])
    la = df[df["objective"] == "loss_aggregation"].set_index("route")
    for _, r in df[df["objective"] == "label_aggregation"].iterrows():
        ref = "mlp-plugin" if r["route"] == "mlp-pointwise" else r["route"]
        assert r["shift_win_21"] == pytest.approx(r["win_21"] - la.loc[ref, "win_21"])
    assert df.loc[df["objective"] == "loss_aggregation", "shift_win_21"].isna().all()


def test_bayes_rows_equal_a_brute_force_computation():
    n_train, n_test, seed = 200, 400, 11
    rows = lvb.la25_learners_vs_bayes(seed=seed, dataset="synthetic-det", n_train=n_train,
                                      n_test=n_test, routes=[])
    assert [(r["route"], r["objective"]) for r in rows] == [
        ("bayes", "loss_aggregation"), ("bayes", "label_aggregation")]
    # independent: the sample, the Bayes scorers written out (docs/theory.md §4.2: Σ η_k /
    # (π_k (1 − π_k)); §5.2, sum with linear costs: Σ η_k), O(n²) metrics on the test labels
    d = make_synthetic(n_train + n_test, priors=(0.5, 0.05), beta=50.0, seed=seed)
    eta, Y, pi = d.eta[n_train:], d.Y[n_train:], d.pi
    scorers = {"loss_aggregation": eta @ (1.0 / (pi * (1.0 - pi))),
               "label_aggregation": eta.sum(axis=1)}
    for row in rows:
        s = scorers[row["objective"]]
        aucs = [brute_auc(Y[:, k], s) for k in range(2)]
        only2, only1 = (Y[:, 1] == 1) & (Y[:, 0] == 0), (Y[:, 0] == 1) & (Y[:, 1] == 0)
        win21 = brute_auc(np.r_[np.ones(only2.sum()), np.zeros(only1.sum())],
                          np.r_[s[only2], s[only1]])
        assert row["auc_1"] == pytest.approx(aucs[0], abs=1e-12)
        assert row["auc_2"] == pytest.approx(aucs[1], abs=1e-12)
        assert row["crit_loss_agg"] == pytest.approx(np.mean(aucs), abs=1e-12)
        assert row["crit_label_agg"] == pytest.approx(brute_mp_auc(Y.sum(axis=1), s), abs=1e-12)
        assert row["win_21"] == pytest.approx(win21, abs=1e-12)
        assert row["gap_auc_1"] == 0.0 and row["beta"] == 50.0
    la, lab = rows
    assert lab["shift_auc_2"] == pytest.approx(lab["auc_2"] - la["auc_2"])
    # the label-aggregation scorer ignores the priors and so favours the common label 1
    assert lab["win_21"] < la["win_21"]


def test_bad_parameters_and_missing_data(tmp_path):
    with pytest.raises(ValueError, match="'dataset'"):
        lvb.la25_learners_vs_bayes(seed=0, dataset="mnist")
    with pytest.raises(ValueError, match="unknown routes"):
        lvb.la25_learners_vs_bayes(seed=0, dataset="synthetic", routes=["svm"])
    with pytest.raises(ValueError, match="synthetic datasets only"):
        lvb.la25_learners_vs_bayes(seed=0, dataset="banking", beta=8.0)
    with pytest.raises(FileNotFoundError, match="BIPARTITE_DATA"):
        lvb.la25_learners_vs_bayes(seed=0, dataset="banking", data=str(tmp_path))
    with pytest.raises(FileNotFoundError, match="mq2008_S1"):
        lvb.la25_learners_vs_bayes(seed=0, dataset="mq2008", data=str(tmp_path))


def test_banking_from_the_data_folder(shared_data):
    if not (shared_data / "bank_personal_loan.csv").is_file():
        pytest.skip("bank_personal_loan.csv is absent from the data folder")
    rows = lvb.la25_learners_vs_bayes(seed=1, dataset="banking", routes=["xgb-plugin"],
                                      n_estimators=5, data=str(shared_data))
    assert [(r["route"], r["objective"]) for r in rows] == [
        ("xgb-plugin", "loss_aggregation"), ("xgb-plugin", "label_aggregation")]
    assert rows[0]["train_size"] == rows[0]["test_size"] == 2500
    assert np.isnan(rows[0]["gap_auc_1"]) and "beta" not in rows[0]


def test_a_two_task_run_through_the_runner_writes_results_and_figure(tmp_path):
    assert STUDIES["la25.learners_vs_bayes"].figures is lvbf.learners_vs_bayes_figures
    config = {
        "study": {"function": "la25.learners_vs_bayes", "name": "lvb", "seed": 4,
                  "replicates": 1, "paired_seeds": True},
        "params": {"n_train": 200, "n_test": 200, "n_estimators": 5, "routes": ["xgb-plugin"]},
        "cases": [{"dataset": "synthetic", "beta": 8.0}, {"dataset": "synthetic-det"}],
        "execution": {"jobs": 1},
    }
    out = tmp_path / "lvb"
    result = run_study(config, out, progress=False)
    assert result.ok and result.n_run == 2
    assert (out / "results.parquet").is_file()
    df = read_results(out)
    assert len(df) == 8 and list(df["dataset"].unique()) == ["synthetic", "synthetic-det"]
    assert df.groupby("dataset")["beta"].first().to_dict() == {"synthetic": 8.0,
                                                               "synthetic-det": 50.0}
    assert df["seed"].nunique() == 1  # paired seeds: one seed per replicate, as the script's
    paths = study_figures(out, tmp_path / "figures")
    names = sorted(p.name for p in paths)
    assert names == ["la25_learners_vs_bayes_synthetic-det.pdf",
                     "la25_learners_vs_bayes_synthetic-det.png",
                     "la25_learners_vs_bayes_synthetic.pdf", "la25_learners_vs_bayes_synthetic.png"]
    assert all(p.stat().st_size > 0 for p in paths)
    table = lvbf.learners_vs_bayes_table(df)
    assert list(zip(table["dataset"], table["route"], table["objective"], strict=True))[:4] == [
        ("synthetic", "bayes", "loss_aggregation"), ("synthetic", "bayes", "label_aggregation"),
        ("synthetic", "xgb-plugin", "loss_aggregation"),
        ("synthetic", "xgb-plugin", "label_aggregation")]
    assert (table["replicates"] == 1).all() and "gap_crit_label_agg" in table
