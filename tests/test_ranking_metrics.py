"""group_auc, average_precision, ndcg_at_k and grouped_stats on the packed-key sort and block
scan (bipartite/metrics/_ranking.py) against slow, obviously-correct references: a Python loop
over the queries calling scikit-learn's roc_auc_score, average_precision_score and ndcg_score.
The block length is shrunk and the score buckets narrowed so that tie groups and queries cross
block boundaries and distinct scores collide in one bucket (the exact re-sort)."""

from __future__ import annotations

import warnings
from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import average_precision_score, ndcg_score, roc_auc_score

import bipartite.metrics._ranking as ranking
from bipartite import UndefinedMetricWarning
from bipartite.metrics import average_precision, group_auc, grouped_stats, ndcg_at_k
from bipartite.metrics._ranking import SortedRows


# -- slow references -------------------------------------------------------------------------
def ref_query_aucs(y, s, q, w):
    """Per distinct query (sorted): sklearn's AUC (NaN with one class), P and N, row weight."""
    out = []
    for v in np.unique(q):
        m = q == v
        P, N = (w[m] * y[m]).sum(), (w[m] * (1 - y[m])).sum()
        a = roc_auc_score(y[m], s[m], sample_weight=w[m]) if P > 0 and N > 0 else np.nan
        out.append((a, P, N, w[m].sum()))
    return np.array(out)


def ref_group_auc(y, s, q, w, weighting):
    r = ref_query_aucs(y, s, q, w)
    ok = np.isfinite(r[:, 0])
    lam = {"pairs": r[:, 1] * r[:, 2], "uniform": np.ones(len(r)), "impressions": r[:, 3]}
    lam = lam[weighting][ok]
    return np.sum(lam * r[ok, 0]) / lam.sum() if ok.any() else np.nan


def ref_ndcg(rel, s, q, k, gain):
    per = []
    for v in np.unique(q):
        m = q == v
        g = np.exp2(rel[m]) - 1 if gain == "exponential" else rel[m]
        if g.max() <= 0:
            continue
        per.append(ndcg_score(g[None], s[m][None], k=k) if m.sum() > 1 else 1.0)
    return np.mean(per) if per else np.nan


# -- data ------------------------------------------------------------------------------------
@st.composite
def ranking_data(draw):
    """Rows with tied scores (few distinct values) or continuous ones, query ids (sparse,
    negative; single-row and single-class queries arise), 0/1 labels, weights with zeros,
    grades 0..4."""
    n = draw(st.integers(1, 60))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    ties = draw(st.booleans())
    s = rng.integers(0, draw(st.integers(1, 5)), n) / 3.0 if ties else rng.normal(size=n)
    q = rng.integers(0, draw(st.integers(1, 6)), n) * 7 - 3  # sparse, negative ids
    y = rng.integers(0, 2, n)
    w = rng.uniform(0.1, 3.0, n) * (rng.uniform(size=n) > 0.2)
    rel = rng.integers(0, 5, n)
    return s, q, y, w, rel


@pytest.fixture(params=["default", "tiny blocks", "collisions"])
def engine(request, monkeypatch):
    """The default engine; blocks of 3 rows (groups and queries cross blocks); and 2-bit
    score buckets (distinct scores collide and are re-sorted exactly)."""
    if request.param == "tiny blocks":
        monkeypatch.setattr(ranking, "BLOCK", 3)
    if request.param == "collisions":
        monkeypatch.setattr(SortedRows, "max_bucket_bits", 2)
        monkeypatch.setattr(ranking, "BLOCK", 5)
    return request.param


@contextmanager
def engine_settings(block, bucket_bits):
    """The scan's block length and the bucket bits set for one hypothesis example."""
    old = ranking.BLOCK, SortedRows.max_bucket_bits
    ranking.BLOCK, SortedRows.max_bucket_bits = block, bucket_bits
    try:
        yield
    finally:
        ranking.BLOCK, SortedRows.max_bucket_bits = old


