"""LA25 study functions against independent references (brute-force AUCs and frontiers)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from bipartite.dictatorship import dictatorship_tables
from bipartite.experiments.la25.figures import sweeps as la25f
from bipartite.experiments.la25.studies import sweeps as la25s
from bipartite.pareto import frontier_table

# ---------------------------------------------------------------------------------------------
# LA25 study functions, against independent references
# ---------------------------------------------------------------------------------------------


def brute_population_auc(problem, scores):
    """docs/theory.md §2 written out: Σ_ij p_i p_j η_ik (1 − η_jk) s(f_i, f_j) / (π_k (1 − π_k)),
    self-pairs included, O(n²)."""
    f = np.asarray(scores, dtype=float)
    S = (f[:, None] > f[None, :]) + 0.5 * (f[:, None] == f[None, :])
    p, E = problem.mass, problem.eta
    out = []
    for k in range(problem.K):
        num = np.sum(np.outer(p * E[:, k], p * (1 - E[:, k])) * S)
        pik = p @ E[:, k]
        out.append(num / (pik * (1 - pik)))
    return np.array(out)


def brute_frontier(problem):
    """All AUC vectors of all weak orders (enumeration), then the non-dominated ones by an O(m²)
    double loop, and the supported ones: argmax of (1 − λ) AUC_1 + λ AUC_2 on a fine λ grid."""
    from bipartite.population import enumerate_weak_orders

    V = np.array([brute_population_auc(problem, f) for f in enumerate_weak_orders(problem.n)])
    V = np.unique(np.round(V, 12), axis=0)
    keep = [not any(np.all(w >= v) and np.any(w > v) for w in V) for v in V]
    front = V[np.array(keep)]
    supported = set()
    for lam in np.linspace(1e-4, 1 - 1e-4, 4001):
        vals = (1 - lam) * front[:, 0] + lam * front[:, 1]
        best = np.flatnonzero(vals >= vals.max() - 1e-12)
        if len(best) == 1:  # a unique maximiser for an open set of directions: a hull vertex
            supported.add(int(best[0]))
    return front, front[sorted(supported)]


def staircase_area(points, ref=(0.0, 0.0)):
    pts = sorted(map(tuple, points), key=lambda q: -q[0])
    area, best_y = 0.0, ref[1]
    for i, (x, y) in enumerate(pts):
        nxt = pts[i + 1][0] if i + 1 < len(pts) else ref[0]
        best_y = max(best_y, y)
        area += (x - nxt) * (best_y - ref[1])
    return area


@pytest.mark.parametrize("seed", [0, 3])
def test_la25_frontier_matches_brute_force(seed):
    """Exact frontier, supported points and hypervolumes equal brute-force enumeration of all
    75 weak orders of n = 4 points (docs/theory.md §6)."""
    rows = la25s.la25_frontier(seed=seed, n=4)
    problem = la25s._valid_random_problem(4, 2, np.random.default_rng(seed))
    front, supported = brute_frontier(problem)
    got = np.array([[r["auc_1"], r["auc_2"]] for r in rows if r["kind"] == "exact"])
    got_sup = np.array([[r["auc_1"], r["auc_2"]] for r in rows if r["kind"] == "supported"])
    np.testing.assert_allclose(got[np.lexsort(got.T[::-1])], front[np.lexsort(front.T[::-1])],
                               atol=1e-9)
    np.testing.assert_allclose(got_sup[np.lexsort(got_sup.T[::-1])],
                               supported[np.lexsort(supported.T[::-1])], atol=1e-9)
    summary = rows[-1]
    assert summary["n_exact"] == len(front) and summary["n_supported"] == len(supported)
    assert summary["n_unsupported"] == len(front) - len(supported)
    assert summary["hv_exact"] == pytest.approx(staircase_area(front), abs=1e-12)
    assert summary["hv_supported"] == pytest.approx(staircase_area(supported), abs=1e-12)
    for r in rows:
        if r["kind"] in ("loss_aggregation", "label_aggregation"):
            assert r["pareto_optimal"]  # docs/theory.md §6: both Bayes scorers are Pareto-optimal
            assert np.abs(front - [r["auc_1"], r["auc_2"]]).max(axis=1).min() < 1e-9


def test_la25_skew_against_brute_force_auc_and_theory():
    """Population AUCs of the Bayes loss scorer by the O(n²) formula; the theory columns by
    hand: α_k = 1/(π_k(1 − π_k)), label 2 (π₂ = 0.05) dictates and wins the cross pairs."""
    from bipartite.data import synthetic_model

    rows = la25s.la25_skew(seed=4, pi2=0.05, n_test=150, learners=[])
    model = synthetic_model(priors=(0.5, 0.05), beta=8.0, rho=0.0)
    rng = np.random.default_rng(4)
    test = model.sample(150, seed=int(rng.integers(2**32)))
    problem = model.finite_problem(test.X)
    alpha = 1.0 / (model.pi * (1.0 - model.pi))
    loss = next(r for r in rows if r["objective"] == "loss_aggregation")
    np.testing.assert_allclose([loss["auc_1"], loss["auc_2"]],
                               brute_population_auc(problem, test.eta @ alpha), atol=1e-12)
    assert loss["alpha_share_2"] == pytest.approx(alpha[1] / alpha.sum(), rel=1e-12)
    assert loss["dictator"] == 1 and loss["win_12"] < 0.5
    label = next(r for r in rows if r["objective"] == "label_aggregation")
    np.testing.assert_allclose([label["auc_1"], label["auc_2"]],
                               brute_population_auc(problem, test.eta.sum(axis=1)), atol=1e-12)
    assert label["win_12"] > loss["win_12"]
    only1 = next(r for r in rows if r["objective"] == "label_1_only")
    assert only1["frac_1"] == 1.0 and only1["win_12"] > 0.5


def test_la25_correlation_endpoints():
    """c = 1: identical labels (equal AUCs, corr 1); c = −1: Y₂ = 1 − Y₁, so AUC₁ + AUC₂ = 1 for
    every scorer, corr −1, and the summed label is constant (AUC_MP NaN)."""
    same = la25s.la25_correlation(seed=1, c=1.0, n_points=150)
    for r in same:
        assert r["auc_1"] == pytest.approx(r["auc_2"], abs=1e-12)
        assert r["corr"] == pytest.approx(1.0, abs=1e-9)
    anti = la25s.la25_correlation(seed=1, c=-1.0, n_points=150)
    for r in anti:
        assert r["auc_1"] + r["auc_2"] == pytest.approx(1.0, abs=1e-12)
        assert r["corr"] == pytest.approx(-1.0, abs=1e-9) and math.isnan(r["mp_auc"])
    mid = la25s.la25_correlation(seed=1, c=0.0, n_points=400)
    assert abs(mid[0]["corr"]) < 0.15 and mid[0]["pi_2"] == pytest.approx(0.1, abs=0.03)


def test_la25_weights_monotone_in_the_weight():
    """Both families are optimal scalarisations (label aggregation with w is loss aggregation
    with a_k = w_k π_k(1 − π_k)), so raising label 2's weight never lowers AUC₂ nor raises AUC₁."""
    rows = pd.DataFrame(la25s.la25_weights(seed=2, n_points=300, n_ratios=9))
    for _, sub in rows.groupby("aggregation"):
        sub = sub.sort_values("ratio")
        assert (np.diff(sub["auc_2"]) >= -1e-12).all() and (np.diff(sub["auc_1"]) <= 1e-12).all()
    # Loss aggregation's score weight share of label 2 is r α₂/(α₁ + r α₂) = r/(r* + r) with
    # r* = α₁/α₂ = π₂(1 − π₂)/(π₁(1 − π₁)); label aggregation's is r/(1 + r).
    loss, label = rows[rows["aggregation"] == "loss"], rows[rows["aggregation"] == "label"]
    r, rstar = loss["ratio"], loss["balanced_ratio"]
    np.testing.assert_allclose(loss["score_weight_share_2"], r / (rstar + r), rtol=1e-9)
    np.testing.assert_allclose(label["score_weight_share_2"], label["ratio"] / (1 + label["ratio"]),
                               rtol=1e-9)
    assert rstar.iloc[0] == pytest.approx(0.1 * 0.9 / 0.25, rel=0.15)  # sample π ≈ (½, 0.1)


