"""AP-oriented training of an MLP scorer on query-grouped data (HAP-VR; docs/theory.md §8, §11).

HAP-VR (Liu et al., ACM MM 2024) trains video similarities with the QuadLinear-AP loss and argues
that Smooth-AP's sigmoid step gives vanishing gradients to badly mis-ranked pairs. This module
carries that comparison over to learning to rank with a pointwise MLP scorer:

* :func:`train_listwise_mlp` — one query = one list; batches of whole queries are padded and the
  loss sees a ``where`` mask. Losses: ``"quadlinear_ap"``, ``"smooth_ap"`` and
  ``"pairwise_logistic"``, all from :mod:`bipartite.surrogates` (the one implementation).
  (:class:`bipartite.learners.MLPRanker` trains pairwise multi-label objectives and has no AP
  losses, hence this separate trainer.)
* :func:`pair_gradients` and :func:`vanishing_shares` — the per-pair gradient ``∂L/∂d_ji`` of a
  loss (``d_ji = s_j − s_i``, j negative, i positive) and the share of mis-ranked pairs whose
  gradient is near zero, the quantity behind HAP-VR Fig. 4.
* :func:`ranking_report` — per-query AP, NDCG@10, group AUC and pooled AUC of a scorer.
* :func:`make_retrieval` — a synthetic retrieval problem with ragged query lists.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from numpy.typing import ArrayLike
from sklearn.utils import Bunch

from bipartite._utils.validation import (
    UndefinedMetricWarning,
    check_array,
    check_binary,
    check_consistent_length,
    check_group_ids,
    check_option,
    check_positive,
    check_qid,
    check_random_state,
    check_real,
    require_qid,
)
from bipartite.learners.nets import make_mlp
from bipartite.learners.torch_estimator import TorchEstimator, in_range, one_of, positive
from bipartite.metrics import QueryRows

__all__ = [
    "AP_LOSSES",
    "ListwiseMLP",
    "train_listwise_mlp",
    "pair_gradients",
    "vanishing_shares",
    "ranking_report",
    "make_retrieval",
]

AP_LOSSES = ("quadlinear_ap", "smooth_ap", "pairwise_logistic")
_TRANSFORMS = ("tanh", "none")


# ----------------------------------------------------------------------------------------------
# Losses and their per-pair gradients
# ----------------------------------------------------------------------------------------------


def _check_loss_options(loss: str, delta: float, rho: float, tau: float) -> None:
    check_option(loss, "loss", AP_LOSSES)
    check_positive(delta, "delta")
    check_positive(rho, "rho", allow_zero=True)
    check_positive(tau, "tau")


def _loss_value(scores: torch.Tensor, labels: torch.Tensor, where: torch.Tensor, loss: str,
                delta: float, rho: float, tau: float) -> torch.Tensor:
    """The batch loss: mean over queries with a positive (AP losses), mean over pairs (pairwise)."""
    from bipartite import surrogates

    if loss == "quadlinear_ap":
        return surrogates.quadlinear_ap_loss(scores, labels, delta=delta, rho=rho, where=where)
    if loss == "smooth_ap":
        return surrogates.smooth_ap_loss(scores, labels, tau=tau, where=where)
    return surrogates.pairwise_loss(scores, labels, kind="logistic", where=where)


def _pair_step(loss: str, delta: float, tau: float) -> Callable[[torch.Tensor], torch.Tensor]:
    """The loss's function of one positive-negative difference d = s_neg − s_pos (its "step")."""
    from bipartite import surrogates

    # check_input=False: d is a finite difference of scores checked by prepare_inputs (possibly
    # an empty batch), so the per-call checks of x are skipped in this hot loop.
    if loss == "quadlinear_ap":
        return lambda d: surrogates.quadlinear(d, delta, check_input=False)
    if loss == "smooth_ap":
        # Smooth-AP's step G(d; τ) (HAP-VR Eq. 7), as in surrogates.smooth_ap_loss.
        return lambda d: surrogates.sigmoid_step(d, tau, check_input=False)
    # pairwise logistic: φ(f_pos − f_neg) with f_pos − f_neg = −d
    phi = surrogates.make_pair_loss("logistic")
    return lambda d: phi(-d)


