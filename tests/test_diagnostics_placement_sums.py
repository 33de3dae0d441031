"""Tests of the per-unit placement sums (bipartite.diagnostics._placement_sums) and of the analytic
intervals built on them (docs/theory.md §2.3, §2.5, §7.5).

Each fast statistic against a slow, obvious reference: the gAUC bootstrap replicates against the
gAUC of the resampled rows rebuilt query by query (exact), the linearised pooled-AUC replicates
against the exact AUC of the reweighted rows (within the O(1/G) linearisation error), the
clustered DeLong variance against an O(n²) double loop over pairs, and the delta-method variances
of the gAUC, Min and Diff AUC against numerical derivatives of the exact statistics with respect
to the query multiplicities.
"""

from __future__ import annotations

import numpy as np
import pytest

from bipartite.diagnostics import diagnose
from bipartite.diagnostics._inference import min_diff_delta
from bipartite.diagnostics._pairs import pair_stats
from bipartite.diagnostics._placement_sums import label_pair_weights, placement_sums
from bipartite.metrics import auc, group_auc


def _data(seed, n=240, G=16, K=2, ties=True, weights=True):
    rng = np.random.default_rng(seed)
    g = rng.integers(0, G, n)
    g[:G] = np.arange(G)  # every query present
    Y = (rng.random((n, K)) < [0.4, 0.2, 0.3][:K]).astype(float)
    s = Y @ np.array([1.0, 0.7, 0.3][:K]) + rng.normal(size=n) + 0.5 * rng.normal(size=G)[g]
    s = np.round(s, 1) if ties else s
    w = rng.uniform(0.5, 2.0, n) if weights else np.ones(n)
    return s, Y, w, g


def _h(s):
    """Pair kernel: 1 if s_i > s_j, ½ if tied."""
    return (s[:, None] > s[None, :]) + 0.5 * (s[:, None] == s[None, :])


def _slow_clustered(s, pos, neg, g, G):
    """θ and the clustered DeLong variance by the O(n²) pair double sum: ψ_q = (pairs with the
    positive in q + pairs with the negative in q) / (P N) − θ (P_q / P + N_q / N)."""
    H = pos[:, None] * neg[None, :] * _h(s)
    P, N = pos.sum(), neg.sum()
    theta = H.sum() / (P * N)
    psi = np.array([(H[g == q].sum() + H[:, g == q].sum()) / (P * N)
                    - theta * (pos[g == q].sum() / P + neg[g == q].sum() / N) for q in range(G)])
    return theta, psi, float(psi @ psi) * G / (G - 1)


# ---------------------------------------------------------------------------------------------
# bootstrap replicates from the sums
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("weighting", ["pairs", "uniform", "impressions"])
@pytest.mark.parametrize("seed", range(3))
def test_gauc_replicates_equal_the_rebuilt_rows(seed, weighting):
    """The gAUC replicate from per-query sums equals group_auc on the resampled rows, each
    drawn copy of a query its own query (the same multiplicities): exact up to rounding."""
    s, Y, w, g = _data(seed, ties=seed != 1, weights=seed != 2)
    G = 16
    ws = w / 2  # any power-of-two scale: the statistics are ratios
    ps = placement_sums(s, *label_pair_weights(Y, ws), codes=g, G=G, weight=ws)
    rng = np.random.default_rng(seed)
    M = rng.multinomial(G, np.full(G, 1 / G), size=12).astype(float)
    got = ps.boot_gauc(M, weighting)
    for b in range(len(M)):
        rows, qid = [], []
        for q in range(G):
            for c in range(int(M[b, q])):
                idx = np.flatnonzero(g == q)
                rows.append(idx)
                qid.append(np.full(len(idx), q * 100 + c))
        r, qq = np.concatenate(rows), np.concatenate(qid)
        for k in range(Y.shape[1]):
            ref = group_auc(Y[r, k], s[r], qq, sample_weight=w[r], weighting=weighting)
            assert got[k, b] == pytest.approx(ref, rel=1e-12, abs=1e-14)


