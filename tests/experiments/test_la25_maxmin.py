"""Balanced ranking in the LA25 §7 protocol (docs/theory.md §13; issue 13): the max-min rows of
the §7 studies, the exact bracket of the max-min value on synthetic test populations, the
unsupported frequency, the pinned frontier figure, and the claims of
papers/la25/claims_maxmin.toml."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bipartite.experiments.la25.figures import maxmin as mm
from bipartite.experiments.la25.run import SECTION7_STUDIES, section7_configs
from bipartite.experiments.la25.studies import maxmin as mms
from bipartite.experiments.la25.studies.section7 import (
    MAX_MIN_OBJECTIVES,
    la25_section7_data,
    la25_section7_synthetic,
    make_learner,
)
from bipartite.pareto import max_min_point, max_min_supported
from bipartite.population import FiniteProblem
from bipartite.studies import read_results, run_study

# ---------------------------------------------------------------------------------------------
# The exact bracket of the max-min value
# ---------------------------------------------------------------------------------------------


def test_bracket_holds_the_exact_max_min_point_and_the_supported_optimum():
    """lower ≤ max_min_supported ≤ max_min_point ≤ upper on random problems (exact DP), and the
    pinned problem's upper bound is its hull value 0.5770 (docs/theory.md §13.3)."""
    t = np.linspace(0.0, 1.0, 21)
    for seed in range(25):
        P = FiniteProblem.random(7, 2, seed=seed)
        b = mms.max_min_bracket(P, t)
        sup, top = max_min_supported(P).value, max_min_point(P).value
        assert b["lower"] <= sup + 1e-12 <= top + 2e-12 <= b["upper"] + 3e-12
        assert b["lower"] == pytest.approx(float(np.min(P.auc(
            mm_scores(P, b["a"])))), abs=1e-12)
    b = mms.max_min_bracket(FiniteProblem.random(6, 2, seed=36), t)
    assert b["lower"] == pytest.approx(0.5424, abs=1e-4)
    assert b["upper"] == pytest.approx(0.5770, abs=1e-4)


def mm_scores(P, a):
    from bipartite.bayes import loss_aggregation

    return loss_aggregation(P.eta, P.pi, a)


def test_synthetic_rows_with_max_min():
    """max_min=True adds the best weighting (Bayes) and both max-min routes per learner, leaves
    the other rows unchanged, and brackets the max-min value of the test population tightly;
    no scorer's Min AUC exceeds it."""
    kw = dict(seed=3, regime="negative", pi2=0.1, n_test=1500, n_train=600, learners=["xgb"],
              n_sweep=11, n_estimators=10)
    base = pd.DataFrame(la25_section7_synthetic(**kw))
    rows = pd.DataFrame(la25_section7_synthetic(**kw, max_min=True))
    key = ["learner", "objective", "t"]
    merged = base.merge(rows, on=key, suffixes=("", "_mm"), how="left")
    assert len(merged) == len(base)
    np.testing.assert_array_equal(merged[["auc_1", "auc_2"]].to_numpy(),
                                  merged[["auc_1_mm", "auc_2_mm"]].to_numpy())
    key = ["learner", "objective"]
    got = set(map(tuple, rows[key].to_numpy()))
    assert {("xgb", o) for o in MAX_MIN_OBJECTIVES} <= got
    assert ("bayes", "max_min_supported") in got
    scored = rows[rows["gap_lo"].notna()]
    lo, hi = scored["t_star_lo"].iloc[0], scored["t_star_hi"].iloc[0]
    assert 0 <= hi - lo < 1e-5
    assert (scored["gap_hi"] >= -1e-12).all()
    best = rows[rows["objective"] == "max_min_supported"].iloc[0]
    assert best["min"] == pytest.approx(lo, abs=1e-12)
    # the exact max-min point is at least as balanced as both Bayes points of LA25
    bayes = rows[rows["learner"] == "bayes"].set_index("objective")
    assert lo >= bayes.loc[["loss_aggregation", "label_aggregation"], "min"].max() - 1e-12


def test_make_learner_max_min_rows():
    est = make_learner("mlp", "max_min_plugin", 0)
    assert est.objective == "max_min" and est.method == "plugin"
    assert est.validation_fraction == 0.25
    est = make_learner("xgb", "max_min", 0)
    assert est.method == "pairwise" and est.validation_fraction == 0.25
    with pytest.raises(ValueError, match="'objective' parameter"):
        make_learner("xgb", "max_max", 0)