engines = st.sampled_from([(1 << 14, 53), (3, 53), (4, 2)])


# -- the sort --------------------------------------------------------------------------------
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("kind", ["continuous", "ties", "close", "extreme"])
def test_sorted_rows_is_the_lexsort_order_and_its_tie_groups(kind, descending, engine):
    """Claim: the packed-key order is exactly np.lexsort((row, carried, ±score, query)), and
    the tie groups start where (query, score) changes."""
    rng = np.random.default_rng(len(kind))
    n = 200
    s = {"continuous": rng.normal(size=n), "ties": rng.integers(0, 4, n) / 3.0,
         "close": 1.0 + rng.integers(0, 6, n) * 2.0**-50,  # distinct scores one bucket apart
         "extreme": rng.choice([-1.7e308, -5e-324, -0.0, 0.0, 5e-324, 1e-300, 1.7e308], n)}[kind]
    q, low = rng.integers(0, 5, n), rng.integers(0, 4, n)
    rows = SortedRows(s, q, 5, low=low, low_bits=2, descending=descending)
    want = np.lexsort((np.arange(n), low, -s if descending else s, q))
    np.testing.assert_array_equal(rows.order(), want)
    ss, qs = s[want], q[want]
    new = np.r_[True, (ss[1:] != ss[:-1]) | (qs[1:] != qs[:-1])]
    np.testing.assert_array_equal(rows.tie_starts(), np.flatnonzero(new))


# -- the metrics against sklearn -----------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(data=ranking_data(), weighting=st.sampled_from(["pairs", "uniform", "impressions"]),
       weighted=st.booleans(), eng=engines)
