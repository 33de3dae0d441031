"""The report's one-walk route (bipartite.diagnostics._scan.scorer_stats) against an independent,
obviously-correct reference: a double loop over all pairs of rows in exact rational arithmetic
(:class:`fractions.Fraction`), per query and globally, of every quantity the route returns —
the labels' and label pairs' placement sums (docs/theory.md §2.3: ``pos``, ``neg``, ``below``,
``above``, the within-query ``within``, the rows with weight ``n_pos``/``n_neg``), the pooled
AUCs and win rates ``W_{k>j}``, their DeLong variances (§2.6: the textbook structural components
``V10``/``V01``, per row or summed per query) and the near-tie rates (§7.5). Nothing here calls
the package's sort, segment or placement kernels (the other test file compares the route with
them, which share its engine).

The claim: for any scores (ties included), 0/1 labels, weights (zeros, and weights spanning
hundreds of orders of magnitude) and query ids (one-row queries, queries of one class), each
returned quantity equals the exact value to a few float64 roundings of its natural scale."""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bipartite.diagnostics._scan as scan
from bipartite._utils.validation import pow2_normalise
from bipartite.diagnostics import diagnose
from bipartite.metrics import QuerySegments, group_auc, query_major
from tests.test_diagnostics_scan import run_one_walk

HALF = Fraction(1, 2)


def _rows(Y, w, pairs):
    """The exact weight rows ``(pos, neg)`` of the labels then of the label pairs, written out
    from their definitions (``w y_k``, ``w (1 − y_k)``; ``w y_k (1 − y_j)``, ``w y_j (1 − y_k)``)."""
    n, K = Y.shape
    W = [Fraction(float(x)) for x in w]
    out = [([W[i] if Y[i, k] else 0 for i in range(n)], [0 if Y[i, k] else W[i] for i in range(n)])
           for k in range(K)]
    out += [([W[i] if Y[i, k] and not Y[i, j] else 0 for i in range(n)],
             [W[i] if Y[i, j] and not Y[i, k] else 0 for i in range(n)]) for k, j in pairs]
    return out


def _reference(s, Y, w, codes, G, tol):
    """Per weight row (labels, then pairs): the exact per-unit sums, AUC, DeLong variance and
    (pairs) near-tie rate, by a double loop over all (positive row, negative row) pairs."""
    n, K = Y.shape
    pairs = [(k, j) for k in range(K) for j in range(k + 1, K)]
    unit = list(codes) if codes is not None else list(range(n))
    U = G if codes is not None else n
    out = []
    for r, (pos, neg) in enumerate(_rows(Y, w, pairs)):
        R = {f: [Fraction(0)] * U for f in ("pos", "neg", "below", "above", "within")}
        V10, V01 = [Fraction(0)] * n, [Fraction(0)] * n  # weight of the other class beaten
        near = Fraction(0)
        for i in range(n):
            R["pos"][unit[i]] += pos[i]
            R["neg"][unit[i]] += neg[i]
        for i in range(n):  # i positive, j negative
            for j in range(n):
                h = 1 if s[i] > s[j] else HALF if s[i] == s[j] else 0
                c = pos[i] * neg[j] * h
                V10[i] += neg[j] * h
                V01[j] += pos[i] * h
                R["below"][unit[i]] += c
                R["above"][unit[j]] += c
                if unit[i] == unit[j]:
                    R["within"][unit[i]] += c
                if s[i] - tol <= s[j] <= s[i] + tol:  # the near-tie window, as documented
                    near += pos[i] * neg[j]
        P, N = sum(R["pos"]), sum(R["neg"])
        n_pos = sum(1 for x in pos if x > 0)
        n_neg = sum(1 for x in neg if x > 0)
        auc = var = rate = None
        if P > 0 and N > 0:
            auc = sum(R["below"]) / (P * N)
            rate = near / (P * N)
            # DeLong: each row's weight share times its placement's deviation from the AUC
            psi_pos = [pos[i] / P * (V10[i] / N - auc) for i in range(n)]
            psi_neg = [neg[j] / N * (V01[j] / P - auc) for j in range(n)]
            if codes is not None:  # clustered by query (Obuchowski 1997)
                psi = [Fraction(0)] * U
                for i in range(n):
                    psi[unit[i]] += psi_pos[i] + psi_neg[i]
                # G' = the units with weight in the pair (a unit without any has ψ = 0)
                Gp = len({unit[i] for i in range(n) if pos[i] > 0 or neg[i] > 0})
                if Gp > 1:
                    var = Fraction(Gp, Gp - 1) * sum(x * x for x in psi)
            elif n_pos > 1 and n_neg > 1:  # DeLong et al. (1988): S10/m + S01/n
                var = (Fraction(n_pos, n_pos - 1) * sum(x * x for x in psi_pos)
                       + Fraction(n_neg, n_neg - 1) * sum(x * x for x in psi_neg))
        out.append({"P": P, "N": N, "n_pos": n_pos, "n_neg": n_neg, "auc": auc, "var": var,
                    "near": rate, "label": r < K, **R})
    return out


