"""Ranked / unranked metrics of RLSEP §5.3 (bipartite.ranked_metrics) against slow references."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.metrics import (
    accuracy_score,
    f1_score,
    hamming_loss,
    precision_score,
    recall_score,
    roc_auc_score,
)

from bipartite._utils.validation import UndefinedMetricWarning
from bipartite.ranked_metrics import (
    ranked_accuracy,
    ranked_exact_match,
    ranked_f1,
    ranked_map,
    ranked_precision,
    ranked_recall,
    ranked_scores,
    unranked_scores,
)


# ---------------------------------------------------------------------------------------------
# slow references, written from the words of RLSEP §5.3
# ---------------------------------------------------------------------------------------------
def _slow_counts(r, s):
    """Loop over u < v with r_u != r_v; positive iff r_u > r_v; predicted iff s_u > s_v."""
    tp = fp = fn = tn = 0
    K = len(r)
    for u in range(K):
        for v in range(u + 1, K):
            if r[u] == r[v]:
                continue
            truth = r[u] > r[v]
            pred = s[u] > s[v]
            if truth and pred:
                tp += 1
            elif pred:
                fp += 1
            elif truth:
                fn += 1
            else:
                tn += 1
    return tp, fp, fn, tn


def _div(a, b):
    return a / b if b else None


def _slow_instance(r, s):
    tp, fp, fn, tn = _slow_counts(r, s)
    return {"precision": _div(tp, tp + fp), "recall": _div(tp, tp + fn),
            "f1": _div(2 * tp, 2 * tp + fp + fn), "accuracy": _div(tp + tn, tp + fp + fn + tn),
            "exact_match": 1.0 if fp == 0 and fn == 0 else 0.0}


def _slow_map_instance(r, s):
    r = list(r)
    precs = []
    while True:
        p = _slow_instance(r, s)["precision"]
        if p is not None:
            precs.append(p)
        nonzero = [x for x in r if x > 0]
        if len(set(nonzero)) <= 1:  # one label (or one tied top level) left: stop
            break
        smallest = min(nonzero)
        r = [0 if x == smallest else x for x in r]
    return sum(precs) / len(precs) if precs else None


def _slow_all(R, S):
    out = {}
    per = [_slow_instance(r, s) for r, s in zip(R, S, strict=True)]
    for k in ("precision", "recall", "f1", "accuracy", "exact_match"):
        vals = [p[k] for p in per if p[k] is not None]
        out[k] = sum(vals) / len(vals) if vals else float("nan")
    maps = [m for m in (_slow_map_instance(r, s) for r, s in zip(R, S, strict=True))
            if m is not None]
    out["map"] = sum(maps) / len(maps) if maps else float("nan")
    return out


def _random_case(rng, n, K, max_rank, score_levels):
    R = rng.integers(0, max_rank + 1, size=(n, K))
    S = rng.integers(0, score_levels, size=(n, K)).astype(float)  # few levels -> many ties
    return R, S


# ---------------------------------------------------------------------------------------------
# agreement with the slow references
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("K,max_rank,levels", [(3, 1, 2), (5, 3, 3), (6, 5, 10), (8, 2, 100)])
def test_ranked_scores_match_slow_reference(rng, K, max_rank, levels):
    for _ in range(5):
        R, S = _random_case(rng, 25, K, max_rank, levels)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            fast = ranked_scores(R, S)
            single = {"precision": ranked_precision(R, S), "recall": ranked_recall(R, S),
                      "f1": ranked_f1(R, S), "accuracy": ranked_accuracy(R, S),
                      "exact_match": ranked_exact_match(R, S), "map": ranked_map(R, S)}
        slow = _slow_all(R.tolist(), S.tolist())
        for k, v in slow.items():
            np.testing.assert_allclose(fast[k], v, err_msg=k)
            np.testing.assert_allclose(single[k], v, err_msg=k)


@given(st.data())
def test_ranked_scores_property_matches_reference(data):
    """Claim: the vectorised kernel equals the pairwise loop on any ranks and scores (ties too)."""
    n = data.draw(st.integers(1, 6))
    K = data.draw(st.integers(2, 6))
    R = np.array(data.draw(st.lists(st.lists(st.integers(0, 3), min_size=K, max_size=K),
                                    min_size=n, max_size=n)))
    S = np.array(data.draw(st.lists(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0]),
                                             min_size=K, max_size=K), min_size=n, max_size=n)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        fast = ranked_scores(R, S)
    slow = _slow_all(R.tolist(), S.tolist())
    for k, v in slow.items():
        np.testing.assert_allclose(fast[k], v, err_msg=k)


def test_hand_computed_example():
    # ranks [1, 2, 0], scores [.9, .5, .1]:
    # pair (0,1): r 1<2 negative, s .9>.5 predicted positive -> FP
    # pair (0,2): positive, predicted positive -> TP; pair (1,2): TP.
    R, S = [[1, 2, 0]], [[0.9, 0.5, 0.1]]
    out = ranked_scores(R, S)
    assert out["precision"] == pytest.approx(2 / 3)
    assert out["recall"] == pytest.approx(1.0)
    assert out["f1"] == pytest.approx(4 / 5)
    assert out["accuracy"] == pytest.approx(2 / 3)
    assert out["exact_match"] == 0.0
    # mAP: step [1,2,0] -> 2/3; step [0,2,0]: (0,1) negative but predicted positive (FP),
    # (1,2) TP -> 1/2; one nonzero label left -> stop. (2/3 + 1/2) / 2.
    assert out["map"] == pytest.approx((2 / 3 + 1 / 2) / 2)


def test_map_stops_at_tied_top_level():
    # ranks [2, 2, 1, 0]: steps [2,2,1,0] then [2,2,0,0]; the top level is shared -> stop.
    R, S = [[2, 2, 1, 0]], [[0.1, 0.9, 0.5, 0.0]]
    # step 1 pairs: (0,2) pos, s .1<.5 FN; (0,3) pos TP; (1,2) pos TP; (1,3) TP; (2,3) TP -> p=1
    # step 2 pairs: (0,2) pos, FN; (0,3) TP; (1,2) TP; (1,3) TP -> p = 1
    assert ranked_map(R, S) == pytest.approx(1.0)
    R2, S2 = [[2, 2, 1, 0]], [[0.1, 0.9, 0.5, 0.7]]
    # step 1: (0,2) FN, (0,3) FN, (1,2) TP, (1,3) TP, (2,3) pos, .5<.7 FN -> p = 2/2 = 1
    # (precision only counts predicted positives); step 2: (0,2) FN, (0,3) FN, (1,2) TP,
    # (1,3) TP -> 1
    assert ranked_map(R2, S2) == pytest.approx(1.0)
    assert ranked_recall(R2, S2) == pytest.approx(2 / 5)


def test_binary_ranks_accuracy_is_per_instance_auc(rng):
    """With 0/1 ranks and untied scores, ranked accuracy = mean per-instance label AUC."""
    Y = np.zeros((30, 7), dtype=int)
    for i in range(30):
        Y[i, rng.choice(7, size=rng.integers(1, 7), replace=False)] = 1
    S = rng.normal(size=Y.shape)
    expected = np.mean([roc_auc_score(Y[i], S[i]) for i in range(30)])
    assert ranked_accuracy(Y, S) == pytest.approx(expected)


# ---------------------------------------------------------------------------------------------
# properties
# ---------------------------------------------------------------------------------------------
@given(st.data())
def test_accuracy_and_exact_match_ignore_label_order(data):
    """Claim (scope: untied scores): accuracy and 0-1 count correctly ordered pairs, so permuting
    the label columns (of ranks and scores together) does not change them. With score ties the
    claim fails (see test_tied_scores_make_accuracy_depend_on_label_order)."""
    K = data.draw(st.integers(2, 6))
    n = data.draw(st.integers(1, 5))
    R = np.array(data.draw(st.lists(st.lists(st.integers(0, 3), min_size=K, max_size=K),
                                    min_size=n, max_size=n)))
    S = np.array([data.draw(st.permutations(range(K))) for _ in range(n)], dtype=float)
    perm = np.array(data.draw(st.permutations(range(K))))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        a, b = ranked_scores(R, S), ranked_scores(R[:, perm], S[:, perm])
    for k in ("accuracy", "exact_match"):
        np.testing.assert_allclose(a[k], b[k])


def test_tied_scores_make_accuracy_depend_on_label_order():
    """A tie is a predicted negative, so it is right on a negative pair and wrong on a positive one:
    ranks [0, 1] with tied scores -> the pair is negative, accuracy 1; ranks [1, 0] -> 0."""
    assert ranked_accuracy([[0, 1]], [[0.0, 0.0]]) == 1.0
    assert ranked_accuracy([[1, 0]], [[0.0, 0.0]]) == 0.0


def test_precision_depends_on_label_order():
    """The paper orients pairs by label index (u < v): precision is *not* permutation invariant.

    Counterexample: ranks [1, 2, 0], scores [.9, .5, .1] -> precision 2/3; swapping the first two
    labels gives ranks [2, 1, 0], scores [.5, .9, .1]: (0,1) positive but predicted negative (FN),
    others TP -> precision 1.
    """
    assert ranked_precision([[1, 2, 0]], [[0.9, 0.5, 0.1]]) == pytest.approx(2 / 3)
    assert ranked_precision([[2, 1, 0]], [[0.5, 0.9, 0.1]]) == pytest.approx(1.0)


@given(st.lists(st.lists(st.integers(0, 4), min_size=4, max_size=4), min_size=1, max_size=6))
def test_perfect_and_reversed_scores(rows):
    """Claim: scores equal to the ranks get every defined metric = 1; reversed scores get
    accuracy 0 and 0-1 = 0 on every instance with a pair."""
    R = np.array(rows)
    has_pair = np.array([len(set(r)) > 1 for r in rows])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        good = ranked_scores(R, R.astype(float))
        bad = ranked_scores(R, -R.astype(float))
    for k, v in good.items():
        assert np.isnan(v) or v == pytest.approx(1.0), k
    assert good["exact_match"] == 1.0
    if has_pair.any():
        assert bad["accuracy"] == pytest.approx(0.0)
        assert bad["exact_match"] == pytest.approx(1 - has_pair.mean())


def test_score_ties_are_predicted_negative():
    # all scores tied: no predicted positive -> precision undefined (NaN + warning), recall 0
    with pytest.warns(UndefinedMetricWarning, match="precision"):
        assert np.isnan(ranked_precision([[2, 1, 0]], [[1.0, 1.0, 1.0]]))
    assert ranked_recall([[2, 1, 0]], [[1.0, 1.0, 1.0]]) == 0.0
    # ranks increasing in the index: every pair negative; tied scores -> all TN -> accuracy 1
    assert ranked_accuracy([[0, 1, 2]], [[1.0, 1.0, 1.0]]) == 1.0


def test_undefined_instances_are_left_out_with_warning():
    R = [[1, 1, 1], [2, 1, 0]]   # first instance: no pair
    S = [[0.0, 0.0, 0.0], [0.9, 0.5, 0.1]]
    with pytest.warns(UndefinedMetricWarning, match="1 of 2"):
        assert ranked_accuracy(R, S) == 1.0
    assert ranked_exact_match(R, S) == 1.0   # vacuous match counts
    with pytest.warns(UndefinedMetricWarning):
        assert np.isnan(ranked_map([[0, 0, 0]], [[1.0, 2.0, 3.0]]))


# ---------------------------------------------------------------------------------------------
# unranked metrics against sklearn
# ---------------------------------------------------------------------------------------------
def test_unranked_scores_match_sklearn(rng):
    for _ in range(5):
        Y = (rng.random((40, 6)) < 0.4).astype(int)
        P = (rng.random((40, 6)) < 0.5).astype(int)
        Y[:, 0] = 1     # at least one true and one predicted label per instance: no 0/0
        P[:, 1] = 1
        out = unranked_scores(Y, P)
        assert out["precision"] == pytest.approx(precision_score(Y, P, average="samples"))
        assert out["recall"] == pytest.approx(recall_score(Y, P, average="samples"))
        assert out["f1"] == pytest.approx(f1_score(Y, P, average="samples"))
        assert out["accuracy"] == pytest.approx(1 - hamming_loss(Y, P))
        assert out["exact_match"] == pytest.approx(accuracy_score(Y, P))


# ---------------------------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("ranks,scores,match", [
    ([[1, -1]], [[0.0, 1.0]], "'ranks' parameter must be non-negative"),
    ([[1, 0.5]], [[0.0, 1.0]], "'ranks' parameter must hold non-negative integer"),
    ([1, 0], [[0.0, 1.0]], "'ranks' parameter must be 2-dimensional"),
    ([[1, 0]], [[0.0, 1.0, 2.0]], "'y_score' parameter must have the shape"),
    ([[1, 0]], [[0.0, np.nan]], "'y_score' parameter must be finite"),
])
def test_ranked_validation(ranks, scores, match):
    with pytest.raises(ValueError, match=match):
        ranked_scores(ranks, scores)


def test_unranked_validation():
    with pytest.raises(ValueError, match="'y_pred' parameter must contain only 0 and 1"):
        unranked_scores([[1, 0]], [[2, 0]])
    with pytest.raises(ValueError, match="'y_pred' parameter must have the shape"):
        unranked_scores([[1, 0]], [[1, 0, 1]])
