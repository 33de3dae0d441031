"""Silent wrong values at the edges of float64 (issue 35, round 4), each pinned against an
independent exact reference: brute-force pair counts in Python integers and ``Fraction`` for the
AUCs, the criterion and the gAUCs, and scikit-learn's ``ndcg_score`` for nDCG.

Fixtures of the issue: y = [0,1,0,1,1,0,0,1], s = [.125,.5,.375,.875,.25,.625,.125,.75],
queries [0,0,0,0,1,1,1,1].
"""

from __future__ import annotations

import contextlib
import io
import json
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from bipartite import UndefinedMetricWarning
from bipartite.cli import main
from bipartite.diagnostics import diagnose, placement_stats
from bipartite.metrics import auc, group_auc, ndcg_at_k
from bipartite.objectives import Objective

Y = np.array([0, 1, 0, 1, 1, 0, 0, 1])
S = np.array([0.125, 0.5, 0.375, 0.875, 0.25, 0.625, 0.125, 0.75])
Q = np.array([0, 0, 0, 0, 1, 1, 1, 1])
#: The scores as integers beyond 2**53 (8 s is an integer): float64 would round them to ties.
BIG = (S * 8).astype(np.int64)


def brute_auc(y, s, w=None) -> Fraction:
    """Σ_{pos i, neg j} w_i w_j ([s_i > s_j] + ½[s_i = s_j]) / (Σ_pos w Σ_neg w), exactly
    (Python integers and Fractions; no float arithmetic)."""
    w = [Fraction(1)] * len(y) if w is None else [Fraction(float(v)) for v in w]
    num = den = Fraction(0)
    for i in range(len(y)):
        for j in range(len(y)):
            if y[i] == 1 and y[j] == 0:
                pw = w[i] * w[j]
                num += pw * (1 if s[i] > s[j] else Fraction(1, 2) if s[i] == s[j] else 0)
                den += pw
    return num / den


def brute_gauc(y, s, q, w, weighting: str) -> float:
    """Σ_q λ_q AUC_q / Σ_q λ_q over the queries with both classes, exactly."""
    num = den = Fraction(0)
    s = np.array(s, dtype=object)  # Python integers stay exact
    for g in np.unique(q):
        m = q == g
        wq = [Fraction(float(v)) for v in w[m]]
        P = sum(v for v, t in zip(wq, y[m], strict=True) if t == 1)
        N = sum(v for v, t in zip(wq, y[m], strict=True) if t == 0)
        if P == 0 or N == 0:
            continue
        lam = {"uniform": Fraction(1), "impressions": P + N, "pairs": P * N}[weighting]
        num += lam * brute_auc(y[m], s[m], w[m])
        den += lam
    return float(num / den)


# --------------------------------------------------------------------------------------------
# Integer scores beyond 2**53: ranked exactly in memory, out of core and in the CLI
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
def test_diagnose_ranks_big_integers_exactly(dtype):
    big = np.array(2**60, dtype=dtype) + BIG.astype(dtype)
    ref = float(brute_auc(Y, [int(v) for v in big]))
    assert ref == 0.8125 and auc(Y, big) == ref
    gref = brute_gauc(Y, [int(v) for v in big], Q, np.ones(8), "pairs")
    df = pd.DataFrame({"s": big, "y": Y, "q": Q})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # few queries
        t = diagnose(df, "s", "y", qid="q").tables["auc"]
    assert t["auc"].iloc[0] == ref and t["gauc"].iloc[0] == pytest.approx(gref, abs=1e-15)


@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
def test_out_of_core_ranks_big_integers_exactly(tmp_path, dtype):
    big = np.array(2**60, dtype=dtype) + BIG.astype(dtype)
    ref = float(brute_auc(Y, [int(v) for v in big]))
    df = pd.DataFrame({"s": big, "y": Y, "q": Q})
    df.iloc[:4].to_parquet(tmp_path / "a.parquet")
    df.iloc[4:].to_parquet(tmp_path / "b.parquet")
    st = placement_stats(df, "s", "y", qid="q").summary()["auc"]
    assert st["auc"].iloc[0] == ref
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        t = diagnose(str(tmp_path), "s", "y", qid="q").tables["auc"]
    assert t["auc"].iloc[0] == ref


def test_out_of_core_refuses_integers_without_an_order_key():
    df = pd.DataFrame({"s": np.r_[BIG, np.iinfo(np.int64).max], "y": np.r_[Y, 1],
                       "q": np.r_[Q, 1]})
    with pytest.raises(ValueError, match=r"score column 's'.*9223372036854775807.*2\*\*63 - 2"):
        placement_stats(df, "s", "y", qid="q")


def test_cli_report_ranks_big_integers_exactly(tmp_path):
    big = np.int64(2**60) + BIG
    path = tmp_path / "big.csv"
    pd.DataFrame({"s": big, "y": Y, "q": Q}).to_csv(path, index=False)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["report", str(path), "--score", "s", "--label", "y", "--qid", "q",
                     "--format", "json", "--no-progress"])
    assert code == 0
    assert json.loads(out.getvalue())["auc"][0]["auc"] == float(brute_auc(Y, [int(v) for v in big]))