def test_linearised_pooled_auc_is_close_to_the_exact_replicates():
    """The linearised pooled-AUC replicate (Hájek projection, exact denominators) against the
    exact AUC of the rows reweighted by their query's multiplicity, with 150 queries. The
    neglected term ``Σ_{q,r} (M_q − 1)(M_r − 1) U_qr / (P* N*)`` is O(1/G) against the O(1/√G)
    spread (measured: largest gap 0.0021 = 0.3/G, r.m.s. gap about 0.1 s.d.), so every gap is
    below 1/G, the r.m.s. gap below 0.2 s.d. and the correlation above 0.97. With rows as units
    (no qid) the neglected term is about 1/√(P N): r.m.s. gap below 0.2 s.d. at n = 2000."""
    s, Y, w, g = _data(4, n=3000, G=150, ties=True)
    G = 150
    ps = placement_sums(s, *label_pair_weights(Y, w), codes=g, G=G, weight=w)
    rng = np.random.default_rng(0)
    M = rng.multinomial(G, np.full(G, 1 / G), size=60).astype(float)
    lin = ps.boot_auc(M)
    for k in range(2):
        exact = np.array([auc(Y[:, k], s, sample_weight=w * M[b, g]) for b in range(len(M))])
        gap, sd = lin[k] - exact, exact.std()
        assert np.max(np.abs(gap)) < 1 / G, np.max(np.abs(gap))
        assert np.sqrt(np.mean(gap**2)) < 0.2 * sd, (np.sqrt(np.mean(gap**2)), sd)
        assert np.corrcoef(lin[k], exact)[0, 1] > 0.97, np.corrcoef(lin[k], exact)[0, 1]
        # at M = 1 the linearisation is exact
        assert ps.boot_auc(np.ones((1, G)))[k, 0] == pytest.approx(auc(Y[:, k], s, sample_weight=w))
    n = 2000  # rows as units: the neglected term is about 1/√(P N) here, not O(1/G)
    rows = placement_sums(s[:n], *label_pair_weights(Y[:n], w[:n]))
    R = rng.multinomial(n, np.full(n, 1 / n), size=20).astype(float)
    lin = rows.boot_auc(R)
    exact = np.array([auc(Y[:n, 0], s[:n], sample_weight=w[:n] * R[b]) for b in range(20)])
    gap = lin[0] - exact
    assert np.sqrt(np.mean(gap**2)) < 0.2 * exact.std(), (np.sqrt(np.mean(gap**2)), exact.std())


def test_bootstrap_variance_tends_to_the_clustered_delong():
    """The linearised replicates' variance × G/(G − 1) estimates the clustered DeLong
    variance: within 12% at B = 4000 (the variance's own relative s.e. is √(2/B) ≈ 2.2%)."""
    s, Y, w, g = _data(5, n=1200, G=60)
    ps = placement_sums(s, *label_pair_weights(Y, w), codes=g, G=60, weight=w)
    M = np.random.default_rng(1).multinomial(60, np.full(60, 1 / 60), size=4000).astype(float)
    boot = ps.boot_auc(M).var(axis=1, ddof=1) * 60 / 59
    np.testing.assert_allclose(boot, ps.var(), rtol=0.12)


# ---------------------------------------------------------------------------------------------
# analytic variances against slow references
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(4))
def test_clustered_delong_matches_the_pair_double_sum(seed):
    s, Y, w, g = _data(seed, n=150, G=12, ties=seed % 2 == 0, weights=seed != 3)
    pos, neg = label_pair_weights(Y, w)
    ps = placement_sums(s, pos, neg, codes=g, G=12, weight=w)
    for k in range(2):
        theta, psi, var = _slow_clustered(s, pos[k], neg[k], g, 12)
        assert ps.auc()[k] == pytest.approx(theta, rel=1e-13)
        assert ps.var()[k] == pytest.approx(var, rel=1e-10)
        np.testing.assert_allclose(ps.terms()[k], psi * np.sqrt(12 / 11), rtol=1e-9, atol=1e-15)
    # the win rate of the pair (0, 1): k-only rows against j-only rows, clustered
    st = pair_stats(s, Y, w, [(0, 1)], tol=0.0, delong=True, codes=g, G=12)
    kp, jn = label_pair_weights(Y, w, np.array([[0, 1]]))
    theta, _, var = _slow_clustered(s, kp[0], jn[0], g, 12)
    assert st.win[0] == pytest.approx(theta, rel=1e-12)
    assert st.var[0] == pytest.approx(var, rel=1e-10)


