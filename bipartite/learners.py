"""Empirical learners for multi-label bipartite ranking (THEORY §4, §5, §9, §10).

Two scikit-learn compatible estimators, :class:`MLPRanker` (PyTorch) and :class:`XGBRanker`
(XGBoost gbtree), share two independent choices:

``objective`` — *what* is optimised
    ``"loss_aggregation"`` (THEORY §4): maximise ``Σ_k a_k AUC_k(f)`` with mixing weights
    ``a = weights`` (default all ones). Bayes scorer ``Σ_k α_k η_k``, ``α_k = a_k/(π_k(1-π_k))``.

    ``"label_aggregation"`` (THEORY §5): aggregate ``Ȳ = ψ(Y)`` (``aggregate`` in
    ``{"sum", "product", "or"}``, ``weights`` = w of the weighted sum), then maximise the
    multipartite AUC with ``costs``. Bayes scorer ``E[Ȳ|x]`` for linear costs.

``method`` — *how*
    ``"pairwise"``: a pairwise surrogate (THEORY §8) with the pair weights of the objective
    (per-label AUC-normalised weights ``a_k/(n⁺_k n⁻_k)`` for loss aggregation, multipartite costs
    on Ȳ for label aggregation). For loss aggregation this route is *not* rank-consistent
    (THEORY §9): expect a small excess AUC loss against the plug-in route.

    ``"pointwise"`` (MLP only): squared-error regression on Ȳ, whose minimiser is ``E[Ȳ|x]``; this
    is Bayes-optimal for label aggregation with linear costs only (other cases raise).

    ``"plugin"``: per-label probability heads trained with a proper loss (binary cross-entropy),
    combined by the closed form of the objective — :func:`bipartite.bayes.loss_aggregation` with
    ``π`` estimated by the training label means, or
    :func:`bipartite.bayes.label_aggregation_scores`. Product/or aggregation needs the conditional
    joint ``P(Y = v | x)``: the plug-in route then trains one ``2**K``-way softmax head over label
    vectors (cross-entropy, also proper) and derives both ``η̂ = P̂ V`` and the joint from it.

The score of every estimator is ``decision_function(X)`` (``predict`` returns the same scores); only
the order of the scores matters. ``score(X, Y)`` returns the objective's AUC criterion
(:func:`ranking_criterion`), so the estimators work with scikit-learn model selection.

Ties: all AUCs count ties ½ (THEORY §2).
"""

from __future__ import annotations

import copy
import time
import warnings
from numbers import Integral, Real
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted, validate_data

# MTRUB's multi-task network lives in its own module and is re-exported here (THEORY §11).
from bipartite._multitask import MultiTaskMLP
from bipartite._torch import n_threads as _n_threads
from bipartite._torch import torch_threads as _torch_threads
from bipartite._validation import (
    UndefinedMetricWarning,
    check_array,
    check_binary,
    check_consistent_length,
    check_nonnegative,
    check_option,
    check_random_state,
)
from bipartite.costs import AGGREGATES, COST_FAMILIES, aggregate_labels, cost_matrix
from bipartite.population import label_vectors

__all__ = [
    "MLPRanker",
    "XGBRanker",
    "MultiTaskMLP",
    "ranking_criterion",
    "OBJECTIVES",
    "SURROGATES",
]

OBJECTIVES = ("loss_aggregation", "label_aggregation")
SURROGATES = ("logistic", "exponential", "hinge", "squared_hinge")
_MLP_METHODS = ("pairwise", "pointwise", "plugin")
# float32 input is kept as is (half the memory on MSLR-sized data); anything else -> float64
_FLOATS = [np.float64, np.float32]
_XGB_METHODS = ("pairwise", "plugin")


# ---------------------------------------------------------------------------------------------
# Objective specification, shared by both estimators
# ---------------------------------------------------------------------------------------------
def _check_costs(costs: Any) -> Any:
    if isinstance(costs, str):
        return check_option(costs, "costs", COST_FAMILIES)
    C = check_array(costs, "costs", ndim=2)
    if C.shape[0] != C.shape[1]:
        raise ValueError(f"The 'costs' matrix must be square, got shape {C.shape}.")
    return C


def _check_objective(est: Any, methods: tuple[str, ...]) -> None:
    """Validate the objective/method parameters of ``est`` (called at fit)."""
    check_option(est.objective, "objective", OBJECTIVES)
    check_option(est.method, "method", methods)
    check_option(est.aggregate, "aggregate", AGGREGATES)
    _check_costs(est.costs)
    if est.weights is not None:
        w = check_array(est.weights, "weights", ndim=1)
        check_nonnegative(w, "weights")
        if not np.any(w > 0):
            raise ValueError(
                f"The 'weights' parameter must have a positive entry, got {w.tolist()}."
            )
    linear = isinstance(est.costs, str) and est.costs == "linear"
    binary_bar = est.aggregate in ("product", "or")
    if est.objective == "label_aggregation" and est.aggregate != "sum" and est.weights is not None:
        raise ValueError(
            "The 'weights' parameter is only used with aggregate='sum' for label aggregation, "
            f"got aggregate={est.aggregate!r}."
        )
    if est.method == "pointwise":
        if est.objective != "label_aggregation":
            raise ValueError(
                "method='pointwise' (regression on the aggregated label) is only defined for "
                f"objective='label_aggregation', got objective={est.objective!r}."
            )
        if not (linear or binary_bar):
            raise ValueError(
                "method='pointwise' regresses on Ȳ, whose minimiser E[Ȳ|x] is Bayes-optimal only "
                f"for linear costs (THEORY §5); got costs={est.costs!r}. Use method='pairwise'."
            )
    if est.method == "plugin" and est.objective == "label_aggregation":
        if not (linear or binary_bar):
            raise ValueError(
                "method='plugin' needs a closed-form Bayes scorer: label aggregation with "
                f"aggregate='sum' has one for linear costs only (THEORY §3, §5), got "
                f"costs={est.costs!r}. Use method='pairwise'."
            )