def _f(x):
    return np.nan if x is None else float(x)


def _check(s, Y, w, codes, G, tol):
    """Run the one-walk route as the report does and compare every quantity with the
    reference."""
    n, K = Y.shape
    ws = pow2_normalise(w)
    lab, prs, near, ms, seg, pairs = run_one_walk(s, Y, ws, codes, G, tol)
    ps = scan.pair_result(prs, near, len(pairs))
    ref = _reference(s, Y, ws, codes, G, tol)
    for r, R in enumerate(ref):
        table, i = (lab, r) if R["label"] else (prs, r - K)
        what = f"label {r}" if R["label"] else f"pair {pairs[r - K]}"
        # a pair's rows carry a power of two per side (labels: 1), the table's sums with them
        sp, sn = ms.sp[r], ms.sn[r]
        assert np.frexp(sp)[0] == 0.5 and np.frexp(sn)[0] == 0.5 and sp >= 1 and sn >= 1
        assert not R["label"] or sp == sn == 1.0
        fp, fn = Fraction(float(sp)), Fraction(float(sn))  # exact products with the sums
        scale = {"pos": fp, "neg": fn, "below": fp * fn, "above": fp * fn, "within": fp * fn}
        P = float(R["P"] * fp)
        # sums of non-negative terms: a few roundings of themselves; "above" is P minus a
        # cumulative sum, a few roundings of P per unit of negative weight
        for f in ("pos", "neg", "below", "within"):
            got = getattr(table, f)
            if f == "within" and (not R["label"] or codes is None):
                assert got is None, (what, f)
                continue
            want = np.array([float(x * scale[f]) for x in R[f]])
            if f == "within":
                # the placements within a query are a running sum minus the query's offset:
                # exact to 2⁻³³ of the query's own P_q N_q (bipartite.metrics.segment_below,
                # BELOW_OFFSET_RATIO), i.e. the query's AUC to 1e-10; a query whose P_q N_q
                # underflows is left out (test_within_query_underflow)
                pq = [p * q for p, q in zip(R["pos"], R["neg"], strict=True)]
                PN = np.array([float(x) for x in pq])
                keep = (table.pos[i] * table.neg[i] > 0) | np.array([x == 0 for x in pq])
                err = np.abs(got[i] - want)[keep]
                assert np.all(err <= 1e-12 * want[keep] + 2.0**-33 * PN[keep] + 1e-300), (
                    what, f, got[i], want)
                continue
            np.testing.assert_allclose(got[i], want, rtol=1e-12, atol=1e-300,
                                       err_msg=f"{what} {f}")
        want = np.array([float(x * scale["above"]) for x in R["above"]])
        err = np.abs(table.above[i] - want)
        bound = 1e-12 * (want + P * table.neg[i]) + 1e-300
        assert np.all(err <= bound), (what, "above", table.above[i], want)
        assert table.n_pos[i] == R["n_pos"] and table.n_neg[i] == R["n_neg"], what
        assert table.clustered == (codes is not None)
        auc, var = table.auc()[i], table.var()[i]
        # a share in [0, 1]: a few roundings of itself, or of 1 where light products underflow
        np.testing.assert_allclose(auc, _f(R["auc"]), rtol=1e-12, atol=1e-15,
                                   err_msg=f"{what} auc")
        # the variance: a sum of squared deviations, each a difference of O(1) terms
        np.testing.assert_allclose(var, _f(R["var"]), rtol=1e-9, atol=1e-15,
                                   err_msg=f"{what} var")
        if not R["label"]:
            j = r - K
            np.testing.assert_allclose(ps.win[j], _f(R["auc"]), rtol=1e-12, atol=1e-15)
            np.testing.assert_allclose(ps.var[j], _f(R["var"]), rtol=1e-9, atol=1e-15)
            # a share of the pairs' weight, from differences of cumulative sums (≤ N): a few
            # roundings of 1
            np.testing.assert_allclose(ps.near_tie[j], _f(R["near"]), rtol=1e-12, atol=1e-14,
                                       err_msg=f"{what} near-tie rate")
            assert ps.n_k_only[j] == R["n_pos"] and ps.n_j_only[j] == R["n_neg"], what


