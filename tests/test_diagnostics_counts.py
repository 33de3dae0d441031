"""The report's counting shortcuts against the routes they replace: the masses of constant
power-of-two weights from one count of (query, label combination) against the block loop
(bipartite.diagnostics._scan.masses), the per-query class counts against a count per query and
label, and dense integer query ids against pandas.factorize."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import bipartite.diagnostics._context as context
import bipartite.diagnostics._scan as scan
from bipartite.diagnostics._context import Data
from bipartite.diagnostics._score_table import _dense_codes


@pytest.mark.parametrize("K", [1, 2, 4])
@pytest.mark.parametrize("qid", [True, False])
@pytest.mark.parametrize("c", [0.5, 2.0**-60])
def test_counted_masses_equal_the_block_loop(K, qid, c, monkeypatch):
    """Every field of Masses (sums per unit and in total, rows per side, the pairs' powers of
    two, the table) is the same float whether counted or summed row by row in blocks."""
    rng = np.random.default_rng(K + 10 * qid)
    n, G = 500, 23
    Yt = rng.random((K, n)) < np.array([0.5, 0.1, 0.02, 0.9])[:K, None]
    Yt[-1, :3] = True  # every side has a row, bar the rare labels' by chance
    codes = rng.integers(0, G, n) if qid else None
    w = np.full(n, c)
    kj = np.array([(k, j) for k in range(K) for j in range(k + 1, K)], dtype=np.int64).reshape(-1, 2)
    got = scan.masses(Yt, w, kj, codes, G if qid else None)
    monkeypatch.setattr(scan, "COUNT_CELLS", 0)  # the block loop
    monkeypatch.setattr(scan, "BLOCK_CELLS", 64)
    monkeypatch.setattr(scan, "MIN_BLOCK", 16)
    ref = scan.masses(Yt, w, kj, codes, G if qid else None)
    for f in ("P", "N", "Pq", "Nq", "n_pos", "n_neg", "sp", "sn", "tab"):
        a, b = getattr(got, f), getattr(ref, f)
        if b is None:
            assert a is None, f
        else:
            np.testing.assert_array_equal(a, b, err_msg=f)
            assert np.asarray(a).dtype == np.asarray(b).dtype, f


@pytest.mark.parametrize("cells", [1 << 23, 0])
@pytest.mark.parametrize("zero_weights", [False, True])
def test_query_class_counts_are_the_direct_counts(cells, zero_weights, monkeypatch):
    """Per query the rows with positive weight and the positive ones of each label, and the
    totals, equal a count per query and label (one count of the label combinations, or its
    fallback past COUNT_CELLS)."""
    monkeypatch.setattr(context, "COUNT_CELLS", cells)
    rng = np.random.default_rng(7)
    n, G, K = 400, 31, 3
    g = rng.integers(0, G, n)
    Y = (rng.random((n, K)) < [0.3, 0.05, 0.6]).astype(float)
    w = rng.random(n) * (rng.random(n) > 0.2 if zero_weights else 1.0)
    d = Data(where="t", n_dropped=0, score_names=[], label_names=list("abc"), S={}, Yt=(Y > 0).T, w=w,
             qid="q", g=g, G=G, qvalues=None, U=G, pairs=[])
    rows, pos = d.query_class_counts()
    has = w > 0
    for q in range(G):
        at = (g == q) & has
        assert rows[q] == at.sum()
        for k in range(K):
            assert pos[q, k] == np.count_nonzero(at & (Y[:, k] > 0))
    P, Nn = d.class_counts()
    assert P == [int(np.count_nonzero(has & (Y[:, k] > 0))) for k in range(K)]
    assert Nn == [int(has.sum()) - p for p in P]


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "uint16",
                                   "uint64"])
def test_dense_query_ids_are_factorize(dtype):
    """Integer ids spanning about the rows: the codes and the sorted ids (dtype included) of
    pandas.factorize(sort=True), at the ends of each integer type too."""
    info = np.iinfo(dtype)
    rng = np.random.default_rng(3)
    for lo in (int(info.min), 0, int(info.max) - 100):
        v = pd.Series(np.array([lo + int(x) for x in rng.integers(0, 100, 300)],
                               dtype=object).astype(dtype))
        codes, ids = _dense_codes(v)
        ref_codes, ref_ids = pd.factorize(v, sort=True)
        np.testing.assert_array_equal(codes, ref_codes)
        assert ids.equals(ref_ids) and ids.dtype == ref_ids.dtype


def test_sparse_or_other_ids_go_to_factorize():
    """Ids spread far wider than the rows: pandas.factorize's codes too; extension and
    non-integer ids: no shortcut."""
    codes, ids = _dense_codes(pd.Series([10**9, 1, 10**9]))
    assert codes.tolist() == [1, 0, 1] and ids.tolist() == [1, 10**9]
    assert _dense_codes(pd.Series(pd.array([1, 2], dtype="Int64"))) is None
    assert _dense_codes(pd.Series(["a", "b"])) is None
    assert _dense_codes(pd.Series([1.0, 2.0])) is None


@pytest.mark.parametrize("dtype", ["int8", "int64", "uint8", "float64"])
def test_integer_columns_are_checked_as_their_floats(dtype):
    """Label and weight columns of integers are checked in their own type: the same errors
    (naming the column, the row and the value) as the same values read as floats."""
    from bipartite.diagnostics import diagnose

    rng = np.random.default_rng(0)
    n = 50
    base = {"s": rng.normal(size=n), "y": (rng.random(n) < 0.5).astype(dtype),
            "w": np.ones(n, dtype=dtype)}
    for col, row, value, must in (("y", 7, 2, "must hold only 0 and 1"),
                                  ("w", 9, -1 if dtype[0] != "u" else None,
                                   "must be non-negative")):
        if value is None:
            continue
        df = pd.DataFrame(base)
        df[col] = df[col].astype("float64")
        df.loc[row, col] = value
        with pytest.raises(ValueError) as ref:
            diagnose(df, scores="s", labels="y", weight="w")
        df[col] = df[col].astype(dtype)
        with pytest.raises(ValueError, match=must) as got:
            diagnose(df, scores="s", labels="y", weight="w")
        assert str(got.value) == str(ref.value)


def test_query_class_counts_of_many_labels():
    """More than 16 labels (their bits past two bytes) and a few queries: the direct counts."""
    rng = np.random.default_rng(2)
    n, G, K = 300, 3, 18
    g = rng.integers(0, G, n)
    Y = (rng.random((n, K)) < 0.4).astype(float)
    d = Data(where="t", n_dropped=0, score_names=[], label_names=[f"y{k}" for k in range(K)],
             S={}, Yt=(Y > 0).T, w=np.ones(n), qid="q", g=g, G=G, qvalues=None, U=G, pairs=[])
    rows, pos = d.query_class_counts()
    np.testing.assert_array_equal(rows, np.bincount(g, minlength=G))
    for k in range(K):
        np.testing.assert_array_equal(pos[:, k], np.bincount(g[Y[:, k] > 0], minlength=G))


@pytest.mark.parametrize("c", [1.0, 0.5, 3.0])
def test_label_table_of_constant_weights_is_the_weighted_one(c):
    """One weight on every row (``const_w``): the label table (priors from the counts) is the
    one of the same weights read row by row (``(w @ Y) / Σ w``)."""
    from bipartite.diagnostics._diagnose import _label_table

    rng = np.random.default_rng(11)
    n, G, K = 600, 17, 3
    g = rng.integers(0, G, n)
    Yt = rng.random((K, n)) < np.array([0.3, 0.01, 0.7])[:, None]
    kw = dict(where="t", n_dropped=0, score_names=[], label_names=list("abc"), S={}, Yt=Yt,
              w=np.full(n, c), qid="q", g=g, G=G, qvalues=None, U=G, pairs=[])
    got, _ = _label_table(Data(**kw, const_w=c))
    ref, _ = _label_table(Data(**kw))
    assert pd.DataFrame(got).equals(pd.DataFrame(ref))