def _mixing_weights(weights: Any, K: int) -> np.ndarray:
    if weights is None:
        return np.ones(K)
    a = check_array(weights, "weights", ndim=1)
    if a.shape != (K,):
        raise ValueError(f"The 'weights' parameter must have shape ({K},), got shape {a.shape}.")
    return a


def _needs_joint(objective: str, aggregate: str) -> bool:
    return objective == "label_aggregation" and aggregate in ("product", "or")


def _restrict_costs(costs: Any, levels: np.ndarray, present: np.ndarray) -> Any:
    """Costs over a subset ``present`` of the sorted ``levels``: a family name as is, a user
    (L, L) matrix restricted to the rows/columns of the present levels."""
    if isinstance(costs, str):
        return costs
    pos = np.searchsorted(levels, present)
    return np.asarray(costs, dtype=np.float64)[np.ix_(pos, pos)]


def ranking_criterion(
    Y: Any,
    scores: Any,
    *,
    objective: str = "loss_aggregation",
    weights: Any = None,
    aggregate: str = "sum",
    costs: Any = "linear",
    groups: Any = None,
) -> float:
    """The AUC criterion an objective maximises, evaluated on labelled data (THEORY §4, §5).

    * ``objective="loss_aggregation"``: ``Σ_k a_k AUC_k(f) / Σ_k a_k`` with ``a = weights``
      (default ones); labels with a single class are left out (their AUC is undefined).
    * ``objective="label_aggregation"``: the multipartite AUC of the aggregated label
      ``Ȳ = ψ(Y)`` with ``costs`` (:func:`bipartite.metrics.multipartite_auc`).

    With ``groups`` (query ids) only pairs within a query count, and every query weighs the same
    (the per-query AUCs are averaged uniformly over the queries where they are defined, as
    :func:`bipartite.metrics.group_auc` with ``weighting="uniform"``) — the normalisation the
    learners use when fitted with ``groups``.

    Both lie in [0, 1]; a constant scorer gets ½ (ties count ½). NaN with
    :class:`~bipartite.UndefinedMetricWarning` when no pair is comparable.

    Parameters
    ----------
    Y : array-like of shape (n, K) or (n,)
        Binary labels.
    scores : array-like of shape (n,)
    groups : array-like of shape (n,), optional

    >>> Y = [[0, 0], [1, 0], [0, 1], [1, 1]]
    >>> round(ranking_criterion(Y, [0.0, 1.0, 2.0, 3.0]), 3)
    0.875
    >>> round(ranking_criterion(Y, [0.0, 1.0, 2.0, 3.0], objective="label_aggregation"), 3)
    1.0
    >>> round(ranking_criterion(Y, [0.0, 1.0, 2.0, 3.0], groups=[0, 0, 1, 1]), 3)
    1.0
    """
    from bipartite.metrics import group_auc, multilabel_auc, multipartite_auc

    check_option(objective, "objective", OBJECTIVES)
    Y = check_binary(Y, "Y", ndim=(1, 2))
    if Y.ndim == 1:
        Y = Y[:, None]
    s = check_array(scores, "scores", ndim=1)
    check_consistent_length(Y=Y, scores=s)
    g = None
    if groups is not None:
        g = np.asarray(groups)
        if g.ndim != 1:
            raise ValueError(f"The 'groups' parameter must be 1-dimensional, got shape {g.shape}.")
        check_consistent_length(Y=Y, groups=g)
        g = np.unique(g, return_inverse=True)[1]
    if objective == "loss_aggregation":
        a = _mixing_weights(weights, Y.shape[1])
        if g is None:
            defined = (Y.min(axis=0) < Y.max(axis=0)) & (a > 0)
        else:
            n_pos = np.stack([np.bincount(g, Y[:, k]) for k in range(Y.shape[1])], axis=1)
            n_all = np.bincount(g)[:, None]
            defined = np.any((n_pos > 0) & (n_pos < n_all), axis=0) & (a > 0)
        if not defined.any():
            warnings.warn(
                "No label with positive weight has a comparable pair: the criterion is undefined.",
                UndefinedMetricWarning,
                stacklevel=2,
            )
            return float("nan")
        if g is None:
            aucs = multilabel_auc(Y[:, defined], s)
        else:
            aucs = np.array([group_auc(Y[:, k], s, g, weighting="uniform")
                             for k in np.flatnonzero(defined)])
        return float(np.dot(a[defined], aucs) / a[defined].sum())
    ybar = aggregate_labels(Y, aggregate, weights)
    if g is None:
        return float(multipartite_auc(ybar, s, costs=costs))
    levels = np.unique(ybar)
    per_group = []
    order = np.argsort(g, kind="stable")
    for members in np.split(order, np.flatnonzero(np.diff(g[order])) + 1):
        present = np.unique(ybar[members])
        if len(present) > 1:
            c = _restrict_costs(costs, levels, present)
            per_group.append(multipartite_auc(ybar[members], s[members], costs=c))
    if not per_group:
        warnings.warn(
            "No group holds two levels of the aggregated label: the criterion is undefined.",
            UndefinedMetricWarning,
            stacklevel=2,
        )
        return float("nan")
    return float(np.mean(per_group))


