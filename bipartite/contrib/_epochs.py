"""The minibatch epoch loop of the contrib torch estimators: one home for the loop that
:class:`~bipartite.contrib.label_ranking.LabelRankingMLP`,
:class:`~bipartite.contrib.label_ranking.ThresholdNetwork`,
:class:`~bipartite.contrib.lr2ppo.RelevanceRegressor`,
:class:`~bipartite.contrib.lr2ppo.PairRewardModel` and
:func:`~bipartite.contrib.lr2ppo.finetune_on_pairs` train with (the PPO stage, the listwise AP
trainer and the multi-task learners have loops of their own: rollouts, query batches, early
stopping).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from bipartite.learners.nets import minibatches

if TYPE_CHECKING:
    import torch


def minibatch_epochs(opt: torch.optim.Optimizer, batch_loss: Callable[[torch.Tensor], torch.Tensor],
                     n: int, *, epochs: int, batch_size: int, rng: np.random.Generator,
                     device: torch.device) -> list[float]:
    """``epochs`` passes over ``n`` rows in shuffled minibatches (:func:`minibatches`, drawn from
    ``rng``): for each, ``batch_loss(idx)`` (``idx`` the batch's row indices as a tensor on
    ``device``), one backward pass and one step of ``opt``. Returns the loss curve: per epoch,
    the mean of the batch losses weighted by batch size (the estimators' ``loss_curve_``).
    """
    import torch

    curve = []
    for _ in range(int(epochs)):
        total = 0.0
        for idx in minibatches(n, int(batch_size), rng):
            opt.zero_grad()
            loss = batch_loss(torch.as_tensor(idx, device=device))
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
        curve.append(total / n)
    return curve
