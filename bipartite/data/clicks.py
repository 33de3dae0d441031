"""Position-based click simulation (docs/theory.md §10).
"""


from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike
from sklearn.utils import Bunch

from bipartite._utils.validation import (
    check_array,
    check_group_ids,
    check_random_state,
    check_real,
)
from bipartite.ranked_metrics import check_rank_values


def _ranks_within_query(qid: np.ndarray, scores: np.ndarray, tiebreak: np.ndarray) -> np.ndarray:
    """1-based rank of each row within its query, by descending score, ties by ``tiebreak``
    (ascending). One lexsort; queries need not be contiguous."""
    order = np.lexsort((tiebreak, -scores, qid))
    sq = qid[order]
    pos = np.arange(len(order))
    start = np.ones(len(order), dtype=bool)
    start[1:] = sq[1:] != sq[:-1]
    first = np.maximum.accumulate(np.where(start, pos, 0))
    ranks = np.empty(len(order), dtype=np.int64)
    ranks[order] = pos - first + 1
    return ranks


def simulate_clicks(
    relevance: ArrayLike,
    qid: ArrayLike,
    base_scores: ArrayLike,
    *,
    eta_pos: float = 1.0,
    epsilon_minus: float = 0.1,
    epsilon_plus: float = 0.9,
    max_grade: int | None = None,
    seed: int | np.random.Generator = 0,
    return_details: bool = False,
) -> np.ndarray | Bunch:
    """Clicks from a position-based click model (PBM) over a base ranking (docs/theory.md §10).

    Within each query the documents are ranked by ``base_scores`` (descending; ties broken
    uniformly at random), giving ranks ``r = 1, 2, …``. A document is clicked with probability

        P(click) = P(examined | r) · P(click | examined, g),
        P(examined | r) = (1 / r)^eta_pos,
        P(click | examined, g) = ε⁻ + (ε⁺ − ε⁻) · g / max_grade,

    with ``g`` the relevance grade (``max_grade`` defaults to the largest grade present, at least
    1). The defaults give ``{0: 0.1, 1: 0.5, 2: 0.9}`` for grades 0–2. The Generator from ``seed``
    draws the tie-breaking keys first, then one uniform per row for the click.

    Parameters
    ----------
    relevance : (n,) non-negative integer grades. qid : (n,) query ids (finite if numeric).
    base_scores : (n,) finite.
    eta_pos : float ≥ 0; ``eta_pos = 0`` is the model without position bias (every rank is
        examined). epsilon_minus, epsilon_plus : 0 ≤ ε⁻ ≤ ε⁺ ≤ 1. max_grade : int ≥ max
        grade, or None.
    return_details : if True return a Bunch with ``clicks``, ``prob``, ``rank``, ``examination``,
        ``attractiveness`` and ``params``; else the clicks.

    Returns
    -------
    clicks : (n,) int64 in {0, 1} (or the Bunch above).

    >>> rel, q = [2, 0, 1, 0], [7, 7, 7, 7]
    >>> d = simulate_clicks(rel, q, [4.0, 3.0, 2.0, 1.0], return_details=True)
    >>> d.rank.tolist(), d.prob.round(3).tolist()
    ([1, 2, 3, 4], [0.9, 0.05, 0.167, 0.025])
    """
    g = check_rank_values(check_array(relevance, "relevance", ndim=1), "relevance", word="grades")
    q = check_group_ids(qid, "qid")  # 1-D, finite, one type, none missing
    if len(q) != len(g):
        raise ValueError(
            f"Inconsistent numbers of samples: 'relevance' has {len(g)}, 'qid' has {len(q)}."
        )
    s = check_array(base_scores, "base_scores", ndim=1)
    if len(s) != len(g):
        raise ValueError(
            f"Inconsistent numbers of samples: 'relevance' has {len(g)}, 'base_scores' has "
            f"{len(s)}."
        )
    ep = check_real(eta_pos, "eta_pos")
    if not (math.isfinite(ep) and ep >= 0):
        raise ValueError(f"The 'eta_pos' parameter must be finite and >= 0, got {eta_pos!r}.")
    em, eps = check_real(epsilon_minus, "epsilon_minus"), check_real(epsilon_plus, "epsilon_plus")
    if not 0.0 <= em <= eps <= 1.0:
        raise ValueError(
            "The 'epsilon_minus' and 'epsilon_plus' parameters must satisfy "
            f"0 <= epsilon_minus <= epsilon_plus <= 1, got {epsilon_minus!r}, {epsilon_plus!r}."
        )
    top = int(g.max())
    if max_grade is None:
        mg = max(top, 1)
    else:
        if isinstance(max_grade, bool) or not isinstance(max_grade, (int, np.integer)):
            raise TypeError(f"The 'max_grade' parameter must be None or an int, got {max_grade!r}.")
        if max_grade < max(top, 1):
            raise ValueError(
                f"The 'max_grade' parameter must be >= the largest grade {top} (and >= 1), "
                f"got {max_grade!r}."
            )
        mg = int(max_grade)
    rng = check_random_state(seed)
    tiebreak = rng.random(len(g))
    rank = _ranks_within_query(q, s, tiebreak)
    examination = rank.astype(np.float64) ** (-ep)
    attractiveness = em + (eps - em) * g / mg
    prob = examination * attractiveness
    clicks = (rng.random(len(g)) < prob).astype(np.int64)
    if not return_details:
        return clicks
    params = {"model": "PBM", "eta_pos": ep, "epsilon_minus": em, "epsilon_plus": eps,
              "max_grade": mg}
    return Bunch(clicks=clicks, prob=prob, rank=rank, examination=examination,
                 attractiveness=attractiveness, params=params)
