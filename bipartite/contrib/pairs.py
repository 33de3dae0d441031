"""Pairs of items within queries (docs/theory.md §11): every unordered pair of one query
(:func:`within_group_pairs`) and the partial-order pairs of graded relevance
(:func:`partial_order_pairs`, the preferred item first), under one size limit
(:data:`MAX_PAIRS`). LR2PPO (:mod:`bipartite.contrib.lr2ppo`) trains its reward model and its
policy on them.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from bipartite._utils.validation import (
    check_array,
    check_group_ids,
    check_positive,
    check_qid,
    require_qid,
)
from bipartite.metrics import QueryRows
from bipartite.ranked_metrics import check_rank_values

__all__ = ["MAX_PAIRS", "partial_order_pairs", "within_group_pairs"]

#: Size limit of :func:`within_group_pairs`: at most 10^7 pairs (160 MB) unless ``max_pairs`` is
#: raised; one group of 100,000 items has about 5 * 10^9 pairs (a 37 GiB array).
MAX_PAIRS = 10_000_000


def within_group_pairs(qid: ArrayLike = None, *, max_pairs: int = MAX_PAIRS,
                       groups: ArrayLike = None) -> np.ndarray:
    """All unordered pairs ``(i, j)``, ``i < j``, of items in the same query (group).

    Returns an int64 array of shape ``(P, 2)``, sorted by ``(i, j)``. docs/theory.md §11 (LR2PPO).
    The number of pairs ``P = Σ_g n_g (n_g − 1) / 2`` is checked against ``max_pairs`` (default
    ``MAX_PAIRS = 10**7``) before anything is allocated; a larger ``max_pairs`` is a deliberate
    request and is honoured. ``qid`` is a non-empty 1-D array of query ids (finite if numeric);
    ``groups`` is its deprecated alias (FutureWarning).

    >>> within_group_pairs([7, 7, 3, 7]).tolist()
    [[0, 1], [0, 3], [1, 3]]
    """
    qid, qname = require_qid(qid, groups, "within_group_pairs")
    return pairs_within(query_codes(qid, qname), max_pairs, qname)


def query_codes(qid: ArrayLike, name: str, n: int | None = None, against: str = "") -> np.ndarray:
    """Query ids (non-empty, 1-D, finite if numeric, length ``n`` when given) as codes."""
    q = check_group_ids(qid, name)
    return check_qid(q, len(q) if n is None else n, name, ref=against or name)


def pairs_within(gid: np.ndarray, max_pairs: int, name: str = "qid") -> np.ndarray:
    """:func:`within_group_pairs` of validated query codes."""
    limit = check_positive(max_pairs, "max_pairs", integer=True)
    sizes = np.bincount(gid).astype(np.float64)
    n_pairs = int((sizes * (sizes - 1) / 2).sum())
    if n_pairs > limit:
        raise ValueError(f"The '{name}' parameter gives {n_pairs} within-group pairs (largest "
                         f"group: {int(sizes.max())} items), more than the limit max_pairs = "
                         f"{limit}; subsample the groups or raise 'max_pairs' deliberately.")
    out = []
    for members in QueryRows(gid, check_input=False).split():  # each ascending
        i, j = np.triu_indices(len(members), k=1)
        out.append(np.stack([members[i], members[j]], axis=1))
    pairs = np.concatenate(out) if out else np.zeros((0, 2), dtype=np.int64)
    return pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))].astype(np.int64)


def partial_order_pairs(relevance: ArrayLike, qid: ArrayLike = None, *,
                        groups: ArrayLike = None) -> np.ndarray:
    """Partial-order pairs from graded relevance: ``(i, j)`` in one query with ``rel_i > rel_j``.

    ``relevance`` holds non-negative integer grades (0, 1, 2, ...); ``qid`` the query ids, one
    per item (finite if numeric; ``groups`` is its deprecated alias, FutureWarning).

    The preferred item comes first (the paper's ``g_c``, "the pair in ground truth order"); items
    of equal relevance form no pair. Shape ``(P, 2)``, int64. docs/theory.md §11 (LR2PPO Eq. 4).

    >>> partial_order_pairs([2, 0, 1, 0], [1, 1, 1, 2]).tolist()
    [[0, 1], [0, 2], [2, 1]]
    """
    rel = check_rank_values(check_array(relevance, "relevance", ndim=1), "relevance",
                            word="grades")
    qid, qname = require_qid(qid, groups, "partial_order_pairs")
    pairs = pairs_within(query_codes(qid, qname, len(rel), "relevance"), MAX_PAIRS, qname)
    a, b = pairs[:, 0], pairs[:, 1]
    keep = rel[a] != rel[b]
    a, b = a[keep], b[keep]
    swap = rel[a] < rel[b]
    return np.stack([np.where(swap, b, a), np.where(swap, a, b)], axis=1)


def check_pairs(pairs: ArrayLike, n: int, name: str = "pairs") -> np.ndarray:
    arr = check_array(pairs, name, ndim=2, allow_empty=False)
    if arr.shape[1] != 2:
        raise ValueError(f"The '{name}' parameter must have shape (P, 2), got {arr.shape}.")
    if (arr != np.round(arr)).any() or arr.min() < 0 or arr.max() >= n:
        raise ValueError(f"The '{name}' parameter must hold row indices in [0, {n}), "
                         f"got values in [{arr.min():g}, {arr.max():g}].")
    return arr.astype(np.int64)
