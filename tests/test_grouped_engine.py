"""The grouped-AUC engine (bipartite/metrics/_grouped.py) against a slow, obviously-correct
reference: a Python loop over the queries calling scikit-learn's roc_auc_score and
average_precision_score (ties, sample weights, single-class queries)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import average_precision_score, roc_auc_score

from bipartite import UndefinedMetricWarning
from bipartite.labels import cost_matrix
from bipartite.metrics import (
    QuerySegments,
    group_auc,
    grouped_stats,
    multipartite_auc,
    ndcg_at_k,
)


def _reference(Y, s, qid, w):
    """Per query and label: sklearn's AUC and AP (NaN where undefined), P, N and the row weight."""
    ids = np.unique(qid)
    K = Y.shape[1]
    auc, ap = np.full((len(ids), K), np.nan), np.full((len(ids), K), np.nan)
    P, N, W = np.zeros((len(ids), K)), np.zeros((len(ids), K)), np.zeros(len(ids))
    for q, v in enumerate(ids):
        m = qid == v
        W[q] = w[m].sum()
        for k in range(K):
            y, ww = Y[m, k], w[m]
            P[q, k], N[q, k] = (ww * y).sum(), (ww * (1 - y)).sum()
            if P[q, k] > 0 and N[q, k] > 0:
                auc[q, k] = roc_auc_score(y, s[m], sample_weight=ww)
            if P[q, k] > 0:
                ap[q, k] = average_precision_score(y, s[m], sample_weight=ww)
    return ids, auc, ap, P, N, W


def _data(seed, n, K, ties, weighted):
    rng = np.random.default_rng(seed)
    Y = rng.integers(0, 2, (n, K))
    s = rng.integers(0, 4, n) / 3.0 if ties else rng.normal(size=n)
    qid = rng.choice(np.array(["q7", "q1", "q3", "q9", "q4"]), n)
    w = rng.uniform(0.1, 3.0, n) * (rng.uniform(size=n) > 0.15) if weighted else np.ones(n)
    return Y, s, qid, w


@pytest.mark.parametrize("seed", range(12))
def test_grouped_stats_match_a_loop_over_queries_with_sklearn(seed):
    """Claim: per-query AUC, AP, P, N and row weight equal sklearn's per query, with ties, weights
    and single-class queries (NaN there)."""
    Y, s, qid, w = _data(seed, 40, 3, ties=seed % 2 == 0, weighted=seed % 3 != 0)
    st = grouped_stats(Y, s, qid, sample_weight=w)
    ids, auc, ap, P, N, W = _reference(Y, s, qid, w)
    assert st.query_ids.tolist() == ids.tolist()
    np.testing.assert_allclose(st.auc, auc, rtol=0, atol=1e-12)
    np.testing.assert_allclose(st.ap, ap, rtol=0, atol=1e-12)
    np.testing.assert_allclose(st.pos, P, rtol=1e-12)
    np.testing.assert_allclose(st.neg, N, rtol=1e-12)
    np.testing.assert_allclose(st.weight, W, rtol=1e-12)
    assert st.n.tolist() == [int((qid == v).sum()) for v in ids]


def test_single_class_queries_are_nan_and_group_auc_warns_when_none_is_defined():
    """Claim: a query with one class has NaN AUC (and NaN AP without positives); gAUC averages
    the others; with no defined query group_auc returns NaN with UndefinedMetricWarning."""
    y, s, q = [1, 1, 0, 1, 0, 0], [0.3, 0.2, 0.1, 0.9, 0.8, 0.5], [0, 0, 1, 2, 2, 2]
    st = grouped_stats(y, s, q)
    assert np.isnan(st.auc[0, 0]) and np.isnan(st.auc[1, 0]) and st.auc[2, 0] == 1.0
    assert np.isnan(st.ap[1, 0]) and st.ap[0, 0] == 1.0
    assert group_auc(y, s, q) == 1.0
    with pytest.warns(UndefinedMetricWarning, match="no group has both classes"):
        assert np.isnan(group_auc([1, 1, 0], [0.1, 0.2, 0.3], [0, 0, 1]))


