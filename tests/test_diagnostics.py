"""Tests of bipartite.diagnostics (docs/theory.md §2, §4, §7).

Fast kernels against slow obvious references (DeLong's placement values by an O(n²) double loop,
per-query AUCs and gAUCs against bipartite.metrics, reweighted bootstrap AUCs against weighted
AUCs), DeLong's variance against a bootstrap, the intervals' coverage and the paired tests' level
by simulation, strict JSON, and names kept everywhere.

Simulation sizes and tolerances: with R replicates a rate near p has binomial s.e.
sqrt(p(1−p)/R): 0.0034 for a 95% coverage or a 5% level at R = 4000 (the DeLong tests: windows
[0.93, 0.97] and [0.039, 0.061], about ±3 s.e. around the nominal value); 0.018 at R = 150 (the
default-suite version of the query bootstrap: windows of ±3.3 s.e.); 0.0069 at R = 1000 (the slow
query-bootstrap test).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from bipartite.diagnostics import (
    delong_auc_variance,
    delong_paired_test,
    diagnose,
    load_scores,
)
from bipartite.dictatorship import cross_pair_win_rate
from bipartite.metrics import auc, group_auc, grouped_stats, multilabel_auc


# ---------------------------------------------------------------------------------------------
# slow references
# ---------------------------------------------------------------------------------------------
def _psi(a, b):
    return 1.0 if a > b else 0.5 if a == b else 0.0


def _slow_placements(y, s, w):
    """Weighted placement values by a double loop: V10_i (positive i: weighted share of negatives
    scored below, ties ½) and V01_j (negative j: weighted share of positives above)."""
    P = [i for i in range(len(y)) if y[i] == 1 and w[i] > 0]
    N = [j for j in range(len(y)) if y[j] == 0 and w[j] > 0]
    WP, WN = sum(w[i] for i in P), sum(w[j] for j in N)
    V10 = {i: sum(w[j] * _psi(s[i], s[j]) for j in N) / WN for i in P}
    V01 = {j: sum(w[i] * _psi(s[i], s[j]) for i in P) / WP for j in N}
    theta = sum(w[i] * V10[i] for i in P) / WP
    return P, N, WP, WN, V10, V01, theta


def _slow_delong(y, s, w=None):
    """DeLong's variance S10/m + S01/n; with weights its sandwich form
    m/(m−1) Σ w_i²(V10_i − θ)²/WP² + n/(n−1) Σ w_j²(V01_j − θ)²/WN²."""
    w = np.ones(len(y)) if w is None else w
    P, N, WP, WN, V10, V01, theta = _slow_placements(y, s, w)
    m, n = len(P), len(N)
    var = (m / (m - 1) * sum(w[i] ** 2 * (V10[i] - theta) ** 2 for i in P) / WP**2
           + n / (n - 1) * sum(w[j] ** 2 * (V01[j] - theta) ** 2 for j in N) / WN**2)
    return theta, var


def _slow_delong_cov(y, sa, sb):
    """Unweighted DeLong covariance of two AUCs on the same rows."""
    w = np.ones(len(y))
    P, N, _, _, V10a, V01a, ta = _slow_placements(y, sa, w)
    _, _, _, _, V10b, V01b, tb = _slow_placements(y, sb, w)
    m, n = len(P), len(N)
    s10 = sum((V10a[i] - ta) * (V10b[i] - tb) for i in P) / (m - 1)
    s01 = sum((V01a[j] - ta) * (V01b[j] - tb) for j in N) / (n - 1)
    return s10 / m + s01 / n


def _binormal(rng, m, n, mu=1.0):
    return np.r_[np.ones(m), np.zeros(n)], np.r_[rng.normal(mu, 1, m), rng.normal(0, 1, n)]


# ---------------------------------------------------------------------------------------------
# DeLong
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_delong_variance_matches_placement_reference(seed):
    """O(n log n) DeLong == the O(n²) placement-value loop, with ties and with weights; the
    unweighted form is the textbook S10/m + S01/n."""
    rng = np.random.default_rng(seed)
    y = (rng.random(70) < 0.35).astype(float)
    s = np.round(rng.normal(size=70) + y, 1)  # ties on purpose
    theta, var = delong_auc_variance(y, s)
    ref_theta, ref_var = _slow_delong(y, s)
    assert theta == pytest.approx(ref_theta, abs=1e-12) and theta == pytest.approx(auc(y, s))
    assert var == pytest.approx(ref_var, rel=1e-10)
    P, N, _, _, V10, V01, t = _slow_placements(y, s, np.ones(70))
    textbook = np.var(list(V10.values()), ddof=1) / len(P) + np.var(list(V01.values()),
                                                                    ddof=1) / len(N)
    assert var == pytest.approx(textbook, rel=1e-10)
    w = rng.uniform(0.2, 3.0, size=70)
    w[:5] = 0.0  # zero weight == removal in the AUC
    theta_w, var_w = delong_auc_variance(y, s, sample_weight=w)
    ref_theta_w, ref_var_w = _slow_delong(y, s, w)
    assert theta_w == pytest.approx(ref_theta_w, abs=1e-12)
    assert theta_w == pytest.approx(auc(y, s, sample_weight=w), abs=1e-12)
    assert var_w == pytest.approx(ref_var_w, rel=1e-10)
    # unit weights == no weights
    assert delong_auc_variance(y, s, sample_weight=np.ones(70)) == pytest.approx((theta, var))


def test_delong_paired_matches_reference():
    rng = np.random.default_rng(3)
    y = (rng.random(60) < 0.4).astype(float)
    sa = np.round(y + rng.normal(size=60), 1)
    sb = np.round(0.5 * y + rng.normal(size=60), 1)
    r = delong_paired_test(y, sa, sb)
    va, vb = _slow_delong(y, sa)[1], _slow_delong(y, sb)[1]
    want = va + vb - 2 * _slow_delong_cov(y, sa, sb)
    assert r["se"] == pytest.approx(math.sqrt(want), rel=1e-10)
    assert r["diff"] == pytest.approx(auc(y, sa) - auc(y, sb), abs=1e-12)
    assert r["p_value"] == pytest.approx(2 * norm.sf(abs(r["diff"]) / r["se"]))
    assert delong_paired_test(y, sa, sa)["p_value"] == 1.0


def test_delong_variance_agrees_with_a_bootstrap():
    """On simulated binormal data (300 + 500 rows), DeLong's variance is within 15% of the
    variance of 2000 row-bootstrap AUCs (the bootstrap variance's own relative s.e. is
    sqrt(2/2000) ≈ 3%)."""
    rng = np.random.default_rng(4)
    y, s = _binormal(rng, 300, 500)
    _, var = delong_auc_variance(y, s)
    boots = []
    for _ in range(2000):
        i = rng.integers(0, len(y), len(y))
        boots.append(auc(y[i], s[i]))
    assert np.var(boots, ddof=1) / var == pytest.approx(1.0, abs=0.15)


def test_delong_interval_coverage():
    """The 95% DeLong interval covers the true AUC Φ(μ/√2) of binormal data (μ = 1, 100
    positives, 100 negatives) in 93-97% of 4000 replicates (measured 95.05%)."""
    rng = np.random.default_rng(5)
    true = norm.cdf(1 / math.sqrt(2))
    hits = 0
    for _ in range(4000):
        y, s = _binormal(rng, 100, 100)
        a, var = delong_auc_variance(y, s)
        hits += abs(a - true) <= 1.959964 * math.sqrt(var)
    assert 0.93 <= hits / 4000 <= 0.97, hits / 4000


def test_delong_paired_test_level_under_the_null():
    """Two scorers with equal AUC (same signal, correlated noise ρ = ½): DeLong's paired test
    rejects at 5% in 3.9-6.1% of 4000 replicates (measured 5.4%)."""
    rng = np.random.default_rng(6)
    rej = 0
    for _ in range(4000):
        y = (rng.random(200) < 0.3).astype(float)
        e = rng.multivariate_normal([0, 0], [[1, 0.5], [0.5, 1]], size=200)
        rej += delong_paired_test(y, y + e[:, 0], y + e[:, 1])["p_value"] < 0.05
    assert 0.039 <= rej / 4000 <= 0.061, rej / 4000


# ---------------------------------------------------------------------------------------------
# the query bootstrap
# ---------------------------------------------------------------------------------------------
def _clustered(rng, G=40, m=20, mu=1.0, tau=0.7):
    """Queries with a random effect u_q ~ N(0, τ²) on the scores of two equally good scorers;
    cross-query AUC Φ(μ/√(2(1+τ²))) (same-query pairs, 1/G of all, differ a little)."""
    q = np.repeat(np.arange(G), m)
    u = rng.normal(0, tau, G)[q]
    y = (rng.random(G * m) < 0.3).astype(float)
    return {"a": mu * y + u + rng.normal(size=G * m), "b": mu * y + u + rng.normal(size=G * m),
            "y": y, "q": q}


def _bootstrap_rates(R, n_boot, seed):
    rng = np.random.default_rng(seed)
    true = norm.cdf(1 / math.sqrt(2 * (1 + 0.7**2)))
    hits = rej = 0
    for r in range(R):
        d = diagnose(_clustered(rng), scores=["a", "b"], labels="y", qid="q", n_boot=n_boot,
                     seed=r)
        row = d.tables["auc"].iloc[0]
        hits += row.auc_ci_low <= true <= row.auc_ci_high
        rej += d.tables["paired"].query("metric == 'auc'").p_value.iloc[0] < 0.05
    return hits / R, rej / R


def test_query_bootstrap_coverage_and_level_small():
    """Default-suite version (150 replicates, B = 200): coverage of the 95% query-bootstrap
    interval in [0.89, 1] and the paired test's level in [0, 0.11] (±3.3 binomial s.e. of 0.018
    around the nominal values; measured 0.967 and 0.073)."""
    cover, level = _bootstrap_rates(150, 200, seed=7)
    assert 0.89 <= cover and level <= 0.11, (cover, level)


@pytest.mark.slow
def test_query_bootstrap_coverage_and_level():
    """1000 replicates of 40 queries × 20 rows, B = 300: coverage in [0.925, 0.97] and level in
    [0.03, 0.075] (measured 0.940 and 0.065; with 40 clusters the bootstrap runs a little narrow
    even with the G/(G−1) correction, hence the bounds 0.925 and 0.075)."""
    cover, level = _bootstrap_rates(1000, 300, seed=8)
    assert 0.925 <= cover <= 0.97 and 0.03 <= level <= 0.075, (cover, level)


def test_kernels_match_the_metrics():
    """Per-query AUCs == group_auc on each query; the gAUC of the report == group_auc."""
    rng = np.random.default_rng(9)
    n, G = 300, 12
    g = rng.integers(0, G, n)
    y = (rng.random(n) < 0.4).astype(float)
    s = np.round(y + rng.normal(size=n), 1)
    w = rng.uniform(0.5, 2.0, n)
    st = grouped_stats(y, s, g, sample_weight=w)  # the engine the report is built on
    a_q = st.auc[:, 0]
    for q in range(G):
        rows = g == q
        if 0 < y[rows].sum() < rows.sum():
            assert a_q[q] == pytest.approx(auc(y[rows], s[rows], sample_weight=w[rows]))
        else:
            assert np.isnan(a_q[q])
    d = diagnose({"s": s, "y": y, "q": g, "w": w}, scores="s", labels="y", qid="q", weight="w",
                 n_boot=50)
    assert d.tables["auc"].gauc[0] == pytest.approx(group_auc(y, s, g, sample_weight=w))


# ---------------------------------------------------------------------------------------------
# the report
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def two_scorers():
    rng = np.random.default_rng(10)
    n = 600
    q = np.repeat(np.arange(30), 20)
    Y = np.column_stack([rng.random(n) < 0.4, rng.random(n) < 0.08]).astype(float)
    Y[q == 3, 1] = 0  # a query without positives for the rare label
    return pd.DataFrame({
        "model A (v2)": Y @ [1.0, 2.0] + rng.normal(size=n),
        "bm25/title": Y[:, 0] + rng.normal(size=n),
        "relevant ≥ 1": Y[:, 0], "click@7d": Y[:, 1], "query": q,
    })


def test_report_values_equal_the_metrics(two_scorers):
    df = two_scorers
    labels = ["relevant ≥ 1", "click@7d"]
    d = diagnose(df, scores=["model A (v2)", "bm25/title"], labels=labels, interval="wald")
    Y, s = df[labels].to_numpy(), df["model A (v2)"].to_numpy()
    t = d.tables["auc"].query("scorer == 'model A (v2)'")
    np.testing.assert_allclose(t.auc, multilabel_auc(Y, s))
    a, var = delong_auc_variance(Y[:, 0], s)
    assert t.auc_se.iloc[0] == pytest.approx(math.sqrt(var))
    assert t.auc_ci_low.iloc[0] == pytest.approx(a - norm.ppf(0.975) * math.sqrt(var))
    w = d.tables["win_rates"].query("scorer == 'model A (v2)'").iloc[0]
    assert w.win_rate == pytest.approx(cross_pair_win_rate(Y, s, 0, 1))
    assert (w.label_k, w.label_j) == tuple(labels)
    p = d.tables["paired"].iloc[0]
    ref = delong_paired_test(Y[:, 0], s, df["bm25/title"])
    assert (p["diff"], p.se, p.p_value) == pytest.approx((ref["diff"], ref["se"],
                                                         ref["p_value"]))
    dq = diagnose(df, scores="model A (v2)", labels=labels, qid="query", n_boot=100)
    np.testing.assert_allclose(dq.tables["auc"].gauc,
                               [group_auc(Y[:, k], s, df["query"]) for k in range(2)])
    pq = dq.tables["per_query"]
    assert len(pq) == 30 * 2 and pq.query("qid == 3 and label == 'click@7d'").auc.isna().all()


def test_json_is_strict_and_every_null_has_a_reason(two_scorers):
    df = two_scorers.assign(constant=0.0)  # a label with a single class: many undefined values
    d = diagnose(df, scores=["model A (v2)", "bm25/title"],
                 labels=["relevant ≥ 1", "click@7d", "constant"], qid="query", n_boot=50)

    def refuse(token):
        raise ValueError(f"non-standard JSON constant {token}")

    doc = json.loads(d.to_json(), parse_constant=refuse)
    nulls = 0
    for name in d.tables:
        for rec in doc[name]:
            if any(v is None for k, v in rec.items() if k != "note"):
                nulls += 1
                assert rec["note"], (name, rec)
    assert nulls > 10
    assert doc["labels"][2]["alpha"] is None and "single class" in doc["labels"][2]["note"]


def test_names_are_kept_everywhere(two_scorers):
    scores, labels = ["model A (v2)", "bm25/title"], ["relevant ≥ 1", "click@7d"]
    d = diagnose(two_scorers, scores=scores, labels=labels, qid="query", n_boot=50)
    md, js = d.to_markdown(), d.to_json()
    for name in scores + labels:
        assert f"`{name}`" in md and json.dumps(name, ensure_ascii=False) in js
    assert list(d.tables["labels"].label) == labels
    assert set(d.tables["auc"].scorer) == set(scores)
    assert set(d.tables["per_query"].label) == set(labels)
    assert d.meta["scores"] == scores and d.meta["labels"] == labels


def test_labels_table_and_dictator():
    """Priors (0.5, 0.05) and a = 1: α = (4, 21.05), the rare label dictates (docs/theory.md
    §7.2); equal skew (0.3, 0.7): no dictator."""
    rng = np.random.default_rng(11)
    n = 2000
    y1 = np.zeros(n)
    y1[: n // 2] = 1
    y2 = np.zeros(n)
    y2[: n // 20] = 1
    data = {"s": rng.normal(size=n), "common": y1, "rare": y2}
    d = diagnose(data, scores="s", labels=["common", "rare"], n_boot=0)
    lab = d.tables["labels"]
    np.testing.assert_allclose(lab.alpha, [4.0, 1 / (0.05 * 0.95)])
    assert lab.dictator.tolist() == [False, True] and d.meta["dictator"] == "rare"
    assert "would make `rare` the dictator" in d.to_markdown()
    y3 = np.zeros(n)
    y3[: int(0.7 * n)] = 1
    y4 = np.zeros(n)
    y4[: int(0.3 * n)] = 1
    d = diagnose({"s": data["s"], "a": y3, "b": y4}, scores="s", labels=["a", "b"], n_boot=0)
    assert d.meta["dictator"] is None and not d.tables["labels"].dictator.any()
    # n_boot=0 (the default since 0.6): Min/Diff AUC get delta-method intervals (were null)
    summ = d.tables["summary"].iloc[0]
    assert "delta method" in summ.note and summ.min_ci_low < summ.min_auc < summ.min_ci_high


def test_seed_weights_and_bootstrap_options(two_scorers):
    df = two_scorers
    kw = dict(scores="model A (v2)", labels=["relevant ≥ 1", "click@7d"], qid="query",
              n_boot=80)
    a, b = diagnose(df, seed=3, **kw), diagnose(df, seed=3, **kw)
    pd.testing.assert_frame_equal(a.tables["auc"], b.tables["auc"])
    c = diagnose(df, seed=4, **kw)
    assert not np.allclose(a.tables["auc"].auc_ci_low, c.tables["auc"].auc_ci_low)
    # integer weights == repeated rows for every point estimate
    reps = np.random.default_rng(0).integers(1, 4, len(df))
    wd = diagnose(df.assign(w=reps), weight="w", **kw)
    rd = diagnose(df.loc[df.index.repeat(reps)].reset_index(drop=True), **kw)
    for name, cols in (("auc", ["auc", "gauc"]), ("win_rates", ["win_rate", "near_tie_rate"])):
        np.testing.assert_allclose(wd.tables[name][cols], rd.tables[name][cols], rtol=1e-12)
    np.testing.assert_allclose(wd.tables["labels"].prior, rd.tables["labels"].prior)


def test_inputs_files_and_errors(two_scorers, tmp_path):
    df = two_scorers
    kw = dict(scores=["model A (v2)"], labels=["relevant ≥ 1"], qid="query", n_boot=20)
    ref = diagnose(df, **kw).tables["auc"]
    for suffix in (".csv", ".parquet", ".csv.gz"):
        path = tmp_path / f"scores{suffix}"
        df.to_parquet(path) if suffix == ".parquet" else df.to_csv(path, index=False)
        pd.testing.assert_frame_equal(diagnose(path, **kw).tables["auc"], ref)
        assert list(load_scores(path).columns) == list(df.columns)
    with pytest.raises(FileNotFoundError, match="score file '.*nothere.csv' does not exist"):
        load_scores(tmp_path / "nothere.csv")
    with pytest.raises(ValueError, match=r"score file '.*scores.csv' has no column 'clicks'"):
        diagnose(tmp_path / "scores.csv", scores="model A (v2)", labels="clicks")
    (tmp_path / "scores.xlsx").write_text("x")
    with pytest.raises(ValueError, match="must end in one of"):
        load_scores(tmp_path / "scores.xlsx")
    bad = df.assign(lab=np.where(np.arange(len(df)) == 7, 2.0, 0.0))
    with pytest.raises(ValueError, match="label column 'lab' of the data must hold only 0 and 1, "
                                         "got 2 at row 7"):
        diagnose(bad, scores="model A (v2)", labels="lab")
    nan = df.assign(s=np.where(np.arange(len(df)) == 4, np.nan, 1.0))
    with pytest.raises(ValueError, match="score column 's' .* got nan at row 4"):
        diagnose(nan, scores="s", labels="relevant ≥ 1")
    with pytest.raises(ValueError, match="given both as 'scores' and as 'labels'"):
        diagnose(df, scores="relevant ≥ 1", labels="relevant ≥ 1")
    with pytest.raises(ValueError, match="'data' parameter has no column 'nope'"):
        diagnose(df, scores="nope", labels="relevant ≥ 1")
    with pytest.raises(ValueError, match="'n_boot' parameter"):
        diagnose(df, n_boot=-1, **{k: v for k, v in kw.items() if k != "n_boot"})


def test_figure_and_save(two_scorers, tmp_path):
    d = diagnose(two_scorers, scores=["model A (v2)", "bm25/title"],
                 labels=["relevant ≥ 1", "click@7d"], qid="query", n_boot=30)
    fig = d.figure()
    assert len(fig.axes) == 3
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["relevant ≥ 1", "click@7d"]
    pooled = diagnose(two_scorers, scores="bm25/title", labels=["relevant ≥ 1", "click@7d"],
                      n_boot=0)
    assert len(pooled.figure().axes) == 2
    paths = d.save(tmp_path / "out")
    names = {p.name for p in paths}
    assert {"report.md", "report.json", "auc.csv", "per_query.csv", "report.png"} <= names
    assert json.loads((tmp_path / "out" / "report.json").read_text())["meta"]["qid"] == "query"