WEIGHTS = ("unit", "float", "zeros", "tiny", "span")


def _weights(rng, n, kind):
    """Row weights: all 1; uniform; with exact zeros; 1e-170 against 1 (underflows without the
    power-of-two scaling); log-uniform over 10⁻⁶⁰..10⁶⁰ with zeros."""
    if kind == "unit":
        return np.ones(n)
    if kind == "float":
        return rng.uniform(0.2, 3.0, n)
    if kind == "zeros":
        return np.where(rng.random(n) < 0.3, 0.0, rng.uniform(0.2, 3.0, n))
    if kind == "tiny":
        return np.where(rng.random(n) < 0.5, 1e-170, 1.0)
    return np.where(rng.random(n) < 0.15, 0.0, 10.0 ** rng.uniform(-60, 60, n))


def _case(seed, n, K, G, grid, weights, label_p, query_class):
    """Scores on a grid of step ``grid`` (ties, near-tie bounds exactly on a score) or
    continuous (``grid`` 0); ``query_class``: force some queries to be all positive or all
    negative for label 0."""
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, K)) < label_p).astype(float)
    s = Y @ rng.normal(size=K) + rng.normal(size=n)
    if grid:
        s = np.round(s / grid) * grid
    codes = rng.integers(0, G, n) if G else None
    if codes is not None and query_class:
        Y[codes == 0, 0] = 1.0  # query 0: all positive for label 0
        Y[codes == G - 1, 0] = 0.0  # the last query: all negative (when G > 1)
    return s, Y, _weights(rng, n, weights), codes


@pytest.mark.parametrize("weights", WEIGHTS)
@pytest.mark.parametrize("qid", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_one_walk_equals_the_pairwise_loop(seed, qid, weights):
    """Seeded grid: 3 labels (3 pairs), ties on a grid of the tolerance, one-row queries (30 rows
    in 12 queries), queries of one class, every weight regime."""
    n, K, G = 30, 3, 12 if qid else 0
    s, Y, w, codes = _case(seed, n, K, G, 0.25 if seed % 2 == 0 else 0.0, weights, 0.45,
                           query_class=seed % 2 == 1)
    _check(s, Y, w, codes, G or None, tol=0.25)


@pytest.mark.parametrize("block", [(7, 3, 1, 20), (16, 4, 5, 1 << 24)])
def test_one_walk_equals_the_pairwise_loop_in_small_blocks(block, monkeypatch):
    """Blocks of a few rows (tie groups, queries and near-tie windows straddle block bounds; the
    near ties one pair at a time): the same exact values."""
    for name, v in zip(("BLOCK_CELLS", "MIN_BLOCK", "NEAR_CELLS", "MAX_BLOCK_CELLS"), block,
                       strict=True):
        monkeypatch.setattr(scan, name, v)
    for seed, (weights, qid) in enumerate([("zeros", True), ("span", False), ("tiny", True),
                                           ("unit", False)]):
        s, Y, w, codes = _case(seed, 40, 4, 9 if qid else 0, 0.5, weights, 0.4,
                               query_class=True)
        _check(s, Y, w, codes, 9 if qid else None, tol=0.5)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 24), K=st.integers(1, 4),
       G=st.integers(0, 8), grid=st.sampled_from([0.0, 0.5, 1.0]),
       weights=st.sampled_from(WEIGHTS), label_p=st.floats(0.05, 0.95),
       tol=st.sampled_from([0.0, 0.5, 1.0]), query_class=st.booleans())