def pair_gradients(
    scores: torch.Tensor | ArrayLike,
    labels: torch.Tensor | ArrayLike,
    *,
    loss: str = "quadlinear_ap",
    where: torch.Tensor | ArrayLike | None = None,
    delta: float = 0.05,
    rho: float = 1.0,
    tau: float = 0.01,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-pair gradient ``G[..., i, j] = ∂L/∂d_ji`` of a batch loss (docs/theory.md §8; HAP-VR §3.3.2).

    ``L`` is the loss as :func:`train_listwise_mlp` minimises it (mean over queries for the AP
    losses, mean over pairs for the pairwise one) and ``d_ji = s_j − s_i`` for a positive i and a
    negative j of the same query. The gradient is taken with the pair difference as an independent
    variable: a zero perturbation ``E[..., i, j]`` is added to ``d_ji`` inside the loss's public
    building block (:func:`bipartite.surrogates.ap_loss` / ``pairwise_loss(..., pair_loss_fn)``) and ``∂L/∂E`` is
    read off by autograd, so the loss itself is not re-implemented. Consistency check (tested):
    ``Σ_i G[..., i, j] = ∂L/∂s_j`` for every negative j.

    For QuadLinear-AP, ``∂L/∂d_ji = h'(x_i) R⁻'(d_ji) / (B |S⁺_q| (1 + ρ P_i))`` with
    ``x_i = N_i / (1 + ρ P_i)`` and B the number of queries with a positive in the batch: R⁻' never vanishes on mis-ranked pairs, but ``h'(x) = 1/(1+x)²``
    does when a positive has many negatives far above it.

    Parameters
    ----------
    scores, labels : array-like or tensor [..., n_items] (labels binary)
    loss : {"quadlinear_ap", "smooth_ap", "pairwise_logistic"}
    where : bool [..., n_items], optional

    Returns
    -------
    (G, pairs) : tensors [..., n_items, n_items]; ``pairs`` is the boolean mask of valid
    (positive i, negative j) pairs and ``G`` is 0 elsewhere.

    >>> G, pairs = pair_gradients([0.0, 0.1], [1.0, 0.0], loss="quadlinear_ap", delta=0.1)
    >>> round(G[0, 1].item(), 4)  # h'(R(0.1)) R'(0.1) = 20 / (1 + 3)^2
    1.25
    """
    from bipartite import surrogates

    _check_loss_options(loss, delta, rho, tau)
    s, y, valid = surrogates.prepare_inputs(scores, labels, where, binary=True)
    s = s.detach().double()
    y = y.double()
    pos = (y > 0.5) & valid
    neg = (y < 0.5) & valid
    pairs = pos[..., :, None] & neg[..., None, :]
    E = torch.zeros(pairs.shape, dtype=s.dtype, device=s.device, requires_grad=True)
    step = _pair_step(loss, delta, tau)
    if loss == "pairwise_logistic":
        # the pair difference x_ij = f_i − f_j = −d_ji; perturb d_ji, i.e. x_ij − E_ij
        phi = surrogates.make_pair_loss("logistic")
        value = surrogates.pairwise_loss(s, y, where=valid, pair_loss_fn=lambda x: phi(x - E))
    else:
        pos_step = (surrogates.heaviside_gt if loss == "quadlinear_ap"
                    else (lambda d: surrogates.sigmoid_step(d, tau, check_input=False)))
        value = surrogates.ap_loss(s, y, where=valid, neg_step=lambda d: step(d + E),
                                   pos_step=pos_step,
                                   rho=float(rho) if loss == "quadlinear_ap" else 1.0)
    (G,) = torch.autograd.grad(value, E, allow_unused=False)
    return torch.where(pairs, G, torch.zeros_like(G)), pairs


def vanishing_shares(
    scores: torch.Tensor | ArrayLike,
    labels: torch.Tensor | ArrayLike,
    *,
    loss: str = "quadlinear_ap",
    where: torch.Tensor | ArrayLike | None = None,
    delta: float = 0.05,
    rho: float = 1.0,
    tau: float = 0.01,
    threshold: float = 1e-2,
) -> dict[str, float]:
    """Share of mis-ranked pairs with a near-zero gradient, two ways (HAP-VR Fig. 4; docs/theory.md §8).

    A pair (positive i, negative j) is *mis-ranked* when ``d_ji = s_j − s_i > 0``. Its gradient is
    *near zero*

    * ``"surrogate"`` view (HAP-VR Fig. 4b/4d): when the pair function's derivative is below
      ``threshold`` times its value at a tie, ``|φ'(d_ji)| < threshold · |φ'(0)|`` (φ = sigmoid
      G(·; τ) for Smooth-AP, R⁻(·; δ) for QuadLinear-AP, softplus for pairwise logistic).
      Scale-free; for QuadLinear and logistic it is 0 by construction (φ' ≥ φ'(0) for d ≥ 0); for
      the sigmoid it is the share of mis-ranked pairs with ``d ≳ τ · log(4 / threshold)``.
    * ``"full"`` view: when the gradient of the whole batch loss, ``|∂L/∂d_ji|``
      (:func:`pair_gradients`), is below ``threshold`` times its mean over the batch's mis-ranked
      pairs: the pairs that the loss, as a whole, all but ignores next to the other mis-ranked
      pairs. This includes the saturation of ``h(x) = x / (1 + x)`` in the AP losses: for
      QuadLinear-AP ``∂L/∂d_ji ∝ h'(x_i) R⁻'(d_ji) / (1 + ρ P_i)`` with ``h'(x) = 1/(1 + x)²``, so a
      positive far below many negatives gets little gradient even though ``R⁻' ≥ 2/δ``.

    Returns
    -------
    dict with ``misranked`` (share of the batch's positive–negative pairs that are mis-ranked),
    ``surrogate`` and ``full`` (shares of the mis-ranked pairs; NaN when there is none) and
    ``n_pairs``.

    >>> out = vanishing_shares([0.0, 0.5], [1.0, 0.0], loss="smooth_ap", tau=0.01)
    >>> out["misranked"], out["surrogate"], out["full"]
    (1.0, 1.0, 0.0)
    """
    if not (isinstance(threshold, (int, float)) and 0 < threshold < 1):
        raise ValueError(f"The 'threshold' parameter must be in (0, 1), got {threshold!r}.")
    G, pairs = pair_gradients(scores, labels, loss=loss, where=where, delta=delta, rho=rho,
                              tau=tau)
    s = (scores.detach() if isinstance(scores, torch.Tensor)
         else torch.as_tensor(np.asarray(scores, dtype=np.float64))).to(G.dtype)
    d = s[..., None, :] - s[..., :, None]  # d[..., i, j] = s_j − s_i
    mis = pairs & (d > 0)
    n_pairs = int(pairs.sum())
    n_mis = int(mis.sum())
    out = {"n_pairs": float(n_pairs), "misranked": n_mis / n_pairs if n_pairs else float("nan")}
    if n_mis == 0:
        out.update(surrogate=float("nan"), full=float("nan"))
        return out
    step = _pair_step(loss, delta, tau)
    dm = d[mis].clone().requires_grad_(True)
    (dphi,) = torch.autograd.grad(step(dm).sum(), dm)
    zero = torch.zeros(1, dtype=d.dtype, requires_grad=True)
    (dphi0,) = torch.autograd.grad(step(zero).sum(), zero)
    out["surrogate"] = float((dphi.abs() < threshold * dphi0.abs()).double().mean())
    full = G.abs()[mis]
    out["full"] = float((full < threshold * full.mean()).double().mean())
    return out


# ----------------------------------------------------------------------------------------------
# The scorer and its trainer
# ----------------------------------------------------------------------------------------------


class ListwiseMLP(TorchEstimator):
    """MLP scorer trained listwise with an AP surrogate or the pairwise logistic loss
    (docs/theory.md §8, §11; HAP-VR).

    Each query is one list; ``queries_per_batch`` queries are padded to the longest one and the
    loss gets the ``where`` mask (padded items take part in no pair). Queries without a positive or
    without a negative hold no ranking pair and are left out of training. Inputs are standardised.

    Losses (from :mod:`bipartite.surrogates`):

    * ``"quadlinear_ap"`` — QuadLinear-AP (HAP-VR Eq. 11–12) with ``delta``, ``rho``;
    * ``"smooth_ap"`` — Smooth-AP with temperature ``tau``;
    * ``"pairwise_logistic"`` — mean over the batch's positive–negative pairs of
      ``log(1 + e^{−(s_pos − s_neg)})``.

    ``score_transform="tanh"`` (default) squashes scores into (−1, 1), the range of the cosine
    similarities HAP-VR ranks, so that δ and τ keep their meaning (an unbounded scorer could
    rescale its scores and make any fixed τ or δ arbitrarily small or large).

    Parameters
    ----------
    loss : {"quadlinear_ap", "smooth_ap", "pairwise_logistic"}
    delta, rho, tau : loss options (δ > 0, ρ >= 0, τ > 0).
    hidden : tuple of int; score_transform : {"tanh", "none"}.
    epochs, queries_per_batch, lr, weight_decay : training settings (AdamW).
    track_every : int
        Every ``track_every`` optimisation steps record :func:`vanishing_shares` of the current
        batch (with ``vanish_threshold``, in (0, 1)); 0 disables.
    device : "auto" (CUDA when available), a torch device string or a ``torch.device``.
    n_jobs : int or None — torch CPU threads during fit and prediction (None = 1, -1 = all cores).
    random_state : None, int or Generator — seeds initialisation and batch order; with an int the
        fit is deterministic on CPU.

    Attributes
    ----------
    net_, mean_, scale_, device_, n_features_in_; ``history_`` holds per-step loss and, when
    tracked, the vanishing shares; ``epoch_history_`` the per-epoch evaluation of ``eval_set``.

    >>> data = make_retrieval(10, seed=0)
    >>> model = ListwiseMLP(epochs=1, random_state=0).fit(data.X, data.y, data.qid)
    >>> model.decision_function(data.X[:3]).shape
    (3,)
    """

    _param_checks = {
        "loss": one_of(*AP_LOSSES),
        "delta": positive(),
        "rho": positive(allow_zero=True),
        "tau": positive(),
        "score_transform": one_of(*_TRANSFORMS),
        "queries_per_batch": positive(integer=True),
        "track_every": positive(integer=True, allow_zero=True),
        "vanish_threshold": in_range(0, 1, low_closed=False),
    }

    def __init__(
        self,
        *,
        loss: str = "quadlinear_ap",
        delta: float = 0.05,
        rho: float = 1.0,
        tau: float = 0.01,
        hidden: tuple[int, ...] = (64, 32),
        score_transform: str = "tanh",
        epochs: int = 30,
        queries_per_batch: int = 16,
        lr: float = 1e-3,
        weight_decay: float = 1e-4,
        track_every: int = 0,
        vanish_threshold: float = 1e-2,
        device: str = "auto",
        n_jobs: int | None = None,
        random_state: int | np.random.Generator | None = None,
    ) -> None:
        self.loss = loss
        self.delta = delta
        self.rho = rho
        self.tau = tau
        self.hidden = hidden
        self.score_transform = score_transform
        self.epochs = epochs
        self.queries_per_batch = queries_per_batch
        self.lr = lr
        self.weight_decay = weight_decay
        self.track_every = track_every
        self.vanish_threshold = vanish_threshold
        self.device = device
        self.n_jobs = n_jobs
        self.random_state = random_state

    def fit(self, X: ArrayLike, y: ArrayLike, qid: ArrayLike | None = None, *,
            eval_set: tuple[ArrayLike, ArrayLike, ArrayLike] | None = None) -> ListwiseMLP:
        """Fit on features ``X`` (n, d), binary ``y`` (n,) and query ids ``qid`` (n,) (None:
        all rows form one list).

        ``eval_set=(X, y, qid)`` is evaluated after every epoch with :func:`ranking_report`
        (stored in ``epoch_history_``; no early stopping: the comparison is at a fixed budget).
        """
        with self._fitting() as fit:  # parameters, device_, n_jobs threads, seeded Generator
            X = check_array(X, "X", ndim=2)
            y = check_binary(y, "y")
            q = (np.zeros(len(y), dtype=np.int64) if qid is None
                 else check_group_ids(qid, "qid", allow_empty=True))
            check_consistent_length(X=X, y=y, qid=q)
            rows = QueryRows(q)
            n_pos = rows.reduce(np.add, y)
            keep = (n_pos > 0) & (n_pos < rows.sizes)
            if not keep.any():
                raise ValueError("No query has both a positive and a negative item: nothing to "
                                 "rank.")
            lists = [r for r, k in zip(rows.split(), keep, strict=True) if k]
            self._train(X, y, lists, eval_set, fit.device, fit.torch_seed(), fit.rng)
        return self

    def _scores_tensor(self, Xt: torch.Tensor) -> torch.Tensor:
        out = self.net_(Xt)[..., 0]
        return torch.tanh(out) if self.score_transform == "tanh" else out

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """Scores of the rows of ``X`` (n, d) -> (n,); higher ranks first."""
        self._check_fitted("net_")
        X = self._validate_features(X)
        with self._predicting("net_") as device, torch.no_grad():
            Xt = torch.as_tensor((X - self.mean_) / self.scale_, dtype=torch.float32,
                                 device=device)
            self.net_.eval()
            return self._scores_tensor(Xt).double().cpu().numpy()

    predict = decision_function

    def _train(self, X: np.ndarray, y: np.ndarray, lists: list[np.ndarray],
               eval_set: tuple[ArrayLike, ArrayLike, ArrayLike] | None, dev: torch.device,
               seed: int, rng: np.random.Generator) -> None:
        """The training loop of :meth:`fit` (inputs validated)."""
        loss, delta, rho, tau = self.loss, self.delta, self.rho, self.tau
        track_every, qpb = int(self.track_every), int(self.queries_per_batch)
        mean = X.mean(axis=0)
        scale = X.std(axis=0)
        self.mean_, self.scale_ = mean, np.where(scale > 0, scale, 1.0)
        self.n_features_in_ = X.shape[1]
        Xt = torch.as_tensor((X - mean) / self.scale_, dtype=torch.float32, device=dev)
        yt = torch.as_tensor(y, dtype=torch.float32, device=dev)

        net = self.net_ = make_mlp(X.shape[1], self.hidden, 1, seed=seed).to(dev)
        opt = torch.optim.AdamW(net.parameters(), lr=self.lr, weight_decay=self.weight_decay)
        history: dict[str, list[float]] = {"step": [], "loss": []}
        if track_every:
            history.update(misranked=[], vanish_surrogate=[], vanish_full=[])
        self.history_, self.epoch_history_ = history, []
        step = 0
        for epoch in range(int(self.epochs)):
            net.train()
            perm = rng.permutation(len(lists))
            for start in range(0, len(perm), qpb):
                idx = torch.as_tensor(_pad([lists[i] for i in perm[start:start + qpb]]),
                                      device=dev)
                where = idx >= 0
                safe = idx.clamp(min=0)
                scores = self._scores_tensor(Xt[safe])
                labels = torch.where(where, yt[safe], torch.zeros_like(yt[safe]))
                value = _loss_value(scores, labels, where, loss, delta, rho, tau)
                opt.zero_grad(set_to_none=True)
                value.backward()
                opt.step()
                step += 1
                history["step"].append(step)
                history["loss"].append(value.item())
                if track_every and step % track_every == 0:
                    v = vanishing_shares(scores.detach(), labels, loss=loss, where=where,
                                         delta=delta, rho=rho, tau=tau,
                                         threshold=self.vanish_threshold)
                    history["misranked"].append(v["misranked"])
                    history["vanish_surrogate"].append(v["surrogate"])
                    history["vanish_full"].append(v["full"])
                elif track_every:
                    for key in ("misranked", "vanish_surrogate", "vanish_full"):
                        history[key].append(float("nan"))
            if eval_set is not None:
                Xe, ye, qe = eval_set
                rep = ranking_report(ye, self.decision_function(Xe), qe)
                self.epoch_history_.append({"epoch": epoch + 1, "step": step, **rep})
        net.eval()

def _pad(lists: list[np.ndarray]) -> np.ndarray:
    m = max(len(r) for r in lists)
    idx = np.full((len(lists), m), -1, dtype=np.int64)
    for r, rows in enumerate(lists):
        idx[r, :len(rows)] = rows
    return idx


def train_listwise_mlp(
    X: ArrayLike,
    y: ArrayLike,
    qid: ArrayLike,
    *,
    eval_set: tuple[ArrayLike, ArrayLike, ArrayLike] | None = None,
    **options: Any,
) -> ListwiseMLP:
    """Train an MLP scorer with an AP surrogate or the pairwise logistic loss (docs/theory.md §8, §11).

    ``ListwiseMLP(**options).fit(X, y, qid, eval_set=eval_set)``: see :class:`ListwiseMLP` for
    the losses and the options.

    Parameters
    ----------
    X : array-like (n, d); y : array-like (n,) binary; qid : array-like (n,) query ids.
    eval_set : (X, y, qid), optional — evaluated after every epoch with :func:`ranking_report`
        (stored in ``epoch_history_``; no early stopping: the comparison is at a fixed budget).
    **options : the parameters of :class:`ListwiseMLP` (``loss``, ``epochs``, ``random_state``,
        ...), with its defaults (the class is their one home).

    Returns
    -------
    ListwiseMLP (fitted)

    >>> data = make_retrieval(10, seed=0)
    >>> model = train_listwise_mlp(data.X, data.y, data.qid, epochs=1, random_state=0)
    >>> model.decision_function(data.X[:3]).shape
    (3,)
    """
    model = ListwiseMLP(**options)
    return model.fit(X, y, qid, eval_set=eval_set)

# ----------------------------------------------------------------------------------------------
# Evaluation and data
# ----------------------------------------------------------------------------------------------


def ranking_report(y: ArrayLike, scores: torch.Tensor | ArrayLike, qid: ArrayLike, *, relevance: ArrayLike | None = None,
                   k: int = 10) -> dict[str, float]:
    """Per-query ranking metrics of one scorer (docs/theory.md §2, §8).

    * ``map`` — mean over queries of the average precision (ties as sklearn), over the queries with
      at least one positive (a query without positives has no AP; LETOR tools differ here);
    * ``ndcg@k`` — mean NDCG@k (exponential gain) of ``relevance`` (default: ``y``) over queries
      with a relevant item (:func:`bipartite.metrics.ndcg_at_k`);
    * ``gauc`` — group AUC weighted by pairs (:func:`bipartite.metrics.group_auc`);
    * ``auc`` — pooled AUC over all rows.

    >>> rep = ranking_report([1, 0, 0, 1], [0.9, 0.2, 0.5, 0.1], [0, 0, 1, 1])
    >>> rep["map"], rep["gauc"]
    (0.75, 0.5)
    """
    from bipartite.metrics import auc, grouped_stats, ndcg_at_k

    qid, _ = require_qid(qid, None, "ranking_report")
    yb = check_binary(y, "y")
    s = check_array(scores, "scores", ndim=1, exact_integers="order")
    check_consistent_length(y=yb, scores=s)
    codes = check_qid(qid, len(yb), "qid", ref="y")
    rel = yb if relevance is None else check_array(relevance, "relevance", ndim=1)
    check_consistent_length(y=yb, relevance=rel)
    st = grouped_stats(yb[:, None], s, codes, check_input=False)  # one sort: AP and gAUC
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return {
            "map": float(st.mean_ap()[0]),
            f"ndcg@{k}": ndcg_at_k(rel, s, k=k, qid=codes),
            "gauc": float(st.gauc("pairs")[0]),
            "auc": auc(yb, s),
        }


#: Size limit of :func:`make_retrieval`: at most ``10**8`` entries (800 MB of float64) in ``X``,
#: bounded by ``n_queries * items_range[1] * n_features``, unless ``max_entries`` is raised;
#: checked before anything is allocated.
MAX_ENTRIES = 100_000_000


def make_retrieval(
    n_queries: int = 100,
    *,
    items_range: tuple[int, int] = (20, 60),
    n_features: int = 10,
    positive_rate: float = 0.1,
    noise: float = 0.5,
    seed: int | np.random.Generator | None = None,
    max_entries: int = MAX_ENTRIES,
) -> Bunch:
    """Synthetic retrieval: ragged query lists with few relevant items (HAP-VR setting, §11).

    Query q has ``m_q`` items (uniform in ``items_range``) with features ``x ~ N(0, I_d)``. The
    latent relevance is ``r = x_0 + x_1 x_2 + 0.5 (x_3² − 1) − 0.5 x_4`` plus Gaussian noise of std
    ``noise``; the ``⌈positive_rate · m_q⌉`` items with the largest noisy relevance are positive.
    Features 5.. are distractors, and feature 0 is shown shifted by a per-query offset
    ``c_q ~ N(0, 1)`` (a linear term, so within-query order is unchanged while pooled scores are
    not comparable across queries).

    ``noise = 0`` is allowed: a noiseless generator, whose positives are exactly the top items by
    latent relevance. ``positive_rate`` is a number in (0, 1).

    Size limit: ``X`` has at most ``n_queries * items_range[1] * n_features`` entries; more than
    ``max_entries`` (default ``MAX_ENTRIES = 10**8``, 800 MB of float64) is refused before
    anything is allocated. Raise ``max_entries`` deliberately for more.

    Returns
    -------
    Bunch with ``X`` (n, d), ``y`` (n,) int, ``qid`` (n,), ``relevance`` (n,) = ``y``.

    >>> data = make_retrieval(5, seed=0)
    >>> data.X.shape[1], sorted(set(data.y.tolist()))
    (10, [0, 1])
    """
    if not isinstance(n_queries, (int, np.integer)) or n_queries < 1:
        raise ValueError(f"The 'n_queries' parameter must be a positive int, got {n_queries!r}.")
    lo, hi = items_range
    if not (isinstance(lo, (int, np.integer)) and isinstance(hi, (int, np.integer))
            and 2 <= lo <= hi):
        raise ValueError(f"The 'items_range' parameter must be (lo, hi) ints with 2 <= lo <= hi, "
                         f"got {items_range!r}.")
    if not isinstance(n_features, (int, np.integer)) or n_features < 5:
        raise ValueError(f"The 'n_features' parameter must be an int >= 5, got {n_features!r}.")
    limit = check_positive(max_entries, "max_entries", integer=True)
    size = int(n_queries) * int(hi) * int(n_features)
    if size > limit:
        raise ValueError(
            f"The 'n_queries' ({n_queries}), 'items_range' ({items_range!r}) and 'n_features' "
            f"({n_features}) parameters give up to {size} entries in X, more than the limit "
            f"max_entries = {limit}; lower them or raise 'max_entries' deliberately."
        )
    if not 0 < check_real(positive_rate, "positive_rate") < 1:
        raise ValueError(f"The 'positive_rate' parameter must be in (0, 1), got {positive_rate!r}.")
    noise = check_positive(noise, "noise", allow_zero=True)
    rng = check_random_state(seed)
    sizes = rng.integers(lo, hi + 1, size=n_queries)
    qid = np.repeat(np.arange(n_queries), sizes)
    Z = rng.normal(size=(len(qid), n_features))
    offsets = rng.normal(size=n_queries)
    r = Z[:, 0] + Z[:, 1] * Z[:, 2] + 0.5 * (Z[:, 3] ** 2 - 1) - 0.5 * Z[:, 4]
    r = r + noise * rng.normal(size=len(qid))
    y = np.zeros(len(qid), dtype=int)
    start = 0
    for m in sizes:
        n_pos = int(np.ceil(positive_rate * m))
        top = np.argsort(-r[start:start + m], kind="stable")[:n_pos]
        y[start + top] = 1
        start += m
    X = Z.copy()
    X[:, 0] += offsets[qid]
    return Bunch(X=X, y=y, qid=qid, relevance=y.astype(float))
