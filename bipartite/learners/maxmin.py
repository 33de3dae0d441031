"""Learning the max-min AUC objective (docs/theory.md §13.6).

Two routes, shared by :class:`~bipartite.learners.MLPRanker` and
:class:`~bipartite.learners.XGBRanker` with ``objective="max_min"``:

* **plug-in** — estimate ``η̂_k``, then choose mixing weights ``a`` on the simplex that maximise
  ``min_k AUC_k`` of the loss-aggregation scorer ``f_a = Σ_k a_k η̂_k / (π̂_k (1 − π̂_k))`` on a
  held-out validation split (:func:`max_min_weights`): the exact breakpoints of the path
  ``a = (1 − λ, λ)`` for K = 2 (:func:`path_max_min`), a simplex grid for 3 ≤ K ≤
  :data:`MAX_GRID_LABELS`, a multiplicative ascent beyond (K = 53, 174 on the Mulan sets).
* **pairwise** — a minimax (group-DRO, Sagawa et al., ICLR 2020) objective over the per-label
  AUC-normalised pairwise losses ``L_k``, with label weights ``q`` on the simplex updated
  multiplicatively after each step (:class:`MultiplicativeWeights`); the MLP computes ``L_k`` per
  batch (:func:`per_label_pair_losses`), XGBoost on a fixed sample of pairs between boosting
  rounds (:func:`sample_group_pairs`, :func:`sampled_pair_losses`).

The criterion is ``min_k AUC_k`` over the labels with both classes (with query ids: the uniform
per-query gAUC of every label, as :func:`~bipartite.learners.ranking_criterion`); the criterion
weights ``c`` of :func:`bipartite.pareto.max_min_point` are fixed to 1.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from bipartite._utils.validation import check_positive
from bipartite.consistency import smooth_pair_loss
from bipartite.learners.base import label_aucs
from bipartite.pareto import simplex_grid

if TYPE_CHECKING:
    import torch

__all__ = [
    "DRO_STEP",
    "ASCENT_STEP",
    "ASCENT_STEPS",
    "COARSE_GRID_POINTS",
    "MAX_GRID_LABELS",
    "MAX_MIN_GRID_POINTS",
    "MAX_PATH_PAIRS",
    "MaxMinChoice",
    "MultiplicativeWeights",
    "XGB_DRO_STEP",
    "grid_resolution",
    "head_criterion",
    "mass_aucs",
    "max_min_weights",
    "path_max_min",
    "per_label_pair_losses",
    "sample_group_pairs",
    "sampled_pair_losses",
]

#: Default step size η_q of the multiplicative label weights (docs/theory.md §13.6).
DRO_STEP = 0.05
#: Default step size of the XGBoost loop (one update every ``dro_every`` trees).
XGB_DRO_STEP = 0.5
#: Most points of the fine simplex grid of the K ≥ 3 search (and of the K = 2 fallback).
MAX_MIN_GRID_POINTS = 1001
#: Most points of the coarse first-stage grid.
COARSE_GRID_POINTS = 101
#: Most held-out pairs enumerated by the exact K = 2 path; beyond, the simplex grid is used.
MAX_PATH_PAIRS = 4_000_000
#: Most labels searched on the simplex grid. Past it the grid is too coarse to mean anything
#: (resolution 1/3 at K = 6 on the fine grid; from K = 14 on the coarse grid holds only the unit
#: vectors, i.e. single-label scorers) and :func:`max_min_weights` uses the multiplicative ascent.
MAX_GRID_LABELS = 5
#: Iterations of the multiplicative ascent (K > MAX_GRID_LABELS).
ASCENT_STEPS = 200
#: Initial step of the multiplicative ascent; step t uses ``ASCENT_STEP / sqrt(t + 1)``.
ASCENT_STEP = 2.0
#: Rows × columns of one block of the pair enumeration (bounds the temporaries).
_BLOCK = 1 << 20


@dataclass(frozen=True)
class MaxMinChoice:
    """Result of :func:`max_min_weights`.

    Attributes
    ----------
    a : ndarray (K,) — the chosen mixing weights, on the simplex.
    aucs : ndarray (K,) — per-label validation AUC (gAUC with query ids) of ``f_a``; NaN for a
        label with one class on the validation rows.
    value : float — ``min_k aucs_k`` over the defined labels.
    method : str — ``"path"`` (exact K = 2 breakpoints), ``"grid"`` (simplex grid),
        ``"ascent"`` (multiplicative ascent, K > :data:`MAX_GRID_LABELS`) or ``"single"``
        (K = 1, or no label defined on the validation rows: ``a`` uniform).
    interval : tuple (lo, hi) or None — ``"path"``: the run of λ (``a = (1 − λ, λ)``) whose
        scorers attain ``value``; ``a`` is its midpoint.
    n_candidates : int — cells of the path, or grid points or ascent iterates, evaluated.
    """

    a: np.ndarray
    aucs: np.ndarray
    value: float
    method: str
    interval: tuple[float, float] | None
    n_candidates: int


def grid_resolution(K: int, max_points: int = MAX_MIN_GRID_POINTS) -> int:
    """The finest simplex-grid resolution r (``a_k`` multiples of ``1/r``) with at most
    ``max_points`` points, ``C(r + K − 1, K − 1)``, capped at 1000.

    >>> [grid_resolution(K) for K in (2, 3, 4, 5)]
    [1000, 43, 16, 10]
    """
    K = check_positive(K, "K", integer=True)
    max_points = check_positive(max_points, "max_points", integer=True)
    r = 1
    while r < 1000 and math.comb(r + K, K - 1) <= max_points:
        r += 1
    return r


# ---------------------------------------------------------------------------------------------
# Plug-in: the choice of a on validation data
# ---------------------------------------------------------------------------------------------
def _query_rows(scores: np.ndarray, pos: np.ndarray, neg: np.ndarray, qid: np.ndarray | None
                ) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The rows of each non-empty query (ascending row index) and, per query, the (K,) scale
    ``1/(P_qk N_qk G_k)`` of a pair's mass in the criterion (uniform over the G_k queries where
    label k has positive and negative mass), 0 where undefined: both from the grouped engine's
    one (query, score) sort (:class:`bipartite.metrics.QuerySegments`)."""
    from bipartite.metrics import QuerySegments

    seg = QuerySegments(scores, qid, check_input=False)
    st = seg.stats(pos.T, neg.T)
    P, N, ok = st.pos, st.neg, st.defined
    G = np.maximum(ok.sum(axis=0), 1)
    scale = np.where(ok, 1.0 / np.where(ok, P * N, 1.0) / G, 0.0)
    return seg.rows_per_query(), list(scale[st.n > 0])