def test_one_walk_equals_the_pairwise_loop_property(seed, n, K, G, grid, weights, label_p, tol,
                                                    query_class):
    """Any small input (one row, one class, one query, many queries of one row, exact ties and
    tolerance bounds on a score): every quantity the one-walk route returns equals the exact
    pairwise value, or both are undefined (NaN)."""
    s, Y, w, codes = _case(seed, n, K, G, grid, weights, label_p, query_class)
    _check(s, Y, w, codes, G or None, tol)


def test_light_pair_sides_next_to_heavy_rows():
    """The counterexample the pairwise loop found: the heavy row (weight 1) has label y2 only,
    so the pair (y0, y1) has one "k only" and one "j only" row, both of weight 1e-170. Its win
    rate is 0 (the "y0 only" row scores below the "y1 only" row); without a power of two per
    pair side ``P N`` = 1e-340 underflowed to 0 and the report read "W undefined"."""
    s = np.array([-2.19696997, -2.86928976, -0.31630016, -0.83428041])
    Y = np.array([[0, 1, 1], [1, 0, 0], [0, 0, 0], [0, 0, 1]], dtype=float)
    w = np.array([1e-170, 1e-170, 1e-170, 1.0])
    _check(s, Y, w, None, None, tol=0.0)
    _check(s, Y, w, np.array([0, 1, 0, 1]), 2, tol=0.0)
    r = diagnose({"s": s, "w": w, "y0": Y[:, 0], "y1": Y[:, 1], "y2": Y[:, 2]}, scores="s",
                 labels=["y0", "y1", "y2"], weight="w")
    wr = r.tables["win_rates"].set_index(["label_k", "label_j"])
    assert wr.loc[("y0", "y1"), "win_rate"] == 0.0
    assert wr.loc[("y0", "y1"), "near_tie_rate"] == 0.0
    # the whole-array route's pair sums (the bootstrap's and jackknife's past ten labels) too
    from bipartite.diagnostics._placement_sums import label_sums

    for codes, G in ((None, None), (np.array([0, 1, 0, 1]), 2)):
        ps = label_sums(s, Y, pow2_normalise(w), np.array([[0, 1]]), codes=codes, G=G)
        assert ps.auc()[0] == 0.0


