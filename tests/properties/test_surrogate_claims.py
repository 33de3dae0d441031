"""Property tests of the RLSEP claims checkable from the losses alone (docs/theory.md §8, §11;
papers/rlsep/claims.toml). One test per claim; the docstring states claim, scope and verdict.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from hypothesis import given
from hypothesis import strategies as st

from bipartite.surrogates import lsep_loss, rlsep_loss


@st.composite
def lists(draw, *, max_n=6, max_rank=3):
    """(scores, ranks) for one instance: scores on a coarse grid (ties possible) or floats."""
    n = draw(st.integers(1, max_n))
    ranks = draw(st.lists(st.integers(0, max_rank), min_size=n, max_size=n))
    scores = draw(st.one_of(
        st.lists(st.integers(-4, 4).map(float), min_size=n, max_size=n),
        st.lists(st.floats(-5, 5, allow_nan=False), min_size=n, max_size=n),
    ))
    return scores, ranks


def t64(x):
    return torch.as_tensor(np.asarray(x, dtype=np.float64))


@given(q=lists(max_rank=1), t=st.one_of(st.none(), st.integers(1, 8)), seed=st.integers(0, 99))
def test_rlsep_reduces_to_lsep_for_binary_ranks(q, t, seed):
    """Claim (RLSEP §4, after Eq. 6): "when positive labels have rank 1 and negative labels have
    rank 0, RLSEP becomes equivalent to LSEP" (Eq. 3).

    Scope/verdict: holds, with all pairs and with a random subset of t pairs (the same generator
    seed draws the same subset, since both losses have the same pair set).
    """
    scores, ranks = q
    g1, g2 = torch.Generator().manual_seed(seed), torch.Generator().manual_seed(seed)
    a = lsep_loss(t64(scores), t64(ranks), num_pairs=t, generator=g1)
    b = rlsep_loss(t64(scores), t64(ranks), num_pairs=t, generator=g2)
    assert a.item() == b.item()


@given(q=lists(), shift=st.integers(0, 3), gaps=st.lists(st.integers(1, 10), min_size=4,
                                                          max_size=4))
def test_rlsep_depends_only_on_rank_order(q, shift, gaps):
    """Claim (RLSEP §3.1 and §4): rank values "are used only to determine a pairwise magnitude
    relation, and their difference or ratio does not indicate any further information".

    Scope/verdict: holds: RLSEP (Eq. 6) is unchanged by any strictly increasing map of the ranks
    (here: arbitrary positive gaps between consecutive rank levels, plus a shift; ranks are
    non-negative integers, so the map is one into the non-negative integers: negative or
    fractional ranks are refused by name since the reliability issue).
    """
    scores, ranks = q
    levels = np.cumsum(gaps) + shift  # strictly increasing image of ranks 0..3
    mapped = [levels[r] for r in ranks]
    a = rlsep_loss(t64(scores), t64(ranks)).item()
    b = rlsep_loss(t64(scores), t64(mapped)).item()
    assert a == b


@given(q=lists())
def test_rlsep_upper_bounds_log_misranked_count(q):
    """Claim (RLSEP §3.3, Eq. 2-3 and Eq. 6): LSEP/RLSEP is a smooth surrogate of the count of
    mis-ranked pairs (Eq. 2).

    Scope/verdict: holds in the bound form: RLSEP >= log(1 + #{(u, v): r_u > r_v, f_u <= f_v})
    (a tie counts as mis-ranked, since e^0 = 1), for every score vector and ranks; equality needs
    every violated pair exactly tied and every respected pair infinitely far apart.
    """
    scores, ranks = q
    n = len(scores)
    bad = sum(1 for u in range(n) for v in range(n)
              if ranks[u] > ranks[v] and scores[u] <= scores[v])
    assert rlsep_loss(t64(scores), t64(ranks)).item() >= math.log1p(bad) - 1e-12


@given(q=lists())
def test_rlsep_small_loss_means_correct_order(q):
    """Claim (RLSEP §4, motivation of Eq. 6): minimising RLSEP drives the scores to respect the
    ranks, f_u > f_v whenever r_u > r_v.

    Scope/verdict: holds: RLSEP < log 2 implies every rank pair is strictly correctly ordered
    (any violated or tied pair alone contributes e^0 = 1 inside the log), and along the scores
    f = c · r the loss decreases to 0 as c grows (c = 1, 10, 100).
    """
    scores, ranks = q
    n = len(scores)
    loss = rlsep_loss(t64(scores), t64(ranks)).item()
    if loss < math.log(2):
        assert all(scores[u] > scores[v] for u in range(n) for v in range(n)
                   if ranks[u] > ranks[v])
    along = [rlsep_loss(c * t64(ranks), t64(ranks)).item() for c in (1.0, 10.0, 100.0)]
    assert along[0] >= along[1] >= along[2]
    assert along[2] < 1e-40