def test_la25_learning_curve_regret_is_bayes_gap():
    """regret = objective(Bayes) − objective(learner), with the Bayes loss scorer η @ α written
    out and the objective Σ_k AUC_k by the O(n²) formula."""
    from bipartite.data import synthetic_model

    row = la25s.la25_learning_curve(seed=3, n_train=300, learner="xgb", method="plugin",
                                      n_test=120, n_estimators=5)
    model = synthetic_model(priors=(0.5, 0.1), beta=8.0, rho=0.0)
    rng = np.random.default_rng(3)
    rng.integers(2**32)  # the training sample's seed
    test = model.sample(120, seed=int(rng.integers(2**32)))
    problem = model.finite_problem(test.X)
    pi = problem.pi
    bayes = brute_population_auc(problem, test.eta @ (1 / (pi * (1 - pi)))).sum()
    assert row["regret"] == pytest.approx(bayes - row["objective_value"], abs=1e-12)
    assert row["regret"] >= 0 and row["objective_value"] == pytest.approx(
        row["auc_1"] + row["auc_2"], abs=1e-12)


def test_la25_consistency_k1_consistent_k2_not():
    """docs/theory.md §9: for K = 1 the pairwise surrogate minimiser has zero regret; for K = 2 loss
    aggregation some random problems give positive regret; the population plug-in never does."""
    k1 = [la25s.la25_consistency(seed=s, n=6, K=1, plugin_samples=[]) for s in range(4)]
    assert all(r["regret"] < 1e-9 for rows in k1 for r in rows)
    k2 = [la25s.la25_consistency(seed=s, n=8, K=2, plugin_samples=[]) for s in range(12)]
    assert any(rows[0]["positive_regret"] for rows in k2)
    assert all(rows[1]["method"] == "plugin" and rows[1]["regret"] < 1e-12 for rows in k2)