def _quiet_criterion(Y: np.ndarray, scores: np.ndarray, spec: dict, groups=None) -> float:
    """Criterion for early stopping: NaN (no warning) when undefined on the validation split."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return ranking_criterion(Y, scores, groups=groups, **spec)


def _plugin_scores(
    eta: np.ndarray | None, joint: np.ndarray | None, pi: np.ndarray, spec: dict
) -> np.ndarray:
    """Combine estimated η (n, K) / joint (n, 2**K) by the closed form of the objective."""
    from bipartite.bayes import label_aggregation_scores, loss_aggregation

    if spec["objective"] == "loss_aggregation":
        return np.asarray(loss_aggregation(eta, pi, _mixing_weights(spec["weights"], len(pi))))
    return np.asarray(
        label_aggregation_scores(
            eta=eta,
            joint=joint,
            aggregate=spec["aggregate"],
            weights=spec["weights"],
            costs=spec["costs"],
        )
    )


def _label_codes(Y: np.ndarray) -> np.ndarray:
    """Index of each row's label vector (label 1 = most significant bit).

    Same order as :func:`bipartite.population.label_vectors`.
    """
    K = Y.shape[1]
    return (Y.astype(np.int64) << np.arange(K - 1, -1, -1)[None, :]).sum(axis=1)


def _check_positive(value: Any, name: str, *, integer: bool = False, allow_zero: bool = False):
    kind = Integral if integer else Real
    ok = isinstance(value, kind) and not isinstance(value, bool)
    ok = ok and (value >= 0 if allow_zero else value > 0)
    if not ok:
        what = "an int" if integer else "a number"
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"The '{name}' parameter must be {what} {bound}, got {value!r}.")
    return value


class _RankerMixin:
    """Shared input handling, criterion and tags of the two rankers."""

    def _spec(self) -> dict:
        return {
            "objective": self.objective,
            "weights": self.weights,
            "aggregate": self.aggregate,
            "costs": self.costs,
        }

    def _validate_fit_input(self, X: Any, Y: Any, groups: Any):
        if Y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y is None "
                "(the 'Y' parameter: binary labels of shape (n, K))."
            )
        X = validate_data(self, X, reset=True, dtype=_FLOATS, ensure_min_samples=2)
        Y = check_binary(Y, "Y", ndim=(1, 2))
        if Y.ndim == 1:
            Y = Y[:, None]
        check_consistent_length(X=X, Y=Y)
        if groups is not None:
            groups = np.asarray(groups)
            if groups.ndim != 1:
                raise ValueError(
                    f"The 'groups' parameter must be 1-dimensional, got shape {groups.shape}."
                )
            check_consistent_length(X=X, groups=groups)
            groups = np.unique(groups, return_inverse=True)[1].astype(np.int64)
        K = Y.shape[1]
        if self.weights is not None:
            _mixing_weights(self.weights, K)
        return X, Y, groups

    def predict(self, X: Any) -> np.ndarray:
        """Same as :meth:`decision_function`: the ranking scores, shape (n,)."""
        return self.decision_function(X)

    def score(self, X: Any, Y: Any, groups: Any = None) -> float:
        """The objective's AUC criterion on (X, Y) (:func:`ranking_criterion`); higher is better.

        With ``groups``, pairs within queries only, each query weighted equally.
        """
        return ranking_criterion(Y, self.decision_function(X), groups=groups, **self._spec())

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.estimator_type = None
        tags.target_tags.required = True
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = True
        tags.target_tags.two_d_labels = True
        return tags


def _split_validation(
    n: int, groups: np.ndarray | None, fraction: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Random train/validation split of rows (by whole groups when ``groups`` is given)."""
    if fraction <= 0:
        return np.arange(n), np.arange(0)
    if groups is None:
        n_val = int(round(fraction * n))
        if n_val < 2 or n - n_val < 2:
            return np.arange(n), np.arange(0)
        perm = rng.permutation(n)
        return np.sort(perm[n_val:]), np.sort(perm[:n_val])
    G = int(groups.max()) + 1
    n_val = int(round(fraction * G))
    if n_val < 1 or G - n_val < 1:
        return np.arange(n), np.arange(0)
    val_groups = rng.permutation(G)[:n_val]
    is_val = np.isin(groups, val_groups)
    return np.flatnonzero(~is_val), np.flatnonzero(is_val)


# ---------------------------------------------------------------------------------------------
# MLP (PyTorch)
# ---------------------------------------------------------------------------------------------
def _group_batches(
    groups: np.ndarray, batch_size: int, rng: np.random.Generator, *, pool: int = 64
) -> list[np.ndarray]:
    """Pack whole groups into padded index matrices [G, m] (-1 = padding), in random order.

    Size bucketing: the groups are shuffled, cut into pools of about ``pool * batch_size`` rows,
    and each pool is sorted by group size before being packed greedily into batches of at most
    ``batch_size`` rows (a group larger than ``batch_size`` forms a batch of its own); the batch
    order is then shuffled. Groups of similar size share a batch, so little padding is computed
    (MSLR-shaped queries range from 2 to ~400 rows: without bucketing, a 4096-row batch is ~3x
    padding in rows and ~6x in pairs). Every group appears in exactly one batch per call.
    """
    groups = np.asarray(groups)
    order = np.argsort(groups, kind="stable")
    counts = np.bincount(groups)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    perm = rng.permutation(len(counts))
    perm = perm[counts[perm] > 0]
    # pools of consecutive shuffled groups, each sorted by size (stable: ties keep the shuffle)
    pool_id = np.cumsum(counts[perm]) // max(int(pool) * int(batch_size), 1)
    perm = perm[np.lexsort((counts[perm], pool_id))]
    sizes = counts[perm]
    batches, first, rows = [], 0, 0
    for i, c in enumerate(sizes.tolist()):
        if i > first and rows + c > batch_size:
            batches.append(perm[first:i])
            first, rows = i, 0
        rows += c
    if len(perm) > first:
        batches.append(perm[first:])
    out = []
    for b in rng.permutation(len(batches)):
        gs = batches[b]
        lengths = counts[gs]
        total = int(lengths.sum())
        offsets = np.repeat(np.cumsum(lengths) - lengths, lengths)
        col = np.arange(total) - offsets
        idx = np.full((len(gs), int(lengths.max())), -1, dtype=np.int64)
        rows = order[np.repeat(starts[gs], lengths) + col]
        idx[np.repeat(np.arange(len(gs)), lengths), col] = rows
        out.append(idx)
    return out


