"""docs/theory.md §12.10: the §12 condition on the LA25 §7 datasets
(bipartite.experiments.la25.studies.aggregation_theory)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from bipartite.data import data_dir
from bipartite.experiments.la25.studies.aggregation_theory import (
    AGGREGATIONS,
    bank_marketing_predictions,
    plugin_joint,
    synthetic_predictions,
)
from bipartite.labels import AGGREGATIONS as PSI_TABLE
from bipartite.population import FiniteProblem


def test_family_is_the_issue_24_family():
    """Sum, weighted sums w₂/w₁ ∈ {1/4, 1/2, 2, 4} (1 is the sum), OR, AND, lexicographic in both
    orders."""
    assert len(AGGREGATIONS) == 9
    assert {kw.get("aggregate") for kw in AGGREGATIONS.values()} == {"sum", "or", "product"}
    ratios = sorted(kw["w"][1] / kw["w"][0] for n, kw in AGGREGATIONS.items() if "w" in kw)
    assert ratios == [0.25, 0.5, 0.5, 2.0, 2.0, 4.0]  # lexicographic = w₂/w₁ of 1/2 and 2


@pytest.mark.parametrize("model", [
    "logistic", pytest.param("hgb", marks=pytest.mark.slow)])  # HGB: minutes on a loaded machine
def test_plugin_joint_recovers_a_known_joint(model):
    """On one-hot features of a 4-point problem, each plug-in model recovers Q(v | x) from
    6 000 draws (to 0.06, about four standard errors)."""
    P = FiniteProblem.random(4, 2, seed=2)
    idx, Y = P.sample(6000, seed=3)
    X = np.eye(4)[idx]
    Q = plugin_joint(X, Y, np.eye(4), model=model, seed=0)
    np.testing.assert_allclose(Q.sum(axis=1), 1.0)
    np.testing.assert_allclose(Q, P.label_probs, atol=0.06)


def test_plugin_joint_bad_input():
    with pytest.raises(ValueError, match="'Y_train'"):
        plugin_joint(np.zeros((4, 2)), np.zeros((4, 3), dtype=int), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="'model'"):
        plugin_joint(np.zeros((4, 2)), np.zeros((4, 2), dtype=int), np.zeros((2, 2)),
                     model="forest")


def test_synthetic_regimes_follow_the_condition():
    """On the exact §7 synthetic populations: the chain holds on every row; where loss aggregation
    under-serves the skewed label (positive, nested, balanced_easier: §12.4), the sum cannot win
    and does not; and no proven 'cannot win' is ever a win."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rows = synthetic_predictions(["positive", "nested", "balanced_easier", "balanced_harder"],
                                     (0.05, 0.2), n=1500)
    assert all(r["chain_holds"] for r in rows)
    for r in rows:
        if r["tilt_proven"] and r["can_win"] is False:
            assert r["min_winner"] != "label", r
        if r["aggregation"] == "sum" and r["regime"] != "balanced_harder":
            assert r["can_win"] is False and r["min_winner"] != "label", r
    # balanced_harder at π₂ = 0.2: the sum tilts toward the under-served balanced label and wins
    (r,) = [r for r in rows if r["regime"] == "balanced_harder" and r["pi2"] == 0.2
            and r["aggregation"] == "sum"]
    assert r["can_win"] and r["min_winner"] == "label"


