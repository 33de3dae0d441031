"""Label ranking with ranked labels: RLSEP (docs/theory.md §8, §11; RLSEP §3–§5).

Three pieces of RLSEP (Dari et al.):

* :func:`importance_to_ranks` and :func:`make_ranked_labels` — the rank construction of RLSEP
  §3.1 and a seeded synthetic analogue of the "Ranked MNIST" data set (each instance holds a random
  set of relevant labels with continuous importances, the analogue of digit sizes; the features are
  noisy mixtures of per-label presence and importance signals).
* :class:`LabelRankingMLP` — a scorer ``f: R^d -> R^K`` (one score per label) trained with the
  softmax cross-entropy of RLSEP Eq. 1 (``"ce"``), per-label binary cross-entropy (``"bce"``),
  LSEP (RLSEP Eq. 3) or RLSEP (RLSEP Eq. 6). The LSEP/RLSEP formulas live in
  :mod:`bipartite.surrogates` (docs/theory.md §8); this module only calls them.
* :class:`ThresholdNetwork` — the label-selection network of RLSEP §3.4: a small MLP
  ``g: R^q -> R^K`` on the scorer's last hidden layer, trained with binary cross-entropy on
  ``sigmoid(f_j(x) - g_j(x))`` so that label ``j`` is predicted relevant iff ``f_j(x) > g_j(x)``.

The ranked and unranked metrics of RLSEP §5.3 are in :mod:`bipartite.ranked_metrics`.

The estimators derive from :class:`bipartite.learners.TorchEstimator` (device, threads, seeding
and parameter checks).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from sklearn.utils import Bunch

from bipartite._utils.validation import (
    check_array,
    check_binary,
    check_consistent_length,
    check_nonnegative,
    check_positive,
    check_random_state,
    check_tolerance,
)
from bipartite.contrib._epochs import minibatch_epochs
from bipartite.learners.nets import make_mlp, split_head
from bipartite.learners.torch_estimator import TorchEstimator, fitted, one_of, optional, positive

__all__ = [
    "LabelRankingMLP",
    "ThresholdNetwork",
    "importance_to_ranks",
    "make_ranked_labels",
]

_LOSSES = ("ce", "bce", "lsep", "rlsep")


# --------------------------------------------------------------------------------------------------
# ranks and the synthetic generator
# --------------------------------------------------------------------------------------------------
def _dense_ranks(importance: np.ndarray, atol: float) -> np.ndarray:
    """Kernel of :func:`importance_to_ranks` (rows processed one at a time; K is small)."""
    ranks = np.zeros(importance.shape, dtype=np.int64)
    for i, row in enumerate(importance):
        pos = np.flatnonzero(row > 0)
        if pos.size == 0:
            continue
        order = pos[np.argsort(row[pos], kind="stable")]
        vals = row[order]
        # a new rank level starts where the gap to the previous (sorted) value exceeds atol
        level = np.cumsum(np.r_[True, np.diff(vals) > atol])
        ranks[i, order] = level
    return ranks


def importance_to_ranks(importance: ArrayLike, *, atol: float = 0.0) -> np.ndarray:
    """Label ranks from label importances, as in RLSEP §3.1.

    Labels with importance ``<= 0`` (absent / irrelevant labels) get rank 0. The relevant labels
    get ranks ``1, 2, ...`` by increasing importance, "iteratively assigned by increasing the
    ongoing minimum by one": ranks are dense, and only the order is kept (``s_2 >> s_1 > s_3``
    gives ``r_2 - r_1 = r_1 - r_3``). Importances within ``atol`` of the previous one in sorted
    order share a rank (the paper's ``s_u ~ s_v``). docs/theory.md §11 (RLSEP).

    Parameters
    ----------
    importance : array-like of shape (n, K)
        Non-negative importances; 0 marks an irrelevant label.
    atol : float, default 0
        Tie tolerance between consecutive sorted importances.

    Returns
    -------
    ranks : ndarray of int64, shape (n, K)

    >>> importance_to_ranks([[0.0, 3.5, 1.2, 9.0], [2.0, 0.0, 2.05, 0.0]], atol=0.1).tolist()
    [[0, 2, 1, 3], [1, 0, 1, 0]]
    """
    imp = check_array(importance, "importance", ndim=2)
    check_nonnegative(imp, "importance")
    atol = check_tolerance(atol, "atol")
    return _dense_ranks(imp, atol)


#: Size limit of :func:`make_ranked_labels`: at most ``10**8`` entries (800 MB of float64) in
#: its largest array, ``n_samples * max(n_labels, n_features)`` (or ``n_labels * n_features``),
#: unless ``max_entries`` is raised; checked before anything is allocated.
MAX_ENTRIES = 100_000_000


def make_ranked_labels(
    n_samples: int = 1000,
    n_labels: int = 10,
    n_features: int = 32,
    *,
    min_relevant: int = 3,
    max_relevant: int = 6,
    importance_range: tuple[float, float] = (1.0, 4.0),
    presence_strength: float = 2.0,
    noise: float = 0.3,
    seed: int | np.random.Generator | None = None,
    max_entries: int = MAX_ENTRIES,
) -> Bunch:
    """Synthetic ranked multi-label data, the analogue of RLSEP's Ranked MNIST (§5.1).

    For each instance, the number of relevant labels ``m`` is uniform on
    ``{min_relevant, ..., max_relevant}`` and the relevant set is a uniform ``m``-subset of the
    ``K`` labels (the digits in an image). Each relevant label gets an importance
    ``s ~ U(importance_range)`` (the digit's scale factor ``U(1, 4)``); irrelevant labels have
    importance 0. Ranks follow :func:`importance_to_ranks`. The features are

        ``x = sum_k 1[k relevant] * (presence_strength * a_k + (s_k - s_mid) * b_k) + noise * eps``

    with fixed random directions ``a_k, b_k ~ N(0, I_d / d)``, ``eps ~ N(0, I_d)`` and ``s_mid``
    the midpoint of ``importance_range``. Presence and importance are both linearly encoded, so the
    features are informative about both; the importance signal is centred, so that on average it
    says nothing about presence (as a digit's size says nothing about which digit it is): a model
    trained on presence alone has no reason to order the relevant labels by importance.
    docs/theory.md §11 (RLSEP).

    Size limit: the largest array, ``n_samples * max(n_labels, n_features)`` entries (or
    ``n_labels * n_features``), must not exceed ``max_entries`` (default ``MAX_ENTRIES = 10**8``,
    800 MB of float64); it is checked before anything is allocated. Raise ``max_entries``
    deliberately for a larger data set.

    Returns
    -------
    Bunch with ``X`` (n, d) float64, ``ranks`` (n, K) int64, ``importance`` (n, K) float64,
    ``Y`` (n, K) float64 in {0, 1} (``ranks > 0``).

    >>> data = make_ranked_labels(5, 4, 3, min_relevant=1, max_relevant=3, seed=0)
    >>> data.X.shape, data.ranks.shape, bool(((data.ranks > 0) == (data.Y == 1)).all())
    ((5, 3), (5, 4), True)
    """
    for name, val in (("n_samples", n_samples), ("n_labels", n_labels),
                      ("n_features", n_features)):
        if not isinstance(val, (int, np.integer)) or val < 1:
            raise ValueError(f"The '{name}' parameter must be a positive integer, got {val!r}.")
    limit = check_positive(max_entries, "max_entries", integer=True)
    size = max(int(n_samples) * max(int(n_labels), int(n_features)),
               int(n_labels) * int(n_features))
    if size > limit:
        raise ValueError(
            f"The 'n_samples' ({n_samples}), 'n_labels' ({n_labels}) and 'n_features' "
            f"({n_features}) parameters give arrays of {size} entries, more than the limit "
            f"max_entries = {limit}; lower them or raise 'max_entries' deliberately."
        )
    if not (isinstance(min_relevant, (int, np.integer)) and isinstance(max_relevant,
                                                                      (int, np.integer))
            and 0 <= min_relevant <= max_relevant <= n_labels):
        raise ValueError(
            "The 'min_relevant' and 'max_relevant' parameters must be integers with "
            f"0 <= min_relevant <= max_relevant <= n_labels={n_labels}, "
            f"got {min_relevant!r} and {max_relevant!r}."
        )
    lo, hi = (float(v) for v in importance_range)
    if not (0 < lo <= hi and np.isfinite(hi)):
        raise ValueError(
            f"The 'importance_range' parameter must be (low, high) with 0 < low <= high, "
            f"got {importance_range!r}."
        )
    if noise < 0 or presence_strength < 0:
        raise ValueError(
            f"The 'noise' and 'presence_strength' parameters must be >= 0, "
            f"got {noise!r} and {presence_strength!r}."
        )
    rng = check_random_state(seed)
    K, d = int(n_labels), int(n_features)
    A = rng.normal(scale=1.0 / np.sqrt(d), size=(K, d))
    B = rng.normal(scale=1.0 / np.sqrt(d), size=(K, d))
    m = rng.integers(min_relevant, max_relevant + 1, size=n_samples)
    # uniform m-subsets: the labels with the m smallest uniform keys
    keys = rng.random((n_samples, K))
    order_rank = np.argsort(np.argsort(keys, axis=1), axis=1)
    Y = (order_rank < m[:, None]).astype(np.float64)
    importance = Y * rng.uniform(lo, hi, size=(n_samples, K))
    centred = Y * (importance - 0.5 * (lo + hi))
    X = (presence_strength * Y) @ A + centred @ B + noise * rng.normal(size=(n_samples, d))
    ranks = _dense_ranks(importance, 0.0)
    return Bunch(X=X, ranks=ranks, importance=importance, Y=Y)


# --------------------------------------------------------------------------------------------------
# the label-ranking scorer
# --------------------------------------------------------------------------------------------------
class LabelRankingMLP(TorchEstimator):
    """MLP label scorer ``f(x) in R^K`` trained with CE, BCE, LSEP or RLSEP (RLSEP §3–§4).

    Losses (docs/theory.md §8, §11):

    * ``"ce"`` — RLSEP Eq. 1: softmax cross-entropy against ``p(y_j|x) = 1/|Y|`` on the relevant
      labels (instances without a relevant label contribute 0);
    * ``"bce"`` — per-label binary cross-entropy with logits on ``Y = 1[rank > 0]``;
    * ``"lsep"`` — LSEP (RLSEP Eq. 3) on ``Y = 1[rank > 0]``, via
      :func:`bipartite.surrogates.lsep_loss`;
    * ``"rlsep"`` — RLSEP (RLSEP Eq. 6) on the ranks, via :func:`bipartite.surrogates.rlsep_loss`.

    CE, BCE and LSEP see only the relevant/irrelevant split; RLSEP sees the ranks. Training: Adam
    (the paper uses SGD with momentum and early stopping on a CNN; on small MLPs Adam converges in
    far fewer epochs), mini-batches, weight decay (the ``R(θ)`` of RLSEP Eq. 5), float64.
    Deterministic on CPU for a fixed ``random_state``; ``device="auto"`` picks CUDA when available.

    Parameters
    ----------
    loss : {"ce", "bce", "lsep", "rlsep"}
    hidden : tuple of int, default (64,)
        Hidden layer widths; the last one is the feature layer used by :class:`ThresholdNetwork`.
    epochs, batch_size, lr, weight_decay : training settings.
    num_pairs : int or None
        Size ``t`` of the random pair subset in LSEP/RLSEP (None: all pairs).
    random_state : None, int or numpy Generator
    device : "auto", "cpu", "cuda", ... or a ``torch.device``
    n_jobs : int or None
        torch CPU threads during fit and prediction (None = 1, -1 = all cores).

    Examples
    --------
    >>> data = make_ranked_labels(200, 4, 6, min_relevant=1, max_relevant=3, noise=0.1, seed=0)
    >>> model = LabelRankingMLP(loss="rlsep", hidden=(16,), epochs=5, random_state=0)
    >>> model.fit(data.X, data.ranks).decision_function(data.X).shape
    (200, 4)
    """

    def __init__(
        self,
        *,
        loss: str = "rlsep",
        hidden: tuple[int, ...] = (64,),
        epochs: int = 100,
        batch_size: int = 64,
        lr: float = 1e-3,
        weight_decay: float = 1e-5,
        num_pairs: int | None = None,
        random_state: int | np.random.Generator | None = None,
        device: str = "auto",
        n_jobs: int | None = None,
    ) -> None:
        self.loss = loss
        self.hidden = hidden
        self.epochs = epochs
        self.batch_size = batch_size
        self.lr = lr
        self.weight_decay = weight_decay
        self.num_pairs = num_pairs
        self.random_state = random_state
        self.device = device
        self.n_jobs = n_jobs

    _param_checks = {"loss": one_of(*_LOSSES), "num_pairs": optional(positive(integer=True))}

    def __sklearn_tags__(self):
        from sklearn.utils import TransformerTags

        tags = super().__sklearn_tags__()
        tags.transformer_tags = TransformerTags()  # transform: the feature layer (RLSEP §3.4)
        tags.target_tags.multi_output = True
        return tags

    # -- helpers ------------------------------------------------------------------------------

    def _loss_fn(self, scores, target, gen):
        import torch.nn.functional as F

        if self.loss == "rlsep":
            from bipartite.surrogates import rlsep_loss

            return rlsep_loss(scores, target, num_pairs=self.num_pairs, generator=gen,
                              reduction="mean")
        y = (target > 0).to(scores.dtype)
        if self.loss == "lsep":
            from bipartite.surrogates import lsep_loss

            return lsep_loss(scores, y, num_pairs=self.num_pairs, generator=gen, reduction="mean")
        if self.loss == "bce":
            # y·log(1 + e^{−x}) + (1 − y)·log(1 + e^{x}) as log-sigmoids: exact in float64 for any
            # |x| (BCE-with-logits forms x − log σ(x), which cancels to 0 for x ≪ 0)
            return -(y * F.logsigmoid(scores) + (1 - y) * F.logsigmoid(-scores)).mean()
        # RLSEP Eq. 1: targets 1/|Y_i| on the relevant labels (rows with no relevant label -> 0)
        count = y.sum(dim=1, keepdim=True)
        p = y / count.clamp(min=1.0)
        return F.cross_entropy(scores, p, reduction="sum") / scores.shape[0]

    def _forward(self, X):
        return self.head_(self.body_(X))

    # -- API ----------------------------------------------------------------------------------
    def fit(self, X: ArrayLike, ranks: ArrayLike) -> LabelRankingMLP:
        """Fit on features ``X`` (n, d) and label ranks ``ranks`` (n, K) (0 = irrelevant).

        For ``"ce"``, ``"bce"`` and ``"lsep"`` only ``ranks > 0`` is used; binary labels are valid
        ranks, so a plain multi-label ``Y`` can be passed too.
        """
        import torch

        from bipartite.ranked_metrics import check_ranks

        with self._fitting() as fit:  # parameters, device_, n_jobs threads, seeded Generator
            Xa = check_array(X, "X", ndim=2)
            R = check_ranks(ranks)
            check_consistent_length(X=Xa, ranks=R)
            dev = fit.device
            self.n_features_in_, self.n_labels_ = Xa.shape[1], R.shape[1]
            body, head = split_head(make_mlp(Xa.shape[1], self.hidden, R.shape[1],
                                             seed=fit.torch_seed(), dtype=torch.float64))
            self.body_, self.head_ = body.to(dev), head.to(dev)
            gen = fit.torch_generator()  # the pair subsets of LSEP/RLSEP
            Xt = torch.as_tensor(Xa, device=dev)
            Rt = torch.as_tensor(R.astype(np.float64), device=dev)
            params = list(self.body_.parameters()) + list(self.head_.parameters())
            opt = torch.optim.Adam(params, lr=self.lr, weight_decay=self.weight_decay)
            self.loss_curve_ = minibatch_epochs(
                opt, lambda ii: self._loss_fn(self._forward(Xt[ii]), Rt[ii], gen), len(Xt),
                epochs=self.epochs, batch_size=self.batch_size, rng=fit.rng, device=dev)
        return self

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """Label scores ``f(x)``, shape (n, K); larger = more important."""
        import torch

        with self._predicting("body_") as dev, torch.no_grad():
            return self._forward(self._feature_tensor(X, dev)).cpu().numpy()

    def transform(self, X: ArrayLike) -> np.ndarray:
        """The last hidden layer ``f_feat(x)`` (RLSEP §3.4), shape (n, hidden[-1])."""
        import torch

        with self._predicting("body_") as dev, torch.no_grad():
            return self.body_(self._feature_tensor(X, dev)).cpu().numpy()

    def predict_ranking(self, X: ArrayLike) -> np.ndarray:
        """Label indices sorted by decreasing score, shape (n, K) (ties: lower index first)."""
        return np.argsort(-self.decision_function(X), axis=1, kind="stable")


# --------------------------------------------------------------------------------------------------
# label selection: the threshold network of RLSEP §3.4
# --------------------------------------------------------------------------------------------------
class ThresholdNetwork(TorchEstimator):
    """Per-instance, per-label thresholds for label selection (RLSEP §3.4; Li et al. 2017).

    With a fitted scorer ``f`` and its feature layer ``f_feat``, a small MLP
    ``g: R^q -> R^K`` is trained by minimising the binary cross-entropy

        ``-sum_i sum_j Y_ij log δ_ij + (1 - Y_ij) log(1 - δ_ij)``,
        ``δ_ij = sigmoid(f_j(x_i) - g_j(f_feat(x_i)))``

    (RLSEP Eq. 4 prints the log-likelihood under an ``argmin``; the minus sign is missing there).
    The scorer is frozen. Label ``j`` is predicted relevant iff ``f_j(x) > g_j(x)``, i.e.
    ``δ > 1/2``. Paper setting: a 2-layer network (``q x 128``, ``128 x K``), i.e.
    ``hidden=(128,)``. docs/theory.md §11 (RLSEP).

    Examples
    --------
    >>> data = make_ranked_labels(200, 4, 6, min_relevant=1, max_relevant=3, noise=0.1, seed=0)
    >>> ranker = LabelRankingMLP(loss="lsep", hidden=(16,), epochs=5, random_state=0)
    >>> ranker = ranker.fit(data.X, data.ranks)
    >>> thr = ThresholdNetwork(ranker, hidden=(16,), epochs=5, random_state=0)
    >>> thr.fit(data.X, data.Y).predict(data.X).shape
    (200, 4)
    """

    def __init__(
        self,
        ranker: LabelRankingMLP,
        *,
        hidden: tuple[int, ...] = (128,),
        epochs: int = 100,
        batch_size: int = 64,
        lr: float = 1e-3,
        weight_decay: float = 1e-5,
        random_state: int | np.random.Generator | None = None,
        device: str = "auto",
        n_jobs: int | None = None,
    ) -> None:
        self.ranker = ranker
        self.hidden = hidden
        self.epochs = epochs
        self.batch_size = batch_size
        self.lr = lr
        self.weight_decay = weight_decay
        self.random_state = random_state
        self.device = device
        self.n_jobs = n_jobs

    _param_checks = {"ranker": fitted(LabelRankingMLP, "body_")}

    def fit(self, X: ArrayLike, Y: ArrayLike) -> ThresholdNetwork:
        """Fit ``g`` on features ``X`` (n, d) and binary relevance ``Y`` (n, K)."""
        import torch
        import torch.nn.functional as F

        with self._fitting() as fit:  # parameters, device_, n_jobs threads, seeded Generator
            Yb = check_binary(Y, "Y", ndim=2)
            feats = self.ranker.transform(X)
            scores = self.ranker.decision_function(X)
            check_consistent_length(X=feats, Y=Yb)
            if Yb.shape[1] != self.ranker.n_labels_:
                raise ValueError(f"The 'Y' parameter must have {self.ranker.n_labels_} columns, "
                                 f"got {Yb.shape[1]}.")
            rng, dev = fit.rng, fit.device
            body, head = split_head(make_mlp(feats.shape[1], self.hidden, Yb.shape[1],
                                             seed=fit.torch_seed(), dtype=torch.float64))
            self.body_, self.head_ = body.to(dev), head.to(dev)
            Ft = torch.as_tensor(feats, device=dev)
            St = torch.as_tensor(scores, device=dev)
            Yt = torch.as_tensor(Yb, device=dev)
            params = list(self.body_.parameters()) + list(self.head_.parameters())
            opt = torch.optim.Adam(params, lr=self.lr, weight_decay=self.weight_decay)

            def batch_loss(ii):
                g = self.head_(self.body_(Ft[ii]))
                # BCE as log-sigmoids of ±(f − g): threshold-free and exact in float64
                d, yy = St[ii] - g, Yt[ii]
                return -(yy * F.logsigmoid(d) + (1 - yy) * F.logsigmoid(-d)).mean()

            self.loss_curve_ = minibatch_epochs(opt, batch_loss, len(Yb), epochs=self.epochs,
                                                batch_size=self.batch_size, rng=rng, device=dev)
        return self

    def thresholds(self, X: ArrayLike) -> np.ndarray:
        """Thresholds ``g(f_feat(x))``, shape (n, K)."""
        import torch

        self._check_fitted("body_")
        feats = self.ranker.transform(X)
        with self._predicting("body_") as dev, torch.no_grad():
            return self.head_(self.body_(torch.as_tensor(feats, device=dev))).cpu().numpy()

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Selected labels ``1[f_j(x) > g_j(x)]``, shape (n, K), float64 in {0, 1}."""
        return (self.ranker.decision_function(X) > self.thresholds(X)).astype(np.float64)