def _column_moments(X: np.ndarray, block: int = 65536) -> tuple[np.ndarray, np.ndarray]:
    """Column means and standard deviations in float64, by row blocks (two passes).

    Equal to ``X.mean(axis=0, dtype=float64)`` and ``X.std(axis=0, dtype=float64)`` up to
    rounding (deviations from the mean are formed in X's dtype), without the full-size float64
    temporary that ``std`` allocates (2.4 GB on an MSLR-sized float32 X).
    """
    n = X.shape[0]
    mean = np.zeros(X.shape[1])
    for start in range(0, n, block):
        mean += X[start : start + block].sum(axis=0, dtype=np.float64)
    mean /= n
    ss = np.zeros(X.shape[1])
    centre = mean.astype(X.dtype)  # deviations in X's precision, sums of squares in float64
    for start in range(0, n, block):
        d = X[start : start + block] - centre
        ss += np.square(d, out=d).sum(axis=0, dtype=np.float64)
    return mean, np.sqrt(ss / n)


class MLPRanker(_RankerMixin, BaseEstimator):
    """Multi-layer perceptron scorer for loss or label aggregation (THEORY §4, §5, §9, §10).

    A ReLU MLP ``hidden`` → 1 output (pairwise, pointwise) or K / ``2**K`` outputs (plug-in heads),
    trained with Adam on standardised inputs, with early stopping on a validation split that
    monitors the objective's AUC criterion (:func:`ranking_criterion`) and keeps the best weights.

    Parameters
    ----------
    objective : {"loss_aggregation", "label_aggregation"}
    method : {"pairwise", "pointwise", "plugin"}
        See the module docstring. ``"pointwise"`` needs label aggregation with linear costs.
    weights : array-like of shape (K,), optional
        Mixing weights ``a`` (loss aggregation) or sum weights ``w`` (label aggregation).
    aggregate : {"sum", "product", "or"}
        ψ for label aggregation.
    costs : {"uniform", "linear", "squared", "gain"} or (L, L) array
        Multipartite costs for label aggregation (THEORY §3).
    surrogate : {"logistic", "exponential", "hinge", "squared_hinge"}
        Pairwise surrogate φ(f_i − f_j) (method="pairwise").
    hidden : tuple of int
    epochs, batch_size, lr, weight_decay : training schedule (Adam).
        ``batch_size`` counts rows (whole groups with ``groups``). The default 512 suits ~10⁴
        rows; on MSLR-sized data (~2M rows) 2048 is 1.4-2.2x faster per epoch for the same
        validation criterion (``benchmarks/bench_learners.py``).
    validation_fraction : float in [0, 1)
        Share of rows (of groups when ``groups`` is given) held out for early stopping; 0 disables.
    n_iter_no_change : int
        Stop after this many epochs without improvement of the validation criterion.
    device : "auto", "cpu", "cuda"
        "auto" picks CUDA when available.
    n_jobs : int or None
        Torch CPU threads during fit/predict (None = 1, -1 = all cores); restored afterwards.
        Keep 1 on a shared machine: with 2 threads and the other core busy, torch's OpenMP
        barriers made epochs 14-32x slower (measured on 2 cores).
    random_state : None, int or numpy Generator
        Seeds the initial weights, the split and the batches: fits are reproducible on CPU.
    verbose : bool
        tqdm progress bar over epochs.

    Pairwise batches: without ``groups``, a batch is ``batch_size`` random rows and every pair in it
    is weighted by the objective's pair weights (:mod:`bipartite.surrogates`); with ``groups``
    (query ids), a batch packs whole groups of similar size (:func:`_group_batches`) and only
    pairs inside a group count, normalised per group (per group and label for loss aggregation);
    the batch loss is divided by the epoch's mean number of groups per batch, so that over an
    epoch every group weighs the same (the uniform per-query criterion of
    :func:`ranking_criterion`).

    Attributes
    ----------
    n_labels_ : int
    prior_ : ndarray (K,) — training label means (π̂, used by the plug-in combination)
    n_epochs_ : int — epochs run; best_epoch_ : int; best_score_ : float (validation criterion)
    history_ : list of dict — per epoch: ``train_loss``, ``train_seconds`` (wall time of the
        epoch's updates) and, with a validation split, ``val_criterion`` and ``val_seconds``

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 2))
    >>> Y = (X + 0.5 * rng.normal(size=(300, 2)) > 0).astype(int)
    >>> est = MLPRanker(method="plugin", hidden=(8,), epochs=20, lr=0.01, random_state=0)
    >>> est = est.fit(X, Y)
    >>> est.decision_function(X).shape
    (300,)
    >>> bool(est.score(X, Y) > 0.8)
    True
    """

    def __init__(
        self,
        objective: str = "loss_aggregation",
        method: str = "pairwise",
        weights: Any = None,
        aggregate: str = "sum",
        costs: Any = "linear",
        surrogate: str = "logistic",
        hidden: tuple[int, ...] = (64, 64),
        epochs: int = 100,
        batch_size: int = 512,
        lr: float = 1e-3,
        weight_decay: float = 1e-5,
        validation_fraction: float = 0.1,
        n_iter_no_change: int = 10,
        tol: float = 1e-4,
        device: str = "auto",
        n_jobs: int | None = None,
        random_state: Any = None,
        verbose: bool = False,
    ):
        self.objective = objective
        self.method = method
        self.weights = weights
        self.aggregate = aggregate
        self.costs = costs
        self.surrogate = surrogate
        self.hidden = hidden
        self.epochs = epochs
        self.batch_size = batch_size
        self.lr = lr
        self.weight_decay = weight_decay
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.device = device
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    # -- parameter checks ---------------------------------------------------------------------
    def _check_params(self) -> None:
        _check_objective(self, _MLP_METHODS)
        check_option(self.surrogate, "surrogate", SURROGATES)
        check_option(self.device, "device", ("auto", "cpu", "cuda"))
        hidden = tuple(self.hidden) if isinstance(self.hidden, (tuple, list)) else None
        if hidden is None or not all(
            isinstance(h, Integral) and not isinstance(h, bool) and h > 0 for h in hidden
        ):
            raise ValueError(
                f"The 'hidden' parameter must be a tuple of positive ints, got {self.hidden!r}."
            )
        _check_positive(self.epochs, "epochs", integer=True)
        _check_positive(self.batch_size, "batch_size", integer=True)
        _check_positive(self.lr, "lr")
        _check_positive(self.weight_decay, "weight_decay", allow_zero=True)
        _check_positive(self.n_iter_no_change, "n_iter_no_change", integer=True)
        _check_positive(self.tol, "tol", allow_zero=True)
        vf = self.validation_fraction
        if not isinstance(vf, Real) or not 0 <= vf < 1:
            raise ValueError(
                f"The 'validation_fraction' parameter must be in [0, 1), got {vf!r}."
            )
        _n_threads(self.n_jobs)

    def _standardise(self, X: np.ndarray) -> np.ndarray:
        """(X - mean_) / scale_ as float32, in row blocks (no full float64 copy of X)."""
        out = np.empty(X.shape, dtype=np.float32)
        for start in range(0, X.shape[0], 65536):
            block = X[start : start + 65536]
            out[start : start + 65536] = (block - self.mean_) / self.scale_
        return out

    def _torch_device(self):
        from bipartite._torch import resolve_device

        return resolve_device(self.device)

    def _build(self, n_in: int, n_out: int, seed: int):
        import torch
        from torch import nn

        layers: list[nn.Module] = []
        width = n_in
        for h in self.hidden:
            layers += [nn.Linear(width, int(h)), nn.ReLU()]
            width = int(h)
        layers.append(nn.Linear(width, n_out))
        net = nn.Sequential(*layers)
        gen = torch.Generator().manual_seed(seed)
        # Same scheme as torch's default Linear init, but drawn from a local generator so that a
        # fit is reproducible without touching the global torch seed.
        for mod in net:
            if isinstance(mod, nn.Linear):
                nn.init.kaiming_uniform_(mod.weight, a=5**0.5, generator=gen)
                bound = 1.0 / mod.in_features**0.5
                nn.init.uniform_(mod.bias, -bound, bound, generator=gen)
        return net

    # -- losses --------------------------------------------------------------------------------
    def _batch_loss(self, out, idx, tensors, groups_per_batch: float = 1.0):
        """Loss of one batch.

        ``out``: network output for the rows of ``idx`` (flat), or, for a pairwise batch ``idx``
        of shape [G, m] (-1 = padding), for its valid entries ``idx[idx >= 0]`` in row-major
        order. The pairwise loss is the sum of the per-group normalised losses divided by
        ``groups_per_batch``, the epoch's mean number of groups per batch: summed over an epoch,
        every group then weighs the same whatever the batch it lands in (the uniform per-query
        weighting of :func:`ranking_criterion`), even though size bucketing
        (:func:`_group_batches`) puts many small or few large groups in a batch.
        """
        import torch

        from bipartite import surrogates

        if self.method == "pointwise":
            return torch.mean((out[:, 0] - tensors["ybar"][idx]) ** 2)
        if self.method == "plugin":
            if tensors["joint"]:
                return torch.nn.functional.cross_entropy(out, tensors["codes"][idx])
            return torch.nn.functional.binary_cross_entropy_with_logits(out, tensors["Y"][idx])
        # pairwise: idx is [G, m] with -1 padding; scores of the valid entries, 0 on padding
        where = idx >= 0
        safe = idx.clamp(min=0)
        s = torch.zeros(idx.shape, dtype=out.dtype, device=out.device).masked_scatter(
            where, out[:, 0]
        )
        if self.objective == "loss_aggregation":
            W = surrogates.loss_aggregation_pair_weights(
                tensors["Y"][safe], a=tensors["a"], where=where
            )
        else:
            yb = tensors["ybar"][safe]
            W = surrogates.label_aggregation_pair_weights(
                yb, costs=self._batch_costs(yb, where, tensors), where=where
            )
        # W sums to the objective's mass per group: sum over pairs, mean over groups.
        loss = surrogates.pairwise_loss(
            s, None, kind=self.surrogate, pair_weights=W, where=where, reduction="sum"
        )
        return loss / groups_per_batch

    def _batch_costs(self, yb, where, tensors):
        """Costs for a batch (the surrogate builds its cost matrix over the batch's levels)."""
        if isinstance(self.costs, str):
            return self.costs  # a family is evaluated on the batch's levels by the surrogate
        present = np.unique(yb[where].detach().cpu().numpy())
        return _restrict_costs(self.costs, tensors["levels"], present)

    def _forward_scores(self, net, Xt, batch: int = 65536) -> np.ndarray:
        """Raw network outputs (n, n_out) as float64 numpy, in eval mode, no grad."""
        import torch

        net.eval()
        outs = []
        with torch.no_grad():
            for start in range(0, Xt.shape[0], batch):
                outs.append(net(Xt[start : start + batch]).double().cpu().numpy())
        net.train()
        return np.concatenate(outs, axis=0) if outs else np.zeros((0, 1))

    def _combine(self, raw: np.ndarray) -> np.ndarray:
        """Network outputs -> ranking scores (identity, or the plug-in closed form)."""
        if self.method != "plugin":
            return raw[:, 0]
        if self.joint_head_:
            z = raw - raw.max(axis=1, keepdims=True)  # stable softmax
            P = np.exp(z)
            P /= P.sum(axis=1, keepdims=True)
            eta = P @ label_vectors(self.n_labels_)
            return _plugin_scores(eta, P, self.prior_, self._spec())
        eta = 1.0 / (1.0 + np.exp(-raw))
        return _plugin_scores(eta, None, self.prior_, self._spec())

    # -- fit / predict -------------------------------------------------------------------------
    def fit(self, X: Any, Y: Any, groups: Any = None) -> MLPRanker:
        """Fit on features X (n, d), binary labels Y (n, K), optional query ids ``groups`` (n,)."""
        import torch
        from tqdm.auto import tqdm

        self._check_params()
        X, Y, groups = self._validate_fit_input(X, Y, groups)
        n, K = Y.shape
        rng = check_random_state(self.random_state)
        seed = int(rng.integers(2**31 - 1))
        dev = self._torch_device()
        with _torch_threads(self.n_jobs):
            self.n_labels_ = K
            self.prior_ = Y.mean(axis=0)
            self.mean_, scale = _column_moments(X)
            self.scale_ = np.where(scale > 0, scale, 1.0)
            self.joint_head_ = self.method == "plugin" and _needs_joint(
                self.objective, self.aggregate
            )
            n_out = 2**K if self.joint_head_ else (K if self.method == "plugin" else 1)
            tr, va = _split_validation(n, groups, float(self.validation_fraction), rng)
            Xt = torch.as_tensor(self._standardise(X), device=dev)
            spec = self._spec()
            ybar = (
                aggregate_labels(Y, self.aggregate, self.weights)
                if self.objective == "label_aggregation"
                else Y.sum(axis=1)
            )
            if self.objective == "label_aggregation":
                cost_matrix(np.unique(ybar), self.costs)  # validates a user matrix's shape
            tensors = {
                "Y": torch.as_tensor(Y, dtype=torch.float32, device=dev),
                "ybar": torch.as_tensor(ybar, dtype=torch.float32, device=dev),
                "codes": torch.as_tensor(_label_codes(Y), device=dev),
                "joint": self.joint_head_,
                "levels": np.unique(ybar),
                "a": torch.as_tensor(
                    _mixing_weights(self.weights, K), dtype=torch.float32, device=dev
                ),
            }
            net = self._build(X.shape[1], n_out, seed).to(dev)
            opt = torch.optim.Adam(net.parameters(), lr=self.lr, weight_decay=self.weight_decay)
            monitor = len(va) > 0
            best, best_state, best_epoch, stall = -np.inf, None, 0, 0
            self.history_ = []
            self.net_ = net
            bar = tqdm(range(self.epochs), disable=not self.verbose, desc="MLPRanker", leave=False)
            for epoch in bar:
                t_epoch = time.perf_counter()
                batches = self._epoch_batches(tr, groups, rng)
                # mean groups per batch (pairwise with groups; 1 otherwise), see _batch_loss
                per_batch = sum(b.shape[0] for b in batches) / max(len(batches), 1)
                total = 0.0
                for idx_np in batches:
                    idx = torch.as_tensor(idx_np, device=dev)
                    out = net(Xt[idx[idx >= 0]] if idx.ndim == 2 else Xt[idx])
                    loss = self._batch_loss(out, idx, tensors, per_batch if idx.ndim == 2 else 1.0)
                    opt.zero_grad(set_to_none=True)
                    loss.backward()
                    opt.step()
                    total += float(loss.detach())
                record = {"epoch": epoch + 1, "train_loss": total / max(len(batches), 1),
                          "train_seconds": time.perf_counter() - t_epoch}
                if monitor:
                    t_val = time.perf_counter()
                    crit = _quiet_criterion(
                        Y[va], self._combine(self._forward_scores(net, Xt[va])), spec,
                        None if groups is None else groups[va],
                    )
                    record["val_criterion"] = crit
                    record["val_seconds"] = time.perf_counter() - t_val
                    if np.isnan(crit):
                        monitor = False
                    elif crit > best + self.tol:
                        best, best_epoch, stall = crit, epoch + 1, 0
                        best_state = copy.deepcopy(net.state_dict())
                    else:
                        stall += 1
                self.history_.append(record)
                bar.set_postfix(record)
                if monitor and stall >= self.n_iter_no_change:
                    break
            self.n_epochs_ = len(self.history_)
            if best_state is not None and monitor:
                net.load_state_dict(best_state)
                self.best_epoch_, self.best_score_ = best_epoch, float(best)
            else:
                self.best_epoch_, self.best_score_ = self.n_epochs_, float("nan")
            self.net_ = net.cpu()
        return self

    def _epoch_batches(self, tr: np.ndarray, groups: np.ndarray | None, rng) -> list[np.ndarray]:
        bs = int(self.batch_size)
        if self.method == "pairwise":
            if groups is not None:
                sub = groups[tr]
                codes = np.unique(sub, return_inverse=True)[1]
                return [np.where(b >= 0, tr[np.maximum(b, 0)], -1)
                        for b in _group_batches(codes, bs, rng)]
            perm = tr[rng.permutation(len(tr))]
            # one pseudo-group per batch: [1, B]; drop a tail too small to hold pairs
            return [perm[i : i + bs][None, :] for i in range(0, len(perm), bs)
                    if len(perm[i : i + bs]) >= 2]
        perm = tr[rng.permutation(len(tr))]
        return [perm[i : i + bs] for i in range(0, len(perm), bs)]

    def decision_function(self, X: Any) -> np.ndarray:
        """Ranking scores, shape (n,): higher ranks first (ties count ½ in every AUC)."""
        import torch

        check_is_fitted(self, "net_")
        X = validate_data(self, X, reset=False, dtype=_FLOATS)
        with _torch_threads(self.n_jobs):
            raw = self._forward_scores(self.net_, torch.as_tensor(self._standardise(X)))
        return self._combine(raw)