#: Most distinct (pos, neg) rows for the per-class enumeration of :func:`_crossing_pairs`.
_MAX_CLASSES = 16


def _class_pairs(u, v, pos, neg, members, w, cls, inv):
    """:func:`_crossing_pairs` for one group whose rows share few distinct masses (hard labels):
    only pairs of rows of different classes can change an AUC, and the gain of such a pair is
    the same for the whole block of its two classes (up to the sign of the flip)."""
    lams, gains = [], []
    C = len(cls)
    P, N = cls[:, :pos.shape[1]] * w[None, :], cls[:, pos.shape[1]:]
    rows = [members[inv == c] for c in range(C)]
    for a in range(C):
        for b in range(a + 1, C):
            gab = P[a] * N[b] - P[b] * N[a]  # class a goes above class b
            if not np.any(gab != 0) or not len(rows[a]) or not len(rows[b]):
                continue
            B = rows[b]
            step = max(1, _BLOCK // len(B))
            for start in range(0, len(rows[a]), step):
                A = rows[a][start:start + step]
                du = u[A, None] - u[None, B]
                dv = v[A, None] - v[None, B]
                up = (du < 0) & (dv > 0)  # a below b for small λ, above after the flip
                down = (du > 0) & (dv < 0)
                for mask, sign in ((up, 1.0), (down, -1.0)):
                    x, y = np.abs(du[mask]), np.abs(dv[mask])
                    if x.size:
                        lams.append(x / (x + y))
                        gains.append(np.broadcast_to(sign * gab, (x.size, len(gab))))
    return lams, gains


def _crossing_pairs(u, v, pos, neg, queries, scale):
    """λ and the AUC gains of every pair whose order flips inside (0, 1) on the path
    ``f_λ = (1 − λ) u + λ v`` and whose flip changes some AUC, by row blocks.

    Within a group sorted by u, a pair (i before j, ``u_i < u_j``) flips iff ``v_i > v_j``, at
    ``λ = Δu / (Δu + Δv)``; then i (below for small λ) goes above j, which changes ``AUC_k`` by
    ``(pos_ik neg_jk − pos_jk neg_ik)`` times the label's scale."""
    lams, gains = [], []
    for members, w in zip(queries, scale, strict=True):
        m = len(members)
        if m < 2 or not np.any(w > 0):
            continue
        cls, inv = np.unique(np.hstack([pos[members], neg[members]]), axis=0,
                             return_inverse=True)
        if len(cls) <= _MAX_CLASSES:
            la, ga = _class_pairs(u, v, pos, neg, members, w, cls, inv.reshape(-1))
            lams += la
            gains += ga
            continue
        o = members[np.lexsort((v[members], u[members]))]
        uu, vv, P, N = u[o], v[o], pos[o] * w[None, :], neg[o]
        step = max(1, _BLOCK // m)
        for start in range(0, m - 1, step):
            rows = np.arange(start, min(start + step, m - 1))
            du = uu[None, start + 1:] - uu[rows, None]  # > 0 only for columns after the row
            dv = vv[rows, None] - vv[None, start + 1:]
            ii, jj = np.nonzero((du > 0) & (dv > 0))
            if not ii.size:
                continue
            dui, dvi = du[ii, jj], dv[ii, jj]
            i, j = rows[ii], jj + start + 1
            g = P[i] * N[j] - P[j] * N[i]
            nz = np.any(g != 0, axis=1)
            lams.append(dui[nz] / (dui[nz] + dvi[nz]))
            gains.append(g[nz])
    K = pos.shape[1]
    if not lams:
        return np.zeros(0), np.zeros((0, K))
    return np.concatenate(lams), np.concatenate(gains)


def mass_aucs(scores: np.ndarray, pos: np.ndarray, neg: np.ndarray,
              qid: np.ndarray | None = None) -> np.ndarray:
    """Per-label AUC from positive/negative masses (n, K) (:func:`bipartite.metrics.weighted_auc`;
    hard labels: ``pos = r y``, ``neg = r (1 − y)``); with query codes, the uniform mean over the
    queries where the label has both masses (the grouped engine,
    :class:`bipartite.metrics.QuerySegments`). NaN where undefined."""
    from bipartite.metrics import QuerySegments, weighted_auc

    if qid is None:
        return weighted_auc(scores, pos, neg)
    return QuerySegments(scores, qid, check_input=False).stats(pos.T, neg.T).gauc("uniform")


def path_max_min(E: np.ndarray, pos: np.ndarray, neg: np.ndarray, qid: np.ndarray | None = None
                 ) -> tuple[float, np.ndarray, tuple[float, float], int]:
    """K = 2: the exact maximiser of ``min(AUC_1, AUC_2)`` along
    ``f_λ = (1 − λ) E[:, 0] + λ E[:, 1]``, the AUCs taken with positive/negative masses ``pos``,
    ``neg`` (n, 2) (:func:`mass_aucs`).

    The AUCs of ``f_λ`` are step functions of λ: they change only at the breakpoints
    ``λ_ij = |Δu| / (|Δu| + |Δv|)`` of the pairs whose two scores disagree in sign, by the
    pair's gain ``pos_lo neg_hi − pos_hi neg_lo`` over ``P N`` (hi: the row above for small λ).
    From the AUCs of the lexicographic order (u, then v) at ``λ → 0⁺``, a cumulative sum over the
    sorted breakpoints gives the AUCs of every open cell between consecutive breakpoints. Only open
    cells are candidates: a tie order at a breakpoint of these rows ties no other data. Among the
    cells with the largest min (within 1e-12) the widest contiguous run is kept and λ is its
    midpoint.

    Returns ``(λ, AUCs of the chosen cell, (lo, hi) of the run, number of cells)``.
    """
    n, K = pos.shape
    if K != 2 or E.shape != (n, 2):
        raise ValueError(f"path_max_min needs K = 2 labels, got E {E.shape} and masses {pos.shape}.")
    u, v = E[:, 0], E[:, 1]
    lam, gain = _crossing_pairs(u, v, pos, neg, *_query_rows(u, pos, neg, qid))
    order = np.lexsort((v, u))
    key = np.stack([u[order], v[order]], axis=1)
    lex = np.empty(n)
    lex[order] = np.cumsum(np.r_[True, np.any(np.diff(key, axis=0) != 0, axis=1)])
    A0 = mass_aucs(lex, pos, neg, qid)
    srt = np.argsort(lam, kind="stable")
    lam, gain = lam[srt], gain[srt]
    auc = A0[None, :] + np.vstack([np.zeros((1, K)), np.cumsum(gain, axis=0)])
    edges = np.r_[0.0, lam, 1.0]
    cell = np.diff(edges) > 1e-12  # drop the empty cells between equal breakpoints
    lo_c, hi_c, auc = edges[:-1][cell], edges[1:][cell], auc[cell]
    val = np.min(auc[:, np.isfinite(A0)], axis=1)
    on = val >= val.max() - 1e-12
    # contiguous runs of maximising cells; keep the widest
    flips = np.flatnonzero(np.diff(np.r_[0, on.astype(np.int8), 0]))
    starts, ends = flips[::2], flips[1::2]
    t = int(np.argmax(hi_c[ends - 1] - lo_c[starts]))
    lo, hi = float(lo_c[starts[t]]), float(hi_c[ends[t] - 1])
    return 0.5 * (lo + hi), auc[starts[t]], (lo, hi), int(cell.sum())


def head_criterion(Y: np.ndarray, eta: np.ndarray, qid: np.ndarray | None = None) -> float:
    """Mean over the labels of each plug-in head's own AUC, ``AUC_k(η̂_k)`` (gAUC with ``qid``):
    the early-stopping criterion of the max-min plug-in heads. NaN if no label is defined."""
    v = np.array([label_aucs(Y[:, [k]], eta[:, k], qid)[0] for k in range(Y.shape[1])])
    return float(np.nanmean(v)) if np.isfinite(v).any() else float("nan")


def max_min_weights(eta: np.ndarray, pi: np.ndarray, pos: np.ndarray, neg: np.ndarray,
                    qid: np.ndarray | None = None, keep: np.ndarray | None = None
                    ) -> MaxMinChoice:
    """Mixing weights ``a`` on the simplex maximising ``min_k AUC_k`` of the plug-in scorer
    ``f_a = Σ_k a_k η̂_k / (π̂_k (1 − π̂_k))`` on held-out rows (docs/theory.md §13.6).

    ``eta`` (n, K) estimated η on the rows, ``pi`` (K,) the priors of the scorer, ``pos``/``neg``
    (n, K) the rows' positive/negative masses (labels ``y`` with row weights ``r``: ``r y`` and
    ``r (1 − y)``), ``qid`` query codes (AUC → uniform per-query gAUC).

    * K = 2: the exact path (:func:`path_max_min`) when the rows hold at most
      :data:`MAX_PATH_PAIRS` pairs (within queries with ``qid``); beyond, the grid search below.
    * 3 ≤ K ≤ :data:`MAX_GRID_LABELS` (and the K = 2 fallback): a two-stage search on
      :func:`bipartite.pareto.simplex_grid`.
      First the coarse grid with at most :data:`COARSE_GRID_POINTS` points (resolution 1/100 for
      K = 2, 1/12 for K = 3, 1/6 for K = 4), then the points of the fine grid
      (:func:`grid_resolution`, at most :data:`MAX_MIN_GRID_POINTS` points: 1/1000, 1/43, 1/16,
      1/10 for K = 2, 3, 4, 5) within one coarse step (max-norm) of the coarse winner. Ties go to
      the larger mean AUC, then the grid order. About 120-150 evaluations instead of 1 000: the
      validation min AUC is close to unimodal in ``a`` (each AUC moves one way as its own weight
      grows), and at the sizes where the fallback applies its sampling wiggles are small.
    * K > :data:`MAX_GRID_LABELS`: a multiplicative ascent on the simplex (:func:`_ascent_search`):
      start from the better of ``a = 1/K`` (loss aggregation with equal mixing weights) and
      ``a ∝ π̂(1 − π̂)`` (equal effective weights: ``f = Σ_k η̂_k``, label aggregation by sum),
      then for :data:`ASCENT_STEPS` steps move weight towards the labels below the mean AUC,
      ``a_k ← a_k exp(−η_t (AUC_k − mean_j AUC_j))`` with ``η_t = ASCENT_STEP/√(t + 1)``,
      keeping the best iterate (min AUC, then mean). One evaluation is one sort of the held-out
      scores and O(n K): the search is O(steps · (n log n + n K)) at any K, where a grid of
      useful resolution has ``C(r + K − 1, K − 1)`` points. It is a local search: its value is
      at least that of both starting points, with no optimality guarantee.

    A label without both masses is left out of the min; with none left, ``a`` is uniform
    (``method="single"``), with a ``RuntimeWarning``. ``keep`` (K,) bool: search over these
    labels only (the learners' ``trained_labels_``: a label with one class in the training rows
    has no prior to divide by); the others get ``a_k = 0`` and a NaN AUC.

    >>> rng = np.random.default_rng(0)
    >>> eta = rng.uniform(size=(200, 2))
    >>> Y = (rng.uniform(size=(200, 2)) < eta).astype(float)
    >>> ch = max_min_weights(eta, np.array([0.5, 0.5]), Y, 1.0 - Y)
    >>> ch.method, bool(abs(ch.a.sum() - 1.0) < 1e-12), bool(ch.value == ch.aucs.min())
    ('path', True, True)
    """
    if keep is not None and not np.all(keep):
        sub = max_min_weights(eta[:, keep], pi[keep], pos[:, keep], neg[:, keep], qid)
        a, aucs = np.zeros(len(keep)), np.full(len(keep), np.nan)
        a[keep], aucs[keep] = sub.a, sub.aucs
        return MaxMinChoice(a, aucs, sub.value, sub.method, sub.interval, sub.n_candidates)
    n, K = pos.shape
    E = eta / (pi * (1.0 - pi))[None, :]
    if K == 1 or not np.isfinite(mass_aucs(np.zeros(n), pos, neg, qid)).any():
        if K > 1:
            warnings.warn("objective='max_min': no label has both classes on the held-out rows; "
                          "the mixing weights a are uniform.", RuntimeWarning, stacklevel=3)
        a = np.full(K, 1.0 / K)
        aucs = mass_aucs(E @ a, pos, neg, qid)
        value = float(np.nanmin(aucs)) if np.isfinite(aucs).any() else float("nan")
        return MaxMinChoice(a, aucs, value, "single", None, 1)
    if K == 2:
        sizes = np.bincount(qid) if qid is not None else np.array([n])
        if float(np.sum(sizes * (sizes - 1.0) / 2.0)) <= MAX_PATH_PAIRS:
            lam, _, interval, cells = path_max_min(E, pos, neg, qid)
            a = np.array([1.0 - lam, lam])
            aucs = mass_aucs(E @ a, pos, neg, qid)
            return MaxMinChoice(a, aucs, float(np.nanmin(aucs)), "path", interval, cells)
    if K > MAX_GRID_LABELS:
        return _ascent_search(E, pi, pos, neg, qid)
    return _grid_search(E, pos, neg, qid)


def _ascent_search(E, pi, pos, neg, qid) -> MaxMinChoice:
    """The multiplicative ascent of :func:`max_min_weights` (K > :data:`MAX_GRID_LABELS`)."""
    K = E.shape[1]
    best: tuple[float, float] | None = None
    chosen: tuple[np.ndarray, np.ndarray] | None = None

    def evaluate(a: np.ndarray) -> np.ndarray:
        nonlocal best, chosen
        aucs = mass_aucs(E @ a, pos, neg, qid)
        key = (float(np.nanmin(aucs)), float(np.nanmean(aucs)))
        if best is None or key > best:
            best, chosen = key, (a.copy(), aucs)
        return aucs

    starts = [np.full(K, 1.0 / K), pi * (1.0 - pi) / np.sum(pi * (1.0 - pi))]
    for a in starts:
        evaluate(a)
    log_a = np.log(chosen[0])
    aucs = chosen[1]
    for t in range(ASCENT_STEPS):
        ok = np.isfinite(aucs)
        log_a[ok] -= ASCENT_STEP / math.sqrt(t + 1.0) * (aucs[ok] - aucs[ok].mean())
        log_a -= log_a.max()
        a = np.exp(log_a)
        aucs = evaluate(a / a.sum())
    a, aucs = chosen
    return MaxMinChoice(a, aucs, best[0], "ascent", None, len(starts) + ASCENT_STEPS)


def _grid_search(E, pos, neg, qid) -> MaxMinChoice:
    """The two-stage simplex-grid search of :func:`max_min_weights`."""
    K = E.shape[1]

    def best_of(A: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
        V = np.array([mass_aucs(E @ a, pos, neg, qid) for a in A])
        m = np.nanmin(V, axis=1)
        return int(np.lexsort((-np.nanmean(V, axis=1), -m))[0]), V, m

    coarse, fine = grid_resolution(K, COARSE_GRID_POINTS), grid_resolution(K)
    A1 = simplex_grid(K, coarse)
    b1, V1, m1 = best_of(A1)
    A2 = simplex_grid(K, fine)
    A2 = A2[np.max(np.abs(A2 - A1[b1]), axis=1) <= 1.0 / coarse + 1e-12]
    A = np.vstack([A1[b1:b1 + 1], A2])
    b, V, m = best_of(A)
    return MaxMinChoice(A[b], V[b], float(m[b]), "grid", None, len(A1) + len(A2))


# ---------------------------------------------------------------------------------------------
# Pairwise: multiplicative label weights (group DRO)
# ---------------------------------------------------------------------------------------------
class MultiplicativeWeights:
    """Label weights ``q`` on the simplex for the minimax objective ``max_q Σ_k q_k L_k``
    (group DRO, Sagawa et al., 2020, Algorithm 1): start uniform; after each step
    ``q_k ← q_k exp(η_q L_k)``, normalised (in log space).

    A label whose loss is undefined at a step (no pair in the batch) gets the q-weighted mean loss
    of the others: its weight relative to theirs is kept. ``mean`` is the time average of the
    weights used at the steps taken (the averaged iterate of online mirror ascent).

    >>> mw = MultiplicativeWeights(2, step=1.0)
    >>> mw.update(np.array([1.0, 0.0]))
    >>> mw.q.round(4).tolist(), mw.mean.tolist()
    ([0.7311, 0.2689], [0.5, 0.5])
    """

    def __init__(self, K: int, step: float):
        self.step = float(step)
        self.log_q = np.zeros(K)
        self.q = np.full(K, 1.0 / K)
        self._sum = np.zeros(K)
        self.n_updates = 0
        self.pending: Any = None  # the last step's losses, set by the learner before update()

    def update(self, losses: np.ndarray, defined: np.ndarray | None = None) -> None:
        L = np.asarray(losses, dtype=np.float64).copy()
        ok = np.isfinite(L) if defined is None else (np.asarray(defined, bool) & np.isfinite(L))
        if not ok.any():
            return
        L[~ok] = np.dot(self.q[ok], L[ok]) / self.q[ok].sum()
        self._sum += self.q
        self.n_updates += 1
        self.log_q = self.log_q + self.step * L
        self.log_q -= self.log_q.max()
        q = np.exp(self.log_q)
        self.q = q / q.sum()

    @property
    def mean(self) -> np.ndarray:
        return self._sum / self.n_updates if self.n_updates else self.q.copy()


def per_label_pair_losses(s: torch.Tensor, Y: torch.Tensor, where: torch.Tensor,
                          phi: Callable[[torch.Tensor], torch.Tensor]
                          ) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-label AUC-normalised pairwise losses of a batch (torch).

    ``s`` [G, m] scores, ``Y`` [G, m, K] binary labels, ``where`` [G, m] validity mask,
    ``phi`` the pair loss (:func:`bipartite.surrogates.make_pair_loss`). For each group g and
    label k, ``L_gk = Σ_{y_ik = 1, y_jk = 0} φ(s_i − s_j) / (n⁺_gk n⁻_gk)`` (the loss-aggregation
    pair weights of docs/theory.md §8.2 with ``a = e_k``); ``L_k`` is its mean over the groups
    where label k has both classes. Returns ``(L [K], defined [K] bool)``.
    """
    import torch

    from bipartite.surrogates import label_pair_normalisers

    dtype = s.dtype
    pos, neg, coef = label_pair_normalisers(Y.to(dtype), where)  # coef [G, K]: 1 / (n⁺ n⁻)
    ok = coef > 0
    both = where[:, :, None] & where[:, None, :]
    diff = torch.where(both, s[:, :, None] - s[:, None, :], torch.zeros((), dtype=dtype,
                                                                        device=s.device))
    per = ((phi(diff) @ neg) * pos).sum(1) * coef  # [G, K]
    n_def = ok.sum(0)
    return per.sum(0) / n_def.clamp(min=1).to(dtype), n_def > 0


def sample_group_pairs(labels: list[np.ndarray], offsets: np.ndarray, n_per_row: int,
                       rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A fixed, seeded sample of (positive, negative) pairs of every stacked binary group:
    ``n_per_row × size`` pairs per group, drawn uniformly with replacement, so that the mean pair
    loss over a group's sample estimates its AUC-normalised loss without bias. ``offsets``: each
    group's first stacked row. Returns stacked row indices ``(i, j)`` and each pair's group."""
    I, J, G = [], [], []
    for t, y in enumerate(labels):
        pos, neg = np.flatnonzero(y > 0), np.flatnonzero(y <= 0)
        m = int(n_per_row) * len(y)
        I.append(offsets[t] + pos[rng.integers(len(pos), size=m)])
        J.append(offsets[t] + neg[rng.integers(len(neg), size=m)])
        G.append(np.full(m, t))
    return np.concatenate(I), np.concatenate(J), np.concatenate(G)


def sampled_pair_losses(margin: np.ndarray, i: np.ndarray, j: np.ndarray, group: np.ndarray,
                        group_label: np.ndarray, group_weight: np.ndarray, K: int) -> np.ndarray:
    """Per-label logistic pairwise loss ``L_k`` from sampled pairs (:func:`sample_group_pairs`):
    per stacked group the mean of ``log(1 + exp(−(s_i − s_j)))`` over its pairs, then per label
    the ``group_weight``-weighted mean over its groups (NaN for a label without groups)."""
    n_groups = len(group_label)
    loss = smooth_pair_loss("logistic", margin[i] - margin[j])[0]
    per = (np.bincount(group, loss, minlength=n_groups)
           / np.maximum(np.bincount(group, minlength=n_groups), 1))
    num = np.bincount(group_label, group_weight * per, minlength=K)
    den = np.bincount(group_label, group_weight, minlength=K)
    return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
