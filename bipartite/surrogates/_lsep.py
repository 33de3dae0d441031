"""Log-sum-exp pairwise losses (docs/theory.md §8): :func:`lsep_loss` (LSEP, RLSEP Eq. 3) and
:func:`rlsep_loss` (RLSEP Eq. 6), one kernel ``_lse_pairs_kernel`` over a mask of ordered pairs,
optionally a uniform random subset of them.
"""

from __future__ import annotations

import numpy as np
import torch
from numpy.typing import ArrayLike

from bipartite._utils.tensor_checks import (
    check_generator,
    check_nonnegative_where,
    safe_reduce,
    show_first_bad,
)
from bipartite._utils.validation import check_option
from bipartite.ranked_metrics import non_ranks, ranks_error
from bipartite.surrogates._inputs import REDUCTIONS, prepare_inputs

__all__ = ["lsep_loss", "rlsep_loss"]


def _sample_pairs(pair_mask: torch.Tensor, t: int, generator: torch.Generator | None
                  ) -> torch.Tensor:
    """Uniform random subset of min(t, #pairs) valid pairs per list, without replacement."""
    shape = pair_mask.shape
    flat = pair_mask.reshape(*shape[:-2], -1)
    # draw on the generator's device (a CPU generator may drive a CUDA loss), then move
    device = generator.device if generator is not None else pair_mask.device
    keys = torch.rand(flat.shape, generator=generator, device=device).to(pair_mask.device)
    keys = torch.where(flat, keys, torch.full_like(keys, -1.0))  # invalid pairs sort last
    k = min(t, flat.shape[-1])
    top = torch.topk(keys, k, dim=-1).indices
    chosen = torch.zeros_like(flat).scatter(-1, top, True) & flat
    return chosen.reshape(shape)


def _lse_pairs_kernel(scores: torch.Tensor, pair_mask: torch.Tensor) -> torch.Tensor:
    """``log(1 + Σ_{(u,v) in pairs} exp(f_v - f_u))`` per list (``pair_mask[..., u, v]``: u > v)."""
    z = scores[..., None, :] - scores[..., :, None]  # z[..., u, v] = f_v - f_u
    # log(1 + Σ e^z) = m + log1p(Σ_{t ≠ t_a} e^{t − m}) over t ∈ {0, z...} with m = t_a their
    # maximum: never exponentiates a large positive z, and, unlike logsumexp (log of 1 + tiny),
    # keeps full relative precision when every pair is well ranked (log(1 + e^{−40}) ≈ 4e-18, not 0).
    # Excluded pairs enter as -inf (weight exactly 0 in value and gradient).
    z = torch.where(pair_mask, z, torch.full_like(z, -torch.inf)).flatten(-2)
    zero = torch.zeros((*z.shape[:-1], 1), dtype=z.dtype, device=z.device)
    t = torch.cat([zero, z], dim=-1)
    m, a = t.max(dim=-1, keepdim=True)
    rest = torch.exp(t - m).scatter(-1, a, 0.0).sum(-1, keepdim=True)
    return (m + torch.log1p(rest)).squeeze(-1)


def _lsep_dispatch(s: torch.Tensor, y: torch.Tensor, valid: torch.Tensor, num_pairs: int,
                   generator: int | torch.Generator, reduction: str) -> torch.Tensor:
    pair_mask = valid[..., :, None] & valid[..., None, :] & (y[..., :, None] > y[..., None, :])
    if num_pairs is not None:
        if isinstance(num_pairs, bool) or not isinstance(num_pairs, (int, np.integer)) \
                or num_pairs < 1:
            raise ValueError(f"The 'num_pairs' parameter must be a positive int or None, "
                             f"got {num_pairs!r}.")
        pair_mask = _sample_pairs(pair_mask, int(num_pairs),
                                  check_generator(generator))
    per_list = _lse_pairs_kernel(s, pair_mask)
    return safe_reduce(per_list, valid.any(-1).to(s.dtype), reduction)


def lsep_loss(scores: torch.Tensor | ArrayLike, labels: torch.Tensor | ArrayLike, *, num_pairs: int | None = None, generator: int | torch.Generator | None = None,
              where: torch.Tensor | ArrayLike | None = None, reduction: str = "mean") -> torch.Tensor:
    """LSEP loss (Li et al. 2017; RLSEP Eq. 3, docs/theory.md §8).

    Per list (last dimension = the labels of one instance):
    ``log(1 + Σ_{u positive, v negative} exp(f_v - f_u))``, computed as a log-sum-exp. A list
    without a positive-negative pair has loss 0 (and zero gradient).

    Parameters
    ----------
    scores : tensor [..., n_labels]
    labels : tensor [..., n_labels], binary
    num_pairs : int, optional
        Use a uniformly random subset of ``t = num_pairs`` positive-negative pairs per list, drawn
        without replacement (all pairs when fewer). The subset is not rescaled.
    generator : torch.Generator or int, optional
        Randomness of the pair subset: an int seeds a fresh CPU generator (the same subset on
        every device); a ``torch.Generator`` draws on its own device; None uses torch's global
        generator (seed it with ``torch.manual_seed``).
    where : bool tensor [..., n_labels], optional
    reduction : {"mean", "sum", "none"}
        ``"mean"``: over the lists that have at least one valid entry.

    >>> import torch
    >>> s = torch.tensor([[1.0, 0.0, -1.0]])
    >>> y = torch.tensor([[1.0, 0.0, 0.0]])
    >>> round(lsep_loss(s, y).item(), 4)  # log(1 + e^-1 + e^-2)
    0.4076
    """
    check_option(reduction, "reduction", REDUCTIONS)
    s, y, valid = prepare_inputs(scores, labels, where, binary=True)
    return _lsep_dispatch(s, y, valid, num_pairs, generator, reduction)


def rlsep_loss(scores: torch.Tensor | ArrayLike, ranks: torch.Tensor | ArrayLike, *, num_pairs: int | None = None, generator: int | torch.Generator | None = None,
               where: torch.Tensor | ArrayLike | None = None, reduction: str = "mean") -> torch.Tensor:
    """RLSEP loss (RLSEP Eq. 6, docs/theory.md §8): LSEP over all pairs ordered by label ranks.

    Per list: ``log(1 + Σ_{(u,v): r_u > r_v} exp(f_v - f_u))``. Only the order of the ranks
    matters (any strictly increasing map of ``ranks`` to non-negative integers gives the same loss; negative or fractional ranks are refused); equal ranks form
    no pair. With ranks in {0, 1} it is :func:`lsep_loss`. Options as in :func:`lsep_loss`.

    >>> import torch
    >>> s = torch.tensor([2.0, 1.0, 0.0])
    >>> r = torch.tensor([2.0, 1.0, 0.0])
    >>> round(rlsep_loss(s, r).item(), 4)  # log(1 + 2 e^-1 + e^-2)
    0.6265
    """
    check_option(reduction, "reduction", REDUCTIONS)
    s, r, valid = prepare_inputs(scores, ranks, where, labels_name="ranks")
    check_nonnegative_where(r, valid, "ranks")
    bad = non_ranks(r) & valid  # the rule and its message: bipartite.ranked_metrics
    if bool(bad.any()):
        raise ranks_error("ranks", *show_first_bad(bad, r))
    return _lsep_dispatch(s, r, valid, num_pairs, generator, reduction)