def test_within_query_underflow_is_nan_in_the_sums_and_scale_free_in_the_report():
    """A query whose rows all weigh 1e-170 next to a query of weight-1 rows has a defined AUC
    (0.25 here), but 'within' is stored as the numerator AUC_q P_q N_q, and P_q N_q = 4e-340 is
    below the float range after the global power-of-two scaling. Claim: the one walk's sums
    then give that query's AUC as NaN (never a wrong finite number) and keep the query among
    those with both classes; the report, whose weights span more than 2^400, takes each query's
    AUC on its own scale as group_auc does (issue 35): the light query's AUC is 0.25 with no
    note, the heavy one's 1, and the gAUC is group_auc's."""
    s = np.array([0.1, 0.9, 0.3, 0.7, 0.2, 0.8, 0.4, 0.6])
    Y = np.array([[0, 1, 0, 1, 1, 0, 0, 1]], dtype=float).T
    codes = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    w_raw = np.array([1, 1, 1, 1, 1e-170, 1e-170, 1e-170, 1e-170])
    w = pow2_normalise(w_raw)
    Yt = np.ascontiguousarray(Y.astype(bool).T)
    ms = scan.masses(Yt, w, np.zeros((0, 2), dtype=np.int64), codes, 2)
    seg = QuerySegments(s, check_input=False)
    lab, _, _ = scan.scorer_stats(s, seg, query_major(seg.order, codes, 2), Yt, ms, codes,
                                  2, np.bincount(codes, w), np.bincount(codes), None)
    g = lab.grouped()
    assert g.auc[0, 0] == 1.0 and np.isnan(g.auc[1, 0])
    assert g.defined[:, 0].tolist() == [True, True]
    df = pd.DataFrame({"s": s, "y": Y[:, 0].astype(int), "q": codes, "w": w_raw})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = diagnose(df, "s", "y", qid="q", weight="w")
    pq = rep.tables["per_query"].sort_values("qid")
    np.testing.assert_allclose(pq.auc.to_numpy(float), [1.0, 0.25], rtol=1e-15)
    assert pq.note.isna().all()
    assert rep.tables["auc"].iloc[0]["gauc"] == group_auc(Y[:, 0], s, qid=codes,
                                                          sample_weight=w_raw)


@pytest.mark.parametrize("seed,weights,qid", [(0, "tiny", True), (1, "span", False),
                                              (2, "zeros", True), (3, "tiny", False)])
def test_whole_array_pair_sums_equal_the_pairwise_loop(seed, weights, qid):
    """The whole-array route's label-pair table (``label_sums`` with pairs: the bootstrap's
    and the jackknife's sums past ten labels, and the jackknife's with query ids) against the
    same loop: the win rates, their DeLong variances and the exact leave-one-unit-out win
    rates (each unit's rows dropped and the loop run again), light pair sides included."""
    from bipartite.diagnostics._placement_sums import label_sums

    G = 6 if qid else None
    s, Y, w, codes = _case(seed, 18, 3, G or 0, 0.5, weights, 0.45, query_class=True)
    if seed == 0:  # the light-pair counterexample's shape: heavy rows with y2 only
        Y[w == 1.0] = [0.0, 0.0, 1.0]
    ws = pow2_normalise(w)
    kj = np.array([(0, 1), (0, 2), (1, 2)])
    ps = label_sums(s, Y, ws, kj, codes=codes, G=G)
    ref = _reference(s, Y, ws, codes, G, 0.0)[3:]
    np.testing.assert_allclose(ps.auc(), [_f(r["auc"]) for r in ref], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(ps.var(), [_f(r["var"]) for r in ref], rtol=1e-9, atol=1e-15)
    units = codes if qid else np.arange(len(s))
    P, N = ps.totals()
    jack = ps.jackknife_auc()
    for q in range(G or len(s)):
        keep = units != q
        want = np.array([_f(r["auc"]) for r in _reference(s[keep], Y[keep], ws[keep], None,
                                                          None, 0.0)[3:]])
        # the numerator left is U minus the unit's pairs: a few roundings of U, i.e. of
        # amp = P N / ((P − P_q)(N − N_q)) in the win rate. Where the unit holds all but a
        # sliver of a side (amp past 1e12: weights 1e±60) the O(1)-per-unit formula has no
        # digits left (NaN or noise): a known limitation, left out here
        with np.errstate(divide="ignore", invalid="ignore"):
            amp = P * N / ((P - ps.pos[:, q]) * (N - ps.neg[:, q]))
        ok = ~np.isnan(want) & (amp < 1e12)
        assert np.all(np.isnan(jack[:, q]) <= (np.isnan(want) | ~(amp < 1e12))), (q, jack, want)
        assert np.all(np.abs(jack[ok, q] - want[ok]) <= 1e-12 * want[ok] + 1e-14 * amp[ok]), (
            q, jack[:, q], want)
