"""The fast paths of the input checks (bipartite/_utils/validation.py) against slow,
obviously-correct references: the query-id factorisation against ``np.unique``, the finiteness
and sign checks by reductions against elementwise passes, and the integer-keeping conversion;
every error names the argument and the value."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bipartite._utils.validation import (
    check_array,
    check_finite,
    check_nonnegative,
    check_qid,
)
from bipartite.metrics import group_auc, ndcg_at_k

RNG = np.random.default_rng(0)
IDS = {
    "codes in order": np.repeat(np.arange(50), 4),
    "codes shuffled": RNG.permutation(np.repeat(np.arange(50), 4)),
    "codes with a gap": np.array([0, 2, 2, 5, 0]),
    "int32 codes": np.array([1, 0, 2, 1], dtype=np.int32),
    "shifted": np.array([7, 9, 8, 7]),
    "negative": np.array([5, -3, 5, 7, -3, 100]),
    "huge": np.array([10**12, 7, 10**12]),
    "uint64 huge": np.array([2**63 + 5, 2**63 + 5, 2**63 + 9], dtype=np.uint64),
    "uint8": np.array([3, 1, 3], dtype=np.uint8),
    "bool": np.array([True, False, True]),
    "big-endian": np.array([2, 0, 1, 2], dtype=">i8"),
    "reals": np.array([0.5, -1.0, 0.5]),
    "strings": np.array(["b", "a", "b", "c"]),
    "strings in runs": np.array(["x", "x", "a", "a", "m"]),
    "one row": np.array([4]),
    "strided view": np.arange(40)[::2] % 7,
}


@pytest.mark.parametrize("name", list(IDS))
def test_check_qid_codes_are_np_uniques_inverse(name):
    """Claim: on every route (ids already codes, lookup table, runs, np.unique) the codes and
    ids equal ``np.unique(q, return_inverse=True)``, and the caller's ids are unchanged."""
    q = IDS[name]
    before = q.copy()
    codes, ids = check_qid(q, len(q), return_ids=True)
    want_ids, want_codes = np.unique(q, return_inverse=True)
    assert codes.dtype == np.int64 and codes.tolist() == want_codes.tolist()
    assert ids.dtype == want_ids.dtype and ids.tolist() == want_ids.tolist()
    assert np.array_equal(q, before)


@settings(max_examples=100, deadline=None)
@given(q=st.lists(st.integers(-5, 40), min_size=1, max_size=60), shift=st.sampled_from([0, 0, 3]))
def test_check_qid_random_integer_ids_are_np_uniques_inverse(q, shift):
    """Claim: random small integer ids (dense, sparse, negative) factorise as np.unique."""
    q = np.array(q, dtype=np.int64) + shift
    codes, ids = check_qid(q, len(q), return_ids=True)
    want_ids, want_codes = np.unique(q, return_inverse=True)
    assert codes.tolist() == want_codes.tolist() and ids.tolist() == want_ids.tolist()


def test_int64_codes_are_a_read_only_view_of_the_ids():
    """Claim: int64 ids that are already codes come back without a copy, read-only: an
    in-place write by a caller is an error, not a change to the caller's ids."""
    q = RNG.permutation(np.repeat(np.arange(30), 3))
    codes = check_qid(q, len(q))
    assert np.shares_memory(codes, q) and not codes.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        codes[0] = 5
    assert q.flags.writeable  # the caller's array keeps its flag


@pytest.mark.parametrize("name", list(IDS))
def test_sparse_codes_are_the_ids_or_the_dense_codes(name):
    """Claim: ``dense=False`` keeps non-negative integer ids up to 4 n as their own codes (int64,
    equal values) and factorises every other id as ``dense=True`` does."""
    q = IDS[name]
    codes = check_qid(q, len(q), dense=False)
    assert codes.dtype == np.int64
    if q.dtype.kind in "biu" and q.min() >= 0 and q.max() <= 4 * len(q):
        assert codes.tolist() == q.astype(np.int64).tolist()
    else:
        assert codes.tolist() == check_qid(q, len(q)).tolist()
    with pytest.raises(ValueError, match="return_ids needs dense=True"):
        check_qid(q, len(q), return_ids=True, dense=False)


@pytest.mark.parametrize("dense", [True, False])
@pytest.mark.parametrize("name", list(IDS))
def test_the_code_count_bounds_every_code(name, dense):
    """Claim: ``return_count`` gives the codes of ``return_count=False`` and G = the largest
    code + 1 (the number of distinct ids when dense)."""
    q = IDS[name]
    codes, G = check_qid(q, len(q), dense=dense, return_count=True)
    assert codes.tolist() == check_qid(q, len(q), dense=dense).tolist()
    assert G == int(codes.max()) + 1
    if dense:
        assert G == len(np.unique(q))
    assert check_qid(None, 3, return_count=True) == (None, 1)
    with pytest.raises(ValueError, match="no return_count"):
        check_qid(q, len(q), return_ids=True, return_count=True)


