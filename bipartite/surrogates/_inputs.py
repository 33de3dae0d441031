"""The input step of every surrogate loss (docs/theory.md §8): checked ``scores``, ``labels`` and
``where`` of shape ``[..., n_items]``, padded entries zeroed; the reductions the losses accept.

The checks themselves live in :mod:`bipartite._utils.tensor_checks`; this module is the one place that
puts them together for the losses of :mod:`bipartite.surrogates`.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from numpy.typing import ArrayLike

from bipartite._utils.tensor_checks import (
    as_like,
    as_scores,
    as_where,
    check_binary_where,
    check_finite_where,
)

__all__ = ["REDUCTIONS", "Step", "prepare_inputs"]

#: The ``reduction`` options of the losses (docs/theory.md §8; rax ``safe_reduce``).
REDUCTIONS = ("mean", "sum", "none")

#: A step function of the AP family: elementwise on a tensor of score differences.
Step = Callable[[torch.Tensor], torch.Tensor]


def prepare_inputs(scores: torch.Tensor | ArrayLike, labels: torch.Tensor | ArrayLike, where: torch.Tensor | ArrayLike, *, labels_name: str = "labels",
             binary: bool = False) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Validate ``scores``/``labels``/``where`` ([..., n_items] each); zero out padded entries.

    The input step of every loss here, public so that a trainer built on :func:`ap_loss` or
    :func:`pairwise_loss` validates the same way. Returns ``(scores, labels, where)`` tensors.

    Padded scores are replaced by 0 (with zero gradient) so that a NaN or inf used as padding can
    never reach a kernel: ``0 * nan`` in a backward pass would poison every gradient.
    """
    s = as_scores(scores)
    y = as_like(labels, labels_name, s)
    valid = as_where(where, s)
    check_finite_where(s, valid, "scores")
    check_finite_where(y, valid, labels_name)
    if binary:
        check_binary_where(y, valid, labels_name)
    zero = torch.zeros((), dtype=s.dtype, device=s.device)
    return torch.where(valid, s, zero), torch.where(valid, y, zero), valid
