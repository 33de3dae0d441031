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


def test_jackknife_auc_against_sklearn_with_each_unit_left_out():
    """Claim: PlacementSums.jackknife_auc is the exact pooled AUC with one unit left out:
    each row (no query ids) or each query (with query ids), ties and weights included; and
    jackknife_gauc the exact gAUC without each query."""
    from bipartite.diagnostics._placement_sums import label_sums

    rng = np.random.default_rng(4)
    n = 60
    y = rng.integers(0, 2, n)
    s = rng.integers(0, 6, n).astype(float)  # ties
    w = rng.uniform(0.5, 2, n)
    g = rng.integers(0, 7, n)
    rows = label_sums(s, y[:, None], w).jackknife_auc()[0]
    for r in range(n):
        keep = np.arange(n) != r
        assert rows[r] == pytest.approx(roc_auc_score(y[keep], s[keep], sample_weight=w[keep]),
                                        rel=1e-12)
    st = label_sums(s, y[:, None], w, codes=g, G=7)
    qs, gq = st.jackknife_auc()[0], st.jackknife_gauc("pairs")[0]
    for q in range(7):
        keep = g != q
        assert qs[q] == pytest.approx(roc_auc_score(y[keep], s[keep], sample_weight=w[keep]),
                                      rel=1e-12)
        assert gq[q] == pytest.approx(group_auc(y[keep], s[keep], g[keep],
                                                sample_weight=w[keep]), rel=1e-12)
    one = label_sums(np.array([3.0, 1, 2]), np.array([[1], [0], [0]]), np.ones(3))
    got = one.jackknife_auc()[0]  # the only positive left out: NaN
    assert math.isnan(got[0]) and got[1] == 1.0


def test_check_interval_and_min_queries(monkeypatch):
    assert iv.check_interval("auto") == iv.AUTO_INTERVAL["analytic"]
    assert iv.check_interval("auto", n_boot=10) == iv.AUTO_INTERVAL["bootstrap"]
    for m in iv.INTERVAL_METHODS[1:]:
        assert iv.check_interval(m, n_boot=10) == m
    for m in ("wald", "t"):
        assert iv.check_interval(m) == m
    for bad in ("BCa", "student", None, 3):
        with pytest.raises(ValueError, match=rf"'interval' parameter .*got {bad!r}"):
            iv.check_interval(bad)
    for m in iv.BOOTSTRAP_ONLY:  # percentile and BCa read replicates: n_boot > 0
        with pytest.raises(ValueError, match=rf"'interval' .*= {m!r} .*'n_boot' .*n_boot=0"):
            iv.check_interval(m, n_boot=0)
    key = "bootstrap/wald"
    monkeypatch.setitem(iv.MEASURED_COVERAGE, key, {5: 0.8, 12: 0.94, 40: 0.95, 200: 0.95})
    assert iv.min_queries("wald", 10) == 12  # from 12 queries on, every size reaches 93%
    assert iv.queries_needed("wald", 5, 10) == 12 and iv.queries_needed("wald", 12, 10) is None
    monkeypatch.setitem(iv.MEASURED_COVERAGE, key, {5: 0.94, 12: 0.92, 40: 0.95, 200: 0.95})
    assert iv.min_queries("wald", 10) == 40  # 5 reaches 93%, 12 does not: from 40 on
    monkeypatch.setitem(iv.MEASURED_COVERAGE, key, {5: 0.8, 200: 0.9})
    assert iv.min_queries("wald", 10) == math.inf
    assert iv.queries_needed("wald", 200, 10) == math.inf
    assert iv.queries_needed("wald", 201, 10) is None
    monkeypatch.setitem(iv.MEASURED_COVERAGE, "analytic/wald", {5: 0.8, 12: 0.95})
    assert iv.min_queries("wald") == 12 and iv.min_queries("wald", 0) == 12


def test_auto_is_the_measured_method_closest_to_nominal():
    """Claim: "auto" is, per configuration (analytic, bootstrap), the method whose measured
    coverage (the lowest over the quantities) is closest to 95% on average over the simulated
    numbers of queries."""
    for config in ("analytic", "bootstrap"):
        dev = {k.split("/")[1]: np.mean([abs(c - 0.95) for c in v.values()])
               for k, v in iv.MEASURED_COVERAGE.items() if k.startswith(config + "/")}
        assert iv.AUTO_INTERVAL[config] == min(dev, key=dev.get)
    assert set(iv.MEASURED_COVERAGE) == {f"analytic/{m}" for m in ("wald", "t")} | {
        f"bootstrap/{m}" for m in iv.INTERVAL_METHODS[1:]}


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
    from bipartite.diagnostics._progress import Progress

    d = D._read(table, ["m1"], ["rel", "click"], "q", None)
    est = D._estimates(d, 1e-6, "pairs", Progress(False))
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
    jack = D._jackknife(d, D._estimates(d, 1e-6, "pairs", Progress(False)), "pairs")["m1"]
    for r in (0, 17, 299):
        t = table.drop(index=r)
        assert jack["auc"][0, r] == pytest.approx(roc_auc_score(t.rel, t.m1), rel=1e-12)
        assert jack["win"][0, r] == pytest.approx(
            cross_pair_win_rate(t[["rel", "click"]].to_numpy(), t.m1, 0, 1), rel=1e-12)


