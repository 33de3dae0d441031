"""The dictatorship report of a scorer on labelled data (docs/theory.md §7): per-label AUC against a
reference, all cross-pair win rates and near ties, and the dictatorship index, in one
:class:`DictatorshipReport` (a table as ``str()``, a DataFrame as ``.to_frame()``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from bipartite._utils.validation import check_array, check_tolerance, pow2_normalise
from bipartite.dictatorship._win_rates import check_data, pair_rates_checked, warn_empty_pairs
from bipartite.metrics import multilabel_auc, weighted_auc

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["DictatorshipReport", "dictatorship_index", "report"]


def dictatorship_index(W: np.ndarray) -> tuple[float, tuple[int, int] | None]:
    """The dictatorship index ``max_{k≠j} |2 W_{k>j} − 1|`` of a (K, K) matrix of cross-pair win
    rates (docs/theory.md §7), and the label pair attaining it.

    NaN entries (the diagonal, empty cross sets) are ignored; the index is NaN when none is
    defined. The pair ``(k, j)`` is oriented so that ``W_{k>j} ≥ ½``; it is None when the index
    is 0 (every pair even-handed) or NaN.

    >>> import numpy as np
    >>> dictatorship_index(np.array([[np.nan, 0.25], [0.75, np.nan]]))
    (0.5, (1, 0))
    """
    dev = np.abs(2.0 * W - 1.0)
    if np.all(np.isnan(dev)):
        return float("nan"), None
    index = float(np.nanmax(dev))
    kk, jj = np.unravel_index(np.nanargmax(np.where(W >= 0.5, dev, -1.0)), W.shape)
    return index, ((int(kk), int(jj)) if index > 0 else None)


@dataclass
class DictatorshipReport:
    """Dictatorship diagnostics of one scorer on labelled data (docs/theory.md §7); see :func:`report`.

    Attributes
    ----------
    auc : (K,) per-label AUC of the scorer
    reference_auc : (K,) AUC of the reference scorer of each label (or of the best-served label)
    auc_fraction : (K,) ``auc / reference_auc``
    lift_fraction : (K,) ``(auc − ½) / (reference_auc − ½)``: the share of the achievable lift
        above chance (NaN where the reference has no lift)
    win_rate : (K, K) ``W_{k>j}`` in row k, column j (diagonal NaN)
    near_tie : (K, K) near-tie rate of each label pair (symmetric, diagonal NaN)
    dictatorship_index : ``max_{k≠j} |2 W_{k>j} − 1|`` (NaN-ignoring): 0 even-handed, 1 a dictator
    dominant : (k, j) attaining the index, oriented so that ``W_{k>j} ≥ ½``, or None
    tol : the near-tie tolerance; reference : ``"reference_scores"`` or ``"best label"``
    """

    auc: np.ndarray
    reference_auc: np.ndarray
    auc_fraction: np.ndarray
    lift_fraction: np.ndarray
    win_rate: np.ndarray
    near_tie: np.ndarray
    dictatorship_index: float
    dominant: tuple[int, int] | None
    tol: float
    reference: str
    label_names: list[str] = field(default_factory=list)

    def to_frame(self) -> pd.DataFrame:
        """Per-label table (pandas DataFrame): AUC, reference, fractions, ``W_{k>j}`` columns."""
        import pandas as pd

        names = self.label_names
        df = pd.DataFrame(
            {
                "auc": self.auc,
                "reference_auc": self.reference_auc,
                "auc_fraction": self.auc_fraction,
                "lift_fraction": self.lift_fraction,
            },
            index=pd.Index(names, name="label"),
        )
        # one concat: K = 174 labels give 348 columns, inserted one by one a fragmented frame
        cols = [pd.DataFrame(self.win_rate, index=df.index, columns=[f"W_>{n}" for n in names]),
                pd.DataFrame(self.near_tie, index=df.index,
                             columns=[f"near_tie_{n}" for n in names])]
        return pd.concat([df, *cols], axis=1)

    def __str__(self) -> str:
        names = self.label_names
        width = max(8, *(len(n) for n in names))

        def fmt(x: float) -> str:
            return "   -  " if not np.isfinite(x) else f"{x:6.3f}"

        head = f"{'label':<{width}}  {'AUC':>6}  {'ref':>6}  {'frac':>6}  {'lift':>6}"
        head += "".join(f"  {'W>' + n:>{max(6, len(n) + 2)}}" for n in names)
        lines = [head]
        for k, nk in enumerate(names):
            row = f"{nk:<{width}}  {fmt(self.auc[k])}  {fmt(self.reference_auc[k])}  "
            row += f"{fmt(self.auc_fraction[k])}  {fmt(self.lift_fraction[k])}"
            row += "".join(
                f"  {fmt(self.win_rate[k, j]):>{max(6, len(n) + 2)}}" for j, n in enumerate(names)
            )
            lines.append(row)
        if self.dominant is None:
            dom = "none"
        else:
            dom = f"{names[self.dominant[0]]} over {names[self.dominant[1]]}"
        pairs = list(zip(*np.triu_indices(len(names), 1), strict=True))
        tie_txt = ", ".join(
            f"{names[a]}/{names[b]} {fmt(self.near_tie[a, b]).strip()}" for a, b in pairs
        )
        lines.append(
            f"dictatorship index {fmt(self.dictatorship_index).strip()} ({dom}); "
            f"near-tie rate (tol={self.tol:g}): {tie_txt}; reference: {self.reference}"
        )
        return "\n".join(lines)


def report(
    Y: ArrayLike,
    scores: ArrayLike,
    *,
    tol: float = 1e-6,
    reference_scores: ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
    label_names: Sequence[str] | None = None,
) -> DictatorshipReport:
    """Dictatorship diagnostics of a scorer on labelled data (docs/theory.md §7).

    * per-label AUC (:func:`bipartite.metrics.multilabel_auc`, one sort, ties ½);
    * its fraction of a reference: with ``reference_scores`` (n, K) — column k the best
      single-label scorer available for label k (η_k on synthetic data, or a per-label model) —
      ``reference_auc_k = AUC_k(reference_scores[:, k])``; without it the reference is the
      best-served label, ``max_j AUC_j(f)`` (so the fractions compare labels with each other).
      Both ``auc / reference`` and the lift share ``(auc − ½)/(reference − ½)`` are given;
    * all cross-pair win rates ``W_{k>j}`` (:func:`cross_pair_win_rates`) and near-tie rates
      (:func:`near_tie_rates` with ``tol``), from one sort (O(n K²); K = 174 works);
    * the dictatorship index ``max_{k≠j} |2 W_{k>j} − 1|``: 0 when every label pair is treated
      even-handedly (W = ½), 1 when some label wins every cross pair against another.

    Undefined entries (a label with one class, an empty cross-pair set) are NaN, with warnings.

    Parameters
    ----------
    Y : array-like (n, K), K ≥ 2;  scores : array-like (n,)
    tol : float ≥ 0, the near-tie tolerance
    reference_scores : array-like (n, K), optional
    sample_weight : array-like (n,), optional
    label_names : sequence of K distinct str, optional (default "y0", "y1", ...)

    Returns
    -------
    DictatorshipReport — ``str()`` gives a table, ``.to_frame()`` a DataFrame.

    >>> r = report([[1, 0], [0, 1], [0, 0], [1, 1]], [2.0, 1.0, 0.0, 3.0])
    >>> float(r.win_rate[0, 1]), r.dictatorship_index, r.dominant
    (1.0, 1.0, (0, 1))
    """
    Yb, s, w = check_data(Y, scores, sample_weight)
    K = Yb.shape[1]
    t = check_tolerance(tol, "tol")
    if label_names is None:
        names = [f"y{k}" for k in range(K)]
    else:
        if isinstance(label_names, str | bytes):
            raise TypeError(f"The 'label_names' parameter must be a sequence of {K} names, got "
                            f"the string {label_names!r}.")
        names = [str(x) for x in label_names]
        if len(names) != K:
            raise ValueError(
                f"The 'label_names' parameter must have {K} entries, got {len(names)}."
            )
        dup = next((n for i, n in enumerate(names) if n in names[:i]), None)
        if dup is not None:
            raise ValueError(f"The 'label_names' parameter must hold {K} distinct names (they "
                             f"label the report's rows), got {dup!r} twice in {names}.")
    aucs = multilabel_auc(Yb, s, sample_weight=w)
    if reference_scores is None:
        finite = aucs[np.isfinite(aucs)]
        ref = np.full(K, finite.max() if finite.size else np.nan)
        reference = "best label"
    else:
        R = check_array(reference_scores, "reference_scores", ndim=2)
        if R.shape != Yb.shape:
            raise ValueError(
                f"The 'reference_scores' parameter must have shape {Yb.shape}, got {R.shape}."
            )
        ref = np.array(
            [weighted_auc(R[:, k], (w * Yb[:, k])[:, None], (w * (1 - Yb[:, k]))[:, None])[0]
             for k in range(K)]
        )
        reference = "reference_scores"
    with np.errstate(invalid="ignore", divide="ignore"):
        frac = aucs / ref
        lift = np.where(ref == 0.5, np.nan, (aucs - 0.5) / (ref - 0.5))
    W, T, den = pair_rates_checked(Yb, s, pow2_normalise(w), t)
    warn_empty_pairs(den, "the cross-pair win rate and the near-tie rate")
    index, dominant = dictatorship_index(W)
    return DictatorshipReport(
        auc=aucs, reference_auc=ref, auc_fraction=frac, lift_fraction=lift, win_rate=W,
        near_tie=T, dictatorship_index=index, dominant=dominant, tol=t,
        reference=reference, label_names=names,
    )
