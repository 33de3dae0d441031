"""The report's compiled passes (bipartite.diagnostics._walk) against the NumPy walks of
bipartite.diagnostics._scan they replace (``scorer_stats(compiled=False)``: ``_global``,
``_within``, ``_near_ties``, whose own reference is the whole-array route,
tests/test_diagnostics_scan.py): every table, the meta and the recommendation of the report
on a scorecard of inputs, bit-identical where every row weighs the same (all sums exact
multiples of one power of two), within a few ulps with float weights; and every placement sum
of one scorer, field by field."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import bipartite.diagnostics._scan as scan
from bipartite._utils.validation import pow2_normalise
from bipartite.diagnostics import diagnose
from bipartite.metrics import QuerySegments

#: Largest relative difference allowed with float weights (the per-unit and near-tie sums add
#: the same terms in another order); measured: see the scorecard test's assertion message.
FLOAT_RTOL = 1e-13


def _table(n=4000, seed=0, scorers=1, q_size=40):
    rng = np.random.default_rng(seed)
    G = max(1, n // q_size)
    q = np.sort(rng.integers(0, G, n))
    u = rng.normal(0, 0.5, G)[q]
    y1, y2 = rng.random(n) < 0.3, rng.random(n) < 0.05
    df = pd.DataFrame({"qid": q, "rel": y1.astype(np.int8), "click": y2.astype(np.int8)})
    for i, name in enumerate(["model", "bm25", "third"][:scorers]):
        df[name] = y1 + (1.5 - 0.6 * i) * y2 + u + rng.normal(size=n)
    return df


def _case(name):
    """``(df, diagnose keywords, exact)`` of one scorecard case."""
    rng = np.random.default_rng(7)
    kw = dict(scores=["model"], labels=["rel", "click"], qid="qid")
    df = _table()
    exact = True
    if name in ("two scorers", "three scorers"):
        k = 2 if name == "two scorers" else 3
        df = _table(scorers=k)
        kw["scores"] = ["model", "bm25", "third"][:k]
    elif name == "no qid":
        kw["qid"] = None
    elif name == "ties":
        df["model"] = df["model"].round(1)
    elif name in ("float weights", "zero weights", "1e-300 beside 1e250"):
        n = len(df)
        df["w"] = {"float weights": rng.uniform(0.1, 3.0, n),
                   "zero weights": np.where(rng.random(n) < 0.2, 0.0, 1.0),
                   "1e-300 beside 1e250": np.where(df["qid"] % 2 == 0, 1e-300, 1e250)}[name]
        kw["weight"] = "w"
        exact = name == "zero weights"
    elif name == "one query":
        df["qid"] = 0
    elif name == "queries of one row":
        df["qid"] = np.arange(len(df))
    elif name == "label constant in many queries":
        df.loc[df["qid"] % 3 == 0, "rel"] = 0
    elif name in ("uniform", "impressions"):
        kw["gauc_weighting"] = name
    elif name == "max_fpr":
        kw["max_fpr"] = 0.3
    elif name == "five labels":
        for j in range(3):
            df[f"y{j}"] = (rng.random(len(df)) < 0.2 + 0.2 * j).astype(int)
        kw["labels"] = ["rel", "click", "y0", "y1", "y2"]
    elif name == "one label":
        kw["labels"] = ["rel"]
    elif name == "bootstrap":
        kw["n_boot"] = 50
    elif name == "bca":
        kw.update(n_boot=50, interval="bca")
    elif name == "signed zeros":
        df["model"] = np.where(rng.random(len(df)) < 0.5, -0.0, 0.0) * (df["model"].round(0) == 0)
    elif name == "shuffled ids, tol 1e-2":
        df = df.sample(frac=1.0, random_state=3).reset_index(drop=True)
        df["qid"] = df["qid"] * 7919 % 100_003
        kw["tol"] = 1e-2
    elif name == "tol 0":
        kw["tol"] = 0.0
    elif name == "float weights, no qid, ties":
        df["model"] = df["model"].round(1)
        df["w"] = rng.uniform(0.1, 3.0, len(df))
        kw.update(weight="w", qid=None)
        exact = False
    return df, kw, exact


CASES = ["one scorer", "two scorers", "three scorers", "no qid", "ties", "float weights",
         "zero weights", "1e-300 beside 1e250", "one query", "queries of one row",
         "label constant in many queries", "uniform", "impressions", "max_fpr", "five labels",
         "one label", "bootstrap", "bca", "signed zeros", "shuffled ids, tol 1e-2", "tol 0",
         "float weights, no qid, ties"]


def _report(df, kw, compiled):
    """The report by the compiled passes or by the NumPy walks (the reference), whatever the
    size (the report's own choice, ``_scan.compiled_walk``, is by rows)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(scan, "COMPILED_MIN_ROWS", 0 if compiled else 1 << 62)
        return diagnose(df, **kw)


def test_the_report_routes_by_size(monkeypatch):
    """Claim: the report takes the compiled passes from ``COMPILED_MIN_ROWS`` rows on and the
    NumPy walks below (the compiled passes' first call loads numba)."""
    df = pd.DataFrame({"q": np.repeat(np.arange(10), 10), "y": np.tile([0, 1], 50),
                       "z": np.tile([0, 0, 1, 1], 25), "s": np.linspace(0, 1, 100)})
    seen = []
    real = scan.sorted_rows
    monkeypatch.setattr(scan, "sorted_rows", lambda *a: seen.append(1) or real(*a))
    for limit, calls in ((101, 0), (100, 1)):
        seen.clear()
        monkeypatch.setattr(scan, "COMPILED_MIN_ROWS", limit)
        diagnose(df, scores=["s"], labels=["y", "z"], qid="q")
        assert len(seen) == calls
    assert not scan.compiled_walk(scan.COMPILED_MIN_ROWS - 1)


def _rel_diff(a: pd.DataFrame, b: pd.DataFrame) -> float:
    """Largest relative difference of the numeric columns (NaN where both are NaN counts 0);
    the other columns must be equal."""
    worst = 0.0
    for c in a.columns:
        x, y = a[c].to_numpy(), b[c].to_numpy()
        if x.dtype.kind in "fc" and y.dtype.kind in "fc":
            assert np.array_equal(np.isnan(x), np.isnan(y)), c
            ok = ~np.isnan(x)
            d = np.abs(x[ok] - y[ok]) / np.maximum(np.abs(y[ok]), 1e-300)
            worst = max(worst, float(d.max(initial=0.0)))
        else:
            pd.testing.assert_series_equal(a[c], b[c], check_exact=True)
    return worst


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", CASES)
def test_the_report_is_the_numpy_walks(name):
    """Every table, meta and recommendation of the report from the compiled passes equals the
    report from the NumPy walks: bit for bit when every row weighs the same (or 0), within
    FLOAT_RTOL with float weights."""
    df, kw, exact = _case(name)
    got, ref = _report(df, kw, True), _report(df, kw, False)
    assert got.tables.keys() == ref.tables.keys()
    assert got.meta == ref.meta
    assert got.recommendation == ref.recommendation
    for t in ref.tables:
        if exact:
            pd.testing.assert_frame_equal(got.tables[t], ref.tables[t], check_exact=True)
        else:
            assert list(got.tables[t].columns) == list(ref.tables[t].columns)
            d = _rel_diff(got.tables[t], ref.tables[t])
            assert d <= FLOAT_RTOL, (t, d)


def _inputs(seed, n, G, K, weights, ties, empty):
    rng = np.random.default_rng(seed)
    g = rng.integers(0, G, n)
    if empty:  # codes with no row: empty units
        g = g - (g % 3 == 1)
    Y = rng.random((n, K)) < np.linspace(0.1, 0.6, K)
    s = Y @ np.linspace(1.0, -0.3, K) + rng.normal(size=n) + 0.5 * rng.normal(size=G)[g]
    if ties:
        s = np.round(s, 1)
    w = {"unit": np.ones(n), "float": rng.uniform(0.2, 3.0, n) * (rng.random(n) > 0.1),
         "tiny": np.where(rng.random(n) < 0.5, 1e-170, 1.0)}[weights]
    return s, Y, pow2_normalise(w), g


def _stats(s, Y, ws, codes, G, tol, compiled):
    n, K = Y.shape
    Yt = np.ascontiguousarray(Y.T)
    kj = np.asarray([(k, j) for k in range(K) for j in range(k + 1, K)],
                    dtype=np.int64).reshape(-1, 2)
    ms = scan.masses(Yt, ws, kj, codes, G)
    seg = QuerySegments(s, check_input=False)
    weight = np.bincount(codes, ws, minlength=G) if codes is not None else ws
    n_rows = np.bincount(codes, minlength=G) if codes is not None else np.ones(n, np.int64)
    return scan.scorer_stats(s, seg, None, Yt, ms, codes, G, weight, n_rows, tol,
                             compiled=compiled)


@pytest.mark.parametrize("seed,K,weights,ties,qid,empty,tol", [
    (0, 2, "unit", True, True, False, 0.15), (1, 1, "unit", False, True, True, 0.0),
    (2, 4, "unit", True, False, False, 0.3), (3, 3, "float", True, True, True, 0.05),
    (4, 2, "tiny", False, True, False, None), (5, 5, "float", False, False, False, 1e-3),
    (6, 3, "tiny", True, False, False, 0.0), (7, 11, "unit", True, True, False, 0.2)])
def test_every_placement_sum_is_the_numpy_walks(seed, K, weights, ties, qid, empty, tol):
    """The labels' and the label pairs' placement sums (below, above, within, masses) and the
    near-tie rates: the compiled passes against the NumPy walks, exact with unit weights, with
    tie groups, empty queries, K = 1 (no pairs), 11 labels (66 rows), tol 0 and None."""
    n, G = 600, 23
    s, Y, ws, g = _inputs(seed, n, G, K, weights, ties, empty)
    codes, GG = (g, G) if qid else (None, None)
    got = _stats(s, Y, ws, codes, GG, tol, True)
    ref = _stats(s, Y, ws, codes, GG, tol, False)
    for a, b in zip(got, ref, strict=True):
        if b is None or isinstance(b, np.ndarray):  # no pairs; the near-tie rates
            _close(a, b, weights)
            continue
        for f in ("pos", "neg", "below", "above", "weight", "n_rows", "n_pos", "n_neg"):
            _close(getattr(a, f), getattr(b, f), weights)
        if b.within is None:
            assert a.within is None
        elif weights == "unit":
            np.testing.assert_array_equal(a.within, b.within)
        else:  # on the AUC's scale: the NumPy walk's running sum over all queries less each
            # query's offset loses a light query's last digits, the compiled pass sums each
            # query from 0 (test_within_is_exact below)
            assert np.all(np.abs(a.within - b.within) <= FLOAT_RTOL * a.pos * a.neg)


def _close(x, y, weights):
    if y is None:
        assert x is None
    elif weights == "unit":
        np.testing.assert_array_equal(x, y)
    else:
        np.testing.assert_allclose(x, y, rtol=FLOAT_RTOL, atol=0)


def test_within_scales_outside_the_normal_range():
    """Labels whose heaviest positive weighs less than 2^−1020 of the heaviest row: the
    within-query sums scale by np.ldexp (2^1020+ is no float factor), as the NumPy walk."""
    rng = np.random.default_rng(1)
    n, G = 200, 7
    g = rng.integers(0, G, n)
    y = rng.random(n) < 0.3
    Y = np.column_stack([y, rng.random(n) < 0.5])
    w = np.where(y, 1e-310, 1.0)  # subnormal positives of label 0 (ep ≈ −1029)
    s = rng.normal(size=n)
    ws = pow2_normalise(w)
    got = _stats(s, Y, ws, g, G, 0.1, True)[0]
    ref = _stats(s, Y, ws, g, G, 0.1, False)[0]
    for x, y2 in ((got.within, ref.within), (got.pos, ref.pos), (got.neg, ref.neg)):
        np.testing.assert_array_equal(x, y2)


def test_within_is_exact():
    """Each query's AUC numerator from the compiled pass against exact rational sums over its
    pairs, with weights 1e-170 beside 1 (where the NumPy walk keeps only some digits of a light
    query's: its running sum runs over all queries before)."""
    from fractions import Fraction

    n, G = 600, 23
    s, Y, ws, g = _inputs(4, n, G, 2, "tiny", False, False)
    got = _stats(s, Y, ws, g, G, None, True)[0]
    for k in range(2):
        for q in range(G):
            i = np.flatnonzero(g == q)
            yk, w, sq = Y[i, k], [Fraction(x) for x in ws[i]], s[i]
            num = sum((w[a] * w[b] * (1 if sq[a] > sq[b] else Fraction(1, 2))
                       for a in range(len(i)) for b in range(len(i))
                       if yk[a] and not yk[b] and sq[a] >= sq[b]), Fraction(0))
            assert got.within[k, q] == pytest.approx(float(num), rel=1e-14, abs=0)


@pytest.mark.parametrize("kind", ["normal", "ties", "signed zeros", "collisions", "one value",
                                  "collision inside", "huge range"])
@pytest.mark.parametrize("n", [2, 3, 1000, 5000])
def test_the_packed_sort_is_the_engines_order(kind, n):
    """The compiled passes' (score, row) order (one sort of packed keys, collisions re-sorted)
    is the grouped engine's, QuerySegments(s).order, row for row; the gathered scores, labels
    and weights follow it."""
    from bipartite.diagnostics._walk import sorted_rows

    rng = np.random.default_rng(n)
    s = {"normal": rng.normal(size=n), "ties": np.round(rng.normal(size=n), 1),
         "signed zeros": np.where(rng.random(n) < 0.5, -0.0, 0.0) * (rng.random(n) < 0.7)
         + (rng.random(n) < 0.3),
         # distinct scores in one key bucket (relative differences of 2^−52 · k)
         "collisions": 1.0 + rng.integers(0, 40, n) * np.finfo(float).eps,
         "one value": np.full(n, 3.5),
         # a run whose first and last rows tie, a distinct score between them
         "collision inside": np.where(np.arange(n) % 3 == 1, 1.0 + 2 * np.finfo(float).eps,
                                      1.0),
         "huge range": rng.choice([-1e308, -1e-308, 0.0, 5e-324, 1.0, 1e308], n)}[kind]
    lab = rng.integers(0, 1 << 12, n).astype(np.uint16)
    w = rng.random(n)
    order, ss, vv, ww = sorted_rows(s, lab, w, False)
    ref = QuerySegments(s, check_input=False).order
    np.testing.assert_array_equal(order, ref)
    np.testing.assert_array_equal(ss, s[ref])
    np.testing.assert_array_equal(vv, lab[ref])
    np.testing.assert_array_equal(ww, w[ref])
    assert len(sorted_rows(s, lab, w, True)[3]) == 0


def _scores(kind, n, rng):
    return {"heavy ties": np.round(rng.normal(size=n)),  # a handful of tie groups
            "one score": np.full(n, 0.25),
            "near ties": 1.0 + rng.integers(0, 30, n) * 1e-9 + rng.normal(size=n) * 1e-12,
            "signed zeros": np.where(rng.random(n) < 0.5, -0.0, 0.0) * (rng.random(n) < 0.6)
            + np.round(rng.random(n), 1)}[kind]


@pytest.mark.parametrize("kind", ["heavy ties", "one score", "near ties", "signed zeros"])
@pytest.mark.parametrize("K,G,weights", [(1, 1, "unit"), (2, 1, "float"), (5, 9, "unit"),
                                         (5, 9, "float"), (3, None, "float"),
                                         (2, 600, "unit")])
@pytest.mark.parametrize("pointers", [False, True])
def test_hard_inputs_are_the_numpy_walks(kind, K, G, weights, pointers, monkeypatch):
    """The compiled passes against the NumPy walks where the fast paths are rare: few tie
    groups, every row one score, windows of many rows (tol 1e-8 on scores 1e-9 apart), ±0;
    one query (G = 1), a query a row (G = n), rows as units (G None), K = 1 and 5; the near
    ties by the kept cumulative sums and (``pointers``) by the two pointers that carry them."""
    import bipartite.diagnostics._walk as walk

    if pointers:
        monkeypatch.setattr(walk, "NEAR_PREFIX_CELLS", 0)
    rng = np.random.default_rng(K * 100 + (G or 0))
    n = 600
    s = _scores(kind, n, rng)
    Y = rng.random((n, K)) < np.linspace(0.2, 0.6, K)
    w = np.ones(n) if weights == "unit" else rng.uniform(0.2, 3.0, n)
    ws = pow2_normalise(w)
    g = np.arange(n) if G == n else (rng.integers(0, G, n) if G else None)
    for tol in (0.0, 1e-8, 0.3):
        got = _stats(s, Y, ws, g, G, tol, True)
        ref = _stats(s, Y, ws, g, G, tol, False)
        for a, b in zip(got, ref, strict=True):
            if b is None or isinstance(b, np.ndarray):
                _close(a, b, weights)
                continue
            for f in ("pos", "neg", "below", "above"):
                _close(getattr(a, f), getattr(b, f), weights)
            if b.within is not None:
                assert np.all(np.abs(a.within - b.within) <= FLOAT_RTOL * a.pos * a.neg)


def test_the_keys_sort_as_integers_where_the_float_sort_fails(monkeypatch):
    """The packed keys sorted as float64 are checked: a float sort that leaves them out of
    order (as one where subnormals are taken as 0 would) gives way to the integer sort, and
    the order is still the engine's."""
    import bipartite.diagnostics._walk as walk

    def bad(keys):
        keys.view(np.float64).sort()
        keys[[0, -1]] = keys[[-1, 0]]

    monkeypatch.setattr(walk, "_float_sort", bad)
    rng = np.random.default_rng(5)
    s = rng.choice([-1e308, -3.0, 0.0, 1.0, 2.5], 1000) + rng.normal(size=1000) * 1e-3
    lab = rng.integers(0, 1 << 12, 1000).astype(np.uint32)
    order, ss, vv, _ = walk.sorted_rows(s, lab, np.ones(1000), True)
    ref = QuerySegments(s, check_input=False).order
    np.testing.assert_array_equal(order, ref)
    np.testing.assert_array_equal(ss, s[ref])
    np.testing.assert_array_equal(vv, lab[ref])


@pytest.mark.parametrize("n", [5, 3000])
def test_the_gathered_scores_keep_their_sign(n):
    """The scores rebuilt from the keys and the payloads are the input's bit for bit, −0
    included (−0 and +0 tie, in row order)."""
    from bipartite.diagnostics._walk import sorted_rows

    rng = np.random.default_rng(n)
    s = np.where(rng.random(n) < 0.5, -0.0, 0.0) * (rng.random(n) < 0.5) + (
        rng.random(n) < 0.5) * rng.normal(size=n)
    order, ss, _, _ = sorted_rows(s, np.zeros(n, np.uint8), np.ones(n), True)
    ref = QuerySegments(s, check_input=False).order
    np.testing.assert_array_equal(order, ref)
    np.testing.assert_array_equal(ss.view(np.uint64), s[ref].view(np.uint64))


@pytest.mark.parametrize("wide", [False, True])
def test_many_collisions_and_wide_labels(wide):
    """More distinct scores sharing a key's bits than the positions kept for them (4096: the
    runs are then found by a scan of every row), and labels wider than 32 bits (the scores and
    labels gathered, not one payload): still the engine's order."""
    from bipartite.diagnostics._walk import sorted_rows

    rng = np.random.default_rng(11)
    n = 12_000
    base = rng.normal(size=n // 2)
    s = np.concatenate([base, base * (1 + np.finfo(float).eps)])[rng.permutation(n)]
    s[:50] = 0.0  # a tie run among them
    lab = rng.integers(0, 1 << 40 if wide else 1 << 20, n).astype(
        np.uint64 if wide else np.uint32)
    w = rng.random(n)
    order, ss, vv, ww = sorted_rows(s, lab, w, False)
    ref = QuerySegments(s, check_input=False).order
    np.testing.assert_array_equal(order, ref)
    np.testing.assert_array_equal(ss.view(np.uint64), s[ref].view(np.uint64))
    np.testing.assert_array_equal(vv, lab[ref])
    np.testing.assert_array_equal(ww, w[ref])


@pytest.mark.parametrize("packed", [True, False])
@pytest.mark.parametrize("kind", ["first pair", "last pair", "many", "none", "ties only",
                                  "ties and collisions"])
def test_the_gather_finds_every_collision_where_it_is(kind, packed):
    """Claim: the gather's count of collisions (neighbours in the sorted keys sharing a key's top
    bits with distinct scores) and the positions it keeps (the first 4096, in order) are those
    of a direct comparison of the sorted scores' order keys; ties (one score) are not
    collisions; the keys become the order."""
    from bipartite._utils.order_keys import float_key
    from bipartite.diagnostics._walk import _float_sort, _gather, _keys

    rng = np.random.default_rng(5)
    n = 9000
    eps = np.finfo(float).eps
    s = rng.normal(size=n)
    if kind == "first pair":  # the two lowest scores collide
        s[:2] = [-50.0, -50.0 * (1 + eps)]
    elif kind == "last pair":
        s[-2:] = [50.0, 50.0 * (1 + eps)]
    elif kind == "many":  # more than the 4096 positions kept
        s[n // 2:] = s[:n // 2] * (1 + eps)
    elif kind == "ties only":
        s = np.round(s, 1)
    elif kind == "ties and collisions":  # tied runs (not collisions) beside colliding scores
        s = np.round(s, 1)
        s[::7] *= 1 + 4 * eps
    b = max(1, (n - 1).bit_length())
    lab = rng.integers(0, 1 << 12, n).astype(np.uint32 if packed else np.int64)
    keys, pk = np.empty(n, np.uint64), np.empty(n if packed else 0, np.uint64)
    ss = np.empty(n)
    vv = pk.view(np.uint32)[:n] if packed else np.empty(n, np.int64)
    at = np.empty(4096, np.int64)
    _keys(packed)(s.view(np.uint64), lab, b, keys, pk)
    _float_sort(keys)
    hits, unsorted = _gather(packed)(keys, b, s, lab, pk, ss, vv, at)
    assert not unsorted
    order = keys.view(np.int64)
    np.testing.assert_array_equal(ss, s[order])
    np.testing.assert_array_equal(vv, lab[order])
    # the reference: each sorted score's order key (−0 as +0) and its top bits
    u = float_key(ss.copy().view(np.int64)).view(np.uint64) ^ np.uint64(1 << 63)
    u[ss == 0] = np.uint64(1 << 63)
    top = u >> np.uint64(b + 2)
    want = np.flatnonzero((top[1:] == top[:-1]) & (u[1:] != u[:-1])) + 1
    assert hits == len(want)
    np.testing.assert_array_equal(at[:min(hits, len(at))], want[:len(at)])
    if kind == "ties only":
        assert hits == 0
    if kind in ("first pair", "last pair"):
        assert (1 if kind == "first pair" else n - 1) in want
    if kind == "many":
        assert hits > len(at)


@pytest.mark.parametrize("K", [2, 3])
def test_near_sums_write_into_scratch_only_where_it_fits(K):
    """Claim: the near-tie numerators are the same floats whether the cumulative sums go into
    the caller's spare memory (one pair, an 8-byte array of n items) or a new array (too small,
    read-only, not contiguous, wrong item size, or none), and only a fitting scratch is written."""
    from bipartite.diagnostics._walk import near_sums, sorted_rows

    rng = np.random.default_rng(K)
    n = 3000
    s = np.round(rng.normal(size=n), 3)
    Y = rng.random((K, n)) < 0.4
    kj = np.array([(k, j) for k in range(K) for j in range(k + 1, K)]).reshape(-1, 2)
    ms = scan.masses(Y, np.full(n, 0.5), kj, None, None)
    order, ss, vv, ww = sorted_rows(s, ms.lab, ms.w, True)
    ref = near_sums(ss, vv, ww, True, ms.tab, K, 1e-3)
    fits = np.full(n, -1, dtype=np.int64)
    ro = np.zeros(n, dtype=np.int64)
    ro.flags.writeable = False
    for scratch in (fits, np.zeros(n - 1, np.int64), ro, np.zeros(2 * n, np.int64)[::2],
                    np.zeros(n, np.int32), None):
        np.testing.assert_array_equal(near_sums(ss, vv, ww, True, ms.tab, K, 1e-3,
                                                scratch=scratch), ref)
    assert np.any(fits != -1) == (len(kj) == 1)
