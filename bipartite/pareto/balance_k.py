"""Loss aggregation against a label aggregation for any number of labels ``K ≥ 2``: the comparison
of two AUC vectors (docs/theory.md §12.11–§12.14).

Loss aggregation with mixing weights ``a`` (default 1) has AUC vector ``L``; a label aggregation
has ``A``; ``d = A − L``. Two premises hold for the Bayes scorers (docs/theory.md §12.11):

* **(P1)** ``a·d ≤ 0`` for every scorer (loss aggregation maximises ``a·AUC``);
* **(P2)** ``b·d ≥ 0`` for a **weighted sum** ``Σ_k w_k Y_k`` with linear costs, whose Bayes scorer
  is loss aggregation's with ``b_k = w_k π_k(1 − π_k)`` (:func:`equivalent_loss_weights`), and
  ``d = 0`` when ``b ∝ a`` (the same scorer).

From them (``W``: the labels loss aggregation serves worst, ``N`` the others, ``g_k = b_k/a_k``
the **tilt weights**; docs/theory.md §12.12–§12.13):

* a strictly higher Min AUC is ruled out iff ``N = ∅``, or (with P2) ``g`` is constant on ``N``
  and ``max_W g ≤ g_N`` (``can_win``); for ``K = 2`` this is "the tilt is toward the
  under-served label" of §12.7;
* a strictly lower spread ``max − min`` is ruled out iff the spread is 0, or (with P2) every
  middle label has ``g = ḡ = Σb/Σa``, every worst label ``g ≤ ḡ`` and every best label
  ``g ≥ ḡ`` (``can_win_spread``);
* a Min win is guaranteed (with P2) when the worst labels gain and, for every other label ``k``,
  ``b_W·d_W + Σ_{j∈N∖k} b_j (1 − L_j) < b_k (L_k − L_min)`` (``sufficient``).

For ``K ≥ 3`` the necessary conditions rarely rule anything out: a move ``d = (ε, x, −y)`` that
trades two non-worst labels satisfies both premises. :func:`balance_from_aucs` evaluates all of it
from two AUC vectors (any ``K``, e.g. ``K = 174``); :func:`bipartite.pareto.balance_condition`
computes the two vectors on a finite problem and goes through it.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from bipartite._utils.validation import (
    check_array,
    check_nonnegative,
    check_option,
    check_probabilities,
    check_tolerance,
)
from bipartite.labels import AGGREGATIONS

__all__ = ["balance_from_aucs", "equivalent_loss_weights", "typical_point_weights"]

#: The aggregations whose tilt is an exchange rate (AND, OR): the typical-point rule applies to
#: them (docs/theory.md §12.8, §12.13); read from :data:`bipartite.labels.AGGREGATIONS`.
_TYPICAL_POINT = tuple(name for name, g in AGGREGATIONS.items() if g.tilt == "exchange_rate")

#: Relative tolerance under which two tilt weights count as equal (the same objective; as
#: :func:`bipartite.pareto.weighted_sum_tilt`).
G_RTOL = 1e-12


def loss_weights(pi: ArrayLike, a: ArrayLike | None) -> np.ndarray:
    """Loss aggregation's mixing weights ``a`` (default 1), checked positive for every label,
    rescaled as :func:`bipartite.bayes.effective_weights` does (``α_k π_k (1 − π_k)``).
    Validates ``pi`` (strictly inside (0, 1)) through it."""
    from bipartite.bayes import effective_weights

    p = check_probabilities(pi, "pi", ndim=1)
    alpha = effective_weights(p, a)
    a_arr = alpha * p * (1.0 - p)
    if not np.all(alpha > 0):
        raise ValueError(f"The 'a' parameter must be positive for every label here (a weight 0 "
                         f"drops the label from loss aggregation), got {a_arr.tolist()}.")
    return a_arr


def equivalent_loss_weights(pi: ArrayLike, w: ArrayLike | None = None) -> np.ndarray:
    """Mixing weights ``b_k = w_k π_k (1 − π_k)`` of the loss aggregation whose Bayes scorer is that
    of the weighted sum ``Ȳ = Σ_k w_k Y_k`` with linear costs (docs/theory.md §5.3, §12.11).

    Both scorers are ``Σ_k w_k η_k`` (loss aggregation's is ``Σ_k (b_k / (π_k(1 − π_k))) η_k``),
    so the two objectives have the same Bayes scorer, for any joint law of the labels.

    Parameters
    ----------
    pi : array-like of shape (K,), priors strictly inside (0, 1)
    w : array-like of shape (K,), optional, non-negative sum weights, not all 0 (default 1)

    >>> equivalent_loss_weights([0.5, 0.1]).round(4).tolist()
    [0.25, 0.09]
    """
    from bipartite.labels import sum_weights

    p = check_probabilities(pi, "pi", ndim=1)
    loss_weights(p, None)  # pi strictly inside (0, 1), by name
    if w is not None and np.shape(w) != p.shape:
        raise ValueError(f"The 'w' parameter must have one entry per label of 'pi' (shape "
                         f"{p.shape}), got shape {np.shape(w)}.")
    wv = sum_weights(w, len(p))
    if not np.any(wv > 0):
        raise ValueError(f"The 'w' parameter must have a positive entry, got {wv.tolist()}.")
    return wv * p * (1.0 - p)


def typical_point_weights(pi: ArrayLike, aggregate: str) -> np.ndarray:
    """Loss-aggregation mixing weights that AND / OR resemble at the typical point ``η = π``
    (docs/theory.md §12.13; a heuristic, not a theorem).

    The Bayes scorer of AND under conditionally independent labels, ``Π_k η_k``, has gradient
    ``∝ (1/π_k)_k`` at ``η = π``; OR's, ``1 − Π_k (1 − η_k)``, has ``∝ (1/(1 − π_k))_k``. As loss
    aggregation's scorer is ``Σ_k (a_k / (π_k(1 − π_k))) η_k``, the linearised AND is loss
    aggregation with ``a_k ∝ 1 − π_k`` (it weighs rarer labels up) and OR with ``a_k ∝ π_k`` (it
    weighs common labels up). For ``K = 2`` this is §12.8's typical-point rule.

    Parameters
    ----------
    pi : array-like of shape (K,), priors strictly inside (0, 1)
    aggregate : {"product", "or"}

    >>> typical_point_weights([0.5, 0.1], "product").tolist()
    [0.5, 0.9]
    """
    p = check_probabilities(pi, "pi", ndim=1)
    loss_weights(p, None)
    check_option(aggregate, "aggregate", _TYPICAL_POINT)
    return 1.0 - p if aggregate == "product" else p.copy()


def _check_aucs(x: ArrayLike, name: str, K: int) -> np.ndarray:
    v = check_probabilities(x, name, ndim=1)
    if v.shape != (K,):
        raise ValueError(f"The '{name}' parameter must have one AUC per label of 'pi' ({K}), "
                         f"got shape {v.shape}.")
    return v


def _winner(label: float, loss: float, *, higher_is_better: bool, tol: float) -> str:
    if abs(label - loss) <= tol:
        return "tie"
    return "label" if (label > loss) == higher_is_better else "loss"


def equal_to_rounding(x: np.ndarray | float, y: float | np.ndarray, scale: float) -> np.ndarray:
    """``|x − y| ≤ G_RTOL · scale``: two loss weights (or weight ratios) that are equal up to
    rounding, so the two objectives are the same (the one tolerance test of the balance
    routines, :mod:`bipartite.pareto.balance` included)."""
    return np.abs(x - y) <= G_RTOL * scale


def _min_ruled_out(L: np.ndarray, a: np.ndarray, b: np.ndarray | None, tol: float) -> bool:
    """§12.12: whether (P1), (P2) rule out ``min(L + d) > min(L) + tol``."""
    W = L <= L.min() + tol
    if W.all():
        return True
    if b is None:
        return False
    g = b / a
    gN = g[~W]
    scale = g.max()
    return bool(np.all(equal_to_rounding(gN, gN.max(), scale)) and g[W].max() <= gN.max() + G_RTOL * scale)


def _spread_ruled_out(L: np.ndarray, a: np.ndarray, b: np.ndarray | None, tol: float) -> bool:
    """§12.12: whether (P1), (P2) rule out ``spread(L + d) < spread(L) − tol``."""
    lo, hi = L.min(), L.max()
    if hi - lo <= tol:
        return True
    if b is None:
        return False
    g = b / a
    gbar, scale = b.sum() / a.sum(), g.max()
    W, T = L <= lo + tol, L >= hi - tol
    M = ~(W | T)
    return bool(np.all(equal_to_rounding(g[M], gbar, scale))
                and np.all(g[W] <= gbar + G_RTOL * scale)
                and np.all(g[T] >= gbar - G_RTOL * scale))


def _min_guaranteed(L: np.ndarray, d: np.ndarray, b: np.ndarray, tol: float) -> bool:
    """§12.13: whether (P2), ``d ≤ 1 − L`` and the worst labels' gains ``d_W`` guarantee
    ``min(L + d) > min(L) + tol`` (whatever the other labels' ``d``)."""
    lo = L.min()
    W = L <= lo + tol
    if W.all() or not np.all(L[W] + d[W] > lo + tol):
        return False
    bn = b / b.max()
    gain = bn[W] @ d[W]
    room = bn * (1.0 - L)
    N = np.flatnonzero(~W)
    others = room[N].sum() - room[N]
    slack = tol * bn.sum()  # (P2) holds for computed AUCs up to rounding
    return bool(np.all(bn[N] * (L[N] - lo - tol) > gain + others + slack))


def balance_from_aucs(loss_aucs: ArrayLike, label_aucs: ArrayLike, *, pi: ArrayLike,
                      a: ArrayLike | None = None, b: ArrayLike | None = None,
                      aggregate: str | None = None, tol: float = 1e-12) -> dict:
    """Every quantity of the K-label comparison between loss aggregation (weights ``a``) and one
    label aggregation, from their two AUC vectors (docs/theory.md §12.11–§12.14).

    The verdicts ``can_win``, ``can_win_spread`` and ``sufficient`` are theorems about the
    **Bayes** scorers (or exact maximisers of the two objectives over one model class): they
    assume premises (P1) ``a·d ≤ 0`` and, when ``b`` is given, (P2) ``b·d ≥ 0``
    (``premises_hold`` reports whether the given vectors satisfy them, to ``tol``). With
    estimated AUCs (a plug-in η̂, a learner) they are predictions.

    Parameters
    ----------
    loss_aucs, label_aucs : array-like of shape (K,), per-label AUCs in [0, 1] of loss
        aggregation and of the label aggregation
    pi : array-like of shape (K,), the priors, strictly inside (0, 1)
    a : array-like of shape (K,), optional, positive mixing weights of loss aggregation
        (default 1)
    b : array-like of shape (K,), optional — when the label aggregation is a weighted sum with
        linear costs, its equivalent loss weights (:func:`equivalent_loss_weights`; for
        lexicographic aggregation with linear costs, of
        :func:`bipartite.pareto.lexicographic_weights`). Enables (P2). Otherwise None.
    aggregate : {"product", "or"}, optional — with ``b=None``, the typical-point tilt of AND / OR
        (:func:`typical_point_weights`; a heuristic, it enters no verdict)
    tol : float — AUC differences within ``tol`` are ties

    Returns
    -------
    dict with

    * ``K``; ``loss_aucs``, ``label_aucs``, ``d`` (lists, ``d = label − loss``);
    * ``worst_loss``, ``worst_label`` — the labels with the lowest AUC (to ``tol``) under each
      objective (lists of indices); ``worst_changed`` — whether those sets differ;
    * ``min_loss``, ``min_label``, ``min_winner`` and ``spread_loss``, ``spread_label``,
      ``spread_winner`` (``max − min``) — winner ``"label"``, ``"loss"`` or ``"tie"``;
    * ``tilt_weights`` — ``g_k = b_k/a_k`` scaled to max 1 (weighted sum, proven) or the
      typical-point ``g`` (AND / OR, heuristic), else None; ``tilt_rule`` (``"weighted_sum"``,
      ``"typical_point"``, ``"none"``), ``tilt_proven``; ``tilt_toward_worst`` — whether a
      worst-served label has a strictly larger ``g`` than every other label (None without ``g``);
    * ``can_win`` — False when (P1)/(P2) rule out a strictly higher Min AUC (§12.12), True
      otherwise; ``can_win_spread`` — the same for a strictly lower spread;
    * ``sufficient`` — True when (P2), the box ``d ≤ 1 − L`` and the worst labels' gains alone
      guarantee the higher Min AUC (§12.13); None without ``b``;
    * ``a_dot_d`` (``a`` scaled to max 1), ``b_dot_d`` (``b`` scaled to max 1, or None) and
      ``premises_hold``.

    >>> r = balance_from_aucs([0.70, 0.80, 0.90], [0.74, 0.78, 0.85], pi=[0.5, 0.2, 0.1],
    ...                       b=equivalent_loss_weights([0.5, 0.2, 0.1]))
    >>> r["min_winner"], r["worst_loss"], r["worst_label"], r["can_win"]
    ('label', [0], [0], True)
    """
    tol = check_tolerance(tol, "tol")
    p = check_probabilities(pi, "pi", ndim=1)
    K = len(p)
    if K < 2:
        raise ValueError(f"The 'pi' parameter must have at least two labels (K >= 2), got K = {K}.")
    a_arr = loss_weights(p, a)
    L, A = _check_aucs(loss_aucs, "loss_aucs", K), _check_aucs(label_aucs, "label_aucs", K)
    if b is not None and aggregate is not None:
        raise ValueError("Give 'b' (a weighted sum with linear costs) or 'aggregate' (AND / OR), "
                         "not both.")
    b_arr = None
    if b is not None:
        b_arr = check_nonnegative(check_array(b, "b", ndim=1), "b")
        if b_arr.shape != (K,) or not np.any(b_arr > 0):
            raise ValueError(f"The 'b' parameter must have {K} non-negative entries, not all 0, "
                             f"got {b_arr.tolist()}.")
    typical = None if aggregate is None else typical_point_weights(p, aggregate)
    return compare_aucs(L, A, a_arr, b_arr, typical, tol)


def compare_aucs(L: np.ndarray, A: np.ndarray, a: np.ndarray, b: np.ndarray | None,
                 typical: np.ndarray | None, tol: float) -> dict:
    """The kernel of :func:`balance_from_aucs` on checked arrays (its one home; also called by
    :func:`bipartite.pareto.balance_condition`): ``L``, ``A`` in [0, 1], ``a > 0``, ``b ≥ 0``
    (not all 0) or None, ``typical`` the typical-point weights of AND / OR or None."""
    from bipartite.metrics import diff_auc, min_auc

    K = len(L)
    d = A - L
    row: dict = {"K": K, "loss_aucs": L.tolist(), "label_aucs": A.tolist(), "d": d.tolist()}
    wl = np.flatnonzero(L <= L.min() + tol)
    wa = np.flatnonzero(A <= A.min() + tol)
    row.update(worst_loss=wl.tolist(), worst_label=wa.tolist(),
               worst_changed=set(wl.tolist()) != set(wa.tolist()),
               min_loss=min_auc(L), min_label=min_auc(A), spread_loss=diff_auc(L),
               spread_label=diff_auc(A))
    row["min_winner"] = _winner(row["min_label"], row["min_loss"], higher_is_better=True, tol=tol)
    row["spread_winner"] = _winner(row["spread_label"], row["spread_loss"],
                                   higher_is_better=False, tol=tol)
    if b is not None:
        g, rule = b / a, "weighted_sum"
    elif typical is not None:
        g, rule = typical / a, "typical_point"
    else:
        g, rule = None, "none"
    row.update(tilt_weights=None if g is None else (g / g.max()).tolist(), tilt_rule=rule,
               tilt_proven=rule == "weighted_sum")
    if g is None:
        row["tilt_toward_worst"] = None
    else:
        W = np.zeros(K, bool)
        W[wl] = True
        row["tilt_toward_worst"] = bool(not W.all() and g[W].max()
                                        > g[~W].max() + G_RTOL * g.max())
    row["can_win"] = not _min_ruled_out(L, a, b, tol)
    row["can_win_spread"] = not _spread_ruled_out(L, a, b, tol)
    row["sufficient"] = None if b is None else _min_guaranteed(L, d, b, tol)
    row["a_dot_d"] = float(a / a.max() @ d)
    row["b_dot_d"] = None if b is None else float(b / b.max() @ d)
    holds = row["a_dot_d"] <= tol * K
    if b is not None:
        holds &= row["b_dot_d"] >= -tol * K
    row["premises_hold"] = bool(holds)
    return row
