"""Dictatorship diagnostics at large K (issue 25, item 4): the all-pairs win rates and near-tie
rates (:func:`cross_pair_win_rates`, :func:`near_tie_rates`) against the O(n²) loops and the
per-pair functions, :func:`report` and the theory functions at K = 174 on synthetic data, and on
CAL500 (K = 174) and enron (K = 53) when the data folder is present.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

from bipartite import UndefinedMetricWarning
from bipartite.bayes import effective_weights, loss_aggregation
from bipartite.dictatorship import (
    cross_pair_win_rate,
    cross_pair_win_rates,
    dictator,
    dictator_threshold,
    effective_weight_shares,
    label_vector_order,
    near_tie_rate,
    near_tie_rates,
    report,
)
from tests.test_dictatorship import slow_near_tie, slow_win_rate


def _skewed_labels(rng, n, K, lo=0.01, hi=0.5):
    """Binary (n, K) labels with priors log-uniform in [lo, hi] (the range of CAL500)."""
    pi = np.exp(rng.uniform(np.log(lo), np.log(hi), size=K))
    return (rng.uniform(size=(n, K)) < pi).astype(np.int64)


# ---- all pairs against the O(n²) loops -------------------------------------------------------
@pytest.mark.parametrize("weighted", [False, True])
def test_all_pairs_against_the_double_loop(weighted):
    """Every ordered pair of the matrices equals the O(n²) double loop over cross pairs (ties ½;
    |f(x) − f(x')| ≤ tol evaluated around the k-only score), undefined pairs NaN."""
    rng = np.random.default_rng(11)
    for _ in range(12):
        n, K = int(rng.integers(4, 30)), int(rng.integers(2, 6))
        Y = rng.integers(0, 2, size=(n, K))
        f = np.round(rng.normal(size=n), 1)  # ties and boundary-equal gaps
        w = rng.uniform(0, 2, size=n) if weighted else None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            W = cross_pair_win_rates(Y, f, sample_weight=w)
            T = near_tie_rates(Y, f, tol=0.2, sample_weight=w)
        assert np.isnan(np.diag(W)).all() and np.isnan(np.diag(T)).all()
        for k, j in itertools.permutations(range(K), 2):
            has = ((Y[:, k] == 1) & (Y[:, j] == 0)).any() and ((Y[:, j] == 1) & (Y[:, k] == 0)).any()
            if not has:
                assert np.isnan(W[k, j]) and np.isnan(T[k, j])
                continue
            assert W[k, j] == pytest.approx(slow_win_rate(Y, f, k, j, w), abs=1e-12)
            assert T[k, j] == pytest.approx(slow_near_tie(Y, f, k, j, 0.2, w), abs=1e-12)


def test_all_pairs_equal_the_per_pair_functions_at_k174():
    """K = 174 synthetic labels with CAL500-like priors: the matrices equal the per-pair
    functions on 300 random ordered pairs, W is antisymmetric about ½, and the empty cross sets
    are NaN with one warning for all of them."""
    rng = np.random.default_rng(7)
    n, K = 400, 174
    Y = _skewed_labels(rng, n, K, lo=0.004, hi=0.5)
    f = np.round(Y @ rng.uniform(size=K) + rng.normal(size=n), 2)
    w = rng.uniform(0.5, 2.0, size=n)
    with pytest.warns(UndefinedMetricWarning, match="label pairs") as rec:
        W = cross_pair_win_rates(Y, f, sample_weight=w)
    assert len([r for r in rec if issubclass(r.category, UndefinedMetricWarning)]) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        T = near_tie_rates(Y, f, tol=0.05, sample_weight=w)
        pairs = rng.choice(K, size=(300, 2))
        for k, j in pairs[pairs[:, 0] != pairs[:, 1]]:
            ref_w = cross_pair_win_rate(Y, f, k, j, sample_weight=w)
            ref_t = near_tie_rate(Y, f, k, j, tol=0.05, sample_weight=w)
            np.testing.assert_allclose([W[k, j], T[k, j]], [ref_w, ref_t], rtol=0, atol=1e-12)
    off = ~np.eye(K, dtype=bool)
    defined = np.isfinite(W) & off
    assert defined.sum() > 0.9 * K * (K - 1)
    np.testing.assert_allclose((W + W.T)[defined], 1.0, atol=1e-12)
    assert np.array_equal(np.isfinite(T), np.isfinite(W))


def test_all_pairs_detect_a_planted_dictator_at_k174():
    """A scorer that ranks by label 0 first (the loss-aggregation scorer of the rarest label
    with α_0 > Σ_{j≠0} α_j): label 0 wins every cross pair, W[0, j] = 1 for all j."""
    rng = np.random.default_rng(8)
    Y = _skewed_labels(rng, 600, 174)
    Y[:40, 0], Y[40:, 0] = 1, 0
    pi = Y.mean(axis=0)
    a = np.ones(174)
    a[0] = 2 * effective_weights(np.delete(pi, 0)).sum() * pi[0] * (1 - pi[0])
    assert dictator(pi, a) == 0
    f = loss_aggregation(Y, pi, a)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        W = cross_pair_win_rates(Y, f)
        r = report(Y, f)
    row = W[0, 1:]
    assert np.all(row[np.isfinite(row)] == 1.0)
    assert r.dictatorship_index == 1.0 and r.win_rate.shape == (174, 174)
    np.testing.assert_array_equal(r.win_rate, W)


def test_all_pairs_refuse_bad_input():
    with pytest.raises(ValueError, match="K >= 2"):
        cross_pair_win_rates([[1], [0]], [1.0, 2.0])
    with pytest.raises(ValueError, match="'Y'"):
        cross_pair_win_rates([[2, 0], [0, 1]], [1.0, 2.0])
    with pytest.raises(ValueError, match="'tol'"):
        near_tie_rates([[1, 0], [0, 1]], [1.0, 2.0], tol=-1.0)
    with pytest.raises(ValueError, match="'scores'"):
        near_tie_rates([[1, 0], [0, 1]], [1.0, np.nan], tol=0.1)
    with pytest.raises(ValueError):
        cross_pair_win_rates([[1, 0], [0, 1]], [1.0, 2.0, 3.0])


# ---- report and the theory functions at K = 174 -------------------------------------------------
def test_report_at_k174_is_one_pass_and_tabulates():
    """report() at K = 174: the matrices of the all-pairs kernel, a 2 + 2K column frame built
    without pandas' fragmentation warning, and a text table."""
    rng = np.random.default_rng(9)
    Y = _skewed_labels(rng, 300, 174, lo=0.02)
    f = Y @ rng.uniform(size=174) + rng.normal(size=300)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        r = report(Y, f, tol=0.01)
        W = cross_pair_win_rates(Y, f)
        T = near_tie_rates(Y, f, tol=0.01)
    np.testing.assert_array_equal(r.win_rate, W)
    np.testing.assert_array_equal(r.near_tie, T)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # pandas' PerformanceWarning on a fragmented frame
        df = r.to_frame()
    assert df.shape == (174, 4 + 2 * 174)
    assert "dictatorship index" in str(r)


def test_theory_functions_at_k174():
    """effective_weights, shares, dictator and the threshold are O(K): checked by hand at K = 174;
    the label-vector order needs 2**K vectors and refuses past its documented limit."""
    rng = np.random.default_rng(10)
    pi = np.exp(rng.uniform(np.log(0.01), np.log(0.5), size=174))
    alpha = effective_weights(pi)
    np.testing.assert_allclose(alpha, 1.0 / (pi * (1 - pi)), rtol=1e-15)
    np.testing.assert_allclose(effective_weight_shares(pi), alpha / alpha.sum(), rtol=1e-14)
    assert dictator(pi) is None  # 174 labels: no share above ½
    k = int(np.argmax(alpha))
    lo, hi = dictator_threshold(pi, k)
    S = alpha.sum() - alpha[k]
    assert lo * (1 - lo) == pytest.approx(1.0 / S, rel=1e-9)
    pi_dict = pi.copy()
    pi_dict[k] = lo / 2  # beyond the threshold: label k dictates
    assert dictator(pi_dict) == k
    with pytest.raises(ValueError, match="max_labels"):
        label_vector_order("loss", pi=pi)
    with pytest.raises(ValueError, match="max_labels"):
        label_vector_order("sum", K=174)


# ---- real data -------------------------------------------------------------------------------------
@pytest.mark.parametrize("name, K", [("cal500", 174), ("enron", 53)])
def test_all_pairs_on_real_data(shared_data, name, K):
    """CAL500 (K = 174) and enron (K = 53): the matrices on the label-count scorer equal the
    per-pair function on 100 random pairs; the report runs."""
    from bipartite.data import load_mulan

    d = load_mulan(name, data_home=shared_data)
    Y = np.asarray(d.Y)
    assert Y.shape[1] == K
    rng = np.random.default_rng(0)
    f = Y @ rng.uniform(size=K) + rng.normal(size=len(Y))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        W = cross_pair_win_rates(Y, f)
        for k, j in rng.choice(K, size=(100, 2)):
            if k != j:
                ref = cross_pair_win_rate(Y, f, k, j)
                assert (np.isnan(ref) and np.isnan(W[k, j])) or W[k, j] == pytest.approx(ref, abs=1e-12)
        r = report(Y, f)
    assert r.win_rate.shape == (K, K) and np.isfinite(r.dictatorship_index)