def test_report_paired_and_auc_se_are_clustered_delong():
    """diagnose's default (n_boot=0) with qid: auc_se and the paired se equal the slow
    clustered references (two scorers' ψ differenced query by query)."""
    s, Y, w, g = _data(7, n=200, G=14, K=1)
    s2 = s + np.random.default_rng(7).normal(size=200)
    d = diagnose({"a": s, "b": s2, "y": Y[:, 0], "q": g}, scores=["a", "b"], labels="y", qid="q")
    pos, neg = label_pair_weights(Y, np.ones(200))
    _, pa, va = _slow_clustered(s, pos[0], neg[0], g, 14)
    _, pb, _ = _slow_clustered(s2, pos[0], neg[0], g, 14)
    assert d.tables["auc"].auc_se[0] == pytest.approx(np.sqrt(va), rel=1e-10)
    paired = d.tables["paired"].query("metric == 'auc'").iloc[0]
    assert paired.se == pytest.approx(np.sqrt((pa - pb) @ (pa - pb) * 14 / 13), rel=1e-10)
    assert "clustered" in d.meta["interval_method"]


def _gauc_of(m, s, Y, w, g, weighting):
    """The gAUC of the rows with query multiplicities m (real: a query weighs m_q times)."""
    out = []
    for k in range(Y.shape[1]):
        num = den = 0.0
        for q in range(len(m)):
            r = g == q
            P, N = (w[r] * Y[r, k]).sum(), (w[r] * (1 - Y[r, k])).sum()
            if P > 0 and N > 0:
                lam = {"pairs": P * N, "uniform": 1.0, "impressions": w[r].sum()}[weighting]
                num += m[q] * lam * auc(Y[r, k], s[r], sample_weight=w[r])
                den += m[q] * lam
        out.append(num / den)
    return np.array(out)


def _numeric_psi(f, G, h=1e-5):
    """Central differences of f(m) at m = 1, one query at a time: (k, G)."""
    cols = []
    for q in range(G):
        e = np.zeros(G)
        e[q] = h
        cols.append((f(1 + e) - f(1 - e)) / (2 * h))
    return np.stack(cols, axis=-1)


@pytest.mark.parametrize("weighting", ["pairs", "uniform", "impressions"])
def test_gauc_delta_method_matches_a_numerical_derivative(weighting):
    s, Y, w, g = _data(8, n=160, G=10)
    ps = placement_sums(s, *label_pair_weights(Y, w), codes=g, G=10, weight=w)
    psi = _numeric_psi(lambda m: _gauc_of(m, s, Y, w, g, weighting), 10)
    np.testing.assert_allclose(ps.gauc_terms(weighting), psi * np.sqrt(10 / 9), rtol=1e-6,
                               atol=1e-10)


def test_min_diff_delta_matches_a_numerical_derivative():
    """Min AUC = min_k θ_k and Diff AUC = max − min of three labels' pooled AUCs as exact
    functions of the query multiplicities: their numerical gradients' clustered variances equal
    min_diff_delta's (no tie: the minimum and the maximum are unique)."""
    s, Y, w, g = _data(9, n=300, G=12, K=3)
    ps = placement_sums(s, *label_pair_weights(Y, w), codes=g, G=12, weight=w)
    theta = ps.auc()
    assert len(set(np.round(theta, 6))) == 3

    def aucs(m):
        return np.array([auc(Y[:, k], s, sample_weight=w * m[g]) for k in range(3)])

    grad = _numeric_psi(aucs, 12)  # (3, G)
    vmin, vdiff, note = min_diff_delta(theta, ps.terms())
    psi_min = grad[np.argmin(theta)]
    psi_diff = grad[np.argmax(theta)] - grad[np.argmin(theta)]
    assert vmin == pytest.approx(psi_min @ psi_min * 12 / 11, rel=1e-6)
    assert vdiff == pytest.approx(psi_diff @ psi_diff * 12 / 11, rel=1e-6)
    assert note is None


def test_min_diff_delta_at_a_tie_takes_the_widest_and_says_so():
    T = np.array([[0.1, -0.1, 0.0], [0.3, 0.0, -0.3], [0.0, 0.2, -0.2]])
    vmin, vdiff, note = min_diff_delta(np.array([0.7, 0.7, 0.9]), T)
    assert vmin == pytest.approx(0.18)  # the larger of 0.02 and 0.18
    d0, d1 = T[2] - T[0], T[2] - T[1]
    assert vdiff == pytest.approx(max(d0 @ d0, d1 @ d1))
    assert "tie for the minimum" in note
    assert min_diff_delta(np.array([0.8]), T[:1])[1] == 0.0  # one label: Diff = 0, var 0