def test_metrics_on_sparse_codes_equal_those_on_dense_codes():
    """Claim: group_auc and ndcg_at_k (which take the ids as their own codes, empty queries in
    between) give the value of the same queries relabelled 0..G-1."""
    rng = np.random.default_rng(1)
    n = 400
    s, y, rel = rng.normal(size=n), rng.integers(0, 2, n), rng.integers(0, 4, n)
    q = rng.integers(0, 20, n) * 37  # sparse: most codes hold no row
    dense = np.unique(q, return_inverse=True)[1]
    assert group_auc(y, s, q) == pytest.approx(group_auc(y, s, dense), abs=1e-15)
    assert ndcg_at_k(rel, s, qid=q, k=5) == pytest.approx(ndcg_at_k(rel, s, qid=dense, k=5),
                                                         abs=1e-15)
    for w in ["uniform", "impressions"]:
        assert group_auc(y, s, q, weighting=w) == pytest.approx(
            group_auc(y, s, dense, weighting=w), abs=1e-15)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_check_finite_names_the_argument_value_and_first_position(bad, dtype):
    """Claim: the reduction pre-check finds every NaN and ±inf; the error names the argument,
    the value and its first position (as the elementwise pass does)."""
    x = np.arange(10, dtype=dtype)
    x[[3, 7]] = bad
    want = int(np.flatnonzero(~np.isfinite(x))[0])
    with pytest.raises(ValueError, match=rf"'y_score' parameter must be finite, got .*{bad!r}"
                                         rf".* at index {want}\."):
        check_finite(x, "y_score")
    X = np.zeros((3, 4), dtype=dtype)
    X[2, 1] = bad
    with pytest.raises(ValueError, match=r"'X' parameter must be finite.* at index \(2, 1\)"):
        check_finite(X, "X")


def test_check_finite_passes_finite_values_whose_sum_would_overflow():
    """Claim: finite values near the float range pass (no false alarm, no warning)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_finite(np.full(10, 1.7e308), "x")
        check_finite(np.array([1.7e308, -1.7e308]), "x")
        check_finite(np.array([], dtype=float), "x")


def test_check_nonnegative_names_the_argument_value_and_position():
    """Claim: the min pre-check finds every negative; the error names the argument, the value
    and its first position; unsigned and boolean arrays, empty arrays and NaN pass (NaN is the
    finiteness check's)."""
    for x, idx, val in [(np.array([0.0, 2.0, -0.5, -1.0]), 2, "-0.5"),
                        (np.array([3, -2, 1]), 1, "-2")]:
        with pytest.raises(ValueError, match=rf"'relevance' parameter must be non-negative, got "
                                             rf"{val} at index {idx}\."):
            check_nonnegative(x, "relevance")
    for x in [np.array([1, 2], dtype=np.uint8), np.array([True, False]), np.array([]),
              np.array([np.nan, 1.0]), np.zeros(3)]:
        assert check_nonnegative(x, "w") is x


def test_check_array_keeps_integers_only_when_asked():
    """Claim: ``keep_integers`` returns integer and boolean arrays as they are (the same
    object: no copy) and converts everything else as before."""
    i64, b, u8 = np.array([0, 3, 1]), np.array([True, False]), np.array([4, 2], dtype=np.uint8)
    for x in (i64, b, u8):
        assert check_array(x, "relevance", keep_integers=True) is x
        assert check_array(x, "relevance").dtype == np.float64
    assert check_array([0, 3], "relevance", keep_integers=True).tolist() == [0, 3]
    assert check_array([0.5, 3], "relevance", keep_integers=True).dtype == np.float64
    with pytest.raises(ValueError, match="'relevance' parameter must be finite"):
        check_array([0.5, np.nan], "relevance", keep_integers=True)
    with pytest.raises(ValueError, match="'relevance' parameter must be 1-dimensional"):
        check_array(np.zeros((2, 2), dtype=int), "relevance", ndim=1, keep_integers=True)


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8, np.uint64, bool])
@pytest.mark.parametrize("distinct", [0, 3, 300])
def test_ndcg_of_integer_grades_equals_that_of_the_same_floats(dtype, distinct):
    """Claim: integer and boolean grades (kept as integers, no float copy) give the nDCG of
    the same grades as floats, on the sort route and the table route, both gains."""
    rng = np.random.default_rng(3)
    n = 3000
    s = rng.integers(0, distinct, n) / 7.0 if distinct else rng.normal(size=n)
    q = rng.integers(0, 40, n)
    rel = rng.integers(0, 2 if dtype is bool else 5, n).astype(dtype)
    for gain in ["exponential", "linear"]:
        for k in [3, None]:
            want = ndcg_at_k(rel.astype(np.float64), s, qid=q, k=k, gain=gain)
            assert ndcg_at_k(rel, s, qid=q, k=k, gain=gain) == pytest.approx(want, abs=1e-13)
    with pytest.raises(ValueError, match=r"'relevance' parameter must be non-negative, got -1"):
        ndcg_at_k(np.array([1, -1, 0]), [0.1, 0.2, 0.3])


def test_query_segments_keep_their_own_codes():
    """Claim: QuerySegments, which keeps its codes, copies a read-only view of the caller's ids
    (check_qid's no-copy codes): a later change to the caller's array changes nothing."""
    from bipartite.metrics import QuerySegments

    q = np.array([0, 1, 1, 0, 2, 2])
    seg = QuerySegments([0.1, 0.4, 0.3, 0.2, 0.5, 0.6], q)
    assert seg.codes.flags.writeable and not np.shares_memory(seg.codes, q)
    want = seg.stats([0, 1, 0, 1, 1, 0], [1, 0, 1, 0, 0, 1]).n.tolist()
    q[:] = 0
    assert seg.stats([0, 1, 0, 1, 1, 0], [1, 0, 1, 0, 0, 1]).n.tolist() == want == [2, 2, 2]
