"""LR2PPO: ranking from partial-order pairs with a reward model and PPO (docs/theory.md §8, §11).

Guo et al., "Multimodal Label Relevance Ranking via Reinforcement Learning" (LR2PPO), carried to
learning-to-rank data (their MSLR-WEB10K -> MQ2008 experiment, Tab. 2): the items ranked for a
query are documents (the paper's labels of a clip), and the query is the paper's clip.

Three stages (paper §3.2, Algorithm B.1):

1. :class:`RelevanceRegressor` — the base "actor" ``f(x)``, an MLP trained on the *source*
   queries with the SmoothL1 loss on graded relevance (paper Eq. 3, ``β = 0.3``).
2. :class:`PairRewardModel` — a reward ``R(x_first, x_second)`` of an *ordered* pair, trained with
   the margin ranking loss ``max(0, m_R - (R(g_c) - R(flip(g_c))))`` (paper Eq. 4) on a fraction
   of the target queries' partial-order pairs plus pairs from the source queries.
3. :class:`LR2PPO` — PPO on the actor with the partial-order ratio (paper Eq. 7-9), the value loss
   (Eq. 10), an entropy bonus and a KL penalty to the stage-1 policy (Eq. 11).

The MDP (paper §3.2 with ``T = 1``, ``γ = 0`` as in their App. C.3):

* state ``s = (a, b)``: two documents of one target query in a random initial order (the paper's
  "initial label pair"); unannotated pairs are drawn at random;
* policy: the actor scores the two documents, ``p_a = f(x_a)``, ``p_b = f(x_b)``, and puts ``a``
  first with probability ``σ(p_a - p_b)`` — the Plackett-Luce (softmax) distribution over the
  orders of the pair, i.e. Bradley-Terry. ``sample_actions=False`` takes the greedy order
  (the paper's "ranks them from high to low");
* action: the reranked pair ``(first, second)``; reward ``r = R(x_first, x_second)``, minus
  ``c3 · KL(π_ref(·|s) || π_old(·|s))`` when the KL penalty is placed in the reward (the paper's
  choice, App. C.3; ``π_ref`` = the frozen stage-1 actor);
* critic: ``V(s) = V_ω(x_a, x_b)``, same architecture as the reward model and initialised from
  it (paper: "reward and critic networks are initialized with the stage 2 reward model");
* with ``T = 1, γ = 0``: ``V_target = r`` (Eq. 5) and ``Â = r - V_old(s)`` (Eq. 6).

Policy loss (Eq. 7-9) with ``p¹ = f(x_first)``, ``p² = f(x_second)`` under the current actor:
``r' = -max(0, m - (p¹ - p²))`` if ``Â ≥ δ`` else ``-max(0, m - (p² - p¹))``, and
``L_PF = -mean(r' |Â|)``: a good action (advantage above the small negative threshold ``δ``) is
reinforced with a margin, a bad one is reversed. ``max(0, m - (p¹ - p²))`` is
:func:`bipartite.surrogates.margin_ranking_loss` (one implementation). ``ratio="original"`` uses
PPO's clipped probability ratio instead (the paper's Fig. 3a ablation).

The pairs themselves (:func:`~bipartite.contrib.pairs.within_group_pairs`,
:func:`~bipartite.contrib.pairs.partial_order_pairs`) live in :mod:`bipartite.contrib.pairs`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from bipartite._utils.device import torch_threads
from bipartite._utils.validation import (
    check_array,
    check_consistent_length,
    check_dense_tensor,
    check_positive,
    check_random_state,
    check_real,
    require_qid,
)
from bipartite.contrib._epochs import minibatch_epochs
from bipartite.contrib.pairs import (
    MAX_PAIRS,
    check_pairs,
    pairs_within,
    partial_order_pairs,
    query_codes,
    within_group_pairs,
)
from bipartite.learners.nets import make_mlp, minibatches, split_head
from bipartite.learners.torch_estimator import (
    TorchEstimator,
    boolean,
    finite,
    fitted,
    one_of,
    positive,
)

if TYPE_CHECKING:
    import torch

__all__ = [
    "LR2PPO",
    "PairRewardModel",
    "RelevanceRegressor",
    "finetune_on_pairs",
    "partial_order_pairs",
    "partial_order_policy_loss",
    "within_group_pairs",
]


# --------------------------------------------------------------------------------------------------
# stage 1: the base actor
# --------------------------------------------------------------------------------------------------
class RelevanceRegressor(TorchEstimator):
    """Stage 1 of LR2PPO: an MLP scorer regressed on graded relevance with SmoothL1 (Eq. 3).

    ``L(p) = 0.5 (p - y)² / β`` if ``|p - y| < β`` else ``|p - y| - 0.5 β`` (torch's
    ``smooth_l1_loss``), ``β = 0.3`` in the paper. AdamW, float64, deterministic on CPU for a fixed
    ``random_state``; ``device="auto"`` picks CUDA when available. docs/theory.md §11 (LR2PPO).

    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 3)); y = (X[:, 0] > 0).astype(float) + (X[:, 0] > 1)
    >>> m = RelevanceRegressor(hidden=(8,), epochs=30, lr=1e-2, batch_size=16, random_state=0)
    >>> bool(np.corrcoef(m.fit(X, y).decision_function(X), y)[0, 1] > 0.9)
    True
    """

    _param_checks = {"beta": positive()}

    def __init__(self, *, hidden: tuple[int, ...] = (64,), beta: float = 0.3, epochs: int = 15,
                 batch_size: int = 64, lr: float = 1e-3, weight_decay: float = 1e-2,
                 random_state: int | np.random.Generator | None = None, device: str = "auto",
                 n_jobs: int | None = None) -> None:
        self.hidden = hidden
        self.beta = beta
        self.epochs = epochs
        self.batch_size = batch_size
        self.lr = lr
        self.weight_decay = weight_decay
        self.random_state = random_state
        self.device = device
        self.n_jobs = n_jobs

    def fit(self, X: ArrayLike, relevance: ArrayLike) -> RelevanceRegressor:
        """Fit on features ``X`` (n, d) and graded relevance (n,) (e.g. 0, 1, 2)."""
        import torch
        import torch.nn.functional as F

        with self._fitting() as fit:  # parameters, device_, n_jobs threads, seeded Generator
            Xa = check_array(X, "X", ndim=2)
            y = check_array(relevance, "relevance", ndim=1)
            check_consistent_length(X=Xa, relevance=y)
            rng, dev = fit.rng, fit.device
            self.n_features_in_ = Xa.shape[1]
            body, head = split_head(make_mlp(Xa.shape[1], self.hidden, 1, seed=fit.torch_seed(),
                                             dtype=torch.float64))
            self.net_ = torch.nn.Sequential(body, head).to(dev)
            Xt, yt = torch.as_tensor(Xa, device=dev), torch.as_tensor(y, device=dev)
            opt = torch.optim.AdamW(self.net_.parameters(), lr=self.lr,
                                    weight_decay=self.weight_decay)
            self.loss_curve_ = minibatch_epochs(
                opt, lambda ii: F.smooth_l1_loss(self.net_(Xt[ii])[:, 0], yt[ii], beta=self.beta),
                len(Xa), epochs=self.epochs, batch_size=self.batch_size, rng=rng, device=dev)
        return self

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """Relevance scores, shape (n,)."""
        import torch

        with self._predicting("net_") as dev, torch.no_grad():
            return self.net_(self._feature_tensor(X, dev))[:, 0].cpu().numpy()


def finetune_on_pairs(actor: RelevanceRegressor, X: ArrayLike, pairs: ArrayLike, *, margin: float = 1.0,
                      epochs: int = 5, batch_size: int = 256, lr: float = 1e-3,
                      weight_decay: float = 1e-2, random_state: int | np.random.Generator | None = None) -> RelevanceRegressor:
    """Control baseline (not in the paper): fine-tune the stage-1 actor on annotated pairs directly.

    A copy of ``actor`` is trained with the margin ranking loss
    ``max(0, m - (f(x_i) - f(x_j)))`` on the pairs ``(i, j)`` (``i`` preferred), with no reward
    model and no PPO. It answers whether stage 3 adds anything beyond the annotations themselves.
    docs/theory.md §8, §11 (LR2PPO).

    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 3)); rel = (X[:, 0] > 0).astype(float)
    >>> base = RelevanceRegressor(hidden=(8,), epochs=2, random_state=0).fit(X, -X[:, 0])
    >>> tuned = finetune_on_pairs(base, X, partial_order_pairs(rel, np.zeros(40)), epochs=20,
    ...                           lr=1e-2, random_state=0)
    >>> bool(np.corrcoef(tuned.decision_function(X), X[:, 0])[0, 1] > 0.5)
    True
    """
    import torch

    from bipartite.surrogates import margin_ranking_loss

    if not isinstance(actor, RelevanceRegressor) or not hasattr(actor, "net_"):
        raise ValueError(f"The 'actor' parameter must be a fitted RelevanceRegressor, "
                         f"got {actor!r}.")
    check_positive(margin, "margin")
    check_positive(epochs, "epochs", integer=True)
    check_positive(batch_size, "batch_size", integer=True)
    check_positive(lr, "lr")
    Xa = check_array(X, "X", ndim=2)
    if Xa.shape[1] != actor.n_features_in_:
        raise ValueError(f"The 'X' parameter must have {actor.n_features_in_} columns, "
                         f"got {Xa.shape[1]}.")
    P = check_pairs(pairs, len(Xa))
    rng = check_random_state(random_state, "random_state")
    tuned = copy.deepcopy(actor)
    dev = tuned.device_
    Xt, Pt = torch.as_tensor(Xa, device=dev), torch.as_tensor(P, device=dev)
    opt = torch.optim.AdamW(tuned.net_.parameters(), lr=lr, weight_decay=weight_decay)

    def batch_loss(ii):
        pp = Pt[ii]
        return margin_ranking_loss(tuned.net_(Xt[pp[:, 0]])[:, 0], tuned.net_(Xt[pp[:, 1]])[:, 0],
                                   margin=float(margin))

    with torch_threads(tuned.n_jobs):  # the actor's thread policy
        minibatch_epochs(opt, batch_loss, len(P), epochs=epochs, batch_size=batch_size, rng=rng,
                         device=dev)
    return tuned


# --------------------------------------------------------------------------------------------------
# stage 2: the reward model over ordered pairs
# --------------------------------------------------------------------------------------------------
def _pair_input(x1, x2):
    """Input of a pair network: ``[x_first, x_second, x_first - x_second]``."""
    import torch

    return torch.cat([x1, x2, x1 - x2], dim=-1)


class PairRewardModel(TorchEstimator):
    """Stage 2 of LR2PPO: reward of an ordered pair, trained with the margin loss of Eq. 4.

    ``R(x_first, x_second) = MLP([x_first, x_second, x_first - x_second])``; for a partial-order
    pair ``g_c = (i, j)`` (``i`` preferred) the loss is
    ``max(0, m_R - (R(x_i, x_j) - R(x_j, x_i)))`` (:func:`bipartite.surrogates.margin_ranking_loss`,
    ``m_R = 1`` in the paper). The paper's reward model reads the concatenation of the initial pair
    and the reranked pair; since the initial pair is the same two items, only the proposed order
    carries information, so the ordered pair is the input here. docs/theory.md §8, §11 (LR2PPO).

    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 3)); rel = (X[:, 0] > 0).astype(float)
    >>> pairs = partial_order_pairs(rel, np.zeros(40))
    >>> rm = PairRewardModel(hidden=(8,), epochs=20, lr=1e-2, random_state=0).fit(X, pairs)
    >>> bool(rm.accuracy(X, pairs) > 0.9)
    True
    """

    _param_checks = {"margin": positive()}

    def __init__(self, *, hidden: tuple[int, ...] = (64,), margin: float = 1.0, epochs: int = 15,
                 batch_size: int = 256, lr: float = 1e-3, weight_decay: float = 1e-2,
                 random_state: int | np.random.Generator | None = None, device: str = "auto",
                 n_jobs: int | None = None) -> None:
        self.hidden = hidden
        self.margin = margin
        self.epochs = epochs
        self.batch_size = batch_size
        self.lr = lr
        self.weight_decay = weight_decay
        self.random_state = random_state
        self.device = device
        self.n_jobs = n_jobs

    def fit(self, X: ArrayLike, pairs: ArrayLike) -> PairRewardModel:
        """Fit on features ``X`` (n, d) and partial-order pairs (P, 2), preferred item first."""
        import torch

        from bipartite.surrogates import margin_ranking_loss

        with self._fitting() as fit:  # parameters, device_, n_jobs threads, seeded Generator
            Xa = check_array(X, "X", ndim=2)
            P = check_pairs(pairs, len(Xa))
            rng, dev = fit.rng, fit.device
            self.n_features_in_ = Xa.shape[1]
            body, head = split_head(make_mlp(3 * Xa.shape[1], self.hidden, 1,
                                             seed=fit.torch_seed(), dtype=torch.float64))
            self.net_ = torch.nn.Sequential(body, head).to(dev)
            Xt = torch.as_tensor(Xa, device=dev)
            Pt = torch.as_tensor(P, device=dev)
            opt = torch.optim.AdamW(self.net_.parameters(), lr=self.lr,
                                    weight_decay=self.weight_decay)

            def batch_loss(ii):
                pp = Pt[ii]
                xa, xb = Xt[pp[:, 0]], Xt[pp[:, 1]]
                good = self.net_(_pair_input(xa, xb))[:, 0]
                bad = self.net_(_pair_input(xb, xa))[:, 0]
                return margin_ranking_loss(good, bad, margin=float(self.margin))

            self.loss_curve_ = minibatch_epochs(opt, batch_loss, len(P), epochs=self.epochs,
                                                batch_size=self.batch_size, rng=rng, device=dev)
        return self

    def reward(self, X_first: ArrayLike, X_second: ArrayLike) -> np.ndarray:
        """``R(x_first, x_second)`` row by row, shape (P,)."""
        import torch

        with self._predicting("net_") as dev, torch.no_grad():
            a, b = self._feature_tensor(X_first, dev), self._feature_tensor(X_second, dev)
            if a.shape != b.shape:
                raise ValueError(f"The 'X_first' and 'X_second' parameters must have the same "
                                 f"shape, got {tuple(a.shape)} and {tuple(b.shape)}.")
            return self.net_(_pair_input(a, b))[:, 0].cpu().numpy()

    def accuracy(self, X: ArrayLike, pairs: ArrayLike) -> float:
        """Share of partial-order pairs with ``R(correct order) > R(flipped)`` (ties count ½).

        The "Reward Model Accuracy" of the paper's Tab. 3.
        """
        Xa = check_array(X, "X", ndim=2)
        P = check_pairs(pairs, len(Xa))
        good = self.reward(Xa[P[:, 0]], Xa[P[:, 1]])
        bad = self.reward(Xa[P[:, 1]], Xa[P[:, 0]])
        return float(np.mean((good > bad) + 0.5 * (good == bad)))


# --------------------------------------------------------------------------------------------------
# stage 3: PPO with the partial-order ratio
# --------------------------------------------------------------------------------------------------
def _bernoulli_kl(p, q, eps: float = 1e-12):
    """KL(Bern(p) || Bern(q)) elementwise (clamped away from 0 and 1)."""
    import torch

    p = p.clamp(eps, 1 - eps)
    q = q.clamp(eps, 1 - eps)
    return p * torch.log(p / q) + (1 - p) * torch.log((1 - p) / (1 - q))


def _order_logprobs(diff):
    """log σ(d) and log σ(-d) of a score difference d (log-sigmoid: stable for large |d|)."""
    import torch.nn.functional as F

    return F.logsigmoid(diff), F.logsigmoid(-diff)


def _check_policy_tensor(x: torch.Tensor | ArrayLike, name: str, *, floating: bool = False,
                         n: int | None = None) -> torch.Tensor:
    """An input of :func:`partial_order_policy_loss`: a 1-D, non-empty, finite tensor (of length
    ``n``, that of ``p1``, when given), named in every error."""
    import torch

    from bipartite._utils.tensor_checks import check_finite_where

    if not check_dense_tensor(x, name):  # sparse and meta tensors refused by name
        x = torch.as_tensor(check_array(x, name, allow_empty=True, finite=False).copy())
    if x.dtype == torch.bool or x.is_complex() or (floating and not torch.is_floating_point(x)):
        raise TypeError(f"The '{name}' parameter must be a "
                        f"{'floating-point' if floating else 'real'} tensor, got dtype {x.dtype}.")
    if x.ndim != 1:
        raise ValueError(f"The '{name}' parameter must be 1-dimensional [n], "
                         f"got shape {tuple(x.shape)}.")
    if x.numel() == 0:
        raise ValueError(f"The '{name}' parameter must not be empty, got shape {tuple(x.shape)}.")
    if n is not None and len(x) != n:
        raise ValueError(f"The '{name}' parameter must have the length of 'p1' ({n}), "
                         f"got shape {tuple(x.shape)}.")
    if torch.is_floating_point(x):
        check_finite_where(x, torch.ones_like(x, dtype=torch.bool), name)
    return x


def partial_order_policy_loss(p1: torch.Tensor, p2: torch.Tensor, advantage: torch.Tensor, *, margin: float = 1.0,
                              delta: float = -0.1) -> torch.Tensor:
    """Policy loss of LR2PPO with the partial-order ratio (paper Eq. 7-9).

    ``H(a, b) = max(0, m - (a - b))`` (Eq. 7, :func:`bipartite.surrogates.margin_ranking_loss`);
    ``r' = -H(p¹, p²)`` if ``Â >= δ`` else ``-H(p², p¹)`` (Eq. 8);
    ``L_PF = -mean(r' · |Â|)`` (Eq. 9). ``p¹``/``p²`` are the actor's scores of the item the action
    put first/second; the advantage only selects the direction and weights the pair.
    docs/theory.md §11 (LR2PPO).

    Parameters
    ----------
    p1, p2, advantage : torch tensors (or array-likes) of shape [n], non-empty and finite
        (``advantage`` is treated as a constant); ``p1``/``p2`` floating point.
    margin : float > 0
    delta : finite float

    >>> import torch
    >>> p1, p2 = torch.tensor([2.0, 0.0]), torch.tensor([0.5, 0.0])
    >>> round(float(partial_order_policy_loss(p1, p2, torch.tensor([1.0, -2.0]))), 4)
    1.0
    """
    import torch

    from bipartite.surrogates import margin_ranking_loss

    margin = check_positive(margin, "margin")
    delta = check_real(delta, "delta")
    if not np.isfinite(delta):
        raise ValueError(f"The 'delta' parameter must be finite, got {delta!r}.")
    p1 = _check_policy_tensor(p1, "p1", floating=True)
    p2 = _check_policy_tensor(p2, "p2", floating=True, n=len(p1))
    A = _check_policy_tensor(advantage, "advantage", n=len(p1)).detach()
    h_fwd = margin_ranking_loss(p1, p2, margin=margin, reduction="none")
    h_rev = margin_ranking_loss(p2, p1, margin=margin, reduction="none")
    r_prime = -torch.where(A >= delta, h_fwd, h_rev)                 # Eq. 8
    return -(r_prime * A.abs()).mean()                                # Eq. 9


class LR2PPO(TorchEstimator):
    """Stage 3 of LR2PPO: PPO with the partial-order ratio (paper Eq. 5-11, Algorithm B.1).

    See the module docstring for the MDP. Per iteration: ``n_trajs`` states (pairs of one query,
    random initial order) are rolled out with the old policy (``T = 1``), rewards come from the
    frozen reward model, advantages ``Â = r - V_old(s)``; then ``n_epochs`` passes over
    minibatches of size ``batch_size`` minimise

        ``L = L_PF + c1 · mean((V_ω(s) - r)²) - c2 · S(π_θ) [+ c3 · KL(π_ref || π_θ)]``

    (Eq. 11), where ``S`` is the entropy of the order distribution of the pair and the KL term is
    in the loss only with ``kl_placement="loss"`` (default ``"reward"``: subtracted from the
    reward at rollout, as in the paper's App. C.3). ``ratio="partial"``: Eq. 8-9;
    ``ratio="original"``: PPO's clipped ratio ``π_θ(a|s)/π_old(a|s)`` (Eq. A.3, clip ``ε``).

    Defaults follow App. C.3 (``c1 = 1, c2 = c3 = 1e-3, m = 1, δ = -0.1``, AdamW lr ``1e-3``,
    ``n_trajs = 200, n_epochs = 1, batch_size = 24``); ``n_iters`` is smaller than their 412 by
    default. docs/theory.md §11 (LR2PPO).

    Parameters
    ----------
    actor : fitted RelevanceRegressor
        The stage-1 model; it is copied (not modified) and is the KL reference policy.
    reward_model : fitted PairRewardModel
        Frozen reward; the critic starts as a copy of it.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 3)); rel = (X[:, 0] > 0).astype(float); q = np.arange(60) // 10
    >>> base = RelevanceRegressor(hidden=(8,), epochs=5, random_state=0).fit(X, rel)
    >>> rm = PairRewardModel(hidden=(8,), epochs=5, random_state=0).fit(
    ...     X, partial_order_pairs(rel, q))
    >>> ppo = LR2PPO(base, rm, n_iters=3, n_trajs=24, random_state=0).fit(X, q)
    >>> ppo.decision_function(X).shape, len(ppo.history_)
    ((60,), 3)
    """

    def __init__(
        self,
        actor: RelevanceRegressor,
        reward_model: PairRewardModel,
        *,
        margin: float = 1.0,
        delta: float = -0.1,
        c1: float = 1.0,
        c2: float = 1e-3,
        c3: float = 1e-3,
        kl_placement: str = "reward",
        ratio: str = "partial",
        clip: float = 0.2,
        sample_actions: bool = True,
        n_iters: int = 100,
        n_trajs: int = 200,
        n_epochs: int = 1,
        batch_size: int = 24,
        lr: float = 1e-3,
        weight_decay: float = 1e-2,
        random_state: int | np.random.Generator | None = None,
        device: str = "auto",
        n_jobs: int | None = None,
    ) -> None:
        self.actor = actor
        self.reward_model = reward_model
        self.margin = margin
        self.delta = delta
        self.c1 = c1
        self.c2 = c2
        self.c3 = c3
        self.kl_placement = kl_placement
        self.ratio = ratio
        self.clip = clip
        self.sample_actions = sample_actions
        self.n_iters = n_iters
        self.n_trajs = n_trajs
        self.n_epochs = n_epochs
        self.batch_size = batch_size
        self.lr = lr
        self.weight_decay = weight_decay
        self.random_state = random_state
        self.device = device
        self.n_jobs = n_jobs

    _param_checks = {
        "actor": fitted(RelevanceRegressor, "net_"),
        "reward_model": fitted(PairRewardModel, "net_"),
        "kl_placement": one_of("reward", "loss"),
        "ratio": one_of("partial", "original"),
        "margin": positive(),
        "clip": positive(),
        "c1": positive(allow_zero=True),
        "c2": positive(allow_zero=True),
        "c3": positive(allow_zero=True),
        "delta": finite,
        "sample_actions": boolean,
        "n_iters": positive(integer=True),
        "n_trajs": positive(integer=True),
        "n_epochs": positive(integer=True),
    }

    def _check_param_relations(self) -> None:
        if self.actor.n_features_in_ != self.reward_model.n_features_in_:
            raise ValueError("The 'actor' and 'reward_model' parameters must use the same "
                             f"features, got {self.actor.n_features_in_} and "
                             f"{self.reward_model.n_features_in_} columns.")

    def fit(self, X: ArrayLike, qid: ArrayLike = None, *, pairs: ArrayLike | None = None,
            callback: Callable[[int, LR2PPO], dict | None] | None = None,
            groups: ArrayLike = None) -> LR2PPO:
        """Run stage 3 on the (unannotated) target items ``X`` (n, d) grouped by the query ids
        ``qid`` (``groups``: its deprecated alias, FutureWarning).

        Parameters
        ----------
        pairs : (P, 2) int array, optional
            Pool of item pairs the states are drawn from (default: all pairs within a group).
            Their order in the pool is irrelevant: each state gets a random initial order.
        callback : callable(iteration, model) -> dict or None, optional
            Called after each iteration (e.g. to evaluate NDCG for training curves); a returned
            dict is merged into that iteration's ``history_`` entry.
        """
        import torch

        with self._fitting() as fit:  # parameters, device_, n_jobs threads, seeded Generator
            Xa = check_array(X, "X", ndim=2)
            qid, qname = require_qid(qid, groups, f"{type(self).__name__}.fit")
            codes = query_codes(qid, qname, len(Xa), "X")
            pool = pairs_within(codes, MAX_PAIRS, qname) if pairs is None else check_pairs(
                pairs, len(Xa))
            if len(pool) == 0:
                raise ValueError("No state can be drawn: every group has a single item.")
            if Xa.shape[1] != self.actor.n_features_in_:
                raise ValueError(f"The 'X' parameter must have {self.actor.n_features_in_} "
                                 f"columns, got {Xa.shape[1]}.")
            rng, dev = fit.rng, fit.device
            self.n_features_in_ = Xa.shape[1]
            self.net_ = copy.deepcopy(self.actor.net_).to(dev)          # actor π_θ
            ref = copy.deepcopy(self.actor.net_).to(dev).requires_grad_(False)  # stage-1 policy
            critic = copy.deepcopy(self.reward_model.net_).to(dev)      # V_ω, init from the RM
            reward = copy.deepcopy(self.reward_model.net_).to(dev).requires_grad_(False)
            self.critic_ = critic
            opt = torch.optim.AdamW(list(self.net_.parameters()) + list(critic.parameters()),
                                    lr=self.lr, weight_decay=self.weight_decay)
            Xt = torch.as_tensor(Xa, device=dev)
            m, delta = float(self.margin), float(self.delta)
            self.history_ = []
            for it in range(int(self.n_iters)):
                # ---- rollout with the old policy (T = 1) ---------------------------------------
                pick = rng.integers(0, len(pool), size=int(self.n_trajs))
                flip = rng.random(int(self.n_trajs)) < 0.5
                s = pool[pick]
                s = np.where(flip[:, None], s[:, ::-1], s)           # random initial order
                st = torch.as_tensor(s, device=dev)
                xa, xb = Xt[st[:, 0]], Xt[st[:, 1]]
                with torch.no_grad():
                    d_old = (self.net_(xa) - self.net_(xb))[:, 0]    # p_a - p_b
                    p_old = torch.sigmoid(d_old)                       # π_old(a first | s)
                    p_ref = torch.sigmoid((ref(xa) - ref(xb))[:, 0])
                    if self.sample_actions:
                        u = torch.as_tensor(rng.random(len(s)), device=dev)
                        a_first = u < p_old
                    else:
                        a_first = d_old >= 0
                    first = torch.where(a_first, st[:, 0], st[:, 1])
                    second = torch.where(a_first, st[:, 1], st[:, 0])
                    r = reward(_pair_input(Xt[first], Xt[second]))[:, 0]
                    kl_roll = _bernoulli_kl(p_ref, p_old)
                    if self.kl_placement == "reward":
                        r = r - float(self.c3) * kl_roll
                    v_old = critic(_pair_input(xa, xb))[:, 0]
                    adv = r - v_old                                    # Eq. 6, V_target = r
                    logp_a, logp_b = _order_logprobs(d_old)
                    logp_old = torch.where(a_first, logp_a, logp_b)
                # ---- K epochs of minibatch updates --------------------------------------------
                stats = {"policy_loss": 0.0, "value_loss": 0.0, "entropy": 0.0, "kl": 0.0}
                steps = 0
                for _ in range(int(self.n_epochs)):
                    for idx in minibatches(len(s), int(self.batch_size), rng):
                        ii = torch.as_tensor(idx, device=dev)
                        f1 = self.net_(Xt[first[ii]])[:, 0]
                        f2 = self.net_(Xt[second[ii]])[:, 0]
                        A = adv[ii]
                        if self.ratio == "partial":
                            l_pf = partial_order_policy_loss(f1, f2, A, margin=m, delta=delta)
                        else:
                            logp_new = _order_logprobs(f1 - f2)[0]  # log π_θ(first ≻ second)
                            rho = torch.exp(logp_new - logp_old[ii])
                            clipped = rho.clamp(1 - float(self.clip), 1 + float(self.clip))
                            l_pf = -torch.minimum(rho * A, clipped * A).mean()  # Eq. A.3
                        xa_i, xb_i = Xt[st[ii, 0]], Xt[st[ii, 1]]
                        l_vf = ((critic(_pair_input(xa_i, xb_i))[:, 0] - r[ii]) ** 2).mean()
                        d_new = (self.net_(xa_i) - self.net_(xb_i))[:, 0]
                        la, lb = _order_logprobs(d_new)
                        pa = torch.sigmoid(d_new)
                        ent = -(pa * la + (1 - pa) * lb).mean()
                        kl = _bernoulli_kl(p_ref[ii], pa).mean()
                        loss = l_pf + float(self.c1) * l_vf - float(self.c2) * ent
                        if self.kl_placement == "loss":
                            loss = loss + float(self.c3) * kl
                        opt.zero_grad()
                        loss.backward()
                        opt.step()
                        stats["policy_loss"] += float(l_pf.detach())
                        stats["value_loss"] += float(l_vf.detach())
                        stats["entropy"] += float(ent.detach())
                        stats["kl"] += float(kl.detach())
                        steps += 1
                entry = {"iteration": it + 1, "reward": float(r.mean()),
                         "advantage_ge_delta": float((adv >= delta).double().mean()),
                         **{k: v / steps for k, v in stats.items()}}
                if callback is not None:
                    extra = callback(it + 1, self)
                    if extra:
                        entry.update(extra)
                self.history_.append(entry)
        return self

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """Scores of the trained actor, shape (n,)."""
        import torch

        with self._predicting("net_") as dev, torch.no_grad():
            return self.net_(self._feature_tensor(X, dev))[:, 0].cpu().numpy()
