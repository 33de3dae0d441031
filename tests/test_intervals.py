"""The report's interval methods (issue 26, item 3; docs/coverage.md): the pure functions of
``bipartite.diagnostics._intervals`` against ``scipy.stats.bootstrap`` on the same replicates
and jackknife, and against hand-computed cases; the jackknife ``diagnose`` feeds BCa against a
brute-force leave-one-query-out (and leave-one-row-out) recomputation; ``diagnose(interval=)``,
``bipartite report --interval`` and the few-queries warning."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.metrics import roc_auc_score

from bipartite.cli import main
from bipartite.diagnostics import _diagnose as D
from bipartite.diagnostics import _intervals as iv
from bipartite.diagnostics import diagnose
from bipartite.dictatorship import cross_pair_win_rate
from bipartite.metrics import group_auc


# --------------------------------------------------------------------------------------------
# the pure functions
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("stat", ["mean", "std"])
@pytest.mark.parametrize("level", [0.9, 0.95])
def test_bca_and_percentile_equal_scipy_on_the_same_replicates_and_jackknife(stat, level):
    """Claim: given scipy's own bootstrap distribution and the leave-one-out values of the
    statistic, ``bca`` and ``percentile`` reproduce ``scipy.stats.bootstrap``'s intervals."""
    x = np.random.default_rng(1).exponential(size=25)  # skewed: z0 and a are not 0
    f = {"mean": lambda v, axis=-1: np.mean(v, axis=axis),
         "std": lambda v, axis=-1: np.std(v, axis=axis)}[stat]
    jack = np.array([f(np.delete(x, i)) for i in range(len(x))])
    for method, ours in (("BCa", lambda reps: iv.bca(f(x), reps, jack, level)),
                         ("percentile", lambda reps: iv.percentile(reps, level))):
        res = stats.bootstrap((x,), f, method=method, n_resamples=3000, confidence_level=level,
                              rng=np.random.default_rng(7))
        lo, hi = ours(res.bootstrap_distribution)
        assert (lo, hi) == pytest.approx(tuple(res.confidence_interval), rel=1e-12)
    assert iv.acceleration(jack) != 0 and iv.bias_correction(f(x), res.bootstrap_distribution)


def test_hand_computed_cases():
    # acceleration of (0, 0, 3): mean 1, d = (1, 1, -2): Σd³ = -6, Σd² = 6 → -6 / (6 · 6^1.5)
    assert iv.acceleration([0, 0, 3]) == pytest.approx(-(6 ** -1.5), rel=1e-15)
    assert iv.acceleration([2, 2, 2]) == 0.0 and math.isnan(iv.acceleration([1.0]))
    # z0: share below (ties ½) of (1, 2, 3, 4): 2.5 → ½ → 0; 2 → (1 + 2)/8
    assert iv.bias_correction(2.5, np.array([1, 2, 3, 4])) == 0.0
    assert iv.bias_correction(2.0, np.array([1, 2, 3, 4])) == pytest.approx(
        stats.norm.ppf(3 / 8), rel=1e-14)
    # t quantile (4 df, 97.5%) 2.7764451051977987 (tables: 2.776); z 1.959963984540054
    assert iv.student_t(0.5, 0.1, 4, 0.95) == pytest.approx((0.5 - 0.27764451051977987,
                                                             0.5 + 0.27764451051977987))
    assert iv.wald(0.5, 0.1, 0.95) == pytest.approx((0.5 - 0.1959963984540054,
                                                     0.5 + 0.1959963984540054))
    assert iv.wald(0.98, 0.1, 0.95) == (pytest.approx(0.98 - 0.1959963984540054), 1.0)
    assert iv.student_t(0.0, 0.1, 4, 0.95, lo=-1.0)[0] == pytest.approx(-0.27764451051977987)
    assert all(math.isnan(v) for v in iv.student_t(0.5, 0.1, 0, 0.95))
    assert all(math.isnan(v) for v in iv.wald(0.5, math.nan, 0.95))
    # t test p-value: 2 P(T_4 > 2) = 0.11611652351681556; z = 0 → 1
    assert iv.t_p_value(2.0, 4) == pytest.approx(0.11611652351681556, rel=1e-12)
    assert iv.t_p_value(0.0, 4) == 1.0 and iv.t_p_value(math.inf, 4) == 0.0
    assert math.isnan(iv.t_p_value(math.nan, 4))
    # jackknife SE of a mean = the standard error s/√n
    x = np.random.default_rng(0).normal(size=17)
    jack = (x.sum() - x) / 16
    assert iv.jackknife_se(jack) == pytest.approx(x.std(ddof=1) / math.sqrt(17), rel=1e-12)
    # percentile: linear interpolation, as np.quantile; NaN replicates left out
    assert iv.percentile(np.array([0, 1, 2, 3, 4, np.nan]), 0.5) == (1.0, 3.0)
    assert all(math.isnan(v) for v in iv.percentile(np.array([1.0, np.nan]), 0.95))


