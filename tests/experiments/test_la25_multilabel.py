"""The multi-label study ``la25.multilabel`` (issue 25): its label rule, splits, rows and tables.

Real-data tests skip, with the reason, only when the Mulan files are absent."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr
from sklearn.metrics import roc_auc_score

from bipartite.data import data_dir
from bipartite.experiments.la25.figures import multilabel as mlfig
from bipartite.experiments.la25.studies import multilabel as ml

HAVE_EMOTIONS = (data_dir() / "multilabel" / "emotions-train.arff").exists()
needs_emotions = pytest.mark.skipif(not HAVE_EMOTIONS,
                                    reason="emotions-train.arff is not in the data folder")


def test_kept_labels_rule():
    """A label is kept when it has >= MIN_POSITIVES positive and negative rows in both parts."""
    m = ml.MIN_POSITIVES
    Ytr = np.zeros((100, 4), dtype=int)
    Yte = np.zeros((60, 4), dtype=int)
    Ytr[:m, 0] = Yte[:m, 0] = 1              # exactly enough in both: kept
    Ytr[:m, 1], Yte[:m - 1, 1] = 1, 1        # one short in test: dropped
    Ytr[:, 2], Yte[:, 2] = 1, 1              # no negatives: dropped
    Ytr[:50, 3] = Yte[:30, 3] = 1            # balanced: kept
    assert ml.kept_labels(Ytr, Yte).tolist() == [0, 3]


def test_split_argument_is_checked():
    with pytest.raises(ValueError, match="'split' parameter must be an integer >= -1, got -2"):
        ml.multilabel_split("emotions", -2)


@needs_emotions
def test_splits_standard_and_resplits():
    from bipartite.data import load_mulan

    Xtr, Ytr, Xte, Yte, names, standard = ml.multilabel_split("emotions", -1)
    assert standard and names == list(load_mulan("emotions").label_names)
    assert np.array_equal(Xtr, load_mulan("emotions", split="train").X)
    assert np.array_equal(Yte, load_mulan("emotions", split="test").Y)
    a = ml.multilabel_split("emotions", 0)
    b = ml.multilabel_split("emotions", 0)
    c = ml.multilabel_split("emotions", 1)
    assert np.array_equal(a[0], b[0]) and not np.array_equal(a[0], c[0])
    n = len(load_mulan("emotions").X)
    assert len(a[0]) + len(a[2]) == n and len(a[2]) == round(ml.TEST_FRACTION * n)
    rows = {r.tobytes() for r in np.vstack([a[0], a[2]])}
    assert len(rows) == len({r.tobytes() for r in load_mulan("emotions").X})


@needs_emotions
def test_rows_of_a_joint_objective_are_consistent(monkeypatch):
    """Every kept label gets a row; the joint columns are the min / max - min / mean of the
    label AUCs, and the per-label AUC equals sklearn's on the scores of the same fit."""
    rows = ml.la25_multilabel(seed=3, dataset="emotions", split=-1, learner="xgb",
                              objective="macro", n_estimators=5)
    aucs = np.array([r["auc"] for r in rows])
    assert len(rows) == rows[0]["n_kept"] == 6 and rows[0]["n_dropped"] == 0
    assert rows[0]["min_auc"] == pytest.approx(aucs.min())
    assert rows[0]["diff_auc"] == pytest.approx(aucs.max() - aucs.min())
    assert rows[0]["macro_auc"] == pytest.approx(aucs.mean())
    assert sum(r["alpha_share"] for r in rows) == pytest.approx(1.0)
    Xtr, Ytr, Xte, Yte, _, _ = ml.multilabel_split("emotions", -1)
    est = ml._learner("xgb", "macro", int(np.random.default_rng(3).integers(2**31)), 40, 5)
    s = est.fit(Xtr, Ytr).decision_function(Xte)
    assert aucs == pytest.approx([roc_auc_score(Yte[:, k], s) for k in range(6)], abs=1e-12)
    assert rows[0]["micro_auc"] == pytest.approx(roc_auc_score(Yte.ravel(), np.repeat(s, 6)))