def test_progress_goes_to_stderr_only_when_asked(capsys):
    s, Y, w, g = _data(10, n=300, G=10)
    data = {"s": s, "y1": Y[:, 0], "y2": Y[:, 1], "q": g}
    diagnose(data, scores="s", labels=["y1", "y2"], qid="q")
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""
    diagnose(data, scores="s", labels=["y1", "y2"], qid="q", progress=True, n_boot=20)
    out = capsys.readouterr()
    assert out.out == "" and "report: 300 rows, 1 scorer(s), 2 label(s), bootstrap B = 20: about" \
        in out.err


def test_a_gauc_defined_in_one_query_has_no_interval_for_any_method():
    """Claim: when a label has both classes in a single query, its gAUC (and the paired gAUC
    difference) has no variance: se, interval and p-value are NaN with a note, for every method
    and with or without the bootstrap (a reviewer found a zero-width interval and p = 0)."""
    import warnings

    import pandas as pd

    from bipartite.diagnostics import diagnose

    rng = np.random.default_rng(0)
    n = 500
    a = np.zeros(n)
    a[:5] = 1  # label a: both classes only in query 0
    df = pd.DataFrame({"q": np.repeat(np.arange(50), 10), "a": a,
                       "b": (rng.random(n) < 0.4).astype(int),
                       "s": rng.normal(a, 1.0), "s2": rng.normal(a, 1.0)})
    for interval, n_boot in [("wald", 0), ("t", 0), ("wald", 50), ("percentile", 50)]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            d = diagnose(df, scores=["s", "s2"], labels=["a", "b"], qid="q", interval=interval,
                         n_boot=n_boot)
        row = d.tables["auc"].set_index(["scorer", "label"]).loc[("s", "a")]
        assert np.isfinite(row.gauc) and np.isnan(row.gauc_se), (interval, n_boot)
        assert np.isnan(row.gauc_ci_low) and np.isnan(row.gauc_ci_high)
        assert "single query" in row.note
        p = d.tables["paired"].set_index(["label", "metric"]).loc[("a", "gauc")]
        assert np.isnan(p.se) and np.isnan(p.p_value) and "single query" in p.note
        b = d.tables["auc"].set_index(["scorer", "label"]).loc[("s", "b")]
        assert np.isfinite(b.gauc_se) and b.gauc_ci_low < b.gauc < b.gauc_ci_high


def test_one_bootstrap_replicate_is_refused_by_name():
    import pandas as pd
    import pytest

    from bipartite.diagnostics import diagnose

    df = pd.DataFrame({"s": [0.1, 0.4, 0.3, 0.9], "y": [0, 1, 0, 1]})
    with pytest.raises(ValueError, match=r"'n_boot'.*at least 2.*got 1"):
        diagnose(df, scores="s", labels="y", n_boot=1)