def test_group_auc_is_the_reference_gauc(data, weighting, weighted, eng):
    """Claim: group_auc equals the λ-weighted mean of sklearn's per-query AUC over the queries
    with both classes (ties ½, sample weights, empty and single-class queries), and NaN with an
    UndefinedMetricWarning when no query has both classes."""
    s, q, y, w, _ = data
    w = w if weighted else np.ones(len(s))
    want = ref_group_auc(y, s, q, w, weighting)
    kw = dict(sample_weight=w) if weighted else {}
    with engine_settings(*eng):
        if np.isnan(want):
            with pytest.warns(UndefinedMetricWarning, match="no group has both classes"):
                assert np.isnan(group_auc(y, s, q, weighting=weighting, **kw))
        else:
            got = group_auc(y, s, q, weighting=weighting, **kw)
            assert got == pytest.approx(want, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(data=ranking_data(), weighted=st.booleans(), eng=engines)
def test_average_precision_is_sklearns(data, weighted, eng):
    """Claim: average_precision equals sklearn's average_precision_score (tied scores one
    threshold, sample weights), and NaN with a warning when no positive has weight."""
    s, _, y, w, _ = data
    w = w if weighted else np.ones(len(s))
    kw = dict(sample_weight=w) if weighted else {}
    with engine_settings(*eng):
        if not np.any(w * y > 0):
            with pytest.warns(UndefinedMetricWarning, match="no positive label"):
                assert np.isnan(average_precision(y, s, **kw))
        else:
            assert average_precision(y, s, **kw) == pytest.approx(
                average_precision_score(y, s, sample_weight=w), abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(data=ranking_data(), k=st.sampled_from([1, 3, 10, None]),
       gain=st.sampled_from(["exponential", "linear"]), graded=st.booleans(),
       grouped=st.booleans(), eng=engines)
def test_ndcg_is_the_mean_of_sklearns_per_query(data, k, gain, graded, grouped, eng):
    """Claim: ndcg_at_k is the mean over queries with a relevant item of sklearn's ndcg_score
    (ties averaged), for integer grades (the level rides in the keys) and real-valued relevance
    (a second sort for the ideal order); NaN with a warning when no query has one."""
    s, q, _, _, rel = data
    rel = rel.astype(float) if graded else rel * 0.37
    q = q if grouped else np.zeros(len(s), dtype=int)
    want = ref_ndcg(rel, s, q, k, gain)
    kw = dict(qid=q) if grouped else {}
    with engine_settings(*eng):
        if np.isnan(want):
            with pytest.warns(UndefinedMetricWarning, match="no group has a relevant item"):
                assert np.isnan(ndcg_at_k(rel, s, k=k, gain=gain, **kw))
        else:
            got = ndcg_at_k(rel, s, k=k, gain=gain, **kw)
            assert got == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_metrics_match_the_references_across_blocks_and_collisions(seed, engine):
    """Claim: with tie groups and queries crossing block boundaries and colliding buckets, every
    metric and the per-query statistics still equal the sklearn references."""
    rng = np.random.default_rng(seed)
    n = 300
    s = rng.integers(0, 6, n) / 3.0 if seed % 2 else rng.normal(size=n)
    q = np.sort(rng.integers(0, 9, n)) if seed < 2 else rng.integers(0, 9, n)
    y, rel = rng.integers(0, 2, n), rng.integers(0, 4, n)
    w = rng.uniform(0.1, 3.0, n) * (rng.uniform(size=n) > 0.2)
    for weighting in ["pairs", "uniform", "impressions"]:
        assert group_auc(y, s, q, sample_weight=w, weighting=weighting) == pytest.approx(
            ref_group_auc(y, s, q, w, weighting), abs=1e-12)
        assert group_auc(y, s, q, weighting=weighting) == pytest.approx(
            ref_group_auc(y, s, q, np.ones(n), weighting), abs=1e-12)
    assert average_precision(y, s, sample_weight=w) == pytest.approx(
        average_precision_score(y, s, sample_weight=w), abs=1e-12)
    assert average_precision(y, s) == pytest.approx(average_precision_score(y, s), abs=1e-12)
    for k in [1, 5, None]:
        assert ndcg_at_k(rel, s, k=k, qid=q) == pytest.approx(
            ref_ndcg(rel, s, q, k, "exponential"), abs=1e-12)
        assert ndcg_at_k(rel * 0.5, s, k=k, qid=q, gain="linear") == pytest.approx(
            ref_ndcg(rel * 0.5, s, q, k, "linear"), abs=1e-12)
    Y = np.c_[y, rel > 1]
    stt = grouped_stats(Y, s, q, sample_weight=w)
    for kk in range(2):
        ref = ref_query_aucs(Y[:, kk], s, q, w)
        np.testing.assert_allclose(stt.auc[:, kk], ref[:, 0], atol=1e-12)
        np.testing.assert_allclose(stt.pos[:, kk], ref[:, 1], rtol=1e-12)
        np.testing.assert_allclose(stt.neg[:, kk], ref[:, 2], rtol=1e-12)
        for g, v in enumerate(np.unique(q)):
            m = q == v
            if (w[m] * Y[m, kk]).sum() > 0:
                assert stt.ap[g, kk] == pytest.approx(average_precision_score(
                    Y[m, kk], s[m], sample_weight=w[m]), abs=1e-12)
            else:
                assert np.isnan(stt.ap[g, kk])


def test_defined_values_raise_no_warning():
    """Claim: defined metrics warn nothing (the warning marks undefined values only)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        group_auc([0, 1, 1, 1], [0.1, 0.2, 0.3, 0.4], [0, 0, 1, 1])  # query 1 single-class
        average_precision([0, 1], [0.5, 0.5])
        ndcg_at_k([0, 1, 0, 0], [0.1, 0.2, 0.3, 0.4], qid=[0, 0, 1, 1])


def test_too_many_key_bits_are_refused_before_allocating():
    """Claim: rows, queries and carried bits beyond the 64 key bits are refused by name."""
    with pytest.raises(ValueError, match="Too many rows and queries"):
        SortedRows(np.zeros(3), np.zeros(3, dtype=np.int64), 2**40, low=np.zeros(3),
                   low_bits=30)