@pytest.mark.parametrize("weighting", ["pairs", "uniform", "impressions"])
@pytest.mark.parametrize("seed", range(6))
def test_group_auc_is_the_weighted_mean_of_the_reference_query_aucs(seed, weighting):
    """Claim: gAUC = Σ λ_q AUC_q / Σ λ_q over defined queries, λ = P N, 1 or the row weight."""
    Y, s, qid, w = _data(seed, 50, 1, ties=seed % 2 == 1, weighted=True)
    _, auc, _, P, N, W = _reference(Y, s, qid, w)
    ok = np.isfinite(auc[:, 0])
    lam = {"pairs": (P * N)[:, 0], "uniform": np.ones(len(W)), "impressions": W}[weighting][ok]
    expected = np.sum(lam * auc[ok, 0]) / lam.sum()
    assert group_auc(Y[:, 0], s, qid, sample_weight=w, weighting=weighting) == pytest.approx(
        expected, abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_multipartite_per_query_matches_a_loop_of_multipartite_auc(seed):
    """Claim: the engine's per-query multipartite AUC equals multipartite_auc on each query's
    rows with the costs restricted to the levels present (NaN below two levels)."""
    rng = np.random.default_rng(seed)
    n = 60
    y = rng.integers(0, 4, n)
    s = rng.integers(0, 5, n) / 4.0
    q = rng.integers(0, 7, n)
    w = rng.uniform(0.2, 2.0, n) if seed % 2 else None
    levels = np.unique(y)
    C = cost_matrix(levels, "gain")
    seg = QuerySegments(s, q)
    got, n_levels = seg.multipartite(np.searchsorted(levels, y), len(levels), C, w)
    for g, v in enumerate(np.unique(q)):
        m = q == v
        present = np.unique(y[m])
        assert n_levels[g] == len(present)
        if len(present) < 2:
            assert np.isnan(got[g])
            continue
        ref = multipartite_auc(y[m], s[m], costs="gain", sample_weight=None if w is None else w[m])
        assert got[g] == pytest.approx(ref, abs=1e-12)


def test_segments_below_above_and_rows():
    """Claim: below/above are the sums over strictly lower/higher tie groups of the same query,
    and at_rows hands a tie group's value to each of its rows (brute force)."""
    rng = np.random.default_rng(3)
    s, q, v = rng.integers(0, 4, 30).astype(float), rng.integers(0, 3, 30), rng.uniform(size=30)
    seg = QuerySegments(s, q)
    G = seg.sums(v)
    lo, hi = seg.at_rows(seg.below(G))[0], seg.at_rows(seg.above(G))[0]
    for i in range(30):
        same = q == q[i]
        assert lo[i] == pytest.approx(v[same & (s < s[i])].sum())
        assert hi[i] == pytest.approx(v[same & (s > s[i])].sum())


def test_without_qid_one_query_is_the_pooled_auc():
    """Claim: no query ids = one query: the pooled AUC of sklearn."""
    Y, s, _, w = _data(5, 80, 1, ties=True, weighted=True)
    auc, P, N = QuerySegments(s).auc(w * Y[:, 0], w * (1 - Y[:, 0]))
    assert auc[0, 0] == pytest.approx(roc_auc_score(Y[:, 0], s, sample_weight=w), abs=1e-12)


def test_groups_is_a_deprecated_alias_of_qid():
    """Claim: groups= still works, with a FutureWarning, and gives the qid= value; both at once,
    or neither, is a TypeError naming them."""
    y, s, q = [0, 1, 0, 1], [0.2, 0.1, 0.3, 0.9], [0, 0, 1, 1]
    with pytest.warns(FutureWarning, match="'groups' parameter of group_auc is deprecated"):
        assert group_auc(y, s, groups=q) == group_auc(y, s, q)
    with pytest.warns(FutureWarning, match="ndcg_at_k"):
        assert ndcg_at_k(y, s, groups=q) == ndcg_at_k(y, s, qid=q)
    with pytest.raises(TypeError, match="both 'qid' and"):
        group_auc(y, s, q, groups=q)
    with pytest.raises(TypeError, match="'qid'"):
        group_auc(y, s)


def test_unchecked_codes_may_skip_queries():
    """Claim: internal callers pass a subset of the codes (a validation split); a code without
    rows is an empty query (NaN AUC, n = 0) and the others are as with compact codes."""
    s, y = np.array([0.1, 0.2, 0.3, 0.4, 0.5]), np.array([[0], [1], [1], [0], [1]])
    sparse = grouped_stats(y, s, np.array([0, 0, 3, 3, 3]), check_input=False)
    dense = grouped_stats(y, s, np.array([0, 0, 1, 1, 1]))
    assert sparse.n.tolist() == [2, 0, 0, 3] and np.isnan(sparse.auc[1:3]).all()
    np.testing.assert_array_equal(sparse.auc[[0, 3]], dense.auc)
    assert sparse.gauc("uniform") == dense.gauc("uniform")


def test_grouped_stats_rejects_bad_query_ids():
    with pytest.raises(ValueError, match="'qid'.*finite"):
        grouped_stats([0, 1], [0.1, 0.2], [0.0, np.nan])
    with pytest.raises(ValueError, match="Inconsistent"):
        grouped_stats([0, 1], [0.1, 0.2], [0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        grouped_stats([0, 1], [0.1, 0.2], [0, 0])  # defined: no warning


@pytest.mark.parametrize("q", [
    np.array([5, -3, 5, 7, -3, 100]),                     # integers, small span: lookup table
    np.array([3, 1, 3], dtype=np.uint8),
    np.array([True, False, True]),
    np.array([10**12, 7, 10**12]),                        # wide span: np.unique
    np.array([2**63 + 5, 2**63 + 5, 2**63 + 9], dtype=np.uint64),
    np.array(["b", "a", "b"]),
    np.array([0.5, -1.0, 0.5]),
])
def test_check_qid_factorises_as_np_unique(q):
    """Claim: the query codes and ids equal np.unique(q, return_inverse=True) on every route."""
    from bipartite._utils.validation import check_qid

    codes, ids = check_qid(q, len(q), return_ids=True)
    want_ids, want_codes = np.unique(q, return_inverse=True)
    assert codes.dtype == np.int64 and codes.tolist() == want_codes.tolist()
    assert ids.dtype == want_ids.dtype and ids.tolist() == want_ids.tolist()


# ---------------------------------------------------------------------------------------------
# A light query after heavy ones (found by review): the running sum's offset must not swamp it
# ---------------------------------------------------------------------------------------------
def _brute_query_auc(y, s, w):
    """O(n²) weighted AUC of one query, ties ½."""
    num = den = 0.0
    for i in range(len(y)):
        for j in range(len(y)):
            if y[i] == 1 and y[j] == 0:
                num += w[i] * w[j] * (1.0 if s[i] > s[j] else 0.5 if s[i] == s[j] else 0.0)
                den += w[i] * w[j]
    return num / den


def test_a_light_query_after_heavy_ones_keeps_its_own_aucs():
    """Counterexample pinned: weights 1e17 in query 0 and 1 in query 1 gave query 1 an AUC of 0
    (true 0.5) in every per-query route, because each query's lower sums were a running sum
    over all queries minus its offset."""
    from bipartite.diagnostics import diagnose
    from bipartite.metrics import group_auc

    s = np.array([0, 1, 2, 3, 0.1, 0.2, 0.3, 0.4])
    q = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    y = np.array([0, 1, 0, 1, 1, 0, 0, 1])
    z = np.array([1, 0, 1, 0, 0, 1, 1, 0])
    w = np.array([1e17] * 4 + [1.0] * 4)
    truth = {(k, lab): _brute_query_auc(v[q == k], s[q == k], w[q == k])
             for k in (0, 1) for lab, v in (("y", y), ("z", z))}
    assert truth[(1, "y")] == 0.5
    assert group_auc(y, s, qid=q, sample_weight=w, weighting="uniform") == pytest.approx(
        (truth[(0, "y")] + truth[(1, "y")]) / 2, abs=1e-15)
    df = pd.DataFrame({"s": s, "q": q, "y": y, "z": z, "w": w})
    pq = diagnose(df, scores="s", labels=["y", "z"], qid="q", weight="w").tables["per_query"]
    for row in pq.itertuples():
        assert row.auc == pytest.approx(truth[(row.qid, row.label)], abs=1e-15)


@pytest.mark.parametrize("seed", range(4))
def test_segment_below_equals_a_loop_over_segments(seed):
    """Claim: the lower sums of each segment equal a per-segment running sum (exactly for
    integer counts; for weights spanning 30 orders of magnitude across segments, within a few
    ``BELOW_OFFSET_RATIO · 2**-53`` ≈ 1e-10 of the segment's own mass, the documented bound)."""
    from bipartite.metrics._sorted_rows import BELOW_OFFSET_RATIO, segment_below

    rng = np.random.default_rng(seed)
    lens = rng.integers(1, 6, size=30)
    first = np.r_[0, np.cumsum(lens)[:-1]]
    G = rng.random((2, lens.sum())) * np.repeat(10.0 ** rng.integers(-15, 16, size=30), lens)
    B = segment_below(G, first)
    counts = rng.integers(0, 9, size=(2, lens.sum()))
    C = segment_below(counts, first)
    for a, n in zip(first, lens, strict=True):
        assert np.array_equal(C[:, a:a + n], np.cumsum(counts[:, a:a + n], axis=1)
                              - counts[:, a:a + n])
        ref = np.concatenate([np.zeros((2, 1)), np.cumsum(G[:, a:a + n - 1], axis=1)], axis=1)
        mass = G[:, a:a + n].sum(axis=1, keepdims=True)
        assert np.all(np.abs(B[:, a:a + n] - ref) <= 4 * BELOW_OFFSET_RATIO * 2.0**-53 * mass)
    assert C.dtype.kind == "i"


def test_a_light_query_whose_auc_underflows_is_named_not_called_one_class():
    """Claim: a query with both classes whose P_q N_q underflows in float64 (weights 1e-170 next
    to 1: a known limitation, pinned in tests/test_diagnostics_scan_reference.py) gives NaN with a
    warning that says so, for group_auc and the report, not the false "no group has both
    classes" (found by review). Weights of 1e-100 still give the exact gAUC, 1.0; since
    issue 35 group_auc scales each query's weights by its own power of two
    (:func:`bipartite.metrics._grouped.query_scaled`), so 1e-170 does too, and so does the
    report in memory (the same query_scaled and per-query statistics)."""
    from bipartite.diagnostics import diagnose

    y, s, q = [1, 0, 1, 0], [0.9, 0.1, 0.8, 0.2], [0, 0, 1, 1]
    assert group_auc(y, s, qid=q, sample_weight=[1, 1, 1e-100, 1e-100]) == 1.0
    for weighting in ("pairs", "uniform", "impressions"):
        assert group_auc(y, s, qid=q, sample_weight=[1, 1, 1e-170, 1e-170],
                         weighting=weighting) == 1.0
    df = pd.DataFrame({"s": s, "y": y, "q": q, "w": [1, 1, 1e-170, 1e-170]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        row = diagnose(df, "s", "y", qid="q", weight="w").tables["auc"].iloc[0]
    # the default "pairs" weighting: the light query's λ = P N is 1e-340 of the heavy one's,
    # below float64's smallest subnormal (2⁻¹⁰⁷⁴ ≈ 4.9e-324), so it carries no weight in the
    # gAUC; its clustered variance and t interval count the one query with weight (review)
    assert 1e-170 ** 2 == 0.0
    assert row["gauc"] == 1.0 and row["n_queries_defined"] == 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        row = diagnose(df, "s", "y", qid="q", weight="w",
                       gauc_weighting="uniform").tables["auc"].iloc[0]
    assert row["gauc"] == 1.0 and row["n_queries_defined"] == 2


def test_grouped_stats_takes_each_query_auc_scale_free():
    """Issue 35's fixture with query weights 1e300 and 1e-300: the public ``grouped_stats``
    keeps the light query's AUC (exact: 3 of 4 pairs, 0.75; it read NaN), and its gAUCs equal
    ``group_auc``'s for every weighting (found while making the report scale-free)."""
    y = np.array([0, 1, 0, 1, 1, 0, 0, 1])
    s = np.array([.125, .5, .375, .875, .25, .625, .125, .75])
    q = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    w = np.array([1e300] * 4 + [1e-300] * 4)
    gs = grouped_stats(y[:, None], s, q, sample_weight=w)
    # query 0: positives .5, .875 above negatives .125, .375: 4 of 4; query 1: positives .25,
    # .75 against negatives .625, .125: 3 of 4
    np.testing.assert_allclose(gs.auc[:, 0], [1.0, 0.75], rtol=1e-15)  # 1e-300 products round
    for weighting in ("pairs", "uniform", "impressions"):
        assert gs.gauc(weighting)[0] == group_auc(y, s, qid=q, sample_weight=w,
                                                  weighting=weighting)
