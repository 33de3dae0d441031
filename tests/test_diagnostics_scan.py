"""The report's one-walk route (bipartite.diagnostics._scan) against the whole-array route it
replaces for up to FUSED_ROWS label and pair rows: the labels' placement sums
(``_stats.label_sums``, with the within-query sums from the grouped engine's per-query AUC) and
the pairs' win rates, near-tie rates and DeLong variances (``_pairs.pair_stats``, whose own
references are the per-pair functions of bipartite.dictatorship). Blocks of a few rows make
tie groups, queries and near-tie windows straddle block bounds."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import bipartite.diagnostics._scan as scan
from bipartite._utils.validation import pow2_normalise
from bipartite.diagnostics import diagnose
from bipartite.diagnostics._pairs import pair_stats
from bipartite.diagnostics._placement_sums import label_sums
from bipartite.metrics import QuerySegments, query_major


def run_one_walk(s, Y, ws, codes, G, tol, compiled=True):
    """The one-walk route run as the report runs it, on scaled weights ``ws`` (codes None: rows
    as units): ``(lab, prs, near, ms, seg, pairs)``; ``compiled`` False: the NumPy walks (the
    compiled passes' reference, tests/test_diagnostics_compiled_walk.py)."""
    n, K = Y.shape
    Yt = np.ascontiguousarray(Y.astype(bool).T)
    pairs = [(k, j) for k in range(K) for j in range(k + 1, K)]
    kj = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    ms = scan.masses(Yt, ws, kj, codes, G)
    seg = QuerySegments(s, check_input=False)
    qorder = query_major(seg.order, codes, G) if codes is not None else None
    weight = np.bincount(codes, ws, minlength=G) if codes is not None else ws
    n_rows = np.bincount(codes, minlength=G) if codes is not None else np.ones(n, dtype=np.int64)
    lab, prs, near = scan.scorer_stats(s, seg, qorder, Yt, ms, codes, G, weight, n_rows, tol,
                                       compiled=compiled)
    return lab, prs, near, ms, seg, pairs


def _data(seed, n, G, K, ties, weights):
    rng = np.random.default_rng(seed)
    g = rng.integers(0, G, n)
    g[:G] = np.arange(G)
    Y = (rng.random((n, K)) < np.array([0.4, 0.15, 0.3, 0.5])[:K]).astype(float)
    s = Y @ np.array([1.0, 0.6, 0.3, -0.2])[:K] + rng.normal(size=n) + 0.4 * rng.normal(size=G)[g]
    s = np.round(s, 1) if ties else s
    w = {"unit": np.ones(n), "float": rng.uniform(0.2, 3.0, n) * (rng.random(n) > 0.1),
         "tiny": np.where(rng.random(n) < 0.5, 1e-170, 1.0)}[weights]
    return s, Y, w, g


def _fields(ps):
    return [ps.pos, ps.neg, ps.below, ps.above, ps.within, ps.weight, ps.n_rows, ps.n_pos,
            ps.n_neg]


@pytest.mark.parametrize("block", [(7, 3, 1, 20), (64, 16, 1 << 25, 1 << 24),
                                   (1 << 18, 1 << 12, 1 << 25, 1 << 24)])
@pytest.mark.parametrize("seed,K,ties,weights,qid", [
    (0, 2, True, "float", True), (1, 2, False, "unit", True), (2, 3, True, "unit", False),
    (3, 1, False, "float", False), (4, 3, False, "tiny", True), (5, 4, True, "float", True),
    (6, 2, True, "tiny", False), (7, 4, False, "unit", False)])
@pytest.mark.parametrize("compiled", [False, True])
def test_one_walk_equals_the_whole_array_route(seed, K, ties, weights, qid, block, compiled,
                                               monkeypatch):
    """Every placement sum of the labels and of the label pairs, the win rates, near-tie rates
    and their DeLong variances: the one-walk route (its NumPy walks, whatever the block bounds,
    and its compiled passes) equals label_sums and pair_stats (rounding only)."""
    monkeypatch.setattr(scan, "BLOCK_CELLS", block[0])
    monkeypatch.setattr(scan, "MIN_BLOCK", block[1])
    monkeypatch.setattr(scan, "NEAR_CELLS", block[2])  # 1: the near ties one pair at a time
    monkeypatch.setattr(scan, "MAX_BLOCK_CELLS", block[3])  # 20: blocks shorter than G
    n, G = 300, 17
    s, Y, w, g = _data(seed, n, G, K, ties, weights)
    codes, GG = (g, G) if qid else (None, None)
    ws = pow2_normalise(w)
    tol = 0.15
    lab, prs, near, ms, seg, pairs = run_one_walk(s, Y, ws, codes, GG, tol, compiled)
    qseg = QuerySegments(s, codes, check_input=False) if qid else None
    ref = label_sums(s, Y, ws, codes=codes, G=GG, seg=seg, qseg=qseg)
    for a, b in zip(_fields(lab), _fields(ref), strict=True):
        if b is None:
            assert a is None
        else:
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-300)
    assert lab.clustered == ref.clustered
    np.testing.assert_allclose(lab.var(), ref.var(), rtol=1e-10)
    got = scan.pair_result(prs, near, len(pairs))
    want = pair_stats(s, Y, w, pairs, tol=tol, delong=True, seg=seg, codes=codes, G=GG)
    for f in ("win", "var", "near_tie", "n_k_only", "n_j_only"):
        np.testing.assert_allclose(getattr(got, f), getattr(want, f), rtol=1e-10, err_msg=f)


