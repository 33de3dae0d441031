"""group_auc, average_precision, ndcg_at_k and grouped_stats on the packed-key sort and block
scan or row walks, and on the table route of few distinct scores (bipartite/metrics/_sorted_rows.py,
_cell_counts.py), against
slow, obviously-correct references: a Python loop over the queries calling scikit-learn's
roc_auc_score, average_precision_score and ndcg_score. The block length is shrunk and the score
buckets narrowed so that tie groups and queries cross block boundaries and distinct scores
collide in one bucket (the exact re-sort); the hash tables of the table route are shrunk so
that distinct scores collide in every level."""

from __future__ import annotations

import math
import warnings
from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import average_precision_score, ndcg_score, roc_auc_score

import bipartite.metrics._cell_counts as tables
import bipartite.metrics._distinct as distinct
import bipartite.metrics._sorted_rows as ranking
from bipartite import UndefinedMetricWarning
from bipartite.metrics import average_precision, group_auc, grouped_stats, ndcg_at_k
from bipartite.metrics._cell_counts import label_stats
from bipartite.metrics._distinct import distinct_ranks
from bipartite.metrics._sorted_rows import SortedRows


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


def explicit_ndcg(rel, s, q, k, gain):
    """nDCG@k written out: per query, the tie groups from the top score; each item of a group
    that occupies positions p..p+c−1 (0 at the top) gets the group's mean gain times the mean
    of the discounts 1/log2(r + 2) over those positions cut at k, so that the group's DCG is
    its mean gain times the sum of those discounts; the ideal DCG the same with the gains
    sorted (ties there change nothing). Mean over queries with a positive gain."""
    per = []
    for v in np.unique(q):
        m = q == v
        g = np.exp2(rel[m]) - 1 if gain == "exponential" else rel[m]
        kk = len(g) if k is None else k

        def dcg(order_key, g=g, kk=kk):
            total, p = 0.0, 0
            for t in sorted(set(order_key), reverse=True):
                grp = [g[i] for i in range(len(g)) if order_key[i] == t]
                disc = sum(1.0 / math.log2(r + 2) for r in range(p, p + len(grp)) if r < kk)
                total += sum(grp) / len(grp) * disc
                p += len(grp)
            return total

        ideal = dcg(list(g))
        if ideal > 0:
            per.append(dcg(list(s[m])) / ideal)
    return float(np.mean(per)) if per else np.nan


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


#: Engine settings (module attributes of bipartite.metrics._sorted_rows and, "tables." and
#: "distinct.", of bipartite.metrics._cell_counts and bipartite.metrics._distinct): the default; the sort
#: route forced (MAX_LEVELS = 0) with blocks of 3 rows (tie groups and queries cross blocks)
#: or with 2-bit score buckets (distinct scores collide and are re-sorted exactly); the table
#: route wherever the distinct scores allow (TABLE_CELLS unbounded), with the default hash or
#: with 4-slot hash tables, chunks of 3 rows and a 2-row sample (collisions at every level),
#: or with the ranks from comparisons with the sample's few values (the hash where a row holds
#: another); the sorted compact keys of a table too large (TABLE_CELLS = 0: every table), walked
#: in blocks of 3 rows (tie groups and queries cross blocks).
ENGINES = {
    "default": {},
    "tiny blocks": {"BLOCK": 3, "tables.MAX_LEVELS": 0},
    "collisions": {"SortedRows.max_bucket_bits": 2, "BLOCK": 5, "tables.MAX_LEVELS": 0},
    "table": {"tables.TABLE_CELLS": 1e9},
    "tiny hash": {"tables.TABLE_CELLS": 1e9, "distinct._HASH_BITS": 2,
                  "distinct._CHUNK": 3, "distinct._SAMPLE": 2, "distinct._FEW": 0},
    "compare": {"tables.TABLE_CELLS": 1e9, "distinct._CHUNK": 3, "distinct._SAMPLE": 2},
    "compact keys": {"tables.TABLE_CELLS": 0, "BLOCK": 3, "distinct._CHUNK": 3},
}