@pytest.mark.slow
def test_bank_marketing_predictions_match_the_known_winners():
    """Bank Marketing, plug-in joint by multinomial logistic regression, one split: the condition
    predicts the issue-24 empirical winners — sum, OR and mortgage-first lexicographic cannot win
    (they tilt toward the over-served mortgage label), AND and the loan-first weighted sum
    w₂/w₁ = 2 tilt toward the under-served loan label and win."""
    path = data_dir()
    if not any((path / f).exists() for f in ("bank_marketing_full.csv", "bank-full.csv")):
        pytest.skip(f"UCI Bank Marketing is absent from {path}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rows = {r["aggregation"]: r for r in bank_marketing_predictions(splits=1)}
    assert {r["underserved"] for r in rows.values()} == {1}   # the loan label
    for name in ("sum", "or", "lex_1_first", "sum_w2/w1=0.5", "sum_w2/w1=0.25"):
        assert rows[name]["can_win"] is False and rows[name]["min_winner"] == "loss", name
    for name in ("and", "sum_w2/w1=2", "lex_2_first"):
        assert rows[name]["can_win"] and rows[name]["min_winner"] == "label", name
    assert rows["sum_w2/w1=2"]["tilt_ratio"] == pytest.approx(1.10, abs=0.02)


# ------------------------------------------------------------------------------------------------
# Issue 33: the condition on the Mulan sets (any K), plug-in populations with independent labels
# ------------------------------------------------------------------------------------------------


def test_the_multilabel_aggregations_are_the_table():
    """The multi-label study runs one label-aggregation objective per aggregation map of
    bipartite.labels.AGGREGATIONS, under the study's names (AND is the table's "product")."""
    from bipartite.experiments.la25.studies.aggregation_theory import MULTILABEL_AGGREGATIONS
    from bipartite.experiments.la25.studies.multilabel import MULTILABEL_OBJECTIVES

    assert sorted(MULTILABEL_AGGREGATIONS.values()) == sorted(PSI_TABLE)
    assert MULTILABEL_AGGREGATIONS == {"sum": "sum", "and": "product", "or": "or"}
    assert set(MULTILABEL_AGGREGATIONS) <= set(MULTILABEL_OBJECTIVES)


@pytest.mark.parametrize("aggregate", sorted(PSI_TABLE))
def test_independent_aggregate_scores_rank_as_the_joint_scorer(aggregate):
    """For K = 4 and every aggregation map of bipartite.labels.AGGREGATIONS, the scores are an
    increasing map of the closed-form Bayes scorer computed from the full 2^K independent joint
    (bipartite.bayes.label_aggregation_scores): exp for AND, 1 − exp(−s) for OR, the identity
    for the sum (a new map of the table needs its line here)."""
    from scipy.special import logit

    from bipartite.bayes import label_aggregation_scores
    from bipartite.experiments.la25.studies.aggregation_theory import (
        independent_aggregate_scores,
    )
    from bipartite.population import independent_joint

    eta = np.random.default_rng(0).uniform(0.01, 0.99, (50, 4))
    ref = label_aggregation_scores(eta, independent_joint(eta), aggregate=aggregate)
    s = independent_aggregate_scores(logit(eta), aggregate)
    back = {"sum": s, "product": np.exp(s), "or": -np.expm1(-s)}[aggregate]
    np.testing.assert_allclose(back, ref, rtol=1e-10, atol=1e-14)


def test_independent_aggregate_scores_do_not_underflow():
    """AND of 200 labels at η = 0.01: Π η underflows to 0 for every row, the log scores still
    order the rows (a row with a higher logit on every label ranks higher)."""
    from bipartite.experiments.la25.studies.aggregation_theory import independent_aggregate_scores

    z = np.full((2, 200), np.log(0.01 / 0.99))
    z[1] += 0.5
    s = independent_aggregate_scores(z, "product")
    assert np.all(np.isfinite(s)) and s[1] > s[0]
    with pytest.raises(ValueError, match="aggregate"):
        independent_aggregate_scores(z, "xor")


def test_plugin_balance_rows_equal_the_exact_finite_problem():
    """On a K = 3 plug-in population, Min AUCs and the winner equal those of the explicit
    FiniteProblem with the independent joint (its own AUC rule and the joint Bayes scorers of
    bipartite.bayes), and the row's tilt verdict is balance_condition's."""
    from scipy.special import expit

    from bipartite.bayes import label_aggregation, loss_aggregation
    from bipartite.experiments.la25.studies.aggregation_theory import plugin_balance_rows

    rng = np.random.default_rng(5)
    Z = rng.normal(0.0, 1.5, (40, 3)) + [0.0, -1.5, 0.5]
    P = FiniteProblem.from_eta(np.full(40, 1 / 40), expit(Z))
    rows = plugin_balance_rows(Z, ["sum", "or", "and"])
    loss = P.auc(loss_aggregation(P.eta, P.pi))
    for row, aggregate in zip(rows, ["sum", "or", "product"], strict=True):
        label = P.auc(label_aggregation(P, aggregate=aggregate))
        assert row["min_loss"] == pytest.approx(loss.min(), abs=1e-12)
        assert row["min_label"] == pytest.approx(label.min(), abs=1e-12)
        assert row["dmin"] == pytest.approx(label.min() - loss.min(), abs=1e-12)
        assert row["dmacro"] == pytest.approx(label.mean() - loss.mean(), abs=1e-12)
        want = "label" if label.min() > loss.min() + 1e-12 else (
            "loss" if label.min() < loss.min() - 1e-12 else "tie")
        assert row["min_winner"] == want
    # loss aggregation (a = 1) maximises the macro-AUC: no aggregation beats it there
    assert all(r["dmacro"] <= 1e-12 for r in rows)


@pytest.mark.skipif(not (data_dir() / "multilabel" / "emotions-train.arff").exists(),
                    reason="the Mulan emotions files are not in the data folder")
def test_multilabel_predictions_run_what_the_study_runs():
    """emotions, standard split: the study runs the sum only (every row has a label, none has
    all six), so the prediction has one row, on the 6 kept labels."""
    from bipartite.experiments.la25.studies.aggregation_theory import multilabel_predictions

    rows = multilabel_predictions("emotions", -1)
    assert [r["aggregation"] for r in rows] == ["sum"]
    assert rows[0]["n_kept"] == 6 and rows[0]["K"] == 6
    assert rows[0]["tilt_proven"] and rows[0]["min_winner"] in ("label", "loss", "tie")


def test_plot_label_vs_loss_draws_every_row(tmp_path):
    """The README figure (issue 33): one file per format, and a frame without the needed
    columns is refused by name."""
    import pandas as pd

    from bipartite.experiments.la25.figures.label_vs_loss import plot_label_vs_loss

    rows = pd.DataFrame({"dataset": ["a", "b"], "psi": ["sum", "or"], "learner": ["xgb", "mlp"],
                         "pred_dmin": [0.01, -0.02], "effect": [0.02, -0.01],
                         "se": [0.005, 0.004], "stand_in": [False, True]})
    paths = plot_label_vs_loss(rows, tmp_path, formats=("png",))
    assert [p.name for p in paths] == ["la25_when_label_aggregation.png"]
    assert paths[0].stat().st_size > 0
    with pytest.raises(ValueError, match=r"\['se'\]"):
        plot_label_vs_loss(rows.drop(columns="se"), tmp_path)
