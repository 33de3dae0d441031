"""Exponential score fusion and its Pareto search (MTRUB §3.4; docs/theory.md §11).

MTRUB ranks videos online by ``Score = P_click · P_fullplay^α · P_replay^β · P_validstay^γ ·
P_longstay^δ`` with the exponents chosen by "Pareto optimality". Here:

* :func:`score_fusion` — the fused score ``Π_k p_k^{γ_k}``, computed in log space;
* :func:`pareto_search` (over :func:`bipartite.pareto.simplex_grid`) — the exponents whose per-label (group) AUCs are
  Pareto-optimal on validation data, by a grid over the simplex or a seeded random search;
* :func:`make_nested_behaviour` — a synthetic text-video-search problem with nested behaviours
  (click ⊇ valid stay ⊇ long stay), query groups and the exact class probabilities.

Fusion is a third aggregation scheme beside loss aggregation (docs/theory.md §4, a *linear* combination
``Σ_k α_k η_k``) and label aggregation (§5): it is linear in ``log p_k``. Only the ray of the
exponent vector matters for the ranking (``Π p_k^{cγ_k}`` is an increasing function of
``Π p_k^{γ_k}`` for c > 0), so the simplex ``Σ_k γ_k = 1`` parametrises every non-trivial
non-negative fusion; MTRUB's normalisation ``γ_click = 1`` is the same ray.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from sklearn.utils import Bunch

from bipartite._utils.validation import (
    check_array,
    check_binary,
    check_consistent_length,
    check_nonnegative,
    check_positive,
    check_probabilities,
    check_qid,
    check_random_state,
    resolve_qid,
)
from bipartite.metrics import grouped_stats, multilabel_auc
from bipartite.pareto import pareto_filter, simplex_grid

__all__ = [
    "score_fusion",
    "pareto_search",
    "FusionSearch",
    "make_nested_behaviour",
]

#: Floor for probabilities before the log. ``np.finfo(float).tiny`` changes only exact zeros (and
#: subnormals): log(0) = -inf would make every item with one zero probability tie at -inf whatever
#: its other labels say, and ``0 · log 0`` (a zero exponent) would give NaN. No ranking between
#: two positive normal probabilities is changed by this floor.
_EPS = float(np.finfo(np.float64).tiny)


def _check_exponents(exponents: ArrayLike, K: int) -> np.ndarray:
    gam = check_array(exponents, "exponents", ndim=(1, 2))
    if gam.shape[-1] != K:
        raise ValueError(
            f"The 'exponents' parameter must have K={K} entries per row (one per column of P), "
            f"got shape {gam.shape}."
        )
    return check_nonnegative(gam, "exponents")


def _log_fusion(logP: np.ndarray, gam: np.ndarray) -> np.ndarray:
    """Kernel: ``log Π_k p_k^{γ_k} = Σ_k γ_k log p_k`` for one (K,) or many (m, K) exponents."""
    return logP @ gam.T


def score_fusion(P: ArrayLike, exponents: ArrayLike, *, log: bool = True) -> np.ndarray:
    """Exponential score fusion ``Π_k p_k^{γ_k}`` (MTRUB §3.4; docs/theory.md §11).

    Computed in log space as ``Σ_k γ_k log max(p_k, tiny)`` with ``tiny`` the smallest normal
    float64 (about 2.2e-308): the product of several small probabilities underflows, its log does
    not, and the log is an increasing transform, so every ranking metric (AUC, gAUC, nDCG, AP) is
    the same for both. The floor affects exact zeros only (see ``_EPS``); with it a zero exponent
    always removes its label (no ``0 · log 0 = NaN``).

    Parameters
    ----------
    P : array-like of shape (n, K)
        Per-label probabilities in [0, 1].
    exponents : array-like of shape (K,) or (m, K)
        Non-negative exponents γ; several rows score several fusions at once.
    log : bool, default True
        Return the log-score (default). ``False`` returns ``exp`` of it, the plain product, which
        may underflow to 0 for many small factors.

    Returns
    -------
    ndarray of shape (n,) for 1-D ``exponents``, (n, m) for 2-D.

    >>> import numpy as np
    >>> P = np.array([[0.5, 0.2], [0.9, 0.1]])
    >>> np.round(score_fusion(P, [1.0, 2.0], log=False), 4)
    array([0.02 , 0.009])
    >>> np.round(score_fusion(P, [1.0, 2.0]), 4)
    array([-3.912 , -4.7105])
    """
    Pm = check_probabilities(P, "P", ndim=2)
    gam = _check_exponents(exponents, Pm.shape[1])
    out = _log_fusion(np.log(np.maximum(Pm, _EPS)), gam)
    return out if log else np.exp(out)


@dataclass(frozen=True)
class FusionSearch:
    """Result of :func:`pareto_search`.

    Attributes
    ----------
    exponents : ndarray (p, K) — the Pareto-optimal exponents (on the search data).
    aucs : ndarray (p, K) — their per-label (group) AUCs.
    candidates : ndarray (m, K) — every exponent vector evaluated.
    candidate_aucs : ndarray (m, K) — their per-label (group) AUCs.
    pareto_index : ndarray (p,) — rows of ``candidates`` that are Pareto-optimal.
    """

    exponents: np.ndarray
    aucs: np.ndarray
    candidates: np.ndarray
    candidate_aucs: np.ndarray
    pareto_index: np.ndarray

    def best(self, weights: ArrayLike | None = None) -> np.ndarray:
        """The Pareto exponents maximising ``Σ_k weights_k AUC_k`` (default: the mean AUC).

        First maximiser in candidate order on ties.
        """
        K = self.aucs.shape[1]
        w = np.ones(K) / K if weights is None else check_array(weights, "weights", ndim=1)
        if len(w) != K:
            raise ValueError(f"The 'weights' parameter must have {K} entries, got {len(w)}.")
        return self.exponents[int(np.argmax(np.nan_to_num(self.aucs, nan=-1.0) @ w))]


def _label_aucs(scores: np.ndarray, Y: np.ndarray, qid: np.ndarray | None) -> np.ndarray:
    """Per-label AUC (pooled, one shared sort) or per-label gAUC (pair-weighted; the grouped
    engine, one sort for every label) of one scorer; ``qid``: validated query codes."""

    if qid is None:
        return multilabel_auc(Y, scores)
    return grouped_stats(Y, scores, qid, ap=False, check_input=False).gauc("pairs")


def pareto_search(
    P_val: ArrayLike,
    Y_val: ArrayLike,
    *,
    grid: ArrayLike | None = None,
    resolution: int = 10,
    n_random: int | None = None,
    qid: ArrayLike | None = None,
    seed: int | np.random.Generator | None = None,
    groups: ArrayLike | None = None,
) -> FusionSearch:
    """Fusion exponents whose per-label AUCs are Pareto-optimal on validation data (docs/theory.md §11, §6).

    Every candidate γ scores the validation set by :func:`score_fusion`; its vector of per-label
    AUCs (ties ½, docs/theory.md §2) — or of group AUCs weighted by pairs, when ``qid`` is given (MTRUB
    reports gAUC) — is computed, and the non-dominated candidates are kept with
    :func:`bipartite.pareto.pareto_filter` (no other candidate is ≥ on every label and > on one).

    Candidates, in order of precedence: ``grid`` (an explicit (m, K) array of non-negative
    exponents); else ``n_random`` points drawn from the flat Dirichlet on the simplex with
    ``seed``, plus the K vertices; else :func:`bipartite.pareto.simplex_grid` ``(K, resolution)``. Only the ray of γ
    matters for a ranking, so the simplex covers all fusions (module docstring).

    Pareto-optimality is relative to the candidates and to the validation sample: it is an
    empirical frontier, not the population one (for that see :mod:`bipartite.pareto`).

    Parameters
    ----------
    P_val : array-like (n, K) of probabilities; Y_val : array-like (n, K) of 0/1 labels.
    qid : array-like (n,), optional — query ids for gAUC (``groups``: its deprecated alias).
    seed : None, int >= 0 or Generator — drives the random search; validated even when it is
        not used (``grid`` given or ``n_random`` None).

    Returns
    -------
    FusionSearch

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> Y = rng.integers(0, 2, size=(200, 2))
    >>> P = np.clip(0.5 * Y + 0.5 * rng.uniform(size=(200, 2)), 0, 1)
    >>> res = pareto_search(P, Y, resolution=4)
    >>> res.candidates.shape, bool(np.all(res.aucs.max(axis=0) == res.candidate_aucs.max(axis=0)))
    ((5, 2), True)
    """

    Pm = check_probabilities(P_val, "P_val", ndim=2)
    Y = check_binary(Y_val, "Y_val", ndim=2)
    check_consistent_length(P_val=Pm, Y_val=Y)
    if Pm.shape[1] != Y.shape[1]:
        raise ValueError(
            f"P_val and Y_val must have the same number of labels, got {Pm.shape[1]} and "
            f"{Y.shape[1]}."
        )
    K = Pm.shape[1]
    rng = check_random_state(seed)  # checked even when unused (no ``n_random``): no silent typo
    qid, qname = resolve_qid(qid, groups, "pareto_search")
    g = check_qid(qid, len(Pm), qname, ref="P_val")
    if grid is not None:
        cand = _check_exponents(grid, K)
        if cand.ndim == 1:
            cand = cand[None, :]
    elif n_random is not None:
        if not isinstance(n_random, (int, np.integer)) or n_random < 1:
            raise ValueError(f"The 'n_random' parameter must be a positive int, got {n_random!r}.")
        cand = np.vstack([np.eye(K), rng.dirichlet(np.ones(K), size=int(n_random))])
    else:
        cand = simplex_grid(K, resolution)
    logP = np.log(np.maximum(Pm, _EPS))
    S = _log_fusion(logP, cand)  # (n, m)
    A = np.array([_label_aucs(S[:, j], Y, g) for j in range(len(cand))])
    # A label with one class has NaN AUC for every candidate alike; -1 (below any AUC) keeps the
    # column constant, so it cannot make one candidate dominate another.
    keep = np.flatnonzero(pareto_filter(np.nan_to_num(A, nan=-1.0)))
    return FusionSearch(exponents=cand[keep], aucs=A[keep], candidates=cand, candidate_aucs=A,
                        pareto_index=keep)


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * z))  # = 1 / (1 + e^{-z}), without overflow for large |z|


#: Size limit of :func:`make_nested_behaviour`: at most ``10**8`` entries (800 MB of float64) in
#: ``X``, ``n_queries * items_per_query * (n_query_features + n_item_features + 1)``, unless
#: ``max_entries`` is raised; checked before anything is allocated.
MAX_ENTRIES = 100_000_000


def make_nested_behaviour(
    n_queries: int = 200,
    *,
    items_per_query: int = 10,
    n_query_features: int = 4,
    n_item_features: int = 6,
    clickbait: float = 1.0,
    relevance_noise: float = 0.5,
    problem_seed: int = 0,
    seed: int | np.random.Generator | None = None,
    max_entries: int = MAX_ENTRIES,
) -> Bunch:
    """Synthetic text-video search with nested behaviours: click ⊇ valid stay ⊇ long stay.

    Each query q has features ``u_q ~ N(0, I)``; each candidate item has ``v ~ N(0, I)``. The
    query–item relevance is ``r = 2 ⟨A u_q, v_{2:}⟩ / √(size of A)``, with a random matrix A drawn
    from ``problem_seed`` (it defines the problem: train, validation and test samples drawn with
    different ``seed`` share it; relevance needs the query–item interaction), and the row features are ``x = [u_q, v, r + relevance_noise · ε]`` —
    the last one a noisy matching-stage relevance score (MTRUB ranks candidates that a relevance
    model retrieved). With the item's cover attractiveness ``v_0`` and content quality ``v_1``:

    * click logit ``c = -1 + r + 1.2 v_0`` (an attractive cover draws clicks);
    * valid stay | click logit ``s = 0.3 + r + 1.2 v_1 − clickbait · v_0`` (click-bait covers are
      abandoned);
    * long stay | valid stay logit ``l = -0.3 + 0.5 r + 1.5 v_1``.

    Labels are drawn nested: ``Y_click ~ B(σ(c))``, ``Y_valid = Y_click · B(σ(s))``,
    ``Y_long = Y_valid · B(σ(l))``, so the exact marginals (docs/theory.md §1) are ``η_click = σ(c)``,
    ``η_valid = σ(c) σ(s)``, ``η_long = σ(c) σ(s) σ(l)``. ``clickbait`` > 0 makes the click and
    stay labels conflict, so their AUCs trade off.

    Size limit: ``X`` has ``n_queries * items_per_query * (n_query_features + n_item_features +
    1)`` entries; more than ``max_entries`` (default ``MAX_ENTRIES = 10**8``, 800 MB of float64)
    is refused before anything is allocated. Raise ``max_entries`` deliberately for more.

    Returns
    -------
    Bunch with ``X`` (n, n_query_features + n_item_features + 1), ``Y`` (n, 3) int, ``eta`` (n, 3) exact marginals, ``groups`` (n,)
    query ids, ``label_names`` ["click", "valid_stay", "long_stay"].

    >>> data = make_nested_behaviour(50, seed=0)
    >>> data.X.shape, data.Y.shape, bool(np.all(data.Y[:, 1] <= data.Y[:, 0]))
    ((500, 11), (500, 3), True)
    """
    for name, value, low in (("n_queries", n_queries, 1), ("items_per_query", items_per_query, 1),
                             ("n_query_features", n_query_features, 1),
                             ("n_item_features", n_item_features, 3)):
        if not isinstance(value, (int, np.integer)) or value < low:
            raise ValueError(f"The '{name}' parameter must be an integer >= {low}, got {value!r}.")
    limit = check_positive(max_entries, "max_entries", integer=True)
    size = int(n_queries) * int(items_per_query) * (int(n_query_features) + int(n_item_features)
                                                    + 1)
    size = max(size, (int(n_item_features) - 2) * int(n_query_features))
    if size > limit:
        raise ValueError(
            f"The 'n_queries' ({n_queries}), 'items_per_query' ({items_per_query}), "
            f"'n_query_features' ({n_query_features}) and 'n_item_features' ({n_item_features}) "
            f"parameters give arrays of {size} entries, more than the limit max_entries = "
            f"{limit}; lower them or raise 'max_entries' deliberately."
        )
    if not np.isfinite(clickbait):
        raise ValueError(f"The 'clickbait' parameter must be finite, got {clickbait!r}.")
    if not (np.isfinite(relevance_noise) and relevance_noise >= 0):
        raise ValueError(
            f"The 'relevance_noise' parameter must be a finite number >= 0, got {relevance_noise!r}."
        )
    if not isinstance(problem_seed, (int, np.integer)):
        raise TypeError(f"The 'problem_seed' parameter must be an int, got {problem_seed!r}.")
    A = np.random.default_rng([int(problem_seed), 20220425]).normal(
        size=(n_item_features - 2, n_query_features))
    rng = check_random_state(seed)
    n = n_queries * items_per_query
    U = rng.normal(size=(n_queries, n_query_features))
    groups = np.repeat(np.arange(n_queries), items_per_query)
    V = rng.normal(size=(n, n_item_features))
    r = np.einsum("nj,jq,nq->n", V[:, 2:], A, U[groups]) / np.sqrt(A.size) * 2.0
    c = -1.0 + r + 1.2 * V[:, 0]
    s = 0.3 + r + 1.2 * V[:, 1] - clickbait * V[:, 0]
    lo = -0.3 + 0.5 * r + 1.5 * V[:, 1]
    cond = np.column_stack([_sigmoid(c), _sigmoid(s), _sigmoid(lo)])
    eta = np.cumprod(cond, axis=1)
    draws = rng.uniform(size=(n, 3)) < cond
    Y = np.cumprod(draws, axis=1).astype(int)
    X = np.hstack([U[groups], V, (r + relevance_noise * rng.normal(size=n))[:, None]])
    return Bunch(X=X, Y=Y, eta=eta, groups=groups,
                 label_names=["click", "valid_stay", "long_stay"])