def test_bank_marketing_max_min_rows(shared_data):
    rows = la25_section7_data(seed=0, dataset="bank_marketing",
                              path=str(shared_data / "bank_marketing_full.csv"), split=0,
                              learner="xgb", n_train=1500, n_estimators=20, max_min=True)
    df = pd.DataFrame(rows)
    assert df["objective"].tolist() == ["label_1", "label_2", "label_aggregation",
                                        "loss_aggregation", "max_min", "max_min_plugin"]
    plain = pd.DataFrame(la25_section7_data(
        seed=0, dataset="bank_marketing", path=str(shared_data / "bank_marketing_full.csv"),
        split=0, learner="xgb", n_train=1500, n_estimators=20))
    np.testing.assert_array_equal(df["min"].to_numpy()[:4], plain["min"].to_numpy())
    table = mm.three_objective_table(df.assign(dataset="bank_marketing", learner="xgb",
                                               split=0))
    assert set(table["objective"]) == set(mm._THREE)
    assert np.allclose(table["sum"], table["auc_1"] + table["auc_2"])


# ---------------------------------------------------------------------------------------------
# The runner: a smoke-size run of the §7 studies with the max-min rows
# ---------------------------------------------------------------------------------------------


def test_smoke_run_on_the_runner(tmp_path):
    """The smoke configs of the synthetic sweep and the frequency study run through the runner
    and give the summary's max-min section."""
    configs = section7_configs("smoke", {"data": tmp_path})
    out = tmp_path / "results"
    for name in ("section7_synthetic", "maxmin_frequency"):
        cfg = dict(configs[name])
        if name == "section7_synthetic":
            cfg["grid"] = {"regime": ["independent"], "pi2": [0.05]}
        cfg["execution"] = {"jobs": 1}
        result = run_study(cfg, out / "studies" / name, progress=False)
        assert result.ok
    df = read_results(out / "studies" / "section7_synthetic")
    assert {"max_min", "max_min_plugin"} <= set(df["objective"])
    freq = mm.frequency_table(read_results(out / "studies" / "maxmin_frequency"))
    assert freq["problems"].sum() == 5
    lines = "\n".join(mm.maxmin_summary_lines(out, tmp_path, SECTION7_STUDIES))
    assert "gap 0.0289" in lines and "Synthetic regimes: learners, three objectives" in lines
    assert (tmp_path / "la25_maxmin_synthetic.csv").is_file()


# ---------------------------------------------------------------------------------------------
# The frontier figure of the pinned problem
# ---------------------------------------------------------------------------------------------


def test_pinned_frontier_figure(tmp_path):
    """Every marked point lies on the exact frontier (none dominated by an achievable order);
    the max-min point is not among the weightings' points and has the highest Min AUC; the
    figure is saved as PNG and PDF and marks the four points where they are."""
    pts = mm.pinned_points()
    ex = pts["exact"]
    for key in ("loss_aggregation", "label_aggregation", "max_min_supported", "max_min"):
        x = np.asarray(pts[key])
        assert not np.any(np.all(ex >= x - 1e-12, axis=1) & np.any(ex > x + 1e-12, axis=1))
    assert not np.any(np.all(np.abs(pts["supported"] - pts["max_min"]) < 1e-12, axis=1))
    assert pts["t_star"] == pytest.approx(0.5714, abs=1e-4)
    assert pts["gap"] == pytest.approx(0.0289, abs=1e-4)
    mins = {k: float(np.min(pts[k])) for k in ("loss_aggregation", "label_aggregation",
                                                "max_min_supported")}
    assert max(mins.values()) == pytest.approx(pts["t_sup"]) and pts["t_star"] > pts["t_sup"]
    fig = mm.plot_maxmin_frontier(pts)
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any(lab.startswith("max-min point (all weak orders): (0.5714, 0.5727)")
               for lab in labels)
    offsets = np.vstack([c.get_offsets() for c in ax.collections])
    for key in ("loss_aggregation", "label_aggregation", "max_min_supported", "max_min"):
        assert np.any(np.all(np.abs(offsets - pts[key]) < 1e-9, axis=1))
    paths = mm.maxmin_figures(tmp_path)
    assert sorted(p.name for p in paths) == ["la25_maxmin_frontier.pdf",
                                             "la25_maxmin_frontier.png"]
    assert all(p.stat().st_size > 0 for p in paths)