@pytest.mark.parametrize("G", [1, 5, 300, 70_000, 2**33])
def test_query_major_is_the_engines(G):
    """The radix sort of the codes in the global order (one 16-bit pass, two, or a comparison
    sort past 2³² queries) gives QuerySegments' (query, score, row) order, ties included."""
    rng = np.random.default_rng(G % 97)
    n = 2000
    s = np.round(rng.normal(size=n), 1)
    g = rng.integers(0, min(G, 70_000), n)
    if G == 70_000:
        g[:2] = [0, 69_999]  # both 16-bit digits used
    seg = QuerySegments(s, check_input=False)
    ref = QuerySegments(s, g, check_input=False).order
    np.testing.assert_array_equal(query_major(seg.order, g, G), ref)


def test_near_tie_windows_at_exact_boundaries(monkeypatch):
    """Scores on a grid of the tolerance (every bound an exact boundary, rows within one block
    and across), constant weights: the near-tie rates equal pair_stats' full searches."""
    monkeypatch.setattr(scan, "BLOCK_CELLS", 5)
    monkeypatch.setattr(scan, "MIN_BLOCK", 2)
    rng = np.random.default_rng(3)
    n = 200
    s = rng.integers(0, 12, n) * 0.25
    Y = (rng.random((n, 2)) < [0.5, 0.4]).astype(float)
    Yt = np.ascontiguousarray(Y.astype(bool).T)
    ws = np.full(n, 0.5)
    kj = np.array([[0, 1]])
    ms = scan.masses(Yt, ws, kj, None, None)
    seg = QuerySegments(s, check_input=False)
    for tol, compiled in itertools.product((0.0, 0.25, 0.5, 0.3), (False, True)):
        _, prs, near = scan.scorer_stats(s, seg, None, Yt, ms, None, None, ws,
                                         np.ones(n, dtype=np.int64), tol, compiled=compiled)
        want = pair_stats(s, Y, ws, [(0, 1)], tol=tol, delong=False, seg=seg)
        np.testing.assert_allclose(near, want.near_tie, rtol=1e-12)
        np.testing.assert_allclose(prs.auc(), want.win, rtol=1e-12)