def _targets(name):
    for key, value in ENGINES[name].items():
        mod, _, attr = key.rpartition(".")
        yield {"": ranking, "SortedRows": SortedRows, "distinct": distinct, "tables": tables}[mod], attr, value


@pytest.fixture(params=list(ENGINES))
def engine(request, monkeypatch):
    """Each engine setting of ``ENGINES``."""
    for obj, attr, value in _targets(request.param):
        monkeypatch.setattr(obj, attr, value)
    return request.param


@contextmanager
def engine_settings(name):
    """The engine setting ``name`` of ``ENGINES`` for one hypothesis example."""
    old = [(obj, attr, getattr(obj, attr)) for obj, attr, _ in _targets(name)]
    try:
        for obj, attr, value in _targets(name):
            setattr(obj, attr, value)
        yield
    finally:
        for obj, attr, value in old:
            setattr(obj, attr, value)


engines = st.sampled_from(list(ENGINES))


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


# -- the distinct scores of the table route -------------------------------------------------
EXTREMES = [-1.7e308, -5e-324, -0.0, 0.0, 5e-324, 1e-300, 1.0 + 2.0**-52, 1.0, 1.7e308]


@settings(max_examples=80, deadline=None)
@given(vals=st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=12)
       | st.just(EXTREMES), n=st.integers(1, 200), seed=st.integers(0, 2**32 - 1),
       cap=st.integers(1, 15), eng=st.sampled_from(["default", "tiny hash", "compare"]),
       descending=st.booleans())
def test_distinct_ranks_are_exact_or_none(vals, n, seed, cap, eng, descending):
    """Claim: distinct_ranks gives the distinct scores (np.unique's: 0.0 and −0.0 are one) in
    order and each row's exact rank among them, s == v[r], whether from the hash tables or from
    comparisons with a sample's few values (rows holding a value the sample lacks included);
    it gives None only past ``cap`` distinct values, or, with 4-slot hash tables, when values
    still collide at the last level — never a wrong rank."""
    s = np.random.default_rng(seed).choice(np.array(vals, dtype=np.float64), n)
    with engine_settings(eng):
        got = distinct_ranks(s, cap, descending=descending)
    u = np.unique(s)
    if got is None:
        assert len(u) > cap or eng == "tiny hash"
        return
    r, v = got
    assert len(v) <= cap
    np.testing.assert_array_equal(v, u[::-1] if descending else u)
    assert r.dtype == np.intp and np.array_equal(v[r], s)


def test_distinct_ranks_by_comparisons_keep_the_cap_and_check_every_row():
    """Claim: the ranks from comparisons with the sample's few values are refused past ``cap``
    values, and a row holding a value the sample lacks sends them to the hash tables (exact)."""
    s = np.tile([0.0, 0.5, 1.0], 41)  # the strided sample of rows 0, 61, 122: all three
    with engine_settings("compare"):
        assert distinct_ranks(s, 2) is None
        s[7] = 0.25  # one row the strided sample of 2 rows misses
        r, v = distinct_ranks(s, 4, descending=True)
    np.testing.assert_array_equal(v, [1.0, 0.5, 0.25, 0.0])
    np.testing.assert_array_equal(v[r], s)