# ---------------------------------------------------------------------------------------------
# Claims (papers/la25/claims_maxmin.toml)
# ---------------------------------------------------------------------------------------------


def test_max_min_point_unsupported_frequency():
    """Claim la25-maxmin-unsupported: on FiniteProblem.random(6, 2, seed) for seeds 0–99 the
    max-min point is unsupported (no loss-aggregation weighting, ties included, reaches it) in
    49 problems, mean gap 0.0034, max 0.039; the pinned problem seed 36 is one, gap 0.0289."""
    df = pd.DataFrame(mms.la25_maxmin_frequency(seed=0, n=6, first_seed=0, n_problems=100))
    df["n"], df["K"] = 6, 2
    row = mm.frequency_table(df).iloc[0]
    assert row["unsupported"] == 49
    assert row["mean_gap"] == pytest.approx(0.0034, abs=5e-5)
    assert row["max_gap"] == pytest.approx(0.039, abs=5e-4)
    pinned = df.set_index("problem_seed").loc[36]
    assert pinned["unsupported"] and pinned["gap"] == pytest.approx(0.0289, abs=1e-4)


def test_balancing_costs_total_auc_exactly():
    """Claim la25-maxmin-cost (exact part): loss aggregation with a = 1 maximises ΣAUC over all
    weak orders, so the max-min point's ΣAUC is never higher; on the pinned problem the cost is
    0.0505 and on random problems (n = 6) it is positive whenever the two points differ."""
    pts = mm.pinned_points()
    cost = pts["loss_aggregation"].sum() - pts["max_min"].sum()
    assert cost == pytest.approx(0.0505, abs=1e-4)
    for seed in range(40):
        P = FiniteProblem.random(6, 2, seed=seed)
        p = mm.pinned_points(P)
        assert p["loss_aggregation"].sum() >= p["max_min"].sum() - 1e-12
        assert p["loss_aggregation"].sum() >= p["max_min_supported"].sum() - 1e-12


@pytest.mark.slow
def test_max_min_learner_beats_both_objectives_on_bank_marketing(shared_data):
    """Claim la25-maxmin-learners-min (the part that holds): on UCI Bank Marketing (split 0, the
    full-size §7 configuration: 10 000 training rows, linear scorer) the plug-in max-min learner
    has a higher Min AUC than both LA25 objectives, by more than 0.01, and balances the two
    labels far better (Diff AUC)."""
    rows = la25_section7_data(seed=0, dataset="bank_marketing",
                              path=str(shared_data / "bank_marketing_full.csv"), split=0,
                              learner="linear", n_train=10000, max_min=True)
    r = {x["objective"]: x for x in rows}
    best = max(r["loss_aggregation"]["min"], r["label_aggregation"]["min"])
    assert r["max_min_plugin"]["min"] > best + 0.01
    assert r["max_min_plugin"]["diff"] < min(r["loss_aggregation"]["diff"],
                                             r["label_aggregation"]["diff"])


def test_max_min_learners_fall_short_where_the_balanced_label_is_harder():
    """Claim la25-maxmin-learners-min (where it fails): with the balanced label the harder one
    (β₁ = 2) at π₂ = 0.02, neither max-min learner (XGBoost, 4 000 training rows) reaches loss
    aggregation's Min AUC, although the exact max-min point is far above both LA25 Bayes
    points: the rare label's 80 positives do not identify the balancing weight."""
    rows = pd.DataFrame(la25_section7_synthetic(
        seed=0, regime="balanced_harder", pi2=0.02, n_test=4000, n_train=4000,
        learners=["xgb"], n_sweep=21, max_min=True))
    xgb = rows[rows["learner"] == "xgb"].set_index("objective")["min"]
    bayes = rows[rows["learner"] == "bayes"].set_index("objective")["min"]
    assert bayes["max_min_supported"] > bayes[["loss_aggregation", "label_aggregation"]].max() \
        + 0.04
    assert xgb[["max_min", "max_min_plugin"]].max() < xgb["loss_aggregation"]
