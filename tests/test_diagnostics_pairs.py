"""The report's vectorised kernels against their slow, obviously-correct references: every label
pair's win rate, near-tie rate and DeLong variance at once (``_pairs.pair_stats``) against
:func:`bipartite.dictatorship.cross_pair_win_rate`, :func:`~bipartite.dictatorship.near_tie_rate`
and :func:`bipartite.diagnostics.delong_auc_variance` pair by pair."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from bipartite.diagnostics import _pairs, delong_auc_variance
from bipartite.dictatorship import cross_pair_win_rate, near_tie_rate


def _data(seed, n=60, K=5, ties=True, weights=True):
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, K)) < rng.uniform(0.05, 0.6, K)).astype(np.float64)
    s = Y @ rng.normal(size=K) + rng.normal(size=n)
    if ties:
        s = np.round(s, 1)  # many tied scores
    w = rng.uniform(0.1, 3.0, n) if weights else np.ones(n)
    if weights:
        w[rng.random(n) < 0.1] = 0.0  # zero-weight rows take no part
    return s, Y, w


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("block", [1 << 20, 70])  # one block; blocks of one pair
def test_pair_stats_match_the_per_pair_references(seed, block, monkeypatch):
    monkeypatch.setattr(_pairs, "BLOCK_ELEMENTS", block)
    s, Y, w = _data(seed, ties=seed % 2 == 0, weights=seed % 3 != 0)
    K, tol = Y.shape[1], 0.15
    pairs = [(k, j) for k in range(K) for j in range(k + 1, K)] + [(3, 1)]
    ps = _pairs.pair_stats(s, Y, w, pairs, tol=tol, delong=True)
    for i, (k, j) in enumerate(pairs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref_w = cross_pair_win_rate(Y, s, k, j, sample_weight=w)
            ref_t = near_tie_rate(Y, s, k, j, tol=tol, sample_weight=w)
        only_k = (Y[:, k] == 1) & (Y[:, j] == 0)
        only_j = (Y[:, j] == 1) & (Y[:, k] == 0)
        sub = only_k | only_j
        np.testing.assert_allclose(ps.win[i], ref_w, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(ps.near_tie[i], ref_t, rtol=1e-12, atol=1e-14)
        assert ps.n_k_only[i] == np.count_nonzero(w * only_k)
        assert ps.n_j_only[i] == np.count_nonzero(w * only_j)
        if np.isfinite(ref_w):  # DeLong on the k-only (positive) vs j-only (negative) rows
            _, var = delong_auc_variance(only_k[sub].astype(float), s[sub], sample_weight=w[sub])
            np.testing.assert_allclose(ps.var[i], var, rtol=1e-10, atol=1e-15)


def test_pair_stats_undefined_and_single_row_sides():
    Y = np.array([[1, 0], [1, 1], [0, 0], [1, 1]], dtype=float)  # no "j only" row
    ps = _pairs.pair_stats(np.arange(4.0), Y, np.ones(4), [(0, 1)], tol=0.0, delong=True)
    assert np.isnan(ps.win[0]) and np.isnan(ps.var[0]) and np.isnan(ps.near_tie[0])
    assert (ps.n_k_only[0], ps.n_j_only[0]) == (1, 0)
    Y = np.array([[1, 0], [0, 1], [0, 1], [0, 0]], dtype=float)  # one k-only row: W, no var
    ps = _pairs.pair_stats(np.array([3.0, 1.0, 2.0, 0.0]), Y, np.ones(4), [(0, 1)], tol=0.0,
                           delong=True)
    assert ps.win[0] == 1.0 and np.isnan(ps.var[0]) and ps.near_tie[0] == 0.0


def test_pair_stats_no_pairs():
    ps = _pairs.pair_stats(np.arange(3.0), np.ones((3, 1)), np.ones(3), [], tol=0.0, delong=True)
    assert ps.win.shape == (0,)