@needs_emotions
def test_skipped_objectives_say_why(monkeypatch):
    rows = ml.la25_multilabel(seed=0, dataset="emotions", split=-1, learner="xgb",
                              objective="and", n_estimators=2)
    assert len(rows) == 1 and "AND of the 6 kept labels has 0 < 10" in rows[0]["skipped"]
    rows = ml.la25_multilabel(seed=0, dataset="emotions", split=-1, learner="xgb",
                              objective="or", n_estimators=2)  # every row has a label
    assert len(rows) == 1 and "OR of the 6 kept labels has 0 < 10 negative" in rows[0]["skipped"]
    monkeypatch.setattr(ml, "SINGLE_LABEL_MAX_K", 5)
    rows = ml.la25_multilabel(seed=0, dataset="emotions", split=-1, learner="xgb",
                              objective="single", n_estimators=2)
    assert len(rows) == 1 and "6 kept labels > SINGLE_LABEL_MAX_K = 5" in rows[0]["skipped"]


def test_permutation_spearman_against_exhaustive_enumeration():
    """rho is scipy's; the seeded Monte Carlo p-value is within 0.02 of the exact permutation
    p-value (all 7! orders)."""
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=7), rng.normal(size=7)
    y = y + x
    rho, p = mlfig.permutation_spearman(x, y, n_permutations=9999, seed=1)
    assert rho == pytest.approx(spearmanr(x, y).statistic)
    exact = np.mean([spearmanr(x, np.asarray(y)[list(q)]).statistic >= rho - 1e-12
                     for q in itertools.permutations(range(7))])
    assert p == pytest.approx(exact, abs=0.02)
    assert all(np.isnan(mlfig.permutation_spearman([1, 2], [2, 1])))
    assert all(np.isnan(mlfig.permutation_spearman([1, 1, 1], [1, 2, 3])))


def _frame() -> pd.DataFrame:
    """Two splits, two labels: hand-made AUCs whose table entries are known."""
    rows = []
    aucs = {"macro": [(0.80, 0.60), (0.70, 0.50)], "sum": [(0.78, 0.66), (0.72, 0.52)],
            "variance_weighted": [(0.79, 0.65), (0.71, 0.53)],
            "max_min": [(0.75, 0.70), (0.66, 0.60)], "single": [(0.85, 0.75), (0.80, 0.70)]}
    for obj, per_split in aucs.items():
        for split, (a0, a1) in zip((-1, 0), per_split, strict=True):
            joint = {} if obj == "single" else {
                "min_auc": min(a0, a1), "diff_auc": abs(a0 - a1), "macro_auc": (a0 + a1) / 2,
                "micro_auc": 0.6, "win_rare_common": 0.7, "win_common_rare": 0.3,
                "rare_label": "b", "common_label": "a"}
            for k, a in enumerate((a0, a1)):
                rows.append({"dataset": "toy", "split": split, "learner": "xgb",
                             "objective": obj, "n_labels": 2, "n_kept": 2, "n_dropped": 0,
                             "label": "ab"[k], "label_index": k, "prior_train": (0.4, 0.1)[k],
                             "alpha_share": (0.2, 0.8)[k], "auc": a, "skipped": "", **joint})
    return pd.DataFrame(rows)