def test_interval_methods_in_diagnose(table):
    """Claim: ``interval`` makes every interval of the report, analytic and bootstrap: on the
    same standard errors (the same seed, or the analytic ones) t is Wald widened by
    t_{G−1}/z and its paired p-values are the t test's; percentile and BCa read the
    replicates (asymmetric); without query ids the rows are the units (n − 1 degrees of
    freedom) and the bootstrap gives every interval too."""
    kw = {"scores": ["m1", "m2"], "labels": ["rel", "click"], "qid": "q"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        r = {m: diagnose(table, interval=m, n_boot=300, **kw) for m in iv.INTERVAL_METHODS}
        an = {m: diagnose(table, interval=m, **kw) for m in ("auto", "wald", "t")}
    assert r["auto"].meta["interval"] == iv.AUTO_INTERVAL["bootstrap"]
    assert an["auto"].meta["interval"] == iv.AUTO_INTERVAL["analytic"]
    ratio = stats.t.ppf(0.975, 8) / stats.norm.ppf(0.975)  # G = 9 queries
    for res in (r, an):
        a = {m: x.tables["auc"] for m, x in res.items()}
        np.testing.assert_allclose(a["t"].auc_se, a["wald"].auc_se, rtol=1e-12)
        np.testing.assert_allclose(a["t"].auc_ci_high - a["t"].auc,
                                   ratio * (a["wald"].auc_ci_high - a["wald"].auc), rtol=1e-9)
        w = {m: x.tables["win_rates"] for m, x in res.items()}
        np.testing.assert_allclose(w["t"].ci_high - w["t"].win_rate,
                                   ratio * (w["wald"].ci_high - w["wald"].win_rate), rtol=1e-9)
        p = {m: x.tables["paired"] for m, x in res.items()}
        auc = p["wald"].metric == "auc"
        np.testing.assert_allclose(p["t"].p_value[auc], 2 * stats.t.sf(
            np.abs(p["wald"].z[auc]), 8), rtol=1e-9)
        s = {m: x.tables["summary"] for m, x in res.items()}
        np.testing.assert_allclose(s["t"].min_ci_high - s["t"].min_auc,
                                   ratio * (s["wald"].min_ci_high - s["wald"].min_auc), rtol=1e-9)
    # the analytic se is DeLong's clustered by query, whatever the method
    np.testing.assert_allclose(an["t"].tables["auc"].auc_se, an["wald"].tables["auc"].auc_se)
    a = {m: x.tables["auc"] for m, x in r.items()}
    for m in ("percentile", "bca"):  # not symmetric about the estimate
        np.testing.assert_allclose(a[m].auc_se, a["wald"].auc_se, rtol=1e-12)
        assert not np.allclose(a[m].auc_ci_high - a[m].auc, a[m].auc - a[m].auc_ci_low)
        assert a[m].auc_method.str.contains({"percentile": "percentile", "bca": "BCa"}[m]).all()
    for x in r.values():
        s = x.tables["summary"]
        assert (s.min_ci_low <= s.min_ci_high).all() and x.tables["auc"].gauc_ci_low.notna().all()
    with pytest.raises(ValueError, match="'interval' parameter .*got 'bootstrap'"):
        diagnose(table, interval="bootstrap", **kw)
    for m in ("percentile", "bca"):
        with pytest.raises(ValueError, match=rf"= {m!r} .*'n_boot' .*n_boot=0"):
            diagnose(table, interval=m, **kw)
    # without query ids: rows are the units; every interval follows the method
    nq = {m: diagnose(table, scores="m1", labels=["rel", "click"], n_boot=200, interval=m)
          for m in ("wald", "t", "bca")}
    rt = stats.t.ppf(0.975, len(table) - 1) / stats.norm.ppf(0.975)
    t, wd = nq["t"].tables["auc"], nq["wald"].tables["auc"]
    np.testing.assert_allclose(t.auc_ci_high - t.auc, rt * (wd.auc_ci_high - wd.auc), rtol=1e-9)
    for name in ("auc", "win_rates", "summary"):
        assert not nq["wald"].tables[name].equals(nq["bca"].tables[name])
    assert nq["bca"].tables["win_rates"].ci_low.notna().all()


def test_few_queries_warn_in_python_and_in_the_report(table, monkeypatch):
    """Claim: with query ids, fewer queries than the measured threshold of the chosen method
    in its configuration warn (UserWarning) and the report says so: for the default report
    (analytic, n_boot=0) from the analytic measurements, with n_boot > 0 from the bootstrap's;
    without query ids nothing is claimed."""
    kw = {"scores": "m1", "labels": ["rel", "click"], "qid": "q"}
    monkeypatch.setitem(iv.MEASURED_COVERAGE, "analytic/t",
                        {5: 0.8, 12: 0.935, 40: 0.95, 200: 0.95})
    monkeypatch.setitem(iv.MEASURED_COVERAGE, "bootstrap/t",
                        {5: 0.94, 12: 0.95, 40: 0.95, 200: 0.95})
    with pytest.warns(UserWarning, match=r"Only 9 queries, fewer than the 12 from which on the "
                                         r"analytic 't' "):
        d = diagnose(table, interval="t", **kw)  # the default configuration: n_boot=0
    assert "**Warning: only 9 queries" in d.to_markdown()
    assert "docs/coverage.md" in d.to_html() and d.meta["interval_warning"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        assert diagnose(table, interval="t", n_boot=50, **kw).meta["interval_warning"] is None
        monkeypatch.setitem(iv.MEASURED_COVERAGE, "analytic/t", {5: 0.5, 200: 0.5})
        assert diagnose(table, interval="t", **{**kw, "qid": None}).meta[
            "interval_warning"] is None
    with pytest.warns(UserWarning, match="at no simulated number of queries"):
        diagnose(table, interval="t", **kw)
    monkeypatch.setitem(iv.MEASURED_COVERAGE, "bootstrap/t", {5: 0.5, 200: 0.5})
    with pytest.warns(UserWarning, match="the bootstrap 't' intervals"):
        diagnose(table, interval="t", n_boot=50, **kw)


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
    no_boot = [a for a in args if a not in ("--n-boot", "50")]
    assert main(no_boot + ["--interval", "percentile"]) != 0  # percentile needs --n-boot > 0
    err = capsys.readouterr().err
    assert "'percentile'" in err and "n_boot" in err


def test_the_rendered_report_names_the_seed_only_when_a_bootstrap_ran(table):
    kw = {"scores": "m1", "labels": ["rel", "click"], "seed": 7}
    assert "(seed 7)" not in diagnose(table, **kw).to_markdown()  # analytic: no randomness
    assert "(seed 7)" in diagnose(table, n_boot=20, **kw).to_markdown()


def test_t_degrees_of_freedom_of_a_gauc_are_its_defined_queries(table):
    """Claim: the gAUC's t interval uses the queries where it is defined, less one (a query
    without a positive of the label is no cluster of the ratio), the AUC's all G − 1."""
    t = table.copy()
    t.loc[t.q.isin([0, 1, 2]), "click"] = 0  # 6 of 9 queries define the gAUC of click
    kw = {"scores": "m1", "labels": ["rel", "click"], "qid": "q"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        w, tt = (diagnose(t, interval=m, **kw).tables["auc"] for m in ("wald", "t"))
    z = stats.norm.ppf(0.975)
    for k, df in ((0, 8), (1, 5)):
        assert tt.gauc_ci_high[k] - tt.gauc[k] == pytest.approx(
            stats.t.ppf(0.975, df) / z * (w.gauc_ci_high[k] - w.gauc[k]), rel=1e-9)
        assert tt.auc_ci_high[k] - tt.auc[k] == pytest.approx(
            stats.t.ppf(0.975, 8) / z * (w.auc_ci_high[k] - w.auc[k]), rel=1e-9)


def test_the_row_bootstrap_of_the_win_rate_agrees_with_delong(table):
    """Claim: without query ids the bootstrap over rows now gives the win rate's interval too;
    its standard error estimates DeLong's (the same first-order variance) within 10%."""
    kw = {"scores": "m1", "labels": ["rel", "click"]}
    an = diagnose(table, **kw).tables["win_rates"]
    bo = diagnose(table, n_boot=4000, seed=1, **kw).tables["win_rates"]
    assert bo.se[0] == pytest.approx(an.se[0], rel=0.1)
    assert "bootstrap over 300 rows" in bo.method[0]