# ---------------------------------------------------------------------------------------------
# XGBoost
# ---------------------------------------------------------------------------------------------
def _stacked_loss_aggregation(Y: np.ndarray, groups: np.ndarray, a: np.ndarray):
    """Rows, binary labels, qids and group weights of the stacked loss-aggregation problem.

    One query group per (query, label k) with label ``Y_k`` and group weight ``a_k / n_q``
    (n_q = query size); groups without both classes are dropped (they hold no pair).
    With XGBoost's ``lambdarank_pair_method="mean"`` each row draws the same number of partners
    uniformly among the rows of the other class, so a pair (i, j) of group (q, k) is drawn in
    expectation in proportion to ``1/n⁻ + 1/n⁺ = n_q / (n⁺ n⁻)``; with the group weight this
    gives pair weight ``a_k / (n⁺_qk n⁻_qk)``: the AUC-normalised loss-aggregation weights
    (THEORY §4), exactly the weights of :func:`bipartite.surrogates.loss_aggregation_pair_weights`.
    """
    rows, labels, qid, gw = [], [], [], []
    order = np.argsort(groups, kind="stable")
    bounds = np.flatnonzero(np.diff(groups[order])) + 1
    g_id = 0
    for members in np.split(order, bounds):
        for k in range(Y.shape[1]):
            yk = Y[members, k]
            npos = yk.sum()
            if a[k] <= 0 or npos == 0 or npos == len(yk):
                continue
            rows.append(members)
            labels.append(yk)
            qid.append(np.full(len(members), g_id))
            gw.append(a[k] / len(members))
            g_id += 1
    return rows, labels, qid, gw