def test_la25_real_banking_endpoints(shared_data):
    """On Banking: at t = 0 (t = 1) both sweeps score by η̂₁ (η̂₂) alone, so they coincide."""
    rows = pd.DataFrame(la25s.la25_real(seed=0, dataset="banking",
                                          path=str(shared_data / "bank_personal_loan.csv"),
                                          n_weights=3, n_estimators=5))
    for t in (0.0, 1.0):
        a = rows[(rows["kind"] == "loss_sweep") & (rows["t"] == t)][["auc_1", "auc_2"]]
        b = rows[(rows["kind"] == "label_sweep") & (rows["t"] == t)][["auc_1", "auc_2"]]
        np.testing.assert_allclose(a.to_numpy(), b.to_numpy(), atol=1e-12)
    assert set(rows["kind"]) == {"loss_sweep", "label_sweep", "direct"}
    assert rows["label_1"].iloc[0] == "personal_loan" and rows["pi_1"].iloc[0] == pytest.approx(
        480 / 5000, abs=0.01)


def test_dictatorship_and_frontier_tables():
    """The CLI tables against hand computations: α = a/(π(1 − π)), dense ranks of the scores."""
    from bipartite.population import FiniteProblem

    eta = np.array([[0.9, 0.1], [0.6, 0.7], [0.2, 0.8], [0.1, 0.3]])
    P = FiniteProblem.from_eta([0.1, 0.2, 0.3, 0.4], eta)
    labels, orders = dictatorship_tables(P, a=[1.0, 2.0])
    pi = np.array([0.1, 0.2, 0.3, 0.4]) @ eta
    alpha = np.array([1.0, 2.0]) / (pi * (1 - pi))
    np.testing.assert_allclose(labels["alpha"], alpha, rtol=1e-12)
    assert labels["dictator"].tolist() == [False, alpha[1] > alpha[0]]
    loss = eta @ alpha
    assert orders["rank_loss"].tolist() == list(1 + np.argsort(np.argsort(-loss)))
    table = frontier_table(P)
    front, supported = brute_frontier(P)
    pts = table[table["point"].str.startswith("frontier")][["AUC_1", "AUC_2"]].to_numpy()
    np.testing.assert_allclose(pts[np.lexsort(pts.T[::-1])], front[np.lexsort(front.T[::-1])],
                               atol=1e-9)
    assert table["supported"].sum() == len(supported)