@pytest.mark.parametrize("seed", range(4))
def test_tie_placements_equal_the_pair_double_sum_in_segments_and_in_blocks(seed):
    """The one placement kernel: per segment, ``below_t = Σ_{u<t} Gn_u + ½ Gn_t`` and
    ``above_t = Σ_{u>t} Gp_u + ½ Gp_t`` (an O(T²) double loop), and one segment walked in
    blocks with a carry gives the whole walk's placements."""
    from bipartite.metrics import tie_placements
    rng = np.random.default_rng(seed)
    m, T = 3, 40
    Gp, Gn = rng.random((m, T)) * (rng.random((m, T)) < 0.7), rng.random((m, T))
    first = np.r_[0, np.sort(rng.choice(np.arange(1, T), 5, replace=False))]
    seg = np.repeat(np.arange(len(first)), np.diff(np.r_[first, T]))
    for f, same in ((first, seg[:, None] == seg[None, :]), (None, np.ones((T, T), bool))):
        lower = np.tril(same, -1)  # lower[t, u]: u is before t in t's segment
        want_b = Gn @ lower.T + 0.5 * Gn
        want_a = Gp @ lower + 0.5 * Gp
        got_b, got_a = tie_placements(Gp, Gn, f)
        np.testing.assert_allclose(got_b, want_b, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(got_a, want_a, rtol=1e-12, atol=1e-15)
    carry, parts = np.zeros((2, m)), []
    for a, b in ((0, 7), (7, 8), (8, 30), (30, T)):
        parts.append(tie_placements(Gp[:, a:b], Gn[:, a:b], carry=carry, total=Gp.sum(axis=1)))
    whole = tie_placements(Gp, Gn)
    np.testing.assert_allclose(np.concatenate([p[0] for p in parts], axis=1), whole[0],
                               rtol=1e-12)
    np.testing.assert_allclose(np.concatenate([p[1] for p in parts], axis=1), whole[1],
                               rtol=1e-12, atol=1e-14)


def _exact_auc(y, s, w):
    """The weighted AUC (ties ½) of one query in exact rational arithmetic."""
    from fractions import Fraction

    num = den = Fraction(0)
    for i in range(len(y)):
        for j in range(len(y)):
            if y[i] == 1 and y[j] == 0:
                pair = Fraction(w[i]) * Fraction(w[j])
                den += pair
                num += pair * (1 if s[i] > s[j] else Fraction(1, 2) if s[i] == s[j] else 0)
    return num / den


@pytest.mark.parametrize("one_walk", [True, False])
@pytest.mark.parametrize("weighting", ["uniform", "pairs", "impressions"])
def test_diagnose_takes_each_query_auc_scale_free(one_walk, weighting, monkeypatch):
    """Issue 35: query weights 1e300 beside 1e-300 (spanning more than one float64 scale) keep
    each query's AUC (exact, from Fractions) and the gAUC equals ``group_auc``'s, on both
    in-memory routes; with the uniform weighting it is the plain mean of the exact per-query
    AUCs, 0.875."""
    import warnings
    from fractions import Fraction

    import pandas as pd

    from bipartite.diagnostics import _diagnose

    monkeypatch.setattr(_diagnose, "fused", lambda K: one_walk)
    y = np.array([0, 1, 0, 1, 1, 0, 0, 1])
    s = np.array([.125, .5, .375, .875, .25, .625, .125, .75])
    q = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    w = np.array([1e300] * 4 + [1e-300] * 4)
    df = pd.DataFrame({"y": y, "z": 1 - y, "s": s, "q": q, "w": w})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # few queries
        rep = diagnose(df, scores="s", labels=["y", "z"], qid="q", weight="w", n_boot=0,
                       gauc_weighting=weighting)
    pq = rep.tables["per_query"]
    for lab, yy in (("y", y), ("z", 1 - y)):
        exact = [_exact_auc(yy[q == g], s[q == g], w[q == g]) for g in (0, 1)]
        got = pq[pq.label == lab].sort_values("qid")
        np.testing.assert_allclose(got.auc.to_numpy(float), [float(a) for a in exact],
                                   rtol=1e-15)
        assert got.note.isna().all()
        row = rep.tables["auc"].set_index("label").loc[lab]
        assert row.gauc == group_auc(yy, s, qid=q, sample_weight=w, weighting=weighting)
        # the queries defining the gAUC: λ_q > 0 in float64, the G' of its clustered variance
        # and t interval (found by review): λ_q relative to the largest, in exact arithmetic,
        # is representable (≥ 2⁻¹⁰⁷⁴) only where it is not 1e-600
        lam = []
        for g in (0, 1):
            wq = [Fraction(x) for x in w[q == g]]
            yq = yy[q == g]
            P = sum((x for x, t in zip(wq, yq, strict=True) if t == 1), Fraction(0))
            N = sum((x for x, t in zip(wq, yq, strict=True) if t == 0), Fraction(0))
            lam.append({"uniform": Fraction(1), "pairs": P * N, "impressions": sum(wq)}[weighting])
        expected = sum(x / max(lam) >= Fraction(1, 2**1074) for x in lam)
        assert row.n_queries_defined == expected
        if weighting == "uniform":
            assert row.gauc == pytest.approx(float(sum(exact, Fraction(0)) / 2), rel=1e-15)
    assert rep.tables["auc"].set_index("label").loc["y"].gauc == pytest.approx(
        0.875 if weighting == "uniform" else 1.0, rel=1e-15)