def test_bca_reduces_to_percentile_without_bias_or_skew_and_is_nan_when_degenerate():
    reps = np.linspace(-1, 1, 201)  # symmetric about 0: z0 = 0; equal jackknife: a = 0
    assert iv.bca(0.0, reps, np.ones(5), 0.9) == pytest.approx(iv.percentile(reps, 0.9),
                                                               rel=1e-12)
    assert all(math.isnan(v) for v in iv.bca(2.0, reps, np.arange(5.0), 0.95))  # all below
    assert all(math.isnan(v) for v in iv.bca(0.0, reps, np.array([1.0]), 0.95))  # no a
    assert all(math.isnan(v) for v in iv.bca(math.nan, reps, np.arange(5.0), 0.95))


def test_loo_auc_against_sklearn_with_each_row_left_out():
    from bipartite.metrics import QuerySegments

    rng = np.random.default_rng(4)
    n = 40
    y = rng.integers(0, 2, n)
    s = rng.integers(0, 6, n).astype(float)  # ties
    w = rng.uniform(0.5, 2, n)
    pos, neg = w * y, w * (1 - y)
    below, above = QuerySegments(s).placements(pos[None], neg[None])
    got = iv.loo_auc(pos, neg, below[0], above[0])
    for r in range(n):
        keep = np.arange(n) != r
        assert got[r] == pytest.approx(roc_auc_score(y[keep], s[keep], sample_weight=w[keep]),
                                       rel=1e-12)
    one = iv.loo_auc(np.array([1.0, 0, 0]), np.array([0, 1.0, 1]), np.array([2.0, 0, 0]),
                     np.array([0, 1.0, 1]))  # the only positive left out: NaN
    assert math.isnan(one[0]) and one[1] == 1.0


def test_check_interval_and_min_queries(monkeypatch):
    assert iv.check_interval("auto") == iv.AUTO_INTERVAL
    for m in iv.INTERVAL_METHODS[1:]:
        assert iv.check_interval(m) == m
    for bad in ("BCa", "student", None, 3):
        with pytest.raises(ValueError, match=rf"'interval' parameter .*got {bad!r}"):
            iv.check_interval(bad)
    monkeypatch.setitem(iv.MEASURED_COVERAGE, "wald", {5: 0.8, 12: 0.94, 40: 0.95, 200: 0.95})
    assert iv.min_queries("wald") == 12  # from 12 queries on, every size reaches 93%
    assert iv.queries_needed("wald", 5) == 12 and iv.queries_needed("wald", 12) is None
    monkeypatch.setitem(iv.MEASURED_COVERAGE, "wald", {5: 0.94, 12: 0.92, 40: 0.95, 200: 0.95})
    assert iv.min_queries("wald") == 40  # 5 reaches 93%, 12 does not: from 40 on
    monkeypatch.setitem(iv.MEASURED_COVERAGE, "wald", {5: 0.8, 200: 0.9})
    assert iv.min_queries("wald") == math.inf
    assert iv.queries_needed("wald", 200) == math.inf and iv.queries_needed("wald", 201) is None


def test_auto_is_the_measured_method_closest_to_nominal():
    """Claim: "auto" is the method whose measured coverage (the lowest over the quantities)
    is closest to 95% on average over the simulated numbers of queries."""
    dev = {m: np.mean([abs(c - 0.95) for c in v.values()])
           for m, v in iv.MEASURED_COVERAGE.items()}
    assert iv.AUTO_INTERVAL == min(dev, key=dev.get)
    assert set(iv.MEASURED_COVERAGE) == set(iv.INTERVAL_METHODS[1:])


# --------------------------------------------------------------------------------------------
# diagnose: the jackknife against brute force, the methods, the warning, the CLI
# --------------------------------------------------------------------------------------------
@pytest.fixture()
def table():
    rng = np.random.default_rng(5)
    n = 300
    Y = (rng.random((n, 2)) < [0.4, 0.25]).astype(int)
    return pd.DataFrame({"m1": Y @ [1.0, 0.5] + rng.normal(size=n),
                         "m2": Y[:, 0] + rng.normal(size=n), "q": rng.integers(0, 9, n),
                         "rel": Y[:, 0], "click": Y[:, 1]})


def test_the_jackknife_diagnose_gives_bca_is_the_leave_one_query_out_statistic(table):
    d = D._read(table, ["m1"], ["rel", "click"], "q", None)
    est = D._estimates(d, 1e-6, "pairs")
    jack = D._jackknife(d, est, "pairs")["m1"]
    for q in range(9):
        t = table[table.q != q]
        for k, lab in enumerate(["rel", "click"]):
            assert jack["auc"][k, q] == pytest.approx(roc_auc_score(t[lab], t.m1), rel=1e-12)
            assert jack["gauc"][k, q] == pytest.approx(
                group_auc(t[lab], t.m1, t.q), rel=1e-12)
        assert jack["win"][0, q] == pytest.approx(
            cross_pair_win_rate(t[["rel", "click"]].to_numpy(), t.m1, 0, 1), rel=1e-12)
    d = D._read(table, ["m1"], ["rel", "click"], None, None)  # no qid: each row left out
    jack = D._jackknife(d, D._estimates(d, 1e-6, "pairs"), "pairs")["m1"]["auc"]
    for r in (0, 17, 299):
        t = table.drop(index=r)
        assert jack[0, r] == pytest.approx(roc_auc_score(t.rel, t.m1), rel=1e-12)