def test_distinct_ranks_turns_down_rare_extra_values_that_the_sample_misses():
    """Claim: a sample of few distinct values does not decide: distinct values past ``cap`` at
    rows the strided sample skips still give None, and the metrics stay exact (the sort)."""
    rng = np.random.default_rng(0)
    n = 40_000
    s = rng.integers(0, 16, n) / 15.0
    s[1::997] = rng.normal(size=len(s[1::997]))  # odd rows: never in the sample's stride
    assert distinct_ranks(s[::n // distinct._SAMPLE], 20) is not None
    assert distinct_ranks(s, 20) is None
    ok = distinct_ranks(s, 10_000)
    assert ok is not None and np.array_equal(ok[1][ok[0]], s)
    y, q = rng.integers(0, 2, n), rng.integers(0, 300, n)
    assert group_auc(y, s, q) == pytest.approx(ref_group_auc(y, s, q, np.ones(n), "pairs"),
                                               abs=1e-12)


def test_ties_take_the_table_route_and_continuous_scores_the_sort():
    """Claim: few distinct scores are summed in a (query, score, label) table — counts exact,
    the AUC numerator in integers — and continuous ones are turned down (the sort takes them);
    both routes give sklearn's per-query AUCs."""
    rng = np.random.default_rng(1)
    n = 50_000
    y, q = rng.integers(0, 2, n), rng.integers(0, 100, n)
    ties, cont = rng.integers(0, 16, n) / 15.0, rng.normal(size=n)
    assert label_stats(cont, y, q, 100) is None
    st_ = label_stats(ties, y, q, 100)
    ref = ref_query_aucs(y, ties, q, np.ones(n))
    np.testing.assert_array_equal(st_["P"][0], ref[:, 1])
    np.testing.assert_array_equal(st_["N"][0], ref[:, 2])
    np.testing.assert_allclose(st_["U"][0] / (st_["P"][0] * st_["N"][0]), ref[:, 0], atol=1e-12)
    # a table of n/8 queries x 16 levels, more cells than rows: the sorted compact keys without
    # weights, the sort of the rows with them
    n, G = 4000, 500
    y, ties, q2 = y[:n], ties[:n], rng.integers(0, G, n)
    st2 = label_stats(ties, y, q2, G, auc=True, ap=True)
    ref = ref_query_aucs(y, ties, q2, np.ones(n))
    seen = np.bincount(q2, minlength=G) > 0
    np.testing.assert_array_equal(st2["P"][0][seen], ref[:, 1])
    np.testing.assert_array_equal(st2["N"][0][seen], ref[:, 2])
    ok = (ref[:, 1] > 0) & (ref[:, 2] > 0)
    np.testing.assert_allclose(st2["U"][0][seen][ok] / (ref[ok, 1] * ref[ok, 2]), ref[ok, 0],
                               atol=1e-12)
    for g in np.flatnonzero(seen):  # AP per query: sklearn's
        m = q2 == g
        if y[m].any():
            assert st2["A"][0, g] / st2["P"][0, g] == pytest.approx(
                average_precision_score(y[m], ties[m]), abs=1e-12)
    assert label_stats(ties, y, q2, G, np.ones(n)) is None


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
    with engine_settings(eng):
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
    with engine_settings(eng):
        if not np.any(w * y > 0):
            with pytest.warns(UndefinedMetricWarning, match="no positive label"):
                assert np.isnan(average_precision(y, s, **kw))
        else:
            assert average_precision(y, s, **kw) == pytest.approx(
                average_precision_score(y, s, sample_weight=w), abs=1e-12)


@pytest.mark.parametrize("k", [1, None])
@pytest.mark.parametrize("top", [60, 120, 300])
def test_ndcg_of_large_exponential_grades_in_many_small_queries(k, top):
    """Claim: ndcg_at_k equals sklearn's per-query mean for integer grades up to ``top`` with
    exponential gain, few distinct scores and many small queries (the compact-key route).
    Counterexample found by review, pinned: the tie groups' gain sums were differences of one
    cumulative sum over a block of queries, so a small query after a 2^60 − 1 gain lost its
    gains (``ndcg_at_k([60, 0, 5], [0.1, 0.5, 0.3], qid=[0, 1, 1], gain="exponential")`` read
    0.5, sklearn 0.8155)."""
    assert ndcg_at_k([60, 0, 5], [0.1, 0.5, 0.3], qid=[0, 1, 1], gain="exponential") == \
        pytest.approx(ref_ndcg(np.array([60, 0, 5]), np.array([0.1, 0.5, 0.3]),
                               np.array([0, 1, 1]), None, "exponential"), rel=1e-12)
    rng = np.random.default_rng(top)
    n, G = 4000, 1500
    s = rng.integers(0, 3, n) / 7.0
    q = np.sort(rng.integers(0, G, n))
    rel = rng.integers(0, 3, n)
    rel[rng.integers(0, n, 8)] = top
    got = ndcg_at_k(rel, s, qid=q, k=k, gain="exponential")
    assert got == pytest.approx(ref_ndcg(rel, s, q, k, "exponential"), rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(data=ranking_data(), k=st.sampled_from([1, 3, 10, None]),
       gain=st.sampled_from(["exponential", "linear"]), graded=st.booleans(),
       grouped=st.booleans(), eng=engines)
def test_ndcg_is_the_mean_of_sklearns_per_query(data, k, gain, graded, grouped, eng):
    """Claim: ndcg_at_k is the mean over queries with a relevant item of sklearn's ndcg_score
    and of the explicit DCG ratio (ties averaged; the two references agree), for integer
    grades (the level rides in the keys, or a grade axis of the table) and real-valued
    relevance (a second sort or table for the ideal order); NaN with a warning when no query
    has one."""
    s, q, _, _, rel = data
    rel = rel.astype(float) if graded else rel * 0.37
    q = q if grouped else np.zeros(len(s), dtype=int)
    want = ref_ndcg(rel, s, q, k, gain)
    explicit = explicit_ndcg(rel, s, q, k, gain)
    assert (np.isnan(want) and np.isnan(explicit)) or explicit == pytest.approx(want, abs=1e-12)
    kw = dict(qid=q) if grouped else {}
    with engine_settings(eng):
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


# -- the row walks of the sort route against the tie-group scan --------------------------------
def _scan_settings(rng, trial):
    """Random block lengths and, one trial in three, 2-bit score buckets (collision splits)."""
    return {"BLOCK": int(rng.integers(1, 40))}, (2 if trial % 3 == 0 else 53)


def test_sorted_label_stats_equal_the_tie_group_scan(monkeypatch):
    """Claim: the AUC numerator and per-query AP from the row walk (cumulative sums per row, tie
    groups only where rows tie) equal those of the tie-group scan (ranking_stats), exactly for
    the integer AUC sums, on continuous scores, heavy ties and colliding buckets, with one query
    and many, blocks of 1 to 40 rows (queries and ties across blocks)."""
    from bipartite.metrics._cell_counts import sorted_label_stats
    from bipartite.metrics._per_query import label_values as _label_values
    from bipartite.metrics._sorted_rows import ranking_stats

    rng = np.random.default_rng(5)
    for trial in range(150):
        n, G = int(rng.integers(1, 300)), int(rng.integers(1, 8))
        s = rng.integers(0, rng.integers(1, 20), n) / 7.0 if trial % 2 else rng.normal(size=n)
        y, q = rng.integers(0, 2, n), rng.integers(0, G, n)
        attrs, bits = _scan_settings(rng, trial)
        monkeypatch.setattr(ranking, "BLOCK", attrs["BLOCK"])
        monkeypatch.setattr(SortedRows, "max_bucket_bits", bits)
        for codes, GG in ((q, G), (None, 1)):
            rows = SortedRows(s, codes, GG, low=y, low_bits=1, descending=True)
            got = sorted_label_stats(rows, auc=True, ap=True)
            want = ranking_stats(rows, _label_values(rows, None), auc=True, ap=True)
            assert set(got) == set(want)
            for key in ("P", "N", "U"):
                assert np.array_equal(got[key], want[key]), (trial, key)
            np.testing.assert_allclose(got["A"], want["A"], rtol=1e-13, atol=1e-13)


def test_window_dcg_equals_the_scan_of_every_row(monkeypatch):
    """Claim: the DCG@k read from each query's first k sorted rows (tie groups followed past
    the window to their end) equals the DCG of the scan over every row, on continuous scores,
    heavy ties (groups that straddle the cut-off) and colliding buckets."""
    from bipartite.metrics._cell_counts import _window_dcg
    from bipartite.metrics._sorted_rows import dcg_per_query, discount_sums

    rng = np.random.default_rng(6)
    used = 0
    for trial in range(200):
        n, G = int(rng.integers(1, 300)), int(rng.integers(1, 12))
        s = rng.integers(0, rng.integers(1, 20), n) / 7.0 if trial % 2 else rng.normal(size=n)
        q, g = rng.integers(0, G, n), rng.uniform(0, 3, n)
        _, bits = _scan_settings(rng, trial)
        monkeypatch.setattr(SortedRows, "max_bucket_bits", bits)
        rows = SortedRows(s, q, G, descending=True)
        n_q, kk = np.bincount(q, minlength=G), int(rng.integers(1, 6))
        D = discount_sums(kk, int(n_q.max()))
        got = _window_dcg(rows.keys, rows.shift, rows.split,
                          lambda k, rows=rows, g=g: g.take((k & rows.idx_mask).view(np.intp)),
                          n_q, kk, D)
        want = dcg_per_query(rows, lambda a, b, rows=rows, g=g: g[rows.index(a, b)], D)
        if got is not None:
            used += 1
            np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13)
    assert used > 100  # the windows were read, not handed back to the scan


@settings(max_examples=100, deadline=None)
@given(vals=st.lists(st.sampled_from([0.0, -0.0, 1.5, -2.0, 7.0, 1e300, 3.25]), min_size=1,
                     max_size=40), k=st.integers(1, 5))
def test_few_values_are_np_uniques_or_none(vals, k):
    """Claim: the few distinct values of a sample by min/max passes are np.unique's (0.0 and
    −0.0 one value) when at most k, else None."""
    x = np.array(vals)
    got, want = distinct._few_values(x, k), np.unique(x)
    if len(want) <= k:
        assert got is not None and got.tolist() == want.tolist()
    else:
        assert got is None


def test_window_dcg_of_compact_keys_equals_their_full_walk():
    """Claim: on the compact (query, level, grade) keys of a large table, the DCG@k of each
    query's first k sorted keys (tie groups straddling the cut-off followed to their end, a
    single grade: no grade bits) and the ideal DCG from the grade counts equal the walk of
    every key (_key_dcg)."""
    from bipartite.metrics._cell_counts import (
        _NO_SPLIT,
        _cell_keys,
        _grade_ideal_dcg,
        _key_dcg,
        _table_levels,
        _window_dcg,
    )
    from bipartite.metrics._sorted_rows import key_bits

    rng = np.random.default_rng(3)
    used = 0
    for _ in range(200):
        n = int(rng.integers(1, 500))
        s = rng.integers(0, rng.integers(1, 40), n) / 3.0
        q, lev = rng.integers(0, rng.integers(1, 9), n), rng.integers(0, rng.integers(1, 6), n)
        G, L = int(q.max()) + 1, int(lev.max()) + 1
        lut = np.exp2(np.arange(L)) - 1
        rk = _table_levels(s, G, sortable=True)
        k = _cell_keys(rk, q, G, lev, key_bits(L))
        kk = int(rng.integers(1, 8))
        want_dcg, want_idcg = _key_dcg(k, key_bits(len(rk.values)), key_bits(L), lut, G, kk)
        n_q, D, idcg = _grade_ideal_dcg(q, G, lev, lut, kk)
        mask = k.dtype.type((1 << key_bits(L)) - 1)
        got = _window_dcg(k, key_bits(L), _NO_SPLIT,
                          lambda x, lut=lut, mask=mask: lut.take((x & mask).astype(np.intp)),
                          n_q, kk, D)
        np.testing.assert_allclose(idcg, want_idcg, rtol=1e-13, atol=1e-13)
        if got is not None:
            used += 1
            np.testing.assert_allclose(got, want_dcg, rtol=1e-13, atol=1e-13)
    assert used > 100
