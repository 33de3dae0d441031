"""QueryRows, the rows of each query without scores (bipartite.metrics), against the obvious
per-query loop; and QuerySegments' rows per query, which it serves."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bipartite.metrics import QueryRows, QuerySegments


def _slow_rows(qid):
    """{id: rows ascending} by a loop over the distinct ids, ascending."""
    ids = sorted(set(qid))
    return ids, [np.array([i for i, q in enumerate(qid) if q == g], dtype=np.int64) for g in ids]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-3, 5), min_size=1, max_size=40))
def test_query_rows_match_a_loop_over_the_queries(qid):
    """For any integer ids: split() is each distinct id's rows in ascending row index, ids in
    ascending order; sizes, starts, order and query_ids agree with it; reduce(np.add, x) is the
    per-query sum."""
    rows = QueryRows(qid)
    ids, want = _slow_rows(qid)
    got = rows.split()
    assert len(got) == len(want) == rows.n_queries
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
    assert rows.query_ids.tolist() == ids
    np.testing.assert_array_equal(rows.sizes, [len(w) for w in want])
    np.testing.assert_array_equal(rows.order, np.concatenate(want))
    np.testing.assert_array_equal(rows.starts, np.cumsum(rows.sizes) - rows.sizes)
    x = np.arange(len(qid), dtype=np.float64) ** 2
    np.testing.assert_allclose(rows.reduce(np.add, x), [x[w].sum() for w in want])
    np.testing.assert_array_equal(rows.split(x)[0], x[want[0]])


def test_unchecked_codes_leave_out_queries_without_rows():
    """Codes with no row (a subset of the codes): not in query / sizes / split; n_queries counts
    every code up to the largest."""
    rows = QueryRows(np.array([4, 1, 4, 1, 1]), check_input=False)
    assert rows.query.tolist() == [1, 4] and rows.n_queries == 5
    assert [r.tolist() for r in rows.split()] == [[1, 3, 4], [0, 2]]


def test_no_qid_is_one_query_and_bad_input_is_refused():
    rows = QueryRows(None, 4)
    assert [r.tolist() for r in rows.split()] == [[0, 1, 2, 3]]
    with pytest.raises(ValueError, match="'n'"):
        QueryRows()
    with pytest.raises(ValueError, match="qid"):
        QueryRows([0.0, np.nan])
    with pytest.raises(ValueError, match="qid"):
        QueryRows([0, 1, 1], 4)


def test_query_segments_rows_per_query_come_from_query_rows():
    """QuerySegments is QueryRows plus a score sort: its rows per query are QueryRows' split."""
    rng = np.random.default_rng(0)
    q = rng.integers(0, 6, size=50)
    seg = QuerySegments(rng.normal(size=50), q)
    want = _slow_rows(q.tolist())[1]
    got = seg.rows_per_query()
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("G", [2, 300, 70_000, 2**33])
def test_order_is_a_stable_sort_by_query(G):
    """QueryRows.order (query_major's radix passes, one or two 16-bit digits, or a comparison
    sort past 2³² codes) equals NumPy's stable argsort of the codes."""
    rng = np.random.default_rng(G % 89)
    codes = rng.integers(0, min(G, 70_000), 3000)
    codes[:2] = [0, min(G, 70_000) - 1]
    rows = QueryRows(codes, check_input=False)
    rows.n_queries = G  # the radix route is chosen by the code count
    np.testing.assert_array_equal(rows.order, np.argsort(codes, kind="stable"))