@pytest.mark.parametrize("K", [1, 2, 10, 11])
def test_route_choice(K):
    """Up to ten labels (55 pairs: 65 > FUSED_ROWS = 64 from eleven on) walk each order once;
    both routes give the same report."""
    assert scan.fused(K) == (K <= 10)
    rng = np.random.default_rng(K)
    n = 400
    data = {"s": rng.normal(size=n), "q": rng.integers(0, 50, n)}
    for k in range(K):
        data[f"y{k}"] = (rng.random(n) < 0.3 + 0.02 * k).astype(int)
    labels = [f"y{k}" for k in range(K)]
    a = diagnose(data, scores="s", labels=labels, qid="q")
    # the other route on the same rows: one more row of pairs than allowed, or far fewer
    old = scan.FUSED_ROWS
    try:
        scan.FUSED_ROWS = 0 if scan.fused(K) else 10**6
        b = diagnose(data, scores="s", labels=labels, qid="q")
    finally:
        scan.FUSED_ROWS = old
    for name in ("auc", "win_rates", "summary", "per_query"):
        ta, tb = a.tables[name], b.tables[name]
        num = ta.select_dtypes("number").columns
        np.testing.assert_allclose(ta[num].to_numpy(float), tb[num].to_numpy(float),
                                   rtol=1e-10, atol=1e-13, err_msg=name)


@pytest.mark.parametrize("qid", [True, False])
@pytest.mark.parametrize("interval", ["t", "bca"])
def test_bootstrap_and_jackknife_read_the_one_walk(qid, interval, monkeypatch):
    """With n_boot > 0 the win rates' bootstrap reads the pairs' placement sums of the one walk
    (and the jackknife too with rows as units; with query ids it builds them again with their
    within-query sums): no whole-array pair sums are built for the bootstrap, and the report
    equals the whole-array route's, replicate for replicate."""
    import bipartite.diagnostics._diagnose as D

    calls = []
    whole = D.pair_sums
    monkeypatch.setattr(D, "pair_sums", lambda *a, **k: calls.append(k) or whole(*a, **k))
    rng = np.random.default_rng(5)
    n, K = 500, 3
    data = {"s": np.round(rng.normal(size=n), 1), "q": rng.integers(0, 40, n),
            "w": rng.uniform(0.2, 2.0, n)}
    for k in range(K):
        data[f"y{k}"] = (rng.random(n) < 0.3 + 0.1 * k).astype(int)
    kw = dict(scores="s", labels=[f"y{k}" for k in range(K)], weight="w", n_boot=200,
              interval=interval, seed=3, qid="q" if qid else None)
    a = diagnose(data, **kw)
    assert [c.get("within") for c in calls] == ([True] if qid and interval == "bca" else [])
    old = scan.FUSED_ROWS
    try:
        scan.FUSED_ROWS = 0
        b = diagnose(data, **kw)
    finally:
        scan.FUSED_ROWS = old
    for name in ("auc", "win_rates", "summary"):
        ta, tb = a.tables[name], b.tables[name]
        num = ta.select_dtypes("number").columns
        np.testing.assert_allclose(ta[num].to_numpy(float), tb[num].to_numpy(float),
                                   rtol=1e-9, atol=1e-12, err_msg=name)
    assert a.tables["win_rates"]["ci_low"].notna().all()


@pytest.mark.parametrize("steps", [0, 1, 2, 5])
@pytest.mark.parametrize("kind", ["normal", "grid", "ties", "dense"])
def test_window_bounds_are_the_binary_searches(kind, steps):
    """_window's bounds (stepped from each row, then searched) equal np.searchsorted of all the
    sorted scores, on spread scores, a grid of the tolerance (every bound exact), heavy ties
    and scores denser than the tolerance (every row past the steps)."""
    rng = np.random.default_rng(steps)
    n = 3000
    s = {"normal": rng.normal(size=n), "grid": rng.integers(0, 40, n) * 0.25,
         "ties": np.round(rng.normal(size=n), 1), "dense": rng.random(n) * 1e-3}[kind]
    ss = np.sort(s)
    for tol in (0.0, 0.25, 1e-3, 0.1):
        pos = np.flatnonzero(rng.random(n) < 0.3)
        key = ss[pos]
        lo, hi = scan._window(ss, pos, key - tol, key + tol, steps)
        np.testing.assert_array_equal(lo, np.searchsorted(ss, key - tol, side="left"))
        np.testing.assert_array_equal(hi, np.searchsorted(ss, key + tol, side="right"))