# --------------------------------------------------------------------------------------------
# Objective.criterion: Σ a neither overflows nor underflows
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("a", [[1e308, 1e308], [5e-324, 0.0], [1e308, 5e-324], [3.0, 1.0]])
def test_criterion_scale_free_in_a(a):
    Y2 = np.c_[Y, 1 - Y[::-1]]
    aucs = [brute_auc(Y2[:, k], S) for k in range(2)]
    fa = [Fraction(v) for v in a]
    ref = float(sum(x * u for x, u in zip(fa, aucs, strict=True)) / sum(fa))
    assert Objective("loss_aggregation", a=a).criterion(Y2, S) == pytest.approx(ref, abs=1e-15)


def test_criterion_ranks_big_integers_exactly():
    Y2 = np.c_[Y, Y]
    big = np.int64(2**60) + BIG
    assert Objective().criterion(Y2, big) == float(brute_auc(Y, [int(v) for v in big]))


# --------------------------------------------------------------------------------------------
# group_auc: each query's AUC scale-free
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("w", [np.r_[[1e300] * 4, [1e-300] * 4], np.r_[[1e-300] * 4, [1e300] * 4],
                               np.full(8, 1.7e308), np.full(8, 5e-324),
                               np.r_[[1e-300, 1.0, 1e-300, 1.0], [1e300] * 4]])
@pytest.mark.parametrize("weighting", ["pairs", "uniform", "impressions"])
def test_group_auc_extreme_weights(w, weighting):
    ref = brute_gauc(Y, S, Q, w, weighting)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UndefinedMetricWarning)  # a right value: no warning
        assert group_auc(Y, S, Q, sample_weight=w, weighting=weighting) == pytest.approx(
            ref, rel=1e-13)


def test_group_auc_uniform_keeps_the_light_query():
    w = np.r_[[1e300] * 4, [1e-300] * 4]
    assert group_auc(Y, S, Q, sample_weight=w, weighting="uniform") == 0.875


# --------------------------------------------------------------------------------------------
# nDCG with linear gain: scale-free per query
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("scale", [5e-324, 1e-310, 1e308, 1.0])
@pytest.mark.parametrize("k", [2, None])
def test_ndcg_linear_gain_scale_free(scale, k):
    from sklearn.metrics import ndcg_score

    ref = np.mean([ndcg_score([Y[Q == g] * 1.0], [S[Q == g]], k=k) for g in (0, 1)])
    got = ndcg_at_k(Y * scale, S, qid=Q, gain="linear", k=k)
    assert got == pytest.approx(ref, rel=1e-14)


def test_ndcg_linear_gain_queries_on_their_own_scales():
    from sklearn.metrics import ndcg_score

    rel = np.where(Q == 0, Y * 5e-324, Y * 1e300)
    ref = np.mean([ndcg_score([Y[Q == g] * 1.0], [S[Q == g]]) for g in (0, 1)])
    assert ndcg_at_k(rel, S, qid=Q, gain="linear", k=None) == pytest.approx(ref, rel=1e-14)


# --------------------------------------------------------------------------------------------
# diagnose's per-query note tells the truth
# --------------------------------------------------------------------------------------------
def test_per_query_note_names_underflow_not_a_missing_class():
    w = np.where((Q == 1) & (Y == 0), 1e-320, 1e300)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        pq = diagnose(pd.DataFrame({"s": S, "y": Y, "q": Q, "w": w}), "s", "y", qid="q",
                      weight="w").tables["per_query"]
    note = pq.loc[pq["qid"] == 1, "note"].iloc[0]
    assert "has both classes" in note and "underflows" in note and "no negative" not in note
    y2 = np.where(Q == 1, 1, Y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        pq = diagnose(pd.DataFrame({"s": S, "y": y2, "q": Q}), "s", "y",
                      qid="q").tables["per_query"]
    assert pq.loc[pq["qid"] == 1, "note"].iloc[0] == "query has no negative for 'y'"


def test_out_of_core_integer_refusal_names_the_value_out_of_range():
    """Claim: out of core, the refusal of a 64-bit integer score past 2**63 − 2**52 names that
    value, found by an exact integer test: the valid neighbour 2**63 − 2**52 − 1 (which rounds
    to the limit in float64) is not named, and its key still orders it below the limit's."""
    from bipartite._utils.order_keys import integer_order_key, order_key_out_of_range
    from bipartite.diagnostics._dask_kernels import integer_scores

    limit = 2**63 - 2**52
    assert order_key_out_of_range(np.array([limit - 1, limit, -limit, -(limit - 1)])).tolist() \
        == [False, True, True, False]
    k = integer_order_key(np.array([limit - 1, limit - 2, -(limit - 1)]), "s")
    assert np.argsort(k).tolist() == [2, 1, 0]
    df = pd.DataFrame({"s": np.array([limit - 1, limit], dtype=np.int64)})
    with pytest.raises(ValueError, match=f"holds the integer {limit}:"):
        integer_scores(df, ["s"])