def test_tables_on_hand_made_results():
    df = _frame()
    mm = mlfig.max_min_table(df)
    assert len(mm) == 1  # no plug-in rows
    # Min AUC: max-min (0.70, 0.60) vs macro (0.60, 0.50): +0.10 on both splits
    assert mm["delta_min_auc"].iloc[0] == pytest.approx(0.10)
    assert mm["min_up_splits"].iloc[0] == "2/2"
    # macro: (0.725 - 0.70, 0.63 - 0.60) -> mean 0.0275
    assert mm["delta_macro_auc"].iloc[0] == pytest.approx(0.0275)
    ident = mlfig.identity_table(df).iloc[0]
    # |sum - vw| = .01 .01 .01 .01 ; |sum - macro| = .02 .06 .02 .02
    assert ident["vs_variance_weighted"] == pytest.approx(0.01)
    assert ident["vs_macro"] == pytest.approx(0.03)
    assert ident["closer_to_variance_weighted"]
    obj = mlfig.objective_table(df).set_index("objective")
    assert obj.loc["max_min", "min_auc"] == "0.650 ± 0.050"
    assert obj.loc["single", "macro_auc"] == "0.775 ± 0.025"
    gain = mlfig.alpha_gain_table(df, n_permutations=99).iloc[0]
    assert gain["labels"] == 2 and np.isnan(gain["rho_vs_single"])  # 2 labels: undefined
    # gains vs single: label a (0.75-0.825), label b (0.55-0.725)
    assert gain["mean_gain_vs_single"] == pytest.approx(((0.75 - 0.825) + (0.55 - 0.725)) / 2)
    win = mlfig.win_rate_table(df).set_index("objective")
    assert win.loc["macro", "W_rare_over_common"] == "0.700 ± 0.000"


def test_figures_and_summary(tmp_path):
    df = _frame()
    paths = mlfig.multilabel_figures(df, tmp_path)
    names = {p.name for p in paths}
    assert {"multilabel_toy.png", "multilabel_gain_vs_alpha.png"} <= names
    lines = mlfig.multilabel_summary_lines(df, tmp_path / "tables")
    assert (tmp_path / "tables" / "la25_multilabel_max_min.csv").is_file()
    assert any("Multi-label benchmarks" in line for line in lines)


def test_configs_quick_main_job_leaves_real_data_out(tmp_path):
    """The quick main job runs the synthetic studies only; --real-data or --only brings the
    real-data studies back at that size; full runs what it finds; no Mulan files, no study."""
    from bipartite.experiments.la25.run import REAL_DATA_STUDIES, configs

    assert ml.multilabel_config("full", str(tmp_path)) is None  # an empty data folder
    quick = configs("quick", {})
    assert not set(REAL_DATA_STUDIES) & set(quick)
    if not HAVE_EMOTIONS:
        pytest.skip("the Mulan files are not in the data folder")
    assert "multilabel" not in configs("quick", {"real_data": True})  # opt-in: --only
    assert "multilabel" in configs("quick", {"only": ["multilabel"]})
    assert "multilabel" not in configs("full", {}) and "multilabel" in configs("smoke", {})
    full = configs("full", {"only": ["multilabel"]})["multilabel"]
    assert full["grid"]["dataset"] == list(ml.MULTILABEL_DATASETS)
    assert full["grid"]["split"] == [-1, 0, 1, 2, 3, 4]


def test_an_explicit_letor_path_keeps_its_table_at_the_quick_size():
    """`bipartite reproduce --letor PATH` asks for the LETOR table: the quick main job keeps it
    (the other real-data studies still need --real-data)."""
    from bipartite.experiments.la25.run import configs

    folder = data_dir() / "letor"
    if not (folder / "mq2008_S1.txt").exists():
        pytest.skip("letor/mq2008_S1.txt is not in the data folder")
    quick = configs("quick", {"letor": folder})
    assert "section7_letor" in quick and "section7_bank_marketing" not in quick


@pytest.mark.parametrize("lo, hi", [(0.22, 0.45), (0.02, 0.5), (0.001, 0.6)])
def test_log_prior_axis_is_labelled_in_any_range(lo, hi):
    """The per-label figures' log x axis labels at least two ticks inside the data's range,
    also when the priors lie inside one decade (emotions, 0.22–0.45, had none)."""
    from bipartite.experiments.la25.figures.multilabel import _log_x
    from bipartite.plots import new_figure

    fig, ax = new_figure()
    ax.scatter(np.geomspace(lo, hi, 6), np.linspace(0.4, 0.9, 6))
    _log_x(ax)
    fig.canvas.draw()
    a, b = ax.get_xlim()
    shown = [t.get_text() for t in ax.get_xticklabels()
             if t.get_text() and a <= t.get_position()[0] <= b]
    assert len(shown) >= 2, shown