def test_interval_methods_in_diagnose(table):
    kw = {"scores": ["m1", "m2"], "labels": ["rel", "click"], "qid": "q", "n_boot": 300}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        r = {m: diagnose(table, interval=m, **kw) for m in iv.INTERVAL_METHODS}
    assert r["auto"].meta["interval"] == iv.AUTO_INTERVAL
    a = {m: x.tables["auc"] for m, x in r.items()}
    # the same replicates (seed): the same se; t widens Wald by t_{G−1}/z (G = 9 queries)
    ratio = stats.t.ppf(0.975, 8) / stats.norm.ppf(0.975)
    for m in ("t", "percentile", "bca"):
        np.testing.assert_allclose(a[m].auc_se, a["wald"].auc_se, rtol=1e-12)
    np.testing.assert_allclose(a["t"].auc_ci_high - a["t"].auc,
                               ratio * (a["wald"].auc_ci_high - a["wald"].auc), rtol=1e-9)
    p = {m: x.tables["paired"] for m, x in r.items()}
    np.testing.assert_allclose(p["t"].p_value, 2 * stats.t.sf(np.abs(p["wald"].z), 8),
                               rtol=1e-9)
    for m in ("percentile", "bca"):  # not symmetric about the estimate
        assert not np.allclose(a[m].auc_ci_high - a[m].auc, a[m].auc - a[m].auc_ci_low)
        assert a[m].auc_method.str.contains({"percentile": "percentile", "bca": "BCa"}[m]).all()
    for x in r.values():
        s = x.tables["summary"]
        assert (s.min_ci_low <= s.min_ci_high).all() and x.tables["auc"].gauc_ci_low.notna().all()
    with pytest.raises(ValueError, match="'interval' parameter .*got 'bootstrap'"):
        diagnose(table, interval="bootstrap", **kw)
    # without query ids, DeLong intervals stay; the method changes Min/Diff only
    nq = {m: diagnose(table, scores="m1", labels=["rel", "click"], n_boot=200, interval=m)
          for m in ("wald", "bca")}
    pd.testing.assert_frame_equal(nq["wald"].tables["auc"], nq["bca"].tables["auc"])
    assert nq["wald"].tables["summary"].min_ci_low[0] != nq["bca"].tables["summary"].min_ci_low[0]


def test_few_queries_warn_in_python_and_in_the_report(table, monkeypatch):
    kw = {"scores": "m1", "labels": ["rel", "click"], "qid": "q", "n_boot": 50}
    monkeypatch.setitem(iv.MEASURED_COVERAGE, "t", {5: 0.8, 12: 0.935, 40: 0.95, 200: 0.95})
    with pytest.warns(UserWarning, match=r"Only 9 queries, fewer than the 12 at which the 't' "):
        d = diagnose(table, interval="t", **kw)
    assert "**Warning: only 9 queries" in d.to_markdown()
    assert "docs/coverage.md" in d.to_html() and d.meta["interval_warning"]
    monkeypatch.setitem(iv.MEASURED_COVERAGE, "t", {5: 0.94, 12: 0.95, 40: 0.95, 200: 0.95})
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        assert diagnose(table, interval="t", **kw).meta["interval_warning"] is None
        # no bootstrap, or no query ids: no bootstrap interval to warn about
        monkeypatch.setitem(iv.MEASURED_COVERAGE, "t", {5: 0.5, 200: 0.5})
        assert diagnose(table, interval="t", **{**kw, "n_boot": 0}).meta[
            "interval_warning"] is None
        assert diagnose(table, interval="t", **{**kw, "qid": None}).meta[
            "interval_warning"] is None
    with pytest.warns(UserWarning, match="at no simulated number of queries"):
        diagnose(table, interval="t", **kw)


def test_cli_interval(table, tmp_path, capsys):
    f = tmp_path / "s.csv"
    table.to_csv(f, index=False)
    args = ["report", str(f), "--score", "m1", "--label", "rel", "--qid", "q", "--n-boot", "50",
            "--format", "json", "--no-progress"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        assert main(args + ["--interval", "bca"]) == 0
    import json
    assert json.loads(capsys.readouterr().out)["meta"]["interval"] == "bca"
    with pytest.raises(SystemExit):
        main(args + ["--interval", "bootstrap"])
    assert "--interval" in capsys.readouterr().err