def _stacked_label_aggregation(ybar: np.ndarray, groups: np.ndarray, costs: Any):
    """Rows, binary labels, qids and group weights realising multipartite costs with rank:pairwise.

    For each query and each pair of levels ``y_a > y_b`` present in it, one binary group holds the
    rows at those two levels (label 1 for level a) with group weight
    ``c(y_a, y_b) n_a n_b / (n_a + n_b)``. Under ``lambdarank_pair_method="mean"`` a pair is
    drawn in proportion to ``(n_a + n_b)/(n_a n_b)`` (see :func:`_stacked_loss_aggregation`), so
    every pair (i, j) with ``ȳ_i > ȳ_j`` gets weight ``c(ȳ_i, ȳ_j)``: the multipartite cost
    weighting of THEORY §3 for any cost family or matrix (levels = the sorted distinct values of
    Ȳ in the whole training set). Plain ``rank:pairwise`` on Ȳ would instead weight a pair by
    ``1/(n - n_{ȳ_i}) + 1/(n - n_{ȳ_j})``, which is neither uniform nor linear costs.
    """
    levels = np.unique(ybar)
    C = cost_matrix(levels, costs)
    lev = np.searchsorted(levels, ybar)
    rows, labels, qid, gw = [], [], [], []
    order = np.argsort(groups, kind="stable")
    bounds = np.flatnonzero(np.diff(groups[order])) + 1
    g_id = 0
    for members in np.split(order, bounds):
        present = np.unique(lev[members])
        for ia, la in enumerate(present):
            for lb in present[:ia]:
                if C[la, lb] <= 0:
                    continue
                sel = members[(lev[members] == la) | (lev[members] == lb)]
                na = int(np.sum(lev[sel] == la))
                nb = len(sel) - na
                rows.append(sel)
                labels.append((lev[sel] == la).astype(np.float64))
                qid.append(np.full(len(sel), g_id))
                gw.append(C[la, lb] * na * nb / (na + nb))
                g_id += 1
    return rows, labels, qid, gw