def test_la25_frontier_time_limit_gives_a_timed_out_row():
    """A frontier that exceeds its time limit yields one summary row flagged timed_out (it does
    not block a worker); the table counts it apart from the solved problems."""
    rows = la25s.la25_frontier(seed=5, n=5, time_limit=1e-9)
    assert rows == [{"kind": "summary", "pi_1": rows[0]["pi_1"], "pi_2": rows[0]["pi_2"],
                     "timed_out": True}]
    solved = la25s.la25_frontier(seed=1, n=4)
    df = pd.DataFrame([dict(r, n=4, deterministic=False, task=t)
                       for t, rs in [("a", rows), ("b", solved)] for r in rs])
    table = la25f.frontier_table(df)
    assert table["timed_out"].tolist() == [1] and table["problems"].tolist() == [1]


def test_skew_table_adds_diff_min_and_gaps_to_bayes_without_changing_its_columns():
    """The skew table keeps its columns and numbers, then adds LA25 §7's Diff and Min AUC
    (bipartite.metrics.diff_auc / min_auc) and each learner's gap to the Bayes scorer of the same
    objective on the same test sample (docs/theory.md §12)."""
    frames = []
    for task, pi2 in [("t0", 0.05), ("t1", 0.05), ("t2", 0.5)]:
        rows = la25s.la25_skew(seed=int(task[1]), pi2=pi2, n_test=300, n_train=300,
                               learners=["xgb"], n_estimators=5)
        frames.append(pd.DataFrame(rows).assign(task=task, pi2=pi2))
    df = pd.concat(frames, ignore_index=True)
    table = la25f.skew_table(df)
    old = ["pi2", "scorer", "auc_1", "auc_2", "win_12", "alpha_share_2", "replicates"]
    assert list(table.columns[:len(old)]) == old
    assert list(table.columns[len(old):]) == ["diff", "min", "gap_auc_1", "gap_auc_2",
                                              "gap_win_12"]
    sub = df[(df["pi2"] == 0.05) & (df["scorer"] == "xgb")
             & (df["objective"] == "loss_aggregation")]
    bayes = df[(df["pi2"] == 0.05) & (df["scorer"] == "bayes")
               & (df["objective"] == "loss_aggregation")]
    row = table[(table["pi2"] == 0.05) & (table["scorer"] == "XGB, loss aggregation")].iloc[0]
    assert row["auc_1"] == pytest.approx(sub["auc_1"].mean())
    assert row["gap_auc_2"] == pytest.approx(sub["auc_2"].mean() - bayes["auc_2"].mean())
    assert row["diff"] == pytest.approx((sub["auc_1"] - sub["auc_2"]).abs().mean())
    assert row["min"] == pytest.approx(np.minimum(sub["auc_1"], sub["auc_2"]).mean())
    assert table.loc[table["scorer"].str.startswith("Bayes"), "gap_auc_1"].isna().all()


def test_old_module_paths_warn_and_forward():
    """Issue 21 moved LA25 into studies/, figures/ and run; the old paths warn for a release and
    give the same objects."""
    import importlib
    import sys

    from bipartite.data import letor
    from bipartite.experiments.la25 import run
    from bipartite.experiments.la25.figures import maxmin as mmf
    from bipartite.experiments.la25.studies import maxmin as mms
    from bipartite.experiments.la25.studies import section7

    sys.modules.pop("bipartite.experiments.la25.maxmin", None)
    with pytest.warns(FutureWarning, match="la25.maxmin is deprecated"):
        old = importlib.import_module("bipartite.experiments.la25.maxmin")
    with pytest.warns(FutureWarning, match="use bipartite.experiments.la25.studies.maxmin"):
        assert old.max_min_bracket is mms.max_min_bracket
    with pytest.warns(FutureWarning, match="use bipartite.experiments.la25.figures.maxmin"):
        assert old.frequency_table is mmf.frequency_table
    with pytest.warns(FutureWarning):
        from bipartite.experiments.la25.section7 import letor_layout, regime_model
    assert letor_layout is letor.letor_layout and regime_model is section7.regime_model
    with pytest.warns(FutureWarning, match="la25.la25_configs is deprecated; "
                      "use bipartite.experiments.la25.run.configs"):
        from bipartite.experiments.la25 import la25_configs
    assert la25_configs is run.configs
    with pytest.warns(FutureWarning, match="studies.sweeps.la25_skew"):
        assert la25s.__name__ and importlib.import_module(
            "bipartite.experiments.la25.studies").la25_skew is la25s.la25_skew
    with pytest.raises(AttributeError):
        importlib.import_module("bipartite.experiments.la25.studies").no_such_name  # noqa: B018