class XGBRanker(_RankerMixin, BaseEstimator):
    """Gradient-boosted trees (XGBoost gbtree) for loss or label aggregation (THEORY §4, §5, §10).

    Routes
    ------
    ``method="pairwise"``
        XGBoost's RankNet objective ``rank:pairwise`` (logistic pairwise loss) with
        ``lambdarank_pair_method="mean"`` (each row draws ``num_pair_per_sample`` partners
        uniformly among rows of another label, per round), ``lambdarank_score_normalization=False``
        (the 3.x default divides each pair's gradient by the score gap, which would change the
        loss) and per-group weights. The rows are *stacked* so that the expected pair weights are
        exactly the objective's:

        - loss aggregation: one query group per (query, label k), label ``Y_k``, group weight
          ``a_k/n_q``: pair weight ``a_k/(n⁺_k n⁻_k)``, i.e. Σ_k a_k × (AUC_k-normalised pairwise
          logistic loss), the §4 objective (see :func:`_stacked_loss_aggregation`). Chosen over a
          custom objective because XGBoost's own sampled-pair kernel is O(n · pairs per row) in C++;
          an exact custom pairwise gradient would be O(n²) per round in Python.
        - label aggregation: one binary group per (query, pair of levels of Ȳ), weighted so that a
          pair (i, j) with ``ȳ_i > ȳ_j`` gets cost ``c(ȳ_i, ȳ_j)`` (any costs; see
          :func:`_stacked_label_aggregation`). Plain ``rank:pairwise`` on Ȳ would weight pairs by
          the sizes of the other levels — neither uniform nor linear costs.

        Without ``groups`` the whole training set is one query. The data are copied K times (loss
        aggregation) or ``L-1``..``L(L-1)/2`` times in total size (label aggregation).
    ``method="plugin"``
        One ``binary:logistic`` booster per label (η̂_k), combined by the Bayes closed form with π̂ =
        training label means; for product/or label aggregation one ``multi:softprob`` booster over
        the ``2**K`` label vectors (the joint).

    Parameters
    ----------
    objective, weights, aggregate, costs : as :class:`MLPRanker`.
    n_estimators : int — boosting rounds. learning_rate, max_depth : usual XGBoost parameters.
    num_pair_per_sample : int — ``lambdarank_num_pair_per_sample`` (pairwise only).
    n_jobs : int or None — XGBoost threads (None = 1, -1 = all cores).
    random_state : None, int or numpy Generator — XGBoost ``seed``.
    verbose : bool — tqdm progress bar over boosting rounds.
    **xgb_params : further XGBoost booster parameters (e.g. ``min_child_weight``, ``subsample``,
        ``tree_method``, ``device``); they appear in ``get_params`` and survive ``clone``.

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 2))
    >>> Y = (X + 0.5 * rng.normal(size=(300, 2)) > 0).astype(int)
    >>> est = XGBRanker(n_estimators=20, random_state=0).fit(X, Y)
    >>> bool(est.score(X, Y) > 0.8)
    True
    """

    def __init__(
        self,
        objective: str = "loss_aggregation",
        method: str = "pairwise",
        weights: Any = None,
        aggregate: str = "sum",
        costs: Any = "linear",
        n_estimators: int = 200,
        learning_rate: float = 0.1,
        max_depth: int = 4,
        num_pair_per_sample: int = 8,
        n_jobs: int | None = None,
        random_state: Any = None,
        verbose: bool = False,
        **xgb_params: Any,
    ):
        self.objective = objective
        self.method = method
        self.weights = weights
        self.aggregate = aggregate
        self.costs = costs
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.max_depth = max_depth
        self.num_pair_per_sample = num_pair_per_sample
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self._xgb_params = dict(xgb_params)

    def get_params(self, deep: bool = True) -> dict:
        params = super().get_params(deep=deep)
        params.update(self._xgb_params)
        return params

    def set_params(self, **params: Any) -> XGBRanker:
        own = set(self._get_param_names())
        for key, value in params.items():
            if key in own:
                setattr(self, key, value)
            else:
                self._xgb_params[key] = value
        return self

    def _check_params(self) -> None:
        _check_objective(self, _XGB_METHODS)
        _check_positive(self.n_estimators, "n_estimators", integer=True)
        _check_positive(self.learning_rate, "learning_rate")
        _check_positive(self.max_depth, "max_depth", integer=True, allow_zero=True)
        _check_positive(self.num_pair_per_sample, "num_pair_per_sample", integer=True)
        _n_threads(self.n_jobs)
        reserved = {"objective", "num_class", "lambdarank_pair_method"}
        clash = reserved & set(self._xgb_params)
        if clash:
            raise ValueError(
                f"The XGBoost parameters {sorted(clash)} are set by XGBRanker from 'objective' and "
                "'method'; do not pass them."
            )

    def _booster_params(self, seed: int) -> dict:
        params = {
            "booster": "gbtree",
            "tree_method": "hist",
            "eta": float(self.learning_rate),
            "max_depth": int(self.max_depth),
            "nthread": _n_threads(self.n_jobs),
            "seed": seed,
            "verbosity": 0,
        }
        params.update(self._xgb_params)
        return params

    def _train(self, params: dict, dtrain, desc: str):
        import xgboost as xgb
        from tqdm.auto import tqdm

        callbacks = []
        if self.verbose:
            bar = tqdm(total=int(self.n_estimators), desc=desc, leave=False)

            class _Progress(xgb.callback.TrainingCallback):
                def after_iteration(self, model, epoch, evals_log):
                    bar.update(1)
                    return False

            callbacks.append(_Progress())
        booster = xgb.train(
            params, dtrain, num_boost_round=int(self.n_estimators), callbacks=callbacks
        )
        if self.verbose:
            bar.close()
        return booster

    def fit(self, X: Any, Y: Any, groups: Any = None) -> XGBRanker:
        """Fit on features X (n, d), binary labels Y (n, K), optional query ids ``groups`` (n,)."""
        import xgboost as xgb

        self._check_params()
        X, Y, groups = self._validate_fit_input(X, Y, groups)
        n, K = Y.shape
        rng = check_random_state(self.random_state)
        seed = int(rng.integers(2**31 - 1))
        self.n_labels_ = K
        self.prior_ = Y.mean(axis=0)
        params = self._booster_params(seed)
        self.joint_head_ = False
        if self.method == "plugin":
            self.joint_head_ = _needs_joint(self.objective, self.aggregate)
            if self.joint_head_:
                p = {**params, "objective": "multi:softprob", "num_class": 2**K}
                codes = _label_codes(Y)
                if np.unique(codes).size < 2:
                    raise ValueError(
                        "The 'Y' parameter holds a single label vector: nothing to fit."
                    )
                self.boosters_ = [self._train(p, xgb.DMatrix(X, label=codes), "XGB joint")]
            else:
                p = {**params, "objective": "binary:logistic"}
                self.boosters_ = [
                    self._train(p, xgb.DMatrix(X, label=Y[:, k]), f"XGB label {k + 1}")
                    for k in range(K)
                ]
            return self
        g = groups if groups is not None else np.zeros(n, dtype=np.int64)
        if self.objective == "loss_aggregation":
            parts = _stacked_loss_aggregation(Y, g, _mixing_weights(self.weights, K))
        else:
            ybar = aggregate_labels(Y, self.aggregate, self.weights)
            parts = _stacked_label_aggregation(ybar, g, self.costs)
        rows, labels, qid, gw = parts
        if not rows:
            raise ValueError(
                "The 'Y' parameter gives no comparable pair (every label, or the aggregated label, "
                "is constant within every query): nothing to fit."
            )
        idx = np.concatenate(rows)
        dtrain = xgb.DMatrix(
            X[idx], label=np.concatenate(labels), qid=np.concatenate(qid), weight=np.asarray(gw)
        )
        p = {
            **params,
            "objective": "rank:pairwise",
            "lambdarank_pair_method": "mean",
            "lambdarank_num_pair_per_sample": int(self.num_pair_per_sample),
            "lambdarank_score_normalization": False,
        }
        self.boosters_ = [self._train(p, dtrain, "XGB pairwise")]
        return self

    def decision_function(self, X: Any) -> np.ndarray:
        """Ranking scores, shape (n,): higher ranks first (ties count ½ in every AUC)."""
        import xgboost as xgb

        check_is_fitted(self, "boosters_")
        X = validate_data(self, X, reset=False, dtype=_FLOATS)
        d = xgb.DMatrix(X)
        if self.method == "pairwise":
            return self.boosters_[0].predict(d, output_margin=True).astype(np.float64)
        if self.joint_head_:
            P = self.boosters_[0].predict(d).astype(np.float64).reshape(len(X), -1)
            eta = P @ label_vectors(self.n_labels_)
            return _plugin_scores(eta, P, self.prior_, self._spec())
        eta = np.column_stack([b.predict(d).astype(np.float64) for b in self.boosters_])
        return _plugin_scores(eta, None, self.prior_, self._spec())
